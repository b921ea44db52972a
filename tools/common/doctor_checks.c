/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/doctor_checks.c - see doctor_checks.h. What each check means, and what to
 * do about a warning: docs/real-nic.md, "xtx-doctor". Facts are hints read once: a check that cannot know
 * (a key missing) says so and warns only where not knowing matters.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/xtx.h>

#include "cli.h"
#include "doctor_checks.h"

#define MAXCPU 1024

struct cpuset {
	uint64_t w[MAXCPU / 64];
};

/* A CPU list ("0-3,8", as sysfs and taskset write them; for the kernel's isolcpus its
 * leading flags, "domain,managed_irq,", skipped); false if it does not parse or names no
 * CPU. */
static bool cpus_parse(const char *s, struct cpuset *c)
{
	int cpus[MAXCPU], n;

	memset(c, 0, sizeof(*c));
	while (s && *s && !isdigit((unsigned char)*s))
		s = strchr(s, ',') ? strchr(s, ',') + 1 : s + strlen(s);
	n = s ? cli_str_to_cpus(s, MAXCPU, cpus, MAXCPU) : -1;
	for (int i = 0; i < n && i < MAXCPU; i++)
		c->w[cpus[i] / 64] |= 1ull << (cpus[i] % 64);
	return n > 0;
}

