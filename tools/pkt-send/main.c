/* SPDX-License-Identifier: BSD-3-Clause */
/* pkt-send - the PF_PACKET baseline for xtx-compare: whole Ethernet frames written by the
 * application into AF_PACKET SOCK_RAW sockets, with or without PACKET_QDISC_BYPASS.
 *
 * Same flows, ports and payload as udp-send and xsk-plain (same frames on the wire): flow f
 * has UDP destination port --dst-port + f and is owned by thread f % threads; a thread
 * cycles over its flows, one sendmmsg() batch of --batch frames per flow per turn. Frames
 * are built once per thread (include/xtx/pkt.h, complete IPv4 and UDP checksums); per
 * packet only the destination port and the test payload are rewritten, with incremental
 * checksum updates.
 *
 * Without --qdisc-bypass a frame takes dev_queue_xmit(): the device's qdisc (an HTB with
 * u32 filters on the destination port classifies it as it would a UDP socket's datagram;
 * the socket's protocol is 0, so the kernel reads the ethertype from the frame). With
 * --qdisc-bypass (PACKET_QDISC_BYPASS) the frame goes straight to the driver's xmit: no
 * qdisc, no shaping, no qdisc lock.
 *
 * ENOBUFS (the qdisc or the driver dropped the frame), EAGAIN (the socket's send buffer
 * stayed full for 100 ms) and a few transient errors are counted, not fatal; the refused
 * frame is sent again with the same sequence number, so sent_pkts counts only frames the
 * kernel accepted and, with --stamp, each flow's seq has no gaps among them.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
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
#include "run.h"
#include "traffic.h"
#include <xtx/payload.h>
#include <xtx/pkt.h>

#define PROG		"pkt-send"
#define MAX_SIZE	9216	/* jumbo frames at most */

