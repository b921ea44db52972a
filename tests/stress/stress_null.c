/* SPDX-License-Identifier: BSD-3-Clause */
/* stress_null.c - the engine end to end on the built-in null device ("null", "null:RATE"):
 * no interface, no kernel socket, no capability, no root. Run by tests/run-tests.sh in the
 * release, ASan and TSan builds; every loop is bounded in count and time (a hang exits 1),
 * and no check asserts a wall-clock duration.
 *
 *   caps      a child with no capability and a 1 MiB RLIMIT_MEMLOCK opens an engine on
 *             null and sends through it; no AF_XDP socket exists in the process.
 *   conserve  Q = 1, 2, 4 queues x P = 1..3 producer threads, each sending exactly
 *             PER_PROD frames of 14..1514 bytes with flow hashes spread over the queues
 *             (the multiply-shift boundaries among them): every frame offered is sent and
 *             completed, none dropped; producer, queue, class and null-device counters
 *             (frames, bytes, wire bytes: padded to 60, plus 24) add up.
 *   spread    in the same runs: each queue got exactly the frames whose hash maps to it,
 *             queue = hash * Q >> 32 (defs.h's xtx_queue_of()), and every queue got some.
 *   frames    in the same runs, halfway, every producer holds HOLD frames and pauses: once
 *             the dequeuers are idle the places add up to the UMEM with exactly P * HOLD
 *             in "app"; after the producers closed nothing is outside the pool and the
 *             dequeuers' hands; after stop everything is in the pool.
 *   shutdown  a 100mbit class on null holds a backlog at stop: drain sends all of it;
 *             drop_on_close, and a drain timeout, count what was queued as purged; in
 *             each case sent + purged = offered and every frame is back in the pool.
 *   reap      a thread takes 100 frames, queues 30 and exits without closing its producer:
 *             xtx_engine__reap() takes its 70 and its cache back (counted) and the 30 are
 *             sent; the dequeuer's own reaper does the same by itself; stop() reaps a
 *             producer that died last.
 *   wire      null:1gbit under "class 1: rate 1gbit" with overhead 24, 1514-byte frames
 *             offered at 1.25x that rate for ~2 s, the producer held back: every frame
 *             offered is sent or dropped at the leaf limit, and completed; the device's
 *             emulated time is exact, busy = frames x 12304 ns (1538 wire bytes at
 *             1 Gbit/s), and its wire never ran ahead of the clock: busy + gap, from its
 *             first frame to its last, fits between open and the end of stop. How busy
 *             the dequeuer kept the wire depends on scheduling (a stall of its CPU, a VM's
 *             steal time, shows as a gap), so it is printed, not checked: make bench-line
 *             measures it (its wire rows).
 */
#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xtx/xtx.h>
#include "check.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif

#define MAX_Q		4
#define MAX_P		3
#define PER_PROD	20000		/* frames per producer per conserve run */
#define HOLD		40		/* frames each producer holds at the pause */
#define BURST		32
#define FLOWS		16		/* flows per producer */
#define HANG_NS		(60ull * 1000 * 1000 * 1000)	/* any wait longer is a hang */
#define SETTLE_NS	(10ull * 1000 * 1000 * 1000)	/* for the dequeuers to go idle */
#define MS		(1000ull * 1000)

#define WIRE_RATE	1000000000ull	/* bits/s of the wire part */
#define WIRE_LEN	1514
#define WIRE_SECONDS	2
#define WIRE_OFFER	1.25		/* offered / the class rate */
#define WIRE_FRAME_NS	((WIRE_LEN + 24) * 8 * 1000000000ull / WIRE_RATE)	/* exact */


/* A wait that went past HANG_NS: the engine stopped moving frames. */
static void hang(const char *what)
{
	check_die("stress_null", what, "nothing moved for 60 s");
}

/* The engine's queue for a flow hash among nq queues: multiply-shift, as xtx_queue_of()
 * in userspace/engine/defs.h. */
static unsigned queue_of(unsigned nq, uint32_t hash)
{
	return (unsigned)(((uint64_t)hash * nq) >> 32);
}

/* Flow hashes: the first 8 flows sit on the boundaries of the queues (for Q = 1, 2, 4),
 * the others are spread by a multiplicative hash. The last flow takes 9 of every 24
 * frames, so that the queues' shares differ (a spread that ignored the hash, such as
 * round robin, would not match them). */
static uint32_t hash_of(unsigned prod, uint64_t seq)
{
	static const uint32_t edge[8] = { 0, 0xffffffffu, 0x3fffffffu, 0x40000000u,
					  0x7fffffffu, 0x80000000u, 0xbfffffffu, 0xc0000000u };
	unsigned flow = (unsigned)(seq % (FLOWS + 8));

	if (flow >= FLOWS)
		flow = FLOWS - 1;
	return flow < 8 ? edge[flow] : (prod * FLOWS + flow) * 2654435761u;
}

/* Frame lengths 14..1514: below and above the wire's 60-byte minimum. */
static uint32_t len_of(unsigned prod, uint64_t seq)
{
	return 14 + (uint32_t)((seq * 7919 + prod * 131) % 1501);
}

/* Bytes the null device's wire counts for a frame: padded to 60, plus preamble, gap and
 * FCS (xtx.h, struct xtx_null_stats). */
static uint64_t wire_len(uint32_t len)
{
	return (len < 60 ? 60 : len) + 24;
}

static unsigned af_xdp_sockets(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	unsigned n = 0;

	while (dir && (d = readdir(dir))) {
		int fd = atoi(d->d_name), dom = 0;
		socklen_t len = sizeof(dom);

		if (d->d_name[0] != '.' && fd != dirfd(dir) &&
		    !getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) && dom == AF_XDP)
			n++;
	}
	if (dir)
		closedir(dir);
	return n;
}

static struct xtx_engine *open_engine(struct xtx_engine_opts *o, const char *what)
{
	char err[512];
	struct xtx_engine *e;

	o->sz = sizeof(*o);
	o->quiet = 1;
	e = xtx_engine__open(o, err, sizeof(err));
	if (!CHECK(e != NULL))
		fprintf(stderr, "%s: open %s: %s\n", what, o->ifname, err);
	return e;
}

