/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_fq.c - inside each leaf: per-flow fair queueing, pacing and EDT (enqueue, the
 * leaf half of dequeue, purge). After the kernel's net/sched/sch_fq.c, our own code; the
 * reasons are in docs/design.md, "Inside a leaf".
 *
 *   Flows: `flows` slots per leaf (a power of two), direct-mapped by
 *   slot = (desc.hash * 0x9e3779b1) >> (32 - log2(flows)). Two busy flows in one slot
 *   share its FIFO, credit and pacing clock; an idle (DETACHED) slot taken by another
 *   hash starts fresh. A leaf without fq is the same code with one slot: a FIFO.
 *   Lists: new_flows and old_flows through flow.next; dequeue serves new_flows' head,
 *   else old_flows': credit <= 0 -> credit += fq_quantum, to old_flows' tail; empty ->
 *   from new_flows to old_flows' tail, from old_flows detached (sch_fq since 6.7); else
 *   send the head, credit -= wire length. A detached flow that gets a packet joins
 *   new_flows; one idle for over ~40 ms is topped up to one quantum.
 *   Time: a head leaves at max(txtime, time_next_packet); maxrate moves time_next_packet
 *   to now + wire * 1e9 / maxrate (<= 1 s, less up to half of it for lateness). A flow
 *   whose head must wait is in the flow timer heap (THROTTLED; PENDING if still listed),
 *   so `nready` is exact and a leaf is active in the HTB tree iff nready > 0.
 *   Packets: 32-byte nodes from one pool allocated at create, free list LIFO.
 *   Enqueue drops, in sch_fq's order: leaf qlen >= limit (LEAF_LIMIT), txtime past the
 *   horizon (HORIZON), flow qlen >= flow_limit (FLOW_LIMIT), pool empty (NO_BUFS).
 *   A leaf with CoDel runs it on a flow's head before sending it (sched_codel.c): it may
 *   drop (CODEL) or mark heads there.
 *   Cost: enqueue O(1), O(log F) when the packet waits; dequeue O(1) amortised plus
 *   O(log F) per flow throttled (F: flows on a timer); both prefetch the flows ahead.
 *
 * Differences from sch_fq:
 *   - flows by desc.hash in a direct-mapped table, no per-socket rb-tree, no allocation;
 *   - a flow keeps arrival order (sch_fq sorts it by time_to_send);
 *   - pacing per packet on the wire length, to the nearest ns (sch_fq: per quantum above
 *     its 550 kbit low_rate_threshold); no priority bands, CE marking or horizon capping;
 *   - a new flow starts with one fq_quantum (sch_fq: initial_quantum, 10 * mtu);
 *   - a flow whose next packet must wait leaves its list when it sends: after its timer
 *     it joins old_flows' tail and gets its next quantum one round later than sch_fq;
 *   - fq_quantum clamped to [256, 1 << 20] as sch_fq; at most 2^24 - 1 packets a flow.
 */
#include <stdint.h>

#include "sched_int.h"

/* --- flow timer heap -------------------------------------------------------------------- */

static void fh_sift_down(struct _xtx_fev *h, uint32_t n, uint32_t i)
{
	struct _xtx_fev e = h[i];

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = (l + 1 < n && h[l + 1].key < h[l].key) ? l + 1 : l;
		if (h[m].key >= e.key)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = e;
}

static void detach(struct _xtx_leaf *L, struct _xtx_flow *f, uint64_t now);

/* Drop the entries of flows that purge emptied while they waited (what their timer would
 * do: a THROTTLED one detaches, a PENDING one stays listed) and rebuild the heap. O(heap);
 * runs only when the heap is full, which needs such entries: see fh_push. */
static void fh_compact(struct xtx_sched *s)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->fh_n; i++) {
		struct _xtx_fev e = s->fh[i];
		struct _xtx_leaf *L = &s->leaves[e.leaf];
		struct _xtx_flow *f = &L->flows[e.flow];

		if (f->qlen) {
			s->fh[n++] = e;
		} else if (f->state == _XTX_FLOW_THROTTLED) {
			detach(L, f, s->now);
		} else {
			f->state = _XTX_FLOW_LISTED;
		}
	}
	s->fh_n = n;
	for (i = n / 2; i-- > 0;)
		fh_sift_down(s->fh, n, i);
}

