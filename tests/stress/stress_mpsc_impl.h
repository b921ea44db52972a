/* SPDX-License-Identifier: BSD-3-Clause */
/* stress_mpsc_impl.h - the one body of the MPSC stress tests; each stress_mpsc_*.c file
 * picks a mode (DPDK test_ring_stress_impl.h style).
 *
 * P producer threads push sequence-tagged items for a bounded time (and count): item
 * addr = per-thread sequence number, hash = thread << 20 | registration epoch, len and cls
 * derived from the sequence. The consumer checks, for every (thread, epoch), that items
 * arrive exactly in sequence (per-producer FIFO, no loss or duplicate inside a
 * registration); at the end that each thread's epochs chain without gaps up to what the
 * thread says it enqueued, and that the stage counters match. P runs 1, 2, 4, 8, 16 on a
 * 2-core machine, so most runs are oversubscribed.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <xtx/mpsc.h>
#include "check.h"

struct stress_mode {
	const char *name;
	int busy_poll;		/* consumer spins in wait() */
	int churn;		/* producers unregister/re-register every churn items */
	unsigned lanes;		/* 0: one per producer */
	unsigned lane_size;
	double seconds;		/* per producer count */
};

#define MAX_THREADS	16
#define MAX_EPOCHS	4096
#define MAX_ITEMS	(50u * 1000 * 1000)	/* per producer: a count bound too */

struct epoch_seen {
	uint64_t first, next;	/* first seq seen, next expected; first == UINT64_MAX: none */
};

struct stress {
	const struct stress_mode *m;
	struct xtx_mpsc *s;
	unsigned nprod;
	_Atomic int stop;
	_Atomic unsigned done;
	uint64_t produced[MAX_THREADS];		/* written by thread i before done++ */
	unsigned epochs[MAX_THREADS];
	struct epoch_seen *seen[MAX_THREADS];	/* consumer-private */
	uint64_t consumed;
	unsigned errors;
};

struct prod_arg {
	struct stress *st;
	unsigned id;
};

static inline uint16_t tag_len(uint64_t seq)
{
	return (uint16_t)((seq * 2654435761u) >> 16);
}

static struct xtx_mpsc_prod *reg_retry(struct stress *st)
{
	struct xtx_mpsc_prod *p;

	/* Lanes may all be owned (churn with fewer lanes than producers): yield and retry. */
	/* Relaxed: a stop flag, read in a loop. */
	while (!(p = xtx_mpsc__register(st->s))) {
		if (atomic_load_explicit(&st->stop, memory_order_relaxed))
			return NULL;
		sched_yield();
	}
	return p;
}

static void *producer(void *arg)
{
	struct prod_arg *a = arg;
	struct stress *st = a->st;
	unsigned epoch = 0, since = 0;
	uint64_t seq = 0;
	unsigned rnd = a->id * 7919 + 1;
	struct xtx_desc b[64];
	struct xtx_mpsc_prod *p = reg_retry(st);

	while (p && seq < MAX_ITEMS &&
	       !atomic_load_explicit(&st->stop, memory_order_relaxed)) {
		unsigned n = 1 + (rnd = rnd * 1103515245 + 12345) % 64, put = 0;

		for (unsigned i = 0; i < n; i++)
			b[i] = (struct xtx_desc){ .addr = seq + i,
				.hash = a->id << 20 | epoch, .len = tag_len(seq + i),
				.cls = (uint16_t)a->id };
		while (put < n) {
			unsigned k = xtx_mpsc__enqueue_burst(p, b + put, n - put);

			put += k;
			if (k == 0) {
				if (atomic_load_explicit(&st->stop, memory_order_relaxed))
					break;
				sched_yield();	/* back-pressure: let the consumer run */
			}
		}
		seq += put;
		since += put;
		if (put < n)
			break;
		if (st->m->churn && since >= (unsigned)st->m->churn && epoch + 1 < MAX_EPOCHS) {
			xtx_mpsc__unregister(p);
			epoch++;
			since = 0;
			p = reg_retry(st);
		}
	}
	if (p)
		xtx_mpsc__unregister(p);
	st->produced[a->id] = seq;
	st->epochs[a->id] = epoch + 1;
	/* Release, pairs with the consumer's acquire load of done: produced[]/epochs[] are
	 * visible once done counts this thread. */
	atomic_fetch_add_explicit(&st->done, 1, memory_order_release);
	return NULL;
}

static void check_item(struct stress *st, const struct xtx_desc *d)
{
	unsigned id = d->hash >> 20, epoch = d->hash & 0xfffff;
	struct epoch_seen *e;

	if (id >= st->nprod || epoch >= MAX_EPOCHS || d->cls != id ||
	    d->len != tag_len(d->addr)) {
		if (st->errors++ < 10)
			fprintf(stderr, "corrupt item: hash %#x addr %lu len %u cls %u\n",
				d->hash, (unsigned long)d->addr, d->len, d->cls);
		return;
	}
	e = &st->seen[id][epoch];
	if (e->first == UINT64_MAX) {
		e->first = d->addr;
		e->next = d->addr + 1;
	} else if (d->addr != e->next) {
		if (st->errors++ < 10)
			fprintf(stderr, "order: thread %u epoch %u expected seq %lu, got %lu\n",
				id, epoch, (unsigned long)e->next, (unsigned long)d->addr);
		e->next = d->addr + 1;
	} else {
		e->next++;
	}
	st->consumed++;
}

