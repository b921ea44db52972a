/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_int.h - private layout of the scheduler shared by sched_core.c (create, destroy,
 * stats), sched_htb.c (class tree, token buckets, dequeue) and sched_fq.c (per-leaf flow
 * queues, pacing, enqueue, purge). Do not include directly from anywhere else; the unit
 * tests include it for the test hooks at the end and to look at internal state (heap
 * sizes, collision counters). Nothing here is exported (libxtx.map lists only the
 * public API).
 *
 * Every object is an index into one array of the scheduler (u32, _XTX_NIL = none): classes,
 * leaves, flows (per leaf), packet nodes. Indexes keep nodes 4 bytes wide, survive no
 * pointer fix-up and let one allocation hold everything.
 *
 * Units: times and token counts in nanoseconds (u64 absolute, s64 relative), sizes in
 * bytes. "wire" length = frame length + the configured per-packet overhead; every
 * bandwidth computation (HTB tokens, HTB DRR, fq DRR, pacing) uses it.
 */
#ifndef XTX_SCHED_INT_H
#define XTX_SCHED_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xtx/desc.h>
#include <xtx/sched.h>

#define _XTX_NIL		UINT32_MAX
#define _XTX_MAXDEPTH		8	/* levels 0 (leaves) .. 7, sch_htb's TC_HTB_MAXDEPTH */
#define _XTX_NUMPRIO		8	/* sch_htb's TC_HTB_NUMPRIO */
#define _XTX_NSEC_PER_SEC	1000000000ull
#define _XTX_MBUFFER_NS		(60ll * 1000000000ll)	/* sch_htb: tokens >= -60 s */
#define _XTX_PACE_MAX_NS	1000000000ull	/* sch_fq: one packet delays a flow <= 1 s */
#define _XTX_REFILL_AGE		38u	/* ~40 ms in 2^20 ns units: sch_fq flow_refill_delay */
#define _XTX_HORIZON_NS		(10ull * 1000000000ull)	/* sch_fq's default horizon */
#define _XTX_POOL_MAX		(1u << 20)	/* default packet pool cap */
#define _XTX_QLEN_MAX		((1u << 24) - 1)	/* per-flow packets (24-bit field) */
/* Mode hysteresis as sch_htb's HTB_HYSTERESIS (module parameter htb_hysteresis): a class
 * that can send keeps sending until its bucket is a whole burst below zero, and one that
 * cannot waits until the bucket is back to zero. Fewer mode changes, same long-run rate. */
#ifndef XTX_SCHED_HYSTERESIS
#define XTX_SCHED_HYSTERESIS	1
#endif

/* sch_htb's class modes; the order matters (a lower mode is "more throttled"). */
enum {
	_XTX_CANT_SEND = 0,	/* over ceil: may not send, may not borrow */
	_XTX_MAY_BORROW = 1,	/* over rate, under ceil: sends only on an ancestor's tokens */
	_XTX_CAN_SEND = 2,	/* under rate: sends on its own tokens */
};

/* Flow states (sch_fq keeps the same information in f->next / f->age / the rb-trees). */
enum {
	_XTX_FLOW_DETACHED = 0,	/* in no list, no timer; qlen == 0 */
	_XTX_FLOW_LISTED,	/* in new or old list; qlen == 0, or its head may leave now */
	_XTX_FLOW_PENDING,	/* in a list AND in the timer heap: head not eligible yet */
	_XTX_FLOW_THROTTLED,	/* in the timer heap only: head not eligible yet */
};

/* Ordered set of classes (a row, or an inner class's feed, for one prio) with sch_htb's
 * DRR pointer. sch_htb keeps these as rb-trees sorted by classid and, when the class under
 * the pointer leaves, remembers its classid to resume at the first class >= it; that is
 * what keeps DRR fair while classes flip between CAN_SEND and MAY_BORROW. Here members
 * have a local index in handle (classid) order and the set is a three-level bitmap:
 * insert, remove and "first member >= i" are O(1) (three words at most), and the
 * pointer is simply a local index that may name an absent member.
 * Capacity: 64^3 = 262144 members. */
struct _xtx_oset {
	uint64_t top;		/* bit k: w1[k] != 0 */
	uint64_t *w0;		/* bit i: member i present */
	uint64_t *w1;		/* bit j: w0[j] != 0 */
	const uint32_t *member;	/* local index -> class index */
	uint32_t n;		/* local indexes 0 .. n-1 */
	uint32_t ptr;		/* DRR pointer, 0 .. n (n: past the end) */
	uint64_t qsum;		/* a feed: its members' feed_w (rows: unused) */
};

#define _XTX_OSET_NONE	UINT32_MAX

static inline bool _xtx_oset_empty(const struct _xtx_oset *o)
{
	return o->top == 0;
}

static inline bool _xtx_oset_has(const struct _xtx_oset *o, uint32_t i)
{
	return (o->w0[i >> 6] >> (i & 63)) & 1;
}

static inline void _xtx_oset_add(struct _xtx_oset *o, uint32_t i)
{
	o->w0[i >> 6] |= 1ull << (i & 63);
	o->w1[i >> 12] |= 1ull << ((i >> 6) & 63);
	o->top |= 1ull << (i >> 12);
}

