/* SPDX-License-Identifier: BSD-3-Clause */
/* udp-send - the kernel UDP path baseline for xtx benchmarks.
 *
 * N threads, each pinned to a CPU, send UDP/IPv4 datagrams with sendmmsg() in batches of
 * --batch (64) on connected sockets, through the whole kernel stack: routing, neighbour,
 * qdisc (so an HTB with u32 filters on the destination port classifies the flows), driver.
 *
 * Flows and payload are those of xsk-plain (same frames on the wire): flow f has UDP
 * destination port --dst-port + f and is owned by thread f % threads, which opens one
 * connected socket per flow it owns (with the default --flows = --threads, one socket per
 * thread). A thread cycles over its flows, one sendmmsg batch per flow per turn.
 *
 * Errors such as ENOBUFS (qdisc full; IP_RECVERR is set so the kernel reports it instead
 * of counting silently), ECONNREFUSED (an ICMP error from the receiver) or EAGAIN (send
 * buffer full for 100 ms) are counted, not fatal. The packet the kernel refused is sent
 * again by the next call with the same sequence number, so sent_pkts counts only datagrams
 * the kernel accepted and, with --stamp, each flow's seq has no gaps among them.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/ip.h>
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dstguard.h"
#include "pace.h"
#include "units.h"
#include "run.h"
#include "traffic.h"
#include <xtx/payload.h>
#include <xtx/pkt.h>

#define PROG		"udp-send"

static const char usage_text[] =
"NAME\n"
"    udp-send - kernel UDP sender with sendmmsg (baseline for xtx benchmarks)\n"
"\n"
"SYNOPSIS\n"
"    udp-send --dst-ip IP [--dev IF] [--src-ip IP] [--size BYTES] [--flows N]\n"
"             [--dst-port P] [--src-port P] [--threads N] [--cpus LIST] [--batch N] [--rate R]\n"
"             [--priority P] [--tos TOS] [--sndbuf BYTES] [--duration S | --count N [--timeout S]]\n"
"             [--stamp] [--json] [--quiet] [--allow-dst PREFIX]... [--allow-any-dst]\n"
"\n"
"DESCRIPTION\n"
"    Sends UDP/IPv4 datagrams through the kernel stack from N threads, each pinned\n"
"    to a CPU, with sendmmsg() batches on connected sockets. Flow f goes to UDP port\n"
"    --dst-port + f and is sent by thread f mod N on its own connected socket; a\n"
"    thread sends one batch per flow in turn. Don't Fragment is set; datagrams never\n"
"    fragment.\n"
"\n"
"    Errors from the kernel (ENOBUFS when the qdisc drops, ECONNREFUSED after an ICMP\n"
"    error, EAGAIN when the socket buffer stays full for 100 ms) are counted and the\n"
"    refused datagram is sent again; only accepted datagrams count as sent.\n"
"\n"
"    Per-second rates go to stderr; a summary to stdout at the end, also after\n"
"    SIGINT or SIGTERM.\n"
"\n"
"OPTIONS\n"
"    --dst-ip IP       destination IPv4 address (required), in 198.18.0.0/15 unless\n"
"                      allowed by the next two options.\n"
DSTGUARD_USAGE("                      ")
"    --dev IF          bind the sockets to IF (SO_BINDTODEVICE);\n"
"                      also checks --size against IF's MTU. Default: the route decides.\n"
"    --src-ip IP       bind to this source address (default: the route's).\n"
"    --size BYTES      Ethernet frame length without FCS, 60..65535 (default 64):\n"
"                      UDP payload = BYTES - 42 (14 Ethernet + 20 IPv4 + 8 UDP).\n"
"                      Must fit the path MTU (BYTES <= MTU + 14).\n"
"    --flows N         number of flows, 1..65536 and >= --threads (default: --threads).\n"
"    --dst-port P      UDP destination port of flow 0 (default 9000).\n"
"    --src-port P      UDP source port of every socket, 0 = ephemeral (default 1024,\n"
"                      as xsk-plain; the sockets share it with SO_REUSEADDR).\n"
"    --threads N       sender threads (default 1).\n"
"    --cpus LIST       CPUs for the threads, e.g. 0,2-3; thread i gets entry i mod\n"
"                      the list's length (default: the CPUs this process may use).\n"
"    --batch N         datagrams per sendmmsg() call, 1..1024 (default 64).\n"
"    --rate R          offer R in all (a packet rate such as 2000pps, or a bit rate\n"
"                      of frames such as 1mbit), each thread R / threads, a batch at\n"
"                      a time (--batch 1 for even spacing); a thread that falls more\n"
"                      than 1 ms behind catches up 1 ms of it. Default: as fast as\n"
"                      the threads can.\n"
"    --sndbuf BYTES    socket send buffer (SO_SNDBUFFORCE, needs CAP_NET_ADMIN), so\n"
"                      that a shaped qdisc, not the socket, holds the backlog.\n"
"    --priority P      SO_PRIORITY of the sockets, 0..4294967295 (above 6 needs\n"
"                      CAP_NET_ADMIN).\n"
"    --tos TOS         IP_TOS of the sockets, DSCP << 2 | ECN, 0..255.\n"
"    --duration S      send for S seconds (default 10 without --count).\n"
"    --count N         send exactly N datagrams in total, split evenly over threads.\n"
"    --timeout S       with --count: give up after S seconds (default 60).\n"
"    --stamp           write the xtx test payload (include/xtx/payload.h: magic,\n"
"                      flow, per-flow seq, CLOCK_MONOTONIC ns) into every datagram,\n"
"                      as much as fits: 16 bytes (no timestamp) for sizes 58..65, all\n"
"                      24 from 66. Without it the payload is zero.\n"
"    --json            print the summary as one JSON object on stdout.\n"
"    --quiet           no per-second lines.\n"
"    --help            this text.\n"
"\n"
"OUTPUT\n"
"    JSON fields: tool, threads, flows, size, stamp, sent_pkts, sent_bytes (frame\n"
"    bytes without FCS: (payload + 42) per datagram), duration_s, pps,\n"
"    cpu_ns_per_pkt (CPU time of the sender threads, user + system, per datagram\n"
"    sent), errors (all counted errors), enobufs, econnrefused, eagain,\n"
"    errors_other, complete, interrupted, per_thread [...].\n"
"\n"
"EXIT STATUS\n"
"    0 done (also when stopped by SIGINT/SIGTERM), 1 runtime error or --count not\n"
"    reached within --timeout, 2 bad usage or a --dst-ip outside the benchmarking\n"
"    ranges and --allow-dst (nothing is sent).\n"
"\n"
"NOTES\n"
"    cpu_ns_per_pkt includes the kernel's work in the thread's context: the whole\n"
"    transmit path and, on veth, the receiving side's processing (softirq run on\n"
"    the sending CPU) unless the kernel has CONFIG_IRQ_TIME_ACCOUNTING. When a qdisc\n"
"    drops (ENOBUFS) the thread retries at once, so a shaped run spends CPU\n"
"    spinning; a leaf qdisc limit larger than what the socket buffers hold lets\n"
"    the sockets block in sendmmsg() instead.\n"
"\n"
"EXAMPLES\n"
"    udp-send --dst-ip 198.18.200.2 --threads 2 --count 100000 --json\n"
"    udp-send --dst-ip 198.18.1.1 --dev ens1f0 --flows 64 --threads 4 --size 1514 \\\n"
"             --duration 10 --priority 1 --stamp\n";

struct flow {
	int fd;
	uint32_t id;		/* global flow index */
	uint64_t seq;		/* next sequence number */
};

