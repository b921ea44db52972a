/* SPDX-License-Identifier: BSD-3-Clause */
/* tstamp.h - departure conformance from AF_XDP TX timestamps (opts.tx_timestamps;
 * internal to libxtx), per class, the way Carousel reports it: how late each sampled
 * packet left against when it was meant to.
 *
 * Rules:
 * - One queue's dequeuer owns its struct xtx_tstamp; readers see only the counters and
 *   histograms, as relaxed atomics the owner alone writes.
 * - Every `every`-th descriptor written to the TX ring is sampled: its request gets
 *   XTX_TXMD_TIMESTAMP (a new request if the producer wrote none), and (its number
 *   among the queue's descriptors, address, intended time, class) goes into a FIFO.
 *   Intended: its departure time (XTX_DESC_F_TXTIME) if it has one, else the instant
 *   the scheduler released it.
 * - AF_XDP completes a queue's descriptors in the order they were written, so the k-th
 *   completion is the k-th descriptor: a sample is read when the completions reach its
 *   number. The kernel wrote the departure (CLOCK_TAI; copy mode: when the skb was
 *   freed after the device took it; zero-copy: the driver's hardware time, in the
 *   NIC's clock) at frame - 16 before the completion was posted.
 * - Lateness = departure (to CLOCK_MONOTONIC) - intended. Negative: counted early, in
 *   bucket 0. A departure more than 1 s before or 60 s after the intended time is not
 *   one (the driver wrote none: the bytes are the request's): counted invalid.
 * - Histogram: 8 buckets per power of two of ns (12.5% wide), XTX_TS_BUCKETS in all (up
 *   to 2^42 ns), per class slot.
 */
#ifndef XTX_TSTAMP_H
#define XTX_TSTAMP_H

#include <stdatomic.h>
#include <stdint.h>

#include <xtx/desc.h>
#include "defs.h"

#define XTX_TS_FIFO	1024		/* samples in flight per queue; power of two */
#define XTX_TS_BUCKETS	320
enum { XTX_TS_SAMPLES, XTX_TS_EARLY, XTX_TS_INVALID, XTX_TS_MAX, XTX_TS__WORDS };

struct xtx_ts_pending {
	uint64_t seq;			/* the descriptor's number on its queue */
	uint64_t addr;			/* its UMEM address */
	uint64_t intended;		/* CLOCK_MONOTONIC ns */
	uint32_t slot;			/* its class index */
};

struct xtx_tstamp {
	uint32_t every, count;		/* sample each every-th; count since the last */
	unsigned nslots;
	uint64_t tx_seq, comp_seq;	/* descriptors written, completions seen */
	uint32_t head, tail;		/* fifo[head & mask] is the oldest */
	struct xtx_ts_pending fifo[XTX_TS_FIFO];
	_Atomic uint32_t *hist;		/* nslots * XTX_TS_BUCKETS */
	_Atomic uint64_t *words;	/* nslots * XTX_TS__WORDS */
};

/* Bucket of a lateness of v ns. */
static inline unsigned xtx_ts_bucket(uint64_t v)
{
	unsigned k, b;

	if (v < 8)
		return (unsigned)v;
	k = 63u - (unsigned)__builtin_clzll(v);
	b = (k - 2) * 8 + (unsigned)((v >> (k - 3)) & 7);
	return b < XTX_TS_BUCKETS ? b : XTX_TS_BUCKETS - 1;
}

/* The largest lateness bucket b holds. */
static inline uint64_t xtx_ts_bucket_high(unsigned b)
{
	if (b < 8)
		return b;
	return ((uint64_t)(8 + b % 8 + 1) << (b / 8 + 2 - 3)) - 1;
}

/* Class slot cls summed over the queues' ts[0..nq) (any thread; a snapshot of relaxed
 * counters) into *st: counts, max, and p50 / p99 as the top of their bucket, at most
 * the largest lateness seen. */
struct xtx_departure_stats;
void xtx_ts_read(const struct xtx_tstamp *const *ts, unsigned nq, unsigned cls,
		 struct xtx_departure_stats *st);
/* 0, or -ENOMEM. */
int xtx_ts_init(struct xtx_tstamp *t, uint32_t every, unsigned nslots);
void xtx_ts_free(struct xtx_tstamp *t);
/* Before out[0..m) go into the TX ring (released at now). */
void xtx_ts_sample(struct xtx_tstamp *t, const struct xtx_frames *fr, struct xtx_desc *out,
		   unsigned m, uint64_t now);
/* Record the sample that completion addr is (the queue's next one). */
void xtx_ts_record(struct xtx_tstamp *t, const struct xtx_frames *fr, uint64_t addr,
		   int64_t tai_off);

/* Fast path, per completion in ring order: read the sample it completes, if any. */
static inline void xtx_ts_complete(struct xtx_tstamp *t, const struct xtx_frames *fr,
				   uint64_t addr, int64_t tai_off)
{
	if (t->head != t->tail && t->fifo[t->head & (XTX_TS_FIFO - 1)].seq == t->comp_seq)
		xtx_ts_record(t, fr, addr, tai_off);
	t->comp_seq++;
}

#endif /* XTX_TSTAMP_H */
