/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx-compare - xtx beside the kernel's qdisc paths, same tree, same offered load,
 * measured at the receiver. `xtx-compare --help` is the manual; compare.h maps the files.
 *
 * This file: options, the environment, the interleaved plan of measurements, progress,
 * and cleanup on every exit (children stopped by pid, the qdisc put back, the testbed
 * removed, the temporary directory deleted).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <xtx/xtx.h>

#include "cli.h"
#include "compare.h"
#include "units.h"

volatile sig_atomic_t g_stop;

static const char builtin_tree[] =
"# xtx-compare's built-in tree: a capped tenant and a bulk class that borrows the rest.\n"
"# 1:10 is shaped to exactly 50 Mbit/s (rate = ceil): its measured rate shows how\n"
"# precisely each path shapes. 1:20 is guaranteed 100 Mbit/s and may borrow up to the\n"
"# 10 Gbit/s root: its rate shows how many packets each path moves through the tree.\n"
"class 1:   rate 10gbit\n"
"class 1:10 parent 1: rate 50mbit ceil 50mbit prio 0\n"
"class 1:20 parent 1: rate 100mbit ceil 10gbit prio 1\n";

static const char usage_text[] =
"NAME\n"
"    xtx-compare - xtx beside the kernel's qdisc paths, with the same class tree and load\n"
"\n"
"SYNOPSIS\n"
"    xtx-compare [--classes FILE] [--producers LIST] [--size LIST] [--flows N]\n"
"                [--paths LIST] [--duration S] [--runs K] [--queues N]\n"
"                [--json FILE] [--md FILE] [--plot FILE.png] [--quiet]\n"
"    xtx-compare --dev IF --dst-ip IP --dst-mac MAC [--netns NS]\n"
"                (--sink-dev IF [--sink-netns NS] | --sink HOST:PORT) [options above]\n"
"                [--allow-dst PREFIX]... [--allow-any-dst]\n"
"    xtx-compare --mode forward [--classes FILE] [--size LIST] [--flows N]\n"
"                [--rate R [--producers N]] [--paths LIST] [--duration S] [--runs K]\n"
"                [--queues N] [--json FILE] [--md FILE] [--quiet]\n"
"    xtx-compare serve --dev IF [--netns NS] --listen ADDR:PORT\n"
"\n"
"DESCRIPTION\n"
"    Sends the same UDP flows through each of these paths and counts what arrives at\n"
"    the receiver with xtx-sink (XDP), never trusting a sender's own count:\n"
"\n"
"      kernel-htb         udp-send: N threads, sendmmsg() on UDP sockets, through the\n"
"                         class tree translated to tc htb, with u32 filters putting\n"
"                         each flow's UDP port into its class\n"
"      kernel-mq-htb      udp-send, root qdisc mq and under each of its classes (one\n"
"                         per TX queue) an htb with the whole class tree and the\n"
"                         same u32 filters: how a multi-queue device is shaped\n"
"                         without one root lock. Each queue's htb sees only the\n"
"                         packets the kernel put on that queue, so a class whose\n"
"                         flows spread over Q queues may get up to Q times its rate\n"
"                         and ceil. Needs --queues 2 or more; in the default path\n"
"                         set only then\n"
"      kernel-noqueue     udp-send, root qdisc noqueue (no qdisc: veth's default)\n"
"      kernel-pfifo_fast  udp-send, root qdisc pfifo_fast (the lockless qdisc)\n"
"      packet-htb         pkt-send: N threads writing whole frames to PF_PACKET\n"
"                         sockets, through the same tc htb tree\n"
"      packet-bypass      pkt-send with PACKET_QDISC_BYPASS: straight to the driver\n"
"      xtx                xtx-send: N producers, the tree in xtx's scheduler, AF_XDP\n"
"      afxdp              xsk-plain: one AF_XDP socket and thread, no scheduling (the\n"
"                         limit of the AF_XDP path on this interface; run once, not\n"
"                         per N)\n"
"\n"
"    Flow i goes to UDP destination port 9000 + i and belongs to leaf class i mod L\n"
"    (leaves in file order), on every path: what xtx-send does and what the u32\n"
"    filters do. Every sender writes the xtx test payload (sequence number and a\n"
"    CLOCK_MONOTONIC timestamp) into each packet; the sink checks the order and\n"
"    keeps a histogram of the one-way delay.\n"
"\n"
"    The measurements are interleaved: each round runs every path at every size\n"
"    and producer count once, and K rounds are run, so a slow moment of the host\n"
"    hits all paths alike. Each figure is the median of the K runs, with the spread\n"
"    (max - min).\n"
"\n"
"    By default xtx-compare makes its own testbed (tools/testbed: a veth pair in two\n"
"    fresh network namespaces, addresses in 198.18.0.0/15), runs everything there and\n"
"    removes it at the end, also after an error or Ctrl-C. With --dev it sends on a\n"
"    real interface instead; see docs/compare.md.\n"
"\n"
"    The qdisc. Before anything, `tc qdisc show dev IF` is saved. After every run the\n"
"    root qdisc is deleted, which puts the kernel's default back, and the state is\n"
"    compared with the saved one; any difference stops the comparison with an error.\n"
"    Because only the kernel's default qdiscs can be put back this way, the paths\n"
"    that change the qdisc are refused on an interface with a configured qdisc.\n"
"\n"
"FORWARD MODE\n"
"    --mode forward measures a forwarder instead of a sender, on a testbed of three\n"
"    namespaces (tools/testbed up NAME --three: tx0 -> fw0 [forwarding namespace,\n"
"    IPv4 forwarding on] fw1 -> rx0), with two paths:\n"
"\n"
"      kernel-fwd-htb     the kernel's IPv4 forwarding, the class tree as tc htb +\n"
"                         u32 filters on the egress veth fw1 (saved and restored\n"
"                         like the send mode's qdisc)\n"
"      xtx-shape          xtx-shape in router mode, fw0 -> fw1, the same tree, one\n"
"                         egress queue (exact HTB rates), a rules file that puts each\n"
"                         flow's port into the leaf the u32 filters use; started,\n"
"                         awaited with --ready-file, stopped with SIGINT\n"
"\n"
"    The same sender feeds both paths: xsk-plain, unpaced (a thread per queue), or\n"
"    with --rate xtx-send paced at R. It runs 1.5 s first (queues full, rates\n"
"    settled); then xtx-sink counts on rx0 for --duration seconds, and the span of\n"
"    the frames it counted (first arrival to last) is the denominator of every rate;\n"
"    then the sender and the forwarder stop. The table shows Mpps at the receiver,\n"
"    the ratio to kernel-fwd-htb, the sender's offered rate (its own count over its\n"
"    whole run), the forwarder's drops (tc -s of the root htb; xtx-shape's drop\n"
"    counters, its XDP policing included), Jain and delay; the per-class table the\n"
"    wire rate of each leaf and its error against the expected share.\n"
"    Runs are interleaved and summarised as in send mode. On a small host the\n"
"    sender, the forwarder and the receiver share the CPUs (the ingress veth's\n"
"    softirq runs on the sending CPU), so what the sender offers depends on the\n"
"    path: compare the offered rates too. xtx-shape takes at most 128 rules, one\n"
"    per flow: --flows 128 at most (any number with a one-leaf tree).\n"
"\n"
"WHAT IS MEASURED\n"
"    Per path, size and N (medians over the K runs):\n"
"      Mpps, Gbit/s     packets and frame bytes (no FCS) counted by the sink, divided\n"
"                       by the sender's send time. The qdisc is reset the moment the\n"
"                       sender stops, so a shaped backlog is dropped, not counted.\n"
"      vs htb           Mpps (and CPU) as a ratio to kernel-htb at the same size and N.\n"
"      CPU ns/pkt       the sender's CPU time per packet it sent, from its JSON:\n"
"                       threads (udp-send, pkt-send, xsk-plain) or the whole process\n"
"                       (xtx-send, dequeuers included). Kernel work done in the\n"
"                       sender's context counts (on veth also the receiver's softirq);\n"
"                       work in other threads' softirq does not.\n"
"      per class        packets, bytes and wire rate (frame + the tree's overhead) of\n"
"                       each leaf's flows at the sink; the rate each leaf should get\n"
"                       when all leaves are backlogged (HTB's rule: rate first, the\n"
"                       spare by prio, in proportion to quantum, up to ceil), and the\n"
"                       error against it. The error is shown for the shaped paths\n"
"                       only, and only where it means something: for a leaf held by\n"
"                       its own ceil, or when the tree's total was reached; otherwise\n"
"                       the sender, not the tree, set the rate ('-' and a note).\n"
"      Jain             Jain's fairness index of the packet counts of the flows of one\n"
"                       leaf (equal flows, equal offer); the lowest over the leaves.\n"
"      delay            one-way delay p50 / p99 / p99.9 from the sink's histogram\n"
"                       (within 3.2%). Needs frames of 66 bytes or more (room for the\n"
"                       timestamp) and sender and sink on one host (one clock).\n"
"      class delay      the same for each leaf's flows alone (xtx-sink --delay-mod L:\n"
"                       flow i is in leaf i mod L), with 1 to 8 leaves; a table of\n"
"                       its own, and delay_us per class in --json.\n"
"\n"
"OPTIONS\n"
"    --classes FILE     the class tree (docs/config.md). Default: a built-in tree,\n"
"                       1:10 shaped to 50 Mbit/s and 1:20 borrowing up to 10 Gbit/s\n"
"                       (printed in the JSON). fq leaves become fq leaf qdiscs; on a\n"
"                       kernel without sch_fq they fall back to pfifo (said so).\n"
"    --producers LIST   sender threads / xtx producers, comma-separated, each 1..256\n"
"                       (default 1,2,4).\n"
"    --size LIST        frame sizes in bytes without FCS, 60..1514 (default 128). 64\n"
"                       works but leaves no room for the timestamp: no delay figures.\n"
"    --flows N          flows, 1..65536 and at least the largest N (default 16).\n"
"    --base-port P      UDP destination port of flow 0 (default 9000).\n"
"    --paths LIST       paths to run, comma-separated names from the list above\n"
"                       (default: all).\n"
"    --duration S       seconds each sender runs, 0.2..3600 (default 2).\n"
"    --runs K           rounds, 1..100 (default 3).\n"
"    --queues N         testbed veth queues and xtx-send --queues (default 1). xtx's\n"
"                       classes are device-wide across its queues. kernel-mq-htb\n"
"                       puts an htb on every TX queue the device has (num_tx_queues;\n"
"                       on the testbed N), and udp-send's sockets are spread over\n"
"                       them by the kernel (XPS if set, else the socket's random\n"
"                       hash): the notes and --json show each queue's share.\n"
"    --sndbuf BYTES     socket send buffer of udp-send and pkt-send (default 8388608,\n"
"                       so that a full class answers ENOBUFS at once and the sender\n"
"                       retries, as in make demo; 0 = the system default, with which\n"
"                       sockets of a full class block instead; see docs/compare.md).\n"
"    --json FILE        write every figure, every run and the environment as JSON.\n"
"    --md FILE          write the tables as Markdown (for tools/bench/report.sh).\n"
"    --plot FILE.png    draw with gnuplot: Mpps against N, one line per path, and the\n"
"                       per-class rates of the shaped paths against the configured\n"
"                       and expected rates (largest N, first size).\n"
"    --quiet            no progress on stderr (errors still go there).\n"
"    --mode MODE        send (default: the sending paths above) or forward (see\n"
"                       FORWARD MODE). In forward mode --queues defaults to 2,\n"
"                       --paths takes kernel-fwd-htb and xtx-shape, and --dev,\n"
"                       --plot and --sndbuf are refused.\n"
"    --rate R           forward mode: send with xtx-send paced at R (e.g. 700mbit,\n"
"                       1gbit, 500kpps) instead of xsk-plain unpaced; --producers N\n"
"                       (one value, default --queues) sets its producers.\n"
"    --send-opt OPT     add OPT to xtx-send's command line on the xtx path, e.g.\n"
"                       --send-opt=--target=1ms (repeat for several, up to 16). Not the\n"
"                       options xtx-compare sets itself (--dev, --dst-ip, --dst-mac,\n"
"                       --producers, --queues, --classes, --drop, --interval, --size,\n"
"                       --flows, --dst-port, --duration, --json).\n"
"    --shape-opt OPT    forward mode: add OPT to xtx-shape's command line, e.g.\n"
"                       --shape-opt=--deq-rt=1 (repeat for several, up to 16). Not the\n"
"                       options xtx-compare sets itself (--netns, --in, --out,\n"
"                       --classes, --rules, --json, --interval, --ready-file).\n"
"  Real interfaces:\n"
"    --dev IF           send on IF instead of making a testbed.\n"
"    --netns NS         IF is in network namespace NS.\n"
"    --dst-ip IP        the receiver's IPv4 address (required with --dev), in\n"
"                       198.18.0.0/15 unless allowed by --allow-dst or --allow-any-dst.\n"
"    --dst-mac MAC      the next hop's MAC address (required with --dev).\n"
"    --sink-dev IF      count on IF of this host (the other end of the link).\n"
"    --sink-netns NS    --sink-dev is in namespace NS.\n"
"    --sink HOST:PORT   count on another host, where 'xtx-compare serve' listens. Every\n"
"                       address HOST resolves to must pass the same check as --dst-ip,\n"
"                       except that loopback (127.0.0.0/8, ::1) is accepted: a control\n"
"                       connection, no load. Or:\n"
"    --sink PATH        a UNIX socket: serve's own on this host, or one that ssh -L\n"
"                       forwards to the receiver's (the way to reach another host).\n"
DSTGUARD_USAGE("                       ")
"                       Both are checked here (--dst-ip, --sink HOST) and passed on to\n"
"                       every sender xtx-compare starts, which checks again.\n"
"  Serve mode (on the receiving host):\n"
"    serve --dev IF     answer one controller at a time: start xtx-sink on IF when\n"
"                       asked, stop it and send its JSON back (docs/compare.md).\n"
"    --listen PATH      a UNIX socket to listen on, owner-only (0600): reach it from\n"
"                       the sending host with ssh -L, which authenticates. Or:\n"
"    --listen ADDR:PORT a TCP address. Anyone who reaches it can make this host count\n"
"                       (and drop, XDP) UDP traffic to the given ports on IF for up to\n"
"                       an hour: a management address only (serve warns).\n"
"    -h, --help         this text.\n"
"\n"
"OUTPUT\n"
"    Progress on stderr, one line per measurement. At the end, on stdout: the main\n"
"    table (one row per path, size and N) and the per-class table. Notes under the\n"
"    tables say what a '-' means and whether a fq leaf fell back to pfifo.\n"
"\n"
"    --json writes one object on one line: tool, mode, environment (kernel, CPU model and\n"
"    count, date, command line, interface, queues, AF_XDP copy or zero-copy mode, fq\n"
"    availability, saved qdisc), config (tree, leaves with their tc classid,\n"
"    configured and expected rates, tc commands), results (per path, size, N:\n"
"    medians, min and max of pps, bytes_per_s, cpu_ns_per_pkt, jain, delay, and per\n"
"    class, with its delay_us) and runs (every measurement with the sender's and the\n"
"    sink's summaries, and class_delay_ns: [leaf][p50, p99, p99.9]).\n"
"    kernel-mq-htb adds config.tc_commands_mq (mq and the tree once per queue),\n"
"    environment.qdisc_tx_queues, and per run queue_class_pkts: [queue][leaf] packets\n"
"    each queue's htb sent (tc -s class show at the end of the send time).\n"
"    Forward mode adds environment.fw_netns, fw_in_dev, fw_out_dev, qdisc_dev and\n"
"    shape_mode, config.rules_text, sender, rate and warmup_s, and per result and run\n"
"    mode \"forward\", offered_pps, forwarder_pkts, forwarder_drops (runs also the\n"
"    forwarder's whole summary: xtx-shape's JSON or tc -s -j qdisc show) and\n"
"    pps_vs_kernel_fwd_htb.\n"
"\n"
"EXIT STATUS\n"
"    0 every measurement succeeded; 1 a measurement or the setup failed (the tables\n"
"    show what was measured), or the qdisc could not be put back; 2 bad usage, or a\n"
"    --dst-ip or --sink HOST refused by the destination check (nothing is sent);\n"
"    130 interrupted (after cleaning up).\n"
"\n"
"EXAMPLES\n"
"    xtx-compare\n"
"    xtx-compare --classes docs/examples/demo.conf --producers 1,2,4,8 --size 128,1500 \\\n"
"                --runs 5 --json out.json --plot out.png\n"
"    xtx-compare --paths kernel-htb,xtx --duration 1 --runs 1\n"
"    xtx-compare --queues 2 --paths kernel-htb,kernel-mq-htb,xtx --flows 32 \\\n"
"                --classes docs/examples/compare-mq.conf --duration 3\n"
"    xtx-compare --mode forward --size 64 --flows 40\n"
"    xtx-compare --mode forward --classes c.conf --size 1514 --rate 700mbit --md f.md\n"
"    xtx-compare serve --dev ens1f1 --listen /run/xtx-compare.sock   # on the receiver\n"
"    ssh -N -L /tmp/rx.sock:/run/xtx-compare.sock root@receiver &    # on the sender\n"
"    xtx-compare --dev ens1f0 --dst-ip 198.18.1.2 --dst-mac 0c:42:a1:00:00:02 \\\n"
"                --sink /tmp/rx.sock\n"
"\n"
"NOTES\n"
"    Needs root (namespaces, tc, XDP, AF_XDP, raw sockets), iproute2 and, for --plot,\n"
"    gnuplot. The tools it runs (udp-send, pkt-send, xtx-send, xsk-plain, xtx-sink,\n"
"    xtx-shape) must be next to it. On a 2-core VM the senders, the sink and the kernel share\n"
"    two CPUs: compare ratios, not absolute rates. After SIGKILL the testbed (cmpXXXXX,\n"
"    a fresh name, owned by the killed process) stays until the next 'tools/testbed up'\n"
"    or 'tools/testbed gc' removes it. docs/compare.md has the details (how each figure\n"
"    is taken, the tc translation, real NICs).\n";

