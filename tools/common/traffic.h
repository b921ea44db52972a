/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/traffic.h - the command-line options the baseline senders (pkt-send,
 * udp-send, xsk-plain) share: where their UDP/IPv4 flows go, how many and how large, how
 * long to send, on which CPUs, and how to report. Each tool says in a struct traffic_spec
 * where it differs, and reads its own options in between:
 *
 *   traffic_init(); while ((o = traffic_getopt()) != -1) { the tool's own options }
 *   traffic_require(); the tool's own checks; traffic_finish()
 *   traffic_probe_dev(), then traffic_dev_addrs() if the tool writes whole frames
 *   traffic_watch_init() before run_watch(); traffic_json_run() in a --json summary;
 *   traffic_status() after the summary
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

/* w for a run of t that starts now: its deadline (--duration, or --count's --timeout), the
 * frame size for the per-second line, --quiet and the t->threads senders. The caller adds
 * where their progress counters are. */
void traffic_watch_init(const struct traffic_opts *t, struct run_watch *w);
/* The members every sender's --json summary has, in this order: the thread count (named
 * as spec->threads_name: "threads", xsk-plain's "queues"), flows, size, stamp, then for
 * sent frames of t->size bytes over dur seconds with cpu_ns of the senders' CPU time:
 * sent_pkts, sent_bytes, duration_s, pps, cpu_ns_per_pkt. */
void traffic_json_run(struct jsonw *w, const struct traffic_opts *t,
		      const struct traffic_spec *spec, uint64_t sent, double dur, uint64_t cpu_ns);
/* One sender's element of the summary's per-thread array: {spec->thread_name ("thread",
 * "queue"): i, cpu, sent_pkts, calls (where calls is not NULL), cpu_ns}. */
void traffic_json_sender(struct jsonw *w, const struct traffic_spec *spec, uint32_t i, int cpu,
			 uint64_t sent, const uint64_t *calls, uint64_t cpu_ns);
/* The exit status once the summary is out: 1 after a fatal error, or when --count was
 * not reached (then says so; check: what to look at after a timeout, e.g. "the device");
 * 0 otherwise, also when a signal stopped the run. */
int traffic_status(const struct traffic_opts *t, const struct run_watch *w, bool fatal,
		   uint64_t sent, const char *check);

#endif /* XTX_TOOLS_TRAFFIC_H */
