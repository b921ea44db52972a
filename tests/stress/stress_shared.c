/* SPDX-License-Identifier: BSD-3-Clause */
/* stress_shared.c - device-wide classes (issue 16) under real dequeuer threads: the engine
 * on the null device with Q = 2 and 4 TX queues, every queue's scheduler sharing one
 * xtx_sched_shared (the default with queues > 1), against opts.queue_classes (every class
 * per queue). No root or capability; run by tests/run-tests.sh in the release, ASan and
 * TSan builds. Every wait is bounded (a hang exits 1); no check asserts a wall-clock
 * duration, and none a lower bound on what a rate gives in a measured time.
 *
 * Bounds, in wire bytes (frame + overhead 24; every frame here is >= 60 bytes, so the
 * null device's padding never applies) over T = from before open() to after stop(), an
 * upper bound of the interval the dequeuers ran in (xtx/sched.h, sched_shared.c):
 *   device-wide:  sent <= ceil * T + cburst + Q * (2 * slice + pkt)
 *                 sent on its own rate (sent - borrows) <= rate * T + burst + Q * (...)
 *   per queue:    sent <= Q * (ceil * T + 2 * cburst + 2 * pkt)   (Q HTBs, hysteresis)
 * slice = min(slice_ns, bucket time / 2) in bytes at the bucket's rate, rounded up; pkt
 * the class's largest wire frame.
 *
 *   rates   root 1: 30mbit; leaf 1:10 10mbit (rate = ceil); leaf 1:20 rate 5mbit ceil
 *           30mbit (borrows the rest of the root); leaves limit 300. P = 3 producers, 8
 *           flows per class each spread evenly over the queues, offer 1000-byte frames to
 *           1:10 and 1400-byte frames to 1:20 at 1.5 x Q x ceil each for RUN_MS, then
 *           close; the stages empty; stop with drop_on_close. Q = 2 and 4 at the default
 *           slice, Q = 4 at a 200 us slice; per queue (queue_classes) at Q = 2 and 4.
 *           Checked: per class, offered = sent + leaf_limit drops + purged, exactly, no
 *           other reason, enq = sent + purged, bytes = packets x length, the root's
 *           packets and bytes the sum of its leaves'; per queue, the frames taken from its
 *           stage are exactly those whose hash maps to it (queue = hash * Q >> 32), some
 *           of every class on every queue, stage = sent + dropped, all completed, the null
 *           device's frames and wire bytes those of the classes; every frame back in the
 *           pool; the bounds above. How far the per-queue run goes past the
 *           device-wide bound (about Q x for 1: and 1:10) is printed, not checked: it
 *           depends on how much of RUN_MS the dequeuers got.
 *   burst   the deterministic contrast: one class of rate = ceil 800bit (100 B/s) with
 *           burst = cburst = 200000 bytes, BURST_PER_Q 1000-byte frames per queue offered
 *           at once, stop with drop_on_close. Per queue, each scheduler's buckets start
 *           full, so each queue sends at least floor(200000 / 1024) + 1 = 196 frames
 *           whenever it runs, whatever the timing (tokens only grow): the test waits for
 *           that, and the sum, Q x 196 x 1024 bytes, exceeds the device-wide bound,
 *           200000 + 100 B/s x T + Q x (2 x 1 + 1024) (the slice, 50 us at 100 B/s,
 *           rounds up to 1 byte), for any T below 1993 s (Q = 2): far beyond the
 *           runner's timeout. Device-wide, the test waits until the class sent
 *           floor(200000 / 1024) - Q frames, then 100 ms more, and checks the bound: a
 *           device that did not share would be past it once each dequeuer ran for a
 *           moment. Conservation and spread as in rates.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xtx/xtx.h>
#include "check.h"

#define MAX_Q		4
#define NPROD		3
#define NLEAF		2		/* leaves 1:10, 1:20; the root is class index 0 */
#define NCLS		(NLEAF + 1)
#define NFLOW		8		/* flows per class per producer: NFLOW / Q per queue */
#define BURST		32
#define RUN_MS		600		/* each producer offers this long */
#define OFFER		1.5		/* offered per class / (Q x its ceil) */
#define HANG_NS		(60ull * 1000 * 1000 * 1000)	/* any wait longer is a hang */
#define MS		(1000ull * 1000)

