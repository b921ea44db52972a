/* SPDX-License-Identifier: BSD-3-Clause */
/* change.c - a new class tree for a running engine (xtx_engine__classes_change()).
 *
 * Rules
 *   - One change at a time (change_lock, the control path's only lock; the control
 *     socket's requests take it too). xtx_engine__stop() closes changes under it
 *     (changes_closed) before it stops the dequeuers, so a change either ran on every
 *     queue or is refused; none waits for a dequeuer that has exited. Checked whole first, against queue 0's scheduler
 *     (every queue's was built from the same tree): a refused change touches nothing.
 *     A copy of the tree that runs is kept (e->cur) for the control socket.
 *   - Then the device-wide class state (its buckets' depths and slices), then each
 *     dequeuer: the engine publishes cfg in q->change and kicks the stage; the dequeuer
 *     runs it at the top of its next step and clears q->change. No dequeuer waits for
 *     another, and the data path checks one word per step. Until a queue has taken it,
 *     that queue charges with its old rates: one step, microseconds.
 *   - The caller waits until every queue has cleared its request, so cfg is not
 *     referenced after the return. Dequeuers run until xtx_engine__stop(), which the
 *     same caller does not run meanwhile, and a kicked one leaves its sleep at once.
 * Control path only.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "clock.h"
#include "engine_int.h"
#include "err.h"

/* Every dequeuer takes cfg; returns when all have (see the rules above). */
static int run_change(struct xtx_engine *e, const struct xtx_sched_config *cfg, char *err,
		      size_t errlen)
{
	const struct timespec nap = { 0, 50 * 1000 };
	int rc = 0;

	for (unsigned i = 0; i < e->nq; i++) {
		/* Release, pairs with the dequeuer's acquire load at the top of its step. */
		atomic_store_explicit(&e->q[i].deq.change, cfg, memory_order_release);
		xtx_mpsc__kick(e->q[i].deq.stage);
	}
	for (unsigned i = 0; i < e->nq; i++) {
		/* Acquire, pairs with the dequeuer's release store in take_change(): its
		 * change_rc is visible, and it no longer reads cfg. */
		for (unsigned spins = 0;
		     atomic_load_explicit(&e->q[i].deq.change, memory_order_acquire); spins++)
			if (spins < 1000)
				sched_yield();	/* a step is microseconds */
			else
				nanosleep(&nap, NULL);
		if (e->q[i].deq.change_rc && !rc) {
			rc = e->q[i].deq.change_rc;
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

int xtx_classes_change_locked(struct xtx_engine *e, const struct xtx_sched_config *cfg,
			      char *err, size_t errlen)
{
	struct xtx_sched_config *copy;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (e->changes_closed) {	/* stop() set it under the lock: dequeuers may be gone */
		xtx_errf(err, errlen, "the engine is stopped: no tree to change");
		return -ESRCH;
	}
	rc = xtx_sched__change_check(e->q[0].deq.sched, cfg, err, errlen);
	copy = rc ? NULL : xtx_sched_config__dup(cfg);
	if (!rc && !copy) {
		xtx_errf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	if (!rc && e->shared)
		rc = xtx_sched_shared__change(e->shared, cfg, xtx_now_ns()); /* checked: 0 */
	if (!rc)
		rc = run_change(e, cfg, err, errlen);
	if (!rc) {
		xtx_sched_config__free(e->cur);
		e->cur = copy;
	} else {
		xtx_sched_config__free(copy);
	}
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
