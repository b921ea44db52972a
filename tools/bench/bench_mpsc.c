/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_mpsc.c - items per second through the xtx MPSC stage beside its peers, measured
 * in the same run on the same machine.
 *
 *   xtx          per-producer lanes + doorbell bitmap (this project)
 *   mutex        one ring under a pthread mutex: the qdisc root-lock model
 *   rte_ring     DPDK rte_ring, multi-producer enqueue / single-consumer dequeue (MP/SC)
 *   rte_ring_rts DPDK rte_ring with relaxed tail sync producers (RING_F_MP_RTS_ENQ)
 *   rte_ring_hts DPDK rte_ring with head/tail sync producers (RING_F_MP_HTS_ENQ)
 *   ck_ring      concurrencykit ck_ring in MPSC mode (single-item API: a burst is a loop)
 *   llist        the kernel's 2025 llist model: CAS push of a batch, consumer takes all
 *                and reverses (bounded here by a per-producer node pool)
 *
 * P producers (pinned to CPUs 1.. when there is more than one CPU) push bursts of B items
 * as fast as they can, yielding when the queue is full; one consumer (pinned to CPU 0)
 * takes bursts of 32 and counts. Each configuration runs K times, interleaved with the
 * others; the median and spread (max - min) are reported. Peers that are not installed
 * are skipped with a message.
 *
 * Usage: bench_mpsc [--runs K] [--duration S] [--producers 1,2,4,8,16] [--bursts 1,32]
 *                   [--impl NAME[,NAME]] [--json FILE] [--no-pin]
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xtx/mpsc.h>
#include "stats.h"

#ifdef HAVE_DPDK
#include <rte_ring.h>
#include <rte_ring_elem.h>
#endif
#ifdef HAVE_CK
#include <ck_ring.h>
CK_RING_PROTOTYPE(desc, xtx_desc)
#endif

#define MAXP		64
#define RING_SIZE	8192	/* shared rings; xtx gets LANE_SIZE per producer */
#define LANE_SIZE	1024
#define DEQ_BURST	32

static unsigned idle_visits;	/* --idle-visits: xtx option; 0 = library default */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- the queues under test ------------------------------------------------------- */

struct q {
	unsigned nprod;
	struct xtx_mpsc *xtx;
	struct xtx_mpsc_prod *xprod[MAXP];
	/* mutex ring */
	pthread_mutex_t mu;
	struct xtx_desc *mring;
	uint64_t mhead, mtail;
#ifdef HAVE_DPDK
	struct rte_ring *rr;
#endif
#ifdef HAVE_CK
	struct ck_ring ck;
	struct xtx_desc *ckbuf;
#endif
	/* llist */
	struct lnode *_Atomic lhead;
	struct lprod *lp;
	struct lnode *lcur;	/* consumer's reversed list, oldest first */
};

struct lnode {
	struct lnode *next;
	struct xtx_desc d;
	uint32_t prod;
};

struct lprod {
	struct lnode *pool;		/* LANE_SIZE nodes used in order */
	uint64_t produced;		/* producer-private */
	_Atomic uint64_t consumed __attribute__((aligned(64)));	/* consumer-written */
} __attribute__((aligned(64)));

/* xtx */
static inline unsigned xtx_enq(struct q *q, unsigned id, const struct xtx_desc *d, unsigned n)
{
	return xtx_mpsc__enqueue_burst(q->xprod[id], d, n);
}
static inline unsigned xtx_deq(struct q *q, struct xtx_desc *o, unsigned n)
{
	return xtx_mpsc__dequeue_burst(q->xtx, o, n);
}

