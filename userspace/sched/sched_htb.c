/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_htb.c - the HTB class tree: token buckets, class modes, borrowing, and dequeue.
 * After the kernel's net/sched/sch_htb.c, our own code; the reasons are in
 * docs/design.md, "The class tree".
 *
 *   Levels: leaves (sched_fq.c) 0, a root with children 7, one less per step down.
 *   Buckets in ns of transmission time: tokens at `rate`, depth burst * 1e9 / rate;
 *   ctokens at `ceil`, depth cburst * 1e9 / ceil. A charge of wire length L at now:
 *     toks = min(toks + min(now - t_c, 60 s), depth) - L * 1e9 / rate;
 *     if (toks <= -60 s) toks = 1 - 60 s;	(sch_htb's mbuffer clamp)
 *   with ns per byte in 32.32 fixed point and the sub-ns remainder carried (exact rates).
 *   Modes, with sch_htb's hysteresis (off when built with -DXTX_SCHED_HYSTERESIS=0):
 *     CANT_SEND   ctokens < lowater (-min(cbuffer, 30 s) while sending, 0 once stopped)
 *     CAN_SEND    tokens >= hiwater (-min(buffer, 30 s) while CAN_SEND, 0 otherwise)
 *     MAY_BORROW  otherwise
 *   A class not CAN_SEND waits in the wait heap, keyed by when its mode changes.
 *   Activity: an active CAN_SEND class is in row[level][prio], an active MAY_BORROW one in
 *   its parent's feed[prio], which makes the parent active there (htb_activate_prios).
 *   row_mask: the lowest set bit (level * 8 + prio) is what to serve next.
 *   DRR among one prio: a row or feed is a set ordered by handle (_xtx_oset, a three-level
 *   bitmap); its pointer is a position that may name an absent member (last_ptr_id). A
 *   served leaf's deficit for that level drops by the wire length; below zero it gets
 *   `quantum` more and the set's pointer moves on (htb_lookup_leaf).
 *   Charging: ctokens of the leaf and every ancestor, tokens only at and above the level
 *   that served it (htb_charge_class); deferred within a dequeue call (flush_deferred).
 *   Cost per packet: O(1) to find the (level, prio) and the next class, O(depth) to find
 *   the leaf and charge, O(log classes) per mode change. No scan, allocation or failure.
 *
 * Differences from sch_htb:
 *   - a class still throttled after a charge has its heap key updated at once;
 *   - a row pointer whose class left resumes at the first class >= it, as a feed's;
 *   - a leaf is active only while one of its flows has an eligible packet;
 *   - inner classes count packets and bytes sent; no rate estimator;
 *   - the hysteresis band is at most 30 s (hyst_band()).
 */
#include <stdint.h>

#include "sched_int.h"

/* --- rows and feeds -------------------------------------------------------------------- */

static inline struct _xtx_oset *feed_of(struct xtx_sched *s, uint32_t c, unsigned prio)
{
	return &s->feeds[(size_t)s->cls[c].inner * _XTX_NUMPRIO + prio];
}

/* --- wait heap (classes keyed by the time their mode changes) -------------------------- */

static inline void wq_set(struct xtx_sched *s, uint32_t i, struct _xtx_wev e)
{
	s->wq[i] = e;
	s->cls[e.cls].pq_idx = i;
}

static void wq_sift_up(struct xtx_sched *s, uint32_t i)
{
	struct _xtx_wev e = s->wq[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (s->wq[p].key <= e.key)
			break;
		wq_set(s, i, s->wq[p]);
		i = p;
	}
	wq_set(s, i, e);
}

static void wq_sift_down(struct xtx_sched *s, uint32_t i)
{
	struct _xtx_wev e = s->wq[i];
	uint32_t n = s->wq_n;

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = (l + 1 < n && s->wq[l + 1].key < s->wq[l].key) ? l + 1 : l;
		if (s->wq[m].key >= e.key)
			break;
		wq_set(s, i, s->wq[m]);
		i = m;
	}
	wq_set(s, i, e);
}

/* Precondition: c is not in the heap (capacity is one slot per class). */
static void wq_push(struct xtx_sched *s, uint32_t c, uint64_t key)
{
	uint32_t i = s->wq_n++;

	s->wq[i] = (struct _xtx_wev){ .key = key, .cls = c };
	s->cls[c].pq_idx = i;
	wq_sift_up(s, i);
}

static void wq_update(struct xtx_sched *s, uint32_t c, uint64_t key)
{
	uint32_t i = s->cls[c].pq_idx;
	uint64_t old = s->wq[i].key;

	s->wq[i].key = key;
	if (key < old)
		wq_sift_up(s, i);
	else if (key > old)
		wq_sift_down(s, i);
}

static void wq_remove(struct xtx_sched *s, uint32_t c)
{
	uint32_t i = s->cls[c].pq_idx, last = --s->wq_n;

	s->cls[c].pq_idx = _XTX_NIL;
	if (i == last)
		return;
	wq_set(s, i, s->wq[last]);
	if (i > 0 && s->wq[(i - 1) / 2].key > s->wq[i].key)
		wq_sift_up(s, i);
	else
		wq_sift_down(s, i);
}

/* --- activity (sch_htb's feed chains) --------------------------------------------------- */

static inline void row_add(struct xtx_sched *s, const struct _xtx_class *cl, unsigned prio)
{
	_xtx_oset_add(&s->row[cl->level][prio], cl->lidx);
	s->row_mask |= 1ull << (cl->level * _XTX_NUMPRIO + prio);
}

