/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_sched.c - nanoseconds per packet through the xtx scheduler (enqueue + dequeue)
 * beside DPDK's rte_sched, and through device-wide classes (issue 16), measured in the
 * same run on the same machine.
 *
 *   xtx        xtx_sched: HTB tree (root + C leaves) with fq in every leaf
 *   rte_sched  DPDK rte_sched: one port, one subport, C pipes, flows hashed onto the 4
 *              best-effort queues of their pipe (rte_sched has no per-flow queues)
 *   xtx_sh_q1  the xtx tree, every class of device scope: one scheduler on an
 *              xtx_sched_shared made for 1 queue (the cost of the shared path itself)
 *   xtx_sh_q2_alt  two schedulers on one xtx_sched_shared, each fed half of the flows,
 *              in one thread taking turns a step each (instructions and cache, no
 *              cross-core traffic)
 *   xtx_pq_q2_alt  the same two schedulers without shared state (per-queue classes)
 *   xtx_sh_q2_thr  two schedulers on one xtx_sched_shared, each in its own thread pinned
 *              to its own CPU (the shared words' cache lines move between the cores)
 *   xtx_pq_q2_thr  the same two threads without shared state
 *
 * Workload: F flows, flow f in leaf/pipe f % C with a random 32-bit hash; packets of 64
 * bytes visit the flows in a scrambled round robin. With two queues, queue q gets the
 * flows with (f / C) % 2 == q when every leaf has two flows or more (each leaf's flows
 * on both queues), else those with f % 2 == q; with one flow both queues get it. Each
 * queue is pre-filled with 128 packets, then each step tops it up to 128 + 32 (a burst
 * of 32 new descriptors while every dequeue gives 32) and dequeues a burst of 32, on the
 * real clock (CLOCK_MONOTONIC for xtx, the TSC inside rte_sched). Rates are 100 Gbit/s
 * for the link; xtx leaves get rate 100G / C and ceil 100G, rte_sched pipes 100G (it
 * cannot borrow). At the packet rates a core reaches here nothing reaches a ceil; with
 * one flow (and more than one leaf) the one busy leaf is over its rate and borrows from
 * the root. A device-wide class's local bucket holds one slice, min(slice_ns, burst
 * time / 2) of its rate (sched.h): with the default burst and slice that is 50 us, so a
 * leaf of 100G / 4096 holds 152 bytes, under two packets of 88 wire bytes, and takes
 * from the device-wide bucket about every other packet it sends; at 64 leaves or fewer
 * a take comes once per hundred packets or more. The short column (and short_bursts in
 * the JSON) counts dequeue calls that gave fewer than 32 packets. The per-packet cost
 * includes writing the descriptor (xtx_desc / rte_sched_port_pkt_write).
 *
 * Each configuration runs K times, interleaved; the median and the spread (max - min) of
 * ns/packet are reported. With two queues, ns/packet is per packet of one queue: in one
 * thread the time over both queues' packets, in two threads the mean over the threads
 * of each one's time over its own packets. rte_sched runs only when built with
 * HAVE_DPDK and rte_eal_init succeeds; otherwise it is skipped with a message.
 *
 * Usage: bench_sched [--runs K] [--pkts N] [--classes 1,64,4096] [--flows 1,1024,65536]
 *                    [--impl xtx,rte_sched,...] [--json FILE] [--md FILE] [--cpu-time]
 *                    [--split] [--slice-ns NS]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xtx/sched.h>
#include "stats.h"

#ifdef HAVE_DPDK
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_sched.h>
#endif

#define LINK_RATE	12500000000ull	/* 100 Gbit/s in bytes/s */
#define PKT_LEN		64
#define BURST		32
#define BACKLOG		128
#define MAXCFG		16

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The measuring clock: wall time, or with --cpu-time this thread's CPU time (ignores
 * time the thread was preempted on a shared machine; not cache interference). */
static bool use_cpu_time;
/* --split: also time enqueue and dequeue calls apart on the wall clock (two more reads
 * per burst of 32) and print each run's share on stderr. */
static bool split;