static struct opts o;
static struct env e;
static struct ctx x;
static bool qdisc_touched;

static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nRun '" PROG " --help' for the usage.\n");
	exit(2);
}

static void cleanup(void);

/* Exit 2 (after cleanup()) unless ip is an address the destination guard allows:
 * checked before anything is opened. */
static void refuse_dst(const char *ip)
{
	char msg[512];
	uint8_t a[16];
	int fam;

	if (dstguard_parse_addr(ip, &fam, a))
		snprintf(msg, sizeof(msg), "--dst-ip: '%s' is not an IP address", ip);
	else if (!dstguard_check(&o.guard, fam, a, "send to", msg, sizeof(msg)))
		return;
	fprintf(stderr, PROG ": %s\n", msg);
	cleanup();
	exit(2);
}

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

static unsigned parse_uint(const char *opt, const char *s, unsigned min, unsigned max)
{
	uint64_t v;

	if (cli_str_to_u64(s, 10, min, max, &v))
		die_usage("%s: '%s' is not a whole number from %u to %u", opt, s, min, max);
	return (unsigned)v;
}

static unsigned parse_list(const char *opt, const char *s, unsigned *out, unsigned min,
			   unsigned max)
{
	char buf[256], *save = NULL;
	unsigned n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == MAX_LIST)
			die_usage("%s: at most %d values", opt, MAX_LIST);
		out[n] = parse_uint(opt, t, min, max);
		for (unsigned i = 0; i < n; i++)
			if (out[i] == out[n])
				die_usage("%s: %u given twice", opt, out[n]);
		n++;
	}
	if (!n)
		die_usage("%s: give a comma-separated list like 1,2,4", opt);
	return n;
}

