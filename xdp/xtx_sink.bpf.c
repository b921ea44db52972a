// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xtx_sink.bpf.c - the receive-side counter that tests and benchmarks trust.
 *
 * Attached to the receiving veth (rx0) by tools/xtx-sink. For every frame:
 *
 *   Ethernet [+ up to 2 VLAN tags (802.1Q/802.1ad)] -> IPv4 | IPv6 [+ up to 4 hop-by-hop/
 *   routing/destination-options headers] -> UDP
 *
 * and puts it into exactly one class of the `stats` map (xtx_sink.h: matched, UDP to
 * another port, IPv4/IPv6 non-UDP, non-IP, fragment, truncated, malformed). A matched
 * frame (UDP, destination port within [cfg_port_lo, cfg_port_hi]) is also counted per
 * port; if its UDP payload starts with a struct xtx_payload (include/xtx/payload.h; at
 * least magic, flow and seq: 16 bytes) the flow's sequence order is checked and, if the
 * whole 24 bytes fit and tstamp_ns != 0, the one-way delay
 * bpf_ktime_get_ns() - tstamp_ns goes into a histogram. Sender and sink run on the same
 * host and the sender stamps CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns().
 *
 * Verdict: matched frames get cfg_action (XDP_DROP, or XDP_PASS with xtx-sink --pass);
 * everything else is passed to the stack, so ARP/ND and other control traffic keep
 * working on the receiver.
 *
 * Concurrency: the counters are per-CPU (no atomics needed; XDP runs with migration
 * disabled). Sequence state is per port in a shared array under bpf_spin_lock: on veth a
 * flow is received by one RX queue, whose NAPI poll runs on the CPU that sent the frame
 * and thus moves between CPUs with the sender; the lock keeps one state per flow whatever
 * CPU runs it. A flow spread over several RX queues is checked in the order the queues'
 * polls happen to interleave, which is what a receiver would see.
 *
 * Verifier notes: all loops are bounded and unrolled; every packet access is preceded by
 * an explicit bounds check against data_end.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include <xtx/payload.h>
#include "xtx_sink.h"

/* Configuration, set by the loader before load (skeleton .rodata). */
const volatile __u16 cfg_port_lo = 0;
const volatile __u16 cfg_port_hi = 65535;
const volatile __u32 cfg_action = XDP_DROP;	/* verdict for matched frames */
const volatile __u32 cfg_ngroups = 0;		/* --delay-group: port ranges */
const volatile __u32 cfg_group_mod = 0;		/* --delay-mod M: group (port - lo) % M */
const volatile __u16 cfg_group_lo[XTX_SINK_DELAY_GROUPS] = { 0 };
const volatile __u16 cfg_group_hi[XTX_SINK_DELAY_GROUPS] = { 0 };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XTX_SINK_STAT_MAX);
	__type(key, __u32);
	__type(value, struct xtx_xdp_counter);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct xtx_xdp_counter);
} port_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct xtx_sink_flow);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1 + XTX_SINK_DELAY_GROUPS);
	__type(key, __u32);
	__type(value, struct xtx_sink_delay);
} delay SEC(".maps");


struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xtx_sink_span);
} span SEC(".maps");

struct vlan_hdr {
	__be16 tci;
	__be16 encap_proto;
};

#define IP_MF		0x2000
#define IP_OFFSET	0x1fff
#define MAX_VLAN	2
#define MAX_IPV6_EXT	4

static __always_inline void count(__u32 stat, __u64 len)
{
	struct xtx_xdp_counter *c = bpf_map_lookup_elem(&stats, &stat);

	if (c) {
		c->pkts++;
		c->bytes += len;
	}
}

/* Classifies a frame that is not matched; the stack gets it. */
static __always_inline int other(__u32 stat, __u64 len)
{
	count(stat, len);
	return XDP_PASS;
}

