/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sched_fq.c - inside a leaf: fairness between flows, new flows first without
 * starving old ones, per-flow order, pacing (maxrate), EDT txtime, idle slot reuse.
 *
 * Virtual clock; wire bytes = frame + 24. Every case ends with the ledger and
 * conservation checks of sim_finish().
 */
#include "sched_harness.h"

/* A single root leaf with fq. */
static struct xtx_sched_config *fq_leaf(uint64_t rate, uint32_t flows, uint32_t flow_limit,
					uint32_t limit, uint64_t maxrate)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, rate, rate);

	o.fq = 1;
	o.flows = flows;
	o.flow_limit = flow_limit;
	o.limit = limit;
	o.maxrate = maxrate;
	cfg_add(cfg, &o);
	return cfg;
}

/* Per-hash departure order: addrs of one hash must increase (hash < 4096). */
struct order {
	uint64_t last[4096];
	uint64_t bad;
};

static void order_check(struct order *ord, const struct xtx_desc *d, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		uint32_t h = d[i].hash & 4095;

		if (ord->last[h] && d[i].addr < ord->last[h])
			ord->bad++;
		ord->last[h] = d[i].addr + 1;
	}
}

/* N equal backlogged flows share the leaf's rate: Jain's index >= 0.99, by bytes, with
 * equal and with mixed frame sizes. */
static void test_fairness(bool mixed)
{
	enum { N = 16 };
	struct sim m;
	struct src v[N];
	double x[N];
	unsigned i;

	sim_init(&m, fq_leaf(MBIT(100), 1024, 100, 10000, 0), 0, 0);
	m.check_every = 2000;
	for (i = 0; i < N; i++)
		v[i] = (struct src){ .cls = 0, .hash = 7 * i + 1,
				     .len = mixed ? (uint16_t)(64 + (i * 1436) / (N - 1)) : 1000,
				     .on = true, .depth = 20 };
	sim_run(&m, v, N, m.now + MS(200), 32, NULL);	/* steady state */
	src_reset(v, N);
	sim_run(&m, v, N, m.now + SEC(5), 32, NULL);
	for (i = 0; i < N; i++)
		x[i] = (double)v[i].sent_wire;
	printf("  fairness %s sizes: Jain %.5f over %u flows (flow 0 %.0f, flow 15 %.0f bytes)\n",
	       mixed ? "mixed" : "equal", jain(x, N), N, x[0], x[N - 1]);
	CHECK(jain(x, N) >= 0.99);
	sim_finish(&m);
}

/* A new sparse flow's first packet leaves before the backlogged flows' next ones; a flow
 * that keeps coming back with one packet cannot stay "new" and starve the old flows. */
static void test_new_flows(void)
{
	enum { N = 8 };
	struct sim m;
	struct src v[N + 1];
	struct xtx_desc out[4];
	uint64_t next;
	unsigned i, got, first = 0;

	sim_init(&m, fq_leaf(MBIT(100), 1024, 100, 10000, 0), 0, 0);
	m.check_every = 100;
	for (i = 0; i < N; i++)
		v[i] = (struct src){ .cls = 0, .hash = 100 + i, .len = 1500, .on = true,
				     .depth = 30 };
	sim_run(&m, v, N, m.now + MS(100), 8, NULL);	/* all old by now */

	for (i = 0; i < 5; i++) {	/* five times: a sparse flow arrives mid-backlog */
		uint32_t h = 900 + i;

		CHECK_EQ_U64(1, sim_enq(&m, 0, h, 200, 0, 1));
		for (;;) {
			got = sim_deq(&m, out, 1, &next);
			if (got || !sim_jump(&m, next))
				break;
		}
		CHECK_EQ_U64(h, out[0].hash);	/* first out: the sparse flow's packet */
		if (out[0].hash != h)
			src_account(&m, v, N, out, got);
		else
			first++;
		sim_run(&m, v, N, m.now + MS(5), 8, NULL);
	}

	/* One flow re-offers a packet before every dequeue: after its first quantum it is
	 * an old flow and gets a fair share (1 / (N + 1)), not everything. */
	v[N] = (struct src){ .cls = 0, .hash = 999, .len = 1500, .on = true, .depth = 1 };
	src_reset(v, N + 1);
	sim_run(&m, v, N + 1, m.now + SEC(2), 1, NULL);
	{
		uint64_t tot = 0;
		double share;

		for (i = 0; i <= N; i++)
			tot += v[i].sent_wire;
		share = (double)v[N].sent_wire / (double)tot;
		printf("  new flows: sparse flow first %u/5; eager flow share %.4f (fair %.4f)\n",
		       first, share, 1.0 / (N + 1));
		CHECK_NEAR(1.0 / (N + 1), share, 0.05);
		for (i = 0; i < N; i++)
			CHECK_NEAR(1.0 / (N + 1), (double)v[i].sent_wire / (double)tot, 0.05);
	}
	sim_finish(&m);
}

