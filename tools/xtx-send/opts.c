/* SPDX-License-Identifier: BSD-3-Clause */
/* opts.c - xtx-send's command line: parsing, --help. Numbers, CPU lists and rates are
 * read by tools/common (cli.h, units.h); the messages are xtx-send's own. */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <xtx/pkt.h>
#include <xtx/xtx.h>
#include "cli.h"
#include "opts.h"
#include "units.h"

static const char usage_text[] =
"NAME\n"
"    xtx-send - send UDP traffic through the xtx AF_XDP engine, shaped by an HTB/FQ class tree\n"
"\n"
"SYNOPSIS\n"
"    xtx-send --dev IF --dst-ip IP [--dst-mac MAC] [--src-ip IP] [--dst-port P] [--flows N]\n"
"             [--size BYTES|imix] [--queues N] [--queue-classes] [--producers N]\n"
"             [--classes FILE] [--rate R]\n"
"             [--duration S | --count N] [--json] [--allow-dst PREFIX]... [--allow-any-dst]\n"
"             [more options below]\n"
"\n"
"DESCRIPTION\n"
"    Opens one AF_XDP socket and one dequeuer thread per TX queue of IF (no XDP program is\n"
"    loaded), starts N producer threads that build UDP packets and hand them to the lock-free\n"
"    stage, and lets the scheduler shape them by the class tree. Flow i goes to UDP destination\n"
"    port P+i and is built, in order, by producer i mod N; flows are assigned to the leaf\n"
"    classes round robin in the order the leaves appear in the class file, so a kernel\n"
"    comparison can classify the same ports with u32.\n"
"    A line per interval goes to stderr (pps, Gbit/s, per-class rates, drops); a summary at\n"
"    the end goes to stdout (JSON with --json). SIGINT or SIGTERM stops the run early: queued\n"
"    packets are drained (or dropped with --drop) and the summary is printed.\n"
"\n"
"OPTIONS\n"
"    --dev IF           interface to send on (required), or the built-in null device:\n"
"                       null completes every frame at once, null:RATE (e.g. null:10gbit)\n"
"                       emulates a wire of RATE counting 24 bytes of preamble, gap and FCS\n"
"                       per frame. The null device needs no interface, capability or root;\n"
"                       the addresses not given default to 02:00:00:00:00:01 -> :02 and\n"
"                       198.18.0.1 (2001:2::1). docs/real-nic.md says what it measures\n"
"    --dst-ip IP        destination IPv4 or IPv6 address (required), in 198.18.0.0/15 or\n"
"                       2001:2::/48 unless allowed by the next two options\n"
DSTGUARD_USAGE("                       ")
"    --dst-mac MAC      next hop's MAC; default: resolved like the kernel (route, ARP/ND,\n"
"                       probing if needed)\n"
"    --src-ip IP        source address; default: the one the kernel would use\n"
"    --src-mac MAC      source MAC; default: IF's address\n"
"    --dst-port P       first destination port (default 9000); flow i uses P+i\n"
"    --src-port P       source port (default 9000)\n"
"    --flows N          number of flows (default 1)\n"
"    --size BYTES|imix  Ethernet frame length without FCS, 60..9216 (default 64); imix sends\n"
"                       60, 590 and 1514 byte frames in the ratio 7:4:1. Above 4032 (a\n"
"                       jumbo frame) each frame spans up to three UMEM frames, sent as\n"
"                       one multi-buffer AF_XDP packet (XDP_USE_SG, Linux 6.6+; copy\n"
"                       mode, or a driver whose xdp-zc-max-segs allows). A size the\n"
"                       interface's MTU does not take (above MTU + 14) is refused\n"
"    --queues N         TX queues to use from --first-queue (default 1), one dequeuer and\n"
"                       scheduler each; flows are spread over them by hash. Every class\n"
"                       holds its rate, ceil and bursts for the sum over the queues\n"
"                       (device-wide classes; docs/design.md says how and within what)\n"
"    --queue-classes    every class per queue instead, as mq with one HTB per queue: N\n"
"                       queues give a class N times its rate (a class file's 'scope\n"
"                       queue' does this for one class)\n"
"    --first-queue Q    first TX queue (default 0)\n"
"    --control PATH|off listen for xtx-ctl on this UNIX socket (owner only) while it\n"
"                       runs: class show, change, add, del, reload, stats, metrics.\n"
"                       Default /run/xtx/DEV.ctl (null.ctl for --dev null), with a\n"
"                       warning and no socket if another run holds it; a PATH given\n"
"                       must work ('dev': the default path, which then must work too)\n"
"    --producers N      producer threads (default: one per online CPU)\n"
"    --classes FILE     class tree (docs/config.md); default: one class, no limit\n"
"    --rate R           offered load of all flows together: a packet rate (e.g. 500kpps,\n"
"                       2mpps) or a bit rate in tc units (e.g. 100mbit, 1gbit) counted on\n"
"                       frame bytes (Ethernet header to the end of the payload: no FCS,\n"
"                       preamble or gap). Each of the F flows (--flows F) is paced at R/F:\n"
"                       R/F packets per second, or R/F bit/s = R/(8F) frame bytes per\n"
"                       second, whatever --producers is (a producer that owns k flows\n"
"                       paces at k*R/F and sends its flows in turn, each with its own imix\n"
"                       mix). Frames leave in bursts of up to 32; a producer that falls\n"
"                       more than 1 ms behind catches up 1 ms of it, not the rest.\n"
"                       Default: as fast as the producers can\n"
"    --duration S       run for S seconds (default 10)\n"
"    --count N          offer exactly N packets, then stop; the summary accounts for each.\n"
"                       Each flow gets N/F of them (F = --flows; the first N mod F flows\n"
"                       one more)\n"
"    --interval S       seconds between live lines on stderr (default 1; 0 = none)\n"
"    --json             print the summary as one JSON object on stdout\n"
"    --copy             force AF_XDP copy mode\n"
"    --zero-copy        require zero-copy (fail if the driver cannot)\n"
"    --tx-csum off|on|sw\n"
"                       UDP checksums: off (default) the producers compute each one;\n"
"                       on hands them to the device through AF_XDP TX metadata (Linux\n"
"                       6.8+; a device whose xsk-features have tx-checksum, see\n"
"                       xtx-doctor; in copy mode the kernel's own path, which checksums\n"
"                       in software where the device does not): producers then write\n"
"                       only the pseudo-header sum; sw asks the kernel to compute them\n"
"                       in software (XDP_UMEM_TX_SW_CSUM, 6.11+), for devices without\n"
"                       the offload and for checking\n"
"    --tx-timestamps N  every N-th packet of a queue asks for its TX timestamp (AF_XDP TX\n"
"                       metadata, Linux 6.8+; copy mode: the kernel's time when the device\n"
"                       took the frame; zero-copy: a device with tx-timestamp, in its\n"
"                       clock) and the summary gives each class's departure conformance:\n"
"                       how late its packets left after the scheduler released them\n"
"                       (p50, p99, max; 12.5% buckets). Not with --dev null\n"
"    --zc-prog auto|on|off\n"
"                       the XDP program that i40e, ixgbe and virtio_net need attached\n"
"                       before they bind zero-copy: auto (default) attaches xtx's pass\n"
"                       program (every frame to the kernel) in native mode on those\n"
"                       drivers when zero-copy is tried, behind libxdp's dispatcher\n"
"                       where the kernel allows (other programs keep working), and\n"
"                       removes it at exit, or at once if the socket ends in copy mode;\n"
"                       on does so on any driver and keeps it for the run (fails if it\n"
"                       cannot attach); off never attaches. An XDP program already there\n"
"                       that libxdp cannot join is used as it is (said at start)\n"
"    --busy-poll        dequeuers spin instead of sleeping when idle, and the TX sockets\n"
"                       busy-poll as with --sock-busy-poll\n"
"    --sock-busy-poll   the kernel's busy polling on the TX sockets only\n"
"                       (SO_PREFER_BUSY_POLL, SO_BUSY_POLL 20 us, SO_BUSY_POLL_BUDGET 64;\n"
"                       needs CAP_NET_ADMIN): each sendto() of a dequeuer polls the\n"
"                       queue's NAPI context (zero-copy), the dequeuers still sleep when\n"
"                       idle; docs/real-nic.md says which device settings go with it\n"
"    --cpus LIST        dequeuer CPUs, e.g. 2,3 or 2-5 (default: the NIC's NUMA node)\n"
"    --producer-cpus LIST\n"
"                       pin producer i to the i-th CPU of LIST, round robin (default: not\n"
"                       pinned)\n"
"    --frames N         frames in the UMEM (default 8192 per queue)\n"
"    --stop-flows FIRST[-LAST]@S\n"
"                       flows FIRST to LAST (0-based, ports P+FIRST to P+LAST; LAST\n"
"                       defaults to the last flow) stop being offered S seconds into the\n"
"                       run while the others go on: the rest of a class's traffic, or of\n"
"                       a queue's, then shows how the scheduler follows demand. At least\n"
"                       one flow must go on; not with --count\n"
"    --flow-rate FIRST[-LAST]@R\n"
"                       flows FIRST to LAST (LAST defaults to FIRST) are offered at R\n"
"                       together (each R over their number, in --rate's units), the\n"
"                       others as fast as the producers can: a light class beside a\n"
"                       flooded one, e.g. 0@1mbit with flow 0 in a prio 0 class. A\n"
"                       paced flow that falls more than 1 ms behind catches up 1 ms of\n"
"                       it. Not with --rate or --count\n"
"    --target T         room target of every leaf without its own 'target' (docs/config.md):\n"
"                       a class that holds T of its departures on a queue is held back\n"
"                       before its packets are built, so it waits instead of filling its\n"
"                       leaf to the limit and dropping; other classes go on. A time in\n"
"                       tc's units (1ms, 500us), or off: fill each leaf to its limit\n"
"                       and drop, as the kernel's qdiscs do for a sender that cannot\n"
"                       wait. Default 250us (XTX_SCHED_TARGET_NS)\n"
"    --drain S          at the end, wait up to S seconds for queued packets (default 2)\n"
"    --drop             at the end, drop queued packets at once (counted)\n"
"    --no-stamp         do not write send timestamps into the payload\n"
"    --no-doctor        do not run xtx-doctor's checks of IF at start (by default their\n"
"                       one line goes to stderr, e.g. \"xtx-doctor eth1: 14 pass, 3 warn,\n"
"                       0 fail, warn hugepages, ...\"; xtx-doctor IF says what each means\n"
"                       and how to fix it; with --json it is the summary's doctor field)\n"
"    -h, --help         this text\n"
"\n"
"OUTPUT\n"
"    --json prints one object: dev, mode, zc_prog ({id, dispatcher} of the pass\n"
"    program --zc-prog attached, or null), tx_csum (off|on|sw), queues, class_scope\n"
"    (device|queue), target_ns (--target; null when off), producers, flows,\n"
"    stop_flows ({first, last, at_s} or null), flow_rate ({first, last, pps, bps}:\n"
"    --flow-rate, one of the rates 0; or null), size; offered_pkts (taken by the\n"
"    engine), sent_pkts, sent_bytes, dropped_pkts {total and one count per drop\n"
"    reason: leaf_limit, flow_limit,\n"
"    no_class, no_bufs, horizon, purged}, unaccounted_pkts (offered - sent - dropped:\n"
"    0 unless something was lost); moved_pkts (queued packets a live change moved to\n"
"    the default class: their class was removed, xtx-ctl class del); tx_ring [{limit,\n"
"    limited, full}] per queue (the ring's limit learnt from completions, transmits it\n"
"    cut, times the ring was full);\n"
"    room {stops (bursts cut short by a class without room), waits}; bad_desc (bursts\n"
"    cut short by a descriptor the engine refused: 0 unless xtx-send has a bug);\n"
"    duration_s, pps,\n"
"    gbps (frame bytes), cpu_ns_per_pkt (the whole process), producer_cpu_ns_per_pkt,\n"
"    dequeuer_cpu_ns_per_pkt; doctor {pass, warn, fail, line} (xtx-doctor's checks of\n"
"    IF at start; null with --no-doctor or the null device); null {frames, bytes,\n"
"    wire_bytes, busy_ns, gap_ns, busy_frac} with --dev null[:RATE]; interrupted, device_gone; classes [{handle,\n"
"    index, removed (by a live change: its counters ended there), rate_bps, ceil_bps,\n"
"    offered_pkts, sent_pkts, sent_bytes, dropped_pkts, room_closes, codel_drops,\n"
"    ecn_marks, measured_bps, departure ({samples, early, invalid, p50_ns, p99_ns,\n"
"    max_ns} with --tx-timestamps, else null)}] per leaf; frames {total, free (pool +\n"
"    cached + dequeuer), in_flight (app + stage + sched + tx + chained), and each:\n"
"    pool, cached, dequeuer, app, stage, sched, tx, chained (the further frames of\n"
"    jumbo packets in stages and schedulers)}.\n"
"\n"
"EXIT STATUS\n"
"    0 the run completed (also when stopped by SIGINT/SIGTERM); 1 a runtime error (interface,\n"
"    privileges, AF_XDP); 2 a usage error (bad option or value, bad class file) or a\n"
"    --dst-ip outside the benchmarking ranges and --allow-dst (nothing is sent).\n"
"\n"
"EXAMPLES\n"
"    xtx-send --dev eth1 --dst-ip 198.18.1.2 --flows 64 --classes two-tenants.conf --duration 30\n"
"    xtx-send --dev eth1 --dst-ip 198.18.1.2 --size imix --rate 5gbit --count 1000000 --json\n"
"    xtx-send --dev null --dst-ip 198.18.0.2 --cpus 0 --producers 1 --producer-cpus 1 --json\n";