static __always_inline void check_order(__u32 port, __u64 seq)
{
	struct xtx_sink_flow *f = bpf_map_lookup_elem(&flows, &port);
	__u64 d;

	if (!f)
		return;
	bpf_spin_lock(&f->lock);
	if (seq >= f->next_seq) {
		d = seq - f->next_seq;		/* sequence numbers skipped */
		if (d) {
			f->gaps++;
			f->gap_seqs += d;
		}
		/* Bit i <-> next_seq - 1 - i: advancing by d + 1 shifts the window as much. */
		f->window = d >= 63 ? 1 : (f->window << (d + 1)) | 1;
		f->next_seq = seq + 1;
		f->in_order++;
	} else {
		d = f->next_seq - 1 - seq;	/* bit index of seq in the window */
		if (d >= 64) {
			f->old++;
		} else if (f->window & (1ull << d)) {
			f->dup++;
		} else {
			f->window |= 1ull << d;
			f->late++;
		}
	}
	bpf_spin_unlock(&f->lock);
}

static __always_inline void record_arrival(__u64 now)
{
	struct xtx_sink_span *sp;
	__u32 zero = 0;

	sp = bpf_map_lookup_elem(&span, &zero);
	if (!sp)
		return;
	if (!sp->first_ns)
		sp->first_ns = now;
	sp->last_ns = now;
}

static __always_inline void delay_add(__u32 idx, __u64 tstamp, __u64 now)
{
	__u64 v;
	struct xtx_sink_delay *dl;
	__u32 b;

	dl = bpf_map_lookup_elem(&delay, &idx);
	if (!dl)
		return;
	if (tstamp > now) {
		dl->negative++;
		return;
	}
	v = now - tstamp;
	b = xtx_sink_hist_bucket(v);
	if (b >= XTX_SINK_HIST_BUCKETS)		/* cannot happen; tells the verifier */
		b = XTX_SINK_HIST_BUCKETS - 1;
	dl->hist[b]++;
	if (!dl->samples || v < dl->min_ns)
		dl->min_ns = v;
	if (v > dl->max_ns)
		dl->max_ns = v;
	dl->sum_ns += v;
	dl->samples++;
}

/* Into the histogram of every matched frame, and into its port's group's if it has one
 * (groups do not overlap: the loader checks; with cfg_group_mod every matched port has
 * one, and there are no ranges). Precondition: port >= cfg_port_lo (matched). */
static __always_inline void record_delay(__u32 port, __u64 tstamp, __u64 now)
{
	delay_add(0, tstamp, now);
	if (cfg_group_mod) {
		delay_add((port - cfg_port_lo) % cfg_group_mod + 1, tstamp, now);
		return;
	}
	for (__u32 g = 0; g < XTX_SINK_DELAY_GROUPS; g++) {
		if (g >= cfg_ngroups)
			break;
		if (port >= cfg_group_lo[g] && port <= cfg_group_hi[g]) {
			delay_add(g + 1, tstamp, now);
			break;
		}
	}
}

