/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_core.c - build and tear down a scheduler, read its counters, and check its
 * invariants (tests).
 *
 * Design
 *   create() validates the config, lays the tree out, and makes ONE page-backed allocation
 *   holding every array the scheduler will ever use: classes, leaves, per-leaf flow
 *   tables, the rows' and feeds' bitmaps, the two heaps and the packet pool. Every index is
 *   initialised here (pages are touched now, not by the first packets), so enqueue and
 *   dequeue never allocate and never fault in new memory.
 *
 *   Sizes:
 *     packet pool  opts.pkt_pool, or the sum of leaf limits capped at 1 << 20
 *     wait heap    one entry per class
 *     flow heap    min(total flow slots, pool): a flow is in it at most once, and a
 *                  waiting flow holds >= 1 packet (purge can empty waiting flows; the
 *                  heap drops those when it fills, see fh_compact in sched_fq.c)
 *     row / feed   a three-level bitmap per (level, prio) and per (inner class, prio)
 *
 *   Levels as sch_htb: a leaf is level 0; a root with children level 7; an inner class one
 *   less than its parent. An inner class below level 1 does not fit: EINVAL. Each class
 *   gets its local index in its parent's feeds and in its level's rows, in handle order
 *   (sch_htb orders both by classid).
 *
 * Slow path only: nothing here runs per packet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/sched.h>
#include "err.h"
#include "mem.h"
#include "opts.h"
#include "sched_int.h"

#define ALIGN64(x)	(((x) + 63) & ~(size_t)63)
/* A scheduler whose whole allocation is at most this stays in a core's L2: its enqueue and
 * dequeue skip the prefetch passes, which then only cost instructions. */
#define XTX_SCHED_SMALL_BYTES	(256u << 10)

