/* SPDX-License-Identifier: BSD-3-Clause */
/* compare.h - the parts of xtx-compare. Calls go down this list, never up; the two mode
 * files do not call each other (main.c picks the mode of each measurement):
 *   main.c     options, --help, the plan of runs, the mode, cleanup on any exit
 *   report.c   medians and spreads, the tables (terminal and markdown), --json, --plot
 *   send.c     one measurement of --mode send: qdisc for the path, sink, sender
 *   forward.c  one measurement of --mode forward: a forwarder between sender and sink
 *   remote.c   the sink control channel (serve mode on the receiver, client here)
 *   qdisc.c    the qdisc a path changes: saved, applied, put back and checked (tc)
 *   meas.c     the paths; one measurement's record, error, summaries and figures
 *   argv.c     the command lines of the tools it runs
 *   proc.c     child processes (spawn in a namespace, wait with a deadline, stop), files
 *   tc.c       class tree -> tc commands, expected rates (pure; unit-tested)
 *   json.c     reading the tools' JSON summaries
 * Internal to the tool.
 */
#ifndef XTX_COMPARE_H
#define XTX_COMPARE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <xtx/sched.h>

#include "cli.h"
#include "dstguard.h"
#include "json.h"
#include "tc.h"

#define PROG		"xtx-compare"
#define MAX_LIST	16		/* --producers, --size entries */
#define MAX_TABLE_LEAVES 6		/* leaf columns in the tables (the JSON has all) */
#define SNDBUF_BYTES	8388608		/* socket buffers of the kernel senders: the qdisc,
					 * not the socket, holds the backlog */

enum path_id {
	P_KERNEL_HTB,		/* udp-send through the tree as tc htb */
	P_KERNEL_MQ_HTB,	/* udp-send, root mq with the tree as tc htb on each queue */
	P_KERNEL_NOQUEUE,	/* udp-send, root noqueue (veth's default) */
	P_KERNEL_PFIFO_FAST,	/* udp-send, root pfifo_fast (lockless qdisc) */
	P_PACKET_HTB,		/* pkt-send (PF_PACKET) through the tree as tc htb */
	P_PACKET_BYPASS,	/* pkt-send with PACKET_QDISC_BYPASS */
	P_XTX,			/* xtx-send with the tree */
	P_AFXDP,		/* xsk-plain: one AF_XDP socket, no scheduling */
	P_FWD_KERNEL_HTB,	/* --mode forward: kernel IPv4 forwarding, tc htb on fw1 */
	P_FWD_XTX_SHAPE,	/* --mode forward: xtx-shape (router mode) in the fw namespace */
	P__MAX
};

enum cmp_mode { MODE_SEND, MODE_FORWARD };

enum qdisc_need { QD_NONE, QD_HTB, QD_MQ_HTB, QD_NOQUEUE, QD_PFIFO_FAST };

struct path_def {
	const char *name;
	const char *what;		/* one line for --help and the report */
	enum qdisc_need qdisc;
	bool shaped;			/* applies the class tree */
	bool per_producers;		/* runs once per --producers entry (else once) */
	bool forward;			/* a path of --mode forward (else of --mode send) */
};

extern const struct path_def path_defs[P__MAX];

/* Everything the options decide, plus the environment found at start. */
struct opts {
	/* what to run */
	enum cmp_mode mode;
	bool path_on[P__MAX];
	unsigned producers[MAX_LIST], nproducers;
	unsigned sizes[MAX_LIST], nsizes;
	unsigned flows, base_port, runs, queues;
	unsigned sndbuf;		/* udp-send / pkt-send --sndbuf; 0: system default */
	double duration;
	const char *classes;		/* NULL: the built-in tree */
	const char *rate;		/* forward: xtx-send --rate; NULL: xsk-plain unpaced */
	const char *shape_opts[MAX_LIST];	/* forward: --shape-opt, added to xtx-shape's */
	unsigned nshape_opts;
	const char *send_opts[MAX_LIST];	/* --send-opt, added to xtx-send's (path xtx) */
	unsigned nsend_opts;
	/* where */
	const char *dev;		/* NULL: make a testbed */
	const char *netns;		/* namespace of dev (NULL: this one) */
	const char *dst_ip, *dst_mac;
	const char *sink_dev, *sink_netns;	/* local sink */
	const char *sink_remote;	/* HOST:PORT of `xtx-compare serve` */
	/* --allow-dst and --allow-any-dst: checked here (guard) and passed on to every
	 * sender as given */
	struct dstguard guard;
	const char *allow_dst[DSTGUARD_MAX];
	unsigned nallow_dst;
	bool allow_any_dst;
	/* output */
	const char *json_file, *md_file, *plot_file;
	bool quiet;
	/* serve mode */
	bool serve;
	const char *listen;
};

