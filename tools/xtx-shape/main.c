/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx-shape - a userspace shaper between two interfaces: an XDP program classifies what
 * arrives on --in and redirects it to per-queue AF_XDP sockets; receive workers hand the
 * frames, without copying, to the xtx engine's stages; the dequeuers shape them with the
 * HTB/FQ class tree and send them out of --out. `xtx-shape --help` is the manual. This
 * file: options, signals, the run loop, output; attach.c and rules.c do the rest.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP are blocked except inside ppoll() in the run loop,
 * where their handlers only set `stop` (SIGINT, SIGTERM) or `hup`; so they cannot
 * interrupt setup halfway, and the loop sees every one of them without a race. On `stop`
 * main() detaches and stops the engine; on `hup` the loop reloads the class file.
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

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "stopsig.h"
#include "json.h"
#include "netdev.h"
#include "shape.h"
#include "xdpattach.h"

static volatile sig_atomic_t stop, hup;

static void on_signal(int sig)
{
	stop = sig;
}

static void on_hup(int sig)
{
	hup = sig;
}

static const char usage_text[] =
"NAME\n"
"    xtx-shape - shape traffic between two interfaces with XDP, AF_XDP and xtx's HTB/FQ\n"
"\n"
"SYNOPSIS\n"
"    xtx-shape --in IF --out IF --classes FILE [--rules FILE] [--queues N] [--l2]\n"
"              [--json] [more options below]\n"
"\n"
"DESCRIPTION\n"
"    Frames arriving on --in are classified by an XDP program (the rules file; see\n"
"    RULES) and redirected to one AF_XDP socket per receive queue; a receive worker per\n"
"    queue hands them to the xtx engine, whose dequeuers shape them with the class tree\n"
"    (--classes, docs/config.md) and send them out of --out. Both interfaces' sockets\n"
"    share one UMEM, so frames are not copied in userspace (if the kernel refuses to\n"
"    share, e.g. zero-copy on --out but not on --in, frames are copied once; reported).\n"
"\n"
"    Router mode (default): the XDP program looks the destination up in the kernel's\n"
"    routing and neighbour tables (bpf_fib_lookup); a frame whose route leaves by --out\n"
"    leaves with the next hop's MAC, --out's MAC as source and TTL / hop limit\n"
"    decreased, as the kernel would forward it. Frames with no route, an unresolved\n"
"    neighbour, an expiring TTL, too large for the MTU, routed elsewhere, addressed to\n"
"    this host, broadcast/multicast, VLAN-tagged or malformed go to the kernel untouched\n"
"    (so ping, ICMP errors and ARP work as usual). --l2 (bump in the wire): frames leave\n"
"    unchanged; only frames addressed to --in's own MAC go to the kernel. In both modes\n"
"    ARP and IPv6 neighbour discovery always go to the kernel.\n"
"\n"
"    A line per interval goes to stderr: receive and forward rates, drops, and each\n"
"    leaf class's rate on the wire side (frame bytes). At the end (duration, SIGINT,\n"
"    SIGTERM) the XDP program is detached first, then queued frames are sent\n"
"    (or dropped with --drop) and a summary goes to stdout (JSON with --json).\n"
"\n"
"    SIGHUP reads --classes again and the running tree takes it without a restart,\n"
"    between two dequeuer steps: new parameters in place, and classes added, removed\n"
"    or moved by a new tree that each dequeuer adopts; queued frames stay (a removed\n"
"    leaf's go to the default class), tokens and counters of the classes that stay\n"
"    carry over (docs/config.md, 'Changing a running tree'). A file that does not\n"
"    parse, one without a class the rules send to (as a leaf), a new overhead, more\n"
"    classes than --max-classes, or a room target with --police off is refused whole\n"
"    with its message on stderr and nothing changes. The rules file is not reread.\n"
"\n"
"    While --out's link is down it keeps running: frames wait in their class queues and\n"
"    beyond a class's limit are dropped and counted; sending resumes when the link comes\n"
"    back. If --in or --out disappears (deleted, driver unbound) it stops within half a\n"
"    second, prints the summary (device_gone) and exits 1.\n"
"\n"
"    A stale xtx_redirect program left on --in by a killed run is removed at start; a\n"
"    lock (/run/xtx-shape/) keeps a second live xtx-shape off the same interface.\n"
"\n"
"OPTIONS\n"
"    --in IF            ingress interface (the XDP program and RX sockets)\n"
"    --out IF           egress interface (TX sockets; must differ from --in)\n"
"    --classes FILE     class tree (docs/config.md)\n"
"    --rules FILE       classifier rules (see RULES); default: everything to the class\n"
"                       file's default class\n"
"    --queues N         receive queues of --in used, from queue 0: one AF_XDP socket and\n"
"                       receive worker each (default: all of --in's receive queues).\n"
"                       Frames arriving on a queue without a socket go to the kernel\n"
"                       (in router mode it forwards them itself, unshaped)\n"
"    --tx-queues N      transmit queues of --out, from 0 (default 1), one dequeuer and\n"
"                       scheduler each; flows are spread over them by hash. Every class\n"
"                       holds its rate, ceil and bursts for the sum over the queues\n"
"                       (device-wide classes, docs/design.md)\n"
"    --queue-classes    every class per transmit queue instead, as mq with one HTB per\n"
"                       queue (N queues give a class N times its rate)\n"
"    --codel on|off     on (default): CoDel per flow, as fq_codel (target 5ms, interval\n"
"                       100ms, drops), on every leaf whose class file says nothing of\n"
"                       codel: the flows of senders that back off (TCP) keep their\n"
"                       queue delay near 5 ms. It cannot hold a flood (its drop rate\n"
"                       grows slowly): that is --police's. off: only where the file\n"
"                       says 'codel' (docs/config.md)\n"
"    --police TIME|off  20ms (default): each leaf's room target (docs/config.md,\n"
"                       'target'; a leaf's own target wins): once a class holds TIME of\n"
"                       its departures on a TX queue, the XDP program drops its frames\n"
"                       for that queue before they are received, until it has room\n"
"                       again (xdp_policed per class). A flood's excess then never\n"
"                       reaches the receive workers, and its class's queue holds one to\n"
"                       two TIMEs of its departures; CoDel acts below that. Needs\n"
"                       mmapable BPF arrays and BPF atomics (Linux 5.12). off:\n"
"                       classes fill to their limits (tail drop)\n"
"    --control PATH|off the control socket for xtx-ctl (default /run/xtx/OUT.ctl, owner\n"
"                       only; a live one of another process there: a warning and none)\n"
"    --metrics ADDR:PORT  serve the engine's Prometheus metrics (xtx-ctl --help,\n"
"                       'metrics') over HTTP at /metrics; a PORT alone listens on\n"
"                       127.0.0.1, [ADDR6]:PORT on IPv6. In --netns's namespace\n"
"    --l2               bump in the wire: frames leave unchanged\n"
"    --netns NS         enter network namespace NS first (a name from 'ip netns list'\n"
"                       or a path)\n"
"    --duration S       stop after S seconds; 0 = until a signal (default 0)\n"
"    --interval S       seconds between stderr lines; 0 = none (default 1)\n"
"    --json             summary as one JSON object\n"
"    --skb-mode         attach the XDP program in skb (generic) mode only\n"
"    --copy             force AF_XDP copy mode\n"
"    --rx-copy          receive into a UMEM of its own and copy each frame once\n"
"    --busy-poll        dequeuers and receive workers spin instead of sleeping\n"
"    --cpus LIST        dequeuer CPUs, e.g. 1 or 0-1 (default: --out's NUMA node)\n"
"    --rx-cpus LIST     receive worker CPUs (default: --in's NUMA node)\n"
"    --deq-rt PRIO      run the dequeuer threads SCHED_FIFO at PRIO, 1..99 (1 is the\n"
"                       lowest real-time priority; default 0 = off), as the kernel's\n"
"                       qdisc dequeue runs in softirq, ahead of the threads that feed\n"
"                       it. For a dequeuer that shares its CPU with the receive workers\n"
"                       and loses tokens beyond a class's burst while it waits for the\n"
"                       CPU (a class short of its rate under load). A real-time\n"
"                       dequeuer that always has work holds its CPU, so at least one\n"
"                       CPU must stay without one (refused otherwise), and it is refused\n"
"                       with --busy-poll. Needs CAP_SYS_NICE (a message if missing)\n"
"    --deq-nice N       nice value of the dequeuer threads, -20..19 (default -10: ahead\n"
"                       of the receive workers and anything else on a shared CPU, so\n"
"                       departures stay on time; 0 leaves it; needs CAP_SYS_NICE)\n"
"    --frames N         frames in the UMEM (default: enough for every ring plus every\n"
"                       leaf's limit on every queue, at most 262144)\n"
"    --max-classes N    class indexes the running tree may grow to by live changes\n"
"                       (xtx-ctl class add, SIGHUP; default: its classes + 64)\n"
"    --drop             at the end, drop queued frames at once (counted)\n"
"    --ready-file F     once forwarding, write F (pid=, xdp_mode=, rx_path=, af_xdp=,\n"
"                       control= its socket or off); removed at exit\n"
"    --verbose          libbpf/libxdp informational messages too\n"
"    --no-doctor        do not run xtx-doctor's checks of --in and --out at start (by\n"
"                       default a line each on stderr, e.g. \"xtx-doctor eth2: 14 pass, 3\n"
"                       warn, 0 fail, warn hugepages, ...\"; xtx-doctor IF says what\n"
"                       each means and how to fix it; with --json the doctor field)\n"
"    -h, --help         this text\n"
"\n"
"RULES\n"
"    One statement per line, '#' comments:\n"
"        match [src PREFIX] [dst PREFIX] [sport P[-Q]] [dport P[-Q]]\n"
"              [proto tcp|udp|icmp|icmpv6|N] [dscp N[-M]] [vlan ID|untagged] ACTION\n"
"        default ACTION\n"
"    ACTION is 'class HANDLE' (a leaf of the class file), 'pass' (to the kernel,\n"
"    untouched) or 'drop'. The first rule whose criteria all hold decides; at most 128\n"
"    rules. Example: match dst 198.18.1.0/24 dport 5000-5999 class 1:10\n"
"    Errors name file:line:column.\n"
"\n"
"OUTPUT\n"
"    --json: in, out, mode (router|l2), xdp_mode (native|skb), xdp_dispatcher, af_xdp\n"
"    (copy|zero-copy), rx_path (shared UMEM|copy), queues, tx_queues, class_scope\n"
"    (device|queue), duration_s, interrupted, device_gone; doctor {in, out: {pass,\n"
"    warn, fail, line}} (xtx-doctor's checks at start; null with --no-doctor);\n"
"    xdp {COUNTER: {pkts, bytes}} (the program's verdicts; see xdp/xtx_redirect.h);\n"
"    rx {pkts, bytes, fwd_pkts, fwd_bytes, drops {stage_full, no_frame, bad_desc},\n"
"    no_meta, reclaimed, copied, kernel {dropped, rx_ring_full, fill_empty, invalid}};\n"
"    tx {sent_pkts, sent_bytes, completed, drops {REASON: n}}; classes [{handle, index,\n"
"    leaf, rate_bps, ceil_bps, sent_pkts, sent_bytes, dropped_pkts, codel_drops,\n"
"    ecn_marks, xdp_policed, measured_bps}] (rates of the tree running at the end);\n"
"    codel (--codel), police_ns (--police, null when off); reloads {done, refused}\n"
"    (SIGHUP);\n"
"    frames {total, pool, cached, app, stage, sched, tx, dequeuer, fill, receiver}.\n"
"\n"
"EXIT STATUS\n"
"    0 ran and detached; 1 an error (stderr says what and what to do), also an interface\n"
"    that disappeared during the run; 2 bad usage or a bad class or rules file.\n"
"\n"
"EXAMPLES\n"
"    xtx-shape --in eth1 --out eth2 --classes tenants.conf --rules tenants.rules\n"
"    xtx-shape --netns fw --in fw0 --out fw1 --classes c.conf --duration 10 --json\n";

