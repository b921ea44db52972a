/* SPDX-License-Identifier: BSD-3-Clause */
/* change.c - a new class tree for a running engine (xtx_engine__classes_change()).
 *
 * Rules
 *   - One change at a time (change_lock, the control path's only lock; the control
 *     socket's requests take it too). xtx_engine__stop() closes changes under it
 *     (changes_closed) before it stops the dequeuers, so a change either ran on every
 *     queue or is refused; none waits for a dequeuer that has exited.
 *   - Checked whole first (validate(), what the engine was opened for, the owner's
 *     check): a refused change touches nothing. A copy of the tree that runs is kept
 *     (e->cur) for the control socket, and each class's slot (slots.c).
 *   - A change that queue 0's scheduler can take in place (xtx_sched__change_check())
 *     is taken in place by every queue; any other builds a scheduler per queue here,
 *     off the data path, that each dequeuer adopts (xtx_sched__adopt()), with staying
 *     classes in their slots and new ones in free slots. The device-wide state changes
 *     first (a failed build changes it back).
 *   - Each dequeuer gets its request in q->change and a kick; it runs it at the top
 *     of its next step and clears q->change. No dequeuer waits for another, and the
 *     data path checks one word per step. Until a queue has taken it, that queue runs
 *     its old tree: one step, microseconds.
 *   - The caller waits until every queue has cleared its request, so cfg is not
 *     referenced after the return, and destroys the schedulers adopted from.
 *     Dequeuers run until xtx_engine__stop(), which the same caller does not run
 *     meanwhile, and a kicked one leaves its sleep at once.
 * Control path only.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "ecn.h"
#include "engine_int.h"
#include "err.h"
#include "print.h"

/* Every dequeuer runs its request; returns when all have (see the rules above). */
static int run_change(struct xtx_engine *e, struct xtx_deq_change *req, char *err,
		      size_t errlen)
{
	const struct timespec nap = { 0, 50 * 1000 };
	int rc = 0;

	for (unsigned i = 0; i < e->nq; i++) {
		/* Release, pairs with the dequeuer's acquire load at the top of its step. */
		atomic_store_explicit(&e->q[i].deq.change, &req[i], memory_order_release);
		xtx_mpsc__kick(e->q[i].deq.stage);
	}
	for (unsigned i = 0; i < e->nq; i++) {
		/* Acquire, pairs with the dequeuer's release store in take_change(): what it
		 * wrote in req[i] is visible, and it no longer reads the request. */
		for (unsigned spins = 0;
		     atomic_load_explicit(&e->q[i].deq.change, memory_order_acquire); spins++)
			if (spins < 1000)
				sched_yield();	/* a step is microseconds */
			else
				nanosleep(&nap, NULL);
		if (req[i].rc && !rc) {
			rc = req[i].rc;
			xtx_errf(err, errlen, "queue %u did not take the change (%d) after the "
				 "check passed: a bug", i, rc);
		}
	}
	return rc;
}

int xtx_engine__classes_change(struct xtx_engine *e, const struct xtx_sched_config *cfg,
			       char *err, size_t errlen)
{
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!e || !cfg)
		return -EINVAL;
	pthread_mutex_lock(&e->change_lock);
	rc = xtx_classes_change_locked(e, cfg, err, errlen);
	pthread_mutex_unlock(&e->change_lock);
	return rc;
}

void xtx_engine__set_change_check(struct xtx_engine *e, xtx_change_check_fn fn, void *ctx)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->change_lock);
	e->change_check = fn;
	e->change_ctx = ctx;
	pthread_mutex_unlock(&e->change_lock);
}