/* Packets of one hash leave in order, also when hashes share a slot (flows = 4). */
static void test_order(void)
{
	static struct order ord;
	struct sim m;
	struct xtx_desc out[64];
	uint64_t seed = 42, next;
	unsigned round;

	memset(&ord, 0, sizeof(ord));
	sim_init(&m, fq_leaf(MBIT(100), 4, 1000, 10000, 0), 0, 0);
	m.check_every = 50;
	for (round = 0; round < 2000; round++) {
		unsigned k = (unsigned)(rnd(&seed) % 8), got;

		while (k--)
			sim_enq(&m, 0, (uint32_t)(rnd(&seed) % 40), (uint16_t)(64 + rnd(&seed) % 1400),
				0, 1 + (unsigned)(rnd(&seed) % 3));
		got = sim_deq(&m, out, 1 + (unsigned)(rnd(&seed) % 16), &next);
		order_check(&ord, out, got);
		if (!got && next != UINT64_MAX)
			m.now = next;
	}
	while (xtx_sched__qlen(m.s)) {
		unsigned got = sim_deq(&m, out, 64, &next);

		order_check(&ord, out, got);
		if (!got && !sim_jump(&m, next))
			break;
	}
	CHECK_EQ_U64(0, ord.bad);
	{
		struct xtx_class_stats st;

		xtx_sched__class_stats(m.s, 0, &st);
		CHECK(st.flows <= 4);
		CHECK(m.s->leaves[0].collisions > 0);	/* 40 hashes in 4 slots */
	}
	sim_finish(&m);
}

/* maxrate paces each flow: one flow at maxrate within 1%, four flows each at maxrate,
 * departures of one flow never closer than wire / maxrate. */
static void test_pacing(void)
{
	static const unsigned nflows[] = { 1, 4 };
	unsigned t;

	for (t = 0; t < 2; t++) {
		enum { MAXN = 4 };
		struct sim m;
		struct src v[MAXN];
		unsigned i, n = nflows[t];
		uint64_t last[MAXN] = { 0 }, too_close = 0;
		uint64_t gap = (uint64_t)((1500 + 24) * 1e9 / (double)MBIT(10));

		sim_init(&m, fq_leaf(GBIT(1), 1024, 100, 10000, MBIT(10)), 0, 0);
		m.check_every = 500;
		for (i = 0; i < n; i++)
			v[i] = (struct src){ .cls = 0, .hash = 10 + i, .len = 1500, .on = true,
					     .depth = 10 };
		/* Custom loop: record each departure time per flow. */
		while (m.now < T0 + SEC(2)) {
			struct xtx_desc out[16];
			uint64_t next;
			unsigned got, j;

			for (i = 0; i < n; i++)
				if (v[i].inq < v[i].depth)
					v[i].inq += sim_enq(&m, 0, v[i].hash, v[i].len, 0,
							    (unsigned)(2 * v[i].depth - v[i].inq));
			got = sim_deq(&m, out, 16, &next);
			for (j = 0; j < got; j++) {
				unsigned f = out[j].hash - 10;

				v[f].inq--;
				if (m.now >= T0 + MS(100))	/* skip the first packets */
					v[f].sent_wire += out[j].len + 24u;
				if (last[f] && m.now - last[f] + 1 < gap)
					too_close++;
				last[f] = m.now;
			}
			if (!got && !sim_jump(&m, next))
				break;
		}
		for (i = 0; i < n; i++) {
			double r = (double)v[i].sent_wire * 1e9 / (double)(SEC(2) - MS(100));

			CHECK_NEAR(MBIT(10), r, 0.01);
			if (i == 0)
				printf("  pacing: %u flow(s) at maxrate 10 Mbit/s: flow 0 %.4f Mbit/s\n",
				       n, r / 125000);
		}
		CHECK_EQ_U64(0, too_close);
		sim_finish(&m);
	}
}

/* EDT: packets leave exactly at their txtime (fast leaf), never before; a flow whose head
 * is far in the future holds nothing else up; next_ns is its txtime exactly. */
