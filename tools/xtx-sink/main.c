/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx-sink - count what arrives on an interface with an XDP program: packets and bytes
 * per UDP destination port, sequence order and one-way delay of xtx test payloads.
 * `xtx-sink --help` is the manual. This file: options, signals, the run loop; attach.c
 * and report.c do the rest (sink.h).
 *
 * Signals: SIGINT, SIGTERM and SIGHUP are blocked except inside ppoll() in the run loop,
 * where their handler only sets `stop`; so they cannot interrupt setup halfway, and the
 * loop sees every one of them without a race. main() then detaches and reports.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xtx/xtx.h>

#include "sink.h"
#include "cli.h"
#include "stopsig.h"
#include "xdpattach.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static void usage(FILE *out)
{
	fprintf(out,
"NAME\n"
"    xtx-sink - count UDP test traffic arriving on an interface, with XDP\n"
"\n"
"SYNOPSIS\n"
"    xtx-sink --dev IF [--netns NS] [--duration S] [--interval S] [--ports A-B]\n"
"             [--delay-group A-B]... [--delay-mod M] [--json] [--skb-mode] [--pass]\n"
"             [--ready-file F]\n"
"             [--verbose]\n"
"\n"
"DESCRIPTION\n"
"    Attaches the xtx_sink XDP program to IF (native mode; if that fails, skb/generic\n"
"    mode, with a message), counts until the duration ends or SIGINT/SIGTERM/SIGHUP\n"
"    arrives, detaches, and prints a summary on stdout. While it runs, a line per\n"
"    interval goes to stderr.\n"
"\n"
"    Every frame is put into one class: matched (UDP to a destination port within\n"
"    --ports), udp_other_port, ipv4_other, ipv6_other (not UDP), non_ip, fragment,\n"
"    truncated, malformed. Ethernet with up to 2 VLAN tags, IPv4 and IPv6 (with up to\n"
"    4 extension headers) are parsed. Matched frames are counted per port and get the\n"
"    verdict XDP_DROP (--pass: XDP_PASS); all other frames go to the stack (XDP_PASS),\n"
"    so ARP and neighbour discovery keep working.\n"
"\n"
"    A matched frame whose UDP payload starts with the xtx test payload\n"
"    (include/xtx/payload.h: magic 'xtx1', flow, seq, tstamp_ns) is checked for order\n"
"    per destination port: in_order (seq >= expected next; a jump ahead also counts a\n"
"    gap and its skipped seqs), late (seq below the expected one, first seen),\n"
"    duplicate (seen before), old (more than 64 behind: late or duplicate). A flow's\n"
"    sequence starts at 0. If tstamp_ns != 0 the one-way delay, receive time minus\n"
"    tstamp_ns on CLOCK_MONOTONIC, goes into a histogram (16 sub-buckets per power of\n"
"    two: percentiles within 3.2%%). Sender and sink must run on the same host.\n"
"\n"
"    Bytes are frame lengths as XDP sees them (Ethernet header up to the end of the\n"
"    frame, no FCS); Mbit/s = bytes * 8 / seconds / 1e6.\n"
"\n"
"    The program is attached through libxdp, so it can share IF with other XDP\n"
"    programs (libxdp dispatcher); where the kernel lacks that, it is attached alone.\n"
"    A stale xtx_sink program that a killed earlier run left on IF is removed first;\n"
"    a lock (/run/xtx-sink/) keeps a second live xtx-sink off the same interface.\n"
"\n"
"OPTIONS\n"
"    -d, --dev IF         interface to attach to (required)\n"
"    -n, --netns NS       enter network namespace NS (a name from 'ip netns list', or\n"
"                         a path such as /proc/PID/ns/net) before anything else\n"
"    -t, --duration S     stop after S seconds (decimals allowed); 0 = until a signal\n"
"                         (default 0)\n"
"    -i, --interval S     seconds between stderr lines; 0 = none (default 1)\n"
"    -p, --ports A-B      matched UDP destination ports, inclusive; A alone = one port\n"
"                         (default 0-65535)\n"
"        --delay-group A-B\n"
"                         ports (within --ports, in no other group) whose one-way\n"
"                         delay also goes into a histogram of their own, e.g. one\n"
"                         class's flows; repeatable, up to 8 groups\n"
"        --delay-mod M    instead of --delay-group: M groups (2 to 8), group g\n"
"                         holding the ports A + g, A + g + M, ... of --ports A-B:\n"
"                         the leaves of a tree whose flow i (port A + i) is in leaf\n"
"                         i mod M, as in xtx-send and xtx-compare\n"
"    -j, --json           summary as one JSON object (see OUTPUT)\n"
"    -S, --skb-mode       attach in skb (generic) mode only\n"
"        --pass           give matched frames XDP_PASS instead of XDP_DROP\n"
"    -r, --ready-file F   once attached, write F (pid=, mode=, ifindex= lines; written\n"
"                         to a temporary name, then renamed); removed at exit\n"
"    -v, --verbose        show libbpf/libxdp informational messages\n"
"    -h, --help           this text\n"
"\n"
"OUTPUT\n"
"    Interval line (stderr): elapsed seconds, matched pkt/s and Mbit/s in the\n"
"    interval, matched total, other frames in the interval.\n"
"\n"
"    --json prints one object: dev, netns, mode (native|skb), xdp_dispatcher (true if\n"
"    attached through libxdp's dispatcher, false if alone), action (drop|pass),\n"
"    duration_s (from the start of counting, just after the attach, to its end,\n"
"    just before the detach: frames that arrive during the attach or the detach are\n"
"    counted but fall outside it), arrival_s (from the first matched frame to the\n"
"    last: the time the counts cover, for rates; n frames span n - 1 gaps; 0 with\n"
"    fewer than two), first_ns, last_ns (their arrival times, CLOCK_MONOTONIC, 0\n"
"    without frames), port_lo, port_hi; pkts, bytes (matched),\n"
"    payload_pkts; in_order, out_of_order (= late + duplicates + old), late,\n"
"    duplicates, old, gaps, gap_seqs (sums over ports); delay_ns {samples, negative\n"
"    (stamped in the future, not in the histogram), p50, p99, p999, min, max, mean;\n"
"    null without samples}; delay_groups [{port_lo, port_hi, step, delay_ns {as\n"
"    above}}], one per --delay-group in the order given (step 1) or per --delay-mod\n"
"    group in order of g (ports port_lo, port_lo + step, ... port_hi; step M);\n"
"    other {CLASS: {pkts, bytes}} for every\n"
"    class but matched;\n"
"    per_port [{port, pkts, bytes, in_order, out_of_order, late, duplicates, old,\n"
"    gaps, gap_seqs, next_seq}] for every port in range with packets, ascending.\n"
"\n"
"EXIT STATUS\n"
"    0 counted and detached; 1 an error (stderr says what and what to do); 2 bad\n"
"    usage.\n"
"\n"
"EXAMPLES\n"
"    eval \"$(tools/testbed up t1)\"\n"
"    xtx-sink --netns \"$RX_NS\" --dev rx0 --ports 5000-5099 --duration 5 --json\n"
"    xtx-sink -n \"$RX_NS\" -d rx0 -r /tmp/sink.ready > sink.json & ...; kill -INT $!\n"
"\n"
"NOTES\n"
"    Needs root (CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON; CAP_SYS_ADMIN for --netns).\n"
"    Order state is one per port, shared by all CPUs under a lock; counters are\n"
"    per-CPU. Reading per-port results at exit costs one map lookup per port in range.\n");
}