/* mutex ring */
static inline unsigned mu_enq(struct q *q, unsigned id, const struct xtx_desc *d, unsigned n)
{
	(void)id;
	pthread_mutex_lock(&q->mu);
	unsigned room = RING_SIZE - (unsigned)(q->mtail - q->mhead);
	if (n > room)
		n = room;
	for (unsigned i = 0; i < n; i++)
		q->mring[(q->mtail + i) & (RING_SIZE - 1)] = d[i];
	q->mtail += n;
	pthread_mutex_unlock(&q->mu);
	return n;
}
static inline unsigned mu_deq(struct q *q, struct xtx_desc *o, unsigned n)
{
	pthread_mutex_lock(&q->mu);
	unsigned avail = (unsigned)(q->mtail - q->mhead);
	if (n > avail)
		n = avail;
	for (unsigned i = 0; i < n; i++)
		o[i] = q->mring[(q->mhead + i) & (RING_SIZE - 1)];
	q->mhead += n;
	pthread_mutex_unlock(&q->mu);
	return n;
}

#ifdef HAVE_DPDK
static inline unsigned rr_enq(struct q *q, unsigned id, const struct xtx_desc *d, unsigned n)
{
	(void)id;
	return rte_ring_enqueue_burst_elem(q->rr, d, sizeof(*d), n, NULL);
}
static inline unsigned rr_deq(struct q *q, struct xtx_desc *o, unsigned n)
{
	return rte_ring_dequeue_burst_elem(q->rr, o, sizeof(*o), n, NULL);
}
#endif

#ifdef HAVE_CK
static inline unsigned ck_enq(struct q *q, unsigned id, const struct xtx_desc *d, unsigned n)
{
	(void)id;
	for (unsigned i = 0; i < n; i++)
		if (!ck_ring_enqueue_mpsc_desc(&q->ck, q->ckbuf, (struct xtx_desc *)&d[i]))
			return i;
	return n;
}
static inline unsigned ck_deq(struct q *q, struct xtx_desc *o, unsigned n)
{
	unsigned i = 0;
	while (i < n && ck_ring_dequeue_mpsc_desc(&q->ck, q->ckbuf, &o[i]))
		i++;
	return i;
}
#endif

/* llist: push a batch newest-first with one CAS; the consumer takes all and reverses. */
static inline unsigned ll_enq(struct q *q, unsigned id, const struct xtx_desc *d, unsigned n)
{
	struct lprod *p = &q->lp[id];
	/* Acquire, pairs with the consumer's release store of consumed: nodes it finished
	 * with may be reused. */
	uint64_t room = LANE_SIZE - (p->produced -
				     atomic_load_explicit(&p->consumed, memory_order_acquire));
	struct lnode *first = NULL, *last = NULL, *old;

	if (n > room)
		n = (unsigned)room;
	if (!n)
		return 0;
	for (unsigned i = 0; i < n; i++) {	/* build newest-first: item n-1 at the front */
		struct lnode *nd = &p->pool[(p->produced + i) & (LANE_SIZE - 1)];

		nd->d = d[i];
		nd->prod = id;
		nd->next = first;
		first = nd;
		if (!last)
			last = nd;
	}
	p->produced += n;
	/* Relaxed load: the CAS below validates it. */
	old = atomic_load_explicit(&q->lhead, memory_order_relaxed);
	do
		last->next = old;
	/* Release on success, pairs with the consumer's acquire exchange: node contents
	 * are visible. Relaxed on failure: we retry with the new head. */
	while (!atomic_compare_exchange_weak_explicit(&q->lhead, &old, first,
						      memory_order_release, memory_order_relaxed));
	return n;
}
static inline unsigned ll_deq(struct q *q, struct xtx_desc *o, unsigned n)
{
	unsigned i = 0;

	if (!q->lcur) {
		/* Acquire, pairs with the producers' release CAS. */
		struct lnode *l = atomic_exchange_explicit(&q->lhead, NULL, memory_order_acquire);
		struct lnode *rev = NULL;

		while (l) {
			struct lnode *nx = l->next;
			l->next = rev;
			rev = l;
			l = nx;
		}
		q->lcur = rev;
	}
	while (i < n && q->lcur) {
		struct lnode *nd = q->lcur;
		struct lprod *p = &q->lp[nd->prod];

		o[i++] = nd->d;
		q->lcur = nd->next;
		/* Release, pairs with the producer's acquire load: we are done with the node.
		 * A plain increment: this thread is the only writer. */
		atomic_store_explicit(&p->consumed,
				      atomic_load_explicit(&p->consumed, memory_order_relaxed) + 1,
				      memory_order_release);
	}
	return i;
}

