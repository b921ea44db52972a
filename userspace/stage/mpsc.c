/* SPDX-License-Identifier: BSD-3-Clause */
/* mpsc.c - the lock-free MPSC stage: setup, lanes, doorbells, the consumer, sleep/wake.
 *
 * The concurrency table and the memory-order labels (P1..P5, C1..C6, R1) are in
 * include/xtx/mpsc.h; the producer's fast path is inline there.
 *
 * Consumer state (all private to the consumer thread):
 *   active[]/active_sum  the lanes it watches: a two-level bitmap (64 x 64 bits). Only
 *                        watched lanes are visited, so idle producers cost nothing.
 *   cursor               where the next round-robin visit starts, kept across calls so
 *                        that small bursts still rotate over all busy lanes.
 * A lane enters the watched set when its doorbell bit is collected; it leaves when it has
 * been found empty `idle_visits` times in a row (hysteresis, so a producer that keeps the
 * lane busy never rings) or before the consumer sleeps. Leaving arms the lane (h.armed = 1)
 * so that the producer's next enqueue rings the doorbell.
 *
 * Doorbell: bells[w] has a bit per lane of word w; summary has a bit per non-empty word.
 * A ringer sets the lane bit, then the summary bit; the consumer exchanges the summary,
 * then each flagged word. A bit can be collected before its summary bit is set (the
 * summary bit then leads to an empty word: harmless), never left behind (see ring()).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <xtx/mpsc.h>
#include "mem.h"
#include "opts.h"

struct xtx_mpsc_bell {
	_Atomic uint64_t bits;
} _xtx_aligned;

struct xtx_mpsc {
	/* Read-mostly after create. */
	struct xtx_mpsc_prod *lanes;
	struct xtx_mpsc_bell *bells;
	struct xtx_desc *slots;
	size_t lanes_len, slots_len;
	uint32_t nlanes;
	uint32_t nwords;
	uint32_t quota;
	uint32_t idle_visits;
	int busy_poll;
	int sym;		/* no membarrier: symmetric seq_cst Dekker (see mpsc.h, P3) */

	/* Written by ringing producers (idle -> busy transitions only). */
	struct _xtx_aligned {
		_Atomic uint64_t summary;	/* bit w: bells[w] may have bits */
		_Atomic uint64_t rings;
	} bell;

	/* Sleep handshake: sleeping is written by the consumer, wake_seq by wakers. */
	struct _xtx_aligned {
		_Atomic uint32_t wake_seq;	/* the futex word */
		_Atomic uint32_t sleeping;
		_Atomic uint64_t wakeups;
	} sl;

	/* Consumer-private. */
	struct _xtx_aligned {
		uint64_t active_sum;
		uint32_t nactive;
		uint32_t cursor;
		_Atomic uint32_t nactive_pub;	/* copy of nactive for stats readers */
		_Atomic uint64_t sleeps;	/* consumer-written, read by stats */
		_Atomic uint64_t barriers;	/* membarrier calls; consumer-written */
		uint32_t npending;		/* lanes armed, awaiting retire_end() */
		uint64_t active[XTX_MPSC_MAX_LANES / 64];
		uint16_t pending[XTX_MPSC_MAX_LANES];
	} c;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static void wake(struct xtx_mpsc *s, int nr)
{
	/* Release: a consumer that sees the new value in its futex compare also sees what the
	 * waker did before (the doorbell bits). The futex syscall orders the rest. */
	atomic_fetch_add_explicit(&s->sl.wake_seq, 1, memory_order_release);
	/* Relaxed: a statistic. */
	atomic_fetch_add_explicit(&s->sl.wakeups, 1, memory_order_relaxed);
	futex(&s->sl.wake_seq, FUTEX_WAKE_PRIVATE, (uint32_t)nr, NULL);
}

