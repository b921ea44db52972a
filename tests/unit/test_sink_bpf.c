/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sink_bpf.c - the xtx_sink XDP program (xdp/xtx_sink.bpf.c) run on crafted frames
 * with BPF_PROG_TEST_RUN: classification of IPv4/IPv6 UDP, VLAN tags, non-UDP, fragments,
 * every truncation point, malformed headers; per-port counting and the port range;
 * sequence-order checks (table plus a random sequence against a model); the delay
 * histogram; the verdict. Each case compares the change of every counter with what the
 * row expects, printing expected vs actual.
 *
 * Needs root: as any other user it runs the histogram arithmetic only, then exits 77
 * (skip) if that passed, 1 if not. As root every failure to load the program (EACCES is
 * how a verifier rejection returns, EPERM/ENOSYS a kernel without BPF) is a test
 * failure, with libbpf's message and the verifier log on stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <xtx/payload.h>
#include "../../xdp/xtx_sink.h"
#include "xtx_sink.skel.h"
#include "check.h"

#define PORT_LO		1000
#define PORT_HI		60000

static int ncpu;
static char case_name[160];

/* --- the program under test ---------------------------------------------------------- */
static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Opens and loads the skeleton; any failure ends the test (exit 1): main() has checked
 * that we are root, so a refusal is the program's or the kernel's fault, not a missing
 * peer. */
static struct xtx_sink *load(uint32_t action)
{
	struct xtx_sink *skel = xtx_sink__open();
	int err;

	if (!skel) {
		fprintf(stderr, "test_sink_bpf: opening the embedded BPF object failed: %s\n",
			strerror(errno));
		exit(1);
	}
	skel->rodata->cfg_port_lo = PORT_LO;
	skel->rodata->cfg_port_hi = PORT_HI;
	skel->rodata->cfg_action = action;
	err = xtx_sink__load(skel);
	if (err) {
		err = -err;
		xtx_sink__destroy(skel);
		fprintf(stderr, "test_sink_bpf: FAIL: loading xtx_sink as root failed: %s (libbpf's "
			"message and the verifier log, if any, above)\n", strerror(err));
		exit(1);
	}
	return skel;
}

static uint32_t run(struct xtx_sink *skel, const void *frame, size_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = (uint32_t)len,
		    .repeat = 1);
	int err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.xtx_sink), &o);

	if (!CHECK(err == 0)) {
		fprintf(stderr, "    in %s: BPF_PROG_TEST_RUN (len %zu): %s\n", case_name, len,
			strerror(-err));
		return ~0u;
	}
	return o.retval;
}

/* --- reading the maps: sums over CPUs ---------------------------------------------- */
struct snap {
	struct xtx_xdp_counter st[XTX_SINK_STAT_MAX];
	struct xtx_xdp_counter port;		/* of the port the case is about */
	struct xtx_sink_flow flow;
	uint64_t samples, negative, hist_total;
};

static void read_counter(int fd, uint32_t key, struct xtx_xdp_counter *out)
{
	struct xtx_xdp_counter v[ncpu];

	memset(out, 0, sizeof(*out));
	if (CHECK(bpf_map_lookup_elem(fd, &key, v) == 0))
		xtx_xdp_counter_add(out, v, ncpu);
}

/* Delay summed over CPUs; the histogram only as a total unless hist != NULL. */
static void read_delay(struct xtx_sink *skel, struct xtx_sink_delay *sum)
{
	struct xtx_sink_delay *v = calloc((size_t)ncpu, sizeof(*v));
	uint32_t zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (!CHECK(v != NULL))
		return;
	if (CHECK(bpf_map_lookup_elem(bpf_map__fd(skel->maps.delay), &zero, v) == 0))
		xtx_sink_delay_add(sum, v, ncpu);
	free(v);
}

static void read_span(struct xtx_sink *skel, struct xtx_sink_span *sum)
{
	struct xtx_sink_span v[ncpu];
	uint32_t zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (CHECK(bpf_map_lookup_elem(bpf_map__fd(skel->maps.span), &zero, v) == 0))
		xtx_sink_span_add(sum, v, ncpu);
}

static void read_flow(struct xtx_sink *skel, uint32_t port, struct xtx_sink_flow *f)
{
	memset(f, 0, sizeof(*f));
	CHECK(bpf_map_lookup_elem_flags(bpf_map__fd(skel->maps.flows), &port, f,
					BPF_F_LOCK) == 0);
}

