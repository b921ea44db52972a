/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pool.c - the free-frame pool (userspace/engine/pool.h): every frame put is got back
 * exactly once, the frame counter follows, and the container count the engine gives
 * (nframes / XTX_BATCH + 2 + 2 * threads) is never exhausted, however small the batches:
 *
 *   1. table: puts of every size 1..64, gets of every max 1..64, checked against a model;
 *   2. the pattern that exhausted containers before partial batches were merged: the
 *      whole pool taken, then given back one frame per put;
 *   3. threads doing random gets and puts of random sizes (also under TSan), then a
 *      check that every frame is in the pool exactly once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "check.h"

#define NFRAMES		6400
#define THREADS		4

static uint32_t nbatches(uint32_t nframes, unsigned threads)
{
	return nframes / XTX_BATCH + 2 + 2 * threads;	/* what engine.c gives */
}

/* Takes everything out; checks each frame 0..n-1 is there exactly once. */
static void drain_check(struct xtx_pool *p, uint32_t n, const char *what)
{
	uint8_t *seen = calloc(n, 1);
	uint64_t b[XTX_BATCH];
	uint32_t k, got = 0, dup = 0, bad = 0;

	while ((k = xtx_pool__get(p, b, XTX_BATCH))) {
		for (uint32_t i = 0; i < k; i++) {
			if (b[i] >= n)
				bad++;
			else if (seen[b[i]]++)
				dup++;
		}
		got += k;
	}
	if (!CHECK_EQ_U64(n, got) || !CHECK_EQ_U64(0, dup) || !CHECK_EQ_U64(0, bad))
		fprintf(stderr, "    in %s\n", what);
	CHECK_EQ_I64(0, atomic_load(&p->frames));
	free(seen);
}

static void fill(struct xtx_pool *p, uint32_t n)
{
	uint64_t b[XTX_BATCH];

	for (uint32_t f = 0; f < n; f += XTX_BATCH) {
		uint32_t k = n - f < XTX_BATCH ? n - f : XTX_BATCH;

		for (uint32_t i = 0; i < k; i++)
			b[i] = f + i;
		CHECK_EQ_I64(0, xtx_pool__put(p, b, k));
	}
}

static void test_table(void)
{
	struct xtx_pool p;
	uint64_t b[XTX_BATCH], hold[NFRAMES];
	uint32_t nh = 0;

	CHECK_EQ_I64(0, xtx_pool__init(&p, nbatches(NFRAMES, 1)));
	fill(&p, NFRAMES);
	CHECK_EQ_I64(NFRAMES, atomic_load(&p.frames));
	/* Gets of every max, puts of every size, in a fixed interleaving. */
	for (uint32_t round = 0; round < 20; round++) {
		for (uint32_t m = 1; m <= XTX_BATCH; m++) {
			uint32_t k = xtx_pool__get(&p, b, m);

			CHECK(k >= 1 && k <= m);
			memcpy(hold + nh, b, k * sizeof(*b));
			nh += k;
		}
		for (uint32_t s = 1; s <= XTX_BATCH && nh; s++) {
			uint32_t k = s < nh ? s : nh;

			nh -= k;
			CHECK_EQ_I64(0, xtx_pool__put(&p, hold + nh, k));
		}
		CHECK_EQ_I64(NFRAMES - nh, atomic_load(&p.frames));
	}
	while (nh) {
		uint32_t k = nh < 7 ? nh : 7;

		nh -= k;
		CHECK_EQ_I64(0, xtx_pool__put(&p, hold + nh, k));
	}
	drain_check(&p, NFRAMES, "table");
	xtx_pool__fini(&p);
}

static void test_one_by_one(void)
{
	static uint64_t all[NFRAMES];
	struct xtx_pool p;
	uint32_t n = 0, k;

	CHECK_EQ_I64(0, xtx_pool__init(&p, nbatches(NFRAMES, 1)));
	fill(&p, NFRAMES);
	while ((k = xtx_pool__get(&p, all + n, XTX_BATCH)))
		n += k;
	CHECK_EQ_U64(NFRAMES, n);
	/* 6400 puts of one frame each: a container per put without merging. */
	for (uint32_t i = 0; i < NFRAMES; i++)
		if (!CHECK_EQ_I64(0, xtx_pool__put(&p, &all[i], 1)))
			break;
	CHECK_EQ_I64(NFRAMES, atomic_load(&p.frames));
	/* Mixed: halves of partial sizes, with gets of small max (splits) between. */
	drain_check(&p, NFRAMES, "one by one");
	fill(&p, NFRAMES);
	n = 0;
	while ((k = xtx_pool__get(&p, all + n, 3)))
		n += k;
	CHECK_EQ_U64(NFRAMES, n);
	for (uint32_t i = 0; i < NFRAMES; i += 2)
		CHECK_EQ_I64(0, xtx_pool__put(&p, &all[i], 2));
	drain_check(&p, NFRAMES, "gets of 3, puts of 2");
	xtx_pool__fini(&p);
}

/* --- threads --------------------------------------------------------------------------- */

static struct xtx_pool tp;
static _Atomic uint64_t enospc;

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void *worker(void *arg)
{
	uint32_t seed = (uint32_t)(uintptr_t)arg * 7919u + 1, nh = 0;
	uint64_t hold[4 * XTX_BATCH];

	for (int it = 0; it < 200000; it++) {
		if (nh + XTX_BATCH <= 4 * XTX_BATCH && rnd(&seed) % 2) {
			nh += xtx_pool__get(&tp, hold + nh, 1 + rnd(&seed) % XTX_BATCH);
		} else if (nh) {
			uint32_t k = 1 + rnd(&seed) % XTX_BATCH;

			k = k < nh ? k : nh;
			nh -= k;
			if (xtx_pool__put(&tp, hold + nh, k))
				atomic_fetch_add(&enospc, 1);
		}
	}
	while (nh) {
		uint32_t k = nh < XTX_BATCH ? nh : XTX_BATCH;

		nh -= k;
		if (xtx_pool__put(&tp, hold + nh, k))
			atomic_fetch_add(&enospc, 1);
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[THREADS];

	/* Few frames: the pool runs dry often, so every path is taken. */
	CHECK_EQ_I64(0, xtx_pool__init(&tp, nbatches(1024, THREADS)));
	fill(&tp, 1024);
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_U64(0, atomic_load(&enospc));
	CHECK_EQ_I64(1024, atomic_load(&tp.frames));
	drain_check(&tp, 1024, "threads");
	xtx_pool__fini(&tp);
}

int main(void)
{
	test_table();
	test_one_by_one();
	test_threads();
	return check_summary("test_pool");
}
