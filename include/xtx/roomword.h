/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/roomword.h - the word in which a dequeuer publishes one class's room on its queue
 * (xtx/sched.h "Room"): read by the engine's producers (xtx_producer__room()) and, through
 * xtx_engine__room_mirror(), by xtx-shape's XDP program. Fixed-width types only, no libc
 * in the decoders: compiled both by clang -target bpf and by gcc.
 *
 * Bit 63 full, bits 48-62 the class's room events (gen, mod 2^15), bits 24-47 what a flow
 * and bits 0-23 what all producers together may add per event, in units of 64 wire bytes
 * (XTX_ROOM_UNITS(): at most 2^24 - 2 units, 1 GiB; 2^24 - 1: no limit).
 */
#ifndef XTX_ROOMWORD_H
#define XTX_ROOMWORD_H

#define XTX_ROOM_UNIT_MAX	0xffffffu
#define XTX_ROOM_UNIT		64u	/* bytes per unit */
#define XTX_ROOM_UNITS(bytes) \
	((bytes) == UINT32_MAX ? XTX_ROOM_UNIT_MAX : \
	 (bytes) / 64 < XTX_ROOM_UNIT_MAX ? (bytes) / 64 : XTX_ROOM_UNIT_MAX - 1)
#define XTX_ROOM_WORD(full, gen, flow_quota, quota) \
	((uint64_t)!!(full) << 63 | (uint64_t)((gen) & 0x7fffu) << 48 | \
	 (uint64_t)XTX_ROOM_UNITS(flow_quota) << 24 | (uint64_t)XTX_ROOM_UNITS(quota))
#define XTX_ROOM_NOLIMIT	XTX_ROOM_WORD(0, 0, UINT32_MAX, UINT32_MAX)
#define XTX_ROOM_FULL(w)	((unsigned)((w) >> 63))
#define XTX_ROOM_GEN(w)		((unsigned)((w) >> 48) & 0x7fffu)
#define XTX_ROOM_FLOW_Q(w)	((unsigned)((w) >> 24) & XTX_ROOM_UNIT_MAX)	/* units */
#define XTX_ROOM_Q(w)		((unsigned)(w) & XTX_ROOM_UNIT_MAX)		/* units */

#endif /* XTX_ROOMWORD_H */