static void take(struct xtx_sink *skel, uint32_t port, struct snap *s)
{
	struct xtx_sink_delay *d = malloc(sizeof(*d));

	for (uint32_t i = 0; i < XTX_SINK_STAT_MAX; i++)
		read_counter(bpf_map__fd(skel->maps.stats), i, &s->st[i]);
	read_counter(bpf_map__fd(skel->maps.port_stats), port, &s->port);
	read_flow(skel, port, &s->flow);
	if (!CHECK(d != NULL))
		return;
	read_delay(skel, d);
	s->samples = d->samples;
	s->negative = d->negative;
	s->hist_total = 0;
	for (unsigned b = 0; b < XTX_SINK_HIST_BUCKETS; b++)
		s->hist_total += d->hist[b];
	free(d);
}

/* --- frames ------------------------------------------------------------------------ */
struct spec {
	int vlans;		/* VLAN tags before the ethertype, 0..3 */
	int l3;			/* 4, 6, or 0 = ARP */
	int l4;			/* IPPROTO_UDP, IPPROTO_TCP */
	uint16_t dport;
	int magic;		/* put a struct xtx_payload after the UDP header */
	uint64_t seq, ts;
	size_t data;		/* further payload bytes */
	size_t pad_to;		/* Ethernet padding up to this frame length */
	/* malformations (0 = correct value) */
	int ihl, version;	/* ihl: header length in words, options built to fit */
	int ihl_field;		/* if != 0, the IHL written, whatever was built */
	int tot_delta;		/* added to the IPv4 total / IPv6 payload length */
	int udp_len;		/* UDP length field, if != 0 */
	uint16_t frag;		/* IPv4 frag_off (host order) */
	int v6_hbh;		/* IPv6 hop-by-hop header before UDP */
	int v6_frag;		/* IPv6 fragment header before UDP */
	uint32_t magic_value;	/* if != 0, replaces XTX_PAYLOAD_MAGIC */
};

struct frame {
	uint8_t b[1024];
	size_t len;
};

static void put(struct frame *f, const void *p, size_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void put8(struct frame *f, uint8_t v) { put(f, &v, 1); }
static void put16(struct frame *f, uint16_t v) { put8(f, (uint8_t)(v >> 8)); put8(f, (uint8_t)v); }
static void put32(struct frame *f, uint32_t v) { put16(f, (uint16_t)(v >> 16)); put16(f, (uint16_t)v); }
static void set16(struct frame *f, size_t off, uint16_t v)
{
	f->b[off] = (uint8_t)(v >> 8);
	f->b[off + 1] = (uint8_t)v;
}

static void build(const struct spec *s, struct frame *f)
{
	static const uint8_t dst[6] = { 0x02, 0, 0xc6, 0x12, 1, 2 };
	static const uint8_t src[6] = { 0x02, 0, 0xc6, 0x12, 1, 1 };
	size_t l3, len_off = 0, udp_off = 0, zero_base = 0;

	memset(f, 0, sizeof(*f));
	put(f, dst, 6);
	put(f, src, 6);
	for (int i = 0; i < s->vlans; i++) {
		put16(f, i == 0 && s->vlans > 1 ? ETH_P_8021AD : ETH_P_8021Q);
		put16(f, (uint16_t)(100 + i));		/* TCI: VLAN id */
	}
	put16(f, s->l3 == 4 ? ETH_P_IP : s->l3 == 6 ? ETH_P_IPV6 : ETH_P_ARP);
	l3 = f->len;
	if (s->l3 == 0) {				/* ARP request */
		static const uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };
		put(f, arp, sizeof(arp));
		return;
	}
	if (s->l3 == 4) {
		int ihl = s->ihl ? s->ihl : 5;

		put8(f, (uint8_t)((s->version ? s->version : 4) << 4 |
				  (s->ihl_field ? s->ihl_field : ihl)));
		put8(f, 0);
		len_off = f->len;
		put16(f, 0);				/* total length, below */
		put32(f, 0);				/* id */
		f->b[f->len - 2] = (uint8_t)(s->frag >> 8);
		f->b[f->len - 1] = (uint8_t)s->frag;
		put8(f, 64);
		put8(f, (uint8_t)s->l4);
		put16(f, 0);				/* checksum: not checked */
		put32(f, 0xc6120101);
		put32(f, 0xc6120102);
		for (int i = 5; i < ihl && i < 15; i++)	/* options: NOPs */
			put32(f, 0x01010101);
		zero_base = l3;
	} else {
		put32(f, (uint32_t)(s->version ? s->version : 6) << 28);
		len_off = f->len;
		put16(f, 0);				/* payload length, below */
		put8(f, s->v6_hbh ? 0 : s->v6_frag ? 44 : (uint8_t)s->l4);
		put8(f, 64);
		for (int i = 0; i < 4; i++)
			put32(f, 0x20010db8u + (uint32_t)i);
		for (int i = 0; i < 4; i++)
			put32(f, 0x20010db8u + 4u + (uint32_t)i);
		zero_base = f->len;
		if (s->v6_hbh) {			/* 8 bytes: next, len 0, PadN */
			put8(f, s->v6_frag ? 44 : (uint8_t)s->l4);
			put8(f, 0);
			put8(f, 1); put8(f, 4); put32(f, 0);
		}
		if (s->v6_frag) {
			put8(f, (uint8_t)s->l4); put8(f, 0); put16(f, 1); put32(f, 7);
		}
	}
	if (s->l4 == IPPROTO_UDP) {
		udp_off = f->len;
		put16(f, 40000);
		put16(f, s->dport);
		put16(f, 0);				/* length, below */
		put16(f, 0);
		if (s->magic) {
			struct xtx_payload p = {
				.magic = s->magic_value ? s->magic_value : XTX_PAYLOAD_MAGIC,
				.flow = s->dport, .seq = s->seq, .tstamp_ns = s->ts,
			};
			put(f, &p, sizeof(p));	/* little-endian host, as the senders */
		}
	} else {					/* TCP SYN, 20 bytes */
		put16(f, 40000);
		put16(f, s->dport);
		put32(f, 1); put32(f, 0);
		put16(f, 0x5002); put16(f, 65535); put32(f, 0);
	}
	for (size_t i = 0; i < s->data; i++)
		put8(f, (uint8_t)('a' + i % 26));
	if (udp_off)
		set16(f, udp_off + 4, s->udp_len ? (uint16_t)s->udp_len :
						   (uint16_t)(f->len - udp_off));
	set16(f, len_off, (uint16_t)((int)(f->len - zero_base) + s->tot_delta));
	while (f->len < s->pad_to)
		put8(f, 0);
}