static inline void row_del(struct xtx_sched *s, const struct _xtx_class *cl, unsigned prio)
{
	struct _xtx_oset *l = &s->row[cl->level][prio];

	_xtx_oset_del(l, cl->lidx);
	if (_xtx_oset_empty(l))
		s->row_mask &= ~(1ull << (cl->level * _XTX_NUMPRIO + prio));
}

static void add_to_row(struct xtx_sched *s, uint32_t c, unsigned mask)
{
	while (mask) {
		unsigned prio = (unsigned)__builtin_ctz(mask);

		mask &= mask - 1;
		row_add(s, &s->cls[c], prio);
	}
}

static void remove_from_row(struct xtx_sched *s, uint32_t c, unsigned mask)
{
	while (mask) {
		unsigned prio = (unsigned)__builtin_ctz(mask);

		mask &= mask - 1;
		row_del(s, &s->cls[c], prio);
	}
}

/* Connect c's active prios to its ancestors' feeds and/or the rows (htb_activate_prios).
 * Precondition: c->mode is the new mode; c->prio_activity set; c in no feed/row. */
static void activate_prios(struct xtx_sched *s, uint32_t c)
{
	uint32_t p = s->cls[c].parent;
	unsigned mask = s->cls[c].prio_activity;

	while (s->cls[c].mode == _XTX_MAY_BORROW && p != _XTX_NIL && mask) {
		unsigned m = mask;

		while (m) {
			unsigned prio = (unsigned)__builtin_ctz(m);
			struct _xtx_oset *f = feed_of(s, p, prio);

			m &= m - 1;
			if (!_xtx_oset_empty(f))	/* parent already active at prio */
				mask &= ~(1u << prio);
			_xtx_oset_add(f, s->cls[c].sib);
			f->qsum += s->cls[c].feed_w;
		}
		s->cls[p].prio_activity |= (uint8_t)mask;
		c = p;
		p = s->cls[c].parent;
	}
	if (s->cls[c].mode == _XTX_CAN_SEND && mask)
		add_to_row(s, c, mask);
}

/* Undo activate_prios (htb_deactivate_prios). Precondition: c->mode is the mode it was
 * activated with. */
static void deactivate_prios(struct xtx_sched *s, uint32_t c)
{
	uint32_t p = s->cls[c].parent;
	unsigned mask = s->cls[c].prio_activity;

	while (s->cls[c].mode == _XTX_MAY_BORROW && p != _XTX_NIL && mask) {
		unsigned m = mask;

		mask = 0;
		while (m) {
			unsigned prio = (unsigned)__builtin_ctz(m);
			struct _xtx_oset *f = feed_of(s, p, prio);

			m &= m - 1;
			_xtx_oset_del(f, s->cls[c].sib);
			f->qsum -= s->cls[c].feed_w;
			if (_xtx_oset_empty(f))		/* parent no longer active at prio */
				mask |= 1u << prio;
		}
		s->cls[p].prio_activity &= (uint8_t)~mask;
		c = p;
		p = s->cls[c].parent;
	}
	if (s->cls[c].mode == _XTX_CAN_SEND && mask)
		remove_from_row(s, c, mask);
}

/* A leaf is activated and deactivated whenever its last eligible packet comes and goes:
 * with many leaves and few packets each, once per packet. The common case, a leaf under
 * its rate (CAN_SEND), only enters or leaves its row at its one prio; that is what
 * activate_prios / deactivate_prios do for it, without the feed walk and mask loops. */
void _xtx_htb_activate(struct xtx_sched *s, uint32_t c)
{
	struct _xtx_class *cl = &s->cls[c];

	if (cl->prio_activity)
		return;
	cl->prio_activity = (uint8_t)(1u << cl->prio);
	if (cl->mode == _XTX_CAN_SEND)
		row_add(s, cl, cl->prio);
	else
		activate_prios(s, c);
}

void _xtx_htb_deactivate(struct xtx_sched *s, uint32_t c)
{
	struct _xtx_class *cl = &s->cls[c];

	if (!cl->prio_activity)
		return;
	if (cl->mode == _XTX_CAN_SEND && cl->prio_activity == 1u << cl->prio)
		row_del(s, cl, cl->prio);
	else
		deactivate_prios(s, c);
	cl->prio_activity = 0;
}

/* --- modes ------------------------------------------------------------------------------ */

/* The hysteresis band of a bucket `depth` ns deep: how far below zero a class that is
 * sending may go before its mode drops. sch_htb uses the whole depth; here it is at most
 * half of the -60 s clamp, because a bucket deeper than 60 s could otherwise never reach
 * it: accnt() forgives any debt beyond -60 s, and the class would never be throttled (a
 * leaf with a 300 s cburst sent 20 times its ceil in the random test). */
static inline int64_t hyst_band(int64_t depth)
{
	return depth < _XTX_MBUFFER_NS / 2 ? depth : _XTX_MBUFFER_NS / 2;
}

/* Mode of cl `diff` ns after its checkpoint (htb_class_mode). When not CAN_SEND, *diff
 * becomes the ns from now until the failing bucket is back to zero (> 0). */
static inline unsigned class_mode(const struct _xtx_class *cl, int64_t *diff)
{
	int64_t toks, low = 0, high = 0;

	if (XTX_SCHED_HYSTERESIS) {
		low = cl->mode != _XTX_CANT_SEND ? -hyst_band(cl->cbuffer) : 0;
		high = cl->mode == _XTX_CAN_SEND ? -hyst_band(cl->buffer) : 0;
	}
	toks = cl->ctokens + *diff;
	if (toks < low) {
		*diff = -toks;
		return _XTX_CANT_SEND;
	}
	toks = cl->tokens + *diff;
	if (toks >= high)
		return _XTX_CAN_SEND;
	*diff = -toks;
	return _XTX_MAY_BORROW;
}