static unsigned long parse_count(const char *opt, const char *arg, unsigned long lo,
				 unsigned long hi)
{
	uint64_t v;

	if (cli_str_to_u64(arg, 10, lo, hi, &v))
		cli_die_usage("%s '%s': give a whole number from %lu to %lu", opt, arg, lo, hi);
	return (unsigned long)v;
}

static bool drop_at_end;
static int deq_nice = -10;	/* --deq-nice */
static int deq_rt;		/* --deq-rt */
static bool no_codel;		/* --codel off */

static void parse_args(int argc, char **argv, struct shape_opts *o)
{
	cli_set_prog("xtx-shape");
	enum { O_IN = 256, O_OUT, O_CLASSES, O_RULES, O_QUEUES, O_TXQ, O_L2, O_NETNS, O_DURATION,
	       O_INTERVAL, O_JSON, O_SKB, O_COPY, O_RX_COPY, O_BUSY, O_CPUS, O_RX_CPUS,
	       O_FRAMES, O_DROP, O_READY, O_VERBOSE, O_NICE, O_RT, O_QCLS, O_CODEL, O_POLICE,
	       O_CONTROL, O_METRICS, O_MAXCLS, O_NO_DOCTOR };
	static const struct option lo[] = {
		{ "in", 1, 0, O_IN }, { "out", 1, 0, O_OUT }, { "classes", 1, 0, O_CLASSES },
		{ "rules", 1, 0, O_RULES }, { "queues", 1, 0, O_QUEUES },
		{ "tx-queues", 1, 0, O_TXQ }, { "l2", 0, 0, O_L2 },
		{ "netns", 1, 0, O_NETNS }, { "duration", 1, 0, O_DURATION },
		{ "interval", 1, 0, O_INTERVAL }, { "json", 0, 0, O_JSON },
		{ "skb-mode", 0, 0, O_SKB }, { "copy", 0, 0, O_COPY },
		{ "rx-copy", 0, 0, O_RX_COPY }, { "busy-poll", 0, 0, O_BUSY },
		{ "cpus", 1, 0, O_CPUS }, { "rx-cpus", 1, 0, O_RX_CPUS },
		{ "frames", 1, 0, O_FRAMES }, { "drop", 0, 0, O_DROP },
		{ "ready-file", 1, 0, O_READY }, { "verbose", 0, 0, O_VERBOSE },
		{ "deq-nice", 1, 0, O_NICE }, { "deq-rt", 1, 0, O_RT },
		{ "queue-classes", 0, 0, O_QCLS }, { "codel", 1, 0, O_CODEL },
		{ "police", 1, 0, O_POLICE }, { "control", 1, 0, O_CONTROL },
		{ "metrics", 1, 0, O_METRICS }, { "max-classes", 1, 0, O_MAXCLS },
		{ "no-doctor", 0, 0, O_NO_DOCTOR },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 }
	};
	int c;

	*o = (struct shape_opts){ .queues = 0, .tx_queues = 1, .interval_s = 1,
				  .police_ns = SHAPE_POLICE_NS };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case O_IN: o->in = optarg; break;
		case O_OUT: o->out = optarg; break;
		case O_CLASSES: o->classes = optarg; break;
		case O_RULES: o->rules = optarg; break;
		case O_QUEUES:
			o->queues = (unsigned)parse_count("--queues", optarg, 1, XTX_RD_MAX_QUEUES);
			break;
		case O_TXQ:
			o->tx_queues = (unsigned)parse_count("--tx-queues", optarg, 1, 64);
			break;
		case O_L2: o->l2 = true; break;
		case O_QCLS: o->queue_classes = true; break;
		case O_POLICE:
			if (!strcmp(optarg, "off"))
				o->police_ns = 0;
			else if (xtx_time__parse(optarg, &o->police_ns) || !o->police_ns ||
				 o->police_ns > 3600000000000ull)
				cli_die_usage("--police '%s': give a time above 0 such as 20ms or "
					      "500us (at most 3600s), or off", optarg);
			break;
		case O_CODEL:
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				cli_die_usage("--codel '%s': give on or off", optarg);
			no_codel = !strcmp(optarg, "off");
			break;
		case O_NETNS: o->netns = optarg; break;
		case O_CONTROL: o->control = optarg; break;
		case O_METRICS: o->metrics = optarg; break;
		case O_DURATION: o->duration_s = cli_parse_period("--duration", optarg); break;
		case O_INTERVAL: o->interval_s = cli_parse_period("--interval", optarg); break;
		case O_JSON: o->json = true; break;
		case O_SKB: o->skb_mode = true; break;
		case O_COPY: o->copy = true; break;
		case O_RX_COPY: o->rx_copy = true; break;
		case O_BUSY: o->busy_poll = true; break;
		case O_CPUS: o->cpus = optarg; break;
		case O_RX_CPUS: o->rx_cpus = optarg; break;
		case O_FRAMES:
			o->frames = (uint32_t)parse_count("--frames", optarg, 1024, 1u << 26);
			break;
		case O_MAXCLS:
			o->max_classes = (uint32_t)parse_count("--max-classes", optarg, 1,
							       XTX_CLASS_MAX + 1);
			break;
		case O_DROP: drop_at_end = true; break;
		case O_NICE: {
			int64_t v;

			if (cli_str_to_i64(optarg, -20, 19, &v))
				cli_die_usage("--deq-nice '%s': give a whole number from -20 to 19",
					  optarg);
			deq_nice = (int)v;
			break;
		}
		case O_RT:
			deq_rt = (int)parse_count("--deq-rt", optarg, 0, 99);
			break;
		case O_READY: o->ready_file = optarg; break;
		case O_VERBOSE: o->verbose = true; break;
		case O_NO_DOCTOR: o->no_doctor = true; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case ':': cli_die_usage("option '%s' needs a value", argv[optind - 1]);
		default: cli_die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		cli_die_usage("unexpected argument '%s'", argv[optind]);
	if (!o->in || !o->out)
		cli_die_usage("--in IF and --out IF are required");
	if (!o->classes)
		cli_die_usage("--classes FILE is required (the class tree; see docs/config.md)");
	/* The engine takes no receive side on the null device, so neither end can be it. */
	if (xtx_dev__is_null(o->in))
		cli_die_usage("--in %s: the null device only sends; --in needs an interface",
			      o->in);
	if (xtx_dev__is_null(o->out))
		cli_die_usage("--out %s: the null device cannot forward what --in receives (it "
			      "takes no receive side); --out needs an interface (xtx-send --dev "
			      "null sends on it alone)", o->out);
	if (!strcmp(o->in, o->out))
		cli_die_usage("--in and --out are both '%s': give two interfaces", o->in);
	if (strlen(o->in) >= IF_NAMESIZE || strlen(o->out) >= IF_NAMESIZE)
		cli_die_usage("interface names have at most %d characters", IF_NAMESIZE - 1);
	if (deq_rt > 0 && o->busy_poll)
		cli_die_usage("--deq-rt %d with --busy-poll: a dequeuer that spins at real-time "
			      "priority would keep its CPU from everything else; give one", deq_rt);
}