#define RATES_CFG \
	"class 1: rate 30mbit\n" \
	"class 1:10 parent 1: rate 10mbit limit 300\n" \
	"class 1:20 parent 1: rate 5mbit ceil 30mbit limit 300\n"
static const uint16_t leaf_len[NLEAF] = { 1000, 1400 };

#define BURST_CFG	"class 1: rate 800bit burst 200000 cburst 200000 limit 1000\n"
#define BURST_LEN	1000
#define BURST_PER_Q	250		/* > 196 + hysteresis: each queue stays backlogged */


/* The engine's queue for a flow hash among nq queues: multiply-shift, as xtx_queue_of()
 * in userspace/engine/defs.h. */
static unsigned queue_of(unsigned nq, uint32_t hash)
{
	return (unsigned)(((uint64_t)hash * nq) >> 32);
}

/* Flow f (0..NFLOW-1) of source `src`: in the f-th eighth of the hash space, so that for
 * Q = 2 and 4 queue f * Q / NFLOW gets it; the offset (< 2^29) tells sources apart. */
static uint32_t flow_hash(unsigned src, unsigned f)
{
	return (uint32_t)(((uint64_t)f << 32) / NFLOW) + src * 0x10000u + 0x1234u;
}

static struct xtx_sched_config *parse(const char *text, const char *what)
{
	char err[512];
	struct xtx_sched_config *cfg = xtx_sched_config__parse_string(text, what, err,
								       sizeof(err));

	if (!CHECK(cfg != NULL))
		fprintf(stderr, "%s: %s\n", what, err);
	return cfg;
}

static struct xtx_engine *open_engine(struct xtx_engine_opts *o, const char *what)
{
	char err[512];
	struct xtx_engine *e;

	o->sz = sizeof(*o);
	o->ifname = "null";
	o->quiet = 1;
	o->drop_on_close = 1;
	e = xtx_engine__open(o, err, sizeof(err));
	if (!CHECK(e != NULL))
		fprintf(stderr, "%s: open null: %s\n", what, err);
	return e;
}

/* Slice of a bucket of `bytes` at `rate` B/s, in bytes, rounded up: min(slice_ns, bucket
 * time / 2) (sched_shared.c, init_bucket()). */
static double slice_bytes(uint64_t rate, uint32_t bytes, uint64_t slice_ns)
{
	double depth_ns = (double)bytes * 1e9 / (double)rate;
	double sl = depth_ns / 2 < (double)slice_ns ? depth_ns / 2 : (double)slice_ns;

	return (double)(uint64_t)(sl * (double)rate / 1e9) + 1;
}

/* The device-wide bound of a bucket (rate, depth bytes) over t_ns on nq queues. */
static double dev_bound(uint64_t rate, uint32_t bytes, uint64_t t_ns, unsigned nq,
			uint64_t slice_ns, uint32_t pkt)
{
	return (double)rate * (double)t_ns / 1e9 + bytes +
	       nq * (2 * slice_bytes(rate, bytes, slice_ns) + pkt);
}

/* The per-queue bound: nq HTBs, each its bucket over t_ns, plus the bucket and a packet
 * more each for sch_htb's hysteresis (at most one bucket of debt) and the last charge. */
static double queue_bound(uint64_t rate, uint32_t bytes, uint64_t t_ns, unsigned nq,
			  uint32_t pkt)
{
	return nq * ((double)rate * (double)t_ns / 1e9 + 2.0 * bytes + 2.0 * pkt);
}

static uint64_t ceil_of(const struct xtx_class_opts *co)
{
	return co->ceil ? co->ceil : co->rate;
}

/* Once the producers closed: wait until every stage is empty (so stop purges only what
 * the schedulers hold, counted per class). */
static void wait_stages(struct xtx_engine *e, const char *what)
{
	struct xtx_frame_count fc;
	uint64_t t0 = check_now_ns();

	for (;;) {
		xtx_engine__frames(e, &fc);
		if (!fc.stage)
			return;
		if (check_now_ns() - t0 > HANG_NS)
			check_die("stress_shared", what, "the stages did not empty in 60 s");
		usleep(1000);
	}
}

