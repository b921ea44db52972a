/* SPDX-License-Identifier: BSD-3-Clause */
/* dequeuer.c - the one thread per TX queue that owns the queue's scheduler.
 *
 * One step, every batch bounded by XTX_DEQ_BATCH (never an unbounded drain into the
 * scheduler):
 *   1. take up to a batch from the stage (round robin over producers' lanes); with
 *      opts.intake_batches > 1, more batches while the stage keeps them full, so that
 *      overload reaches the scheduler and is dropped by class rather than at the stage;
 *      and one more while the scheduler is short of a backlog (intake_more());
 *   2. enqueue it into the scheduler (refused frames are recycled; the scheduler counts
 *      them per class and reason);
 *   3. reap completions: frames back to the free pool, a batch at a time;
 *   4. dequeue what may leave now, as much as the TX ring has room for, write the
 *      descriptors in one reserve/submit (txring.h);
 *   5. kick the kernel with sendto() only if it set need_wakeup on the TX ring (a
 *      user-space device: run it).
 * When a step moved nothing, the thread polls (sched_yield) for XTX_IDLE_POLL_NS since its
 * last work, then sleeps on the stage's futex until a producer rings or the scheduler's
 * next departure time (busy_poll: spins instead). While the kernel still has unread TX
 * descriptors and asks for a wake-up it kicks again at once (copy mode sends at most 32
 * frames per sendto); once the poll is over and it only awaits completions it naps 20 us
 * at a time, so a stuck link cannot make it spin.
 *
 * A live change (q->change, set by xtx_engine__classes_change()) is taken at the top of
 * a step, before the intake: one load per step.
 *
 * Shutdown (ctl->stop): keep going until stage, scheduler and TX ring are empty; at the
 * drain deadline (or at once with drop) stop sending and purge what is queued, counting it.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "dequeuer.h"
#include "tstamp.h"
#include "txmd.h"

#define XTX_REAP_NS	(1000ull * 1000 * 1000)	/* queue 0's dequeuer reaps this often */

static void flush_recycle(struct xtx_dequeuer *q, int idle)
{
	if (!q->nrecycle)
		return;
	/* Cannot fail: the pool has a container for every frame in partial batches. */
	xtx_pool__put(q->pool, q->recycle, q->nrecycle);
	q->nrecycle = 0;
	xtx_room__wake(q->room, idle);
	CTR_SET(q->ctr.held, 0);	/* mirrors nrecycle */
}

/* Frames come back to the pool as base + XTX_HEADROOM, wherever in the frame their
 * packet started (received frames start after the kernel's headroom). */
static void recycle(struct xtx_dequeuer *q, uint64_t addr)
{
	q->recycle[q->nrecycle++] = xtx_frame_norm(&q->fr, addr);
	if (q->nrecycle == XTX_BATCH)
		flush_recycle(q, 0);
	else
		CTR_SET(q->ctr.held, q->nrecycle);
}

/* CLOCK_TAI - CLOCK_MONOTONIC, read again every 100 ms (steps of CLOCK_TAI:
 * settimeofday, a leap second): launch times and TX timestamps are in CLOCK_TAI. */
static void tai_refresh(struct xtx_dequeuer *q, uint64_t now)
{
	if (now - q->tai_read_ns >= 100 * 1000 * 1000) {
		q->tai_off = xtx_txmd_tai_offset();
		q->tai_read_ns = now;
	}
}

/* Step 3: completions, frames back to the pool a batch at a time, counted for the ring's
 * limit (dql.h). */
