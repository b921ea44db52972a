/* SPDX-License-Identifier: BSD-3-Clause */
/* test_mpsc.c - unit tests of the MPSC stage at every API edge, single-threaded except
 * where a second thread is the point (wait/kick, register while others run). */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <xtx/mpsc.h>
#include "check.h"

static struct xtx_desc mk(uint64_t seq, uint32_t prod)
{
	return (struct xtx_desc){ .addr = seq, .hash = prod, .len = 64, .cls = 0 };
}

static struct xtx_mpsc *mk_stage(uint32_t lanes, uint32_t size, uint32_t quota)
{
	struct xtx_mpsc_opts o = { .sz = sizeof(o), .lanes = lanes, .lane_size = size,
				   .quota = quota, .numa_node = -1 };
	struct xtx_mpsc *s = xtx_mpsc__create(&o);

	if (!CHECK(s != NULL))
		exit(1);
	return s;
}

static void test_create_errors(void)
{
	static const struct { uint32_t lanes, size; size_t sz; int err; } bad[] = {
		{ 4097, 64, sizeof(struct xtx_mpsc_opts), EINVAL },	/* too many lanes */
		{ 4, 100, sizeof(struct xtx_mpsc_opts), EINVAL },	/* not a power of 2 */
		{ 4, 1, sizeof(struct xtx_mpsc_opts), EINVAL },		/* too small */
		{ 4, 1u << 25, sizeof(struct xtx_mpsc_opts), EINVAL },	/* too large */
		{ 4, 64, 8, EINVAL },					/* sz too small */
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct xtx_mpsc_opts o = { .sz = bad[i].sz, .lanes = bad[i].lanes,
					   .lane_size = bad[i].size, .numa_node = -1 };
		errno = 0;
		CHECK(xtx_mpsc__create(&o) == NULL);
		CHECK_EQ_I64(bad[i].err, errno);
	}
	struct xtx_mpsc *s = xtx_mpsc__create(NULL);	/* defaults */
	CHECK(s != NULL);
	xtx_mpsc__destroy(s);
	xtx_mpsc__destroy(NULL);
}

static void test_empty_full_wrap(void)
{
	struct xtx_mpsc *s = mk_stage(2, 8, 64);
	struct xtx_mpsc_prod *p = xtx_mpsc__register(s);
	struct xtx_desc in[20], out[20];
	uint64_t next_in = 0, next_out = 0;

	CHECK(p != NULL);
	CHECK_EQ_U64(0, xtx_mpsc__dequeue_burst(s, out, 20));	/* empty */
	for (int i = 0; i < 20; i++)
		in[i] = mk(next_in + (uint64_t)i, 0);
	/* Full: 8 slots, a burst of 10 gets 8; then 0. */
	CHECK_EQ_U64(8, xtx_mpsc__enqueue_burst(p, in, 10));
	next_in = 8;
	CHECK_EQ_U64(0, xtx_mpsc__enqueue(p, &in[8]));
	/* Partial drain, then wrap-around many times with odd sizes. */
	for (int round = 0; round < 100; round++) {
		unsigned take = 1 + (unsigned)round % 7, got, put;

		got = xtx_mpsc__dequeue_burst(s, out, take);
		CHECK_EQ_U64(take, got);
		for (unsigned i = 0; i < got; i++)
			CHECK_EQ_U64(next_out++, out[i].addr);
		for (unsigned i = 0; i < take; i++)
			in[i] = mk(next_in + i, 0);
		put = xtx_mpsc__enqueue_burst(p, in, take);
		CHECK_EQ_U64(take, put);
		next_in += put;
	}
	/* Drain the rest in one call. */
	unsigned got = xtx_mpsc__dequeue_burst(s, out, 20);
	CHECK_EQ_U64(8, got);
	for (unsigned i = 0; i < got; i++)
		CHECK_EQ_U64(next_out++, out[i].addr);
	CHECK_EQ_U64(next_in, next_out);

	struct xtx_mpsc_stats st;
	xtx_mpsc__stats(s, &st);
	CHECK_EQ_U64(next_in, st.enq_items);
	CHECK_EQ_U64(next_out, st.deq_items);
	CHECK(st.full_events >= 2);
	CHECK_EQ_U64(1, st.lanes_owned);
	xtx_mpsc__unregister(p);
	xtx_mpsc__destroy(s);
}

/* Every burst size 1..capacity, both ways, across the wrap point. */
static void test_burst_sizes(void)
{
	enum { CAP = 64 };
	struct xtx_mpsc *s = mk_stage(1, CAP, CAP);
	struct xtx_mpsc_prod *p = xtx_mpsc__register(s);
	struct xtx_desc in[CAP], out[CAP];
	uint64_t seq = 0, want = 0;

	for (unsigned b = 1; b <= CAP; b++) {
		for (unsigned i = 0; i < b; i++)
			in[i] = mk(seq + i, 0);
		CHECK_EQ_U64(b, xtx_mpsc__enqueue_burst(p, in, b));
		seq += b;
		unsigned got = xtx_mpsc__dequeue_burst(s, out, b);
		CHECK_EQ_U64(b, got);
		for (unsigned i = 0; i < got; i++)
			if (!CHECK_EQ_U64(want, out[i].addr))
				break;
			else
				want++;
	}
	CHECK_EQ_U64(0, xtx_mpsc__dequeue_burst(s, out, CAP));
	xtx_mpsc__unregister(p);
	xtx_mpsc__destroy(s);
}

