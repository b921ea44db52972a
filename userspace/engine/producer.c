/* SPDX-License-Identifier: BSD-3-Clause */
/* producer.c - producers: open/close, frames, sending, waiting for room.
 *
 * A producer is used by one thread at a time; its cache and counters are written only by
 * that thread (counters are relaxed atomics so that anyone may read them, CTR_ADD). The
 * frame owner table says which producer holds which frame, so that send_burst() can
 * refuse a frame that is not the caller's, and the registry (registry.h) can find a dead
 * producer's frames. Waiting for room is the room unit's (room.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_int.h"

void xtx_producer_free(struct xtx_producer *p)
{
	if (!p)
		return;
	free(p->rs);
	free(p->fs);
	free(p);
}

struct xtx_producer *xtx_producer__open(struct xtx_engine *e)
{
	struct xtx_producer *p = calloc(1, sizeof(*p));
	int rc;

	if (p) {
		p->rs = calloc((size_t)e->nq * e->nslots, sizeof(*p->rs));
		p->fs = malloc(XTX_ROOM_SLOTS * sizeof(*p->fs));
		for (unsigned i = 0; p->fs && i < XTX_ROOM_SLOTS; i++)
			p->fs[i] = (struct xtx_prod_flow_room){ .cls = UINT32_MAX };
	}
	if (!p || !p->rs || !p->fs) {
		xtx_producer_free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->e = e;
	rc = xtx_registry__add(&e->reg, p);
	if (rc) {
		xtx_producer_free(p);
		errno = -rc;
		return NULL;
	}
	/* A lane is free again only once its dequeuer has drained it: just after a close (or
	 * a reap) the slot is free but its lanes may not be yet. Wait for them, bounded. */
	for (unsigned i = 0, tries = 0; i < e->nq; ) {
		p->lane[i] = xtx_mpsc__register(e->q[i].deq.stage);
		if (p->lane[i]) {
			i++;
		} else if (++tries > 2000) {	/* 200 ms: a dequeuer that does not drain */
			while (i--)
				xtx_mpsc__unregister(p->lane[i]);
			xtx_registry__cancel(&e->reg, p);
			xtx_producer_free(p);
			errno = EBUSY;
			return NULL;
		} else {
			usleep(100);
		}
	}
	/* Release: pairs with the reaper's acquire (registry.c, reap_one()), which reads
	 * lane[]. */
	atomic_store_explicit(&p->cached_pub, 0, memory_order_release);
	return p;
}

void xtx_producer__close(struct xtx_producer *p)
{
	if (p)
		xtx_registry__remove(&p->e->reg, p);
}

unsigned xtx_producer__get_frames(struct xtx_producer *p, uint64_t *addrs, unsigned n)
{
	struct xtx_engine *e = p->e;
	unsigned k;

	while (p->ncache < n && p->ncache <= XTX_PROD_CACHE - XTX_BATCH) {
		uint32_t got = xtx_pool__get(&e->pool, p->cache + p->ncache, XTX_BATCH);

		if (!got)
			break;
		p->ncache += got;
	}
	k = n < p->ncache ? n : p->ncache;
	for (unsigned i = 0; i < k; i++) {
		addrs[i] = p->cache[--p->ncache];
		xtx_owner_set(&e->fr, xtx_frame_index(&e->fr, addrs[i]), (uint16_t)(p->id + 1));
	}
	if (k)
		CTR_ADD(p->got, k);
	else
		CTR_ADD(p->no_frames, 1);
	/* Release: a gauge, and pairs with the reaper's acquire (reap_one()). */
	atomic_store_explicit(&p->cached_pub, p->ncache, memory_order_release);
	return k;
}

/* A frame address this producer holds, pointing at a frame's start. */
static inline int frame_mine(const struct xtx_producer *p, uint64_t a)
{
	const struct xtx_engine *e = p->e;
	uint32_t idx = xtx_frame_index(&e->fr, a);

	return idx < e->fr.count && (a & (e->fr.size - 1)) == XTX_HEADROOM &&
	       xtx_owner_get(&e->fr, idx) == p->id + 1;
}

/* The further frames of multi-buffer frame d (xtx_desc__set_chain()), their number into
 * *n: as many as its length needs, each this producer's, none twice nor the first. */
