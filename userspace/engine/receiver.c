/* SPDX-License-Identifier: BSD-3-Clause */
/* receiver.c - the receive side: one worker thread per ingress queue that moves received
 * frames into the egress stages, and keeps its fill ring full.
 *
 * Shared path (the RX socket is on the engine's UMEM). One step, bounded by XTX_RX_BATCH:
 *   1. peek up to a batch from the RX ring;
 *   2. make sure the cache holds a free frame for each (from the pool, a batch at a time);
 *   3. per frame: class and flow hash from the metadata in front of it (xtx/rxmeta.h; the
 *      magic is cleared after reading), a descriptor pointing at the frame where the
 *      kernel put it (pool addresses are base + XTX_HEADROOM, received ones base + the
 *      kernel's headroom: whoever recycles normalises, xtx_frame_norm());
 *   4. exchange: a frame is forwarded only if the cache has a free frame to put on the
 *      fill ring in its place; else it goes back on the fill ring itself (NO_FRAME). So
 *      the frames the kernel holds for receiving never decrease, whatever the schedulers
 *      hold: the fill ring cannot starve (a NIC driver's rule: no replacement buffer,
 *      no delivery);
 *   5. enqueue the descriptors into the stages of their egress queues (by flow hash, as
 *      xtx_producer__send_burst() does, through this worker's own lane on each stage);
 *      what a full stage refuses goes back to the fill ring (STAGE_FULL);
 *   6. fill ring: first the frames of step 4-5 that were not forwarded, then free frames
 *      from the cache, as many as it has room for; kick with recvfrom() only if the
 *      kernel asks (need_wakeup, zero-copy drivers).
 * Copy path (own UMEM): each frame is copied into a free engine frame (none: NO_FRAME)
 * and its RX frame goes straight back to the fill ring.
 *
 * Idle: polls XTX_IDLE_POLL_NS, then sleeps in poll() on the socket (POLLIN: the RX ring
 * has frames) and an eventfd that stop() writes (rx_busy_poll: spins instead). A fill
 * ring left short of frames (the pool was empty) is retried every 10 ms.
 *
 * Frame ownership and concurrency: receiver.h.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <xtx/rxmeta.h>
#include "engine_int.h"

/* --- free frames ---------------------------------------------------------------------- */

static void publish_held(struct xtx_receiver *r)
{
	CTR_SET(r->ctr.held, r->ncache);
}

/* Pool -> cache until it holds `want` frames or the pool is empty. */
static void cache_top_up(struct xtx_receiver *r, unsigned want)
{
	while (r->ncache < want && r->ncache <= XTX_RX_CACHE - XTX_BATCH) {
		uint32_t n = xtx_pool__get(r->pool, r->cache + r->ncache, XTX_BATCH);

		if (!n)
			break;
		r->ncache += n;
	}
}

/* A free engine frame (any address inside it) into the cache; a full cache spills a batch
 * to the pool. */
static void cache_put(struct xtx_receiver *r, uint64_t addr)
{
	if (r->ncache == XTX_RX_CACHE) {
		r->ncache -= XTX_BATCH;
		/* Cannot fail: the pool has a container for every holder's partial batch. */
		xtx_pool__put(r->pool, r->cache + r->ncache, XTX_BATCH);
		xtx_room__wake(r->room, 0);
	}
	r->cache[r->ncache++] = xtx_frame_norm(&r->fr, addr);
}

static void cache_flush(struct xtx_receiver *r)
{
	while (r->ncache) {
		uint32_t n = r->ncache < XTX_BATCH ? r->ncache : XTX_BATCH;

		r->ncache -= n;
		xtx_pool__put(r->pool, r->cache + r->ncache, n);
	}
	xtx_room__wake(r->room, 1);
	publish_held(r);
}

/* --- fill ring ------------------------------------------------------------------------- */

