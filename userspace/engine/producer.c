/* SPDX-License-Identifier: BSD-3-Clause */
/* producer.c - producers: open/close, frames, sending, waiting for room, and reaping
 * producers whose thread died without closing them.
 *
 * A producer is used by one thread at a time; its cache and counters are written only by
 * that thread (counters are relaxed atomics so that anyone may read them). The frame
 * owner table says which producer holds which frame, so that send_burst() can refuse a
 * frame that is not the caller's and a dead producer's frames can be found.
 *
 * Dead producers. A producer is dead once the thread that opened it has exited. That
 * thread's exit is learnt from a thread-specific-data destructor (struct xtx_opener),
 * which runs on the exiting thread after its start routine returned or it called
 * pthread_exit(), and before another thread's pthread_join() of it returns. So a thread
 * that was joined is known to be gone, whatever the kernel still does to end it: tgkill()
 * says ESRCH only once the kernel has released the task, which comes after the join
 * returns (the kernel wakes the joiner when it clears the thread's tid, early in its
 * exit), and under load much later (stop() once said EBUSY for a thread joined before
 * it). tgkill() remains the fallback for a thread that ends without running destructors
 * (a raw exit syscall) and for a process whose keys ran out.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine_int.h"

/* The thread that opened producers: one per thread that ever opened one, shared by its
 * producers, freed by the last of them and the thread's destructor. */
struct xtx_opener {
	_Atomic int exited;		/* (X) set by the thread's destructor */
	_Atomic uint32_t refs;		/* the thread's own (until it exits) + one per producer */
};

static pthread_key_t opener_key;
static pthread_once_t opener_once = PTHREAD_ONCE_INIT;
static int opener_key_err;		/* pthread_key_create()'s error (read after the once) */
static _Atomic int opener_key_ok;	/* the key exists (for the library's destructor) */

static void opener_put(struct xtx_opener *o)
{
	/* Acq_rel: the holder that frees it comes after every other holder's accesses
	 * (release by each dropper, acquire by the last). */
	if (o && atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1)
		free(o);
}

/* Runs on the exiting thread (glibc: after C++ thread_local destructors, in key order
 * among pthread keys). */
static void opener_exit(void *arg)
{
	struct xtx_opener *o = arg;

	/* (X) Release, pairs with the acquire load in thread_gone(): every store the
	 * thread made in its producer calls (cache, counters) is visible to the reaper. */
	atomic_store_explicit(&o->exited, 1, memory_order_release);
	opener_put(o);
}

static void opener_key_init(void)
{
	opener_key_err = pthread_key_create(&opener_key, opener_exit);
	/* Release, pairs with the acquire in opener_key_fini(): the key is written. */
	atomic_store_explicit(&opener_key_ok, !opener_key_err, memory_order_release);
}

/* The key goes with the library (a dlclose()d libxtx.so must leave no destructor behind);
 * records of threads still running then stay allocated. */
__attribute__((destructor)) static void opener_key_fini(void)
{
	/* Acquire, pairs with the release in opener_key_init(). */
	if (atomic_load_explicit(&opener_key_ok, memory_order_acquire))
		pthread_key_delete(opener_key);
}

/* The calling thread's record with a reference for a new producer; NULL (errno) when
 * there is no memory, or when there is no key (then *nokey is set and tgkill() alone
 * tells the thread's exit). */
static struct xtx_opener *opener_get(int *nokey)
{
	struct xtx_opener *o;

	pthread_once(&opener_once, opener_key_init);
	*nokey = opener_key_err != 0;
	if (*nokey)
		return NULL;
	o = pthread_getspecific(opener_key);
	if (!o) {
		o = calloc(1, sizeof(*o));
		if (!o)
			return NULL;
		/* Relaxed: not shared until published through a producer (prod_lock). */
		atomic_store_explicit(&o->refs, 1, memory_order_relaxed);
		if (pthread_setspecific(opener_key, o)) {
			free(o);
			errno = ENOMEM;
			return NULL;
		}
	}
	/* Relaxed: the caller holds the thread's reference, so o stays alive. */
	atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
	return o;
}

/* Fold a closing producer's counters into the engine's totals and free its slot.
 * app_back: frames its application held that the reaper took back. Under prod_lock. */
static void retire(struct xtx_engine *e, struct xtx_producer *p, uint64_t app_back)
{
	e->closed.got += CTR_GET(p->got);
	e->closed.sent += CTR_GET(p->sent);
	e->closed.sent_bytes += CTR_GET(p->sent_bytes);
	e->closed.short_sends += CTR_GET(p->short_sends);
	e->closed.bad_desc += CTR_GET(p->bad_desc);
	e->closed.no_frames += CTR_GET(p->no_frames);
	/* Relaxed: a counter read by xtx_engine__frames(). */
	atomic_fetch_add_explicit(&e->closed_app,
				  CTR_GET(p->got) - CTR_GET(p->sent) - CTR_GET(p->put) - app_back,
				  memory_order_relaxed);
	e->prods[p->id] = NULL;
	/* Relaxed: see xtx_producer__open(). */
	atomic_store_explicit(&e->nprods, e->nprods - 1, memory_order_relaxed);
	opener_put(p->opener);
	free(p);
}