static bool cpus_meet(const struct cpuset *a, const struct cpuset *b)
{
	for (unsigned i = 0; i < MAXCPU / 64; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

static bool cpus_within(const struct cpuset *a, const struct cpuset *b)
{
	for (unsigned i = 0; i < MAXCPU / 64; i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; p && (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

const char *doctor_status_str(enum doctor_status s)
{
	return s == DOCTOR_PASS ? "pass" : s == DOCTOR_WARN ? "warn" : "fail";
}

static struct doctor_check *add(struct doctor_check *out, unsigned *n, const char *name, enum doctor_status st,
			 const char *fix, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static struct doctor_check *add(struct doctor_check *out, unsigned *n, const char *name, enum doctor_status st,
			 const char *fix, const char *fmt, ...)
{
	struct doctor_check *c = &out[(*n)++];
	va_list ap;

	c->name = name;
	c->status = st;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
	snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
	return c;
}

#define IFN (facts_get(f, "if.name") ? facts_get(f, "if.name") : "IF")

static void check_link(const struct facts *f, struct doctor_check *out, unsigned *n)
{
	const char *drv = facts_get(f, "if.driver"), *fw = facts_get(f, "if.fw");
	const char *op = facts_get(f, "if.operstate");
	long long sp = facts_num(f, "if.speed_mbps", -1);
	char fix[256];

	if (drv)
		add(out, n, "driver", DOCTOR_PASS, NULL, "%s%s%s", drv, fw ? ", firmware " : "",
		    fw ? fw : "");
	else
		add(out, n, "driver", DOCTOR_WARN, "ethtool -i IF", "unknown: ethtool's driver query "
		    "did not answer");
	snprintf(fix, sizeof(fix), "ip link set %s up; check the cable and the peer", IFN);
	if (op && !strcmp(op, "up") && sp > 0)
		add(out, n, "link", DOCTOR_PASS, NULL, "up, %lld Mb/s", sp);
	else if (op && !strcmp(op, "up"))
		add(out, n, "link", DOCTOR_PASS, NULL, "up, speed unknown (a virtual device reports "
		    "none)");
	else
		add(out, n, "link", DOCTOR_WARN, fix, "%s", op ? op : "operstate unknown");
}

/* A jumbo frame (--size above a chunk) spans buffers; in zero-copy mode the driver takes
 * at most xdp-zc-max-segs of them per frame: beyond, copy mode only. Amends c, the
 * zero-copy check. */
static void check_zc_segs(const struct doctor_opts *o, long long most, struct doctor_check *c)
{
	unsigned need;
	size_t at = strlen(c->detail);

	if (!o->frame_len || !o->frame_room || o->frame_len <= o->frame_room)
		return;
	need = (o->frame_len + o->frame_room - 1) / o->frame_room;
	if (need <= most)
		return;
	c->status = o->zero_copy ? DOCTOR_FAIL : DOCTOR_WARN;
	snprintf(c->detail + at, sizeof(c->detail) - at, "; frames of %u bytes take %u "
		 "buffers, more than the driver's %lld in zero-copy: they go in copy mode",
		 o->frame_len, need, most);
	snprintf(c->fix, sizeof(c->fix), "--copy, or --size %lld at most", most * o->frame_room);
}

static void check_xdp(const struct facts *f, const struct doctor_opts *o, struct doctor_check *out,
		      unsigned *n)
{
	const char *xf = facts_get(f, "xdp.features"), *drv = facts_get(f, "if.driver");
	long long segs = facts_num(f, "xdp.zc_max_segs", 0);
	char fix[512];

	if (!facts_num(f, "nl.netdev", 0)) {
		add(out, n, "xdp-features", DOCTOR_WARN, "a kernel of 6.3 or later (the netdev "
		    "netlink family; then ynl --family netdev --do dev-get)", "unknown: the "
		    "netdev netlink family did not answer; AF_XDP copy mode works on any driver");
		add(out, n, "zero-copy", DOCTOR_WARN, "xtx-send --zero-copy says at open whether it "
		    "binds", "unknown without the netdev family");
		{
			char detail[512], tfix[256];
			enum doctor_status st = doctor_txmd(f, o, detail, sizeof(detail), tfix,
							    sizeof(tfix));

			add(out, n, "tx-metadata", st, NULL, "%s", detail);
		}
		return;
	}
	if (!xf || !*xf)
		add(out, n, "xdp-features", DOCTOR_WARN, "a driver with native XDP (ethtool -i IF)",
		    "none: no native XDP, so AF_XDP runs in copy mode on generic XDP only");
	else
		add(out, n, "xdp-features", DOCTOR_PASS, NULL, "%s", xf);
	if (!has_word(xf, "xsk-zerocopy")) {
		add(out, n, "zero-copy", o->zero_copy ? DOCTOR_FAIL : DOCTOR_WARN, "a NIC whose driver "
		    "offers AF_XDP zero-copy (i40e, ice, ixgbe, igc, mlx5, stmmac, virtio_net, "
		    "...; docs/real-nic.md)", "not offered: copy mode, one copy of each frame "
		    "into the kernel's buffers");
	} else if (xtx_driver__zc_needs_prog(drv)) {
		snprintf(fix, sizeof(fix), "leave --zc-prog at auto, or attach your own XDP "
			 "program to %s first (xdp-filter load %s passes every frame)", IFN, IFN);
		add(out, n, "zero-copy", o->zc_prog_off ? DOCTOR_WARN : DOCTOR_PASS,
		    o->zc_prog_off ? fix : NULL, "offered; %s binds it only while an XDP program "
		    "is attached: %s (frames of up to %lld buffer(s))", drv, o->zc_prog_off ?
		    "with --zc-prog off, one must be there already" : "xtx attaches its pass "
		    "program xtx_pass for the run (--zc-prog auto)", segs > 0 ? segs : 1);
	} else {
		add(out, n, "zero-copy", DOCTOR_PASS, NULL, "offered (frames of up to %lld buffer(s))",
		    segs > 0 ? segs : 1);
	}
	if (has_word(xf, "xsk-zerocopy"))
		check_zc_segs(o, segs > 0 ? segs : 1, &out[*n - 1]);
	{
		char detail[512], tfix[256];
		enum doctor_status st = doctor_txmd(f, o, detail, sizeof(detail), tfix,
						    sizeof(tfix));

		add(out, n, "tx-metadata", st, tfix[0] ? tfix : NULL, "%s", detail);
	}
}

enum doctor_status doctor_txmd(const struct facts *f, const struct doctor_opts *o,
			       char *detail, size_t dlen, char *fix, size_t flen)
{
	const char *xk = facts_get(f, "xsk.features"), *xf = facts_get(f, "xdp.features");
	bool zc = has_word(xf, "xsk-zerocopy");

	fix[0] = 0;
	if (!facts_num(f, "nl.netdev", 0)) {
		snprintf(detail, dlen, "unknown without the netdev family: checksums and "
			 "timestamps in software%s", o->tx_csum == 1 || o->tx_timestamps ?
			 "; in zero-copy mode --tx-csum and --tx-timestamps rely on the driver" : "");
		return o->tx_csum == 1 || o->tx_timestamps ? DOCTOR_WARN : DOCTOR_PASS;
	}
	if (zc && o->tx_csum == 1 && !has_word(xk, "tx-checksum")) {
		snprintf(detail, dlen, "%s: in zero-copy mode --tx-csum on would send frames "
			 "with only the pseudo-header sum", xk && *xk ? xk : "none");
		snprintf(fix, flen, "--tx-csum sw (the kernel computes it) or off, or --copy");
		return DOCTOR_FAIL;
	}
	if (zc && o->tx_timestamps && !has_word(xk, "tx-timestamp")) {
		snprintf(detail, dlen, "%s: in zero-copy mode --tx-timestamps gets no "
			 "timestamp (every sample invalid)", xk && *xk ? xk : "none");
		snprintf(fix, flen, "--copy (the kernel's software timestamps)");
		return DOCTOR_WARN;
	}
	snprintf(detail, dlen, "%s%s", xk && *xk ? xk : "none: checksums and timestamps in "
		 "software", o->tx_csum == 1 || o->tx_timestamps ? " (enough for what is "
		 "asked)" : "");
	return DOCTOR_PASS;
}

static void check_queues(const struct facts *f, const struct doctor_opts *o,
			 struct doctor_check *out, unsigned *n)
{
	long long comb = facts_num(f, "ch.combined", -1), tx = facts_num(f, "ch.tx", 0);
	long long mcomb = facts_num(f, "ch.max_combined", 0), mtx = facts_num(f, "ch.max_tx", 0);
	long long have = (comb > 0 ? comb : 0) + tx, most = mcomb + mtx;
	char fix[256];

	snprintf(fix, sizeof(fix), "ethtool -L %s combined %u", IFN, o->queues);
	if (comb < 0)
		add(out, n, "queues", o->queues > 1 ? DOCTOR_WARN : DOCTOR_PASS, NULL, "unknown: ethtool -l "
		    "did not answer (the driver has no channel settings)");
	else if (o->queues && most && o->queues > most)
		add(out, n, "queues", DOCTOR_FAIL, "fewer --queues", "--queues %u: the device has at "
		    "most %lld TX queues (combined %lld, tx %lld)", o->queues, most, mcomb, mtx);
	else if (o->queues && o->queues > have)
		add(out, n, "queues", DOCTOR_WARN, fix, "--queues %u: %lld TX queues set now (combined "
		    "%lld, tx %lld; up to %lld)", o->queues, have, comb, tx, most);
	else
		add(out, n, "queues", DOCTOR_PASS, NULL, "%lld TX queues (combined %lld, tx %lld; up to "
		    "%lld)%s", have, comb, tx, most, o->queues ? "" : "; give --queues to check");
}

static void check_irqs(const struct facts *f, const struct doctor_opts *o,
		       const struct cpuset *deq, bool have_deq, struct doctor_check *out, unsigned *n)
{
	long cnt = (long)facts_num(f, "irq.count", 0), bad = 0;
	char list[256] = "", fix[512] = "";
	const char *drv = facts_get(f, "if.driver");

	if (!cnt) {
		bool virt = drv && (!strcmp(drv, "veth") || !strcmp(drv, "tun") ||
				    !strcmp(drv, "bridge"));

		add(out, n, "irq-affinity", virt ? DOCTOR_PASS : DOCTOR_WARN, virt ? NULL :
		    "grep IF /proc/interrupts (and the device's msi_irqs)", "no queue IRQs found%s",
		    virt ? " (a virtual device has none)" : " in /proc/interrupts");
		return;
	}
	for (long i = 0; i < cnt && have_deq; i++) {
		struct cpuset a;
		const char *aff = facts_geti(f, "irq", i, "affinity");

		if (cpus_parse(aff, &a) && cpus_meet(&a, deq)) {
			bad++;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s (%s) on %s",
				 bad > 1 ? ", " : "", facts_geti(f, "irq", i, "num"),
				 facts_geti(f, "irq", i, "name"), aff);
			if (bad == 1)
				snprintf(fix, sizeof(fix), "echo CPU > /proc/irq/%s/smp_affinity_list "
					 "for each, a CPU without a dequeuer", facts_geti(f, "irq", i, "num"));
		}
	}
	if (!have_deq)
		add(out, n, "irq-affinity", DOCTOR_PASS, NULL, "%ld queue IRQs; give --cpus to check "
		    "them against the dequeuers", cnt);
	else if (bad)
		add(out, n, "irq-affinity", DOCTOR_WARN, fix, "%ld of %ld queue IRQs may run on a "
		    "dequeuer CPU (%s): their softirq takes the dequeuer's CPU", bad, cnt, list);
	else
		add(out, n, "irq-affinity", DOCTOR_PASS, NULL, "none of %ld queue IRQs on a dequeuer "
		    "CPU (%s)", cnt, o->cpus);
}

static void check_numa(const struct facts *f, const struct doctor_opts *o,
		       const struct cpuset *deq, bool have_deq, struct doctor_check *out, unsigned *n)
{
	long long node = facts_num(f, "if.numa_node", -1);
	char key[32], fix[256];
	const char *cpus;
	struct cpuset nc;

	snprintf(key, sizeof(key), "node.%lld.cpus", node);
	cpus = node >= 0 ? facts_get(f, key) : NULL;
	if (node < 0 || !cpus) {
		add(out, n, "numa", DOCTOR_PASS, NULL, "no NUMA node for the device (a virtual "
		    "device, or a machine of one node)");
		return;
	}
	snprintf(fix, sizeof(fix), "--cpus from node %lld: %s", node, cpus);
	if (have_deq && cpus_parse(cpus, &nc) && !cpus_within(deq, &nc))
		add(out, n, "numa", DOCTOR_WARN, fix, "the device is on node %lld (CPUs %s); --cpus %s "
		    "reaches across nodes: every frame crosses the interconnect", node, cpus,
		    o->cpus);
	else
		add(out, n, "numa", DOCTOR_PASS, NULL, "node %lld (CPUs %s)%s", node, cpus, have_deq ?
		    ", the dequeuers' too" : "; xtx takes its CPUs and memory from it by default");
}

static void check_memory(const struct facts *f, struct doctor_check *out, unsigned *n)
{
	long long h2 = facts_num(f, "huge.free_2m", -1), h1 = facts_num(f, "huge.free_1g", 0);
	const char *ml = facts_get(f, "memlock.cur");
	unsigned long long caps = (unsigned long long)facts_num(f, "caps.eff", 0);

	if (h2 > 0 || h1 > 0)
		add(out, n, "hugepages", DOCTOR_PASS, NULL, "%lld free of 2 MiB, %lld of 1 GiB", h2, h1);
	else
		add(out, n, "hugepages", DOCTOR_WARN, "sysctl vm.nr_hugepages=64 (128 MiB of 2 MiB "
		    "pages)", "%s: the UMEM falls back to 4 KiB pages (more TLB misses per frame)",
		    h2 < 0 ? "unknown" : "none free");
	if (ml && (!strcmp(ml, "unlimited") || facts_num(f, "memlock.cur", 0) >= (64ll << 20)))
		add(out, n, "memlock", DOCTOR_PASS, NULL, "RLIMIT_MEMLOCK %s", ml);
	else if (caps >> 14 & 1)
		add(out, n, "memlock", DOCTOR_PASS, NULL, "RLIMIT_MEMLOCK %s, CAP_IPC_LOCK held: "
		    "the engine raises it", ml ? ml : "unknown");
	else
		add(out, n, "memlock", DOCTOR_WARN, "ulimit -l unlimited, or run with CAP_IPC_LOCK",
		    "RLIMIT_MEMLOCK %s bytes without CAP_IPC_LOCK: a UMEM beyond it is refused",
		    ml ? ml : "unknown");
}

static void check_caps(const struct facts *f, struct doctor_check *out, unsigned *n)
{
	const char *ce = facts_get(f, "caps.eff");
	unsigned long long c = (unsigned long long)facts_num(f, "caps.eff", 0);
	bool raw = c >> 13 & 1, admin = c >> 12 & 1, bpf = (c >> 39 & 1) || (c >> 21 & 1);

	if (!ce)
		add(out, n, "capabilities", DOCTOR_WARN, NULL, "unknown");
	else if (!raw)
		add(out, n, "capabilities", DOCTOR_FAIL, "run as root, or setcap cap_net_raw,"
		    "cap_ipc_lock+ep on xtx-send", "no CAP_NET_RAW: AF_XDP sockets are refused "
		    "(CapEff %s)", ce);
	else if (!admin || !bpf)
		add(out, n, "capabilities", DOCTOR_WARN, "run xtx-shape as root (or with "
		    "CAP_NET_ADMIN and CAP_BPF)", "CAP_NET_RAW held; without %s xtx-shape cannot "
		    "attach its XDP program", !admin ? "CAP_NET_ADMIN" : "CAP_BPF");
	else
		add(out, n, "capabilities", DOCTOR_PASS, NULL, "CAP_NET_RAW, CAP_NET_ADMIN, CAP_BPF "
		    "or CAP_SYS_ADMIN%s", c >> 14 & 1 ? ", CAP_IPC_LOCK" : "");
}

static void check_cpus(const struct facts *f, const struct doctor_opts *o,
		       const struct cpuset *deq, bool have_deq, struct doctor_check *out, unsigned *n)
{
	const char *iso = facts_get(f, "cmdline.isolcpus"), *nohz = facts_get(f, "cmdline.nohz_full");
	struct cpuset a;
	char fix[256];

	snprintf(fix, sizeof(fix), "isolcpus=%s nohz_full=%s on the kernel command line "
		 "(then reboot)", o->cpus ? o->cpus : "LIST", o->cpus ? o->cpus : "LIST");
	if (!iso && !nohz)
		add(out, n, "cpu-isolation", DOCTOR_PASS, NULL, "unknown (no /proc/cmdline)");
	else if (have_deq && !(cpus_parse(iso, &a) && cpus_within(deq, &a)))
		add(out, n, "cpu-isolation", DOCTOR_WARN, fix, "the dequeuer CPUs %s are not isolated "
		    "(isolcpus=%s, nohz_full=%s): other tasks and ticks share them", o->cpus,
		    iso && *iso ? iso : "none", nohz && *nohz ? nohz : "none");
	else
		add(out, n, "cpu-isolation", DOCTOR_PASS, NULL, "isolcpus=%s, nohz_full=%s%s",
		    iso && *iso ? iso : "none", nohz && *nohz ? nohz : "none",
		    have_deq ? "" : "; give --cpus to check the dequeuers'");
	if (facts_num(f, "irqbalance", 0))
		add(out, n, "irqbalance", DOCTOR_WARN, "systemctl stop irqbalance, or "
		    "IRQBALANCE_BANNED_CPULIST=the dequeuer CPUs in /etc/default/irqbalance",
		    "running: it moves the queue IRQs, onto dequeuer CPUs too");
	else
		add(out, n, "irqbalance", DOCTOR_PASS, NULL, "not running");
}

static void check_busy_poll(const struct facts *f, const struct doctor_opts *o,
			    struct doctor_check *out, unsigned *n)
{
	long long d = facts_num(f, "napi.defer_hard_irqs", -1);
	long long g = facts_num(f, "napi.gro_flush_timeout", -1);
	char fix[256];

	snprintf(fix, sizeof(fix), "echo 2 > /sys/class/net/%s/napi_defer_hard_irqs; echo "
		 "200000 > /sys/class/net/%s/gro_flush_timeout", IFN, IFN);
	if (o->busy_poll && (d <= 0 || g <= 0))
		add(out, n, "busy-poll", DOCTOR_WARN, fix, "napi_defer_hard_irqs %lld, "
		    "gro_flush_timeout %lld: with --busy-poll the device's interrupts still fire",
		    d, g);
	else
		add(out, n, "busy-poll", DOCTOR_PASS, NULL, "napi_defer_hard_irqs %lld, "
		    "gro_flush_timeout %lld%s", d, g, o->busy_poll ? "" :
		    " (they matter with --busy-poll)");
}

static void check_mtu(const struct facts *f, const struct doctor_opts *o,
		      struct doctor_check *out, unsigned *n)
{
	long long mtu = facts_num(f, "if.mtu", -1), frame = mtu + 14 + 4;
	char fix[128];

	snprintf(fix, sizeof(fix), "ip link set %s mtu %u", IFN, o->frame_len ?
		 o->frame_len - 14 : o->frame_room - 18);
	if (mtu < 0)
		add(out, n, "mtu", DOCTOR_WARN, NULL, "unknown");
	else if (o->frame_len && o->frame_len > mtu + 14)
		add(out, n, "mtu", DOCTOR_FAIL, fix, "MTU %lld: frames of %u bytes exceed it "
		    "(xtx-send refuses them: the peer would drop them)", mtu, o->frame_len);
	else if (o->frame_len)
		add(out, n, "mtu", DOCTOR_PASS, NULL, "MTU %lld: frames of up to %u bytes fit",
		    mtu, o->frame_len);
	else if ((unsigned long long)frame > o->frame_room)
		add(out, n, "mtu", DOCTOR_FAIL, fix, "MTU %lld: a full frame (%lld bytes with "
		    "Ethernet header and a VLAN tag) exceeds a UMEM chunk's %u; frames over one "
		    "chunk need multi-buffer AF_XDP, which xtx-shape's forwarding does not do "
		    "(xtx-send does, for --size above a chunk)", mtu, frame,
		    o->frame_room);
	else
		add(out, n, "mtu", DOCTOR_PASS, NULL, "MTU %lld: a full frame fits one UMEM chunk "
		    "(%u bytes)", mtu, o->frame_room);
}

static void check_xps(const struct facts *f, struct doctor_check *out, unsigned *n)
{
	unsigned set = 0, q;

	for (q = 0; q < 256; q++) {
		char k[32];
		const char *m;

		snprintf(k, sizeof(k), "xps.%u", q);
		m = facts_get(f, k);
		if (!m)
			break;
		set += strspn(m, "0,") != strlen(m);
	}
	add(out, n, "rss-xps", DOCTOR_PASS, NULL, "%lld RX queues for RSS; XPS set on %u of %u TX "
	    "queues for the kernel's own traffic (xtx sends on the queues it opens)",
	    facts_num(f, "rx.queues", 0), set, q);
}

unsigned doctor_run(const struct facts *f, const struct doctor_opts *o, struct doctor_check *out)
{
	struct cpuset deq;
	bool have_deq = o->cpus && cpus_parse(o->cpus, &deq);
	unsigned n = 0;
	char fix[128];

	snprintf(fix, sizeof(fix), "ip link show (in the namespace xtx runs in)");
	if (!facts_num(f, "if.exists", 0)) {
		add(out, &n, "interface", DOCTOR_FAIL, fix, "%s: no such interface here", IFN);
		return n;
	}
	if (facts_num(f, "sysfs.this_netns", 1))
		add(out, &n, "interface", DOCTOR_PASS, NULL, "%s", IFN);
	else
		add(out, &n, "interface", DOCTOR_WARN, "ip netns exec NS xtx-doctor IF (it mounts the "
		    "namespace's own /sys)", "%s, but /sys shows another network namespace: what "
		    "sysfs holds (speed, NUMA node, queues, busy-poll settings) is unknown", IFN);
	check_link(f, out, &n);
	check_xdp(f, o, out, &n);
	check_queues(f, o, out, &n);
	check_irqs(f, o, &deq, have_deq, out, &n);
	check_numa(f, o, &deq, have_deq, out, &n);
	check_memory(f, out, &n);
	check_caps(f, out, &n);
	check_cpus(f, o, &deq, have_deq, out, &n);
	check_busy_poll(f, o, out, &n);
	check_mtu(f, o, out, &n);
	check_xps(f, out, &n);
	return n;
}

void doctor_summary(const char *ifname, const struct doctor_check *c, unsigned n,
		    struct doctor_line *out)
{
	size_t at, len = sizeof(out->text);

	memset(out->cnt, 0, sizeof(out->cnt));
	for (unsigned i = 0; i < n; i++)
		out->cnt[c[i].status]++;
	at = (size_t)snprintf(out->text, len, "%s: %u pass, %u warn, %u fail",
			      ifname ? ifname : "?", out->cnt[DOCTOR_PASS],
			      out->cnt[DOCTOR_WARN], out->cnt[DOCTOR_FAIL]);
	for (unsigned i = 0; i < n && at < len; i++)
		if (c[i].status != DOCTOR_PASS)
			at += (size_t)snprintf(out->text + at, len - at, ", %s %s",
					       doctor_status_str(c[i].status), c[i].name);
}

void doctor_check_iface(const char *ifname, const struct doctor_opts *o,
			struct doctor_line *out)
{
	struct doctor_check c[DOCTOR_CHECKS_MAX];
	struct facts f = { 0 };

	facts_collect(&f, ifname);
	doctor_summary(ifname, c, doctor_run(&f, o, c), out);
	facts_free(&f);
}

void doctor_line_json(struct jsonw *w, const struct doctor_line *l)
{
	jsonw_start_object(w);
	jsonw_uint_field(w, "pass", l->cnt[DOCTOR_PASS]);
	jsonw_uint_field(w, "warn", l->cnt[DOCTOR_WARN]);
	jsonw_uint_field(w, "fail", l->cnt[DOCTOR_FAIL]);
	jsonw_string_field(w, "line", l->text);
	jsonw_end_object(w);
}
