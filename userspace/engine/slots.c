/* SPDX-License-Identifier: BSD-3-Clause */
/* slots.c - class slots: the class index a descriptor carries, kept for a class while it
 * is in the tree (engine_int.h, "slots.c"), and the handle -> slot index that
 * xtx_engine__class_index() reads from any thread.
 *
 * Rules
 *   - Writers hold change_lock (open, and a live change once every queue runs the new
 *     tree). Readers take no lock: the index is an open-addressing table of words
 *     (handle << 32 | slot + 1; 0 empty) whose keys are never removed, only given a new
 *     slot, so a probe always ends at its key or at an empty word; the slot found is
 *     checked against slot_owner (1 << 32 | handle while that class has it).
 *   - The table holds 4 * slots words (at least 64); a change that would fill more than
 *     3/4 of it with handles never seen before is refused: that takes thousands of
 *     distinct handles added over the engine's life.
 * Control path only.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "err.h"

#define OWNER(h)	((1ull << 32) | (h))

static uint32_t hidx_pos(uint32_t handle, uint32_t mask)
{
	return (uint32_t)(handle * 0x9e3779b1u) & mask;
}

/* The table position of handle's word, or of the empty word where it would go. */
static uint32_t hidx_find(const struct xtx_engine *e, uint32_t handle, uint64_t *w)
{
	uint32_t i = hidx_pos(handle, e->hidx_mask);

	for (uint32_t n = 0; n <= e->hidx_mask; n++, i = (i + 1) & e->hidx_mask) {
		/* Relaxed: a word is written whole (slots.c rules); pairs with the relaxed
		 * stores of hidx_set(). */
		*w = atomic_load_explicit(&e->hidx[i], memory_order_relaxed);
		if (!*w || (uint32_t)(*w >> 32) == handle)
			return i;
	}
	*w = 0;
	return UINT32_MAX;	/* full: never, the table stays at most 3/4 full */
}

static void hidx_set(struct xtx_engine *e, uint32_t handle, uint32_t slot)
{
	uint64_t w;
	uint32_t i = hidx_find(e, handle, &w);

	if (i == UINT32_MAX)
		return;
	if (!w)
		e->hidx_n++;
	/* Relaxed: see hidx_find(). */
	atomic_store_explicit(&e->hidx[i], (uint64_t)handle << 32 | (slot + 1),
			      memory_order_relaxed);
}

int xtx_slot_lookup(const struct xtx_engine *e, uint32_t handle)
{
	uint64_t w;
	uint32_t slot;

	if (!e->hidx || hidx_find(e, handle, &w) == UINT32_MAX || !w)
		return -ENOENT;
	slot = (uint32_t)w - 1;
	/* Relaxed: a class that is being removed may be found or not, either is right
	 * while the change runs; pairs with the relaxed stores of xtx_slots_commit(). */
	return atomic_load_explicit(&e->slot_owner[slot], memory_order_relaxed) == OWNER(handle) ?
	       (int)slot : -ENOENT;
}

int xtx_slots_open(struct xtx_engine *e, char *err, size_t errlen)
{
	unsigned n = xtx_sched_config__class_count(e->cfg), want = e->o.max_classes;
	uint32_t size = 64;

	if (!want)
		want = n + 64 < XTX_CLASS_MAX + 1 ? n + 64 : XTX_CLASS_MAX + 1;
	if (want < n || want > XTX_CLASS_MAX + 1) {
		xtx_errf(err, errlen, "max_classes %u: the tree has %u classes; at most %u",
			 want, n, XTX_CLASS_MAX + 1);
		return -EINVAL;
	}
	e->nslots = want;
	while (size < 4 * want)
		size *= 2;
	e->slot_of = calloc(want, sizeof(*e->slot_of));
	e->slot_state = calloc(want, 1);
	e->slot_owner = calloc(want, sizeof(*e->slot_owner));
	e->hidx = calloc(size, sizeof(*e->hidx));
	if (!e->slot_of || !e->slot_state || !e->slot_owner || !e->hidx) {
		xtx_errf(err, errlen, "out of memory for %u class slots", want);
		return -ENOMEM;
	}
	e->hidx_mask = size - 1;
	for (uint32_t i = 0; i < n; i++)
		e->slot_of[i] = i;
	xtx_slots_commit(e, e->cfg, e->slot_of);
	return 0;
}

void xtx_slots_free(struct xtx_engine *e)
{
	free(e->slot_of);
	free(e->slot_state);
	free(e->slot_owner);
	free(e->hidx);
}