/* --- classification table ------------------------------------------------------------ */
struct row {
	const char *name;
	struct spec s;
	int stat;		/* the one class it must land in */
	int payload;		/* expect the payload sub-count */
	uint32_t verdict;
};

#define UDP4(port, ...) { .l3 = 4, .l4 = IPPROTO_UDP, .dport = (port), __VA_ARGS__ }
#define UDP6(port, ...) { .l3 = 6, .l4 = IPPROTO_UDP, .dport = (port), __VA_ARGS__ }

static const struct row rows[] = {
	{ "ipv4 udp", UDP4(5001, .data = 18), XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "ipv4 udp, empty", UDP4(5001), XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "ipv4 udp, padded to 60", UDP4(5001, .data = 2, .pad_to = 60), XTX_SINK_MATCHED, 0,
	  XDP_DROP },
	{ "ipv4 udp, options (ihl 7)", UDP4(5001, .ihl = 7, .data = 4), XTX_SINK_MATCHED, 0,
	  XDP_DROP },
	{ "ipv4 udp, payload", UDP4(5001, .magic = 1, .seq = 0), XTX_SINK_MATCHED, 1, XDP_DROP },
	{ "ipv6 udp", UDP6(5001, .data = 10), XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "ipv6 udp, payload", UDP6(5002, .magic = 1), XTX_SINK_MATCHED, 1,
	  XDP_DROP },
	{ "ipv6 hop-by-hop + udp", UDP6(5001, .v6_hbh = 1, .data = 3), XTX_SINK_MATCHED, 0,
	  XDP_DROP },
	{ "1 vlan ipv4 udp", UDP4(5001, .vlans = 1, .data = 5), XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "2 vlans ipv4 udp", UDP4(5001, .vlans = 2, .data = 5), XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "1 vlan ipv6 udp", UDP6(5001, .vlans = 1, .data = 5), XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "2 vlans ipv6 udp, payload", UDP6(5003, .vlans = 2, .magic = 1),
	  XTX_SINK_MATCHED, 1, XDP_DROP },
	{ "3 vlans: not parsed", UDP4(5001, .vlans = 3), XTX_SINK_NON_IP, 0, XDP_PASS },
	{ "port = lo", UDP4(PORT_LO), XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "port = hi", UDP4(PORT_HI), XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "port < lo", UDP4(PORT_LO - 1), XTX_SINK_UDP_OTHER_PORT, 0, XDP_PASS },
	{ "port > hi", UDP6(PORT_HI + 1), XTX_SINK_UDP_OTHER_PORT, 0, XDP_PASS },
	{ "ipv4 tcp", { .l3 = 4, .l4 = IPPROTO_TCP, .dport = 5001 }, XTX_SINK_IPV4_OTHER, 0,
	  XDP_PASS },
	{ "ipv6 tcp", { .l3 = 6, .l4 = IPPROTO_TCP, .dport = 5001 }, XTX_SINK_IPV6_OTHER, 0,
	  XDP_PASS },
	{ "vlan ipv4 tcp", { .vlans = 1, .l3 = 4, .l4 = IPPROTO_TCP, .dport = 5001 },
	  XTX_SINK_IPV4_OTHER, 0, XDP_PASS },
	{ "arp", { .l3 = 0 }, XTX_SINK_NON_IP, 0, XDP_PASS },
	{ "ipv4 MF", UDP4(5001, .frag = 0x2000, .data = 8), XTX_SINK_FRAGMENT, 0, XDP_PASS },
	{ "ipv4 offset", UDP4(5001, .frag = 0x0010, .data = 8), XTX_SINK_FRAGMENT, 0, XDP_PASS },
	{ "ipv4 DF only", UDP4(5001, .frag = 0x4000, .data = 8), XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "ipv6 fragment header", UDP6(5001, .v6_frag = 1, .data = 8), XTX_SINK_FRAGMENT, 0,
	  XDP_PASS },
	{ "ipv4 ihl 4", UDP4(5001, .ihl = 4, .data = 8), XTX_SINK_MALFORMED, 0, XDP_PASS },
	{ "ipv4 ihl 1", UDP4(5001, .ihl = 1, .data = 8), XTX_SINK_MALFORMED, 0, XDP_PASS },
	{ "ipv4 ihl 15, 40 bytes of options", UDP4(5001, .ihl = 15), XTX_SINK_MATCHED, 0,
	  XDP_DROP },
	{ "ipv4 ihl 15, header past the frame", UDP4(5001, .ihl_field = 15), XTX_SINK_TRUNCATED, 0,
	  XDP_PASS },
	{ "ipv4 ihl 6 claimed, 5 built", UDP4(5001, .ihl_field = 6), XTX_SINK_MALFORMED, 0,
	  XDP_PASS },
	{ "ipv4 version 6 in an IPv4 ethertype", UDP4(5001, .version = 6, .data = 30),
	  XTX_SINK_MALFORMED, 0, XDP_PASS },
	{ "ipv6 version 4 in an IPv6 ethertype", UDP6(5001, .version = 4), XTX_SINK_MALFORMED, 0,
	  XDP_PASS },
	{ "ipv4 total length < ihl", UDP4(5001, .tot_delta = -9), XTX_SINK_MALFORMED, 0,
	  XDP_PASS },
	{ "ipv4 total length past the frame", UDP4(5001, .tot_delta = 1), XTX_SINK_TRUNCATED, 0,
	  XDP_PASS },
	{ "ipv6 payload length past the frame", UDP6(5001, .tot_delta = 1), XTX_SINK_TRUNCATED,
	  0, XDP_PASS },
	{ "ipv6 payload length 0 (jumbo)", UDP6(5001, .tot_delta = -8), XTX_SINK_MALFORMED, 0,
	  XDP_PASS },
	{ "ipv4 total length shorter than udp header", UDP4(5001, .tot_delta = -4),
	  XTX_SINK_MALFORMED, 0, XDP_PASS },
	{ "udp length 7", UDP4(5001, .udp_len = 7, .data = 4), XTX_SINK_MALFORMED, 0, XDP_PASS },
	{ "udp length past ip length", UDP4(5001, .udp_len = 13, .data = 4), XTX_SINK_MALFORMED, 0,
	  XDP_PASS },
	{ "udp length shorter than magic+flow+seq", UDP4(5001, .magic = 1, .udp_len = 8 + 15),
	  XTX_SINK_MATCHED, 0, XDP_DROP },
	{ "payload with a wrong magic", UDP4(5001, .magic = 1, .magic_value = 0x31787479),
	  XTX_SINK_MATCHED, 0, XDP_DROP },
};