/* A class of the config is a leaf (xtx_sched_config__is_leaf: 1). */
static bool is_leaf(const struct xtx_sched_config *cfg, uint32_t h)
{
	return xtx_sched_config__is_leaf(cfg, h) == 1;
}

/* Class c of cfg (the running tree): its index in the engine (the slot its counters,
 * room and XDP counters are at; xtx_engine__class_index()), -1 if it has none. */
static int class_slot(struct xtx_engine *e, const struct xtx_sched_config *cfg, unsigned c)
{
	int k = xtx_engine__class_index(e, xtx_sched_config__class(cfg, c)->handle);

	return k < 0 ? -1 : k;
}

/* Class c's counters, handle ("1:10") and slot if it is a leaf; false for an inner
 * class. */
static bool leaf_stats(struct xtx_engine *e, const struct xtx_sched_config *cfg, unsigned c,
		       struct xtx_class_stats *cs, char h[XTX_HANDLE_STRLEN], int *slot)
{
	const struct xtx_class_opts *co = xtx_sched_config__class(cfg, c);

	if (!is_leaf(cfg, co->handle))
		return false;
	*slot = class_slot(e, cfg, c);
	memset(cs, 0, sizeof(*cs));
	if (*slot >= 0)
		xtx_engine__class_stats(e, (unsigned)*slot, cs);
	xtx_handle__str(co->handle, h, XTX_HANDLE_STRLEN);
	return true;
}

