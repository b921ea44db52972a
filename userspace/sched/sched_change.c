/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_change.c - a running scheduler takes new class parameters (xtx_sched__change(),
 * xtx/sched.h; docs/config.md, "Changing a running tree").
 *
 * Rules
 *   - The tree keeps its shape: the classes in config order (a descriptor's class index
 *     names the same class before and after), parents, scope, fq and flow table sizes,
 *     and whether each leaf has CoDel state and a room target. Those are what the one
 *     allocation of create() was laid out for; a change of them is refused whole.
 *   - Applying runs in the owner thread between two scheduler calls (no deferred charge
 *     is open then): every active leaf leaves its rows and feeds, every class takes its
 *     new rate, ceil, bursts, prio and quantum (tokens kept in ns, cut to the new
 *     depth), each class whose mode is not CAN_SEND under them is due in the wait heap
 *     at now, and the leaves come back at their new prio. So a new prio or quantum acts
 *     from the next dequeue, and a new rate from the next charge.
 *   - A leaf's packets stay queued. A lowered limit refuses new packets until the leaf
 *     is below it (sch_fq's change drops the excess instead; here nothing queued is
 *     lost). The absorb bookkeeping (near_list, near_fixed) is redone for new limits.
 *   - A room target keeps its budget within the new floor and cap; a new ceil moves
 *     both.
 * Slow path only.
 */
#include <errno.h>
#include <stdint.h>

#include <xtx/sched.h>
#include "sched_config_pvt.h"
#include "sched_int.h"

static uint64_t room_target(const struct xtx_sched *s, const struct xtx_class_opts *co)
{
	uint64_t t = co->target ? co->target : s->dflt_target;

	return t == XTX_TARGET_OFF ? 0 : t;
}

/* What differs in class i between the running tree and cfg that only a new scheduler
 * can take; NULL: nothing. */
static const char *fixed_diff(const struct xtx_sched *s, const struct xtx_sched_config *cfg,
			      uint32_t i)
{
	const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);
	const struct _xtx_class *cl = &s->cls[i];
	int p = xtx_sched_config__class_index(cfg, co->parent);
	uint32_t parent = p < 0 ? _XTX_NIL : (uint32_t)p;
	const struct _xtx_leaf *L;

	if (co->handle != cl->handle)
		return "a different class at this place in the file (classes can be "
		       "changed, not added, removed or moved)";
	if (parent != cl->parent)
		return "a different parent";
	if ((xtx_sched_config__is_leaf(cfg, co->handle) == 1) != (cl->leaf != _XTX_NIL))
		return "a leaf becomes an inner class or the reverse";
	if (s->sh && cl->shared != (co->scope == XTX_SCOPE_DEVICE))
		return "a different scope";
	if (cl->leaf == _XTX_NIL)
		return NULL;
	L = &s->leaves[cl->leaf];
	if (L->fq != co->fq || (co->fq && L->nflows != co->flows))
		return "fq or flows changed";
	if (L->codel != _xtx_leaf_codel(co, s->codel_dflt))
		return "codel turned on or off";
	if (L->room != (room_target(s, co) != 0))
		return "a room target turned on or off";
	return NULL;
}

int xtx_sched__change_check(const struct xtx_sched *s, const struct xtx_sched_config *cfg,
			    char *err, size_t errlen)
{
	uint64_t limits = 0, before = 0;
	char h[XTX_HANDLE_STRLEN];
	uint32_t i, n;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!s || !cfg)
		return -EINVAL;
	rc = xtx_sched_config__validate(cfg, err, errlen);
	if (rc)
		return rc;
	n = xtx_sched_config__class_count(cfg);
	if (n != s->ncls) {
		_xtx_cfg_err(cfg, 0, err, errlen, "%u classes where the running tree has %u: "
			     "classes can be changed, not added or removed, while it runs", n,
			     s->ncls);
		return -EOPNOTSUPP;
	}
	if (xtx_sched_config__overhead(cfg) != s->overhead) {
		_xtx_cfg_err(cfg, 0, err, errlen, "overhead %u where the running tree has %u: "
			     "it cannot change while it runs", xtx_sched_config__overhead(cfg),
			     s->overhead);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < n; i++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, i);
		const char *why = fixed_diff(s, cfg, i);

		if (why) {
			xtx_handle__str(co->handle, h, sizeof(h));
			_xtx_cfg_err(cfg, co->line, err, errlen, "class %s: %s: that needs a "
				     "restart", h, why);
			return -EOPNOTSUPP;
		}
		if (s->cls[i].leaf != _XTX_NIL) {
			limits += co->limit;
			before += s->leaves[s->cls[i].leaf].limit;
		}
	}
	if (limits > s->npool && limits > before) {
		_xtx_cfg_err(cfg, 0, err, errlen, "the leaves' limits add up to %llu packets; "
			     "the running scheduler's pool holds %u (sized when it started): "
			     "lower them, or restart", (unsigned long long)limits, s->npool);
		return -EOPNOTSUPP;
	}
	return 0;
}

static void change_leaf(struct xtx_sched *s, struct _xtx_leaf *L,
			const struct xtx_class_opts *co)
{
	_xtx_leaf_params(L, co);
	if (L->room)
		_xtx_room_retarget(s, L, room_target(s, co));
	L->slow = L->room | L->codel;
	if (_xtx_leaf_cap(L) < XTX_SCHED_ABSORB)
		s->near_fixed++;
	else if (L->qlen >= _xtx_leaf_near_at(L) && !L->near_listed) {
		L->near_listed = 1;
		s->near_list[s->nnear++] = (uint32_t)(L - s->leaves);
	}
}

int xtx_sched__change(struct xtx_sched *s, const struct xtx_sched_config *cfg, uint64_t now_ns,
		      char *err, size_t errlen)
{
	uint32_t r2q, i;
	int rc = xtx_sched__change_check(s, cfg, err, errlen);

	if (rc)
		return rc;
	if (now_ns > s->now)
		s->now = now_ns;
	r2q = xtx_sched_config__r2q(cfg);
	_xtx_htb_unlink(s);
	for (i = 0; i < s->ncls; i++) {
		struct _xtx_class *cl = &s->cls[i];

		_xtx_class_params(cl, xtx_sched_config__class(cfg, i), r2q);
		if (cl->shared) {	/* local buckets: one slice (sched_shared.c) */
			cl->buffer = _xtx_sh_par(&_xtx_sh_of(s, i)->rate.slice);
			cl->cbuffer = _xtx_sh_par(&_xtx_sh_of(s, i)->ceil.slice);
		} else {
			cl->feed_w = (uint32_t)cl->quantum;
		}
		if (cl->tokens > cl->buffer)
			cl->tokens = cl->buffer;
		if (cl->ctokens > cl->cbuffer)
			cl->ctokens = cl->cbuffer;
	}
	_xtx_htb_relink(s, s->now);
	s->near_fixed = 0;
	for (i = 0; i < s->ncls; i++)
		if (s->cls[i].leaf != _XTX_NIL)
			change_leaf(s, &s->leaves[s->cls[i].leaf], xtx_sched_config__class(cfg, i));
	_xtx_sched_set_default(s, cfg);
	return 0;
}