static inline void _xtx_oset_del(struct _xtx_oset *o, uint32_t i)
{
	if (o->w0[i >> 6] &= ~(1ull << (i & 63)))
		return;
	if (o->w1[i >> 12] &= ~(1ull << ((i >> 6) & 63)))
		return;
	o->top &= ~(1ull << (i >> 12));
}

/* Smallest member >= i, or _XTX_OSET_NONE. */
static inline uint32_t _xtx_oset_next(const struct _xtx_oset *o, uint32_t i)
{
	uint32_t w, k;
	uint64_t m;

	if (i >= o->n)
		return _XTX_OSET_NONE;
	w = i >> 6;
	m = o->w0[w] & (~0ull << (i & 63));
	if (m)
		return (w << 6) | (uint32_t)__builtin_ctzll(m);
	k = w >> 6;			/* w1 word of w */
	m = (w & 63) == 63 ? 0 : o->w1[k] & (~0ull << ((w & 63) + 1));
	if (!m) {
		m = k == 63 ? 0 : o->top & (~0ull << (k + 1));
		if (!m)
			return _XTX_OSET_NONE;
		k = (uint32_t)__builtin_ctzll(m);
		m = o->w1[k];
	}
	w = (k << 6) | (uint32_t)__builtin_ctzll(m);
	return (w << 6) | (uint32_t)__builtin_ctzll(o->w0[w]);
}

/* Words of bitmap a set of n members needs (w0 then w1). */
static inline size_t _xtx_oset_words(uint32_t n)
{
	return ((size_t)n + 63) / 64 + ((size_t)n + 4095) / 4096;
}

/* One HTB class. 256 bytes, grouped by what touches them. */
struct _xtx_class {
	/* Line 0: token buckets; read and written by every charge through this class. */
	int64_t tokens;		/* ns of transmission at rate, in (-mbuffer, buffer] */
	int64_t ctokens;	/* ns of transmission at ceil, in (-mbuffer, cbuffer] */
	uint64_t t_c;		/* checkpoint: time tokens/ctokens were last brought up to */
	int64_t buffer;		/* burst in ns at rate: the bucket depth */
	int64_t cbuffer;	/* cburst in ns at ceil */
	uint64_t rate_mult;	/* ns per byte at rate, fixed point << 32 */
	uint64_t ceil_mult;	/* ns per byte at ceil, fixed point << 32 */
	uint32_t rate_rem;	/* sub-ns remainder carried between charges (<< 32 units) */
	uint32_t ceil_rem;

	/* Line 1: tree, mode, DRR, per-packet counters. */
	uint32_t parent;	/* class index, _XTX_NIL for a root */
	uint32_t pq_idx;	/* position in the wait heap, _XTX_NIL when CAN_SEND */
	uint8_t mode;		/* _XTX_CANT_SEND .. _XTX_CAN_SEND */
	uint8_t level;		/* 0 for leaves; 7 for roots with children, parent - 1 below */
	uint8_t prio;		/* 0 (highest) .. 7 */
	uint8_t prio_activity;	/* bit p: active (in a row or a feed) at prio p */
	int32_t quantum;	/* DRR bytes per round among equal prio, >= 1 */
	uint32_t leaf;		/* index into leaves[], _XTX_NIL for an inner class */
	uint32_t inner;		/* index into feeds[] / 8, _XTX_NIL for a leaf */
	uint64_t sent_pkts, sent_bytes;	/* through this class (inner: of its subtree) */
	uint64_t borrows;	/* packets sent on an ancestor's tokens */
	uint64_t throttled;	/* mode changes to a lower mode */
	uint32_t sib;		/* local index in the parent's feeds (handle order) */
	uint32_t lidx;		/* local index in its level's rows (handle order) */

	/* Line 2: leaf DRR deficits, deferred charges (charge() in sched_htb.c). */
	int32_t deficit[_XTX_MAXDEPTH];	/* leaf: DRR deficit per level it is served at */
	uint32_t handle;
	uint32_t dbudget;	/* wire bytes that may still be charged without token math;
				 * 0 outside a dequeue call */
	uint32_t dwire_t;	/* wire bytes charged but not yet taken from tokens */
	uint32_t dwire_c;	/* ... from ctokens */
	uint8_t dlisted;	/* 1 while in the scheduler's dlist */
	uint8_t dborrow_only;	/* budget of a MAY_BORROW class: borrowed charges only */
	uint8_t shared;		/* device-wide: buckets refilled from s->sh, not by time */
	uint8_t blocked;	/* device-wide: its last take left it short (s->shq) */
	uint32_t fair_wire;	/* device-wide: wire bytes served at or above its level
				 * since its last take (a leaf: all it sent) */
	uint32_t feed_w;	/* what it adds to its parent's feed qsum: its quantum,
				 * device-wide times this queue's share of its demand */

