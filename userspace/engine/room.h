/* SPDX-License-Identifier: BSD-3-Clause */
/* room.h - producers waiting for room: free frames in the pool, space in their stage
 * lanes, and class room (W2 below) (internal to libxtx). Producers wait
 * (xtx_producer__wait(), xtx_producer__wait_room()); dequeuers and receive workers wake
 * them after making room; the reaper wakes them after taking frames back.
 *
 * A futex word that each wake bumps, and two counts of waiters, so that a waker skips the
 * wake when nobody waits for what it made: `waiters` (every producer in
 * xtx_producer__wait()) and `frame_waiters` (those of them that have no frame of their
 * own and found the pool short of wake_frames).
 *
 * (W1) is a Dekker pair between a producer about to sleep and a thread that just made
 * room. The producer increments `waiters`, and `frame_waiters` if it has no frames
 * (seq_cst RMWs), takes its ticket, then a seq_cst fence (xtx_room__wait_prepare()); then
 * it checks for room: pool frames (seq_cst load, xtx_room__has_frames()) and its lanes
 * (loads after the fence). A waker makes room (pool put: seq_cst RMW; stage: dequeue then
 * a seq_cst fence), then loads the count of those who wait for it (seq_cst:
 * `frame_waiters` in xtx_room__wake(), `waiters` in xtx_room__wake_any()). One of them
 * sees the other: the producer finds room, or the waker bumps the futex word and wakes it.
 * The producer read the word before checking, so a bump in between fails its FUTEX_WAIT
 * at once. Each wake costs the waker a syscall and the woken two context switches, so
 * both kinds of room are woken for in bulk:
 *   - frames: both sides use the same threshold, wake_frames: a producer sleeps unless
 *     the pool holds that many; a busy waker wakes only when it does, and an idling one
 *     always wakes (force), so every frame in the pipeline ends up either waking a
 *     producer or idle;
 *   - stage space: a dequeuer wakes after it has taken half a lane since its last wake,
 *     or when it found its stage empty having taken anything since (xtx_dequeuer's
 *     intake), and whenever it goes idle; a producer blocked on a full lane is woken once
 *     per half lane drained, not once per batch.
 *
 * Class room (xtx_producer__wait_room()) has a futex word and a count of its own,
 * `cls_seq` and `cls_waiters`, so that a dequeuer that publishes room changes (which in a
 * tree of many small leaves is nearly every step) wakes only producers that wait for
 * class room, never one blocked on a full lane before half of it drained, and stage
 * wakes never wake a class waiter. (W2) is the same Dekker pair as W1: the producer
 * increments `cls_waiters` (seq_cst), takes its ticket, a seq_cst fence, then loads the
 * class's room word (xtx_room__class_wait_prepare()); the dequeuer stores the word,
 * then a seq_cst fence and the seq_cst load of `cls_waiters` (xtx_room__wake_class()).
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
	_Atomic uint32_t frame_waiters;	/* those of them that wait for frames */
	_Atomic uint32_t cls_seq;	/* class room's futex word (W2) */
	_Atomic uint32_t cls_waiters;	/* producers waiting for class room */
	struct xtx_pool *pool;		/* its free frames are the room producers wait for */
	uint32_t wake_frames;		/* the threshold of both sides (above) */
} __attribute__((aligned(64)));

void xtx_room__init(struct xtx_room *r, struct xtx_pool *pool, uint32_t wake_frames);

/* Waker, after putting frames into the pool: wake the waiters that wait for frames, if
 * any; unless force, only once the pool holds wake_frames. */
void xtx_room__wake(struct xtx_room *r, int force);
/* Waker, after making stage space (or going idle): wake every waiter, if any (not the
 * class waiters: xtx_room__wake_class()). */
void xtx_room__wake_any(struct xtx_room *r);

/* Waiter: announce the wait, as one without frames of its own if no_frames, and take the
 * futex ticket (W1). Then check for room - the pool (xtx_room__has_frames()) and one's own
 * lanes, loads after this call - and either xtx_room__wait_cancel() or
 * xtx_room__wait_ticket(), with the same no_frames. */
uint32_t xtx_room__wait_prepare(struct xtx_room *r, int no_frames);
/* The pool holds wake_frames (W1: seq_cst). */
int xtx_room__has_frames(struct xtx_room *r);
/* Room was found: no sleep. */
void xtx_room__wait_cancel(struct xtx_room *r, int no_frames);
/* A waiter that began without frames found them in the pool but no stage space: it waits
 * for the space alone (no frame wakes); then xtx_room__wait_ticket() with no_frames 0. */
void xtx_room__wait_frames_found(struct xtx_room *r);
/* Sleep until a wake after the ticket was taken, or timeout_ns (UINT64_MAX: none).
 * Returns 0 (there may be room now), -ETIMEDOUT or -EINTR. */
int xtx_room__wait_ticket(struct xtx_room *r, uint32_t ticket, uint64_t timeout_ns,
			  int no_frames);

/* Class room (W2). Waker, after storing room words of which one got room: a seq_cst
 * fence, then wake every class waiter, if any. */
void xtx_room__wake_class(struct xtx_room *r);
/* Waiter: announce, take the ticket; then load the class's word and either
 * xtx_room__class_wait_cancel() or xtx_room__class_wait_ticket(). */
uint32_t xtx_room__class_wait_prepare(struct xtx_room *r);
void xtx_room__class_wait_cancel(struct xtx_room *r);
/* As xtx_room__wait_ticket(), for class room. */
int xtx_room__class_wait_ticket(struct xtx_room *r, uint32_t ticket, uint64_t timeout_ns);

#endif /* XTX_ROOM_H */