static int chain_ok(const struct xtx_producer *p, const struct xtx_desc *d, unsigned *n)
{
	const struct xtx_engine *e = p->e;
	uint32_t room = e->fr.size - XTX_HEADROOM;
	uint64_t c[XTX_MB_MAX_SEGS];

	*n = (d->len + room - 1) / room - 1;
	if (*n < 1 || *n >= XTX_MB_MAX_SEGS)
		return 0;
	c[0] = d->addr & XTX_DESC_ADDR_MASK;
	memcpy(c + 1, (char *)xtx_frame_ptr(&e->fr, d->addr) - XTX_MB_CHAIN_OFF, *n * 8);
	for (unsigned i = 1; i <= *n; i++) {
		if ((c[i] & ~XTX_DESC_ADDR_MASK) || !frame_mine(p, c[i]))
			return 0;
		for (unsigned j = 0; j < i; j++)
			if (xtx_frame_index(&e->fr, c[j]) == xtx_frame_index(&e->fr, c[i]))
				return 0;
	}
	return 1;
}

/* The owner of the further frames of multi-buffer frame d (n of them, checked). */
static void chain_owner(const struct xtx_producer *p, const struct xtx_desc *d, unsigned n,
			uint16_t who)
{
	const struct xtx_engine *e = p->e;
	const char *c = (const char *)xtx_frame_ptr(&e->fr, d->addr) - XTX_MB_CHAIN_OFF;

	for (unsigned i = 0; i < n; i++) {
		uint64_t a;

		memcpy(&a, c + 8 * i, 8);
		xtx_owner_set(&e->fr, xtx_frame_index(&e->fr, a), who);
	}
}

static inline int desc_ok(const struct xtx_producer *p, const struct xtx_desc *d)
{
	const struct xtx_engine *e = p->e;
	uint32_t room = e->fr.size - XTX_HEADROOM;
	unsigned n;

	if (!frame_mine(p, d->addr & XTX_DESC_ADDR_MASK) || d->len < 14 ||
	    (d->addr & ~(XTX_DESC_ADDR_MASK | XTX_DESC_F_TXTIME | e->txmd_flag | e->mb_flag)))
		return 0;
	if (__builtin_expect(!(d->addr & XTX_DESC_F_MB), 1))
		return d->len <= room;
	return chain_ok(p, d, &n);
}

/* Further frames of d: 0 unless multi-buffer. */
static inline unsigned chain_len(const struct xtx_producer *p, const struct xtx_desc *d)
{
	uint32_t room = p->e->fr.size - XTX_HEADROOM;

	return d->addr & XTX_DESC_F_MB ? (d->len + room - 1) / room - 1 : 0;
}

void xtx_producer__put_frames(struct xtx_producer *p, const uint64_t *addrs, unsigned n)
{
	struct xtx_engine *e = p->e;

	for (unsigned i = 0; i < n; i++) {
		if (!frame_mine(p, addrs[i] & XTX_DESC_ADDR_MASK) ||
		    (addrs[i] & ~(XTX_DESC_ADDR_MASK | XTX_DESC_F_TXTIME | e->txmd_flag))) {
			CTR_ADD(p->bad_desc, 1);
			continue;
		}
		xtx_owner_set(&e->fr, xtx_frame_index(&e->fr, addrs[i]), 0);
		if (p->ncache == XTX_PROD_CACHE) {
			p->ncache -= XTX_BATCH;
			xtx_pool__put(&e->pool, p->cache + p->ncache, XTX_BATCH);
		}
		p->cache[p->ncache++] = addrs[i] & XTX_DESC_ADDR_MASK;
		CTR_ADD(p->put, 1);
	}
	/* Release: a gauge, and pairs with the reaper's acquire (reap_one()). */
	atomic_store_explicit(&p->cached_pub, p->ncache, memory_order_release);
}

static int lanes_have_room(const struct xtx_producer *p)
{
	for (unsigned i = 0; i < p->e->nq; i++) {
		const struct xtx_mpsc_prod *l = p->lane[i];
		/* Relaxed: our own tail; the consumer's head after the seq_cst fence of
		 * xtx_room__wait_prepare() (W1). */
		uint32_t used = atomic_load_explicit(&l->p.tail, memory_order_relaxed) -
				atomic_load_explicit(&l->c.head, memory_order_relaxed);

		if (used > l->p.mask)
			return 0;
	}
	return 1;
}

/* Back-pressure: the room unit's wait (room.h, W1), the room being the pool's frames
 * (or this producer's cache) and space in every lane. */
int xtx_producer__wait(struct xtx_producer *p, uint64_t timeout_ns)
{
	struct xtx_room *room = &p->e->room;
	int no_frames = !p->ncache;
	uint32_t ticket;

	if (p->room_stop) {
		p->room_stop = 0;
		return xtx_producer__wait_room(p, p->stop_cls, p->stop_hash, timeout_ns);
	}
	ticket = xtx_room__wait_prepare(room, no_frames);
	int frames = !no_frames || xtx_room__has_frames(room);

	if (frames && lanes_have_room(p)) {
		xtx_room__wait_cancel(room, no_frames);
		return 0;
	}
	if (no_frames && frames) {	/* stage space is all it waits for */
		xtx_room__wait_frames_found(room);
		no_frames = 0;
	}
	return xtx_room__wait_ticket(room, ticket, timeout_ns, no_frames);
}

