/* SPDX-License-Identifier: BSD-3-Clause */
/* test_redirect_bpf.c - the xtx_redirect XDP program (xdp/xtx_redirect.bpf.c) run on
 * crafted frames with BPF_PROG_TEST_RUN, and the rules compiler (tools/xtx-shape/rules.c,
 * linked in) that fills its maps.
 *
 *   1. parse table (l2 mode): every parse branch (VLAN 0/1/2/3 tags, ARP, non-IP, IPv4
 *      with options, fragments, TCP/UDP/ICMP/other, IPv6 with extension headers and
 *      fragment header, ICMPv6 and neighbour discovery), malformed headers: the verdict,
 *      exactly which counters moved, the class and flow hash in the metadata read back
 *      (the hash against xtx_pkt__flow_hash() of the same tuple), the frame unchanged;
 *   2. every truncation of several frames: counted truncated; l2 forwards it unparsed,
 *      router mode hands it to the kernel unchanged;
 *   3. rules: a rules file with nested prefixes, port ranges, DSCP, VLAN, protocol,
 *      pass/drop and a default: a table of frames, then random frames against a model
 *      (first matching rule in C);
 *   4. router mode in a private network namespace with veth pairs and routes:
 *      forwarded (new MACs, TTL/hop limit - 1, IPv4 checksum still valid, nothing else
 *      changed), TTL expiring, no route, blackhole/unreachable/prohibit, no neighbour,
 *      MTU, route via another interface, local destinations, broadcast, other hosts'
 *      MACs, VLAN, forwarding disabled, no socket;
 *   5. live: one frame with BPF_F_TEST_XDP_LIVE_FRAMES really lands in an AF_XDP socket
 *      (copy mode) with the metadata in front of it, where the engine reads it;
 *   6. rules parser errors: file:line:column and the message, table-driven.
 *
 * Needs root: exits 77 (skip) if it is not root, before any check. As root everything
 * else that goes wrong is a failure: no private network namespace, a namespace that is
 * the host's (netns_require_private(), before any interface or socket is made), a program
 * the kernel refuses (EACCES is how a verifier rejection returns; the verifier log goes to
 * stderr), a kernel without live-frame test runs (Linux 5.18 and later have them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include <xtx/pkt.h>
#include <xtx/roomword.h>
#include <xtx/rxmeta.h>
#include <xtx/sched.h>
#include "rules.h"
#include "xtx_redirect.skel.h"
#include "check.h"
#include "netns.h"

#ifndef BPF_F_TEST_XDP_LIVE_FRAMES
#define BPF_F_TEST_XDP_LIVE_FRAMES (1U << 1)
#endif

static int ncpu;
static char case_name[200];
static int din_idx, dout_idx;
static const uint8_t din_mac[6] = { 0x02, 0, 0xc6, 0x12, 0x63, 0x01 };
static const uint8_t dout_mac[6] = { 0x02, 0, 0xc6, 0x12, 0x64, 0x01 };
static const uint8_t nh_mac[6] = { 0x02, 0, 0xc6, 0x12, 0x64, 0x02 };	/* 198.18.100.2 */
static const uint8_t peer_mac[6] = { 0x02, 0, 0xc6, 0x12, 0x63, 0x02 };
static const uint8_t far_mac[6] = { 0x02, 0, 0xc6, 0x12, 0x65, 0x02 };	/* beyond the wire */
static const uint8_t *def_dmac = din_mac;	/* l2 tests: far_mac */
static struct xtx_sched_config *classes;

static const char classes_text[] =
	"class 1: rate 100mbit\n"
	"class 1:10 parent 1: rate 10mbit\n"
	"class 1:20 parent 1: rate 10mbit\n"
	"class 1:30 parent 1: rate 10mbit\n"
	"class 1:40 parent 1: rate 10mbit\n"
	"default 1:40\n";

static int cls_of(uint32_t h)
{
	return xtx_sched_config__class_index(classes, h);
}

/* --- the private namespace ------------------------------------------------------------ */

static const char netns_script[] =
	"set -e\n"
	"ip link set lo up\n"
	"ip link add din address 02:00:c6:12:63:01 type veth peer dinp; ip link set dinp up\n"
	"ip link set din up\n"
	"ip addr add 198.18.99.1/24 dev din\n"
	"ip link add dout address 02:00:c6:12:64:01 type veth peer doutp; ip link set doutp up\n"
	"ip link set dout up\n"
	"ip addr add 198.18.100.1/24 dev dout\n"
	"ip neigh add 198.18.100.2 lladdr 02:00:c6:12:64:02 dev dout nud permanent\n"
	"ip route add 198.18.200.0/24 via 198.18.100.2 dev dout\n"
	"ip route add blackhole 198.18.201.0/24\n"
	"ip route add unreachable 198.18.202.0/24\n"
	"ip route add prohibit 198.18.203.0/24\n"
	"ip route add 198.18.204.0/24 via 198.18.100.3 dev dout\n"
	"ip route add 198.18.205.0/24 via 198.18.100.2 dev dout mtu lock 300\n"
	"ip link add dother type veth peer dotherp; ip link set dotherp up; ip link set dother up\n"
	"ip addr add 198.18.110.1/24 dev dother\n"
	"ip neigh add 198.18.110.2 lladdr 02:00:c6:12:6e:02 dev dother nud permanent\n"
	"ip route add 198.18.210.0/24 via 198.18.110.2 dev dother\n"
	"ip -6 addr add 2001:db8:99::1/64 dev din nodad\n"
	"ip -6 addr add 2001:db8:100::1/64 dev dout nodad\n"
	"ip -6 neigh add 2001:db8:100::2 lladdr 02:00:c6:12:64:02 dev dout nud permanent\n"
	"ip -6 route add 2001:db8:200::/64 via 2001:db8:100::2 dev dout\n"
	"sysctl -qw net.ipv4.conf.all.forwarding=1\n"
	"sysctl -qw net.ipv6.conf.all.forwarding=1\n";

/* 0 in a private namespace with the veth pairs and routes up, else 1 (a failure: the
 * caller is root, so nothing optional is missing). */
static int enter_private_netns(void)
{
	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "test_redirect_bpf: FAIL: cannot make a private network namespace "
			"as root: %s\n", strerror(errno));
		return 1;
	}
	if (netns_require_private("test_redirect_bpf"))
		return 1;
	if (system(netns_script) != 0) {
		fprintf(stderr, "test_redirect_bpf: setting up veth pairs and routes in "
			"the private namespace failed (iproute2 installed?)\n");
		return 1;
	}
	din_idx = (int)if_nametoindex("din");
	dout_idx = (int)if_nametoindex("dout");
	return din_idx && dout_idx ? 0 : 1;
}

/* --- an AF_XDP socket on din queue 0 (copy mode): the XSKMAP entry ------------------- */

#define UMEM_FRAMES 64
#define UMEM_FSIZE 2048
static struct {
	void *area;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp, rx;
} x;

static int xsk_open(void)
{
	struct xsk_umem_config uc = { .fill_size = 64, .comp_size = 64,
				      .frame_size = UMEM_FSIZE, .frame_headroom = 0 };
	struct xsk_socket_config sc = { .rx_size = 64, .tx_size = 0,
					.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
					.bind_flags = XDP_COPY };
	uint32_t idx;
	int rc;

	x.area = mmap(NULL, UMEM_FRAMES * UMEM_FSIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x.area == MAP_FAILED)
		return -errno;
	rc = xsk_umem__create(&x.umem, x.area, UMEM_FRAMES * UMEM_FSIZE, &x.fill, &x.comp, &uc);
	if (rc)
		return rc;
	rc = xsk_socket__create(&x.xsk, "din", 0, x.umem, &x.rx, NULL, &sc);
	if (rc)
		return rc;
	if (xsk_ring_prod__reserve(&x.fill, 32, &idx) != 32)
		return -ENOSPC;
	for (uint32_t i = 0; i < 32; i++)
		*xsk_ring_prod__fill_addr(&x.fill, idx + i) = (uint64_t)i * UMEM_FSIZE;
	xsk_ring_prod__submit(&x.fill, 32);
	return 0;
}

static void xsk_close(void)
{
	xsk_socket__delete(x.xsk);
	xsk_umem__delete(x.umem);
	munmap(x.area, UMEM_FRAMES * UMEM_FSIZE);
}

/* --- the program ------------------------------------------------------------------------- */

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Loads the program for a mode with rules (text; "" = none) and the XSK in xsks[0]. */
static uint64_t police_stale_ns;	/* != 0: load() turns policing on, this stale time */

static struct xtx_redirect *load(uint32_t mode, const char *rules_text)
{
	struct xtx_redirect *s = xtx_redirect__open();
	static struct rd_rules rs;
	struct rd_maps m;
	char err[512];
	uint32_t zero = 0;
	int fd, rc;

