/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sched_codel.c - CoDel per flow (xtx/sched.h, sched_codel.c) against RFC 8289 and
 * the kernel's codel_dequeue(), on a virtual clock.
 *
 * A leaf of 10 Mbit/s (rate = ceil) with CoDel at 5 ms / 100 ms; sources send 1000-byte
 * packets at fixed gaps; each packet's sojourn is taken from the test's own enqueue
 * times. Checked:
 *   - entry: the first drop is the first dequeue more than one interval after the first
 *     head that waited target or more (constant overload: the sojourn only grows);
 *   - the control law: drop k of a dropping state at the first dequeue at or after
 *     T1 + sum_{j<k} interval / sqrt(j) (reference in long double), and no other drop;
 *   - exit: no drop after a head left with less than target;
 *   - re-entry within 16 intervals starts count at the last state's count - 1;
 *   - a flow with at most one MTU behind its head is never dropped (4 x 500 bytes
 *     queued: none; 5: drops);
 *   - per flow: a light flow beside an overloaded one in the same leaf loses nothing
 *     and waits less than target;
 *   - ECN: ECT packets are marked at the same instants instead of dropped, counted,
 *     and still sent;
 *   - the scheduler's default (xtx_sched_opts.codel) and `codel off`;
 *   - the harness's ledger: every dropped descriptor comes back once
 *     (xtx_sched__take_dropped()), per class conservation, the invariant walk.
 */
#include "sched_harness.h"

#define PKT		1000u
#define WIRE		(PKT + XTX_ETH_OVERHEAD)
#define RATE		MBIT(10)
#define PKT_NS		(WIRE * 1000000000ull / RATE)	/* 819.2 us on the wire */
#define TARGET		MS(5)
#define INTERVAL	MS(100)
#define MAXADDR		(1u << 20)
#define MAXDROPS	20000u

struct csrc {
	uint32_t hash;
	uint16_t len;
	uint64_t gap;		/* ns between packets; 0: off */
	uint64_t next;		/* its next packet */
};

struct rec {
	uint64_t *enq_t;	/* per addr */
	uint64_t drop_t[MAXDROPS];
	uint32_t drop_h[MAXDROPS];
	unsigned nd;
	/* per flow hash 0..3: packets sent, dropped, largest sojourn sent */
	uint64_t sent[4], dropped[4], max_soj[4];
	uint64_t above;		/* first send of the run of sends at or above target */
	uint64_t above_at_drop;	/* that, at the first drop */
	uint64_t first_fast_after;	/* first time after `watch_t` one left under it */
	uint64_t watch_t;
	unsigned marks_called;
	uint64_t *send_t;	/* every send's time, in order */
	uint64_t ns;
};

static void on_aqm(struct sim *m, const struct xtx_desc *d)
{
	struct rec *r = m->user;

	if (!r->nd)
		r->above_at_drop = r->above;
	if (r->nd < MAXDROPS) {
		r->drop_t[r->nd] = m->now;
		r->drop_h[r->nd++] = d->hash;
	}
	r->dropped[d->hash & 3]++;
}

/* ECT: odd hashes. */
static int mark_odd(void *ctx, const struct xtx_desc *d)
{
	struct rec *r = ctx;

	r->marks_called++;
	return d->hash & 1;
}

static struct xtx_sched_config *leaf_cfg(uint8_t codel, uint8_t ecn)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, RATE, RATE);

	cfg_add(cfg, &o);
	o = copts(XTX_HANDLE(1, 0x10), XTX_HANDLE(1, 0), RATE, RATE);
	o.fq = 1;
	o.flow_limit = 100000;	/* CoDel acts, not the limits */
	o.limit = 100000;
	o.codel = codel;
	o.codel_ecn = ecn;
	o.codel_target = codel == XTX_CODEL_OFF ? 0 : TARGET;
	o.codel_interval = codel == XTX_CODEL_OFF ? 0 : INTERVAL;
	cfg_add(cfg, &o);
	return cfg;
}

static void start(struct sim *m, struct rec *r, struct xtx_sched_config *cfg, uint8_t dflt)
{
	struct xtx_sched_opts so = { .sz = sizeof(so), .codel = dflt, .ecn_mark = mark_odd,
				     .ecn_ctx = r };

	memset(r, 0, sizeof(*r));
	r->enq_t = calloc(MAXADDR, sizeof(uint64_t));
	r->send_t = calloc(MAXADDR, sizeof(uint64_t));
	sim_init_opts(m, cfg, &so);
	m->on_aqm = on_aqm;
	m->user = r;
	m->check_every = 997;
}