/* --paths of the mode (NULL: all of them). */
static void parse_paths(const char *s)
{
	bool fwd = o.mode == MODE_FORWARD;
	char buf[512], *save = NULL;

	/* kernel-mq-htb needs a multi-queue device: in the default set with --queues >= 2 */
	for (int p = 0; p < P__MAX; p++)
		o.path_on[p] = !s && path_defs[p].forward == fwd &&
			       (p != P_KERNEL_MQ_HTB || o.queues >= 2);
	if (!s)
		return;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int found = -1;

		for (int p = 0; p < P__MAX; p++)
			if (!strcmp(t, path_defs[p].name) && path_defs[p].forward == fwd)
				found = p;
		if (found < 0 && fwd)
			die_usage("--paths: unknown path '%s' for --mode forward (kernel-fwd-htb, "
				  "xtx-shape)", t);
		if (found < 0)
			die_usage("--paths: unknown path '%s' (kernel-htb, kernel-mq-htb, "
				  "kernel-noqueue, kernel-pfifo_fast, packet-htb, packet-bypass, xtx, "
				  "afxdp; kernel-fwd-htb and xtx-shape go with --mode forward)", t);
		if (found == P_KERNEL_MQ_HTB && o.queues < 2)
			die_usage("--paths kernel-mq-htb: mq needs a multi-queue device; give "
				  "--queues 2 or more (and, with --dev, an interface with as many "
				  "TX queues)");
		o.path_on[found] = true;
	}
}

