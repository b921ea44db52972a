/* SPDX-License-Identifier: BSD-3-Clause */
/* registry.c - the set of open producers and reaping (rules in registry.h). */
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
		/* Relaxed: not shared until published through a producer (the lock). */
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

void xtx_registry__init(struct xtx_registry *r)
{
	pthread_mutex_init(&r->lock, NULL);
}

void xtx_registry__setup(struct xtx_registry *r, unsigned max, unsigned nq,
			 struct xtx_pool *pool, struct xtx_room *room,
			 const struct xtx_frames *fr, const struct xtx_log *log)
{
	r->max = max;
	r->nq = nq;
	r->pool = pool;
	r->room = room;
	r->fr = fr;
	r->log = log;
}

void xtx_registry__fini(struct xtx_registry *r)
{
	pthread_mutex_destroy(&r->lock);
}

/* p's cache back to the pool, a batch at a time. */
static void give_back_cache(struct xtx_registry *r, struct xtx_producer *p)
{
	while (p->ncache) {
		uint32_t n = p->ncache < XTX_BATCH ? p->ncache : XTX_BATCH;

		p->ncache -= n;
		xtx_pool__put(r->pool, p->cache + p->ncache, n);
	}
	/* Release: a gauge for xtx_engine__frames(), and pairs with the reaper's acquire. */
	atomic_store_explicit(&p->cached_pub, 0, memory_order_release);
}

/* Fold a closing producer's counters into the totals, free its slot and p. app_back:
 * frames its application held that the reaper took back. Under the lock. */
static void retire(struct xtx_registry *r, struct xtx_producer *p, uint64_t app_back)
{
	xtx_producer_stats_add(&r->closed, p);
	CTR_ADD(r->closed_app, CTR_GET(p->got) - CTR_GET(p->sent) - CTR_GET(p->chain_sent) -
		CTR_GET(p->put) - app_back);
	CTR_ADD(r->closed_chain, CTR_GET(p->chain_sent));
	r->prods[p->id] = NULL;
	CTR_SET(r->nprods, CTR_GET(r->nprods) - 1);
	opener_put(p->opener);
	xtx_producer_free(p);
}

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
 * dequeuers still send what it queued, then free them). Under the lock. Returns the
 * frames taken back.
 * Ordering: thread_gone() read the destructor's release store of exited with acquire
 * (X), which orders every store the dead thread made before it. In the tgkill()
 * fallback the kernel had finished the exit when tgkill() said ESRCH; C11 has no word
 * for that, so the acquire load of cached_pub (each producer call that changes the cache
 * ends with a release store of it) is what orders its cache for the language and for
 * TSan. Its owner[] entries and lane tails are atomics. Nobody else writes owner entries
 * equal to id + 1 while the slot is still taken. */
static uint64_t reap_one(struct xtx_registry *r, struct xtx_producer *p)
{
	const struct xtx_frames *fr = r->fr;
	uint16_t me = (uint16_t)(p->id + 1);
	uint64_t batch[XTX_BATCH], app = 0, cached;
	unsigned nb = 0;

	/* Acquire, pairs with the release stores of cached_pub (see above). */
	cached = atomic_load_explicit(&p->cached_pub, memory_order_acquire);	/* == ncache */
	give_back_cache(r, p);
	for (uint32_t f = 0; f < fr->count; f++) {
		if (xtx_owner_get(fr, f) != me)	/* only the dead producer wrote "me" */
			continue;
		xtx_owner_set(fr, f, 0);
		batch[nb++] = ((uint64_t)f << fr->shift) + XTX_HEADROOM;
		if (nb == XTX_BATCH) {
			xtx_pool__put(r->pool, batch, nb);
			nb = 0;
		}
		app++;
	}
	if (nb)
		xtx_pool__put(r->pool, batch, nb);
	for (unsigned i = 0; i < r->nq; i++)
		if (p->lane[i])		/* NULL: cancelled inside open, waiting for lanes */
			xtx_mpsc__unregister(p->lane[i]);
	r->closed.reaped++;
	r->closed.reclaimed += cached + app;
	retire(r, p, app);
	return cached + app;
}