/* Runs one frame and checks that exactly the expected counters moved, by exactly one
 * packet and the frame's length. */
static void expect(struct xtx_sink *skel, const struct frame *f, uint16_t port, int stat,
		   int payload, uint32_t verdict, int port_counted)
{
	struct snap a, b;
	uint32_t rv;

	take(skel, port, &a);
	rv = run(skel, f->b, f->len);
	take(skel, port, &b);
	unsigned long f0 = atomic_load(&check_n_fail);
	CHECK_EQ_U64(verdict, rv);
	for (int i = 0; i < XTX_SINK_STAT_MAX; i++) {
		int want = i == stat || (i == XTX_SINK_PAYLOAD && payload);
		if (!CHECK_EQ_U64(want, b.st[i].pkts - a.st[i].pkts) ||
		    !CHECK_EQ_U64(want ? f->len : 0, b.st[i].bytes - a.st[i].bytes))
			fprintf(stderr, "    counter %s\n", xtx_sink_stat_name(i));
	}
	CHECK_EQ_U64(port_counted, b.port.pkts - a.port.pkts);
	CHECK_EQ_U64(port_counted ? f->len : 0, b.port.bytes - a.port.bytes);
	if (atomic_load(&check_n_fail) != f0)
		fprintf(stderr, "    in case: %s (frame length %zu)\n", case_name, f->len);
}