/* The run's fixed facts. */
struct env {
	char bindir[PATH_MAX];		/* where the sibling tools are */
	char testbed[PATH_MAX + 32];	/* tools/testbed, "" if not found */
	char tmpdir[128];
	char tb_name[16];		/* testbed made by us, "" if none */
	char tx_netns[64], tx_dev[32], rx_netns[64], rx_dev[32];
	char fw_netns[64], fw_in_dev[32], fw_out_dev[32];	/* forward mode */
	char qd_netns[64], qd_dev[32];	/* the device whose qdisc is changed: tx0, or fw1 */
	char rules_path[PATH_MAX];	/* forward: rules file given to xtx-shape */
	char dst_ip[64], dst_mac[32];
	char classes_path[PATH_MAX];	/* file given to xtx-send */
	char saved_qdisc[8192];		/* `tc qdisc show dev` before anything */
	unsigned qd_tx_queues;		/* the qdisc device's TX queues (kernel-mq-htb) */
	bool qdisc_ok;			/* saved state is the kernel's default: may change it */
	bool fq_probed;			/* an fq leaf qdisc was tried */
	bool fq_available;		/* ... and the kernel took it */
	char kernel[400], cpu_model[256];
	unsigned ncpus;
	char xtx_mode[16], afxdp_mode[16], shape_mode[32];
	char started_utc[32];
	char cmdline[2048];
	int remote_fd;			/* control channel, -1 if none */
};

/* One measurement's figures. NaN where a figure does not exist. */
struct meas {
	enum path_id path;
	unsigned producers, size, run;
	bool ok;
	char error[512];
	double duration_s;		/* rates' time: the sender's send time, or the
					 * sink's window (forward) */
	double sink_pkts, sink_bytes;
	double pps, bytes_per_s;
	double cpu_ns_per_pkt;		/* as the sender reports it */
	double sent_pkts, sender_drops;	/* sender's own counts */
	double d50, d99, d999;		/* one-way delay, ns */
	double offered_pps;		/* forward: the sender's own rate over its run */
	double fwd_pkts, fwd_drops;	/* forward: sent and dropped by the forwarder */
	double jain_min;		/* lowest Jain index of a leaf's flows */
	double *flow_pkts, *flow_bytes;	/* per flow at the sink (opts.flows) */
	double *leaf_pkts, *leaf_bytes;	/* per leaf (plan.nleaves) */
	double *leaf_jain;
	double *leaf_delay;		/* per leaf one-way delay p50, p99, p99.9 (ns),
					 * [leaf * 3 + k]; NaN: not measured */
	double *queue_leaf_pkts;	/* kernel-mq-htb: packets each queue's htb sent per
					 * leaf, [q * nleaves + leaf], from tc -s at the end of
					 * the send time (NaN: not read) */
	bool qdisc_restored;
	bool fq_fallback;		/* a fq leaf ran as pfifo */
	struct json *sender;		/* the sender's summary */
	struct json *sink;		/* the sink's summary */
	struct json *forwarder;		/* forward: xtx-shape's summary or tc -s -j */
};

/* A configuration's runs summarised. */
struct stat5 { double median, min, max; unsigned n; };

/* A child process (proc.c); pid 0 once reaped. */
struct child { pid_t pid; char out[700], err[700]; const char *what; };

extern volatile sig_atomic_t g_stop;	/* SIGINT/SIGTERM seen */