	if (!s) {
		fprintf(stderr, "test_redirect_bpf: opening the BPF object failed: %s\n",
			strerror(errno));
		exit(1);
	}
	if (rd_rules__parse_string(&rs, rules_text, "test.rules", err, sizeof(err)) ||
	    rd_rules__resolve(&rs, classes, err, sizeof(err))) {
		fprintf(stderr, "test_redirect_bpf: rules: %s\n", err);
		exit(1);
	}
	s->rodata->cfg_mode = mode;
	s->rodata->cfg_out_ifindex = (uint32_t)dout_idx;
	memcpy((void *)s->rodata->cfg_in_mac, din_mac, 6);
	s->rodata->cfg_nrules = rs.n;
	if (police_stale_ns) {
		unsigned n = xtx_sched_config__class_count(classes);

		s->rodata->cfg_police = 1;
		s->rodata->cfg_ncls = n;
		s->rodata->cfg_tx_queues = 1;
		s->rodata->cfg_overhead = 24;
		s->rodata->cfg_stale_ns = police_stale_ns;
		CHECK(bpf_map__set_max_entries(s->maps.rd_police, n) == 0);
		CHECK(bpf_map__set_max_entries(s->maps.rd_admit, n) == 0);
		CHECK(bpf_map__set_max_entries(s->maps.rd_policed, n) == 0);
	}
	rc = xtx_redirect__load(s);
	if (rc) {
		rc = -rc;
		xtx_redirect__destroy(s);
		fprintf(stderr, "test_redirect_bpf: FAIL: loading xtx_redirect as root failed: %s "
			"(libbpf's message and the verifier log, if any, above)\n", strerror(rc));
		exit(1);
	}
	m = RD_MAPS_OF(s);
	if (rd_rules__load(&rs, &m, err, sizeof(err))) {
		fprintf(stderr, "test_redirect_bpf: filling maps: %s\n", err);
		exit(1);
	}
	fd = xsk_socket__fd(x.xsk);
	CHECK(bpf_map_update_elem(bpf_map__fd(s->maps.xsks), &zero, &fd, BPF_ANY) == 0);
	return s;
}

struct result {
	uint32_t verdict;
	uint8_t out[2048];		/* frame as the program left it (after the metadata) */
	uint32_t out_len;
	int has_meta;
	struct xtx_rx_meta meta;
	struct xtx_xdp_counter d[XTX_RD_STAT_MAX];	/* counter changes */
};

static void read_stats(struct xtx_redirect *s, struct xtx_xdp_counter *out)
{
	struct xtx_xdp_counter v[ncpu];

	for (uint32_t k = 0; k < XTX_RD_STAT_MAX; k++) {
		out[k].pkts = out[k].bytes = 0;
		if (CHECK(bpf_map_lookup_elem(bpf_map__fd(s->maps.rd_stats), &k, v) == 0))
			xtx_xdp_counter_add(&out[k], v, ncpu);
	}
}

static void run(struct xtx_redirect *s, const void *frame, uint32_t len, struct result *r)
{
	struct xtx_xdp_counter a[XTX_RD_STAT_MAX], b[XTX_RD_STAT_MAX];
	struct xdp_md ci = { .data = 0, .data_end = len, .ingress_ifindex = (uint32_t)din_idx,
			     .rx_queue_index = 0 }, co = { 0 };
	uint8_t buf[2048 + 64];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = len,
		    .data_out = buf, .data_size_out = sizeof(buf), .ctx_in = &ci,
		    .ctx_size_in = sizeof(ci), .ctx_out = &co, .ctx_size_out = sizeof(co),
		    .repeat = 1);
	int err;

	memset(r, 0, sizeof(*r));
	read_stats(s, a);
	err = bpf_prog_test_run_opts(bpf_program__fd(s->progs.xtx_redirect), &o);
	read_stats(s, b);
	if (!CHECK(err == 0)) {
		fprintf(stderr, "    in %s: BPF_PROG_TEST_RUN (len %u): %s\n", case_name, len,
			strerror(-err));
		r->verdict = ~0u;
		return;
	}
	r->verdict = o.retval;
	/* data_out starts at data_meta; ctx_out.data is the metadata length. */
	if (co.data == sizeof(struct xtx_rx_meta)) {
		r->has_meta = 1;
		memcpy(&r->meta, buf, sizeof(r->meta));
	} else if (!CHECK_EQ_U64(0, co.data)) {
		fprintf(stderr, "    in %s: unexpected metadata length\n", case_name);
	}
	r->out_len = o.data_size_out - co.data;
	memcpy(r->out, buf + co.data, r->out_len);
	for (int k = 0; k < XTX_RD_STAT_MAX; k++) {
		r->d[k].pkts = b[k].pkts - a[k].pkts;
		r->d[k].bytes = b[k].bytes - a[k].bytes;
	}
}

/* --- frames -------------------------------------------------------------------------- */

struct spec {
	const uint8_t *dmac;	/* NULL: def_dmac */
	int vlans;		/* 0..3 tags */
	uint16_t vid;		/* outer VLAN id (0: 100) */
	int l3;			/* 4, 6, 'a' = ARP, 0 = raw ethertype */
	uint16_t ethertype;	/* l3 == 0 */
	int l4;			/* IP protocol */
	const char *src, *dst;	/* NULL: 198.18.99.2 -> 198.18.200.5 / 2001:db8:99::2 -> ...200::5 */
	int sport, dport;	/* 0: 40000 / 5000; -1: port 0 */
	uint8_t dscp;
	int ttl;		/* 0: 64; -1: 0 */
	uint8_t icmp_type;
	int frag;		/* IPv4: 1 = MF set (first), 2 = offset != 0 */
	int v6_ext;		/* IPv6: hop-by-hop/dest-options headers before L4, 0..5 */
	int v6_ext_len;		/* hdrlen field of each (8-byte units - 1) */
	int v6_frag;		/* IPv6: fragment header, 1 = first, 2 = later */
	int ihl;		/* IPv4 header words built, options as NOPs (0: 5) */
	int ihl_field;		/* IHL written, if != 0 */
	int version;		/* version written, if != 0 */
	int tot_delta;		/* added to the IPv4 total / IPv6 payload length */
	size_t data;		/* L4 payload bytes */
};

struct frame {
	uint8_t b[1600];
	uint32_t len;
	/* the tuple the program should hash */
	int family;
	uint8_t saddr[16], daddr[16];
	uint8_t proto;
	uint16_t sport, dport;
	int has_ports;
};

static void put(struct frame *f, const void *p, size_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len += (uint32_t)n;
}
static void put8(struct frame *f, uint8_t v) { put(f, &v, 1); }
static void put16(struct frame *f, uint16_t v) { put8(f, (uint8_t)(v >> 8)); put8(f, (uint8_t)v); }
static void put32(struct frame *f, uint32_t v) { put16(f, (uint16_t)(v >> 16)); put16(f, (uint16_t)v); }
static void set16(struct frame *f, size_t off, uint16_t v)
{
	f->b[off] = (uint8_t)(v >> 8);
	f->b[off + 1] = (uint8_t)v;
}

