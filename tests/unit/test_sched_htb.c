/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sched_htb.c - HTB sharing: ceil and borrowing, priority, quantum, deeper trees.
 *
 * Every case runs on a virtual clock with backlogged sources (sim_run) and measures wire
 * bytes (frame + 24) per class over windows of virtual time; tc's default bursts. Every
 * case ends with the ledger and conservation checks of sim_finish().
 */
#include "sched_harness.h"

#define LEN	1000			/* frame bytes; 1024 on the wire */
#define WIRE	(LEN + XTX_ETH_OVERHEAD)

static double rate_of(const struct src *v, uint64_t window)
{
	return (double)v->sent_wire * 1e9 / (double)window;
}

static struct xtx_class_opts leaf(uint32_t h, uint32_t parent, uint64_t rate, uint64_t ceil,
				  uint8_t prio, uint32_t quantum)
{
	struct xtx_class_opts o = copts(h, parent, rate, ceil);

	o.prio = prio;
	o.quantum = quantum;
	o.limit = 1000;
	return o;
}

static void src_init(struct src *v, uint16_t cls)
{
	*v = (struct src){ .cls = cls, .hash = cls, .len = LEN, .on = true, .depth = 32 };
}

/* Run `window` ns and return, with the sources' counters reset at the start. */
static void run_window(struct sim *m, struct src *v, unsigned n, uint64_t window)
{
	src_reset(v, n);
	sim_run(m, v, n, m->now + window, 16, NULL);
}

/* Parent 100 Mbit, children 30 / 70 with ceil 100. */
static void test_borrow(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, MBIT(100), MBIT(100));
	struct sim m;
	struct src v[2];
	uint64_t t_s, max_lag = 0, max_excess = 0, burst_a = MBIT(30) / 1000 + 1600;
	int a, b;

	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 0x10), XTX_HANDLE(1, 0), MBIT(30), MBIT(100), 0, 0);
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 0x20), XTX_HANDLE(1, 0), MBIT(70), MBIT(100), 0, 0);
	cfg_add(cfg, &o);
	sim_init_twin(&m, cfg, 0, 0);
	m.check_every = 1000;
	a = cls_idx(&m, XTX_HANDLE(1, 0x10));
	b = cls_idx(&m, XTX_HANDLE(1, 0x20));
	src_init(&v[0], (uint16_t)a);
	src_init(&v[1], (uint16_t)b);

	/* Both backlogged: each gets its rate. */
	run_window(&m, v, 2, SEC(10));
	CHECK_NEAR(MBIT(30), rate_of(&v[0], SEC(10)), 0.01);
	CHECK_NEAR(MBIT(70), rate_of(&v[1], SEC(10)), 0.01);
	printf("  borrow: both on: %.3f / %.3f Mbit/s\n", rate_of(&v[0], SEC(10)) / 125000,
	       rate_of(&v[1], SEC(10)) / 125000);

	/* A idle: B takes the whole parent (ceil 100). */
	v[0].on = false;
	sim_run(&m, v, 2, m.now + MS(100), 16, NULL);	/* A drains its backlog */
	CHECK_EQ_U64(0, class_qlen(&m, (unsigned)a));
	run_window(&m, v, 2, SEC(5));
	CHECK_EQ_U64(0, v[0].sent_wire);
	CHECK_NEAR(MBIT(100), rate_of(&v[1], SEC(5)), 0.01);
	printf("  borrow: A idle: B %.3f Mbit/s\n", rate_of(&v[1], SEC(5)) / 125000);

	/* A back: it gets its 30 at once. At every point after the switch its bytes stay
	 * within one burst below 30% of the parent, and within its bucket plus the
	 * hysteresis (two bursts) and a frame above. */
	v[0].on = true;
	src_reset(v, 2);
	t_s = m.now;
	while (m.now < t_s + MS(200)) {
		uint64_t want, lag, excess;

		sim_run(&m, v, 2, m.now + 100000, 16, NULL);	/* 100 us steps */
		want = (uint64_t)((double)MBIT(30) * (double)(m.now - t_s) / 1e9);
		lag = want > v[0].sent_wire ? want - v[0].sent_wire : 0;
		excess = v[0].sent_wire > want ? v[0].sent_wire - want : 0;
		if (lag > max_lag)
			max_lag = lag;
		if (excess > max_excess)
			max_excess = excess;
	}
	printf("  borrow: A back: max lag %" PRIu64 ", max excess %" PRIu64 " bytes (burst %"
	       PRIu64 ")\n", max_lag, max_excess, burst_a);
	CHECK(max_lag <= burst_a);
	CHECK(max_excess <= 2 * burst_a + WIRE);
	run_window(&m, v, 2, SEC(5));
	CHECK_NEAR(MBIT(30), rate_of(&v[0], SEC(5)), 0.01);
	CHECK_NEAR(MBIT(70), rate_of(&v[1], SEC(5)), 0.01);

	/* B idle: A borrows up to its ceil. */
	v[1].on = false;
	sim_run(&m, v, 2, m.now + MS(100), 16, NULL);
	run_window(&m, v, 2, SEC(5));
	CHECK_NEAR(MBIT(100), rate_of(&v[0], SEC(5)), 0.01);
	{
		struct xtx_class_stats st;

		xtx_sched__class_stats(m.s, (unsigned)a, &st);
		CHECK(st.borrows > 0);
		CHECK(st.throttled > 0);
	}
	sim_finish(&m);
}

