/* SPDX-License-Identifier: BSD-3-Clause */
/* nulldev.h - the built-in null device: the kernel's and the NIC's side of one queue's
 * AF_XDP TX and completion rings, played in user space (as DPDK's net_null).
 *
 * Rules:
 * - The rings are the libxdp structures the engine uses for a socket (struct
 *   xsk_ring_prod / xsk_ring_cons over a producer word, a consumer word, a flags word and
 *   the descriptors), so the engine's ring code runs unchanged.
 * - The device never asks for a wake-up (flags 0): its owner calls xtx_nulldev_run() once
 *   per step, from the thread that owns the TX ring, in place of sendto(). One thread
 *   plays both sides, so the ring words need no more ordering than libxdp gives them.
 * - rate 0 (`null`): every descriptor submitted is completed at the next run.
 * - rate R (`null:RATE`): the device moves descriptors from the TX ring into a
 *   "hardware" ring as deep as the TX ring, when it has room, and gives each the time the emulated wire
 *   finishes sending it: max(wire free, time it was seen) + (max(len, 60) + 24) bytes at
 *   R (preamble 8, inter-frame gap 12, FCS 4; the minimum frame is 60 bytes without FCS).
 *   Completions come back in batches of XTX_NULL_COMP_BATCH, or fewer when the wire has
 *   gone idle, as a NIC's interrupt moderation would return them.
 * - Times are picoseconds inside. Each frame's time on the wire is computed once, when the
 *   device takes it, without a division: its exact time plus the remainder the frames
 *   before it left, rounded down, the new remainder carried. So any run of frames adds up
 *   to its exact time rounded down to a picosecond, and the wire's clock drifts by none.
 */
#ifndef XTX_NULLDEV_H
#define XTX_NULLDEV_H

#include <stdint.h>
#include <xdp/xsk.h>
#include <xtx/xtx.h>

#define XTX_NULL_COMP_BATCH	32
#define XTX_NULL_WIRE_OVERHEAD	24	/* preamble + SFD, inter-frame gap, FCS */
#define XTX_NULL_MIN_FRAME	60	/* bytes without FCS */

struct xtx_nulldev;

/* A device for a TX ring of tx_size and a completion ring of comp_size entries (powers
 * of two >= 64); rate in bits/s, 0: no wire. Sets up *tx and *comp as
 * xsk_socket__create() and xsk_umem__create() would. 0 or -errno. */
int xtx_nulldev_open(struct xtx_nulldev **out, uint32_t tx_size, uint32_t comp_size,
		     uint64_t rate_bps, struct xsk_ring_prod *tx, struct xsk_ring_cons *comp);
void xtx_nulldev_close(struct xtx_nulldev *d);

/* The device's side at time now (CLOCK_MONOTONIC ns): take what was submitted, complete
 * what the wire has sent. Returns how many descriptors it completed. */
unsigned xtx_nulldev_run(struct xtx_nulldev *d, uint64_t now_ns);

/* Frames taken from the TX ring and not completed yet. */
uint32_t xtx_nulldev_inflight(const struct xtx_nulldev *d);

/* Any thread: the time the wire spent sending the frames completed so far, in ps (the
 * figure struct xtx_null_stats gives in ns). */
uint64_t xtx_nulldev_busy_ps(const struct xtx_nulldev *d);

/* Any thread: relaxed copies of the device's counters. */
void xtx_nulldev_stats(const struct xtx_nulldev *d, struct xtx_null_stats *st);

/* "null" -> 0 (rate 0), "null:RATE" (tc's units, xtx_rate__parse()) -> 0 with the rate
 * in bits/s; 1: not a null device's name; -EINVAL: "null:" and no rate, a rate that does
 * not parse, or 0. */
int xtx_nulldev_parse(const char *ifname, uint64_t *rate_bps);

#endif /* XTX_NULLDEV_H */