/* Ring lane idx's doorbell and wake the consumer if it sleeps. Any thread. */
static void ring(struct xtx_mpsc *s, uint32_t idx)
{
	uint32_t w = idx >> 6;

	/* seq_cst RMWs: the lane bit is set before the summary bit (the consumer's acquire
	 * exchange of the summary, in collect_bells(), then sees the lane bit), and the
	 * summary RMW is the store half of the (P4) Dekker pair with (C4). */
	atomic_fetch_or_explicit(&s->bells[w].bits, 1ull << (idx & 63), memory_order_seq_cst);
	atomic_fetch_or_explicit(&s->bell.summary, 1ull << w, memory_order_seq_cst);
	/* Relaxed: a statistic. */
	atomic_fetch_add_explicit(&s->bell.rings, 1, memory_order_relaxed);
	/* (P4) seq_cst load, pairs with (C4): ordered after the summary RMW above. */
	if (atomic_load_explicit(&s->sl.sleeping, memory_order_seq_cst))
		wake(s, 1);
}

void __xtx_mpsc_prod_ring(struct xtx_mpsc_prod *p)
{
	/* Relaxed: the exchange only decides who re-arms the lane (this producer or the
	 * retiring consumer, see retire_end()); exactly one of them reads the 1. No data is
	 * published through it: slots are published by (P2). */
	if (atomic_exchange_explicit(&p->h.armed, 0, memory_order_relaxed))
		ring(p->p.stage, p->p.index);
}

/* --- consumer: watched set ----------------------------------------------------- */

static void watch(struct xtx_mpsc *s, uint32_t i)
{
	uint64_t b = 1ull << (i & 63);
	uint32_t w = i >> 6;

	if (s->c.active[w] & b)
		return;
	s->c.active[w] |= b;
	s->c.active_sum |= 1ull << w;
	s->c.nactive++;
	/* Relaxed: a statistic for other threads. */
	atomic_store_explicit(&s->c.nactive_pub, s->c.nactive, memory_order_relaxed);
	s->lanes[i].c.idle_visits = 0;
}

static void unwatch(struct xtx_mpsc *s, uint32_t i)
{
	uint32_t w = i >> 6;

	s->c.active[w] &= ~(1ull << (i & 63));
	if (!s->c.active[w])
		s->c.active_sum &= ~(1ull << w);
	s->c.nactive--;
	/* Relaxed: a statistic for other threads. */
	atomic_store_explicit(&s->c.nactive_pub, s->c.nactive, memory_order_relaxed);
}

/* First watched lane at or after `from`, wrapping; -1 if none. O(1): two ffs. */
static int next_watched(const struct xtx_mpsc *s, uint32_t from)
{
	uint32_t w = from >> 6;
	uint64_t bits = s->c.active[w] & (~0ull << (from & 63));
	uint64_t sum;

	if (bits)
		return (int)(w * 64 + (uint32_t)__builtin_ctzll(bits));
	sum = w == 63 ? 0 : s->c.active_sum & (~0ull << (w + 1));
	if (!sum)
		sum = s->c.active_sum;	/* wrap */
	if (!sum)
		return -1;
	w = (uint32_t)__builtin_ctzll(sum);
	return (int)(w * 64 + (uint32_t)__builtin_ctzll(s->c.active[w]));
}

static void collect_bells(struct xtx_mpsc *s)
{
	uint64_t sum;

	/* Relaxed peek: skips the RMW when nothing rang. A bell missed here is collected by
	 * the next call; xtx_mpsc__wait() re-checks with seq_cst before sleeping (C4). */
	if (!atomic_load_explicit(&s->bell.summary, memory_order_relaxed))
		return;
	/* Acquire, pairs with ring()'s seq_cst summary RMW: the lane bits set before it are
	 * visible to the exchanges below. */
	sum = atomic_exchange_explicit(&s->bell.summary, 0, memory_order_acquire);
	while (sum) {
		uint32_t w = (uint32_t)__builtin_ctzll(sum);
		/* Acquire, pairs with ring()'s seq_cst lane-bit RMW (nothing else is read through
		 * it: lane contents are ordered by (C1)). */
		uint64_t bits = atomic_exchange_explicit(&s->bells[w].bits, 0,
							 memory_order_acquire);

		sum &= sum - 1;
		while (bits) {
			watch(s, w * 64 + (uint32_t)__builtin_ctzll(bits));
			bits &= bits - 1;
		}
	}
}

