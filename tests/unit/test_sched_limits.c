/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sched_limits.c - every refusal has its reason and gives the descriptor back:
 * leaf limit, flow limit, horizon, no class, pool exhausted; purge gives back everything
 * queued, in any state (eligible, paced, EDT-held, HTB-throttled), in pieces, and leaves
 * a scheduler that works.
 */
#include "sched_harness.h"

/* Root inner class 1:0 with a fq leaf 1:1 and a FIFO leaf 1:2. */
static struct xtx_sched_config *two_leaves(uint32_t limit, uint32_t flow_limit,
					   uint64_t maxrate)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, MBIT(100), MBIT(100));

	cfg_add(cfg, &o);
	o = copts(XTX_HANDLE(1, 1), XTX_HANDLE(1, 0), MBIT(50), MBIT(100));
	o.fq = 1;
	o.limit = limit;
	o.flow_limit = flow_limit;
	o.maxrate = maxrate;
	cfg_add(cfg, &o);
	o = copts(XTX_HANDLE(1, 2), XTX_HANDLE(1, 0), MBIT(50), MBIT(100));
	o.limit = limit;
	cfg_add(cfg, &o);
	return cfg;
}

static void test_limits(void)
{
	struct sim m;
	int fq, fifo;

	sim_init(&m, two_leaves(20, 8, 0), 0, SEC(1));
	m.check_every = 1;
	fq = cls_idx(&m, XTX_HANDLE(1, 1));
	fifo = cls_idx(&m, XTX_HANDLE(1, 2));

	/* flow limit: 8 per flow */
	CHECK_EQ_U64(8, sim_enq(&m, (uint16_t)fq, 1, 100, 0, 12));
	CHECK_EQ_U64(4, class_drops(&m, (unsigned)fq, XTX_DROP_FLOW_LIMIT));
	/* leaf limit: 20 per leaf (8 + 8 + 4 accepted, then refused) */
	CHECK_EQ_U64(8, sim_enq(&m, (uint16_t)fq, 2, 100, 0, 8));
	CHECK_EQ_U64(4, sim_enq(&m, (uint16_t)fq, 3, 100, 0, 8));
	CHECK_EQ_U64(4, class_drops(&m, (unsigned)fq, XTX_DROP_LEAF_LIMIT));
	CHECK_EQ_U64(20, class_qlen(&m, (unsigned)fq));
	/* the FIFO leaf has no flow limit, only its leaf limit */
	CHECK_EQ_U64(20, sim_enq(&m, (uint16_t)fifo, 1, 100, 0, 25));
	CHECK_EQ_U64(5, class_drops(&m, (unsigned)fifo, XTX_DROP_LEAF_LIMIT));
	CHECK_EQ_U64(0, class_drops(&m, (unsigned)fifo, XTX_DROP_FLOW_LIMIT));

	/* horizon 1 s: exactly 1 s ahead is accepted, 1 ns more is dropped */
	{
		struct sim h;

		sim_init(&h, two_leaves(100, 100, 0), 0, SEC(1));
		CHECK_EQ_U64(1, sim_enq(&h, 1, 5, 64, h.now + SEC(1), 1));
		CHECK_EQ_U64(0, sim_enq(&h, 1, 5, 64, h.now + SEC(1) + 1, 1));
		CHECK_EQ_U64(1, class_drops(&h, 1, XTX_DROP_HORIZON));
		CHECK_EQ_U64(1, sim_enq(&h, 1, 6, 64, h.now - 5, 1));	/* past: fine */
		sim_finish(&h);
	}
	sim_finish(&m);
}

static void test_no_class(void)
{
	struct sim m;
	struct xtx_desc d = { .addr = 0, .hash = 1, .len = 64 }, drops[1];
	unsigned nd = 9;
	int root;

	sim_init(&m, two_leaves(100, 100, 0), 0, 0);
	root = cls_idx(&m, XTX_HANDLE(1, 0));
	/* A validated config always has a default leaf; the test hook removes it. */
	CHECK_EQ_I64(0, _xtx_sched__set_default(m.s, -1));
	m.dflt = -1;
	CHECK_EQ_I64(-EINVAL, _xtx_sched__set_default(m.s, root));
	CHECK_EQ_U64(0, sim_enq(&m, (uint16_t)root, 1, 64, 0, 3));	/* inner class */
	CHECK_EQ_U64(3, class_drops(&m, (unsigned)root, XTX_DROP_NO_CLASS));
	CHECK_EQ_U64(0, sim_enq(&m, 77, 1, 64, 0, 2));			/* out of range */
	CHECK_EQ_U64(2, _xtx_sched__drop_no_class(m.s));
	CHECK_EQ_U64(1, sim_enq(&m, 1, 1, 64, 0, 1));			/* a leaf: fine */
	/* the drop comes back in drops[], and ndrops says so */
	d.addr = m.seq;
	led_grow(&m, m.seq + 1);
	m.led[m.seq++] = 1;
	d.cls = 500;
	CHECK_EQ_U64(0, xtx_sched__enqueue_burst(m.s, &d, NULL, 1, m.now, drops, &nd));
	CHECK_EQ_U64(1, nd);
	CHECK_EQ_U64(d.addr, drops[0].addr);
	led_back(&m, &drops[0]);
	sim_finish(&m);
}

