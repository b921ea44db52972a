/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/traffic.h - the command-line options the baseline senders (pkt-send,
 * udp-send, xsk-plain) share: where their UDP/IPv4 flows go, how many and how large, how
 * long to send, on which CPUs, and how to report. Each tool says in a struct traffic_spec
 * where it differs, and reads its own options in between:
 *
 *   traffic_init(); while ((o = traffic_getopt()) != -1) { the tool's own options }
 *   traffic_require(); the tool's own checks; traffic_finish()
 *   traffic_probe_dev(), then traffic_dev_addrs() if the tool writes whole frames
 *   per sender: traffic_share(), traffic_nflows(), traffic_udp_opts() for frames built
 *   traffic_senders(); per sender: traffic_share(), traffic_nflows(), traffic_udp_opts()
 *   for frames built whole, traffic_sockopts() for sockets; then a start line ending in
 *   traffic_print_plan(), traffic_run(); the summary: traffic_json_start(),
 *   traffic_json_run() and traffic_json_end() with --json, else traffic_print_sent();
 *   traffic_status() last
 *
 * Usage errors print "PROG: message" and exit 2 (cli_die_usage()), and so does a --dst-ip
 * that the destination guard refuses (traffic_require()); an interface that is missing or
 * too small for --size exits 1.
 */
#ifndef XTX_TOOLS_TRAFFIC_H
#define XTX_TOOLS_TRAFFIC_H

#include <getopt.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include <xtx/pkt.h>
#include "dstguard.h"
#include "json.h"
#include "run.h"

/* getopt_long() values of a tool's own options start here (the shared ones are below). */
#define TRAFFIC_OPT_OWN		512

/* Where the tools differ. */
struct traffic_spec {
	const char *usage;		/* the --help text */
	/* The thread count's option and, for messages, one of them: "threads" and "thread",
	 * or xsk-plain's "queues" and "queue" (a thread per queue). */
	const char *threads_name, *thread_name;
	const char *start_name;		/* "thread" or "the thread of queue": a failed start's
					 * message names "start_name N" */
	/* What the summary counts: "frame" and "frames" (and "bytes"), "datagram" and
	 * "datagrams" (and "frame bytes"), ... */
	const char *unit, *units, *bytes_name;
	bool calls;			/* --json: each sender's send calls ("calls") */
	uint32_t max_size;		/* --size at most */
	uint16_t min_src_port;		/* --src-port at least (0: the kernel picks one) */
	bool sockopts;			/* takes --sndbuf and --priority */
	/* --dst-mac and --src-mac are taken when dst_mac_like is set: the example MACs
	 * that their error messages show. */
	const char *dst_mac_like, *src_mac_like;
	const char *need_dev;		/* message when --dev is missing; NULL: optional */
	const char *need_dst_mac;	/* message when --dst-mac is missing; NULL: optional */
	const struct option *own;	/* the tool's own options, ended by a NULL name */
};

struct traffic_opts {
	const char *dev;		/* --dev; NULL if not given */
	int ifindex;			/* of dev, from traffic_probe_dev() */
	struct in_addr src_ip, dst_ip;
	uint8_t src_mac[6], dst_mac[6];
	bool have_src_ip, have_src_mac, have_dst_ip, have_dst_mac, have_tos, have_priority;
	bool have_flows, have_duration;
	bool stamp, json, quiet;
	int sndbuf;			/* --sndbuf: SO_SNDBUFFORCE bytes, 0 = system default */
	uint32_t size;			/* Ethernet frame bytes without FCS */
	uint32_t flows, threads, batch, priority;
	uint16_t dst_port, src_port;	/* flow f goes to dst_port + f */
	uint8_t tos;
	double duration, timeout;	/* seconds */
	uint64_t count;			/* 0: duration mode */
	int cpus[CPU_SETSIZE];		/* thread i runs on cpus[i % ncpus] */
	int ncpus;
	struct dstguard guard;		/* --allow-dst, --allow-any-dst */
};

/* The defaults: 64-byte frames, one thread, batches of 64, destination port 9000, source
 * port 1024, --timeout 60. */
void traffic_init(struct traffic_opts *t);
/* getopt_long() over the shared options and spec->own: reads the shared ones into t (and
 * for --help prints spec->usage and exits 0), and returns the value of the next of the
 * tool's own options, its argument in optarg, or -1 at the end. Dies on an unknown
 * option or a bad value. */
int traffic_getopt(struct traffic_opts *t, const struct traffic_spec *spec, int argc,
		   char **argv);
/* No argument left over, the required options given (--dst-ip, and --dev and
 * --dst-mac where spec says so), and --dst-ip allowed by the destination guard
 * (dstguard.h: the benchmarking ranges, --allow-dst, --allow-any-dst), or die (exit 2). */
void traffic_require(const struct traffic_opts *t, const struct traffic_spec *spec,
		     int argc, char **argv);
/* The checks across options and the defaults that hang on others, or die: --duration
 * excludes --count (without either, 10 s); --flows defaults to one per thread, needs at
 * least that many and ports up to 65535; --cpus defaults to this process's CPUs. */
void traffic_finish(struct traffic_opts *t, const struct traffic_spec *spec);
/* t->ifindex of --dev, and --size against its MTU + 14; exits 1 with a hint when the
 * interface does not exist or the frames do not fit. */
void traffic_probe_dev(struct traffic_opts *t);
/* The --src-ip and --src-mac not given: --dev's first IPv4 address and its MAC; exits 1
 * when it has none. */
void traffic_dev_addrs(struct traffic_opts *t);

/* An array of t->threads zeroed sender structs of size bytes each; out of memory ends
 * the process (exit 1). */
void *traffic_senders(const struct traffic_opts *t, size_t size);
/* Sender i's share of t: its CPU (--cpus entry i mod their count) and, with --count, its
 * quota (count / threads, one more for the first count % threads), in r. */
void traffic_share(const struct traffic_opts *t, uint32_t i, struct run_sender *r);
/* Sender i's flows: i, i + threads, i + 2 * threads, ... below --flows; how many. */
static inline uint32_t traffic_nflows(const struct traffic_opts *t, uint32_t i)
{
	return (t->flows - i + t->threads - 1) / t->threads;
}
/* The frame of flow `flow` as pkt-send and xsk-plain build it, into o: t's MACs,
 * addresses, ports (destination --dst-port + flow), TOS, Don't Fragment, --size. */
void traffic_udp_opts(const struct traffic_opts *t, uint32_t flow, struct xtx_pkt_udp_opts *o);
/* The socket options of --sndbuf and --priority on fd. 0, or -1 with errno and *what
 * naming the call that failed (prio_what for SO_PRIORITY). */
int traffic_sockopts(int fd, const struct traffic_opts *t, const char *prio_what,
		     const char **what);
/* The errors of a send call that are counted, not fatal, in every sender. */
struct traffic_errors {
	uint64_t enobufs;		/* the qdisc or the driver dropped it */
	uint64_t eagain;		/* the socket buffer stayed full (SO_SNDTIMEO) */
	uint64_t other;			/* transient: EINTR, ENETDOWN, and the tool's own */
};
/* Count a failed send call's errno e in *c: 0 for ENOBUFS, EAGAIN, EINTR and ENETDOWN
 * (retry), -1 for any other, which is the tool's to judge. */
int traffic_send_error(struct traffic_errors *c, int e);
/* The end of a sender thread: run_sender_end(); after a fatal error (r->err, an errno
 * value) "PROG: thread N: CALL: ERROR[HINT]; stopping", HINT for EMSGSIZE, and the
 * others stopped; run_done(). */
void traffic_sender_exit(struct run_sender *r, const char *call, const char *emsgsize_hint);

/* The end of the start line on stderr: "N <units>" (--count) or "S s", ", stamped" with
 * --stamp, and the newline. */
void traffic_print_plan(const struct traffic_opts *t, const struct traffic_spec *spec);

/* Run t->threads senders fn(sender i) from first, stride bytes apart (each set up with
 * traffic_share()): block the signals, start the threads (a thread that cannot start
 * ends the process: exit 1), run_watch() until all are done or stopped, join them and
 * sum their results into *tot. w: progress and stride are set here; the rest is out. */
void traffic_run(const struct traffic_opts *t, const struct traffic_spec *spec,
		 void *(*fn)(void *), struct run_sender *first, size_t stride,
		 struct run_watch *w, struct run_total *tot);
/* Whether the run did what it was asked: no fatal error, and every --count frame sent or,
 * without --count, not stopped by a signal. */
bool traffic_complete(const struct traffic_opts *t, const struct run_total *tot,
		      bool interrupted);
/* The summary's "sent" line, then run_print_rates(). */
void traffic_print_sent(const struct traffic_opts *t, const struct traffic_spec *spec,
			const struct run_total *tot);

/* w for a run of t that starts now: its deadline (--duration, or --count's --timeout), the
 * frame size for the per-second line, --quiet and the t->threads senders. The caller adds
 * where their progress counters are. */
void traffic_watch_init(const struct traffic_opts *t, struct run_watch *w);
/* A --json summary's start on stdout: the object opened, "tool" (the program's name)
 * and, unless dev is NULL, "dev". */
void traffic_json_start(struct jsonw *w, const char *dev);
/* The members every sender's --json summary has, in this order: the thread count (named
 * as spec->threads_name: "threads", xsk-plain's "queues"), flows, size, stamp, then for
 * tot->sent frames of t->size bytes over tot->dur seconds with tot->cpu_ns of the
 * senders' CPU time: sent_pkts, sent_bytes, duration_s, pps, cpu_ns_per_pkt. */
void traffic_json_run(struct jsonw *w, const struct traffic_opts *t,
		      const struct traffic_spec *spec, const struct run_total *tot);
/* The end of every sender's --json summary: complete, interrupted, then the array
 * "per_" spec->thread_name ("per_thread", "per_queue") of the t->threads senders from
 * first (stride bytes apart): {spec->thread_name: i, cpu, sent_pkts, calls (where
 * spec->calls), cpu_ns}; the object closed and the line ended. */
void traffic_json_end(struct jsonw *w, const struct traffic_opts *t,
		      const struct traffic_spec *spec, const struct run_total *tot,
		      bool interrupted, const struct run_sender *first, size_t stride);
/* The exit status once the summary is out: 1 after a fatal error, or when --count was
 * not reached (then says so; check: what to look at after a timeout, e.g. "the device");
 * 0 otherwise, also when a signal stopped the run. */
int traffic_status(const struct traffic_opts *t, const struct run_watch *w, bool fatal,
		   uint64_t sent, const char *check);

#endif /* XTX_TOOLS_TRAFFIC_H */
