/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/bench/stats.h - what the benchmarks report of the K runs of one configuration:
 * the median and the spread (max - min). A run that failed has a negative result. */
#ifndef XTX_BENCH_STATS_H
#define XTX_BENCH_STATS_H

#include <stdlib.h>

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v[0..n) (n >= 1). *med: the median (the mean of the middle two for an even n);
 * *spr: max - min, or -1 when a run failed. */
static inline void bench_median_spread(double *v, unsigned n, double *med, double *spr)
{
	qsort(v, n, sizeof(double), bench_cmp_double);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*spr = v[0] < 0 ? -1 : v[n - 1] - v[0];
}

#endif /* XTX_BENCH_STATS_H */