static void test_no_bufs(void)
{
	struct sim m;
	struct xtx_desc out[16];
	uint64_t next;

	sim_init(&m, two_leaves(100, 100, 0), 10, 0);	/* a pool of 10 packets */
	m.check_every = 1;
	CHECK_EQ_U64(6, sim_enq(&m, 1, 1, 64, 0, 6));
	CHECK_EQ_U64(4, sim_enq(&m, 2, 1, 64, 0, 6));
	CHECK_EQ_U64(2, class_drops(&m, 2, XTX_DROP_NO_BUFS));
	CHECK_EQ_U64(10, xtx_sched__qlen(m.s));
	CHECK_EQ_U64(10, sim_deq(&m, out, 16, &next));	/* buffers come back */
	CHECK_EQ_U64(5, sim_enq(&m, 1, 2, 64, 0, 5));
	sim_finish(&m);
}

/* Purge in small pieces with packets in every state; then the scheduler works again. */
static void test_purge(void)
{
	struct sim m;
	struct xtx_desc out[7];
	uint64_t next, seed = 3;
	unsigned i, got, total = 0, rounds = 0;
	int fq, fifo;

	sim_init(&m, two_leaves(1000, 50, MBIT(1)), 0, 0);	/* fq leaf paced at 1 Mbit */
	m.check_every = 1;
	fq = cls_idx(&m, XTX_HANDLE(1, 1));
	fifo = cls_idx(&m, XTX_HANDLE(1, 2));
	for (i = 0; i < 40; i++) {
		uint64_t tx = (i % 3 == 0) ? m.now + MS(1 + i) : 0;

		sim_enq(&m, (uint16_t)fq, (uint32_t)(rnd(&seed) % 16), 1000, tx, 5);
		sim_enq(&m, (uint16_t)fifo, i, 1000, tx, 20);
	}
	/* Dequeue until some flows are paced and some classes throttled. */
	for (i = 0; i < 1000 && !(i >= 10 && m.s->wq_n && m.s->fh_n); i++) {
		got = sim_deq(&m, out, 7, &next);
		if (!got && !sim_jump(&m, next))
			break;
	}
	CHECK(m.s->fh_n > 0);	/* flows waiting on pacing / txtime timers */
	CHECK(m.s->wq_n > 0);	/* classes waiting on tokens */
	/* Purge 7 at a time, with new packets arriving between pieces. */
	while ((got = xtx_sched__purge(m.s, out, 7)) > 0) {
		char err[256];

		for (i = 0; i < got; i++) {
			led_back(&m, &out[i]);
			m.inq[m.cls_of[out[i].addr]]--;
		}
		total += got;
		if (_xtx_sched__check(m.s, err, sizeof(err)))
			check_report(0, __FILE__, __LINE__, "check during purge", err);
		if (rounds++ < 5)
			sim_enq(&m, (uint16_t)fq, 99, 500, m.now + MS(3), 2);
	}
	CHECK(total > 0);
	CHECK_EQ_U64(0, xtx_sched__qlen(m.s));
	CHECK_EQ_U64(0, class_qlen(&m, (unsigned)fq));
	CHECK_EQ_U64(0, class_qlen(&m, (unsigned)fifo));
	CHECK_EQ_U64(0, xtx_sched__purge(m.s, out, 7));
	sim_check_counts(&m);

	/* Works again: traffic flows, timers that were armed before the purge fire
	 * harmlessly, and every flow ends detached. */
	sim_enq(&m, (uint16_t)fq, 5, 1000, 0, 10);
	sim_enq(&m, (uint16_t)fifo, 5, 1000, m.now + MS(2), 10);
	while (xtx_sched__qlen(m.s)) {
		got = sim_deq(&m, out, 7, &next);
		if (!got && !sim_jump(&m, next))
			break;
	}
	m.now += SEC(2);
	sim_deq(&m, out, 7, &next);	/* fires what is left, detaches emptied flows */
	sim_deq(&m, out, 7, &next);
	CHECK_EQ_U64(UINT64_MAX, next);
	{
		struct xtx_class_stats st;

		xtx_sched__class_stats(m.s, (unsigned)fq, &st);
		CHECK_EQ_U64(0, st.qlen);
	}
	sim_finish(&m);
}

/* Flows waiting on a timer that purge empties keep their timer entry; fill and purge
 * many times with no dequeue in between: the timer heap (sized by the pool, 4 here) must
 * make room by dropping the emptied entries. */