static uint16_t ip_csum(const uint8_t *h, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i < len; i += 2)
		s += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void build(const struct spec *s, struct frame *f)
{
	size_t l3, len_off = 0, zero_base = 0, l4_off;
	int v6 = s->l3 == 6;
	uint16_t sport, dport;

	memset(f, 0, sizeof(*f));
	put(f, s->dmac ? s->dmac : def_dmac, 6);
	put(f, peer_mac, 6);
	for (int i = 0; i < s->vlans; i++) {
		put16(f, i == 0 && s->vlans > 1 ? ETH_P_8021AD : ETH_P_8021Q);
		put16(f, (uint16_t)(i == 0 ? (s->vid ? s->vid : 100) : 200 + i));
	}
	put16(f, s->l3 == 4 ? ETH_P_IP : v6 ? ETH_P_IPV6 : s->l3 == 'a' ? ETH_P_ARP :
	      s->ethertype);
	l3 = f->len;
	if (s->l3 == 'a') {
		static const uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };
		put(f, arp, sizeof(arp));
		return;
	}
	if (s->l3 == 0) {
		for (int i = 0; i < 46; i++)
			put8(f, (uint8_t)i);
		return;
	}
	f->family = s->l3;
	inet_pton(v6 ? AF_INET6 : AF_INET, s->src ? s->src : v6 ? "2001:db8:99::2" : "198.18.99.2",
		  f->saddr);
	inet_pton(v6 ? AF_INET6 : AF_INET, s->dst ? s->dst : v6 ? "2001:db8:200::5" : "198.18.200.5",
		  f->daddr);
	f->proto = (uint8_t)s->l4;
	if (!v6) {
		int ihl = s->ihl ? s->ihl : 5;

		put8(f, (uint8_t)((s->version ? s->version : 4) << 4 |
				  (s->ihl_field ? s->ihl_field : ihl)));
		put8(f, (uint8_t)(s->dscp << 2));
		len_off = f->len;
		put16(f, 0);
		put16(f, 0x1234);			/* id */
		put16(f, s->frag == 1 ? 0x2000 : s->frag == 2 ? 0x0020 : 0x4000);
		put8(f, (uint8_t)(s->ttl < 0 ? 0 : s->ttl ? s->ttl : 64));
		put8(f, (uint8_t)s->l4);
		put16(f, 0);				/* checksum, below */
		put(f, f->saddr, 4);
		put(f, f->daddr, 4);
		for (int i = 5; i < ihl && i < 15; i++)
			put32(f, 0x01010101);		/* NOP options */
		zero_base = l3;
	} else {
		uint8_t nh = s->v6_ext ? IPPROTO_HOPOPTS : s->v6_frag ? IPPROTO_FRAGMENT :
			     (uint8_t)s->l4;

		put32(f, (uint32_t)(s->version ? s->version : 6) << 28 | (uint32_t)s->dscp << 22 |
		      0x12345);
		len_off = f->len;
		put16(f, 0);
		put8(f, nh);
		put8(f, (uint8_t)(s->ttl < 0 ? 0 : s->ttl ? s->ttl : 64));
		put(f, f->saddr, 16);
		put(f, f->daddr, 16);
		zero_base = f->len;
		for (int e = 0; e < s->v6_ext; e++) {
			uint8_t next = e + 1 < s->v6_ext ? IPPROTO_DSTOPTS :
				       s->v6_frag ? IPPROTO_FRAGMENT : (uint8_t)s->l4;

			put8(f, next);
			put8(f, (uint8_t)s->v6_ext_len);
			put8(f, 1);			/* PadN over the rest */
			put8(f, (uint8_t)(4 + 8 * s->v6_ext_len));
			for (int i = 0; i < 4 + 8 * s->v6_ext_len; i++)
				put8(f, 0);
		}
		if (s->v6_frag) {
			put8(f, (uint8_t)s->l4);
			put8(f, 0);
			put16(f, s->v6_frag == 1 ? 1 : 0x100);	/* M=1 offset 0 / offset 32 */
			put32(f, 7);
		}
	}
	l4_off = f->len;
	sport = (uint16_t)(s->sport < 0 ? 0 : s->sport ? s->sport : 40000);
	dport = (uint16_t)(s->dport < 0 ? 0 : s->dport ? s->dport : 5000);
	if (s->l4 == IPPROTO_UDP || s->l4 == IPPROTO_TCP) {
		put16(f, sport);
		put16(f, dport);
		if (s->l4 == IPPROTO_UDP) {
			put16(f, 0);
			put16(f, 0);
		} else {
			put32(f, 1); put32(f, 0);
			put16(f, 0x5002); put16(f, 65535); put32(f, 0);
		}
	} else if (s->l4 == IPPROTO_ICMP || s->l4 == IPPROTO_ICMPV6) {
		put8(f, s->icmp_type);
		put8(f, 0);
		put16(f, 0);
		put32(f, 0x00010001);
	}
	for (size_t i = 0; i < s->data; i++)
		put8(f, (uint8_t)('a' + i % 26));
	if (s->l4 == IPPROTO_UDP)
		set16(f, l4_off + 4, (uint16_t)(f->len - l4_off));
	set16(f, len_off, (uint16_t)((int)(f->len - zero_base) + s->tot_delta));
	if (!v6) {
		uint16_t c = ip_csum(f->b + l3, (size_t)(s->ihl ? s->ihl : 5) * 4);

		set16(f, l3 + 10, c);
	}
	f->has_ports = (s->l4 == IPPROTO_UDP || s->l4 == IPPROTO_TCP) && !s->frag && !s->v6_frag;
	if (v6 && s->v6_ext > 4) {		/* the program stops at the 5th header */
		f->proto = IPPROTO_DSTOPTS;
		f->has_ports = 0;
	}
	f->sport = f->has_ports ? sport : 0;
	f->dport = f->has_ports ? dport : 0;
	while (f->len < 60)
		put8(f, 0);
}

/* The hash the program should write: pkt.h's for IP, the MAC layout of xtx_redirect.h
 * otherwise. */
static uint32_t expect_hash(const struct frame *f, int as_ip)
{
	if (as_ip) {
		struct xtx_pkt_flow k = { .family = f->family == 4 ? AF_INET : AF_INET6,
					  .proto = f->proto, .src_port = f->sport,
					  .dst_port = f->dport };

		memcpy(&k.src, f->saddr, f->family == 4 ? 4 : 16);
		memcpy(&k.dst, f->daddr, f->family == 4 ? 4 : 16);
		return xtx_pkt__flow_hash(&k, 0);
	}
	const uint8_t *d = f->b, *s = f->b + 6;
	uint16_t et = 0;
	size_t off = 12;

	/* innermost ethertype seen: past at most two tags */
	for (int i = 0; i < 3; i++) {
		et = (uint16_t)(f->b[off] << 8 | f->b[off + 1]);
		if (i == 2 || (et != ETH_P_8021Q && et != ETH_P_8021AD) || off + 6 > f->len)
			break;
		off += 4;
	}
	uint32_t h = 0;
	h = _xtx_mmh3_mix(h, (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3]);
	h = _xtx_mmh3_mix(h, (uint32_t)d[4] << 24 | (uint32_t)d[5] << 16 | (uint32_t)s[0] << 8 | s[1]);
	h = _xtx_mmh3_mix(h, (uint32_t)s[2] << 24 | (uint32_t)s[3] << 16 | (uint32_t)s[4] << 8 | s[5]);
	h = _xtx_mmh3_mix(h, et);
	return _xtx_mmh3_final(h, 16);
}

/* --- 1. the parse table (l2 mode) --------------------------------------------------- */

static const char parse_rules[] =
	"# one class per parse outcome\n"
	"match proto udp dport 5000 class 1:10\n"
	"match proto tcp dport 5000 class 1:20\n"
	"match proto icmp class 1:30\n"
	"match proto icmpv6 class 1:30\n"
	"match vlan 300 class 1:20\n"
	"match proto 47 pass\n"
	"match proto 50 drop\n"
	"default class 1:40\n";

enum { V_REDIRECT, V_PASS, V_DROP };

struct prow {
	const char *name;
	struct spec s;
	int stat;		/* verdict counter */
	int sub, sub2;		/* sub-counters expected to move (0 = none) */
	uint32_t cls;		/* class handle in the metadata (redirect only) */
	int hash_ip;		/* 1: pkt.h 5-tuple hash, 0: MAC hash */
};

#define U4(...) { .l3 = 4, .l4 = IPPROTO_UDP, __VA_ARGS__ }
#define U6(...) { .l3 = 6, .l4 = IPPROTO_UDP, __VA_ARGS__ }
#define T4(...) { .l3 = 4, .l4 = IPPROTO_TCP, __VA_ARGS__ }
#define T6(...) { .l3 = 6, .l4 = IPPROTO_TCP, __VA_ARGS__ }
#define RD XTX_RD_REDIRECT
#define DEF XTX_RD_DEFAULT

