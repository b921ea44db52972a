/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nulldev.c - the null device (userspace/engine/nulldev.h) driven through libxdp's
 * ring functions, as the dequeuer drives a socket's rings:
 *
 *   1. rate 0: everything submitted completes at the next run, in order, addresses intact;
 *   2. a full completion ring holds completions back until the owner releases slots;
 *   3. null:10gbit: a 64-byte frame takes 67.2 ns on the wire (84 bytes); completions
 *      come in batches of XTX_NULL_COMP_BATCH until the wire goes idle; busy time is the
 *      frames' wire time, and a late submission shows as a gap of the exact length;
 *   4. the hardware ring (as deep as the TX ring) leaves frames on the TX ring when full;
 *   5. 1 Mbit/s for 10 s of virtual time: bytes on the wire match the rate to 1e-6;
 *   6. long runs of 14..1514-byte frames at rates that divide no wire time (7 Gbit/s, a
 *      prime near 1 Gbit/s, 8 bit/s, the largest rate): the wire's busy time is the exact
 *      rational sum rounded down once, to the picosecond (rounding each frame would be
 *      off by up to a picosecond per frame);
 *   7. bad sizes are refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "nulldev.h"
#include "check.h"

static unsigned submit(struct xsk_ring_prod *tx, unsigned n, uint32_t len, uint64_t *next)
{
	uint32_t idx = 0;

	if (xsk_ring_prod__reserve(tx, n, &idx) != n)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		struct xdp_desc *d = xsk_ring_prod__tx_desc(tx, idx + i);

		d->addr = (*next)++ * 4096;
		d->len = len;
		d->options = 0;
	}
	xsk_ring_prod__submit(tx, n);
	return n;
}

/* Takes every completion; checks they come in order from *expect. */
static unsigned reap(struct xsk_ring_cons *comp, uint64_t *expect)
{
	uint32_t idx = 0, n = xsk_ring_cons__peek(comp, 4096, &idx), bad = 0;

	for (uint32_t i = 0; i < n; i++)
		if (*xsk_ring_cons__comp_addr(comp, idx + i) != (*expect)++ * 4096)
			bad++;
	CHECK_EQ_U64(0, bad);
	xsk_ring_cons__release(comp, n);
	return n;
}

static void test_rate0(void)
{
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	struct xtx_nulldev *d;
	struct xtx_null_stats st;
	uint64_t next = 0, expect = 0;

	if (!CHECK_EQ_I64(0, xtx_nulldev_open(&d, 256, 256, 0, &tx, &comp)))
		return;
	CHECK(!xsk_ring_prod__needs_wakeup(&tx));
	CHECK_EQ_U64(100, submit(&tx, 100, 60, &next));
	CHECK_EQ_U64(100, xtx_nulldev_run(d, 1000));
	CHECK_EQ_U64(100, reap(&comp, &expect));
	CHECK_EQ_U64(0, xtx_nulldev_inflight(d));
	/* Wraps the rings several times. */
	for (int r = 0; r < 20; r++) {
		CHECK_EQ_U64(200, submit(&tx, 200, 1500, &next));
		CHECK_EQ_U64(200, xtx_nulldev_run(d, 2000));
		CHECK_EQ_U64(200, reap(&comp, &expect));
	}
	xtx_nulldev_stats(d, &st);
	CHECK_EQ_U64(4100, st.frames);
	CHECK_EQ_U64(100 * 60 + 4000 * 1500ull, st.bytes);
	CHECK_EQ_U64(100 * 84 + 4000 * 1524ull, st.wire_bytes);
	CHECK_EQ_U64(0, st.busy_ns);
	xtx_nulldev_close(d);
}

static void test_comp_full(void)
{
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	struct xtx_nulldev *d;
	uint64_t next = 0, expect = 0;

	if (!CHECK_EQ_I64(0, xtx_nulldev_open(&d, 256, 64, 0, &tx, &comp)))
		return;
	CHECK_EQ_U64(200, submit(&tx, 200, 60, &next));
	CHECK_EQ_U64(64, xtx_nulldev_run(d, 1));
	CHECK_EQ_U64(0, xtx_nulldev_run(d, 2));		/* the owner has released nothing */
	CHECK_EQ_U64(136, xtx_nulldev_inflight(d));
	CHECK_EQ_U64(64, reap(&comp, &expect));
	CHECK_EQ_U64(64, xtx_nulldev_run(d, 3));
	CHECK_EQ_U64(64, reap(&comp, &expect));
	CHECK_EQ_U64(64, xtx_nulldev_run(d, 4));
	CHECK_EQ_U64(64, reap(&comp, &expect));
	CHECK_EQ_U64(8, xtx_nulldev_run(d, 5));
	CHECK_EQ_U64(8, reap(&comp, &expect));
	CHECK_EQ_U64(200, expect);
	xtx_nulldev_close(d);
}

