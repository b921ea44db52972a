/* SPDX-License-Identifier: BSD-3-Clause */
/* room.c - see room.h for the rules and the (W1) pairing. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "room.h"

void xtx_room__init(struct xtx_room *r, struct xtx_pool *pool, uint32_t wake_frames)
{
	atomic_init(&r->seq, 0);
	atomic_init(&r->waiters, 0);
	atomic_init(&r->frame_waiters, 0);
	atomic_init(&r->cls_seq, 0);
	atomic_init(&r->cls_waiters, 0);
	r->pool = pool;
	r->wake_frames = wake_frames;
}

static void wake_word(_Atomic uint32_t *word)
{
	/* Release: the futex word changes after the room was made (W1, W2). */
	atomic_fetch_add_explicit(word, 1, memory_order_release);
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void wake(struct xtx_room *r)
{
	wake_word(&r->seq);
}

/* 0 (woken, or the word had moved on), -ETIMEDOUT or -EINTR. */
static int wait_word(_Atomic uint32_t *word, uint32_t ticket, uint64_t timeout_ns)
{
	struct timespec ts = { (time_t)(timeout_ns / 1000000000ull),
			       (long)(timeout_ns % 1000000000ull) };
	long rc = syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, ticket,
			  timeout_ns == UINT64_MAX ? NULL : &ts, NULL, 0);

	if (rc == 0 || errno == EAGAIN)
		return 0;
	return errno == ETIMEDOUT ? -ETIMEDOUT : -EINTR;
}

void xtx_room__wake_any(struct xtx_room *r)
{
	/* (W1) seq_cst load, pairs with the producer's seq_cst increment. */
	if (atomic_load_explicit(&r->waiters, memory_order_seq_cst))
		wake(r);
}

void xtx_room__wake(struct xtx_room *r, int force)
{
	/* (W1) seq_cst load, pairs with the producer's seq_cst increment. */
	if (!atomic_load_explicit(&r->frame_waiters, memory_order_seq_cst))
		return;
	/* Hysteresis: a busy dequeuer wakes waiters only once the pool holds wake_frames,
	 * so that a woken producer finds several batches, not one (each wake costs two
	 * context switches). force: the dequeuer is going idle; wake whatever there is.
	 * Relaxed: a heuristic; the waiter re-checks the real state (W1). */
	if (!force && atomic_load_explicit(&r->pool->frames, memory_order_relaxed) <
		      (int64_t)r->wake_frames)
		return;
	wake(r);
}

uint32_t xtx_room__wait_prepare(struct xtx_room *r, int no_frames)
{
	uint32_t seq;

	/* (W1) seq_cst increments: announce the waiter before the checks that follow. */
	atomic_fetch_add_explicit(&r->waiters, 1, memory_order_seq_cst);
	if (no_frames)
		atomic_fetch_add_explicit(&r->frame_waiters, 1, memory_order_seq_cst);
	/* Acquire: pairs with the waker's release bump. */
	seq = atomic_load_explicit(&r->seq, memory_order_acquire);
	/* (W1) fence: the caller's lane-room loads come after the increment. */
	atomic_thread_fence(memory_order_seq_cst);
	return seq;
}

int xtx_room__has_frames(struct xtx_room *r)
{
	/* (W1) seq_cst load, pairs with the seq_cst add of xtx_pool__put(). */
	return atomic_load_explicit(&r->pool->frames, memory_order_seq_cst) >=
	       (int64_t)r->wake_frames;
}

void xtx_room__wait_cancel(struct xtx_room *r, int no_frames)
{
	/* Relaxed: counts; a stale nonzero only costs a waker one spurious wake. */
	atomic_fetch_sub_explicit(&r->waiters, 1, memory_order_relaxed);
	if (no_frames)
		atomic_fetch_sub_explicit(&r->frame_waiters, 1, memory_order_relaxed);
}

void xtx_room__wait_frames_found(struct xtx_room *r)
{
	/* Relaxed: a count; a stale nonzero only costs a waker one spurious wake. */
	atomic_fetch_sub_explicit(&r->frame_waiters, 1, memory_order_relaxed);
}

int xtx_room__wait_ticket(struct xtx_room *r, uint32_t ticket, uint64_t timeout_ns,
			  int no_frames)
{
	int rc = wait_word(&r->seq, ticket, timeout_ns);

	xtx_room__wait_cancel(r, no_frames);	/* awake: no longer waiting */
	return rc;
}

void xtx_room__wake_class(struct xtx_room *r)
{
	/* (W2) fence: the caller's room-word stores are ordered before the load below;
	 * pairs with the fence in xtx_room__class_wait_prepare(). */
	atomic_thread_fence(memory_order_seq_cst);
	/* (W2) seq_cst load, pairs with the producer's seq_cst increment. */
	if (atomic_load_explicit(&r->cls_waiters, memory_order_seq_cst))
		wake_word(&r->cls_seq);
}

uint32_t xtx_room__class_wait_prepare(struct xtx_room *r)
{
	uint32_t seq;

	/* (W2) seq_cst increment: announce the waiter before the room-word load. */
	atomic_fetch_add_explicit(&r->cls_waiters, 1, memory_order_seq_cst);
	/* Acquire: pairs with the waker's release bump. */
	seq = atomic_load_explicit(&r->cls_seq, memory_order_acquire);
	/* (W2) fence: the caller's room-word load comes after the increment. */
	atomic_thread_fence(memory_order_seq_cst);
	return seq;
}

void xtx_room__class_wait_cancel(struct xtx_room *r)
{
	/* Relaxed: a count; a stale nonzero only costs a waker one spurious wake. */
	atomic_fetch_sub_explicit(&r->cls_waiters, 1, memory_order_relaxed);
}

int xtx_room__class_wait_ticket(struct xtx_room *r, uint32_t ticket, uint64_t timeout_ns)
{
	int rc = wait_word(&r->cls_seq, ticket, timeout_ns);

	xtx_room__class_wait_cancel(r);	/* awake: no longer waiting */
	return rc;
}