static void test_classes(struct xtx_sink *skel)
{
	struct frame f;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		snprintf(case_name, sizeof(case_name), "%s", r->name);
		build(&r->s, &f);
		/* Frames with payload here use ports of their own and seq 0: in order. */
		expect(skel, &f, r->s.dport, r->stat, r->payload, r->verdict,
		       r->stat == XTX_SINK_MATCHED);
	}
}

/* Every cut of a valid frame short of its end is truncated (the IP length then exceeds
 * the frame); the whole frame is matched. The kernel refuses test frames < ETH_HLEN. */
static void test_truncation(struct xtx_sink *skel)
{
	static const struct { const char *name; struct spec s; } full[] = {
		{ "ipv4 udp payload", UDP4(6001, .magic = 1) },
		{ "ipv6 udp payload", UDP6(6002, .magic = 1) },
		{ "2 vlans ipv4 udp", UDP4(6003, .vlans = 2, .data = 4) },
		{ "1 vlan ipv6 hbh udp", UDP6(6004, .vlans = 1, .v6_hbh = 1) },
		{ "ipv4 ihl 6 udp", UDP4(6005, .ihl = 6, .data = 1) },
	};
	struct frame f;

	for (size_t i = 0; i < sizeof(full) / sizeof(full[0]); i++) {
		build(&full[i].s, &f);
		size_t n = f.len;
		for (size_t cut = ETH_HLEN; cut < n; cut++) {
			f.len = cut;
			snprintf(case_name, sizeof(case_name), "%s cut at %zu of %zu",
				 full[i].name, cut, n);
			expect(skel, &f, full[i].s.dport, XTX_SINK_TRUNCATED, 0, XDP_PASS, 0);
		}
		f.len = n;
		snprintf(case_name, sizeof(case_name), "%s whole (%zu)", full[i].name, n);
		expect(skel, &f, full[i].s.dport, XTX_SINK_MATCHED, full[i].s.magic, XDP_DROP,
		       1);
	}
	/* Consistent lengths, UDP payload 0..24 bytes: a payload is recognised from 16 bytes
	 * on (magic, flow, seq; include/xtx/pkt.h "Sizes"). */
	for (size_t k = 0; k <= sizeof(struct xtx_payload); k++) {
		struct spec s = UDP4(6010, .magic = 1, .seq = 0);

		build(&s, &f);
		f.len -= sizeof(struct xtx_payload) - k;
		set16(&f, ETH_HLEN + 2, (uint16_t)(20 + 8 + k));
		set16(&f, ETH_HLEN + 20 + 4, (uint16_t)(8 + k));
		snprintf(case_name, sizeof(case_name), "udp payload of %zu bytes", k);
		expect(skel, &f, 6010, XTX_SINK_MATCHED, k >= XTX_PAYLOAD_SEQ_LEN, XDP_DROP, 1);
	}
}

/* --- sequence order -------------------------------------------------------------------- */
static void send_seq(struct xtx_sink *skel, uint16_t port, uint64_t seq, int v6)
{
	struct spec s = { .l3 = v6 ? 6 : 4, .l4 = IPPROTO_UDP, .dport = port, .magic = 1,
			  .seq = seq };
	struct frame f;

	build(&s, &f);
	CHECK_EQ_U64(XDP_DROP, run(skel, f.b, f.len));
}

