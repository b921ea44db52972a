/* SPDX-License-Identifier: BSD-3-Clause */
/* xsk-plain - the plain AF_XDP sender: the baseline xtx is measured against.
 *
 * One AF_XDP socket per queue, each with its own UMEM and its own thread pinned to a CPU;
 * no scheduling, no stage. Frames are built once (include/xtx/pkt.h) and recycled through
 * the completion ring. The loop per thread is the one of the kernel's xdpsock / libxdp
 * examples, which is what a careful AF_XDP user writes:
 *
 *     reap the completion ring -> free frames (FIFO)
 *     reserve up to --batch TX descriptors, point them at free frames, submit
 *     kick with sendto() only if the kernel set need_wakeup on the TX ring
 *
 * Flow f (dst port = --dst-port + f) belongs to queue f % queues, so each flow is sent by
 * one socket and stays in order. Frame i of queue q carries q's flow (i % q's flow count);
 * with --stamp each packet gets its flow's next sequence number and a CLOCK_MONOTONIC
 * timestamp (one clock read per batch) with an incremental checksum update.
 *
 * Accounting: a packet counts as sent when its frame comes back on the completion ring
 * (the kernel is done with it). --count N stops submitting at N and waits for all N
 * completions.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_xdp.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "cli.h"
#include "dstguard.h"
#include "run.h"
#include "traffic.h"
#include <xtx/payload.h>
#include <xtx/pkt.h>

#define PROG		"xsk-plain"
#define NSEC		1000000000ull
#define DRAIN_NS	(1 * NSEC)	/* wait for completions after a stop */