/* Frames: what the engine's rings and caches need (xtx_engine_opts__min_frames()),
 * every leaf's limit on every TX queue, and a margin; capped. */
static uint32_t frames_needed(const struct xtx_engine_opts *eo,
			      const struct xtx_sched_config *cfg, bool *capped)
{
	uint64_t n = (uint64_t)xtx_engine_opts__min_frames(eo) + 4096;

	for (unsigned i = 0; i < xtx_sched_config__class_count(cfg); i++) {
		const struct xtx_class_opts *c = xtx_sched_config__class(cfg, i);

		if (is_leaf(cfg, c->handle))
			n += (uint64_t)eo->queues * c->limit;
	}
	*capped = n > 262144;
	return *capped ? 262144 : (uint32_t)n;
}

static int read_xdp_stats(const struct shape *s, struct xtx_xdp_counter *out)
{
	struct xtx_xdp_counter *v = calloc((size_t)s->ncpu, sizeof(*v));
	int fd, rc = 0;

	memset(out, 0, sizeof(*out) * XTX_RD_STAT_MAX);
	if (!v)
		return -ENOMEM;
	if (!s->skel) {
		free(v);
		return -EBADF;
	}
	fd = bpf_map__fd(s->skel->maps.rd_stats);
	for (uint32_t k = 0; k < XTX_RD_STAT_MAX && !rc; k++) {
		rc = bpf_map_lookup_elem(fd, &k, v);
		if (!rc)
			xtx_xdp_counter_add(&out[k], v, s->ncpu);
	}
	free(v);
	return rc;
}

struct totals {
	struct xtx_rx_stats rx;
	uint64_t sent, sent_bytes, completed, drops[XTX_DROP__MAX], dropped;
};

static void totals(struct xtx_engine *e, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < xtx_engine__rx_queues(e); i++) {
		struct xtx_rx_stats r;

		xtx_engine__rx_stats(e, i, &r);
		t->rx.rx_pkts += r.rx_pkts;
		t->rx.rx_bytes += r.rx_bytes;
		t->rx.fwd_pkts += r.fwd_pkts;
		t->rx.fwd_bytes += r.fwd_bytes;
		for (int k = 0; k < XTX_RX_DROP__MAX; k++)
			t->rx.drops[k] += r.drops[k];
		t->rx.no_meta += r.no_meta;
		t->rx.reclaimed += r.reclaimed;
		t->rx.copied += r.copied;
		t->rx.k_dropped += r.k_dropped;
		t->rx.k_rx_ring_full += r.k_rx_ring_full;
		t->rx.k_fill_empty += r.k_fill_empty;
		t->rx.k_invalid += r.k_invalid;
	}
	for (unsigned q = 0; q < xtx_engine__queues(e); q++) {
		struct xtx_queue_stats qs;

		xtx_engine__queue_stats(e, q, &qs);
		t->sent += qs.sent_pkts;
		t->sent_bytes += qs.sent_bytes;
		t->completed += qs.completed;
		for (int r = 0; r < XTX_DROP__MAX; r++) {
			t->drops[r] += qs.drops[r];
			t->dropped += qs.drops[r];
		}
	}
}

static uint64_t rx_dropped(const struct totals *t)
{
	uint64_t d = 0;

	for (int k = 0; k < XTX_RX_DROP__MAX; k++)
		d += t->rx.drops[k];
	return d;
}

/* --control: the engine's control socket (xtx-ctl). Without one the shaper still runs. */
static void control_listen(const struct shape *s, struct xtx_engine *e)
{
	char err[512];

	if (s->opt.control && !strcmp(s->opt.control, "off"))
		return;
	if (xtx_engine__control_listen(e, s->opt.control, err, sizeof(err)))
		fprintf(stderr, "xtx-shape: warning: no control socket, xtx-ctl cannot reach "
			"this shaper: %s\n", err);
}

static int write_ready(const struct shape *s, struct xtx_engine *e)
{
	const char *ctl = xtx_engine__control_path(e);

	return cli_write_ready(s->opt.ready_file, "pid=%d\nxdp_mode=%s\nrx_path=%s\naf_xdp=%s\n"
			       "control=%s\n", (int)getpid(), xdpa_mode_name(s->xp.mode),
			       xtx_engine__rx_path(e), xtx_engine__mode(e), ctl ? ctl : "off");
}

/* --- the run loop ------------------------------------------------------------------------ */

#define GONE_CHECK_S	0.5	/* seconds between looks for a deleted interface */

/* The interval line on stderr: rates and drops since prev (and prev_cls, each class's
 * sent bytes by slot), dt seconds ago, for the tree the engine runs now (a change by
 * xtx-ctl included); then prev and prev_cls are now. */