	/* Line 3: drop counters (cold); device-wide debts. */
	uint64_t drops[XTX_DROP_CODEL];	/* at enqueue and purge; CoDel's: the leaf's */
	uint32_t owed_t, owed_c;	/* device-wide inner: wire bytes its descendants sent
					 * on their own rates, not yet charged to the
					 * device-wide buckets for its tokens / ctokens */
	uint32_t vt_rem;		/* device-wide: what the last vt step left, << 10 */
	uint32_t vt_w;			/* device-wide: its last weight > 0 (sh_may_take) */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct _xtx_class) == 256, "class layout: 4 cache lines");
_Static_assert(XTX_DROP_CODEL <= 6, "drop counters fit line 3");

/* One flow slot of a leaf: 32 bytes, two per cache line. The table is direct-mapped by
 * hash; a slot remembers the hash of its last user. */
struct _xtx_flow {
	uint32_t head;		/* first packet node, _XTX_NIL when empty */
	uint32_t tail;		/* last packet node; DETACHED: time emptied, ns >> 20 */
	uint32_t qlen : 24;	/* packets queued, <= flow_limit <= _XTX_QLEN_MAX */
	uint32_t state : 8;	/* _XTX_FLOW_* */
	uint32_t hash;		/* desc.hash of the flow that last used the slot */
	int32_t credit;		/* DRR bytes left this round */
	uint32_t next;		/* next flow in the new/old list */
	uint64_t tnp;		/* pacing: time_next_packet, ns; 0 = never paced */
};

_Static_assert(sizeof(struct _xtx_flow) == 32, "flow slot: half a cache line");

/* One leaf: its flow table and fq lists. */
struct _xtx_leaf {
	/* Line 0: enqueue and dequeue. */
	struct _xtx_flow *flows;
	uint32_t new_head, new_tail;	/* sch_fq new_flows: served first */
	uint32_t old_head, old_tail;	/* sch_fq old_flows */
	uint32_t qlen;		/* packets in all flows */
	uint32_t nready;	/* LISTED flows with packets: the leaf is active in HTB iff > 0 */
	uint32_t limit;		/* packets in the leaf */
	uint32_t flow_limit;	/* packets per flow slot */
	int32_t quantum;	/* fq_quantum, bytes */
	uint8_t hash_shift;	/* slot = (hash * golden) >> hash_shift, 32 - log2(flows) */
	uint8_t room;		/* 1: a room target (line 2 below); 0: no room work */
	uint8_t codel;		/* 1: CoDel per flow (cv, line 1); 0: no CoDel work */
	uint8_t slow;		/* room | codel: per-packet work beyond fq (one test) */
	uint64_t pace_mult;	/* ns per byte at maxrate << 32; 0 = no pacing */
	uint32_t cls;		/* class index */
	uint32_t nattached;	/* flows not DETACHED (stats "flows") */

	/* Line 1: enqueue counters, room (sched_room.c), statistics for slow paths. */
	uint64_t enq_pkts, enq_bytes;	/* accepted (the class's counters) */
	uint32_t nflows;	/* slots, power of two */
	uint8_t fq;
	uint8_t near_listed;	/* 1: in s->near_list (see _xtx_leaf_near_at) */
	uint8_t _pad[2];
	uint64_t collisions;	/* packets that joined a slot busy with another hash */
	uint64_t pace_clamped;	/* pacing delays clamped to 1 s (sch_fq pkts_too_long) */
	struct _xtx_codel *cv;	/* CoDel: per flow slot; NULL without */
	uint64_t cd_target;	/* CoDel target, ns */
	uint64_t cd_interval;	/* CoDel interval, ns */

	/* Line 2: room (sched_room.c), per packet at enqueue and dequeue. */
	uint32_t bl;		/* wire bytes queued (room only) */
	uint32_t dep;		/* wire bytes dequeued since win_t */
	uint32_t ev_dep;	/* wire bytes dequeued since the last room event */
	uint32_t budget;	/* room: wire bytes that fill the leaf; UINT32_MAX: no target */
	uint32_t target_us;	/* room target, us; 0: none */
	uint32_t win_t;		/* start of the departure window, now >> 10 */
	uint32_t gen;		/* room events so far */
	uint32_t room_closes;	/* times room_full was set */
	uint32_t win_att;	/* most flows attached at once since win_t */
	uint32_t att_prev;	/* that, over the window before */
	uint8_t room_full;	/* 1: producers are held back (bl reached budget) */
	uint8_t room_listed;	/* 1: in s->room_chg, not yet taken by room_changes() */
	uint8_t codel_ecn;	/* 1: CoDel marks ECT packets instead of dropping them */
	uint8_t _pad2;
	uint32_t tcap;		/* room: target * the class's ceil, bytes (sched_room.c) */
	uint64_t codel_drops;	/* CoDel: packets dropped (XTX_DROP_CODEL) */
	uint64_t ecn_marks;	/* CoDel: packets marked CE instead */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct _xtx_leaf) == 192, "leaf layout: 3 cache lines");