/* Round robin with a quota: three busy lanes, quota 4, dequeue 12 -> 4 from each. */
static void test_fair_quota(void)
{
	struct xtx_mpsc *s = mk_stage(8, 64, 4);
	struct xtx_mpsc_prod *p[3];
	struct xtx_desc in[32], out[64];
	unsigned per[3] = { 0 };

	for (int k = 0; k < 3; k++) {
		p[k] = xtx_mpsc__register(s);
		for (int i = 0; i < 32; i++)
			in[i] = mk((uint64_t)i, (uint32_t)k);
		CHECK_EQ_U64(32, xtx_mpsc__enqueue_burst(p[k], in, 32));
	}
	CHECK_EQ_U64(12, xtx_mpsc__dequeue_burst(s, out, 12));
	for (int i = 0; i < 12; i++)
		per[out[i].hash]++;
	for (int k = 0; k < 3; k++)
		CHECK_EQ_U64(4, per[k]);
	/* Small bursts still rotate: 1 item per call takes from each lane in turn. */
	uint32_t last = 99;
	for (int i = 0; i < 6; i++) {
		CHECK_EQ_U64(1, xtx_mpsc__dequeue_burst(s, out, 1));
		CHECK(out[0].hash != last);
		last = out[0].hash;
	}
	/* The rest, FIFO per producer: the 12-item call took 4 from each lane and the six
	 * 1-item calls rotated over the three lanes, 2 from each. */
	uint64_t next[3] = { 6, 6, 6 };
	unsigned got, total = 18;
	while ((got = xtx_mpsc__dequeue_burst(s, out, 64)) > 0) {
		for (unsigned i = 0; i < got; i++)
			CHECK_EQ_U64(next[out[i].hash]++, out[i].addr);
		total += got;
	}
	CHECK_EQ_U64(96, total);
	for (int k = 0; k < 3; k++)
		xtx_mpsc__unregister(p[k]);
	xtx_mpsc__destroy(s);
}

/* Register until EBUSY; a lane comes back only after the consumer drained it. */
static void test_register_reuse(void)
{
	struct xtx_mpsc *s = mk_stage(2, 8, 64);
	struct xtx_mpsc_prod *a = xtx_mpsc__register(s), *b = xtx_mpsc__register(s);
	struct xtx_desc d = mk(7, 0), out[8];

	CHECK(a && b && a != b);
	errno = 0;
	CHECK(xtx_mpsc__register(s) == NULL);
	CHECK_EQ_I64(EBUSY, errno);
	CHECK_EQ_U64(1, xtx_mpsc__enqueue(a, &d));
	xtx_mpsc__unregister(a);
	/* Not drained yet: still no free lane. */
	CHECK(xtx_mpsc__register(s) == NULL);
	/* The item of the closed lane is delivered, then the lane is freed. */
	CHECK_EQ_U64(1, xtx_mpsc__dequeue_burst(s, out, 8));
	CHECK_EQ_U64(7, out[0].addr);
	CHECK_EQ_U64(0, xtx_mpsc__dequeue_burst(s, out, 8));
	struct xtx_mpsc_prod *c = xtx_mpsc__register(s);
	CHECK(c == a);
	/* The reused lane works and starts armed: the consumer finds it. */
	d = mk(8, 0);
	CHECK_EQ_U64(1, xtx_mpsc__enqueue(c, &d));
	CHECK_EQ_U64(1, xtx_mpsc__dequeue_burst(s, out, 8));
	CHECK_EQ_U64(8, out[0].addr);
	CHECK_EQ_U64(0, xtx_mpsc_prod__index(c) == xtx_mpsc_prod__index(b));
	xtx_mpsc__unregister(b);
	xtx_mpsc__unregister(c);
	CHECK_EQ_U64(0, xtx_mpsc__dequeue_burst(s, out, 8));
	struct xtx_mpsc_stats st;
	xtx_mpsc__stats(s, &st);
	CHECK_EQ_U64(0, st.lanes_owned);
	xtx_mpsc__destroy(s);
}

/* An idle lane is retired after idle_visits empty visits and rings again when it
 * refills; a busy lane never rings. */