static uint64_t frames_sum(const struct xtx_frame_count *fc)
{
	return fc->pool + fc->cached + fc->app + fc->stage + fc->sched + fc->tx + fc->dequeuer;
}

/* Wait (up to SETTLE_NS) until the dequeuers are idle: nothing in a stage, scheduler or
 * TX ring, and the application holds exactly `held` frames. Then one class-counter
 * publication period (10 ms) more, and *fc as it is then; the caller's checks say what
 * is wrong if it never got there. */
static void settle(struct xtx_engine *e, struct xtx_frame_count *fc, uint64_t held)
{
	uint64_t t0 = check_now_ns();

	for (;;) {
		xtx_engine__frames(e, fc);
		if (!fc->stage && !fc->sched && !fc->tx && fc->app == held &&
		    frames_sum(fc) == fc->total)
			break;
		if (check_now_ns() - t0 > SETTLE_NS) {
			fprintf(stderr, "settle: not idle after %llu s: pool %lu cached %lu app %lu "
				"stage %lu sched %lu tx %lu dequeuer %lu of %lu\n",
				SETTLE_NS / 1000000000ull, (unsigned long)fc->pool,
				(unsigned long)fc->cached, (unsigned long)fc->app,
				(unsigned long)fc->stage, (unsigned long)fc->sched,
				(unsigned long)fc->tx, (unsigned long)fc->dequeuer,
				(unsigned long)fc->total);
			break;
		}
		usleep(1000);
	}
	usleep(20 * 1000);
	xtx_engine__frames(e, fc);
}

/* Take exactly n frames (back-pressure: wait). */
static void take_frames(struct xtx_producer *p, uint64_t *addrs, unsigned n)
{
	uint64_t t0 = check_now_ns();

	for (unsigned got = 0; got < n;) {
		unsigned g = xtx_producer__get_frames(p, addrs + got, n - got);

		got += g;
		if (!g && xtx_producer__wait(p, MS) && check_now_ns() - t0 > HANG_NS)
			hang("get_frames");
	}
}

/* Send frames seq0..seq0+n-1 of producer `prod` (len_of, hash_of), n <= BURST, as far as
 * the stages take them; returns how many were taken, the rest given back. */
static unsigned send_some(struct xtx_engine *e, struct xtx_producer *p, unsigned prod,
			  uint64_t seq0, unsigned n)
{
	uint64_t addrs[BURST];
	struct xtx_desc d[BURST];
	unsigned got = xtx_producer__get_frames(p, addrs, n), k;

	for (unsigned i = 0; i < got; i++) {
		uint64_t seq = seq0 + i;

		memcpy(xtx_engine__frame(e, addrs[i]), &seq, sizeof(seq));
		d[i] = (struct xtx_desc){ .addr = addrs[i], .len = len_of(prod, seq),
					  .hash = hash_of(prod, seq) };
	}
	k = xtx_producer__send_burst(p, d, got);
	xtx_producer__put_frames(p, addrs + k, got - k);
	if (k < n)
		xtx_producer__wait(p, MS);
	return k;
}

/* Send exactly count frames, seq0 on. */
static void send_count(struct xtx_engine *e, struct xtx_producer *p, unsigned prod,
		       uint64_t seq0, uint64_t count)
{
	uint64_t sent = 0, t_last = check_now_ns();

	while (sent < count) {
		unsigned want = count - sent < BURST ? (unsigned)(count - sent) : BURST;
		unsigned k = send_some(e, p, prod, seq0 + sent, want);

		sent += k;
		if (k)
			t_last = check_now_ns();
		else if (check_now_ns() - t_last > HANG_NS)
			hang("send");
	}
}

/* --- caps: no capability, no locked memory ----------------------------------------- */

static uint64_t completed_all(struct xtx_engine *e)
{
	uint64_t n = 0;

	for (unsigned q = 0; q < xtx_engine__queues(e); q++) {
		struct xtx_queue_stats qs;

		xtx_engine__queue_stats(e, q, &qs);
		n += qs.completed;
	}
	return n;
}

/* The child: every capability dropped and RLIMIT_MEMLOCK at 1 MiB (the UMEM is 32 MiB);
 * the engine opens on null and sends 1000 frames. Its exit status: 0 if all went. */
static int caps_child(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct cd[2];
	struct rlimit small = { 1 << 20, 1 << 20 };
	struct xtx_engine_opts o = { .ifname = "null", .queues = 2 };
	struct xtx_producer_stats ps;
	struct xtx_producer *p;
	struct xtx_engine *e;

	memset(cd, 0, sizeof(cd));
	if (setrlimit(RLIMIT_MEMLOCK, &small) || syscall(SYS_capset, &h, cd)) {
		perror("caps: setrlimit/capset");
		return 2;
	}
	if (!(e = open_engine(&o, "caps")) || !(p = xtx_producer__open(e)))
		return 1;
	send_count(e, p, 0, 0, 1000);
	unsigned socks = af_xdp_sockets();
	xtx_producer__close(p);
	int rc = xtx_engine__stop(e);
	uint64_t completed = completed_all(e);

	xtx_engine__producer_totals(e, &ps);
	printf("caps: no capability, RLIMIT_MEMLOCK 1 MiB: opened on null, %lu sent, %lu "
	       "completed, %u AF_XDP sockets, stop %d\n", (unsigned long)ps.sent,
	       (unsigned long)completed, socks, rc);
	xtx_engine__close(e);
	return !rc && ps.sent == 1000 && completed == 1000 && !socks ? 0 : 1;
}