/* --- consumer: one lane ---------------------------------------------------------- */

static unsigned lane_take(struct xtx_mpsc_prod *l, struct xtx_desc *out, unsigned max)
{
	/* Relaxed: c.head is written only by this (consumer) thread. */
	uint32_t head = atomic_load_explicit(&l->c.head, memory_order_relaxed);
	uint32_t avail = l->c.cached_tail - head;
	uint32_t size = l->p.mask + 1, at, first;
	uint64_t d;

	if (avail < max) {
		/* (C1) acquire, pairs with (P2): slot contents up to tail are visible. */
		l->c.cached_tail = atomic_load_explicit(&l->p.tail, memory_order_acquire);
		avail = l->c.cached_tail - head;
	}
	if (avail < max)
		max = avail;
	if (!max)
		return 0;
	at = head & l->p.mask;
	first = size - at < max ? size - at : max;
	memcpy(out, &l->p.slots[at], first * sizeof(*out));
	memcpy(out + first, &l->p.slots[0], (max - first) * sizeof(*out));
	/* (C2) release, pairs with (P1): the copies above finish before the producer may
	 * reuse the slots. */
	atomic_store_explicit(&l->c.head, head + max, memory_order_release);
	d = atomic_load_explicit(&l->c.deq_items, memory_order_relaxed);
	/* Relaxed: a counter with one writer, read racily by stats. */
	atomic_store_explicit(&l->c.deq_items, d + max, memory_order_relaxed);
	l->c.idle_visits = 0;
	return max;
}

static int sys_membarrier(int cmd)
{
	return (int)syscall(SYS_membarrier, cmd, 0, 0);
}

/* Stop watching an empty lane and arm it; retire_end() checks it once more. */
static void retire_begin(struct xtx_mpsc *s, struct xtx_mpsc_prod *l)
{
	unwatch(s, l->p.index);
	/* (C3), first half. seq_cst in the symmetric fallback; otherwise relaxed, ordered
	 * before the tail loads in retire_end() by the membarrier() there. */
	atomic_store_explicit(&l->h.armed, 1, s->sym ? memory_order_seq_cst :
						     memory_order_relaxed);
	s->c.pending[s->c.npending++] = l->p.index;
}

/* Finish the retirements begun since the last call: one barrier for all of them, then
 * each lane that got items meanwhile is watched again (unless its producer won the arm
 * and is ringing). */
static void retire_end(struct xtx_mpsc *s)
{
	uint64_t v;

	if (!s->c.npending)
		return;
	if (!s->sym) {
		/* (C3): a full barrier on every CPU running one of our threads, between our
		 * armed stores above and the tail loads below. Pairs with (P3). */
		sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
		v = atomic_load_explicit(&s->c.barriers, memory_order_relaxed);
		/* Relaxed: a counter with one writer, read racily by stats. */
		atomic_store_explicit(&s->c.barriers, v + 1, memory_order_relaxed);
	}
	for (uint32_t k = 0; k < s->c.npending; k++) {
		struct xtx_mpsc_prod *l = &s->lanes[s->c.pending[k]];
		/* Relaxed: c.head is ours. */
		uint32_t head = atomic_load_explicit(&l->c.head, memory_order_relaxed);

		/* (C3), second half: seq_cst in the fallback; relaxed after the membarrier
		 * (lane contents are read later through (C1)). */
		if (atomic_load_explicit(&l->p.tail, s->sym ? memory_order_seq_cst :
							     memory_order_relaxed) == head)
			continue;
		/* Relaxed: arbitration on one location, see __xtx_mpsc_prod_ring(). If the
		 * producer took the 1, its ring brings the lane back. */
		if (atomic_exchange_explicit(&l->h.armed, 0, memory_order_relaxed))
			watch(s, l->p.index);
	}
	s->c.npending = 0;
}

