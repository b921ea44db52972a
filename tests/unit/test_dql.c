/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dql.c - the TX ring's limit (userspace/engine/dql.h) against a simulated device on
 * a virtual clock: it grows until a device that sends R descriptors per microsecond no
 * longer starves between the dequeuer's looks, settles between two and four times what
 * the device drains per look (dql.h's band), and shrinks back when it slows down; a device that completes at once never waits
 * for it (no transmit cut below a batch).
 *
 * The dequeuer looks every `look` ns (a reap, then transmits of a batch each until the
 * limit stops it, always with more eligible: a backlogged scheduler); the device
 * completes its oldest descriptors at R per us. Idle: time the device had nothing.
 */
#include <stdio.h>

#include "../../userspace/engine/dql.h"
#include "check.h"

#define BATCH	64u
#define RING	2048u
#define US	1000ull

struct dev {
	double rate;		/* descriptors per ns */
	double done;		/* fractional progress of the device */
	uint64_t out;		/* outstanding */
	uint64_t idle_ns;
	uint64_t cuts;		/* transmits the limit made smaller than a batch */
};

/* Run `ns` of virtual time from *now; returns the device's idle share over it. */
static double run(struct xtx_dql *q, struct dev *d, uint64_t *now, uint64_t ns, uint64_t look,
		  uint32_t *max_limit)
{
	uint64_t end = *now + ns, idle0 = d->idle_ns;

	while (*now < end) {
		/* the device for one look */
		double can = d->rate > 0 ? d->rate * (double)look : (double)UINT64_MAX;

		if (d->rate == 0) {		/* completes at once: a step is reap + a batch */
			for (int k = 0; k < 4; k++) {
				uint32_t avail;

				xtx_dql__completed(q, (uint32_t)d->out);
				d->out = 0;
				xtx_dql__look(q, *now);
				avail = xtx_dql__avail(q, 0);
				if (avail < BATCH)
					d->cuts++;
				d->out = avail < BATCH ? avail : BATCH;
				if (!xtx_dql__avail(q, d->out))
					xtx_dql__limited(q);
			}
			*now += look;
			continue;
		} else if ((double)d->out >= can + d->done) {
			uint64_t k;

			d->done += can;
			k = (uint64_t)d->done;
			d->out -= k;
			d->done -= (double)k;
			xtx_dql__completed(q, (uint32_t)k);
		} else {			/* ran dry within the look */
			double busy = ((double)d->out - d->done) / d->rate;

			d->idle_ns += look - (uint64_t)busy;
			xtx_dql__completed(q, (uint32_t)d->out);
			d->out = 0;
			d->done = 0;
		}
		*now += look;
		/* the dequeuer: a look, then steps of a batch each until the limit stops it
		 * (dequeuer.c's transmit), then it naps until the next look */
		xtx_dql__look(q, *now);
		for (;;) {
			uint32_t room = RING - (uint32_t)d->out < BATCH ? RING - (uint32_t)d->out
								 : BATCH;
			uint32_t avail = xtx_dql__avail(q, d->out);

			if (avail < room) {
				room = avail;
				d->cuts++;
			}
			if (!room)
				break;
			d->out += room;
			if (!xtx_dql__avail(q, d->out))	/* filled it with more eligible */
				xtx_dql__limited(q);
		}
		if (q->limit > *max_limit)
			*max_limit = q->limit;
	}
	return (double)(d->idle_ns - idle0) / (double)ns;
}

int main(void)
{
	struct xtx_dql q;
	struct dev d = { 0 };
	uint64_t now = 1000000000ull;
	uint32_t maxl = 0;
	double idle;

	printf("a device that completes at once: no transmit is ever cut by the limit\n");
	xtx_dql__init(&q, BATCH, RING, now);
	d.rate = 0;
	run(&q, &d, &now, 1000000000ull, 2 * US, &maxl);
	CHECK_EQ_U64(0, d.cuts);

	printf("15 descriptors per us (10G at 64 bytes), a look every 20 us\n");
	xtx_dql__init(&q, BATCH, RING, now);
	d = (struct dev){ .rate = 15.0 / 1000 };
	maxl = 0;
	run(&q, &d, &now, 50 * 1000 * US, 20 * US, &maxl);	/* warm up: 50 ms */
	idle = run(&q, &d, &now, 1000 * 1000 * US, 20 * US, &maxl);
	printf("  limit %u (needs 300 per look), largest %u, grows %lu shrinks %lu, device idle "
	       "%.3f%% after the first 50 ms\n", q.limit, maxl, (unsigned long)q.grows,
	       (unsigned long)q.shrinks, idle * 100);
	CHECK(q.limit >= 2 * 300 && maxl <= 4 * 300 + BATCH);	/* the rules' band */
	CHECK(idle <= 0.01);

	printf("the device slows to 1 descriptor per us: the limit shrinks\n");
	d.rate = 1.0 / 1000;
	run(&q, &d, &now, 3000 * 1000 * US, 20 * US, &maxl);
	idle = run(&q, &d, &now, 1000 * 1000 * US, 20 * US, &maxl);
	printf("  limit %u (needs 20 per look), shrinks %lu, device idle %.3f%%\n", q.limit,
	       (unsigned long)q.shrinks, idle * 100);
	CHECK(q.limit <= 2 * BATCH);
	CHECK(idle <= 0.01);
	return check_summary("test_dql");
}
