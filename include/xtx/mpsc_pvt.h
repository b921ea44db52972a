/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/mpsc_pvt.h - layout behind the inline fast path of xtx/mpsc.h.
 *
 * DO NOT INCLUDE DIRECTLY: include <xtx/mpsc.h>. Names starting with '_' or '__' are
 * internal and may change with any release.
 */
#ifndef XTX_MPSC_PVT_H
#define XTX_MPSC_PVT_H

#ifndef XTX_MPSC_H
#error "include <xtx/mpsc.h>, not <xtx/mpsc_pvt.h>"
#endif

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <xtx/desc.h>

#define _XTX_CACHE_LINE 64
#define _xtx_aligned __attribute__((aligned(_XTX_CACHE_LINE)))

/* Lane states. FREE -> OWNED by xtx_mpsc__register (producer), OWNED -> CLOSING by
 * xtx_mpsc__unregister (producer), CLOSING -> FREE by the consumer once it has taken
 * every item the lane ever published. */
enum {
	_XTX_LANE_FREE = 0,
	_XTX_LANE_OWNED = 1,
	_XTX_LANE_CLOSING = 2,
};

/* One producer's lane: a single-producer/single-consumer ring plus the doorbell
 * handshake. Three cache lines, each with one writer in the common case. */
struct xtx_mpsc_prod {
	/* Line P: written only by the lane's producer. */
	struct _xtx_aligned {
		_Atomic uint32_t tail;		/* next slot to fill (free-running) */
		uint32_t cached_head;		/* producer's last view of c.head */
		uint32_t mask;			/* capacity - 1 (read-only after create) */
		uint16_t index;			/* lane number (read-only) */
		uint16_t sym;			/* 1: no membarrier, use seq_cst (read-only) */
		struct xtx_desc *slots;		/* capacity entries (read-only) */
		struct xtx_mpsc *stage;		/* owner (read-only) */
		_Atomic uint64_t enq_items;	/* items accepted; producer-written only */
		_Atomic uint64_t full_events;	/* enqueue calls cut short by a full lane */
	} p;
	/* Line C: written only by the consumer. */
	struct _xtx_aligned {
		_Atomic uint32_t head;		/* next slot to take (free-running) */
		uint32_t cached_tail;		/* consumer's last view of p.tail */
		uint32_t idle_visits;		/* consecutive empty visits while active */
		_Atomic uint64_t deq_items;	/* items taken; consumer-written only */
	} c;
	/* Line H: the handshake. Written by the consumer when it retires the lane and by a
	 * producer when it wins the doorbell for it: both rare. */
	struct _xtx_aligned {
		_Atomic uint32_t armed;		/* 1: consumer is not watching, ring the doorbell */
		_Atomic uint32_t state;		/* _XTX_LANE_* */
	} h;
};

/* Cold path called by the inline enqueue when the lane is armed. */
void __xtx_mpsc_prod_ring(struct xtx_mpsc_prod *p);

/* Test-only fault point between writing the slots and publishing them. Normal builds
 * compile it out; test builds (-DXTX_FAULT_INJECT) call a hook the test harness defines. */
#ifdef XTX_FAULT_INJECT
void xtx_fault__mpsc_enqueue(struct xtx_mpsc_prod *p);
#define _XTX_FAULT_MPSC_ENQUEUE(p) xtx_fault__mpsc_enqueue(p)
#else
#define _XTX_FAULT_MPSC_ENQUEUE(p) do { } while (0)
#endif

#endif /* XTX_MPSC_PVT_H */
