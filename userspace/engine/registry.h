/* SPDX-License-Identifier: BSD-3-Clause */
/* registry.h - the set of open producers: their slots and lock, the totals of those
 * closed, and reaping those whose thread exited without closing them (internal to
 * libxtx). producer.c adds and removes producers; queue 0's dequeuer, open() when every
 * slot is taken, stop() and xtx_engine__reap() reap.
 *
 * Rules:
 * - Add, remove, reap and the readers of every producer take the lock: slow path only.
 *   A dequeuer reaps with trylock, so it never waits on an application's open or close.
 * - A producer is dead once the thread that opened it has exited. The exit is learnt from
 *   a thread-specific-data destructor (struct xtx_opener), which runs on the exiting
 *   thread before another thread's pthread_join() of it returns: a joined thread is known
 *   to be gone (X). tgkill(pid, tid, 0) == ESRCH is the fallback, for a thread that ends
 *   without running destructors and for a process whose keys ran out.
 * - A stopped or parked thread is alive: it is not reaped, its frames stay its own.
 * - Reaping a producer gives its cache and the frames its application held (its owner
 *   table entries) back to the pool, counted as reclaimed, and unregisters its lanes: the
 *   dequeuers still send what it queued. Then the room is woken.
 * - The counters of a closed or reaped producer are folded into `closed` (under the lock).
 */
#ifndef XTX_REGISTRY_H
#define XTX_REGISTRY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <xtx/mpsc.h>
#include <xtx/xtx.h>
#include "pool.h"
#include "print.h"
#include "room.h"
#include "stat.h"

struct xtx_frames;
struct xtx_producer;

struct xtx_registry {
	pthread_mutex_t lock;		/* add, remove, reap, and reading every producer */
	unsigned max;			/* slots: opts.max_producers */
	unsigned nq;			/* lanes per producer: one per TX queue */
	struct xtx_producer *prods[XTX_MPSC_MAX_LANES];
	struct xtx_producer_stats closed;	/* totals of closed producers (under lock) */
	/* Written under the lock, read by anyone (stat.h). */
	_Atomic uint32_t nprods;	/* producers open (a hint for the reaper) */
	_Atomic uint64_t closed_app;	/* frames closed producers left "in app" */
	_Atomic uint64_t closed_chain;	/* their chain_sent */
	struct xtx_pool *pool;		/* where reaped frames go */
	struct xtx_room *room;		/* woken after a reap */
	const struct xtx_frames *fr;	/* the owner table, to find a dead producer's frames */
	const struct xtx_log *log;
};

/* The lock; before anything that may fail (xtx_registry__fini() undoes it). */
void xtx_registry__init(struct xtx_registry *r);
/* What the registry works with, once known (open). */
void xtx_registry__setup(struct xtx_registry *r, unsigned max, unsigned nq,
			 struct xtx_pool *pool, struct xtx_room *room,
			 const struct xtx_frames *fr, const struct xtx_log *log);
void xtx_registry__fini(struct xtx_registry *r);

/* A slot for p (its id) and a record of the calling thread (its tid and opener); when
 * every slot is taken, reaps once and tries again. 0, -ENOMEM, or -EBUSY (full). */
int xtx_registry__add(struct xtx_registry *r, struct xtx_producer *p);
/* Undo xtx_registry__add() (open failed after it). The caller frees p. */
void xtx_registry__cancel(struct xtx_registry *r, struct xtx_producer *p);
/* Close: p's cache back to the pool, its lanes unregistered, its counters into the
 * totals, its slot free, p freed. Frames its application still holds stay counted as
 * "in app". */
void xtx_registry__remove(struct xtx_registry *r, struct xtx_producer *p);

/* Reap the producers whose thread is gone (above); trylock: give up if the lock is busy.
 * Returns how many. */
int xtx_registry__reap(struct xtx_registry *r, int trylock);

/* Whether a producer is open (under the lock). */
int xtx_registry__busy(struct xtx_registry *r);
/* The totals of closed producers plus the counters of the open ones. */
void xtx_registry__totals(struct xtx_registry *r, struct xtx_producer_stats *st);
/* Frames in the producers' caches (*cached) and in their applications' hands (*app,
 * closed producers' included); the further frames of multi-buffer packets they sent
 * (*chain_sent, closed producers' included). */
void xtx_registry__frames(struct xtx_registry *r, uint64_t *cached, uint64_t *app,
			  uint64_t *chain_sent);

/* Producers open, as a hint (a reaper that finds none skips the lock). */
static inline uint32_t xtx_registry__open_hint(struct xtx_registry *r)
{
	return CTR_GET(r->nprods);	/* the reap itself runs under the lock */
}

#endif /* XTX_REGISTRY_H */
