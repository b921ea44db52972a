/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_shared.c - the device-wide class state that the schedulers of one device's TX
 * queues share: per class, one GCRA word for its rate bucket and one for its ceil bucket
 * (struct _xtx_shclass in sched_int.h; the take and the wait key are there too, used by
 * sched_htb.c per charge).
 *
 * Rules:
 *   - A device-wide bucket starts full (tat = now - depth) and holds min(depth, now - tat)
 *     ns. Taking moves tat forward by what was taken, with one CAS; a take never moves
 *     tat past the taker's now, so over any interval the takes sum to at most depth +
 *     its length. What an inner class's descendants sent on their own rates is charged
 *     instead, whatever the bucket holds (tat past now: a debt the takes wait out, at
 *     most 60 s), as sch_htb lets a parent's tokens go negative for them.
 *   - A scheduler's local bucket of such a class is at most one slice deep: it tops up
 *     to one slice when a charge takes it below zero, and only if at least half a slice
 *     (min_take) is there, so one CAS moves at least half a slice, never one per packet
 *     while the class is throttled. The charge of what its descendants sent on their own
 *     rates gives the local bucket back what they took, with no min_take (sh_pay_owed()).
 *   - slice = min(slice_ns, depth / 2) per bucket. What Q schedulers can send beyond
 *     the device-wide bucket in any interval is bounded by what they hold and owe:
 *     Q * (one slice held + one slice of hysteresis debt + one packet), docs/design.md.
 *   - A scheduler that stops taking (stalled, idle) holds at most its slice; the others
 *     take the rest of the class's rate.
 * Slow path only: created once per engine, read per charge through s->sh; a live change
 * (xtx_sched_shared__change()) rewrites the parameters, each a word of its own.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/sched.h>
#include "err.h"
#include "mem.h"
#include "sched_int.h"

/* A bucket's parameters: depth, slice = min(slice_ns, depth / 2), min_take = slice / 2,
 * each at least 1. Relaxed stores of slice and min_take (see _xtx_sh_par()); depth last,
 * with release: it pairs with the acquire load in _xtx_sh_base(), after the tat move of
 * change_bucket(). */
static void set_bucket(struct _xtx_shbucket *b, int64_t depth, uint64_t slice_ns)
{
	int64_t slice = depth / 2 < (int64_t)slice_ns ? depth / 2 : (int64_t)slice_ns;

	slice = slice > 1 ? slice : 1;
	atomic_store_explicit(&b->slice, slice, memory_order_relaxed);
	atomic_store_explicit(&b->min_take, slice / 2 > 1 ? slice / 2 : 1, memory_order_relaxed);
	atomic_store_explicit(&b->depth, depth > 1 ? depth : 1, memory_order_release);
}

static void init_bucket(struct _xtx_shbucket *b, int64_t depth, uint64_t slice_ns,
			uint64_t now_ns)
{
	uint64_t full;

	set_bucket(b, depth, slice_ns);
	depth = _xtx_sh_par(&b->depth);
	/* Full: tat = now - depth; a depth beyond now (a huge burst at a tiny rate, soon after
	 * boot) starts at 0, holding now ns: tat must not wrap past now, or no take would
	 * ever succeed. */
	full = now_ns > (uint64_t)depth ? now_ns - (uint64_t)depth : 0;
	/* Relaxed: written before any scheduler exists; creating the schedulers' threads
	 * publishes it (pairs with their first load in _xtx_sh_take). */
	atomic_store_explicit(&b->tat, full, memory_order_relaxed);
}

/* A live change of a bucket's depth. A bucket that grows first moves tat to where the
 * old depth capped it (now - depth), so it holds no more than it did. */
static void change_bucket(struct _xtx_shbucket *b, int64_t depth, uint64_t slice_ns,
			  uint64_t now_ns)
{
	uint64_t old = (uint64_t)_xtx_sh_par(&b->depth), full = now_ns > old ? now_ns - old : 0;
	/* Relaxed: the CAS on tat is the whole protocol (pairs with the takes' CAS). */
	uint64_t t = atomic_load_explicit(&b->tat, memory_order_relaxed);

	while (depth > (int64_t)old && t < full &&
	       !atomic_compare_exchange_weak_explicit(&b->tat, &t, full, memory_order_relaxed,
						      memory_order_relaxed))
		;
	set_bucket(b, depth, slice_ns);
}

