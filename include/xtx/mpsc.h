/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/mpsc.h - the lock-free multi-producer / single-consumer stage.
 *
 * Many producer threads hand 16-byte descriptors (struct xtx_desc) to the one dequeuer
 * thread of a NIC queue. Each producer owns a lane: a bounded single-producer ring that no
 * other producer touches. The consumer finds busy lanes through a doorbell bitmap that a
 * producer writes only when its lane goes from "not watched" to "has items", and serves
 * busy lanes round robin with a bounded quota each.
 *
 * Properties:
 * - Enqueue takes no lock and never waits for another producer. A producer stopped at any
 *   instruction of its enqueue delays only its own unpublished items.
 * - In the steady state a producer writes only its own lane's lines (line P and its slots).
 *   The shared doorbell is written on idle -> busy transitions only.
 * - Bounded memory, fixed at create; burst calls return how many fit (back-pressure is a
 *   short count, never a silent loss); per-producer FIFO; nothing lost or duplicated.
 * - Fair: at most `quota` items per lane per round; finding work costs O(busy lanes),
 *   independent of the number of idle or registered producers.
 * - The consumer may sleep (futex) with no lost wake-up, or busy-poll.
 *
 * Which operations may run concurrently (Y = yes, from different threads; - = no):
 *
 *                       | enqueue(p) | enqueue(q) | register | unregister(q) | consumer op
 *   --------------------+------------+------------+----------+---------------+------------
 *   enqueue(p)          |     -      |     Y      |    Y     |       Y       |     Y
 *   register            |     Y      |     Y      |    Y     |       Y       |     Y
 *   unregister(p)       |     -      |     Y      |    Y     |       Y       |     Y
 *   consumer op         |     Y      |     Y      |    Y     |       Y       |     -
 *   create / destroy    |     -      |     -      |    -     |       -       |     -
 *
 * "consumer op" is dequeue_burst, wait, and stats read by the consumer thread. A producer
 * handle p is used by one thread at a time (hand it over with your own synchronisation).
 * kick and stats may be called from any thread at any time.
 *
 * Memory-order pairings (labels cited at each atomic in mpsc.h and mpsc.c):
 *   (P1) producer acquire-load of c.head   pairs with (C2) consumer release-store of c.head:
 *        slots the consumer has copied out are free before the producer overwrites them.
 *   (P2) producer seq_cst store of p.tail  pairs with (C1) consumer acquire-load of p.tail:
 *        slot contents are visible before the index that publishes them.
 *   (P3) producer's load of h.armed after its store of p.tail, with (C3) the consumer's
 *        store of h.armed = 1 then load of p.tail (a Dekker pair): if the consumer retires
 *        the lane while the producer publishes, one of them sees the other's store, so the
 *        lane is either kept by the consumer or rung by the producer; never left silent.
 *        The pair is asymmetric: the producer (every enqueue) has only a compiler barrier
 *        between its two accesses; the consumer (rare: a lane went idle) calls
 *        membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) between its two, which runs a full
 *        barrier on every CPU running a thread of this process (a descheduled producer got
 *        one at its context switch), as liburcu's urcu-memb does. Where the kernel lacks
 *        membarrier both sides fall back to seq_cst accesses (p.sym = 1).
 *   (P4) ringer's seq_cst fetch_or of the doorbell then seq_cst load of `sleeping`, with
 *        (C4) consumer's seq_cst store of `sleeping` then seq_cst load of the doorbell
 *        summary (Dekker): a consumer that goes to sleep either sees the bell or is woken.
 *   (P5) unregister's release-store of CLOSING pairs with (C5) the consumer's acquire-load
 *        of the state: every item published before closing is seen before the lane is freed.
 *   (C6) consumer's release-store of FREE pairs with (R1) register's acquire CAS: the next
 *        owner starts after the consumer's last use of the slots.
 */
#ifndef XTX_MPSC_H
#define XTX_MPSC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <xtx/desc.h>
#include <xtx/mpsc_pvt.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XTX_MPSC_MAX_LANES	4096	/* 64 doorbell words of 64 bits */