/* A rate as xtx-send --rate reads it (units.h). Checked here so that a typo fails before
 * the testbed is made. */
static bool rate_ok(const char *s)
{
	uint64_t pps, Bps;

	return units_parse_rate(s, &pps, &Bps) == 0;
}

enum { O_CLASSES = 256, O_PRODUCERS, O_SIZE, O_FLOWS, O_BASE_PORT, O_PATHS, O_DURATION,
       O_RUNS, O_QUEUES, O_JSON, O_MD, O_PLOT, O_QUIET, O_DEV, O_NETNS, O_DST_IP, O_DST_MAC,
       O_SINK_DEV, O_SINK_NETNS, O_SINK, O_LISTEN, O_SNDBUF, O_MODE, O_RATE, O_SHAPE_OPT, O_SEND_OPT,
       O_ALLOW_DST, O_ALLOW_ANY_DST, O_HELP };

/* Which options were given, where a default depends on it or a mode refuses them. */
struct given {
	const char *paths;
	bool producers, queues, sndbuf;
};

/* --shape-opt OPT: not one of the options xtx-compare gives xtx-shape itself. */
static void add_shape_opt(const char *opt)
{
	static const char *const ours[] = { "--netns", "--in", "--out", "--classes", "--rules",
		"--json", "--interval", "--ready-file" };

	for (unsigned i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
		size_t l = strlen(ours[i]);

		if (!strncmp(opt, ours[i], l) && (opt[l] == '\0' || opt[l] == '='))
			die_usage("--shape-opt %s: xtx-compare sets %s itself", opt, ours[i]);
	}
	if (o.nshape_opts == MAX_LIST)
		die_usage("--shape-opt: at most %d", MAX_LIST);
	o.shape_opts[o.nshape_opts++] = opt;
}

/* --send-opt OPT: not one of the options xtx-compare gives xtx-send itself. */
static void add_send_opt(const char *opt)
{
	static const char *const ours[] = { "--dev", "--dst-ip", "--dst-mac", "--producers",
		"--queues", "--classes", "--drop", "--interval", "--size", "--flows",
		"--dst-port", "--duration", "--json", "--rate" };

	for (unsigned i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
		size_t l = strlen(ours[i]);

		if (!strncmp(opt, ours[i], l) && (opt[l] == '\0' || opt[l] == '='))
			die_usage("--send-opt %s: xtx-compare sets %s itself", opt, ours[i]);
	}
	if (strncmp(opt, "--", 2))
		die_usage("--send-opt %s: expected an xtx-send option, --NAME or --NAME=VALUE", opt);
	if (o.nsend_opts == MAX_LIST)
		die_usage("--send-opt: at most %d", MAX_LIST);
	o.send_opts[o.nsend_opts++] = opt;
}

/* The options whose value is kept as given. */
static const struct { int opt; const char **val; } kept[] = {
	{ O_CLASSES, &o.classes }, { O_JSON, &o.json_file }, { O_MD, &o.md_file },
	{ O_PLOT, &o.plot_file }, { O_DEV, &o.dev }, { O_NETNS, &o.netns },
	{ O_DST_IP, &o.dst_ip }, { O_DST_MAC, &o.dst_mac }, { O_SINK_DEV, &o.sink_dev },
	{ O_SINK_NETNS, &o.sink_netns }, { O_SINK, &o.sink_remote }, { O_LISTEN, &o.listen },
};

/* One option c of getopt_long(), its value in optarg. */
static void parse_option(int c, char **argv, struct given *g)
{
	char err[512];

	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (kept[i].opt == c) {
			*kept[i].val = optarg;
			return;
		}
	switch (c) {
	case O_PRODUCERS:
		o.nproducers = parse_list("--producers", optarg, o.producers, 1, 256);
		g->producers = true;
		break;
	case O_SIZE:
		o.nsizes = parse_list("--size", optarg, o.sizes, 60, 1514);
		break;
	case O_FLOWS: o.flows = parse_uint("--flows", optarg, 1, 65536); break;
	case O_BASE_PORT: o.base_port = parse_uint("--base-port", optarg, 1, 65535); break;
	case O_PATHS: g->paths = optarg; break;
	case O_DURATION:
		if (cli_str_to_double(optarg, 0.2, 3600, &o.duration))
			die_usage("--duration: '%s' is not a number of seconds from 0.2 to 3600",
				  optarg);
		break;
	case O_RUNS: o.runs = parse_uint("--runs", optarg, 1, 100); break;
	case O_QUEUES:
		o.queues = parse_uint("--queues", optarg, 1, 64);
		g->queues = true;
		break;
	case O_QUIET: o.quiet = true; break;
	case O_SNDBUF:
		o.sndbuf = parse_uint("--sndbuf", optarg, 0, 1u << 30);
		if (o.sndbuf && o.sndbuf < 4096)
			die_usage("--sndbuf: give 0 (the system default) or 4096 .. 2^30 bytes");
		g->sndbuf = true;
		break;
	case O_MODE:
		if (!strcmp(optarg, "send"))
			o.mode = MODE_SEND;
		else if (!strcmp(optarg, "forward"))
			o.mode = MODE_FORWARD;
		else
			die_usage("--mode: '%s' is neither send nor forward", optarg);
		break;
	case O_RATE:
		if (!rate_ok(optarg))
			die_usage("--rate: '%s' is not a rate like 700mbit, 1gbit or 500kpps",
				  optarg);
		o.rate = optarg;
		break;
	case O_SHAPE_OPT: add_shape_opt(optarg); break;
	case O_SEND_OPT: add_send_opt(optarg); break;
	case O_ALLOW_DST:
		if (dstguard_add(&o.guard, optarg, err, sizeof(err)))
			die_usage("%s", err);
		o.allow_dst[o.nallow_dst++] = optarg;
		break;
	case O_ALLOW_ANY_DST:
		dstguard_allow_any(&o.guard);
		o.allow_any_dst = true;
		break;
	case 'h':
	case O_HELP:
		fputs(usage_text, stdout);
		exit(0);
	default:
		die_usage("unknown option or missing value: '%s'", argv[optind - 1]);
	}
}