static const char usage_text[] =
"NAME\n"
"    xsk-plain - plain AF_XDP UDP sender (baseline for xtx benchmarks)\n"
"\n"
"SYNOPSIS\n"
"    xsk-plain --dev IF --dst-ip IP --dst-mac MAC [--src-ip IP] [--src-mac MAC]\n"
"              [--size BYTES] [--flows N] [--dst-port P] [--src-port P] [--tos TOS]\n"
"              [--queues N] [--cpus LIST] [--copy | --zero-copy] [--ring N] [--batch N]\n"
"              [--duration S | --count N [--timeout S]] [--stamp] [--json] [--quiet]\n"
"              [--allow-dst PREFIX]... [--allow-any-dst]\n"
"\n"
"DESCRIPTION\n"
"    Sends UDP/IPv4 frames on IF through one AF_XDP socket per queue (queues 0..N-1),\n"
"    one thread per socket, pinned to a CPU. No XDP program is loaded (TX only).\n"
"    Frames are built once; the send loop only hands descriptors to the kernel,\n"
"    reaps completions and kicks the kernel with sendto() when need_wakeup is set.\n"
"    Flow f goes to UDP port --dst-port + f and is sent by queue f mod N.\n"
"\n"
"    Per-second rates go to stderr; a summary to stdout at the end, also after\n"
"    SIGINT or SIGTERM.\n"
"\n"
"OPTIONS\n"
"    --dev IF          interface to send on (required). Queues must exist on it.\n"
"    --dst-ip IP       destination IPv4 address (required), in 198.18.0.0/15 unless\n"
"                      allowed by the next two options.\n"
DSTGUARD_USAGE("                      ")
"    --dst-mac MAC     destination MAC, e.g. 02:00:5e:10:00:02 (required).\n"
"    --src-ip IP       source IPv4 address (default: IF's first IPv4 address).\n"
"    --src-mac MAC     source MAC (default: IF's address).\n"
"    --size BYTES      Ethernet frame length without FCS, 60 .. min(MTU + 14, 4096)\n"
"                      (default 64). UDP payload = BYTES - 42.\n"
"    --flows N         number of flows, 1..65536 and >= --queues (default: --queues).\n"
"    --dst-port P      UDP destination port of flow 0 (default 9000).\n"
"    --src-port P      UDP source port (default 1024).\n"
"    --tos TOS         IPv4 TOS byte, DSCP << 2 | ECN, 0..255 (default 0).\n"
"    --queues N        sockets, threads and queues 0..N-1 (default 1).\n"
"    --cpus LIST       CPUs for the threads, e.g. 0,2-3; thread i gets entry i mod\n"
"                      the list's length (default: the CPUs this process may use).\n"
"    --copy            force copy mode (XDP_COPY).\n"
"    --zero-copy       force zero-copy (XDP_ZEROCOPY); fails if the driver lacks it.\n"
"                      Default: the kernel tries zero-copy and falls back to copy;\n"
"                      the mode obtained is reported.\n"
"    --ring N          TX and completion ring size, power of 2, 64..16384\n"
"                      (default 2048). The UMEM holds 2N frames (rounded up to a\n"
"                      multiple of the queue's flow count).\n"
"    --batch N         descriptors reserved per loop, 1..1024 (default 64).\n"
"    --duration S      send for S seconds (default 10 without --count).\n"
"    --count N         send exactly N packets in total, split evenly over queues.\n"
"    --timeout S       with --count: give up after S seconds (default 60).\n"
"    --stamp           write the xtx test payload (include/xtx/payload.h: magic,\n"
"                      flow, per-flow seq, CLOCK_MONOTONIC ns) into every packet, as\n"
"                      much as fits: 16 bytes (no timestamp) for sizes 58..65, all\n"
"                      24 from 66. Without it the UDP payload is zero.\n"
"    --json            print the summary as one JSON object on stdout.\n"
"    --quiet           no per-second lines.\n"
"    --verbose         show libxdp's messages.\n"
"    --help            this text.\n"
"\n"
"OUTPUT\n"
"    JSON fields: tool, dev, mode (\"copy\" or \"zero-copy\"), queues, flows, size,\n"
"    stamp, sent_pkts, sent_bytes (frame bytes without FCS), duration_s (first\n"
"    send to last completion), pps, cpu_ns_per_pkt (CPU time of the sender\n"
"    threads, user + system, per packet sent), kicks, tx_invalid_descs,\n"
"    unconfirmed (submitted, never completed), complete (--count reached or\n"
"    duration run), interrupted (stopped by a signal), per_queue [...].\n"
"\n"
"EXIT STATUS\n"
"    0 done (also when stopped by SIGINT/SIGTERM), 1 runtime error or --count not\n"
"    reached within --timeout, 2 bad usage or a --dst-ip outside the benchmarking\n"
"    ranges and --allow-dst (nothing is sent).\n"
"\n"
"NOTES\n"
"    The threads spin (never sleep), so each is busy for the whole run and\n"
"    cpu_ns_per_pkt is about queues / pps. Work the kernel does in the thread's\n"
"    context is included: in copy mode the transmit itself, and on veth also the\n"
"    receiving side's processing (softirq run on the sending CPU) unless the kernel\n"
"    has CONFIG_IRQ_TIME_ACCOUNTING. A socket released just before (an earlier run)\n"
"    may hold its queue for a moment; binding is retried for up to 2 s on EBUSY.\n"
"\n"
"EXAMPLES\n"
"    xsk-plain --dev veth0 --dst-ip 198.18.200.2 --dst-mac 02:00:5e:10:00:02 \\\n"
"              --copy --count 100000 --json\n"
"    xsk-plain --dev ens1f0 --dst-ip 198.18.1.1 --dst-mac 0c:42:a1:00:00:01 \\\n"
"              --queues 4 --flows 64 --size 1514 --duration 10 --stamp\n";

struct cfg {
	struct traffic_opts opt;	/* opt.threads: --queues, a thread each */
	uint32_t ring;			/* --ring */
	int mode;			/* 0 kernel chooses, 1 copy, 2 zero-copy */
	bool verbose;			/* --verbose */
};

/* One queue: socket, UMEM, free-frame FIFO, results. Used by its thread only, except
 * run.progress (read by the main thread) and the results (read after join). */