/* What only an engine opened otherwise could run: 0, or -EOPNOTSUPP with the message. */
static int engine_limits(const struct xtx_engine *e, const struct xtx_sched_config *cfg,
			 char *err, size_t errlen)
{
	unsigned n = xtx_sched_config__class_count(cfg);
	char h[XTX_HANDLE_STRLEN];

	if (xtx_sched_config__overhead(cfg) != xtx_sched_config__overhead(e->cur)) {
		xtx_errf(err, errlen, "overhead %u where the running tree has %u: it cannot "
			 "change while it runs", xtx_sched_config__overhead(cfg),
			 xtx_sched_config__overhead(e->cur));
		return -EOPNOTSUPP;
	}
	for (unsigned i = 0; i < n && !e->room_on; i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);
		uint64_t t = co->target ? co->target : e->o.target_ns;

		if (xtx_sched_config__is_leaf(cfg, co->handle) == 1 && t && t != XTX_TARGET_OFF) {
			xtx_handle__str(co->handle, h, sizeof(h));
			xtx_errf(err, errlen, "class %s: a room target, where the engine opened with "
				 "none (producers do not ask for room): restart", h);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/* A rebuilt tree's pool: what its leaves' limits want (capped as the scheduler caps
 * them), and never less than the UMEM's frames, so whatever is queued moves. */
static uint32_t rebuild_pool(const struct xtx_engine *e, const struct xtx_sched_config *cfg)
{
	uint64_t limits = 0;

	for (unsigned i = 0; i < xtx_sched_config__class_count(cfg); i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);

		if (xtx_sched_config__is_leaf(cfg, co->handle) == 1)
			limits += co->limit;
	}
	limits = limits < (1u << 20) ? limits : (1u << 20);
	return (uint32_t)(limits > e->fr.count ? limits : e->fr.count);
}

/* The running tree's classes whose counters end (gone, or a leaf that became an inner
 * class or the reverse) into gone[]; the slots no class has after the change into
 * freed[]. */
static void ended(const struct xtx_engine *e, const struct xtx_sched_config *cfg,
		  const uint32_t *slots, uint32_t *gone, unsigned *ngone, uint32_t *freed,
		  unsigned *nfreed)
{
	const struct xtx_sched_config *run = e->cur;
	unsigned n = xtx_sched_config__class_count(cfg);

	*ngone = *nfreed = 0;
	for (unsigned i = 0; i < xtx_sched_config__class_count(run); i++) {
		uint32_t hd = xtx_sched_config__class(run, i)->handle;
		int j = xtx_sched_config__class_index(cfg, hd);

		if (j < 0 || xtx_sched_config__is_leaf(cfg, hd) != xtx_sched_config__is_leaf(run, hd))
			gone[(*ngone)++] = i;
		if (j < 0) {
			bool kept = false;

			for (unsigned k = 0; k < n && !kept; k++)
				kept = slots[k] == e->slot_of[i];
			if (!kept)
				freed[(*nfreed)++] = e->slot_of[i];
		}
	}
}

/* A new scheduler per queue that each dequeuer adopts. The device-wide state changes
 * first (staying classes' buckets, new slots full); if a scheduler cannot be built it is
 * changed back, and nothing else changed. */
static int rebuild(struct xtx_engine *e, const struct xtx_sched_config *cfg,
		   const uint32_t *slots, char *err, size_t errlen)
{
	unsigned nrun = xtx_sched_config__class_count(e->cur), ngone, nfreed;
	struct xtx_deq_change req[XTX_MAX_QUEUES];
	uint32_t *gone = calloc(nrun ? nrun : 1, sizeof(*gone));
	uint32_t *freed = calloc(nrun ? nrun : 1, sizeof(*freed));
	char cerr[512] = "";
	unsigned moved = 0;
	int rc = 0;

	memset(req, 0, sizeof(req));
	if (!gone || !freed) {
		rc = -ENOMEM;
		xtx_errf(err, errlen, "out of memory");
		goto out;
	}
	ended(e, cfg, slots, gone, &ngone, freed, &nfreed);
	if (e->shared)
		rc = xtx_sched_shared__change_slots(e->shared, cfg, slots, xtx_now_ns());
	for (unsigned i = 0; i < e->nq && !rc; i++) {
		struct xtx_sched_opts so = { .sz = sizeof(so), .shared = e->shared, .queue = i,
					     .target_ns = e->o.target_ns,
					     .codel = e->o.codel ? XTX_CODEL_ON : 0,
					     .ecn_mark = xtx_ecn_mark, .ecn_ctx = &e->q[i].deq.fr,
					     .slots = slots, .nslots = e->nslots,
					     .pkt_pool = rebuild_pool(e, cfg) };

		req[i] = (struct xtx_deq_change){ .gone = gone, .ngone = ngone, .freed = freed,
						  .nfreed = nfreed };
		req[i].to = xtx_sched__create(cfg, &so, xtx_now_ns(), cerr, sizeof(cerr));
		if (!req[i].to) {
			rc = -errno ? -errno : -ENOMEM;
			xtx_errf(err, errlen, "queue %u: cannot build the new tree: %s", i, cerr);
		}
	}
	if (rc) {
		if (e->shared)	/* back as it was: the running tree's params (checked: 0) */
			xtx_sched_shared__change_slots(e->shared, e->cur, e->slot_of, xtx_now_ns());
		for (unsigned i = 0; i < e->nq; i++)
			xtx_sched__destroy(req[i].to);
		goto out;
	}
	rc = run_change(e, req, err, errlen);
	for (unsigned i = 0; i < e->nq; i++) {
		moved += req[i].moved;
		xtx_sched__destroy(req[i].rc ? req[i].to : req[i].old);
	}
	if (moved)
		xtx_info(&e->log, "live change: %u queued packets of removed classes moved to "
			 "the default class", moved);
out:
	free(gone);
	free(freed);
	return rc;
}

/* In place: the device-wide buckets, then each scheduler's xtx_sched__change(). */
static int in_place(struct xtx_engine *e, const struct xtx_sched_config *cfg, char *err,
		    size_t errlen)
{
	struct xtx_deq_change req[XTX_MAX_QUEUES];
	int rc = 0;

	for (unsigned i = 0; i < e->nq; i++)
		req[i] = (struct xtx_deq_change){ .cfg = cfg };
	if (e->shared)	/* checked against queue 0's scheduler: 0 */
		rc = xtx_sched_shared__change_slots(e->shared, cfg, e->slot_of, xtx_now_ns());
	return rc ? rc : run_change(e, req, err, errlen);
}

int xtx_classes_change_locked(struct xtx_engine *e, const struct xtx_sched_config *cfg,
			      char *err, size_t errlen)
{
	struct xtx_sched_config *copy;
	uint32_t *slots = NULL;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (e->changes_closed) {	/* stop() set it under the lock: dequeuers may be gone */
		xtx_errf(err, errlen, "the engine is stopped: no tree to change");
		return -ESRCH;
	}
	rc = xtx_sched_config__validate(cfg, err, errlen);
	if (!rc)
		rc = engine_limits(e, cfg, err, errlen);
	if (!rc && e->change_check)
		rc = e->change_check(e->change_ctx, e->cur, cfg, err, errlen);
	if (rc)
		return rc;
	copy = xtx_sched_config__dup(cfg);
	slots = calloc(xtx_sched_config__class_count(cfg) + 1, sizeof(*slots));
	if (!copy || !slots) {
		xtx_errf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	/* Queue 0's scheduler: the engine's (only a change, under this lock, replaces it). */
	if (!rc && !xtx_sched__change_check(e->q[0].deq.sched, cfg, NULL, 0)) {
		rc = in_place(e, cfg, err, errlen);
		memcpy(slots, e->slot_of, xtx_sched_config__class_count(cfg) * sizeof(*slots));
	} else if (!rc) {
		rc = xtx_slots_plan(e, cfg, slots, err, errlen);
		if (!rc)
			rc = rebuild(e, cfg, slots, err, errlen);
	}
	if (!rc) {
		xtx_slots_commit(e, cfg, slots);
		xtx_sched_config__free(e->cur);
		e->cur = copy;
	} else {
		xtx_sched_config__free(copy);
	}
	free(slots);
	return rc;
}


struct xtx_sched_config *xtx_engine__classes(struct xtx_engine *e)
{
	struct xtx_sched_config *c;

	if (!e) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&e->change_lock);
	c = xtx_sched_config__dup(e->cur);
	pthread_mutex_unlock(&e->change_lock);
	return c;
}