struct sender {
	struct run_sender run;		/* first: cpu, quota, results, progress */
	/* --- setup, read-only in the loop --- */
	const struct traffic_opts *cfg;
	struct flow *flows;
	uint32_t nflows;
	uint32_t pay_len, pay_fit;
	uint8_t *bufs;			/* batch payload buffers */
	struct mmsghdr *msgs;
	struct iovec *iov;
	/* --- results --- */
	struct traffic_errors errs;
	uint64_t econnrefused;
};

enum { O_RATE = TRAFFIC_OPT_OWN };

static const struct option own_opts[] = {
	{ "rate", required_argument, NULL, O_RATE },
	{ NULL, 0, NULL, 0 },
};

static uint64_t rate_pps, rate_Bps;	/* --rate; both 0: not paced */

static const struct traffic_spec spec = {
	.usage = usage_text,
	.threads_name = "threads",
	.thread_name = "thread",
	.max_size = 65535,
	.min_src_port = 0,
	.sockopts = true,
	.start_name = "thread",
	.unit = "datagram",
	.units = "datagrams",
	.bytes_name = "frame bytes",
	.own = own_opts,
	.calls = true,
};

static void parse_args(struct traffic_opts *c, int argc, char **argv)
{
	cli_set_prog(PROG);
	traffic_init(c);
	int o;

	while ((o = traffic_getopt(c, &spec, argc, argv)) != -1)
		if (o == O_RATE && (units_parse_rate(optarg, &rate_pps, &rate_Bps) ||
				    (!rate_pps && !rate_Bps)))
			cli_die_usage("--rate '%s': give a rate above 0 such as 2000pps or 1mbit",
				      optarg);
	traffic_require(c, &spec, argc, argv);
	traffic_finish(c, &spec);
}

