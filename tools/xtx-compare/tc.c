/* SPDX-License-Identifier: BSD-3-Clause */
/* tc.c - an xtx class tree as tc commands (HTB, leaf qdiscs, u32 filters), and the model
 * of each leaf's expected rate. See tc.h for the exact command forms and the model. Pure:
 * no I/O, no global state; tests/unit/test_compare_tc.c links this file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"	/* xtx_errf(), libxtx's (util/err.c) */
#include "tc.h"

#define TC_U32_HT	0x100u		/* our hash table's id ("100:") */
#define TC_U32_BUCKETS	256u		/* u32's largest divisor */
#define TC_LEAF_QD_BASE	0xf000u		/* leaf qdisc majors when the minor cannot be used */

void tc_fmt_rate(uint64_t bps, char *buf, size_t len)
{
	static const struct { uint64_t div; const char *unit; } units[] = {
		{ 1000000000000ull, "tbit" }, { 1000000000ull, "gbit" }, { 1000000ull, "mbit" },
		{ 1000ull, "kbit" },
	};
	uint64_t bits;

	if (bps > UINT64_MAX / 8) {	/* bits would not fit: tc's "bps" is bytes per second */
		snprintf(buf, len, "%" PRIu64 "bps", bps);
		return;
	}
	bits = bps * 8;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (bits && bits % units[i].div == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", bits / units[i].div, units[i].unit);
			return;
		}
	snprintf(buf, len, "%" PRIu64 "bit", bits);
}

void tc_fmt_handle(uint32_t h, char *buf, size_t len)
{
	xtx_handle__str(h, buf, len);	/* tc's form; cut short (-ENOSPC) to fit len */
}

/* A name tc can take as one token and the kernel as an interface name. */
static bool dev_ok(const char *dev)
{
	size_t n = strlen(dev);

	if (n == 0 || n > 15)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)dev[i];

		if (c <= ' ' || c >= 0x7f || c == '/' || c == ':' || c == '#' || c == '"' ||
		    c == '\'' || c == '\\')
			return false;
	}
	return true;
}

/* A plan being built: its commands grow in p->cmds (cap allocated). One copy of the tree
 * is written at a time: its htb major, where its htb hangs, and its leaf qdisc majors. */
struct builder {
	struct tc_plan *p;
	unsigned cap;
	const struct xtx_sched_config *cfg;
	const char *dev;
	uint32_t major;			/* this copy's htb major */
	char head[64];			/* "replace dev D root" or "replace dev D parent 1:q" */
	uint32_t qd_base;		/* 0: leaves' own qdisc_major; else base + k + 1 */
};

/* Class i's classid in the copy being written: the plan's minor under bd->major. */
static uint32_t copy_classid(const struct builder *bd, unsigned i)
{
	return XTX_HANDLE(bd->major, XTX_HANDLE_MIN(bd->p->tc_classid[i]));
}

/* Leaf k's qdisc major in the copy being written. */
static uint32_t copy_leaf_qdisc(const struct builder *bd, unsigned k)
{
	return bd->qd_base ? bd->qd_base + k + 1 : bd->p->leaves[k].qdisc_major;
}