struct sender {
	struct run_sender run;			/* first; run.sent: completed */
	/* --- setup, read-only in the loop --- */
	const struct cfg *cfg;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod tx, fq;
	struct xsk_ring_cons cq;
	uint8_t *area;
	size_t area_len;
	uint32_t nframes, frame_size, nflows;	/* nflows: flows of this queue */
	unsigned frame_shift;			/* log2(frame_size) */
	struct xtx_pkt_layout lay;
	uint32_t *frame_flow;			/* frame index -> local flow index */
	uint64_t *seq;				/* local flow -> next seq */
	uint64_t *fifo;				/* free frame addresses */
	uint32_t fifo_head, fifo_len;
	bool zero_copy;
	/* --- results --- */
	uint64_t submitted, kicks, kick_busy;
	struct xdp_statistics xstats;
};

static int quiet_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

enum { O_COPY = TRAFFIC_OPT_OWN, O_ZC, O_RING, O_VERBOSE };

static const struct option own_opts[] = {
	{ "copy", no_argument, NULL, O_COPY },
	{ "zero-copy", no_argument, NULL, O_ZC },
	{ "ring", required_argument, NULL, O_RING },
	{ "verbose", no_argument, NULL, O_VERBOSE },
	{ NULL, 0, NULL, 0 },
};

static const struct traffic_spec spec = {
	.usage = usage_text,
	.threads_name = "queues",
	.thread_name = "queue",
	.max_size = 4096,
	.min_src_port = 1,
	.sockopts = false,
	.start_name = "the thread of queue",
	.unit = "packet",
	.units = "packets",
	.bytes_name = "bytes",
	.calls = false,
	.dst_mac_like = "02:00:5e:10:00:02",
	.src_mac_like = "02:00:5e:10:00:01",
	.need_dev = "--dev IF is required (the interface to send on)",
	.need_dst_mac = "--dst-mac MAC is required (AF_XDP bypasses ARP/neighbour lookup)",
	.own = own_opts,
};

static void parse_args(struct cfg *c, int argc, char **argv)
{
	int o;

	cli_set_prog(PROG);
	memset(c, 0, sizeof(*c));
	traffic_init(&c->opt);
	c->ring = 2048;
	while ((o = traffic_getopt(&c->opt, &spec, argc, argv)) != -1) {
		switch (o) {
		case O_COPY:
			if (c->mode == 2)
				cli_die_usage("--copy and --zero-copy exclude each other");
			c->mode = 1;
			break;
		case O_ZC:
			if (c->mode == 1)
				cli_die_usage("--copy and --zero-copy exclude each other");
			c->mode = 2;
			break;
		case O_RING:
			c->ring = (uint32_t)cli_parse_uint("--ring", optarg, 64, 16384);
			if (c->ring & (c->ring - 1))
				cli_die_usage("--ring: %u is not a power of 2", c->ring);
			break;
		case O_VERBOSE:
			c->verbose = true;
			break;
		}
	}
	traffic_require(&c->opt, &spec, argc, argv);
	if (c->opt.batch > c->ring)
		cli_die_usage("--batch %u > --ring %u: a batch must fit in the TX ring",
			      c->opt.batch, c->ring);
	traffic_finish(&c->opt, &spec);
}

static const char *errno_hint(int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		return " (AF_XDP needs CAP_NET_RAW and CAP_IPC_LOCK or a large RLIMIT_MEMLOCK: "
		       "run as root)";
	case EOPNOTSUPP:
		return " (the driver has no zero-copy AF_XDP: drop --zero-copy or use --copy)";
	case EINVAL:
		return " (queue id beyond the interface's queues? check --queues against "
		       "'ls /sys/class/net/IF/queues')";
	case EBUSY:
		return " (another AF_XDP socket is bound to this queue)";
	case ENOMEM:
	case ENOBUFS:
		return " (out of memory for the UMEM: lower --ring or --flows)";
	default:
		return "";
	}
}

