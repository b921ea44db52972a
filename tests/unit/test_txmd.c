/* SPDX-License-Identifier: BSD-3-Clause */
/* test_txmd.c - AF_XDP TX metadata as the engine writes it:
 *   launch      xtx_txmd_launch(): a new request (flags LAUNCH_TIME, the departure time
 *               moved to CLOCK_TAI in place) and one added to a producer's checksum
 *               request (both flags, its csum fields kept); the descriptor flagged
 *   ring        xtx_txring__write(): XDP_TX_METADATA in the options of a flagged
 *               descriptor only, the address without its flags
 *   buckets     the lateness histogram's buckets: each value in the bucket whose top is
 *               the first at or above it, 12.5% wide above 8 ns, in order
 *   engine      the null device with tx_metadata and launch_time: frames with a
 *               departure time leave with LAUNCH_TIME and their time in CLOCK_TAI,
 *               frames without one with no request; a flagged descriptor is refused
 *               (bad_desc) by an engine without tx_metadata; launch_time without
 *               tx_metadata is refused at open
 */
#include <errno.h>
#include <linux/if_xdp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xtx/xtx.h>
#include "check.h"
#include "tstamp.h"
#include "txmd.h"
#include "txring.h"

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void test_launch(void)
{
	unsigned char buf[256] = { 0 }, *f = buf + 128;
	uint64_t edt = 5000000000ull, addr = 64 | XTX_DESC_F_TXTIME;
	struct xtx_desc d = { .addr = 64 };
	uint16_t cs, co;

	memset(f - XTX_TXMD_LEN, 0xa5, 16);	/* what a frame's last use left */
	memcpy(f - 8, &edt, 8);
	xtx_txmd_launch(f, 1000, &addr);
	CHECK_EQ_U64(XTX_TXMD_LAUNCH_TIME, u64_at(f - 24));
	CHECK_EQ_U64(edt + 1000, u64_at(f - 8));
	CHECK_EQ_U64(64 | XTX_DESC_F_TXTIME | XTX_DESC_F_TXMD, addr);

	memcpy(f - 8, &edt, 8);
	xtx_desc__set_txmd(&d, f, XTX_TXMD_CSUM, 34, 6);
	d.addr |= XTX_DESC_F_TXTIME;
	xtx_txmd_launch(f, -7, &d.addr);
	memcpy(&cs, f - 16, 2);
	memcpy(&co, f - 14, 2);
	CHECK_EQ_U64(XTX_TXMD_CSUM | XTX_TXMD_LAUNCH_TIME, u64_at(f - 24));
	CHECK_EQ_U64(34, cs);
	CHECK_EQ_U64(6, co);
	CHECK_EQ_U64(edt - 7, u64_at(f - 8));
}

static void test_ring(void)
{
	struct xdp_desc ring[8];
	uint32_t prod = 0, cons = 0, flags = 0;
	struct xtx_txring t = { .tx = { .mask = 7, .size = 8, .producer = &prod,
					.consumer = &cons, .flags = &flags, .ring = ring,
					.cached_cons = 8 } };
	struct xtx_desc d[3] = {
		{ .addr = 4096 + 64, .len = 60 },
		{ .addr = (8192 + 64) | XTX_DESC_F_TXMD, .len = 61 },
		{ .addr = (12288 + 64) | XTX_DESC_F_TXMD | XTX_DESC_F_TXTIME, .len = 62 },
	};

	CHECK_EQ_U64(183, xtx_txring__write(&t, d, 3));
	CHECK_EQ_U64(3, prod);
	CHECK_EQ_U64(4096 + 64, ring[0].addr);
	CHECK_EQ_U64(0, ring[0].options);
	CHECK_EQ_U64(8192 + 64, ring[1].addr);
	CHECK_EQ_U64(XDP_TX_METADATA, ring[1].options);
	CHECK_EQ_U64(12288 + 64, ring[2].addr);
	CHECK_EQ_U64(XDP_TX_METADATA, ring[2].options);
	CHECK_EQ_U64(62, ring[2].len);
}

static void test_buckets(void)
{
	uint64_t x = 88172645463325252ull;
	unsigned bad = 0;

	for (unsigned b = 1; b < XTX_TS_BUCKETS - 1; b++) {
		bad += xtx_ts_bucket_high(b) <= xtx_ts_bucket_high(b - 1);
		bad += xtx_ts_bucket(xtx_ts_bucket_high(b)) != b;
		bad += xtx_ts_bucket(xtx_ts_bucket_high(b - 1) + 1) != b;
		if (b >= 16)
			bad += (xtx_ts_bucket_high(b) - xtx_ts_bucket_high(b - 1)) * 8 >
			       xtx_ts_bucket_high(b - 1) + 1;
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t v;
		unsigned b;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (23 + x % 40);
		b = xtx_ts_bucket(v);
		bad += v > xtx_ts_bucket_high(b) || (b && v <= xtx_ts_bucket_high(b - 1) &&
						     b < XTX_TS_BUCKETS - 1);
	}
	CHECK_EQ_U64(0, bad);
}

