// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xtx_redirect.bpf.c - the ingress classifier of xtx-shape.
 *
 * Attached to the ingress interface by tools/xtx-shape. For every frame:
 *
 *   1. parse (parse_eth, parse_ipv4, parse_ipv6, parse_l4): Ethernet [+ up to 2 VLAN tags
 *      (802.1Q/802.1ad)] -> ARP | IPv4 | IPv6 [+ up to 4 hop-by-hop/routing/destination-
 *      options headers, a fragment header] -> TCP/UDP (ports), ICMP/ICMPv6 (type),
 *      anything else (protocol only);
 *   2. hand to the kernel what must stay the host's (host_reason): ARP, IPv6 neighbour
 *      discovery and router messages, frames addressed to this host; in router mode also
 *      everything the kernel must route or reject itself (see enum xtx_rd_stat);
 *   3. classify by the user's rules (match_rule; xtx_redirect.h: LPM on addresses, port
 *      ranges, protocol, DSCP, VLAN; first match wins; else the default): a class, pass
 *      or drop;
 *   4. router mode (default; fib_reason, forward_rewrite): bpf_fib_lookup() in the
 *      kernel's tables; the frame must leave by cfg_out_ifindex; TTL / hop limit
 *      decremented (IPv4 checksum updated as the kernel's ip_decrease_ttl() does) and new
 *      MAC addresses, exactly what the kernel's forwarding would do. No route, no
 *      neighbour, TTL expiring, MTU exceeded: the frame goes to the kernel untouched,
 *      which answers with ICMP as usual. l2 mode: the frame is not changed;
 *   4b. policing (police): a class's frames are admitted within its room on the flow's
 *      TX queue (the dequeuers' room words, mirrored into rd_police): none while full,
 *      at most the word's quota per room event; the rest is dropped here and counted in
 *      rd_policed and POLICED, before the copy into the UMEM and the receive worker;
 *   5. class index and flow hash (flow_hash, put_meta) into the metadata area
 *      (include/xtx/rxmeta.h), then XDP_REDIRECT to the AF_XDP socket of the RX queue
 *      (xsks[rx_queue_index]).
 *
 * Nothing is modified before the last check that can send the frame to the kernel, so a
 * frame the kernel gets is always the frame as received. The socket lookup comes first
 * for the same reason (no socket yet, e.g. while xtx-shape starts: the kernel forwards).
 *
 * Counters are per-CPU (XDP runs with migration disabled); every frame increments exactly
 * one verdict counter (xtx_redirect.h) plus possibly sub-counts.
 *
 * Verifier notes: all loops are bounded and unrolled; every packet access follows an
 * explicit check against data_end; header lengths are bounded before use as offsets. The
 * steps are static __always_inline: one program, header pointers kept in struct pkt.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include <xtx/pkt_hash_pvt.h>	/* the flow hash of xtx/pkt.h */
#include <xtx/roomword.h>
#include <xtx/rxmeta.h>
#include "xtx_redirect.h"

#define AF_INET		2
#define AF_INET6	10
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff
#define MAX_VLAN	2
#define MAX_IPV6_EXT	4
#define ETH_P_ARP_BE	bpf_htons(ETH_P_ARP)

/* Configuration, set by the loader before load (skeleton .rodata). */
const volatile __u32 cfg_mode = XTX_RD_MODE_ROUTER;
const volatile __u32 cfg_out_ifindex = 0;	/* router: routes must leave by this one */
const volatile __u8 cfg_in_mac[ETH_ALEN] = { 0 };	/* the ingress interface's MAC */
const volatile __u32 cfg_nrules = 0;		/* 0: no lookups, everything default */
const volatile __u32 cfg_hash_seed = 0;
const volatile __u32 cfg_police = 0;		/* 0: no policing (xtx-shape --police off) */
const volatile __u32 cfg_tx_queues = 1;		/* the engine's TX queues */
const volatile __u32 cfg_ncls = 1;		/* classes: rd_police is [queue][class] */
const volatile __u32 cfg_overhead = 24;		/* the class file's per-frame overhead */
const volatile __u64 cfg_stale_ns = 80000000;	/* an event older than this: new quota */

#define MASK_ARRAY(name, n)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(max_entries, n);					\
		__type(key, __u32);					\
		__type(value, struct xtx_rd_mask);			\
	} name SEC(".maps")

#define MASK_LPM(name, keytype)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_LPM_TRIE);			\
		__uint(max_entries, XTX_RD_PREFIX_MAX);			\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__type(key, keytype);					\
		__type(value, struct xtx_rd_mask);			\
	} name SEC(".maps")