struct xtx_mpsc;

struct xtx_mpsc_opts {
	size_t sz;		/* sizeof(struct xtx_mpsc_opts) */
	/* 0 selects the default for each of these four. */
	uint32_t lanes;		/* maximum producers registered at once (1..4096); default 64 */
	uint32_t lane_size;	/* descriptors per lane, power of two (2..2^24); default 1024 */
	uint32_t quota;		/* max items taken from one lane per round; default 64 */
	uint32_t idle_visits;	/* empty visits before a lane is retired; default 256 */
	int numa_node;		/* node for the memory, -1 = local to the caller (default) */
	int busy_poll;		/* 1: xtx_mpsc__wait() spins instead of sleeping */
};
/* Sized as every xtx_*_opts (see xtx_engine_opts in xtx/xtx.h): fields up to __last_field
 * read, a larger sz only with zero bytes beyond it, sz at least the first release's sizeof
 * (it ended at __min_field). */
#define xtx_mpsc_opts__last_field	busy_poll
#define xtx_mpsc_opts__min_field	busy_poll

struct xtx_mpsc_stats {
	uint64_t enq_items;	/* accepted by enqueue, over all lanes */
	uint64_t deq_items;	/* returned by dequeue */
	uint64_t full_events;	/* enqueue calls that returned short because a lane was full */
	uint64_t rings;		/* doorbell rings (idle -> busy transitions) */
	uint64_t sleeps;	/* times the consumer slept in xtx_mpsc__wait() */
	uint64_t wakeups;	/* futex wakes issued by producers or kick */
	uint64_t barriers;	/* membarrier() calls by the consumer (lanes retired) */
	uint32_t lanes_owned;	/* lanes registered now */
	uint32_t lanes_busy;	/* lanes the consumer is watching now */
};

/* Create a stage. opts may be NULL for defaults. Returns NULL with errno set:
 * EINVAL (opts->sz too small, lanes > 4096, lane_size not a power of two or out of
 * range), ENOMEM. */
struct xtx_mpsc *xtx_mpsc__create(const struct xtx_mpsc_opts *opts);

/* Free a stage. Every producer must have stopped; items still queued are discarded
 * (drain first with dequeue_burst). */
void xtx_mpsc__destroy(struct xtx_mpsc *s);

/* Take a free lane for the calling producer. NULL with errno EBUSY if all lanes are owned
 * or still being drained after an unregister. Any thread, any time. */
struct xtx_mpsc_prod *xtx_mpsc__register(struct xtx_mpsc *s);

/* Give the lane back. Items already enqueued are still delivered, in order; the lane is
 * reused only after the consumer has taken all of them. p must not be used afterwards. */
void xtx_mpsc__unregister(struct xtx_mpsc_prod *p);

/* Consumer: take up to n items, round robin over busy lanes, at most `quota` per lane per
 * round, per-lane FIFO. Returns the number taken (0 when all lanes are empty). */
unsigned xtx_mpsc__dequeue_burst(struct xtx_mpsc *s, struct xtx_desc *out, unsigned n);

/* Consumer: block until a producer rings, kick() is called, or timeout_ns passes
 * (UINT64_MAX = no timeout). Call after dequeue_burst returned 0. Returns 0 when there may
 * be work, -ETIMEDOUT, or -EINTR (a signal). In busy_poll mode it spins instead and never
 * enters the kernel. */
int xtx_mpsc__wait(struct xtx_mpsc *s, uint64_t timeout_ns);

/* The same, in two steps, for a consumer that has reasons of its own to stay awake (a
 * stop flag set by the thread that calls kick()): take the ticket FIRST, then check those
 * reasons, then sleep with the ticket. A kick() after the ticket was taken makes the wait
 * return at once, so it cannot be lost between the check and the sleep (the kernel's
 * prepare_to_wait pattern). wait(s, t) is wait_ticket(s, wait_prepare(s), t). */
