/* SPDX-License-Identifier: BSD-3-Clause */
/* receiver.h - what one ingress queue's receive worker works with (internal to libxtx).
 * engine.c and xsk.c fill a struct xtx_receiver at open, before the thread starts; the
 * thread reads nothing else of the engine. The steps are in receiver.c.
 *
 * Frame ownership: a frame on the fill/RX ring of queue i has owner XTX_OWNER_RXQ + i,
 * written by the worker when it puts the frame on the fill ring and cleared when it reads
 * it back; so after stop() closed the socket (the kernel is then done with its frames) the
 * frames it still held are found and returned to the pool.
 *
 * Concurrency: a worker is the only user of its rings, cache, lanes and owner entries of
 * its frames; it shares only the pool (lock-free) and the stages (its own lanes) with
 * other threads. stop: the release store in xtx_rx_stop() pairs with the worker's acquire
 * load; the eventfd write then wakes it. Counters: one writer, read by any (stat.h).
 */
#ifndef XTX_RECEIVER_H
#define XTX_RECEIVER_H

#include <stdatomic.h>
#include <stdint.h>
#include <xdp/xsk.h>

#include <xtx/mpsc.h>
#include <xtx/xtx.h>
#include "defs.h"
#include "pool.h"
#include "room.h"
#include "stat.h"

/* Written by the queue's receive worker only (stat.h); read by anyone. */
struct xtx_rxq_ctr {
	_Atomic uint64_t rx_pkts, rx_bytes, fwd_pkts, fwd_bytes;
	_Atomic uint64_t drops[XTX_RX_DROP__MAX];
	_Atomic uint64_t no_meta, copied, wakeups, sleeps, loops;
	_Atomic uint64_t filled;	/* frames put on the fill ring (shared path) */
	_Atomic uint64_t held;		/* engine frames in the worker's cache (gauge) */
	_Atomic uint64_t reclaimed;	/* written by stop() after the worker exited */
};

struct xtx_receiver {
	/* Set at open; read-only while the thread runs. */
	struct xtx_pool *pool;		/* the engine's free frames */
	struct xtx_room *room;		/* woken after giving frames back */
	_Atomic int *stop;		/* the engine's: finish and exit */
	struct xtx_frames fr;		/* a copy: the engine's UMEM */
	unsigned idx;			/* 0..nrq-1: owner XTX_OWNER_RXQ + idx */
	uint32_t qid;			/* NIC queue id (the thread's name) */
	unsigned nq;			/* egress queues: one lane on each stage */
	uint32_t fill_size;		/* fill ring entries; copy path: RX frames of the queue */
	int copy;			/* the copy path: RX frames in rx_area, copied */
	void *rx_area;			/* copy path: the RX UMEM */
	int busy_poll;			/* spin instead of sleeping in poll() */
	int fd;				/* the RX socket */
	int evfd;			/* stop() wakes a sleeping worker through it */
	struct xtx_mpsc_prod *lane[XTX_MAX_QUEUES];	/* a lane on every egress stage */

	/* The thread's (and open()'s before it starts, stop()'s after it ended). */
	struct xsk_ring_cons rx;
	struct xsk_ring_prod fill;
	uint32_t ncache;
	uint64_t cache[XTX_RX_CACHE];	/* free engine frames, base + XTX_HEADROOM */
	uint64_t rx_base;		/* copy path: first byte of this queue's RX frames */

	struct xtx_rxq_ctr ctr __attribute__((aligned(64)));
};

/* The thread: arg is its struct xtx_receiver. */
void *xtx_receiver_main(void *arg);

#endif /* XTX_RECEIVER_H */