/* What a measurement works with: the options, the environment, the tree and its
 * translation, and the expected rates. */
struct ctx {
	struct opts *o;
	struct env *e;
	struct xtx_sched_config *cfg;
	struct tc_plan plan;
	struct tc_plan mq_plan;		/* kernel-mq-htb's commands (queues 0: not built) */
	double *expected_Bps;		/* per config class: expected wire bytes/s */
	int *capped;
};

/* send.c: a measurement of a path of --mode send into m (set up by meas_init()). 0, or
 * -1 with m->error set. */
int measure_send(struct ctx *x, enum path_id p, unsigned producers, unsigned size,
		 struct meas *m);

/* forward.c: the same for a path of --mode forward, and the rules file xtx-shape reads. */
#define FWD_MAX_RULES	128		/* xtx-shape's rule limit */
#define FWD_WARMUP_MS	1500		/* sender alone before counting: leaves full, rates
					 * settled */
int fwd_rules_write(struct ctx *x, const char *path, char *err, size_t errlen);
int measure_forward(struct ctx *x, enum path_id p, unsigned size, struct meas *m);

/* qdisc.c (the qdisc of env.qd_dev) */
/* tc [-n qd_netns] LINE (blank-separated, no quoting); its output into out. Returns tc's
 * exit status or -errno (proc_run). */
int tc_line(struct ctx *x, const char *line, char *out, size_t outlen);
/* Save the device's qdiscs; env.qdisc_ok says whether they are the kernel's defaults
 * (else err says why the paths that change it cannot run). -1 if tc failed. */
int qdisc_save(struct ctx *x, char *err, size_t errlen);
/* Put the kernel's default back; *same: the state is as saved. Returns 0. */
int qdisc_restore(struct ctx *x, bool *same);
/* Set what path p needs. 0, or -1 with m->error set. */
int qdisc_apply(struct ctx *x, enum path_id p, struct meas *m);
/* The qdisc device's TX queues (`ip -d -j link show`: num_tx_queues, what mq makes a
 * class for) into *n. 0, or -1 with err set. */
int qdisc_tx_queues(struct ctx *x, unsigned *n, char *err, size_t errlen);
/* kernel-mq-htb: each queue's leaf classes' sent packets (`tc -s -j class show`) into
 * m->queue_leaf_pkts; left NaN if tc fails (evidence, not a figure of the run). */
void qdisc_queue_stats(struct ctx *x, struct meas *m);

/* meas.c */
/* A fresh record for path p (producers n, frame size, round run), figures NaN. 0, or -1
 * with m->error set (out of memory). meas_free() in either case. */
int meas_init(struct ctx *x, struct meas *m, enum path_id p, unsigned n, unsigned size,
	      unsigned run);