/* What xtx_sched__absorbs() needs: the leaves whose qlen may be within XTX_SCHED_ABSORB
 * of their cap (limit, or flow_limit if lower: a flow holds at most the leaf's qlen).
 * Enqueue lists a leaf in s->near_list when its qlen reaches _xtx_leaf_near_at(); the
 * list is pruned from its top by absorbs(), not at dequeue, so the dequeue path does no
 * work for it. Every leaf with qlen >= near_at is listed; a listed one may have fallen
 * below. A leaf whose cap is below XTX_SCHED_ABSORB is near for good (s->near_fixed);
 * its near_at (0, or wrapped) is never met after an increment. */
static inline uint32_t _xtx_leaf_cap(const struct _xtx_leaf *L)
{
	return L->limit < L->flow_limit ? L->limit : L->flow_limit;
}

static inline uint32_t _xtx_leaf_near_at(const struct _xtx_leaf *L)
{
	return _xtx_leaf_cap(L) - (XTX_SCHED_ABSORB - 1);
}

/* A queued descriptor. 32 bytes; free nodes are chained through `next`. */
struct _xtx_pkt {
	struct xtx_desc d;
	uint64_t tts;		/* earliest departure time, ns; 0 = none */
	uint32_t next;
	uint32_t stamp;		/* CoDel leaves: enqueue time, now >> 10 (the sojourn) */
};

/* CoDel's state of one flow slot (sched_codel.c), fq_codel's struct codel_vars. */
struct _xtx_codel {
	uint64_t first_above;	/* ns: sojourn above target since this - interval; 0: not */
	uint64_t drop_next;	/* ns: the next drop while dropping */
	uint32_t count;		/* drops since the dropping state began */
	uint32_t lastcount;	/* count at the start of the last dropping state */
	uint32_t backlog;	/* frame bytes queued in the flow */
	uint8_t dropping;
	uint8_t _pad[3];
};

_Static_assert(sizeof(struct _xtx_codel) == 32, "codel vars: half a cache line");

/* Wait heap entry (classes whose mode changes at `key`). */
struct _xtx_wev {
	uint64_t key;
	uint32_t cls;
	uint32_t _pad;
};

/* Flow timer heap entry (flows whose head packet becomes eligible at `key`). */
struct _xtx_fev {
	uint64_t key;
	uint32_t leaf;
	uint32_t flow;
};

struct _xtx_hmap {
	uint32_t handle, idx;
};

/* --- device-wide classes (sched_shared.c) ----------------------------------------------
 *
 * The schedulers of one device's TX queues share, per device-wide class, two words: one
 * GCRA time per bucket. The device-wide bucket holds min(depth, now - tat) ns; a scheduler
 * takes a slice from it by moving tat forward with one compare-and-swap, and its own
 * class's tokens / ctokens are then what it took and has not spent (at most one slice, the
 * class's local buffer / cbuffer). So tokens are never made twice: every ns a local bucket
 * gains, tat gave up. tat only moves forward and never past the taker's now. */
/* Every field but tat is a parameter: written at create and by a live change
 * (xtx_sched_shared__change()), read through _xtx_sh_par(). */
struct _xtx_shbucket {
	_Atomic uint64_t tat;	/* device-wide tokens at t: min(depth, t - tat) ns */
	_Atomic int64_t depth;	/* burst (or cburst) in ns: the device-wide bucket */
	_Atomic int64_t slice;	/* ns a scheduler holds at most: its local bucket depth */
	_Atomic int64_t min_take; /* a take smaller than this waits (one CAS per half slice) */
};

struct _xtx_shclass {
	struct _xtx_shbucket rate, ceil;
	_Atomic int64_t slack;	/* bytes a queue may be ahead of a blocked one (at its
				 * weight) and still take: half a slice */
	_Atomic int64_t patience; /* ns a blocked queue's ask counts (a stalled one's
				 * expires) */
	_Atomic int64_t burst;	/* bytes of the rate bucket: the most a queue's vt lags */
} __attribute__((aligned(128)));

/* A device-wide parameter. Relaxed: each is one word on its own, and a live change
 * publishes no other data through it (pairs with the relaxed stores of
 * xtx_sched_shared__change()); a queue that reads the old value for one take moves a
 * share of one slice, never a token (tat's CAS does that). */