/* A child's ceil caps it even with the parent idle. */
static void test_ceil(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, MBIT(100), MBIT(100));
	struct sim m;
	struct src v[1];

	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 1), XTX_HANDLE(1, 0), MBIT(10), MBIT(20), 0, 0);
	cfg_add(cfg, &o);
	sim_init_twin(&m, cfg, 0, 0);
	src_init(&v[0], (uint16_t)cls_idx(&m, XTX_HANDLE(1, 1)));
	sim_run(&m, v, 1, m.now + MS(100), 16, NULL);	/* past the initial bucket */
	run_window(&m, v, 1, SEC(10));
	CHECK_NEAR(MBIT(20), rate_of(&v[0], SEC(10)), 0.01);
	printf("  ceil: rate 10 ceil 20 alone: %.3f Mbit/s\n", rate_of(&v[0], SEC(10)) / 125000);
	sim_finish(&m);
}

/* Excess goes to the higher priority (lower number) first. */
static void test_prio(uint8_t prio_a, uint8_t prio_b)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, MBIT(100), MBIT(100));
	struct sim m;
	struct src v[2];
	double ra, rb;

	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 1), XTX_HANDLE(1, 0), MBIT(10), MBIT(100), prio_a, 0);
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 2), XTX_HANDLE(1, 0), MBIT(10), MBIT(100), prio_b, 0);
	cfg_add(cfg, &o);
	sim_init_twin(&m, cfg, 0, 0);
	m.check_every = 1000;
	src_init(&v[0], (uint16_t)cls_idx(&m, XTX_HANDLE(1, 1)));
	src_init(&v[1], (uint16_t)cls_idx(&m, XTX_HANDLE(1, 2)));
	run_window(&m, v, 2, SEC(10));
	ra = rate_of(&v[0], SEC(10));
	rb = rate_of(&v[1], SEC(10));
	printf("  prio %u vs %u (rates 10/10, parent 100): %.3f / %.3f Mbit/s\n", prio_a, prio_b,
	       ra / 125000, rb / 125000);
	CHECK_NEAR(prio_a < prio_b ? MBIT(90) : MBIT(10), ra, 0.01);
	CHECK_NEAR(prio_a < prio_b ? MBIT(10) : MBIT(90), rb, 0.01);
	sim_finish(&m);
}

