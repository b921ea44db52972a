/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_codel.c - CoDel (RFC 8289) on each flow of a leaf, as fq_codel applies it
 * (xtx/sched.h; docs/design.md, "CoDel"). After the kernel's include/net/codel_impl.h,
 * our own code.
 *
 * Rules
 *   - A packet's sojourn is now - its enqueue stamp (the time it joined the scheduler;
 *     its wait in the stage before that is not counted, as fq_codel counts from its
 *     enqueue).
 *   - should_drop(head): false, and the flow "below", if there is no head, its sojourn
 *     is under target, or at most one MTU (XTX_CODEL_MTU frame bytes) would stay queued
 *     behind it. Else the first time: first_above = now + interval, false; later: true
 *     once now > first_above (above target for a whole interval).
 *   - Not dropping and should_drop: drop (or mark) the head, enter dropping. count
 *     restarts at 1, or at the drops of the last dropping state beyond its first
 *     (count - lastcount) when that state ended less than 16 intervals ago and dropped
 *     more than one; drop_next = now + interval / sqrt(count).
 *   - Dropping: a head that should not be dropped ends the state; while now >=
 *     drop_next, count++ and the head is dropped (the next head is then looked at: the
 *     state may end) or marked (it is then sent), and drop_next += interval /
 *     sqrt(count): the control law.
 *   - A flow the walk finds empty leaves the dropping state (_xtx_codel_empty()).
 *   - interval / sqrt(count) is exact to the ns (an integer square root with 32
 *     fractional bits, on the drop path only), where the kernel keeps a 16-bit Newton
 *     estimate of 1 / sqrt(count).
 *   - Dropped descriptors go to s->dropped for xtx_sched__take_dropped(); while it is
 *     full the head is sent instead (nothing lost: the caller owns every frame).
 *
 * Per packet without a drop: one sojourn and one backlog compare, on lines the walk
 * already holds, in leaves with CoDel only.
 */
#include <stdint.h>

#include "sched_int.h"

/* floor(sqrt(x)), bit by bit. */
static uint64_t isqrt128(unsigned __int128 x)
{
	unsigned __int128 r = 0, bit = (unsigned __int128)1 << 126;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (uint64_t)r;
}

/* t + interval / sqrt(count), to the ns below: sqrt(count) with 32 fractional bits.
 * count >= 1; interval <= an hour < 2^42, so interval << 32 fits 128 bits. */
static uint64_t control_law(uint64_t t, uint64_t interval, uint32_t count)
{
	uint64_t root = isqrt128((unsigned __int128)count << 64);	/* 2^32 sqrt(count) */

	return t + (uint64_t)(((unsigned __int128)interval << 32) / root);
}

static inline uint64_t sojourn(const struct _xtx_pkt *p, uint64_t now)
{
	return (uint64_t)((uint32_t)(now >> 10) - p->stamp) << 10;
}

static bool should_drop(const struct xtx_sched *s, const struct _xtx_leaf *L,
			struct _xtx_codel *cv, const struct _xtx_flow *f, uint64_t now)
{
	const struct _xtx_pkt *p;

	if (!f->qlen) {
		cv->first_above = 0;
		return false;
	}
	p = &s->pool[f->head];
	if (sojourn(p, now) < L->cd_target || cv->backlog - p->d.len <= XTX_CODEL_MTU) {
		cv->first_above = 0;
		return false;
	}
	if (!cv->first_above) {
		cv->first_above = now + L->cd_interval;
		return false;
	}
	return now > cv->first_above;
}

/* Mark the head CE if the leaf asks and it is ECN-capable: then it is sent. */
static bool mark(struct xtx_sched *s, struct _xtx_leaf *L, const struct _xtx_flow *f)
{
	if (!L->codel_ecn || !s->ecn_mark || !s->ecn_mark(s->ecn_ctx, &s->pool[f->head].d))
		return false;
	L->ecn_marks++;
	return true;
}

/* Drop flow fi's head into s->dropped. false (nothing done) while that is full. */
static bool drop_head(struct xtx_sched *s, struct _xtx_leaf *L, uint32_t fi, uint64_t now)
{
	struct _xtx_flow *f = &L->flows[fi];
	uint32_t pi = f->head;
	struct _xtx_pkt *p = &s->pool[pi];

	if (s->dr_n == XTX_SCHED_DROPPED_MAX)
		return false;
	s->dropped[(s->dr_head + s->dr_n++) & (XTX_SCHED_DROPPED_MAX - 1)] = p->d;
	f->head = p->next;
	f->qlen--;
	L->qlen--;
	s->qlen--;
	L->codel_drops++;
	_xtx_slow_deq(s, L, fi, p->d.len, now, false);
	p->next = s->free_head;
	s->free_head = pi;
	return true;
}

/* What is left of the flow after drops: its head may go, it is empty, or it waits. */
static int after_drops(const struct xtx_sched *s, const struct _xtx_flow *f, uint64_t now,
		       uint64_t *t)
{
	uint64_t h;

	if (!f->qlen)
		return _XTX_CODEL_EMPTY;
	h = _xtx_head_time(s, f);
	if (h > now) {
		*t = h;
		return _XTX_CODEL_WAIT;
	}
	return _XTX_CODEL_SERVE;
}

int _xtx_codel_head(struct xtx_sched *s, struct _xtx_leaf *L, uint32_t fi, uint64_t now,
		    uint64_t *t)
{
	struct _xtx_flow *f = &L->flows[fi];
	struct _xtx_codel *cv = &L->cv[fi];
	bool drop = should_drop(s, L, cv, f, now);
	uint32_t delta;

	if (cv->dropping) {
		if (!drop) {
			cv->dropping = 0;	/* sojourn below target: leave the state */
			return _XTX_CODEL_SERVE;
		}
		while (cv->dropping && now >= cv->drop_next) {
			cv->count++;
			if (mark(s, L, f)) {
				cv->drop_next = control_law(cv->drop_next, L->cd_interval,
							    cv->count);
				return _XTX_CODEL_SERVE;
			}
			if (!drop_head(s, L, fi, now)) {
				cv->count--;	/* no drop: as if not due yet */
				return _XTX_CODEL_SERVE;
			}
			if (!should_drop(s, L, cv, f, now))
				cv->dropping = 0;
			else
				cv->drop_next = control_law(cv->drop_next, L->cd_interval,
							    cv->count);
		}
		return after_drops(s, f, now, t);
	}
	if (!drop)
		return _XTX_CODEL_SERVE;
	if (!mark(s, L, f)) {
		if (!drop_head(s, L, fi, now))
			return _XTX_CODEL_SERVE;
		should_drop(s, L, cv, f, now);	/* as the kernel: updates first_above */
	}
	cv->dropping = 1;
	/* A dropping state that ended recently: start from the rate that held the queue
	 * then. */
	delta = cv->count - cv->lastcount;
	if (delta > 1 && (int64_t)(now - cv->drop_next) < (int64_t)(16 * L->cd_interval))
		cv->count = delta;
	else
		cv->count = 1;
	cv->lastcount = cv->count;
	cv->drop_next = control_law(now, L->cd_interval, cv->count);
	return after_drops(s, f, now, t);
}

unsigned xtx_sched__take_dropped(struct xtx_sched *s, struct xtx_desc *out, unsigned n)
{
	unsigned k = 0;

	while (k < n && s->dr_n) {
		out[k++] = s->dropped[s->dr_head];
		s->dr_head = (s->dr_head + 1) & (XTX_SCHED_DROPPED_MAX - 1);
		s->dr_n--;
	}
	return k;
}