static int reap_locked(struct xtx_registry *r)
{
	int n = 0;

	for (unsigned i = 0; i < r->max; i++)
		if (r->prods[i] && thread_gone(r->prods[i])) {
			reap_one(r, r->prods[i]);
			n++;
		}
	return n;
}

int xtx_registry__reap(struct xtx_registry *r, int trylock)
{
	int n;

	if (trylock) {
		if (pthread_mutex_trylock(&r->lock))
			return 0;
	} else {
		pthread_mutex_lock(&r->lock);
	}
	n = reap_locked(r);
	pthread_mutex_unlock(&r->lock);
	if (n)
		xtx_room__wake(r->room, 1);	/* producers waiting for frames */
	return n;
}

int xtx_registry__add(struct xtx_registry *r, struct xtx_producer *p)
{
	unsigned id;
	int nokey;

	p->opener = opener_get(&nokey);
	if (!p->opener && !nokey)
		return -ENOMEM;
	if (nokey)
		xtx_warn(r->log, "producer: no thread-specific-data key left (%s): a thread that "
			 "exits without closing is reaped only once the kernel has ended it",
			 strerror(opener_key_err));
	pthread_mutex_lock(&r->lock);
	for (int again = 1;; again = 0) {
		for (id = 0; id < r->max && r->prods[id]; id++)
			;
		if (id < r->max)
			break;
		/* Full: a slot may belong to a thread that is gone. */
		if (!again || !reap_locked(r)) {
			pthread_mutex_unlock(&r->lock);
			opener_put(p->opener);
			return -EBUSY;
		}
	}
	p->id = id;
	p->tid = gettid();
	r->prods[id] = p;	/* the slot is ours; counters read as zero until we send */
	CTR_SET(r->nprods, CTR_GET(r->nprods) + 1);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

void xtx_registry__cancel(struct xtx_registry *r, struct xtx_producer *p)
{
	pthread_mutex_lock(&r->lock);
	r->prods[p->id] = NULL;
	CTR_SET(r->nprods, CTR_GET(r->nprods) - 1);
	pthread_mutex_unlock(&r->lock);
	opener_put(p->opener);
}

void xtx_registry__remove(struct xtx_registry *r, struct xtx_producer *p)
{
	give_back_cache(r, p);
	for (unsigned i = 0; i < r->nq; i++)
		xtx_mpsc__unregister(p->lane[i]);
	pthread_mutex_lock(&r->lock);
	retire(r, p, 0);
	pthread_mutex_unlock(&r->lock);
}

int xtx_registry__busy(struct xtx_registry *r)
{
	int busy = 0;

	pthread_mutex_lock(&r->lock);
	for (unsigned i = 0; i < XTX_MPSC_MAX_LANES && !busy; i++)
		busy = r->prods[i] != NULL;
	pthread_mutex_unlock(&r->lock);
	return busy;
}

void xtx_registry__totals(struct xtx_registry *r, struct xtx_producer_stats *st)
{
	pthread_mutex_lock(&r->lock);
	*st = r->closed;
	for (unsigned i = 0; i < XTX_MPSC_MAX_LANES; i++)
		if (r->prods[i])
			xtx_producer_stats_add(st, r->prods[i]);
	pthread_mutex_unlock(&r->lock);
}

void xtx_registry__frames(struct xtx_registry *r, uint64_t *cached, uint64_t *app,
			  uint64_t *chain_sent)
{
	*app = CTR_GET(r->closed_app);
	*chain_sent = CTR_GET(r->closed_chain);
	*cached = 0;
	pthread_mutex_lock(&r->lock);
	for (unsigned i = 0; i < XTX_MPSC_MAX_LANES; i++) {
		const struct xtx_producer *p = r->prods[i];

		if (!p)
			continue;
		/* Relaxed: a gauge; the release stores of cached_pub are for the reaper. */
		*cached += atomic_load_explicit(&p->cached_pub, memory_order_relaxed);
		*app += CTR_GET(p->got) - CTR_GET(p->sent) - CTR_GET(p->chain_sent) -
			CTR_GET(p->put);
		*chain_sent += CTR_GET(p->chain_sent);
	}
	pthread_mutex_unlock(&r->lock);
}