static int cmp_hmap(const void *a, const void *b)
{
	const struct _xtx_hmap *x = a, *y = b;

	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

/* (key, handle, class) sorted by key then handle: gives each parent's children, and each
 * level's classes, as one run in handle (classid) order. */
struct ord {
	uint32_t key, handle, idx;
};

static int cmp_ord(const void *a, const void *b)
{
	const struct ord *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

static unsigned log2_u32(uint32_t v)	/* v a power of two */
{
	return (unsigned)__builtin_ctz(v);
}

/* Byte offsets of each array in the one allocation. */
struct layout {
	size_t cls, leaves, feeds, words, members, cls_leaf, slot_leaf, slot, slot_cls, dlist,
	       room_chg,
	       near_list, wq, fh, hmap, pool, flows, codel, dropped, total;
};

static int make_layout(struct layout *lo, uint32_t ncls, uint32_t nslots, uint32_t nleaves,
		       uint32_t ninner, size_t nwords, uint64_t nflows, uint64_t ncodel,
		       uint32_t fh_cap, uint32_t npool)
{
	size_t off = 0;

#define PLACE(field, bytes) do { lo->field = off; off = ALIGN64(off + (size_t)(bytes)); } while (0)
	PLACE(cls, (size_t)ncls * sizeof(struct _xtx_class));
	PLACE(leaves, (size_t)nleaves * sizeof(struct _xtx_leaf));
	PLACE(feeds, (size_t)(ninner ? ninner : 1) * _XTX_NUMPRIO * sizeof(struct _xtx_oset));
	PLACE(words, nwords * sizeof(uint64_t));
	PLACE(members, (size_t)2 * ncls * sizeof(uint32_t));
	PLACE(cls_leaf, (size_t)ncls * sizeof(uint32_t));
	PLACE(slot_leaf, (size_t)nslots * sizeof(uint32_t));
	PLACE(slot, (size_t)ncls * sizeof(uint32_t));
	PLACE(slot_cls, (size_t)nslots * sizeof(uint32_t));
	PLACE(dlist, (size_t)ncls * sizeof(uint32_t));
	PLACE(room_chg, (size_t)(nleaves ? nleaves : 1) * sizeof(uint32_t));
	PLACE(near_list, (size_t)(nleaves ? nleaves : 1) * sizeof(uint32_t));
	PLACE(wq, (size_t)ncls * sizeof(struct _xtx_wev));
	PLACE(fh, (size_t)fh_cap * sizeof(struct _xtx_fev));
	PLACE(hmap, (size_t)ncls * sizeof(struct _xtx_hmap));
	PLACE(pool, (size_t)npool * sizeof(struct _xtx_pkt));
	if (nflows > (SIZE_MAX >> 8) / sizeof(struct _xtx_flow))
		return -ENOMEM;
	PLACE(flows, (size_t)nflows * sizeof(struct _xtx_flow));
	PLACE(codel, (size_t)ncodel * sizeof(struct _xtx_codel));
	PLACE(dropped, (ncodel ? XTX_SCHED_DROPPED_MAX : 0) * sizeof(struct xtx_desc));
#undef PLACE
	lo->total = off;
	return 0;
}

static void init_flows(struct _xtx_leaf *L)
{
	uint32_t i;

	for (i = 0; i < L->nflows; i++) {
		struct _xtx_flow *f = &L->flows[i];

		f->head = _XTX_NIL;
		f->tail = 0;
		f->qlen = 0;
		f->state = _XTX_FLOW_DETACHED;
		f->hash = 0;
		f->credit = L->quantum;
		f->next = _XTX_NIL;
		f->tnp = 0;
	}
}

/* The tree as create() lays it out: each class's parent, children and depth, the counts
 * that size the one allocation, and the two sorted runs of `ord` (by parent, by level). */
struct shape {
	uint32_t n, nleaves, ninner, npool, fh_cap;
	uint32_t *parent, *nchild, *depth;	/* per class; parent _XTX_NIL for a root */
	uint32_t nlevel[_XTX_MAXDEPTH];		/* classes per level (0: leaves) */
	uint64_t nflows, limits;		/* flow slots and leaf limits, all leaves */
	uint64_t ncodel;			/* flow slots of leaves with CoDel */
	size_t nwords;				/* bitmap words of every row and feed */
	struct ord *ord;			/* 2 * n: by parent, then by level */
};

static void shape_free(struct shape *sh)
{
	free(sh->parent);
	free(sh->nchild);
	free(sh->depth);
	free(sh->ord);
}

/* Step 1: the tree's shape (validate() ruled out cycles). 0, or -ENOMEM / -EINVAL (a tree
 * too deep) with errno and the message set; the caller frees sh either way. */
static int shape_measure(struct shape *sh, const struct xtx_sched_config *cfg, char *err,
			 size_t errlen)
{
	uint32_t n = sh->n, i;

	sh->parent = calloc(n, sizeof(*sh->parent));
	sh->nchild = calloc(n, sizeof(*sh->nchild));
	sh->depth = calloc(n, sizeof(*sh->depth));
	sh->ord = calloc(2 * (size_t)n, sizeof(*sh->ord));
	if (!sh->parent || !sh->nchild || !sh->depth || !sh->ord) {
		xtx_errf(err, errlen, "out of memory building %u classes", n);
		errno = ENOMEM;
		return -ENOMEM;
	}
	/* Tree shape: parent index, children, depth. */
	for (i = 0; i < n; i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);
		int p = co->parent == XTX_HANDLE_ROOT ? -1 :
			xtx_sched_config__class_index(cfg, co->parent);

		sh->parent[i] = p < 0 ? _XTX_NIL : (uint32_t)p;
		if (p >= 0)
			sh->nchild[p]++;
	}
	for (i = 0; i < n; i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);
		uint32_t d = 0, c = sh->parent[i];

		while (c != _XTX_NIL && d < _XTX_MAXDEPTH) {
			d++;
			c = sh->parent[c];
		}
		sh->depth[i] = d;
		if (sh->nchild[i] && d > _XTX_MAXDEPTH - 2) {
			xtx_errf(err, errlen, "class %x:%x: tree too deep: an inner class may be at "
				"most %d levels below a root (sch_htb's %d levels); flatten the tree",
				XTX_HANDLE_MAJ(co->handle), XTX_HANDLE_MIN(co->handle),
				_XTX_MAXDEPTH - 2, _XTX_MAXDEPTH);
			errno = EINVAL;
			return -EINVAL;
		}
		if (sh->nchild[i]) {
			sh->ninner++;
			sh->nlevel[_XTX_MAXDEPTH - 1 - d]++;
			sh->nwords += _XTX_NUMPRIO * _xtx_oset_words(sh->nchild[i]);
		} else {
			sh->nleaves++;
			sh->nlevel[0]++;
			sh->nflows += co->fq ? co->flows : 1;
			sh->limits += co->limit;
		}
		/* run keys: by parent (roots last, unused), and by level */
		sh->ord[i] = (struct ord){ sh->parent[i], co->handle, i };
		sh->ord[n + i] = (struct ord){ sh->nchild[i] ? _XTX_MAXDEPTH - 1 - d : 0,
					       co->handle, i };
	}
	for (i = 0; i < _XTX_MAXDEPTH; i++)
		sh->nwords += _XTX_NUMPRIO * _xtx_oset_words(sh->nlevel[i]);
	qsort(sh->ord, n, sizeof(*sh->ord), cmp_ord);
	qsort(sh->ord + n, n, sizeof(*sh->ord), cmp_ord);
	return 0;
}

bool _xtx_leaf_codel(const struct xtx_class_opts *co, uint8_t dflt)
{
	return co->codel == XTX_CODEL_ON || (co->codel == XTX_CODEL_DEFAULT && dflt == XTX_CODEL_ON);
}

/* Step 1b: flow slots that need CoDel state. */
static void shape_codel(struct shape *sh, const struct xtx_sched_config *cfg, uint8_t dflt)
{
	for (uint32_t i = 0; i < sh->n; i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);

		if (!sh->nchild[i] && _xtx_leaf_codel(co, dflt))
			sh->ncodel += co->fq ? co->flows : 1;
	}
}

/* Step 2: packet pool and flow heap sizes (see the head of this file). */
static void shape_pool(struct shape *sh, const struct xtx_sched_opts *o)
{
	uint32_t npool = o->pkt_pool ? o->pkt_pool :
		(uint32_t)(sh->limits < _XTX_POOL_MAX ? sh->limits : _XTX_POOL_MAX);

	if (!npool)
		npool = 1;
	if (npool >= _XTX_NIL)
		npool = _XTX_NIL - 1;
	sh->npool = npool;
	sh->fh_cap = (uint32_t)(sh->nflows < npool ? sh->nflows : npool);
}

