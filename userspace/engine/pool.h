/* SPDX-License-Identifier: BSD-3-Clause */
/* pool.h - the shared free-frame pool (internal to libxtx).
 *
 * Frames travel in batches of up to XTX_BATCH addresses. Two lock-free LIFO stacks of batch
 * containers: `full` holds batches of exactly XTX_BATCH free frames, `empty` holds unused
 * containers; and one slot, `part`, holds at most one partial batch (fewer frames).
 * A producer pops a full batch when its cache runs dry and pushes the container back to
 * `empty`; a dequeuer fills a container with completed frames and pushes it to `full`.
 * Contention is per batch, not per frame, and a thread stopped anywhere delays nobody:
 * each operation is a single CAS on the stack head (Treiber stack), whose 64-bit head
 * holds a 32-bit generation tag beside the index, so a head that was popped and pushed
 * back meanwhile (ABA) fails the CAS.
 *
 * Partial batches (a dequeuer going idle with a few completed frames, a cache given back)
 * are merged: put takes the partial batch out of `part` (exchange), tops it up with its
 * frames, pushes it to `full` once it holds XTX_BATCH and keeps the rest, then leaves its
 * partial container in `part` (CAS from empty); if another thread left one there
 * meanwhile it takes that one too and merges again. So besides the full batches (at most
 * nframes / XTX_BATCH) at most one partial batch rests in the pool, plus one per thread
 * inside put/get: the container count is bounded however small the batches are.
 *
 * Which operations may run concurrently: all of them, from any threads.
 *
 * Memory order: (S1) push's release CAS pairs with (S2) pop's acquire load/CAS: the
 * batch contents written before a push are visible to whoever pops it. A container's
 * `next` is read in pop before the CAS validates it; it may be stale then (another thread
 * popped and re-pushed), which the tag detects; it is atomic (relaxed) to make that race
 * well-defined. (S3) the acq_rel exchange that takes the partial batch out of `part` and
 * (S4) the release CAS that leaves one there pair with each other the same way: whoever
 * takes it sees the contents its last owner wrote.
 */
#ifndef XTX_POOL_H
#define XTX_POOL_H

#include <stdatomic.h>
#include <stdint.h>

#define XTX_BATCH 64

struct xtx_batch {
	_Atomic uint32_t next;		/* index + 1 of the next container in its stack */
	uint32_t n;			/* addresses held */
	uint64_t addr[XTX_BATCH];
};

struct xtx_pool {
	struct xtx_batch *batches;
	uint32_t nbatches;
	_Atomic uint64_t full __attribute__((aligned(64)));	/* tag << 32 | (index + 1) */
	_Atomic uint64_t empty __attribute__((aligned(64)));
	_Atomic uint32_t part;		/* index + 1 of the partial batch; 0: none */
	_Atomic int64_t frames __attribute__((aligned(64)));	/* free frames in the pool */
};

/* Containers for nbatches batches; all empty. -ENOMEM. */
int xtx_pool__init(struct xtx_pool *p, uint32_t nbatches);
void xtx_pool__fini(struct xtx_pool *p);

/* Stack primitives: index of a container, or -1 if the stack is empty. */
int xtx_pool__pop(struct xtx_pool *p, _Atomic uint64_t *stack);
void xtx_pool__push(struct xtx_pool *p, _Atomic uint64_t *stack, uint32_t idx);

/* Put n (1..XTX_BATCH) free frames into the pool: a full batch as it is, fewer merged
 * into the partial batch. -ENOSPC if no container is free: cannot happen when nbatches
 * is at least nframes / XTX_BATCH + 2 + 2 * (threads that call put or get). */
int xtx_pool__put(struct xtx_pool *p, const uint64_t *addr, uint32_t n);
/* Take one batch (a full one, else the partial one): copies up to max addresses into
 * out, returns how many (0 if the pool is empty). What is left of a batch larger than
 * max goes back (merged as a partial batch). */
uint32_t xtx_pool__get(struct xtx_pool *p, uint64_t *out, uint32_t max);

#endif /* XTX_POOL_H */