static void stop(struct sim *m, struct rec *r)
{
	sim_check_counts(m);
	sim_finish(m);
	free(r->enq_t);
	free(r->send_t);
}

/* Run the sources until `until`, one packet per dequeue call. */
static void drive(struct sim *m, struct rec *r, unsigned cls, struct csrc *v, unsigned nv,
		  uint64_t until)
{
	struct xtx_desc out[1];
	uint64_t next = 0;

	for (unsigned i = 0; i < nv; i++)
		if (v[i].gap && v[i].next < m->now)
			v[i].next = m->now;
	while (m->now < until && m->seq < MAXADDR - 8) {
		uint64_t t = until;

		for (unsigned i = 0; i < nv; i++) {
			while (v[i].gap && v[i].next <= m->now) {
				r->enq_t[m->seq] = m->now;
				sim_enq(m, (uint16_t)cls, v[i].hash, v[i].len, 0, 1);
				v[i].next += v[i].gap;
			}
			if (v[i].gap && v[i].next < t)
				t = v[i].next;
		}
		if (sim_deq(m, out, 1, &next)) {
			uint64_t soj = m->now - r->enq_t[out[0].addr];
			/* as the scheduler sees it: stamps in 1024 ns units */
			uint64_t ssoj = (uint64_t)((uint32_t)(m->now >> 10) -
						   (uint32_t)(r->enq_t[out[0].addr] >> 10)) << 10;
			unsigned h = out[0].hash & 3;

			r->sent[h]++;
			r->send_t[r->ns++] = m->now;
			if (soj > r->max_soj[h])
				r->max_soj[h] = soj;
			if (ssoj < TARGET)
				r->above = 0;
			else if (!r->above)
				r->above = m->now;
			if (soj < TARGET && r->watch_t && m->now >= r->watch_t &&
			    !r->first_fast_after)
				r->first_fast_after = m->now;
			continue;
		}
		if (next < t)
			t = next;
		m->now = t;
	}
}

/* A drop due at ref (ns, +-2 for the reference's rounding) came at t: at the first
 * head CoDel looked at from ref on, so no packet was sent in [ref, t). */
static bool on_time(const struct rec *r, long double ref, uint64_t t)
{
	uint64_t lo = (uint64_t)(ref + 2);

	if ((long double)t < ref - 2)
		return false;
	for (uint64_t i = 0; i < r->ns; i++)
		if (r->send_t[i] >= lo && r->send_t[i] < t)
			return false;
	return true;
}

/* The drops r->drop_t[0..n-1] of one dropping state: drop k due at
 * drop_t[0] + sum_{j<k} interval / sqrt(j). Returns how many were on time, and checks
 * that none is missing up to `end`. */
static unsigned check_law(const struct rec *r, unsigned n, uint64_t end)
{
	long double ref = (long double)r->drop_t[0];
	unsigned k, good = 1, want = 1;

	for (k = 1; k < n; k++) {
		ref += (long double)INTERVAL / sqrtl((long double)k);
		if (on_time(r, ref, r->drop_t[k]))
			good++;
		else if (k - good < 3)
			fprintf(stderr, "drop %u at %.0Lf ns from its reference time\n", k,
				(long double)r->drop_t[k] - ref);
	}
	/* none missing: every drop due before the last send was made */
	ref = (long double)r->drop_t[0];
	for (k = 1;; k++) {
		ref += (long double)INTERVAL / sqrtl((long double)k);
		if (ref + 2 >= (long double)r->send_t[r->ns - 1] || ref >= (long double)end)
			break;
		want++;
	}
	CHECK_EQ_U64(want, n);
	printf("    %u drops, %u due by the law, %u on time\n", n, want, good);
	return good;
}