/* Step 3: point every array into the one allocation; scalar fields. */
static void place_arrays(struct xtx_sched *s, const struct layout *lo, char *base,
			 const struct shape *sh, const struct xtx_sched_config *cfg,
			 const struct xtx_sched_opts *o, uint64_t now_ns)
{
	s->mem = base;
	s->mem_len = lo->total;
	s->small = lo->total <= XTX_SCHED_SMALL_BYTES;
	s->cls = (struct _xtx_class *)(base + lo->cls);
	s->leaves = (struct _xtx_leaf *)(base + lo->leaves);
	s->feeds = (struct _xtx_oset *)(base + lo->feeds);
	s->cls_leaf = (uint32_t *)(base + lo->cls_leaf);
	s->slot_leaf = (uint32_t *)(base + lo->slot_leaf);
	s->slot = (uint32_t *)(base + lo->slot);
	s->slot_cls = (uint32_t *)(base + lo->slot_cls);
	s->dlist = (uint32_t *)(base + lo->dlist);
	s->room_chg = (uint32_t *)(base + lo->room_chg);
	s->near_list = (uint32_t *)(base + lo->near_list);
	s->wq = (struct _xtx_wev *)(base + lo->wq);
	s->fh = (struct _xtx_fev *)(base + lo->fh);
	s->hmap = (struct _xtx_hmap *)(base + lo->hmap);
	s->pool = (struct _xtx_pkt *)(base + lo->pool);
	s->ncls = sh->n;
	s->nslots = o->nslots ? o->nslots : sh->n;
	for (uint32_t k = 0; k < s->nslots; k++)
		s->slot_leaf[k] = s->slot_cls[k] = _XTX_NIL;
	for (uint32_t i = 0; i < sh->n; i++) {
		s->slot[i] = o->slots ? o->slots[i] : i;
		s->slot_cls[s->slot[i]] = i;
	}
	s->nleaves = sh->nleaves;
	s->ninner = sh->ninner;
	s->npool = sh->npool;
	s->fh_cap = sh->fh_cap;
	s->overhead = xtx_sched_config__overhead(cfg);
	s->horizon_ns = o->horizon_ns ? o->horizon_ns : _XTX_HORIZON_NS;
	s->dflt_target = o->target_ns;
	s->ecn_mark = o->ecn_mark;
	s->ecn_ctx = o->ecn_ctx;
	s->dropped = (struct xtx_desc *)(base + lo->dropped);
	s->sh = o->shared && xtx_sched_shared__class_count(o->shared) ? o->shared->cls : NULL;
	s->shq = s->sh ? o->shared->q : NULL;
	s->nq = s->sh ? o->shared->nqueues : 1;
	s->qidx = s->sh ? o->queue : 0;
	s->now = now_ns;
}

/* Step 4a: one leaf and its flow table; returns the flow slots it took. */
static uint32_t init_leaf(struct xtx_sched *s, uint32_t i, uint32_t li,
			  const struct xtx_class_opts *co, struct _xtx_flow *flows,
			  struct _xtx_codel **cv, uint8_t codel_dflt)
{
	struct _xtx_class *cl = &s->cls[i];
	struct _xtx_leaf *L = &s->leaves[li];
	uint32_t fl = co->fq ? co->flows : 1;

	cl->level = 0;
	cl->leaf = li;
	cl->inner = _XTX_NIL;
	s->cls_leaf[i] = li;
	s->slot_leaf[s->slot[i]] = li;

	L->flows = flows;
	L->nflows = fl;
	L->fq = co->fq;
	L->new_head = L->new_tail = L->old_head = L->old_tail = _XTX_NIL;
	L->hash_shift = 32 - log2_u32(fl);
	L->cls = i;
	init_flows(L);
	if (_xtx_leaf_codel(co, codel_dflt)) {	/* state zeroed by the allocation */
		L->codel = 1;
		L->cv = *cv;
		*cv += fl;
	}
	_xtx_leaf_params(L, co);
	if (_xtx_leaf_cap(L) < XTX_SCHED_ABSORB)	/* near a limit for good */
		s->near_fixed++;
	/* after the class's ceil_mult */
	_xtx_room_init(s, L, co->target ? co->target : s->dflt_target, s->now);
	L->slow = L->room | L->codel;
	return fl;
}

void _xtx_leaf_params(struct _xtx_leaf *L, const struct xtx_class_opts *co)
{
	L->limit = co->limit;
	L->flow_limit = co->fq ? co->flow_limit : co->limit;
	if (L->flow_limit > _XTX_QLEN_MAX)
		L->flow_limit = _XTX_QLEN_MAX;
	/* sch_fq clamps its quantum to [256, 1 << 20]; a FIFO's single flow needs no DRR,
	 * so it rotates rarely. */
	if (co->fq)
		L->quantum = (int32_t)(co->fq_quantum < 256 ? 256 :
			co->fq_quantum > (1u << 20) ? (1u << 20) : co->fq_quantum);
	else
		L->quantum = 1 << 20;
	L->pace_mult = co->fq && co->maxrate ? _xtx_rate_mult(co->maxrate) : 0;
	if (L->codel) {
		L->codel_ecn = co->codel_ecn;
		L->cd_target = co->codel_target ? co->codel_target : XTX_CODEL_TARGET_NS;
		L->cd_interval = co->codel_interval ? co->codel_interval : XTX_CODEL_INTERVAL_NS;
	}
}