/* --- the checks both tests share ------------------------------------------------------ */

/* What the producers gave the engine: per class index and per queue, frames and bytes. */
struct offered {
	uint64_t pkts[NCLS], bytes[NCLS];
	uint64_t q_pkts[MAX_Q], q_cls[MAX_Q][NCLS];
};

static void offered_add(struct offered *sum, const struct offered *o)
{
	for (unsigned c = 0; c < NCLS; c++) {
		sum->pkts[c] += o->pkts[c];
		sum->bytes[c] += o->bytes[c];
	}
	for (unsigned q = 0; q < MAX_Q; q++) {
		sum->q_pkts[q] += o->q_pkts[q];
		for (unsigned c = 0; c < NCLS; c++)
			sum->q_cls[q][c] += o->q_cls[q][c];
	}
}

/* After stop: leaf c (fixed frame length len) accounts for every frame offered to it:
 * sent, refused at its limit, or purged; nothing else. Returns its wire bytes sent. */
static uint64_t check_leaf(const char *what, struct xtx_engine *e, unsigned c,
			   const struct offered *o, uint32_t len, uint32_t overhead,
			   struct xtx_class_stats *cs)
{
	uint64_t other = 0;

	CHECK_EQ_I64(0, xtx_engine__class_stats(e, c, cs));
	for (int r = 0; r < XTX_DROP__MAX; r++)
		if (r != XTX_DROP_LEAF_LIMIT && r != XTX_DROP_PURGED)
			other += cs->drops[r];
	if (!CHECK_EQ_U64(o->pkts[c], cs->sent_pkts + cs->drops[XTX_DROP_LEAF_LIMIT] +
			  cs->drops[XTX_DROP_PURGED]))
		fprintf(stderr, "%s: class %u: %lu offered, %lu sent, %lu over the limit, %lu "
			"purged\n", what, c, (unsigned long)o->pkts[c],
			(unsigned long)cs->sent_pkts,
			(unsigned long)cs->drops[XTX_DROP_LEAF_LIMIT],
			(unsigned long)cs->drops[XTX_DROP_PURGED]);
	CHECK_EQ_U64(0, other);
	CHECK_EQ_U64(cs->enq_pkts, cs->sent_pkts + cs->drops[XTX_DROP_PURGED]);
	CHECK_EQ_U64(cs->enq_pkts * len, cs->enq_bytes);
	CHECK_EQ_U64(cs->sent_pkts * len, cs->sent_bytes);
	CHECK_EQ_U64(o->bytes[c], o->pkts[c] * len);
	CHECK_EQ_U64(0, cs->qlen);
	return cs->sent_bytes + cs->sent_pkts * overhead;
}

/* After stop: queue q took exactly the frames whose hash maps to it from its stage;
 * each was sent (and completed, by the null device) or dropped; the device's wire bytes
 * added to *wire. Every drop is one a class counted (none from the stage at stop). */
static void check_queue(struct xtx_engine *e, unsigned q, const struct offered *o,
			uint64_t *wire, uint64_t *drops)
{
	struct xtx_queue_stats qs;
	struct xtx_null_stats ns;
	uint64_t d = 0;

	CHECK_EQ_I64(0, xtx_engine__queue_stats(e, q, &qs));
	CHECK_EQ_I64(0, xtx_engine__null_stats(e, q, &ns));
	for (int r = 0; r < XTX_DROP__MAX; r++) {
		d += qs.drops[r];
		drops[r] += qs.drops[r];
	}
	CHECK(o->q_pkts[q] > 0);
	CHECK_EQ_U64(o->q_pkts[q], qs.stage_pkts);
	CHECK_EQ_U64(qs.stage_pkts, qs.sent_pkts + d);
	CHECK_EQ_U64(qs.sent_pkts, qs.completed);
	CHECK_EQ_U64(qs.sent_pkts, ns.frames);
	CHECK_EQ_U64(qs.sent_bytes, ns.bytes);
	CHECK_EQ_U64(0, qs.kick_errors);
	*wire += ns.wire_bytes;
}

/* The frames after stop: all in the pool. */
static void check_pool(struct xtx_engine *e)
{
	struct xtx_frame_count fc;

	xtx_engine__frames(e, &fc);
	CHECK_EQ_U64(fc.total, fc.pool);
}