/* Precondition: the flow is not in the heap, and holds a packet. Capacity: a flow is in
 * the heap at most once, and the flows in it that hold packets are at most min(flow
 * slots, pool) = fh_cap, counting this one; the others were emptied by purge, and
 * compaction removes them when the heap is full. */
static void fh_push(struct xtx_sched *s, uint64_t key, uint32_t leaf, uint32_t flow)
{
	struct _xtx_fev *h = s->fh;
	uint32_t i;

	if (__builtin_expect(s->fh_n == s->fh_cap, 0))
		fh_compact(s);
	i = s->fh_n++;

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (h[p].key <= key)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = (struct _xtx_fev){ .key = key, .leaf = leaf, .flow = flow };
}

static void fh_pop(struct xtx_sched *s)
{
	uint32_t n = --s->fh_n;

	if (!n)
		return;
	s->fh[0] = s->fh[n];
	fh_sift_down(s->fh, n, 0);
}

/* --- lists ------------------------------------------------------------------------------ */

static inline void add_tail(struct _xtx_leaf *L, bool to_new, uint32_t fi)
{
	uint32_t *head = to_new ? &L->new_head : &L->old_head;
	uint32_t *tail = to_new ? &L->new_tail : &L->old_tail;

	L->flows[fi].next = _XTX_NIL;
	if (*head == _XTX_NIL)
		*head = fi;
	else
		L->flows[*tail].next = fi;
	*tail = fi;
}

/* Precondition: fi is the head of the list. */
static inline void pop_head(struct _xtx_leaf *L, bool from_new, uint32_t fi)
{
	uint32_t next = L->flows[fi].next;

	if (from_new) {
		L->new_head = next;
		if (next == _XTX_NIL)
			L->new_tail = _XTX_NIL;
	} else {
		L->old_head = next;
		if (next == _XTX_NIL)
			L->old_tail = _XTX_NIL;
	}
}

static inline uint32_t flow_age(uint64_t now)
{
	return (uint32_t)(now >> 20);	/* ~1.05 ms units, wraps after ~52 days: compared
					 * by unsigned difference */
}

static void detach(struct _xtx_leaf *L, struct _xtx_flow *f, uint64_t now)
{
	f->state = _XTX_FLOW_DETACHED;
	f->tail = flow_age(now);
	L->nattached--;
}

/* A listed flow just got an eligible head: count it; the first one wakes the leaf. */
static inline void make_ready(struct xtx_sched *s, struct _xtx_leaf *L)
{
	if (L->nready++ == 0)
		_xtx_htb_activate(s, L->cls);
}

static inline uint32_t flow_slot(const struct _xtx_leaf *L, uint32_t hash)
{
	return (uint32_t)((uint64_t)(uint32_t)(hash * 0x9e3779b1u) >> L->hash_shift);
}

/* --- enqueue ---------------------------------------------------------------------------- */

/* Queue one descriptor on leaf L, in its flow slot f. Returns XTX_DROP__MAX when accepted,
 * else the drop reason. Never fails otherwise; never allocates. */