static unsigned parse_port(const char *opt, const char *arg, const char *s, char **end)
{
	unsigned long v;

	errno = 0;
	v = strtoul(s, end, 10);
	if (errno || *end == s || v > 65535 || *s == '-' || *s == '+')
		cli_die_usage("%s '%s': ports are numbers from 0 to 65535 (A or A-B)", opt, arg);
	return (unsigned)v;
}

/* A or A-B after option opt, into *lo and *hi. */
static void parse_range(const char *opt, const char *arg, unsigned *lo, unsigned *hi)
{
	char *end;

	*lo = parse_port(opt, arg, arg, &end);
	if (*end == '-')
		*hi = parse_port(opt, arg, end + 1, &end);
	else
		*hi = *lo;
	if (*end)
		cli_die_usage("%s '%s': give A or A-B, e.g. 5000-5099", opt, arg);
	if (*lo > *hi)
		cli_die_usage("%s '%s': the first port is above the second", opt, arg);
}

/* --delay-group A-B (repeatable): a histogram of its own for those ports. */
static void parse_group(const char *arg, struct sink_opts *o)
{
	if (o->ngroups == XTX_SINK_DELAY_GROUPS)
		cli_die_usage("--delay-group '%s': at most %d groups", arg, XTX_SINK_DELAY_GROUPS);
	parse_range("--delay-group", arg, &o->group_lo[o->ngroups], &o->group_hi[o->ngroups]);
	o->ngroups++;
}