MASK_LPM(rd_src4, struct xtx_rd_lpm4);
MASK_LPM(rd_dst4, struct xtx_rd_lpm4);
MASK_LPM(rd_src6, struct xtx_rd_lpm6);
MASK_LPM(rd_dst6, struct xtx_rd_lpm6);
MASK_ARRAY(rd_sport, 65536);
MASK_ARRAY(rd_dport, 65536);
MASK_ARRAY(rd_proto, 256);
MASK_ARRAY(rd_dscp, 64);
MASK_ARRAY(rd_vlan, XTX_RD_VLAN_UNTAGGED + 1);
MASK_ARRAY(rd_misc, XTX_RD_MISC_MAX);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XTX_RD_RULES_MAX + 1);
	__type(key, __u32);
	__type(value, struct xtx_rd_rule);
} rd_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XTX_RD_STAT_MAX);
	__type(key, __u32);
	__type(value, struct xtx_xdp_counter);
} rd_stats SEC(".maps");

/* [queue * cfg_ncls + class]: the room word of the class on that TX queue
 * (xtx/roomword.h), stored by its dequeuer through an mmap (xtx_engine__room_mirror()).
 * Sized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} rd_police SEC(".maps");

/* What the program admitted of each of those since the word's last room event, shared by
 * the CPUs (one atomic add per admitted frame of a class with a room). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xtx_rd_admit);
} rd_admit SEC(".maps");

/* Per class index: frames dropped by policing. Sized to the classes by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xtx_xdp_counter);
} rd_policed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, XTX_RD_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

struct vlan_hdr {
	__be16 tci;
	__be16 encap_proto;
};

struct ipv6_frag_hdr {
	__u8 nexthdr;
	__u8 reserved;
	__be16 frag_off;
	__be32 id;
};

/* What the parser found. Headers and addresses stay in the frame: the pointers are set by
 * the parser that checked them and are valid wherever bad == 0 and family says so. */
struct pkt {
	__u32 bad;		/* 0, XTX_RD_TRUNCATED or XTX_RD_MALFORMED */
	__u32 vlan;		/* outer VLAN id, or XTX_RD_VLAN_UNTAGGED */
	__u32 nvlan;
	__u32 family;		/* 0 (not IP), 4, 6 */
	__u32 proto;		/* IP protocol (after IPv6 extension headers) */
	__u32 dscp;
	__u32 has_ports;	/* TCP/UDP, not a fragment */
	__u32 frag;
	__u32 sport, dport;	/* host order; 0 without ports */
	__u32 icmp_type;	/* ICMP / ICMPv6 type, 256 = none */
	__u32 tot_len;		/* IPv4 total length / IPv6 payload + 40 */
	__u16 ethertype;	/* innermost, network order */
	struct iphdr *ip4;	/* family 4, else NULL */
	struct ipv6hdr *ip6;	/* family 6, else NULL */
	const __u8 *saddr;	/* 4 or 16 bytes in the IP header; NULL if not IP */
	const __u8 *daddr;
};

/* One frame of len bytes more in rd_stats[stat], this CPU's copy. */
static __always_inline void count(__u32 stat, __u64 len)
{
	struct xtx_xdp_counter *c = bpf_map_lookup_elem(&rd_stats, &stat);

	if (c) {
		c->pkts++;
		c->bytes += len;
	}
}

/* count(stat) and hand the frame to the kernel as it is. */
static __always_inline int pass(__u32 stat, __u64 len)
{
	count(stat, len);
	return XDP_PASS;
}