void _xtx_class_params(struct _xtx_class *cl, const struct xtx_class_opts *co, uint32_t r2q)
{
	uint64_t q = co->quantum, ceil = co->ceil ? co->ceil : co->rate;

	if (!q) {	/* the config fills it; sch_htb's rule if not */
		q = co->rate / (r2q ? r2q : 10);
		q = q < 1000 ? 1000 : q > 200000 ? 200000 : q;
	}
	cl->rate_mult = _xtx_rate_mult(co->rate);
	cl->ceil_mult = _xtx_rate_mult(ceil);
	cl->buffer = _xtx_bytes_to_ns(co->burst, co->rate);
	cl->cbuffer = _xtx_bytes_to_ns(co->cburst, ceil);
	cl->prio = co->prio > XTX_PRIO_MAX ? XTX_PRIO_MAX : co->prio;
	cl->quantum = q > INT32_MAX ? INT32_MAX : (int32_t)q;
}

/* Step 4: classes (token buckets full at now_ns), leaves, flow tables, the handle map. */
static void init_classes(struct xtx_sched *s, const struct xtx_sched_config *cfg,
			 const struct shape *sh, struct _xtx_flow *flows, struct _xtx_codel *cv,
			 uint8_t codel_dflt, const uint8_t *sh_dev, uint64_t now_ns)
{
	uint32_t li = 0, ii = 0, i;
	uint32_t r2q = xtx_sched_config__r2q(cfg);

	for (i = 0; i < sh->n; i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);
		struct _xtx_class *cl = &s->cls[i];

		_xtx_class_params(cl, co, r2q);
		cl->tokens = cl->buffer;
		cl->ctokens = cl->cbuffer;
		if (s->sh && sh_dev && sh_dev[s->slot[i]]) {	/* local: one slice, taken */
			cl->shared = 1;
			cl->buffer = _xtx_sh_par(&_xtx_sh_of(s, i)->rate.slice);
			cl->cbuffer = _xtx_sh_par(&_xtx_sh_of(s, i)->ceil.slice);
			cl->tokens = cl->ctokens = 0;
		}
		cl->t_c = now_ns;
		cl->parent = sh->parent[i];
		cl->pq_idx = _XTX_NIL;
		cl->mode = _XTX_CAN_SEND;
		cl->feed_w = (uint32_t)cl->quantum;
		cl->handle = co->handle;
		s->hmap[i] = (struct _xtx_hmap){ co->handle, i };

		if (sh->nchild[i]) {
			cl->level = (uint8_t)(_XTX_MAXDEPTH - 1 - sh->depth[i]);
			cl->leaf = _XTX_NIL;
			cl->inner = ii++;
			s->cls_leaf[i] = _XTX_NIL;
		} else {
			uint32_t fl = init_leaf(s, i, li++, co, flows, &cv, codel_dflt);

			flows += fl;
		}
	}
	qsort(s->hmap, sh->n, sizeof(*s->hmap), cmp_hmap);
}

/* Step 5: rows and feeds, each a run of `ord` (members in handle order) and bitmap
 * words. */
static void init_sets(struct xtx_sched *s, const struct shape *sh, uint64_t *w,
		      uint32_t *mem)
{
	const struct ord *ord = sh->ord;
	uint32_t n = sh->n, k = 0, i, j;
	unsigned p;

	while (k < n) {		/* children of each inner class */
		uint32_t par = ord[k].key, cnt = 0;

		while (k + cnt < n && ord[k + cnt].key == par)
			cnt++;
		if (par != _XTX_NIL) {
			for (j = 0; j < cnt; j++) {
				mem[j] = ord[k + j].idx;
				s->cls[ord[k + j].idx].sib = j;
			}
			for (p = 0; p < _XTX_NUMPRIO; p++) {
				struct _xtx_oset *f =
					&s->feeds[(size_t)s->cls[par].inner * _XTX_NUMPRIO + p];

				f->w0 = w;
				f->w1 = w + (cnt + 63) / 64;
				w += _xtx_oset_words(cnt);
				f->member = mem;
				f->n = cnt;
			}
			mem += cnt;
		} else {
			for (j = 0; j < cnt; j++)
				s->cls[ord[k + j].idx].sib = _XTX_NIL;
		}
		k += cnt;
	}
	for (k = 0; k < n; k++)	/* classes by level (0 first), in handle order */
		mem[k] = ord[n + k].idx;
	k = 0;
	for (i = 0; i < _XTX_MAXDEPTH; i++) {
		uint32_t cnt = sh->nlevel[i];

		for (j = 0; j < cnt; j++)
			s->cls[mem[k + j]].lidx = j;
		for (p = 0; p < _XTX_NUMPRIO; p++) {
			struct _xtx_oset *r = &s->row[i][p];

			r->w0 = w;
			r->w1 = w + (cnt + 63) / 64;
			w += _xtx_oset_words(cnt);
			r->member = mem + k;
			r->n = cnt;
		}
		k += cnt;
	}
}

