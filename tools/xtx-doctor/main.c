/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx-doctor - a preflight for a real NIC: reads the machine and the interface, changes
 * nothing, and says pass, warn or fail for each item with the command that fixes it.
 * `xtx-doctor --help` is the manual; facts.c reads, checks.c judges.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_checks.h"
#include "cli.h"
#include "doctor_facts.h"
#include "json.h"

static const char usage_text[] =
"NAME\n"
"    xtx-doctor - check a machine and a NIC before running xtx on them\n"
"\n"
"SYNOPSIS\n"
"    xtx-doctor IF [--queues N] [--cpus LIST] [--busy-poll] [--zero-copy]\n"
"               [--zc-prog auto|on|off] [--tx-csum off|on|sw] [--tx-timestamps]\n"
"               [--frame-size 2048|4096] [--size BYTES]\n"
"               [--json | --summary]\n"
"    xtx-doctor IF --dump-facts > FILE\n"
"    xtx-doctor --facts FILE [options]\n"
"\n"
"DESCRIPTION\n"
"    Reads, never changes: sysfs, procfs, ethtool's get ioctls (driver, firmware,\n"
"    channels) and the netdev netlink family's dev-get (xdp-features, xdp-zc-max-segs,\n"
"    xsk-features), in the network namespace it runs in. Prints one line per check:\n"
"    pass, warn or fail, what it found and, unless it passed, the command that fixes it\n"
"    (docs/real-nic.md says what each warning means):\n"
"\n"
"    interface      IF exists here\n"
"    driver         driver and firmware (ethtool -i)\n"
"    link           operstate and speed\n"
"    xdp-features   native XDP actions the driver offers (netdev family, Linux 6.3+)\n"
"    zero-copy      whether AF_XDP zero-copy is offered, the buffers per frame, and\n"
"                   whether the driver binds it only with an XDP program attached\n"
"                   (xtx then attaches its own, unless --zc-prog off); with --size\n"
"                   above a chunk, whether the driver takes that many buffers a frame\n"
"    tx-metadata    AF_XDP TX metadata: tx-checksum, tx-timestamp, tx-launch-time-fifo;\n"
"                   with --tx-csum on on a zero-copy device without tx-checksum: fail;\n"
"                   with --tx-timestamps without tx-timestamp: warn\n"
"    queues         TX queues set and possible (ethtool -l) against --queues\n"
"    irq-affinity   each queue IRQ's CPUs (/proc/irq/N/smp_affinity_list) against the\n"
"                   dequeuer CPUs (--cpus)\n"
"    numa           the device's NUMA node against --cpus\n"
"    hugepages      free 2 MiB and 1 GiB huge pages for the UMEM\n"
"    memlock        RLIMIT_MEMLOCK, and CAP_IPC_LOCK to raise it\n"
"    capabilities   CAP_NET_RAW (xtx-send), CAP_NET_ADMIN and CAP_BPF (xtx-shape)\n"
"    cpu-isolation  isolcpus and nohz_full against --cpus\n"
"    irqbalance     whether irqbalance runs (it moves IRQs onto dequeuer CPUs)\n"
"    busy-poll      napi_defer_hard_irqs and gro_flush_timeout (with --busy-poll)\n"
"    mtu            the MTU against a UMEM chunk (--frame-size less 64 bytes of\n"
"                   headroom): larger frames need multi-buffer AF_XDP, which\n"
"                   xtx-shape's forwarding does not do (xtx-send does);\n"
"                   with --size, that frame against the MTU\n"
"    rss-xps        RX queues for RSS and the TX queues with XPS set\n"
"\n"
"    On a virtual device (veth) it runs too and says what it cannot know there.\n"
"    xtx-send and xtx-shape run the same checks at start and print --summary's line\n"
"    (their --no-doctor skips it).\n"
"\n"
"OPTIONS\n"
"    --queues N         the TX queues xtx will use\n"
"    --cpus LIST        the dequeuer CPUs xtx will use (e.g. 2-5)\n"
"    --busy-poll        busy polling will be on: check its sysfs settings\n"
"    --zero-copy        zero-copy will be asked for: its absence fails\n"
"    --zc-prog MODE     as xtx-send's: with off, xtx attaches no XDP program, so a driver\n"
"                       that binds zero-copy only with one (i40e, ixgbe, virtio_net)\n"
"                       warns; auto (default) and on attach xtx's pass program\n"
"    --tx-csum MODE     as xtx-send's (off, on, sw): on needs the device's tx-checksum\n"
"                       in zero-copy mode\n"
"    --tx-timestamps    as xtx-send's: needs the device's tx-timestamp in zero-copy mode\n"
"    --frame-size N     the UMEM frame size, 2048 (default) or 4096\n"
"    --size BYTES       the longest frame a sender will build (Ethernet header on, no\n"
"                       FCS): the mtu check asks whether it fits the MTU instead of\n"
"                       whether a frame of the MTU fits a chunk (xtx-send's check)\n"
"    --json             {\"interface\", \"checks\": [{\"name\", \"status\": \"pass\"|\"warn\"|\n"
"                       \"fail\", \"detail\", \"fix\"}, ...], \"summary\": {\"pass\", \"warn\",\n"
"                       \"fail\"}}\n"
"    --summary          one line: the counts and the names of what did not pass\n"
"    --dump-facts       print what it read (KEY=VALUE lines) instead of checking: a\n"
"                       record of this machine for --facts or a bug report\n"
"    --facts FILE       check recorded facts instead of this machine (the tests' fixtures\n"
"                       for i40e, ice, mlx5, ixgbe and virtio_net: tests/data/doctor/)\n"
"    -h, --help         this text\n"
"\n"
"EXIT STATUS\n"
"    0 nothing failed (warnings may remain); 1 a check failed; 2 bad usage or an\n"
"    unreadable --facts file.\n"
"\n"
"EXAMPLES\n"
"    xtx-doctor eth1 --queues 4 --cpus 2-5\n"
"    xtx-doctor eth1 --json | jq '.checks[] | select(.status != \"pass\")'\n";