static const struct prow prows[] = {
	{ "ipv4 udp", U4(.data = 18), RD, 0, 0, XTX_HANDLE(1, 0x10), 1 },
	{ "ipv4 udp other port: default", U4(.dport = 5001), RD, DEF, 0, XTX_HANDLE(1, 0x40), 1 },
	{ "ipv4 udp, options (ihl 7)", U4(.ihl = 7, .data = 4), RD, 0, 0, XTX_HANDLE(1, 0x10), 1 },
	{ "ipv4 udp, ihl 15", U4(.ihl = 15), RD, 0, 0, XTX_HANDLE(1, 0x10), 1 },
	{ "ipv4 tcp", T4(), RD, 0, 0, XTX_HANDLE(1, 0x20), 1 },
	{ "ipv4 icmp", { .l3 = 4, .l4 = IPPROTO_ICMP, .icmp_type = 8 }, RD, 0, 0,
	  XTX_HANDLE(1, 0x30), 1 },
	{ "ipv4 gre: rule pass", { .l3 = 4, .l4 = 47, .data = 8 }, XTX_RD_PASS_RULE, 0, 0, 0, 1 },
	{ "ipv4 esp: rule drop", { .l3 = 4, .l4 = 50, .data = 8 }, XTX_RD_DROP_RULE, 0, 0, 0, 1 },
	{ "ipv4 other protocol: default", { .l3 = 4, .l4 = 132, .data = 12 }, RD, DEF, 0,
	  XTX_HANDLE(1, 0x40), 1 },
	{ "ipv4 udp MF: fragment, no ports", U4(.frag = 1, .data = 8), RD, XTX_RD_FRAGMENT, DEF,
	  XTX_HANDLE(1, 0x40), 1 },
	{ "ipv4 udp offset: fragment, no ports", U4(.frag = 2, .data = 8), RD, XTX_RD_FRAGMENT,
	  DEF, XTX_HANDLE(1, 0x40), 1 },
	{ "ipv6 udp", U6(.data = 10), RD, 0, 0, XTX_HANDLE(1, 0x10), 1 },
	{ "ipv6 tcp", T6(), RD, 0, 0, XTX_HANDLE(1, 0x20), 1 },
	{ "ipv6 icmpv6 echo", { .l3 = 6, .l4 = IPPROTO_ICMPV6, .icmp_type = 128 }, RD, 0, 0,
	  XTX_HANDLE(1, 0x30), 1 },
	{ "ipv6 neighbour solicitation", { .l3 = 6, .l4 = IPPROTO_ICMPV6, .icmp_type = 135,
	  .dst = "ff02::1:ff00:5", .dmac = (const uint8_t[]){ 0x33, 0x33, 0xff, 0, 0, 5 } },
	  XTX_RD_PASS_ND, 0, 0, 0, 1 },
	{ "ipv6 router advertisement", { .l3 = 6, .l4 = IPPROTO_ICMPV6, .icmp_type = 134 },
	  XTX_RD_PASS_ND, 0, 0, 0, 1 },
	{ "ipv6 hop-by-hop + udp", U6(.v6_ext = 1, .data = 3), RD, 0, 0, XTX_HANDLE(1, 0x10), 1 },
	{ "ipv6 4 option headers (16 bytes each) + tcp", T6(.v6_ext = 4, .v6_ext_len = 1), RD, 0,
	  0, XTX_HANDLE(1, 0x20), 1 },
	{ "ipv6 5 option headers: 5th not parsed", T6(.v6_ext = 5), RD, DEF, 0,
	  XTX_HANDLE(1, 0x40), 1 },
	{ "ipv6 fragment header, first", U6(.v6_frag = 1, .data = 8), RD, XTX_RD_FRAGMENT, DEF,
	  XTX_HANDLE(1, 0x40), 1 },
	{ "ipv6 hop-by-hop + fragment header", U6(.v6_ext = 1, .v6_frag = 2, .data = 8), RD,
	  XTX_RD_FRAGMENT, DEF, XTX_HANDLE(1, 0x40), 1 },
	{ "1 vlan ipv4 udp", U4(.vlans = 1, .data = 5), RD, 0, 0, XTX_HANDLE(1, 0x10), 1 },
	{ "2 vlans ipv6 tcp", T6(.vlans = 2), RD, 0, 0, XTX_HANDLE(1, 0x20), 1 },
	{ "vlan 300 ipv4 udp 5000: first rule wins", U4(.vlans = 1, .vid = 300), RD, 0, 0,
	  XTX_HANDLE(1, 0x10), 1 },
	{ "vlan 300 ipv4 udp 6000: vlan rule", U4(.vlans = 1, .vid = 300, .dport = 6000), RD, 0,
	  0, XTX_HANDLE(1, 0x20), 1 },
	{ "vlan 300 non-ip: vlan rule", { .vlans = 1, .vid = 300, .ethertype = 0x88b5 }, RD, 0,
	  0, XTX_HANDLE(1, 0x20), 0 },
	{ "non-ip (0x88b5): default", { .ethertype = 0x88b5 }, RD, DEF, 0, XTX_HANDLE(1, 0x40),
	  0 },
	{ "3 vlans: malformed, unparsed", U4(.vlans = 3), RD, XTX_RD_MALFORMED, DEF,
	  XTX_HANDLE(1, 0x40), 0 },
	{ "arp", { .l3 = 'a' }, XTX_RD_PASS_ARP, 0, 0, 0, 0 },
	{ "arp in a vlan", { .l3 = 'a', .vlans = 1 }, XTX_RD_PASS_ARP, 0, 0, 0, 0 },
	{ "to this host's MAC (l2: local)", U4(.dmac = din_mac), RD, 0, 0, XTX_HANDLE(1, 0x10), 1 },
	{ "ipv4 ihl 4", U4(.ihl_field = 4, .data = 8), RD, XTX_RD_MALFORMED, DEF,
	  XTX_HANDLE(1, 0x40), 0 },
	{ "ipv4 version 6 in an IPv4 ethertype", U4(.version = 6, .data = 30), RD,
	  XTX_RD_MALFORMED, DEF, XTX_HANDLE(1, 0x40), 0 },
	{ "ipv6 version 4 in an IPv6 ethertype", U6(.version = 4), RD, XTX_RD_MALFORMED, DEF,
	  XTX_HANDLE(1, 0x40), 0 },
	{ "ipv4 ihl 15 claimed, 5 built: past the frame", U4(.ihl_field = 15), RD,
	  XTX_RD_TRUNCATED, DEF, XTX_HANDLE(1, 0x40), 0 },
	{ "ipv4 total length < header", U4(.tot_delta = -9), RD, XTX_RD_MALFORMED, DEF,
	  XTX_HANDLE(1, 0x40), 0 },
	{ "ipv4 total length past the frame", U4(.tot_delta = 100), RD, XTX_RD_TRUNCATED, DEF,
	  XTX_HANDLE(1, 0x40), 0 },
	{ "ipv4 total length leaves 3 bytes of udp", U4(.tot_delta = -5), RD, XTX_RD_MALFORMED,
	  DEF, XTX_HANDLE(1, 0x40), 0 },
	{ "ipv6 payload length past the frame", U6(.tot_delta = 100), RD, XTX_RD_TRUNCATED, DEF,
	  XTX_HANDLE(1, 0x40), 0 },
	{ "ipv6 payload length 0 (jumbo)", U6(.tot_delta = -8), RD, XTX_RD_MALFORMED, DEF,
	  XTX_HANDLE(1, 0x40), 0 },
	{ "ipv6 option header longer than the payload", U6(.v6_ext = 1, .v6_ext_len = 3,
	  .tot_delta = -24), RD, XTX_RD_MALFORMED, DEF, XTX_HANDLE(1, 0x40), 0 },
	{ "ipv6 fragment header cut by the payload length", U6(.v6_frag = 1, .tot_delta = -12),
	  RD, XTX_RD_MALFORMED, DEF, XTX_HANDLE(1, 0x40), 0 },
};

static void check_moved(const struct result *r, int a, int b, int c, uint32_t len)
{
	for (int k = 0; k < XTX_RD_STAT_MAX; k++) {
		int want = k == a || (b && k == b) || (c && k == c);

		if (!CHECK_EQ_U64(want, r->d[k].pkts) ||
		    !CHECK_EQ_U64(want ? len : 0, r->d[k].bytes))
			fprintf(stderr, "    counter %s in %s\n", xtx_rd_stat_name(k), case_name);
	}
}

static uint32_t verdict_of(int stat)
{
	return stat == XTX_RD_REDIRECT ? XDP_REDIRECT : stat == XTX_RD_DROP_RULE ? XDP_DROP :
	       XDP_PASS;
}

static void test_parse(void)
{
	struct xtx_redirect *s = load(XTX_RD_MODE_L2, parse_rules);
	struct result r;
	struct frame f;

	def_dmac = far_mac;

	for (size_t i = 0; i < sizeof(prows) / sizeof(prows[0]); i++) {
		const struct prow *p = &prows[i];
		unsigned long f0 = atomic_load(&check_n_fail);

		snprintf(case_name, sizeof(case_name), "parse: %s", p->name);
		build(&p->s, &f);
		run(s, f.b, f.len, &r);
		/* The "to this host's MAC" row: l2 passes frames to din's own MAC. */
		int stat = p->s.dmac == din_mac ? XTX_RD_PASS_LOCAL : p->stat;
		int sub = stat == p->stat ? p->sub : 0, sub2 = stat == p->stat ? p->sub2 : 0;

		CHECK_EQ_U64(verdict_of(stat), r.verdict);
		check_moved(&r, stat, sub, sub2, f.len);
		CHECK_EQ_U64(f.len, r.out_len);
		CHECK(r.out_len == f.len && !memcmp(r.out, f.b, f.len));	/* unchanged */
		if (stat == XTX_RD_REDIRECT) {
			CHECK(r.has_meta);
			CHECK_EQ_U64(XTX_RX_META_MAGIC, r.meta.magic);
			CHECK_EQ_U64(cls_of(p->cls), r.meta.cls);
			CHECK_EQ_U64(expect_hash(&f, p->hash_ip), r.meta.hash);
		} else {
			CHECK(!r.has_meta);
		}
		if (atomic_load(&check_n_fail) != f0)
			fprintf(stderr, "    in case: %s (frame length %u)\n", case_name, f.len);
	}
	xtx_redirect__destroy(s);
}

/* --- 2. every truncation -------------------------------------------------------------------- */