static void reap(struct xtx_dequeuer *q, uint64_t now)
{
	uint32_t idx = 0, n;

	xtx_txring__poll(&q->ring, now);
	/* The device's progress, not what this reap takes: after a stall it gave back more
	 * than a batch, and the limit must see it (dql.h). */
	xtx_dql__completed(&q->dql, xtx_txring__comp_new(&q->ring));
	n = xtx_txring__comp_peek(&q->ring, XTX_DEQ_BATCH, &idx);

	if (q->ts) {
		tai_refresh(q, now);
		for (uint32_t i = 0; i < n; i++)
			xtx_ts_complete(q->ts, &q->fr, xtx_txring__comp_addr(&q->ring, idx + i),
					q->tai_off);
	}
	for (uint32_t i = 0; i < n; i++)
		recycle(q, xtx_txring__comp_addr(&q->ring, idx + i));
	if (n) {
		xtx_txring__comp_release(&q->ring, n);
		CTR_ADD(q->ctr.completed, n);
	}
}

/* Step 5: tell the device. Returns 0, or -errno when the kernel could not send (link
 * down, no buffers...). */
static int kick(struct xtx_dequeuer *q, uint64_t now)
{
	int rc;

	CTR_ADD(q->ctr.kicks, 1);
	rc = xtx_txring__kick(&q->ring, now);
	if (xtx_txring__kick_failed(rc))
		CTR_ADD(q->ctr.kick_errors, 1);
	return rc;
}

/* Publish the scheduler's class counters (seqlock writer; one writer: this thread), and
 * zeros for the nfreed slots in freed[] (no class has them now). */