static void print_interval(struct xtx_engine *e, struct totals *prev, uint64_t *prev_cls,
			   double t_s, double dt)
{
	struct xtx_sched_config *cfg = xtx_engine__classes(e);
	struct totals cur;

	totals(e, &cur);
	fprintf(stderr, "%7.1fs rx %8.3f Mpps fwd %8.3f Mpps drops rx %lu sched %lu", t_s,
		(double)(cur.rx.rx_pkts - prev->rx.rx_pkts) / dt * 1e-6,
		(double)(cur.rx.fwd_pkts - prev->rx.fwd_pkts) / dt * 1e-6,
		(unsigned long)(rx_dropped(&cur) - rx_dropped(prev)),
		(unsigned long)(cur.dropped - prev->dropped));
	for (unsigned c = 0; cfg && c < xtx_sched_config__class_count(cfg); c++) {
		struct xtx_class_stats cs;
		char h[XTX_HANDLE_STRLEN];
		int k;

		if (!leaf_stats(e, cfg, c, &cs, h, &k) || k < 0)
			continue;
		/* a class added since the last line: from 0 (its first line may lead) */
		fprintf(stderr, " | %s %.2f Mbit/s", h,
			(double)(cs.sent_bytes - (cs.sent_bytes >= prev_cls[k] ? prev_cls[k] : 0)) *
			8 / dt * 1e-6);
		prev_cls[k] = cs.sent_bytes;
	}
	fputc('\n', stderr);
	xtx_sched_config__free(cfg);
	*prev = cur;
}

/* SIGHUP: the class file again, for the running engine (xtx_engine__classes_change());
 * *cfg becomes it. A file that does not parse, or a tree the running one cannot take,
 * changes nothing and is said so. */
static void reload(struct shape *s, struct xtx_engine *e, struct xtx_sched_config **cfg)
{
	char err[1024];
	struct xtx_sched_config *n = xtx_sched_config__parse_file(s->opt.classes, err,
								   sizeof(err));
	int rc = n ? xtx_engine__classes_change(e, n, err, sizeof(err)) : -EINVAL;

	if (rc) {
		fprintf(stderr, "xtx-shape: SIGHUP: %s not reloaded, nothing changed: %s\n",
			s->opt.classes, err);
		xtx_sched_config__free(n);
		s->reloads_refused++;
		return;
	}
	xtx_sched_config__free(*cfg);
	*cfg = n;
	s->reloads++;
	fprintf(stderr, "xtx-shape: SIGHUP: reloaded %s (%u classes)\n", s->opt.classes,
		xtx_sched_config__class_count(n));
}

static int run(struct shape *s, struct xtx_engine *e, struct xtx_sched_config **cfg,
	       const sigset_t *waitmask, double *dur)
{
	uint64_t *prev_cls = calloc(xtx_engine__class_count(e), sizeof(*prev_cls));
	struct stopsig_run r;
	struct totals prev;
	double t, dt;
	int err;

	if (!prev_cls)
		return -ENOMEM;
	stopsig_run_init(&r, s->opt.interval_s, s->opt.duration_s);
	totals(e, &prev);
	while (!stop) {
		/* At most GONE_CHECK_S: look for vanished interfaces. */
		err = stopsig_run_wait(&r, GONE_CHECK_S, waitmask, &t);
		if (err) {
			free(prev_cls);
			return err;
		}
		/* An interface deleted (a veth removed, a driver unbound): its sockets are dead
		 * and its index is gone or reused. Stop, account, exit 1. */
		if ((int)if_nametoindex(s->opt.in) != s->in_ifindex ||
		    (int)if_nametoindex(s->opt.out) != s->out_ifindex) {
			s->gone = (int)if_nametoindex(s->opt.in) != s->in_ifindex ? s->opt.in
										   : s->opt.out;
			fprintf(stderr, "xtx-shape: interface %s disappeared; stopping\n", s->gone);
			break;
		}
		if (hup) {
			hup = 0;
			reload(s, e, cfg);
		}
		if (stopsig_run_tick(&r, t, &dt))
			print_interval(e, &prev, prev_cls, t - r.t0, dt);
		if (stopsig_run_over(&r, t))
			break;
	}
	*dur = cli_now_s(CLOCK_MONOTONIC) - r.t0;
	free(prev_cls);
	return 0;
}

/* --- output -------------------------------------------------------------------------------- */

/* A {pkts, bytes} object named name. */
static void json_counter(struct jsonw *w, const char *name, uint64_t pkts, uint64_t bytes)
{
	jsonw_name(w, name);
	jsonw_start_object(w);
	jsonw_uint_field(w, "pkts", pkts);
	jsonw_uint_field(w, "bytes", bytes);
	jsonw_end_object(w);
}

