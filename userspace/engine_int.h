/* SPDX-License-Identifier: BSD-3-Clause */
/* engine_int.h - the engine's private structures (internal to libxtx). */
#ifndef XTX_ENGINE_INT_H
#define XTX_ENGINE_INT_H

#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <xdp/xsk.h>

#include <xtx/mpsc.h>
#include <xtx/sched.h>
#include <xtx/xtx.h>
#include "pool.h"

#define XTX_MAX_QUEUES		64
#define XTX_DEQ_BATCH		64	/* bound of every dequeuer step (stage, TX, completions) */
#define XTX_HEADROOM		64	/* bytes before each packet; the EDT lives at -8 */
#define XTX_PROD_CACHE		(2 * XTX_BATCH)
#define XTX_IDLE_POLL_NS	50000	/* dequeuer polls this long before sleeping */

/* Counters written by one thread, read by any: relaxed load + store, no RMW. */
#define CTR_ADD(c, v) atomic_store_explicit(&(c), \
	atomic_load_explicit(&(c), memory_order_relaxed) + (v), memory_order_relaxed)
#define CTR_GET(c) atomic_load_explicit(&(c), memory_order_relaxed)

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
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	struct xsk_ring_prod fill;	/* required by the kernel; TX-only leaves it empty */
	int fd;
	struct xtx_mpsc *stage;
	struct xtx_sched *sched;
	pthread_t thread;
	int thread_started;

	/* Dequeuer-private. */
	uint64_t outstanding;		/* written to the TX ring, not completed yet */
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

struct xtx_producer {
	struct xtx_engine *e;
	unsigned id;
	struct xtx_mpsc_prod *lane[XTX_MAX_QUEUES];
	uint32_t ncache;
	uint64_t cache[XTX_PROD_CACHE];
	_Atomic uint64_t got, sent, put, short_sends, bad_desc, no_frames;
	_Atomic uint32_t cached_pub;	/* ncache, for xtx_engine__frames() */
};

struct xtx_engine {
	/* Read-mostly. */
	struct xtx_engine_opts o;
	char ifname[IF_NAMESIZE];
	int ifindex;
	unsigned nq;
	void *area;			/* the UMEM */
	size_t area_len;
	int area_huge;
	uint32_t frame_size, frame_shift, nframes;
	uint32_t wake_frames;		/* producers wake when the pool holds this many */
	struct xsk_umem *umem;
	int zerocopy;
	struct xtx_sched_config *own_cfg;	/* when opts.classes was NULL */
	const struct xtx_sched_config *cfg;
	unsigned ncls;
	int default_cls;
	struct xtx_pool pool;
	/* Frame ownership: producer id + 1 while a producer's application holds the frame,
	 * 0 otherwise. Written only by the owning producer (and by nobody else while it is
	 * nonzero), read by that producer to validate descriptors. */
	_Atomic uint16_t *owner;

	struct xtx_queue q[XTX_MAX_QUEUES];

	/* Producers waiting for frames or stage room (xtx_producer__wait): a futex word the
	 * dequeuers bump after making room, and the number of waiters, so that dequeuers
	 * skip the wake when nobody waits. See xtx_producer__wait() for the pairing. */
	struct {
		_Atomic uint32_t seq;
		_Atomic uint32_t waiters;
	} room __attribute__((aligned(64)));

	_Atomic int stop;		/* dequeuers: finish (drain or drop) and exit */
	_Atomic int drop;		/* dequeuers: drop what is queued */
	uint64_t stop_deadline_ns;
	int stopped;			/* xtx_engine__stop() done (caller's thread only) */

	pthread_mutex_t prod_lock;	/* open/close of producers only (slow path) */
	struct xtx_producer *prods[XTX_MPSC_MAX_LANES];
	struct xtx_producer_stats closed;	/* totals of closed producers (under lock) */
	_Atomic uint64_t closed_app;		/* frames closed producers left "in app" */
};

/* xsk.c */
int xtx_umem_setup(struct xtx_engine *e, char *err, size_t errlen);
int xtx_queue_socket(struct xtx_engine *e, struct xtx_queue *q, char *err, size_t errlen);
void xtx_queue_socket_close(struct xtx_queue *q);
void xtx_umem_teardown(struct xtx_engine *e);

/* engine.c: wake producers blocked in xtx_producer__wait() (dequeuers, after making room). */
void xtx_room_wake(struct xtx_engine *e, int force);

/* dequeuer.c */
void *xtx_dequeuer_main(void *arg);
void xtx_queue_publish_classes(struct xtx_queue *q, uint64_t now);

/* engine.c */
uint64_t xtx_now_ns(void);
void xtx_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void xtx_info(const struct xtx_engine *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void *xtx_frame_ptr(const struct xtx_engine *e, uint64_t addr)
{
	return (char *)e->area + (addr & XTX_DESC_ADDR_MASK);
}

#endif /* XTX_ENGINE_INT_H */