/* After all options: every group inside --ports, no port in two groups; --delay-mod's
 * groups made from --ports. */
static void check_groups(struct sink_opts *o)
{
	if (o->group_mod) {
		if (o->ngroups)
			cli_die_usage("--delay-mod and --delay-group: give one of them");
		if (o->port_hi - o->port_lo + 1 < o->group_mod)
			cli_die_usage("--delay-mod %u: --ports %u-%u has fewer ports than groups",
				      o->group_mod, o->port_lo, o->port_hi);
		o->ngroups = o->group_mod;
		for (unsigned g = 0; g < o->ngroups; g++) {
			o->group_lo[g] = o->port_lo + g;
			o->group_hi[g] = o->port_hi - (o->port_hi - o->group_lo[g]) % o->group_mod;
		}
		return;
	}
	for (unsigned g = 0; g < o->ngroups; g++) {
		if (o->group_lo[g] < o->port_lo || o->group_hi[g] > o->port_hi)
			cli_die_usage("--delay-group %u-%u: outside --ports %u-%u (only matched "
				      "frames are timed)", o->group_lo[g], o->group_hi[g],
				      o->port_lo, o->port_hi);
		for (unsigned h = 0; h < g; h++)
			if (o->group_lo[g] <= o->group_hi[h] && o->group_lo[h] <= o->group_hi[g])
				cli_die_usage("--delay-group %u-%u overlaps %u-%u: a port is in one "
					      "group", o->group_lo[g], o->group_hi[g],
					      o->group_lo[h], o->group_hi[h]);
	}
}

static void parse_args(int argc, char **argv, struct sink_opts *o)
{
	cli_set_prog("xtx-sink");
	enum { OPT_PASS = 256, OPT_GROUP, OPT_MOD };
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "netns", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'i' },
		{ "ports", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "skb-mode", no_argument, NULL, 'S' },
		{ "pass", no_argument, NULL, OPT_PASS },
		{ "delay-group", required_argument, NULL, OPT_GROUP },
		{ "delay-mod", required_argument, NULL, OPT_MOD },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct sink_opts){ .interval_s = 1, .port_lo = 0, .port_hi = 65535 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:n:t:i:p:jSr:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'n': o->netns = optarg; break;
		case 't': o->duration_s = cli_parse_period("--duration", optarg); break;
		case 'i': o->interval_s = cli_parse_period("--interval", optarg); break;
		case 'p': parse_range("--ports", optarg, &o->port_lo, &o->port_hi); break;
		case 'j': o->json = true; break;
		case 'S': o->skb_mode = true; break;
		case OPT_PASS: o->pass = true; break;
		case OPT_GROUP: parse_group(optarg, o); break;
		case OPT_MOD:
			o->group_mod = (unsigned)cli_parse_uint("--delay-mod", optarg, 2,
								XTX_SINK_DELAY_GROUPS);
			break;
		case 'r': o->ready_file = optarg; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(0);
		case ':': cli_die_usage("option '%s' needs a value", argv[optind - 1]); break;
		default: cli_die_usage("unknown option '%s'", argv[optind - 1]); break;
		}
	}
	if (optind < argc)
		cli_die_usage("unexpected argument '%s'", argv[optind]);
	check_groups(o);
	if (!o->dev)
		cli_die_usage("--dev IF is required (the interface to count on)");
	if (strlen(o->dev) >= IF_NAMESIZE)
		cli_die_usage("--dev '%s': interface names have at most %d characters", o->dev,
			  IF_NAMESIZE - 1);
}

static int write_ready(const struct sink *s)
{
	return cli_write_ready(s->opt.ready_file, "pid=%d\nmode=%s\nifindex=%d\n", (int)getpid(),
			       xdpa_mode_name(s->xp.mode), s->ifindex);
}