/* Equal prio: the excess splits by quantum. */
static void test_quantum(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, MBIT(100), MBIT(100));
	struct sim m;
	struct src v[3];
	double r[3];
	unsigned i;

	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 1), XTX_HANDLE(1, 0), MBIT(10), MBIT(100), 3, 3000);
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 2), XTX_HANDLE(1, 0), MBIT(10), MBIT(100), 3, 9000);
	cfg_add(cfg, &o);
	sim_init_twin(&m, cfg, 0, 0);
	src_init(&v[0], (uint16_t)cls_idx(&m, XTX_HANDLE(1, 1)));
	src_init(&v[1], (uint16_t)cls_idx(&m, XTX_HANDLE(1, 2)));
	run_window(&m, v, 2, SEC(10));
	for (i = 0; i < 2; i++)
		r[i] = rate_of(&v[i], SEC(10));
	printf("  quantum 1:3 (rates 10/10, excess 80): %.3f / %.3f Mbit/s\n", r[0] / 125000,
	       r[1] / 125000);
	CHECK_NEAR(MBIT(10 + 20), r[0], 0.01);
	CHECK_NEAR(MBIT(10 + 60), r[1], 0.01);
	sim_finish(&m);

	/* Three classes 1:1:2, with a 2:1 split of the guaranteed rates. */
	cfg = xtx_sched_config__new();
	o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, MBIT(100), MBIT(100));
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 1), XTX_HANDLE(1, 0), MBIT(20), MBIT(100), 1, 2000);
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 2), XTX_HANDLE(1, 0), MBIT(10), MBIT(100), 1, 2000);
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 3), XTX_HANDLE(1, 0), MBIT(10), MBIT(100), 1, 4000);
	cfg_add(cfg, &o);
	sim_init_twin(&m, cfg, 0, 0);
	for (i = 0; i < 3; i++)
		src_init(&v[i], (uint16_t)cls_idx(&m, XTX_HANDLE(1, i + 1)));
	run_window(&m, v, 3, SEC(10));
	for (i = 0; i < 3; i++)
		r[i] = rate_of(&v[i], SEC(10));
	printf("  quantum 1:1:2 (rates 20/10/10, excess 60): %.3f / %.3f / %.3f Mbit/s\n",
	       r[0] / 125000, r[1] / 125000, r[2] / 125000);
	CHECK_NEAR(MBIT(20 + 15), r[0], 0.01);
	CHECK_NEAR(MBIT(10 + 15), r[1], 0.01);
	CHECK_NEAR(MBIT(10 + 30), r[2], 0.01);
	sim_finish(&m);
}

/* Three levels: root 100; 1:10 (40) with leaves 1:11, 1:12 (20 each); 1:20 (60) with
 * leaf 1:21 (60). Every ceil 100. */
static void test_levels(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 1), XTX_HANDLE_ROOT, MBIT(100), MBIT(100));
	struct sim m;
	struct src v[3];
	int l11, l12, l21, i1, i2, root;

	cfg_add(cfg, &o);
	o = copts(XTX_HANDLE(1, 0x10), XTX_HANDLE(1, 1), MBIT(40), MBIT(100));
	cfg_add(cfg, &o);
	o = copts(XTX_HANDLE(1, 0x20), XTX_HANDLE(1, 1), MBIT(60), MBIT(100));
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 0x11), XTX_HANDLE(1, 0x10), MBIT(20), MBIT(100), 0, 0);
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 0x12), XTX_HANDLE(1, 0x10), MBIT(20), MBIT(100), 0, 0);
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 0x21), XTX_HANDLE(1, 0x20), MBIT(60), MBIT(100), 0, 0);
	cfg_add(cfg, &o);
	sim_init_twin(&m, cfg, 0, 0);
	m.check_every = 500;
	root = cls_idx(&m, XTX_HANDLE(1, 1));
	i1 = cls_idx(&m, XTX_HANDLE(1, 0x10));
	i2 = cls_idx(&m, XTX_HANDLE(1, 0x20));
	l11 = cls_idx(&m, XTX_HANDLE(1, 0x11));
	l12 = cls_idx(&m, XTX_HANDLE(1, 0x12));
	l21 = cls_idx(&m, XTX_HANDLE(1, 0x21));
	src_init(&v[0], (uint16_t)l11);
	src_init(&v[1], (uint16_t)l12);
	src_init(&v[2], (uint16_t)l21);

	run_window(&m, v, 3, SEC(10));
	printf("  levels: all on: %.3f / %.3f / %.3f Mbit/s\n", rate_of(&v[0], SEC(10)) / 125000,
	       rate_of(&v[1], SEC(10)) / 125000, rate_of(&v[2], SEC(10)) / 125000);
	CHECK_NEAR(MBIT(20), rate_of(&v[0], SEC(10)), 0.01);
	CHECK_NEAR(MBIT(20), rate_of(&v[1], SEC(10)), 0.01);
	CHECK_NEAR(MBIT(60), rate_of(&v[2], SEC(10)), 0.01);

	/* 1:21 idle: its 60 goes to the 1:10 subtree, split evenly. */
	v[2].on = false;
	sim_run(&m, v, 3, m.now + MS(100), 16, NULL);
	run_window(&m, v, 3, SEC(10));
	printf("  levels: 1:21 idle: %.3f / %.3f Mbit/s\n", rate_of(&v[0], SEC(10)) / 125000,
	       rate_of(&v[1], SEC(10)) / 125000);
	CHECK_NEAR(MBIT(50), rate_of(&v[0], SEC(10)), 0.01);
	CHECK_NEAR(MBIT(50), rate_of(&v[1], SEC(10)), 0.01);

	/* Only 1:11: it borrows from 1:10 and the root up to its ceil. */
	v[1].on = false;
	sim_run(&m, v, 3, m.now + MS(100), 16, NULL);
	run_window(&m, v, 3, SEC(10));
	printf("  levels: 1:11 alone: %.3f Mbit/s\n", rate_of(&v[0], SEC(10)) / 125000);
	CHECK_NEAR(MBIT(100), rate_of(&v[0], SEC(10)), 0.01);

	/* Inner classes count their subtree's packets. */
	{
		struct xtx_class_stats s_root, s1, s2, a, b, c;

		xtx_sched__class_stats(m.s, (unsigned)root, &s_root);
		xtx_sched__class_stats(m.s, (unsigned)i1, &s1);
		xtx_sched__class_stats(m.s, (unsigned)i2, &s2);
		xtx_sched__class_stats(m.s, (unsigned)l11, &a);
		xtx_sched__class_stats(m.s, (unsigned)l12, &b);
		xtx_sched__class_stats(m.s, (unsigned)l21, &c);
		CHECK_EQ_U64(a.sent_pkts + b.sent_pkts, s1.sent_pkts);
		CHECK_EQ_U64(c.sent_pkts, s2.sent_pkts);
		CHECK_EQ_U64(s1.sent_pkts + s2.sent_pkts, s_root.sent_pkts);
		CHECK_EQ_U64(a.sent_bytes + b.sent_bytes + c.sent_bytes, s_root.sent_bytes);
		CHECK(a.borrows > 0);
	}
	sim_finish(&m);
}