/* Check class c's wire bytes (and those on its own rate) against a bound; print both. */
static void check_bound(const char *what, const char *cname, uint64_t wire, double lim,
			uint64_t own, double own_lim, uint64_t ceil, uint64_t t_ns)
{
	printf("  %s %-4s %10lu wire B <= %10.0f (%.4f of it, %.2f Mbit/s over T), own rate "
	       "%10lu <= %10.0f\n", what, cname, (unsigned long)wire, lim, (double)wire / lim,
	       (double)wire * 8e3 / (double)t_ns, (unsigned long)own, own_lim);
	int ok = CHECK((double)wire <= lim);

	if (!(CHECK((double)own <= own_lim) && ok))
		fprintf(stderr, "%s class %s: %lu wire bytes (own rate %lu) over %.0f (%.0f); "
			"ceil %lu B/s, T %.6f s\n", what, cname, (unsigned long)wire,
			(unsigned long)own, lim, own_lim, (unsigned long)ceil,
			(double)t_ns * 1e-9);
}

/* --- rates ------------------------------------------------------------------------------ */

struct rates {
	struct xtx_engine *e;
	unsigned nq;
	int cls[NCLS];			/* class indexes of 1:, 1:10, 1:20 */
	double pps[NLEAF];		/* each producer's offer per leaf */
	pthread_barrier_t go;
	struct offered off[NPROD];	/* each producer's, read after the join */
};

struct prod_arg {
	struct rates *r;
	unsigned id;
};

/* Offer leaf l's frames due by now; returns 0 if the engine held it back. */
static int offer_leaf(struct rates *r, struct xtx_producer *p, unsigned id, unsigned l,
		      uint64_t due, struct offered *o)
{
	unsigned c = (unsigned)r->cls[l + 1];

	while (o->pkts[c] < due) {
		uint64_t a[BURST];
		struct xtx_desc d[BURST];
		unsigned want = due - o->pkts[c] < BURST ? (unsigned)(due - o->pkts[c]) : BURST;
		unsigned n = xtx_producer__get_frames(p, a, want), k;

		for (unsigned i = 0; i < n; i++) {
			unsigned f = (unsigned)((o->pkts[c] + i) % NFLOW);

			d[i] = (struct xtx_desc){ .addr = a[i], .len = leaf_len[l], .cls = (uint16_t)c,
						  .hash = flow_hash(id * NLEAF + l, f) };
		}
		k = xtx_producer__send_burst(p, d, n);
		xtx_producer__put_frames(p, a + k, n - k);
		for (unsigned i = 0; i < k; i++) {
			unsigned q = queue_of(r->nq, d[i].hash);

			o->q_pkts[q]++;
			o->q_cls[q][c]++;
		}
		o->pkts[c] += k;
		o->bytes[c] += (uint64_t)k * leaf_len[l];
		if (k < want)
			return 0;
	}
	return 1;
}

static void *rates_producer(void *arg)
{
	struct prod_arg *a = arg;
	struct rates *r = a->r;
	struct xtx_producer *p = xtx_producer__open(r->e);
	struct offered *o = &r->off[a->id];
	uint64_t t0, t;

	if (!p)
		check_die("stress_shared", "rates: producer open", strerror(errno));
	pthread_barrier_wait(&r->go);
	t0 = check_now_ns();
	while ((t = check_now_ns() - t0) < RUN_MS * MS) {
		int all = 1;

		for (unsigned l = 0; l < NLEAF; l++)
			all &= offer_leaf(r, p, a->id, l, (uint64_t)((double)t * 1e-9 * r->pps[l]), o);
		if (!all)
			xtx_producer__wait(p, MS);
		else
			usleep(500);
	}
	xtx_producer__close(p);
	return NULL;
}

static const char *const cls_name[NCLS] = { "1:", "1:10", "1:20" };

