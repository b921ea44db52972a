/* SPDX-License-Identifier: BSD-3-Clause */
/* engine_int.h - the engine's private structures (internal to libxtx). */
#ifndef XTX_ENGINE_INT_H
#define XTX_ENGINE_INT_H

#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <xdp/xsk.h>

#include <xtx/mpsc.h>
#include <xtx/sched.h>
#include <xtx/xtx.h>
#include "clock.h"
#include "err.h"
#include "pool.h"
#include "print.h"
#include "registry.h"
#include "room.h"
#include "thread.h"
#include "txring.h"

#define XTX_MAX_QUEUES		64
#define XTX_DEQ_BATCH		64	/* bound of every dequeuer step (stage, TX, completions) */
#define XTX_HEADROOM		64	/* bytes before each packet; the EDT lives at -8 */
#define XTX_PROD_CACHE		(2 * XTX_BATCH)
#define XTX_IDLE_POLL_NS	50000	/* dequeuer polls this long before sleeping */
#define XTX_RX_BATCH		64	/* bound of every receive worker step */
#define XTX_BUSY_POLL_US	20	/* SO_BUSY_POLL of the sockets with busy_poll: how long a
					 * sendto()/poll() polls NAPI (the kernel's xdpsock
					 * sample's value) */
#define XTX_RX_CACHE		(4 * XTX_BATCH)	/* free frames a receive worker keeps */
/* owner[] of a frame on the fill or RX ring of ingress queue i: XTX_OWNER_RXQ + i. Far
 * above producer ids + 1 (at most XTX_MPSC_MAX_LANES). */
#define XTX_OWNER_RXQ		0xf000u

/* Counters written by one thread, read by any: relaxed load + store, no RMW. */
#define CTR_ADD(c, v) atomic_store_explicit(&(c), \
	atomic_load_explicit(&(c), memory_order_relaxed) + (v), memory_order_relaxed)
#define CTR_GET(c) atomic_load_explicit(&(c), memory_order_relaxed)

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

struct xtx_queue_ctr {
	_Atomic uint64_t stage_pkts, sent_pkts, sent_bytes, completed;
	_Atomic uint64_t drops[XTX_DROP__MAX];
	_Atomic uint64_t tx_ring_full, kicks, kick_errors, sleeps, loops;
	_Atomic uint64_t held;		/* frames in the dequeuer's hands (partial batch) */
};

struct xtx_queue {
	struct xtx_engine *e;
	unsigned idx;			/* 0..queues-1 */
	uint32_t qid;			/* NIC queue id */
	int cpu;			/* -1: not pinned */
	struct xsk_socket *xsk;
	struct xtx_txring ring;		/* the TX and completion rings (txring.h) */
	struct xsk_ring_prod fill;	/* required by the kernel; TX-only leaves it empty */
	struct xtx_mpsc *stage;
	struct xtx_sched *sched;
	pthread_t thread;
	int thread_started;

	/* Dequeuer-private. */
	uint32_t nrecycle;
	uint64_t recycle[XTX_BATCH];	/* completed or dropped frames, one partial batch */

	struct xtx_queue_ctr ctr __attribute__((aligned(64)));

	/* Class counters as last published by the dequeuer: a seqcount (odd while writing)
	 * and the struct as words, each copied with relaxed atomics so readers never race. */
	_Atomic uint32_t snap_seq __attribute__((aligned(64)));
	_Atomic uint64_t *snap;		/* ncls * SNAP_WORDS */
	uint64_t snap_last_ns;
};

#define SNAP_WORDS ((sizeof(struct xtx_class_stats) + 7) / 8)

/* Written by the queue's receive worker only (CTR_ADD); read by anyone. */
struct xtx_rxq_ctr {
	_Atomic uint64_t rx_pkts, rx_bytes, fwd_pkts, fwd_bytes;
	_Atomic uint64_t drops[XTX_RX_DROP__MAX];
	_Atomic uint64_t no_meta, copied, wakeups, sleeps, loops;
	_Atomic uint64_t filled;	/* frames put on the fill ring (shared path) */
	_Atomic uint64_t held;		/* engine frames in the worker's cache (gauge) */
	_Atomic uint64_t reclaimed;	/* written by stop() after the worker exited */
};

/* One ingress queue: its RX socket and receive worker (receiver.c). */
struct xtx_rxq {
	struct xtx_engine *e;
	unsigned idx;			/* 0..nrq-1 */
	uint32_t qid;			/* NIC queue id: the XSKMAP key */
	int cpu;			/* -1: not pinned */
	struct xsk_socket *xsk;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;	/* required by the kernel for a socket of its own
					 * (device, queue); never used: no TX ring */
	int fd;
	int evfd;			/* stop() wakes a sleeping worker through it */
	struct xtx_mpsc_prod *lane[XTX_MAX_QUEUES];	/* a lane on every egress stage */
	pthread_t thread;
	int thread_started;