/* One connected socket for flow `id`. Returns the fd or -1 after printing why. */
static int open_flow_socket(const struct traffic_opts *c, uint32_t id)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	int one = 1, pmtu = IP_PMTUDISC_DO, fd;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
	const char *what;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		what = "socket()";
		goto fail;
	}
	what = "setsockopt(IP_RECVERR)";	/* report ENOBUFS instead of hiding it */
	if (setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one)))
		goto fail;
	what = "setsockopt(IP_MTU_DISCOVER)";
	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)))
		goto fail;
	what = "setsockopt(SO_SNDTIMEO)";
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		goto fail;
	what = "setsockopt(SO_REUSEADDR)";
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		goto fail;
	if (c->dev) {
		what = "setsockopt(SO_BINDTODEVICE)";
		if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, c->dev, (socklen_t)strlen(c->dev)))
			goto fail;
	}
	if (traffic_sockopts(fd, c, "setsockopt(SO_PRIORITY) (priorities above 6 need "
			     "CAP_NET_ADMIN)", &what))
		goto fail;
	if (c->have_tos) {
		int tos = c->tos;

		what = "setsockopt(IP_TOS)";
		if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)))
			goto fail;
	}
	if (c->have_src_ip || c->src_port) {
		src.sin_addr = c->have_src_ip ? c->src_ip : (struct in_addr){ INADDR_ANY };
		src.sin_port = htons(c->src_port);
		what = "bind() to --src-ip/--src-port (is the address on a local interface?)";
		if (bind(fd, (struct sockaddr *)&src, sizeof(src)))
			goto fail;
	}
	dst.sin_addr = c->dst_ip;
	dst.sin_port = htons((uint16_t)(c->dst_port + id));
	what = "connect() (no route to --dst-ip?)";
	if (connect(fd, (struct sockaddr *)&dst, sizeof(dst)))
		goto fail;
	/* The route's MTU: refuse a --size that would not fit (DF is set) up front. */
	int mtu;
	socklen_t len = sizeof(mtu);

	if (getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &len) == 0 &&
	    c->size > (uint32_t)mtu + XTX_PKT_ETH_HLEN) {
		fprintf(stderr, PROG ": --size %u: larger than the route's MTU %d + 14 toward the "
			"destination; use --size <= %d\n", c->size, mtu, mtu + XTX_PKT_ETH_HLEN);
		close(fd);
		return -1;
	}
	return fd;
fail:
	fprintf(stderr, PROG ": flow %u: %s: %s\n", id, what, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Drop queued ICMP errors (IP_RECVERR) so the error queue does not hold memory. */
static void drain_errqueue(int fd)
{
	char buf[256], ctl[512];

	for (int i = 0; i < 64; i++) {
		struct iovec v = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };

		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
	}
}