/* Step 6: the free packet list and the default leaf. */
static void init_pool_default(struct xtx_sched *s, const struct xtx_sched_config *cfg)
{
	for (uint32_t i = 0; i < s->npool; i++)
		s->pool[i].next = i + 1 < s->npool ? i + 1 : _XTX_NIL;
	s->free_head = 0;
	_xtx_sched_set_default(s, cfg);
}

void _xtx_sched_set_default(struct xtx_sched *s, const struct xtx_sched_config *cfg)
{
	uint32_t i, dflt;

	s->dflt_leaf = _XTX_NIL;
	dflt = xtx_sched_config__default(cfg);
	if (dflt) {
		int d = xtx_sched_config__class_index(cfg, dflt);

		if (d >= 0)
			s->dflt_leaf = s->cls[d].leaf;
	} else {
		for (i = 0; i < s->ncls && s->dflt_leaf == _XTX_NIL; i++)	/* first leaf */
			s->dflt_leaf = s->cls[i].leaf;
	}
}

struct xtx_sched *xtx_sched__create(const struct xtx_sched_config *cfg,
				    const struct xtx_sched_opts *opts, uint64_t now_ns,
				    char *err, size_t errlen)
{
	struct xtx_sched_opts o;
	struct shape sh = { 0 };
	struct xtx_sched *s;
	struct layout lo;
	char *base;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	rc = XTX_OPTS_LOAD(&o, opts, xtx_sched_opts, err, errlen);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	rc = xtx_sched_config__validate(cfg, err, errlen);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	sh.n = xtx_sched_config__class_count(cfg);
	if (!o.nslots)
		o.nslots = sh.n;
	rc = _xtx_slots_check(o.slots, sh.n, o.nslots, err, errlen);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	if (o.shared && (o.shared->ncls != o.nslots || o.queue >= o.shared->nqueues)) {
		xtx_errf(err, errlen, "device-wide class state made for %u class slots and %u "
			 "queues, not %u slots and queue %u", o.shared->ncls, o.shared->nqueues,
			 o.nslots, o.queue);
		errno = EINVAL;
		return NULL;
	}
	if (shape_measure(&sh, cfg, err, errlen))
		goto out_shape;		/* errno set */
	shape_codel(&sh, cfg, o.codel);
	shape_pool(&sh, &o);
	if (make_layout(&lo, sh.n, o.nslots, sh.nleaves, sh.ninner, sh.nwords, sh.nflows, sh.ncodel,
			sh.fh_cap, sh.npool)) {
		xtx_errf(err, errlen, "flow tables too large (%llu slots)",
			(unsigned long long)sh.nflows);
		errno = ENOMEM;
		goto out_shape;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		xtx_errf(err, errlen, "out of memory");
		errno = ENOMEM;
		goto out_shape;
	}
	base = xtx_mem__alloc(lo.total, -1);	/* zeroed: every bitmap starts empty */
	if (!base) {
		xtx_errf(err, errlen, "cannot allocate %zu bytes for %u classes, %llu flow slots "
			"and %u packets; lower flows, limit or pkt_pool", lo.total, sh.n,
			(unsigned long long)sh.nflows, sh.npool);
		errno = ENOMEM;
		goto out_sched;
	}
	place_arrays(s, &lo, base, &sh, cfg, &o, now_ns);
	init_classes(s, cfg, &sh, (struct _xtx_flow *)(base + lo.flows),
		     (struct _xtx_codel *)(base + lo.codel), o.codel,
		     o.shared ? o.shared->device : NULL, now_ns);
	init_sets(s, &sh, (uint64_t *)(base + lo.words), (uint32_t *)(base + lo.members));
	init_pool_default(s, cfg);
	s->codel_dflt = o.codel;
	shape_free(&sh);
	return s;

out_sched:
	free(s);
out_shape:
	shape_free(&sh);
	return NULL;
}

void xtx_sched__destroy(struct xtx_sched *s)
{
	if (!s)
		return;
	xtx_mem__free(s->mem, s->mem_len);
	free(s);
}

uint32_t xtx_sched__qlen(const struct xtx_sched *s)
{
	return s->qlen;
}

int xtx_sched__absorbs(struct xtx_sched *s)
{
	if (s->near_fixed || s->npool - s->qlen < XTX_SCHED_ABSORB)
		return 0;
	while (s->nnear) {	/* prune from the top: each listing is popped once */
		struct _xtx_leaf *L = &s->leaves[s->near_list[s->nnear - 1]];

		if (L->qlen >= _xtx_leaf_near_at(L))
			return 0;
		L->near_listed = 0;
		s->nnear--;
	}
	return 1;
}

unsigned xtx_sched__class_count(const struct xtx_sched *s)
{
	return s->ncls;
}

int xtx_sched__class_slot(const struct xtx_sched *s, unsigned idx)
{
	return s && idx < s->ncls ? (int)s->slot[idx] : -ENOENT;
}