SEC("xdp")
int xtx_sink(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u64 len = end - data, now;
	struct ethhdr *eth = data;
	struct xtx_xdp_counter *pc;
	struct xtx_payload *pl;
	struct udphdr *udp;
	__u32 l4len, ulen, port;
	__u16 proto;
	void *l3;
	int i;

	if ((void *)(eth + 1) > end)
		return other(XTX_SINK_TRUNCATED, len);
	proto = eth->h_proto;
	l3 = eth + 1;

#pragma unroll
	for (i = 0; i < MAX_VLAN; i++) {
		struct vlan_hdr *vh = l3;

		if (proto != bpf_htons(ETH_P_8021Q) && proto != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(vh + 1) > end)
			return other(XTX_SINK_TRUNCATED, len);
		proto = vh->encap_proto;
		l3 = vh + 1;
	}

	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = l3;
		__u32 hl, tot;

		if ((void *)(ip + 1) > end)
			return other(XTX_SINK_TRUNCATED, len);
		if (ip->version != 4 || ip->ihl < 5)
			return other(XTX_SINK_MALFORMED, len);
		hl = ip->ihl * 4;
		if (l3 + hl > end)
			return other(XTX_SINK_TRUNCATED, len);
		tot = bpf_ntohs(ip->tot_len);
		if (tot < hl)
			return other(XTX_SINK_MALFORMED, len);
		if (tot > (__u64)(end - l3))
			return other(XTX_SINK_TRUNCATED, len);
		if (ip->frag_off & bpf_htons(IP_MF | IP_OFFSET))
			return other(XTX_SINK_FRAGMENT, len);
		if (ip->protocol != IPPROTO_UDP)
			return other(XTX_SINK_IPV4_OTHER, len);
		udp = l3 + hl;
		l4len = tot - hl;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = l3;
		__u32 plen, hlen;
		void *p;
		__u8 nh;

		if ((void *)(ip6 + 1) > end)
			return other(XTX_SINK_TRUNCATED, len);
		if (ip6->version != 6)
			return other(XTX_SINK_MALFORMED, len);
		plen = bpf_ntohs(ip6->payload_len);
		if (plen == 0)		/* jumbogram (RFC 2675): not supported */
			return other(XTX_SINK_MALFORMED, len);
		p = ip6 + 1;
		if (plen > (__u64)(end - p))
			return other(XTX_SINK_TRUNCATED, len);
		nh = ip6->nexthdr;
		l4len = plen;
#pragma unroll
		for (i = 0; i < MAX_IPV6_EXT; i++) {
			struct ipv6_opt_hdr *oh = p;

			if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING &&
			    nh != IPPROTO_DSTOPTS)
				break;
			if ((void *)(oh + 1) > end)
				return other(XTX_SINK_TRUNCATED, len);
			hlen = (oh->hdrlen + 1) * 8;
			if (hlen > l4len)
				return other(XTX_SINK_MALFORMED, len);
			nh = oh->nexthdr;
			p += hlen;
			l4len -= hlen;
		}
		if (nh == IPPROTO_FRAGMENT)
			return other(XTX_SINK_FRAGMENT, len);
		if (nh != IPPROTO_UDP)
			return other(XTX_SINK_IPV6_OTHER, len);
		udp = p;
	} else {
		return other(XTX_SINK_NON_IP, len);
	}

	/* UDP: the IP length said l4len bytes follow, and they are all within the frame. */
	if (l4len < sizeof(*udp))
		return other(XTX_SINK_MALFORMED, len);
	if ((void *)(udp + 1) > end)		/* implied by the IP length check; verifier */
		return other(XTX_SINK_TRUNCATED, len);
	ulen = bpf_ntohs(udp->len);
	if (ulen < sizeof(*udp) || ulen > l4len)
		return other(XTX_SINK_MALFORMED, len);
	port = bpf_ntohs(udp->dest);
	if (port < cfg_port_lo || port > cfg_port_hi)
		return other(XTX_SINK_UDP_OTHER_PORT, len);

	now = bpf_ktime_get_ns();
	count(XTX_SINK_MATCHED, len);
	record_arrival(now);
	pc = bpf_map_lookup_elem(&port_stats, &port);
	if (pc) {
		pc->pkts++;
		pc->bytes += len;
	}

	/* The payload in whole fields (include/xtx/pkt.h, "Sizes"): 16 bytes give magic,
	 * flow and seq (order is checked); 24 bytes add tstamp_ns (delay is recorded). */
	pl = (void *)(udp + 1);
	if (ulen >= sizeof(*udp) + XTX_PAYLOAD_SEQ_LEN &&
	    (void *)pl + XTX_PAYLOAD_SEQ_LEN <= end && pl->magic == XTX_PAYLOAD_MAGIC) {
		count(XTX_SINK_PAYLOAD, len);
		check_order(port, pl->seq);
		if (ulen >= sizeof(*udp) + sizeof(*pl) && (void *)(pl + 1) <= end &&
		    pl->tstamp_ns)
			record_delay(port, pl->tstamp_ns, now);
	}
	return cfg_action;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