/* Create the UMEM and socket of queue s->run.i with the bind flags of cfg->mode. */
static int setup_socket(struct sender *s)
{
	const struct cfg *c = s->cfg;
	struct xsk_umem_config uc = {
		.fill_size = XSK_RING_PROD__DEFAULT_NUM_DESCS,
		.comp_size = c->ring * 2,
		.frame_size = s->frame_size,
		.frame_headroom = 0,
		.flags = 0,
	};
	struct xsk_socket_config sc = {
		.rx_size = 0,
		.tx_size = c->ring,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = 0,
		.bind_flags = XDP_USE_NEED_WAKEUP,
	};
	struct xdp_options xo;
	socklen_t len = sizeof(xo);
	int err;

	if (c->mode == 1)
		sc.bind_flags |= XDP_COPY;
	else if (c->mode == 2)
		sc.bind_flags |= XDP_ZEROCOPY;
	err = xsk_umem__create(&s->umem, s->area, s->area_len, &s->fq, &s->cq, &uc);
	if (err) {
		fprintf(stderr, PROG ": queue %u: creating the UMEM (%zu bytes): %s%s\n", s->run.i,
			s->area_len, strerror(-err), errno_hint(-err));
		return err;
	}
	/* A socket closed just before (a previous run) releases its queue binding from a
	 * deferred kernel work item: EBUSY for a moment. Retry for up to 2 s. */
	for (int tries = 0; tries < 40; tries++) {
		err = xsk_socket__create(&s->xsk, c->opt.dev, s->run.i, s->umem, NULL, &s->tx, &sc);
		if (err != -EBUSY)
			break;
		usleep(50000);
	}
	if (err) {
		fprintf(stderr, PROG ": %s queue %u: creating the AF_XDP socket (%s mode): %s%s\n",
			c->opt.dev, s->run.i,
			c->mode == 1 ? "copy" : c->mode == 2 ? "zero-copy" : "any",
			strerror(-err), errno_hint(-err));
		xsk_umem__delete(s->umem);
		s->umem = NULL;
		return err;
	}
	if (getsockopt(xsk_socket__fd(s->xsk), SOL_XDP, XDP_OPTIONS, &xo, &len) == 0)
		s->zero_copy = xo.flags & XDP_OPTIONS_ZEROCOPY;
	else
		s->zero_copy = c->mode == 2;
	return 0;
}

/* Build every frame of the queue once. */
static int setup_frames(struct sender *s)
{
	const struct cfg *c = s->cfg;
	uint32_t qn = c->opt.threads;

	for (uint32_t i = 0; i < s->nframes; i++) {
		uint8_t *f = s->area + (uint64_t)i * s->frame_size;
		uint32_t local = i % s->nflows, flow = s->run.i + local * qn;
		struct xtx_pkt_udp_opts o;
		int len;

		traffic_udp_opts(&c->opt, flow, &o);
		len = xtx_pkt__build_udp4(f, s->frame_size, &o);
		if (len < 0)
			return len;
		if (i == 0 && xtx_pkt__parse_udp(f, (size_t)len, &s->lay, NULL))
			return -EINVAL;
		if (c->opt.stamp)
			xtx_pkt__set_payload(f, &s->lay, flow, 0, 0);
		s->frame_flow[i] = local;
		s->fifo[i] = (uint64_t)i * s->frame_size;
	}
	s->fifo_head = 0;
	s->fifo_len = s->nframes;
	return 0;
}