static void consume(struct stress *st)
{
	struct xtx_desc out[64];
	unsigned rnd = 12345;

	for (;;) {
		unsigned n = 1 + (rnd = rnd * 1103515245 + 12345) % 64;
		unsigned got = xtx_mpsc__dequeue_burst(st->s, out, n);

		for (unsigned i = 0; i < got; i++)
			check_item(st, &out[i]);
		if (got)
			continue;
		/* Acquire, pairs with the producers' release increment of done. */
		if (atomic_load_explicit(&st->done, memory_order_acquire) == st->nprod) {
			struct xtx_mpsc_stats ss;

			xtx_mpsc__stats(st->s, &ss);
			if (ss.lanes_owned == 0 && ss.deq_items == ss.enq_items)
				break;	/* every lane closed, freed and drained */
			continue;
		}
		/* Nothing now: sleep (or spin) until a bell, at most 1 ms. */
		int r = xtx_mpsc__wait(st->s, 1000 * 1000);
		if (r != 0 && r != -ETIMEDOUT && r != -EINTR)
			CHECK_EQ_I64(0, r);
	}
}

struct stop_arg {
	struct stress *st;
	struct timespec ts;
};

/* Ends the run after the mode's duration: the consumer thread is busy checking. */
static void *stop_main(void *x)
{
	struct stop_arg *sa = x;

	nanosleep(&sa->ts, NULL);
	/* Relaxed: a stop flag; the producers' done increments carry the real ordering. */
	atomic_store_explicit(&sa->st->stop, 1, memory_order_relaxed);
	return NULL;
}

static void run_one(const struct stress_mode *m, unsigned nprod)
{
	struct stress st = { .m = m, .nprod = nprod };
	struct xtx_mpsc_opts o = { .sz = sizeof(o), .lanes = m->lanes ? m->lanes : nprod,
				   .lane_size = m->lane_size, .numa_node = -1,
				   .busy_poll = m->busy_poll };
	struct prod_arg args[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	struct timespec ts = { .tv_sec = (time_t)m->seconds,
			       .tv_nsec = (long)((m->seconds - (double)(time_t)m->seconds) * 1e9) };
	struct xtx_mpsc_stats ss;
	uint64_t produced = 0;

	st.s = xtx_mpsc__create(&o);
	if (!CHECK(st.s != NULL))
		return;
	for (unsigned i = 0; i < nprod; i++) {
		st.seen[i] = malloc(sizeof(struct epoch_seen) * MAX_EPOCHS);
		for (unsigned e = 0; e < MAX_EPOCHS; e++)
			st.seen[i][e].first = UINT64_MAX;
		args[i] = (struct prod_arg){ &st, i };
		pthread_create(&th[i], NULL, producer, &args[i]);
	}
	pthread_t stopper;
	struct stop_arg sa = { &st, ts };
	pthread_create(&stopper, NULL, stop_main, &sa);
	consume(&st);
	pthread_join(stopper, NULL);
	for (unsigned i = 0; i < nprod; i++)
		pthread_join(th[i], NULL);

	/* Each thread's epochs chain: epoch 0 starts at 0, each next starts where the
	 * previous ended, the last ends at what the thread enqueued. Empty epochs (a
	 * registration that enqueued nothing) are skipped. */
	for (unsigned i = 0; i < nprod; i++) {
		uint64_t expect = 0;

		for (unsigned e = 0; e < st.epochs[i]; e++) {
			struct epoch_seen *x = &st.seen[i][e];

			if (x->first == UINT64_MAX)
				continue;
			if (!CHECK_EQ_U64(expect, x->first))
				st.errors++;
			expect = x->next;
		}
		if (!CHECK_EQ_U64(st.produced[i], expect))
			st.errors++;
		produced += st.produced[i];
		free(st.seen[i]);
	}
	xtx_mpsc__stats(st.s, &ss);
	CHECK_EQ_U64(produced, st.consumed);
	CHECK_EQ_U64(produced, ss.enq_items);
	CHECK_EQ_U64(produced, ss.deq_items);
	CHECK_EQ_U64(0, st.errors);
	CHECK(produced > 0);
	printf("%-8s P=%-2u items %10lu  rings %8lu  sleeps %7lu  wakeups %7lu  full %8lu\n",
	       m->name, nprod, (unsigned long)produced, (unsigned long)ss.rings,
	       (unsigned long)ss.sleeps, (unsigned long)ss.wakeups,
	       (unsigned long)ss.full_events);
	xtx_mpsc__destroy(st.s);
}

static int stress_main(const struct stress_mode *m)
{
	static const unsigned ps[] = { 1, 2, 4, 8, 16 };
	const char *env = getenv("XTX_STRESS_SECONDS");
	struct stress_mode mm = *m;

	if (env)
		mm.seconds = atof(env);
	for (unsigned i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		run_one(&mm, ps[i]);
	return check_summary(m->name);
}