static void test_order_table(struct xtx_sink *skel)
{
	/* seq sent, then the flow's counters after it: in_order late dup old gaps gap_seqs */
	static const struct { uint64_t seq, io, late, dup, old, gaps, gseq, next; } t[] = {
		{ 0,   1, 0, 0, 0, 0, 0,   1 },
		{ 1,   2, 0, 0, 0, 0, 0,   2 },
		{ 2,   3, 0, 0, 0, 0, 0,   3 },
		{ 5,   4, 0, 0, 0, 1, 2,   6 },	/* 3, 4 skipped */
		{ 3,   4, 1, 0, 0, 1, 2,   6 },	/* late */
		{ 3,   4, 1, 1, 0, 1, 2,   6 },	/* duplicate */
		{ 4,   4, 2, 1, 0, 1, 2,   6 },
		{ 4,   4, 2, 2, 0, 1, 2,   6 },
		{ 5,   4, 2, 3, 0, 1, 2,   6 },	/* duplicate of the newest */
		{ 0,   4, 2, 4, 0, 1, 2,   6 },	/* duplicate of the first */
		{ 100, 5, 2, 4, 0, 2, 96,  101 },	/* 6..99 skipped */
		{ 30,  5, 2, 4, 1, 2, 96,  101 },	/* 70 back: beyond the window */
		{ 37,  5, 3, 4, 1, 2, 96,  101 },	/* 63 back: last bit of the window */
		{ 37,  5, 3, 5, 1, 2, 96,  101 },
		{ 36,  5, 3, 5, 2, 2, 96,  101 },	/* 64 back: just beyond */
		{ 101, 6, 3, 5, 2, 2, 96,  102 },
		{ 164, 7, 3, 5, 2, 3, 158, 165 },	/* skip 62: window shifted by 63 */
		{ 101, 7, 3, 6, 2, 3, 158, 165 },	/* 63 back, seen: still in the window */
		{ 228, 8, 3, 6, 2, 4, 221, 229 },	/* skip 63: the window restarts */
		{ 165, 8, 4, 6, 2, 4, 221, 229 },	/* 63 back, not seen */
		{ 164, 8, 4, 6, 3, 4, 221, 229 },	/* 64 back, seen: beyond */
	};
	struct xtx_sink_flow fl;
	const uint16_t port = 7001;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned long f0 = atomic_load(&check_n_fail);

		send_seq(skel, port, t[i].seq, (int)(i & 1));
		read_flow(skel, port, &fl);
		CHECK_EQ_U64(t[i].io, fl.in_order);
		CHECK_EQ_U64(t[i].late, fl.late);
		CHECK_EQ_U64(t[i].dup, fl.dup);
		CHECK_EQ_U64(t[i].old, fl.old);
		CHECK_EQ_U64(t[i].gaps, fl.gaps);
		CHECK_EQ_U64(t[i].gseq, fl.gap_seqs);
		CHECK_EQ_U64(t[i].next, fl.next_seq);
		if (atomic_load(&check_n_fail) != f0)
			fprintf(stderr, "    after row %zu (seq %" PRIu64 ")\n", i, t[i].seq);
	}
	/* Another port's state is untouched. */
	read_flow(skel, port + 1, &fl);
	CHECK_EQ_U64(0, fl.in_order + fl.late + fl.dup + fl.old + fl.next_seq);
}

/* A random mix of in-order, skipped, late, duplicate and very old sequence numbers,
 * against a model that remembers every sequence number received. */
static void test_order_model(struct xtx_sink *skel)
{
	enum { N = 3000, MAXSEQ = 8192 };
	static uint8_t seen[MAXSEQ];
	uint64_t next = 0, io = 0, late = 0, dup = 0, old = 0, gaps = 0, gseq = 0;
	struct xtx_sink_flow fl;
	const uint16_t port = 7100;
	uint32_t rnd = 12345;

	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < N; i++) {
		uint64_t seq;
		uint32_t r;

		rnd = rnd * 1103515245u + 12345u;
		r = (rnd >> 8) % 100;
		if (r < 60 || next == 0)
			seq = next;				/* in order */
		else if (r < 70)
			seq = next + 1 + (rnd >> 20) % 80;	/* skip ahead */
		else if (r < 90)
			seq = next - 1 - (rnd >> 16) % (next < 70 ? next : 70);	/* back */
		else
			seq = next - 1 - (rnd >> 16) % next;	/* anywhere back */
		if (seq >= MAXSEQ)
			break;
		if (seq >= next) {
			if (seq > next) {
				gaps++;
				gseq += seq - next;
			}
			io++;
			next = seq + 1;
		} else if (next - 1 - seq >= 64) {
			old++;
		} else if (seen[seq]) {
			dup++;
		} else {
			late++;
		}
		seen[seq] = 1;
		send_seq(skel, port, seq, 0);
	}
	read_flow(skel, port, &fl);
	snprintf(case_name, sizeof(case_name), "random order model");
	CHECK_EQ_U64(io, fl.in_order);
	CHECK_EQ_U64(late, fl.late);
	CHECK_EQ_U64(dup, fl.dup);
	CHECK_EQ_U64(old, fl.old);
	CHECK_EQ_U64(gaps, fl.gaps);
	CHECK_EQ_U64(gseq, fl.gap_seqs);
	CHECK_EQ_U64(next, fl.next_seq);
	CHECK(late > 50 && dup > 50 && old > 50 && gaps > 50);	/* the mix is a mix */
	printf("order model: in_order %" PRIu64 " late %" PRIu64 " dup %" PRIu64 " old %"
	       PRIu64 " gaps %" PRIu64 "\n", io, late, dup, old, gaps);
}

