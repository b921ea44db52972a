/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/run.h - the run of the baseline senders (pkt-send, udp-send, xsk-plain):
 * N sender threads pinned to their CPUs start together, send until they are done or told
 * to stop; the main thread takes SIGINT/SIGTERM synchronously, stops them at the
 * deadline and prints a line per second from their progress counters.
 *
 *   main:    run_block_signals(); run_spawn() each sender; t0, deadline
 *            (traffic_watch_init()); run_watch(); run_print_rates() in the summary
 *   sender:  run_wait_start(); loop while !run_stopping(); run_stop() on a fatal error;
 *            run_done() last
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