static const char usage_text[] =
"NAME\n"
"    pkt-send - PF_PACKET sender of whole Ethernet frames (baseline for xtx-compare)\n"
"\n"
"SYNOPSIS\n"
"    pkt-send --dev IF --dst-ip IP --dst-mac MAC [--src-ip IP] [--src-mac MAC]\n"
"             [--size BYTES] [--flows N] [--dst-port P] [--src-port P] [--tos TOS]\n"
"             [--threads N] [--cpus LIST] [--batch N] [--qdisc-bypass] [--sndbuf BYTES]\n"
"             [--priority P] [--duration S | --count N [--timeout S]] [--stamp] [--json]\n"
"             [--quiet] [--allow-dst PREFIX]... [--allow-any-dst]\n"
"\n"
"DESCRIPTION\n"
"    Sends UDP/IPv4 frames, built whole by the application, on IF through AF_PACKET\n"
"    SOCK_RAW sockets: one socket per thread, each thread pinned to a CPU, sendmmsg()\n"
"    batches. Flow f goes to UDP port --dst-port + f and is sent by thread f mod N; a\n"
"    thread sends one batch per flow in turn. The frames are those of udp-send and\n"
"    xsk-plain (same headers, Don't Fragment set, same test payload), with complete\n"
"    IPv4 and UDP checksums.\n"
"\n"
"    Without --qdisc-bypass the frames go through the device's qdisc like any\n"
"    dev_queue_xmit() packet (a tc filter on the UDP port classifies them); with it,\n"
"    PACKET_QDISC_BYPASS hands them to the driver directly: no qdisc, no shaping.\n"
"\n"
"    Errors from the kernel (ENOBUFS when the qdisc or driver drops, EAGAIN when the\n"
"    socket buffer stays full for 100 ms) are counted and the refused frame is sent\n"
"    again; only accepted frames count as sent.\n"
"\n"
"    Per-second rates go to stderr; a summary to stdout at the end, also after\n"
"    SIGINT or SIGTERM.\n"
"\n"
"OPTIONS\n"
"    --dev IF          interface to send on (required).\n"
"    --dst-ip IP       destination IPv4 address (required), in 198.18.0.0/15 unless\n"
"                      allowed by the next two options.\n"
DSTGUARD_USAGE("                      ")
"    --dst-mac MAC     destination (next hop) MAC, e.g. 02:00:c6:12:07:02 (required).\n"
"    --src-ip IP       source IPv4 address (default: IF's first IPv4 address).\n"
"    --src-mac MAC     source MAC (default: IF's address).\n"
"    --size BYTES      Ethernet frame length without FCS, 60 .. min(MTU + 14, 9216)\n"
"                      (default 64). UDP payload = BYTES - 42.\n"
"    --flows N         number of flows, 1..65536 and >= --threads (default: --threads).\n"
"    --dst-port P      UDP destination port of flow 0 (default 9000).\n"
"    --src-port P      UDP source port (default 1024, as udp-send and xsk-plain).\n"
"    --tos TOS         IPv4 TOS byte, DSCP << 2 | ECN, 0..255 (default 0).\n"
"    --threads N       sender threads, one socket each (default 1).\n"
"    --cpus LIST       CPUs for the threads, e.g. 0,2-3; thread i gets entry i mod\n"
"                      the list's length (default: the CPUs this process may use).\n"
"    --batch N         frames per sendmmsg() call, 1..1024 (default 64).\n"
"    --qdisc-bypass    set PACKET_QDISC_BYPASS on the sockets.\n"
"    --sndbuf BYTES    socket send buffer (SO_SNDBUFFORCE, needs CAP_NET_ADMIN).\n"
"    --priority P      SO_PRIORITY of the sockets (skb->priority), 0..4294967295.\n"
"    --duration S      send for S seconds (default 10 without --count).\n"
"    --count N         send exactly N frames in total, split evenly over threads.\n"
"    --timeout S       with --count: give up after S seconds (default 60).\n"
"    --stamp           write the xtx test payload (include/xtx/payload.h: magic,\n"
"                      flow, per-flow seq, CLOCK_MONOTONIC ns) into every frame, as\n"
"                      much as fits: 16 bytes (no timestamp) for sizes 58..65, all\n"
"                      24 from 66. Without it the UDP payload is zero.\n"
"    --json            print the summary as one JSON object on stdout.\n"
"    --quiet           no per-second lines.\n"
"    --help            this text.\n"
"\n"
"OUTPUT\n"
"    JSON fields: tool, dev, qdisc_bypass, threads, flows, size, stamp, sent_pkts,\n"
"    sent_bytes (frame bytes without FCS), duration_s (first send to last),\n"
"    pps, cpu_ns_per_pkt (CPU time of the sender threads, user + system, per frame\n"
"    sent), errors (all counted errors), enobufs, eagain, errors_other, complete,\n"
"    interrupted, per_thread [{thread, cpu, sent_pkts, calls, cpu_ns}].\n"
"\n"
"EXIT STATUS\n"
"    0 done (also when stopped by SIGINT/SIGTERM), 1 runtime error or --count not\n"
"    reached within --timeout, 2 bad usage or a --dst-ip outside the benchmarking\n"
"    ranges and --allow-dst (nothing is sent).\n"
"\n"
"NOTES\n"
"    Needs CAP_NET_RAW (root). cpu_ns_per_pkt includes the kernel's work in the\n"
"    thread's context: the transmit path and, on veth, the receiving side's\n"
"    processing (softirq run on the sending CPU) unless the kernel has\n"
"    CONFIG_IRQ_TIME_ACCOUNTING. When a qdisc drops (ENOBUFS) the thread retries at\n"
"    once, so a shaped run spends CPU spinning.\n"
"\n"
"EXAMPLES\n"
"    pkt-send --dev tx0 --dst-ip 198.18.7.2 --dst-mac 02:00:c6:12:07:02 --count 100000\n"
"    pkt-send --dev tx0 --dst-ip 198.18.7.2 --dst-mac 02:00:c6:12:07:02 --threads 2 \\\n"
"             --flows 16 --size 128 --stamp --qdisc-bypass --duration 5 --json\n";

struct cfg {
	struct traffic_opts opt;
	bool bypass;			/* --qdisc-bypass */
};

struct flow {
	uint32_t id;		/* global flow index */
	uint64_t seq;		/* next sequence number */
};

struct sender {
	struct run_sender run;		/* first: cpu, quota, results, progress */
	/* --- setup, read-only in the loop --- */
	const struct cfg *cfg;
	int fd;
	struct flow *flows;
	uint32_t nflows;
	struct xtx_pkt_layout lay;	/* of every frame of the batch */
	uint8_t *frames;		/* batch frames, cfg->opt.size bytes apart */
	uint32_t *frame_flow;		/* flow id each frame's port is set to now */
	struct mmsghdr *msgs;
	struct iovec *iov;
	struct traffic_errors errs;	/* results */
};

enum { O_BYPASS = TRAFFIC_OPT_OWN };

static const struct option own_opts[] = {
	{ "qdisc-bypass", no_argument, NULL, O_BYPASS },
	{ NULL, 0, NULL, 0 },
};