/* Move c to `mode` between rows and feeds (htb_change_class_mode). Precondition: mode
 * differs from c's. The caller keeps the wait heap in step. */
static void set_class_mode(struct xtx_sched *s, uint32_t c, unsigned mode)
{
	struct _xtx_class *cl = &s->cls[c];

	if (mode < cl->mode)
		cl->throttled++;
	if (cl->prio_activity) {
		if (cl->mode != _XTX_CANT_SEND)
			deactivate_prios(s, c);
		cl->mode = (uint8_t)mode;
		if (mode != _XTX_CANT_SEND)
			activate_prios(s, c);
	} else {
		cl->mode = (uint8_t)mode;
	}
}

/* Recompute c's mode; the common "unchanged" case stays inline. */
static inline void change_class_mode(struct xtx_sched *s, uint32_t c, int64_t *diff)
{
	unsigned mode = class_mode(&s->cls[c], diff);

	if (__builtin_expect(mode != s->cls[c].mode, 0))
		set_class_mode(s, c, mode);
}

/* ns elapsed since the checkpoint, clamped to [0, mbuffer]. */
static inline int64_t elapsed(const struct _xtx_class *cl, uint64_t now)
{
	if (now <= cl->t_c)
		return 0;
	return now - cl->t_c > (uint64_t)_XTX_MBUFFER_NS ? _XTX_MBUFFER_NS
							  : (int64_t)(now - cl->t_c);
}

static inline int64_t accnt(int64_t toks, int64_t diff, int64_t buffer, int64_t cost)
{
	toks += diff;
	if (toks > buffer)
		toks = buffer;
	toks -= cost;
	if (toks <= -_XTX_MBUFFER_NS)
		toks = 1 - _XTX_MBUFFER_NS;
	return toks;
}

/* --- deferred charging ------------------------------------------------------------------ */

/* Within one dequeue call `now` is fixed. Once a class has been charged at now (t_c ==
 * now), charging it again only subtracts from its buckets: no time is added, so the clamp
 * to the bucket depth cannot bind, and the carried remainder makes the token math linear
 * (l2t(a) then l2t(b) gives exactly l2t(a + b) and the same remainder). So while the class
 * cannot change mode, its charges may be added up and applied once. A class charged a
 * second time at one now gets a budget: wire bytes it may take before a bucket could fall
 * below the threshold of its mode (or reach the -mbuffer clamp):
 *   CAN_SEND    both buckets, any charge;
 *   MAY_BORROW  ctokens, and only charges that borrow (tokens untouched): its wait-heap
 *               key, the time its tokens are back to zero, stays the same. A charge on
 *               its own tokens goes the full way.
 * Charges within the budget only add to dwire_t / dwire_c and the counters; the first
 * charge beyond it, and the end of the dequeue call, apply the sum (flush_deferred). The
 * mode cannot change in between, so rows, feeds, the wait heap and the order of packets
 * are what per-packet charging gives (tests run a twin scheduler with this turned off
 * beside each other and compare every output). This takes the token math of the root,
 * and of any class sending several packets in one call, off all but two of them. */

/* Wire bytes a bucket of `toks` ns may be charged at `mult` (ns per byte << 32) and stay
 * >= `floor`: conservative (the ns per byte is rounded up to 1/65536 ns, and l2t may round
 * up by 1 ns). Precondition: toks >= floor. */