/* --- harness --------------------------------------------------------------------- */

struct run {
	struct q *q;
	unsigned burst;
	int pin;
	_Atomic int go, stop;
	_Atomic unsigned ready;
	uint64_t consumed;
	uint64_t checksum;	/* keeps the consumer's reads of the items alive */
	double t0, t1;
};

struct parg {
	struct run *r;
	unsigned id;
};

static void pin_to(unsigned cpu)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (n <= 1)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu % (unsigned)n, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static unsigned producer_cpu(unsigned id)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n <= 1 ? 0 : 1 + id % (unsigned)(n - 1);
}

/* One producer and one consumer loop per implementation, with the queue calls inlined. */
#define DEFINE_LOOPS(name, enq, deq)						\
static void *name##_producer(void *arg)						\
{										\
	struct parg *a = arg;							\
	struct run *r = a->r;							\
	struct xtx_desc b[64];							\
	uint64_t seq = 0;							\
	if (r->pin)								\
		pin_to(producer_cpu(a->id));					\
	atomic_fetch_add(&r->ready, 1);						\
	while (!atomic_load_explicit(&r->go, memory_order_acquire))		\
		;								\
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {		\
		for (unsigned i = 0; i < r->burst; i++)				\
			b[i] = (struct xtx_desc){ .addr = seq + i, .hash = a->id, .len = 64 }; \
		unsigned k = enq(r->q, a->id, b, r->burst);			\
		seq += k;							\
		if (k < r->burst)						\
			sched_yield();						\
	}									\
	return NULL;								\
}										\
static void name##_consume(struct run *r)					\
{										\
	struct xtx_desc o[DEQ_BURST];						\
	uint64_t n = 0, sum = 0;						\
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {		\
		unsigned k = deq(r->q, o, DEQ_BURST);				\
		for (unsigned i = 0; i < k; i++)				\
			sum += o[i].addr;					\
		n += k;								\
	}									\
	r->t1 = now_s();							\
	r->consumed = n;							\
	r->checksum = sum;							\
}

DEFINE_LOOPS(xtx, xtx_enq, xtx_deq)
DEFINE_LOOPS(mu, mu_enq, mu_deq)
DEFINE_LOOPS(ll, ll_enq, ll_deq)
#ifdef HAVE_DPDK
DEFINE_LOOPS(rr, rr_enq, rr_deq)
#endif
#ifdef HAVE_CK
DEFINE_LOOPS(ck, ck_enq, ck_deq)
#endif

enum kind { K_XTX, K_MUTEX, K_RTE, K_RTE_RTS, K_RTE_HTS, K_CK, K_LLIST, K__MAX };

struct impl {
	const char *name;
	enum kind kind;
	int available;
	const char *why;
	void *(*producer)(void *);
	void (*consume)(struct run *);
};

static struct impl impls[K__MAX] = {
	[K_XTX] = { "xtx", K_XTX, 1, NULL, xtx_producer, xtx_consume },
	[K_MUTEX] = { "mutex", K_MUTEX, 1, NULL, mu_producer, mu_consume },
#ifdef HAVE_DPDK
	[K_RTE] = { "rte_ring", K_RTE, 1, NULL, rr_producer, rr_consume },
	[K_RTE_RTS] = { "rte_ring_rts", K_RTE_RTS, 1, NULL, rr_producer, rr_consume },
	[K_RTE_HTS] = { "rte_ring_hts", K_RTE_HTS, 1, NULL, rr_producer, rr_consume },
#else
	[K_RTE] = { "rte_ring", K_RTE, 0, "DPDK (libdpdk-dev) not installed" },
	[K_RTE_RTS] = { "rte_ring_rts", K_RTE_RTS, 0, "DPDK (libdpdk-dev) not installed" },
	[K_RTE_HTS] = { "rte_ring_hts", K_RTE_HTS, 0, "DPDK (libdpdk-dev) not installed" },
#endif
#ifdef HAVE_CK
	[K_CK] = { "ck_ring", K_CK, 1, NULL, ck_producer, ck_consume },
#else
	[K_CK] = { "ck_ring", K_CK, 0, "concurrencykit (libck-dev) not installed" },
#endif
	[K_LLIST] = { "llist", K_LLIST, 1, NULL, ll_producer, ll_consume },
};

