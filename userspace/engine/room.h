/* SPDX-License-Identifier: BSD-3-Clause */
/* room.h - producers waiting for room: free frames in the pool and space in their stage
 * lanes (internal to libxtx). Producers wait (xtx_producer__wait()); dequeuers and receive
 * workers wake them after making room; the reaper wakes them after taking frames back.
 *
 * A futex word that each wake bumps, and the number of waiters, so that a waker skips the
 * wake when nobody waits.
 *
 * (W1) is a Dekker pair between a producer about to sleep and a thread that just made
 * room. The producer increments `waiters` (seq_cst RMW) and takes its ticket, then a
 * seq_cst fence (xtx_room__wait_prepare()); then it checks for room: pool frames (seq_cst
 * load, xtx_room__has_frames()) and its lanes (loads after the fence). The waker makes
 * room (pool put: seq_cst RMW; stage: dequeue then a seq_cst fence), then loads `waiters`
 * (seq_cst, xtx_room__wake()). One of them sees the other: the producer finds room, or
 * the waker bumps the futex word and wakes it. The producer read the word before
 * checking, so a bump in between fails its FUTEX_WAIT at once.
 * Both sides use the same threshold, wake_frames: a producer sleeps unless the pool holds
 * that many; a busy waker wakes only when it does, and an idling one always wakes
 * (force), so every frame in the pipeline ends up either waking a producer or idle.
 *
 * Which operations may run concurrently: all of them, from any threads.
 */
#ifndef XTX_ROOM_H
#define XTX_ROOM_H

#include <stdatomic.h>
#include <stdint.h>

#include "pool.h"

struct xtx_room {
	_Atomic uint32_t seq;		/* the futex word: bumped by each wake */
	_Atomic uint32_t waiters;	/* producers between wait_prepare and waking */
	struct xtx_pool *pool;		/* its free frames are the room producers wait for */
	uint32_t wake_frames;		/* the threshold of both sides (above) */
} __attribute__((aligned(64)));

void xtx_room__init(struct xtx_room *r, struct xtx_pool *pool, uint32_t wake_frames);

/* Waker, after making room (pool frames or stage space): wake the waiters, if any; unless
 * force, only once the pool holds wake_frames. */
void xtx_room__wake(struct xtx_room *r, int force);

/* Waiter: announce the wait and take the futex ticket (W1). Then check for room - the
 * pool (xtx_room__has_frames()) and one's own lanes, loads after this call - and either
 * xtx_room__wait_cancel() or xtx_room__wait_ticket(). */
uint32_t xtx_room__wait_prepare(struct xtx_room *r);
/* The pool holds wake_frames (W1: seq_cst). */
int xtx_room__has_frames(struct xtx_room *r);
/* Room was found: no sleep. */
void xtx_room__wait_cancel(struct xtx_room *r);
/* Sleep until a wake after the ticket was taken, or timeout_ns (UINT64_MAX: none).
 * Returns 0 (there may be room now), -ETIMEDOUT or -EINTR. */
int xtx_room__wait_ticket(struct xtx_room *r, uint32_t ticket, uint64_t timeout_ns);

#endif /* XTX_ROOM_H */
