/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sched_random.c - random trees and random traffic against the invariants.
 *
 * Each seed builds a random valid tree (1-2 roots, up to 5 levels, random rates, ceils,
 * prios, quanta, fq or FIFO leaves, flow tables of 1-64 slots, limits, maxrate, some slow
 * leaves with buckets deeper than sch_htb's 60 s clamp) and
 * drives it with random bursts: random classes (also invalid indexes), hashes, sizes
 * (a few of 0 bytes),
 * txtimes (some beyond the horizon), random dequeue burst sizes, a clock that jumps to
 * next_ns or beyond it (a late engine), and a partial purge midway. After every call the
 * scheduler's own invariant walk runs. At the end:
 *   - every descriptor came back exactly once, none before its txtime;
 *   - per class, offered == accepted + refused, accepted == sent + purged + queued;
 *   - per leaf, wire bytes sent <= ceil * elapsed + 2 * cburst + one frame (it can only
 *     send while its ctokens allow);
 *   - per flow hash and class, packets left in arrival order;
 *   - a twin scheduler given the same calls, with deferred charging off and the other
 *     enqueue path (prefetching or not), answered every call the same (sched_harness.h).
 */
#include "sched_harness.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SEEDS	12
#define STEPS	3000
#else
#define SEEDS	60
#define STEPS	6000
#endif

static uint64_t tot_sent, tot_drops[XTX_DROP__MAX], tot_borrows, tot_throttled, tot_no_class;

struct tree {
	unsigned n;
	uint32_t handle[64], parent[64];
	uint64_t rate[64], ceil[64];
	bool has_child[64];
};

static void build(struct tree *t, uint64_t *seed, struct xtx_sched_config *cfg)
{
	unsigned i, roots = 1 + (unsigned)(rnd(seed) % 2);
	uint8_t depth[64];

	memset(t, 0, sizeof(*t));
	for (i = 0; i < roots; i++) {
		t->handle[t->n] = XTX_HANDLE(i + 1, 0);
		t->parent[t->n] = XTX_HANDLE_ROOT;
		t->rate[t->n] = MBIT(10 + rnd(seed) % 990);
		t->ceil[t->n] = t->rate[t->n];
		depth[t->n] = 0;
		t->n++;
	}
	while (t->n < 4 + rnd(seed) % 28) {
		unsigned p = (unsigned)(rnd(seed) % t->n);

		if (depth[p] >= 4)
			continue;
		t->handle[t->n] = XTX_HANDLE(XTX_HANDLE_MAJ(t->handle[p]), t->n + 1);
		t->parent[t->n] = t->handle[p];
		t->ceil[t->n] = t->ceil[p] / (1 + rnd(seed) % 2);
		t->rate[t->n] = t->ceil[t->n] / (1 + rnd(seed) % 8);
		if (!t->rate[t->n])
			t->rate[t->n] = 1;
		depth[t->n] = (uint8_t)(depth[p] + 1);
		t->has_child[p] = true;
		t->n++;
	}
	for (i = 0; i < t->n; i++) {
		struct xtx_class_opts o = copts(t->handle[i], t->parent[i], t->rate[i], t->ceil[i]);

		o.prio = (uint8_t)(rnd(seed) % 3);
		o.quantum = rnd(seed) % 2 ? (uint32_t)(500 + rnd(seed) % 20000) : 0;
		if (rnd(seed) % 2)
			o.burst = (uint32_t)(1 + rnd(seed) % 30000);
		if (!t->has_child[i] && rnd(seed) % 6 == 0) {
			/* a slow leaf with deep buckets: 15-300 s of burst, so debts and
			 * refills reach sch_htb's 60 s clamps */
			o.rate = 1000 + rnd(seed) % 5000;
			o.ceil = o.rate * (1 + rnd(seed) % 2);
			o.burst = (uint32_t)(100000 + rnd(seed) % 200000);
			o.cburst = (uint32_t)(100000 + rnd(seed) % 200000);
		}
		if (!t->has_child[i]) {
			o.fq = (uint8_t)(rnd(seed) % 3 != 0);
			o.limit = (uint32_t)(5 + rnd(seed) % 200);
			if (o.fq) {
				o.flows = 1u << (rnd(seed) % 7);
				o.flow_limit = (uint32_t)(1 + rnd(seed) % 50);
				o.fq_quantum = rnd(seed) % 2 ? (uint32_t)(256 + rnd(seed) % 10000) : 0;
				if (rnd(seed) % 3 == 0)
					o.maxrate = MBIT(1 + rnd(seed) % 100);
			}
		}
		cfg_add(cfg, &o);
	}
	if (rnd(seed) % 2)
		xtx_sched_config__set_overhead(cfg, (uint32_t)(rnd(seed) % 64));
}

static void run_seed(uint64_t s0)
{
	uint64_t seed = s0 * 0x9e3779b97f4a7c15ull + 1, t_start, horizon = MS(30);
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	static uint64_t last[64][256];	/* per class, hash: last addr + 1 */
	uint64_t misordered = 0, over_ceil = 0;
	struct xtx_desc out[64];
	struct tree t;
	struct sim m;
	unsigned step, i;
	char err[256];

	build(&t, &seed, cfg);
	if (xtx_sched_config__validate(cfg, err, sizeof(err))) {
		fprintf(stderr, "seed %" PRIu64 ": generator made an invalid tree: %s\n", s0, err);
		CHECK(0);
		xtx_sched_config__free(cfg);
		return;
	}
	sim_init_twin(&m, cfg, (uint32_t)(rnd(&seed) % 2 ? 0 : 50 + rnd(&seed) % 500), horizon);
	/* Both enqueue paths, the prefetching one and the one for schedulers that fit in
	 * cache, side by side: their outputs must be the same too. */
	m.s->small = s0 & 1;
	m.twin->small = !(s0 & 1);
	m.check_every = 1;
	memset(last, 0, sizeof(last));
	t_start = m.now;

	for (step = 0; step < STEPS; step++) {
		/* alternate heavy (queues fill, limits hit) and light phases (queues drain,
		 * flows detach, leaves go idle, slots get reused) */
		bool heavy = (step / 500) % 2 == 0;
		unsigned k = heavy ? (unsigned)(rnd(&seed) % 4) : rnd(&seed) % 5 == 0, got;
		uint64_t next;

		while (k--) {
			uint16_t cls = (uint16_t)(rnd(&seed) % (m.ncls + 2));
			uint64_t r = rnd(&seed) % 100, tx = 0;

			if (r < 25)
				tx = m.now + rnd(&seed) % MS(20);
			else if (r < 27)
				tx = m.now + horizon + 1 + rnd(&seed) % MS(5);
			else if (r < 30)
				tx = m.now - rnd(&seed) % MS(1);
			/* now and then a zero-length frame: with overhead 0, a charge of 0 */
			uint16_t len = rnd(&seed) % 50 ? (uint16_t)(64 + rnd(&seed) % 2000) : 0;

			sim_enq(&m, cls, (uint32_t)(rnd(&seed) % 256), len, tx,
				1 + (unsigned)(rnd(&seed) % 6));
		}
		got = sim_deq(&m, out, 1 + (unsigned)(rnd(&seed) % 64), &next);
		for (i = 0; i < got; i++) {
			uint16_t c = m.cls_of[out[i].addr];
			uint32_t h = out[i].hash & 255;

			if (c < 64) {
				if (last[c][h] > out[i].addr + 1)
					misordered++;
				last[c][h] = out[i].addr + 1;
			}
		}
		if (!got && next != UINT64_MAX) {
			CHECK(next > m.now);
			m.now = next + (rnd(&seed) % 4 == 0 ? rnd(&seed) % 200000 : 0);
		} else if (rnd(&seed) % 8 == 0) {
			m.now += rnd(&seed) % 100000;
		}
		if (step == STEPS / 2) {	/* partial purge */
			unsigned n = 1 + (unsigned)(rnd(&seed) % 64);
			unsigned p = xtx_sched__purge(m.s, out, n);
			struct xtx_desc tout[64];

			twin_cmp_descs(&m, "purged", out, p, tout, xtx_sched__purge(m.twin, tout, n));

			for (i = 0; i < p; i++) {
				led_back(&m, &out[i]);
				if (m.cls_of[out[i].addr] < m.ncls)
					m.inq[m.cls_of[out[i].addr]]--;
			}
		}
		if (m.check_failed || m.dup || m.early)
			break;
	}

	/* Leaves never beat their ceil. */
	for (i = 0; i < m.ncls; i++) {
		const struct xtx_class_opts *o = xtx_sched_config__class(cfg, i);
		double bound;

		if (!sim_is_leaf(&m, i))
			continue;
		bound = (double)o->ceil * (double)(m.now - t_start) / 1e9 + 2.0 * o->cburst +
			2100 + 64;
		if ((double)m.sent_wire[i] > bound) {
			if (over_ceil++ < 3)
				fprintf(stderr, "seed %" PRIu64 " class %u: sent %" PRIu64 " > bound "
					"%.0f\n", s0, i, m.sent_wire[i], bound);
		}
	}
	CHECK_EQ_U64(0, over_ceil);
	CHECK_EQ_U64(0, misordered);
	for (i = 0; i < m.ncls; i++) {
		struct xtx_class_stats st;
		unsigned r;

		xtx_sched__class_stats(m.s, i, &st);
		if (sim_is_leaf(&m, i))
			tot_sent += st.sent_pkts;
		for (r = 0; r < XTX_DROP__MAX; r++)
			tot_drops[r] += st.drops[r];
		tot_borrows += st.borrows;
		tot_throttled += st.throttled;
	}
	tot_no_class += _xtx_sched__drop_no_class(m.s);
	sim_finish(&m);
}

int main(void)
{
	uint64_t s;

	for (s = 1; s <= SEEDS; s++)
		run_seed(s);
	printf("  %d random trees x %d steps: sent %" PRIu64 ", borrows %" PRIu64 ", throttled %"
	       PRIu64 "\n  drops: leaf %" PRIu64 " flow %" PRIu64 " no_class %" PRIu64
	       " (out of range %" PRIu64 ") no_bufs %" PRIu64 " horizon %" PRIu64 " purged %"
	       PRIu64 "\n", SEEDS, STEPS, tot_sent, tot_borrows, tot_throttled,
	       tot_drops[XTX_DROP_LEAF_LIMIT], tot_drops[XTX_DROP_FLOW_LIMIT],
	       tot_drops[XTX_DROP_NO_CLASS], tot_no_class, tot_drops[XTX_DROP_NO_BUFS],
	       tot_drops[XTX_DROP_HORIZON], tot_drops[XTX_DROP_PURGED]);
	return check_summary(XTX_SCHED_HYSTERESIS ? "test_sched_random" :
			     "test_sched_random (XTX_SCHED_HYSTERESIS=0)");
}
