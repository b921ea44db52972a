/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/run.c - see run.h. */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "run.h"

/* Set by the main thread (signal, deadline) or a failing sender; polled by senders.
 * Relaxed: a plain stop request, no data is published through it. */
static _Atomic bool stop_flag;
/* Senders that finished. Relaxed: only lets the main thread stop waiting early; their
 * results are read after pthread_join, which orders them. */
static _Atomic unsigned done_count;
static pthread_barrier_t start_barrier;
static sigset_t sigs;
static unsigned nthreads;

void run_block_signals(unsigned n)
{
	nthreads = n;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	pthread_barrier_init(&start_barrier, NULL, n + 1);
}

int run_spawn(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int e;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	e = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return e;
}

void run_watch(struct run_watch *w)
{
	uint64_t next_tick = w->t0 + 1000000000ull, last_t = w->t0, last_sent = 0;

	pthread_barrier_wait(&start_barrier);
	while (atomic_load_explicit(&done_count, memory_order_relaxed) < nthreads) {
		uint64_t t = cli_now_ns(CLOCK_MONOTONIC), wait = 50000000;	/* 50 ms */
		struct timespec ts;

		if (t >= w->deadline && !run_stopping()) {
			run_stop();
			w->timed_out = w->count;
		}
		if (t >= next_tick) {
			uint64_t sum = 0;

			for (unsigned i = 0; i < w->n; i++)
				/* Relaxed: a statistic; each sender's final count is read after
				 * pthread_join. */
				sum += atomic_load_explicit((const _Atomic uint64_t *)
							    ((const char *)w->progress +
							     i * w->stride), memory_order_relaxed);

			if (!w->quiet)
				fprintf(stderr, "%s: %6.1f s  %10.0f pps  %8.3f Gbit/s\n",
					cli_get_prog(), (double)(t - w->t0) / 1e9,
					(double)(sum - last_sent) * 1e9 / (double)(t - last_t),
					(double)(sum - last_sent) * w->frame_bytes * 8 /
						(double)(t - last_t));
			last_sent = sum;
			last_t = t;
			next_tick += 1000000000ull;
		}
		if (next_tick > t && next_tick - t < wait)
			wait = next_tick - t;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)wait;
		if (sigtimedwait(&sigs, NULL, &ts) > 0) {
			w->interrupted = true;
			run_stop();
		}
	}
}

void run_sender_begin(struct run_sender *s)
{
	run_wait_start();
	s->cpu0 = cli_now_ns(CLOCK_THREAD_CPUTIME_ID);
	s->t_start = cli_now_ns(CLOCK_MONOTONIC);
}

void run_sender_end(struct run_sender *s)
{
	s->t_end = cli_now_ns(CLOCK_MONOTONIC);
	s->cpu_ns = cli_now_ns(CLOCK_THREAD_CPUTIME_ID) - s->cpu0;
}

void run_join(pthread_t *tid, unsigned n, const struct run_sender *first, size_t stride,
	      struct run_total *tot)
{
	uint64_t tmin = UINT64_MAX, tmax = 0;

	memset(tot, 0, sizeof(*tot));
	for (unsigned i = 0; i < n; i++) {
		const struct run_sender *s = (const struct run_sender *)(const void *)
					     ((const char *)first + (size_t)i * stride);

		pthread_join(tid[i], NULL);
		tot->sent += s->sent;
		tot->cpu_ns += s->cpu_ns;
		tmin = s->t_start < tmin ? s->t_start : tmin;
		tmax = s->t_end > tmax ? s->t_end : tmax;
		tot->fatal |= s->err != 0;
	}
	tot->dur = tmax > tmin ? (double)(tmax - tmin) / 1e9 : 0;
}

void run_print_rates(uint64_t sent, uint32_t frame_bytes, double dur, uint64_t cpu_ns,
		     const char *unit)
{
	printf("  rate        %.0f pps, %.3f Gbit/s (frames without FCS)\n",
	       dur > 0 ? (double)sent / dur : 0.0,
	       dur > 0 ? (double)sent * frame_bytes * 8 / dur / 1e9 : 0.0);
	printf("  cpu         %.1f ns per %s (sender threads)\n",
	       sent ? (double)cpu_ns / (double)sent : 0.0, unit);
}

void run_wait_start(void)
{
	pthread_barrier_wait(&start_barrier);
}

bool run_stopping(void)
{
	/* Relaxed: see stop_flag. */
	return atomic_load_explicit(&stop_flag, memory_order_relaxed);
}

void run_stop(void)
{
	/* Relaxed: see stop_flag. */
	atomic_store_explicit(&stop_flag, true, memory_order_relaxed);
}

void run_done(void)
{
	/* Relaxed: see done_count. */
	atomic_fetch_add_explicit(&done_count, 1, memory_order_relaxed);
}