static int q_init(struct q *q, enum kind k, unsigned nprod)
{
	memset(q, 0, sizeof(*q));
	q->nprod = nprod;
	switch (k) {
	case K_XTX: {
		struct xtx_mpsc_opts o = { .sz = sizeof(o), .lanes = nprod,
					   .lane_size = LANE_SIZE, .numa_node = -1,
					   .idle_visits = idle_visits };
		q->xtx = xtx_mpsc__create(&o);
		if (!q->xtx)
			return -errno;
		for (unsigned i = 0; i < nprod; i++)
			q->xprod[i] = xtx_mpsc__register(q->xtx);
		return 0;
	}
	case K_MUTEX:
		pthread_mutex_init(&q->mu, NULL);
		q->mring = calloc(RING_SIZE, sizeof(*q->mring));
		return q->mring ? 0 : -ENOMEM;
	case K_RTE:
	case K_RTE_RTS:
	case K_RTE_HTS: {
#ifdef HAVE_DPDK
		unsigned flags = RING_F_SC_DEQ | (k == K_RTE_RTS ? RING_F_MP_RTS_ENQ :
						  k == K_RTE_HTS ? RING_F_MP_HTS_ENQ : 0);
		ssize_t sz = rte_ring_get_memsize_elem(sizeof(struct xtx_desc), RING_SIZE);
		if (sz < 0 || posix_memalign((void **)&q->rr, 128, (size_t)sz))
			return -ENOMEM;
		/* RING_F_EXACT_SZ not needed: RING_SIZE is a power of two (usable size-1). */
		if (rte_ring_init(q->rr, "bench", RING_SIZE, flags) < 0)
			return -EINVAL;
		return 0;
#else
		return -ENOTSUP;
#endif
	}
	case K_CK:
#ifdef HAVE_CK
		q->ckbuf = calloc(RING_SIZE, sizeof(*q->ckbuf));
		ck_ring_init(&q->ck, RING_SIZE);
		return q->ckbuf ? 0 : -ENOMEM;
#else
		return -ENOTSUP;
#endif
	case K_LLIST:
		if (posix_memalign((void **)&q->lp, 64, sizeof(*q->lp) * nprod))
			return -ENOMEM;
		memset(q->lp, 0, sizeof(*q->lp) * nprod);
		for (unsigned i = 0; i < nprod; i++)
			q->lp[i].pool = calloc(LANE_SIZE, sizeof(struct lnode));
		return 0;
	default:
		return -EINVAL;
	}
}

static void q_fini(struct q *q, enum kind k)
{
	switch (k) {
	case K_XTX:
		for (unsigned i = 0; i < q->nprod; i++)
			xtx_mpsc__unregister(q->xprod[i]);
		xtx_mpsc__destroy(q->xtx);
		break;
	case K_MUTEX:
		free(q->mring);
		pthread_mutex_destroy(&q->mu);
		break;
#ifdef HAVE_DPDK
	case K_RTE:
	case K_RTE_RTS:
	case K_RTE_HTS:
		free(q->rr);
		break;
#endif
#ifdef HAVE_CK
	case K_CK:
		free(q->ckbuf);
		break;
#endif
	case K_LLIST:
		for (unsigned i = 0; i < q->nprod; i++)
			free(q->lp[i].pool);
		free(q->lp);
		break;
	default:
		break;
	}
}

struct stop_ctx {
	struct run *r;
	double secs;
};

/* Ends a run after its duration; sleeps meanwhile, so it costs no CPU. */
static void *stop_thread(void *arg)
{
	struct stop_ctx *sc = arg;
	struct timespec ts = { (time_t)sc->secs,
			       (long)((sc->secs - (double)(time_t)sc->secs) * 1e9) };

	nanosleep(&ts, NULL);
	/* Relaxed: a stop flag; the joins order the rest. */
	atomic_store_explicit(&sc->r->stop, 1, memory_order_relaxed);
	return NULL;
}