/* --- classification --------------------------------------------------------------------- */

/* acc &= map[key]; a missing entry empties acc (no rule accepts the value). */
static __always_inline void mask_and(struct xtx_rd_mask *acc, const struct xtx_rd_mask *m)
{
	int k;

#pragma unroll
	for (k = 0; k < XTX_RD_MASK_WORDS; k++)
		acc->w[k] = m ? acc->w[k] & m->w[k] : 0;
}

/* Index of the lowest set bit of x != 0: branches only (no ctz instruction in BPF). */
static __always_inline __u32 ctz64(__u64 x)
{
	__u32 n = 0;

	if (!(x & 0xffffffffull)) { n += 32; x >>= 32; }
	if (!(x & 0xffffull)) { n += 16; x >>= 16; }
	if (!(x & 0xffull)) { n += 8; x >>= 8; }
	if (!(x & 0xfull)) { n += 4; x >>= 4; }
	if (!(x & 0x3ull)) { n += 2; x >>= 2; }
	if (!(x & 0x1ull)) { n += 1; }
	return n;
}

static __always_inline __u32 first_rule(const struct xtx_rd_mask *m)
{
	int k;

#pragma unroll
	for (k = 0; k < XTX_RD_MASK_WORDS; k++)
		if (m->w[k])
			return k * 64 + ctz64(m->w[k]);
	return XTX_RD_RULE_DEFAULT;
}

/* The rule index a frame matches (XTX_RD_RULE_DEFAULT: none); reads p->saddr/daddr only
 * for an IP frame without p->bad, where the parser checked them. */
static __always_inline __u32 classify(const struct pkt *p)
{
	struct xtx_rd_mask acc;
	__u32 k;
	int i;

	if (!cfg_nrules)
		return XTX_RD_RULE_DEFAULT;
#pragma unroll
	for (i = 0; i < XTX_RD_MASK_WORDS; i++)
		acc.w[i] = ~0ull;
	k = p->vlan;
	mask_and(&acc, bpf_map_lookup_elem(&rd_vlan, &k));
	if (!p->family || p->bad) {
		k = XTX_RD_MISC_NON_IP;
		mask_and(&acc, bpf_map_lookup_elem(&rd_misc, &k));
		return first_rule(&acc);
	}
	if (p->family == 4) {
		struct xtx_rd_lpm4 key = { .prefixlen = 32 };

		__builtin_memcpy(key.addr, p->saddr, 4);
		mask_and(&acc, bpf_map_lookup_elem(&rd_src4, &key));
		__builtin_memcpy(key.addr, p->daddr, 4);
		mask_and(&acc, bpf_map_lookup_elem(&rd_dst4, &key));
	} else {
		struct xtx_rd_lpm6 key = { .prefixlen = 128 };

		__builtin_memcpy(key.addr, p->saddr, 16);
		mask_and(&acc, bpf_map_lookup_elem(&rd_src6, &key));
		__builtin_memcpy(key.addr, p->daddr, 16);
		mask_and(&acc, bpf_map_lookup_elem(&rd_dst6, &key));
	}
	k = p->proto;
	mask_and(&acc, bpf_map_lookup_elem(&rd_proto, &k));
	k = p->dscp;
	mask_and(&acc, bpf_map_lookup_elem(&rd_dscp, &k));
	if (p->has_ports) {
		k = p->sport;
		mask_and(&acc, bpf_map_lookup_elem(&rd_sport, &k));
		k = p->dport;
		mask_and(&acc, bpf_map_lookup_elem(&rd_dport, &k));
	} else {
		k = XTX_RD_MISC_NOPORT;
		mask_and(&acc, bpf_map_lookup_elem(&rd_misc, &k));
	}
	return first_rule(&acc);
}

/* --- layer 4 ------------------------------------------------------------------------------ */

/* Ports of TCP/UDP, type of ICMP/ICMPv6; l4len bytes of L4 are claimed by the IP length
 * and lie within the frame up to `end` only as far as checked here. */