static void kick_fill(struct xtx_receiver *r)
{
	if (!xsk_ring_prod__needs_wakeup(&r->fill))
		return;
	CTR_ADD(r->ctr.wakeups, 1);
	recvfrom(r->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}

/* Shared path: back[] (frames of this step not forwarded) first, then cache frames, as
 * many as the ring has room for; back frames that do not fit go to the cache. */
static void refill(struct xtx_receiver *r, const uint64_t *back, unsigned nb)
{
	uint32_t room = xsk_prod_nb_free(&r->fill, r->fill_size), idx = 0, from_back, total;
	uint64_t mask = ~(uint64_t)(r->fr.size - 1);

	from_back = nb < room ? nb : room;
	if (r->ncache < room - from_back)
		cache_top_up(r, room - from_back);
	total = from_back + (r->ncache < room - from_back ? r->ncache : room - from_back);
	if (total) {
		xsk_ring_prod__reserve(&r->fill, total, &idx);	/* room >= total */
		for (uint32_t i = 0; i < total; i++) {
			uint64_t a = i < from_back ? back[i] : r->cache[--r->ncache];

			a &= mask & XTX_DESC_ADDR_MASK;
			*xsk_ring_prod__fill_addr(&r->fill, idx + i) = a;
			xtx_owner_set(&r->fr, (uint32_t)(a >> r->fr.shift),
				      (uint16_t)(XTX_OWNER_RXQ + r->idx));
		}
		xsk_ring_prod__submit(&r->fill, total);
		CTR_ADD(r->ctr.filled, total);
		kick_fill(r);
	}
	for (uint32_t i = from_back; i < nb; i++)
		cache_put(r, back[i]);
	publish_held(r);
}

/* Copy path: RX frames straight back (they came from this ring, so they fit). */
static void refill_copy(struct xtx_receiver *r, const uint64_t *back, unsigned nb)
{
	uint32_t idx = 0;
	uint64_t mask = ~(uint64_t)(r->fr.size - 1);

	if (!nb || xsk_ring_prod__reserve(&r->fill, nb, &idx) != nb)
		return;
	for (unsigned i = 0; i < nb; i++)
		*xsk_ring_prod__fill_addr(&r->fill, idx + i) = back[i] & mask;
	xsk_ring_prod__submit(&r->fill, nb);
	kick_fill(r);
}

/* --- one step --------------------------------------------------------------------------- */

/* Class and hash from the metadata in front of the packet at p (offset `off` in its
 * frame); clears the magic. */
static void read_meta(struct xtx_receiver *r, uint8_t *p, uint64_t off, struct xtx_desc *d)
{
	struct xtx_rx_meta m;

	if (off >= sizeof(m)) {
		memcpy(&m, p - sizeof(m), sizeof(m));
		if (m.magic == XTX_RX_META_MAGIC) {
			d->cls = m.cls;
			d->hash = m.hash;
			memset(p - sizeof(m) + offsetof(struct xtx_rx_meta, magic), 0,
			       sizeof(m.magic));
			return;
		}
	}
	CTR_ADD(r->ctr.no_meta, 1);
	d->cls = 0xffff;	/* no leaf: the scheduler's default class */
	d->hash = 0;
}

/* Enqueue d[0..n) into the stages, runs per egress queue; refused frames are appended to
 * back[] (their address as given). Returns how many were taken. */
static unsigned to_stages(struct xtx_receiver *r, const struct xtx_desc *d, unsigned n,
			  uint64_t *back, unsigned *nb, uint64_t *bytes)
{
	unsigned taken = 0;

	for (unsigned i = 0; i < n;) {
		unsigned q = xtx_queue_of(r->nq, d[i].hash), run = 1, k;

		while (i + run < n && xtx_queue_of(r->nq, d[i + run].hash) == q)
			run++;
		k = xtx_mpsc__enqueue_burst(r->lane[q], d + i, run);
		for (unsigned j = 0; j < k; j++)
			*bytes += d[i + j].len;
		for (unsigned j = k; j < run; j++)
			back[(*nb)++] = d[i + j].addr;
		if (k < run)
			CTR_ADD(r->ctr.drops[XTX_RX_DROP_STAGE_FULL], run - k);
		taken += k;
		i += run;
	}
	return taken;
}

/* One receive step's counters: n frames of rx_bytes read, taken of fwd_bytes handed to
 * the stages, bad and nofr dropped for their reasons. */
static inline void count_step(struct xtx_receiver *r, unsigned n, uint64_t rx_bytes,
			      unsigned taken, uint64_t fwd_bytes, unsigned bad, unsigned nofr)
{
	CTR_ADD(r->ctr.rx_pkts, n);
	CTR_ADD(r->ctr.rx_bytes, rx_bytes);
	CTR_ADD(r->ctr.fwd_pkts, taken);
	CTR_ADD(r->ctr.fwd_bytes, fwd_bytes);
	if (bad)
		CTR_ADD(r->ctr.drops[XTX_RX_DROP_BAD_DESC], bad);
	if (nofr)
		CTR_ADD(r->ctr.drops[XTX_RX_DROP_NO_FRAME], nofr);
}

static unsigned step_shared(struct xtx_receiver *r)
{
	struct xtx_desc out[XTX_RX_BATCH];
	uint64_t back[XTX_RX_BATCH], rx_bytes = 0, fwd_bytes = 0;
	unsigned n, nf = 0, nb = 0, avail, taken, bad = 0, nofr = 0;
	uint32_t idx = 0;

	n = xsk_ring_cons__peek(&r->rx, XTX_RX_BATCH, &idx);
	if (!n)
		return 0;
	cache_top_up(r, n);
	avail = r->ncache;
	for (unsigned i = 0; i < n; i++) {
		const struct xdp_desc *rd = xsk_ring_cons__rx_desc(&r->rx, idx + i);
		uint64_t a = rd->addr & XTX_DESC_ADDR_MASK, off = a & (r->fr.size - 1);
		uint64_t fi = a >> r->fr.shift;

		rx_bytes += rd->len;
		if (fi >= r->fr.count) {		/* not ours: the kernel never does this */
			bad++;
			continue;
		}
		xtx_owner_set(&r->fr, (uint32_t)fi, 0);
		if (rd->len < 14 || off + rd->len > r->fr.size) {
			bad++;
			back[nb++] = a;
			continue;
		}
		if (nf == avail) {		/* no frame to exchange it for */
			nofr++;
			back[nb++] = a;
			continue;
		}
		out[nf].addr = a;
		out[nf].len = (uint16_t)rd->len;
		read_meta(r, (uint8_t *)r->fr.area + a, off, &out[nf]);
		nf++;
	}
	xsk_ring_cons__release(&r->rx, n);
	taken = to_stages(r, out, nf, back, &nb, &fwd_bytes);
	refill(r, back, nb);
	count_step(r, n, rx_bytes, taken, fwd_bytes, bad, nofr);
	return n;
}

static unsigned step_copy(struct xtx_receiver *r)
{
	struct xtx_desc out[XTX_RX_BATCH];
	uint64_t back[XTX_RX_BATCH], refused[XTX_RX_BATCH], rx_bytes = 0, fwd_bytes = 0;
	unsigned n, nf = 0, nb = 0, nref = 0, taken, bad = 0, nofr = 0;
	uint32_t idx = 0;
	uint32_t room = r->fr.size - XTX_HEADROOM;

	n = xsk_ring_cons__peek(&r->rx, XTX_RX_BATCH, &idx);
	if (!n)
		return 0;
	cache_top_up(r, n);
	for (unsigned i = 0; i < n; i++) {
		const struct xdp_desc *rd = xsk_ring_cons__rx_desc(&r->rx, idx + i);
		uint64_t a = rd->addr, off = a & (r->fr.size - 1);

		rx_bytes += rd->len;
		if (a < r->rx_base || a >= r->rx_base + (uint64_t)r->fill_size * r->fr.size) {
			bad++;			/* not this queue's: the kernel never does this */
			continue;
		}
		back[nb++] = a;
		if (rd->len < 14 || off + rd->len > r->fr.size || rd->len > room) {
			bad++;
			continue;
		}
		if (!r->ncache) {
			nofr++;
			continue;
		}
		out[nf].addr = r->cache[--r->ncache];
		out[nf].len = (uint16_t)rd->len;
		read_meta(r, (uint8_t *)r->rx_area + a, off, &out[nf]);
		memcpy(xtx_frame_ptr(&r->fr, out[nf].addr), (uint8_t *)r->rx_area + a, rd->len);
		nf++;
	}
	xsk_ring_cons__release(&r->rx, n);
	refill_copy(r, back, nb);
	taken = to_stages(r, out, nf, refused, &nref, &fwd_bytes);
	for (unsigned i = 0; i < nref; i++)
		cache_put(r, refused[i]);
	publish_held(r);
	CTR_ADD(r->ctr.copied, nf);
	count_step(r, n, rx_bytes, taken, fwd_bytes, bad, nofr);
	return n;
}

/* --- the thread ------------------------------------------------------------------------ */

static int fill_full(struct xtx_receiver *r)
{
	return xsk_prod_nb_free(&r->fill, r->fill_size) == 0;
}

static void rx_sleep(struct xtx_receiver *r)
{
	struct pollfd p[2] = { { .fd = r->fd, .events = POLLIN },
			       { .fd = r->evfd, .events = POLLIN } };

	CTR_ADD(r->ctr.sleeps, 1);
	/* A fill ring short of frames (the pool was empty): look again in 10 ms. */
	if (poll(p, 2, fill_full(r) ? -1 : 10) > 0 && (p[1].revents & POLLIN)) {
		uint64_t v;

		if (read(r->evfd, &v, sizeof(v)) < 0) {
			/* EAGAIN: another read took it; nothing to do */
		}
	}
}

void *xtx_receiver_main(void *arg)
{
	struct xtx_receiver *r = arg;
	uint64_t idle_since = 0;
	char name[16];

	snprintf(name, sizeof(name), "xtx-rx/%u", r->qid);
	pthread_setname_np(pthread_self(), name);	/* pinned at creation (engine.c) */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	for (;;) {
		/* Acquire, pairs with the release store in xtx_rx_stop(). */
		int stopping = atomic_load_explicit(r->stop, memory_order_acquire);
		unsigned n;

		CTR_ADD(r->ctr.loops, 1);
		n = r->copy ? step_copy(r) : step_shared(r);
		if (n) {
			idle_since = 0;
			continue;
		}
		if (stopping)
			break;		/* the RX ring was empty after the stop was seen */
		if (!r->copy && !fill_full(r))
			refill(r, NULL, 0);	/* the pool may have frames again */
		if (r->busy_poll)
			continue;
		uint64_t now = xtx_now_ns();

		if (!idle_since)
			idle_since = now;
		if (now - idle_since < XTX_IDLE_POLL_NS) {
			sched_yield();
			continue;
		}
		rx_sleep(r);
	}
	cache_flush(r);
	return NULL;
}

/* --- setup and teardown ------------------------------------------------------------------ */

int xtx_rx_open(struct xtx_engine *e, const int *cpus, int ncpus, char *err, size_t errlen)
{
	for (unsigned i = 0; i < e->nrq; i++) {
		struct xtx_rxq *rq = &e->rq[i];
		struct xtx_receiver *r = &rq->w;

		for (unsigned q = 0; q < e->nq; q++) {
			r->lane[q] = xtx_mpsc__register(e->q[q].deq.stage);
			if (!r->lane[q]) {
				xtx_errf(err, errlen, "no stage lane for receive queue %u", r->qid);
				return -EBUSY;
			}
		}
		r->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (r->evfd < 0) {
			int rc = -errno;

			xtx_errf(err, errlen, "eventfd: %s", strerror(errno));
			return rc;
		}
		if (ncpus > 0)
			rq->cpu = cpus[i % (unsigned)ncpus];
		/* Fill the fill ring before the socket can receive anything. */
		if (r->copy) {
			uint64_t back[XTX_RX_BATCH];

			for (uint32_t f = 0; f < r->fill_size; f += XTX_RX_BATCH) {
				unsigned n = r->fill_size - f < XTX_RX_BATCH ? r->fill_size - f :
					     XTX_RX_BATCH;

				for (unsigned k = 0; k < n; k++)
					back[k] = r->rx_base + (uint64_t)(f + k) * r->fr.size;
				refill_copy(r, back, n);
			}
		} else {
			/* A cache's worth per call: loop until full or the pool is dry. */
			for (uint32_t k = 0; k <= r->fill_size / XTX_BATCH && !fill_full(r); k++)
				refill(r, NULL, 0);
			if (!fill_full(r)) {
				xtx_errf(err, errlen, "not enough free frames to fill the fill "
					 "ring of receive queue %u; raise the frame count", r->qid);
				return -ENOMEM;
			}
		}
	}
	return 0;
}

int xtx_rx_start(struct xtx_engine *e, char *err, size_t errlen)
{
	for (unsigned i = 0; i < e->nrq; i++) {
		struct xtx_rxq *r = &e->rq[i];
		int rc = xtx_thread_start_said(&r->thread, r->cpu, xtx_receiver_main, &r->w,
					       "receive worker", "receive worker", r->qid, err,
					       errlen);

		if (rc)
			return rc;
		r->thread_started = 1;
	}
	return 0;
}

/* Workers out, sockets closed, the kernel's frames back to the pool. Idempotent. */
void xtx_rx_stop(struct xtx_engine *e)
{
	uint64_t b[XTX_BATCH];
	uint32_t nb = 0;

	if (!e->nrq || e->rx_stopped)
		return;
	/* Release, pairs with the workers' acquire load. */
	atomic_store_explicit(&e->rx_stop, 1, memory_order_release);
	for (unsigned i = 0; i < e->nrq; i++) {
		struct xtx_rxq *r = &e->rq[i];

		if (!r->thread_started)
			continue;
		if (r->w.evfd >= 0 && eventfd_write(r->w.evfd, 1)) {
			/* cannot fail for a counter far from overflow */
		}
		pthread_join(r->thread, NULL);
		r->thread_started = 0;
	}
	for (unsigned i = 0; i < e->nrq; i++)
		cache_flush(&e->rq[i].w);	/* workers that never ran */
	xtx_rx_sockets_close(e);
	/* The kernel is done with the closed sockets' frames: take them back. */
	for (uint32_t f = 0; e->fr.owner && !e->rx_copy && f < e->fr.count; f++) {
		uint16_t o = xtx_owner_get(&e->fr, f);	/* every writer has been joined */

		if (o < XTX_OWNER_RXQ || o >= XTX_OWNER_RXQ + e->nrq)
			continue;
		xtx_owner_set(&e->fr, f, 0);
		CTR_ADD(e->rq[o - XTX_OWNER_RXQ].w.ctr.reclaimed, 1);
		b[nb++] = ((uint64_t)f << e->fr.shift) + XTX_HEADROOM;
		if (nb == XTX_BATCH) {
			xtx_pool__put(&e->pool, b, nb);
			nb = 0;
		}
	}
	if (nb)
		xtx_pool__put(&e->pool, b, nb);
	for (unsigned i = 0; i < e->nrq; i++)
		for (unsigned q = 0; q < e->nq; q++)
			if (e->rq[i].w.lane[q]) {
				xtx_mpsc__unregister(e->rq[i].w.lane[q]);
				e->rq[i].w.lane[q] = NULL;
			}
	e->rx_stopped = 1;
}

void xtx_rx_free(struct xtx_engine *e)
{
	xtx_rx_stop(e);
	xtx_rx_sockets_close(e);
	for (unsigned i = 0; i < e->nrq; i++)
		if (e->rq[i].w.evfd >= 0)
			close(e->rq[i].w.evfd);
}