/* Before any thread exists (a fork copies only the calling thread). */
static void check_caps(void)
{
	int st = 0;

	fflush(NULL);
	pid_t pid = fork();

	if (pid == 0) {
		int rc = caps_child();

		fflush(NULL);
		_exit(rc);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ_I64(0, WEXITSTATUS(st));
}

/* --- conserve, spread, frames -------------------------------------------------------- */

struct conserve {
	struct xtx_engine *e;
	unsigned nq, np;
	pthread_barrier_t pause;	/* np producers and main: twice, around the pause */
	struct xtx_producer_stats ps[MAX_P];	/* each producer's, read before its close */
};

struct prod_arg {
	struct conserve *c;
	unsigned id;
};

static void *conserve_producer(void *arg)
{
	struct prod_arg *a = arg;
	struct conserve *c = a->c;
	struct xtx_producer *p = xtx_producer__open(c->e);
	uint64_t held[HOLD], half = PER_PROD / 2;

	if (!p)
		check_die("stress_null", "conserve: producer open", strerror(errno));
	send_count(c->e, p, a->id, 0, half);
	take_frames(p, held, HOLD);
	pthread_barrier_wait(&c->pause);	/* holding HOLD: main counts */
	pthread_barrier_wait(&c->pause);	/* main is done */
	xtx_producer__put_frames(p, held, HOLD);
	send_count(c->e, p, a->id, half, PER_PROD - half);
	xtx_producer__stats(p, &c->ps[a->id]);
	xtx_producer__close(p);
	return NULL;
}

/* What each queue must have got: frames, bytes and wire bytes by queue_of(). */
struct expect {
	uint64_t pkts[MAX_Q], bytes[MAX_Q], wire[MAX_Q];
	uint64_t prod_bytes[MAX_P];
};

static void expect_conserve(unsigned nq, unsigned np, struct expect *x)
{
	memset(x, 0, sizeof(*x));
	for (unsigned i = 0; i < np; i++)
		for (uint64_t s = 0; s < PER_PROD; s++) {
			unsigned q = queue_of(nq, hash_of(i, s));
			uint32_t len = len_of(i, s);

			x->pkts[q]++;
			x->bytes[q] += len;
			x->wire[q] += wire_len(len);
			x->prod_bytes[i] += len;
		}
}

/* The counters once the producers closed and the dequeuers are idle. */
static void check_conserve_counters(struct conserve *c, const struct expect *x)
{
	uint64_t total = (uint64_t)c->np * PER_PROD, bytes = 0;
	struct xtx_producer_stats pt;
	struct xtx_class_stats cs;

	for (unsigned i = 0; i < c->np; i++) {
		CHECK_EQ_U64(PER_PROD, c->ps[i].sent);
		CHECK_EQ_U64(x->prod_bytes[i], c->ps[i].sent_bytes);
		CHECK_EQ_U64(0, c->ps[i].bad_desc);
		CHECK(c->ps[i].got >= PER_PROD + HOLD);
		bytes += x->prod_bytes[i];
	}
	xtx_engine__producer_totals(c->e, &pt);
	CHECK_EQ_U64(total, pt.sent);
	CHECK_EQ_U64(bytes, pt.sent_bytes);
	CHECK_EQ_U64(0, pt.bad_desc + pt.reaped + pt.reclaimed);
	xtx_engine__class_stats(c->e, 0, &cs);
	CHECK_EQ_U64(total, cs.enq_pkts);
	CHECK_EQ_U64(total, cs.sent_pkts);
	CHECK_EQ_U64(bytes, cs.sent_bytes);
	for (unsigned q = 0; q < c->nq; q++) {
		struct xtx_queue_stats qs;
		struct xtx_null_stats ns;
		uint64_t drops = 0;

		CHECK_EQ_I64(0, xtx_engine__queue_stats(c->e, q, &qs));
		CHECK_EQ_I64(0, xtx_engine__null_stats(c->e, q, &ns));
		for (int r = 0; r < XTX_DROP__MAX; r++)
			drops += qs.drops[r];
		CHECK(x->pkts[q] > 0);			/* the hashes reach every queue */
		CHECK_EQ_U64(x->pkts[q], qs.stage_pkts);
		CHECK_EQ_U64(x->pkts[q], qs.sent_pkts);
		CHECK_EQ_U64(x->bytes[q], qs.sent_bytes);
		CHECK_EQ_U64(x->pkts[q], qs.completed);
		CHECK_EQ_U64(0, drops);
		CHECK_EQ_U64(0, qs.kick_errors);
		CHECK_EQ_U64(x->pkts[q], ns.frames);
		CHECK_EQ_U64(x->bytes[q], ns.bytes);
		CHECK_EQ_U64(x->wire[q], ns.wire_bytes);
		CHECK_EQ_U64(0, ns.busy_ns + ns.gap_ns);	/* no wire without a rate */
	}
}

static void conserve_run(unsigned nq, unsigned np)
{
	struct xtx_engine_opts o = { .ifname = "null", .queues = nq };
	struct conserve c = { .nq = nq, .np = np };
	struct prod_arg args[MAX_P];
	pthread_t th[MAX_P];
	struct xtx_frame_count fc;
	struct expect x;
	char what[32];

	snprintf(what, sizeof(what), "conserve Q=%u P=%u", nq, np);
	expect_conserve(nq, np, &x);
	c.e = open_engine(&o, what);
	if (!c.e)
		return;
	CHECK_EQ_U64(nq, xtx_engine__queues(c.e));
	CHECK(xtx_engine__xdp_mode(c.e) == XTX_MODE_NULL);
	CHECK_EQ_U64(0, af_xdp_sockets());
	pthread_barrier_init(&c.pause, NULL, np + 1);
	for (unsigned i = 0; i < np; i++) {
		args[i] = (struct prod_arg){ &c, i };
		pthread_create(&th[i], NULL, conserve_producer, &args[i]);
	}
	/* Halfway, running, the producers open and each holding HOLD frames. */
	pthread_barrier_wait(&c.pause);
	settle(c.e, &fc, (uint64_t)np * HOLD);
	CHECK_EQ_U64(fc.total, frames_sum(&fc));
	CHECK_EQ_U64((uint64_t)np * HOLD, fc.app);
	CHECK_EQ_U64(0, fc.stage + fc.sched + fc.tx);
	pthread_barrier_wait(&c.pause);
	for (unsigned i = 0; i < np; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&c.pause);

	/* The producers closed: everything in the pool or a dequeuer's hand. */
	settle(c.e, &fc, 0);
	CHECK_EQ_U64(fc.total, fc.pool + fc.dequeuer);
	CHECK_EQ_U64(0, fc.cached + fc.app + fc.stage + fc.sched + fc.tx);
	check_conserve_counters(&c, &x);
	CHECK_EQ_I64(0, xtx_engine__stop(c.e));
	xtx_engine__frames(c.e, &fc);
	CHECK_EQ_U64(fc.total, fc.pool);
	printf("%s: %u frames, per queue:", what, np * PER_PROD);
	for (unsigned q = 0; q < nq; q++)
		printf(" %lu", (unsigned long)x.pkts[q]);
	printf("; %u held at the pause; UMEM %lu frames\n", np * HOLD, (unsigned long)fc.total);
	CHECK_EQ_I64(0, xtx_engine__close(c.e));
}

/* --- shutdown ------------------------------------------------------------------------ */

#define SHUT_COUNT	4000	/* 1000-byte frames: 0.33 s at 100mbit */

/* Send SHUT_COUNT frames into a 100mbit class, close the producer and stop the engine
 * (drop: drop_on_close; timeout_ms: the drain timeout, 0 the default). */
static void shutdown_run(const char *what, int drop, unsigned timeout_ms, int want_rc)
{
	char err[512];
	struct xtx_sched_config *cfg = xtx_sched_config__parse_string(
		"class 1: rate 100mbit\n", what, err, sizeof(err));
	struct xtx_engine_opts o = { .ifname = "null", .drop_on_close = drop,
				     .drain_timeout_ns = timeout_ms * MS };
	struct xtx_engine *e;
	struct xtx_producer *p;
	struct xtx_frame_count fc;
	struct xtx_queue_stats qs;
	struct xtx_null_stats ns;
	uint64_t t0 = check_now_ns(), sent = 0, queued;

	if (!CHECK(cfg != NULL)) {
		fprintf(stderr, "%s: %s\n", what, err);
		return;
	}
	o.classes = cfg;
	e = open_engine(&o, what);
	if (!e || !CHECK((p = xtx_producer__open(e)) != NULL))
		goto out_cfg;
	while (sent < SHUT_COUNT) {	/* every frame 1000 bytes, one flow */
		uint64_t a[BURST];
		struct xtx_desc d[BURST];
		unsigned n = xtx_producer__get_frames(p, a, SHUT_COUNT - sent < BURST ?
						      (unsigned)(SHUT_COUNT - sent) : BURST), k;

		for (unsigned i = 0; i < n; i++)
			d[i] = (struct xtx_desc){ .addr = a[i], .len = 1000, .hash = 7 };
		k = xtx_producer__send_burst(p, d, n);
		xtx_producer__put_frames(p, a + k, n - k);
		sent += k;
		if (k < n || !n)
			xtx_producer__wait(p, MS);
		if (check_now_ns() - t0 > HANG_NS)
			hang(what);
	}
	xtx_producer__close(p);
	do {				/* the stage emptied into the scheduler */
		xtx_engine__frames(e, &fc);
		if (check_now_ns() - t0 > HANG_NS)
			hang(what);
	} while (fc.stage);
	queued = fc.sched;
	CHECK(queued > 0);		/* stop has something to drain or drop */
	CHECK_EQ_I64(want_rc, xtx_engine__stop(e));
	xtx_engine__queue_stats(e, 0, &qs);
	xtx_engine__null_stats(e, 0, &ns);
	uint64_t purged = qs.drops[XTX_DROP_PURGED], other = 0;
	for (int r = 0; r < XTX_DROP__MAX; r++)
		other += r == XTX_DROP_PURGED ? 0 : qs.drops[r];
	CHECK_EQ_U64(SHUT_COUNT, qs.stage_pkts);
	CHECK_EQ_U64(SHUT_COUNT, qs.sent_pkts + purged);
	CHECK_EQ_U64(qs.sent_pkts, qs.completed);
	CHECK_EQ_U64(qs.sent_pkts, ns.frames);
	CHECK_EQ_U64(0, other);
	if (drop || timeout_ms)
		CHECK(purged > 0);
	else
		CHECK_EQ_U64(0, purged);
	xtx_engine__frames(e, &fc);
	CHECK_EQ_U64(fc.total, fc.pool);
	CHECK_EQ_U64(0, frames_sum(&fc) - fc.pool);
	printf("shutdown %s: %d frames offered, %lu queued at stop, %lu sent, %lu purged\n",
	       what, SHUT_COUNT, (unsigned long)queued, (unsigned long)qs.sent_pkts,
	       (unsigned long)purged);
	CHECK_EQ_I64(0, xtx_engine__close(e));	/* already stopped */
out_cfg:
	xtx_sched_config__free(cfg);
}

/* --- reap ------------------------------------------------------------------------------ */

/* Takes 100 frames, queues 30 (spread over the queues), keeps 70 and exits without
 * closing its producer. */
static void *dier(void *arg)
{
	struct xtx_engine *e = arg;
	struct xtx_producer *p = xtx_producer__open(e);
	uint64_t addrs[100], t0 = check_now_ns();
	struct xtx_desc d[30];

	if (!p)
		check_die("stress_null", "dier: producer open", strerror(errno));
	take_frames(p, addrs, 100);
	for (unsigned i = 0; i < 30; i++)
		d[i] = (struct xtx_desc){ .addr = addrs[i], .len = 64, .hash = hash_of(1, i) };
	for (unsigned done = 0; done < 30;) {
		unsigned k = xtx_producer__send_burst(p, d + done, 30 - done);

		done += k;
		if (!k)
			xtx_producer__wait(p, MS);
		if (check_now_ns() - t0 > HANG_NS)
			hang("dier: send");
	}
	return NULL;
}

static void run_dier(struct xtx_engine *e)
{
	pthread_t th;

	pthread_create(&th, NULL, dier, e);
	pthread_join(th, NULL);
}

/* After reaping: nothing in "app" or "cached", the dier's 30 sent. */
static void check_reaped(struct xtx_engine *e, uint64_t reaped, uint64_t sent)
{
	struct xtx_producer_stats ps;
	struct xtx_frame_count fc;

	xtx_engine__producer_totals(e, &ps);
	CHECK_EQ_U64(reaped, ps.reaped);
	CHECK(ps.reclaimed >= 70 * reaped);		/* its 70, and its cache */
	CHECK_EQ_U64(sent, ps.sent);
	settle(e, &fc, 0);
	CHECK_EQ_U64(fc.total, fc.pool + fc.dequeuer);
	CHECK_EQ_U64(0, fc.app + fc.cached + fc.stage + fc.sched + fc.tx);
	CHECK_EQ_U64(sent, completed_all(e));
}

static void reap_explicit(void)
{
	struct xtx_engine_opts o = { .ifname = "null", .queues = 2, .no_reap = 1 };
	struct xtx_engine *e = open_engine(&o, "reap");
	struct xtx_frame_count fc;
	struct xtx_producer_stats ps;

	if (!e)
		return;
	run_dier(e);
	xtx_engine__frames(e, &fc);
	CHECK_EQ_U64(70, fc.app);		/* held by a thread that is gone */
	CHECK_EQ_I64(1, xtx_engine__reap(e));
	check_reaped(e, 1, 30);
	CHECK_EQ_I64(0, xtx_engine__reap(e));	/* nothing left to reap */
	/* One that died last: stop() reaps it rather than saying EBUSY. */
	run_dier(e);
	CHECK_EQ_I64(0, xtx_engine__stop(e));
	xtx_engine__producer_totals(e, &ps);
	CHECK_EQ_U64(2, ps.reaped);
	CHECK_EQ_U64(60, completed_all(e));
	xtx_engine__frames(e, &fc);
	CHECK_EQ_U64(fc.total, fc.pool);
	printf("reap: %lu dead producers reaped (the last by stop()), %lu frames reclaimed, "
	       "%lu of the 60 they queued completed\n", (unsigned long)ps.reaped,
	       (unsigned long)ps.reclaimed, (unsigned long)completed_all(e));
	CHECK_EQ_I64(0, xtx_engine__close(e));
}

/* The dequeuer's own reaper (about once a second): up to 5 s. */
static void reap_periodic(void)
{
	struct xtx_engine_opts o = { .ifname = "null" };
	struct xtx_engine *e = open_engine(&o, "reap periodic");
	struct xtx_producer_stats ps;
	uint64_t t0;

	if (!e)
		return;
	run_dier(e);
	t0 = check_now_ns();
	do {
		usleep(10 * 1000);
		xtx_engine__producer_totals(e, &ps);
	} while (!ps.reaped && check_now_ns() - t0 < 5000 * MS);
	printf("reap: the dequeuer's own reaper: %lu reaped after %.2f s\n",
	       (unsigned long)ps.reaped, (double)(check_now_ns() - t0) * 1e-9);
	check_reaped(e, 1, 30);
	CHECK_EQ_I64(0, xtx_engine__close(e));
}

/* --- wire ------------------------------------------------------------------------------ */

/* Offer WIRE_LEN-byte frames at WIRE_OFFER x the class rate for WIRE_SECONDS (by this
 * thread's clock, bounded in count too). Returns how many were offered (all taken). */
static uint64_t wire_offer(struct xtx_producer *p)
{
	double pps = (double)WIRE_RATE / ((WIRE_LEN + 24) * 8) * WIRE_OFFER;
	uint64_t max = (uint64_t)(pps * WIRE_SECONDS), sent = 0, t0 = check_now_ns(), t;

	while ((t = check_now_ns() - t0) < WIRE_SECONDS * 1000 * MS && sent < max) {
		uint64_t due = (uint64_t)((double)t * 1e-9 * pps);

		while (sent < due) {
			uint64_t a[BURST];
			struct xtx_desc d[BURST];
			unsigned n = xtx_producer__get_frames(p, a, due - sent < BURST ?
							      (unsigned)(due - sent) : BURST), k;

			for (unsigned i = 0; i < n; i++)
				d[i] = (struct xtx_desc){ .addr = a[i], .len = WIRE_LEN,
							  .hash = hash_of(0, sent + i) };
			k = xtx_producer__send_burst(p, d, n);
			xtx_producer__put_frames(p, a + k, n - k);
			sent += k;
			if (k < n || !n) {
				xtx_producer__wait(p, MS);
				break;
			}
		}
		usleep(200);
	}
	return sent;
}

/* Open, offer, drain; the exact counts and the device's emulated time. */
static void wire_run(void)
{
	char err[512];
	struct xtx_sched_config *cfg = xtx_sched_config__parse_string(
		"class 1: rate 1gbit\noverhead 24\n", "wire", err, sizeof(err));
	struct xtx_engine_opts o = { .ifname = "null:1gbit" };
	struct xtx_engine *e;
	struct xtx_producer *p;
	struct xtx_producer_stats ps;
	struct xtx_frame_count fc;
	struct xtx_queue_stats qs;
	struct xtx_null_stats ns;
	uint64_t t_open, t_end;

	if (!CHECK(cfg != NULL)) {
		fprintf(stderr, "wire: %s\n", err);
		return;
	}
	o.classes = cfg;
	t_open = check_now_ns();
	if (!(e = open_engine(&o, "wire")))
		goto out_cfg;
	if (!CHECK((p = xtx_producer__open(e)) != NULL)) {
		xtx_engine__close(e);
		goto out_cfg;
	}
	uint64_t offered = wire_offer(p);

	xtx_producer__stats(p, &ps);
	xtx_producer__close(p);
	xtx_engine__frames(e, &fc);
	/* Offered above the rate: the pool ran dry or the stage was full at times. */
	CHECK(ps.no_frames + ps.short_sends > 0);
	CHECK_EQ_I64(0, xtx_engine__stop(e));		/* drains what is queued on the wire */
	t_end = check_now_ns();
	xtx_engine__queue_stats(e, 0, &qs);
	CHECK_EQ_I64(0, xtx_engine__null_stats(e, 0, &ns));
	uint64_t limit = qs.drops[XTX_DROP_LEAF_LIMIT], other = 0;
	for (int i = 0; i < XTX_DROP__MAX; i++)
		other += i == XTX_DROP_LEAF_LIMIT ? 0 : qs.drops[i];
	CHECK_EQ_U64(offered, qs.sent_pkts + limit);
	CHECK_EQ_U64(0, other);
	CHECK_EQ_U64(qs.sent_pkts, qs.completed);
	CHECK_EQ_U64(qs.sent_pkts, ns.frames);
	CHECK_EQ_U64(ns.frames * WIRE_LEN, ns.bytes);
	CHECK_EQ_U64(ns.frames * (WIRE_LEN + 24), ns.wire_bytes);
	CHECK_EQ_U64(ns.frames * WIRE_FRAME_NS, ns.busy_ns);
	/* The wire's first frame started after open and its last ended before stop returned
	 * (a frame completes only once its time is up): delays only widen the margin. */
	CHECK(ns.busy_ns + ns.gap_ns <= t_end - t_open);

	double active = (double)(ns.busy_ns + ns.gap_ns);

	printf("wire: null:1gbit, class 1gbit overhead 24: %lu frames of %d bytes offered "
	       "(held back %lu times, %lu queued at the end), %lu sent, %lu over the leaf "
	       "limit; busy %.6f s = %lu x %llu ns, gaps %.3f ms, in %.3f s from open to "
	       "stopped (not checked: the wire at %.4f Gbit/s over its active time, busy "
	       "%.4f of it)\n", (unsigned long)offered, WIRE_LEN,
	       (unsigned long)(ps.no_frames + ps.short_sends), (unsigned long)(fc.stage + fc.sched),
	       (unsigned long)qs.sent_pkts, (unsigned long)limit, (double)ns.busy_ns * 1e-9,
	       (unsigned long)ns.frames, WIRE_FRAME_NS, (double)ns.gap_ns * 1e-6,
	       (double)(t_end - t_open) * 1e-9,
	       active > 0 ? (double)ns.wire_bytes * 8 / active : 0,
	       active > 0 ? (double)ns.busy_ns / active : 0);
	CHECK_EQ_I64(0, xtx_engine__close(e));
out_cfg:
	xtx_sched_config__free(cfg);
}

/* --- room: producers held back per class instead of filling the leaves ------------- */

#define ROOM_LEN	1000
#define ROOM_SECONDS	1.5

struct room_prod {
	struct xtx_engine *e;
	uint16_t cls;			/* each producer feeds one class */
	uint64_t count, sent;		/* frames to send, sent */
	uint64_t max_backlog;		/* the class's largest published backlog seen */
	uint32_t budget;		/* its room budget then */
	int reserve;			/* builds only what xtx_producer__room_reserve() grants */
};

static void *room_producer(void *arg)
{
	struct room_prod *rp = arg;
	struct xtx_producer *p = xtx_producer__open(rp->e);
	uint64_t t_last = check_now_ns(), n = 0;

	if (!CHECK(p != NULL))
		return NULL;
	while (rp->sent < rp->count) {
		uint64_t a[BURST];
		struct xtx_desc d[BURST];
		unsigned want = rp->count - rp->sent < BURST ? (unsigned)(rp->count - rp->sent)
							      : BURST;
		unsigned got = xtx_producer__get_frames(p, a, want), k, n_d = 0;
		struct xtx_class_stats cs;

		for (unsigned i = 0; i < got; i++) {
			uint32_t h = (uint32_t)((rp->sent + i) % FLOWS) * 0x9e3779b1u;

			if (rp->reserve && !xtx_producer__room_reserve(p, rp->cls, h, ROOM_LEN))
				break;
			d[n_d++] = (struct xtx_desc){ .addr = a[i], .len = ROOM_LEN,
						      .cls = rp->cls, .hash = h };
		}
		k = xtx_producer__send_burst(p, d, n_d);
		xtx_producer__put_frames(p, a + k, got - k);
		rp->sent += k;
		if (rp->reserve && !n_d && got)	/* nothing granted: wait for the class */
			xtx_producer__wait_room(p, rp->cls,
				(uint32_t)(rp->sent % FLOWS) * 0x9e3779b1u, MS);
		else if (k < want)
			xtx_producer__wait(p, MS);	/* the class's room, after a room stop */
		if (k)
			t_last = check_now_ns();
		else if (check_now_ns() - t_last > HANG_NS)
			hang("room send");
		if (++n % 64 == 0) {
			xtx_engine__class_stats(rp->e, rp->cls, &cs);
			if (cs.backlog > rp->max_backlog) {
				rp->max_backlog = cs.backlog;
				rp->budget = cs.room_budget;
			}
		}
	}
	xtx_producer__close(p);
	return NULL;
}

/* Two classes of 20 and 80 Mbit/s on two queues, target 1 ms, each fed by its own
 * producer with 1.5 s of its rate as fast as the producer can: every frame sent, none
 * dropped at the leaves' limit of 200 (without room a producer fills it at once), the
 * producers held back by room (stops and waits counted), and the published backlog
 * never far above the budget. With reserve, the producers build only what
 * xtx_producer__room_reserve() grants: the same, and send_burst() never stops at a
 * class without room (0 room stops: what was reserved is taken). */
static void room_run(int reserve)
{
	char err[512];
	struct xtx_sched_config *cfg = xtx_sched_config__parse_string(
		"class 1: rate 1gbit\nclass 1:10 parent 1: rate 20mbit fq limit 200\n"
		"class 1:20 parent 1: rate 80mbit fq limit 200\n", "room", err, sizeof(err));
	/* max_classes 3: the tree's own, so a queue's row of the mirror is 3 words */
	struct xtx_engine_opts o = { .ifname = "null", .queues = 2, .target_ns = MS,
				     .max_classes = 3 };
	struct room_prod rp[2];
	pthread_t th[2];
	struct xtx_producer_stats ps;
	struct xtx_engine *e;
	uint64_t sent = 0, drops = 0;

	if (!CHECK(cfg != NULL)) {
		fprintf(stderr, "room: %s\n", err);
		return;
	}
	o.classes = cfg;
	if (!(e = open_engine(&o, reserve ? "room reserve" : "room")))
		goto out_cfg;
	/* the room words mirrored for a reader that cannot wait (xtx-shape's XDP) */
	static uint64_t mirror[2 * 3];
	if (!reserve) {
		CHECK_EQ_I64(-EINVAL, xtx_engine__room_mirror(e, mirror, 5));
		CHECK_EQ_I64(0, xtx_engine__room_mirror(e, mirror, 6));
		CHECK_EQ_I64(-EBUSY, xtx_engine__room_mirror(e, mirror, 6));
	}
	for (unsigned i = 0; i < 2; i++) {
		uint64_t rate = i ? 80000000ull : 20000000ull;

		rp[i] = (struct room_prod){ .e = e, .cls = (uint16_t)(1 + i), .reserve = reserve,
			.count = (uint64_t)(rate / ((ROOM_LEN + 24) * 8.0) * ROOM_SECONDS) };
		CHECK_EQ_I64(0, pthread_create(&th[i], NULL, room_producer, &rp[i]));
	}
	for (unsigned i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	xtx_engine__producer_totals(e, &ps);
	CHECK_EQ_I64(0, xtx_engine__stop(e));
	for (unsigned q = 0; q < 2; q++) {
		struct xtx_queue_stats qs;

		xtx_engine__queue_stats(e, q, &qs);
		sent += qs.sent_pkts;
		for (int r = 0; r < XTX_DROP__MAX; r++)
			drops += qs.drops[r];
	}
	CHECK_EQ_U64(rp[0].count + rp[1].count, sent);
	CHECK_EQ_U64(0, drops);
	if (reserve)
		CHECK(ps.room_stops == 0 && ps.room_waits > 0);
	else
		CHECK(ps.room_stops > 0 && ps.room_waits > 0);
	/* each queue's row: the root without a limit, both leaves past room events (gen) */
	for (unsigned q = 0; !reserve && q < 2; q++) {
		CHECK_EQ_U64(0xffffff, mirror[q * 3] & 0xffffff);
		for (unsigned c = 1; c < 3; c++)
			CHECK((mirror[q * 3 + c] >> 48 & 0x7fff) > 0 &&
			      (mirror[q * 3 + c] & 0xffffff) != 0xffffff);
	}
	if (!reserve)
		printf("room: mirrored words %016llx %016llx %016llx | %016llx %016llx "
		       "%016llx\n", (unsigned long long)mirror[0],
		       (unsigned long long)mirror[1], (unsigned long long)mirror[2],
		       (unsigned long long)mirror[3], (unsigned long long)mirror[4],
		       (unsigned long long)mirror[5]);
	for (unsigned i = 0; i < 2; i++) {
		printf("room: class 1:%u0, %lu frames of %d bytes: largest backlog seen %lu B "
		       "(budget then %u B, both queues)\n", i + 1, (unsigned long)rp[i].count,
		       ROOM_LEN, (unsigned long)rp[i].max_backlog, rp[i].budget);
		/* budget + what producers may add per event (half of it) + a burst in flight */
		CHECK(rp[i].budget != UINT32_MAX);
		CHECK(rp[i].max_backlog <= (uint64_t)rp[i].budget * 3 / 2 + BURST * (ROOM_LEN + 24));
	}
	printf("room%s: %lu sent, %lu dropped; send_burst stopped %lu times by room, %lu waits\n",
	       reserve ? " (reserve)" : "", (unsigned long)sent, (unsigned long)drops, (unsigned long)ps.room_stops,
	       (unsigned long)ps.room_waits);
	CHECK_EQ_I64(0, xtx_engine__close(e));
out_cfg:
	xtx_sched_config__free(cfg);
}

/* A producer that waits for class room is woken when its class gets room (room.h, W2),
 * not left to its timeout: one 10 Mbit/s class, target 1 ms; the producer reserves until
 * refused, sends what it reserved, and when nothing was granted waits for the class with
 * a 2 s timeout (its events are ~2.5 ms apart). Every wait returns 0; a lost wake-up
 * would be -ETIMEDOUT. */
#define WAKE_WAITS	40
#define WAKE_TIMEOUT	(2000 * MS)
#define WAKE_MAX_SENT	5000	/* ~4 s of the class: bounds the loop if room never refuses */

static void room_wake_run(void)
{
	char err[512];
	struct xtx_sched_config *cfg = xtx_sched_config__parse_string(
		"class 1: rate 10mbit fq limit 200\n", "room wake", err, sizeof(err));
	struct xtx_engine_opts o = { .ifname = "null", .queues = 1, .target_ns = MS };
	struct xtx_engine *e;
	struct xtx_producer *p;
	unsigned waits = 0, woken = 0;
	uint64_t sent = 0;

	if (!CHECK(cfg != NULL)) {
		fprintf(stderr, "room wake: %s\n", err);
		return;
	}
	o.classes = cfg;
	if (!(e = open_engine(&o, "room wake")))
		goto out_cfg;
	if (!CHECK((p = xtx_producer__open(e)) != NULL))
		goto out_engine;
	while (waits < WAKE_WAITS && sent < WAKE_MAX_SENT) {
		uint64_t a[BURST];
		struct xtx_desc d[BURST];
		unsigned got = xtx_producer__get_frames(p, a, BURST), n = 0, k;
		uint32_t h = 0x9e3779b1u;

		while (n < got && xtx_producer__room_reserve(p, 0, h, ROOM_LEN)) {
			d[n] = (struct xtx_desc){ .addr = a[n], .len = ROOM_LEN, .cls = 0,
						  .hash = h };
			n++;
		}
		k = xtx_producer__send_burst(p, d, n);
		xtx_producer__put_frames(p, a + k, got - k);
		sent += k;
		if (n || !got) {
			if (!got)
				xtx_producer__wait(p, MS);
			continue;
		}
		waits++;
		woken += CHECK_EQ_I64(0, xtx_producer__wait_room(p, 0, h, WAKE_TIMEOUT));
	}
	CHECK_EQ_U64(WAKE_WAITS, waits);
	printf("room wake: %lu frames sent, %u of %u waits for class room woken (timeout %d s)\n",
	       (unsigned long)sent, woken, waits, (int)(WAKE_TIMEOUT / 1000 / MS));
	xtx_producer__close(p);
out_engine:
	CHECK_EQ_I64(0, xtx_engine__close(e));
out_cfg:
	xtx_sched_config__free(cfg);
}

/* --- CoDel: dropped and marked frames back to the pool, every one counted ----------- */

#define CODEL_LEN	1000
#define CODEL_NS	(1500 * MS)

struct codel_prod {
	struct xtx_engine *e;
	uint16_t cls;
	uint8_t ecn;			/* IPv4 ECN field of its frames */
	uint64_t sent;
};

/* Ethernet + IPv4 (UDP, 198.18.0.1 -> 198.18.0.2, valid header checksum) with ECN ecn. */
static void codel_frame(uint8_t *f, uint8_t ecn)
{
	uint32_t sum = 0;

	memset(f, 0, 34);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = ecn;
	f[16] = (CODEL_LEN - 14) >> 8;
	f[17] = (CODEL_LEN - 14) & 0xff;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\xc6\x12\x00\x01\xc6\x12\x00\x02", 8);
	for (unsigned i = 14; i < 34; i += 2)
		sum += (uint32_t)(f[i] << 8 | f[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	f[24] = (uint8_t)(~sum >> 8);
	f[25] = (uint8_t)~sum;
}

static void *codel_producer(void *arg)
{
	struct codel_prod *cp = arg;
	struct xtx_producer *p = xtx_producer__open(cp->e);
	uint64_t end = check_now_ns() + CODEL_NS;

	if (!CHECK(p != NULL))
		return NULL;
	while (check_now_ns() < end) {
		uint64_t a[BURST];
		struct xtx_desc d[BURST];
		unsigned got = xtx_producer__get_frames(p, a, BURST), k;

		for (unsigned i = 0; i < got; i++) {
			codel_frame(xtx_engine__frame(cp->e, a[i]), cp->ecn);
			d[i] = (struct xtx_desc){ .addr = a[i], .len = CODEL_LEN, .cls = cp->cls,
						  .hash = (uint32_t)(i % 4) * 0x9e3779b1u };
		}
		k = xtx_producer__send_burst(p, d, got);
		xtx_producer__put_frames(p, a + k, got - k);
		cp->sent += k;
		if (!got)
			xtx_producer__wait(p, MS);
	}
	xtx_producer__close(p);
	return NULL;
}

/* Two 20 Mbit/s leaves with CoDel on two queues, each flooded for 1.5 s by its own
 * producer (its frames queue up to the pool, seconds of delay): the `codel ecn` leaf's
 * ECT(0) frames are marked, none dropped by CoDel; the other's Not-ECT frames are
 * dropped by CoDel; every frame offered is sent or counted as a drop (what is queued at
 * the end is purged), and the engine's
 * default (codel = 1) puts CoDel on a leaf that says nothing. */
static void codel_run(void)
{
	char err[512];
	struct xtx_sched_config *cfg = xtx_sched_config__parse_string(
		"class 1: rate 1gbit\n"
		"class 1:10 parent 1: rate 20mbit fq limit 100000 flow_limit 100000 codel ecn\n"
		"class 1:20 parent 1: rate 20mbit fq limit 100000 flow_limit 100000\n",
		"codel", err, sizeof(err));
	struct xtx_engine_opts o = { .ifname = "null", .queues = 2, .codel = 1,
				     .frame_count = 8192, .drop_on_close = 1 };
	struct codel_prod cp[2];
	pthread_t th[2];
	struct xtx_class_stats cs[2];
	struct xtx_engine *e;
	uint64_t sent = 0, completed = 0, drops = 0;

	if (!CHECK(cfg != NULL)) {
		fprintf(stderr, "codel: %s\n", err);
		return;
	}
	o.classes = cfg;
	if (!(e = open_engine(&o, "codel")))
		goto out_cfg;
	for (unsigned i = 0; i < 2; i++) {
		cp[i] = (struct codel_prod){ .e = e, .cls = (uint16_t)(1 + i),
					     .ecn = i ? 0 : 2 };
		CHECK_EQ_I64(0, pthread_create(&th[i], NULL, codel_producer, &cp[i]));
	}
	for (unsigned i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_I64(0, xtx_engine__stop(e));
	for (unsigned q = 0; q < 2; q++) {
		struct xtx_queue_stats qs;

		xtx_engine__queue_stats(e, q, &qs);
		sent += qs.sent_pkts;
		completed += qs.completed;
		for (int r = 0; r < XTX_DROP__MAX; r++)
			drops += qs.drops[r];
	}
	for (unsigned i = 0; i < 2; i++)
		xtx_engine__class_stats(e, 1 + i, &cs[i]);
	CHECK_EQ_U64(cp[0].sent + cp[1].sent, sent + drops);
	CHECK_EQ_U64(sent, completed);
	CHECK(cs[0].ecn_marks > 0);
	CHECK_EQ_U64(0, cs[0].drops[XTX_DROP_CODEL]);
	CHECK(cs[1].drops[XTX_DROP_CODEL] > 0);
	CHECK_EQ_U64(0, cs[1].ecn_marks);
	printf("codel: 1:10 (ecn, ECT(0)) %lu offered, %lu sent, %lu marked, %lu codel drops; "
	       "1:20 (engine default, Not-ECT) %lu offered, %lu sent, %lu codel drops; %lu "
	       "drops in all\n", (unsigned long)cp[0].sent, (unsigned long)cs[0].sent_pkts,
	       (unsigned long)cs[0].ecn_marks, (unsigned long)cs[0].drops[XTX_DROP_CODEL],
	       (unsigned long)cp[1].sent, (unsigned long)cs[1].sent_pkts,
	       (unsigned long)cs[1].drops[XTX_DROP_CODEL], (unsigned long)drops);
	CHECK_EQ_I64(0, xtx_engine__close(e));
out_cfg:
	xtx_sched_config__free(cfg);
}

int main(void)
{
	check_caps();		/* first: fork before any thread exists */
	for (unsigned nq = 1; nq <= MAX_Q; nq *= 2)
		for (unsigned np = 1; np <= MAX_P; np++)
			conserve_run(nq, np);
	shutdown_run("drain", 0, 0, 0);
	shutdown_run("drop_on_close", 1, 0, 0);
	shutdown_run("drain timeout 50 ms", 0, 50, -ETIMEDOUT);
	reap_explicit();
	reap_periodic();
	wire_run();
	room_run(0);
	room_run(1);
	room_wake_run();
	codel_run();
	return check_summary("stress_null");
}
