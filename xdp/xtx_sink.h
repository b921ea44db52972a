/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx_sink.h - what the xtx_sink XDP program (xdp/xtx_sink.bpf.c) shares with its reader
 * (tools/xtx-sink) and its unit test (tests/unit/test_sink_bpf.c): map value layouts, the
 * counter indices and the delay histogram's bucket math. Fixed-width types only, no libc:
 * compiled both by clang -target bpf and by gcc.
 *
 * Maps (names as in the skeleton):
 *   stats       per-CPU array [XTX_SINK_STAT_MAX] of struct xtx_xdp_counter
 *   port_stats  per-CPU array [65536] of struct xtx_xdp_counter, index = UDP dst port;
 *               only ports within [cfg_port_lo, cfg_port_hi] are counted
 *   flows       array [65536] of struct xtx_sink_flow (shared, bpf_spin_lock), index = port
 *   delay       per-CPU array [1 + XTX_SINK_DELAY_GROUPS] of struct xtx_sink_delay:
 *               entry 0 every matched frame, entry g + 1 those whose port is in
 *               [cfg_group_lo[g], cfg_group_hi[g]] (xtx-sink --delay-group), or with
 *               cfg_group_mod M > 0 those with (port - cfg_port_lo) % M == g
 *               (--delay-mod)
 *   span        per-CPU array [1] of struct xtx_sink_span
 *
 * Bytes are the frame length as XDP sees it: Ethernet header to the end of the frame,
 * without FCS, preamble or inter-frame gap.
 */
#ifndef XTX_SINK_H
#define XTX_SINK_H

#include <linux/types.h>
#include <linux/bpf.h>		/* struct bpf_spin_lock */
#include "xtx_counter.h"	/* struct xtx_xdp_counter: stats' and port_stats' values */

/* Counter indices of the `stats` map. Every frame lands in exactly one of the first
 * XTX_SINK_CLASS_MAX classes; the rest are sub-counts of XTX_SINK_MATCHED. */
enum xtx_sink_stat {
	XTX_SINK_MATCHED = 0,		/* UDP to a port in [lo, hi]: counted per port */
	XTX_SINK_UDP_OTHER_PORT,	/* UDP to a port outside [lo, hi] */
	XTX_SINK_IPV4_OTHER,		/* IPv4, not UDP (TCP, ICMP, ...) */
	XTX_SINK_IPV6_OTHER,		/* IPv6, not UDP (ICMPv6, TCP, ...) */
	XTX_SINK_NON_IP,		/* ARP, LLDP, 3+ VLAN tags, any other ethertype */
	XTX_SINK_FRAGMENT,		/* IPv4 MF/offset != 0 or IPv6 fragment header */
	XTX_SINK_TRUNCATED,		/* a header, or the IP length, runs past the frame */
	XTX_SINK_MALFORMED,		/* bad IP version/IHL, IP or UDP length inconsistent */
	XTX_SINK_CLASS_MAX,
	/* sub-counts of XTX_SINK_MATCHED */
	XTX_SINK_PAYLOAD = XTX_SINK_CLASS_MAX,	/* carries struct xtx_payload (magic) */
	XTX_SINK_STAT_MAX
};

/* The name of counter i (enum xtx_sink_stat) as xtx-sink's JSON keys it: "matched",
 * "udp_other_port", ..., "payload"; NULL outside the enum. */
static inline const char *xtx_sink_stat_name(__u32 i)
{
	static const char *const names[XTX_SINK_STAT_MAX] = {
		[XTX_SINK_MATCHED] = "matched",
		[XTX_SINK_UDP_OTHER_PORT] = "udp_other_port",
		[XTX_SINK_IPV4_OTHER] = "ipv4_other",
		[XTX_SINK_IPV6_OTHER] = "ipv6_other",
		[XTX_SINK_NON_IP] = "non_ip",
		[XTX_SINK_FRAGMENT] = "fragment",
		[XTX_SINK_TRUNCATED] = "truncated",
		[XTX_SINK_MALFORMED] = "malformed",
		[XTX_SINK_PAYLOAD] = "payload",
	};

	return i < XTX_SINK_STAT_MAX ? names[i] : 0;
}

/* Per-port sequence state, kept in one shared (not per-CPU) array under a spin lock:
 * the XDP program of one veth RX queue runs in that queue's NAPI poll, which may move
 * between CPUs whenever the sender does, so per-CPU state would split one flow.
 *
 * Window: bit i set <=> sequence number next_seq - 1 - i was received (i < 64).
 * Every payload packet increments exactly one of in_order, late, dup, old. */
struct xtx_sink_flow {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 next_seq;		/* highest sequence number seen + 1; 0 before the first */
	__u64 window;
	__u64 in_order;		/* seq >= next_seq: advanced the flow (possibly past a gap) */
	__u64 late;		/* seq < next_seq, within the window, first arrival (reordered) */
	__u64 dup;		/* seq < next_seq, within the window, seen before (duplicate) */
	__u64 old;		/* seq < next_seq - 64: reordered or duplicate, cannot tell */
	__u64 gaps;		/* packets that skipped ahead (seq > next_seq) */
	__u64 gap_seqs;		/* sequence numbers skipped over by those packets */
};