/* The consumer found lane l empty. force: retire now (before sleeping). */
static void lane_idle(struct xtx_mpsc *s, struct xtx_mpsc_prod *l, int force)
{
	/* (C5) acquire, pairs with (P5): if CLOSING, the final tail is visible below. */
	uint32_t st = atomic_load_explicit(&l->h.state, memory_order_acquire);

	if (st == _XTX_LANE_FREE) {
		unwatch(s, l->p.index);	/* a late bell from a lane already given back */
		return;
	}
	if (st == _XTX_LANE_CLOSING) {
		/* Relaxed loads: head is ours; tail is final and ordered by (C5). */
		if (atomic_load_explicit(&l->p.tail, memory_order_relaxed) !=
		    atomic_load_explicit(&l->c.head, memory_order_relaxed))
			return;	/* items published before close: take them next visit */
		unwatch(s, l->p.index);
		/* Relaxed: published by the release below. A new owner starts armed. */
		atomic_store_explicit(&l->h.armed, 1, memory_order_relaxed);
		/* (C6) release, pairs with (R1): our last use of the lane happens before
		 * the next owner's first. */
		atomic_store_explicit(&l->h.state, _XTX_LANE_FREE, memory_order_release);
		return;
	}
	if (force || ++l->c.idle_visits >= s->idle_visits)
		retire_begin(s, l);
}

unsigned xtx_mpsc__dequeue_burst(struct xtx_mpsc *s, struct xtx_desc *out, unsigned n)
{
	unsigned got = 0, empty_streak = 0;

	collect_bells(s);
	while (got < n && s->c.nactive) {
		int i = next_watched(s, s->c.cursor);
		struct xtx_mpsc_prod *l;
		unsigned want, k;

		if (i < 0)
			break;
		l = &s->lanes[i];
		want = n - got < s->quota ? n - got : s->quota;
		k = lane_take(l, out + got, want);
		s->c.cursor = (uint32_t)i + 1 == s->nlanes ? 0 : (uint32_t)i + 1;
		if (k) {
			got += k;
			empty_streak = 0;
			continue;
		}
		lane_idle(s, l, 0);
		/* Every watched lane visited once with nothing: done. nactive only shrinks
		 * inside this loop, so this bounds the empty visits. */
		if (++empty_streak > s->c.nactive)
			break;
	}
	retire_end(s);
	return got;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int busy_wait(struct xtx_mpsc *s, uint64_t timeout_ns, uint32_t seq)
{
	uint64_t deadline = timeout_ns == UINT64_MAX ? UINT64_MAX : mono_ns() + timeout_ns;
	unsigned spins = 0;

	for (;;) {
		/* Relaxed: polling; a bell or kick seen late is seen on a later turn. */
		if (atomic_load_explicit(&s->bell.summary, memory_order_relaxed) ||
		    atomic_load_explicit(&s->sl.wake_seq, memory_order_relaxed) != seq)
			return 0;
		if (++spins % 64 == 0 && mono_ns() >= deadline)
			return -ETIMEDOUT;
		cpu_relax();
	}
}

uint32_t xtx_mpsc__wait_prepare(const struct xtx_mpsc *s)
{
	/* Acquire, pairs with wake()'s release increment: a caller whose ticket already
	 * includes a kick also sees what the kicker wrote before it (its stop flag). */
	return atomic_load_explicit(&((struct xtx_mpsc *)s)->sl.wake_seq, memory_order_acquire);
}

int xtx_mpsc__wait(struct xtx_mpsc *s, uint64_t timeout_ns)
{
	return xtx_mpsc__wait_ticket(s, xtx_mpsc__wait_prepare(s), timeout_ns);
}

int xtx_mpsc__wait_ticket(struct xtx_mpsc *s, uint32_t seq, uint64_t timeout_ns)
{
	struct timespec ts, *tsp = NULL;
	uint64_t v;
	long r;

	/* Retire every watched lane (one barrier for all). A CLOSING lane that still holds
	 * items stays watched, as does one that refilled meanwhile: then there is work.
	 * Walk a snapshot: lane_idle() changes the watched set. */
	uint64_t snap[XTX_MPSC_MAX_LANES / 64];

	memcpy(snap, s->c.active, sizeof(uint64_t) * s->nwords);
	for (uint32_t w = 0; w < s->nwords; w++)
		for (uint64_t bits = snap[w]; bits; bits &= bits - 1)
			lane_idle(s, &s->lanes[w * 64 + (uint32_t)__builtin_ctzll(bits)], 1);
	retire_end(s);
	if (s->c.nactive)
		return 0;
	/* seq (the ticket) was read before the caller's own checks: the futex compares it in
	 * the kernel, so a wake since then makes the compare fail (EAGAIN) or wakes us. */
	if (s->busy_poll)
		return busy_wait(s, timeout_ns, seq);

	/* (C4) seq_cst store then seq_cst load, pairs with (P4). */
	atomic_store_explicit(&s->sl.sleeping, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&s->bell.summary, memory_order_seq_cst)) {
		/* Relaxed: a stale 1 only costs a ringer a spurious wake. */
		atomic_store_explicit(&s->sl.sleeping, 0, memory_order_relaxed);
		return 0;
	}
	if (timeout_ns != UINT64_MAX) {
		ts.tv_sec = (time_t)(timeout_ns / 1000000000ull);
		ts.tv_nsec = (long)(timeout_ns % 1000000000ull);
		tsp = &ts;
	}
	v = atomic_load_explicit(&s->c.sleeps, memory_order_relaxed);
	/* Relaxed: a counter with one writer, read racily by stats. */
	atomic_store_explicit(&s->c.sleeps, v + 1, memory_order_relaxed);
	r = futex(&s->sl.wake_seq, FUTEX_WAIT_PRIVATE, seq, tsp);
	/* Relaxed: as above. */
	atomic_store_explicit(&s->sl.sleeping, 0, memory_order_relaxed);
	if (r == 0 || errno == EAGAIN)
		return 0;
	return errno == ETIMEDOUT ? -ETIMEDOUT : -EINTR;
}