static __always_inline __u32 parse_l4(struct pkt *p, void *l4, void *end, __u32 l4len)
{
	if (p->frag)
		return 0;
	if (p->proto == IPPROTO_TCP || p->proto == IPPROTO_UDP) {
		__be16 *pt = l4;

		if (l4len < 4)
			return XTX_RD_MALFORMED;
		if ((void *)(pt + 2) > end)
			return XTX_RD_TRUNCATED;
		p->sport = bpf_ntohs(pt[0]);
		p->dport = bpf_ntohs(pt[1]);
		p->has_ports = 1;
	} else if (p->proto == IPPROTO_ICMP || p->proto == IPPROTO_ICMPV6) {
		__u8 *t = l4;

		if (l4len < 1)
			return XTX_RD_MALFORMED;
		if ((void *)(t + 1) > end)
			return XTX_RD_TRUNCATED;
		p->icmp_type = *t;
	}
	return 0;
}

/* --- layer 2 and 3 ------------------------------------------------------------------------ */

/* Ethernet and up to MAX_VLAN 802.1Q/802.1ad tags: NULL if the frame is shorter than an
 * Ethernet header, else where L3 starts; a cut tag sets TRUNCATED, a third MALFORMED. */
static __always_inline void *parse_eth(struct pkt *p, struct ethhdr *eth, void *end)
{
	void *l3 = eth + 1;
	__u16 proto;
	int i;

	if (l3 > end)
		return NULL;
	proto = eth->h_proto;
#pragma unroll
	for (i = 0; i < MAX_VLAN; i++) {
		struct vlan_hdr *vh = l3;

		if (proto != bpf_htons(ETH_P_8021Q) && proto != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(vh + 1) > end) {
			p->bad = XTX_RD_TRUNCATED;
			break;
		}
		if (i == 0)
			p->vlan = bpf_ntohs(vh->tci) & 0x0fff;
		p->nvlan++;
		proto = vh->encap_proto;
		l3 = vh + 1;
	}
	if (!p->bad && (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)))
		p->bad = XTX_RD_MALFORMED;	/* a third tag: not parsed */
	p->ethertype = proto;
	return l3;
}

/* IPv4 at l3: header and total length within the frame, version 4, IHL >= 5, total >= IHL;
 * returns 0, XTX_RD_TRUNCATED or XTX_RD_MALFORMED (then L4 is not looked at). */
static __always_inline __u32 parse_ipv4(struct pkt *p, void *l3, void *end)
{
	struct iphdr *ip4 = l3;
	__u32 hl, tot;

	p->family = 4;
	p->ip4 = ip4;
	if ((void *)(ip4 + 1) > end)
		return XTX_RD_TRUNCATED;
	if (ip4->version != 4 || ip4->ihl < 5)
		return XTX_RD_MALFORMED;
	hl = ip4->ihl * 4;
	tot = bpf_ntohs(ip4->tot_len);
	if (l3 + hl > end)
		return XTX_RD_TRUNCATED;
	if (tot < hl)
		return XTX_RD_MALFORMED;
	if (tot > (__u64)(end - l3))
		return XTX_RD_TRUNCATED;
	p->saddr = (const __u8 *)&ip4->saddr;
	p->daddr = (const __u8 *)&ip4->daddr;
	p->proto = ip4->protocol;
	p->dscp = ip4->tos >> 2;
	p->tot_len = tot;
	p->frag = !!(ip4->frag_off & bpf_htons(IP_MF | IP_OFFSET));
	return parse_l4(p, l3 + hl, end, tot - hl);
}

/* IPv6 at l3: version 6, payload length 1..frame, then up to MAX_IPV6_EXT hop-by-hop/
 * routing/destination-options headers and a fragment header, each within the frame and
 * the payload length; returns 0, XTX_RD_TRUNCATED or XTX_RD_MALFORMED. */
