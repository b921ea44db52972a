/* SPDX-License-Identifier: BSD-3-Clause */
/* pool.c - the shared free-frame pool: two tagged Treiber stacks of batches. See pool.h
 * for the design, the concurrency contract and the memory-order labels. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

int xtx_pool__init(struct xtx_pool *p, uint32_t nbatches)
{
	memset(p, 0, sizeof(*p));
	p->batches = calloc(nbatches, sizeof(*p->batches));
	if (!p->batches)
		return -ENOMEM;
	p->nbatches = nbatches;
	for (uint32_t i = 0; i < nbatches; i++)
		xtx_pool__push(p, &p->empty, i);
	return 0;
}

void xtx_pool__fini(struct xtx_pool *p)
{
	free(p->batches);
	p->batches = NULL;
}

void xtx_pool__push(struct xtx_pool *p, _Atomic uint64_t *stack, uint32_t idx)
{
	/* Relaxed: the CAS below validates what we read. */
	uint64_t old = atomic_load_explicit(stack, memory_order_relaxed), nw;

	do {
		/* Relaxed: published by the release CAS. */
		atomic_store_explicit(&p->batches[idx].next, (uint32_t)old, memory_order_relaxed);
		nw = ((old >> 32) + 1) << 32 | (idx + 1);
		/* (S1) release on success, pairs with (S2): the batch's contents and `next` are
		 * visible to the thread that pops it. Relaxed on failure: we retry. */
	} while (!atomic_compare_exchange_weak_explicit(stack, &old, nw, memory_order_release,
							memory_order_relaxed));
}

int xtx_pool__pop(struct xtx_pool *p, _Atomic uint64_t *stack)
{
	/* (S2) acquire, pairs with (S1): `next` of the head container is the pusher's. */
	uint64_t old = atomic_load_explicit(stack, memory_order_acquire), nw;

	do {
		uint32_t top = (uint32_t)old;

		if (!top)
			return -1;
		/* Relaxed: may be stale if the head changed meanwhile; then the tag makes the
		 * CAS fail and we retry with the fresh head. */
		nw = ((old >> 32) + 1) << 32 |
		     atomic_load_explicit(&p->batches[top - 1].next, memory_order_relaxed);
		/* (S2) acquire on success and failure: we read the new head's contents. */
	} while (!atomic_compare_exchange_weak_explicit(stack, &old, nw, memory_order_acquire,
							memory_order_acquire));
	return (int)(uint32_t)old - 1;
}

/* We hold container idx exclusively (0 <= n < XTX_BATCH frames in it): leave it in
 * `part`, merging with whatever partial batch another thread left there meanwhile. */
static void settle(struct xtx_pool *p, uint32_t idx)
{
	for (;;) {
		struct xtx_batch *b = &p->batches[idx], *o;
		uint32_t expect = 0, t, k;

		if (!b->n) {
			xtx_pool__push(p, &p->empty, idx);
			return;
		}
		/* (S4) release on success, pairs with (S3): the contents go with it. */
		if (atomic_compare_exchange_strong_explicit(&p->part, &expect, idx + 1,
							    memory_order_release,
							    memory_order_relaxed))
			return;
		/* (S3) acq_rel: take the other partial batch (and its contents). */
		t = atomic_exchange_explicit(&p->part, 0, memory_order_acq_rel);
		if (!t)
			continue;	/* gone already: try to leave ours again */
		o = &p->batches[t - 1];
		/* Move as much of the other one into ours as fits. */
		k = XTX_BATCH - b->n < o->n ? XTX_BATCH - b->n : o->n;
		memcpy(b->addr + b->n, o->addr + (o->n - k), k * sizeof(*b->addr));
		b->n += k;
		o->n -= k;
		if (b->n == XTX_BATCH) {
			xtx_pool__push(p, &p->full, idx);
			idx = t - 1;		/* carry on with what is left of the other */
		} else {
			xtx_pool__push(p, &p->empty, t - 1);	/* emptied */
		}
	}
}

int xtx_pool__put(struct xtx_pool *p, const uint64_t *addr, uint32_t n)
{
	uint32_t left = n, t;
	int idx;

	if (n == XTX_BATCH) {
		idx = xtx_pool__pop(p, &p->empty);
		if (idx < 0)
			return -ENOSPC;
		memcpy(p->batches[idx].addr, addr, n * sizeof(*addr));
		p->batches[idx].n = n;
		xtx_pool__push(p, &p->full, (uint32_t)idx);
		goto out;
	}
	/* (S3) acq_rel: take the partial batch, if any, to top it up. */
	t = atomic_exchange_explicit(&p->part, 0, memory_order_acq_rel);
	if (t) {
		idx = (int)t - 1;
	} else {
		idx = xtx_pool__pop(p, &p->empty);
		if (idx < 0)
			return -ENOSPC;
		p->batches[idx].n = 0;
	}
	for (;;) {
		struct xtx_batch *b = &p->batches[idx];
		uint32_t k = XTX_BATCH - b->n < left ? XTX_BATCH - b->n : left;

		memcpy(b->addr + b->n, addr, k * sizeof(*addr));
		b->n += k;
		addr += k;
		left -= k;
		if (b->n < XTX_BATCH)
			break;
		xtx_pool__push(p, &p->full, (uint32_t)idx);
		if (!left)
			goto out;
		idx = xtx_pool__pop(p, &p->empty);
		if (idx < 0) {
			/* Not reached with enough containers; the frames that did fit count. */
			n -= left;
			goto out;
		}
		p->batches[idx].n = 0;
	}
	settle(p, (uint32_t)idx);
out:
	/* seq_cst: a counter, and the store half of the (W1) Dekker pair (room.h): a
	 * producer that announced itself waiting either sees these frames or is woken. */
	atomic_fetch_add_explicit(&p->frames, n, memory_order_seq_cst);
	return n == XTX_BATCH || !left ? 0 : -ENOSPC;
}

uint32_t xtx_pool__get(struct xtx_pool *p, uint64_t *out, uint32_t max)
{
	int idx = xtx_pool__pop(p, &p->full);
	struct xtx_batch *b;
	uint32_t n, t;

	if (idx < 0) {
		/* (S3) acq_rel: take the partial batch and its contents. */
		t = atomic_exchange_explicit(&p->part, 0, memory_order_acq_rel);
		if (!t)
			return 0;
		idx = (int)t - 1;
	}
	b = &p->batches[idx];
	n = b->n < max ? b->n : max;
	memcpy(out, b->addr + (b->n - n), n * sizeof(*out));
	b->n -= n;
	/* Relaxed: a counter. */
	atomic_fetch_sub_explicit(&p->frames, n, memory_order_relaxed);
	if (b->n)	/* split: the rest goes back, merged as a partial batch */
		settle(p, (uint32_t)idx);
	else
		xtx_pool__push(p, &p->empty, (uint32_t)idx);
	return n;
}