static void test_truncation(void)
{
	static const struct { const char *name; struct spec s; } full[] = {
		{ "ipv4 udp", U4(.data = 30) },
		{ "ipv4 tcp, options", T4(.ihl = 8) },
		{ "vlan ipv4 icmp", { .vlans = 1, .l3 = 4, .l4 = IPPROTO_ICMP, .data = 20 } },
		{ "2 vlans ipv6 udp", U6(.vlans = 2, .data = 8) },
		{ "ipv6 hop-by-hop + fragment + tcp", T6(.v6_ext = 1, .v6_frag = 1) },
	};
	for (int mode = 0; mode < 2; mode++) {
		struct xtx_redirect *s = load(mode ? XTX_RD_MODE_ROUTER : XTX_RD_MODE_L2,
					      parse_rules);

		def_dmac = mode ? din_mac : far_mac;

		for (size_t i = 0; i < sizeof(full) / sizeof(full[0]); i++) {
			struct frame f;
			struct result r;
			uint32_t hdr_end;

			build(&full[i].s, &f);
			/* Cut before the frame's real end (the padding aside): the IP length
			 * then always exceeds what is left, or a header is cut. */
			hdr_end = f.len;
			while (hdr_end > 14 && !f.b[hdr_end - 1])
				hdr_end--;
			for (uint32_t cut = 14; cut < hdr_end; cut++) {
				unsigned long f0 = atomic_load(&check_n_fail);
				int stat = mode ? XTX_RD_PASS_BAD : XTX_RD_REDIRECT;

				snprintf(case_name, sizeof(case_name), "%s truncation: %s cut at %u",
					 mode ? "router" : "l2", full[i].name, cut);
				run(s, f.b, cut, &r);
				CHECK_EQ_U64(verdict_of(stat), r.verdict);
				check_moved(&r, stat, XTX_RD_TRUNCATED, mode ? 0 : DEF, cut);
				CHECK(r.out_len == cut && !memcmp(r.out, f.b, cut));
				if (!mode)
					CHECK_EQ_U64(cls_of(XTX_HANDLE(1, 0x40)), r.meta.cls);
				if (atomic_load(&check_n_fail) != f0) {
					fprintf(stderr, "    in %s\n", case_name);
					break;
				}
			}
		}
		xtx_redirect__destroy(s);
	}
}

/* --- 3. rules -------------------------------------------------------------------------------- */

static const char sem_rules[] =
	"match src 198.18.0.0/15 dst 198.18.1.0/24 dport 5000-5999 class 1:10   # r0\n"
	"match dst 198.18.1.128/25 class 1:20\n"
	"match dst 198.18.1.0/24 proto udp class 1:30\n"
	"match src 2001:db8::/32 dport 53 pass\n"
	"match dst 2001:db8:1::/48 class 1:20\n"
	"match dscp 46 class 1:10\n"
	"match dscp 8-15 drop\n"
	"match vlan 200 class 1:30\n"
	"match sport 1000 proto tcp class 1:20\n"
	"match vlan untagged dst 198.19.7.7/32 class 1:10\n"
	"default class 1:40\n";

struct srow {
	const char *name;
	struct spec s;
	int action;		/* XTX_RD_ACT_* */
	uint32_t cls;
};

static const struct srow srows[] = {
	{ "r0", U4(.src = "198.18.5.5", .dst = "198.18.1.7", .dport = 5500), 0, XTX_HANDLE(1, 0x10) },
	{ "r0 low edge", U4(.src = "198.19.255.255", .dst = "198.18.1.7", .dport = 5000), 0,
	  XTX_HANDLE(1, 0x10) },
	{ "r0 high edge", T4(.src = "198.18.0.0", .dst = "198.18.1.255", .dport = 5999), 0,
	  XTX_HANDLE(1, 0x10) },
	{ "past r0's ports: r2", U4(.src = "198.18.5.5", .dst = "198.18.1.7", .dport = 6000), 0,
	  XTX_HANDLE(1, 0x30) },
	{ "below r0's ports, tcp: default", T4(.src = "198.18.5.5", .dst = "198.18.1.7",
	  .dport = 4999), 0, XTX_HANDLE(1, 0x40) },
	{ "longer prefix r1 after r0: r0 first", U4(.src = "198.18.5.5", .dst = "198.18.1.200",
	  .dport = 5001), 0, XTX_HANDLE(1, 0x10) },
	{ "longer prefix r1", U4(.src = "198.18.5.5", .dst = "198.18.1.200", .dport = 6000), 0,
	  XTX_HANDLE(1, 0x20) },
	{ "r1 for tcp too", T4(.src = "198.18.5.5", .dst = "198.18.1.129", .dport = 6000), 0,
	  XTX_HANDLE(1, 0x20) },
	{ "src outside r0: r2", U4(.src = "198.20.0.1", .dst = "198.18.1.7", .dport = 5500), 0,
	  XTX_HANDLE(1, 0x30) },
	{ "ipv6 dns: pass", U6(.src = "2001:db8::1", .dst = "2001:db8:1::5", .dport = 53),
	  XTX_RD_ACT_PASS, 0 },
	{ "ipv6 dns, tcp: pass", T6(.src = "2001:db8:ffff::1", .dst = "2001:db8:9::5",
	  .dport = 53), XTX_RD_ACT_PASS, 0 },
	{ "ipv6 not dns: r4", U6(.src = "2001:db8::1", .dst = "2001:db8:1::5", .dport = 54), 0,
	  XTX_HANDLE(1, 0x20) },
	{ "ipv6 src outside /32: r4", U6(.src = "2001:db9::1", .dst = "2001:db8:1:ffff::5",
	  .dport = 53), 0, XTX_HANDLE(1, 0x20) },
	{ "ipv6 nothing: default", U6(.src = "2001:db9::1", .dst = "2001:db8:2::5", .dport = 53), 0,
	  XTX_HANDLE(1, 0x40) },
	{ "dscp 46", T4(.dst = "198.19.0.1", .dscp = 46), 0, XTX_HANDLE(1, 0x10) },
	{ "ipv6 dscp 46", T6(.dst = "2001:db8:5::1", .dscp = 46), 0, XTX_HANDLE(1, 0x10) },
	{ "dscp 8: drop", U4(.dst = "198.19.0.1", .dscp = 8), XTX_RD_ACT_DROP, 0 },
	{ "dscp 15: drop", U4(.dst = "198.19.0.1", .dscp = 15), XTX_RD_ACT_DROP, 0 },
	{ "dscp 16: default", U4(.dst = "198.19.0.1", .dscp = 16), 0, XTX_HANDLE(1, 0x40) },
	{ "vlan 200", U4(.vlans = 1, .vid = 200, .dst = "198.19.0.1", .dport = 7), 0,
	  XTX_HANDLE(1, 0x30) },
	{ "vlan 200 non-ip", { .vlans = 1, .vid = 200, .ethertype = 0x88b5 }, 0, XTX_HANDLE(1, 0x30) },
	{ "vlan 201 non-ip: default", { .vlans = 1, .vid = 201, .ethertype = 0x88b5 }, 0,
	  XTX_HANDLE(1, 0x40) },
	{ "tcp sport 1000", T4(.dst = "198.19.0.1", .sport = 1000), 0, XTX_HANDLE(1, 0x20) },
	{ "udp sport 1000: default", U4(.dst = "198.19.0.1", .sport = 1000), 0,
	  XTX_HANDLE(1, 0x40) },
	{ "untagged /32", U4(.dst = "198.19.7.7"), 0, XTX_HANDLE(1, 0x10) },
	{ "tagged /32: default", U4(.vlans = 1, .vid = 5, .dst = "198.19.7.7"), 0,
	  XTX_HANDLE(1, 0x40) },
	{ "icmp to r2's /24: not udp, default", { .l3 = 4, .l4 = IPPROTO_ICMP,
	  .dst = "198.18.1.7" }, 0, XTX_HANDLE(1, 0x40) },
};

static void expect_action(const struct result *r, int action, uint32_t cls, uint32_t len)
{
	if (action == XTX_RD_ACT_PASS) {
		CHECK_EQ_U64(XDP_PASS, r->verdict);
		CHECK_EQ_U64(1, r->d[XTX_RD_PASS_RULE].pkts);
	} else if (action == XTX_RD_ACT_DROP) {
		CHECK_EQ_U64(XDP_DROP, r->verdict);
		CHECK_EQ_U64(1, r->d[XTX_RD_DROP_RULE].pkts);
	} else {
		CHECK_EQ_U64(XDP_REDIRECT, r->verdict);
		CHECK_EQ_U64(1, r->d[XTX_RD_REDIRECT].pkts);
		CHECK_EQ_U64(len, r->d[XTX_RD_REDIRECT].bytes);
		CHECK_EQ_U64(cls_of(cls), r->meta.cls);
	}
}