/* Waits until the next interval tick or the deadline or a signal; prints lines. */
static int run(struct sink *s, const sigset_t *waitmask, double *dur)
{
	struct sink_snapshot prev, cur;
	struct stopsig_run r;
	double t, dt;
	int err;

	stopsig_run_init(&r, s->opt.interval_s, s->opt.duration_s);
	err = sink_read_stats(s, &prev);
	if (err)
		return err;
	while (!stop) {
		err = stopsig_run_wait(&r, INFINITY, waitmask, &t);
		if (err)
			return err;
		if (stopsig_run_tick(&r, t, &dt)) {
			err = sink_read_stats(s, &cur);
			if (err)
				return err;
			sink_print_interval(s, &prev, &cur, t - r.t0, dt);
			prev = cur;
		}
		if (stopsig_run_over(&r, t))
			break;
	}
	*dur = cli_now_s(CLOCK_MONOTONIC) - r.t0;
	return 0;
}

int main(int argc, char **argv)
{
	struct sink s = { .lock = { .fd = -1 } };
	sigset_t waitmask;
	bool ready_written = false;
	double dur = 0;
	int err, ret = 1;

	parse_args(argc, argv, &s.opt);
	xdpa_set_print(s.opt.verbose);

	/* Signals: handled only inside ppoll() (see the head of this file). */
	stopsig_block(on_signal, &waitmask);

	if (s.opt.netns && xdpa_enter_netns("xtx-sink", s.opt.netns))
		return 1;
	s.ifindex = (int)if_nametoindex(s.opt.dev);
	if (!s.ifindex) {
		if (xtx_dev__is_null(s.opt.dev))
			fprintf(stderr, "xtx-sink: --dev %s: xtx-sink counts what an interface "
				"receives; '%s' names xtx's built-in null device, which only sends: "
				"give a real interface\n", s.opt.dev, s.opt.dev);
		else if (s.opt.netns)
			fprintf(stderr, "xtx-sink: --dev %s: no such interface in network namespace "
				"%s; see 'ip -n %s link'\n", s.opt.dev, s.opt.netns, s.opt.netns);
		else
			fprintf(stderr, "xtx-sink: --dev %s: no such interface in this network "
				"namespace; see 'ip link', or give --netns\n", s.opt.dev);
		return 1;
	}
	s.ncpu = libbpf_num_possible_cpus();
	if (s.ncpu <= 0) {
		fprintf(stderr, "xtx-sink: cannot read the number of possible CPUs: %s\n",
			strerror(-s.ncpu));
		return 1;
	}
	if (sink_lock(&s))
		return 1;
	err = sink_detach_stale(&s);
	if (err)
		goto out_unlock;
	err = sink_attach(&s);
	if (err)
		goto out_unlock;
	if (s.opt.ready_file) {
		if (write_ready(&s))
			goto out_detach;
		ready_written = true;
	}
	if (!s.xp.dispatcher)
		fprintf(stderr, "xtx-sink: note: libxdp attached %s alone, not through its "
			"dispatcher (%s), so no other XDP program can share %s\n", SINK_PROG_NAME,
			xdpa_no_bpffs() ? "no bpffs mounted at /sys/fs/bpf" :
			"the kernel refused the dispatcher; --verbose shows why", s.opt.dev);
	fprintf(stderr, "xtx-sink: attached to %s (%s mode, %s, ifindex %d), counting UDP "
		"ports %u-%u%s\n", s.opt.dev, xdpa_mode_name(s.xp.mode),
		s.xp.dispatcher ? "libxdp dispatcher" : "alone", s.ifindex, s.opt.port_lo,
		s.opt.port_hi, s.opt.duration_s > 0 ? "" : "; stop with Ctrl-C");

	err = run(&s, &waitmask, &dur);
	if (err)
		goto out_detach;
	/* Detach first, then read: the totals are final. */
	err = sink_detach(&s);
	if (err)
		goto out_detach;
	if (sink_report(&s, dur, stdout) == 0)
		ret = 0;

out_detach:
	sink_detach(&s);
	if (ready_written)
		unlink(s.opt.ready_file);
	xdpa_prog_close(&s.xp);
	xtx_sink__destroy(s.skel);
out_unlock:
	sink_unlock(&s);
	return ret;
}