/* --- delay -------------------------------------------------------------------------------- */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_hist_math(void)
{
	uint64_t v = 0;

	CHECK_EQ_U64(XTX_SINK_HIST_BUCKETS - 1, xtx_sink_hist_bucket(UINT64_MAX));
	for (uint32_t b = 0; b + 1 < XTX_SINK_HIST_BUCKETS; b++) {
		uint64_t lo = xtx_sink_hist_low(b), hi = xtx_sink_hist_low(b + 1);

		if (!CHECK(lo < hi) || !CHECK_EQ_U64(b, xtx_sink_hist_bucket(lo)) ||
		    !CHECK_EQ_U64(b, xtx_sink_hist_bucket(hi - 1)) ||
		    !CHECK((hi - lo) * 16 <= lo || lo < 16)) {
			fprintf(stderr, "    bucket %u [%" PRIu64 ", %" PRIu64 ")\n", b, lo, hi);
			return;
		}
	}
	for (int i = 0; i < 100000; i++) {	/* pseudo-random values of every magnitude */
		v = v * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t x = v >> (v % 64);
		uint32_t b = xtx_sink_hist_bucket(x);
		if (!CHECK(b < XTX_SINK_HIST_BUCKETS && xtx_sink_hist_low(b) <= x &&
			   (b + 1 == XTX_SINK_HIST_BUCKETS || x < xtx_sink_hist_low(b + 1)))) {
			fprintf(stderr, "    value %" PRIu64 " bucket %u\n", x, b);
			return;
		}
	}
}

static void test_delay(struct xtx_sink *skel)
{
	struct xtx_sink_delay *d0 = malloc(sizeof(*d0)), *d1 = malloc(sizeof(*d1));
	struct spec s = UDP4(8001, .magic = 1);
	const uint64_t lag = 1000000;		/* 1 ms */
	struct frame f;
	uint64_t t0, t1;

	if (!CHECK(d0 && d1))
		goto out;
	snprintf(case_name, sizeof(case_name), "delay");
	read_delay(skel, d0);
	CHECK_EQ_U64(0, d0->samples);		/* no timestamped frame before */

	t0 = mono_ns();
	s.ts = t0 - lag;
	s.seq = 0;
	build(&s, &f);
	CHECK_EQ_U64(XDP_DROP, run(skel, f.b, f.len));
	t1 = mono_ns();
	read_delay(skel, d1);
	CHECK_EQ_U64(1, d1->samples);
	CHECK_EQ_U64(0, d1->negative);
	/* The delay the program saw is within [lag, t1 - s.ts]; so must its bucket be. */
	int found = -1;
	for (unsigned b = 0; b < XTX_SINK_HIST_BUCKETS; b++)
		if (d1->hist[b]) {
			CHECK(found < 0);
			CHECK_EQ_U64(1, d1->hist[b]);
			found = (int)b;
		}
	if (CHECK(found >= 0)) {
		CHECK(xtx_sink_hist_low((uint32_t)found + 1) > lag);
		CHECK(xtx_sink_hist_low((uint32_t)found) <= t1 - s.ts);
	}
	CHECK(d1->min_ns >= lag && d1->min_ns <= t1 - s.ts);
	CHECK_EQ_U64(d1->min_ns, d1->max_ns);
	CHECK_EQ_U64(d1->min_ns, d1->sum_ns);
	printf("delay: sent %" PRIu64 " ns ago, recorded %" PRIu64 " ns (bucket %d, [%" PRIu64
	       ", %" PRIu64 "))\n", lag, (uint64_t)d1->min_ns, found,
	       (uint64_t)xtx_sink_hist_low((uint32_t)found),
	       (uint64_t)xtx_sink_hist_low((uint32_t)found + 1));

	/* A timestamp in the future is counted apart, not in the histogram. */
	s.seq = 1;
	s.ts = mono_ns() + 10000000000ull;
	build(&s, &f);
	CHECK_EQ_U64(XDP_DROP, run(skel, f.b, f.len));
	/* tstamp 0: no sample at all. */
	s.seq = 2;
	s.ts = 0;
	build(&s, &f);
	CHECK_EQ_U64(XDP_DROP, run(skel, f.b, f.len));
	/* A second real sample: 50 us. */
	s.seq = 3;
	s.ts = mono_ns() - 50000;
	build(&s, &f);
	CHECK_EQ_U64(XDP_DROP, run(skel, f.b, f.len));
	read_delay(skel, d0);
	CHECK_EQ_U64(2, d0->samples);
	CHECK_EQ_U64(1, d0->negative);
	uint64_t tot = 0;
	for (unsigned b = 0; b < XTX_SINK_HIST_BUCKETS; b++)
		tot += d0->hist[b];
	CHECK_EQ_U64(2, tot);
	CHECK(d0->min_ns >= 50000 && d0->min_ns < lag);
	CHECK_EQ_U64(d1->max_ns, d0->max_ns);
	CHECK_EQ_U64(d0->min_ns + d0->max_ns, d0->sum_ns);
out:
	free(d0);
	free(d1);
}

