/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_redirect.c - libFuzzer target: the xtx_redirect XDP program (xtx-shape's classifier
 * and router, which parses whatever arrives on the ingress interface), run in the kernel
 * with BPF_PROG_TEST_RUN on the fuzz input as a frame. The first input byte picks router
 * or l2 mode; the rest is the frame.
 *
 * Setup, once: a private network namespace (unshare) with two veth pairs, an address,
 * a route and a neighbour, so that router mode's FIB lookups can succeed; an AF_XDP socket
 * on the ingress veth's queue 0 in the XSKMAP, so that the classified frames go on to the
 * flow hash, the metadata and the MAC/TTL rewrite; rules that use every criterion.
 *
 * Invariants: the run succeeds; the verdict is XDP_PASS, XDP_DROP or XDP_REDIRECT; exactly
 * one verdict counter moves, by one packet and the frame's length; metadata is either
 * absent or exactly struct xtx_rx_meta with a valid class index; the frame keeps its
 * length. Needs root: as any other user it exits 77 (skip) before any setup. As root any
 * setup step that fails ends it with exit 1 and says why: no private namespace, one that
 * is the host's (netns_require_private(), before an interface is made), no AF_XDP socket,
 * the program refused by the kernel (the verifier log goes to stderr).
 */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <xdp/xsk.h>

#include <xtx/rxmeta.h>
#include "rules.h"
#include "xtx_redirect.skel.h"
#include "netns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static const char setup[] =
	"set -e\n"
	"ip link set lo up\n"
	"ip link add din address 02:00:c6:12:63:01 type veth peer dinp\n"
	"ip link add dout address 02:00:c6:12:64:01 type veth peer doutp\n"
	"for d in din dinp dout doutp; do ip link set $d up; done\n"
	"ip addr add 198.18.99.1/24 dev din\n"
	"ip addr add 198.18.100.1/24 dev dout\n"
	"ip neigh add 198.18.100.2 lladdr 02:00:c6:12:64:02 dev dout nud permanent\n"
	"ip route add 198.18.200.0/24 via 198.18.100.2 dev dout\n"
	"ip -6 addr add 2001:db8:100::1/64 dev dout nodad\n"
	"ip -6 neigh add 2001:db8:100::2 lladdr 02:00:c6:12:64:02 dev dout nud permanent\n"
	"ip -6 route add 2001:db8:200::/64 via 2001:db8:100::2 dev dout\n"
	"sysctl -qw net.ipv4.conf.all.forwarding=1 net.ipv6.conf.all.forwarding=1\n";

static const char classes_text[] =
	"class 1: rate 100mbit\n"
	"class 1:10 parent 1: rate 10mbit\n"
	"class 1:20 parent 1: rate 10mbit\n"
	"class 1:30 parent 1: rate 10mbit\n"
	"default 1:30\n";

static const char rules_text[] =
	"match src 198.18.99.0/24 dst 198.18.200.0/25 proto udp dport 5000-5999 class 1:10\n"
	"match dst 2001:db8:200::/64 proto tcp sport 1-1023 class 1:20\n"
	"match dscp 46 class 1:10\n"
	"match vlan 100 class 1:20\n"
	"match proto icmp class 1:20\n"
	"match dst 198.18.250.0/24 drop\n"
	"match proto 47 pass\n"
	"default class 1:30\n";

static struct xtx_redirect *skel[2];	/* router, l2 */
static int ncpu, din;
static unsigned ncls;

/* Setup: libbpf's warnings (a refused program's verifier log) to stderr. */
static int loud(enum libbpf_print_level l, const char *f, va_list ap)
{
	return l == LIBBPF_DEBUG ? 0 : vfprintf(stderr, f, ap);
}

/* Fuzzing: nothing (a test run prints nothing unless something is wrong, and an abort says
 * that). */
static int quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

/* A setup step failed as root: nothing optional is missing, so it is a failure. */
static void setup_fail(const char *what, int err)
{
	fprintf(stderr, "fuzz_redirect: FAIL: %s as root: %s\n", what, strerror(err));
	exit(1);
}

/* An AF_XDP socket (copy mode) on din queue 0: its fd goes into the XSKMAPs. It stays
 * open for the life of the process; nothing is ever received (test runs are not live). */
