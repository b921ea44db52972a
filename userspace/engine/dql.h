/* SPDX-License-Identifier: BSD-3-Clause */
/* dql.h - how much of its TX ring a dequeuer fills: a limit learnt from completions, as
 * the kernel's byte queue limits do for a driver's ring (lib/dynamic_queue_limits.c),
 * counted in descriptors (internal to libxtx).
 *
 * Packets wait in the scheduler, where priority and fairness decide, not in the ring,
 * which is a FIFO: the ring holds what keeps the device busy until the dequeuer's next
 * look, and not much more.
 *
 * Rules:
 * - transmit writes at most avail() = limit - outstanding; a transmit that filled the
 *   limit with more eligible right away marks it binding (limited()).
 * - completed() counts what the device completed since the last look, reaped or not
 *   (a reap takes a batch at most: after a stall the rest waits); look() (each
 *   transmit) takes that count as what the device drained between two looks.
 * - Grow: the limit was binding and the device drained half of it or more since: the
 *   next look may come too late, so the limit doubles (at most max). The device is not
 *   asked to run dry first: devices complete in batches (interrupt moderation, the null
 *   device's), so an idle wire can still show a batch outstanding.
 * - Shrink: every XTX_DQL_HOLD_NS, if the most the device drained between two looks
 *   was under a quarter of the limit, the limit falls to four times that (at least
 *   half of it, at least min).
 * - min is one batch (XTX_DEQ_BATCH): a device that completes at once never waits for
 *   the limit; max is the ring's size.
 * One owner, the queue's dequeuer: no atomics.
 */
#ifndef XTX_DQL_H
#define XTX_DQL_H

#include <stdint.h>

#define XTX_DQL_HOLD_NS	(100ull * 1000 * 1000)	/* the most drained per look, over this */

struct xtx_dql {
	uint32_t limit;		/* descriptors the ring may hold */
	uint32_t min, max;
	uint32_t done;		/* completions reaped since the last look */
	uint32_t max_done;	/* the most drained between two looks since hold_t */
	uint8_t binding;	/* the last transmit was cut by the limit */
	uint64_t hold_t;	/* start of the shrink interval, ns */
	uint64_t grows, shrinks, limited;	/* counters */
};

static inline void xtx_dql__init(struct xtx_dql *q, uint32_t min, uint32_t max, uint64_t now)
{
	*q = (struct xtx_dql){ .limit = min, .min = min, .max = max < min ? min : max,
			       .hold_t = now };
}

/* Descriptors transmit may write with `outstanding` in the ring. */
static inline uint32_t xtx_dql__avail(const struct xtx_dql *q, uint64_t outstanding)
{
	return outstanding >= q->limit ? 0 : q->limit - (uint32_t)outstanding;
}

/* Reaped n completions. */
static inline void xtx_dql__completed(struct xtx_dql *q, uint32_t n)
{
	q->done += n;
}

/* A transmit is about to run: learn from what the device drained since the last one. */
static inline void xtx_dql__look(struct xtx_dql *q, uint64_t now)
{
	if (q->binding && q->done >= q->limit / 2 && q->limit < q->max) {
		q->limit = q->limit > q->max / 2 ? q->max : 2 * q->limit;
		q->grows++;
		q->max_done = 0;
		q->hold_t = now;
	}
	q->binding = 0;
	if (q->done > q->max_done)
		q->max_done = q->done;
	q->done = 0;
	if (now - q->hold_t < XTX_DQL_HOLD_NS)
		return;
	if (q->max_done < q->limit / 4 && q->limit > q->min) {
		uint32_t want = 4 * q->max_done > q->limit / 2 ? 4 * q->max_done : q->limit / 2;

		q->limit = want > q->min ? want : q->min;
		q->shrinks++;
	}
	q->max_done = 0;
	q->hold_t = now;
}

/* The transmit just made filled the limit with more eligible right away. */
static inline void xtx_dql__limited(struct xtx_dql *q)
{
	q->binding = 1;
	q->limited++;
}

#endif /* XTX_DQL_H */
