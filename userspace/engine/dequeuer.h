/* SPDX-License-Identifier: BSD-3-Clause */
/* dequeuer.h - what one TX queue's dequeuer thread works with (internal to libxtx).
 * engine.c fills a struct xtx_dequeuer at open, before the thread starts; the thread
 * reads nothing else of the engine. Counters and the class snapshot are read by any
 * thread (engine.c's counter calls). */
#ifndef XTX_DEQUEUER_H
#define XTX_DEQUEUER_H

#include <stdatomic.h>
#include <stdint.h>

#include <xtx/roomword.h>
#include <xtx/mpsc.h>
#include <xtx/sched.h>
#include "defs.h"
#include "dql.h"
#include "pool.h"
#include "print.h"
#include "registry.h"
#include "room.h"
#include "stat.h"
#include "txring.h"

/* The engine's word to its dequeuers, one for all of them. */
struct xtx_deq_ctl {
	_Atomic int stop;		/* finish (drain or drop) and exit */
	_Atomic int drop;		/* drop what is queued */
	uint64_t deadline_ns;		/* drain until then; published by the store of stop */
};

/* Written by the dequeuer only (stat.h); read by anyone. */
struct xtx_queue_ctr {
	_Atomic uint64_t stage_pkts, sent_pkts, sent_bytes, completed;
	_Atomic uint64_t drops[XTX_DROP__MAX];
	_Atomic uint64_t tx_ring_full, kicks, kick_errors, sleeps, loops;
	_Atomic uint64_t ring_limit, ring_limited;	/* the dql's, as of the last step */
	_Atomic uint64_t held;		/* frames in the dequeuer's hands (partial batch) */
	_Atomic uint64_t cpu_ns;	/* the thread's CPU clock, at each class publication */
};

struct xtx_dequeuer {
	/* Set at open; read-only while the thread runs. */
	struct xtx_mpsc *stage;
	struct xtx_sched *sched;
	struct xtx_pool *pool;		/* completed and dropped frames go back here */
	struct xtx_room *room;		/* woken after making room */
	struct xtx_registry *reaper;	/* queue 0's (unless opts.no_reap): reaps dead
					 * producers; NULL for the others */
	struct xtx_deq_ctl *ctl;
	const struct xtx_log *log;
	struct xtx_frames fr;		/* a copy: the UMEM and its frame size */
	uint32_t qid;			/* NIC queue id (the thread's name) */
	unsigned intake;		/* stage batches per step (opts.intake_batches) */
	uint32_t wake_descs;		/* stage space that wakes producers: half a lane */
	uint32_t since_wake;		/* descriptors taken from the stage since that wake */
	unsigned ncls;			/* classes in the snapshot */
	int nice, rtprio;		/* opts.deq_nice, opts.deq_rtprio */

	/* The thread's. */
	struct xtx_txring ring;
	struct xtx_dql dql;		/* how much of the ring it fills (dql.h) */
	uint32_t nrecycle;
	uint64_t recycle[XTX_BATCH];	/* completed or dropped frames, one partial batch */

	struct xtx_queue_ctr ctr __attribute__((aligned(64)));

	/* Class counters as last published by the dequeuer: a seqcount (odd while writing)
	 * and the struct as words, each copied with relaxed atomics so readers never race. */
	_Atomic uint32_t snap_seq __attribute__((aligned(64)));
	_Atomic uint64_t *snap;		/* ncls * SNAP_WORDS */
	uint64_t snap_last_ns;

	/* Room per class on this queue (xtx/sched.h "Room"), XTX_ROOM_WORD(): written by
	 * the dequeuer when its scheduler reports a change, read by producers
	 * (xtx_producer__room()). */
	_Atomic uint64_t *cls_room;

	/* xtx_engine__room_mirror(): a copy of cls_room at mirror[idx * ncls]; NULL until
	 * set. `mirror` is the engine's (set once, release), `mirror_seen` the thread's
	 * copy, written in full the first time it sees it. */
	_Atomic(_Atomic uint64_t *) mirror;
	_Atomic uint64_t *mirror_seen;
	unsigned idx;			/* this queue's index among the engine's */

	/* A live change (xtx_engine__classes_change()): the new tree, set by the engine
	 * and cleared by the thread once its scheduler runs it; change_rc its result,
	 * published by that clear. */
	_Atomic(const struct xtx_sched_config *) change;
	int change_rc;
};

/* The room word's layout: xtx/roomword.h. */

/* Publish every room change of q's scheduler into q's words (the dequeuer; engine.c
 * before the thread starts). Returns 1 if a class got room or an event. */
int xtx_room_publish(struct xtx_dequeuer *q);

#define SNAP_WORDS ((sizeof(struct xtx_class_stats) + 7) / 8)

/* The thread: arg is its struct xtx_dequeuer. */
void *xtx_dequeuer_main(void *arg);

#endif /* XTX_DEQUEUER_H */
