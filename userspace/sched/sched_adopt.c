/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_adopt.c - a scheduler built from a new tree takes over a running one's state
 * (xtx_sched__adopt(), xtx/sched.h; docs/config.md, "Changing a running tree").
 *
 * Rules
 *   - Classes are matched by handle. A class that stays keeps its tokens and ctokens in
 *     ns (cut to the new bursts, as xtx_sched__change() does), its checkpoint and its
 *     mode; the wait heap is then rebuilt from them (_xtx_htb_relink()). A device-wide
 *     class's local buckets and debts carry over only if it keeps its slot and the same
 *     device-wide state: they were taken from that slot's buckets.
 *   - Counters carry over when the class stays a leaf or stays an inner class; one that
 *     changes kind starts at zero (its old counters described another thing).
 *   - Packets move flow by flow in arrival order, keeping departure time and CoDel
 *     stamp, to the leaf of the same handle, else to the default leaf, where they count
 *     as enqueued. Nothing is dropped: the caller sized `to`'s pool.
 * Slow path: O(classes + flow slots + packets), once per live change that reshapes the
 * tree, in the owner thread.
 */
#include <errno.h>
#include <stdint.h>

#include <xtx/sched.h>
#include "sched_int.h"

static void carry_leaf(struct _xtx_leaf *a, const struct _xtx_leaf *b)
{
	a->enq_pkts = b->enq_pkts;
	a->enq_bytes = b->enq_bytes;
	a->collisions = b->collisions;
	a->pace_clamped = b->pace_clamped;
	a->room_closes = b->room_closes;
	a->codel_drops = b->codel_drops;
	a->ecn_marks = b->ecn_marks;
}

/* Class i of to takes what class j of from holds. */
static void carry_class(struct xtx_sched *to, uint32_t i, const struct xtx_sched *from,
			uint32_t j)
{
	struct _xtx_class *a = &to->cls[i];
	const struct _xtx_class *b = &from->cls[j];
	bool same_sh = a->shared && b->shared && to->sh == from->sh &&
		       to->slot[i] == from->slot[j];

	if (a->shared == b->shared && (!a->shared || same_sh)) {
		a->tokens = b->tokens < a->buffer ? b->tokens : a->buffer;
		a->ctokens = b->ctokens < a->cbuffer ? b->ctokens : a->cbuffer;
		a->t_c = b->t_c;
		a->mode = b->mode;
	}
	if (same_sh) {
		a->owed_t = b->owed_t;
		a->owed_c = b->owed_c;
		a->vt_rem = b->vt_rem;
		a->vt_w = b->vt_w;
		a->fair_wire = b->fair_wire;
		a->blocked = b->blocked;
	}
	if ((a->leaf == _XTX_NIL) != (b->leaf == _XTX_NIL))
		return;
	a->sent_pkts = b->sent_pkts;
	a->sent_bytes = b->sent_bytes;
	a->borrows = b->borrows;
	a->throttled = b->throttled;
	for (unsigned r = 0; r < XTX_DROP_CODEL; r++)
		a->drops[r] = b->drops[r];
	if (a->leaf != _XTX_NIL)
		carry_leaf(&to->leaves[a->leaf], &from->leaves[b->leaf]);
}

/* The leaf of to that from's leaf Lf's packets go to, NULL if none; *dflt: it is the
 * default leaf (its class is gone or no longer a leaf). */
static struct _xtx_leaf *dest_leaf(struct xtx_sched *to, const struct xtx_sched *from,
				   const struct _xtx_leaf *Lf, bool *dflt)
{
	int j = xtx_sched__class_index(to, from->cls[Lf->cls].handle);

	*dflt = j < 0 || to->cls[j].leaf == _XTX_NIL;
	if (!*dflt)
		return &to->leaves[to->cls[j].leaf];
	return to->dflt_leaf != _XTX_NIL ? &to->leaves[to->dflt_leaf] : NULL;
}

/* Every packet of Lf to Lt, flow by flow. Returns the packets moved. */
static uint32_t move_leaf(struct xtx_sched *to, struct _xtx_leaf *Lt, const struct xtx_sched *from,
			  const struct _xtx_leaf *Lf, bool dflt, uint64_t now)
{
	uint32_t moved = 0;

	for (uint32_t fi = 0; fi < Lf->nflows; fi++) {
		const struct _xtx_flow *f = &Lf->flows[fi];
		uint32_t pi = f->head;

		for (uint32_t k = 0; k < f->qlen; k++, pi = from->pool[pi].next) {
			const struct _xtx_pkt *p = &from->pool[pi];
			uint32_t stamp = Lf->codel ? p->stamp : (uint32_t)(now >> 10);

			_xtx_fq_move(to, Lt, &p->d, p->tts, stamp, now);	/* pool checked */
			if (dflt) {
				Lt->enq_pkts++;
				Lt->enq_bytes += p->d.len;
			}
			moved++;
		}
	}
	return moved;
}

int xtx_sched__adopt(struct xtx_sched *to, struct xtx_sched *from, uint64_t now_ns)
{
	uint32_t moved_dflt = 0;
	bool dflt;

	if (!to || !from || to == from)
		return -EINVAL;
	if (from->dr_n)
		return -EBUSY;
	if (to->npool - to->qlen < from->qlen)
		return -ENOSPC;
	for (uint32_t li = 0; li < from->nleaves; li++)
		if (from->leaves[li].qlen && !dest_leaf(to, from, &from->leaves[li], &dflt))
			return -ENOSPC;		/* a validated tree always has a default */
	if (now_ns < from->now)
		now_ns = from->now;
	if (now_ns < to->now)
		now_ns = to->now;
	to->now = now_ns;
	_xtx_htb_unlink(to);
	for (uint32_t i = 0; i < to->ncls; i++) {
		int j = xtx_sched__class_index(from, to->cls[i].handle);

		if (j >= 0)
			carry_class(to, i, from, (uint32_t)j);
	}
	_xtx_htb_relink(to, now_ns);
	for (uint32_t li = 0; li < from->nleaves; li++) {
		const struct _xtx_leaf *Lf = &from->leaves[li];
		struct _xtx_leaf *Lt;

		if (!Lf->qlen)
			continue;
		Lt = dest_leaf(to, from, Lf, &dflt);
		moved_dflt += dflt ? move_leaf(to, Lt, from, Lf, true, now_ns) :
				     (move_leaf(to, Lt, from, Lf, false, now_ns), 0);
	}
	to->drop_no_class = from->drop_no_class;
	return (int)moved_dflt;
}