static void test_edt(void)
{
	struct sim m;
	struct xtx_desc out[64];
	uint64_t seed = 7, next, late = 0, n_out = 0;
	unsigned i, got;

	sim_init(&m, fq_leaf(GBIT(100), 1024, 100, 10000, 0), 0, 0);
	m.check_every = 20;
	/* 500 single-packet flows, txtime uniform in [now, now + 50 ms] */
	for (i = 0; i < 500; i++)
		sim_enq(&m, 0, 5000 + i, 1000, m.now + rnd(&seed) % MS(50), 1);
	while (xtx_sched__qlen(m.s)) {
		got = sim_deq(&m, out, 64, &next);
		for (i = 0; i < got; i++)
			if (m.now != m.txt[out[i].addr])
				late++;
		n_out += got;
		if (!got && !sim_jump(&m, next))
			break;
	}
	CHECK_EQ_U64(500, n_out);
	CHECK_EQ_U64(0, late);		/* each left exactly at its txtime */
	CHECK_EQ_U64(0, m.early);

	/* Far-future head: flow A's packet at +5 s, flow B's 100 packets now. */
	sim_enq(&m, 0, 1, 1000, m.now + SEC(5), 1);
	sim_enq(&m, 0, 1, 1000, 0, 3);		/* behind A's head: same flow, in order */
	sim_enq(&m, 0, 2, 1000, 0, 100);
	got = sim_deq(&m, out, 64, &next);
	CHECK_EQ_U64(64, got);
	got = sim_deq(&m, out, 64, &next);
	CHECK_EQ_U64(36, got);
	for (i = 0; i < got; i++)
		CHECK_EQ_U64(2, out[i].hash);
	CHECK_EQ_U64(m.now + SEC(5), next);	/* only A is left: its txtime exactly */
	m.now = next - 1;
	CHECK_EQ_U64(0, sim_deq(&m, out, 64, &next));
	m.now = next;
	got = sim_deq(&m, out, 64, &next);
	CHECK_EQ_U64(4, got);			/* A's head, then its 3 packets */
	CHECK_EQ_U64(UINT64_MAX, next);
	printf("  edt: 500 packets each left at its txtime; far-future flow held alone\n");
	sim_finish(&m);

	/* A FIFO leaf keeps arrival order: a later txtime holds what is behind it. */
	{
		struct xtx_sched_config *cfg = xtx_sched_config__new();
		struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, GBIT(100),
						GBIT(100));
		static struct order ord;

		memset(&ord, 0, sizeof(ord));
		cfg_add(cfg, &o);
		sim_init(&m, cfg, 0, 0);
		m.check_every = 1;
		sim_enq(&m, 0, 1, 100, m.now + MS(2), 1);
		sim_enq(&m, 0, 2, 100, m.now + MS(1), 1);
		sim_enq(&m, 0, 3, 100, 0, 1);
		CHECK_EQ_U64(0, sim_deq(&m, out, 8, &next));
		CHECK_EQ_U64(m.now + MS(2), next);
		m.now = next;
		CHECK_EQ_U64(3, sim_deq(&m, out, 8, &next));
		CHECK_EQ_U64(1, out[0].hash);
		CHECK_EQ_U64(2, out[1].hash);
		CHECK_EQ_U64(3, out[2].hash);
		sim_finish(&m);
	}
}

/* An idle slot taken by a new hash starts fresh; the "flows" count follows. */
static void test_reuse(void)
{
	struct sim m;
	struct xtx_desc out[8];
	struct xtx_class_stats st;
	uint64_t next;
	unsigned i;

	sim_init(&m, fq_leaf(GBIT(10), 8, 100, 10000, MBIT(1)), 0, 0);
	m.check_every = 1;
	for (i = 0; i < 200; i++) {	/* 200 flows through 8 slots, one at a time */
		sim_enq(&m, 0, 1000 + i, 500, 0, 1);
		CHECK_EQ_U64(1, sim_deq(&m, out, 8, &next));	/* a fresh flow is not paced */
		m.now += MS(50);
	}
	xtx_sched__class_stats(m.s, 0, &st);
	CHECK(st.flows <= 8);
	/* After 200 ms idle, one dequeue detaches the emptied flows it meets. */
	m.now += MS(200);
	sim_deq(&m, out, 8, &next);
	CHECK_EQ_U64(UINT64_MAX, next);
	sim_finish(&m);
}

/* sch_fq's pass through old_flows (Linux 6.7 on): a new flow that dequeue finds empty
 * always goes to the tail of old_flows, even when old_flows is empty, and a packet that
 * comes for it there finds an old flow. Before 6.7 sch_fq detached it when old_flows
 * was empty, so its next packet made it new again; this test tells the two apart. */
static void test_old_pass(void)
{
	struct sim m;
	struct xtx_desc out[4];
	struct xtx_class_stats st;
	uint64_t next;

	sim_init(&m, fq_leaf(GBIT(10), 64, 100, 10000, 0), 0, 0);
	m.check_every = 1;
	/* A sends and empties at the head of new_flows; B arrives behind it */
	sim_enq(&m, 0, 1, 100, 0, 1);
	CHECK_EQ_U64(1, sim_deq(&m, out, 1, &next));
	sim_enq(&m, 0, 2, 100, 0, 1);
	CHECK_EQ_U64(1, sim_deq(&m, out, 1, &next));
	CHECK_EQ_U64(2, out[0].hash);
	xtx_sched__class_stats(m.s, 0, &st);
	CHECK_EQ_U64(2, st.flows);	/* A went to old_flows (empty before), B listed */
	sim_enq(&m, 0, 1, 100, 0, 1);	/* so A is an old flow: C, new, leaves first */
	sim_enq(&m, 0, 3, 100, 0, 1);
	CHECK_EQ_U64(2, sim_deq(&m, out, 2, &next));
	CHECK_EQ_U64(3, out[0].hash);
	CHECK_EQ_U64(1, out[1].hash);
	while (sim_deq(&m, out, 4, &next))
		;
	sim_finish(&m);
}

int main(void)
{
	test_fairness(false);
	test_fairness(true);
	test_new_flows();
	test_order();
	test_pacing();
	test_edt();
	test_reuse();
	test_old_pass();
	return check_summary("test_sched_fq");
}