static void test_law_and_exit(void)
{
	struct sim m;
	struct rec *r = calloc(1, sizeof(*r));
	struct csrc heavy = { .hash = 1 << 2, .len = PKT, .gap = PKT_NS * 2 / 3 };
	unsigned c, n1;
	uint64_t t_end1, c1;

	printf("one flow at 1.5x the class's rate for 1 s, then 0.25x, then 1.5x\n");
	start(&m, r, leaf_cfg(XTX_CODEL_ON, 0), 0);
	c = (unsigned)cls_idx(&m, XTX_HANDLE(1, 0x10));
	drive(&m, r, c, &heavy, 1, T0 + SEC(1));
	t_end1 = m.now;
	CHECK(r->nd > 3);
	/* entry: the first head looked at after a whole interval at or above target */
	CHECK(r->above_at_drop && r->drop_t[0] > r->above_at_drop + INTERVAL);
	CHECK(on_time(r, (long double)(r->above_at_drop + INTERVAL + 1), r->drop_t[0]));
	printf("    heads at target from %.3f ms, first drop %.3f ms after\n",
	       (double)(r->above_at_drop - T0) / 1e6,
	       (double)(r->drop_t[0] - r->above_at_drop) / 1e6);
	n1 = r->nd;
	CHECK(check_law(r, n1, t_end1) == n1);

	/* exit: light load, the queue drains; once a head leaves under target, no drop */
	struct _xtx_leaf *L = &m.s->leaves[m.s->cls_leaf[c]];
	uint32_t fi = (uint32_t)((uint64_t)(uint32_t)((heavy.hash) * 0x9e3779b1u) >> L->hash_shift);

	CHECK(L->cv[fi].dropping == 1);
	heavy.gap = PKT_NS * 4;
	r->watch_t = m.now;
	drive(&m, r, c, &heavy, 1, T0 + SEC(2));
	CHECK(r->first_fast_after != 0);
	for (unsigned k = n1; k < r->nd; k++)
		CHECK(r->drop_t[k] < r->first_fast_after);
	CHECK(L->cv[fi].dropping == 0);
	c1 = L->cv[fi].count;
	printf("    state left at %.3f s after %" PRIu64 " drops (%u in the drain)\n",
	       (double)(r->first_fast_after - T0) / 1e9, c1, r->nd - n1);

	/* re-entry less than 16 intervals later: count starts at c1 - lastcount (1) */
	unsigned n2 = r->nd;

	heavy.gap = PKT_NS * 2 / 3;
	drive(&m, r, c, &heavy, 1, T0 + SEC(3));
	CHECK(r->nd > n2 + 2);
	if (r->nd > n2 + 2) {
		long double gap = (long double)(r->drop_t[n2 + 1] - r->drop_t[n2]);
		long double want = (long double)INTERVAL / sqrtl((long double)(c1 - 1));

		printf("    re-entry: first gap %.3Lf ms, interval / sqrt(%" PRIu64 ") = %.3Lf ms\n",
		       gap / 1e6, c1 - 1, want / 1e6);
		CHECK(on_time(r, (long double)r->drop_t[n2] + want, r->drop_t[n2 + 1]));
	}
	stop(&m, r);
	free(r);
}

/* A flow that keeps `depth` 500-byte packets queued in a 1000 B/s class for 20 s. */
static uint64_t mtu_run(unsigned depth)
{
	struct sim m;
	struct rec *r = calloc(1, sizeof(*r));
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = copts(XTX_HANDLE(1, 0), XTX_HANDLE_ROOT, 1000, 1000);
	struct xtx_desc out[1];
	uint64_t next = 0, d;
	unsigned c;

	o.codel = XTX_CODEL_ON;
	cfg_add(cfg, &o);
	start(&m, r, cfg, 0);
	c = (unsigned)cls_idx(&m, XTX_HANDLE(1, 0));
	while (m.now < T0 + SEC(20)) {
		while (class_qlen(&m, c) < depth) {
			r->enq_t[m.seq] = m.now;
			sim_enq(&m, (uint16_t)c, 7, 500, 0, 1);
		}
		if (!sim_deq(&m, out, 1, &next) && !sim_jump(&m, next))
			break;
	}
	d = class_drops(&m, c, XTX_DROP_CODEL);
	stop(&m, r);
	free(r);
	return d;
}

static void test_mtu(void)
{
	uint64_t d4 = mtu_run(4), d5 = mtu_run(5);

	printf("a flow waiting ~2 s with 1500 bytes behind its head: %" PRIu64 " drops; "
	       "2000 bytes: %" PRIu64 "\n", d4, d5);
	CHECK_EQ_U64(0, d4);
	CHECK(d5 > 0);
}

static void test_per_flow(void)
{
	struct sim m;
	struct rec *r = calloc(1, sizeof(*r));
	struct csrc v[2] = {
		{ .hash = 1 << 2, .len = PKT, .gap = PKT_NS * 2 / 3 },	/* hash & 3 == 0 */
		{ .hash = (2 << 2) | 1, .len = PKT, .gap = PKT_NS * 10 },	/* & 3 == 1 */
	};
	unsigned c;

	printf("an overloaded flow and a light one (0.1x) in one leaf, 2 s\n");
	start(&m, r, leaf_cfg(XTX_CODEL_ON, 0), 0);
	c = (unsigned)cls_idx(&m, XTX_HANDLE(1, 0x10));
	drive(&m, r, c, v, 2, T0 + SEC(2));
	printf("    heavy: %" PRIu64 " sent %" PRIu64 " dropped; light: %" PRIu64 " sent %" PRIu64
	       " dropped, longest wait %.3f ms\n", r->sent[0], r->dropped[0], r->sent[1],
	       r->dropped[1], (double)r->max_soj[1] / 1e6);
	CHECK(r->dropped[0] > 0);
	CHECK_EQ_U64(0, r->dropped[1]);
	CHECK(r->max_soj[1] < TARGET);
	stop(&m, r);
	free(r);
}