static void test_purge_waiting(void)
{
	struct sim m;
	struct xtx_desc out[8];
	uint64_t next;
	unsigned round, i, got;

	sim_init(&m, two_leaves(100, 100, 0), 4, 0);
	m.check_every = 1;
	for (round = 0; round < 50; round++) {
		for (i = 0; i < 4; i++)
			CHECK_EQ_U64(1, sim_enq(&m, 1, round * 4 + i, 100, m.now + MS(5), 1));
		CHECK(m.s->fh_n <= m.s->fh_cap);
		while ((got = xtx_sched__purge(m.s, out, 8)) > 0)
			for (i = 0; i < got; i++) {
				led_back(&m, &out[i]);
				m.inq[m.cls_of[out[i].addr]]--;
			}
		{
			char err[256];

			if (_xtx_sched__check(m.s, err, sizeof(err)))
				check_report(0, __FILE__, __LINE__, "check after purge", err);
		}
	}
	/* The timers left behind fire harmlessly; everything ends detached. */
	m.now += MS(10);
	CHECK_EQ_U64(0, sim_deq(&m, out, 8, &next));
	CHECK_EQ_U64(UINT64_MAX, next);
	{
		struct xtx_class_stats st;

		xtx_sched__class_stats(m.s, 1, &st);
		CHECK_EQ_U64(0, st.flows);
	}
	sim_finish(&m);
}

/* absorbs() holds with `below` packets queued in class cls, and not with one more. */
static void absorbs_edge(struct xtx_sched_config *cfg, uint32_t pool, uint16_t cls,
			 unsigned below)
{
	struct sim m;

	sim_init(&m, cfg, pool, 0);
	m.check_every = 1;
	CHECK_EQ_U64(below, sim_enq(&m, cls, 1, 64, 0, below));
	CHECK_EQ_I64(1, xtx_sched__absorbs(m.s));
	CHECK_EQ_U64(1, sim_enq(&m, cls, 1, 64, 0, 1));
	CHECK_EQ_I64(0, xtx_sched__absorbs(m.s));
	sim_finish(&m);
}

/* xtx_sched__absorbs(): 0 exactly while XTX_SCHED_ABSORB (64) more packets could meet a
 * leaf's limit or flow_limit, or exhaust the pool; the checker recounts s->near after
 * every operation (check_every = 1). */
static void test_absorbs(void)
{
	struct xtx_desc out[64];
	struct sim m;
	uint64_t next;
	uint32_t i;

	/* fq leaf: limit 200, flow_limit 100 -> near from 37 queued; FIFO leaf from 137 */
	sim_init(&m, two_leaves(200, 100, 0), 0, 0);
	m.check_every = 1;
	CHECK_EQ_I64(1, xtx_sched__absorbs(m.s));
	for (i = 0; i < 36; i++)
		CHECK_EQ_U64(1, sim_enq(&m, 1, i % 4, 64, 0, 1));
	CHECK_EQ_I64(1, xtx_sched__absorbs(m.s));
	CHECK_EQ_U64(1, sim_enq(&m, 1, 9, 64, 0, 1));		/* 37: 37 + 64 > 100 */
	CHECK_EQ_I64(0, xtx_sched__absorbs(m.s));
	CHECK_EQ_U64(1, sim_deq(&m, out, 1, &next));		/* back to 36 */
	CHECK_EQ_I64(1, xtx_sched__absorbs(m.s));
	CHECK_EQ_U64(136, sim_enq(&m, 2, 1, 64, 0, 136));
	CHECK_EQ_I64(1, xtx_sched__absorbs(m.s));
	CHECK_EQ_U64(1, sim_enq(&m, 2, 1, 64, 0, 1));		/* FIFO at 137 */
	CHECK_EQ_I64(0, xtx_sched__absorbs(m.s));
	while (sim_deq(&m, out, 64, &next))
		;
	CHECK_EQ_I64(1, xtx_sched__absorbs(m.s));
	sim_finish(&m);

	/* a flow limit below 64: never, even empty */
	sim_init(&m, two_leaves(200, 63, 0), 0, 0);
	m.check_every = 1;
	CHECK_EQ_I64(0, xtx_sched__absorbs(m.s));
	sim_finish(&m);
	absorbs_edge(two_leaves(200, 64, 0), 0, 1, 0);		/* 64: only while empty */
	absorbs_edge(two_leaves(1000, 1000, 0), 100, 2, 36);	/* pool of 100: 64 free */

	/* after a purge absorbs() prunes the list: it absorbs again */
	sim_init(&m, two_leaves(200, 100, 0), 0, 0);
	m.check_every = 1;
	CHECK_EQ_U64(90, sim_enq(&m, 1, 3, 64, 0, 90));
	CHECK_EQ_U64(150, sim_enq(&m, 2, 3, 64, 0, 150));
	CHECK_EQ_I64(0, xtx_sched__absorbs(m.s));
	while ((i = xtx_sched__purge(m.s, out, 7)) > 0)
		for (uint32_t k = 0; k < i; k++) {
			led_back(&m, &out[k]);
			m.inq[m.cls_of[out[k].addr]]--;
		}
	CHECK_EQ_I64(1, xtx_sched__absorbs(m.s));
	sim_finish(&m);
}

int main(void)
{
	test_absorbs();
	test_limits();
	test_no_class();
	test_no_bufs();
	test_purge();
	test_purge_waiting();
	return check_summary("test_sched_limits");
}