static void rates_run(unsigned nq, int per_queue, uint64_t slice_ns)
{
	struct xtx_sched_config *cfg = parse(RATES_CFG, "rates");
	struct xtx_engine_opts o = { .queues = nq, .queue_classes = per_queue,
				     .slice_ns = slice_ns };
	struct rates r = { .nq = nq };
	struct prod_arg args[NPROD];
	pthread_t th[NPROD];
	struct xtx_class_stats cs[NCLS];
	struct offered sum;
	uint64_t t_open, t_end, wire[NCLS] = { 0 }, dev_wire = 0, qdrops[XTX_DROP__MAX] = { 0 };
	uint64_t sl = slice_ns ? slice_ns : XTX_SCHED_SLICE_NS;
	char what[64];

	snprintf(what, sizeof(what), "rates Q=%u %s", nq,
		 per_queue ? "per queue" : slice_ns ? "device, slice 200us" : "device");
	if (!cfg)
		return;
	o.classes = cfg;
	uint32_t overhead = xtx_sched_config__overhead(cfg);

	t_open = check_now_ns();
	if (!(r.e = open_engine(&o, what)))
		goto out_cfg;
	r.cls[0] = xtx_engine__class_index(r.e, XTX_HANDLE(1, 0));
	r.cls[1] = xtx_engine__class_index(r.e, XTX_HANDLE(1, 0x10));
	r.cls[2] = xtx_engine__class_index(r.e, XTX_HANDLE(1, 0x20));
	for (unsigned c = 0; c < NCLS; c++)
		if (!CHECK_EQ_I64(c, r.cls[c]))
			goto out_engine;
	for (unsigned l = 0; l < NLEAF; l++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, l + 1);

		r.pps[l] = OFFER * nq * (double)ceil_of(co) / leaf_len[l] / NPROD;
	}
	pthread_barrier_init(&r.go, NULL, NPROD);
	for (unsigned i = 0; i < NPROD; i++) {
		args[i] = (struct prod_arg){ &r, i };
		pthread_create(&th[i], NULL, rates_producer, &args[i]);
	}
	for (unsigned i = 0; i < NPROD; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&r.go);
	wait_stages(r.e, what);
	CHECK_EQ_I64(0, xtx_engine__stop(r.e));
	t_end = check_now_ns();

	memset(&sum, 0, sizeof(sum));
	for (unsigned i = 0; i < NPROD; i++)
		offered_add(&sum, &r.off[i]);
	for (unsigned l = 0; l < NLEAF; l++)
		wire[l + 1] = check_leaf(what, r.e, l + 1, &sum, leaf_len[l], overhead, &cs[l + 1]);
	CHECK_EQ_I64(0, xtx_engine__class_stats(r.e, 0, &cs[0]));
	CHECK_EQ_U64(cs[1].sent_pkts + cs[2].sent_pkts, cs[0].sent_pkts);
	CHECK_EQ_U64(cs[1].sent_bytes + cs[2].sent_bytes, cs[0].sent_bytes);
	wire[0] = wire[1] + wire[2];
	for (unsigned q = 0; q < nq; q++) {
		check_queue(r.e, q, &sum, &dev_wire, qdrops);
		for (unsigned c = 1; c < NCLS; c++)
			CHECK(sum.q_cls[q][c] > 0);	/* every class's flows on every queue */
	}
	for (unsigned q = nq; q < MAX_Q; q++)
		CHECK_EQ_U64(0, sum.q_pkts[q]);
	CHECK_EQ_U64(wire[0], dev_wire);
	for (int d = 0; d < XTX_DROP__MAX; d++)	/* every drop a leaf's */
		CHECK_EQ_U64(cs[1].drops[d] + cs[2].drops[d], qdrops[d]);
	check_pool(r.e);

	uint64_t t = t_end - t_open;

	printf("%s: T %.3f s, offered", what, (double)t * 1e-9);
	for (unsigned c = 1; c < NCLS; c++)
		printf(" %s %lu", cls_name[c], (unsigned long)sum.pkts[c]);
	printf("; per queue");
	for (unsigned q = 0; q < nq; q++)
		printf(" %lu", (unsigned long)sum.q_pkts[q]);
	printf("; sent %lu + %lu, over the limit %lu + %lu, purged %lu + %lu\n",
	       (unsigned long)cs[1].sent_pkts, (unsigned long)cs[2].sent_pkts,
	       (unsigned long)cs[1].drops[XTX_DROP_LEAF_LIMIT],
	       (unsigned long)cs[2].drops[XTX_DROP_LEAF_LIMIT],
	       (unsigned long)cs[1].drops[XTX_DROP_PURGED],
	       (unsigned long)cs[2].drops[XTX_DROP_PURGED]);
	for (unsigned c = 0; c < NCLS; c++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, c);
		uint32_t pkt = (c ? leaf_len[c - 1] : leaf_len[NLEAF - 1]) + overhead;
		uint64_t own = wire[c] - (c ? cs[c].borrows * (leaf_len[c - 1] + overhead) : 0);
		double dev = dev_bound(ceil_of(co), co->cburst, t, nq, sl, pkt);

		if (per_queue) {
			check_bound(what, cls_name[c], wire[c],
				    queue_bound(ceil_of(co), co->cburst, t, nq, pkt), own,
				    queue_bound(co->rate, co->burst, t, nq, pkt), ceil_of(co), t);
			printf("  %s %-4s not checked: %.2f x the device-wide bound %.0f\n",
			       what, cls_name[c], (double)wire[c] / dev, dev);
		} else {
			check_bound(what, cls_name[c], wire[c], dev, own,
				    dev_bound(co->rate, co->burst, t, nq, sl, pkt), ceil_of(co), t);
		}
	}