static void print_json(const struct shape *s, struct xtx_engine *e,
		       const struct xtx_sched_config *cfg, const struct xtx_xdp_counter *xs,
		       double dur, const struct totals *t, const struct xtx_frame_count *fc)
{
	unsigned ncls = xtx_sched_config__class_count(cfg);
	struct jsonw w;

	jsonw_init(&w, stdout);
	jsonw_start_object(&w);
	jsonw_string_field(&w, "in", s->opt.in);
	jsonw_string_field(&w, "out", s->opt.out);
	jsonw_string_field(&w, "mode", s->opt.l2 ? "l2" : "router");
	jsonw_string_field(&w, "xdp_mode", xdpa_mode_name(s->xp.mode));
	jsonw_bool_field(&w, "xdp_dispatcher", s->xp.dispatcher);
	jsonw_string_field(&w, "af_xdp", xtx_engine__mode(e));
	jsonw_string_field(&w, "rx_path", xtx_engine__rx_path(e));
	jsonw_uint_field(&w, "queues", s->opt.queues);
	jsonw_uint_field(&w, "tx_queues", s->opt.tx_queues);
	jsonw_string_field(&w, "class_scope", s->opt.queue_classes ? "queue" : "device");
	jsonw_name(&w, "reloads");
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "done", s->reloads);
	jsonw_uint_field(&w, "refused", s->reloads_refused);
	jsonw_end_object(&w);
	jsonw_bool_field(&w, "codel", !no_codel);
	jsonw_name(&w, "police_ns");	/* --police: room target of the policed leaves */
	if (s->opt.police_ns)
		jsonw_uint(&w, s->opt.police_ns);
	else
		jsonw_null(&w);
	jsonw_float_field(&w, "duration_s", dur, 6);
	jsonw_bool_field(&w, "interrupted", stop);
	jsonw_bool_field(&w, "device_gone", s->gone);
	jsonw_name(&w, "doctor");
	if (s->doctored) {
		jsonw_start_object(&w);
		jsonw_name(&w, "in");
		doctor_line_json(&w, &s->doctor_in);
		jsonw_name(&w, "out");
		doctor_line_json(&w, &s->doctor_out);
		jsonw_end_object(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_name(&w, "xdp");
	jsonw_start_object(&w);
	for (int k = 0; k < XTX_RD_STAT_MAX; k++)
		json_counter(&w, xtx_rd_stat_name(k), xs[k].pkts, xs[k].bytes);
	jsonw_end_object(&w);

	jsonw_name(&w, "rx");
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "pkts", t->rx.rx_pkts);
	jsonw_uint_field(&w, "bytes", t->rx.rx_bytes);
	jsonw_uint_field(&w, "fwd_pkts", t->rx.fwd_pkts);
	jsonw_uint_field(&w, "fwd_bytes", t->rx.fwd_bytes);
	jsonw_name(&w, "drops");
	jsonw_start_object(&w);
	for (int k = 0; k < XTX_RX_DROP__MAX; k++)
		jsonw_uint_field(&w, xtx_rx_drop_reason__str(k), t->rx.drops[k]);
	jsonw_end_object(&w);
	jsonw_uint_field(&w, "no_meta", t->rx.no_meta);
	jsonw_uint_field(&w, "reclaimed", t->rx.reclaimed);
	jsonw_uint_field(&w, "copied", t->rx.copied);
	jsonw_name(&w, "kernel");
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "dropped", t->rx.k_dropped);
	jsonw_uint_field(&w, "rx_ring_full", t->rx.k_rx_ring_full);
	jsonw_uint_field(&w, "fill_empty", t->rx.k_fill_empty);
	jsonw_uint_field(&w, "invalid", t->rx.k_invalid);
	jsonw_end_object(&w);
	jsonw_end_object(&w);

	jsonw_name(&w, "tx");
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "sent_pkts", t->sent);
	jsonw_uint_field(&w, "sent_bytes", t->sent_bytes);
	jsonw_uint_field(&w, "completed", t->completed);
	jsonw_name(&w, "drops");
	jsonw_start_object(&w);
	for (int r = 0; r < XTX_DROP__MAX; r++)
		jsonw_uint_field(&w, xtx_drop_reason__str(r), t->drops[r]);
	jsonw_end_object(&w);
	jsonw_end_object(&w);

	jsonw_name(&w, "classes");
	jsonw_start_array(&w);
	for (unsigned c = 0; c < ncls; c++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, c);
		struct xtx_class_stats cs = { 0 };
		uint64_t dr = 0;
		char h[XTX_HANDLE_STRLEN];
		int k = class_slot(e, cfg, c);

		if (k >= 0)
			xtx_engine__class_stats(e, (unsigned)k, &cs);
		for (int r = 0; r < XTX_DROP__MAX; r++)
			dr += cs.drops[r];
		xtx_handle__str(co->handle, h, sizeof(h));
		jsonw_start_object(&w);
		jsonw_string_field(&w, "handle", h);
		jsonw_uint_field(&w, "index", k >= 0 ? (unsigned)k : 0);
		jsonw_bool_field(&w, "leaf", is_leaf(cfg, co->handle));
		jsonw_uint_field(&w, "rate_bps", co->rate * 8);
		jsonw_uint_field(&w, "ceil_bps", co->ceil * 8);
		jsonw_uint_field(&w, "sent_pkts", cs.sent_pkts);
		jsonw_uint_field(&w, "sent_bytes", cs.sent_bytes);
		jsonw_uint_field(&w, "dropped_pkts", dr);
		jsonw_uint_field(&w, "codel_drops", cs.drops[XTX_DROP_CODEL]);
		jsonw_uint_field(&w, "xdp_policed", s->policed && k >= 0 ? s->policed[k].pkts : 0);
		jsonw_uint_field(&w, "ecn_marks", cs.ecn_marks);
		jsonw_float_field(&w, "measured_bps", (double)cs.sent_bytes * 8 / dur, 1);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);

	jsonw_name(&w, "frames");
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "total", fc->total);
	jsonw_uint_field(&w, "pool", fc->pool);
	jsonw_uint_field(&w, "cached", fc->cached);
	jsonw_uint_field(&w, "app", fc->app);
	jsonw_uint_field(&w, "stage", fc->stage);
	jsonw_uint_field(&w, "sched", fc->sched);
	jsonw_uint_field(&w, "tx", fc->tx);
	jsonw_uint_field(&w, "dequeuer", fc->dequeuer);
	jsonw_uint_field(&w, "fill", fc->fill);
	jsonw_uint_field(&w, "receiver", fc->receiver);
	jsonw_end_object(&w);
	jsonw_end_object(&w);
	jsonw_finish(&w);
}

