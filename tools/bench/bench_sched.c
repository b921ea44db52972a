/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_sched.c - nanoseconds per packet through the xtx scheduler (enqueue + dequeue)
 * beside DPDK's rte_sched, measured in the same run on the same machine.
 *
 *   xtx        xtx_sched: HTB tree (root + C leaves) with fq in every leaf
 *   rte_sched  DPDK rte_sched: one port, one subport, C pipes, flows hashed onto the 4
 *              best-effort queues of their pipe (rte_sched has no per-flow queues)
 *
 * Workload, identical for both: F flows, flow f in leaf/pipe f % C with a random 32-bit
 * hash; packets of 64 bytes visit the flows in a scrambled round robin. The queue is
 * pre-filled with 128 packets, then each step enqueues a burst of 32 new descriptors and
 * dequeues a burst of 32, on the real clock (CLOCK_MONOTONIC for xtx, the TSC inside
 * rte_sched). Rates are 100 Gbit/s for the link; xtx leaves get rate 100G / C and ceil
 * 100G, rte_sched pipes 100G (it cannot borrow): at the packet rates a core reaches here
 * neither shapes, so this measures scheduling work, not the line rate. The per-packet
 * cost includes writing the descriptor (xtx_desc / rte_sched_port_pkt_write).
 *
 * Each configuration runs K times, interleaved; the median and the spread (max - min) of
 * ns/packet are reported. rte_sched runs only when built with HAVE_DPDK and rte_eal_init
 * succeeds; otherwise it is skipped with a message.
 *
 * Usage: bench_sched [--runs K] [--pkts N] [--classes 1,64,4096] [--flows 1,1024,65536]
 *                    [--impl xtx,rte_sched] [--json FILE] [--md FILE] [--cpu-time]
 *                    [--split]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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

/* --- xtx --------------------------------------------------------------------------- */

static double run_xtx(unsigned C, const struct flows *fl, uint64_t pkts)
{
	uint64_t enq_ns = 0, deq_ns = 0;
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o;
	struct xtx_sched *s;
	struct xtx_desc in[BURST], out[BURST], drops[BURST];
	uint32_t slots = 1, per = (fl->n + C - 1) / C;
	uint16_t *cls;
	uint64_t i = 0, done = 0, t0, t1, next;
	char err[256];
	unsigned c, k;

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
	s = xtx_sched__create(cfg, NULL, now_ns(), err, sizeof(err));
	if (!s) {
		fprintf(stderr, "bench_sched: xtx_sched__create: %s\n", err);
		exit(1);
	}
	cls = malloc(fl->n * sizeof(*cls));
	for (k = 0; k < fl->n; k++)
		cls[k] = (uint16_t)xtx_sched__class_index(s, XTX_HANDLE(1, k % C + 1));

	/* fill the backlog, warm up, then measure */
	for (k = 0; k < BACKLOG; k += BURST) {
		unsigned nd, j;

		for (j = 0; j < BURST; j++, i++) {
			unsigned f = flow_of(fl, i);

			in[j] = (struct xtx_desc){ .addr = i, .hash = fl->hash[f], .len = PKT_LEN,
						   .cls = cls[f] };
		}
		xtx_sched__enqueue_burst(s, in, NULL, BURST, now_ns(), drops, &nd);
	}
	t0 = 0;
	for (;;) {
		uint64_t t = now_ns();
		unsigned nd, j, got;

		if (!t0 && done >= pkts / 10) {	/* 10% warm-up */
			done = 0;
			t0 = meas_ns();
		}
		if (t0 && done >= pkts)
			break;
		for (j = 0; j < BURST; j++, i++) {
			unsigned f = flow_of(fl, i);

			in[j] = (struct xtx_desc){ .addr = i, .hash = fl->hash[f], .len = PKT_LEN,
						   .cls = cls[f] };
		}
		if (split && t0) {
			/* the wall clock (vDSO): the thread CPU clock is a system call, which
			 * would add more than it measures */
			uint64_t a0 = now_ns(), a1, a2;

			xtx_sched__enqueue_burst(s, in, NULL, BURST, t, drops, &nd);
			a1 = now_ns();
			got = xtx_sched__dequeue_burst(s, out, BURST, t, &next);
			a2 = now_ns();
			enq_ns += a1 - a0;
			deq_ns += a2 - a1;
		} else {
			xtx_sched__enqueue_burst(s, in, NULL, BURST, t, drops, &nd);
			got = xtx_sched__dequeue_burst(s, out, BURST, t, &next);
		}
		done += got;
		if (nd) {
			fprintf(stderr, "bench_sched: xtx dropped %u packets: the workload is "
				"misconfigured\n", nd);
			exit(1);
		}
	}
	t1 = meas_ns();
	if (split)
		fprintf(stderr, "\nbench_sched: xtx %u x %u: enqueue %.1f ns/pkt, dequeue %.1f "
			"ns/pkt\n", C, fl->n, (double)enq_ns / (double)done,
			(double)deq_ns / (double)done);
	free(cls);
	xtx_sched__destroy(s);
	xtx_sched_config__free(cfg);
	return (double)(t1 - t0) / (double)done;
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
"  --impl LIST         xtx,rte_sched (default both)\n"
"  --split             xtx: also time enqueue and dequeue apart on the wall clock, one\n"
"                      line per run on stderr (two more clock reads per burst of 32)\n"
"  --cpu-time          time with this thread's CPU clock instead of the wall clock\n"
"                      (for a shared machine: preemption does not count)\n"
"  --md FILE           also write the table in Markdown (tools/bench/report.sh)\n"
"  --json FILE         also write one JSON object per line:\n"
"                      {\"impl\",\"classes\",\"flows\",\"ns_per_pkt\",\"spread\"}\n"
"                      (ns_per_pkt is the median, spread is max - min)\n");
}

