/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sched_rate.c - a backlogged class is sent at its rate.
 *
 * Table-driven over rates 1 Mbit/s .. 100 Gbit/s and frame sizes 64 .. 9000 bytes, on a
 * virtual clock that jumps to the scheduler's next_ns. Wire bytes (frame + 24 bytes of
 * overhead) dequeued in the window must be rate * window within 0.5%. The window is 10 s
 * of virtual time unless that needs more than SIM_PKT_BUDGET packets (fast rates with
 * small frames), then as long as the budget allows; the line printed says which.
 * Two measures: the rate between the first and the last wakeup (free of the initial
 * bucket and of packet granularity) within 0.5%, and the bytes of the whole window within
 * [rate * window - 2 frames, rate * window + 2 * burst + 2 frames] (the bucket starts full
 * and hysteresis lets a class run a burst below zero).
 * With one class of traffic every wakeup at next_ns must yield a packet (next_ns exact),
 * and a dequeue one ns before next_ns must yield none.
 */
#include "sched_harness.h"

struct rate_case {
	uint64_t rate;		/* bytes/s */
	uint16_t len;		/* frame bytes */
	uint8_t fq;		/* leaf with fq and 8 flows */
	uint8_t default_burst;	/* tc's default burst instead of one wire frame */
};

static const uint64_t rates[] = {
	MBIT(1), MBIT(10), MBIT(100), GBIT(1), GBIT(10), GBIT(40), GBIT(100),
};
static const uint16_t lens[] = { 64, 512, 1500, 9000 };

static void run_case(const struct rate_case *rc)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, rc->rate, rc->rate);
	uint64_t wire = rc->len + XTX_ETH_OVERHEAD, window, need, expect;
	struct src v[8];
	struct run_stats rs = { 0 };
	struct sim m;
	unsigned i, nsrc = rc->fq ? 8 : 1;
	uint64_t sent;

	if (!rc->default_burst) {
		o.burst = (uint32_t)wire;	/* small buckets: the window measures the rate */
		o.cburst = (uint32_t)wire;
	}
	o.fq = rc->fq;
	o.limit = 4096;
	cfg_add(cfg, &o);
	sim_init(&m, cfg, 0, 0);

	window = SEC(10);
	need = (uint64_t)((double)rc->rate * 10 / wire);
	if (need > SIM_PKT_BUDGET)
		window = (uint64_t)((double)SIM_PKT_BUDGET * wire * 1e9 / rc->rate);

	memset(v, 0, sizeof(v));
	for (i = 0; i < nsrc; i++)
		v[i] = (struct src){ .cls = 0, .hash = 1000 + i, .len = rc->len, .on = true,
				     .depth = 64 / nsrc + 8 };

	rs.probe_every = 97;
	sim_run(&m, v, nsrc, m.now + window, 32, &rs);
	sent = m.sent_wire[0];
	expect = (uint64_t)((double)rc->rate * (double)window / 1e9);
	{
		double steady = (double)(rs.last_wake_bytes - rs.first_wake_bytes) * 1e9 /
				(double)(rs.last_wake_t - rs.first_wake_t);
		double err = ((double)sent - (double)expect) / (double)expect * 100;
		uint64_t b = rc->default_burst ? rc->rate / 1000 + 1600 : wire;

		printf("  %11" PRIu64 " B/s %5u B%s%s: %6.3f s %8" PRIu64 " pkts  steady %+.5f%%  "
		       "window %+.4f%%  %" PRIu64 " wakeups, %" PRIu64 " empty, %" PRIu64 " probed\n",
		       rc->rate, rc->len, rc->fq ? " fq" : "", rc->default_burst ? " tc-burst" : "",
		       (double)window / 1e9, m.sent_pkts[0],
		       (steady - (double)rc->rate) / (double)rc->rate * 100, err, rs.wakeups,
		       rs.empty_wakeups, rs.probes);
		CHECK(rs.last_wake_t > rs.first_wake_t);
		CHECK_NEAR(rc->rate, steady, 0.005);
		if (!CHECK(sent + 2 * wire >= expect && sent <= expect + 2 * b + 2 * wire))
			fprintf(stderr, "  window bytes %" PRIu64 " not in [%" PRIu64 ", %" PRIu64
				"]\n", sent, expect - 2 * wire, expect + 2 * b + 2 * wire);
	}
	CHECK_EQ_U64(0, rs.empty_wakeups);
	CHECK_EQ_U64(0, rs.probe_bad);
	sim_finish(&m);
}

int main(void)
{
	struct rate_case rc;
	unsigned r, l;

	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			rc = (struct rate_case){ .rate = rates[r], .len = lens[l] };
			run_case(&rc);
		}
	/* fq leaves: same accuracy with 8 flows sharing the class */
	rc = (struct rate_case){ .rate = MBIT(100), .len = 1500, .fq = 1 };
	run_case(&rc);
	rc = (struct rate_case){ .rate = GBIT(10), .len = 512, .fq = 1 };
	run_case(&rc);
	/* tc's default burst (rate / 1000 + 1600): the 10 s window still holds 0.5% */
	rc = (struct rate_case){ .rate = MBIT(10), .len = 1500, .default_burst = 1 };
	run_case(&rc);
	rc = (struct rate_case){ .rate = GBIT(1), .len = 1500, .default_burst = 1 };
	run_case(&rc);
	return check_summary("test_sched_rate");
}