static const struct traffic_spec spec = {
	.usage = usage_text,
	.threads_name = "threads",
	.thread_name = "thread",
	.max_size = MAX_SIZE,
	.min_src_port = 0,
	.sockopts = true,
	.dst_mac_like = "02:00:c6:12:07:02",
	.src_mac_like = "02:00:c6:12:07:01",
	.start_name = "thread",
	.unit = "frame",
	.units = "frames",
	.bytes_name = "bytes",
	.calls = true,
	.need_dev = "--dev IF is required",
	.need_dst_mac = "--dst-mac MAC is required (the next hop's address: PF_PACKET frames "
			"are written whole, nothing resolves it)",
	.own = own_opts,
};

static void parse_args(struct cfg *c, int argc, char **argv)
{
	int o;

	cli_set_prog(PROG);
	memset(c, 0, sizeof(*c));
	traffic_init(&c->opt);
	while ((o = traffic_getopt(&c->opt, &spec, argc, argv)) != -1)
		if (o == O_BYPASS)
			c->bypass = true;
	traffic_require(&c->opt, &spec, argc, argv);
	traffic_finish(&c->opt, &spec);
}

/* The thread's socket: AF_PACKET SOCK_RAW, protocol 0 (it receives nothing), bound to
 * the interface. Returns the fd or -1 after printing why. */
static int open_socket(const struct cfg *c, uint32_t t)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_ifindex = c->opt.ifindex };
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
	int one = 1, fd;
	const char *what;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		what = "socket(AF_PACKET, SOCK_RAW) (needs CAP_NET_RAW: run as root)";
		goto fail;
	}
	what = "bind() to --dev";
	if (bind(fd, (struct sockaddr *)&ll, sizeof(ll)))
		goto fail;
	what = "setsockopt(SO_SNDTIMEO)";
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		goto fail;
	if (c->bypass) {
		what = "setsockopt(PACKET_QDISC_BYPASS) (kernel older than 3.14?)";
		if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
			goto fail;
	}
	if (traffic_sockopts(fd, &c->opt, "setsockopt(SO_PRIORITY)", &what))
		goto fail;
	return fd;