static void test_wire(void)
{
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	struct xtx_nulldev *d;
	struct xtx_null_stats st;
	uint64_t next = 0, expect = 0, t0 = 1000000;

	if (!CHECK_EQ_I64(0, xtx_nulldev_open(&d, 2048, 2048, 10000000000ull, &tx, &comp)))
		return;
	CHECK_EQ_U64(1000, submit(&tx, 1000, 60, &next));
	CHECK_EQ_U64(0, xtx_nulldev_run(d, t0));
	/* 31 frames done (31 * 67.2 = 2083.2 ns): held back, fewer than a batch. */
	CHECK_EQ_U64(0, xtx_nulldev_run(d, t0 + 2084));
	/* 32 frames end at 2150.4 ns. */
	CHECK_EQ_U64(0, xtx_nulldev_run(d, t0 + 2150));
	CHECK_EQ_U64(32, xtx_nulldev_run(d, t0 + 2151));
	CHECK_EQ_U64(32, reap(&comp, &expect));
	/* 999 frames done by 67199 ns: the 967 not yet given back, more than a batch. */
	CHECK_EQ_U64(967, xtx_nulldev_run(d, t0 + 67199));
	CHECK_EQ_U64(967, reap(&comp, &expect));
	/* The last frame ends at 67200 ns: the wire is idle, the short batch comes back. */
	CHECK_EQ_U64(1, xtx_nulldev_run(d, t0 + 67200));
	CHECK_EQ_U64(1, reap(&comp, &expect));
	CHECK_EQ_U64(1000, expect);
	CHECK_EQ_U64(0, xtx_nulldev_inflight(d));
	xtx_nulldev_stats(d, &st);
	CHECK_EQ_U64(67200, st.busy_ns);
	CHECK_EQ_U64(0, st.gap_ns);
	/* Submitted 10 us after the wire went idle: a 10 us gap. */
	CHECK_EQ_U64(1, submit(&tx, 1, 1500, &next));
	CHECK_EQ_U64(0, xtx_nulldev_run(d, t0 + 77200));
	CHECK_EQ_U64(1, xtx_nulldev_run(d, t0 + 77200 + 1220));	/* 1524 B: 1219.2 ns */
	reap(&comp, &expect);
	xtx_nulldev_stats(d, &st);
	CHECK_EQ_U64(67200 + 1219, st.busy_ns);
	CHECK_EQ_U64(10000, st.gap_ns);
	CHECK_EQ_U64(1000 * 84 + 1524, st.wire_bytes);
	xtx_nulldev_close(d);
}

static void test_hw_full(void)
{
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	struct xtx_nulldev *d;
	uint64_t next = 0, expect = 0;

	/* 1 Gbit/s: a 1500-byte frame takes 12192 ns. */
	if (!CHECK_EQ_I64(0, xtx_nulldev_open(&d, 64, 256, 1000000000ull, &tx, &comp)))
		return;
	CHECK_EQ_U64(64, submit(&tx, 64, 1500, &next));
	CHECK_EQ_U64(0, xtx_nulldev_run(d, 0));
	CHECK_EQ_U64(64, xtx_nulldev_inflight(d));
	CHECK_EQ_U64(64, submit(&tx, 64, 1500, &next));	/* the TX ring was emptied */
	CHECK_EQ_U64(0, xtx_nulldev_run(d, 1));
	CHECK_EQ_U64(0, submit(&tx, 1, 1500, &next));		/* hardware ring full: TX stays */
	next--;
	CHECK_EQ_U64(64, xtx_nulldev_inflight(d));
	/* 32 frames done at 32 * 12192 ns: 32 back, 32 taken from the TX ring. */
	CHECK_EQ_U64(32, xtx_nulldev_run(d, 32 * 12192));
	CHECK_EQ_U64(64, xtx_nulldev_inflight(d));
	CHECK_EQ_U64(32, reap(&comp, &expect));
	CHECK_EQ_U64(32, xtx_nulldev_run(d, 64 * 12192));
	CHECK_EQ_U64(64, xtx_nulldev_inflight(d));
	CHECK_EQ_U64(64, xtx_nulldev_run(d, 128 * 12192));
	CHECK_EQ_U64(96, reap(&comp, &expect));
	CHECK_EQ_U64(128, expect);
	xtx_nulldev_close(d);
}