static inline int64_t _xtx_sh_par(const _Atomic int64_t *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

/* A 128-byte pair of its own: the queues that CAS one class's tat never pull in another
 * class's (the adjacent-line prefetcher, struct _xtx_shq). */
_Static_assert(sizeof(struct _xtx_shclass) == 128, "shared class: a pair of cache lines");

/* How the queues share what a device-wide class has to give while more than one is
 * short of it: one queue's view of the class, written only by that queue's scheduler at
 * its takes (not per packet), read by the others at theirs. Fields are hints: a stale
 * one shifts a share for one slice, never a token (those only move by the CAS above).
 * A queue may take from a bucket unless another queue, short of that bucket within
 * `patience`, has a better rank of demand (prio), or the same rank and a vt smaller by
 * more than slack bytes at its weight. vt grows by the bytes the queue served at or above
 * the class's level divided by its weight (a leaf: its flows with packets; an inner
 * class: the feed_w of its children borrowing at its best prio), so blocked queues end up
 * served in proportion to their weights, as one HTB and fq would serve them;
 * docs/design.md. Descendants' sends on their own rates are not taken but charged
 * (_xtx_sh_charge()). */
struct _xtx_shq {
	_Atomic uint64_t vt;	/* bytes served / weight, << 10 */
	_Atomic uint64_t ask;	/* now of its last take that left it short, and which
				 * buckets (sched_htb.c, SH_ASK_BITS); 0: not blocked */
	_Atomic uint32_t w;	/* weight of its demand now; 0: none */
	_Atomic uint32_t bprio;	/* rank of that demand: 1 + prio (sched_htb.c) */
	_Atomic uint64_t seen;	/* now of its last publish with w > 0; 0: never */
} __attribute__((aligned(128)));

/* One per 128-byte pair of cache lines: a queue's takes write only its own views' lines,
 * and no view shares a pair with another, as x86's adjacent-line prefetcher moves lines
 * between cores in pairs (struct _xtx_shclass is a pair for the same reason). */
_Static_assert(sizeof(struct _xtx_shq) == 128, "queue view: a pair of cache lines");

struct xtx_sched_shared {
	struct _xtx_shclass *cls;	/* [slot] (xtx_sched_opts.slots) */
	struct _xtx_shq *q;		/* [queue * ncls + slot] */
	uint8_t *device;		/* [slot]: 1 device scope, 0 queue scope or unused */
	uint32_t ncls;			/* slots */
	uint32_t nqueues;
	uint64_t slice_ns;
	void *mem;
	size_t mem_len;
};

struct xtx_sched {
	/* Read-mostly: array bases and configuration. */
	struct _xtx_class *cls;
	struct _xtx_leaf *leaves;
	struct _xtx_oset *feeds;	/* [inner * 8 + prio]: an inner class's feeds */
	struct _xtx_pkt *pool;
	uint32_t *cls_leaf;		/* class index -> leaf index or _XTX_NIL */
	uint32_t *slot_leaf;		/* slot -> leaf index or _XTX_NIL (enqueue) */
	uint32_t *slot;			/* class index -> slot (xtx_sched_opts.slots) */
	uint32_t *slot_cls;		/* slot -> class index or _XTX_NIL */
	struct _xtx_wev *wq;		/* wait heap of classes, capacity ncls */
	struct _xtx_fev *fh;		/* flow timer heap, capacity fh_cap */
	uint32_t ncls, nleaves, ninner, npool;
	uint32_t fh_cap;
	uint32_t nslots;		/* slots: descriptor class indexes 0 .. nslots - 1 */
	uint32_t dflt_leaf;		/* leaf index of the default class, _XTX_NIL = none */
	uint32_t overhead;		/* bytes added to each frame on the wire */
	uint8_t codel_dflt;		/* xtx_sched_opts.codel */
	uint8_t room_nohold;		/* 1: budgets not held within the limits
					 * (xtx_sched__set_room_hold()) */
	uint8_t _pad0[2];
	uint64_t horizon_ns;
	uint64_t dflt_target;		/* room target of leaves without their own, ns */
	int (*ecn_mark)(void *ctx, const struct xtx_desc *d);	/* CoDel's, or NULL */
	void *ecn_ctx;
	struct xtx_desc *dropped;	/* CoDel's drops, a ring of XTX_SCHED_DROPPED_MAX */
	uint32_t dr_head, dr_n;		/* oldest entry, entries */
	struct _xtx_shclass *sh;	/* device-wide class state, NULL: every class local */
	struct _xtx_shq *shq;		/* every queue's views, [queue * ncls + class] */
	uint32_t nq, qidx;		/* queues sharing sh, and this scheduler's */

	/* Hot state, written per packet. */
	uint64_t row_mask __attribute__((aligned(64)));	/* bit level*8+prio: row non-empty */
	uint32_t free_head;		/* packet node free list (LIFO) */
	uint32_t qlen;			/* packets queued in all leaves */
	uint32_t wq_n, fh_n;		/* heap sizes */
	uint64_t now;			/* latest now_ns seen by enqueue or dequeue */
	uint32_t *dlist;		/* classes with a budget in this dequeue call */
	uint32_t dn;			/* entries in dlist (<= ncls) */
	uint32_t *room_chg;		/* leaves whose room_full changed, not yet taken */
	uint32_t nroom_chg;		/* entries in room_chg (<= nleaves) */
	uint32_t *near_list;		/* leaves that reached near_at (_xtx_leaf_near_at) */
	uint32_t nnear;			/* entries in near_list (<= nleaves) */
	uint32_t near_fixed;		/* leaves whose cap is below XTX_SCHED_ABSORB */
	bool no_defer;			/* test hook: charge every packet in full */
	bool small;			/* everything fits a core's cache: no prefetching */
	struct _xtx_oset row[_XTX_MAXDEPTH][_XTX_NUMPRIO];	/* sch_htb's self feeds */

	/* Cold. */
	uint64_t drop_no_class __attribute__((aligned(64)));	/* cls index out of range */
	uint32_t pg_leaf, pg_flow;	/* purge cursor */
	struct _xtx_hmap *hmap;		/* (handle, index) sorted by handle */
	void *mem;			/* the one allocation holding every array */
	size_t mem_len;
};

/* --- token math ------------------------------------------------------------------------ */

/* ns per byte at `rate` bytes/s, fixed point with 32 fractional bits. Precondition:
 * rate >= 1. 1e9 << 32 / 1 < 2^63, so it fits. */
static inline uint64_t _xtx_rate_mult(uint64_t rate)
{
	return (uint64_t)(((unsigned __int128)_XTX_NSEC_PER_SEC << 32) / rate);
}

/* Bucket depth in ns: bytes * 1e9 / rate, kept well inside s64. */
static inline int64_t _xtx_bytes_to_ns(uint64_t bytes, uint64_t rate)
{
	unsigned __int128 ns = (unsigned __int128)bytes * _XTX_NSEC_PER_SEC / rate;

	return ns > (unsigned __int128)(INT64_MAX / 4) ? INT64_MAX / 4 : (int64_t)ns;
}

/* Transmission time of `len` bytes in ns, carrying the sub-ns remainder in *rem so a long
 * run of charges is exact (sch_htb truncates each packet, which at 100 Gbit/s and 88-byte
 * wire frames would be 0.6% fast). len < 2^32, mult < 2^63: the product fits 128 bits. */
static inline uint64_t _xtx_l2t(uint64_t mult, uint32_t len, uint32_t *rem)
{
	unsigned __int128 p = (unsigned __int128)len * mult + *rem;

	*rem = (uint32_t)p;
	return (uint64_t)(p >> 32);
}

/* The bucket's tat t as of now with what it can hold capped: a bucket full for longer
 * than its depth holds its depth (tat = now - depth); in debt (t >= now) it is t. */
static inline uint64_t _xtx_sh_base(const struct _xtx_shbucket *b, uint64_t t, uint64_t now)
{
	/* Acquire, pairs with the release store of depth in set_bucket() (sched_shared.c):
	 * a taker that sees a grown depth also sees, at its CAS, the tat that
	 * change_bucket() moved before growing it, so the CAS fails on a stale t. */
	uint64_t depth = (uint64_t)atomic_load_explicit(&b->depth, memory_order_acquire);

	return now > t && now - t > depth ? now - depth : t;
}

/* Charge `ns` (> 0) to a device-wide bucket at now whatever it holds, as sch_htb charges
 * an ancestor for a descendant's own rate: a full bucket first, then into debt (tat past
 * now, so takes wait until time pays it back), at most 60 s of it (what the cap cuts off
 * is lost, as sch_htb's tokens stop at -mbuffer). Returns ns. */
static inline int64_t _xtx_sh_charge(struct _xtx_shbucket *b, int64_t ns, uint64_t now)
{
	/* Relaxed: as in _xtx_sh_take(), the CAS on the one word is the whole protocol
	 * (pairs with the other schedulers' CAS on it). */
	uint64_t t = atomic_load_explicit(&b->tat, memory_order_relaxed), base, to;

	do {
		base = _xtx_sh_base(b, t, now);
		to = base + (uint64_t)ns;
		if (to > now + (uint64_t)_XTX_MBUFFER_NS)
			to = now + (uint64_t)_XTX_MBUFFER_NS;
		if (to < base)	/* already 60 s in debt: nothing more to charge */
			to = base;
		if (to == t)
			return ns;
	} while (!atomic_compare_exchange_weak_explicit(&b->tat, &t, to, memory_order_relaxed,
						       memory_order_relaxed));
	return ns;
}

/* Take from a device-wide bucket at now: up to `want` ns (> 0), and only if at least
 * min(want, min_take) is there. Returns what was taken; 0: nothing, ask again at
 * _xtx_sh_ready(). */
static inline int64_t _xtx_sh_take(struct _xtx_shbucket *b, int64_t want, uint64_t now)
{
	/* Relaxed: tat publishes nothing but itself; the CAS's read-modify-write of the one
	 * word is what keeps two takers from taking the same ns (pairs with the other
	 * schedulers' CAS on it). */
	uint64_t t = atomic_load_explicit(&b->tat, memory_order_relaxed);
	int64_t min_take = _xtx_sh_par(&b->min_take);
	int64_t need = want < min_take ? want : min_take;
	int tries;

	for (tries = 0; tries < 4; tries++) {
		uint64_t base;
		int64_t avail, take;

		if (now <= t)
			return 0;
		base = _xtx_sh_base(b, t, now);
		avail = (int64_t)(now - base);
		if (avail < need)
			return 0;
		take = want < avail ? want : avail;
		/* Relaxed on success and failure, as the load above. */
		if (atomic_compare_exchange_weak_explicit(&b->tat, &t, base + (uint64_t)take,
							  memory_order_relaxed,
							  memory_order_relaxed))
			return take;
	}
	return 0;
}

/* The earliest time, > now, at which `need` ns (at least min_take, at most the depth)
 * could be taken if nobody else takes first. */
static inline uint64_t _xtx_sh_ready(struct _xtx_shbucket *b, int64_t need, uint64_t now)
{
	/* Relaxed: a hint for the wait heap; a stale value only makes a take fail and the
	 * class wait again (pairs with nothing). */
	uint64_t t = atomic_load_explicit(&b->tat, memory_order_relaxed), at;
	int64_t min_take = _xtx_sh_par(&b->min_take), depth = _xtx_sh_par(&b->depth);

	if (need < min_take)
		need = min_take;
	if (need > depth)
		need = depth;
	at = t + (uint64_t)need;
	return at > now ? at : now + 1;
}

/* --- functions shared between the files (hidden by libxtx.map) ------------------------ */

/* sched_shared.c: 0 if slots (NULL: identity) gives n classes distinct slots below
 * nslots; -EINVAL (message in err) or -ENOMEM. */
int _xtx_slots_check(const uint32_t *slots, unsigned n, unsigned nslots, char *err,
		     size_t errlen);

/* A device-wide class's state and this queue's view of it (class index c). */
static inline struct _xtx_shclass *_xtx_sh_of(const struct xtx_sched *s, uint32_t c)
{
	return &s->sh[s->slot[c]];
}

static inline struct _xtx_shq *_xtx_shq_of(const struct xtx_sched *s, uint32_t q, uint32_t c)
{
	return &s->shq[(size_t)q * s->nslots + s->slot[c]];
}

/* sched_core.c: a class's and a leaf's parameters from its options, at create and at a
 * live change (sched_change.c); whether leaf class co runs CoDel under the scheduler's
 * default dflt. _xtx_class_params sets rate_mult, ceil_mult, buffer, cbuffer, prio and
 * quantum; _xtx_leaf_params limit, flow_limit, quantum, pace_mult and, with L->codel,
 * CoDel's target, interval and ecn. */
void _xtx_class_params(struct _xtx_class *cl, const struct xtx_class_opts *co, uint32_t r2q);
void _xtx_leaf_params(struct _xtx_leaf *L, const struct xtx_class_opts *co);
bool _xtx_leaf_codel(const struct xtx_class_opts *co, uint8_t dflt);
/* The default leaf of cfg: its default class, or its first leaf. */
void _xtx_sched_set_default(struct xtx_sched *s, const struct xtx_sched_config *cfg);

/* sched_htb.c, a live change: unlink takes every active leaf out of its rows and feeds
 * (remembered in s->dlist, unused between dequeue calls); the caller then changes the
 * classes' parameters; relink makes every class that is not CAN_SEND under them due in
 * the wait heap at now, and puts the leaves back at their new prio and quantum. */
void _xtx_htb_unlink(struct xtx_sched *s);
void _xtx_htb_relink(struct xtx_sched *s, uint64_t now);

/* sched_htb.c. Preconditions: c is a leaf class; the caller has just made its leaf's
 * nready go 0 -> 1 (activate) or found it 0 (deactivate). */
void _xtx_htb_activate(struct xtx_sched *s, uint32_t c);
void _xtx_htb_deactivate(struct xtx_sched *s, uint32_t c);

/* sched_fq.c */
/* Take the next packet of a leaf whose nready > 0, in sch_fq order. Returns false only if
 * CoDel dropped every packet that was eligible (nready is 0 then; the caller deactivates
 * the leaf). */
bool _xtx_fq_dequeue(struct xtx_sched *s, struct _xtx_leaf *L, uint64_t now,
		     struct xtx_desc *out);
/* Move flows whose timer expired at or before now back to their lists; activates leaves. */
void _xtx_fq_do_timers(struct xtx_sched *s, uint64_t now);
/* A packet a live change moves (xtx_sched__adopt()) joins leaf L's flow of its hash, with
 * its departure time tts and CoDel stamp, whatever the limits and the horizon. Returns
 * false only if the pool is empty. */
bool _xtx_fq_move(struct xtx_sched *s, struct _xtx_leaf *L, const struct xtx_desc *d,
		  uint64_t tts, uint32_t stamp, uint64_t now);

/* --- test hooks (sched_core.c); not part of the API ------------------------------------ */

/* Make class index `cls` the default leaf, or none with cls < 0 (so invalid class indexes
 * drop with XTX_DROP_NO_CLASS; a validated config always has a default). 0 or -EINVAL. */
int _xtx_sched__set_default(struct xtx_sched *s, int cls);
/* Walk every structure and check the invariants the fast paths rely on. 0, or -EPROTO
 * with a description in err. O(classes + flows + pool). */
int _xtx_sched__check(const struct xtx_sched *s, char *err, size_t errlen);
/* Turn deferred charging (sched_htb.c, charge()) off or on; on by default. Tests run
 * one scheduler of each kind side by side and compare every output. */
void _xtx_sched__set_defer(struct xtx_sched *s, bool on);
/* Internal counters that have no place in struct xtx_class_stats. */
uint64_t _xtx_sched__drop_no_class(const struct xtx_sched *s);

/* When flow f's head may leave: max(its txtime, the flow's pacing clock). f holds a
 * packet. */
static inline uint64_t _xtx_head_time(const struct xtx_sched *s, const struct _xtx_flow *f)
{
	uint64_t t = s->pool[f->head].tts;

	return t > f->tnp ? t : f->tnp;
}

/* --- CoDel per flow (sched_codel.c) ----------------------------------------------------- */

enum {
	_XTX_CODEL_SERVE,	/* the flow's head may leave now */
	_XTX_CODEL_EMPTY,	/* drops emptied the flow */
	_XTX_CODEL_WAIT,	/* drops left a head that must wait until *t */
};

/* The list walk is about to send flow fi's head, which may leave now: CoDel first, as
 * fq_codel's codel_dequeue() (it may drop or mark heads). Returns _XTX_CODEL_*; the
 * caller keeps the lists and nready (sched_fq.c). */
int _xtx_codel_head(struct xtx_sched *s, struct _xtx_leaf *L, uint32_t fi, uint64_t now,
		    uint64_t *t);

/* A flow of a CoDel leaf found empty by the walk: it leaves the dropping state, as
 * codel_dequeue() does when the flow has nothing. */
static inline void _xtx_codel_empty(struct _xtx_leaf *L, uint32_t fi)
{
	L->cv[fi].dropping = 0;
}

/* --- room: back-pressure per leaf (sched_room.c) --------------------------------------- */

#define _XTX_ROOM_WIN_US	10000u	/* departure window: 10 ms in now >> 10 units */

void _xtx_room_init(struct xtx_sched *s, struct _xtx_leaf *L, uint64_t target_ns,
		    uint64_t now);
void _xtx_room_roll(struct xtx_sched *s, struct _xtx_leaf *L, uint64_t now);
void _xtx_room_note(struct xtx_sched *s, struct _xtx_leaf *L);
/* A live change: a new target (the leaf has one), its budget kept within the new floor
 * and cap. */
void _xtx_room_retarget(struct xtx_sched *s, struct _xtx_leaf *L, uint64_t target_ns);

/* The flows a leaf with a target counts as active: the most attached over its last
 * window, or now if more (its flows' queues are a packet or two, so the flows queued
 * this moment flicker). The device-wide split's weight and the per-flow quota. */
static inline uint32_t _xtx_room_flows(const struct _xtx_leaf *L)
{
	return L->nattached > L->att_prev ? L->nattached : L->att_prev;
}

/* Full once the backlog reaches the budget, room again at half of it; each change
 * listed for room_changes(). */
static inline void _xtx_room_update(struct xtx_sched *s, struct _xtx_leaf *L)
{
	if (__builtin_expect(!L->room_full && L->bl >= L->budget, 0)) {
		L->room_full = 1;
		L->room_closes++;
		_xtx_room_note(s, L);
	} else if (__builtin_expect(L->room_full && L->bl <= L->budget / 2, 0)) {
		L->room_full = 0;
		_xtx_room_note(s, L);
	}
}

/* A packet of `wire` bytes joined L. Leaves without a target do nothing here (line 0
 * only). */
static inline void _xtx_room_enq(struct xtx_sched *s, struct _xtx_leaf *L, uint32_t wire)
{
	if (!L->room)
		return;
	L->bl += wire;
	_xtx_room_update(s, L);
}

/* A packet of `wire` bytes left L (sent if sent, else purged): counted in the departure
 * window when sent; room again once the backlog is down to half the budget; a room
 * event (gen) each half budget sent, and when the leaf empties. */
static inline void _xtx_room_deq(struct xtx_sched *s, struct _xtx_leaf *L, uint32_t wire,
				 uint64_t now, bool sent)
{
	if (!L->room)
		return;
	L->bl -= wire;
	L->ev_dep += wire;
	if (sent) {
		L->dep += wire;
		if (__builtin_expect((uint32_t)(now >> 10) - L->win_t >= _XTX_ROOM_WIN_US, 0))
			_xtx_room_roll(s, L, now);	/* updates full itself */
	}
	_xtx_room_update(s, L);
	if (__builtin_expect(L->ev_dep >= L->budget / 2 || !L->bl, 0)) {
		L->ev_dep = 0;
		L->gen++;
		_xtx_room_note(s, L);
	}
}

/* --- per packet, leaves with room or CoDel (L->slow) ------------------------------------ */

/* Packet p of `len` frame bytes joined flow fi of L at now. */
static inline void _xtx_slow_enq(struct xtx_sched *s, struct _xtx_leaf *L, uint32_t fi,
				 struct _xtx_pkt *p, uint32_t len, uint64_t now)
{
	_xtx_room_enq(s, L, len + s->overhead);
	if (L->codel) {
		p->stamp = (uint32_t)(now >> 10);
		L->cv[fi].backlog += len;
	}
}

/* A packet of `len` frame bytes left flow fi of L: sent, or not (purged, dropped). */
static inline void _xtx_slow_deq(struct xtx_sched *s, struct _xtx_leaf *L, uint32_t fi,
				 uint32_t len, uint64_t now, bool sent)
{
	_xtx_room_deq(s, L, len + s->overhead, now, sent);
	if (L->codel)
		L->cv[fi].backlog -= len;
}

#endif /* XTX_SCHED_INT_H */