static void test_doorbell_hysteresis(void)
{
	struct xtx_mpsc_opts o = { .sz = sizeof(o), .lanes = 4, .lane_size = 64,
				   .idle_visits = 4, .numa_node = -1 };
	struct xtx_mpsc *s = xtx_mpsc__create(&o);
	struct xtx_mpsc_prod *p = xtx_mpsc__register(s);
	struct xtx_desc d = mk(0, 0), out[4];
	struct xtx_mpsc_stats st;

	CHECK_EQ_U64(1, xtx_mpsc__enqueue(p, &d));
	xtx_mpsc__stats(s, &st);
	CHECK_EQ_U64(1, st.rings);		/* first enqueue rings */
	for (int i = 1; i < 50; i++) {	/* busy: enqueue and dequeue alternate */
		CHECK_EQ_U64(1, xtx_mpsc__dequeue_burst(s, out, 4));
		d = mk((uint64_t)i, 0);
		CHECK_EQ_U64(1, xtx_mpsc__enqueue(p, &d));
	}
	xtx_mpsc__stats(s, &st);
	CHECK_EQ_U64(1, st.rings);		/* no ring while watched */
	CHECK_EQ_U64(1, xtx_mpsc__dequeue_burst(s, out, 4));
	for (int i = 0; i < 4; i++)		/* idle visits retire the lane */
		CHECK_EQ_U64(0, xtx_mpsc__dequeue_burst(s, out, 4));
	xtx_mpsc__stats(s, &st);
	CHECK_EQ_U64(0, st.lanes_busy);
	d = mk(50, 0);
	CHECK_EQ_U64(1, xtx_mpsc__enqueue(p, &d));
	xtx_mpsc__stats(s, &st);
	CHECK_EQ_U64(2, st.rings);		/* refill rings again */
	CHECK_EQ_U64(1, xtx_mpsc__dequeue_burst(s, out, 4));
	CHECK_EQ_U64(50, out[0].addr);
	xtx_mpsc__unregister(p);
	xtx_mpsc__destroy(s);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct waker { struct xtx_mpsc *s; int mode; };	/* mode 0: enqueue, 1: kick */

static void *waker_main(void *arg)
{
	struct waker *w = arg;

	usleep(50 * 1000);
	if (w->mode == 0) {
		struct xtx_mpsc_prod *p = xtx_mpsc__register(w->s);
		struct xtx_desc d = mk(42, 1);
		CHECK_EQ_U64(1, xtx_mpsc__enqueue(p, &d));
		xtx_mpsc__unregister(p);
	} else {
		xtx_mpsc__kick(w->s);
	}
	return NULL;
}

static void test_wait(int busy_poll)
{
	struct xtx_mpsc_opts o = { .sz = sizeof(o), .lanes = 4, .lane_size = 64,
				   .numa_node = -1, .busy_poll = busy_poll };
	struct xtx_mpsc *s = xtx_mpsc__create(&o);
	struct xtx_desc out[4];
	struct xtx_mpsc_stats st;
	uint64_t t0;

	/* Timeout when nothing happens (lower bound only: no wall-clock upper bound). */
	t0 = now_ns();
	CHECK_EQ_I64(-ETIMEDOUT, xtx_mpsc__wait(s, 20 * 1000 * 1000));
	CHECK(now_ns() - t0 >= 19 * 1000 * 1000);

	/* A producer's first enqueue wakes a sleeping consumer. */
	for (int mode = 0; mode < 2; mode++) {
		struct waker w = { s, mode };
		pthread_t th;
		int r;

		pthread_create(&th, NULL, waker_main, &w);
		do
			r = xtx_mpsc__wait(s, 10ull * 1000 * 1000 * 1000);
		while (r == -EINTR);
		CHECK_EQ_I64(0, r);
		pthread_join(th, NULL);
		if (mode == 0) {
			unsigned got = xtx_mpsc__dequeue_burst(s, out, 4);
			CHECK_EQ_U64(1, got);
			CHECK_EQ_U64(42, out[0].addr);
			/* the closed lane is freed on the next visits */
			while (xtx_mpsc__dequeue_burst(s, out, 4))
				;
		}
	}
	xtx_mpsc__stats(s, &st);
	if (!busy_poll)
		CHECK(st.sleeps >= 2);
	else
		CHECK_EQ_U64(0, st.sleeps);
	xtx_mpsc__destroy(s);
}

/* A kick between the ticket and the sleep is not lost: the wait returns at once (with a
 * plain wait() sampling the word after the kick it would sleep for the whole timeout). */
static void test_wait_ticket(void)
{
	struct xtx_mpsc *s = mk_stage(2, 8, 64);
	uint32_t t = xtx_mpsc__wait_prepare(s);
	uint64_t t0;

	xtx_mpsc__kick(s);		/* e.g. a stop request after the caller's check */
	t0 = now_ns();
	CHECK_EQ_I64(0, xtx_mpsc__wait_ticket(s, t, 5ull * 1000 * 1000 * 1000));
	CHECK(now_ns() - t0 < 1000ull * 1000 * 1000);	/* not the 5 s timeout */
	xtx_mpsc__destroy(s);
}

int main(void)
{
	test_create_errors();
	test_empty_full_wrap();
	test_burst_sizes();
	test_fair_quota();
	test_register_reuse();
	test_doorbell_hysteresis();
	test_wait(0);
	test_wait(1);
	test_wait_ticket();
	return check_summary("test_mpsc");
}