static __always_inline __u32 parse_ipv6(struct pkt *p, void *l3, void *end)
{
	struct ipv6hdr *ip6 = l3;
	__u32 plen, l4len, hlen;
	void *nh_p;
	__u8 nh;
	int i;

	p->family = 6;
	p->ip6 = ip6;
	if ((void *)(ip6 + 1) > end)
		return XTX_RD_TRUNCATED;
	if (ip6->version != 6)
		return XTX_RD_MALFORMED;
	plen = bpf_ntohs(ip6->payload_len);
	nh_p = ip6 + 1;
	if (plen == 0)			/* jumbogram (RFC 2675): not supported */
		return XTX_RD_MALFORMED;
	if (plen > (__u64)(end - nh_p))
		return XTX_RD_TRUNCATED;
	p->saddr = (const __u8 *)&ip6->saddr;
	p->daddr = (const __u8 *)&ip6->daddr;
	p->dscp = (ip6->priority << 2 | ip6->flow_lbl[0] >> 6) & 0x3f;
	p->tot_len = plen + sizeof(*ip6);
	nh = ip6->nexthdr;
	l4len = plen;
#pragma unroll
	for (i = 0; i < MAX_IPV6_EXT; i++) {
		struct ipv6_opt_hdr *oh = nh_p;

		if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING && nh != IPPROTO_DSTOPTS)
			break;
		if ((void *)(oh + 1) > end)
			return XTX_RD_TRUNCATED;
		hlen = (oh->hdrlen + 1) * 8;
		if (hlen > l4len)
			return XTX_RD_MALFORMED;
		nh = oh->nexthdr;
		nh_p += hlen;
		l4len -= hlen;
	}
	if (nh == IPPROTO_FRAGMENT) {
		struct ipv6_frag_hdr *fh = nh_p;

		if ((void *)(fh + 1) > end)
			return XTX_RD_TRUNCATED;
		if (l4len < sizeof(*fh))
			return XTX_RD_MALFORMED;
		p->frag = 1;
		nh = fh->nexthdr;
		nh_p = fh + 1;
		l4len -= sizeof(*fh);
	}
	p->proto = nh;
	return parse_l4(p, nh_p, end, l4len);
}

/* --- what stays the kernel's -------------------------------------------------------------- */

/* The XTX_RD_PASS_* reason a parsed frame stays the kernel's (file top, step 2; router mode
 * adds its own), or -1: classify it. Reads eth->h_dest and, in IPv6 without p->bad, daddr. */
static __always_inline int host_reason(const struct pkt *p, const struct ethhdr *eth)
{
	int i;

	/* IPv6 neighbour discovery and router messages (RS, RA, NS, NA, redirect). */
	if (!p->bad && p->family == 6 && p->proto == IPPROTO_ICMPV6 && p->icmp_type >= 133 &&
	    p->icmp_type <= 137)
		return XTX_RD_PASS_ND;
	if (cfg_mode == XTX_RD_MODE_ROUTER) {
		if (p->bad)
			return XTX_RD_PASS_BAD;
		if (!p->family)
			return XTX_RD_PASS_NON_IP;
		if (p->nvlan)
			return XTX_RD_PASS_VLAN;
		/* Unicast to us only: the kernel drops other hosts' frames and delivers
		 * broadcast and multicast locally; it never forwards them. */
		if (eth->h_dest[0] & 1)
			return XTX_RD_PASS_NOT_UNICAST;
		for (i = 0; i < ETH_ALEN; i++)
			if (eth->h_dest[i] != cfg_in_mac[i])
				return XTX_RD_PASS_NOT_UNICAST;
		/* Link-local IPv6 destinations are never forwarded. */
		if (p->family == 6 && p->daddr[0] == 0xfe && (p->daddr[1] & 0xc0) == 0x80)
			return XTX_RD_PASS_LOCAL;
		return -1;
	}
	/* l2: frames to this host's own MAC; everything else goes through. */
	for (i = 0; i < ETH_ALEN; i++)
		if (eth->h_dest[i] != cfg_in_mac[i])
			return -1;
	return XTX_RD_PASS_LOCAL;
}

/* The rule of the frame: the first that matches, else rd_rules[XTX_RD_RULE_DEFAULT] and
 * XTX_RD_DEFAULT counted; NULL only if the array lookup fails (the index is <= its max). */