/* Room (xtx.h): the class's word on hash's queue. Full: none, but send_burst() (!ask)
 * takes what this producer reserved before it filled. Else this producer may add its
 * share of the word's quota (quota / producers open, at least 64 bytes: with the strict
 * test below, one packet), and of that the flow's quota, since the class's last room
 * event; a new event starts new counts, with the caps worked out then (not per packet),
 * and keeps the reservations (packets built, still to be sent). ask (xtx_producer__room(),
 * _room_reserve()) counts what is reserved and not yet sent as added; send_burst() does
 * not, as it sends the reserved packets. *rsp, *fsp: the counts, NULL when the class has
 * no limit. */
static inline __attribute__((always_inline)) int
room_check(struct xtx_producer *p, uint16_t cls, uint32_t hash, struct xtx_prod_room **rsp,
	   struct xtx_prod_flow_room **fsp, int ask)
{
	const struct xtx_engine *e = p->e;
	unsigned q = xtx_queue_of(e->nq, hash);
	struct xtx_prod_room *rs;
	struct xtx_prod_flow_room *fs;
	uint64_t w;
	uint32_t gen;
	int full;

	*rsp = NULL;
	*fsp = NULL;
	if (!e->room_on || cls >= e->nslots)
		return 1;
	/* Relaxed, both: hints (slots.c); a slot no class has sends to the default class,
	 * so it waits for that class's room. */
	if (__builtin_expect(!atomic_load_explicit(&e->slot_owner[cls], memory_order_relaxed), 0))
		cls = (uint16_t)atomic_load_explicit(&e->dflt_slot, memory_order_relaxed);
	/* Relaxed: a hint, written by the queue's dequeuer (xtx_room_publish()). */
	w = atomic_load_explicit(&e->q[q].deq.cls_room[cls], memory_order_relaxed);
	full = XTX_ROOM_FULL(w);
	if (full && ask)
		return 0;
	if (!full && XTX_ROOM_Q(w) == XTX_ROOM_UNIT_MAX)
		return 1;
	gen = XTX_ROOM_GEN(w);
	rs = &p->rs[(size_t)q * e->nslots + cls];
	if (__builtin_expect(rs->gen != gen || !rs->cap, 0)) {	/* cap 0: never set */
		uint32_t np = xtx_registry__open_hint(&p->e->reg);
		uint32_t share = XTX_ROOM_Q(w) * 64 / (np > 1 ? np : 1);

		*rs = (struct xtx_prod_room){ .gen = gen, .cap = share > 64 ? share : 64,
					      .resv = rs->resv };
	}
	fs = &p->fs[((hash ^ (cls * 0x9e3779b1u)) * 0x85ebca6bu) >> 20 & (XTX_ROOM_SLOTS - 1)];
	if (fs->hash != hash || fs->cls != cls || fs->gen != gen)
		*fs = (struct xtx_prod_flow_room){ .hash = hash, .cls = cls, .gen = gen,
						   .cap = XTX_ROOM_FLOW_Q(w) * 64,
						   .resv = fs->hash == hash && fs->cls == cls ?
							   fs->resv : 0 };
	*rsp = rs;
	*fsp = fs;
	if (full)	/* send_burst(): what this producer reserved before the class filled */
		return rs->resv && fs->resv;
	if (ask)
		return rs->sent + rs->resv < rs->cap && fs->sent + fs->resv < fs->cap;
	return rs->sent < rs->cap && fs->sent < fs->cap;
}

int xtx_producer__room(struct xtx_producer *p, uint16_t cls, uint32_t hash)
{
	struct xtx_prod_room *rs;
	struct xtx_prod_flow_room *fs;

	return room_check(p, cls, hash, &rs, &fs, 1);
}

int xtx_producer__room_reserve(struct xtx_producer *p, uint16_t cls, uint32_t hash,
			       uint32_t len)
{
	struct xtx_prod_room *rs;
	struct xtx_prod_flow_room *fs;

	if (!room_check(p, cls, hash, &rs, &fs, 1))
		return 0;
	if (rs) {
		rs->resv += len;
		fs->resv += len;
	}
	return 1;
}

/* The room unit's wait for class room (room.h, W2): the dequeuer stores the room word,
 * then its seq_cst fence and the load of cls_waiters; here the cls_waiters RMW and fence
 * of class_wait_prepare, then the load of the word. A wait that times out forgets what this
 * producer added to the class since its last event: a class that never sends again
 * (its packets were dropped) holds a producer back for one timeout, not for good. */
