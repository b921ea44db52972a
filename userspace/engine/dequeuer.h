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
	_Atomic uint64_t tx_descs;	/* descriptors written (sent_pkts without
					 * multi-buffer); completed counts these */
	_Atomic uint64_t chain_out;	/* further frames of multi-buffer packets that
					 * left the scheduler: written or dropped */
	_Atomic uint64_t drops[XTX_DROP__MAX];
	_Atomic uint64_t tx_ring_full, kicks, kick_errors, sleeps, loops;
	_Atomic uint64_t ring_limit, ring_limited;	/* the dql's, as of the last step */
	_Atomic uint64_t held;		/* frames in the dequeuer's hands (partial batch) */
	_Atomic uint64_t moved;		/* packets live changes moved to the default class */
	_Atomic uint64_t cpu_ns;	/* the thread's CPU clock, at each class publication */
};

/* A live change for one dequeuer (change.c fills it, the thread runs it). */
struct xtx_deq_change {
	const struct xtx_sched_config *cfg;	/* in place: xtx_sched__change() */
	struct xtx_sched *to;		/* else a new scheduler to adopt (xtx_sched__adopt()) */
	const uint32_t *gone;		/* the running tree's classes whose counters end */
	unsigned ngone;
	const uint32_t *freed;		/* slots no class has after it */
	unsigned nfreed;
	/* Written by the thread: */
	int rc;				/* 0, or the scheduler's error (nothing changed) */
	struct xtx_sched *old;		/* adopted from: the engine's to destroy */
	unsigned moved;			/* packets moved to the default class */
};

struct xtx_tstamp;

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
	unsigned nslots;		/* class slots: the snapshot's and cls_room's size */
	int nice, rtprio;		/* opts.deq_nice, opts.deq_rtprio */
	int launch;			/* opts.launch_time (txmd.h) */
	struct xtx_tstamp *ts;		/* opts.tx_timestamps (tstamp.h); NULL: off */

	/* The thread's. */
	struct xtx_txring ring;
	struct xtx_dql dql;		/* how much of the ring it fills (dql.h) */
	int64_t tai_off;		/* launch and ts: CLOCK_TAI - CLOCK_MONOTONIC, ns */
	uint64_t tai_read_ns;		/* when tai_off was read (0: never) */
	uint32_t nrecycle;
	uint64_t recycle[XTX_BATCH];	/* completed or dropped frames, one partial batch */

	struct xtx_queue_ctr ctr __attribute__((aligned(64)));

	/* Class counters as last published by the dequeuer: a seqcount (odd while writing)
	 * and the struct as words, each copied with relaxed atomics so readers never race. */
	_Atomic uint32_t snap_seq __attribute__((aligned(64)));
	_Atomic uint64_t *snap;		/* nslots * SNAP_WORDS, by slot */
	uint64_t snap_last_ns;

	/* Room per class on this queue (xtx/sched.h "Room"), XTX_ROOM_WORD(): written by
	 * the dequeuer when its scheduler reports a change, read by producers
	 * (xtx_producer__room()). */
	_Atomic uint64_t *cls_room;

	/* xtx_engine__room_mirror(): a copy of cls_room at mirror[idx * nslots]; NULL until
	 * set. `mirror` is the engine's (set once, release), `mirror_seen` the thread's
	 * copy, written in full the first time it sees it. */
	_Atomic(_Atomic uint64_t *) mirror;
	_Atomic uint64_t *mirror_seen;
	unsigned idx;			/* this queue's index among the engine's */

	/* A live change (xtx_engine__classes_change()): set by the engine, cleared by the
	 * thread once it runs the new tree; what it wrote in the request is published by
	 * that clear. */
	_Atomic(struct xtx_deq_change *) change;
};

/* The room word's layout: xtx/roomword.h. */

/* Publish every room change of q's scheduler into q's words (the dequeuer; engine.c
 * before the thread starts). Returns 1 if a class got room or an event. */
int xtx_room_publish(struct xtx_dequeuer *q);

#define SNAP_WORDS ((sizeof(struct xtx_class_stats) + 7) / 8)

/* The thread: arg is its struct xtx_dequeuer. */
void *xtx_dequeuer_main(void *arg);

#endif /* XTX_DEQUEUER_H */