int xtx_sched__class_index(const struct xtx_sched *s, uint32_t handle)
{
	uint32_t lo = 0, hi = s->ncls;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->hmap[mid].handle == handle)
			return (int)s->hmap[mid].idx;
		if (s->hmap[mid].handle < handle)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* Tokens are reported as of the class's last checkpoint (its last charge), as tc does. */
int xtx_sched__class_stats(const struct xtx_sched *s, unsigned idx, struct xtx_class_stats *st)
{
	const struct _xtx_class *cl;

	if (!s || !st || idx >= s->ncls)
		return -ENOENT;
	cl = &s->cls[idx];
	memset(st, 0, sizeof(*st));
	st->sent_pkts = cl->sent_pkts;
	st->sent_bytes = cl->sent_bytes;
	memcpy(st->drops, cl->drops, sizeof(cl->drops));
	st->borrows = cl->borrows;
	st->throttled = cl->throttled;
	st->tokens = cl->tokens;
	st->ctokens = cl->ctokens;
	if (cl->leaf != _XTX_NIL) {
		st->enq_pkts = s->leaves[cl->leaf].enq_pkts;
		st->enq_bytes = s->leaves[cl->leaf].enq_bytes;
		st->qlen = s->leaves[cl->leaf].qlen;
		st->flows = s->leaves[cl->leaf].nattached;
		st->backlog = s->leaves[cl->leaf].bl;
		st->room_budget = s->leaves[cl->leaf].budget;
		st->room_closes = s->leaves[cl->leaf].room_closes;
		st->drops[XTX_DROP_CODEL] = s->leaves[cl->leaf].codel_drops;
		st->ecn_marks = s->leaves[cl->leaf].ecn_marks;
	}
	return 0;
}

/* The one table of drop reason names; the tools' JSON keys. */
static const char *const drop_reason_names[XTX_DROP__MAX] = {
	[XTX_DROP_LEAF_LIMIT] = "leaf_limit",
	[XTX_DROP_FLOW_LIMIT] = "flow_limit",
	[XTX_DROP_NO_CLASS] = "no_class",
	[XTX_DROP_NO_BUFS] = "no_bufs",
	[XTX_DROP_HORIZON] = "horizon",
	[XTX_DROP_PURGED] = "purged",
	[XTX_DROP_CODEL] = "codel",
};
_Static_assert(XTX_DROP__MAX == 7, "a name for every enum xtx_drop_reason");

const char *xtx_drop_reason__str(enum xtx_drop_reason r)
{
	return (unsigned)r < XTX_DROP__MAX ? drop_reason_names[r] : NULL;
}

/* --- test hooks ------------------------------------------------------------------------- */

int _xtx_sched__set_default(struct xtx_sched *s, int cls)
{
	if (cls < 0) {
		s->dflt_leaf = _XTX_NIL;
		return 0;
	}
	if ((uint32_t)cls >= s->ncls || s->cls[cls].leaf == _XTX_NIL)
		return -EINVAL;
	s->dflt_leaf = s->cls[cls].leaf;
	return 0;
}

void _xtx_sched__set_defer(struct xtx_sched *s, bool on)
{
	s->no_defer = !on;
}

uint64_t _xtx_sched__drop_no_class(const struct xtx_sched *s)
{
	return s->drop_no_class;
}

#define FAIL(...) do { xtx_errf(err, errlen, __VA_ARGS__); rc = -EPROTO; goto out; } while (0)

/* A set's three bitmap levels agree, its pointer is in range, and every member maps back
 * to itself through `local` (sib or lidx). */
static int check_oset(const struct xtx_sched *s, const struct _xtx_oset *o, bool by_sib,
		      char *err, size_t errlen)
{
	uint32_t w, nw0 = (o->n + 63) / 64, cnt = 0, i;
	uint64_t qsum = 0;
	int rc = 0;

	if (o->ptr > o->n)
		FAIL("set pointer %u past %u", o->ptr, o->n);
	for (w = 0; w < nw0; w++) {
		bool l1 = (o->w1[w >> 6] >> (w & 63)) & 1;

		if (l1 != (o->w0[w] != 0))
			FAIL("set summary bit %u is %d", w, l1);
		if (o->n < (w + 1) * 64 && (o->w0[w] >> (o->n & 63)) && (o->n & 63))
			FAIL("set has bits past %u", o->n);
	}
	for (w = 0; w < (o->n + 4095) / 4096; w++)
		if (((o->top >> w) & 1) != (o->w1[w] != 0))
			FAIL("set top bit %u wrong", w);
	for (i = 0; i < o->n; i++) {
		uint32_t c = o->member[i];

		if ((by_sib ? s->cls[c].sib : s->cls[c].lidx) != i)
			FAIL("set member %u is class %u whose index is %u", i, c,
			     by_sib ? s->cls[c].sib : s->cls[c].lidx);
		cnt += _xtx_oset_has(o, i);
		if (_xtx_oset_has(o, i))
			qsum += s->cls[c].feed_w;
	}
	if (by_sib && qsum != o->qsum)
		FAIL("feed's weights add up to %llu, it says %llu", (unsigned long long)qsum,
		     (unsigned long long)o->qsum);
	for (i = 0, w = _xtx_oset_next(o, 0); w != _XTX_OSET_NONE; w = _xtx_oset_next(o, w + 1))
		i++;
	if (i != cnt)
		FAIL("set next() walks %u members, bitmap holds %u", i, cnt);
out:
	return rc;
}

