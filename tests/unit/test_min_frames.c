/* SPDX-License-Identifier: BSD-3-Clause */
/* test_min_frames.c - xtx_engine_opts__min_frames(): the fewest frames open() accepts, for
 * the defaults and given ring sizes, with and without a receive side, and for options
 * open() refuses. Then the same number from open() itself: a frame count one below it is
 * refused with "at least N" (before any socket: the interface is lo, nothing is opened).
 * Table-driven; a failed row prints expected vs actual. Exit 0 when every check passed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/xtx.h>
#include "check.h"

struct row {
	const char *what;
	struct xtx_engine_opts o;
	uint32_t want;
};

#define OPTS(...)	{ .sz = sizeof(struct xtx_engine_opts), .ifname = "lo", __VA_ARGS__ }

/* TX: queues * (tx_ring + 2 * 64); RX: rx_queues * (fill + rx_ring + 4 * 64). */
static const struct row rows[] = {
	{ "defaults", OPTS(), 2048 + 128 },
	{ "4 queues", OPTS(.queues = 4), 4 * (2048 + 128) },
	{ "tx ring 512", OPTS(.tx_ring_size = 512), 512 + 128 },
	{ "frame count and size do not count", OPTS(.frame_count = 99, .frame_size = 4096),
	  2048 + 128 },
	{ "receive side, defaults", OPTS(.rx_ifname = "x"), 2048 + 128 + 4096 + 2048 + 256 },
	{ "2 ingress queues, rx ring 1024 (fill 2048)",
	  OPTS(.rx_ifname = "x", .rx_queues = 2, .rx_ring_size = 1024),
	  2048 + 128 + 2 * (2048 + 1024 + 256) },
	{ "fill ring given", OPTS(.rx_ifname = "x", .fill_ring_size = 8192),
	  2048 + 128 + 8192 + 2048 + 256 },
	{ "rx fields without rx_ifname do not count", OPTS(.rx_queues = 8), 2048 + 128 },
};

static void test_rows(void)
{
	char d[160];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint32_t got = xtx_engine_opts__min_frames(&rows[i].o);

		snprintf(d, sizeof(d), "%s: expected %u, got %u", rows[i].what, rows[i].want, got);
		check_report(got == rows[i].want, __FILE__, __LINE__, "rows", d);
	}
}

static void test_refused(void)
{
	struct { struct xtx_engine_opts o; uint64_t tail; } big;

	CHECK_EQ_U64(0, xtx_engine_opts__min_frames(NULL));
	struct xtx_engine_opts small = { .sz = 8, .ifname = "lo" };
	CHECK_EQ_U64(0, xtx_engine_opts__min_frames(&small));
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.ifname = "lo";
	CHECK_EQ_U64(2048 + 128, xtx_engine_opts__min_frames(&big.o));	/* zero tail */
	big.tail = 1;
	CHECK_EQ_U64(0, xtx_engine_opts__min_frames(&big.o));
}

/* open() refuses min - 1 frames and names min as the least. */
static void test_open_agrees(void)
{
	static const uint32_t queues[] = { 1, 3 }, rings[] = { 64, 2048 };
	char err[512], want[64];

	for (size_t q = 0; q < 2; q++)
		for (size_t r = 0; r < 2; r++) {
			struct xtx_engine_opts o = OPTS(.queues = queues[q], .tx_ring_size = rings[r],
							.quiet = 1);
			uint32_t min = xtx_engine_opts__min_frames(&o);
			struct xtx_engine *e;

			o.frame_count = min - 1;
			err[0] = '\0';
			e = xtx_engine__open(&o, err, sizeof(err));
			if (!CHECK(e == NULL)) {
				xtx_engine__close(e);
				continue;
			}
			CHECK_EQ_I64(EINVAL, errno);
			snprintf(want, sizeof(want), "at least %u ", min);
			CHECK_STR_CONTAINS(err, want);
		}
}

int main(void)
{
	test_rows();
	test_refused();
	test_open_agrees();
	return check_summary("test_min_frames");
}