	/* Worker-private (and open()'s before the thread starts, stop()'s after it ended). */
	uint32_t ncache;
	uint64_t cache[XTX_RX_CACHE];	/* free engine frames, base + XTX_HEADROOM */
	uint64_t rx_base;		/* copy path: first byte of this queue's RX frames */

	struct xtx_rxq_ctr ctr __attribute__((aligned(64)));

	/* The kernel's counters, last read (under e->rx_lock). */
	struct xtx_rx_stats kst;
};

struct xtx_opener;

struct xtx_producer {
	struct xtx_engine *e;
	unsigned id;
	struct xtx_mpsc_prod *lane[XTX_MAX_QUEUES];
	uint32_t ncache;
	uint64_t cache[XTX_PROD_CACHE];
	_Atomic uint64_t got, sent, sent_bytes, put, short_sends, bad_desc, no_frames;
	_Atomic uint32_t cached_pub;	/* ncache, for xtx_engine__frames() and the reaper */
	pid_t tid;			/* the thread that opened it: dead when it is gone */
	struct xtx_opener *opener;	/* that thread's record: told of its exit (producer.c);
					 * NULL: no key, tid alone tells */
};

/* Adds p's counters to st (reaped and reclaimed are the engine's: untouched). */
static inline void xtx_producer_stats_add(struct xtx_producer_stats *st,
					  const struct xtx_producer *p)
{
	st->got += CTR_GET(p->got);
	st->sent += CTR_GET(p->sent);
	st->sent_bytes += CTR_GET(p->sent_bytes);
	st->short_sends += CTR_GET(p->short_sends);
	st->bad_desc += CTR_GET(p->bad_desc);
	st->no_frames += CTR_GET(p->no_frames);
}

struct xtx_engine {
	/* Read-mostly. */
	struct xtx_engine_opts o;
	struct xtx_log log;		/* o.quiet */
	char ifname[IF_NAMESIZE];
	int ifindex;
	int numa_node;			/* ifname's node: UMEM, stage lanes, dequeuer CPUs; -1 none */
	unsigned nq;
	struct xtx_frames fr;		/* the UMEM's frames and their owners */
	size_t area_len;		/* of fr.area, rounded up to its pages */
	int area_huge;
	unsigned intake;		/* stage batches per dequeuer step (opts.intake_batches) */
	struct xsk_umem *umem;
	int zerocopy;
	struct xtx_sched_config *own_cfg;	/* when opts.classes was NULL */
	const struct xtx_sched_config *cfg;
	unsigned ncls;
	int default_cls;
	struct xtx_pool pool;


	struct xtx_queue q[XTX_MAX_QUEUES];

	/* Receive side (nrq == 0: none). */
	unsigned nrq;
	char rx_ifname[IF_NAMESIZE];
	int rx_ifindex;
	int rx_copy;			/* own UMEM, one copy per frame */
	uint32_t fill_size, rx_size;
	void *rx_area;			/* copy path: the RX UMEM */
	size_t rx_area_len;
	struct xsk_umem *rx_umem;
	_Atomic int rx_stop;		/* receive workers: finish and exit */
	int rx_stopped;
	pthread_mutex_t rx_lock;	/* socket close vs XDP_STATISTICS reads */
	struct xtx_rxq rq[XTX_MAX_QUEUES];

	/* Producers waiting for frames or stage room (room.h). */
	struct xtx_room room;

	_Atomic int stop;		/* dequeuers: finish (drain or drop) and exit */
	_Atomic int drop;		/* dequeuers: drop what is queued */
	uint64_t stop_deadline_ns;
	int stopped;			/* xtx_engine__stop() done (caller's thread only) */

	struct xtx_registry reg;	/* the producers (registry.h) */
};

/* xsk.c */
int xtx_umem_setup(struct xtx_engine *e, char *err, size_t errlen);
int xtx_queue_socket(struct xtx_engine *e, struct xtx_queue *q, char *err, size_t errlen);
void xtx_queue_socket_close(struct xtx_queue *q);
void xtx_umem_teardown(struct xtx_engine *e);
int xtx_rx_sockets(struct xtx_engine *e, char *err, size_t errlen);
void xtx_rx_sockets_close(struct xtx_engine *e);
void xtx_rx_read_kstats(struct xtx_rxq *r);

/* receiver.c */
int xtx_rx_open(struct xtx_engine *e, const int *cpus, int ncpus, char *err, size_t errlen);
int xtx_rx_start(struct xtx_engine *e, char *err, size_t errlen);
void xtx_rx_stop(struct xtx_engine *e);
void xtx_rx_free(struct xtx_engine *e);
void *xtx_receiver_main(void *arg);

/* dequeuer.c */
void *xtx_dequeuer_main(void *arg);
void xtx_queue_publish_classes(struct xtx_queue *q, uint64_t now);

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

#endif /* XTX_ENGINE_INT_H */