/* --mode forward's defaults, and the options it refuses; in send mode, the forward
 * options refused. */
static void check_mode(const struct given *g)
{
	if (o.mode != MODE_FORWARD) {
		if (o.rate)
			die_usage("--rate goes with --mode forward (--mode send offers what each "
				  "sender can)");
		if (o.nshape_opts)
			die_usage("--shape-opt goes with --mode forward (xtx-shape is its "
				  "forwarder)");
		return;
	}
	if (o.nsend_opts)
		die_usage("--send-opt goes with --mode send (the xtx path's xtx-send); in "
			  "forward mode xtx-send is the load for both paths");
	/* Two receive queues by default: xtx-shape then has a receive worker per queue and
	 * the sender spreads its flows over both, as tools/bench/forward.sh. */
	if (!g->queues)
		o.queues = 2;
	if (o.dev || o.netns || o.dst_ip || o.dst_mac || o.sink_dev || o.sink_netns ||
	    o.sink_remote)
		die_usage("--mode forward makes its own three-namespace testbed; --dev, --netns, "
			  "--dst-ip, --dst-mac, --sink-dev, --sink-netns and --sink go with "
			  "--mode send");
	if (o.plot_file)
		die_usage("--plot goes with --mode send (forward mode has no N axis)");
	if (g->sndbuf)
		die_usage("--sndbuf goes with --mode send (forward mode's senders are AF_XDP)");
	if (g->producers && !o.rate)
		die_usage("--producers goes with --rate in --mode forward (the unpaced sender, "
			  "xsk-plain, has one thread per queue)");
	if (!g->producers)
		o.producers[0] = o.queues, o.nproducers = 1;
	if (o.nproducers > 1)
		die_usage("--mode forward: give one --producers value (xtx-send's producers)");
	if (o.flows < o.queues)
		die_usage("--flows %u < --queues %u: every sender queue needs a flow", o.flows,
			  o.queues);
}

/* Every path here needs an interface: the null device has no qdisc and no receiver. */
static void refuse_null(const char *opt, const char *dev)
{
	if (dev && xtx_dev__is_null(dev))
		die_usage("%s %s: xtx-compare needs a real interface; '%s' names xtx's "
			  "built-in null device, which has no qdisc and no receiver (xtx-send "
			  "--dev null measures xtx alone)", opt, dev, dev);
}

/* Ports and threads fit the flows; --dev has its destination and one receiver. */
static void check_where(void)
{
	refuse_null("--dev", o.dev);
	refuse_null("--sink-dev", o.sink_dev);
	if (o.base_port + o.flows - 1 > 65535)
		die_usage("--base-port %u + --flows %u goes past port 65535", o.base_port, o.flows);
	for (unsigned i = 0; i < o.nproducers; i++)
		if (o.producers[i] > o.flows)
			die_usage("--producers %u > --flows %u: every sender thread needs a flow of "
				  "its own; raise --flows", o.producers[i], o.flows);
	if (o.dev) {
		if (!o.dst_ip || !o.dst_mac)
			die_usage("--dev needs --dst-ip (the receiver's address) and --dst-mac (the "
				  "next hop's MAC: see 'ip neigh show dev %s')", o.dev);
		if (!o.sink_dev == !o.sink_remote)
			die_usage("--dev needs one receiver: --sink-dev IF (an interface of this "
				  "host) or --sink HOST:PORT ('xtx-compare serve' on the receiver)");
	} else if (o.netns || o.dst_ip || o.dst_mac || o.sink_dev || o.sink_netns ||
		   o.sink_remote) {
		die_usage("--netns, --dst-ip, --dst-mac, --sink-dev, --sink-netns and --sink go "
			  "with --dev; without --dev a testbed is made");
	}
	if (o.sink_netns && !o.sink_dev)
		die_usage("--sink-netns goes with --sink-dev");
	if (o.dst_ip)
		refuse_dst(o.dst_ip);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "classes", required_argument, NULL, O_CLASSES },
		{ "producers", required_argument, NULL, O_PRODUCERS },
		{ "size", required_argument, NULL, O_SIZE },
		{ "flows", required_argument, NULL, O_FLOWS },
		{ "base-port", required_argument, NULL, O_BASE_PORT },
		{ "paths", required_argument, NULL, O_PATHS },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "runs", required_argument, NULL, O_RUNS },
		{ "queues", required_argument, NULL, O_QUEUES },
		{ "json", required_argument, NULL, O_JSON },
		{ "md", required_argument, NULL, O_MD },
		{ "plot", required_argument, NULL, O_PLOT },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "dev", required_argument, NULL, O_DEV },
		{ "netns", required_argument, NULL, O_NETNS },
		{ "dst-ip", required_argument, NULL, O_DST_IP },
		{ "dst-mac", required_argument, NULL, O_DST_MAC },
		{ "sink-dev", required_argument, NULL, O_SINK_DEV },
		{ "sink-netns", required_argument, NULL, O_SINK_NETNS },
		{ "sink", required_argument, NULL, O_SINK },
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "sndbuf", required_argument, NULL, O_SNDBUF },
		{ "mode", required_argument, NULL, O_MODE },
		{ "rate", required_argument, NULL, O_RATE },
		{ "shape-opt", required_argument, NULL, O_SHAPE_OPT },
		{ "send-opt", required_argument, NULL, O_SEND_OPT },
		{ "allow-dst", required_argument, NULL, O_ALLOW_DST },
		{ "allow-any-dst", no_argument, NULL, O_ALLOW_ANY_DST },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct given g = { .paths = NULL };
	int c;

	o.producers[0] = 1, o.producers[1] = 2, o.producers[2] = 4, o.nproducers = 3;
	o.sizes[0] = 128, o.nsizes = 1;
	o.flows = 16;
	o.base_port = 9000;
	o.runs = 3;
	o.queues = 1;
	o.sndbuf = SNDBUF_BYTES;
	o.duration = 2;
	if (argc > 1 && !strcmp(argv[1], "serve")) {
		o.serve = true;
		argv++;
		argc--;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1)
		parse_option(c, argv, &g);
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (o.serve) {
		if (o.nallow_dst || o.allow_any_dst)
			die_usage("serve: --allow-dst and --allow-any-dst go with the sending side "
				  "(serve only counts)");
		if (!o.dev || !o.listen)
			die_usage("serve: --dev IF (the interface to count on) and --listen "
				  "ADDR:PORT (an address of a management network, e.g. "
				  "10.0.0.2:7807) are required");
		refuse_null("serve: --dev", o.dev);
		return;
	}
	parse_paths(g.paths);
	check_mode(&g);
	check_where();
	if (o.plot_file) {
		size_t n = strlen(o.plot_file);

		if (n < 5 || strcmp(o.plot_file + n - 4, ".png"))
			die_usage("--plot: '%s' should end in .png", o.plot_file);
	}
}

