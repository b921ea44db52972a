/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sched_room.c - room (xtx/sched.h "Room"), on a virtual clock: a producer that
 * offers only what the room words allow keeps a backlogged leaf near its target, sends
 * the leaf's whole rate, and is never shut out.
 *
 * The driver plays the engine: after each step it takes the scheduler's room changes
 * (xtx_sched__room_changes()) as the dequeuer publishes them, and a producer adds at
 * most `quota` bytes per room event, of each of its 4 flows at most `flow_quota`, and
 * none while the leaf is full (producer.c's rule). Checked over 5 s of virtual time:
 *   - the rate: within 0.5% of the class's (room never starves a backlogged leaf);
 *   - the backlog: at most budget + quota + one packet, always; the budget within 10%
 *     of target * rate once measured, or of half what the flows' flow_limit holds where
 *     that is less (a 1 Gbit/s leaf with flow_limit 10, where the producer is not
 *     stopped short of the flow limit as in the other cases);
 *   - no drop at the leaf or flow limit; with xtx_sched__set_room_hold(0) the same
 *     1 Gbit/s leaf keeps target * rate and drops at its flow limit (what the hold
 *     prevents);
 *   - the scheduler's invariant walk (backlog and full state against its packets);
 *   - an idle leaf has room and the producer is let go after it drained;
 *   - target off: never full, quota without limit.
 */
#include "sched_harness.h"

#define STEP_NS	10000ull	/* a dequeuer step every 10 us of virtual time */

#define NFLOWS	4

struct rprod {
	uint32_t gen, quota, fquota;	/* the last word seen: per producer, per flow */
	uint32_t total, sent[NFLOWS];	/* in all and per flow, since the last event seen */
	bool full, seen;
	uint64_t events;
};

static void take_changes(struct sim *m, unsigned cls, struct rprod *rp)
{
	struct xtx_room_state rs[8];
	unsigned k, i;

	while ((k = xtx_sched__room_changes(m->s, rs, 8)))
		for (i = 0; i < k; i++) {
			if (rs[i].cls != cls)
				continue;
			if (!rp->seen || rs[i].gen != rp->gen) {
				memset(rp->sent, 0, sizeof(rp->sent));
				rp->total = 0;
				rp->events++;
			}
			rp->seen = true;
			rp->gen = rs[i].gen;
			rp->quota = rs[i].quota;
			rp->fquota = rs[i].flow_quota;
			rp->full = rs[i].full;
		}
}

/* One leaf of `rate` (= ceil) and target, 1000-byte packets, 4 flows, flow_limit flim
 * (0: the default, and the producer stops below 4 x that), budgets held within the
 * limits or not (held), backlogged for `secs` through the room rule; returns the wire
 * bytes sent. */
static uint64_t run_leaf(uint64_t rate, uint64_t target, uint32_t flim, int held,
			 unsigned secs, bool check_backlog)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, GBIT(10), GBIT(10));
	struct xtx_desc out[32];
	struct xtx_class_stats st;
	struct rprod rp = { .quota = UINT32_MAX };	/* no word yet: no limit (engine.c) */
	struct sim m;
	uint64_t end, sent0 = 0, max_bl = 0, next = 0;
	unsigned c, f = 0;

	cfg_add(cfg, &o);
	o = copts(XTX_HANDLE(1, 0x10), XTX_HANDLE(1, 0), rate, rate);
	o.fq = 1;
	o.target = target;
	o.flow_limit = flim;
	cfg_add(cfg, &o);
	sim_init(&m, cfg, 0, 0);
	xtx_sched__set_room_hold(m.s, held);
	c = (unsigned)cls_idx(&m, XTX_HANDLE(1, 0x10));
	take_changes(&m, c, &rp);
	CHECK(rp.seen == (target != XTX_TARGET_OFF));	/* a leaf with a target: its first state */
	end = m.now + SEC(secs);
	while (m.now < end) {
		/* the producer: 1000-byte packets of its 4 flows in turn, each while the
		 * words allow it (64 a step without a limit) */
		for (unsigned k = 0, tries = 0; !rp.full && tries < NFLOWS && k < 64 &&
		     (rp.quota == UINT32_MAX || rp.total < rp.quota) &&
		     (flim || xtx_sched__qlen(m.s) < 256); ) {	/* under 4 x flow_limit */
			unsigned fl = f++ % NFLOWS;

			if (rp.quota != UINT32_MAX && rp.sent[fl] >= rp.fquota) {
				tries++;
				continue;
			}
			tries = 0;
			/* with the hold off the flow limit drops some (checked below) */
		CHECK(sim_enq(&m, (uint16_t)c, 100 + fl, 1000, 0, 1) == 1 || !held);
			rp.sent[fl] += 1000;
			rp.total += 1000;
			k++;
		}
		take_changes(&m, c, &rp);
		sim_deq(&m, out, 32, &next);
		take_changes(&m, c, &rp);
		xtx_sched__class_stats(m.s, c, &st);
		if (st.backlog > max_bl)
			max_bl = st.backlog;
		if (check_backlog && st.room_budget != UINT32_MAX &&
		    !CHECK(st.backlog <= st.room_budget + rp.quota + 1024)) {
			fprintf(stderr, "  backlog %u B, budget %u, quota %u, full %d, qlen %u\n",
				st.backlog, st.room_budget, rp.quota, rp.full, st.qlen);
			break;
		}
		m.now += STEP_NS;
	}
	xtx_sched__class_stats(m.s, c, &st);
	printf("  rate %.1f Mbit/s, target %.3f ms (off: -1), flow_limit %u (0: default), "
	       "hold %s: budget %u B, largest backlog %" PRIu64 " B, %" PRIu64 " room events, %"
	       PRIu64 " closes, %" PRIu64 " flow-limit drops\n", (double)rate * 8e-6,
	       target == XTX_TARGET_OFF ? -1.0 : (double)target * 1e-6, flim,
	       held ? "on" : "off", st.room_budget, max_bl, rp.events, st.room_closes,
	       class_drops(&m, c, XTX_DROP_FLOW_LIMIT));
	if (target != XTX_TARGET_OFF) {
		double want = (double)rate * (double)target * 1e-9;
		double hold = (double)NFLOWS * flim * (1000 + m.overhead) / 2;

		if (flim && hold < want && held)
			want = hold;

		CHECK(fabs((double)st.room_budget - want) <= 0.1 * want);
	} else {
		CHECK_EQ_U64(UINT32_MAX, st.room_budget);
		CHECK_EQ_U64(0, st.room_closes);
	}
	CHECK_EQ_U64(0, class_drops(&m, c, XTX_DROP_LEAF_LIMIT));
	if (held)
		CHECK_EQ_U64(0, class_drops(&m, c, XTX_DROP_FLOW_LIMIT));
	else
		CHECK(class_drops(&m, c, XTX_DROP_FLOW_LIMIT) > 0);
	sent0 = m.sent_wire[c];

	/* the producer stops: the leaf drains, has room, and its word says so */
	for (unsigned i = 0; i < 200000 && xtx_sched__qlen(m.s); i++) {
		if (!sim_deq(&m, out, 32, &next) && !sim_jump(&m, next))
			break;
		take_changes(&m, c, &rp);
	}
	CHECK_EQ_U64(0, xtx_sched__qlen(m.s));
	CHECK(!rp.full && !xtx_sched__room_full(m.s, c));
	CHECK(rp.quota == UINT32_MAX || rp.total == 0);	/* the drain was an event */
	sim_finish(&m);
	return sent0;
}

int main(void)
{
	static const struct { uint64_t rate, target; uint32_t flim; int held; } cases[] = {
		{ MBIT(50), MS(1), 0, 1 },
		{ MBIT(200), MS(1), 0, 1 },
		{ MBIT(1000), MS(1), 0, 1 },
		{ MBIT(1000), MS(1), 10, 1 },	/* 4 x 10 packets hold less than 1 ms */
		{ MBIT(1000), MS(1), 10, 0 },	/* the same without the hold */
		{ MBIT(100), MS(5), 0, 1 },
		{ MBIT(100), XTX_TARGET_OFF, 0, 1 },
	};

	printf("a backlogged leaf through the room rule, 5 s\n");
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = run_leaf(cases[i].rate, cases[i].target, cases[i].flim,
					cases[i].held, 5,
					cases[i].target != XTX_TARGET_OFF);
		double want = (double)cases[i].rate * 5, err = ((double)got - want) / want;

		printf("    sent %" PRIu64 " wire bytes, %+.3f%% of the class's rate\n", got,
		       err * 100);
		CHECK(fabs(err) <= 0.005);
	}
	return check_summary("test_sched_room");
}
