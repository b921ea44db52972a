/* SPDX-License-Identifier: BSD-3-Clause */
/* defs.h - what the engine's units share (internal to libxtx): their bounds, the UMEM's
 * frames and owner table, and which queue a flow goes to. */
#ifndef XTX_DEFS_H
#define XTX_DEFS_H

#include <stdatomic.h>
#include <stdint.h>

#include <xtx/desc.h>
#include "pool.h"

#define XTX_MAX_QUEUES		64
#define XTX_DEQ_BATCH		64	/* bound of every dequeuer step (stage, TX, completions) */
#define XTX_HEADROOM		64	/* bytes before each packet; the EDT lives at -8 */
#define XTX_PROD_CACHE		(2 * XTX_BATCH)
#define XTX_IDLE_POLL_NS	50000	/* dequeuer polls this long before sleeping */
#define XTX_DEQ_BACKLOG		1024	/* a full stage moves into the scheduler up to this */
#define XTX_RX_BATCH		64	/* bound of every receive worker step */
#define XTX_BUSY_POLL_US	20	/* SO_BUSY_POLL of the sockets with busy_poll: how long a
					 * sendto()/poll() polls NAPI (the kernel's xdpsock
					 * sample's value) */
#define XTX_RX_CACHE		(4 * XTX_BATCH)	/* free frames a receive worker keeps */
/* owner[] of a frame on the fill or RX ring of ingress queue i: XTX_OWNER_RXQ + i. Far
 * above producer ids + 1 (at most XTX_MPSC_MAX_LANES). */
#define XTX_OWNER_RXQ		0xf000u

/* The UMEM's frames, as every thread sees them; set at open, read-only after. */
struct xtx_frames {
	void *area;			/* the UMEM: frame i at i << shift */
	uint32_t size, shift;		/* frame size (2048 or 4096) and its log2 */
	uint32_t count;			/* frames */
	/* Frame ownership: producer id + 1 while a producer's application holds the frame,
	 * XTX_OWNER_RXQ + i while ingress queue i's kernel rings do, 0 otherwise. Written
	 * only by the owner (and by nobody else while it is nonzero), read by that producer
	 * to validate descriptors, and by whoever takes a dead owner's frames back. */
	_Atomic uint16_t *owner;
};

static inline void *xtx_frame_ptr(const struct xtx_frames *f, uint64_t addr)
{
	return (char *)f->area + (addr & XTX_DESC_ADDR_MASK);
}

/* A frame's index from any address inside it (flags ignored). */
static inline uint32_t xtx_frame_index(const struct xtx_frames *f, uint64_t addr)
{
	return (uint32_t)((addr & XTX_DESC_ADDR_MASK) >> f->shift);
}

/* A frame's pool address (base + XTX_HEADROOM) from any address inside it: received
 * frames start elsewhere in their frame (the kernel's headroom). */
static inline uint64_t xtx_frame_norm(const struct xtx_frames *f, uint64_t addr)
{
	return ((addr & XTX_DESC_ADDR_MASK) & ~(uint64_t)(f->size - 1)) + XTX_HEADROOM;
}

/* Owner table entries (struct xtx_frames): relaxed. While a thread owns a frame it alone
 * writes the frame's entry; a thread that reads another's entries (the reaper, stop()) is
 * ordered after that owner's writes by other means (registry.c's (X), a join), and the
 * frames themselves change hands through the pool and the stages, which order them. */
static inline uint16_t xtx_owner_get(const struct xtx_frames *f, uint32_t idx)
{
	return atomic_load_explicit(&f->owner[idx], memory_order_relaxed);
}

static inline void xtx_owner_set(const struct xtx_frames *f, uint32_t idx, uint16_t who)
{
	atomic_store_explicit(&f->owner[idx], who, memory_order_relaxed);
}

/* The egress queue of a flow hash among nq. Multiply-shift: stable for a given hash and
 * queue count, no division. */
static inline unsigned xtx_queue_of(unsigned nq, uint32_t hash)
{
	return (unsigned)(((uint64_t)hash * nq) >> 32);
}

#endif /* XTX_DEFS_H */