/* --- environment ------------------------------------------------------------------- */

static void find_tools(void)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0) {
		fprintf(stderr, PROG ": cannot find my own path (/proc/self/exe): %s\n",
			strerror(errno));
		exit(1);
	}
	self[n] = 0;
	slash = strrchr(self, '/');
	*slash = 0;
	snprintf(e.bindir, sizeof(e.bindir), "%s", self);
	/* the source tree's (build/VARIANT/bin/..), else make install's (PREFIX/sbin/..) */
	snprintf(e.testbed, sizeof(e.testbed), "%s/../../../tools/testbed", self);
	if (access(e.testbed, X_OK))
		snprintf(e.testbed, sizeof(e.testbed), "%s/../lib/xtx/testbed", self);
	if (access(e.testbed, X_OK))
		e.testbed[0] = 0;
}

static void need_tool(const char *name)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", e.bindir, name);
	if (access(p, X_OK)) {
		fprintf(stderr, PROG ": %s not found next to me (%s); build it with 'make'\n",
			name, p);
		exit(1);
	}
}

static void read_environment(int argc, char **argv)
{
	struct utsname u;
	FILE *f;
	char line[512];
	time_t now = time(NULL);
	size_t off = 0;

	if (uname(&u) == 0)
		snprintf(e.kernel, sizeof(e.kernel), "%s %s %s %s", u.sysname, u.release,
			 u.version, u.machine);
	f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && c) {
			c += 2;
			c[strcspn(c, "\n")] = 0;
			snprintf(e.cpu_model, sizeof(e.cpu_model), "%s", c);
			break;
		}
	}
	if (f)
		fclose(f);
	e.ncpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	strftime(e.started_utc, sizeof(e.started_utc), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (int i = 0; i < argc && off + 2 < sizeof(e.cmdline); i++) {
		int k = snprintf(e.cmdline + off, sizeof(e.cmdline) - off, "%s%s", i ? " " : "",
				 i ? argv[i] : PROG);

		if (k > 0)
			off += (size_t)k;
	}
	snprintf(e.xtx_mode, sizeof(e.xtx_mode), "-");
	snprintf(e.afxdp_mode, sizeof(e.afxdp_mode), "-");
}

/* tools/testbed up --new cmp: a testbed with a name no other run has, owned by this
 * process (removed by the next 'testbed up' or 'gc' if we die without removing it);
 * fills the name, the tx/rx names and addresses. */
static int testbed_up(void)
{
	/* The lines of its description we use: KEY=VALUE. */
	const struct { const char *key; char *val; size_t len; } keys[] = {
		{ "NAME", e.tb_name, sizeof(e.tb_name) },
		{ "TX_NS", e.tx_netns, sizeof(e.tx_netns) },
		{ "RX_NS", e.rx_netns, sizeof(e.rx_netns) },
		{ "TX_DEV", e.tx_dev, sizeof(e.tx_dev) },
		{ "RX_DEV", e.rx_dev, sizeof(e.rx_dev) },
		{ "RX_IP", e.dst_ip, sizeof(e.dst_ip) },
		{ "TX_NEXTHOP_MAC", e.dst_mac, sizeof(e.dst_mac) },
		{ "FW_NS", e.fw_netns, sizeof(e.fw_netns) },
		{ "FW_IN_DEV", e.fw_in_dev, sizeof(e.fw_in_dev) },
		{ "FW_OUT_DEV", e.fw_out_dev, sizeof(e.fw_out_dev) },
	};
	char out[4096], q[16], owner[16];
	char *argv[] = { e.testbed, (char *)"up", (char *)"--new", (char *)"cmp",
			 (char *)"--owner", owner, (char *)"--queues", q,
			 o.mode == MODE_FORWARD ? (char *)"--three" : NULL, NULL };
	int rc;

	snprintf(owner, sizeof(owner), "%d", (int)getpid());
	snprintf(q, sizeof(q), "%u", o.queues);
	e.tb_name[0] = 0;
	rc = proc_run(NULL, argv, 60, out, sizeof(out));
	if (rc) {
		fprintf(stderr, PROG ": tools/testbed up --new cmp failed (%d): %s\n", rc, out);
		return -1;
	}
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		char *v = strchr(l, '=');

		if (!v)
			continue;
		*v++ = 0;
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(l, keys[i].key)) {
				snprintf(keys[i].val, keys[i].len, "%s", v);
				break;
			}
	}
	if (!e.tx_netns[0] || !e.rx_netns[0] || !e.tx_dev[0] || !e.rx_dev[0] || !e.dst_ip[0] ||
	    !e.dst_mac[0] || (o.mode == MODE_FORWARD && (!e.fw_netns[0] || !e.fw_in_dev[0] ||
							  !e.fw_out_dev[0]))) {
		fprintf(stderr, PROG ": tools/testbed up %s printed no complete description\n",
			e.tb_name);
		return -1;
	}
	return 0;
}

static void cleanup(void)
{
	bool same;

	kill_all_children();
	if (qdisc_touched && e.qdisc_ok) {
		qdisc_restore(&x, &same);
		if (!same)
			fprintf(stderr, PROG ": WARNING: the qdisc of %s differs from the state "
				"saved at start; check 'tc qdisc show dev %s'\n", e.qd_dev,
				e.qd_dev);
	}
	if (e.remote_fd >= 0) {
		remote_bye(e.remote_fd);
		e.remote_fd = -1;
	}
	if (e.tb_name[0] && e.testbed[0]) {
		char out[1024];
		char *argv[] = { e.testbed, (char *)"down", e.tb_name, NULL };

		if (proc_run(NULL, argv, 60, out, sizeof(out)))
			fprintf(stderr, PROG ": removing testbed %s failed: %s; run 'tools/testbed "
				"down %s'\n", e.tb_name, out, e.tb_name);
		e.tb_name[0] = 0;
	}
	if (e.tmpdir[0]) {
		DIR *d = opendir(e.tmpdir);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char p[512];

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", e.tmpdir, de->d_name);
			unlink(p);
		}
		if (d)
			closedir(d);
		rmdir(e.tmpdir);
		e.tmpdir[0] = 0;
	}
}