static int bad(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "xtx-send: bad value '%s' for %s: expected %s (see --help)\n", val, opt,
		want);
	return 2;
}

/* FIRST[-LAST]@WHAT (flows 0..65534, LAST >= FIRST): *first, *last (FIRST when not
 * given), *have_last, and WHAT copied into what[0..whatlen). 0, or -1 if malformed. */
static int parse_flow_span(const char *arg, uint32_t *first, uint32_t *last, int *have_last,
			   char *what, size_t whatlen)
{
	char buf[64], *at, *dash;
	uint64_t a, b;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	at = strchr(buf, '@');
	if (!at || strlen(at + 1) >= whatlen)
		return -1;
	*at++ = 0;
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = 0;
	if (cli_str_to_u64(buf, 10, 0, 65534, &a) ||
	    (dash && cli_str_to_u64(dash, 10, a, 65534, &b)))
		return -1;
	*first = (uint32_t)a;
	*last = dash ? (uint32_t)b : (uint32_t)a;
	*have_last = dash != NULL;
	strcpy(what, at);
	return 0;
}

/* FIRST[-LAST]@R into o->fr_*. */
static int parse_flow_rate(const char *arg, struct send_opts *o)
{
	char rate[64];
	int have_last;

	if (parse_flow_span(arg, &o->fr_first, &o->fr_last, &have_last, rate, sizeof(rate)) ||
	    units_parse_rate(rate, &o->fr_pps, &o->fr_bps) || (!o->fr_pps && !o->fr_bps))
		return -1;
	return 0;
}

