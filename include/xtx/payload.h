/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/payload.h - the test payload that xtx-send and the baseline senders put right after
 * the UDP header, and that xtx-sink (XDP) reads. Shared by userspace and BPF: only fixed-
 * width types, no libc.
 *
 * All fields little-endian (host order on x86/arm64; the sink runs on the same host in
 * the testbed). Senders write it in whole fields, as much as the UDP payload holds
 * (include/xtx/pkt.h, "Sizes"): 24 bytes give all four; 16..23 bytes give magic, flow and
 * seq (the sink checks order, records no delay: 60- and 64-byte IPv4 frames); less gives
 * nothing (the sink counts the packet only).
 */
#ifndef XTX_PAYLOAD_H
#define XTX_PAYLOAD_H

#include <linux/types.h>

#define XTX_PAYLOAD_MAGIC	0x78747831u	/* "xtx1" */
#define XTX_PAYLOAD_SEQ_LEN	16		/* magic, flow, seq */

struct xtx_payload {
	__u32 magic;		/* XTX_PAYLOAD_MAGIC */
	__u32 flow;		/* sender's flow index (dst port - base port) */
	__u64 seq;		/* per-flow sequence number, from 0, +1 per packet */
	__u64 tstamp_ns;	/* CLOCK_MONOTONIC when the sender wrote the packet, 0 = none */
};

#endif /* XTX_PAYLOAD_H */