/* One overloaded flow for 1 s with ECN on: ECT (odd hash) or not. Returns the event
 * times (drops or marks) in at[]. */
static unsigned ecn_run(bool ect, uint64_t *at, uint64_t *marks, uint64_t *drops,
			uint64_t *sent)
{
	struct sim m;
	struct rec *r = calloc(1, sizeof(*r));
	struct csrc s = { .hash = ect ? 1 : 0, .len = PKT, .gap = PKT_NS * 2 / 3 };
	struct xtx_class_stats st;
	unsigned c, n = 0;
	uint64_t last_marks = 0;

	start(&m, r, leaf_cfg(XTX_CODEL_ON, 1), 0);
	c = (unsigned)cls_idx(&m, XTX_HANDLE(1, 0x10));
	/* step the run to see each mark's time: 1 ms slices, marks counted per slice
	 * are at most one here (interval / sqrt(count) >> 1 ms for count < 10^4) */
	for (uint64_t t = T0 + MS(1); t <= T0 + SEC(1); t += MS(1)) {
		drive(&m, r, c, &s, 1, t);
		xtx_sched__class_stats(m.s, c, &st);
		if (st.ecn_marks > last_marks && n < MAXDROPS)
			at[n++] = m.now;
		last_marks = st.ecn_marks;
	}
	xtx_sched__class_stats(m.s, c, &st);
	*marks = st.ecn_marks;
	*drops = st.drops[XTX_DROP_CODEL];
	*sent = st.sent_pkts;
	if (!ect) {
		n = r->nd;
		memcpy(at, r->drop_t, n * sizeof(*at));
	}
	CHECK(r->marks_called == (ect ? *marks : *drops));
	stop(&m, r);
	free(r);
	return n;
}

static void test_ecn(void)
{
	static uint64_t at_m[MAXDROPS], at_d[MAXDROPS];
	uint64_t marks, drops, sent, marks2, drops2, sent2;
	unsigned nm = ecn_run(true, at_m, &marks, &drops, &sent);
	unsigned nd = ecn_run(false, at_d, &marks2, &drops2, &sent2);

	printf("ECN: ECT flow %" PRIu64 " marked, %" PRIu64 " dropped; Not-ECT %" PRIu64
	       " marked, %" PRIu64 " dropped\n", marks, drops, marks2, drops2);
	CHECK(marks > 3);
	CHECK_EQ_U64(0, drops);
	CHECK_EQ_U64(0, marks2);
	CHECK(drops2 > 3);
	CHECK(marks + 1 >= drops2 && drops2 + 1 >= marks);	/* the same control law */
	CHECK(nm == marks);
	/* marks are seen to the 1 ms slice; the first at the same instant as the drop */
	if (nm && nd) {
		CHECK(at_m[0] >= at_d[0] && at_m[0] < at_d[0] + MS(1) + 1);
	}
}

/* The scheduler's default turns CoDel on where the class says nothing, `off` wins. */
static void test_default(void)
{
	static const struct { uint8_t cls, dflt; bool on; } cases[] = {
		{ XTX_CODEL_DEFAULT, XTX_CODEL_ON, true },
		{ XTX_CODEL_DEFAULT, 0, false },
		{ XTX_CODEL_OFF, XTX_CODEL_ON, false },
		{ XTX_CODEL_ON, 0, true },
	};

	printf("default and off\n");
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim m;
		struct rec *r = calloc(1, sizeof(*r));
		struct csrc s = { .hash = 4, .len = PKT, .gap = PKT_NS * 2 / 3 };
		unsigned c;
		uint64_t d;

		start(&m, r, leaf_cfg(cases[i].cls, 0), cases[i].dflt);
		c = (unsigned)cls_idx(&m, XTX_HANDLE(1, 0x10));
		drive(&m, r, c, &s, 1, T0 + MS(500));
		d = class_drops(&m, c, XTX_DROP_CODEL);
		printf("    class %u, scheduler %u: %" PRIu64 " drops\n", cases[i].cls,
		       cases[i].dflt, d);
		CHECK(cases[i].on ? d > 0 : d == 0);
		stop(&m, r);
		free(r);
	}
}

int main(void)
{
	test_law_and_exit();
	test_mtu();
	test_per_flow();
	test_ecn();
	test_default();
	return check_summary("test_sched_codel");
}
