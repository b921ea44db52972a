/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/desc.h - the packet descriptor that moves through the stage and the scheduler.
 *
 * 16 bytes: four descriptors per cache line. It names a frame in the engine's UMEM; the
 * bytes themselves never move between producer, stage, scheduler and TX ring.
 */
#ifndef XTX_DESC_H
#define XTX_DESC_H

#include <stdint.h>

/* Descriptor address bits: UMEM offsets use the low 48 bits; bit 63 says that the 8 bytes
 * before the frame (in its headroom) hold an earliest departure time (CLOCK_MONOTONIC ns).
 * Use xtx_producer__set_txtime() rather than setting it by hand. Bit 62 says that the
 * XTX_TXMD_LEN bytes before the frame hold an AF_XDP TX metadata request for the device
 * (xtx/xtx.h, xtx_desc__set_txmd()); its last 8 bytes are the departure time's. */
#define XTX_DESC_ADDR_MASK	((1ull << 48) - 1)
#define XTX_DESC_F_TXTIME	(1ull << 63)
#define XTX_DESC_F_TXMD		(1ull << 62)
/* Bit 61: a multi-buffer frame (xtx/xtx.h, xtx_desc__set_chain()): len is the whole
 * frame's; it continues in further UMEM frames whose addresses the first 40 bytes of its
 * headroom hold. */
#define XTX_DESC_F_MB		(1ull << 61)

struct xtx_desc {
	uint64_t addr;	/* UMEM offset of the packet's first byte, and flags (above) */
	uint32_t hash;	/* flow hash: packets with equal hash are one flow, kept in order */
	uint16_t len;	/* frame length in bytes, without FCS */
	uint16_t cls;	/* class index (xtx_sched__class_index()); invalid -> default class */
};

_Static_assert(sizeof(struct xtx_desc) == 16, "xtx_desc must stay 16 bytes");

#endif /* XTX_DESC_H */