void meas_free(struct meas *m);
/* m->error, unless it holds a message already (the first failure is the one reported). */
void set_error(struct meas *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last two lines of a tool's stderr file, on one line, for an error message. */
void tail_of(const char *path, char *out, size_t len);
/* m->error = "WHAT failed (exit N): " and the tail of the stderr file errpath. */
void set_exit_error(struct meas *m, const char *what, int status, const char *errpath);
/* Record a check of the qdisc (qdisc_restore's same) in m. A failed one clears
 * m->qdisc_restored (meas_init sets it) and m->error says so; a later check that passed
 * leaves both as they are, so every check made during a run counts. */
void qdisc_record(struct ctx *x, struct meas *m, bool same);
/* How a child says it is ready (--ready-file) and what m->error says if it does not. */
struct ready_spec {
	const char *what;		/* "xtx-sink" */
	const char *doing;		/* "attaching": "WHAT exited before DOING: stderr" */
	const char *late;		/* "did not attach": "WHAT LATE within N s" */
	int timeout_s;
	double grace_s;			/* SIGINT to SIGKILL when it is stopped */
};
/* Wait for c's ready file (proc_await_file). 0, or -1 with m->error set and c stopped. */
int await_ready(struct meas *m, struct child *c, const char *ready, const char *errpath,
		const struct ready_spec *r);
/* Parse a tool's --json summary text into *out. NULL text (none came) or bad JSON: -1,
 * and m->error says "cannot read WHO's JSON summary (why)", why being the parser's
 * message or none_why. */
int parse_summary(struct meas *m, struct json **out, const char *text, const char *who,
		  const char *none_why);
/* The figures of m from its sender's and sink's summaries (the sink's window as the time
 * of a forward path, the sender's send time otherwise). */
void figures(struct ctx *x, struct meas *m);

/* argv.c: a command line, one argument per call (one that does not fit is left out). */
struct argv_buf {
	char *v[128];
	char store[8192];
	size_t used;
	unsigned n;
};
void av_add(struct argv_buf *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An option and its value: av_opt(a, "--size", "%u", 64). */
void av_opt(struct argv_buf *a, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Where a sender sends: --dev, --dst-ip, --dst-mac. */
void av_dst(struct argv_buf *a, const struct env *e);
/* What every load generator takes: --size, --flows, --dst-port, --duration, --json, and
 * --allow-dst / --allow-any-dst as given to xtx-compare. */
void av_load(struct argv_buf *a, const struct opts *o, unsigned size, double duration);
/* BINDIR/xtx-sink [--netns NS] --dev DEV --ports LO-HI --interval 0: how every sink
 * starts (netns NULL or "": this namespace). */
void av_sink(struct argv_buf *a, const char *bindir, const char *netns, const char *dev,
	     unsigned lo, unsigned hi);
/* --delay-mod L for a local sink of a tree of L leaves, 2 <= L <= CMP_DELAY_GROUPS: flow i
 * (port base + i) is in leaf i mod L, so group l of the sink's delays is leaf l's. With
 * one leaf its delay is the sink's overall one; above CMP_DELAY_GROUPS none per leaf. */
#define CMP_DELAY_GROUPS	8	/* xtx-sink's most (XTX_SINK_DELAY_GROUPS) */
void av_delay_mod(struct argv_buf *a, const struct tc_plan *p);
/* The program's name (argument 0 without its directory), for messages. */
static inline const char *av_prog(const struct argv_buf *a)
{
	const char *slash = strrchr(a->v[0], '/');

	return slash ? slash + 1 : a->v[0];
}

/* proc.c */
int proc_spawn(struct child *c, const char *netns, char *const argv[], const char *out,
	       const char *err);
int proc_wait(struct child *c, double timeout_s, int *status);
void proc_stop(struct child *c, int sig, double grace_s);
int proc_pause(struct child *c, double timeout_s, int *status);
/* Wait (every 20 ms) until path exists, as a child says it is ready (--ready-file).
 * Returns 0 once it exists, 1 if c exited first (reaped, *status set unless NULL),
 * -EINTR on a stop request (g_stop) or -ETIMEDOUT after timeout_s; c then still runs. */
int proc_await_file(struct child *c, const char *path, double timeout_s, int *status);
int proc_run(const char *netns, char *const argv[], double timeout_s, char *out,
	     size_t outlen);
char *read_file(const char *path, size_t max);
void kill_all_children(void);
void msleep(unsigned ms);
/* The exit code of a wait status, -1 if the child did not exit (a signal ended it). */
static inline int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
/* CLOCK_MONOTONIC in seconds. */
static inline double mono_s(void)
{
	return cli_now_s(CLOCK_MONOTONIC);
}

/* report.c */
void report_all(struct ctx *x, struct meas *ms, unsigned nms);

/* remote.c */
int serve_main(const struct opts *o);
/* Connect to `xtx-compare serve` at a UNIX socket path or HOST:PORT. HOST must pass g
 * or be loopback, every address it resolves to, checked before any connection is tried:
 * else -EACCES and err says why. Returns the fd, or -1 (or -EACCES) with err set. */
int remote_connect(const char *hostport, const struct dstguard *g, char *err,
		   size_t errlen);
int remote_start(int fd, unsigned lo, unsigned hi, char *err, size_t errlen);
char *remote_stop(int fd, char *err, size_t errlen);
void remote_bye(int fd);

#endif /* XTX_COMPARE_H */