/* Append one command. Returns 0 or -ENOMEM. */
static int add_cmd(struct builder *bd, const char *note, const char *fallback,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int add_cmd(struct builder *bd, const char *note, const char *fallback,
		   const char *fmt, ...)
{
	struct tc_plan *p = bd->p;
	struct tc_cmd *c;
	va_list ap;

	if (p->ncmds == bd->cap) {
		unsigned ncap = bd->cap ? bd->cap * 2 : 64;
		struct tc_cmd *n = realloc(p->cmds, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->cmds = n;
		bd->cap = ncap;
	}
	c = &p->cmds[p->ncmds++];
	memset(c, 0, sizeof(*c));
	va_start(ap, fmt);
	vsnprintf(c->line, sizeof(c->line), fmt, ap);
	va_end(ap);
	if (fallback)
		snprintf(c->fallback, sizeof(c->fallback), "%s", fallback);
	c->note = note;
	return 0;
}

void tc_plan__free(struct tc_plan *p)
{
	if (!p)
		return;
	free(p->cmds);
	free(p->tc_classid);
	free(p->leaves);
	memset(p, 0, sizeof(*p));
}

static int check_args(const struct xtx_sched_config *cfg, const char *dev, uint32_t base_port,
		      uint32_t flows, char *err, size_t errlen)
{
	if (!cfg || !dev) {
		xtx_errf(err, errlen, "tc plan: no config or no device");
		return -EINVAL;
	}
	if (!dev_ok(dev)) {
		xtx_errf(err, errlen, "device name '%s' cannot be used in a tc command (1..15 "
			"characters, no blanks, '/', ':' or quotes)", dev);
		return -EINVAL;
	}
	if (flows == 0 || base_port == 0 || base_port + flows - 1 > 65535) {
		xtx_errf(err, errlen, "flows %u from port %u: need 1 or more flows whose ports "
			"(base + flow) stay within 1..65535", flows, base_port);
		return -EINVAL;
	}
	if (xtx_sched_config__class_count(cfg) == 0) {
		xtx_errf(err, errlen, "the class tree has no classes");
		return -EINVAL;
	}
	return 0;
}

/* tc classids: keep every handle of the qdisc's major with a non-zero minor; give the
 * others (root "M:" and classes of other majors) the smallest free minor. minor_used
 * has 65536 entries, all 0. Returns 0 or -EINVAL (no minor left). */
static int assign_classids(struct tc_plan *p, const struct xtx_sched_config *cfg,
			   uint8_t *minor_used, char *err, size_t errlen)
{
	uint32_t major = XTX_HANDLE_MAJ(xtx_sched_config__class(cfg, 0)->handle);

	p->major = major;
	for (unsigned i = 0; i < p->nclasses; i++) {
		uint32_t h = xtx_sched_config__class(cfg, i)->handle;

		if (XTX_HANDLE_MAJ(h) == major && XTX_HANDLE_MIN(h)) {
			minor_used[XTX_HANDLE_MIN(h)] = 1;
			p->tc_classid[i] = h;
		}
	}
	for (unsigned i = 0, next = 1; i < p->nclasses; i++) {
		if (p->tc_classid[i])
			continue;
		while (next <= 0xffff && minor_used[next])
			next++;
		if (next > 0xffff) {
			xtx_errf(err, errlen, "no free tc minor for class %u under %x:", i, major);
			return -EINVAL;
		}
		minor_used[next] = 1;
		p->tc_classid[i] = XTX_HANDLE(major, next);
	}
	return 0;
}

/* Leaves in config order, with their leaf qdisc handles: the class's tc minor unless that
 * is the root's major or taken, then TC_LEAF_QD_BASE upward. qd_used has 65536 entries,
 * all 0. */
static void place_leaves(struct tc_plan *p, const struct xtx_sched_config *cfg,
			 uint8_t *qd_used)
{
	qd_used[p->major] = qd_used[0] = qd_used[0xffff] = 1;
	for (unsigned i = 0; i < p->nclasses; i++) {
		const struct xtx_class_opts *o = xtx_sched_config__class(cfg, i);
		struct tc_leaf *l;
		uint32_t q;

		if (xtx_sched_config__is_leaf(cfg, o->handle) == 0)
			continue;
		l = &p->leaves[p->nleaves++];
		l->cfg_index = i;
		l->handle = o->handle;
		l->tc_classid = p->tc_classid[i];
		l->fq = o->fq;
		q = XTX_HANDLE_MIN(l->tc_classid);
		if (qd_used[q])
			for (q = TC_LEAF_QD_BASE; qd_used[q]; q++)
				;
		qd_used[q] = 1;
		l->qdisc_major = q;
	}
}

/* The root htb qdisc and one class command per class, in config order. */
static int add_classes(struct builder *bd)
{
	const struct xtx_sched_config *cfg = bd->cfg;
	struct tc_plan *p = bd->p;
	uint32_t def_handle = xtx_sched_config__default(cfg);
	int di = def_handle ? xtx_sched_config__class_index(cfg, def_handle) : -1;
	uint32_t dc = di >= 0 ? p->tc_classid[di] : p->leaves[0].tc_classid;
	char a[48], b[48], c[80], d[48];

	if (add_cmd(bd, NULL, NULL, "qdisc %s handle %x: htb default %x r2q %u", bd->head,
		    bd->major, XTX_HANDLE_MIN(dc), xtx_sched_config__r2q(cfg)))
		return -ENOMEM;
	for (unsigned i = 0; i < p->nclasses; i++) {
		const struct xtx_class_opts *o = xtx_sched_config__class(cfg, i);
		int pi = o->parent == XTX_HANDLE_ROOT ? -1 :
			 xtx_sched_config__class_index(cfg, o->parent);

		if (pi >= 0)
			tc_fmt_handle(copy_classid(bd, (unsigned)pi), a, sizeof(a));
		else
			snprintf(a, sizeof(a), "%x:", bd->major);
		tc_fmt_handle(copy_classid(bd, i), b, sizeof(b));
		tc_fmt_rate(o->rate, c, sizeof(c));
		tc_fmt_rate(o->ceil, d, sizeof(d));
		if (add_cmd(bd, NULL, NULL, "class add dev %s parent %s classid %s htb rate %s "
			    "ceil %s burst %u cburst %u prio %u quantum %u overhead %u", bd->dev, a,
			    b, c, d, o->burst, o->cburst, o->prio, o->quantum,
			    xtx_sched_config__overhead(cfg)))
			return -ENOMEM;
	}
	return 0;
}

/* Each leaf's qdisc: pfifo, or fq with pfifo as the fallback. */
static int add_leaf_qdiscs(struct builder *bd)
{
	const struct tc_plan *p = bd->p;
	char a[48], c[80], d[48];

	for (unsigned k = 0; k < p->nleaves; k++) {
		const struct tc_leaf *l = &p->leaves[k];
		const struct xtx_class_opts *o = xtx_sched_config__class(bd->cfg, l->cfg_index);
		char fifo[TC_LINE_MAX];

		uint32_t qd = copy_leaf_qdisc(bd, k);

		tc_fmt_handle(copy_classid(bd, l->cfg_index), a, sizeof(a));
		snprintf(fifo, sizeof(fifo), "qdisc add dev %s parent %s handle %x: pfifo limit %u",
			 bd->dev, a, qd, o->limit);
		if (!o->fq) {
			if (add_cmd(bd, NULL, NULL, "%s", fifo))
				return -ENOMEM;
			continue;
		}
		c[0] = 0;
		if (o->maxrate) {
			tc_fmt_rate(o->maxrate, d, sizeof(d));
			snprintf(c, sizeof(c), " maxrate %s", d);
		}
		if (add_cmd(bd, "sch_fq is not available in this kernel: the leaf is a pfifo of "
			    "the same limit (no per-flow fairness on the kernel path)", fifo,
			    "qdisc add dev %s parent %s handle %x: fq limit %u flow_limit %u quantum "
			    "%u buckets %u%s", bd->dev, a, qd, o->limit, o->flow_limit,
			    o->fq_quantum, o->flows, c))
			return -ENOMEM;
	}
	return 0;
}

/* The u32 hash table, one filter per flow into its bucket, and the hashing filter. */
static int add_filters(struct builder *bd, uint32_t base_port, uint32_t flows)
{
	const struct tc_plan *p = bd->p;
	char a[48];

	if (add_cmd(bd, NULL, NULL, "filter add dev %s parent %x: protocol ip prio 1 handle %x: "
		    "u32 divisor %u", bd->dev, bd->major, TC_U32_HT, TC_U32_BUCKETS))
		return -ENOMEM;
	for (uint32_t f = 0; f < flows; f++) {
		uint32_t port = base_port + f;

		tc_fmt_handle(copy_classid(bd, p->leaves[tc_plan__flow_leaf(p, f)].cfg_index), a,
			      sizeof(a));
		if (add_cmd(bd, NULL, NULL, "filter add dev %s parent %x: protocol ip prio 1 u32 "
			    "ht %x:%x: match ip dport %u 0xffff flowid %s", bd->dev, bd->major,
			    TC_U32_HT, port & (TC_U32_BUCKETS - 1), port, a))
			return -ENOMEM;
	}
	if (add_cmd(bd, NULL, NULL, "filter add dev %s parent %x: protocol ip prio 1 u32 ht 800:: "
		    "match ip protocol 17 0xff hashkey mask 0x000000ff at 20 link %x:", bd->dev,
		    bd->major, TC_U32_HT))
		return -ENOMEM;
	return 0;
}

/* One copy of the tree: its htb, classes, leaf qdiscs and filters. */
static int add_tree(struct builder *bd, uint32_t base_port, uint32_t flows)
{
	int rc = add_classes(bd);

	if (!rc)
		rc = add_leaf_qdiscs(bd);
	if (!rc)
		rc = add_filters(bd, base_port, flows);
	return rc;
}

int tc_plan__build(const struct xtx_sched_config *cfg, const char *dev, uint32_t base_port,
		   uint32_t flows, struct tc_plan *p, char *err, size_t errlen)
{
	struct builder bd = { .p = p, .cfg = cfg, .dev = dev };
	uint8_t *minor_used = NULL, *qd_used = NULL;
	int rc;

	if (!p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	rc = check_args(cfg, dev, base_port, flows, err, errlen);
	if (rc)
		return rc;
	p->nclasses = xtx_sched_config__class_count(cfg);
	p->tc_classid = calloc(p->nclasses, sizeof(*p->tc_classid));
	p->leaves = calloc(p->nclasses, sizeof(*p->leaves));
	minor_used = calloc(65536, 1);
	qd_used = calloc(65536, 1);
	rc = -ENOMEM;
	if (!p->tc_classid || !p->leaves || !minor_used || !qd_used)
		goto fail;
	rc = assign_classids(p, cfg, minor_used, err, errlen);
	if (rc)
		goto fail;
	place_leaves(p, cfg, qd_used);
	bd.major = p->major;
	snprintf(bd.head, sizeof(bd.head), "replace dev %s root", dev);
	rc = add_tree(&bd, base_port, flows);
	if (rc)
		goto fail;
	free(minor_used);
	free(qd_used);
	return 0;
fail:
	if (rc == -ENOMEM)
		xtx_errf(err, errlen, "out of memory building the tc commands");
	free(minor_used);
	free(qd_used);
	tc_plan__free(p);
	return rc;
}

#define TC_MQ_MAJOR	1u		/* the root mq's handle ("1:") */

int tc_plan__build_mq(const struct xtx_sched_config *cfg, const char *dev, uint32_t base_port,
		      uint32_t flows, unsigned queues, struct tc_plan *p, char *err,
		      size_t errlen)
{
	struct builder bd = { .p = p, .cfg = cfg, .dev = dev };
	uint32_t stride;
	int rc;

	if (!p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	if (queues < 2 || queues > TC_MQ_MAX_QUEUES) {
		xtx_errf(err, errlen, "mq + htb: %u TX queues; mq needs 2 to %d", queues,
			 TC_MQ_MAX_QUEUES);
		return -EINVAL;
	}
	rc = tc_plan__build(cfg, dev, base_port, flows, p, err, errlen);
	if (rc)
		return rc;
	stride = (p->nleaves + 1 + 0xffu) & ~0xffu;
	if ((uint64_t)stride * queues + p->nleaves >= 0xffff) {
		xtx_errf(err, errlen, "mq + htb: %u leaves on each of %u TX queues need more "
			 "qdisc handles than tc has (%u per queue)", p->nleaves, queues, stride);
		tc_plan__free(p);
		return -EINVAL;
	}
	free(p->cmds);
	p->cmds = NULL;
	p->ncmds = 0;
	p->queues = queues;
	p->queue_stride = stride;
	rc = add_cmd(&bd, NULL, NULL, "qdisc replace dev %s root handle %x: mq", dev,
		     TC_MQ_MAJOR);
	for (unsigned q = 0; q < queues && !rc; q++) {
		bd.major = tc_plan__queue_major(p, q);
		bd.qd_base = bd.major;
		snprintf(bd.head, sizeof(bd.head), "replace dev %s parent %x:%x", dev,
			 TC_MQ_MAJOR, q + 1);
		rc = add_tree(&bd, base_port, flows);
	}
	if (rc) {
		xtx_errf(err, errlen, "out of memory building the tc commands");
		tc_plan__free(p);
	}
	return rc;
}

int tc_plan__mq_locate(const struct tc_plan *p, uint32_t classid, unsigned *queue,
		       unsigned *leaf)
{
	uint32_t maj = XTX_HANDLE_MAJ(classid), min = XTX_HANDLE_MIN(classid);

	if (!p || !p->queues || !p->queue_stride || maj % p->queue_stride ||
	    maj / p->queue_stride < 1 || maj / p->queue_stride > p->queues)
		return -ENOENT;
	for (unsigned k = 0; k < p->nleaves; k++)
		if (XTX_HANDLE_MIN(p->leaves[k].tc_classid) == min) {
			*queue = maj / p->queue_stride - 1;
			*leaf = k;
			return 0;
		}
	return -ENOENT;
}

unsigned tc_plan__mq_sent(const struct tc_plan *p, const char *show, double *out)
{
	unsigned set = 0, q = 0, l = 0;
	bool want = false;

	for (const char *s = show; s && *s; ) {
		const char *nl = strchr(s, '\n');
		unsigned maj, min;
		unsigned long long bytes, pkts;

		if (!strncmp(s, "class ", 6)) {
			want = sscanf(s, "class htb %x:%x", &maj, &min) == 2 && maj <= 0xffff &&
			       min <= 0xffff &&
			       tc_plan__mq_locate(p, XTX_HANDLE(maj, min), &q, &l) == 0;
		} else if (want && sscanf(s, " Sent %llu bytes %llu pkt", &bytes, &pkts) == 2) {
			out[q * p->nleaves + l] = (double)pkts;
			set++;
			want = false;
		}
		s = nl ? nl + 1 : NULL;
	}
	return set;
}

/* --- expected rates ----------------------------------------------------------------- */

struct model {
	const struct xtx_sched_config *cfg;
	unsigned n;
	int *first_child, *next_sib;	/* children lists by config index */
	double *out;
	int *capped;
};

/* Lowest prio and the sum of quanta over the leaves below idx (idx itself if a leaf). */
static void leaf_stats(const struct model *m, int idx, unsigned *prio, double *quantum)
{
	const struct xtx_class_opts *o = xtx_sched_config__class(m->cfg, (unsigned)idx);

	if (m->first_child[idx] < 0) {
		if (o->prio < *prio)
			*prio = o->prio;
		*quantum += o->quantum;
		return;
	}
	for (int c = m->first_child[idx]; c >= 0; c = m->next_sib[c])
		leaf_stats(m, c, prio, quantum);
}

/* Give class idx the share `share` (bytes/s) and pass it down. Returns 0 or -ENOMEM. */
static int distribute(struct model *m, int idx, double share)
{
	struct kid { int idx; unsigned prio; bool active; double got, q, ceil; } *k;
	unsigned nk = 0, i = 0;
	double left = share, total = 0;
	int rc = 0;

	if (m->first_child[idx] < 0) {
		const struct xtx_class_opts *o = xtx_sched_config__class(m->cfg, (unsigned)idx);

		m->out[idx] = share;
		m->capped[idx] = share >= (double)o->ceil;
		return 0;
	}
	for (int c = m->first_child[idx]; c >= 0; c = m->next_sib[c])
		nk++;
	k = calloc(nk, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (int c = m->first_child[idx]; c >= 0; c = m->next_sib[c], i++) {
		const struct xtx_class_opts *o = xtx_sched_config__class(m->cfg, (unsigned)c);

		k[i].idx = c;
		k[i].got = (double)o->rate;	/* CAN_SEND: the rate is the child's own */
		k[i].ceil = (double)o->ceil;
		k[i].prio = XTX_PRIO_MAX + 1;
		leaf_stats(m, c, &k[i].prio, &k[i].q);
		if (k[i].q <= 0)
			k[i].q = 1;
		left -= k[i].got;
	}
	if (left < 0)
		left = 0;
	for (unsigned p = 0; p <= XTX_PRIO_MAX && left > 0; p++) {
		unsigned nact = 0;

		for (i = 0; i < nk; i++) {
			k[i].active = k[i].prio == p && k[i].got < k[i].ceil;
			nact += k[i].active;
		}
		/* Water-filling: each round either caps one child at its ceil or hands out
		 * everything left; at most nact + 1 rounds. */
		while (nact && left > 0) {
			double qs = 0;
			int capk = -1;

			for (i = 0; i < nk; i++)
				if (k[i].active)
					qs += k[i].q;
			for (i = 0; i < nk && capk < 0; i++)
				if (k[i].active && k[i].got + left * k[i].q / qs >= k[i].ceil)
					capk = (int)i;
			if (capk >= 0) {
				left -= k[capk].ceil - k[capk].got;
				k[capk].got = k[capk].ceil;
				k[capk].active = false;
				nact--;
				continue;
			}
			for (i = 0; i < nk; i++)
				if (k[i].active)
					k[i].got += left * k[i].q / qs;
			left = 0;
		}
	}
	for (i = 0; i < nk && !rc; i++) {
		rc = distribute(m, k[i].idx, k[i].got);
		total += m->out[k[i].idx];
	}
	m->out[idx] = total;
	m->capped[idx] = 0;
	free(k);
	return rc;
}

int tc_expected_rates(const struct xtx_sched_config *cfg, double *out, int *capped)
{
	struct model m = { .cfg = cfg, .out = out, .capped = capped };
	int *last, rc = 0;

	if (!cfg || !out || !capped)
		return -EINVAL;
	m.n = xtx_sched_config__class_count(cfg);
	m.first_child = malloc(m.n * sizeof(int));
	m.next_sib = malloc(m.n * sizeof(int));
	last = malloc(m.n * sizeof(int));
	if (!m.first_child || !m.next_sib || !last) {
		free(m.first_child);
		free(m.next_sib);
		free(last);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < m.n; i++)
		m.first_child[i] = m.next_sib[i] = last[i] = -1;
	for (unsigned i = 0; i < m.n; i++) {
		const struct xtx_class_opts *o = xtx_sched_config__class(cfg, i);
		int pi = o->parent == XTX_HANDLE_ROOT ? -1 :
			 xtx_sched_config__class_index(cfg, o->parent);

		if (pi < 0)
			continue;
		if (last[pi] < 0)
			m.first_child[pi] = (int)i;
		else
			m.next_sib[last[pi]] = (int)i;
		last[pi] = (int)i;
	}
	for (unsigned i = 0; i < m.n; i++) {
		const struct xtx_class_opts *o = xtx_sched_config__class(cfg, i);

		if (o->parent == XTX_HANDLE_ROOT && !rc)
			rc = distribute(&m, (int)i, (double)o->ceil);
	}
	free(m.first_child);
	free(m.next_sib);
	free(last);
	return rc;
}