void xtx_mpsc__kick(struct xtx_mpsc *s)
{
	wake(s, INT_MAX);
}

/* --- producers: register / unregister -------------------------------------------- */

struct xtx_mpsc_prod *xtx_mpsc__register(struct xtx_mpsc *s)
{
	for (uint32_t i = 0; i < s->nlanes; i++) {
		struct xtx_mpsc_prod *l = &s->lanes[i];
		uint32_t st = _XTX_LANE_FREE;

		/* (R1) acquire CAS, pairs with (C6): the previous owner's items were all taken
		 * and the consumer's last head store is visible. Relaxed on failure: we only
		 * move on to the next lane. */
		if (atomic_compare_exchange_strong_explicit(&l->h.state, &st, _XTX_LANE_OWNED,
							    memory_order_acquire,
							    memory_order_relaxed)) {
			/* Relaxed: ordered by (R1); c.head is final until we publish. */
			l->p.cached_head = atomic_load_explicit(&l->c.head, memory_order_relaxed);
			return l;
		}
	}
	errno = EBUSY;
	return NULL;
}

void xtx_mpsc__unregister(struct xtx_mpsc_prod *p)
{
	/* (P5) release, pairs with (C5): all our published items are visible to the consumer
	 * before it sees CLOSING. */
	atomic_store_explicit(&p->h.state, _XTX_LANE_CLOSING, memory_order_release);
	/* Ring unconditionally so the consumer drains and frees the lane even if it was
	 * idle. After this the lane may already be someone else's: a late bell is harmless
	 * (lane_idle() skips a FREE lane; an OWNED one is just visited). */
	ring(p->p.stage, p->p.index);
}

/* --- create / destroy / stats ----------------------------------------------------- */

struct xtx_mpsc *xtx_mpsc__create(const struct xtx_mpsc_opts *opts)
{
	struct xtx_mpsc_opts o;
	struct xtx_mpsc *s;
	int err;