uint32_t xtx_mpsc__wait_prepare(const struct xtx_mpsc *s);
int xtx_mpsc__wait_ticket(struct xtx_mpsc *s, uint32_t ticket, uint64_t timeout_ns);

/* Wake the consumer if it sleeps in wait() (e.g. to stop it). Any thread. */
void xtx_mpsc__kick(struct xtx_mpsc *s);

/* Counters, readable from any thread while running (each value is exact for its own
 * counter; the set is not a single snapshot). */
void xtx_mpsc__stats(const struct xtx_mpsc *s, struct xtx_mpsc_stats *st);

/* Lane number of a producer (0..lanes-1), e.g. for per-producer counters. */
static inline unsigned xtx_mpsc_prod__index(const struct xtx_mpsc_prod *p)
{
	return p->p.index;
}

/* Producer: append up to n descriptors to p's lane, in order. Returns how many were
 * accepted (0..n); fewer than n means the lane is full: the rest were not taken and are
 * still the caller's. Never blocks, never fails otherwise. Caller is p's only user. */
static inline unsigned xtx_mpsc__enqueue_burst(struct xtx_mpsc_prod *p,
					       const struct xtx_desc *d, unsigned n)
{
	/* Relaxed: p.tail is written only by this thread. */
	uint32_t tail = atomic_load_explicit(&p->p.tail, memory_order_relaxed);
	uint32_t size = p->p.mask + 1;
	uint32_t room = size - (tail - p->p.cached_head);

	if (room < n) {
		/* (P1) acquire, pairs with (C2): the consumer is done with the slots it
		 * released. */
		p->p.cached_head = atomic_load_explicit(&p->c.head, memory_order_acquire);
		room = size - (tail - p->p.cached_head);
		if (room < n) {
			uint64_t f = atomic_load_explicit(&p->p.full_events, memory_order_relaxed);
			/* Relaxed: a counter with one writer, read racily by stats. */
			atomic_store_explicit(&p->p.full_events, f + 1, memory_order_relaxed);
			n = room;
			if (n == 0)
				return 0;
		}
	}

	uint32_t at = tail & p->p.mask;
	uint32_t first = size - at < n ? size - at : n;
	memcpy(&p->p.slots[at], d, first * sizeof(*d));
	memcpy(&p->p.slots[0], d + first, (n - first) * sizeof(*d));

	_XTX_FAULT_MPSC_ENQUEUE(p);

	uint64_t e = atomic_load_explicit(&p->p.enq_items, memory_order_relaxed);
	/* Relaxed: a counter with one writer, read racily by stats. */
	atomic_store_explicit(&p->p.enq_items, e + n, memory_order_relaxed);

	if (__builtin_expect(!p->p.sym, 1)) {
		/* (P2) release, pairs with (C1): slot contents before the index. */
		atomic_store_explicit(&p->p.tail, tail + n, memory_order_release);
		/* (P3) compiler barrier only: the consumer's membarrier() supplies the CPU
		 * barrier between our tail store and this load when it matters (C3). */
		atomic_signal_fence(memory_order_seq_cst);
		/* Relaxed: ordered by (P3)/(C3) above. The line is only read here and stays
		 * shared in this core's cache while the lane is busy. */
		if (atomic_load_explicit(&p->h.armed, memory_order_relaxed))
			__xtx_mpsc_prod_ring(p);
	} else {
		/* (P2) seq_cst store (release for the slots, pairs with (C1)) and (P3) seq_cst
		 * load: the symmetric Dekker pair with (C3) when there is no membarrier. */
		atomic_store_explicit(&p->p.tail, tail + n, memory_order_seq_cst);
		if (atomic_load_explicit(&p->h.armed, memory_order_seq_cst))
			__xtx_mpsc_prod_ring(p);
	}
	return n;
}

/* Producer: the one-item form. Returns 1 or 0 (full). */
static inline unsigned xtx_mpsc__enqueue(struct xtx_mpsc_prod *p, const struct xtx_desc *d)
{
	return xtx_mpsc__enqueue_burst(p, d, 1);
}

#ifdef __cplusplus
}
#endif
#endif /* XTX_MPSC_H */