static void report(const struct shape *s, struct xtx_engine *e, const struct xtx_sched_config *cfg,
		   const struct xtx_xdp_counter *xs, double dur, int xdp_ok)
{
	struct xtx_frame_count fc;
	struct totals t;
	unsigned ncls = xtx_sched_config__class_count(cfg);

	totals(e, &t);
	xtx_engine__frames(e, &fc);
	if (!s->opt.json) {
		printf("xtx-shape: %s -> %s, %s mode, XDP %s, AF_XDP %s, %s, %u RX / %u TX "
		       "queue(s), %.3f s\n", s->opt.in, s->opt.out, s->opt.l2 ? "l2" : "router",
		       xdpa_mode_name(s->xp.mode), xtx_engine__mode(e), xtx_engine__rx_path(e),
		       s->opt.queues, s->opt.tx_queues, dur);
		printf("  xdp: redirected %lu", (unsigned long)xs[XTX_RD_REDIRECT].pkts);
		for (int k = 1; k < XTX_RD_STAT_MAX && xdp_ok; k++)
			if (xs[k].pkts)
				printf(", %s %lu", xtx_rd_stat_name(k), (unsigned long)xs[k].pkts);
		printf("\n  rx: %lu frames, forwarded %lu, dropped: stage_full %lu no_frame %lu "
		       "bad_desc %lu; kernel dropped %lu (ring full %lu, fill empty %lu)\n",
		       (unsigned long)t.rx.rx_pkts, (unsigned long)t.rx.fwd_pkts,
		       (unsigned long)t.rx.drops[XTX_RX_DROP_STAGE_FULL],
		       (unsigned long)t.rx.drops[XTX_RX_DROP_NO_FRAME],
		       (unsigned long)t.rx.drops[XTX_RX_DROP_BAD_DESC],
		       (unsigned long)t.rx.k_dropped, (unsigned long)t.rx.k_rx_ring_full,
		       (unsigned long)t.rx.k_fill_empty);
		printf("  tx: sent %lu (%.3f Mbit/s), dropped %lu", (unsigned long)t.sent,
		       (double)t.sent_bytes * 8 / dur * 1e-6, (unsigned long)t.dropped);
		for (int r = 0; r < XTX_DROP__MAX; r++)
			if (t.drops[r])
				printf(" (%s %lu)", xtx_drop_reason__str(r), (unsigned long)t.drops[r]);
		printf("\n");
		for (unsigned c = 0; c < ncls; c++) {
			const struct xtx_class_opts *co = xtx_sched_config__class(cfg, c);
			struct xtx_class_stats cs;
			char h[XTX_HANDLE_STRLEN];
			int k;

			if (!leaf_stats(e, cfg, c, &cs, h, &k))
				continue;
			printf("  class %-8s sent %10lu pkts %9.3f Mbit/s (rate %.3f, ceil %.3f), "
			       "policed %lu, codel %lu\n", h,
			       (unsigned long)cs.sent_pkts, (double)cs.sent_bytes * 8 / dur * 1e-6,
			       (double)co->rate * 8e-6, (double)co->ceil * 8e-6,
			       (unsigned long)(s->policed && k >= 0 ? s->policed[k].pkts : 0),
			       (unsigned long)cs.drops[XTX_DROP_CODEL]);
		}
		printf("  frames: %lu total, %lu free\n", (unsigned long)fc.total,
		       (unsigned long)(fc.pool + fc.cached + fc.dequeuer + fc.receiver));
		return;
	}
	print_json(s, e, cfg, xs, dur, &t, &fc);
}

/* The class tree and the rules, both files read first: a bad file is a usage error,
 * whatever the interfaces. 0, or 2 (the exit status) after the message. */
static int load_files(const struct shape *s, struct xtx_sched_config **cfg,
		      struct rd_rules *rs)
{
	char err[1024];
	int rc;

	*cfg = xtx_sched_config__parse_file(s->opt.classes, err, sizeof(err));
	if (!*cfg) {
		fprintf(stderr, "xtx-shape: %s\n", err);
		return 2;
	}
	if (s->opt.rules)
		rc = rd_rules__parse_file(rs, s->opt.rules, err, sizeof(err));
	else
		rc = rd_rules__parse_string(rs, "", "(no rules)", err, sizeof(err));
	if (!rc)
		rc = rd_rules__resolve(rs, *cfg, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "xtx-shape: %s\n", err);
		xtx_sched_config__free(*cfg);
		*cfg = NULL;
		return 2;
	}
	return 0;
}

/* --queues: given, or as many as --in has; warns when frames arriving on other queues
 * would go to the kernel unshaped. */
static void pick_queues(struct shape *s)
{
	unsigned have = 0;

	/* ethtool: the current namespace's interface (/sys may show another one). */
	netdev_rx_queues(s->opt.in, &have);
	if (!s->opt.queues) {
		s->opt.queues = have ? have : 1;
		if (!have)
			fprintf(stderr, "xtx-shape: cannot read the number of receive queues "
				"of %s; using queue 0 only (give --queues)\n", s->opt.in);
		if (s->opt.queues > XTX_RD_MAX_QUEUES)
			s->opt.queues = XTX_RD_MAX_QUEUES;
	} else if (have > s->opt.queues) {
		fprintf(stderr, "xtx-shape: warning: %s has %u receive queues, --queues %u "
			"covers 0..%u: frames arriving on the others go to the kernel "
			"unshaped\n", s->opt.in, have, s->opt.queues, s->opt.queues - 1);
	}
}

/* xtx-doctor's checks of --out as a sender's (its TX queues and dequeuer CPUs) and of
 * --in as a receiver's (frames of its MTU into a chunk), a line each on stderr (with
 * --json, in the summary instead). */
static void run_doctor(struct shape *s)
{
	struct doctor_opts out = {
		.queues = s->opt.tx_queues, .cpus = s->opt.cpus, .busy_poll = s->opt.busy_poll,
		.frame_room = 2048 - 64,
	};
	struct doctor_opts in = {
		.cpus = s->opt.rx_cpus, .busy_poll = s->opt.busy_poll, .frame_room = 2048 - 64,
	};

	doctor_check_iface(s->opt.in, &in, &s->doctor_in);
	doctor_check_iface(s->opt.out, &out, &s->doctor_out);
	s->doctored = true;
	if (!s->opt.json)
		fprintf(stderr, "xtx-shape: xtx-doctor %s\nxtx-shape: xtx-doctor %s\nxtx-shape: "
			"(xtx-doctor IF for the fixes; --no-doctor skips this)\n",
			s->doctor_in.text, s->doctor_out.text);
}

/* The interfaces, in --netns if given: their indexes, --in's MAC, the queues, the CPU
 * count for the per-CPU maps. 0, or -1 after the message. */
static int find_interfaces(struct shape *s)
{
	int rc;

	if (s->opt.netns && xdpa_enter_netns("xtx-shape", s->opt.netns))
		return -1;
	s->in_ifindex = (int)if_nametoindex(s->opt.in);
	s->out_ifindex = (int)if_nametoindex(s->opt.out);
	if (!s->in_ifindex || !s->out_ifindex) {
		fprintf(stderr, "xtx-shape: no interface '%s' in this network namespace; see "
			"'ip link'%s\n", !s->in_ifindex ? s->opt.in : s->opt.out,
			s->opt.netns ? "" : ", or give --netns");
		return -1;
	}
	if ((rc = netdev_mac(s->opt.in, s->in_mac))) {
		fprintf(stderr, "xtx-shape: cannot read the MAC address of %s: %s\n", s->opt.in,
			strerror(-rc));
		return -1;
	}
	pick_queues(s);
	s->ncpu = libbpf_num_possible_cpus();
	if (s->ncpu <= 0) {
		fprintf(stderr, "xtx-shape: cannot read the number of possible CPUs\n");
		return -1;
	}
	return 0;
}

