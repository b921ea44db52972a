/* SPDX-License-Identifier: BSD-3-Clause */
/* tstamp.c - see tstamp.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/xtx.h>
#include "tstamp.h"

int xtx_ts_init(struct xtx_tstamp *t, uint32_t every, unsigned nslots)
{
	memset(t, 0, sizeof(*t));
	t->every = every;
	t->nslots = nslots;
	t->hist = calloc((size_t)nslots * XTX_TS_BUCKETS, sizeof(*t->hist));
	t->words = calloc((size_t)nslots * XTX_TS__WORDS, sizeof(*t->words));
	if (!t->hist || !t->words) {
		xtx_ts_free(t);
		return -ENOMEM;
	}
	return 0;
}

void xtx_ts_free(struct xtx_tstamp *t)
{
	free(t->hist);
	free(t->words);
	t->hist = NULL;
	t->words = NULL;
}

void xtx_ts_sample(struct xtx_tstamp *t, const struct xtx_frames *fr, struct xtx_desc *out,
		   unsigned m, uint64_t now)
{
	for (unsigned i = 0; i < m; i++) {
		struct xtx_ts_pending *p;
		unsigned char *f, *md;
		uint64_t fl = 0;

		if (++t->count < t->every)
			continue;
		t->count = 0;
		if (t->tail - t->head == XTX_TS_FIFO || out[i].cls >= t->nslots)
			continue;
		f = (unsigned char *)xtx_frame_ptr(fr, out[i].addr);
		md = f - XTX_TXMD_LEN;
		p = &t->fifo[t->tail++ & (XTX_TS_FIFO - 1)];
		p->seq = t->tx_seq + i;
		p->addr = out[i].addr & XTX_DESC_ADDR_MASK;
		p->slot = out[i].cls;
		p->intended = now;
		if (out[i].addr & XTX_DESC_F_TXTIME)
			memcpy(&p->intended, f - 8, 8);
		if (out[i].addr & XTX_DESC_F_TXMD)
			memcpy(&fl, md, 8);
		fl |= XTX_TXMD_TIMESTAMP;
		memcpy(md, &fl, 8);
		out[i].addr |= XTX_DESC_F_TXMD;
	}
	t->tx_seq += m;
}

/* Relaxed: the owner is the only writer; xtx_ts_read() takes a snapshot. */
static void add(_Atomic uint64_t *w, uint64_t v)
{
	atomic_store_explicit(w, atomic_load_explicit(w, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

void xtx_ts_record(struct xtx_tstamp *t, const struct xtx_frames *fr, uint64_t addr,
		   int64_t tai_off)
{
	struct xtx_ts_pending *p = &t->fifo[t->head++ & (XTX_TS_FIFO - 1)];
	_Atomic uint64_t *w = &t->words[(size_t)p->slot * XTX_TS__WORDS];
	uint64_t ts, dep;
	int64_t late;
	unsigned b;

	if (p->addr != (addr & XTX_DESC_ADDR_MASK)) {	/* not in order: nothing to read */
		add(&w[XTX_TS_INVALID], 1);
		return;
	}
	memcpy(&ts, (const char *)xtx_frame_ptr(fr, addr) - 16, 8);
	dep = ts - (uint64_t)tai_off;
	late = (int64_t)(dep - p->intended);
	if (late < -1000000000ll || late > 60000000000ll) {
		add(&w[XTX_TS_INVALID], 1);
		return;
	}
	add(&w[XTX_TS_SAMPLES], 1);
	if (late < 0) {
		add(&w[XTX_TS_EARLY], 1);
		late = 0;
	}
	/* Relaxed: the owner's word; pairs with nothing (xtx_ts_read() takes a snapshot). */
	if ((uint64_t)late > atomic_load_explicit(&w[XTX_TS_MAX], memory_order_relaxed))
		atomic_store_explicit(&w[XTX_TS_MAX], (uint64_t)late, memory_order_relaxed);
	b = xtx_ts_bucket((uint64_t)late);
	/* Relaxed: the owner's counter; xtx_ts_read() sums a snapshot. */
	atomic_store_explicit(&t->hist[(size_t)p->slot * XTX_TS_BUCKETS + b],
			      atomic_load_explicit(&t->hist[(size_t)p->slot * XTX_TS_BUCKETS + b],
						   memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

void xtx_ts_read(const struct xtx_tstamp *const *ts, unsigned nq, unsigned cls,
		 struct xtx_departure_stats *st)
{
	uint64_t hist[XTX_TS_BUCKETS] = { 0 }, n = 0, seen = 0;

	for (unsigned i = 0; i < nq; i++) {
		_Atomic uint64_t *w = &ts[i]->words[(size_t)cls * XTX_TS__WORDS];
		uint64_t mx;

		/* Relaxed: counters the owning dequeuer alone writes (relaxed stores in
		 * xtx_ts_record()); a snapshot. */
		st->samples += atomic_load_explicit(&w[XTX_TS_SAMPLES], memory_order_relaxed);
		st->early += atomic_load_explicit(&w[XTX_TS_EARLY], memory_order_relaxed);
		st->invalid += atomic_load_explicit(&w[XTX_TS_INVALID], memory_order_relaxed);
		mx = atomic_load_explicit(&w[XTX_TS_MAX], memory_order_relaxed);
		st->max_ns = mx > st->max_ns ? mx : st->max_ns;
		for (unsigned b = 0; b < XTX_TS_BUCKETS; b++)
			hist[b] += atomic_load_explicit(&ts[i]->hist[(size_t)cls * XTX_TS_BUCKETS + b],
							memory_order_relaxed);
	}
	for (unsigned b = 0; b < XTX_TS_BUCKETS; b++)
		n += hist[b];
	for (unsigned b = 0; b < XTX_TS_BUCKETS && n; b++) {
		uint64_t before = seen;

		seen += hist[b];
		if (before < (n + 1) / 2 && seen >= (n + 1) / 2)
			st->p50_ns = xtx_ts_bucket_high(b);
		if (before < n - n / 100 && seen >= n - n / 100)
			st->p99_ns = xtx_ts_bucket_high(b);
	}
	if (st->p99_ns > st->max_ns)	/* the bucket's top above the largest seen */
		st->p99_ns = st->max_ns;
	if (st->p50_ns > st->max_ns)
		st->p50_ns = st->max_ns;
}