out_engine:
	CHECK_EQ_I64(0, xtx_engine__close(r.e));
out_cfg:
	xtx_sched_config__free(cfg);
}

/* --- burst ------------------------------------------------------------------------------ */

/* Offer BURST_PER_Q frames to each queue (flow q * NFLOW / nq hashes to queue q), all
 * taken (back-pressure: wait). */
static void burst_offer(struct xtx_producer *p, unsigned nq, struct offered *o)
{
	uint64_t t0 = check_now_ns();

	for (unsigned q = 0; q < nq; q++) {
		uint32_t hash = flow_hash(0, q * NFLOW / nq);

		CHECK_EQ_U64(q, queue_of(nq, hash));
		for (unsigned done = 0; done < BURST_PER_Q;) {
			uint64_t a[BURST];
			struct xtx_desc d[BURST];
			unsigned want = BURST_PER_Q - done < BURST ? BURST_PER_Q - done : BURST;
			unsigned n = xtx_producer__get_frames(p, a, want), k;

			for (unsigned i = 0; i < n; i++)
				d[i] = (struct xtx_desc){ .addr = a[i], .len = BURST_LEN, .hash = hash };
			k = xtx_producer__send_burst(p, d, n);
			xtx_producer__put_frames(p, a + k, n - k);
			done += k;
			if (k < want)
				xtx_producer__wait(p, MS);
			if (check_now_ns() - t0 > HANG_NS)
				check_die("stress_shared", "burst", "offering took over 60 s");
		}
		o->pkts[0] += BURST_PER_Q;
		o->bytes[0] += (uint64_t)BURST_PER_Q * BURST_LEN;
		o->q_pkts[q] += BURST_PER_Q;
		o->q_cls[q][0] += BURST_PER_Q;
	}
}

/* Wait (up to HANG_NS) until every queue sent per_q frames and class 0 total; returns
 * whether they did. */
static int wait_sent(struct xtx_engine *e, unsigned nq, uint64_t per_q, uint64_t total)
{
	uint64_t t0 = check_now_ns();

	for (;;) {
		struct xtx_class_stats cs;
		int ok = 1;

		for (unsigned q = 0; q < nq; q++) {
			struct xtx_queue_stats qs;

			xtx_engine__queue_stats(e, q, &qs);
			ok &= qs.sent_pkts >= per_q;
		}
		xtx_engine__class_stats(e, 0, &cs);
		if (ok && cs.sent_pkts >= total)
			return 1;
		if (check_now_ns() - t0 > HANG_NS)
			return 0;
		usleep(1000);
	}
}