/* Is address a (a->len bits, all of them) within prefix q? The model's own test, not
 * rules.c's: the maps are built with that one. */
static int in_prefix(const struct rd_prefix *q, const struct rd_prefix *a)
{
	unsigned full = q->len / 8, rest = q->len % 8;

	if (q->family != a->family || q->len > a->len)
		return 0;
	if (memcmp(q->addr, a->addr, full))
		return 0;
	return !rest || !((q->addr[full] ^ a->addr[full]) & (uint8_t)(0xff00 >> rest));
}

/* The model: the first rule of rs whose every criterion holds for the frame. */
static const struct rd_rule *model(const struct rd_rules *rs, const struct spec *sp,
				   const struct frame *f)
{
	for (unsigned i = 0; i < rs->n; i++) {
		const struct rd_rule *r = &rs->r[i];
		struct rd_prefix a = { .family = (uint8_t)f->family,
				       .len = f->family == 4 ? 32 : 128 };
		uint16_t vlan = sp->vlans ? (sp->vid ? sp->vid : 100) : XTX_RD_VLAN_UNTAGGED;

		if (r->has_vlan && r->vlan != vlan)
			continue;
		if (!f->family) {
			if (r->has_src || r->has_dst || r->has_sport || r->has_dport ||
			    r->has_proto || r->has_dscp)
				continue;
			return r;
		}
		if (r->family && r->family != f->family)
			continue;
		memcpy(a.addr, f->saddr, 16);
		if (r->has_src && !in_prefix(&r->src, &a))
			continue;
		memcpy(a.addr, f->daddr, 16);
		if (r->has_dst && !in_prefix(&r->dst, &a))
			continue;
		if (r->has_proto && r->proto != f->proto)
			continue;
		if (r->has_dscp && (sp->dscp < r->dscp_lo || sp->dscp > r->dscp_hi))
			continue;
		if ((r->has_sport || r->has_dport) && !f->has_ports)
			continue;
		if (r->has_sport && (f->sport < r->sport_lo || f->sport > r->sport_hi))
			continue;
		if (r->has_dport && (f->dport < r->dport_lo || f->dport > r->dport_hi))
			continue;
		return r;
	}
	return &rs->def;
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

static void test_rules(void)
{
	struct xtx_redirect *s = load(XTX_RD_MODE_L2, sem_rules);
	static struct rd_rules rs;
	struct result r;
	struct frame f;
	char err[256];

	def_dmac = far_mac;
	for (size_t i = 0; i < sizeof(srows) / sizeof(srows[0]); i++) {
		unsigned long f0 = atomic_load(&check_n_fail);

		snprintf(case_name, sizeof(case_name), "rules: %s", srows[i].name);
		build(&srows[i].s, &f);
		run(s, f.b, f.len, &r);
		expect_action(&r, srows[i].action, srows[i].cls, f.len);
		if (atomic_load(&check_n_fail) != f0)
			fprintf(stderr, "    in case: %s\n", case_name);
	}

	/* Random frames from values on and around every rule's edges, against the model. */
	CHECK(rd_rules__parse_string(&rs, sem_rules, "sem", err, sizeof(err)) == 0);
	CHECK(rd_rules__resolve(&rs, classes, err, sizeof(err)) == 0);
	static const char *const a4[] = { "198.18.0.0", "198.19.255.255", "198.20.0.0",
		"198.17.255.255", "198.18.1.0", "198.18.1.127", "198.18.1.128", "198.18.1.255",
		"198.18.2.0", "198.19.7.7", "198.19.7.8", "10.1.2.3" };
	static const char *const a6[] = { "2001:db8::1", "2001:db8:ffff:ffff::1", "2001:db9::",
		"2001:db8:1::", "2001:db8:1:ffff:ffff:ffff:ffff:ffff", "2001:db8:2::", "fe80::1" };
	static const uint16_t ports[] = { 0, 52, 53, 54, 999, 1000, 1001, 4999, 5000, 5999, 6000,
					  65535 };
	static const uint8_t dscps[] = { 0, 7, 8, 15, 16, 45, 46, 47, 63 };
	static const int protos[] = { IPPROTO_UDP, IPPROTO_TCP, IPPROTO_ICMP, IPPROTO_ICMPV6, 47,
				      132 };
	unsigned mismatches = 0;

	for (int n = 0; n < 3000; n++) {
		struct spec sp = { 0 };
		const struct rd_rule *want;
		int v6 = rnd() % 3 == 0, nonip = rnd() % 20 == 0;

		sp.l3 = nonip ? 0 : v6 ? 6 : 4;
		sp.ethertype = 0x88b5;
		sp.l4 = protos[rnd() % 6];
		if (sp.l4 == IPPROTO_ICMPV6 && !v6)
			sp.l4 = IPPROTO_ICMP;
		sp.src = v6 ? a6[rnd() % 7] : a4[rnd() % 12];
		sp.dst = v6 ? a6[rnd() % 7] : a4[rnd() % 12];
		sp.sport = ports[rnd() % 12];
		sp.dport = ports[rnd() % 12];
		sp.sport = sp.sport ? sp.sport : -1;
		sp.dport = sp.dport ? sp.dport : -1;
		sp.dscp = dscps[rnd() % 9];
		sp.data = 8;	/* an IPv6 payload length of 0 would be a (refused) jumbogram */
		sp.vlans = rnd() % 3 == 0;
		sp.vid = (uint16_t)(rnd() % 2 ? 200 : 5);
		if (!nonip && rnd() % 10 == 0)
			sp.frag = 2, sp.v6_frag = v6 ? 2 : 0;
		if (v6)
			sp.frag = 0;
		if (v6 && sp.l4 == IPPROTO_ICMPV6)
			sp.icmp_type = 128;
		build(&sp, &f);
		want = model(&rs, &sp, &f);
		snprintf(case_name, sizeof(case_name), "random rules frame %d", n);
		run(s, f.b, f.len, &r);
		unsigned long f0 = atomic_load(&check_n_fail);
		expect_action(&r, (int)want->action, want->handle, f.len);
		if (atomic_load(&check_n_fail) != f0 && ++mismatches < 5)
			fprintf(stderr, "    %s: %s -> %s sport %d dport %d proto %d dscp %u vlan "
				"%d/%u; model: rule at line %u\n", case_name, sp.src, sp.dst,
				sp.sport, sp.dport, sp.l4, sp.dscp, sp.vlans, sp.vid, want->line);
	}
	xtx_redirect__destroy(s);
}

/* --- 4. router mode --------------------------------------------------------------------------- */

struct rrow {
	const char *name;
	struct spec s;
	int stat;
	int sub;
};

static const struct rrow rrows[] = {
	{ "ipv4 forwarded", U4(.data = 20), RD, DEF },
	{ "ipv4 ttl 2 forwarded", U4(.ttl = 2), RD, DEF },
	{ "ipv4 with options forwarded", T4(.ihl = 6), RD, DEF },
	{ "ipv4 fragment forwarded", U4(.frag = 2, .data = 16), RD, XTX_RD_FRAGMENT },
	{ "ipv4 ttl 1", U4(.ttl = 1), XTX_RD_PASS_TTL, DEF },
	{ "ipv4 ttl 0", U4(.ttl = -1), XTX_RD_PASS_TTL, DEF },
	{ "ipv4 blackhole", U4(.dst = "198.18.201.1"), XTX_RD_PASS_NO_ROUTE, DEF },
	{ "ipv4 unreachable", U4(.dst = "198.18.202.1"), XTX_RD_PASS_NO_ROUTE, DEF },
	{ "ipv4 prohibit", U4(.dst = "198.18.203.1"), XTX_RD_PASS_NO_ROUTE, DEF },
	{ "ipv4 no neighbour", U4(.dst = "198.18.204.1"), XTX_RD_PASS_NO_NEIGH, DEF },
	{ "ipv4 above the route's mtu", U4(.dst = "198.18.205.1", .data = 400),
	  XTX_RD_PASS_FRAG_NEEDED, DEF },
	{ "ipv4 within the route's mtu", U4(.dst = "198.18.205.1", .data = 100), RD, DEF },
	{ "ipv4 route via another interface", U4(.dst = "198.18.210.1"), XTX_RD_PASS_OTHER_IF,
	  DEF },
	{ "ipv4 no route at all", U4(.dst = "198.19.250.1"), XTX_RD_PASS_NOT_FWDED, DEF },
	{ "ipv4 to the ingress address", U4(.dst = "198.18.99.1"), XTX_RD_PASS_NOT_FWDED, DEF },
	{ "ipv4 icmp to the egress address", { .l3 = 4, .l4 = IPPROTO_ICMP, .icmp_type = 8,
	  .dst = "198.18.100.1" }, XTX_RD_PASS_NOT_FWDED, DEF },
	{ "broadcast MAC", U4(.dmac = (const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }),
	  XTX_RD_PASS_NOT_UNICAST, 0 },
	{ "another host's MAC", U4(.dmac = peer_mac), XTX_RD_PASS_NOT_UNICAST, 0 },
	{ "vlan-tagged", U4(.vlans = 1), XTX_RD_PASS_VLAN, 0 },
	{ "arp", { .l3 = 'a' }, XTX_RD_PASS_ARP, 0 },
	{ "non-ip", { .ethertype = 0x88b5 }, XTX_RD_PASS_NON_IP, 0 },
	{ "ipv4 malformed", U4(.ihl_field = 3), XTX_RD_PASS_BAD, XTX_RD_MALFORMED },
	{ "ipv6 forwarded", U6(.data = 20), RD, DEF },
	{ "ipv6 with options forwarded", T6(.v6_ext = 2), RD, DEF },
	{ "ipv6 hop limit 1", U6(.ttl = 1), XTX_RD_PASS_TTL, DEF },
	{ "ipv6 link-local destination", U6(.dst = "fe80::1"), XTX_RD_PASS_LOCAL, 0 },
	{ "ipv6 to the egress address", U6(.dst = "2001:db8:100::1"), XTX_RD_PASS_NOT_FWDED,
	  DEF },
	{ "ipv6 neighbour solicitation", { .l3 = 6, .l4 = IPPROTO_ICMPV6, .icmp_type = 135 },
	  XTX_RD_PASS_ND, 0 },
};

static void check_forwarded(const struct frame *in, const struct result *r)
{
	const uint8_t *o = r->out;
	size_t l3 = 14;

	CHECK(r->out_len == in->len);
	CHECK(!memcmp(o, nh_mac, 6));				/* next hop's MAC */
	CHECK(!memcmp(o + 6, dout_mac, 6));			/* egress interface's MAC */
	if (in->family == 4) {
		size_t hl = (size_t)(in->b[l3] & 0xf) * 4;

		CHECK_EQ_U64(in->b[l3 + 8] - 1, o[l3 + 8]);	/* TTL */
		CHECK_EQ_U64(0, ip_csum(o + l3, hl));		/* checksum valid */
		/* everything else as received */
		CHECK(!memcmp(o + 12, in->b + 12, 8 + 2));
		CHECK(!memcmp(o + l3 + 9, in->b + l3 + 9, 1));
		CHECK(!memcmp(o + l3 + 12, in->b + l3 + 12, in->len - l3 - 12));
	} else {
		CHECK_EQ_U64(in->b[l3 + 7] - 1, o[l3 + 7]);	/* hop limit */
		CHECK(!memcmp(o + 12, in->b + 12, 2 + 7));
		CHECK(!memcmp(o + l3 + 8, in->b + l3 + 8, in->len - l3 - 8));
	}
}

static void test_router(void)
{
	struct xtx_redirect *s = load(XTX_RD_MODE_ROUTER, "");
	struct result r;
	struct frame f;
	uint32_t zero = 0;

	def_dmac = din_mac;
	for (size_t i = 0; i < sizeof(rrows) / sizeof(rrows[0]); i++) {
		const struct rrow *p = &rrows[i];
		unsigned long f0 = atomic_load(&check_n_fail);

		snprintf(case_name, sizeof(case_name), "router: %s", p->name);
		build(&p->s, &f);
		run(s, f.b, f.len, &r);
		CHECK_EQ_U64(verdict_of(p->stat), r.verdict);
		check_moved(&r, p->stat, p->sub,
			    p->stat == RD && p->sub == XTX_RD_FRAGMENT ? DEF : 0, f.len);
		if (p->stat == RD) {
			check_forwarded(&f, &r);
			CHECK(r.has_meta);
			CHECK_EQ_U64(cls_of(XTX_HANDLE(1, 0x40)), r.meta.cls);
			CHECK_EQ_U64(expect_hash(&f, 1), r.meta.hash);
		} else {
			CHECK(r.out_len == f.len && !memcmp(r.out, f.b, f.len));
		}
		if (atomic_load(&check_n_fail) != f0)
			fprintf(stderr, "    in case: %s\n", case_name);
	}

	/* Forwarding off on the ingress interface: the kernel's decision. */
	snprintf(case_name, sizeof(case_name), "router: forwarding disabled");
	CHECK(system("sysctl -qw net.ipv4.conf.all.forwarding=0") == 0);
	build(&(struct spec)U4(), &f);
	run(s, f.b, f.len, &r);
	CHECK_EQ_U64(XDP_PASS, r.verdict);
	check_moved(&r, XTX_RD_PASS_FWD_OFF, DEF, 0, f.len);
	CHECK(system("sysctl -qw net.ipv4.conf.all.forwarding=1") == 0);

	/* No socket on the queue: untouched, even with a route. */
	snprintf(case_name, sizeof(case_name), "router: no socket");
	CHECK(bpf_map_delete_elem(bpf_map__fd(s->maps.xsks), &zero) == 0);
	run(s, f.b, f.len, &r);
	CHECK_EQ_U64(XDP_PASS, r.verdict);
	check_moved(&r, XTX_RD_PASS_NO_SOCKET, DEF, 0, f.len);
	CHECK(r.out_len == f.len && !memcmp(r.out, f.b, f.len));
	xtx_redirect__destroy(s);
}

/* --- 5. live: into the AF_XDP socket --------------------------------------------------------- */

static void test_live(void)
{
	struct xtx_redirect *s = load(XTX_RD_MODE_ROUTER, "match proto udp class 1:20\n");
	struct xdp_md ci = { .data = 0, .ingress_ifindex = (uint32_t)din_idx, .rx_queue_index = 0 };
	struct frame f;
	uint32_t idx = 0, n;
	int err;

	def_dmac = din_mac;
	snprintf(case_name, sizeof(case_name), "live frame into the socket");
	build(&(struct spec)U4(.data = 100), &f);
	ci.data_end = f.len;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f.b, .data_size_in = f.len, .ctx_in = &ci,
		    .ctx_size_in = sizeof(ci), .repeat = 1, .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	err = bpf_prog_test_run_opts(bpf_program__fd(s->progs.xtx_redirect), &o);
	if (!CHECK_EQ_I64(0, err)) {
		fprintf(stderr, "    in %s: BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES: %s "
			"(Linux 5.18 and later support it)\n", case_name, strerror(-err));
		xtx_redirect__destroy(s);
		return;
	}
	n = xsk_ring_cons__peek(&x.rx, 4, &idx);
	if (CHECK_EQ_U64(1, n)) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x.rx, idx);
		const uint8_t *p = (const uint8_t *)x.area + d->addr;
		struct xtx_rx_meta m;
		struct result r = { .out_len = d->len };

		memcpy(&m, p - sizeof(m), sizeof(m));
		CHECK_EQ_U64(f.len, d->len);
		CHECK_EQ_U64(XTX_RX_META_MAGIC, m.magic);
		CHECK_EQ_U64(cls_of(XTX_HANDLE(1, 0x20)), m.cls);
		CHECK_EQ_U64(expect_hash(&f, 1), m.hash);
		memcpy(r.out, p, d->len);
		check_forwarded(&f, &r);
		printf("live: frame at UMEM offset %llu (frame %llu + %llu), metadata in front\n",
		       (unsigned long long)d->addr, (unsigned long long)(d->addr / UMEM_FSIZE),
		       (unsigned long long)(d->addr % UMEM_FSIZE));
		xsk_ring_cons__release(&x.rx, n);
	}
	xtx_redirect__destroy(s);
}