/* One-way delay histogram: log2 buckets, each split into 16 linear sub-buckets, so a
 * bucket is at most 1/16 (6.25%) of its lower bound wide; values below 16 ns are exact. */
#define XTX_SINK_HIST_SUB_BITS	4
#define XTX_SINK_HIST_SUB	(1u << XTX_SINK_HIST_SUB_BITS)
#define XTX_SINK_HIST_BUCKETS	((64 - XTX_SINK_HIST_SUB_BITS + 1) * XTX_SINK_HIST_SUB)

#define XTX_SINK_DELAY_GROUPS	8

struct xtx_sink_delay {
	__u64 samples;		/* payload packets with tstamp_ns != 0 and not in the future */
	__u64 negative;		/* tstamp_ns later than the receive time: not in hist */
	__u64 sum_ns;
	__u64 min_ns;		/* valid if samples != 0 */
	__u64 max_ns;
	__u64 hist[XTX_SINK_HIST_BUCKETS];
};

/* When matched frames arrived (bpf_ktime_get_ns(), CLOCK_MONOTONIC): the first and the
 * last on one CPU. Every matched frame counted in stats and port_stats arrived within
 * [first_ns, last_ns] of the CPUs' union, so a rate over that span holds exactly the frames
 * it counts, whenever the counting started. */
struct xtx_sink_span {
	__u64 first_ns;		/* 0: no matched frame on this CPU */
	__u64 last_ns;
};

/* Combine the ncpu per-CPU values v[0..ncpu) of the span map into *sum (zeroed first):
 * the earliest first and the latest last over the CPUs that saw a frame. */
static inline void xtx_sink_span_add(struct xtx_sink_span *sum,
				     const struct xtx_sink_span *v, int ncpu)
{
	for (int c = 0; c < ncpu; c++) {
		if (!v[c].first_ns)
			continue;
		if (!sum->first_ns || v[c].first_ns < sum->first_ns)
			sum->first_ns = v[c].first_ns;
		if (v[c].last_ns > sum->last_ns)
			sum->last_ns = v[c].last_ns;
	}
}

/* Add the ncpu per-CPU values v[0..ncpu) of the delay map to *sum (zeroed for the first
 * CPU): counts, sums and buckets add up, min and max over the CPUs with samples. */
static inline void xtx_sink_delay_add(struct xtx_sink_delay *sum,
				      const struct xtx_sink_delay *v, int ncpu)
{
	for (int c = 0; c < ncpu; c++) {
		if (v[c].samples && (!sum->samples || v[c].min_ns < sum->min_ns))
			sum->min_ns = v[c].min_ns;
		if (v[c].max_ns > sum->max_ns)
			sum->max_ns = v[c].max_ns;
		sum->samples += v[c].samples;
		sum->negative += v[c].negative;
		sum->sum_ns += v[c].sum_ns;
		for (unsigned b = 0; b < XTX_SINK_HIST_BUCKETS; b++)
			sum->hist[b] += v[c].hist[b];
	}
}

/* Index of the highest set bit of v; v != 0. Branches only, no loop (BPF verifier). */
static inline __u32 xtx_sink_fls64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8)  { v >>= 8;  r += 8; }
	if (v >> 4)  { v >>= 4;  r += 4; }
	if (v >> 2)  { v >>= 2;  r += 2; }
	if (v >> 1)  { r += 1; }
	return r;
}

/* Bucket of a delay of v ns: v itself below 16; else (msb - 3) * 16 + the 4 bits below
 * the most significant one. Always < XTX_SINK_HIST_BUCKETS. */
static inline __u32 xtx_sink_hist_bucket(__u64 v)
{
	__u32 msb;

	if (v < XTX_SINK_HIST_SUB)
		return (__u32)v;
	msb = xtx_sink_fls64(v);
	return (msb - XTX_SINK_HIST_SUB_BITS + 1) * XTX_SINK_HIST_SUB +
	       (__u32)((v >> (msb - XTX_SINK_HIST_SUB_BITS)) & (XTX_SINK_HIST_SUB - 1));
}

/* Smallest value of bucket b; the bucket holds [low(b), low(b + 1)). */
static inline __u64 xtx_sink_hist_low(__u32 b)
{
	__u32 msb;

	if (b < XTX_SINK_HIST_SUB)
		return b;
	msb = b / XTX_SINK_HIST_SUB + XTX_SINK_HIST_SUB_BITS - 1;
	return (__u64)(XTX_SINK_HIST_SUB + b % XTX_SINK_HIST_SUB) <<
	       (msb - XTX_SINK_HIST_SUB_BITS);
}

#endif /* XTX_SINK_H */