/* One measurement: returns Mitems/s, or a negative errno. */
static double measure(const struct impl *im, unsigned nprod, unsigned burst, double secs,
		      int pin)
{
	struct q q;
	struct run r = { .q = &q, .burst = burst, .pin = pin };
	struct parg args[MAXP];
	pthread_t th[MAXP];
	int err = q_init(&q, im->kind, nprod);

	if (err)
		return err;
	if (pin)
		pin_to(0);
	for (unsigned i = 0; i < nprod; i++) {
		args[i] = (struct parg){ &r, i };
		pthread_create(&th[i], NULL, im->producer, &args[i]);
	}
	while (atomic_load(&r.ready) < nprod)
		sched_yield();
	r.t0 = now_s();
	/* Release, pairs with the producers' acquire spin on go. */
	atomic_store_explicit(&r.go, 1, memory_order_release);
	pthread_t stopper;
	struct stop_ctx sc = { &r, secs };
	pthread_create(&stopper, NULL, stop_thread, &sc);
	im->consume(&r);
	pthread_join(stopper, NULL);
	for (unsigned i = 0; i < nprod; i++)
		pthread_join(th[i], NULL);
	q_fini(&q, im->kind);
	return (double)r.consumed / (r.t1 - r.t0) / 1e6;
}

static unsigned parse_list(const char *s, unsigned *out, unsigned max)
{
	unsigned n = 0;
	char *end;

	while (*s && n < max) {
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || v == 0 || v > MAXP * 1000) {
			fprintf(stderr, "bench_mpsc: bad number list '%s'\n", s);
			exit(2);
		}
		out[n++] = (unsigned)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',') {
			fprintf(stderr, "bench_mpsc: bad number list near '%s'\n", end);
			exit(2);
		}
	}
	return n;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: bench_mpsc [options]\n"
"Items per second through the xtx MPSC stage and its peers (mutex ring, DPDK rte_ring\n"
"MP/SC, RTS and HTS, concurrencykit ck_ring MPSC, llist CAS-batch), same run, same machine.\n"
"\n"
"  --runs K            runs per configuration, interleaved (default 5)\n"
"  --duration S        seconds per run (default 0.2)\n"
"  --producers LIST    producer counts (default 1,2,4,8,16)\n"
"  --bursts LIST       producer burst sizes (default 1,32); the consumer takes 32\n"
"  --impl LIST         only these implementations (xtx,mutex,rte_ring,rte_ring_rts,\n"
"                      rte_ring_hts,ck_ring,llist)\n"
"  --json FILE         also write one JSON object per line:\n"
"                      {\"impl\",\"producers\",\"burst\",\"mitems_per_s\",\"spread\",\"runs\"}\n"
"                      (mitems_per_s is the median, spread is max - min, Mitems/s)\n"
"  --idle-visits N     xtx: empty visits before a lane is retired (default: library's)\n"
"  --md FILE           also write the table as Markdown (for docs/BENCHMARKS.md)\n"
"  --no-pin            do not pin the consumer to CPU 0 and producers to CPUs 1..\n"
"  -h, --help          this text\n");
}

/* What to measure: the command line. */
struct bench {
	unsigned runs, prods[16], np, bursts[8], nb;
	double secs;
	const char *json, *md;
	int pin;
	int sel[K__MAX];		/* implementations to run */
};

/* Index of configuration ci's producer count and burst. */
#define CFG_PRODS(o, ci)	((o)->prods[(ci) / (o)->nb])
#define CFG_BURST(o, ci)	((o)->bursts[(ci) % (o)->nb])

/* --impl's list into o->sel, exact names only ("rte_ring" must not pick "_rts"), without
 * the implementations this build lacks (said). */