/* --- policing: the room words of xtx_engine__room_mirror() --------------------------- */

static uint64_t policed_of(struct xtx_redirect *s, uint32_t cls)
{
	struct xtx_xdp_counter v[ncpu], sum = { 0 };

	if (CHECK(bpf_map_lookup_elem(bpf_map__fd(s->maps.rd_policed), &cls, v) == 0))
		xtx_xdp_counter_add(&sum, v, ncpu);
	return sum.pkts;
}

/* One frame of class cls under room word w: the verdict, POLICED counted or not. */
static uint32_t police_one(struct xtx_redirect *s, const struct frame *f, uint32_t cls,
			   uint64_t *w)
{
	struct result r;

	if (w)
		CHECK(bpf_map_update_elem(bpf_map__fd(s->maps.rd_police), &cls, w, BPF_ANY) == 0);
	run(s, f->b, f->len, &r);
	CHECK_EQ_U64(r.verdict == XDP_DROP, r.d[XTX_RD_POLICED].pkts);
	CHECK_EQ_U64(r.verdict == XDP_REDIRECT, r.d[XTX_RD_REDIRECT].pkts);
	return r.verdict;
}

/* No limit, full, a quota of 2 units per event (twice that admitted: 256 wire bytes, two
 * 124-byte frames of 100 bytes), a new event, a stale event; --police off (cfg_police 0)
 * never drops. */