/* slack: half a slice of bytes at the class's rate;
 * patience: the rate bucket's depth, so a stalled queue's last ask expires before the
 * device-wide bucket it kept others from could overflow; burst: the most credit a queue
 * keeps against the others (sh_may_take()). */
static void init_fairness(struct _xtx_shclass *sc, uint64_t rate, uint32_t burst)
{
	unsigned __int128 b = (unsigned __int128)_xtx_sh_par(&sc->rate.min_take) * rate /
			      _XTX_NSEC_PER_SEC;

	/* Relaxed stores: see _xtx_sh_par(). */
	atomic_store_explicit(&sc->slack, (int64_t)b + 1, memory_order_relaxed);
	atomic_store_explicit(&sc->patience, _xtx_sh_par(&sc->rate.depth), memory_order_relaxed);
	atomic_store_explicit(&sc->burst, (int64_t)burst, memory_order_relaxed);
}

/* Slot of config class i (xtx_sched_opts.slots). */
static inline uint32_t slot_of(const uint32_t *slots, unsigned i)
{
	return slots ? slots[i] : i;
}

/* A slot's device-wide state from its class's options, full at now. */
static void init_slot(struct xtx_sched_shared *sh, uint32_t slot,
		      const struct xtx_class_opts *co, uint64_t now_ns)
{
	uint64_t ceil = co->ceil ? co->ceil : co->rate;
	struct _xtx_shclass *sc = &sh->cls[slot];

	init_bucket(&sc->rate, _xtx_bytes_to_ns(co->burst, co->rate), sh->slice_ns, now_ns);
	init_bucket(&sc->ceil, _xtx_bytes_to_ns(co->cburst, ceil), sh->slice_ns, now_ns);
	init_fairness(sc, co->rate, co->burst);
}

/* 0 if slots names nslots-bounded, distinct slots for cfg's n classes; else -EINVAL with
 * the message. */
int _xtx_slots_check(const uint32_t *slots, unsigned n, unsigned nslots, char *err,
		     size_t errlen)
{
	uint8_t *seen;
	int rc = 0;

	if (nslots < n) {
		xtx_errf(err, errlen, "%u class slots for %u classes", nslots, n);
		return -EINVAL;
	}
	if (!slots)
		return 0;
	seen = calloc(nslots ? nslots : 1, 1);
	if (!seen) {
		xtx_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n && !rc; i++) {
		if (slots[i] >= nslots || seen[slots[i]]) {
			xtx_errf(err, errlen, "class %u: slot %u %s", i, slots[i],
				 slots[i] >= nslots ? "out of range" : "taken twice");
			rc = -EINVAL;
		} else {
			seen[slots[i]] = 1;
		}
	}
	free(seen);
	return rc;
}

struct xtx_sched_shared *xtx_sched_shared__create(const struct xtx_sched_config *cfg,
						  unsigned nqueues, uint64_t slice_ns,
						  uint64_t now_ns, char *err, size_t errlen)
{
	return xtx_sched_shared__create_slots(cfg, NULL, cfg ? xtx_sched_config__class_count(cfg) :
					      0, nqueues, slice_ns, now_ns, err, errlen);
}

struct xtx_sched_shared *xtx_sched_shared__create_slots(const struct xtx_sched_config *cfg,
							const uint32_t *slots, unsigned nslots,
							unsigned nqueues, uint64_t slice_ns,
							uint64_t now_ns, char *err,
							size_t errlen)
{
	struct xtx_sched_shared *sh;
	unsigned i, n;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	rc = xtx_sched_config__validate(cfg, err, errlen);
	if (!rc)
		rc = _xtx_slots_check(slots, xtx_sched_config__class_count(cfg), nslots, err,
				      errlen);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	if (!nqueues || nqueues > XTX_SCHED_SHARED_MAXQ) {
		xtx_errf(err, errlen, "%u queues: expected 1 to %u", nqueues,
			 XTX_SCHED_SHARED_MAXQ);
		errno = EINVAL;
		return NULL;
	}
	if (!slice_ns)
		slice_ns = XTX_SCHED_SLICE_NS;
	n = xtx_sched_config__class_count(cfg);
	sh = calloc(1, sizeof(*sh));
	if (!sh) {
		xtx_errf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	sh->mem_len = (size_t)nslots * (sizeof(*sh->cls) + nqueues * sizeof(*sh->q) + 1);
	sh->mem = xtx_mem__alloc(sh->mem_len, -1);	/* zeroed: every slot queue scope */
	if (!sh->mem) {
		xtx_errf(err, errlen, "cannot allocate %zu bytes of device-wide class state",
			 sh->mem_len);
		free(sh);
		errno = ENOMEM;
		return NULL;
	}
	sh->cls = sh->mem;
	sh->q = (struct _xtx_shq *)(sh->cls + nslots);
	sh->device = (uint8_t *)(sh->q + (size_t)nslots * nqueues);
	sh->ncls = nslots;
	sh->nqueues = nqueues;
	sh->slice_ns = slice_ns;
	for (i = 0; i < n; i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);

		if (co->scope == XTX_SCOPE_QUEUE)
			continue;
		sh->device[slot_of(slots, i)] = 1;
		init_slot(sh, slot_of(slots, i), co, now_ns);
	}
	return sh;
}