int main(int argc, char **argv)
{
	enum { O_QUEUES = 256, O_CPUS, O_BUSY, O_ZC, O_FRAME, O_SIZE, O_ZCPROG, O_TXCSUM, O_TXTS, O_JSON, O_SUMMARY, O_DUMP, O_FACTS };
	static const struct option lo[] = {
		{ "queues", 1, 0, O_QUEUES }, { "cpus", 1, 0, O_CPUS },
		{ "busy-poll", 0, 0, O_BUSY }, { "zero-copy", 0, 0, O_ZC },
		{ "frame-size", 1, 0, O_FRAME }, { "size", 1, 0, O_SIZE }, { "json", 0, 0, O_JSON },
		{ "zc-prog", 1, 0, O_ZCPROG }, { "tx-csum", 1, 0, O_TXCSUM },
		{ "tx-timestamps", 0, 0, O_TXTS },
		{ "summary", 0, 0, O_SUMMARY }, { "dump-facts", 0, 0, O_DUMP },
		{ "facts", 1, 0, O_FACTS }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 }
	};
	struct doctor_opts o = { .frame_room = 2048 - 64 };
	struct doctor_check c[DOCTOR_CHECKS_MAX];
	struct facts f = { 0 };
	const char *facts = NULL, *ifname = NULL;
	bool json = false, summary = false, dump = false;
	struct doctor_line line;
	unsigned n, *cnt;
	char err[512];
	int opt;

	cli_set_prog("xtx-doctor");
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case O_QUEUES: o.queues = (unsigned)cli_parse_uint("--queues", optarg, 1, 4096); break;
		case O_CPUS: o.cpus = optarg; break;
		case O_BUSY: o.busy_poll = true; break;
		case O_ZC: o.zero_copy = true; break;
		case O_FRAME: {
			uint64_t v = cli_parse_uint("--frame-size", optarg, 2048, 4096);

			if (v != 2048 && v != 4096)
				cli_die_usage("--frame-size %s: 2048 or 4096", optarg);
			o.frame_room = (unsigned)v - 64;
			break;
		}
		case O_SIZE: o.frame_len = (unsigned)cli_parse_uint("--size", optarg, 60, 9216); break;
		case O_ZCPROG:
			if (strcmp(optarg, "auto") && strcmp(optarg, "on") && strcmp(optarg, "off"))
				cli_die_usage("--zc-prog %s: auto, on or off", optarg);
			o.zc_prog_off = !strcmp(optarg, "off");
			break;
		case O_TXCSUM:
			if (strcmp(optarg, "off") && strcmp(optarg, "on") && strcmp(optarg, "sw"))
				cli_die_usage("--tx-csum %s: off, on or sw", optarg);
			o.tx_csum = !strcmp(optarg, "on") ? 1 : !strcmp(optarg, "sw") ? 2 : 0;
			break;
		case O_TXTS: o.tx_timestamps = true; break;
		case O_JSON: json = true; break;
		case O_SUMMARY: summary = true; break;
		case O_DUMP: dump = true; break;
		case O_FACTS: facts = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: cli_die_usage("unknown option (see --help)");
		}
	}
	if (optind < argc)
		ifname = argv[optind++];
	if (optind < argc)
		cli_die_usage("one interface; '%s' is one too many", argv[optind]);
	if (!ifname && !facts)
		cli_die_usage("give an interface (or --facts FILE)");
	if (json && summary)
		cli_die_usage("--json or --summary, not both");
	if (dump && facts)
		cli_die_usage("--dump-facts reads this machine; not with --facts");
	if (facts) {
		if (facts_load(&f, facts, err, sizeof(err))) {
			fprintf(stderr, "xtx-doctor: %s\n", err);
			return 2;
		}
		if (ifname)
			facts_set(&f, "if.name", "%s", ifname);
	} else {
		facts_collect(&f, ifname);
	}
	if (dump) {
		facts_dump(&f, stdout);
		facts_free(&f);
		return 0;
	}
	n = doctor_run(&f, &o, c);
	doctor_summary(facts_get(&f, "if.name"), c, n, &line);
	cnt = line.cnt;
	if (json) {
		struct jsonw w;

		jsonw_init(&w, stdout);
		jsonw_start_object(&w);
		jsonw_string_field(&w, "interface", facts_get(&f, "if.name"));
		jsonw_name(&w, "checks");
		jsonw_start_array(&w);
		for (unsigned i = 0; i < n; i++) {
			jsonw_start_object(&w);
			jsonw_string_field(&w, "name", c[i].name);
			jsonw_string_field(&w, "status", doctor_status_str(c[i].status));
			jsonw_string_field(&w, "detail", c[i].detail);
			jsonw_string_field(&w, "fix", c[i].fix);
			jsonw_end_object(&w);
		}
		jsonw_end_array(&w);
		jsonw_name(&w, "summary");
		jsonw_start_object(&w);
		jsonw_uint_field(&w, "pass", cnt[DOCTOR_PASS]);
		jsonw_uint_field(&w, "warn", cnt[DOCTOR_WARN]);
		jsonw_uint_field(&w, "fail", cnt[DOCTOR_FAIL]);
		jsonw_end_object(&w);
		jsonw_end_object(&w);
		jsonw_finish(&w);
	} else if (summary) {
		printf("xtx-doctor %s\n", line.text);
	} else {
		for (unsigned i = 0; i < n; i++) {
			printf("%-4s  %-14s %s\n", doctor_status_str(c[i].status), c[i].name, c[i].detail);
			if (c[i].status != DOCTOR_PASS && c[i].fix[0])
				printf("      %-14s fix: %s\n", "", c[i].fix);
		}
		printf("%u pass, %u warn, %u fail\n", cnt[0], cnt[1], cnt[2]);
	}
	facts_free(&f);
	return cnt[DOCTOR_FAIL] ? 1 : 0;
}