/* Invalid class indexes go to the default leaf; 0xffff and an inner class's index. */
static void test_default_class(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, MBIT(100), MBIT(100));
	struct sim m;
	int inner, dl;

	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 1), XTX_HANDLE(1, 0), MBIT(10), MBIT(100), 0, 0);
	cfg_add(cfg, &o);
	o = leaf(XTX_HANDLE(1, 2), XTX_HANDLE(1, 0), MBIT(10), MBIT(100), 0, 0);
	cfg_add(cfg, &o);
	CHECK(xtx_sched_config__set_default(cfg, XTX_HANDLE(1, 2)) == 0);
	sim_init_twin(&m, cfg, 0, 0);
	inner = cls_idx(&m, XTX_HANDLE(1, 0));
	dl = cls_idx(&m, XTX_HANDLE(1, 2));
	CHECK_EQ_I64(dl, m.dflt);
	sim_enq(&m, 0xffff, 1, 100, 0, 3);
	sim_enq(&m, (uint16_t)inner, 1, 100, 0, 2);
	CHECK_EQ_U64(5, class_qlen(&m, (unsigned)dl));
	{
		struct xtx_class_stats st;

		xtx_sched__class_stats(m.s, (unsigned)dl, &st);
		CHECK_EQ_U64(5, st.enq_pkts);
		CHECK_EQ_U64(500, st.enq_bytes);
	}
	sim_finish(&m);
}

