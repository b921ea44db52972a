/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_room.c - room: when a leaf holds its target of departures, producers that ask
 * (xtx_producer__room()) wait instead of filling it to its limit (xtx/sched.h;
 * docs/design.md, "Room").
 *
 * Rules
 *   - bl counts the wire bytes queued in the leaf; dep those it sent since win_t, ev_dep
 *     those since its last room event. They move per packet in sched_int.h's
 *     _xtx_room_enq() / _xtx_room_deq(); everything else here runs once per 10 ms window
 *     of a leaf that sends, or per change.
 *   - A room event (gen + 1) comes each half budget the leaf sends and when it empties:
 *     the producers may add half the budget per event (producer.c divides it among
 *     them), and each flow half the budget over the flows attached (at least 64 bytes:
 *     one packet), so one flow cannot take all of its producer's share.
 *   - A window ends at the first send 10 ms or more after it began. Its rate gives the
 *     sample target * dep / elapsed (bytes the leaf sends in one target at that rate);
 *     the budget moves half way to it and is clamped to [floor, cap]:
 *       floor = max(4 full frames, min(64 KiB, target * ceil)),
 *       cap   = max(floor, target * ceil).
 *     A leaf that never sent keeps its first budget, the floor. The floor carries a fast
 *     class until its first window has measured it; the cap is what the class may ever
 *     send in one target.
 *   - Above both, the budget is at most half of what the leaf's packet limits hold
 *     (limit, and flow_limit per flow attached), at the mean wire size of the packets it
 *     accepted (at least one packet): the backlog may pass the budget by about as much
 *     again (the producers' quotas) and must not reach those limits, where the
 *     scheduler drops. Not with room_nohold (xtx_sched__set_room_hold()).
 *   - full is set when bl reaches the budget and cleared when bl is down to half of it
 *     (or the budget grows past twice bl): producers are held back and let go once per
 *     half budget, not once per packet. An empty leaf always has room.
 *   - Every change of full, every event, and a leaf's first state (create) list the
 *     leaf once in s->room_chg until xtx_sched__room_changes() takes it (the dequeuer
 *     publishes it to producers).
 */
#include <errno.h>
#include <stdint.h>

#include "sched_int.h"

#define ROOM_FLOOR_MAX	65536u		/* bytes */
#define ROOM_FLOOR_PKTS	4u		/* full frames */
#define ROOM_FRAME	1514u		/* a full Ethernet frame without FCS */

/* target * ceil in bytes, saturated at UINT32_MAX - 1 (UINT32_MAX means no target). */
static uint32_t target_bytes(const struct _xtx_class *cl, uint32_t target_us)
{
	/* ceil bytes/s = (1e9 << 32) / ceil_mult; bytes in target = that * target_us / 1e6 */
	unsigned __int128 b = ((unsigned __int128)_XTX_NSEC_PER_SEC << 32) * target_us /
			      ((unsigned __int128)cl->ceil_mult * 1000000u);

	return b >= UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)b;
}

static uint32_t room_floor(const struct xtx_sched *s, const struct _xtx_leaf *L)
{
	uint32_t pk = ROOM_FLOOR_PKTS * (ROOM_FRAME + s->overhead);
	uint32_t f = L->tcap < ROOM_FLOOR_MAX ? L->tcap : ROOM_FLOOR_MAX;

	return f > pk ? f : pk;
}

/* Half of what L's packet limits hold, in wire bytes at the mean size of the packets it
 * accepted (a full frame before the first), and at least one such packet. */
static uint32_t hold_bytes(const struct xtx_sched *s, const struct _xtx_leaf *L)
{
	uint64_t fl = _xtx_room_flows(L), pk = L->limit, mean, b;

	fl = fl ? fl : 1;
	if (fl * L->flow_limit < pk)
		pk = fl * L->flow_limit;
	mean = (L->enq_pkts ? L->enq_bytes / L->enq_pkts : ROOM_FRAME) + s->overhead;
	b = pk * mean / 2;
	b = b > mean ? b : mean;
	return b >= UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)b;
}

