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
#include "defs.h"
#include "dequeuer.h"
#include "err.h"
#include "pool.h"
#include "print.h"
#include "receiver.h"
#include "registry.h"
#include "room.h"
#include "stat.h"
#include "thread.h"
#include "txring.h"
#include "xskraw.h"

struct xtx_pass;
struct xdp_program;

/* One TX queue: its socket and dequeuer thread (dequeuer.h). */
struct xtx_queue {
	unsigned idx;			/* 0..queues-1 */
	uint32_t qid;			/* NIC queue id */
	int cpu;			/* -1: not pinned */
	struct xtx_xsk *xsk;
	struct xsk_ring_prod fill;	/* required by the kernel; TX-only leaves it empty */
	pthread_t thread;
	int thread_started;
	struct xtx_dequeuer deq;	/* all the thread reads */
};

/* One ingress queue: its RX socket and receive worker (receiver.h). */
struct xtx_rxq {
	unsigned idx;			/* 0..nrq-1 */
	uint32_t qid;			/* NIC queue id: the XSKMAP key */
	int cpu;			/* -1: not pinned */
	struct xtx_xsk *xsk;
	struct xsk_ring_cons comp;	/* required by the kernel for a socket of its own
					 * (device, queue); never used: no TX ring */
	pthread_t thread;
	int thread_started;
	/* The kernel's counters, last read (under e->rx_lock). */
	struct xtx_rx_stats kst;
	struct xtx_receiver w;		/* all the worker reads */
};

struct xtx_opener;

/* What a producer added since a class's last room event on a queue: of the class
 * (indexed [queue * ncls + class]), and of one flow (a direct-mapped slot per (class,
 * flow hash); a flow that takes another's slot starts afresh). */
struct xtx_prod_room {
	uint32_t gen;			/* the event it counts from */
	uint32_t sent;			/* bytes since */
	uint32_t cap;			/* what it may add: its share, set at the event */
	uint32_t resv;			/* reserved (room_reserve()), not yet sent */
};
struct xtx_prod_flow_room {
	uint32_t hash;			/* the flow */
	uint32_t cls;			/* its class index; UINT32_MAX: slot unused */
	uint32_t gen;
	uint32_t sent;
	uint32_t cap;			/* the flow's quota, set at the event */
	uint32_t resv;			/* reserved, not yet sent */
};
#define XTX_ROOM_SLOTS	4096u		/* flow slots per producer, a power of two */

struct xtx_producer {
	struct xtx_engine *e;
	struct xtx_prod_room *rs;	/* [queue * ncls + class] (room_check()) */
	struct xtx_prod_flow_room *fs;	/* [XTX_ROOM_SLOTS] */
	int room_stop;			/* the last send_burst stopped at a class without
					 * room: stop_cls, stop_hash (xtx_producer__wait()) */
	uint16_t stop_cls;
	uint32_t stop_hash;
	unsigned id;
	struct xtx_mpsc_prod *lane[XTX_MAX_QUEUES];
	uint32_t ncache;
	uint64_t cache[XTX_PROD_CACHE];
	_Atomic uint64_t got, sent, sent_bytes, put, short_sends, bad_desc, no_frames;
	_Atomic uint64_t room_stops, room_waits;
	_Atomic uint64_t chain_sent;	/* further frames of multi-buffer packets sent */
	_Atomic uint32_t cached_pub;	/* ncache, for xtx_engine__frames() and the reaper */
	pid_t tid;			/* the thread that opened it: dead when it is gone */
	struct xtx_opener *opener;	/* that thread's record: told of its exit (registry.c);
					 * NULL: no key, tid alone tells */
};