int xtx_producer__wait_room(struct xtx_producer *p, uint16_t cls, uint32_t hash,
			    uint64_t timeout_ns)
{
	struct xtx_room *room = &p->e->room;
	uint32_t ticket = xtx_room__class_wait_prepare(room);
	struct xtx_prod_room *rs;
	struct xtx_prod_flow_room *fs;
	int rc;

	if (room_check(p, cls, hash, &rs, &fs, 1)) {
		xtx_room__class_wait_cancel(room);
		return 0;
	}
	CTR_ADD(p->room_waits, 1);
	rc = xtx_room__class_wait_ticket(room, ticket, timeout_ns);
	if (rc == -ETIMEDOUT && rs) {
		rs->sent = rs->resv = 0;
		fs->sent = fs->resv = 0;
	}
	return rc;
}

void xtx_producer__set_txtime(struct xtx_producer *p, struct xtx_desc *d, uint64_t t_ns)
{
	memcpy((char *)xtx_frame_ptr(&p->e->fr, d->addr) - 8, &t_ns, sizeof(t_ns));
	d->addr |= XTX_DESC_F_TXTIME;
}

unsigned xtx_producer__send_burst(struct xtx_producer *p, const struct xtx_desc *d,
				  unsigned n)
{
	struct xtx_engine *e = p->e;
	unsigned ok = 0, done = 0;

	p->room_stop = 0;
	/* Validate first; the burst stops at the first bad descriptor, or before the first
	 * whose class has no room. */
	while (ok < n && desc_ok(p, &d[ok]))
		ok++;
	if (ok < n)
		CTR_ADD(p->bad_desc, 1);
	for (unsigned i = 0; e->room_on && i < ok; i++) {	/* counted; undone below */
		struct xtx_prod_room *rs;
		struct xtx_prod_flow_room *fs;

		if (!room_check(p, d[i].cls, d[i].hash, &rs, &fs, 0)) {
			ok = i;
			CTR_ADD(p->room_stops, 1);
			p->room_stop = 1;
			p->stop_cls = d[i].cls;
			p->stop_hash = d[i].hash;
			break;
		}
		if (rs) {
			rs->sent += d[i].len;
			fs->sent += d[i].len;
			rs->resv -= rs->resv < d[i].len ? rs->resv : d[i].len;
			fs->resv -= fs->resv < d[i].len ? fs->resv : d[i].len;
		}
	}
	for (unsigned i = 0; i < ok; i++) {
		/* Cleared before the frame is published to the stage; restored below for
		 * what the stage does not take. */
		xtx_owner_set(&e->fr, xtx_frame_index(&e->fr, d[i].addr), 0);
		if (__builtin_expect(d[i].addr & XTX_DESC_F_MB, 0))
			chain_owner(p, &d[i], chain_len(p, &d[i]), 0);
	}
	/* Runs of consecutive descriptors bound for the same queue. */
	while (done < ok) {
		unsigned q = xtx_queue_of(e->nq, d[done].hash), run = 1, k;

		while (done + run < ok && xtx_queue_of(e->nq, d[done + run].hash) == q)
			run++;
		k = xtx_mpsc__enqueue_burst(p->lane[q], d + done, run);
		done += k;
		if (k < run) {
			CTR_ADD(p->short_sends, 1);
			break;
		}
	}
	for (unsigned i = done; i < ok; i++) {
		struct xtx_prod_room *rs;
		struct xtx_prod_flow_room *fs;

		xtx_owner_set(&e->fr, xtx_frame_index(&e->fr, d[i].addr), (uint16_t)(p->id + 1));
		if (__builtin_expect(d[i].addr & XTX_DESC_F_MB, 0))
			chain_owner(p, &d[i], chain_len(p, &d[i]), (uint16_t)(p->id + 1));
		if (!e->room_on)
			continue;
		room_check(p, d[i].cls, d[i].hash, &rs, &fs, 0);
		if (rs && rs->sent >= d[i].len)
			rs->sent -= d[i].len;
		if (fs && fs->sent >= d[i].len)
			fs->sent -= d[i].len;
	}
	if (done) {
		uint64_t bytes = 0, chained = 0;

		for (unsigned i = 0; i < done; i++) {
			bytes += d[i].len;
			chained += e->mb_flag ? chain_len(p, &d[i]) : 0;
		}
		if (chained)
			CTR_ADD(p->chain_sent, chained);
		CTR_ADD(p->sent, done);
		CTR_ADD(p->sent_bytes, bytes);
	}
	return done;
}

void xtx_producer__stats(const struct xtx_producer *p, struct xtx_producer_stats *st)
{
	memset(st, 0, sizeof(*st));
	xtx_producer_stats_add(st, p);
}