static void test_police(void)
{
	struct xtx_redirect *s;
	struct frame f;
	uint32_t c = (uint32_t)cls_of(XTX_HANDLE(1, 0x20));
	uint64_t nolimit = XTX_ROOM_NOLIMIT, full = XTX_ROOM_WORD(1, 3, 64, 64),
		 q1 = XTX_ROOM_WORD(0, 1, 128, 128), q2 = XTX_ROOM_WORD(0, 2, 128, 128);

	police_stale_ns = 5000000;	/* 5 ms */
	s = load(XTX_RD_MODE_L2, "match proto udp class 1:20\n");
	police_stale_ns = 0;
	def_dmac = far_mac;
	snprintf(case_name, sizeof(case_name), "policing");
	build(&(struct spec)U4(.data = 58), &f);	/* 100-byte frame */
	CHECK_EQ_U64(100, f.len);
	CHECK_EQ_U64(XDP_REDIRECT, police_one(s, &f, c, &nolimit));
	CHECK_EQ_U64(XDP_DROP, police_one(s, &f, c, &full));
	CHECK_EQ_U64(1, policed_of(s, c));
	CHECK_EQ_U64(XDP_REDIRECT, police_one(s, &f, c, &q1));	/* 124 of 256 */
	CHECK_EQ_U64(XDP_REDIRECT, police_one(s, &f, c, NULL));	/* 248 */
	CHECK_EQ_U64(XDP_DROP, police_one(s, &f, c, NULL));		/* 372 */
	CHECK_EQ_U64(XDP_DROP, police_one(s, &f, c, NULL));
	CHECK_EQ_U64(XDP_REDIRECT, police_one(s, &f, c, &q2));	/* a new event */
	CHECK_EQ_U64(XDP_REDIRECT, police_one(s, &f, c, NULL));
	CHECK_EQ_U64(XDP_DROP, police_one(s, &f, c, NULL));
	usleep(10000);						/* the event goes stale */
	CHECK_EQ_U64(XDP_REDIRECT, police_one(s, &f, c, NULL));
	CHECK_EQ_U64(4, policed_of(s, c));
	/* another class's word does not hold this one */
	uint32_t other = (uint32_t)cls_of(XTX_HANDLE(1, 0x10));

	CHECK(bpf_map_update_elem(bpf_map__fd(s->maps.rd_police), &other, &full, BPF_ANY) == 0);
	CHECK_EQ_U64(XDP_REDIRECT, police_one(s, &f, c, &nolimit));
	printf("policing: no limit, full, 2 x quota per event, new event, stale event: as "
	       "the room words say (%llu policed)\n", (unsigned long long)policed_of(s, c));
	xtx_redirect__destroy(s);

	/* policing off: maps of one zero word (a quota of 0 if it were read) */
	s = load(XTX_RD_MODE_L2, "match proto udp class 1:20\n");
	CHECK_EQ_U64(XDP_REDIRECT, police_one(s, &f, c, NULL));
	xtx_redirect__destroy(s);
}

/* --- 6. parser errors ------------------------------------------------------------------------ */

static void test_parser_errors(void)
{
	static const struct { const char *text, *msg; } t[] = {
		{ "mach dst 1.2.3.4 class 1:10\n",
		  "r:1:1: found 'mach', expected a statement (match or default)" },
		{ "match dst 198.18.1.0/24 dport 5000-5999 class 1:99\n",
		  "r:1:47: found class 1:99, expected a class of the class file; its leaf classes "
		  "are: 1:10, 1:20, 1:30, 1:40" },
		{ "match dst 198.18.1.0/24 class 1:\n",
		  "r:1:31: found class 1:, expected a leaf class (1: has children)" },
		{ "\n  match dst 198.18.1.5/24 pass\n",
		  "r:2:13: found '198.18.1.5/24' with host bits set, expected a network prefix "
		  "such as 198.18.1.0/24" },
		{ "match dst 198.18.1.0/33 pass\n", "r:1:11: found '198.18.1.0/33', expected an "
		  "IPv4 or IPv6 prefix" },
		{ "match src 198.18.0.0/15 dst 2001:db8::/32 pass\n", "r:1:29: found "
		  "'2001:db8::/32' (IPv6), expected an IPv4 prefix" },
		{ "match dport 6000-5000 pass\n", "r:1:13: found '6000-5000', expected ports P or "
		  "P-Q from 0 to 65535 with P <= Q" },
		{ "match dport 65536 pass\n", "r:1:13: found '65536', expected ports" },
		{ "match dport 5000 dport 6000 pass\n", "r:1:18: found 'dport' again, expected "
		  "each criterion once per rule (first at column 7)" },
		{ "match proto icmp dport 5 pass\n", "r:1:18: found a port criterion with proto 1, "
		  "expected ports only with proto tcp or udp" },
		{ "match proto sctp pass\n", "r:1:13: found 'sctp', expected a protocol" },
		{ "match dscp 64 pass\n", "r:1:12: found '64', expected a DSCP" },
		{ "match vlan 4096 pass\n", "r:1:12: found '4096', expected a VLAN id" },
		{ "match dst 198.18.1.0/24\n", "r:1:24: found end of line, expected an action" },
		{ "match dst\n", "r:1:10: found end of line, expected a value after 'dst'" },
		{ "match pass now\n", "r:1:12: found 'now', expected end of line" },
		{ "match class\n", "r:1:12: found end of line, expected a class handle" },
		{ "match class 1:10000\n", "r:1:13: found '1:10000', expected a class handle like "
		  "1:10" },
		{ "default pass\ndefault drop\n", "r:2:1: found 'default' again, expected it once "
		  "per file (first at line 1)" },
		{ "default\n", "r:1:8: found end of line, expected an action" },
		{ "match pass # fine\nmatch \x01 pass\n", "r:2:7: found '\\x01', expected text" },
		{ "match pass # \x7f in a comment\n", "r:1:14: found '\\x7f', expected text" },
	};
	static struct rd_rules rs;
	char err[512];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int rc = rd_rules__parse_string(&rs, t[i].text, "r", err, sizeof(err));

		if (!rc)
			rc = rd_rules__resolve(&rs, classes, err, sizeof(err));
		snprintf(case_name, sizeof(case_name), "parser error %zu", i);
		if (!CHECK_EQ_I64(-EINVAL, rc))
			continue;
		CHECK_STR_CONTAINS(err, t[i].msg);
	}
	/* 129 rules are one too many. */
	{
		size_t cap = (XTX_RD_RULES_MAX + 1) * 32 + 1;
		char *big = malloc(cap), *p = big;

		for (int i = 0; i <= XTX_RD_RULES_MAX; i++)
			p += sprintf(p, "match dport %d pass\n", i);
		CHECK_EQ_I64(-EINVAL, rd_rules__parse_string(&rs, big, "r", err, sizeof(err)));
		CHECK_STR_CONTAINS(err, "r:129:1: found rule 129, expected at most 128 rules");
		free(big);
	}
	/* Good files: every form once, comments, CRLF, tabs. */
	CHECK_EQ_I64(0, rd_rules__parse_string(&rs,
		"# header\r\n\tmatch src 2001:db8::/32 dst ::/0 sport 1-2 dport 3 proto tcp "
		"dscp 1-2 vlan untagged class 1:10\r\n"
		"match proto 17 vlan 4095 drop#x\n"
		"match pass\n"
		"default class 0001:0020\n", "r", err, sizeof(err)));
	CHECK_EQ_U64(3, rs.n);
	CHECK_EQ_I64(0, rd_rules__resolve(&rs, classes, err, sizeof(err)));
	CHECK_EQ_U64(cls_of(XTX_HANDLE(1, 0x20)), rs.def.cls);
}

int main(void)
{
	char err[256];
	int rc;

	if (geteuid() != 0) {
		printf("skip: not root, nothing run: BPF_PROG_TEST_RUN of xtx_redirect and its "
		       "private network namespace need root\n");
		return 77;
	}
	libbpf_set_print(libbpf_log);
	ncpu = libbpf_num_possible_cpus();
	classes = xtx_sched_config__parse_string(classes_text, "classes", err, sizeof(err));
	if (ncpu <= 0 || !classes) {
		fprintf(stderr, "test_redirect_bpf: setup: %s\n", classes ? "no CPU count" : err);
		return 1;
	}
	test_parser_errors();
	rc = enter_private_netns();
	if (rc) {
		check_summary("test_redirect_bpf (parser errors only)");
		return 1;
	}
	rc = xsk_open();
	if (rc) {
		fprintf(stderr, "test_redirect_bpf: cannot open an AF_XDP socket on the veth "
			"interface: %s\n", strerror(-rc));
		return 1;
	}
	test_parse();
	test_truncation();
	test_rules();
	test_router();
	test_live();
	test_police();
	xsk_close();
	xtx_sched_config__free(classes);
	return check_summary("test_redirect_bpf");
}