fail:
	fprintf(stderr, PROG ": thread %u: %s: %s\n", t, what, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Point frame i of the batch at flow f (destination port and payload flow, seq reset). */
static void retarget(struct sender *s, uint32_t i, const struct flow *f)
{
	uint8_t *fr = s->frames + (size_t)i * s->cfg->opt.size;

	xtx_pkt__set_udp_dport(fr, &s->lay, (uint16_t)(s->cfg->opt.dst_port + f->id));
	if (s->cfg->opt.stamp)
		xtx_pkt__set_payload(fr, &s->lay, f->id, f->seq, 0);
	s->frame_flow[i] = f->id;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	const struct cfg *c = s->cfg;
	const bool stamp = c->opt.stamp && s->lay.pay_fit;
	uint32_t fi = 0;

	run_sender_begin(&s->run);
	while (!run_stopping()) {
		struct flow *f = &s->flows[fi];
		uint32_t n = run_batch(&s->run, c->opt.batch, s->run.sent);
		int r;

		if (!n)
			break;
		if (stamp || s->nflows > 1) {
			uint64_t ts = stamp ? cli_now_ns(CLOCK_MONOTONIC) : 0;

			for (uint32_t i = 0; i < n; i++) {
				if (s->frame_flow[i] != f->id)
					retarget(s, i, f);
				if (stamp)
					xtx_pkt__stamp(s->frames + (size_t)i * c->opt.size, &s->lay,
						       f->seq + i, ts);
			}
		}
		r = sendmmsg(s->fd, s->msgs, n, 0);
		s->run.calls++;
		if (r > 0) {
			run_sent(&s->run, (uint64_t)r);
			f->seq += (uint64_t)r;
		} else if (traffic_send_error(&s->errs, errno)) {
			if (errno != ENXIO) {
				s->run.err = errno;
				break;
			}
			s->errs.other++;	/* ENXIO: the device is going down */
		}
		if (++fi == s->nflows)
			fi = 0;
	}
	traffic_sender_exit(&s->run, "sendmmsg", " (--size larger than the MTU + 14?)");
	return NULL;
}

static int setup_sender(struct sender *s, const struct cfg *c, uint32_t t)
{
	struct xtx_pkt_udp_opts o;
	int len;

	s->cfg = c;
	s->fd = -1;
	traffic_share(&c->opt, t, &s->run);
	s->nflows = traffic_nflows(&c->opt, t);
	s->flows = calloc(s->nflows, sizeof(*s->flows));
	s->frames = calloc(c->opt.batch, c->opt.size);
	s->frame_flow = calloc(c->opt.batch, sizeof(*s->frame_flow));
	s->msgs = calloc(c->opt.batch, sizeof(*s->msgs));
	s->iov = calloc(c->opt.batch, sizeof(*s->iov));
	if (!s->flows || !s->frames || !s->frame_flow || !s->msgs || !s->iov) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	for (uint32_t i = 0; i < s->nflows; i++)
		s->flows[i].id = t + i * c->opt.threads;

	traffic_udp_opts(&c->opt, s->flows[0].id, &o);
	for (uint32_t i = 0; i < c->opt.batch; i++) {
		uint8_t *fr = s->frames + (size_t)i * c->opt.size;

		len = xtx_pkt__build_udp4(fr, c->opt.size, &o);
		if (len < 0 || (uint32_t)len != c->opt.size) {
			fprintf(stderr, PROG ": cannot build a %u-byte frame: %s\n", c->opt.size,
				strerror(len < 0 ? -len : EINVAL));
			return -1;
		}
		if (i == 0 && xtx_pkt__parse_udp(fr, (size_t)len, &s->lay, NULL)) {
			fprintf(stderr, PROG ": internal error: built frame does not parse\n");
			return -1;
		}
		if (c->opt.stamp)
			xtx_pkt__set_payload(fr, &s->lay, s->flows[0].id, 0, 0);
		s->frame_flow[i] = s->flows[0].id;
		s->iov[i].iov_base = fr;
		s->iov[i].iov_len = c->opt.size;
		s->msgs[i].msg_hdr.msg_iov = &s->iov[i];
		s->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	s->fd = open_socket(c, t);
	return s->fd < 0 ? -1 : 0;
}

static void free_sender(struct sender *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->flows);
	free(s->frames);
	free(s->frame_flow);
	free(s->msgs);
	free(s->iov);
}

/* The summary on stdout, as text or --json. */
static void report(const struct cfg *c, const struct sender *snd, const struct run_total *tot,
		   bool interrupted)
{
	uint64_t enobufs = 0, eagain = 0, other = 0, errors;

	for (uint32_t t = 0; t < c->opt.threads; t++) {
		enobufs += snd[t].errs.enobufs;
		eagain += snd[t].errs.eagain;
		other += snd[t].errs.other;
	}
	errors = enobufs + eagain + other;
	if (c->opt.json) {
		struct jsonw j;

		traffic_json_start(&j, c->opt.dev);
		jsonw_bool_field(&j, "qdisc_bypass", c->bypass);
		traffic_json_run(&j, &c->opt, &spec, tot);
		jsonw_uint_field(&j, "errors", errors);
		jsonw_uint_field(&j, "enobufs", enobufs);
		jsonw_uint_field(&j, "eagain", eagain);
		jsonw_uint_field(&j, "errors_other", other);
		traffic_json_end(&j, &c->opt, &spec, tot, interrupted, &snd[0].run, sizeof(*snd));
	} else {
		printf(PROG ": %s, %s, %u thread(s), %u flow(s), %u-byte frames\n", c->opt.dev,
		       c->bypass ? "qdisc bypassed" : "through the qdisc", c->opt.threads,
		       c->opt.flows, c->opt.size);
		traffic_print_sent(&c->opt, &spec, tot);
		printf("  errors      %llu (ENOBUFS %llu, EAGAIN %llu, other %llu)%s\n",
		       (unsigned long long)errors, (unsigned long long)enobufs,
		       (unsigned long long)eagain, (unsigned long long)other,
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
	int rc = 1;

	parse_args(&c, argc, argv);
	traffic_probe_dev(&c.opt);
	traffic_dev_addrs(&c.opt);

	snd = traffic_senders(&c.opt, sizeof(*snd));
	for (uint32_t t = 0; t < c.opt.threads; t++)
		snd[t].fd = -1;
	for (uint32_t t = 0; t < c.opt.threads; t++)
		if (setup_sender(&snd[t], &c, t))
			goto out;
	if (!c.opt.quiet) {
		char dst[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &c.opt.dst_ip, dst, sizeof(dst));
		fprintf(stderr, PROG ": %s to %s ports %u..%u, %u thread(s), %u-byte frames, %s, ",
			c.opt.dev, dst, c.opt.dst_port, c.opt.dst_port + c.opt.flows - 1,
			c.opt.threads, c.opt.size,
			c.bypass ? "qdisc bypassed" : "through the qdisc");
		traffic_print_plan(&c.opt, &spec);
	}
	traffic_run(&c.opt, &spec, sender_main, &snd[0].run, sizeof(*snd), &w, &tot);
	report(&c, snd, &tot, w.interrupted);
	rc = traffic_status(&c.opt, &w, tot.fatal, tot.sent, "the device");
out:
	for (uint32_t t = 0; t < c.opt.threads; t++)
		free_sender(&snd[t]);
	free(snd);
	return rc;
}