static unsigned count_leaves(const struct xtx_sched_config *cfg)
{
	unsigned n = xtx_sched_config__class_count(cfg), leaves = 0;

	for (unsigned i = 0; i < n; i++)
		leaves += xtx_sched_config__is_leaf(cfg, xtx_sched_config__class(cfg, i)->handle) == 1;
	return leaves;
}

/* One measurement, by the mode of its path. */
static void measure_one(struct meas *m, enum path_id p, unsigned n, unsigned size, unsigned run)
{
	if (meas_init(&x, m, p, n, size, run))
		return;
	if (path_defs[p].forward)
		measure_forward(&x, p, size, m);
	else
		measure_send(&x, p, n, size, m);
}

static void fmt_secs(double s, char *buf, size_t len)
{
	if (s >= 60)
		snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%ds", (int)(s + 0.5));
}

/* --- setup: each step returns 0, or the exit status after saying why ---------------- */

static void need_tools(void)
{
	if (o.path_on[P_KERNEL_HTB] || o.path_on[P_KERNEL_MQ_HTB] || o.path_on[P_KERNEL_NOQUEUE] ||
	    o.path_on[P_KERNEL_PFIFO_FAST])
		need_tool("udp-send");
	if (o.path_on[P_PACKET_HTB] || o.path_on[P_PACKET_BYPASS])
		need_tool("pkt-send");
	if (o.path_on[P_XTX])
		need_tool("xtx-send");
	if (o.path_on[P_AFXDP])
		need_tool("xsk-plain");
	if (!o.sink_remote)
		need_tool("xtx-sink");
	if (o.path_on[P_FWD_XTX_SHAPE])
		need_tool("xtx-shape");
	if (o.mode == MODE_FORWARD)
		need_tool(o.rate ? "xtx-send" : "xsk-plain");
}

/* The tree and its expected rates. */
static int setup_tree(void)
{
	char err[2048];

	x.cfg = o.classes ? xtx_sched_config__parse_file(o.classes, err, sizeof(err)) :
			    xtx_sched_config__parse_string(builtin_tree, "built-in tree", err,
							   sizeof(err));
	if (!x.cfg) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	x.expected_Bps = calloc(xtx_sched_config__class_count(x.cfg), sizeof(double));
	x.capped = calloc(xtx_sched_config__class_count(x.cfg), sizeof(int));
	if (!x.expected_Bps || !x.capped || tc_expected_rates(x.cfg, x.expected_Bps, x.capped)) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (o.mode == MODE_FORWARD && count_leaves(x.cfg) > 1 && o.flows > FWD_MAX_RULES) {
		/* one xtx-shape rule per flow (fwd_rules_write); said before any setup */
		fprintf(stderr, PROG ": --mode forward: %u flows need %u xtx-shape rules (one per "
			"flow), more than its %d; give --flows %d or fewer\n", o.flows, o.flows,
			FWD_MAX_RULES, FWD_MAX_RULES);
		return 2;
	}
	return 0;
}

/* The temporary directory, and the class file the senders read. */
static int setup_files(void)
{
	FILE *f;

	snprintf(e.tmpdir, sizeof(e.tmpdir), "/tmp/xtx-compare.XXXXXX");
	if (!mkdtemp(e.tmpdir)) {
		fprintf(stderr, PROG ": cannot make a temporary directory in /tmp: %s\n",
			strerror(errno));
		e.tmpdir[0] = 0;
		return 1;
	}
	if (o.classes) {
		if (!realpath(o.classes, e.classes_path))
			snprintf(e.classes_path, sizeof(e.classes_path), "%s", o.classes);
		return 0;
	}
	snprintf(e.classes_path, sizeof(e.classes_path), "%s/classes.conf", e.tmpdir);
	f = fopen(e.classes_path, "we");
	if (!f || fputs(builtin_tree, f) < 0 || fclose(f)) {
		fprintf(stderr, PROG ": cannot write %s\n", e.classes_path);
		return 1;
	}
	return 0;
}

/* Where to send and count: --dev with a local or a remote sink, or a testbed of ours. */
static int setup_where(void)
{
	char err[2048];
	int rc;

	if (!o.dev) {
		if (!e.testbed[0]) {
			fprintf(stderr, PROG ": tools/testbed not found (looked next to the source "
				"tree of %s); use --dev with --sink-dev on interfaces you made\n",
				e.bindir);
			return 1;
		}
		if (!o.quiet)
			fprintf(stderr, PROG ": making a testbed (tools/testbed up)\n");
		if (testbed_up())
			return 1;
		refuse_dst(e.dst_ip);	/* tools/testbed's: in 198.18.0.0/15 */
		return 0;
	}
	snprintf(e.tx_dev, sizeof(e.tx_dev), "%s", o.dev);
	snprintf(e.tx_netns, sizeof(e.tx_netns), "%s", o.netns ? o.netns : "");
	snprintf(e.dst_ip, sizeof(e.dst_ip), "%s", o.dst_ip);
	snprintf(e.dst_mac, sizeof(e.dst_mac), "%s", o.dst_mac);
	if (o.sink_dev) {
		snprintf(e.rx_dev, sizeof(e.rx_dev), "%s", o.sink_dev);
		snprintf(e.rx_netns, sizeof(e.rx_netns), "%s", o.sink_netns ? o.sink_netns : "");
		return 0;
	}
	e.remote_fd = remote_connect(o.sink_remote, &o.guard, err, sizeof(err));
	if (e.remote_fd < 0) {
		rc = e.remote_fd == -EACCES ? 2 : 1;
		e.remote_fd = -1;
		fprintf(stderr, PROG ": --sink %s: %s\n", o.sink_remote, err);
		return rc;
	}
	return 0;
}

/* The device whose qdisc the paths change (the sender's in send mode, the forwarder's
 * egress in forward mode), the tree's tc commands for it, xtx-shape's rules, and the
 * qdisc saved: the paths that change it are refused unless it can be put back. */