/* 1 Mbit/s, always a frame waiting, 10 s of virtual time in 50 us steps. */
static void test_rate_long(void)
{
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	struct xtx_nulldev *d;
	struct xtx_null_stats st;
	uint64_t next = 0, expect = 0, end = 10ull * 1000000000;

	if (!CHECK_EQ_I64(0, xtx_nulldev_open(&d, 64, 64, 1000000ull, &tx, &comp)))
		return;
	for (uint64_t t = 0; t <= end; t += 50000) {
		unsigned room = xsk_prod_nb_free(&tx, 64);

		submit(&tx, room > 8 ? 8 : room, 476, &next);	/* 500 B on the wire: 4 ms */
		xtx_nulldev_run(d, t);
		reap(&comp, &expect);
	}
	xtx_nulldev_stats(d, &st);
	/* 10 s at 1 Mbit/s is 1250000 wire bytes, 2500 frames of 500; batches of 32 leave
	 * the last (< 32) of them not yet given back. */
	CHECK(st.frames > 2500 - 32 && st.frames <= 2500);
	CHECK_EQ_U64(st.frames * 500, st.wire_bytes);
	CHECK_EQ_U64(st.frames * 4000000ull, st.busy_ns);
	CHECK_EQ_U64(0, st.gap_ns);
	xtx_nulldev_close(d);
}

/* A frame length 60..1514 from *x (an LCG), every 64th below the 60-byte minimum. */
static uint32_t next_len(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (*x >> 58) == 0 ? 14 : 60 + (uint32_t)((*x >> 33) % 1455);
}

static const struct {
	uint64_t rate_bps;
	uint32_t frames;
} long_runs[] = {
	{ 7000000000ull, 1u << 20 },		/* 8/7 ns a byte */
	{ 999999937ull, 1u << 16 },		/* a prime */
	{ 8, 1u << 10 },			/* the lowest rate null:RATE gives: 1 s a byte */
	{ 3, 1u << 10 },			/* 8/3 s a byte */
	{ UINT64_MAX / 8 * 8, 1u << 16 },	/* the highest: a frame takes < 1 ps */
};

/* Frames always waiting, the wire mostly busy (steps of 128 minimum frames' time, a
 * hardware ring of 256), then drained. */
static void test_exact_long(void)
{
	for (size_t r = 0; r < sizeof(long_runs) / sizeof(long_runs[0]); r++) {
		uint64_t rate = long_runs[r].rate_bps, n = long_runs[r].frames;
		uint64_t step = (uint64_t)(128ull * 84 * 8 * 1000000000 / rate) + 1;
		uint64_t next = 0, expect = 0, x = r, t = 0, wire = 0, sent = 0, done = 0;
		struct xsk_ring_prod tx;
		struct xsk_ring_cons comp;
		struct xtx_nulldev *d;
		struct xtx_null_stats st;
		unsigned __int128 exact;

		if (!CHECK_EQ_I64(0, xtx_nulldev_open(&d, 256, 256, rate, &tx, &comp)))
			return;
		for (uint64_t i = 0; done < n && i < 4 * n + 1000; i++, t += step) {
			unsigned room = xsk_prod_nb_free(&tx, 256);

			for (; room && sent < n; room--, sent++) {
				uint32_t len = next_len(&x);

				submit(&tx, 1, len, &next);
				wire += (len < 60 ? 60 : len) + 24;
			}
			xtx_nulldev_run(d, t);
			done += reap(&comp, &expect);
		}
		CHECK_EQ_U64(n, done);
		xtx_nulldev_stats(d, &st);
		exact = (unsigned __int128)wire * 8000000000000ull / rate;
		CHECK_EQ_U64(wire, st.wire_bytes);
		CHECK_EQ_U64((uint64_t)exact, xtx_nulldev_busy_ps(d));
		CHECK_EQ_U64((uint64_t)(exact / 1000), st.busy_ns);
		printf("test_nulldev: %llu bit/s, %llu frames, %llu wire bytes: busy %llu ps, "
		       "exactly %llu ps\n", (unsigned long long)rate, (unsigned long long)n,
		       (unsigned long long)wire, (unsigned long long)xtx_nulldev_busy_ps(d),
		       (unsigned long long)exact);
		xtx_nulldev_close(d);
	}
}

static void test_bad(void)
{
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	struct xtx_nulldev *d;

	CHECK_EQ_I64(-EINVAL, xtx_nulldev_open(&d, 32, 64, 0, &tx, &comp));
	CHECK_EQ_I64(-EINVAL, xtx_nulldev_open(&d, 64, 100, 0, &tx, &comp));
	CHECK_EQ_I64(-EINVAL, xtx_nulldev_open(&d, 0, 64, 0, &tx, &comp));
}

int main(void)
{
	test_rate0();
	test_comp_full();
	test_wire();
	test_hw_full();
	test_rate_long();
	test_exact_long();
	test_bad();
	return check_summary("test_nulldev");
}