static int kick(struct sender *s)
{
	s->kicks++;
	if (sendto(xsk_socket__fd(s->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
		return 0;
	switch (errno) {
	case EAGAIN:	/* copy mode: the per-call budget ran out, more to send */
	case EBUSY:	/* another sendto in progress / CQ full */
	case ENOBUFS:	/* transient allocation failure */
	case ENETDOWN:	/* link down: retried until the deadline */
	case EINTR:
		s->kick_busy++;
		return 0;
	default:
		return -errno;
	}
}

static void reap(struct sender *s)
{
	uint32_t idx, n = xsk_ring_cons__peek(&s->cq, s->cfg->ring * 2, &idx);
	uint32_t tail = s->fifo_head + s->fifo_len;

	for (uint32_t i = 0; i < n; i++) {
		if (tail >= s->nframes)
			tail -= s->nframes;
		s->fifo[tail++] = *xsk_ring_cons__comp_addr(&s->cq, idx + i);
	}
	if (n) {
		xsk_ring_cons__release(&s->cq, n);
		s->fifo_len += n;
		run_sent(&s->run, n);
	}
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	const struct cfg *c = s->cfg;
	const bool stamp = c->opt.stamp;
	uint64_t drain_until;
	int err = 0;

	run_sender_begin(&s->run);
	for (;;) {
		uint32_t want, got, idx;

		reap(s);
		if (run_stopping())
			break;
		want = run_batch(&s->run, c->opt.batch, s->submitted);
		if (!want)
			break;
		if (want > s->fifo_len)
			want = s->fifo_len;
		got = want ? xsk_ring_prod__reserve(&s->tx, want, &idx) : 0;
		if (got) {
			uint64_t ts = stamp ? cli_now_ns(CLOCK_MONOTONIC) : 0;

			for (uint32_t i = 0; i < got; i++) {
				struct xdp_desc *d = xsk_ring_prod__tx_desc(&s->tx, idx + i);
				uint64_t addr = s->fifo[s->fifo_head];

				if (++s->fifo_head == s->nframes)
					s->fifo_head = 0;
				d->addr = addr;
				d->len = s->lay.frame_len;
				d->options = 0;
				if (stamp) {
					uint32_t fl = s->frame_flow[addr >> s->frame_shift];

					xtx_pkt__stamp(s->area + addr, &s->lay, s->seq[fl]++, ts);
				}
			}
			s->fifo_len -= got;
			xsk_ring_prod__submit(&s->tx, got);
			s->submitted += got;
		}
		if (s->submitted != s->run.sent && xsk_ring_prod__needs_wakeup(&s->tx)) {
			err = kick(s);
			if (err)
				break;
		}
	}

	/* Drain: wait for the completions of everything submitted, at most DRAIN_NS past the
	 * run's deadline. */
	drain_until = s->run.deadline + DRAIN_NS;
	while (!err && s->run.sent < s->submitted) {
		uint64_t t = cli_now_ns(CLOCK_MONOTONIC);

		if (run_stopping() &&
		    drain_until > t + DRAIN_NS)
			drain_until = t + DRAIN_NS;
		if (t >= drain_until)
			break;
		if (xsk_ring_prod__needs_wakeup(&s->tx))
			err = kick(s);
		reap(s);
	}
	run_sender_end(&s->run);
	s->run.err = err;
	if (err) {
		fprintf(stderr, PROG ": %s queue %u: sendto: %s; stopping\n", c->opt.dev, s->run.i,
			strerror(-err));
		run_stop();
	}
	run_done();
	return NULL;
}

/* Queue q's UMEM area, frames and socket. 0, or -1 after saying why. */
static int setup_sender(struct sender *s, struct cfg *c, uint32_t q)
{
	uint32_t base = c->ring * 2;

	s->cfg = c;
	traffic_share(&c->opt, q, &s->run);
	s->nflows = traffic_nflows(&c->opt, q);
	s->nframes = (base + s->nflows - 1) / s->nflows * s->nflows;
	s->frame_size = c->opt.size <= 2048 ? 2048 : 4096;
	s->frame_shift = c->opt.size <= 2048 ? 11 : 12;
	s->area_len = (size_t)s->nframes * s->frame_size;
	s->area = mmap(NULL, s->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (s->area == MAP_FAILED) {
		s->area = NULL;
		fprintf(stderr, PROG ": queue %u: mmap of %zu bytes for the UMEM: %s\n", q,
			s->area_len, strerror(errno));
		return -1;
	}
	s->frame_flow = calloc(s->nframes, sizeof(*s->frame_flow));
	s->seq = calloc(s->nflows, sizeof(*s->seq));
	s->fifo = calloc(s->nframes, sizeof(*s->fifo));
	if (!s->frame_flow || !s->seq || !s->fifo) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	if (setup_frames(s)) {
		fprintf(stderr, PROG ": building the frames failed (size %u)\n", c->opt.size);
		return -1;
	}
	return setup_socket(s) ? -1 : 0;
}

static void free_sender(struct sender *s)
{
	if (s->xsk)
		xsk_socket__delete(s->xsk);
	if (s->umem)
		xsk_umem__delete(s->umem);
	if (s->area)
		munmap(s->area, s->area_len);
	free(s->frame_flow);
	free(s->seq);
	free(s->fifo);
}

static void raise_memlock(void)
{
	struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_MEMLOCK, &r)) {
		/* Not fatal: root has CAP_IPC_LOCK and is not limited; others get a clear
		 * error from the UMEM registration. */
	}
}

/* The summary on stdout, as text or --json. */
static void report(const struct cfg *c, struct sender *snd, const struct run_total *tot,
		   bool interrupted, const char *mode)
{
	uint64_t submitted = 0, kicks = 0, invalid = 0;

	for (uint32_t q = 0; q < c->opt.threads; q++) {
		struct sender *s = &snd[q];
		socklen_t len = sizeof(s->xstats);

		if (getsockopt(xsk_socket__fd(s->xsk), SOL_XDP, XDP_STATISTICS, &s->xstats,
			       &len))
			memset(&s->xstats, 0, sizeof(s->xstats));
		submitted += s->submitted;
		kicks += s->kicks;
		invalid += s->xstats.tx_invalid_descs;
	}
	if (c->opt.json) {
		struct jsonw j;

		traffic_json_start(&j, c->opt.dev);
		jsonw_string_field(&j, "mode", mode);
		traffic_json_run(&j, &c->opt, &spec, tot);
		jsonw_uint_field(&j, "kicks", kicks);
		jsonw_uint_field(&j, "tx_invalid_descs", invalid);
		jsonw_uint_field(&j, "unconfirmed", submitted - tot->sent);
		traffic_json_end(&j, &c->opt, &spec, tot, interrupted, &snd[0].run, sizeof(*snd));
	} else {
		printf(PROG ": %s, %s mode, %u queue(s), %u flow(s), %u-byte frames\n", c->opt.dev,
		       mode, c->opt.threads, c->opt.flows, c->opt.size);
		traffic_print_sent(&c->opt, &spec, tot);
		printf("  kicks       %llu, tx_invalid_descs %llu, unconfirmed %llu%s\n",
		       (unsigned long long)kicks, (unsigned long long)invalid,
		       (unsigned long long)(submitted - tot->sent),
		       interrupted ? ", interrupted" : "");
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct cfg c;
	struct sender *snd;
	struct run_watch w;
	struct run_total tot;
	bool zc_all = true, zc_any = false;
	int rc = 1;

	parse_args(&c, argc, argv);
	traffic_probe_dev(&c.opt);
	traffic_dev_addrs(&c.opt);
	raise_memlock();
	if (!c.verbose)
		libxdp_set_print(quiet_print);

	snd = traffic_senders(&c.opt, sizeof(*snd));
	for (uint32_t q = 0; q < c.opt.threads; q++) {
		if (setup_sender(&snd[q], &c, q))
			goto out;
		zc_all &= snd[q].zero_copy;
		zc_any |= snd[q].zero_copy;
	}
	if (zc_any != zc_all)
		fprintf(stderr, PROG ": warning: some queues got zero-copy, others copy mode\n");
	if (!c.opt.quiet) {
		fprintf(stderr, PROG ": %s: %u queue(s), %s mode, %u flow(s), %u-byte frames, ",
			c.opt.dev, c.opt.threads, zc_all ? "zero-copy" : "copy", c.opt.flows,
			c.opt.size);
		traffic_print_plan(&c.opt, &spec);
	}
	/* Signals are taken synchronously by the main thread only (traffic_run()). */
	traffic_run(&c.opt, &spec, sender_main, &snd[0].run, sizeof(*snd), &w, &tot);
	report(&c, snd, &tot, w.interrupted, zc_all ? "zero-copy" : "copy");
	rc = traffic_status(&c.opt, &w, tot.fatal, tot.sent, "the link");
out:
	for (uint32_t q = 0; q < c.opt.threads; q++)
		free_sender(&snd[q]);
	free(snd);
	return rc;
}