static const char *const impl_names[2] = { "xtx", "rte_sched" };

/* What to measure: the command line. */
struct bench {
	unsigned runs, classes[MAXCFG], nc, flows[MAXCFG], nf;
	uint64_t pkts;
	const char *json, *md;
	bool use[2];			/* xtx, rte_sched */
};

/* The command line into *o: -1 to go on, or the exit status (2: bad usage, 0: --help). */
static int parse_args(int argc, char **argv, struct bench *o)
{
	static const struct option lo[] = {
		{ "runs", required_argument, 0, 'r' }, { "pkts", required_argument, 0, 'p' },
		{ "classes", required_argument, 0, 'c' }, { "flows", required_argument, 0, 'f' },
		{ "impl", required_argument, 0, 'i' }, { "json", required_argument, 0, 'j' },
		{ "cpu-time", no_argument, 0, 't' }, { "md", required_argument, 0, 'm' },
		{ "split", no_argument, 0, 's' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 }
	};
	const char *only = NULL;
	int opt;

	*o = (struct bench){ .runs = 5, .classes = { 1, 64, 4096 }, .nc = 3,
			     .flows = { 1, 1024, 65536 }, .nf = 3, .pkts = 4000000,
			     .use = { true, true } };
	while ((opt = getopt_long(argc, argv, "r:p:c:f:i:j:m:tsh", lo, NULL)) != -1) {
		switch (opt) {
		case 'r': o->runs = (unsigned)atoi(optarg); break;
		case 'p': o->pkts = strtoull(optarg, NULL, 10); break;
		case 'c': o->nc = parse_list(optarg, o->classes, MAXCFG); break;
		case 'f': o->nf = parse_list(optarg, o->flows, MAXCFG); break;
		case 'i': only = optarg; break;
		case 'j': o->json = optarg; break;
		case 't': use_cpu_time = true; break;
		case 's': split = true; break;
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
	if (only) {
		o->use[0] = strstr(only, "xtx") != NULL;
		o->use[1] = strstr(only, "rte_sched") != NULL;
	}
	return -1;
}

/* Index of (implementation i, classes a, flows b) in the per-configuration arrays. */
static size_t cfg_idx(const struct bench *o, unsigned i, unsigned a, unsigned b)
{
	return ((size_t)i * o->nc + a) * o->nf + b;
}

/* Every configuration once per run, interleaved; the median and spread of each into
 * med[] and spr[] (cfg_idx()). 0, or -ENOMEM. */
static int measure_all(const struct bench *o, double *med, double *spr)
{
	double *res = calloc((size_t)2 * o->nc * o->nf * o->runs, sizeof(double));

	if (!res)
		return -ENOMEM;
#define RES(i, a, b, r) res[cfg_idx(o, i, a, b) * o->runs + (r)]
	for (unsigned run = 0; run < o->runs; run++) {
		fprintf(stderr, "\rbench_sched: run %u/%u ...", run + 1, o->runs);
		for (unsigned a = 0; a < o->nc; a++)
			for (unsigned b = 0; b < o->nf; b++) {
				struct flows fl;

				flows_init(&fl, o->flows[b]);
				if (o->use[0])
					RES(0, a, b, run) = run_xtx(o->classes[a], &fl, o->pkts);
#ifdef HAVE_DPDK
				if (o->use[1])
					RES(1, a, b, run) = run_rte(o->classes[a], &fl, o->pkts);
#endif
				free(fl.hash);
			}
	}
	fprintf(stderr, "\r%40s\r", "");
	for (unsigned impl = 0; impl < 2; impl++)
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
			FILE *jf)
{
	printf("ns per packet (enqueue + dequeue, %d-byte packets, bursts of %d, backlog %d), "
	       "median of %u runs (spread max - min), %s time\n", PKT_LEN, BURST, BACKLOG,
	       o->runs, use_cpu_time ? "thread CPU" : "wall");
	printf("%-10s %8s %8s %12s %10s\n", "impl", "classes", "flows", "ns/pkt", "spread");
	for (unsigned impl = 0; impl < 2; impl++) {
		if (!o->use[impl])
			continue;
		for (unsigned a = 0; a < o->nc; a++)
			for (unsigned b = 0; b < o->nf; b++) {
				size_t k = cfg_idx(o, impl, a, b);

				if (spr[k] < 0) {
					printf("%-10s %8u %8u %12s\n", impl_names[impl],
					       o->classes[a], o->flows[b], "failed");
					continue;
				}
				printf("%-10s %8u %8u %12.1f %10.1f\n", impl_names[impl],
				       o->classes[a], o->flows[b], med[k], spr[k]);
				if (jf)
					fprintf(jf, "{\"impl\": \"%s\", \"classes\": %u, \"flows\": %u, "
						"\"ns_per_pkt\": %.2f, \"spread\": %.2f}\n",
						impl_names[impl], o->classes[a], o->flows[b], med[k],
						spr[k]);
			}
	}
}

/* The Markdown table (--md) into mf. */
static void write_md(const struct bench *o, const double *med, const double *spr, FILE *mf)
{
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
	double *med, *spr;
	int rc = parse_args(argc, argv, &o);

	if (rc >= 0)
		return rc;
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
	med = calloc((size_t)2 * o.nc * o.nf, sizeof(double));
	spr = calloc((size_t)2 * o.nc * o.nf, sizeof(double));
	if (!med || !spr || measure_all(&o, med, spr))
		return 1;
	print_table(&o, med, spr, jf);
	if (mf) {
		write_md(&o, med, spr, mf);
		fclose(mf);
	}
	free(med);
	free(spr);
	if (jf)
		fclose(jf);
#ifdef HAVE_DPDK
	if (eal_ok)
		rte_eal_cleanup();
#endif
	return 0;
}