void xtx_sched_shared__destroy(struct xtx_sched_shared *sh)
{
	if (!sh)
		return;
	xtx_mem__free(sh->mem, sh->mem_len);
	free(sh);
}

unsigned xtx_sched_shared__class_count(const struct xtx_sched_shared *sh)
{
	unsigned i, n = 0;

	for (i = 0; sh && i < sh->ncls; i++)
		n += sh->device[i];
	return n;
}

int xtx_sched_shared__change(struct xtx_sched_shared *sh, const struct xtx_sched_config *cfg,
			     uint64_t now_ns)
{
	unsigned i;

	if (!sh || !cfg || xtx_sched_config__class_count(cfg) > sh->ncls)
		return -EINVAL;
	for (i = 0; i < xtx_sched_config__class_count(cfg); i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);

		if (sh->device[i] != (co->scope != XTX_SCOPE_QUEUE))
			return -EINVAL;
	}
	return xtx_sched_shared__change_slots(sh, cfg, NULL, now_ns);
}

/* A slot that stays device-wide changes its buckets; one that becomes device-wide
 * starts full with its views zeroed (no scheduler reads it: its class is new to the
 * device-wide tree); one no longer device-wide is left as it is until a later change
 * gives it to another class. */
int xtx_sched_shared__change_slots(struct xtx_sched_shared *sh,
				   const struct xtx_sched_config *cfg, const uint32_t *slots,
				   uint64_t now_ns)
{
	unsigned i, n;
	uint8_t *dev;

	if (!sh || !cfg)
		return -EINVAL;
	n = xtx_sched_config__class_count(cfg);
	if (_xtx_slots_check(slots, n, sh->ncls, NULL, 0))
		return -EINVAL;
	dev = calloc(sh->ncls ? sh->ncls : 1, 1);
	if (!dev)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);
		uint64_t ceil = co->ceil ? co->ceil : co->rate;
		uint32_t k = slot_of(slots, i);
		struct _xtx_shclass *sc = &sh->cls[k];

		if (co->scope == XTX_SCOPE_QUEUE)
			continue;
		dev[k] = 1;
		if (!sh->device[k]) {
			/* Relaxed stores: no scheduler has this slot yet; the scheduler
			 * built after this call is published to its thread by the
			 * engine's release store of the change. */
			for (unsigned q = 0; q < sh->nqueues; q++) {
				struct _xtx_shq *v = &sh->q[(size_t)q * sh->ncls + k];

				atomic_store_explicit(&v->vt, 0, memory_order_relaxed);
				atomic_store_explicit(&v->ask, 0, memory_order_relaxed);
				atomic_store_explicit(&v->w, 0, memory_order_relaxed);
				atomic_store_explicit(&v->bprio, 0, memory_order_relaxed);
				atomic_store_explicit(&v->seen, 0, memory_order_relaxed);
			}
			init_slot(sh, k, co, now_ns);
			continue;
		}
		change_bucket(&sc->rate, _xtx_bytes_to_ns(co->burst, co->rate), sh->slice_ns,
			      now_ns);
		change_bucket(&sc->ceil, _xtx_bytes_to_ns(co->cburst, ceil), sh->slice_ns,
			      now_ns);
		init_fairness(sc, co->rate, co->burst);
	}
	memcpy(sh->device, dev, sh->ncls);
	free(dev);
	return 0;
}