static uint64_t meas_ns(void)
{
	struct timespec ts;

	clock_gettime(use_cpu_time ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* The flow of the i-th packet: a scrambled round robin over all flows. */
struct flows {
	unsigned n;
	uint32_t *hash;
	uint32_t stride;
};

static void flows_init(struct flows *f, unsigned n)
{
	unsigned i;

	f->n = n;
	f->hash = malloc(n * sizeof(*f->hash));
	if (!f->hash) {
		fprintf(stderr, "bench_sched: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++)
		f->hash[i] = mix32(i * 2654435761u + 12345);
	f->stride = n > 1 ? ((0x9e3779b1u % n) | 1) : 0;	/* odd: a cycle over 2^k flows */
}

static inline unsigned flow_of(const struct flows *f, uint64_t i)
{
	return f->n > 1 ? (unsigned)((i * f->stride) & (f->n - 1)) : 0;
}

/* --- what is measured ---------------------------------------------------------------- */

/* How xtx runs (run_xtx()). */
enum xtx_mode {
	XM_PRIVATE,		/* one scheduler, no xtx_sched_shared */
	XM_SHARED_ALT,		/* nq schedulers, one xtx_sched_shared, one thread */
	XM_PERQ_ALT,		/* nq schedulers, no shared state, one thread */
	XM_SHARED_THR,		/* nq schedulers, one xtx_sched_shared, nq pinned threads */
	XM_PERQ_THR,		/* nq schedulers, no shared state, nq pinned threads */
};

/* The implementations, in the order each run measures them: the names (--impl, JSON)
 * and the headings of the Markdown tables. */
enum { I_XTX, I_RTE, I_SH1, I_SH2_ALT, I_PQ2_ALT, I_SH2_THR, I_PQ2_THR, NIMPL };
static const struct impl {
	const char *name, *md;
	enum xtx_mode mode;
	unsigned nq;
} impls[NIMPL] = {
	[I_XTX]     = { "xtx", "xtx", XM_PRIVATE, 1 },
	[I_RTE]     = { "rte_sched", "rte_sched", XM_PRIVATE, 0 },
	[I_SH1]     = { "xtx_sh_q1", "Q=1 shared", XM_SHARED_ALT, 1 },
	[I_SH2_ALT] = { "xtx_sh_q2_alt", "Q=2 shared, 1 thread", XM_SHARED_ALT, 2 },
	[I_PQ2_ALT] = { "xtx_pq_q2_alt", "Q=2 per-queue, 1 thread", XM_PERQ_ALT, 2 },
	[I_SH2_THR] = { "xtx_sh_q2_thr", "Q=2 shared, 2 threads", XM_SHARED_THR, 2 },
	[I_PQ2_THR] = { "xtx_pq_q2_thr", "Q=2 per-queue, 2 threads", XM_PERQ_THR, 2 },
};

/* --- xtx --------------------------------------------------------------------------- */

/* The xtx runs: one scheduler with private classes, as before device-wide classes (the
 * baseline), or nq schedulers on one xtx_sched_shared (every class of device scope), each
 * fed its own part of the flows; the nq schedulers run in one thread taking turns, or in
 * nq threads on nq CPUs. The per-queue control runs the same nq schedulers without shared
 * state (mq + one HTB per queue). */
#define QMAX		2

/* One queue: its scheduler and its part of the flows, visited in a scrambled round
 * robin of their own (flow_of() over fl). */
struct xq {
	_Alignas(64) struct xtx_sched *s;	/* threaded: a line of its own per queue */
	struct flows fl;		/* hashes of this queue's flows */
	uint16_t *cls;			/* class index of each of them */
	uint64_t i, done;		/* packets generated, dequeued */
	unsigned qlen;			/* packets in its scheduler */
	uint64_t bursts, shorts;	/* dequeue calls, those that gave fewer than BURST */
	uint64_t m_done, m_bursts, m_shorts;	/* the same over the measured interval */
	uint64_t enq_ns, deq_ns;	/* --split */
	unsigned cpu;			/* threaded modes: the CPU it is pinned to */
	uint64_t pkts;			/* threaded modes: packets to measure */
	double ns_per_pkt;		/* threaded modes: result, -1 failed */
	struct xrun *run;
};

/* What the threads of one threaded run share. */
struct xrun {
	pthread_barrier_t start;
	atomic_uint finished;		/* threads that have measured their packets */
	unsigned nq;
};

/* The tree: an HTB root with C fq leaves (the file comment's rates). */
static struct xtx_sched_config *xtx_tree(unsigned C, unsigned nflows)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o;
	uint32_t slots = 1, per = (nflows + C - 1) / C;
	unsigned c;

	while (slots < 2 * per && slots < (1u << 18))
		slots <<= 1;
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.handle = XTX_HANDLE(1, 0);
	o.parent = XTX_HANDLE_ROOT;
	o.rate = o.ceil = LINK_RATE;
	if (!cfg || xtx_sched_config__add_class(cfg, &o)) {
		fprintf(stderr, "bench_sched: xtx config failed\n");
		exit(1);
	}
	for (c = 0; c < C; c++) {
		memset(&o, 0, sizeof(o));
		o.sz = sizeof(o);
		o.handle = XTX_HANDLE(1, c + 1);
		o.parent = XTX_HANDLE(1, 0);
		o.rate = LINK_RATE / C;
		o.ceil = LINK_RATE;
		o.fq = 1;
		o.flows = slots;
		o.flow_limit = 1000;	/* one flow may hold the whole backlog */
		o.limit = 1000;
		if (xtx_sched_config__add_class(cfg, &o)) {
			fprintf(stderr, "bench_sched: xtx config failed\n");
			exit(1);
		}
	}
	return cfg;
}

/* Queue q of nq gets flows f (leaf f % C) with (f / C) % nq == q when there are at least
 * nq flows per leaf, so that every leaf's flows are spread over the queues, else those
 * with f % nq == q; with one flow, every queue gets it. Each part is a power of two. */
static void xq_flows(struct xq *x, unsigned q, unsigned nq, unsigned C,
		     const struct flows *fl)
{
	unsigned n = fl->n >= nq ? fl->n / nq : 1, f, k = 0;

	flows_init(&x->fl, n);
	x->cls = malloc(n * sizeof(*x->cls));
	if (!x->cls) {
		fprintf(stderr, "bench_sched: out of memory\n");
		exit(1);
	}
	for (f = 0; f < fl->n && k < n; f++) {
		unsigned part = fl->n / C >= nq ? f / C : f;

		if (fl->n >= nq && part % nq != q)
			continue;
		x->fl.hash[k] = fl->hash[f];
		x->cls[k++] = (uint16_t)xtx_sched__class_index(x->s, XTX_HANDLE(1, f % C + 1));
	}
}

/* One step of queue x at time t: new descriptors in to BACKLOG + BURST queued (a burst
 * of BURST while every dequeue takes BURST), a burst of up to BURST out. Returns the
 * packets dequeued. */
static inline unsigned xq_step(struct xq *x, uint64_t t, bool timed)
{
	struct xtx_desc in[BURST], out[BURST], drops[BURST];
	unsigned n = BACKLOG + BURST - x->qlen, nd, j, got;
	uint64_t next;

	for (j = 0; j < n; j++, x->i++) {
		unsigned f = flow_of(&x->fl, x->i);

		in[j] = (struct xtx_desc){ .addr = x->i, .hash = x->fl.hash[f], .len = PKT_LEN,
					   .cls = x->cls[f] };
	}
	if (timed) {
		/* the wall clock (vDSO): the thread CPU clock is a system call, which would
		 * add more than it measures */
		uint64_t a0 = now_ns(), a1, a2;

		xtx_sched__enqueue_burst(x->s, in, NULL, n, t, drops, &nd);
		a1 = now_ns();
		got = xtx_sched__dequeue_burst(x->s, out, BURST, t, &next);
		a2 = now_ns();
		x->enq_ns += a1 - a0;
		x->deq_ns += a2 - a1;
	} else {
		xtx_sched__enqueue_burst(x->s, in, NULL, n, t, drops, &nd);
		got = xtx_sched__dequeue_burst(x->s, out, BURST, t, &next);
	}
	if (nd) {
		fprintf(stderr, "bench_sched: xtx dropped %u packets: the workload is "
			"misconfigured\n", nd);
		exit(1);
	}
	x->qlen += n - got;
	x->done += got;
	x->bursts++;
	x->shorts += got < BURST;
	return got;
}

/* Fill queue x's backlog: BACKLOG packets in, none out. */
static void xq_fill(struct xq *x)
{
	struct xtx_desc in[BURST], drops[BURST];
	unsigned k, j, nd;

	for (k = 0; k < BACKLOG; k += BURST) {
		for (j = 0; j < BURST; j++, x->i++) {
			unsigned f = flow_of(&x->fl, x->i);

			in[j] = (struct xtx_desc){ .addr = x->i, .hash = x->fl.hash[f],
						   .len = PKT_LEN, .cls = x->cls[f] };
		}
		xtx_sched__enqueue_burst(x->s, in, NULL, BURST, now_ns(), drops, &nd);
	}
	x->qlen = BACKLOG;
}

/* nq queues in this thread, taking turns one step each, until pkts packets in all after
 * a 10% warm-up. Returns ns per packet. */
static double xq_run_alt(struct xq *xs, unsigned nq, uint64_t pkts)
{
	uint64_t done = 0, t0 = 0, t1;
	unsigned q;

	for (q = 0; q < nq; q++)
		xq_fill(&xs[q]);
	for (;;) {
		if (!t0 && done >= pkts / 10) {	/* 10% warm-up */
			done = 0;
			for (q = 0; q < nq; q++)
				xs[q].enq_ns = xs[q].deq_ns = xs[q].done = 0;
			for (q = 0; q < nq; q++)
				xs[q].bursts = xs[q].shorts = 0;
			t0 = meas_ns();
		}
		if (t0 && done >= pkts)
			break;
		for (q = 0; q < nq; q++)
			done += xq_step(&xs[q], now_ns(), split && t0);
	}
	t1 = meas_ns();
	for (q = 0; q < nq; q++) {
		xs[q].m_done = xs[q].done;
		xs[q].m_bursts = xs[q].bursts;
		xs[q].m_shorts = xs[q].shorts;
	}
	return (double)(t1 - t0) / (double)done;
}

/* A threaded queue: pinned to its CPU, it waits for the others, warms up, measures its
 * pkts packets, then keeps stepping unmeasured until every thread has measured, so that
 * each thread's measured interval runs beside the others'. */
static void *xq_thread(void *arg)
{
	struct xq *x = arg;
	cpu_set_t set;
	uint64_t t0, t1, done;

	CPU_ZERO(&set);
	CPU_SET(x->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		fprintf(stderr, "bench_sched: cannot pin a thread to CPU %u\n", x->cpu);
		x->ns_per_pkt = -1;
	}
	xq_fill(x);
	pthread_barrier_wait(&x->run->start);
	while (x->done < x->pkts / 10)
		xq_step(x, now_ns(), false);
	done = x->done;
	x->bursts = x->shorts = 0;
	t0 = meas_ns();
	while (x->done - done < x->pkts)
		xq_step(x, now_ns(), false);
	t1 = meas_ns();
	x->m_done = x->done - done;
	x->m_bursts = x->bursts;
	x->m_shorts = x->shorts;
	if (x->ns_per_pkt >= 0)
		x->ns_per_pkt = (double)(t1 - t0) / (double)x->m_done;
	/* Relaxed, this add and the loads below: a count of threads that are done, which
	 * publishes nothing (the results are read after pthread_join). Pairs with the
	 * other threads' loads of it. */
	atomic_fetch_add_explicit(&x->run->finished, 1, memory_order_relaxed);
	while (atomic_load_explicit(&x->run->finished, memory_order_relaxed) < x->run->nq)
		xq_step(x, now_ns(), false);
	return NULL;
}

/* The CPUs this process could run on when it started (rte_eal_init pins the main thread
 * to CPU 0 later); main() sets it. */
static cpu_set_t start_cpus;

/* The first nq of start_cpus into cpu[]; false if there are fewer. */
static bool pick_cpus(unsigned *cpu, unsigned nq)
{
	unsigned c, k = 0;

	for (c = 0; c < CPU_SETSIZE && k < nq; c++)
		if (CPU_ISSET(c, &start_cpus))
			cpu[k++] = c;
	return k == nq;
}

/* nq queues in nq threads, pkts / nq packets measured in each. Returns the mean of the
 * threads' ns per packet (each thread's time over its own packets), -1 on failure. */
static double xq_run_threads(struct xq *xs, unsigned nq, uint64_t pkts)
{
	struct xrun r = { .nq = nq };
	pthread_t th[QMAX];
	unsigned cpu[QMAX], q;
	double sum = 0;
	bool ok = true;

	if (!pick_cpus(cpu, nq)) {
		fprintf(stderr, "bench_sched: %u threads need %u CPUs\n", nq, nq);
		return -1;
	}
	if (pthread_barrier_init(&r.start, NULL, nq)) {
		fprintf(stderr, "bench_sched: pthread_barrier_init failed\n");
		exit(1);
	}
	atomic_init(&r.finished, 0);
	for (q = 0; q < nq; q++) {
		xs[q].cpu = cpu[q];
		xs[q].pkts = pkts / nq;
		xs[q].run = &r;
		if (pthread_create(&th[q], NULL, xq_thread, &xs[q])) {
			fprintf(stderr, "bench_sched: pthread_create failed\n");
			exit(1);
		}
	}
	for (q = 0; q < nq; q++) {
		pthread_join(th[q], NULL);
		ok = ok && xs[q].ns_per_pkt >= 0;
		sum += xs[q].ns_per_pkt;
	}
	pthread_barrier_destroy(&r.start);
	return ok ? sum / nq : -1;
}

/* --slice-ns: xtx_sched_shared__create's slice_ns (0: its default). */
static uint64_t slice_ns;

/* One run of im at C leaves over the flows fl: ns per packet, or -1 if it could not run;
 * *short_frac: the share of measured dequeue calls that gave fewer than BURST packets
 * (a queue held back: wait, deferral). */
static double run_xtx(const struct impl *im, unsigned C, const struct flows *fl,
		      uint64_t pkts, double *short_frac)
{
	uint64_t bursts = 0, shorts = 0;
	enum xtx_mode m = im->mode;
	unsigned nq = im->nq;
	struct xtx_sched_config *cfg = xtx_tree(C, fl->n);
	struct xtx_sched_shared *sh = NULL;
	struct xq xs[QMAX];
	char err[256];
	double ns;
	unsigned q;

	memset(xs, 0, sizeof(xs));
	if (m == XM_SHARED_ALT || m == XM_SHARED_THR) {
		sh = xtx_sched_shared__create(cfg, nq, slice_ns, now_ns(), err, sizeof(err));
		if (!sh) {
			fprintf(stderr, "bench_sched: xtx_sched_shared__create: %s\n", err);
			exit(1);
		}
	}
	for (q = 0; q < nq; q++) {
		struct xtx_sched_opts o = { .sz = sizeof(o), .shared = sh, .queue = q };

		xs[q].s = xtx_sched__create(cfg, m == XM_PRIVATE ? NULL : &o, now_ns(), err,
					    sizeof(err));
		if (!xs[q].s) {
			fprintf(stderr, "bench_sched: xtx_sched__create: %s\n", err);
			exit(1);
		}
		xq_flows(&xs[q], q, nq, C, fl);
	}
	if (m == XM_SHARED_THR || m == XM_PERQ_THR)
		ns = xq_run_threads(xs, nq, pkts);
	else
		ns = xq_run_alt(xs, nq, pkts);
	if (split && m != XM_SHARED_THR && m != XM_PERQ_THR) {
		uint64_t e = 0, d = 0, n = 0;

		for (q = 0; q < nq; q++) {
			e += xs[q].enq_ns;
			d += xs[q].deq_ns;
			n += xs[q].m_done;
		}
		fprintf(stderr, "\nbench_sched: %s %u x %u: enqueue %.1f ns/pkt, dequeue %.1f "
			"ns/pkt\n", im->name, C, fl->n, (double)e / (double)n,
			(double)d / (double)n);
	}
	for (q = 0; q < nq; q++) {
		bursts += xs[q].m_bursts;
		shorts += xs[q].m_shorts;
	}
	*short_frac = bursts ? (double)shorts / (double)bursts : 0;
	for (q = 0; q < nq; q++) {
		free(xs[q].cls);
		free(xs[q].fl.hash);
		xtx_sched__destroy(xs[q].s);
	}
	xtx_sched_shared__destroy(sh);
	xtx_sched_config__free(cfg);
	return ns;
}

/* --- rte_sched ----------------------------------------------------------------------- */

#ifdef HAVE_DPDK
static bool eal_ok;
static struct rte_mempool *mp;

static bool dpdk_init(void)
{
	char *argv[] = { "bench_sched", "--no-huge", "-m", "512", "--no-pci", "--no-telemetry",
			 "-l", "0", "--log-level=error", NULL };
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "bench_sched: rte_sched skipped: rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return false;
	}
	mp = rte_pktmbuf_pool_create("bench_sched", 4095, 0, 0, 256, 0);
	if (!mp) {
		fprintf(stderr, "bench_sched: rte_sched skipped: mbuf pool: %s\n",
			rte_strerror(rte_errno));
		return false;
	}
	return true;
}

static double run_rte(unsigned C, const struct flows *fl, uint64_t pkts)
{
	struct rte_sched_subport_profile_params spp;
	struct rte_sched_pipe_params pp;
	struct rte_sched_subport_params sp;
	struct rte_sched_port_params port_params;
	struct rte_sched_port *port;
	struct rte_mbuf *freel[BACKLOG + 4 * BURST], *in[BURST], *out[BURST];
	unsigned nfree = 0, c, k;
	uint64_t i = 0, done = 0, t0 = 0, t1;
	char name[32];
	static unsigned serial;

	memset(&spp, 0, sizeof(spp));
	spp.tb_rate = LINK_RATE;
	spp.tb_size = 1000000;
	for (k = 0; k < RTE_SCHED_TRAFFIC_CLASSES_PER_PIPE; k++)
		spp.tc_rate[k] = LINK_RATE;
	spp.tc_period = 10;

	memset(&pp, 0, sizeof(pp));
	pp.tb_rate = LINK_RATE;
	pp.tb_size = 1000000;
	pp.tc_rate[RTE_SCHED_TRAFFIC_CLASS_BE] = LINK_RATE;	/* other TCs off (qsize 0) */
	pp.tc_period = 10;
	pp.tc_ov_weight = 1;
	for (k = 0; k < RTE_SCHED_BE_QUEUES_PER_PIPE; k++)
		pp.wrr_weights[k] = 1;

	memset(&sp, 0, sizeof(sp));
	sp.n_pipes_per_subport_enabled = C;
	sp.qsize[RTE_SCHED_TRAFFIC_CLASS_BE] = 256;	/* holds the whole backlog */
	sp.pipe_profiles = &pp;
	sp.n_pipe_profiles = 1;
	sp.n_max_pipe_profiles = 1;

	snprintf(name, sizeof(name), "bench%u", serial++);
	memset(&port_params, 0, sizeof(port_params));
	port_params.name = name;
	port_params.socket = 0;
	port_params.rate = LINK_RATE;
	port_params.mtu = 1522;
	port_params.frame_overhead = RTE_SCHED_FRAME_OVERHEAD_DEFAULT;
	port_params.n_subports_per_port = 1;
	port_params.subport_profiles = &spp;
	port_params.n_subport_profiles = 1;
	port_params.n_max_subport_profiles = 1;
	port_params.n_pipes_per_subport = C;

	port = rte_sched_port_config(&port_params);
	if (!port) {
		fprintf(stderr, "bench_sched: rte_sched_port_config failed\n");
		return -1;
	}
	if (rte_sched_subport_config(port, 0, &sp, 0)) {
		fprintf(stderr, "bench_sched: rte_sched_subport_config failed\n");
		rte_sched_port_free(port);
		return -1;
	}
	for (c = 0; c < C; c++)
		if (rte_sched_pipe_config(port, 0, c, 0)) {
			fprintf(stderr, "bench_sched: rte_sched_pipe_config failed\n");
			rte_sched_port_free(port);
			return -1;
		}
	if (rte_pktmbuf_alloc_bulk(mp, freel, BACKLOG + 4 * BURST)) {
		fprintf(stderr, "bench_sched: mbuf allocation failed\n");
		rte_sched_port_free(port);
		return -1;
	}
	nfree = BACKLOG + 4 * BURST;

#define FILL_BURST() do {							\
		unsigned j_;							\
		for (j_ = 0; j_ < BURST; j_++, i++) {				\
			unsigned f_ = flow_of(fl, i);				\
			struct rte_mbuf *m_ = freel[--nfree];			\
			m_->pkt_len = PKT_LEN;					\
			m_->data_len = PKT_LEN;					\
			rte_sched_port_pkt_write(port, m_, 0, f_ % C,		\
				RTE_SCHED_TRAFFIC_CLASS_BE, fl->hash[f_] & 3,	\
				RTE_COLOR_GREEN);				\
			in[j_] = m_;						\
		}							\
	} while (0)

	for (k = 0; k < BACKLOG; k += BURST) {
		FILL_BURST();
		if (rte_sched_port_enqueue(port, in, BURST) != BURST) {
			fprintf(stderr, "bench_sched: rte_sched dropped packets\n");
			exit(1);
		}
	}
	for (;;) {
		int got, w;

		if (!t0 && done >= pkts / 10) {
			done = 0;
			t0 = meas_ns();
		}
		if (t0 && done >= pkts)
			break;
		FILL_BURST();
		w = rte_sched_port_enqueue(port, in, BURST);
		if (w != BURST) {
			fprintf(stderr, "bench_sched: rte_sched dropped %d packets\n", BURST - w);
			exit(1);
		}
		got = rte_sched_port_dequeue(port, out, BURST);
		for (k = 0; k < (unsigned)got; k++)
			freel[nfree++] = out[k];
		done += (unsigned)got;
		if (nfree < BURST) {
			fprintf(stderr, "bench_sched: rte_sched holds more than the backlog\n");
			exit(1);
		}
	}
	t1 = meas_ns();
#undef FILL_BURST
	/* drain, give the mbufs back */
	for (;;) {
		int got = rte_sched_port_dequeue(port, out, BURST);

		if (got <= 0)
			break;
		for (k = 0; k < (unsigned)got; k++)
			freel[nfree++] = out[k];
	}
	rte_pktmbuf_free_bulk(freel, nfree);
	rte_sched_port_free(port);
	return (double)(t1 - t0) / (double)done;
}
#endif

/* --- main ----------------------------------------------------------------------------- */

static unsigned parse_list(const char *s, unsigned *v, unsigned max)
{
	unsigned n = 0;

	while (*s && n < max) {
		char *end;
		unsigned long x = strtoul(s, &end, 10);

		if (end == s)
			break;
		v[n++] = (unsigned)x;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

static bool pow2(unsigned x)
{
	return x && !(x & (x - 1));
}

static void usage(void)
{
	fprintf(stderr,
"usage: bench_sched [options]\n"
"  --runs K            runs per configuration, interleaved (default 5)\n"
"  --pkts N            packets measured per run (default 4000000)\n"
"  --classes LIST      leaf classes, powers of two (default 1,64,4096)\n"
"  --flows LIST        flows, powers of two (default 1,1024,65536)\n"
"  --impl LIST         any of xtx, rte_sched, xtx_sh_q1, xtx_sh_q2_alt, xtx_pq_q2_alt,\n"
"                      xtx_sh_q2_thr, xtx_pq_q2_thr (default all; see the file comment)\n"
"  --split             xtx: also time enqueue and dequeue apart on the wall clock, one\n"
"                      line per run on stderr (two more clock reads per burst of 32;\n"
"                      not in the _thr rows)\n"
"  --slice-ns NS       device-wide classes: xtx_sched_shared__create's slice_ns\n"
"                      (default 0: XTX_SCHED_SLICE_NS)\n"
"  --cpu-time          time with this thread's CPU clock instead of the wall clock\n"
"                      (for a shared machine: preemption does not count)\n"
"  --md FILE           also write the table in Markdown (tools/bench/report.sh)\n"
"  --json FILE         also write one JSON object per line:\n"
"                      {\"impl\",\"queues\",\"classes\",\"flows\",\"ns_per_pkt\",\"spread\",\n"
"                      \"short_bursts\"} (ns_per_pkt is the median, spread is max - min,\n"
"                      short_bursts the largest share over the runs of dequeue calls that\n"
"                      gave fewer than 32 packets; 0 for rte_sched)\n");
}

/* What to measure: the command line. */
struct bench {
	unsigned runs, classes[MAXCFG], nc, flows[MAXCFG], nf;
	uint64_t pkts;
	const char *json, *md;
	bool use[NIMPL];		/* impls[] */
};

/* --impl's comma-separated names into use[]: -1, or 2 after saying which is unknown. */
static int parse_impls(const char *s, bool *use)
{
	unsigned i;

	for (i = 0; i < NIMPL; i++)
		use[i] = false;
	while (*s) {
		size_t n = strcspn(s, ",");

		for (i = 0; i < NIMPL; i++)
			if (strlen(impls[i].name) == n && !strncmp(s, impls[i].name, n))
				break;
		if (i == NIMPL) {
			fprintf(stderr, "bench_sched: --impl: unknown '%.*s'\n", (int)n, s);
			return 2;
		}
		use[i] = true;
		s += n + (s[n] == ',');
	}
	return -1;
}

/* The command line into *o: -1 to go on, or the exit status (2: bad usage, 0: --help). */
static int parse_args(int argc, char **argv, struct bench *o)
{
	static const struct option lo[] = {
		{ "runs", required_argument, 0, 'r' }, { "pkts", required_argument, 0, 'p' },
		{ "classes", required_argument, 0, 'c' }, { "flows", required_argument, 0, 'f' },
		{ "impl", required_argument, 0, 'i' }, { "json", required_argument, 0, 'j' },
		{ "cpu-time", no_argument, 0, 't' }, { "md", required_argument, 0, 'm' },
		{ "split", no_argument, 0, 's' }, { "slice-ns", required_argument, 0, 'S' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 }
	};
	const char *only = NULL;
	int opt;
	unsigned i;

	*o = (struct bench){ .runs = 5, .classes = { 1, 64, 4096 }, .nc = 3,
			     .flows = { 1, 1024, 65536 }, .nf = 3, .pkts = 4000000 };
	for (i = 0; i < NIMPL; i++)
		o->use[i] = true;
	while ((opt = getopt_long(argc, argv, "r:p:c:f:i:j:m:tsS:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'r': o->runs = (unsigned)atoi(optarg); break;
		case 'p': o->pkts = strtoull(optarg, NULL, 10); break;
		case 'c': o->nc = parse_list(optarg, o->classes, MAXCFG); break;
		case 'f': o->nf = parse_list(optarg, o->flows, MAXCFG); break;
		case 'i': only = optarg; break;
		case 'j': o->json = optarg; break;
		case 't': use_cpu_time = true; break;
		case 's': split = true; break;
		case 'S': {
			char *end;

			errno = 0;
			slice_ns = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || *optarg == '-') {
				fprintf(stderr, "bench_sched: --slice-ns: not a number of ns: "
					"'%s'\n", optarg);
				return 2;
			}
			break;
		}
		case 'm': o->md = optarg; break;
		default: usage(); return opt == 'h' ? 0 : 2;
		}
	}
	if (o->runs < 1 || o->runs > 100 || o->pkts < 1000 || !o->nc || !o->nf) {
		usage();
		return 2;
	}
	for (unsigned a = 0; a < o->nc; a++)
		if (!pow2(o->classes[a]) || o->classes[a] > 32768) {
			fprintf(stderr, "bench_sched: classes must be powers of two <= 32768\n");
			return 2;
		}
	for (unsigned a = 0; a < o->nf; a++)
		if (!pow2(o->flows[a]) || o->flows[a] > (1u << 24)) {
			fprintf(stderr, "bench_sched: flows must be powers of two <= 2^24\n");
			return 2;
		}
	if (only)
		return parse_impls(only, o->use);
	return -1;
}

/* Index of (implementation i, classes a, flows b) in the per-configuration arrays. */
static size_t cfg_idx(const struct bench *o, unsigned i, unsigned a, unsigned b)
{
	return ((size_t)i * o->nc + a) * o->nf + b;
}

/* Every configuration once per run, interleaved; the median and spread of each into
 * med[] and spr[], the largest share of short dequeue calls (run_xtx()) over the runs
 * into shf[] (cfg_idx(); 0 for rte_sched). 0, or -ENOMEM. */
static int measure_all(const struct bench *o, double *med, double *spr, double *shf)
{
	double *res = calloc((size_t)NIMPL * o->nc * o->nf * o->runs, sizeof(double));

	if (!res)
		return -ENOMEM;
#define RES(i, a, b, r) res[cfg_idx(o, i, a, b) * o->runs + (r)]
	for (unsigned run = 0; run < o->runs; run++) {
		fprintf(stderr, "\rbench_sched: run %u/%u ...", run + 1, o->runs);
		for (unsigned a = 0; a < o->nc; a++)
			for (unsigned b = 0; b < o->nf; b++) {
				struct flows fl;

				flows_init(&fl, o->flows[b]);
				for (unsigned i = 0; i < NIMPL; i++) {
					if (!o->use[i])
						continue;
#ifdef HAVE_DPDK
					if (i == I_RTE) {
						RES(i, a, b, run) = run_rte(o->classes[a], &fl,
									   o->pkts);
						continue;
					}
#endif
					double sf;

					RES(i, a, b, run) = run_xtx(&impls[i], o->classes[a], &fl,
								    o->pkts, &sf);
					if (sf > shf[cfg_idx(o, i, a, b)])
						shf[cfg_idx(o, i, a, b)] = sf;
				}
				free(fl.hash);
			}
	}
	fprintf(stderr, "\r%40s\r", "");
	for (unsigned impl = 0; impl < NIMPL; impl++)
		for (unsigned a = 0; a < o->nc; a++)
			for (unsigned b = 0; b < o->nf; b++)
				bench_median_spread(&RES(impl, a, b, 0), o->runs,
						    &med[cfg_idx(o, impl, a, b)],
						    &spr[cfg_idx(o, impl, a, b)]);
#undef RES
	free(res);
	return 0;
}

/* The table on stdout, and one JSON line per result into jf (if not NULL). */
static void print_table(const struct bench *o, const double *med, const double *spr,
			const double *shf, FILE *jf)
{
	printf("ns per packet (enqueue + dequeue, %d-byte packets, bursts of %d, backlog %d), "
	       "median of %u runs (spread max - min), %s time\n", PKT_LEN, BURST, BACKLOG,
	       o->runs, use_cpu_time ? "thread CPU" : "wall");
	printf("%-14s %8s %8s %12s %10s %8s\n", "impl", "classes", "flows", "ns/pkt", "spread",
	       "short");
	for (unsigned impl = 0; impl < NIMPL; impl++) {
		if (!o->use[impl])
			continue;
		for (unsigned a = 0; a < o->nc; a++)
			for (unsigned b = 0; b < o->nf; b++) {
				size_t k = cfg_idx(o, impl, a, b);

				if (spr[k] < 0) {
					printf("%-14s %8u %8u %12s\n", impls[impl].name,
					       o->classes[a], o->flows[b], "failed");
					continue;
				}
				printf("%-14s %8u %8u %12.1f %10.1f %8.4f\n", impls[impl].name,
				       o->classes[a], o->flows[b], med[k], spr[k], shf[k]);
				if (jf)
					fprintf(jf, "{\"impl\": \"%s\", \"queues\": %u, "
						"\"classes\": %u, \"flows\": %u, "
						"\"ns_per_pkt\": %.2f, \"spread\": %.2f, "
						"\"short_bursts\": %.4f}\n",
						impls[impl].name, impl == I_RTE ? 1 : impls[impl].nq,
						o->classes[a], o->flows[b], med[k], spr[k], shf[k]);
			}
	}
}

/* The Markdown table (--md) into mf. */
static void write_md(const struct bench *o, const double *med, const double *spr, FILE *mf)
{
	if (!o->use[I_XTX] && !o->use[I_RTE])
		return;
	fprintf(mf, "ns per packet, enqueue + dequeue (lower is better), %d-byte packets, "
		"bursts of %d, backlog %d, %s time, median of %u runs ± half the spread."
		"\n\n| classes | flows | xtx |%s\n|---|---|---|%s\n", PKT_LEN, BURST, BACKLOG,
		use_cpu_time ? "thread CPU" : "wall", o->runs,
		o->use[1] ? " rte_sched | rte_sched / xtx |" : "", o->use[1] ? "---|---|" : "");
	for (unsigned a = 0; a < o->nc; a++)
		for (unsigned b = 0; b < o->nf; b++) {
			size_t k0 = cfg_idx(o, 0, a, b), k1 = cfg_idx(o, 1, a, b);

			fprintf(mf, "| %u | %u |", o->classes[a], o->flows[b]);
			for (unsigned impl = 0; impl < 2; impl++) {
				size_t k = impl ? k1 : k0;

				if (!o->use[impl])
					continue;
				if (spr[k] < 0)
					fprintf(mf, " failed |");
				else
					fprintf(mf, " %.1f ± %.1f |", med[k], spr[k] / 2);
			}
			if (o->use[0] && o->use[1] && spr[k0] >= 0 && spr[k1] >= 0)
				fprintf(mf, " %.2fx |", med[k1] / med[k0]);
			else if (o->use[1])
				fprintf(mf, " - |");
			fprintf(mf, "\n");
		}
}

/* One cell of a Markdown table: impls[i]'s median ± half its spread, or "failed". */
static void md_cell(const struct bench *o, const double *med, const double *spr, unsigned i,
		    unsigned a, unsigned b, FILE *mf)
{
	size_t k = cfg_idx(o, i, a, b);

	if (spr[k] < 0)
		fprintf(mf, " failed |");
	else
		fprintf(mf, " %.1f ± %.1f |", med[k], spr[k] / 2);
}

/* One ratio cell: impls[i]'s median over impls[j]'s, "-" if either failed. */
static void md_ratio(const struct bench *o, const double *med, const double *spr, unsigned i,
		     unsigned j, unsigned a, unsigned b, FILE *mf)
{
	size_t ki = cfg_idx(o, i, a, b), kj = cfg_idx(o, j, a, b);

	if (spr[ki] < 0 || spr[kj] < 0)
		fprintf(mf, " - |");
	else
		fprintf(mf, " %.2fx |", med[ki] / med[kj]);
}

/* The device-wide classes' tables (--md): Q = 1 against the private baseline, and each
 * Q = 2 mode (sh: shared, pq: its per-queue control) against Q = 1 and against the
 * other. A table is written only when every impl it names was measured. */
static void write_md_shared(const struct bench *o, const double *med, const double *spr,
			    FILE *mf)
{
	static const struct { unsigned sh, pq; const char *what; } q2[] = {
		{ I_SH2_ALT, I_PQ2_ALT, "Q = 2, both schedulers in one thread taking turns "
			"(no cross-core traffic)" },
		{ I_SH2_THR, I_PQ2_THR, "Q = 2, each scheduler in its own thread pinned to its "
			"own CPU (both CPUs of this machine)" },
	};
	unsigned a, b, t;

	if (o->use[I_XTX] && o->use[I_SH1]) {
		fprintf(mf, "\nDevice-wide classes (issue 16), Q = 1: the same tree and traffic, "
			"every class of device scope, one scheduler on an xtx_sched_shared for 1 "
			"queue; xtx is the private-class scheduler of the table above, measured "
			"again in the same runs. ns per packet, as above.\n\n"
			"| classes | flows | xtx | Q=1 shared | Q=1 shared / xtx |\n"
			"|---|---|---|---|---|\n");
		for (a = 0; a < o->nc; a++)
			for (b = 0; b < o->nf; b++) {
				fprintf(mf, "| %u | %u |", o->classes[a], o->flows[b]);
				md_cell(o, med, spr, I_XTX, a, b, mf);
				md_cell(o, med, spr, I_SH1, a, b, mf);
				md_ratio(o, med, spr, I_SH1, I_XTX, a, b, mf);
				fprintf(mf, "\n");
			}
	}
	for (t = 0; t < sizeof(q2) / sizeof(q2[0]); t++) {
		if (!o->use[I_XTX] || !o->use[I_SH1] || !o->use[q2[t].sh] || !o->use[q2[t].pq])
			continue;
		fprintf(mf, "\nDevice-wide classes, %s. Each queue gets half of the flows (each "
			"leaf's flows on both queues when a leaf has two or more, else every other "
			"leaf; with one flow both queues get it) and its own backlog of %d. "
			"shared: both schedulers on one xtx_sched_shared for 2 queues; per-queue: "
			"the same two schedulers without shared state. ns per packet of one "
			"queue.\n\n"
			"| classes | flows | Q=2 shared | Q=2 shared / Q=1 shared | Q=2 per-queue "
			"| Q=2 per-queue / xtx | Q=2 shared / Q=2 per-queue |\n"
			"|---|---|---|---|---|---|---|\n", q2[t].what, BACKLOG);
		for (a = 0; a < o->nc; a++)
			for (b = 0; b < o->nf; b++) {
				fprintf(mf, "| %u | %u |", o->classes[a], o->flows[b]);
				md_cell(o, med, spr, q2[t].sh, a, b, mf);
				md_ratio(o, med, spr, q2[t].sh, I_SH1, a, b, mf);
				md_cell(o, med, spr, q2[t].pq, a, b, mf);
				md_ratio(o, med, spr, q2[t].pq, I_XTX, a, b, mf);
				md_ratio(o, med, spr, q2[t].sh, q2[t].pq, a, b, mf);
				fprintf(mf, "\n");
			}
	}
}

/* A file to write, or NULL after saying why. */
static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "bench_sched: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

int main(int argc, char **argv)
{
	struct bench o;
	FILE *jf = NULL, *mf = NULL;
	double *med, *spr, *shf;
	int rc = parse_args(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (sched_getaffinity(0, sizeof(start_cpus), &start_cpus))
		CPU_ZERO(&start_cpus);
#ifdef HAVE_DPDK
	if (o.use[1]) {
		eal_ok = dpdk_init();
		o.use[1] = eal_ok;
	}
#else
	if (o.use[1])
		fprintf(stderr, "bench_sched: rte_sched skipped: built without DPDK (HAVE_DPDK)\n");
	o.use[1] = false;
#endif
	if ((o.json && !(jf = open_out(o.json))) || (o.md && !(mf = open_out(o.md))))
		return 1;
	med = calloc((size_t)NIMPL * o.nc * o.nf, sizeof(double));
	spr = calloc((size_t)NIMPL * o.nc * o.nf, sizeof(double));
	shf = calloc((size_t)NIMPL * o.nc * o.nf, sizeof(double));
	if (!med || !spr || !shf || measure_all(&o, med, spr, shf))
		return 1;
	print_table(&o, med, spr, shf, jf);
	if (mf) {
		write_md(&o, med, spr, mf);
		write_md_shared(&o, med, spr, mf);
		fclose(mf);
	}
	free(med);
	free(spr);
	free(shf);
	if (jf)
		fclose(jf);
#ifdef HAVE_DPDK
	if (eal_ok)
		rte_eal_cleanup();
#endif
	return 0;
}