static int setup_qdisc(void)
{
	char err[2048];
	bool any = false;

	snprintf(e.qd_netns, sizeof(e.qd_netns), "%s",
		 o.mode == MODE_FORWARD ? e.fw_netns : e.tx_netns);
	snprintf(e.qd_dev, sizeof(e.qd_dev), "%s",
		 o.mode == MODE_FORWARD ? e.fw_out_dev : e.tx_dev);
	if (tc_plan__build(x.cfg, e.qd_dev, o.base_port, o.flows, &x.plan, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	if (o.path_on[P_KERNEL_MQ_HTB]) {
		/* mq makes a class per TX queue of the device: the plan covers all of them */
		if (qdisc_tx_queues(&x, &e.qd_tx_queues, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		if (e.qd_tx_queues < 2) {
			fprintf(stderr, PROG ": kernel-mq-htb: %s has %u TX queue; mq needs a "
				"multi-queue device\n", e.qd_dev, e.qd_tx_queues);
			return 1;
		}
		if (tc_plan__build_mq(x.cfg, e.qd_dev, o.base_port, o.flows, e.qd_tx_queues,
				      &x.mq_plan, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 2;
		}
	}
	if (o.mode == MODE_FORWARD) {
		snprintf(e.rules_path, sizeof(e.rules_path), "%s/rules", e.tmpdir);
		if (fwd_rules_write(&x, e.rules_path, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 2;
		}
	}
	if (qdisc_save(&x, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (e.qdisc_ok)
		return 0;
	for (int p = 0; p < P__MAX; p++)
		any |= o.path_on[p] && path_defs[p].qdisc != QD_NONE;
	if (any) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	return 0;
}

/* --- the measurements ---------------------------------------------------------------- */

static unsigned count_measurements(void)
{
	unsigned total = 0;

	for (int p = 0; p < P__MAX; p++)
		if (o.path_on[p])
			total += o.nsizes * (path_defs[p].per_producers ? o.nproducers : 1);
	return total * o.runs;
}

static void say_plan(unsigned total)
{
	char eta[32];

	/* forward: warm-up, xtx-shape's start and the stops come on top */
	fmt_secs(total * (o.duration + (o.mode == MODE_FORWARD ? 3.5 : 1.2)), eta, sizeof(eta));
	fprintf(stderr, PROG ": %s%s%s %s -> %s%s%s, %u measurements of %g s "
		"(%u round%s), about %s\n", e.tb_name[0] ? "testbed " : "",
		e.tb_name, e.tb_name[0] ? ":" : "", e.tx_dev,
		e.remote_fd >= 0 ? o.sink_remote : e.rx_dev,
		e.rx_netns[0] ? " in " : "", e.rx_netns, total, o.duration, o.runs,
		o.runs == 1 ? "" : "s", eta);
}

/* The progress line of measurement done of total (round r), t0 the start of the first. */
static void say_progress(const struct meas *m, unsigned done, unsigned total, unsigned r,
			 double t0)
{
	char left[32];
	double el = mono_s() - t0;

	fmt_secs(el / done * (total - done), left, sizeof(left));
	fprintf(stderr, PROG ": [%*u/%u] run %u/%u %4u B N=%-3u %-17s ", total >= 100 ? 3 : 2,
		done, total, r, o.runs, m->size, m->producers, path_defs[m->path].name);
	if (m->ok && path_defs[m->path].forward)
		fprintf(stderr, "%8.3f Mpps  offered %.3f Mpps  (%s left)\n", m->pps / 1e6,
			m->offered_pps / 1e6, left);
	else if (m->ok)
		fprintf(stderr, "%8.3f Mpps  %6.0f ns/pkt  (%s left)\n", m->pps / 1e6,
			m->cpu_ns_per_pkt, left);
	else
		fprintf(stderr, "FAILED: %s\n", m->error);
}

/* Interleaved: every configuration once per round, K rounds, into ms[]. Returns how
 * many were measured; *failed of them failed. Stops early on a signal (g_stop 1) or a
 * qdisc that could not be put back (g_stop 2). */
static unsigned measure_all(struct meas *ms, unsigned total, unsigned *failed)
{
	unsigned done = 0;
	double t0 = mono_s();

	for (unsigned r = 1; r <= o.runs && !g_stop; r++)
		for (unsigned si = 0; si < o.nsizes && !g_stop; si++)
			for (unsigned ni = 0; ni < o.nproducers && !g_stop; ni++)
				for (int p = 0; p < P__MAX && !g_stop; p++) {
					struct meas *m = &ms[done];

					if (!o.path_on[p] || (!path_defs[p].per_producers && ni))
						continue;
					if (path_defs[p].qdisc != QD_NONE)
						qdisc_touched = true;
					measure_one(m, (enum path_id)p, o.producers[ni], o.sizes[si], r);
					done++;
					if (g_stop)
						break;
					if (!o.quiet || !m->ok)
						say_progress(m, done, total, r, t0);
					if (!m->ok)
						(*failed)++;
					if (!m->qdisc_restored) {
						fprintf(stderr, PROG ": the qdisc of %s could not be put "
							"back as it was; stopping. Saved state:\n%s",
							e.qd_dev, e.saved_qdisc);
						g_stop = 2;
					}
				}
	return done;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct meas *ms = NULL;
	unsigned total, done, failed = 0;
	int rc;

	e.remote_fd = -1;
	parse_args(argc, argv);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o.serve)
		return serve_main(&o);
	if (geteuid() != 0) {
		fprintf(stderr, PROG ": must run as root (network namespaces, tc, XDP, AF_XDP, raw "
			"sockets); retry with sudo\n");
		return 1;
	}
	find_tools();
	read_environment(argc, argv);
	need_tools();
	x.o = &o;
	x.e = &e;
	if ((rc = setup_tree()) || (rc = setup_files()) || (rc = setup_where()) ||
	    (rc = setup_qdisc())) {
		cleanup();
		return rc;
	}
	total = count_measurements();
	ms = calloc(total, sizeof(*ms));
	if (!ms) {
		fprintf(stderr, PROG ": out of memory\n");
		cleanup();
		return 1;
	}
	if (!o.quiet)
		say_plan(total);
	done = measure_all(ms, total, &failed);

	rc = g_stop == 1 ? 130 : g_stop == 2 || failed ? 1 : 0;
	if (rc == 130)
		fprintf(stderr, PROG ": interrupted; cleaning up\n");
	kill_all_children();
	if (done && rc != 130)
		report_all(&x, ms, done);
	cleanup();
	if (failed)
		fprintf(stderr, PROG ": %u of %u measurements failed (see above)\n", failed, done);
	for (unsigned i = 0; i < done; i++)
		meas_free(&ms[i]);
	free(ms);
	tc_plan__free(&x.plan);
	tc_plan__free(&x.mq_plan);
	free(x.expected_Bps);
	free(x.capped);
	xtx_sched_config__free(x.cfg);
	return rc;
}