/* b within [floor, cap] of the leaf's target and its class's ceil (tcap: set when the
 * target or the ceil is, not per window), then within what the leaf holds. */
static uint32_t clamp_budget(const struct xtx_sched *s, const struct _xtx_leaf *L, uint64_t b)
{
	uint32_t floor = room_floor(s, L), cap = L->tcap;
	uint32_t hold = s->room_nohold ? UINT32_MAX - 1 : hold_bytes(s, L);

	cap = cap > floor ? cap : floor;
	b = b < floor ? floor : b > cap ? cap : b;
	return b > hold ? hold : (uint32_t)b;
}

void xtx_sched__set_room_hold(struct xtx_sched *s, int hold)
{
	s->room_nohold = !hold;
}

static uint32_t target_us(uint64_t target_ns)
{
	return target_ns / 1000 > UINT32_MAX ? UINT32_MAX :
	       target_ns / 1000 ? (uint32_t)(target_ns / 1000) : 1;
}

/* The leaf's first budget (create): its floor; UINT32_MAX without a target. */
void _xtx_room_init(struct xtx_sched *s, struct _xtx_leaf *L, uint64_t target_ns,
		    uint64_t now)
{
	L->win_t = (uint32_t)(now >> 10);
	if (target_ns == XTX_TARGET_OFF || !target_ns) {
		L->target_us = 0;
		L->budget = UINT32_MAX;
		L->room = 0;
		return;
	}
	L->room = 1;
	L->target_us = target_us(target_ns);
	L->tcap = target_bytes(&s->cls[L->cls], L->target_us);
	L->budget = clamp_budget(s, L, 0);	/* the floor, within what L holds */
	_xtx_room_note(s, L);	/* its first state, for the first room_changes() */
}

void _xtx_room_retarget(struct xtx_sched *s, struct _xtx_leaf *L, uint64_t target_ns)
{
	L->target_us = target_us(target_ns);
	L->tcap = target_bytes(&s->cls[L->cls], L->target_us);
	L->budget = clamp_budget(s, L, L->budget);
	_xtx_room_update(s, L);
	_xtx_room_note(s, L);
}

void _xtx_room_note(struct xtx_sched *s, struct _xtx_leaf *L)
{
	if (L->room_listed)
		return;
	L->room_listed = 1;
	s->room_chg[s->nroom_chg++] = (uint32_t)(L - s->leaves);
}

void _xtx_room_roll(struct xtx_sched *s, struct _xtx_leaf *L, uint64_t now)
{
	uint32_t now_us = (uint32_t)(now >> 10), el = now_us - L->win_t;
	uint64_t sample;

	if (el) {	/* called for leaves with a target only */
		/* dep < 2^32 and target_us < 2^32: the product fits 64 bits. */
		sample = (uint64_t)L->dep * L->target_us / el;
		L->budget = clamp_budget(s, L, ((uint64_t)L->budget + sample) / 2);
		_xtx_room_update(s, L);
	}
	L->win_t = now_us;
	L->dep = 0;
	L->att_prev = L->win_att;
	L->win_att = L->nattached;
}

int xtx_sched__room_full(const struct xtx_sched *s, unsigned cls)
{
	if (!s || cls >= s->ncls || s->cls[cls].leaf == _XTX_NIL)
		return 0;
	return s->leaves[s->cls[cls].leaf].room_full;
}

unsigned xtx_sched__room_changes(struct xtx_sched *s, struct xtx_room_state *out,
				 unsigned n)
{
	unsigned k = 0;

	while (k < n && s->nroom_chg) {	/* only leaves with a target are listed */
		struct _xtx_leaf *L = &s->leaves[s->room_chg[--s->nroom_chg]];
		uint32_t fl = _xtx_room_flows(L);
		uint32_t per = L->budget / 2 / (fl ? fl : 1);

		L->room_listed = 0;
		out[k++] = (struct xtx_room_state){
			.cls = s->slot[L->cls], .gen = L->gen, .full = L->room_full,
			.quota = L->budget / 2, .flow_quota = per > 64 ? per : 64 };
	}
	return k;
}