/* Write the test payload (as much as fits) of the n datagrams of a batch for flow f. */
static void stamp_batch(struct sender *s, const struct flow *f, uint32_t n)
{
	uint64_t ts = s->pay_fit >= XTX_PKT_PAYLOAD_FULL_LEN ? cli_now_ns(CLOCK_MONOTONIC) : 0;
	uint32_t magic = htole32(XTX_PAYLOAD_MAGIC), id = htole32(f->id);

	for (uint32_t i = 0; i < n; i++) {
		uint8_t *p = s->bufs + (size_t)i * s->pay_len;
		uint64_t seq = htole64(f->seq + i), t = htole64(ts);

		memcpy(p, &magic, 4);
		memcpy(p + 4, &id, 4);
		memcpy(p + 8, &seq, 8);
		if (s->pay_fit >= XTX_PKT_PAYLOAD_FULL_LEN)
			memcpy(p + 16, &t, 8);
	}
}

/* --rate: a thread's next batch is due at next; each datagram moves it by gap (pace.h),
 * R / threads per thread. */
struct pace {
	uint64_t next, rem, den;	/* den 0: not paced */
	struct pace_gap gap;
};

static void pace_init(struct pace *pc, const struct traffic_opts *c)
{
	*pc = (struct pace){ .den = rate_pps ? rate_pps : rate_Bps,
			     .next = cli_now_ns(CLOCK_MONOTONIC) };
	if (pc->den)	/* <= 65535 * 1e9 * 1024 threads < 2^63 */
		pc->gap = pace_gap((rate_pps ? 1 : c->size) * 1000000000ull * c->threads,
				   pc->den);
}

/* Whether the next batch is due; if not, a nap toward it. */
static bool pace_due(struct pace *pc)
{
	uint64_t now = cli_now_ns(CLOCK_MONOTONIC);

	pace_catch_up(&pc->next, now);
	if (pc->next <= now)
		return true;
	pace_nap(pc->next, now);
	return false;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	const struct traffic_opts *c = s->cfg;
	const bool stamp = c->stamp && s->pay_fit;
	uint32_t fi = 0;
	struct pace pc;

	pace_init(&pc, c);
	run_sender_begin(&s->run);
	while (!run_stopping()) {
		struct flow *f = &s->flows[fi];
		uint32_t n;
		int r;

		if (pc.den && !pace_due(&pc))
			continue;
		n = run_batch(&s->run, c->batch, s->run.sent);
		if (!n)
			break;
		if (stamp)
			stamp_batch(s, f, n);
		r = sendmmsg(f->fd, s->msgs, n, 0);
		s->run.calls++;
		if (r > 0) {
			run_sent(&s->run, (uint64_t)r);
			f->seq += (uint64_t)r;
			if (pc.den)	/* r <= 1024, gap.r < den <= UNITS_MAX_PPS < 2^50 */
				pace_step_n(&pc.next, &pc.rem, pc.gap, pc.den, (uint64_t)r);
		} else if (traffic_send_error(&s->errs, errno)) {
			if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH) {
				s->econnrefused += errno == ECONNREFUSED;
				s->errs.other += errno != ECONNREFUSED;
				drain_errqueue(f->fd);
			} else if (errno == EPERM) {
				s->errs.other++;	/* a firewall rule; retried until the deadline */
			} else {
				s->run.err = errno;
				break;
			}
		}
		if (++fi == s->nflows)
			fi = 0;
	}
	traffic_sender_exit(&s->run, "sendmmsg", " (--size larger than the path MTU + 14?)");
	return NULL;
}