int _xtx_sched__check(const struct xtx_sched *s, char *err, size_t errlen)
{
	uint64_t total_q = 0, free_n = 0, row_mask = 0;
	uint32_t nflagged = 0, fixed = 0;
	uint32_t i, x;
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';

	/* Pool: free + queued == size. */
	for (x = s->free_head; x != _XTX_NIL && free_n <= s->npool; x = s->pool[x].next)
		free_n++;
	if (free_n + s->qlen != s->npool)
		FAIL("pool: %llu free + %u queued != %u", (unsigned long long)free_n, s->qlen,
		     s->npool);

	/* Heaps: heap order, back-indexes. */
	for (i = 1; i < s->wq_n; i++)
		if (s->wq[(i - 1) / 2].key > s->wq[i].key)
			FAIL("wait heap order broken at %u", i);
	for (i = 0; i < s->wq_n; i++)
		if (s->cls[s->wq[i].cls].pq_idx != i)
			FAIL("wait heap index of class %u", s->wq[i].cls);
	if (s->fh_n > s->fh_cap)
		FAIL("flow heap holds %u, capacity %u", s->fh_n, s->fh_cap);
	for (i = 1; i < s->fh_n; i++)
		if (s->fh[(i - 1) / 2].key > s->fh[i].key)
			FAIL("flow heap order broken at %u", i);

	/* Rows and feeds. */
	for (i = 0; i < _XTX_MAXDEPTH * _XTX_NUMPRIO; i++) {
		const struct _xtx_oset *r = &s->row[i / _XTX_NUMPRIO][i % _XTX_NUMPRIO];

		if (!_xtx_oset_empty(r))
			row_mask |= 1ull << i;
		rc = check_oset(s, r, false, err, errlen);
		if (rc)
			goto out;
	}
	for (i = 0; i < s->ninner * _XTX_NUMPRIO; i++) {
		rc = check_oset(s, &s->feeds[i], true, err, errlen);
		if (rc)
			goto out;
	}
	if (row_mask != s->row_mask)
		FAIL("row_mask %llx, rows say %llx", (unsigned long long)s->row_mask,
		     (unsigned long long)row_mask);

	/* Classes: mode vs heap, activity vs membership. */
	for (i = 0; i < s->ncls; i++) {
		const struct _xtx_class *cl = &s->cls[i];
		unsigned p;

		if ((cl->mode != _XTX_CAN_SEND) != (cl->pq_idx != _XTX_NIL))
			FAIL("class %u: mode %u but heap index %u", i, cl->mode, cl->pq_idx);
		for (p = 0; p < _XTX_NUMPRIO; p++) {
			bool act = cl->prio_activity & (1u << p), want_row, want_feed;

			want_row = act && cl->mode == _XTX_CAN_SEND;
			want_feed = act && cl->mode == _XTX_MAY_BORROW && cl->parent != _XTX_NIL;
			if (want_row != _xtx_oset_has(&s->row[cl->level][p], cl->lidx))
				FAIL("class %u prio %u: row membership %d, expected %d", i, p,
				     !want_row, want_row);
			if (cl->parent != _XTX_NIL) {
				const struct _xtx_class *pc = &s->cls[cl->parent];
				const struct _xtx_oset *f =
					&s->feeds[(size_t)pc->inner * _XTX_NUMPRIO + p];

				if (want_feed != _xtx_oset_has(f, cl->sib))
					FAIL("class %u prio %u: feed membership %d, expected %d",
					     i, p, !want_feed, want_feed);
			}
			if (cl->leaf == _XTX_NIL) {
				const struct _xtx_oset *f =
					&s->feeds[(size_t)cl->inner * _XTX_NUMPRIO + p];

				if (act != !_xtx_oset_empty(f))
					FAIL("inner class %u prio %u: active %d, feed empty %d", i,
					     p, act, _xtx_oset_empty(f));
			}
		}
	}

	/* Leaves and flows. */
	for (i = 0; i < s->nleaves; i++) {
		const struct _xtx_leaf *L = &s->leaves[i];
		uint64_t q = 0, attached = 0, ready = 0, listed = 0, inlist = 0, bytes = 0;
		uint32_t fi;
		int pass;

		for (fi = 0; fi < L->nflows; fi++) {
			const struct _xtx_flow *f = &L->flows[fi];
			uint32_t k = 0, fb = 0;

			for (x = f->head; x != _XTX_NIL && k <= s->npool; x = s->pool[x].next) {
				k++;
				bytes += (uint64_t)s->pool[x].d.len + s->overhead;
				fb += s->pool[x].d.len;
				if (s->pool[x].next == _XTX_NIL && x != f->tail)
					FAIL("leaf %u flow %u: tail is not the last packet", i, fi);
			}
			if (k != f->qlen)
				FAIL("leaf %u flow %u: qlen %u, chain %u", i, fi, (unsigned)f->qlen, k);
			if (L->codel && L->cv[fi].backlog != fb)
				FAIL("leaf %u flow %u: codel backlog %u, chain %u bytes", i, fi,
				     L->cv[fi].backlog, fb);
			if (f->qlen > L->flow_limit)
				FAIL("leaf %u flow %u: qlen %u above flow_limit", i, fi,
				     (unsigned)f->qlen);
			q += f->qlen;
			if (f->state != _XTX_FLOW_DETACHED)
				attached++;
			else if (f->qlen)
				FAIL("leaf %u flow %u: detached with %u packets", i, fi,
				     (unsigned)f->qlen);
			if (f->state == _XTX_FLOW_LISTED || f->state == _XTX_FLOW_PENDING)
				listed++;
			if (f->state == _XTX_FLOW_LISTED && f->qlen) {
				uint64_t t = s->pool[f->head].tts > f->tnp ? s->pool[f->head].tts
									   : f->tnp;
				ready++;
				if (t > s->now)
					FAIL("leaf %u flow %u: listed as ready but head leaves at "
					     "%llu > now %llu", i, fi, (unsigned long long)t,
					     (unsigned long long)s->now);
			}
		}
		for (pass = 0; pass < 2; pass++) {
			uint32_t last = _XTX_NIL, k = 0;

			for (fi = pass ? L->old_head : L->new_head; fi != _XTX_NIL && k <= L->nflows;
			     fi = L->flows[fi].next) {
				uint8_t st = L->flows[fi].state;

				if (st != _XTX_FLOW_LISTED && st != _XTX_FLOW_PENDING)
					FAIL("leaf %u flow %u: in a list in state %u", i, fi, st);
				last = fi;
				k++;
			}
			if (last != (pass ? L->old_tail : L->new_tail))
				FAIL("leaf %u: list %d tail mismatch", i, pass);
			inlist += k;
		}
		if (inlist != listed)
			FAIL("leaf %u: %llu flows in lists, %llu in listed states", i,
			     (unsigned long long)inlist, (unsigned long long)listed);
		if (q != L->qlen)
			FAIL("leaf %u: qlen %u, flows hold %llu", i, L->qlen, (unsigned long long)q);
		if (q > L->limit)
			FAIL("leaf %u: qlen %llu above limit %u", i, (unsigned long long)q, L->limit);
		if (L->room && bytes != L->bl)
			FAIL("leaf %u: backlog %u B, packets hold %llu", i, L->bl,
			     (unsigned long long)bytes);
		if (L->room_full && (!L->bl || L->bl <= L->budget / 2))
			FAIL("leaf %u: full with %u B of budget %u", i, L->bl, L->budget);
		if (!L->room_full && L->bl >= L->budget)
			FAIL("leaf %u: room with %u B of budget %u", i, L->bl, L->budget);
		if (attached != L->nattached)
			FAIL("leaf %u: nattached %u, counted %llu", i, L->nattached,
			     (unsigned long long)attached);
		if (ready != L->nready)
			FAIL("leaf %u: nready %u, counted %llu", i, L->nready,
			     (unsigned long long)ready);
		if ((L->nready > 0) != (s->cls[L->cls].prio_activity != 0))
			FAIL("leaf %u: nready %u but activity %#x", i, L->nready,
			     s->cls[L->cls].prio_activity);
		total_q += q;
		if (_xtx_leaf_cap(L) < XTX_SCHED_ABSORB)
			fixed++;
		else if (L->qlen >= _xtx_leaf_near_at(L) && !L->near_listed)
			FAIL("leaf %u: qlen %u near its cap %u, not listed", i, L->qlen,
			     _xtx_leaf_cap(L));
		nflagged += L->near_listed;
	}
	if (total_q != s->qlen)
		FAIL("qlen %u, leaves hold %llu", s->qlen, (unsigned long long)total_q);
	if (fixed != s->near_fixed)
		FAIL("%u leaves with a cap below %u, counted %u", fixed, XTX_SCHED_ABSORB,
		     s->near_fixed);
	if (nflagged != s->nnear)
		FAIL("%u leaves flagged near, %u listed", nflagged, s->nnear);
	for (i = 0; i < s->nnear; i++)
		if (s->near_list[i] >= s->nleaves || !s->leaves[s->near_list[i]].near_listed)
			FAIL("near list entry %u: leaf %u not flagged", i, s->near_list[i]);

	/* Flow heap entries: waiting flows, each once. */
	for (i = 0; i < s->fh_n; i++) {
		const struct _xtx_leaf *L = &s->leaves[s->fh[i].leaf];
		const struct _xtx_flow *f = &L->flows[s->fh[i].flow];

		if (f->state != _XTX_FLOW_PENDING && f->state != _XTX_FLOW_THROTTLED)
			FAIL("flow heap: leaf %u flow %u in state %u", s->fh[i].leaf,
			     s->fh[i].flow, f->state);
	}
	{
		uint64_t waiting = 0;

		for (i = 0; i < s->nleaves; i++)
			for (x = 0; x < s->leaves[i].nflows; x++) {
				uint8_t st = s->leaves[i].flows[x].state;

				waiting += st == _XTX_FLOW_PENDING || st == _XTX_FLOW_THROTTLED;
			}
		if (waiting != s->fh_n)
			FAIL("%llu flows waiting, flow heap holds %u",
			     (unsigned long long)waiting, s->fh_n);
	}
out:
	return rc;
}
