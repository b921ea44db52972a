/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/run.h - the run of the baseline senders (pkt-send, udp-send, xsk-plain):
 * N sender threads pinned to their CPUs start together, send until they are done or told
 * to stop; the main thread takes SIGINT/SIGTERM synchronously, stops them at the
 * deadline and prints a line per second from their progress counters.
 *
 *   main:    run_block_signals(); run_spawn() each sender; t0, deadline
 *            (traffic_watch_init()); run_watch(); run_join(); run_print_rates() in the
 *            summary (traffic_run() does all but the last)
 *   sender:  run_sender_begin(); loop while !run_stopping(), run_batch() frames at a
 *            time; run_stop() on a fatal error; run_sender_end(), run_done() last
 */
#ifndef XTX_TOOLS_RUN_H
#define XTX_TOOLS_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Main thread, first: SIGINT and SIGTERM are then taken by run_watch() only (threads
 * created after this inherit the blocked mask). n: the sender threads to come. */
void run_block_signals(unsigned n);
/* Start fn(arg) pinned to cpu; 0 or an errno value. The thread waits in
 * run_wait_start() until run_watch() starts. */
int run_spawn(pthread_t *t, int cpu, void *(*fn)(void *), void *arg);

struct run_watch {
	uint64_t t0, deadline;		/* CLOCK_MONOTONIC ns; deadline: stop then */
	bool count;			/* a --count run: the deadline is a timeout */
	uint32_t frame_bytes;		/* for the Gbit/s of the per-second line */
	bool quiet;			/* no per-second line */
	/* Frames sent so far: the sum of n counters, the first at progress, each next one
	 * stride bytes further (a field of each sender's struct in an array). */
	const _Atomic uint64_t *progress;
	size_t stride;
	unsigned n;
	/* out */
	bool interrupted;		/* stopped by a signal */
	bool timed_out;			/* a --count run hit its deadline */
};
/* Release the senders, then wait until every one called run_done(). */
void run_watch(struct run_watch *w);

/* What every sender has in common: the first member of each tool's struct sender, so
 * that an array of those is an array of these at a stride (the struct's size). Set up by
 * the main thread before the start (cpu, limited, quota, deadline), then the sender's
 * own until it is joined. */
struct run_sender {
	uint32_t i;			/* index: thread or queue number */
	int cpu;			/* pinned to */
	bool limited;			/* --count: stop at quota (may be 0) */
	uint64_t quota;			/* frames to send if limited */
	uint64_t deadline;		/* the run's (run_watch.deadline), CLOCK_MONOTONIC ns */
	/* --- results, read after the join --- */
	uint64_t sent;			/* frames counted as sent (each tool says when) */
	uint64_t calls;			/* send calls made */
	uint64_t cpu_ns;		/* the thread's CPU time from begin to end */
	uint64_t t_start, t_end;	/* CLOCK_MONOTONIC ns at begin and end */
	int err;			/* a fatal error (errno or -errno, the tool's) or 0 */
	uint64_t cpu0;			/* CPU time at begin */
	/* --- read by the main thread while running --- */
	/* Relaxed: a statistic for the per-second line; final values are read after
	 * pthread_join, which orders them. */
	_Alignas(64) _Atomic uint64_t progress;
};

/* Sender thread: run_wait_start(), then the start time and CPU clock. */
void run_sender_begin(struct run_sender *s);
/* Sender thread: the end time and CPU time. */
void run_sender_end(struct run_sender *s);

/* Frames to send next: batch, cut to what is left of a --count quota after done; 0 when
 * the quota is reached. */
static inline uint32_t run_batch(const struct run_sender *s, uint32_t batch, uint64_t done)
{
	if (s->limited && batch > s->quota - done)
		return (uint32_t)(s->quota - done);
	return batch;
}

/* n more frames sent: counted, and published for the per-second line. */
static inline void run_sent(struct run_sender *s, uint64_t n)
{
	s->sent += n;
	atomic_store_explicit(&s->progress, s->sent, memory_order_relaxed);	/* see progress */
}

/* The senders' sums once all are joined. */
struct run_total {
	uint64_t sent, cpu_ns;		/* sums */
	double dur;			/* first start to last end, seconds */
	bool fatal;			/* a sender ended with an error */
};
/* Join the n senders first[0..n) (stride bytes apart) and sum their results. */
void run_join(pthread_t *tid, unsigned n, const struct run_sender *first, size_t stride,
	      struct run_total *tot);
/* The sender at index i of an array that starts at first, stride bytes apart. */
static inline struct run_sender *run_sender_at(struct run_sender *first, size_t stride,
					       unsigned i)
{
	return (struct run_sender *)(void *)((char *)first + (size_t)i * stride);
}

/* The summary's rate and CPU lines: pps and Gbit/s of sent frames of frame_bytes in dur
 * seconds, and the senders' CPU ns per unit sent ("frame", "datagram", "packet"). */
void run_print_rates(uint64_t sent, uint32_t frame_bytes, double dur, uint64_t cpu_ns,
		     const char *unit);

/* Sender threads. */
void run_wait_start(void);
bool run_stopping(void);
void run_stop(void);
void run_done(void);

#endif /* XTX_TOOLS_RUN_H */