static void select_impls(struct bench *o, const char *only)
{
	for (int k = 0; k < K__MAX; k++) {
		o->sel[k] = !only || strstr(only, impls[k].name) != NULL;
		if (only && o->sel[k]) {
			char buf[256], *save, *tok;
			snprintf(buf, sizeof(buf), "%s", only);
			o->sel[k] = 0;
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (!strcmp(tok, impls[k].name))
					o->sel[k] = 1;
		}
		if (o->sel[k] && !impls[k].available) {
			fprintf(stderr, "bench_mpsc: skipping %s: %s\n", impls[k].name, impls[k].why);
			o->sel[k] = 0;
		}
	}
}

/* The command line into *o: -1 to go on, or the exit status (2: bad usage, 0: --help). */
static int parse_args(int argc, char **argv, struct bench *o)
{
	static const struct option lo[] = {
		{ "runs", required_argument, 0, 'r' }, { "duration", required_argument, 0, 'd' },
		{ "producers", required_argument, 0, 'p' }, { "bursts", required_argument, 0, 'b' },
		{ "impl", required_argument, 0, 'i' }, { "json", required_argument, 0, 'j' },
		{ "no-pin", no_argument, 0, 'n' }, { "md", required_argument, 0, 'm' },
		{ "idle-visits", required_argument, 0, 'v' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 }
	};
	const char *only = NULL;
	int c;

	*o = (struct bench){ .runs = 5, .prods = { 1, 2, 4, 8, 16 }, .np = 5,
			     .bursts = { 1, 32 }, .nb = 2, .secs = 0.2, .pin = 1 };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r': o->runs = (unsigned)atoi(optarg); break;
		case 'd': o->secs = atof(optarg); break;
		case 'p': o->np = parse_list(optarg, o->prods, 16); break;
		case 'b': o->nb = parse_list(optarg, o->bursts, 8); break;
		case 'i': only = optarg; break;
		case 'j': o->json = optarg; break;
		case 'n': o->pin = 0; break;
		case 'm': o->md = optarg; break;
		case 'v': idle_visits = (unsigned)atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (o->runs < 1 || o->runs > 100 || o->secs <= 0 || o->secs > 60) {
		fprintf(stderr, "bench_mpsc: --runs must be 1..100 and --duration 0..60 s\n");
		return 2;
	}
	for (unsigned i = 0; i < o->np; i++)
		if (o->prods[i] > MAXP) {
			fprintf(stderr, "bench_mpsc: at most %d producers\n", MAXP);
			return 2;
		}
	for (unsigned i = 0; i < o->nb; i++)
		if (o->bursts[i] > 64) {
			fprintf(stderr, "bench_mpsc: bursts are 1..64\n");
			return 2;
		}
	select_impls(o, only);
	return -1;
}

/* Every configuration once per run index, interleaved; the median and spread of each
 * into med and spr. 0, or -ENOMEM. */
static int measure_all(const struct bench *o, double med[][K__MAX], double spr[][K__MAX])
{
	unsigned ncfg = o->np * o->nb;	/* at most 16 x 8 = 128 */
	double (*res)[K__MAX][100] = calloc(ncfg, sizeof(*res));

	if (!res)
		return -ENOMEM;
	for (unsigned run = 0; run < o->runs; run++) {
		fprintf(stderr, "\rbench_mpsc: run %u/%u ...", run + 1, o->runs);
		for (unsigned ci = 0; ci < ncfg; ci++)
			for (int k = 0; k < K__MAX; k++) {
				if (!o->sel[k])
					continue;
				res[ci][k][run] = measure(&impls[k], CFG_PRODS(o, ci),
							  CFG_BURST(o, ci), o->secs, o->pin);
			}
	}
	fprintf(stderr, "\r%40s\r", "");
	for (unsigned ci = 0; ci < ncfg; ci++)
		for (int k = 0; k < K__MAX; k++)
			if (o->sel[k])
				bench_median_spread(res[ci][k], o->runs, &med[ci][k], &spr[ci][k]);
	free(res);
	return 0;
}