/* move: a packet that a live change moves (_xtx_fq_move()): no limit or horizon. */
static inline __attribute__((always_inline)) unsigned
enqueue_one(struct xtx_sched *s, struct _xtx_leaf *L, struct _xtx_flow *f,
	    const struct xtx_desc *d, uint64_t tts, uint64_t now, const bool move)
{
	struct _xtx_pkt *p;
	uint32_t pi;
	uint64_t t;
	bool slow = L->slow;	/* read once: a byte may alias the stores below */

	if (!move && L->qlen >= L->limit)
		return XTX_DROP_LEAF_LIMIT;
	if (!move && tts > now && tts - now > s->horizon_ns)
		return XTX_DROP_HORIZON;
	if (!move && f->qlen >= L->flow_limit)
		return XTX_DROP_FLOW_LIMIT;
	pi = s->free_head;
	if (pi == _XTX_NIL)
		return XTX_DROP_NO_BUFS;

	p = &s->pool[pi];
	s->free_head = p->next;
	p->d = *d;
	p->tts = tts;
	p->next = _XTX_NIL;
	L->qlen++;
	s->qlen++;
	if (__builtin_expect(L->qlen == _xtx_leaf_near_at(L), 0) && !L->near_listed) {
		L->near_listed = 1;
		s->near_list[s->nnear++] = (uint32_t)(L - s->leaves);
	}
	if (__builtin_expect(slow, 0))
		_xtx_slow_enq(s, L, (uint32_t)(f - L->flows), p, d->len, now);

	if (f->qlen) {			/* join the flow's queue */
		s->pool[f->tail].next = pi;
		f->tail = pi;
		f->qlen++;
		if (f->hash != d->hash && L->fq)
			L->collisions++;
		return XTX_DROP__MAX;
	}

	/* First packet of an empty flow: it is the new head. */
	if (f->hash != d->hash) {	/* another flow's idle slot: start afresh */
		f->hash = d->hash;
		f->tnp = 0;
		if (f->state == _XTX_FLOW_DETACHED)
			f->credit = L->quantum;
	} else if (f->state == _XTX_FLOW_DETACHED &&
		   flow_age(now) - f->tail > _XTX_REFILL_AGE && f->credit < L->quantum) {
		f->credit = L->quantum;
	}
	f->head = pi;
	f->tail = pi;
	f->qlen = 1;
	t = tts > f->tnp ? tts : f->tnp;	/* head_time() of the new head */

	switch (f->state) {
	case _XTX_FLOW_DETACHED:
		L->nattached++;
		if (L->room && L->nattached > L->win_att)	/* line 2: room only */
			L->win_att = L->nattached;
		if (t <= now) {
			f->state = _XTX_FLOW_LISTED;
			add_tail(L, true, (uint32_t)(f - L->flows));
			make_ready(s, L);
		} else {
			f->state = _XTX_FLOW_THROTTLED;
			fh_push(s, t, (uint32_t)(L - s->leaves), (uint32_t)(f - L->flows));
		}
		break;
	case _XTX_FLOW_LISTED:		/* emptied but still in a list */
		if (t <= now) {
			make_ready(s, L);
		} else {
			f->state = _XTX_FLOW_PENDING;
			fh_push(s, t, (uint32_t)(L - s->leaves), (uint32_t)(f - L->flows));
		}
		break;
	default:			/* PENDING / THROTTLED emptied by purge: its timer
					 * re-checks the new head */
		break;
	}
	return XTX_DROP__MAX;
}

/* Leaf of a descriptor's class index: invalid indexes (out of range, inner) go to the
 * default leaf; NULL when there is none. */
static inline struct _xtx_leaf *leaf_of(const struct xtx_sched *s, uint32_t c)
{
	uint32_t li = c < s->nslots ? s->slot_leaf[c] : _XTX_NIL;

	if (__builtin_expect(li == _XTX_NIL, 0))
		li = s->dflt_leaf;
	return li != _XTX_NIL ? &s->leaves[li] : NULL;
}

bool _xtx_fq_move(struct xtx_sched *s, struct _xtx_leaf *L, const struct xtx_desc *d,
		  uint64_t tts, uint32_t stamp, uint64_t now)
{
	struct _xtx_flow *f = &L->flows[flow_slot(L, d->hash)];

	if (enqueue_one(s, L, f, d, tts, now, true) != XTX_DROP__MAX)
		return false;
	s->pool[f->tail].stamp = stamp;		/* f->tail: the packet just queued */
	return true;
}

#define ENQ_CHUNK	32

/* Work in chunks of ENQ_CHUNK descriptors, in three passes so the cache misses of a
 * chunk overlap instead of queueing up (DPDK's prefetch pipelining): (1) find each leaf
 * and prefetch its two lines, (2) find each flow slot and prefetch it, (3) enqueue. */
unsigned xtx_sched__enqueue_burst(struct xtx_sched *s, const struct xtx_desc *d,
				  const uint64_t *txtime, unsigned n, uint64_t now_ns,
				  struct xtx_desc *drops, unsigned *ndrops)
{
	struct _xtx_leaf *lv[ENQ_CHUNK];
	struct _xtx_flow *fv[ENQ_CHUNK];
	unsigned base, i, nd = 0;