static __always_inline const struct xtx_rd_rule *match_rule(const struct pkt *p, __u64 len)
{
	__u32 rule_idx = classify(p);

	if (rule_idx == XTX_RD_RULE_DEFAULT)
		count(XTX_RD_DEFAULT, len);
	return bpf_map_lookup_elem(&rd_rules, &rule_idx);
}

/* The flow hash of xtx_redirect.h: IP 5-tuple if the frame parsed (no p->bad), else the
 * Ethernet addresses and ethertype. Call before any rewrite; reads only checked headers. */
static __always_inline __u32 flow_hash(const struct pkt *p, const struct ethhdr *eth)
{
	const __u8 *d = eth->h_dest, *s = eth->h_source;
	__u32 hash;

	if (p->family == 4 && !p->bad)
		return _xtx_flow_hash4(p->saddr, p->daddr, p->sport, p->dport, p->proto,
				       cfg_hash_seed);
	if (p->family == 6 && !p->bad)
		return _xtx_flow_hash6(p->saddr, p->daddr, p->sport, p->dport, p->proto,
				       cfg_hash_seed);
	hash = _xtx_mmh3_mix(cfg_hash_seed, _xtx_be32(d));
	hash = _xtx_mmh3_mix(hash, (__u32)d[4] << 24 | (__u32)d[5] << 16 | (__u32)s[0] << 8 | s[1]);
	hash = _xtx_mmh3_mix(hash, _xtx_be32(s + 2));
	hash = _xtx_mmh3_mix(hash, bpf_ntohs(p->ethertype));
	return _xtx_mmh3_final(hash, 16);
}

/* --- router: the kernel's forwarding decision, done here ---------------------------------- */

/* Router mode, a frame host_reason() let through (IP, no p->bad): fills f and asks the FIB;
 * the XTX_RD_PASS_* reason the kernel forwards it itself, or -1: it leaves by our egress. */
static __always_inline int fib_reason(struct xdp_md *ctx, const struct pkt *p,
				      struct bpf_fib_lookup *f)
{
	f->ifindex = ctx->ingress_ifindex;
	f->l4_protocol = p->proto;
	f->sport = bpf_htons(p->sport);
	f->dport = bpf_htons(p->dport);
	f->tot_len = p->tot_len;
	if (p->ip4) {
		if (p->ip4->ttl <= 1)
			return XTX_RD_PASS_TTL;
		f->family = AF_INET;
		f->tos = p->ip4->tos;
		f->ipv4_src = p->ip4->saddr;
		f->ipv4_dst = p->ip4->daddr;
	} else if (p->ip6) {
		if (p->ip6->hop_limit <= 1)
			return XTX_RD_PASS_TTL;
		f->family = AF_INET6;
		f->flowinfo = *(__be32 *)p->ip6 & bpf_htonl(0x0fffffff);
		__builtin_memcpy(f->ipv6_src, &p->ip6->saddr, 16);
		__builtin_memcpy(f->ipv6_dst, &p->ip6->daddr, 16);
	} else {
		return XTX_RD_PASS_NON_IP;	/* not reached */
	}
	switch (bpf_fib_lookup(ctx, f, sizeof(*f), 0)) {
	case BPF_FIB_LKUP_RET_SUCCESS:
		break;
	case BPF_FIB_LKUP_RET_NOT_FWDED:
		return XTX_RD_PASS_NOT_FWDED;
	case BPF_FIB_LKUP_RET_BLACKHOLE:
	case BPF_FIB_LKUP_RET_UNREACHABLE:
	case BPF_FIB_LKUP_RET_PROHIBIT:
		return XTX_RD_PASS_NO_ROUTE;
	case BPF_FIB_LKUP_RET_NO_NEIGH:
		return XTX_RD_PASS_NO_NEIGH;
	case BPF_FIB_LKUP_RET_FRAG_NEEDED:
		return XTX_RD_PASS_FRAG_NEEDED;
	default:	/* FWD_DISABLED, UNSUPP_LWT, ... */
		return XTX_RD_PASS_FWD_OFF;
	}
	if (f->ifindex != cfg_out_ifindex)
		return XTX_RD_PASS_OTHER_IF;
	return -1;
}