static int xsk_fd(void)
{
	static struct xsk_ring_prod fill;
	static struct xsk_ring_cons comp, rx;
	struct xsk_umem_config uc = { .fill_size = 64, .comp_size = 64, .frame_size = 2048 };
	struct xsk_socket_config sc = { .rx_size = 64,
					.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
					.bind_flags = XDP_COPY };
	static struct xsk_umem *umem;	/* static: alive (and reachable) until exit */
	static struct xsk_socket *xsk;
	void *area = mmap(NULL, 64 * 2048, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int rc;

	if (area == MAP_FAILED)
		setup_fail("cannot map the UMEM", errno);
	rc = xsk_umem__create(&umem, area, 64 * 2048, &fill, &comp, &uc);
	if (!rc)
		rc = xsk_socket__create(&xsk, "din", 0, umem, &rx, NULL, &sc);
	if (rc)
		setup_fail("cannot open an AF_XDP socket on din", -rc);
	return xsk_socket__fd(xsk);
}

static struct xtx_redirect *load(uint32_t mode, const struct rd_rules *rs, int xsk)
{
	static const uint8_t din_mac[6] = { 0x02, 0, 0xc6, 0x12, 0x63, 0x01 };
	struct xtx_redirect *s = xtx_redirect__open();
	char err[512];
	uint32_t zero = 0;
	int rc;

	if (!s)
		abort();
	s->rodata->cfg_mode = mode;
	s->rodata->cfg_out_ifindex = if_nametoindex("dout");
	memcpy((void *)s->rodata->cfg_in_mac, din_mac, 6);
	s->rodata->cfg_nrules = rs->n;
	rc = xtx_redirect__load(s);
	if (rc)
		setup_fail("loading xtx_redirect failed (libbpf's message and the verifier log, "
			   "if any, above)", -rc);
	struct rd_maps m = RD_MAPS_OF(s);

	if (rd_rules__load(rs, &m, err, sizeof(err)) ||
	    bpf_map_update_elem(bpf_map__fd(s->maps.xsks), &zero, &xsk, BPF_ANY)) {
		fprintf(stderr, "fuzz_redirect: %s\n", err);
		abort();
	}
	return s;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static struct rd_rules rs;
	static struct xtx_sched_config *cfg;	/* static: reachable until exit */
	char err[512];
	int xsk;

	(void)argc; (void)argv;
	if (geteuid() != 0) {
		printf("skip: not root, nothing run: the private network namespace and "
		       "BPF_PROG_TEST_RUN need root\n");
		exit(77);
	}
	libbpf_set_print(loud);
	if (unshare(CLONE_NEWNET))
		setup_fail("cannot make a private network namespace", errno);
	if (netns_require_private("fuzz_redirect"))
		exit(1);
	if (system(setup) != 0) {
		fprintf(stderr, "fuzz_redirect: setting up the namespace failed\n");
		exit(1);
	}
	din = (int)if_nametoindex("din");
	ncpu = libbpf_num_possible_cpus();
	cfg = xtx_sched_config__parse_string(classes_text, "classes", err, sizeof(err));
	if (!cfg || rd_rules__parse_string(&rs, rules_text, "rules", err, sizeof(err)) ||
	    rd_rules__resolve(&rs, cfg, err, sizeof(err))) {
		fprintf(stderr, "fuzz_redirect: %s\n", err);
		exit(1);
	}
	ncls = xtx_sched_config__class_count(cfg);
	xsk = xsk_fd();
	skel[0] = load(XTX_RD_MODE_ROUTER, &rs, xsk);
	skel[1] = load(XTX_RD_MODE_L2, &rs, xsk);
	libbpf_set_print(quiet);
	return 0;
}

static void verdicts(struct xtx_redirect *s, struct xtx_xdp_counter *out)
{
	struct xtx_xdp_counter v[ncpu];

	for (uint32_t k = 0; k < XTX_RD_VERDICT_MAX; k++) {
		out[k].pkts = out[k].bytes = 0;
		if (bpf_map_lookup_elem(bpf_map__fd(s->maps.rd_stats), &k, v))
			abort();
		xtx_xdp_counter_add(&out[k], v, ncpu);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xtx_xdp_counter a[XTX_RD_VERDICT_MAX], b[XTX_RD_VERDICT_MAX];
	struct xdp_md ci = { 0 }, co = { 0 };
	uint8_t out[4096];
	unsigned moved = 0;

	/* The kernel refuses test frames shorter than an Ethernet header or beyond a page. */
	if (size < 15 || size > 3001)
		return 0;
	struct xtx_redirect *s = skel[data[0] & 1];
	uint32_t len = (uint32_t)size - 1;

	ci.data_end = len;
	ci.ingress_ifindex = (uint32_t)din;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = data + 1, .data_size_in = len,
		    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ci,
		    .ctx_size_in = sizeof(ci), .ctx_out = &co, .ctx_size_out = sizeof(co),
		    .repeat = 1);
	verdicts(s, a);
	if (bpf_prog_test_run_opts(bpf_program__fd(s->progs.xtx_redirect), &o))
		abort();
	verdicts(s, b);
	if (o.retval != XDP_PASS && o.retval != XDP_DROP && o.retval != XDP_REDIRECT)
		abort();
	for (int k = 0; k < XTX_RD_VERDICT_MAX; k++) {
		if (b[k].pkts == a[k].pkts)
			continue;
		if (b[k].pkts - a[k].pkts != 1 || b[k].bytes - a[k].bytes != len)
			abort();
		moved++;
	}
	if (moved != 1)
		abort();	/* every frame lands in exactly one verdict */
	/* data_out starts at data_meta; ctx_out.data is the metadata length. */
	if (co.data != 0 && co.data != sizeof(struct xtx_rx_meta))
		abort();
	if (co.data) {
		struct xtx_rx_meta meta;

		memcpy(&meta, out, sizeof(meta));
		if (o.retval != XDP_REDIRECT || meta.cls >= ncls)
			abort();
	}
	if (o.data_size_out - co.data != len)
		abort();	/* rewrites never change the length */
	return 0;
}