	/* One clock for enqueue and dequeue, never going back (precondition; enforced by
	 * holding the time still): what is eligible now stays eligible for dequeue. */
	if (now_ns < s->now)
		now_ns = s->now;
	s->now = now_ns;
	for (base = 0; base < n; base += ENQ_CHUNK) {
		const struct xtx_desc *dc = d + base;
		unsigned m = n - base < ENQ_CHUNK ? n - base : ENQ_CHUNK;

		if (s->small) {		/* all in cache: no passes, no prefetches */
			for (i = 0; i < m; i++) {
				struct _xtx_leaf *L = leaf_of(s, dc[i].cls);

				lv[i] = L;
				if (L)
					fv[i] = &L->flows[flow_slot(L, dc[i].hash)];
			}
			goto work;
		}
		for (i = 0; i < m; i++) {
			struct _xtx_leaf *L = leaf_of(s, dc[i].cls);

			lv[i] = L;
			if (L) {
				__builtin_prefetch(L, 1);
				__builtin_prefetch((const char *)L + 64, 1);
				/* activation reads the class's tree line (the
				 * slot's index: the class's until a change moves
				 * slots; a prefetch only) */
				__builtin_prefetch((const char *)&s->cls[dc[i].cls < s->ncls ?
						   dc[i].cls : 0] + 64, 1);
			}
		}
		for (i = 0; i < m; i++) {
			struct _xtx_leaf *L = lv[i];

			if (L) {
				fv[i] = &L->flows[flow_slot(L, dc[i].hash)];
				__builtin_prefetch(fv[i], 1);
			}
		}
work:
		for (i = 0; i < m; i++) {
			const struct xtx_desc *di = &dc[i];
			struct _xtx_leaf *L = lv[i];
			unsigned why;

			if (__builtin_expect(!L, 0)) {
				uint32_t c = di->cls < s->nslots ? s->slot_cls[di->cls] :
					     _XTX_NIL;

				if (c != _XTX_NIL)
					s->cls[c].drops[XTX_DROP_NO_CLASS]++;
				else
					s->drop_no_class++;
				drops[nd++] = *di;
				continue;
			}
			why = enqueue_one(s, L, fv[i], di, txtime ? txtime[base + i] : 0, now_ns,
					  false);
			if (__builtin_expect(why == XTX_DROP__MAX, 1)) {
				L->enq_pkts++;
				L->enq_bytes += di->len;
			} else {
				s->cls[L->cls].drops[why]++;
				drops[nd++] = *di;
			}
		}
	}
	if (ndrops)
		*ndrops = nd;
	return n - nd;
}

/* --- dequeue (leaf half) ------------------------------------------------------------------ */

/* A flow the list walk may send from: credit left, listed with packets. Its head is then
 * eligible (that was checked when it became head). */
static inline bool may_send(const struct _xtx_flow *f)
{
	return f->credit > 0 && f->state == _XTX_FLOW_LISTED && f->qlen;
}

/* The served flow's new head must wait until t: off its list, on a timer. */
static __attribute__((noinline)) void throttle(struct xtx_sched *s, struct _xtx_leaf *L,
					       uint32_t fi, bool from_new, uint64_t t)
{
	pop_head(L, from_new, fi);
	L->flows[fi].state = _XTX_FLOW_THROTTLED;
	fh_push(s, t, (uint32_t)(L - s->leaves), fi);
	L->nready--;
}