/* The arrival span: a fresh program has none; the first matched frame sets first and
 * last to its arrival; later matched frames move last only; unmatched frames neither. */
static void test_span(void)
{
	struct xtx_sink *skel = load(XDP_DROP);
	struct spec in = UDP4(5001, .data = 4), out = UDP4(PORT_HI + 1, .data = 4);
	struct xtx_sink_span a, b;
	struct frame fi, fo;
	uint64_t t0, t1, t2, t3;

	snprintf(case_name, sizeof(case_name), "arrival span");
	build(&in, &fi);
	build(&out, &fo);
	read_span(skel, &a);
	CHECK_EQ_U64(0, a.first_ns);
	CHECK_EQ_U64(0, a.last_ns);
	CHECK_EQ_U64(XDP_PASS, run(skel, fo.b, fo.len));
	read_span(skel, &a);
	CHECK_EQ_U64(0, a.first_ns);		/* an unmatched frame is no arrival */
	t0 = mono_ns();
	CHECK_EQ_U64(XDP_DROP, run(skel, fi.b, fi.len));
	t1 = mono_ns();
	read_span(skel, &a);
	CHECK(a.first_ns >= t0 && a.first_ns <= t1);
	CHECK_EQ_U64(a.first_ns, a.last_ns);
	t2 = mono_ns();
	CHECK_EQ_U64(XDP_DROP, run(skel, fi.b, fi.len));
	t3 = mono_ns();
	CHECK_EQ_U64(XDP_PASS, run(skel, fo.b, fo.len));
	read_span(skel, &b);
	CHECK_EQ_U64(a.first_ns, b.first_ns);
	CHECK(b.last_ns >= t2 && b.last_ns <= t3);
	printf("span: first %" PRIu64 " ns in [%" PRIu64 ", %" PRIu64 "], last %" PRIu64
	       " ns in [%" PRIu64 ", %" PRIu64 "]\n", (uint64_t)b.first_ns, t0, t1,
	       (uint64_t)b.last_ns, t2, t3);
	xtx_sink__destroy(skel);
}

/* --pass: matched frames get XDP_PASS; all counting is the same. */
static void test_pass(void)
{
	struct xtx_sink *skel = load(XDP_PASS);
	struct spec s = UDP4(5001, .magic = 1);
	struct frame f;

	build(&s, &f);
	snprintf(case_name, sizeof(case_name), "pass verdict");
	expect(skel, &f, 5001, XTX_SINK_MATCHED, 1, XDP_PASS, 1);
	xtx_sink__destroy(skel);
}

int main(void)
{
	struct xtx_sink *skel;

	test_hist_math();
	if (geteuid() != 0) {
		/* Checks did run: a failure among them is a failure, not a skip. */
		if (atomic_load(&check_n_fail))
			return check_summary("test_sink_bpf (histogram math only, not root)");
		printf("skip: not root: the histogram math passed; BPF_PROG_TEST_RUN of the sink "
		       "needs root\n");
		return 77;
	}
	libbpf_set_print(libbpf_log);
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		fprintf(stderr, "test_sink_bpf: cannot read the number of possible CPUs\n");
		return 1;
	}
	skel = load(XDP_DROP);
	test_classes(skel);
	test_truncation(skel);
	test_order_table(skel);
	test_order_model(skel);
	test_delay(skel);
	xtx_sink__destroy(skel);
	test_pass();
	test_span();
	return check_summary("test_sink_bpf");
}