/* The table's head on stdout and, with --md, in mf. */
static void print_head(const struct bench *o, FILE *mf)
{
	printf("Mitems/s, median of %u runs of %.2f s (± half the spread max-min); "
	       "consumer burst %d\n", o->runs, o->secs, DEQ_BURST);
	printf("%-4s %-5s", "P", "burst");
	if (mf) {
		fprintf(mf, "| P | burst |");
		for (int k = 0; k < K__MAX; k++)
			if (o->sel[k])
				fprintf(mf, " %s |", impls[k].name);
		fprintf(mf, " xtx / best peer |\n|---|---|");
		for (int k = 0; k < K__MAX; k++)
			if (o->sel[k])
				fprintf(mf, "---|");
		fprintf(mf, "---|\n");
	}
	for (int k = 0; k < K__MAX; k++)
		if (o->sel[k])
			printf(" %17s", impls[k].name);
	printf("\n");
}

/* One row per configuration on stdout, in mf (--md) and jf (--json). */
static void print_rows(const struct bench *o, double med[][K__MAX], double spr[][K__MAX],
		       FILE *mf, FILE *jf)
{
	for (unsigned ci = 0; ci < o->np * o->nb; ci++) {
		double best_peer = 0;

		printf("%-4u %-5u", CFG_PRODS(o, ci), CFG_BURST(o, ci));
		if (mf)
			fprintf(mf, "| %u | %u |", CFG_PRODS(o, ci), CFG_BURST(o, ci));
		for (int k = 0; k < K__MAX; k++) {
			if (!o->sel[k])
				continue;
			if (spr[ci][k] < 0) {
				printf(" %17s", "error");
				if (mf)
					fprintf(mf, " error |");
				continue;
			}
			if (k != K_XTX && med[ci][k] > best_peer)
				best_peer = med[ci][k];
			printf(" %8.2f ±%7.2f", med[ci][k], spr[ci][k] / 2);
			if (mf)
				fprintf(mf, " %.1f ± %.1f |", med[ci][k], spr[ci][k] / 2);
			if (jf)
				fprintf(jf, "{\"impl\": \"%s\", \"producers\": %u, \"burst\": %u, "
					"\"mitems_per_s\": %.3f, \"spread\": %.3f, \"runs\": %u, "
					"\"duration_s\": %.3f}\n", impls[k].name, CFG_PRODS(o, ci),
					CFG_BURST(o, ci), med[ci][k], spr[ci][k], o->runs, o->secs);
		}
		if (mf)
			fprintf(mf, o->sel[K_XTX] && best_peer > 0 ? " %.2fx |\n" : " - |\n",
				med[ci][K_XTX] / best_peer);
		printf("\n");
	}
}

/* Scaling of xtx: the P=max figure against P=1, per burst. */
static void print_scaling(const struct bench *o, double med[][K__MAX], FILE *mf)
{
	if (!o->sel[K_XTX] || o->np < 2 || o->prods[0] != 1)
		return;
	for (unsigned b = 0; b < o->nb; b++) {
		double r = med[(o->np - 1) * o->nb + b][K_XTX] / med[b][K_XTX];

		printf("xtx burst %u: P=%u keeps %.0f%% of P=1\n", o->bursts[b],
		       o->prods[o->np - 1], 100 * r);
		if (mf)
			fprintf(mf, "%sxtx, burst %u: P=%u keeps %.0f%% of its P=1 throughput.\n",
				b ? "" : "\n", o->bursts[b], o->prods[o->np - 1], 100 * r);
	}
}

int main(int argc, char **argv)
{
	static double med[128][K__MAX], spr[128][K__MAX];
	struct bench o;
	FILE *jf, *mf;
	int rc = parse_args(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (measure_all(&o, med, spr))
		return 1;
	jf = o.json ? fopen(o.json, "w") : NULL;
	mf = o.md ? fopen(o.md, "w") : NULL;
	if ((o.json && !jf) || (o.md && !mf)) {
		fprintf(stderr, "bench_mpsc: cannot write %s: %s\n", o.json && !jf ? o.json : o.md,
			strerror(errno));
		return 1;
	}
	print_head(&o, mf);
	print_rows(&o, med, spr, mf, jf);
	print_scaling(&o, med, mf);
	if (jf)
		fclose(jf);
	if (mf)
		fclose(mf);
	return 0;
}