static inline uint32_t bucket_budget(int64_t toks, int64_t floor, uint64_t mult)
{
	uint64_t avail = (uint64_t)(toks - floor), npb = (mult >> 16) + 1, b;

	if (avail <= 1)
		return 0;
	if (avail > (1ull << 46))	/* keep the shift below in 64 bits; a smaller budget */
		avail = 1ull << 46;	/* is only more conservative */
	b = ((avail - 1) << 16) / npb;
	return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

/* Give a CAN_SEND or MAY_BORROW class just charged at now (t_c == now) its budget. */
static void start_deferring(struct xtx_sched *s, uint32_t c)
{
	struct _xtx_class *cl = &s->cls[c];
	/* class_mode's thresholds for a class that is not CANT_SEND */
	int64_t low = XTX_SCHED_HYSTERESIS ? -hyst_band(cl->cbuffer) : 0;
	int64_t high = XTX_SCHED_HYSTERESIS ? -hyst_band(cl->buffer) : 0;
	int64_t clamp = 1 - _XTX_MBUFFER_NS;			/* accnt's lowest value */
	uint32_t bt = UINT32_MAX, bc;

	cl->dborrow_only = cl->mode != _XTX_CAN_SEND;
	if (!cl->dborrow_only)
		bt = bucket_budget(cl->tokens, high > clamp ? high : clamp, cl->rate_mult);
	bc = bucket_budget(cl->ctokens, low > clamp ? low : clamp, cl->ceil_mult);
	cl->dbudget = bt < bc ? bt : bc;
	if (cl->dbudget && !cl->dlisted) {	/* at most once: dlist holds ncls */
		cl->dlisted = 1;
		s->dlist[s->dn++] = c;
	}
}

/* Apply a class's deferred charges; its mode stays (the budget saw to that). */
static inline void apply_deferred(struct _xtx_class *cl)
{
	cl->tokens -= (int64_t)_xtx_l2t(cl->rate_mult, cl->dwire_t, &cl->rate_rem);
	cl->ctokens -= (int64_t)_xtx_l2t(cl->ceil_mult, cl->dwire_c, &cl->ceil_rem);
	cl->dwire_t = cl->dwire_c = 0;
}

/* End of a dequeue call: apply every deferred charge and end the budgets. */
static void flush_deferred(struct xtx_sched *s)
{
	uint32_t i;

	for (i = 0; i < s->dn; i++) {
		struct _xtx_class *cl = &s->cls[s->dlist[i]];

		apply_deferred(cl);
		cl->dbudget = 0;
		cl->dlisted = 0;
	}
	s->dn = 0;
}

/* --- device-wide classes ---------------------------------------------------------------- */

/* Weight of this queue's demand on class c, for sharing what is left above guaranteed
 * rates (a leaf: its flows with packets; an inner class: the feed_w of its children
 * borrowing at its best prio, as HTB's DRR splits by quantum; 0: none), and its rank,
 * 1 + the prio of that demand (a leaf's own prio; an inner class's best borrowing prio),
 * lower first. What its descendants sent on their own rates is not demand: it is charged
 * to the device-wide bucket whatever that holds (sh_pay_owed). */
static inline uint32_t sh_demand(struct xtx_sched *s, uint32_t c, uint32_t *rank)
{
	const struct _xtx_class *cl = &s->cls[c];
	uint64_t q = 0;
	unsigned p = 0;

	if (cl->leaf != _XTX_NIL) {
		const struct _xtx_leaf *L = &s->leaves[cl->leaf];

		*rank = 1u + cl->prio;
		return L->room ? _xtx_room_flows(L) : L->nready;
	}
	if (cl->prio_activity) {
		p = (unsigned)__builtin_ctz(cl->prio_activity);
		q = feed_of(s, c, p)->qsum;
	}
	*rank = 1u + p;
	return q > UINT32_MAX ? UINT32_MAX : (uint32_t)q;
}

/* A view's time t (0: never) is within the class's patience of now. */
static inline bool sh_recent(uint64_t t, const struct _xtx_shclass *sc, uint64_t now)
{
	return t && (t >= now || now - t <= (uint64_t)_xtx_sh_par(&sc->patience));
}

/* A class's device-wide buckets, as bits of struct _xtx_shq.ask: short of it. */
enum { SH_RATE = 1, SH_CEIL = 2, SH_ASK_BITS = 15 };

/* Which of class c's buckets queue view o was left short of at its last take (SH_RATE,
 * SH_CEIL), if that was within the class's patience; 0: none. */
static inline unsigned sh_blocked(const struct _xtx_shq *o, const struct _xtx_shclass *sc,
				  uint64_t now)
{
	/* Relaxed: a hint (struct _xtx_shq); pairs with the relaxed store in sh_refill()
	 * of the scheduler that owns o. */
	uint64_t a = atomic_load_explicit(&o->ask, memory_order_relaxed);

	return sh_recent(a & ~(uint64_t)SH_ASK_BITS, sc, now) ? (unsigned)(a & SH_ASK_BITS) : 0;
}

/* Class c's weight in its parent's feeds: its quantum times this queue's share w / all of
 * its demand across queues, as one HTB gives the class one quantum however many queues
 * its packets sit on; the feeds it is in now follow. */
static void sh_set_feed_w(struct xtx_sched *s, uint32_t c, uint32_t w, uint64_t all)
{
	struct _xtx_class *cl = &s->cls[c];
	uint32_t fw = cl->leaf == _XTX_NIL ? w		/* its borrowing leaves' */
		      : (uint32_t)((uint64_t)(uint32_t)cl->quantum * w / all), m;

	if (!fw)
		fw = 1;
	if (cl->mode == _XTX_MAY_BORROW && cl->parent != _XTX_NIL)
		for (m = cl->prio_activity; m; m &= m - 1)
			feed_of(s, cl->parent, (unsigned)__builtin_ctz(m))->qsum +=
				(uint64_t)fw - (uint64_t)cl->feed_w;
	cl->feed_w = fw;
}

/* Publish this queue's view of class c (struct _xtx_shq) and say which of the buckets in
 * `want` (SH_RATE, SH_CEIL) it may take from now: not one that another queue is blocked
 * on with a better rank (sh_demand()), or the same rank and a vt more than slack bytes (at
 * this queue's weight) below this one's. A queue with no demand to share never waits.
 * O(queues), once per take. */
static unsigned sh_may_take(struct xtx_sched *s, uint32_t c, unsigned want, uint64_t now)
{
	struct _xtx_class *cl = &s->cls[c];
	const struct _xtx_shclass *sc = _xtx_sh_of(s, c);
	struct _xtx_shq *me = _xtx_shq_of(s, s->qidx, c);
	uint32_t rank, w = sh_demand(s, c, &rank), wl, j;
	/* Relaxed, every access to the views: own fields read back (only this thread writes
	 * them) and the others' hints; pairs with the relaxed stores below and in
	 * sh_refill() of the other schedulers. */
	uint64_t vt = atomic_load_explicit(&me->vt, memory_order_relaxed);
	uint64_t low = UINT64_MAX, slack, lag, step, all = w;
	unsigned defer = 0;

	/* The bytes since the last take were served at a weight > 0: the one now, else the
	 * last one (a class that stopped borrowing has weight 0 now), else one flow (a leaf)
	 * or its quantum (an inner class, whose weights are sums of its children's quanta:
	 * the same order, not the same unit). */
	wl = w ? w : cl->vt_w ? cl->vt_w : cl->leaf != _XTX_NIL ? 1 : (uint32_t)cl->quantum;
	if (w)
		cl->vt_w = w;
	step = ((uint64_t)cl->fair_wire << 10) + cl->vt_rem;	/* exact over many takes */
	vt += step / wl;
	cl->vt_rem = (uint32_t)(step % wl);
	cl->fair_wire = 0;
	slack = ((uint64_t)_xtx_sh_par(&sc->slack) << 10) / wl;
	for (j = 0; j < s->nq; j++) {
		const struct _xtx_shq *o = _xtx_shq_of(s, j, c);
		uint32_t ow, orank;
		uint64_t ovt;
		unsigned ob;

		if (j == s->qidx)
			continue;
		ow = atomic_load_explicit(&o->w, memory_order_relaxed);
		orank = atomic_load_explicit(&o->bprio, memory_order_relaxed);
		ovt = atomic_load_explicit(&o->vt, memory_order_relaxed);
		if (sh_recent(atomic_load_explicit(&o->seen, memory_order_relaxed), sc, now)) {
			all += ow;
			if (ovt < low)
				low = ovt;
		}
		ob = sh_blocked(o, sc, now);
		/* Nothing to share here, it has no demand, or it is not short of a bucket this
		 * queue wants. */
		if (!w || !ow || !(ob & want))
			continue;
		if (orank < rank || (orank == rank && ovt + slack < vt))
			defer |= ob & want;
	}
	/* No more credit than one burst for a queue that had no demand (within patience):
	 * coming back, it catches up with the others at most by the class's burst (at its
	 * weight). A queue that kept its demand keeps what it is behind. */
	lag = ((uint64_t)_xtx_sh_par(&sc->burst) << 10) / wl;
	if (w && low != UINT64_MAX && low > lag && vt < low - lag &&
	    !sh_recent(atomic_load_explicit(&me->seen, memory_order_relaxed), sc, now))
		vt = low - lag;
	if (w) {
		sh_set_feed_w(s, c, w, all);
		atomic_store_explicit(&me->seen, now, memory_order_relaxed);
	}
	atomic_store_explicit(&me->vt, vt, memory_order_relaxed);
	atomic_store_explicit(&me->w, w, memory_order_relaxed);
	atomic_store_explicit(&me->bprio, rank, memory_order_relaxed);
	return want & ~defer;
}

enum { SH_FED = 0, SH_SHORT = 1, SH_DEFERRED = 2 };	/* _xtx_class.blocked */

/* Charge what an inner class's descendants sent on their own rates (*owed wire bytes at
 * mult, rounded up) to the device-wide bucket whatever it holds, as sch_htb charges an
 * ancestor for them (into debt if need be: the others' takes then wait), and give the
 * local bucket back what those sends took from it, with no min_take; the local bucket
 * holds one slice at most. Returns what it gets back, ns (the whole charge is made even
 * where the 60 s cap cut it). */
static int64_t sh_pay_owed(uint32_t *owed, uint64_t mult, struct _xtx_shbucket *b,
			   int64_t toks, uint64_t now)
{
	uint32_t rem = 0;
	int64_t owe = _xtx_sh_charge(b, (int64_t)_xtx_l2t(mult, *owed, &rem) + 1, now);

	int64_t room = _xtx_sh_par(&b->slice) - toks;

	*owed = 0;
	return owe > room ? room : owe;	/* one slice at most */
}

/* Top class c's local buckets up to one slice from the device-wide ones where they are
 * below zero (the rate bucket only if `rate`): first what its descendants sent on their
 * own rates (owed_t, owed_c) is charged there, then it takes unless sh_may_take() says
 * wait. Publish whether c is now blocked. */
static void sh_refill(struct xtx_sched *s, uint32_t c, bool rate, uint64_t now)
{
	struct _xtx_class *cl = &s->cls[c];
	struct _xtx_shclass *sc = _xtx_sh_of(s, c);
	bool nt = rate && cl->tokens < 0, nc = cl->ctokens < 0;
	unsigned st = SH_FED, want, may, short_of;

	if (!nt && !nc)
		return;
	if (nt && cl->owed_t)
		cl->tokens += sh_pay_owed(&cl->owed_t, cl->rate_mult, &sc->rate, cl->tokens, now);
	if (nc && cl->owed_c)
		cl->ctokens += sh_pay_owed(&cl->owed_c, cl->ceil_mult, &sc->ceil, cl->ctokens,
					   now);
	want = (nt && cl->tokens < 0 ? SH_RATE : 0) | (nc && cl->ctokens < 0 ? SH_CEIL : 0);
	may = s->nq > 1 && want ? sh_may_take(s, c, want, now) : want;
	if (may & SH_RATE)
		cl->tokens += _xtx_sh_take(&sc->rate, _xtx_sh_par(&sc->rate.slice) - cl->tokens, now);
	if (may & SH_CEIL)
		cl->ctokens += _xtx_sh_take(&sc->ceil, _xtx_sh_par(&sc->ceil.slice) - cl->ctokens, now);
	short_of = (cl->tokens < 0 ? SH_RATE : 0) | (cl->ctokens < 0 ? SH_CEIL : 0);
	if (want & ~may)
		st = SH_DEFERRED;
	else if (short_of)
		st = SH_SHORT;
	if (cl->tokens <= -_XTX_MBUFFER_NS)	/* sch_htb's floor */
		cl->tokens = 1 - _XTX_MBUFFER_NS;
	if (cl->ctokens <= -_XTX_MBUFFER_NS)
		cl->ctokens = 1 - _XTX_MBUFFER_NS;
	if (s->nq > 1 && (st != SH_FED || cl->blocked != SH_FED))
		/* Relaxed: a hint (struct _xtx_shq); pairs with sh_blocked()'s load. */
		atomic_store_explicit(&_xtx_shq_of(s, s->qidx, c)->ask,
				      st != SH_FED ? (now & ~(uint64_t)SH_ASK_BITS) | short_of : 0,
				      memory_order_relaxed);
	cl->blocked = (uint8_t)st;
}

/* The wait-heap key of a device-wide class that class_mode() just found not CAN_SEND:
 * at once if it has descendants' sends to charge to the failing bucket (the refill at
 * that event charges them and gives the local bucket back what they took, whatever the
 * device-wide one holds), else when the device-wide bucket could give back its debt;
 * half a slice on when it waits for another queue. */
static inline uint64_t sh_key(struct xtx_sched *s, uint32_t c, uint64_t now)
{
	const struct _xtx_class *cl = &s->cls[c];
	struct _xtx_shclass *sc = _xtx_sh_of(s, c);

	if (cl->blocked == SH_DEFERRED)
		return now + (uint64_t)_xtx_sh_par(&sc->rate.min_take);
	if (cl->mode == _XTX_CANT_SEND)
		return cl->owed_c ? now + 1 : _xtx_sh_ready(&sc->ceil, -cl->ctokens, now);
	return cl->owed_t ? now + 1 : _xtx_sh_ready(&sc->rate, -cl->tokens, now);
}

/* What a charge of a device-wide class counts for among the queues: owed when served
 * below its level (a descendant's own rate), its fair share otherwise. */
static inline void sh_account(struct _xtx_class *cl, bool below, uint32_t wire)
{
	if (!below) {
		cl->fair_wire += wire;
	} else {			/* saturating; sh_refill() charges it */
		cl->owed_t = cl->owed_t > UINT32_MAX - wire ? UINT32_MAX : cl->owed_t + wire;
		cl->owed_c = cl->owed_c > UINT32_MAX - wire ? UINT32_MAX : cl->owed_c + wire;
	}
}

/* htb_charge_class's bucket update for a device-wide class: the charge comes off the
 * local buckets, which refill from the device-wide ones instead of from elapsed time.
 * own: charged on its tokens (served at or below its level), else borrowed above it;
 * below: served below its level, on a descendant's own rate (owed: charged at the
 * refill whatever the device-wide bucket holds). */
static inline void charge_shared(struct xtx_sched *s, uint32_t c, bool own, bool below,
				 uint32_t wire, uint64_t now)
{
	struct _xtx_class *cl = &s->cls[c];

	if (own)
		cl->tokens -= (int64_t)_xtx_l2t(cl->rate_mult, wire, &cl->rate_rem);
	else
		cl->borrows++;
	cl->ctokens -= (int64_t)_xtx_l2t(cl->ceil_mult, wire, &cl->ceil_rem);
	sh_account(cl, below, wire);
	sh_refill(s, c, own, now);
}

/* Charge `wire` bytes to leaf c and its ancestors; `level` served it (htb_charge_class).
 * `len` (frame bytes) only feeds the counters. */
static void charge(struct xtx_sched *s, uint32_t c, unsigned level, uint32_t wire,
		   uint32_t len, uint64_t now)
{
	while (c != _XTX_NIL) {
		struct _xtx_class *cl = &s->cls[c];
		int64_t diff;
		unsigned old;
		bool again;

		cl->sent_pkts++;
		cl->sent_bytes += len;
		if (cl->dbudget && wire <= cl->dbudget &&	/* within a budget: add up */
		    (cl->level < level || !cl->dborrow_only)) {
			cl->dbudget -= wire;
			cl->dwire_c += wire;
			if (cl->level >= level)
				cl->dwire_t += wire;
			else
				cl->borrows++;
			if (__builtin_expect(cl->shared, 0))
				sh_account(cl, cl->level > level, wire);
			c = cl->parent;
			continue;
		}
		if (cl->dbudget || cl->dwire_c) {	/* beyond it: apply, charge in full */
			apply_deferred(cl);
			cl->dbudget = 0;		/* stays in dlist; flush finds 0 to add */
		}
		again = cl->t_c == now;
		old = cl->mode;
		if (__builtin_expect(cl->shared, 0)) {
			charge_shared(s, c, cl->level >= level, cl->level > level, wire, now);
		} else {
			diff = elapsed(cl, now);
			if (cl->level >= level) {
				cl->tokens = accnt(cl->tokens, diff, cl->buffer,
						   (int64_t)_xtx_l2t(cl->rate_mult, wire,
								     &cl->rate_rem));
			} else {
				cl->borrows++;
				cl->tokens = accnt(cl->tokens, diff, cl->buffer, 0);
			}
			cl->ctokens = accnt(cl->ctokens, diff, cl->cbuffer,
					    (int64_t)_xtx_l2t(cl->ceil_mult, wire, &cl->ceil_rem));
		}
		cl->t_c = now;

		diff = 0;
		change_class_mode(s, c, &diff);
		if (cl->mode != _XTX_CAN_SEND) {
			uint64_t key = cl->shared ? sh_key(s, c, now)
						  : now + (uint64_t)(diff > 0 ? diff : 1);

			if (old != _XTX_CAN_SEND)
				wq_update(s, c, key);
			else
				wq_push(s, c, key);
			if (again && cl->mode == _XTX_MAY_BORROW && !s->no_defer)
				start_deferring(s, c);
		} else {
			if (old != _XTX_CAN_SEND)
				wq_remove(s, c);
			/* the second charge at one now: more are likely (a busy class, the
			 * root); the first is left alone so that a class sending once per call
			 * pays nothing for this */
			if (again && !s->no_defer)
				start_deferring(s, c);
		}
		c = cl->parent;
	}
}

/* Apply every mode change due at or before now (htb_do_events, all levels at once: a
 * level's events only move classes of that level, so the order does not matter). Each
 * class is in the heap once and is re-keyed after now, so this ends. */
static void do_events(struct xtx_sched *s, uint64_t now)
{
	while (s->wq_n && s->wq[0].key <= now) {
		uint32_t c = s->wq[0].cls;
		struct _xtx_class *cl = &s->cls[c];
		int64_t diff;

		if (cl->shared) {
			sh_refill(s, c, true, now);
			diff = 0;
			change_class_mode(s, c, &diff);
			if (cl->mode != _XTX_CAN_SEND)
				wq_update(s, c, sh_key(s, c, now));
			else
				wq_remove(s, c);
			continue;
		}
		diff = elapsed(cl, now);
		change_class_mode(s, c, &diff);
		if (cl->mode != _XTX_CAN_SEND)
			wq_update(s, c, now + (uint64_t)(diff > 0 ? diff : 1));
		else
			wq_remove(s, c);
	}
}

/* --- live change (sched_change.c) ------------------------------------------------------ */

void _xtx_htb_unlink(struct xtx_sched *s)
{
	s->dn = 0;
	for (uint32_t c = 0; c < s->ncls; c++)
		if (s->cls[c].leaf != _XTX_NIL && s->cls[c].prio_activity) {
			_xtx_htb_deactivate(s, c);
			s->dlist[s->dn++] = c;
		}
}

void _xtx_htb_relink(struct xtx_sched *s, uint64_t now)
{
	for (uint32_t c = 0; c < s->ncls; c++) {
		struct _xtx_class *cl = &s->cls[c];
		int64_t diff = cl->shared ? 0 : elapsed(cl, now);
		unsigned mode = class_mode(cl, &diff);

		if (mode < cl->mode)
			cl->throttled++;
		cl->mode = (uint8_t)mode;	/* unlinked: no row or feed to move */
		if (mode == _XTX_CAN_SEND && cl->pq_idx != _XTX_NIL)
			wq_remove(s, c);
		else if (mode != _XTX_CAN_SEND && cl->pq_idx != _XTX_NIL)
			wq_update(s, c, now);	/* do_events() re-keys it */
		else if (mode != _XTX_CAN_SEND)
			wq_push(s, c, now);
	}
	while (s->dn)
		_xtx_htb_activate(s, s->dlist[--s->dn]);
}

/* --- dequeue ---------------------------------------------------------------------------- */

/* The leaf the DRR pointers lead to from row[level][prio] (htb_lookup_leaf). At each set
 * the pointer resumes at the first member >= it (sch_htb's last_ptr_id recovery); past the
 * end it rewinds to the first member and moves the pointer of the set above on by one.
 * Precondition: the row is non-empty, and every active inner class has a non-empty feed
 * at that prio. Terminates: each rewind advances a pointer one level up, and the top set
 * rewinds in place. */
static inline uint32_t lookup_leaf(struct xtx_sched *s, unsigned level, unsigned prio)
{
	struct _xtx_oset *stk[_XTX_MAXDEPTH + 1];
	int sp = 0;

	if (level == 0) {		/* a row of leaves: no descent */
		struct _xtx_oset *o = &s->row[0][prio];
		uint32_t j = _xtx_oset_next(o, o->ptr);

		if (j == _XTX_OSET_NONE)
			j = _xtx_oset_next(o, 0);
		o->ptr = j;
		return o->member[j];
	}

	stk[0] = &s->row[level][prio];
	for (;;) {
		struct _xtx_oset *o = stk[sp];
		uint32_t j = _xtx_oset_next(o, o->ptr), c;

		if (j == _XTX_OSET_NONE) {	/* past the end: rewind, go up */
			o->ptr = _xtx_oset_next(o, 0);
			if (sp > 0) {
				stk[--sp]->ptr++;
				continue;
			}
			j = o->ptr;
		}
		o->ptr = j;
		c = o->member[j];
		if (s->cls[c].leaf != _XTX_NIL)
			return c;
		stk[++sp] = feed_of(s, c, prio);
	}
}

/* GCC (12, -O2) finds a static function that only reads memory and prefetches to be
 * pure (__builtin_prefetch has no side effect for it) and deletes the call, whose result
 * is unused: the helpers below must be inlined to survive. */
#define PREFETCH_FN	static inline __attribute__((always_inline))

/* DRR over a row of leaves visits them in index order, and with many leaves each visit
 * is a chain of misses: class, leaf, head flow, the flows after it. Prefetch along the
 * likely order in three stages, each reading only lines the stage before prefetched:
 *   leaf + 3: prefetch its class lines and leaf line;
 *   leaf + 2: read its leaf line, prefetch the heads of its new and old lists;
 *   leaf + 1: read those heads, prefetch the flows after them.
 * Only hints: a wrong guess costs a few wasted prefetches. */
PREFETCH_FN void prefetch_flow(const struct _xtx_leaf *L, uint32_t fi)
{
	/* no branch on fi: whether a list has a head is data, and a mispredicted branch
	 * costs more than the extra prefetch of the leaf's own line */
	__builtin_prefetch(fi != _XTX_NIL ? (const void *)&L->flows[fi] : (const void *)L, 1);
}

PREFETCH_FN void prefetch_heads(const struct _xtx_leaf *L)
{
	prefetch_flow(L, L->new_head);
	prefetch_flow(L, L->old_head);
}

static const uint32_t nil_next = _XTX_NIL;

/* The next field of list head h, or a constant _XTX_NIL for an empty list: a load from
 * either address, never from a table line nobody asked for (a demand load that misses
 * holds up retirement, unlike a prefetch). */
PREFETCH_FN uint32_t head_next(const struct _xtx_leaf *L, uint32_t h)
{
	return *(h != _XTX_NIL ? &L->flows[h].next : &nil_next);
}

PREFETCH_FN void prefetch_seconds(const struct _xtx_leaf *L)
{
	prefetch_flow(L, head_next(L, L->new_head));
	prefetch_flow(L, head_next(L, L->old_head));
}

/* The look-ahead positions (local indexes in the row) of the leaves 1, 2 and 3 ahead of
 * the DRR pointer, remembered within one dequeue call: when the pointer moves on to the
 * old j1, the others shift down and only the new j3 is searched. Hints only; a member
 * added or removed in between costs at most a wasted or a missed prefetch. */
struct lookahead {
	uint32_t j[3];
};

PREFETCH_FN void prefetch_next_leaves(struct xtx_sched *s, const struct _xtx_oset *r,
				      struct lookahead *la)
{
	uint32_t j1, j2, j3, c3;

	if (la->j[0] == r->ptr && la->j[2] != _XTX_OSET_NONE) {
		j1 = la->j[1];
		j2 = la->j[2];
		j3 = _xtx_oset_next(r, j2 + 1);
	} else {
		j1 = _xtx_oset_next(r, r->ptr + 1);
		j2 = j1 == _XTX_OSET_NONE ? j1 : _xtx_oset_next(r, j1 + 1);
		j3 = j2 == _XTX_OSET_NONE ? j2 : _xtx_oset_next(r, j2 + 1);
	}
	la->j[0] = j1;
	la->j[1] = j2;
	la->j[2] = j3;
	if (j1 == _XTX_OSET_NONE)
		return;
	prefetch_seconds(&s->leaves[s->cls_leaf[r->member[j1]]]);
	if (j2 == _XTX_OSET_NONE)
		return;
	prefetch_heads(&s->leaves[s->cls_leaf[r->member[j2]]]);
	if (j3 == _XTX_OSET_NONE)
		return;
	c3 = r->member[j3];
	__builtin_prefetch(&s->leaves[s->cls_leaf[c3]], 1);
	__builtin_prefetch(&s->cls[c3], 1);
	__builtin_prefetch((const char *)&s->cls[c3] + 64, 1);
	__builtin_prefetch((const char *)&s->cls[c3] + 128, 1);
}

unsigned xtx_sched__dequeue_burst(struct xtx_sched *s, struct xtx_desc *out, unsigned n,
				  uint64_t now_ns, uint64_t *next_ns)
{
	unsigned cnt = 0;
	uint32_t last = _XTX_NIL;	/* leaf class served last, for the prefetch */
	struct lookahead la = { { _XTX_OSET_NONE, _XTX_OSET_NONE, _XTX_OSET_NONE } };
	uint64_t next;

	if (now_ns < s->now)	/* precondition: time does not go back; hold it still */
		now_ns = s->now;
	s->now = now_ns;
	do_events(s, now_ns);
	_xtx_fq_do_timers(s, now_ns);

	while (cnt < n && s->row_mask) {
		unsigned bit = (unsigned)__builtin_ctzll(s->row_mask);
		unsigned level = bit / _XTX_NUMPRIO, prio = bit % _XTX_NUMPRIO;
		uint32_t c = lookup_leaf(s, level, prio);
		struct _xtx_class *cl = &s->cls[c];
		struct _xtx_leaf *L = &s->leaves[cl->leaf];
		struct xtx_desc *d = &out[cnt];
		uint32_t wire;

		/* While DRR stays on one leaf the leaves ahead are the same ones, already
		 * prefetched: look ahead only when the pointer has moved on. */
		if (level == 0 && c != last && !s->small)
			prefetch_next_leaves(s, &s->row[0][prio], &la);
		last = c;

		if (__builtin_expect(!_xtx_fq_dequeue(s, L, now_ns, d), 0)) {
			_xtx_htb_deactivate(s, c);	/* CoDel dropped all it had */
			continue;
		}
		wire = (uint32_t)d->len + s->overhead;
		cl->deficit[level] -= (int32_t)wire;
		if (cl->deficit[level] < 0) {	/* borrowing: its share of one quantum */
			cl->deficit[level] += level ? (int32_t)cl->feed_w : cl->quantum;
			(level ? feed_of(s, cl->parent, prio) : &s->row[0][prio])->ptr++;
		}
		if (!L->nready)
			_xtx_htb_deactivate(s, c);
		charge(s, c, level, wire, d->len, now_ns);
		cnt++;
	}

	flush_deferred(s);
	if (s->row_mask) {
		next = now_ns;
	} else if (!s->qlen) {
		next = UINT64_MAX;
	} else {
		next = UINT64_MAX;
		if (s->wq_n)
			next = s->wq[0].key;
		if (s->fh_n && s->fh[0].key < next)
			next = s->fh[0].key;
	}
	if (next_ns)
		*next_ns = next;
	return cnt;
}