static void burst_run(unsigned nq, int per_queue)
{
	struct xtx_sched_config *cfg = parse(BURST_CFG, "burst");
	struct xtx_engine_opts o = { .queues = nq, .queue_classes = per_queue };
	struct xtx_engine *e;
	struct xtx_producer *p;
	struct xtx_class_stats cs;
	struct offered off;
	uint64_t t_open, t_end, dev_wire = 0, qdrops[XTX_DROP__MAX] = { 0 }, qsent[MAX_Q];
	char what[64];

	snprintf(what, sizeof(what), "burst Q=%u %s", nq, per_queue ? "per queue" : "device");
	if (!cfg)
		return;
	o.classes = cfg;

	const struct xtx_class_opts *co = xtx_sched_config__class(cfg, 0);
	uint32_t wire1 = BURST_LEN + xtx_sched_config__overhead(cfg);
	/* What each queue's own HTB sends from its full bucket before it can stop. */
	uint64_t per_q_min = co->cburst / wire1 + 1;

	memset(&off, 0, sizeof(off));
	t_open = check_now_ns();
	if (!(e = open_engine(&o, what)))
		goto out_cfg;
	if (!CHECK((p = xtx_producer__open(e)) != NULL))
		goto out_engine;
	burst_offer(p, nq, &off);
	xtx_producer__close(p);
	if (per_queue) {
		CHECK(wait_sent(e, nq, per_q_min, nq * per_q_min));
	} else {
		CHECK(wait_sent(e, nq, 0, co->cburst / wire1 - nq));
		usleep(100 * 1000);
	}
	wait_stages(e, what);
	CHECK_EQ_I64(0, xtx_engine__stop(e));
	t_end = check_now_ns();

	uint64_t t = t_end - t_open;
	uint64_t wire = check_leaf(what, e, 0, &off, BURST_LEN, wire1 - BURST_LEN, &cs);

	for (unsigned q = 0; q < nq; q++) {
		struct xtx_queue_stats qs;

		check_queue(e, q, &off, &dev_wire, qdrops);
		xtx_engine__queue_stats(e, q, &qs);
		qsent[q] = qs.sent_pkts;
	}
	CHECK_EQ_U64(wire, dev_wire);
	for (int d = 0; d < XTX_DROP__MAX; d++)
		CHECK_EQ_U64(cs.drops[d], qdrops[d]);
	CHECK_EQ_U64(0, cs.drops[XTX_DROP_LEAF_LIMIT]);
	check_pool(e);

	double dev = dev_bound(ceil_of(co), co->cburst, t, nq, XTX_SCHED_SLICE_NS, wire1);

	printf("%s: T %.3f s, %lu offered, %lu sent (per queue", what, (double)t * 1e-9,
	       (unsigned long)off.pkts[0], (unsigned long)cs.sent_pkts);
	for (unsigned q = 0; q < nq; q++)
		printf(" %lu", (unsigned long)qsent[q]);
	printf("), %lu purged\n", (unsigned long)cs.drops[XTX_DROP_PURGED]);
	if (per_queue) {
		/* Deterministic: each queue sent >= per_q_min frames (waited for above). */
		for (unsigned q = 0; q < nq; q++)
			CHECK(qsent[q] >= per_q_min);
		printf("  %s: %lu wire B > the device-wide bound %.0f (%.2f x; at least %lu "
		       "frames per queue)\n", what, (unsigned long)wire, dev, (double)wire / dev,
		       (unsigned long)per_q_min);
		if (!CHECK((double)wire > dev))
			fprintf(stderr, "%s: %lu wire bytes, not above %.0f\n", what,
				(unsigned long)wire, dev);
		check_bound(what, "1:", wire, queue_bound(ceil_of(co), co->cburst, t, nq, wire1),
			    wire, queue_bound(co->rate, co->burst, t, nq, wire1), ceil_of(co), t);
	} else {
		check_bound(what, "1:", wire, dev, wire,
			    dev_bound(co->rate, co->burst, t, nq, XTX_SCHED_SLICE_NS, wire1),
			    ceil_of(co), t);
	}
out_engine:
	CHECK_EQ_I64(0, xtx_engine__close(e));
out_cfg:
	xtx_sched_config__free(cfg);
}

int main(void)
{
	burst_run(2, 0);
	burst_run(2, 1);
	burst_run(4, 0);
	burst_run(4, 1);
	rates_run(2, 0, 0);
	rates_run(4, 0, 0);
	rates_run(4, 0, 200 * 1000);
	rates_run(2, 1, 0);
	rates_run(4, 1, 0);
	return check_summary("stress_shared");
}