static int setup_sender(struct sender *s, const struct traffic_opts *c, uint32_t t)
{
	s->cfg = c;
	traffic_share(c, t, &s->run);
	s->nflows = traffic_nflows(c, t);
	s->pay_len = c->size - XTX_PKT_UDP4_HDRS;
	s->pay_fit = xtx_pkt__payload_fit(s->pay_len);
	s->flows = calloc(s->nflows, sizeof(*s->flows));
	s->bufs = calloc(c->batch, s->pay_len ? s->pay_len : 1);
	s->msgs = calloc(c->batch, sizeof(*s->msgs));
	s->iov = calloc(c->batch, sizeof(*s->iov));
	if (!s->flows || !s->bufs || !s->msgs || !s->iov) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	for (uint32_t i = 0; i < s->nflows; i++)
		s->flows[i].fd = -1;
	for (uint32_t i = 0; i < s->nflows; i++) {
		s->flows[i].id = t + i * c->threads;
		s->flows[i].fd = open_flow_socket(c, s->flows[i].id);
		if (s->flows[i].fd < 0)
			return -1;
	}
	for (uint32_t i = 0; i < c->batch; i++) {
		s->iov[i].iov_base = s->bufs + (size_t)i * s->pay_len;
		s->iov[i].iov_len = s->pay_len;
		s->msgs[i].msg_hdr.msg_iov = &s->iov[i];
		s->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	return 0;
}

static void free_sender(struct sender *s)
{
	if (s->flows)
		for (uint32_t i = 0; i < s->nflows; i++)
			if (s->flows[i].fd >= 0)
				close(s->flows[i].fd);
	free(s->flows);
	free(s->bufs);
	free(s->msgs);
	free(s->iov);
}

/* The summary on stdout, as text or --json. */
static void report(const struct traffic_opts *c, const struct sender *snd,
		   const struct run_total *tot, bool interrupted)
{
	uint64_t enobufs = 0, refused = 0, eagain = 0, other = 0, errors;

	for (uint32_t t = 0; t < c->threads; t++) {
		enobufs += snd[t].errs.enobufs;
		refused += snd[t].econnrefused;
		eagain += snd[t].errs.eagain;
		other += snd[t].errs.other;
	}
	errors = enobufs + refused + eagain + other;
	if (c->json) {
		struct jsonw j;

		traffic_json_start(&j, NULL);
		traffic_json_run(&j, c, &spec, tot);
		jsonw_uint_field(&j, "errors", errors);
		jsonw_uint_field(&j, "enobufs", enobufs);
		jsonw_uint_field(&j, "econnrefused", refused);
		jsonw_uint_field(&j, "eagain", eagain);
		jsonw_uint_field(&j, "errors_other", other);
		traffic_json_end(&j, c, &spec, tot, interrupted, &snd[0].run, sizeof(*snd));
	} else {
		printf(PROG ": %u thread(s), %u flow(s), %u-byte frames\n", c->threads, c->flows,
		       c->size);
		traffic_print_sent(c, &spec, tot);
		printf("  errors      %llu (ENOBUFS %llu, ECONNREFUSED %llu, EAGAIN %llu, other "
		       "%llu)%s\n", (unsigned long long)errors, (unsigned long long)enobufs,
		       (unsigned long long)refused, (unsigned long long)eagain,
		       (unsigned long long)other, interrupted ? ", interrupted" : "");
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct traffic_opts c;
	struct sender *snd;
	struct run_watch w;
	struct run_total tot;
	int rc = 1;

	parse_args(&c, argc, argv);
	if (c.dev)
		traffic_probe_dev(&c);

	snd = traffic_senders(&c, sizeof(*snd));
	for (uint32_t t = 0; t < c.threads; t++)
		if (setup_sender(&snd[t], &c, t))
			goto out;
	if (!c.quiet) {
		char dst[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &c.dst_ip, dst, sizeof(dst));
		fprintf(stderr, PROG ": to %s ports %u..%u, %u thread(s), %u-byte frames, ", dst,
			c.dst_port, c.dst_port + c.flows - 1, c.threads, c.size);
		traffic_print_plan(&c, &spec);
	}
	traffic_run(&c, &spec, sender_main, &snd[0].run, sizeof(*snd), &w, &tot);
	report(&c, snd, &tot, w.interrupted);
	rc = traffic_status(&c, &w, tot.fatal, tot.sent, "the route");
out:
	for (uint32_t t = 0; t < c.threads; t++)
		free_sender(&snd[t]);
	free(snd);
	return rc;
}