/* Send the head of flow fi, the head of the new (from_new) or old list. */
static inline __attribute__((always_inline)) void
serve(struct xtx_sched *s, struct _xtx_leaf *L, struct _xtx_flow *f, uint32_t fi, bool from_new,
      uint64_t now, struct xtx_desc *out)
{
	uint32_t pi = f->head, wire;
	struct _xtx_pkt *p = &s->pool[pi];
	bool slow = L->slow;	/* read once: a byte may alias every store below */

	*out = p->d;
	f->head = p->next;
	f->qlen--;
	L->qlen--;
	s->qlen--;
	p->next = s->free_head;
	s->free_head = pi;

	wire = (uint32_t)out->len + s->overhead;
	if (__builtin_expect(slow, 0))
		_xtx_slow_deq(s, L, fi, out->len, now, true);
	f->credit -= (int32_t)wire;
	if (L->pace_mult) {
		/* len_ns = wire * 1e9 / maxrate, rounded to nearest, <= 1 s */
		uint64_t len_ns = (uint64_t)(((unsigned __int128)wire * L->pace_mult +
					      (1ull << 31)) >> 32);

		if (len_ns > _XTX_PACE_MAX_NS) {
			len_ns = _XTX_PACE_MAX_NS;
			L->pace_clamped++;
		}
		if (f->tnp && now > f->tnp) {	/* sch_fq: forgive up to half for lateness */
			uint64_t late = now - f->tnp;

			len_ns -= late < len_ns / 2 ? late : len_ns / 2;
		}
		f->tnp = now + len_ns;
	}
	if (f->qlen) {
		uint64_t t = _xtx_head_time(s, f);

		if (__builtin_expect(t > now, 0))
			throttle(s, L, fi, from_new, t);
	} else {
		L->nready--;		/* stays listed, empty, until dequeue reaches it */
	}
}

/* CoDel before serving flow fi, the head of its list: false when its drops left it
 * nothing to send now (emptied: not ready any more; a head that must wait: on a timer). */
static __attribute__((noinline)) bool codel_ok(struct xtx_sched *s, struct _xtx_leaf *L,
					       uint32_t fi, bool from_new, uint64_t now)
{
	uint64_t t = 0;

	switch (_xtx_codel_head(s, L, fi, now, &t)) {
	case _XTX_CODEL_SERVE:
		return true;
	case _XTX_CODEL_EMPTY:
		L->nready--;	/* stays listed, empty, as after serve() */
		return false;
	default:
		throttle(s, L, fi, from_new, t);
		return false;
	}
}

/* The walk serves new_flows' head, else old_flows'; a head that may not send is moved
 * on (see the head of this file) and the walk goes on. Each list has its own loop: a
 * flow leaves new_flows only for old_flows or a timer, and nothing in old_flows goes back,
 * so once new_flows is empty it stays empty for this call. */
bool _xtx_fq_dequeue(struct xtx_sched *s, struct _xtx_leaf *L, uint64_t now,
		     struct xtx_desc *out)
{
	struct _xtx_flow *flows = L->flows, *f;
	bool codel = L->codel;	/* read once: a byte may alias the walk's stores */
	uint32_t fi;

	while ((fi = L->new_head) != _XTX_NIL) {
		f = &flows[fi];
		/* the list walk is a pointer chase through a large table: start the next
		 * visit's miss now, it overlaps with this one's work */
		if (f->next != _XTX_NIL)
			__builtin_prefetch(&flows[f->next], 1);
		if (__builtin_expect(may_send(f), 1)) {
			if (__builtin_expect(codel, 0) && !codel_ok(s, L, fi, true, now))
				continue;
			serve(s, L, f, fi, true, now, out);
			return true;
		}
		pop_head(L, true, fi);
		if (codel && !f->qlen)
			_xtx_codel_empty(L, fi);
		if (f->credit <= 0) {
			f->credit += L->quantum;
		} else if (f->state == _XTX_FLOW_PENDING) {	/* its timer is armed */
			f->state = _XTX_FLOW_THROTTLED;
			continue;
		}
		/* credit spent, or emptied: to old_flows. sch_fq (Linux 6.7 on): an emptied
		 * new flow always goes through old_flows, so new flows cannot starve old ones */
		add_tail(L, false, fi);
	}
	while ((fi = L->old_head) != _XTX_NIL) {
		f = &flows[fi];
		if (f->next != _XTX_NIL)
			__builtin_prefetch(&flows[f->next], 1);
		if (__builtin_expect(may_send(f), 1)) {
			if (__builtin_expect(codel, 0) && !codel_ok(s, L, fi, false, now))
				continue;
			serve(s, L, f, fi, false, now, out);
			return true;
		}
		pop_head(L, false, fi);
		if (codel && !f->qlen)
			_xtx_codel_empty(L, fi);
		if (f->credit <= 0) {
			f->credit += L->quantum;
			add_tail(L, false, fi);
		} else if (f->state == _XTX_FLOW_PENDING) {
			f->state = _XTX_FLOW_THROTTLED;
		} else {
			detach(L, f, now);
		}
	}
	return false;
}