/* A frame fib_reason() committed, rewritten as the kernel's forwarding would: TTL / hop
 * limit - 1 (IPv4 checksum as ip_decrease_ttl()), the FIB's MACs; headers already checked. */
static __always_inline void forward_rewrite(const struct pkt *p, struct ethhdr *eth,
					    const struct bpf_fib_lookup *f)
{
	if (p->ip4) {
		/* ip_decrease_ttl(): TTL is the high byte of the 16-bit word it shares with
		 * the protocol; add 0x0100 back to the checksum, end-around carry. */
		__u32 check = p->ip4->check;

		check += bpf_htons(0x0100);
		p->ip4->check = (__sum16)(check + (check >= 0xffff));
		p->ip4->ttl--;
	} else if (p->ip6) {
		p->ip6->hop_limit--;
	}
	__builtin_memcpy(eth->h_dest, f->dmac, ETH_ALEN);
	__builtin_memcpy(eth->h_source, f->smac, ETH_ALEN);
}

/* --- policing ------------------------------------------------------------------------------ */

/* Whether the frame exceeds class cls's room on the TX queue of hash (the engine's
 * choice of queue: (hash * queues) >> 32): its word says full, or the frames admitted
 * since its last room event reach twice the word's quota, a whole budget (wire bytes, as
 * the scheduler counts them). A new event (gen), or a count older than cfg_stale_ns,
 * restarts the count: frames admitted may have been lost before the scheduler, which
 * then never sends the event that lets more in (a slow class's events may be further
 * apart: its count then restarts early, and the full flag still caps its queue).
 * Counted when it does. The count's version (gen and time in one word) is replaced by
 * one compare-and-swap, so one CPU restarts a given count; adds of other CPUs between
 * that and its reset of `used` are lost (a few frames over the quota). */
static __always_inline int police(__u32 cls, __u32 hash, __u64 len)
{
	__u32 q = (__u32)(((__u64)hash * cfg_tx_queues) >> 32);
	__u32 idx = q * cfg_ncls + cls;
	__u64 *wp = bpf_map_lookup_elem(&rd_police, &idx), w, now, ver, tv, nv;
	__u64 wire = len + cfg_overhead;
	struct xtx_rd_admit *a = bpf_map_lookup_elem(&rd_admit, &idx);
	struct xtx_xdp_counter *c;
	__u32 quota;

	if (!cfg_police || !wp || !a)
		return 0;
	/* A plain (relaxed) load of the dequeuer's relaxed store of the word
	 * (xtx_room_publish()): a hint, one event stale at most. */
	w = *(volatile __u64 *)wp;
	quota = XTX_ROOM_Q(w);
	if (!XTX_ROOM_FULL(w)) {
		if (quota == XTX_ROOM_UNIT_MAX)
			return 0;		/* no target: no limit */
		/* Plain load; the CAS below checks it. Before the clock: a later restart
		 * is not stale. */
		ver = a->ver;
		now = bpf_ktime_get_ns();
		tv = XTX_RD_ADMIT_T(ver);
		nv = XTX_RD_ADMIT_VER(XTX_ROOM_GEN(w), now);
		if ((XTX_RD_ADMIT_GEN(ver) != XTX_ROOM_GEN(w) ||
		     (now > tv && now - tv > cfg_stale_ns)) &&
		    /* Full barrier (BPF's __sync CAS), pairs with the other CPUs' CAS of
		     * the same word: one of them restarts this count. */
		    __sync_val_compare_and_swap(&a->ver, ver, nv) == ver) {
			a->used = wire;	/* plain: racing adds may be lost (see above) */
			return 0;
		}
		/* twice the producers' quota (half the budget): the backlog grows to the
		 * budget, where the word's full flag stops it, instead of walking at the
		 * level it had (and sometimes to empty, handing the class's turn away) */
		/* Full barrier (BPF's __sync add), pairs with the other CPUs' adds to and
		 * the restarting CPU's store of `used`. */
		if (__sync_fetch_and_add(&a->used, wire) + wire <= 2ull * quota * XTX_ROOM_UNIT)
			return 0;
	}
	c = bpf_map_lookup_elem(&rd_policed, &cls);
	if (c) {
		c->pkts++;
		c->bytes += len;
	}
	count(XTX_RD_POLICED, len);
	return 1;
}