static struct xtx_engine *open_null(int txmd, int launch)
{
	struct xtx_engine_opts o = { .sz = sizeof(o), .ifname = "null", .quiet = 1,
				     .frame_count = 4096, .tx_metadata = txmd,
				     .launch_time = launch };
	char err[256];
	struct xtx_engine *e = xtx_engine__open(&o, err, sizeof(err));

	if (!e && txmd)
		fprintf(stderr, "open: %s\n", err);
	return e;
}

static uint64_t tai_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_TAI, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* 16 frames, the even ones with a departure time 1 ms ahead; after they completed, every
 * frame of the UMEM taken back and read: 8 with LAUNCH_TIME at their time in CLOCK_TAI
 * (within 1 s of CLOCK_TAI now: the clocks differ by about 37 s plus the boot time),
 * none other with a request. */
static void test_engine(void)
{
	struct xtx_engine *e = open_null(1, 1);
	struct xtx_producer *p = e ? xtx_producer__open(e) : NULL;
	struct xtx_desc d[16];
	uint64_t addrs[4096], seen_launch = 0, other = 0, off_ok = 0;
	unsigned got, k, n = 0;
	struct xtx_producer_stats ps;

	if (!CHECK(e && p))
		return;
	got = xtx_producer__get_frames(p, addrs, 16);
	CHECK_EQ_U64(16, got);
	for (unsigned i = 0; i < got; i++) {
		unsigned char *f = xtx_engine__frame(e, addrs[i]);

		memset(f - XTX_TXMD_LEN, 0, XTX_TXMD_LEN);
		memset(f, 0xee, 60);
		d[i] = (struct xtx_desc){ .addr = addrs[i], .len = 60, .hash = i };
		if (!(i & 1)) {
			struct timespec m;

			clock_gettime(CLOCK_MONOTONIC, &m);
			xtx_producer__set_txtime(p, &d[i], (uint64_t)m.tv_sec * 1000000000ull +
						 (uint64_t)m.tv_nsec + 1000000);
		}
	}
	k = xtx_producer__send_burst(p, d, got);
	CHECK_EQ_U64(16, k);
	/* Sent and completed (1 ms ahead at most; 2 s allowed), then every frame of the
	 * UMEM taken and read. */
	for (int w = 0; w < 2000; w++) {
		struct xtx_frame_count fc;

		xtx_engine__frames(e, &fc);
		if (!fc.stage && !fc.sched && !fc.tx)
			break;
		usleep(1000);
	}
	xtx_engine__producer_totals(e, &ps);
	CHECK_EQ_U64(16, ps.sent);
	while (n < 4096 && (got = xtx_producer__get_frames(p, addrs + n, 4096 - n)))
		n += got;
	for (unsigned i = 0; i < n; i++) {
		unsigned char *f = xtx_engine__frame(e, addrs[i]);
		uint64_t fl = u64_at(f - 24), t = u64_at(f - 8), now = tai_now();

		if (fl == XTX_TXMD_LAUNCH_TIME) {
			seen_launch++;
			off_ok += t <= now + 1000000000ull && t + 1000000000ull >= now;
		} else if (fl) {
			other++;
		}
	}
	CHECK_EQ_U64(8, seen_launch);
	CHECK_EQ_U64(8, off_ok);
	CHECK_EQ_U64(0, other);
	xtx_producer__put_frames(p, addrs, n);
	xtx_producer__close(p);
	xtx_engine__close(e);

	/* Without tx_metadata: the flag is a bad descriptor; launch_time refused. */
	e = open_null(0, 0);
	p = e ? xtx_producer__open(e) : NULL;
	if (!CHECK(e && p))
		return;
	got = xtx_producer__get_frames(p, addrs, 1);
	d[0] = (struct xtx_desc){ .addr = addrs[0] | XTX_DESC_F_TXMD, .len = 60 };
	CHECK_EQ_U64(0, xtx_producer__send_burst(p, d, got));
	xtx_engine__producer_totals(e, &ps);
	CHECK_EQ_U64(1, ps.bad_desc);
	xtx_producer__put_frames(p, addrs, got);
	xtx_producer__close(p);
	xtx_engine__close(e);
	errno = 0;
	CHECK(open_null(0, 1) == NULL);
	CHECK_EQ_I64(EINVAL, errno);
	{	/* TX timestamps: none on the null device */
		struct xtx_engine_opts o = { .sz = sizeof(o), .ifname = "null", .quiet = 1,
					     .tx_metadata = 1, .tx_timestamps = 1 };
		char err[256];

		errno = 0;
		CHECK(xtx_engine__open(&o, err, sizeof(err)) == NULL);
		CHECK_EQ_I64(EINVAL, errno);
	}
}

int main(void)
{
	test_launch();
	test_ring();
	test_buckets();
	test_engine();
	return check_summary("test_txmd");
}