static void publish_classes_freed(struct xtx_dequeuer *q, uint64_t now, unsigned nfreed,
				  const uint32_t *freed)
{
	uint32_t seq = atomic_load_explicit(&q->snap_seq, memory_order_relaxed);
	struct xtx_class_stats st;
	uint64_t w[SNAP_WORDS];

	/* Relaxed store + release fence: readers that see any of the words below also see
	 * the odd count (Boehm's seqlock writer). */
	atomic_store_explicit(&q->snap_seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (unsigned c = 0; c < xtx_sched__class_count(q->sched); c++) {
		size_t at = (size_t)xtx_sched__class_slot(q->sched, c) * SNAP_WORDS;

		memset(w, 0, sizeof(w));
		xtx_sched__class_stats(q->sched, c, &st);
		memcpy(w, &st, sizeof(st));
		for (unsigned k = 0; k < SNAP_WORDS; k++)
			/* Relaxed: ordered by the seqcount (fence above, release below). */
			atomic_store_explicit(&q->snap[at + k], w[k], memory_order_relaxed);
	}
	for (unsigned i = 0; i < nfreed; i++)
		for (unsigned k = 0; k < SNAP_WORDS; k++)
			/* Relaxed: as above. */
			atomic_store_explicit(&q->snap[(size_t)freed[i] * SNAP_WORDS + k], 0,
					      memory_order_relaxed);
	/* Release, pairs with the reader's acquire fence before its re-check. */
	atomic_store_explicit(&q->snap_seq, seq + 2, memory_order_release);
	q->snap_last_ns = now;
	CTR_SET(q->ctr.cpu_ns, xtx_thread_cpu_ns());
}

/* A packet that leaves without being sent (dropped, purged): its frame and, for a
 * multi-buffer one, its further frames back to the pool. */
static void recycle_pkt(struct xtx_dequeuer *q, const struct xtx_desc *d)
{
	if (__builtin_expect(d->addr & XTX_DESC_F_MB, 0)) {
		/* The chain read out first: once the first frame is back in the pool (a
		 * recycle may flush), a producer may take it and write over its headroom. */
		uint64_t a[XTX_MB_MAX_SEGS];
		uint32_t n = (d->len + q->ring.room - 1) / q->ring.room - 1;

		memcpy(a, (const char *)xtx_frame_ptr(&q->fr, d->addr) - XTX_MB_CHAIN_OFF,
		       n * sizeof(a[0]));
		for (uint32_t i = 0; i < n; i++)
			recycle(q, a[i]);
		CTR_ADD(q->ctr.chain_out, n);
	}
	recycle(q, d->addr);
}

static void publish_classes(struct xtx_dequeuer *q, uint64_t now)
{
	publish_classes_freed(q, now, 0, NULL);
}

/* Step 1 and 2: take up to a batch from the stage and hand it to the scheduler (or, when
 * dropping at stop, straight back to the pool). Returns how many were taken; the caller
 * wakes producers waiting for stage room. */
static unsigned intake(struct xtx_dequeuer *q, struct xtx_desc *in, struct xtx_desc *drops,
		       uint64_t *txt, uint64_t now, int dropping)
{
	unsigned n = xtx_mpsc__dequeue_burst(q->stage, in, XTX_DEQ_BATCH), nd = 0;

	if (!n)
		return 0;
	CTR_ADD(q->ctr.stage_pkts, n);
	if (dropping) {
		for (unsigned i = 0; i < n; i++)
			recycle_pkt(q, &in[i]);
		CTR_ADD(q->ctr.drops[XTX_DROP_PURGED], n);
		return n;
	}
	int any = 0;

	for (unsigned i = 0; i < n; i++) {
		txt[i] = 0;
		if (in[i].addr & XTX_DESC_F_TXTIME) {
			memcpy(&txt[i], (char *)xtx_frame_ptr(&q->fr, in[i].addr) - 8, sizeof(txt[i]));
			any = 1;
		}
	}
	xtx_sched__enqueue_burst(q->sched, in, any ? txt : NULL, n, now, drops, &nd);
	for (unsigned i = 0; i < nd; i++)
		recycle_pkt(q, &drops[i]);
	return n;
}

/* The thread's name, timer slack and priority, before its first step. */
static void dequeuer_setup(struct xtx_dequeuer *q)
{
	char name[16];

	snprintf(name, sizeof(name), "xtx-deq/%u", q->qid);
	pthread_setname_np(pthread_self(), name);	/* pinned at creation (engine.c) */
	/* Sleep until the scheduler's next departure to the microsecond, not the default
	 * 50 us timer slack. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	/* Ahead of the threads that feed us on a shared CPU: a dequeuer that waits for the
	 * CPU misses departure times, and a class's tokens beyond its burst are lost. */
	if (q->nice && setpriority(PRIO_PROCESS, (id_t)gettid(), q->nice))
		xtx_warn(q->log, "dequeuer of queue %u: cannot set nice %d: %s (needs CAP_SYS_NICE)",
			 q->qid, q->nice, strerror(errno));
	/* Further ahead: real-time, as the kernel's dequeue runs in softirq. Safe because
	 * this thread never spins at it: it sleeps when nothing is eligible, and naps while
	 * it only waits for completions (busy_poll is refused with it at open). */
	if (q->rtprio) {
		struct sched_param sp = { .sched_priority = q->rtprio };
		int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

		if (rc)
			xtx_warn(q->log, "dequeuer of queue %u: cannot run SCHED_FIFO at priority %d: "
				 "%s (needs CAP_SYS_NICE)", q->qid, q->rtprio, strerror(rc));
	}
}

/* Out of line in the TSan build only: gcc 12 with -fsanitize=thread refuses (-Wtsan) the
 * seq_cst fence in wake_stage_room() once it is inlined. */
#ifdef __SANITIZE_THREAD__
#define XTX_INTAKE_INLINE __attribute__((noinline))
#else
#define XTX_INTAKE_INLINE
#endif

/* Wake the producers that wait in xtx_producer__wait(), for stage space or frames
 * (room.h); class room wakes its own (publish_room()). */
static XTX_INTAKE_INLINE void wake_stage_room(struct xtx_dequeuer *q)
{
	q->since_wake = 0;
	/* (W1) fence: the stage room made is ordered before the waiters load in
	 * xtx_room__wake_any(); pairs with the seq_cst fence in xtx_room__wait_prepare()
	 * (room.h). */
	atomic_thread_fence(memory_order_seq_cst);
	xtx_room__wake_any(q->room);
}

int xtx_room_publish(struct xtx_dequeuer *q)
{
	struct xtx_room_state rs[XTX_DEQ_BATCH];
	/* Acquire, pairs with the release store in xtx_engine__room_mirror(): the caller's
	 * stores to the words are ordered before ours. */
	_Atomic uint64_t *m = atomic_load_explicit(&q->mirror, memory_order_acquire);
	unsigned k;
	int opened = 0;

	if (m) {
		bool first = m != q->mirror_seen;

		/* the XDP program admits and drops: budgets of the target's size, not held
		 * within the limits (xtx_sched__set_room_hold()); again after a swap */
		xtx_sched__set_room_hold(q->sched, 0);
		q->mirror_seen = m;
		m += (size_t)q->idx * q->nslots;		/* this queue's row */
		for (unsigned c = 0; first && c < q->nslots; c++)	/* first sight: all of it */
			/* Relaxed: a hint for the XDP program (plain loads there); the
			 * cls_room load reads our own store. */
			atomic_store_explicit(&m[c], atomic_load_explicit(&q->cls_room[c],
					      memory_order_relaxed), memory_order_relaxed);
	}

	while ((k = xtx_sched__room_changes(q->sched, rs, XTX_DEQ_BATCH))) {
		for (unsigned i = 0; i < k; i++) {
			uint64_t w = XTX_ROOM_WORD(rs[i].full, rs[i].gen, rs[i].flow_quota,
						   rs[i].quota);

			/* Relaxed: a hint for producers; the wake below orders it for a
			 * waiter (W1). */
			atomic_store_explicit(&q->cls_room[rs[i].cls], w, memory_order_relaxed);
			opened |= !rs[i].full;
			if (m)	/* Relaxed: a hint for the XDP program (plain loads there) */
				atomic_store_explicit(&m[rs[i].cls], w, memory_order_relaxed);
		}
	}
	return opened;
}

/* Publish the scheduler's room changes to producers (xtx_producer__room()); wake the
 * producers that wait for class room if a class got room (room.h, W2: the words are
 * stored before the fence in xtx_room__wake_class()). Producers blocked on a full lane
 * are not woken here: they wait for half a lane (wake_stage_room()). */
static void publish_room(struct xtx_dequeuer *q)
{
	if (xtx_room_publish(q))
		xtx_room__wake_class(q->room);
}

_Static_assert(XTX_DEQ_BATCH <= XTX_SCHED_ABSORB, "a batch the scheduler can absorb");

/* One more batch than intake_batches while the stage is full, if the scheduler holds
 * less than XTX_DEQ_BACKLOG and can take a batch without meeting a limit: a dequeuer
 * that falls behind keeps its backlog in the scheduler, where priority and fairness
 * decide and leaves hold more than one packet each (a leaf that empties after every
 * packet costs an HTB activation per packet), not in the stage's FIFO. Never a drop
 * that intake_batches alone would not make. */
static inline int intake_more(const struct xtx_dequeuer *q, unsigned b)
{
	return b == q->intake && xtx_sched__qlen(q->sched) < XTX_DEQ_BACKLOG &&
	       xtx_sched__absorbs(q->sched);
}

/* Steps 1 and 2 over one batch, or up to intake_batches (and intake_more()) while the
 * stage keeps them full. Producers waiting for stage space are woken once wake_descs
 * were taken since the last wake, or when the stage ran empty after some were (room.h).
 * Returns how many were taken. */
static XTX_INTAKE_INLINE unsigned
intake_batches(struct xtx_dequeuer *q, struct xtx_desc *in, struct xtx_desc *drops,
	       uint64_t *txt, uint64_t now, int dropping)
{
	unsigned n = 0;

	for (unsigned b = 0, got = XTX_DEQ_BATCH;
	     got == XTX_DEQ_BATCH && (b < q->intake || intake_more(q, b)); b++) {
		got = intake(q, in, drops, txt, now, dropping);
		n += got;
		q->since_wake += got;
		if (!q->since_wake)
			break;
		if (got == XTX_DEQ_BATCH && q->since_wake < q->wake_descs)
			continue;
		wake_stage_room(q);
		if (!got)
			break;
	}
	return n;
}

/* At stop with drop (or past the deadline): everything the scheduler holds, back to the
 * pool. */
static void purge(struct xtx_dequeuer *q, struct xtx_desc *out)
{
	unsigned k;

	while ((k = xtx_sched__purge(q->sched, out, XTX_DEQ_BATCH)))
		for (unsigned i = 0; i < k; i++)
			recycle_pkt(q, &out[i]);
}

/* What CoDel dropped at dequeue (counted in its class), back to the pool. */
static void reclaim_dropped(struct xtx_dequeuer *q, struct xtx_desc *out)
{
	unsigned k;

	while ((k = xtx_sched__take_dropped(q->sched, out, XTX_DEQ_BATCH)))
		for (unsigned i = 0; i < k; i++)
			recycle_pkt(q, &out[i]);
}

/* opts.launch_time (txmd.h): each departure time of out[0..m) handed to the device, in
 * CLOCK_TAI. */
static void launch_times(struct xtx_dequeuer *q, struct xtx_desc *out, unsigned m,
			 uint64_t now)
{
	tai_refresh(q, now);
	for (unsigned i = 0; i < m; i++)
		if (out[i].addr & XTX_DESC_F_TXTIME)
			xtx_txmd_launch(xtx_frame_ptr(&q->fr, out[i].addr), q->tai_off,
					&out[i].addr);
}

/* Step 4: what may leave now, as much as the TX ring has room for and its limit lets it
 * hold (dql.h), in one reserve/submit. Returns how many were written; *next is the
 * scheduler's next departure (now when the ring is full or at its limit and the
 * scheduler has more). */
static unsigned transmit(struct xtx_dequeuer *q, struct xtx_desc *out, uint64_t now,
			 uint64_t *next)
{
	uint32_t room = xtx_txring__room(&q->ring, XTX_DEQ_BATCH), avail;
	int cut;
	unsigned m = 0;

	xtx_dql__look(&q->dql, now);
	avail = xtx_dql__avail(&q->dql, q->ring.outstanding);
	cut = avail < room;

	if (cut)
		room = avail;
	if (q->ring.mb)		/* each packet may take XTX_MB_MAX_SEGS descriptors */
		room /= XTX_MB_MAX_SEGS;
	if (room) {
		m = xtx_sched__dequeue_burst(q->sched, out, room, now, next);
		if (m) {
			uint64_t bytes, before = q->ring.outstanding;

			if (q->ts)	/* before launch_times() moves the departure time */
				xtx_ts_sample(q->ts, &q->fr, out, m, now);
			if (q->launch)
				launch_times(q, out, m, now);
			bytes = xtx_txring__write(&q->ring, out, m);
			CTR_ADD(q->ctr.tx_descs, q->ring.outstanding - before);
			if (q->ring.outstanding - before > m)
				CTR_ADD(q->ctr.chain_out, q->ring.outstanding - before - m);

			CTR_ADD(q->ctr.sent_pkts, m);
			CTR_ADD(q->ctr.sent_bytes, bytes);
		}
		reclaim_dropped(q, out);
		/* The limit is binding if this filled it and more is eligible now. */
		if (m == room && *next <= now && !xtx_dql__avail(&q->dql, q->ring.outstanding)) {
			xtx_dql__limited(&q->dql);
			CTR_SET(q->ctr.ring_limited, q->dql.limited);
		}
	} else if (xtx_sched__qlen(q->sched)) {
		if (!cut)
			CTR_ADD(q->ctr.tx_ring_full, 1);
		*next = now;
	}
	CTR_SET(q->ctr.ring_limit, q->dql.limit);
	return m;
}

/* The dequeuer's state across steps. */
struct deq_state {
	int dirty;		/* class counters changed since the last publication */
	int kick_rc;		/* last kick's result: retry at once only if it worked */
	uint64_t idle_since;	/* first step of the current idle stretch, 0 = busy */
	uint64_t next_reap;	/* XTX_REAP_NS apart */
};

/* A step that moved nothing: give back what we hold (and wake producers whatever the pool
 * holds), publish the counters, then nap, poll or sleep on the stage's ticket until the
 * scheduler's next departure `next`. Returns to take the next step. */
static void idle(struct xtx_dequeuer *q, struct deq_state *s, uint32_t ticket, uint64_t now,
		 uint64_t next, int stopping)
{
	flush_recycle(q, 1);
	/* Stage space not woken for yet (since_wake), or producers that wait with frames:
	 * idle wakes them all. */
	wake_stage_room(q);
	if (s->dirty) {
		publish_classes(q, now);
		s->dirty = 0;
	}
	if (q->ring.outstanding && xtx_txring__unread(&q->ring) && !s->kick_rc &&
	    xtx_txring__needs_kick(&q->ring))
		return;	/* copy mode sends at most 32 frames per sendto: kick again */
	/* Adaptive poll: stay awake for XTX_IDLE_POLL_NS before sleeping. Under load the
	 * stage is empty only for moments; sleeping then costs a futex wake in the
	 * producer and two context switches per refill (docs/bench/engine.notes.md),
	 * and the sleep's retirement of the stage's lanes a membarrier() (an IPI to
	 * every CPU running a producer). */
	if (!s->idle_since)
		s->idle_since = now;
	if (now - s->idle_since < XTX_IDLE_POLL_NS && !stopping) {
		sched_yield();	/* let a producer on this CPU run */
		return;
	}
	if (q->ring.outstanding) {
		/* Waiting for completions only (zero-copy: the driver's NAPI). */
		xtx_mpsc__wait_ticket(q->stage, ticket, 20 * 1000);
		return;
	}
	uint64_t timeout = next == UINT64_MAX ? UINT64_MAX : next > now ? next - now : 0;
	if (stopping && timeout > 1000 * 1000)
		timeout = 1000 * 1000;
	/* While producers are open, wake for the next reap: a dead one may hold the
	 * frames that the others wait for. */
	if (q->reaper && xtx_registry__open_hint(q->reaper) &&
	    timeout > s->next_reap - now)
		timeout = s->next_reap > now ? s->next_reap - now : 0;
	if (!timeout)
		return;
	CTR_ADD(q->ctr.sleeps, 1);
	xtx_mpsc__wait_ticket(q->stage, ticket, timeout);
}

/* Run the tree the engine published (xtx_engine__classes_change()), between two steps;
 * then its room states and counters, and clear the request. */
/* A tree adopted (change.c's rebuild): the new scheduler takes the old one's state; the
 * counters of classes that end go to the queue's (its drop counts stay in
 * xtx_queue_stats); freed slots get zero counters and no room limit. */
static void adopt(struct xtx_dequeuer *q, struct xtx_deq_change *c, struct xtx_desc *out,
		  uint64_t now)
{
	struct xtx_sched *from = q->sched;
	_Atomic uint64_t *m;
	int rc;

	reclaim_dropped(q, out);	/* adopt() moves queued packets, not CoDel's drops */
	rc = xtx_sched__adopt(c->to, from, now);
	if (rc < 0) {
		c->rc = rc;
		return;
	}
	for (unsigned i = 0; i < c->ngone; i++) {
		struct xtx_class_stats st;

		xtx_sched__class_stats(from, c->gone[i], &st);
		for (unsigned r = 0; r < XTX_DROP__MAX; r++)
			CTR_ADD(q->ctr.drops[r], st.drops[r]);
	}
	/* Acquire, pairs with the release store in xtx_engine__room_mirror(). */
	m = atomic_load_explicit(&q->mirror, memory_order_acquire);
	for (unsigned i = 0; i < c->nfreed; i++) {
		uint32_t k = c->freed[i];

		/* Relaxed: a hint for producers (xtx_room_publish()). */
		atomic_store_explicit(&q->cls_room[k], XTX_ROOM_NOLIMIT, memory_order_relaxed);
		if (m)	/* Relaxed: a hint for the XDP program */
			atomic_store_explicit(&m[(size_t)q->idx * q->nslots + k], XTX_ROOM_NOLIMIT,
					      memory_order_relaxed);
	}
	q->sched = c->to;
	c->old = from;
	c->moved = (unsigned)rc;
	CTR_ADD(q->ctr.moved, (uint64_t)rc);
}

static void take_change(struct xtx_dequeuer *q, struct xtx_deq_change *c, struct xtx_desc *out,
			uint64_t now)
{
	c->rc = 0;
	if (c->to)
		adopt(q, c, out, now);
	else
		c->rc = xtx_sched__change(q->sched, c->cfg, now, NULL, 0);
	publish_room(q);
	publish_classes_freed(q, now, c->rc ? 0 : c->nfreed, c->freed);
	/* Release, pairs with the engine's acquire load in run_change() (change.c): what
	 * the thread wrote in c, and the scheduler's new state, are its before the engine
	 * reads them or frees what c points to. */
	atomic_store_explicit(&q->change, NULL, memory_order_release);
}

void *xtx_dequeuer_main(void *arg)
{
	struct xtx_dequeuer *q = arg;
	struct xtx_desc in[XTX_DEQ_BATCH], out[XTX_DEQ_BATCH], drops[XTX_DEQ_BATCH];
	uint64_t txt[XTX_DEQ_BATCH];
	struct deq_state s = { .next_reap = xtx_now_ns() + XTX_REAP_NS };

	dequeuer_setup(q);
	for (;;) {
		/* The stage's sleep ticket, taken before the stop flag is read: a kick from
		 * xtx_engine__stop() after this point makes the sleep below return at once. */
		uint32_t ticket = xtx_mpsc__wait_prepare(q->stage);
		/* Acquire, pairs with the release stores of stop in xtx_engine__stop() and
		 * stop_threads() (engine.c): the deadline and drop flag written before it
		 * are visible. */
		int stopping = atomic_load_explicit(&q->ctl->stop, memory_order_acquire);
		uint64_t now = xtx_now_ns(), next = UINT64_MAX;
		int dropping = stopping && (atomic_load_explicit(&q->ctl->drop, memory_order_relaxed) ||
					    now >= q->ctl->deadline_ns);
		unsigned n, m;
		/* Acquire, pairs with the release store in run_change() (change.c): the
		 * request and what it points to are complete. */
		struct xtx_deq_change *chg = atomic_load_explicit(&q->change,
								  memory_order_acquire);

		if (__builtin_expect(chg != NULL, 0))
			take_change(q, chg, out, now);
		CTR_ADD(q->ctr.loops, 1);
		n = intake_batches(q, in, drops, txt, now, dropping);
		if (dropping)
			purge(q, out);
		reap(q, now);
		m = transmit(q, out, now, &next);
		if (n || m || dropping)
			publish_room(q);
		if (xtx_txring__needs_kick(&q->ring))
			s.kick_rc = kick(q, now);
		s.dirty |= n || m;
		if (s.dirty && now - q->snap_last_ns >= 10 * 1000 * 1000) {
			publish_classes(q, now);
			s.dirty = 0;
		}

		if (q->reaper && now >= s.next_reap) {
			if (xtx_registry__open_hint(q->reaper))
				xtx_registry__reap(q->reaper, 1);
			s.next_reap = now + XTX_REAP_NS;
		}
		if (stopping && !n && !xtx_sched__qlen(q->sched) && !q->ring.outstanding)
			break;
		if (stopping && now >= q->ctl->deadline_ns + 1000ull * 1000 * 1000)
			break;	/* completions never came (link down): give up, counted as tx */
		if (n || m) {
			s.idle_since = 0;
			continue;
		}
		idle(q, &s, ticket, now, next, stopping);
	}
	flush_recycle(q, 1);
	publish_classes(q, xtx_now_ns());
	return NULL;
}