/* --- metadata, redirect ------------------------------------------------------------------- */

/* Flow hash and class into the metadata area in front of the frame (include/xtx/rxmeta.h):
 * 0, or -1 if the driver has no headroom or the area fails its check against data. */
static __always_inline int put_meta(struct xdp_md *ctx, __u32 hash, __u32 cls)
{
	struct xtx_rx_meta *m;

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*m)))
		return -1;
	m = (void *)(long)ctx->data_meta;
	if ((void *)(m + 1) > (void *)(long)ctx->data)
		return -1;
	m->hash = hash;
	m->cls = (__u16)cls;
	m->magic = XTX_RX_META_MAGIC;
	return 0;
}

SEC("xdp")
int xtx_redirect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u64 len = end - data;
	struct ethhdr *eth = data;
	struct pkt p = { .vlan = XTX_RD_VLAN_UNTAGGED, .icmp_type = 256 };
	__u32 qid = ctx->rx_queue_index, hash, cls;
	const struct xtx_rd_rule *rule;
	void *l3;
	int why;

	/* 1. parse */
	l3 = parse_eth(&p, eth, end);
	if (!l3) {
		count(XTX_RD_TRUNCATED, len);
		return pass(XTX_RD_PASS_BAD, len);
	}
	if (!p.bad && p.ethertype == ETH_P_ARP_BE)
		return pass(XTX_RD_PASS_ARP, len);
	if (!p.bad && p.ethertype == bpf_htons(ETH_P_IP))
		p.bad = parse_ipv4(&p, l3, end);
	else if (!p.bad && p.ethertype == bpf_htons(ETH_P_IPV6))
		p.bad = parse_ipv6(&p, l3, end);
	/* Keep the family a value of its own (barrier_var, bpf_helpers.h): without it clang
	 * merges the parsers' tails and recomputes the family from a copy of the ethertype
	 * the verifier knows nothing of, and the verifier walks IPv6 code with IPv4 bounds. */
	barrier_var(p.family);
	if (p.bad)
		count(p.bad, len);
	if (p.frag && !p.bad)
		count(XTX_RD_FRAGMENT, len);

	/* 2. what stays the kernel's */
	why = host_reason(&p, eth);
	if (why >= 0)
		return pass(why, len);

	/* 3. classify */
	rule = match_rule(&p, len);
	if (rule && rule->action == XTX_RD_ACT_PASS)
		return pass(XTX_RD_PASS_RULE, len);
	if (rule && rule->action == XTX_RD_ACT_DROP) {
		count(XTX_RD_DROP_RULE, len);
		return XDP_DROP;
	}
	cls = rule ? rule->cls : 0xffff;

	/* No socket on this queue (yet): the kernel's, untouched. */
	if (!bpf_map_lookup_elem(&xsks, &qid))
		return pass(XTX_RD_PASS_NO_SOCKET, len);
	hash = flow_hash(&p, eth);

	/* 4. router: the kernel's forwarding decision; l2: the frame as it came */
	if (cfg_mode == XTX_RD_MODE_ROUTER) {
		struct bpf_fib_lookup f = {};

		why = fib_reason(ctx, &p, &f);
		if (why >= 0)
			return pass(why, len);
		if (police(cls, hash, len))
			return XDP_DROP;
		forward_rewrite(&p, eth, &f);
	} else if (police(cls, hash, len)) {
		return XDP_DROP;
	}

	/* 5. metadata, redirect */
	if (put_meta(ctx, hash, cls))
		count(XTX_RD_NO_META, len);
	count(XTX_RD_REDIRECT, len);
	return bpf_redirect_map(&xsks, qid, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