static void give_back_cache(struct xtx_producer *p);

/* Whether the thread that opened p has exited: its destructor said so (see the head of
 * this file), or, as a fallback, the kernel no longer knows its id. tgkill() with signal
 * 0 only checks; a thread id is reused only after the id space wraps, and a reused id
 * that is a thread of this process makes us wait, never reap a live producer. */
static int thread_gone(const struct xtx_producer *p)
{
	/* (X) Acquire, pairs with the release store in opener_exit(). */
	if (p->opener && atomic_load_explicit(&p->opener->exited, memory_order_acquire))
		return 1;
	return syscall(SYS_tgkill, getpid(), p->tid, 0) < 0 && errno == ESRCH;
}

/* Reap one producer whose thread is gone: its cache and the frames its application held
 * (found in the owner table) go back to the pool, its lanes are unregistered (the
 * dequeuers still send what it queued, then free them). Under prod_lock. Returns the
 * frames taken back.
 * Ordering: thread_gone() read the destructor's release store of exited with acquire
 * (X), which orders every store the dead thread made before it. In the tgkill()
 * fallback the kernel had finished the exit when tgkill() said ESRCH; C11 has no word
 * for that, so the acquire load of cached_pub (each producer call that changes the cache
 * ends with a release store of it) is what orders its cache for the language and for
 * TSan. Its owner[] entries and lane tails are atomics. Nobody else writes owner entries
 * equal to id + 1 while the slot is still taken. */
static uint64_t reap_one(struct xtx_engine *e, struct xtx_producer *p)
{
	uint16_t me = (uint16_t)(p->id + 1);
	uint64_t batch[XTX_BATCH], app = 0, cached;
	unsigned nb = 0;

	/* Acquire, pairs with the release stores of cached_pub (see above). */
	cached = atomic_load_explicit(&p->cached_pub, memory_order_acquire);	/* == ncache */
	give_back_cache(p);
	for (uint32_t f = 0; f < e->fr.count; f++) {
		if (xtx_owner_get(&e->fr, f) != me)	/* only the dead producer wrote "me" */
			continue;
		xtx_owner_set(&e->fr, f, 0);
		batch[nb++] = ((uint64_t)f << e->fr.shift) + XTX_HEADROOM;
		if (nb == XTX_BATCH) {
			xtx_pool__put(&e->pool, batch, nb);
			nb = 0;
		}
		app++;
	}
	if (nb)
		xtx_pool__put(&e->pool, batch, nb);
	for (unsigned i = 0; i < e->nq; i++)
		if (p->lane[i])		/* NULL: cancelled inside open, waiting for lanes */
			xtx_mpsc__unregister(p->lane[i]);
	e->closed.reaped++;
	e->closed.reclaimed += cached + app;
	retire(e, p, app);
	return cached + app;
}

static int reap_locked(struct xtx_engine *e)
{
	int n = 0;

	for (unsigned i = 0; i < e->o.max_producers; i++)
		if (e->prods[i] && thread_gone(e->prods[i])) {
			reap_one(e, e->prods[i]);
			n++;
		}
	return n;
}

int xtx_reap(struct xtx_engine *e, int trylock)
{
	int n;

	if (trylock) {
		if (pthread_mutex_trylock(&e->prod_lock))
			return 0;
	} else {
		pthread_mutex_lock(&e->prod_lock);
	}
	n = reap_locked(e);
	pthread_mutex_unlock(&e->prod_lock);
	if (n)
		xtx_room__wake(&e->room, 1);	/* producers waiting for frames */
	return n;
}

int xtx_engine__reap(struct xtx_engine *e)
{
	return xtx_reap(e, 0);
}