/* create() rejects what cannot be built, with errno and a message. */
static void test_create_errors(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o;
	struct xtx_sched *s;
	char err[256];
	unsigned d;

	/* 9 levels: a chain of 8 inner classes and a leaf. */
	for (d = 0; d < 9; d++) {
		o = copts(XTX_HANDLE(1, d + 1), d ? XTX_HANDLE(1, d) : XTX_HANDLE_ROOT,
			  MBIT(10), MBIT(10));
		cfg_add(cfg, &o);
	}
	errno = 0;
	s = xtx_sched__create(cfg, NULL, T0, err, sizeof(err));
	CHECK(s == NULL);
	CHECK_EQ_I64(EINVAL, errno);
	CHECK_STR_CONTAINS(err, "too deep");
	xtx_sched_config__free(cfg);

	/* 8 levels fit. */
	cfg = xtx_sched_config__new();
	for (d = 0; d < 8; d++) {
		o = copts(XTX_HANDLE(1, d + 1), d ? XTX_HANDLE(1, d) : XTX_HANDLE_ROOT,
			  MBIT(10), MBIT(10));
		cfg_add(cfg, &o);
	}
	s = xtx_sched__create(cfg, NULL, T0, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_I64(7, xtx_sched__class_index(s, XTX_HANDLE(1, 8)));
		CHECK_EQ_I64(-ENOENT, xtx_sched__class_index(s, XTX_HANDLE(1, 9)));
		CHECK_EQ_I64(-ENOENT, xtx_sched__class_stats(s, 8, &(struct xtx_class_stats){0}));
		xtx_sched__destroy(s);
	}
	xtx_sched_config__free(cfg);

	/* An invalid config fails validation with its message. */
	cfg = xtx_sched_config__new();
	o = copts(XTX_HANDLE(1, 1), XTX_HANDLE(1, 7), MBIT(10), MBIT(10));
	cfg_add(cfg, &o);
	errno = 0;
	s = xtx_sched__create(cfg, NULL, T0, err, sizeof(err));
	CHECK(s == NULL);
	CHECK_EQ_I64(EINVAL, errno);
	CHECK(err[0] != '\0');
	xtx_sched_config__free(cfg);
}

/* Token accounting at its edges, on one class (rate = ceil = 1000 B/s):
 *  - a frame of 0 bytes (overhead 0: a charge of 0) still brings the buckets up to now (a
 *    review found deferred charging taking a charge of 0 as "within the budget" and
 *    skipping the refill);
 *  - a bucket deeper than sch_htb's 60 s debt clamp still throttles: with a 300 s
 *    burst the hysteresis band would reach below the clamp, which forgives any debt
 *    past -60 s, and the class would never stop (the band is at most 30 s). */
static void test_token_edges(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, 1000, 1000);
	struct xtx_class_stats st;
	struct xtx_desc out[64];
	uint64_t next, t0;
	unsigned got, sent = 0;
	struct sim m;

	o.burst = o.cburst = 40000;		/* 40 s at 1000 B/s */
	cfg_add(cfg, &o);
	xtx_sched_config__set_overhead(cfg, 0);
	sim_init_twin(&m, cfg, 0, 0);
	t0 = m.now;
	m.now = t0 + SEC(1);
	sim_enq(&m, 0, 1, 1500, 0, 20);		/* 30 s of the 40 s burst, in one call */
	while ((got = sim_deq(&m, out, 64, &next)) > 0)
		sent += got;
	CHECK_EQ_U64(20, sent);
	m.now = t0 + SEC(11);
	sim_enq(&m, 0, 1, 0, 0, 1);		/* 10 s later, a frame of 0 bytes */
	CHECK_EQ_U64(1, sim_deq(&m, out, 64, &next));
	xtx_sched__class_stats(m.s, 0, &st);
	printf("  token edges: after 30 s of frames and a 0-byte frame 10 s later: tokens "
	       "%.3f s (expected 40 - 30 + 10)\n", st.tokens / 1e9);
	CHECK(st.tokens == 20 * (int64_t)SEC(1));
	sim_finish(&m);

	cfg = xtx_sched_config__new();
	o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, 1000, 1000);
	o.burst = o.cburst = 300000;		/* 300 s */
	cfg_add(cfg, &o);
	sim_init_twin(&m, cfg, 0, 0);
	sent = 0;
	sim_enq(&m, 0, 1, 1000, 0, 1000);	/* 1000 frames of 1.024 s on the wire */
	while ((got = sim_deq(&m, out, 64, &next)) > 0)
		sent += got;
	/* the burst (300 s) and the hysteresis band (30 s): 323 frames */
	printf("  token edges: 300 s burst: %u of 1000 frames at once (expected 323)\n", sent);
	CHECK_EQ_U64(323, sent);
	sim_finish(&m);
}

int main(void)
{
	test_token_edges();
	test_borrow();
	test_ceil();
	test_prio(0, 1);
	test_prio(5, 2);
	test_quantum();
	test_levels();
	test_default_class();
	test_create_errors();
	return check_summary("test_sched_htb");
}