/* FIRST[-LAST]@S into o->stop_*; *have_last says whether LAST was given. */
static int parse_stop_flows(const char *arg, struct send_opts *o, int *have_last)
{
	char at[64];

	if (parse_flow_span(arg, &o->stop_first, &o->stop_last, have_last, at, sizeof(at)) ||
	    cli_str_to_double(at, 0.001, 1e6, &o->stop_at_s))
		return -1;
	return 0;
}

int send_opts_parse(int argc, char **argv, struct send_opts *o)
{
	enum { O_DEV = 256, O_DST_IP, O_DST_MAC, O_SRC_IP, O_SRC_MAC, O_DST_PORT, O_SRC_PORT,
	       O_FLOWS, O_SIZE, O_QUEUES, O_FIRST_Q, O_PRODUCERS, O_CLASSES, O_RATE,
	       O_DURATION, O_COUNT, O_INTERVAL, O_JSON, O_COPY, O_ZC, O_BUSY, O_CPUS, O_PROD_CPUS, O_FRAMES,
	       O_DRAIN, O_DROP, O_NO_STAMP, O_ALLOW_DST, O_ALLOW_ANY_DST, O_QCLS, O_STOP_FLOWS,
	       O_FLOW_RATE,
	       O_TARGET, O_CONTROL, O_NO_DOCTOR, O_ZC_PROG, O_TX_CSUM, O_TX_TS, O_SOCK_BUSY };
	static const struct option lo[] = {
		{ "dev", 1, 0, O_DEV }, { "dst-ip", 1, 0, O_DST_IP }, { "dst-mac", 1, 0, O_DST_MAC },
		{ "src-ip", 1, 0, O_SRC_IP }, { "src-mac", 1, 0, O_SRC_MAC },
		{ "dst-port", 1, 0, O_DST_PORT }, { "src-port", 1, 0, O_SRC_PORT },
		{ "flows", 1, 0, O_FLOWS }, { "size", 1, 0, O_SIZE }, { "queues", 1, 0, O_QUEUES },
		{ "first-queue", 1, 0, O_FIRST_Q }, { "producers", 1, 0, O_PRODUCERS },
		{ "classes", 1, 0, O_CLASSES }, { "rate", 1, 0, O_RATE },
		{ "duration", 1, 0, O_DURATION }, { "count", 1, 0, O_COUNT },
		{ "interval", 1, 0, O_INTERVAL }, { "json", 0, 0, O_JSON }, { "copy", 0, 0, O_COPY },
		{ "zero-copy", 0, 0, O_ZC }, { "busy-poll", 0, 0, O_BUSY }, { "cpus", 1, 0, O_CPUS },
		{ "producer-cpus", 1, 0, O_PROD_CPUS },
		{ "frames", 1, 0, O_FRAMES }, { "drain", 1, 0, O_DRAIN }, { "drop", 0, 0, O_DROP },
		{ "no-stamp", 0, 0, O_NO_STAMP }, { "allow-dst", 1, 0, O_ALLOW_DST },
		{ "allow-any-dst", 0, 0, O_ALLOW_ANY_DST }, { "queue-classes", 0, 0, O_QCLS },
		{ "stop-flows", 1, 0, O_STOP_FLOWS }, { "target", 1, 0, O_TARGET },
		{ "control", 1, 0, O_CONTROL }, { "no-doctor", 0, 0, O_NO_DOCTOR },
		{ "zc-prog", 1, 0, O_ZC_PROG }, { "tx-csum", 1, 0, O_TX_CSUM },
		{ "tx-timestamps", 1, 0, O_TX_TS }, { "sock-busy-poll", 0, 0, O_SOCK_BUSY },
		{ "flow-rate", 1, 0, O_FLOW_RATE },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 }
	};
	int c, have_dur = 0, have_dst = 0, have_stop_last = 0;
	uint64_t v;
	char err[512];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(o, 0, sizeof(*o));
	dstguard_init(&o->guard);
	o->dst_port = 9000;
	o->src_port = 9000;
	o->flows = 1;
	o->size = 64;
	o->queues = 1;
	o->producers = ncpu > 0 ? (uint32_t)ncpu : 1;
	o->duration = 10;
	o->interval = 1;
	o->stamp = 1;
	o->drain = 2;
	o->target_ns = XTX_SCHED_TARGET_NS;
	o->mode = XTX_MODE_AUTO;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case O_DEV:
			o->dev = optarg;
			break;
		case O_DST_IP:
		case O_SRC_IP: {
			uint8_t *dst = c == O_DST_IP ? o->dst_ip : o->src_ip;
			int fam = strchr(optarg, ':') ? AF_INET6 : AF_INET;

			if (inet_pton(fam, optarg, dst) != 1)
				return bad(c == O_DST_IP ? "--dst-ip" : "--src-ip", optarg,
					   "an IPv4 or IPv6 address");
			if (c == O_DST_IP) {
				o->family = fam;
				have_dst = 1;
			} else {
				o->have_src_ip = fam;
			}
			break;
		}
		case O_DST_MAC:
		case O_SRC_MAC:
			if (xtx_pkt__parse_mac(optarg, c == O_DST_MAC ? o->dst_mac : o->src_mac))
				return bad(c == O_DST_MAC ? "--dst-mac" : "--src-mac", optarg,
					   "a MAC address like 02:00:00:00:00:01");
			*(c == O_DST_MAC ? &o->have_dst_mac : &o->have_src_mac) = 1;
			break;
		case O_DST_PORT:
		case O_SRC_PORT:
			if (cli_str_to_u64(optarg, 10, 1, 65535, &v))
				return bad(c == O_DST_PORT ? "--dst-port" : "--src-port", optarg,
					   "a port 1..65535");
			*(c == O_DST_PORT ? &o->dst_port : &o->src_port) = (uint16_t)v;
			break;
		case O_FLOWS:
			if (cli_str_to_u64(optarg, 10, 1, 65535, &v))
				return bad("--flows", optarg, "1..65535");
			o->flows = (uint32_t)v;
			break;
		case O_SIZE:
			if (!strcasecmp(optarg, "imix"))
				o->size = 0;
			else if (cli_str_to_u64(optarg, 10, 60, 9216, &v))
				return bad("--size", optarg, "a frame length 60..9216 or imix");
			else
				o->size = (uint32_t)v;
			break;
		case O_QUEUES:
			if (cli_str_to_u64(optarg, 10, 1, 64, &v))
				return bad("--queues", optarg, "1..64");
			o->queues = (uint32_t)v;
			break;
		case O_FIRST_Q:
			if (cli_str_to_u64(optarg, 10, 0, 4095, &v))
				return bad("--first-queue", optarg, "0..4095");
			o->first_queue = (uint32_t)v;
			break;
		case O_PRODUCERS:
			if (cli_str_to_u64(optarg, 10, 1, MAX_PRODUCERS, &v))
				return bad("--producers", optarg, "1..256");
			o->producers = (uint32_t)v;
			break;
		case O_CLASSES:
			o->classes = optarg;
			break;
		case O_RATE:
			if (units_parse_rate(optarg, &o->rate_pps, &o->rate_bps))
				return bad("--rate", optarg, "a rate like 500kpps, 2mpps, 100mbit or 1gbit");
			break;
		case O_DURATION:
			if (cli_str_to_double(optarg, 0.001, 1e6, &o->duration))
				return bad("--duration", optarg, "seconds, 0.001..1000000");
			have_dur = 1;
			break;
		case O_COUNT:
			if (cli_str_to_u64(optarg, 10, 1, UINT64_MAX / 2, &o->count))
				return bad("--count", optarg, "a packet count >= 1");
			break;
		case O_INTERVAL:
			if (cli_str_to_double(optarg, 0, 3600, &o->interval))
				return bad("--interval", optarg, "seconds, 0..3600");
			break;
		case O_JSON:
			o->json = 1;
			break;
		case O_COPY:
			o->mode = XTX_MODE_COPY;
			break;
		case O_ZC:
			o->mode = XTX_MODE_ZEROCOPY;
			break;
		case O_TX_CSUM:
			if (!strcmp(optarg, "off"))
				o->tx_csum = 0;
			else if (!strcmp(optarg, "on"))
				o->tx_csum = 1;
			else if (!strcmp(optarg, "sw"))
				o->tx_csum = 2;
			else
				return bad("--tx-csum", optarg, "off, on or sw");
			break;
		case O_SOCK_BUSY:
			o->sock_busy_poll = 1;
			break;
		case O_TX_TS:
			if (cli_str_to_u64(optarg, 10, 1, 1u << 20, &v))
				return bad("--tx-timestamps", optarg, "a number from 1 to 1048576");
			o->tx_timestamps = (uint32_t)v;
			break;
		case O_ZC_PROG:
			if (!strcmp(optarg, "auto"))
				o->zc_prog = XTX_ZC_PROG_AUTO;
			else if (!strcmp(optarg, "on"))
				o->zc_prog = XTX_ZC_PROG_ON;
			else if (!strcmp(optarg, "off"))
				o->zc_prog = XTX_ZC_PROG_OFF;
			else
				return bad("--zc-prog", optarg, "auto, on or off");
			break;
		case O_QCLS:
			o->queue_classes = 1;
			break;
		case O_BUSY:
			o->busy_poll = 1;
			break;
		case O_CPUS:
			/* The engine's syntax (xtx_engine_opts.cpus), CPUs 0..4095. */
			if (cli_str_to_cpus(optarg, 4096, NULL, 0) < 0)
				return bad("--cpus", optarg, "CPUs like 2,3 or 2-5 (0..4095)");
			o->cpus = optarg;
			break;
		case O_PROD_CPUS:
			o->nprod_cpus = cli_str_to_cpus(optarg, 4096, o->prod_cpus, MAX_PRODUCERS);
			if (o->nprod_cpus < 0)
				return bad("--producer-cpus", optarg, "CPUs like 1 or 0,2-3 (0..4095)");
			if (o->nprod_cpus > MAX_PRODUCERS)
				o->nprod_cpus = MAX_PRODUCERS;
			break;
		case O_FRAMES:
			if (cli_str_to_u64(optarg, 10, 1024, 1u << 26, &v))
				return bad("--frames", optarg, "1024..67108864");
			o->frames = (uint32_t)v;
			break;
		case O_DRAIN:
			if (cli_str_to_double(optarg, 0, 3600, &o->drain))
				return bad("--drain", optarg, "seconds, 0..3600");
			break;
		case O_DROP:
			o->drop = 1;
			break;
		case O_CONTROL:
			o->control = optarg;
			break;
		case O_TARGET:
			if (!strcmp(optarg, "off"))
				o->target_ns = XTX_TARGET_OFF;
			else if (xtx_time__parse(optarg, &o->target_ns) || !o->target_ns ||
				 o->target_ns > 3600000000000ull)
				return bad("--target", optarg, "a time above 0 and at most 3600s, "
					   "e.g. 1ms or 500us, or off");
			break;
		case O_STOP_FLOWS:
			if (parse_stop_flows(optarg, o, &have_stop_last))
				return bad("--stop-flows", optarg, "FIRST[-LAST]@SECONDS, e.g. 8-15@2.5 "
					   "(flows 0..65534, seconds above 0)");
			break;
		case O_FLOW_RATE:
			if (parse_flow_rate(optarg, o))
				return bad("--flow-rate", optarg, "FIRST[-LAST]@RATE, e.g. 0@1mbit or "
					   "0-3@2000pps (flows 0..65534, a rate above 0)");
			break;
		case O_NO_STAMP:
			o->stamp = 0;
			break;
		case O_NO_DOCTOR:
			o->no_doctor = 1;
			break;
		case O_ALLOW_DST:
			if (dstguard_add(&o->guard, optarg, err, sizeof(err))) {
				fprintf(stderr, "xtx-send: %s (see --help)\n", err);
				return 2;
			}
			break;
		case O_ALLOW_ANY_DST:
			dstguard_allow_any(&o->guard);
			break;
		default:
			fprintf(stderr, "xtx-send: unknown or incomplete option '%s' (see --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "xtx-send: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (!o->dev || !have_dst) {
		fprintf(stderr, "xtx-send: --dev and --dst-ip are required (see --help)\n");
		return 2;
	}
	if (o->have_src_ip && o->have_src_ip != o->family) {
		fprintf(stderr, "xtx-send: --src-ip and --dst-ip must be of the same family\n");
		return 2;
	}
	if (o->count && have_dur) {
		fprintf(stderr, "xtx-send: give --duration or --count, not both\n");
		return 2;
	}
	if (o->count)
		o->duration = 0;
	if (o->stop_at_s > 0) {
		if (!have_stop_last)
			o->stop_last = o->flows - 1;
		if (o->count) {
			fprintf(stderr, "xtx-send: --stop-flows needs --duration: with --count every "
				"flow offers its share to the end\n");
			return 2;
		}
		if (o->stop_first > o->stop_last || o->stop_last >= o->flows) {
			fprintf(stderr, "xtx-send: --stop-flows: there is no flow %u, only flows "
				"0-%u (--flows %u)\n", o->stop_first >= o->flows ? o->stop_first :
				o->stop_last, o->flows - 1, o->flows);
			return 2;
		}
		if (o->stop_first == 0 && o->stop_last == o->flows - 1) {
			fprintf(stderr, "xtx-send: --stop-flows would stop every flow: give "
				"--duration %g instead\n", o->stop_at_s);
			return 2;
		}
		if (o->stop_at_s >= o->duration) {
			fprintf(stderr, "xtx-send: --stop-flows at %g s is not inside the run "
				"(--duration %g)\n", o->stop_at_s, o->duration);
			return 2;
		}
	}
	if (o->fr_pps || o->fr_bps) {
		if (o->count || o->rate_pps || o->rate_bps) {
			fprintf(stderr, "xtx-send: --flow-rate goes without --%s: it paces some "
				"flows and leaves the others unpaced\n", o->count ? "count" : "rate");
			return 2;
		}
		if (o->fr_last >= o->flows) {
			fprintf(stderr, "xtx-send: --flow-rate: there is no flow %u, only flows "
				"0-%u (--flows %u)\n", o->fr_last, o->flows - 1, o->flows);
			return 2;
		}
	}
	if ((uint32_t)o->dst_port + o->flows - 1 > 65535) {
		fprintf(stderr, "xtx-send: --dst-port %u with --flows %u goes past port 65535\n",
			o->dst_port, o->flows);
		return 2;
	}
	if (o->family == AF_INET6 && o->size && o->size < 62) {
		fprintf(stderr, "xtx-send: --size %u is too small for IPv6/UDP (at least 62)\n",
			o->size);
		return 2;
	}
	/* The frames' IP destination, before the interface or any socket is opened. */
	if (dstguard_check(&o->guard, o->family, o->dst_ip, "send to", err, sizeof(err))) {
		fprintf(stderr, "xtx-send: %s\n", err);
		return 2;
	}
	return 0;
}