struct xtx_producer *xtx_producer__open(struct xtx_engine *e)
{
	struct xtx_producer *p = calloc(1, sizeof(*p));
	unsigned id;
	int nokey;

	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	p->e = e;
	p->opener = opener_get(&nokey);
	if (!p->opener && !nokey) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	if (nokey)
		xtx_warn(&e->log, "producer: no thread-specific-data key left (%s): a thread that "
			 "exits without closing is reaped only once the kernel has ended it",
			 strerror(opener_key_err));
	pthread_mutex_lock(&e->prod_lock);
	for (int again = 1;; again = 0) {
		for (id = 0; id < e->o.max_producers && e->prods[id]; id++)
			;
		if (id < e->o.max_producers)
			break;
		/* Full: a slot may belong to a thread that is gone. */
		if (!again || !reap_locked(e))
			goto busy;
	}
	p->id = id;
	p->tid = gettid();
	e->prods[id] = p;	/* the slot is ours; counters read as zero until we send */
	/* Relaxed: a hint for the reaping dequeuer; the reaper itself runs under the lock. */
	atomic_store_explicit(&e->nprods, e->nprods + 1, memory_order_relaxed);
	pthread_mutex_unlock(&e->prod_lock);
	/* A lane is free again only once its dequeuer has drained it: just after a close (or
	 * a reap) the slot is free but its lanes may not be yet. Wait for them, bounded. */
	for (unsigned i = 0, tries = 0; i < e->nq; ) {
		p->lane[i] = xtx_mpsc__register(e->q[i].stage);
		if (p->lane[i]) {
			i++;
		} else if (++tries > 2000) {	/* 200 ms: a dequeuer that does not drain */
			while (i--)
				xtx_mpsc__unregister(p->lane[i]);
			pthread_mutex_lock(&e->prod_lock);
			e->prods[id] = NULL;
			/* Relaxed: see above. */
			atomic_store_explicit(&e->nprods, e->nprods - 1, memory_order_relaxed);
			goto busy;
		} else {
			usleep(100);
		}
	}
	/* Release: pairs with the reaper's acquire (reap_one()), which reads lane[]. */
	atomic_store_explicit(&p->cached_pub, 0, memory_order_release);
	return p;
busy:
	pthread_mutex_unlock(&e->prod_lock);
	opener_put(p->opener);
	free(p);
	errno = EBUSY;
	return NULL;
}

static void give_back_cache(struct xtx_producer *p)
{
	while (p->ncache) {
		uint32_t n = p->ncache < XTX_BATCH ? p->ncache : XTX_BATCH;

		p->ncache -= n;
		xtx_pool__put(&p->e->pool, p->cache + p->ncache, n);
	}
	/* Release: a gauge for xtx_engine__frames(), and pairs with the reaper's acquire. */
	atomic_store_explicit(&p->cached_pub, 0, memory_order_release);
}

void xtx_producer__close(struct xtx_producer *p)
{
	struct xtx_engine *e;

	if (!p)
		return;
	e = p->e;
	give_back_cache(p);
	for (unsigned i = 0; i < e->nq; i++)
		xtx_mpsc__unregister(p->lane[i]);
	pthread_mutex_lock(&e->prod_lock);
	retire(e, p, 0);
	pthread_mutex_unlock(&e->prod_lock);
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

/* A frame address this producer holds, pointing at the packet start. */
static inline int desc_ok(const struct xtx_producer *p, uint64_t addr, uint32_t len)
{
	const struct xtx_engine *e = p->e;
	uint64_t a = addr & XTX_DESC_ADDR_MASK;
	uint32_t idx = xtx_frame_index(&e->fr, a);

	return idx < e->fr.count && (a & (e->fr.size - 1)) == XTX_HEADROOM &&
	       len >= 14 && len <= e->fr.size - XTX_HEADROOM &&
	       xtx_owner_get(&e->fr, idx) == p->id + 1 &&
	       !(addr & ~(XTX_DESC_ADDR_MASK | XTX_DESC_F_TXTIME));
}

void xtx_producer__put_frames(struct xtx_producer *p, const uint64_t *addrs, unsigned n)
{
	struct xtx_engine *e = p->e;

	for (unsigned i = 0; i < n; i++) {
		if (!desc_ok(p, addrs[i], 14)) {
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
	uint32_t ticket = xtx_room__wait_prepare(room);

	if ((p->ncache || xtx_room__has_frames(room)) && lanes_have_room(p)) {
		xtx_room__wait_cancel(room);
		return 0;
	}
	return xtx_room__wait_ticket(room, ticket, timeout_ns);
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

	/* Validate first; the burst stops at the first bad descriptor. */
	while (ok < n && desc_ok(p, d[ok].addr, d[ok].len))
		ok++;
	if (ok < n)
		CTR_ADD(p->bad_desc, 1);
	for (unsigned i = 0; i < ok; i++)
		/* Cleared before the frame is published to the stage; restored below for
		 * what the stage does not take. */
		xtx_owner_set(&e->fr, xtx_frame_index(&e->fr, d[i].addr), 0);
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
	for (unsigned i = done; i < ok; i++)
		xtx_owner_set(&e->fr, xtx_frame_index(&e->fr, d[i].addr), (uint16_t)(p->id + 1));
	if (done) {
		uint64_t bytes = 0;

		for (unsigned i = 0; i < done; i++)
			bytes += d[i].len;
		CTR_ADD(p->sent, done);
		CTR_ADD(p->sent_bytes, bytes);
	}
	return done;
}

void xtx_producer__stats(const struct xtx_producer *p, struct xtx_producer_stats *st)
{
	st->got = CTR_GET(p->got);
	st->sent = CTR_GET(p->sent);
	st->sent_bytes = CTR_GET(p->sent_bytes);
	st->short_sends = CTR_GET(p->short_sends);
	st->bad_desc = CTR_GET(p->bad_desc);
	st->no_frames = CTR_GET(p->no_frames);
	st->reaped = st->reclaimed = 0;
}