/* The slot a class new to the tree takes, UINT32_MAX if none; taken[] marks the slots
 * this plan gave already. */
static uint32_t take_slot(const struct xtx_engine *e, const uint8_t *taken)
{
	for (unsigned pass = 0; pass < 2; pass++) {
		uint8_t want = pass ? XTX_SLOT_FREED : XTX_SLOT_NEW;

		for (uint32_t k = 0; k < e->nslots; k++)
			if (e->slot_state[k] == want && !taken[k])
				return k;
	}
	return UINT32_MAX;
}

int xtx_slots_plan(struct xtx_engine *e, const struct xtx_sched_config *cfg, uint32_t *slots,
		   char *err, size_t errlen)
{
	unsigned n = xtx_sched_config__class_count(cfg), fresh = 0;
	uint8_t *taken = calloc(e->nslots ? e->nslots : 1, 1);
	char h[XTX_HANDLE_STRLEN];
	int rc = 0;

	if (!taken) {
		xtx_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {	/* staying classes first: their slots */
		int old = xtx_sched_config__class_index(e->cur, xtx_sched_config__class(cfg, i)->handle);

		slots[i] = old >= 0 ? e->slot_of[old] : UINT32_MAX;
		if (old >= 0)
			taken[slots[i]] = 1;
	}
	for (unsigned i = 0; i < n && !rc; i++) {
		uint64_t w;

		if (slots[i] != UINT32_MAX)
			continue;
		slots[i] = take_slot(e, taken);
		if (hidx_find(e, xtx_sched_config__class(cfg, i)->handle, &w) != UINT32_MAX && !w)
			fresh++;
		if (slots[i] == UINT32_MAX) {
			xtx_handle__str(xtx_sched_config__class(cfg, i)->handle, h, sizeof(h));
			xtx_errf(err, errlen, "class %s: no class slot left: the engine was opened "
				 "for %u classes (max_classes, xtx-shape --max-classes); restart "
				 "with more", h, e->nslots);
			rc = -EOPNOTSUPP;
		} else {
			taken[slots[i]] = 1;
		}
	}
	if (!rc && (e->hidx_n + fresh) * 4 > (e->hidx_mask + 1) * 3) {
		xtx_errf(err, errlen, "%u distinct class handles over the engine's life: its "
			 "index holds %u; restart", e->hidx_n + fresh, (e->hidx_mask + 1) * 3 / 4);
		rc = -EOPNOTSUPP;
	}
	free(taken);
	return rc;
}

/* cfg's default leaf (its `default`, else its first leaf), as the scheduler takes it. */
static unsigned default_leaf(const struct xtx_sched_config *cfg)
{
	int d = xtx_sched_config__class_index(cfg, xtx_sched_config__default(cfg));

	for (unsigned i = 0; d < 0 && i < xtx_sched_config__class_count(cfg); i++)
		if (xtx_sched_config__is_leaf(cfg, xtx_sched_config__class(cfg, i)->handle) == 1)
			d = (int)i;
	return d < 0 ? 0 : (unsigned)d;
}

void xtx_slots_commit(struct xtx_engine *e, const struct xtx_sched_config *cfg,
		      uint32_t *slots)
{
	enum { LIVE = 0x80 };	/* marks, in slot_state, the slots cfg has */
	unsigned n = xtx_sched_config__class_count(cfg);

	for (unsigned i = 0; i < n; i++) {
		uint32_t hd = xtx_sched_config__class(cfg, i)->handle;

		e->slot_state[slots[i]] = XTX_SLOT_USED | LIVE;
		hidx_set(e, hd, slots[i]);
		/* Relaxed: see xtx_slot_lookup(). */
		atomic_store_explicit(&e->slot_owner[slots[i]], OWNER(hd), memory_order_relaxed);
	}
	for (uint32_t k = 0; k < e->nslots; k++) {
		if (e->slot_state[k] & LIVE) {
			e->slot_state[k] &= (uint8_t)~LIVE;
		} else if (e->slot_state[k] == XTX_SLOT_USED) {
			e->slot_state[k] = XTX_SLOT_FREED;
			/* Relaxed: see xtx_slot_lookup(). */
			atomic_store_explicit(&e->slot_owner[k], 0, memory_order_relaxed);
		}
	}
	if (slots != e->slot_of)
		memcpy(e->slot_of, slots, n * sizeof(*slots));
	/* Relaxed: a hint for the room check of a stale index; pairs with nothing. */
	atomic_store_explicit(&e->dflt_slot, slots[default_leaf(cfg)], memory_order_relaxed);
}
