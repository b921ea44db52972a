/* SPDX-License-Identifier: BSD-3-Clause */
/* clock.h - the library's clock (internal to libxtx): CLOCK_MONOTONIC in nanoseconds, the
 * clock of departure times (XTX_DESC_F_TXTIME) and of every deadline. */
#ifndef XTX_CLOCK_H
#define XTX_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t xtx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's CPU time in nanoseconds. */
static inline uint64_t xtx_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* XTX_CLOCK_H */