/* The engine: transmit on --out, receive on --in, the class tree; NULL after the
 * message. */
static struct xtx_engine *open_engine(const struct shape *s, const struct xtx_sched_config *cfg)
{
	struct xtx_engine_opts eo = {
		.sz = sizeof(eo), .ifname = s->opt.out, .queues = s->opt.tx_queues,
		.mode = s->opt.copy ? XTX_MODE_COPY : XTX_MODE_AUTO, .busy_poll = s->opt.busy_poll,
		.cpus = s->opt.cpus, .classes = cfg, .drain_timeout_ns = 2000ull * 1000 * 1000,
		.drop_on_close = drop_at_end, .max_producers = 4,
		/* Received frames cannot wait: take overload into the scheduler, whose class
		 * limits drop by class as HTB does, instead of dropping at a full stage. */
		.intake_batches = 4, .deq_nice = deq_nice, .deq_rtprio = deq_rt,
		.queue_classes = s->opt.queue_classes, .codel = !no_codel,
		.target_ns = s->opt.police_ns,
		.rx_ifname = s->opt.in, .rx_queues = s->opt.queues, .rx_cpus = s->opt.rx_cpus,
		.rx_busy_poll = s->opt.busy_poll, .rx_copy = s->opt.rx_copy,
		.max_classes = s->opt.max_classes,
	};
	struct xtx_engine *e;
	bool capped = false;
	char err[1024];

	eo.frame_count = s->opt.frames ? s->opt.frames : frames_needed(&eo, cfg, &capped);
	if (capped)
		fprintf(stderr, "xtx-shape: note: the leaves' limits add up to more frames than "
			"the %u used; when they are all full, frames are dropped on receive "
			"(no_frame) instead of by the scheduler; lower 'limit' or give --frames\n",
			eo.frame_count);
	e = xtx_engine__open(&eo, err, sizeof(err));
	if (!e)
		fprintf(stderr, "xtx-shape: %s\n", err);
	return e;
}

int main(int argc, char **argv)
{
	struct shape s = { .lock = { .fd = -1 }, .metrics_fd = -1, .metrics_stop = { -1, -1 } };
	static struct rd_rules rs;
	struct xtx_xdp_counter xs[XTX_RD_STAT_MAX] = { { 0, 0 } };
	struct xtx_sched_config *cfg = NULL;
	struct xtx_engine *e = NULL;
	sigset_t waitmask;
	bool ready_written = false;
	double dur = 0;
	int rc, ret = 1, xdp_ok = 0;

	parse_args(argc, argv, &s.opt);
	xdpa_set_print(s.opt.verbose);

	stopsig_block(on_signal, &waitmask);
	/* SIGHUP reloads instead; still blocked outside the loop's wait. */
	sigaction(SIGHUP, &(struct sigaction){ .sa_handler = on_hup }, NULL);
	if (load_files(&s, &cfg, &rs))
		return 2;
	s.overhead = xtx_sched_config__overhead(cfg);
	if (shape_check_caps(&s) || find_interfaces(&s))
		goto out_cfg;
	if (!s.opt.no_doctor)
		run_doctor(&s);
	if (shape_lock(&s))
		goto out_cfg;
	if (shape_detach_stale(&s))
		goto out_unlock;
	e = open_engine(&s, cfg);
	if (!e)
		goto out_unlock;
	/* Per class index (slot): the policing maps, room rows and XDP counters. */
	s.ncls = xtx_engine__class_count(e);
	s.policed = calloc(s.ncls, sizeof(*s.policed));
	if (!s.policed) {
		fprintf(stderr, "xtx-shape: out of memory\n");
		goto out_engine;
	}
	xtx_engine__set_change_check(e, rules_keep_classes, &rs);
	if (shape_attach(&s, &rs))
		goto out_engine;
	if (shape_fill_xskmap(&s, e))
		goto out_detach;
	if (s.opt.police_ns && shape_police(&s, e))
		goto out_detach;
	control_listen(&s, e);
	if (shape_metrics_start(&s, e))
		goto out_detach;
	if ((rc = shape_drop_caps(&s, e))) {
		fprintf(stderr, "xtx-shape: cannot drop capabilities: %s\n", strerror(-rc));
		goto out_detach;
	}
	xdp_ok = 1;
	if (!s.opt.json)
		fprintf(stderr, "xtx-shape: %s -> %s: %s mode, XDP %s%s, AF_XDP %s, %s, %u "
			"rule(s)\n", s.opt.in, s.opt.out, s.opt.l2 ? "l2" : "router",
			xdpa_mode_name(s.xp.mode), s.xp.dispatcher ? " (libxdp dispatcher)" : "",
			xtx_engine__mode(e), xtx_engine__rx_path(e), rs.n);
	if (s.opt.ready_file) {
		if (write_ready(&s, e))
			goto out_detach;
		ready_written = true;
	}
	rc = run(&s, e, &cfg, &waitmask, &dur);
	ret = rc || s.gone ? 1 : 0;
out_detach:
	if (s.skel && read_xdp_stats(&s, xs))
		memset(xs, 0, sizeof(xs));
	if (s.skel && s.policed && shape_read_policed(&s))
		memset(s.policed, 0, s.ncls * sizeof(*s.policed));
	if (shape_detach(&s))
		ret = 1;
out_engine:
	shape_metrics_stop(&s);
	if (e) {
		rc = xtx_engine__stop(e);
		if (rc == -ETIMEDOUT)
			fprintf(stderr, "xtx-shape: the drain timed out; the rest was dropped "
				"(counted as purged)\n");
		struct xtx_sched_config *now = xtx_engine__classes(e);	/* xtx-ctl's too */

		if (now) {
			xtx_sched_config__free(cfg);
			cfg = now;
		}
		if (xdp_ok)
			report(&s, e, cfg, xs, dur > 0 ? dur : 1e-9, xdp_ok);
		xtx_engine__close(e);
	}
	shape_unpolice(&s);
	free(s.policed);
	if (ready_written)
		unlink(s.opt.ready_file);
out_unlock:
	shape_unlock(&s);
out_cfg:
	xtx_sched_config__free(cfg);
	return ret;
}