	err = XTX_OPTS_LOAD(&o, opts, xtx_mpsc_opts, NULL, 0);
	if (err) {
		errno = -err;
		return NULL;
	}
	if (!opts)
		o.numa_node = -1;
	o.lanes = o.lanes ? o.lanes : 64;
	o.lane_size = o.lane_size ? o.lane_size : 1024;
	o.quota = o.quota ? o.quota : 64;
	o.idle_visits = o.idle_visits ? o.idle_visits : 256;
	if (o.lanes > XTX_MPSC_MAX_LANES || o.lane_size < 2 || o.lane_size > (1u << 24) ||
	    (o.lane_size & (o.lane_size - 1))) {
		errno = EINVAL;
		return NULL;
	}
	if (posix_memalign((void **)&s, _XTX_CACHE_LINE, sizeof(*s))) {
		errno = ENOMEM;
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->nlanes = o.lanes;
	s->nwords = (o.lanes + 63) / 64;
	s->quota = o.quota;
	s->idle_visits = o.idle_visits;
	s->busy_poll = o.busy_poll;
	/* Registering is idempotent per process; if the kernel lacks it (before 4.14, or
	 * seccomp), fall back to the symmetric handshake. */
	s->sym = sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0;
	s->lanes_len = sizeof(*s->lanes) * o.lanes + sizeof(*s->bells) * s->nwords;
	s->slots_len = sizeof(struct xtx_desc) * (size_t)o.lanes * o.lane_size;
	s->lanes = xtx_mem__alloc(s->lanes_len, o.numa_node);
	if (!s->lanes)
		goto out_stage;
	s->bells = (struct xtx_mpsc_bell *)(s->lanes + o.lanes);
	s->slots = xtx_mem__alloc(s->slots_len, o.numa_node);
	if (!s->slots)
		goto out_lanes;
	for (uint32_t i = 0; i < o.lanes; i++) {
		struct xtx_mpsc_prod *l = &s->lanes[i];

		l->p.mask = o.lane_size - 1;
		l->p.index = (uint16_t)i;
		l->p.sym = (uint16_t)s->sym;
		l->p.slots = s->slots + (size_t)i * o.lane_size;
		l->p.stage = s;
		/* Relaxed: nothing else runs before create returns. */
		atomic_store_explicit(&l->h.armed, 1, memory_order_relaxed);
		atomic_store_explicit(&l->h.state, _XTX_LANE_FREE, memory_order_relaxed);
	}
	return s;

out_lanes:
	err = errno;
	xtx_mem__free(s->lanes, s->lanes_len);
	errno = err;
out_stage:
	err = errno;
	free(s);
	errno = err;
	return NULL;
}

void xtx_mpsc__destroy(struct xtx_mpsc *s)
{
	if (!s)
		return;
	xtx_mem__free(s->slots, s->slots_len);
	xtx_mem__free(s->lanes, s->lanes_len);
	free(s);
}

void xtx_mpsc__stats(const struct xtx_mpsc *s, struct xtx_mpsc_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (uint32_t i = 0; i < s->nlanes; i++) {
		const struct xtx_mpsc_prod *l = &s->lanes[i];

		/* Relaxed: counters, each exact on its own; no ordering between them. */
		st->enq_items += atomic_load_explicit(&l->p.enq_items, memory_order_relaxed);
		st->deq_items += atomic_load_explicit(&l->c.deq_items, memory_order_relaxed);
		st->full_events += atomic_load_explicit(&l->p.full_events, memory_order_relaxed);
		if (atomic_load_explicit(&l->h.state, memory_order_relaxed) != _XTX_LANE_FREE)
			st->lanes_owned++;
	}
	/* Relaxed: statistics. */
	st->rings = atomic_load_explicit(&s->bell.rings, memory_order_relaxed);
	st->wakeups = atomic_load_explicit(&s->sl.wakeups, memory_order_relaxed);
	st->sleeps = atomic_load_explicit(&s->c.sleeps, memory_order_relaxed);
	st->barriers = atomic_load_explicit(&s->c.barriers, memory_order_relaxed);
	st->lanes_busy = atomic_load_explicit(&s->c.nactive_pub, memory_order_relaxed);
}