void _xtx_fq_do_timers(struct xtx_sched *s, uint64_t now)
{
	while (s->fh_n && s->fh[0].key <= now) {
		struct _xtx_fev e = s->fh[0];
		struct _xtx_leaf *L = &s->leaves[e.leaf];
		struct _xtx_flow *f = &L->flows[e.flow];
		uint64_t t;

		fh_pop(s);
		if (!f->qlen) {			/* emptied by purge while waiting */
			if (f->state == _XTX_FLOW_THROTTLED)
				detach(L, f, now);
			else
				f->state = _XTX_FLOW_LISTED;
			continue;
		}
		t = _xtx_head_time(s, f);
		if (t > now) {			/* head changed by purge + enqueue */
			fh_push(s, t, e.leaf, e.flow);
			continue;
		}
		if (f->state == _XTX_FLOW_THROTTLED)
			add_tail(L, false, e.flow);	/* sch_fq: back on old_flows */
		f->state = _XTX_FLOW_LISTED;
		make_ready(s, L);
	}
}

/* --- purge ------------------------------------------------------------------------------ */

/* After purge emptied a leaf: detach every listed flow (all are empty) so the stats and
 * the lists start clean. PENDING flows keep their timer as THROTTLED; it detaches them. */
static void leaf_reset_lists(struct _xtx_leaf *L, uint64_t now)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		uint32_t fi = pass ? L->old_head : L->new_head;

		while (fi != _XTX_NIL) {
			struct _xtx_flow *f = &L->flows[fi];
			uint32_t next = f->next;

			if (f->state == _XTX_FLOW_PENDING)
				f->state = _XTX_FLOW_THROTTLED;
			else
				detach(L, f, now);
			fi = next;
		}
	}
	L->new_head = L->new_tail = L->old_head = L->old_tail = _XTX_NIL;
}

unsigned xtx_sched__purge(struct xtx_sched *s, struct xtx_desc *out, unsigned n)
{
	unsigned cnt = 0;

	while (cnt < n && s->qlen) {
		struct _xtx_leaf *L = &s->leaves[s->pg_leaf];
		struct _xtx_flow *f;
		bool was_ready;

		if (!L->qlen || s->pg_flow >= L->nflows) {
			s->pg_leaf = s->pg_leaf + 1 < s->nleaves ? s->pg_leaf + 1 : 0;
			s->pg_flow = 0;
			continue;
		}
		f = &L->flows[s->pg_flow];
		if (!f->qlen) {
			s->pg_flow++;
			continue;
		}
		was_ready = f->state == _XTX_FLOW_LISTED;
		while (cnt < n && f->qlen) {
			struct _xtx_pkt *p = &s->pool[f->head];
			uint32_t pi = f->head;

			out[cnt++] = p->d;
			f->head = p->next;
			f->qlen--;
			L->qlen--;
			s->qlen--;
			s->cls[L->cls].drops[XTX_DROP_PURGED]++;
			if (L->slow)
				_xtx_slow_deq(s, L, s->pg_flow, p->d.len, s->now, false);
			p->next = s->free_head;
			s->free_head = pi;
		}
		if (L->codel && !f->qlen) {	/* as a flow the walk finds empty */
			L->cv[s->pg_flow].dropping = 0;
			L->cv[s->pg_flow].first_above = 0;
		}
		if (was_ready && (!f->qlen || _xtx_head_time(s, f) > s->now)) {
			/* No longer an eligible head: not ready. A remaining head that must
			 * wait keeps its list place and gets a timer (PENDING). */
			L->nready--;
			if (f->qlen) {
				f->state = _XTX_FLOW_PENDING;
				fh_push(s, _xtx_head_time(s, f), s->pg_leaf, s->pg_flow);
			}
			if (!L->nready)
				_xtx_htb_deactivate(s, L->cls);
		}
		if (!L->qlen)
			leaf_reset_lists(L, s->now);
	}
	return cnt;
}