/* producer.c: frees what open() allocated (the registry's retire too). */
void xtx_producer_free(struct xtx_producer *p);

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
	st->room_stops += CTR_GET(p->room_stops);
	st->room_waits += CTR_GET(p->room_waits);
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
	struct xtx_xumem *umem;
	int zerocopy;
	uint64_t txmd_flag;		/* XTX_DESC_F_TXMD with opts.tx_metadata, else 0:
					 * the flag a descriptor may carry */
	uint64_t mb_flag;		/* XTX_DESC_F_MB with opts.multi_buffer, else 0 */
	struct {			/* opts.zc_prog (zcprog.c) */
		struct xtx_pass *skel;
		struct xdp_program *prog;
		uint32_t id;
		int attached, dispatcher;
	} zc;
	int null;			/* the null device (nulldev.h): no interface, no sockets */
	uint64_t null_rate_bps;		/* null:RATE's wire; 0: completes at once */
	struct xtx_sched_config *own_cfg;	/* when opts.classes was NULL */
	const struct xtx_sched_config *cfg;	/* opts.classes or own_cfg; open only */
	struct xtx_sched_config *cur;	/* a copy of the running tree, under change_lock */
	pthread_mutex_t change_lock;	/* classes_change() and readers of cur */
	int changes_closed;		/* stop() began: no more changes (change_lock) */
	struct xtx_control *control;	/* the control socket (control.c); NULL: none */
	struct xtx_sched_shared *shared;	/* device-wide classes; NULL: one queue, or
						 * opts.queue_classes */
	unsigned nslots;		/* class slots (opts.max_classes): the size of every
					 * per-class array; class indexes are slots */
	uint32_t *slot_of;		/* cur's class i -> its slot (change_lock) */
	uint8_t *slot_state;		/* per slot: XTX_SLOT_* (change_lock) */
	_Atomic uint64_t *slot_owner;	/* per slot: 1 << 32 | handle of its class; 0 none */
	_Atomic uint32_t dflt_slot;	/* the default leaf's slot: where a slot no class has
					 * sends, so its room too (xtx_producer__room()) */
	_Atomic uint64_t *hidx;		/* handle -> slot, never emptied (slots.c) */
	uint32_t hidx_mask, hidx_n;	/* its size - 1, and keys in it */
	xtx_change_check_fn change_check;	/* xtx_engine__set_change_check() */
	void *change_ctx;
	int room_on;			/* some leaf has a room target: producers ask */
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
	struct xtx_xumem *rx_umem;
	_Atomic int rx_stop;		/* receive workers: finish and exit */
	int rx_stopped;
	pthread_mutex_t rx_lock;	/* socket close vs XDP_STATISTICS reads */
	struct xtx_rxq rq[XTX_MAX_QUEUES];

	/* Producers waiting for frames or stage room (room.h). */
	struct xtx_room room;

	struct xtx_deq_ctl ctl;		/* the dequeuers' stop, drop and deadline */
	int stopped;			/* xtx_engine__stop() done (caller's thread only) */

	struct xtx_registry reg;	/* the producers (registry.h) */
};

/* slots.c: class slots (the indexes descriptors carry), kept for a class while it is in
 * the tree. A slot is XTX_SLOT_NEW until a class takes it, then XTX_SLOT_USED, then
 * XTX_SLOT_FREED once its class is removed; a class added takes the lowest NEW slot,
 * else the lowest FREED one, so a removed class's index sends to the default class for
 * as long as the slots allow. */
enum { XTX_SLOT_NEW = 0, XTX_SLOT_USED = 1, XTX_SLOT_FREED = 2 };
/* At open: slot i for e->cfg's class i. 0, -ENOMEM, -EINVAL (message). */
int xtx_slots_open(struct xtx_engine *e, char *err, size_t errlen);
void xtx_slots_free(struct xtx_engine *e);
/* Slots for cfg's classes (staying ones keep theirs) into slots[class count]; *fresh:
 * some class is new. 0, or -EOPNOTSUPP with a message (no slot left). change_lock. */
int xtx_slots_plan(struct xtx_engine *e, const struct xtx_sched_config *cfg, uint32_t *slots,
		   char *err, size_t errlen);
/* cfg with slots runs now (change_lock): states, owners and the handle index follow;
 * slot_of becomes slots (taken). */
void xtx_slots_commit(struct xtx_engine *e, const struct xtx_sched_config *cfg,
		      uint32_t *slots);
/* The slot of a handle in the running tree, or -ENOENT; any thread. */
int xtx_slot_lookup(const struct xtx_engine *e, uint32_t handle);

/* change.c: xtx_engine__classes_change() with change_lock held by the caller. */
int xtx_classes_change_locked(struct xtx_engine *e, const struct xtx_sched_config *cfg,
			      char *err, size_t errlen);

/* xsk.c */
int xtx_umem_setup(struct xtx_engine *e, char *err, size_t errlen);
int xtx_queue_socket(struct xtx_engine *e, struct xtx_queue *q, char *err, size_t errlen);
void xtx_queue_socket_close(struct xtx_queue *q);
void xtx_umem_teardown(struct xtx_engine *e);
int xtx_rx_sockets(struct xtx_engine *e, char *err, size_t errlen);
void xtx_rx_sockets_close(struct xtx_engine *e);
void xtx_rx_read_kstats(struct xtx_rxq *r);
int xtx_queue_null(struct xtx_engine *e, struct xtx_queue *q, char *err, size_t errlen);

/* zcprog.c (opts.zc_prog): attach before the first TX socket binds, 0 or -errno with a
 * message (only zc_prog on fails open); settle once queue 0 chose its mode (auto: copy
 * mode removes it); detach after the last socket closed (a failure said, not returned). */
int xtx_zcprog_attach(struct xtx_engine *e, char *err, size_t errlen);
void xtx_zcprog_settle(struct xtx_engine *e);
void xtx_zcprog_detach(struct xtx_engine *e);

/* receiver.c */
int xtx_rx_open(struct xtx_engine *e, const int *cpus, int ncpus, char *err, size_t errlen);
int xtx_rx_start(struct xtx_engine *e, char *err, size_t errlen);
void xtx_rx_stop(struct xtx_engine *e);
void xtx_rx_free(struct xtx_engine *e);

#endif /* XTX_ENGINE_INT_H */
