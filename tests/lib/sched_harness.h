/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_harness.h - the harness of the scheduler unit tests (tests/unit/test_sched_*.c);
 * the bodies are in sched_harness.c, which every test binary links (tests/lib/).
 *
 * A `struct sim` wraps one scheduler on a virtual clock and keeps a ledger: every
 * descriptor handed to enqueue gets a unique addr (a sequence number), and must come back
 * exactly once - from dequeue, from the enqueue's drops[], or from purge. sim_finish()
 * purges what is left and checks the ledger and, per class, the conservation of packets:
 *   offered  == enq_pkts + drops at enqueue (every reason but PURGED)
 *   enq_pkts == sent_pkts + drops[PURGED] + drops[CODEL] + qlen
 * plus the scheduler's own invariant walk (_xtx_sched__check) after every Nth dequeue
 * call when sim.check_every = N is set.
 *
 * Rules:
 *   - The harness's checks count in the test's summary (check.h's counters are one pair
 *     per binary, tests/lib/check.c). Every sim starts with sim_init() or sim_init_twin().
 *   - It reads the scheduler's internals (sched_int.h) but none whose layout or meaning
 *     depends on XTX_SCHED_HYSTERESIS: test_sched_random_nohyst compiles it with =0.
 */
#ifndef XTX_TEST_SCHED_HARNESS_H
#define XTX_TEST_SCHED_HARNESS_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/sched.h>
#include "check.h"
#include "sched_int.h"

#define MBIT(x)		((uint64_t)(x) * 125000ull)	/* Mbit/s -> bytes/s */
#define GBIT(x)		((uint64_t)(x) * 125000000ull)
#define MS(x)		((uint64_t)(x) * 1000000ull)
#define SEC(x)		((uint64_t)(x) * 1000000000ull)
#define T0		SEC(1000)	/* virtual clock start: far from 0 */

/* Packet budget of one long simulation: sanitizers make each packet ~10x slower. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SIM_PKT_BUDGET	1000000ull
#else
#define SIM_PKT_BUDGET	4000000ull
#endif

struct sim {
	struct xtx_sched *s;
	struct xtx_sched_config *cfg;
	uint64_t now;
	uint64_t seq;			/* next addr */
	uint8_t *led;			/* per addr: 0 unused, 1 in scheduler, 2 back */
	uint64_t led_cap;
	uint64_t *txt;			/* per addr: txtime given (0 = none) */
	uint16_t *cls_of;		/* per addr: class charged (after default mapping) */
	uint32_t *hash_of;		/* per addr: flow hash */
	uint64_t *offered;		/* per class */
	unsigned ncls;
	int dflt;			/* class index invalid indexes go to, -1 = none */
	uint64_t early;			/* packets dequeued before their txtime */
	uint64_t dup;			/* descriptors that came back twice / unknown */
	unsigned check_every;		/* run _xtx_sched__check every N dequeue calls */
	unsigned ncalls;
	bool check_failed;
	/* sent bytes/packets per class, wire bytes (len + overhead) */
	uint64_t *sent_wire, *sent_pkts;
	uint64_t *aqm_pkts;		/* per class: dropped by CoDel (take_dropped()) */
	void (*on_aqm)(struct sim *m, const struct xtx_desc *d);	/* each, or NULL */
	void *user;			/* the test's, for on_aqm */
	struct xtx_desc dropped[64];
	uint64_t *inq;			/* per class: accepted, not yet back */
	uint32_t overhead;
	/* sim_init_twin(): a second scheduler from the same config with deferred charging
	 * off, given every call the first gets; each difference is counted (and the first
	 * few printed), and sim_finish() checks there were none. */
	struct xtx_sched *twin;
	uint64_t twin_diffs;
};

/* Class options with the given handle, parent, rate and ceil (bytes/s), the rest 0. */
struct xtx_class_opts copts(uint32_t handle, uint32_t parent, uint64_t rate, uint64_t ceil);
/* Add a class; exit(2) if the config refuses it. */
void cfg_add(struct xtx_sched_config *cfg, const struct xtx_class_opts *o);
/* Index of the class with this handle; exit(2) if there is none. */
int cls_idx(const struct sim *m, uint32_t handle);

/* Build the scheduler. Takes ownership of cfg. pool 0 = default. */
void sim_init(struct sim *m, struct xtx_sched_config *cfg, uint32_t pool, uint64_t horizon);
/* sim_init with the scheduler's options given whole. */
void sim_init_opts(struct sim *m, struct xtx_sched_config *cfg, const struct xtx_sched_opts *o);
/* sim_init plus the twin (see struct sim). */
void sim_init_twin(struct sim *m, struct xtx_sched_config *cfg, uint32_t pool,
		   uint64_t horizon);

/* Give the twin the call the first one just answered; compare the answers. */
void twin_cmp_descs(struct sim *m, const char *what, const struct xtx_desc *a, unsigned na,
		    const struct xtx_desc *b, unsigned nb);
/* Class index c is a leaf. */
bool sim_is_leaf(const struct sim *m, unsigned c);
/* Room in the ledger for addrs below need. */
void led_grow(struct sim *m, uint64_t need);
/* A descriptor came back: it must be in the scheduler, once. */
void led_back(struct sim *m, const struct xtx_desc *d);

/* Offer n packets of one class/flow at m->now. txtime 0 = none. Returns the number
 * accepted; refused descriptors come back through the ledger at once. */
unsigned sim_enq(struct sim *m, uint16_t cls, uint32_t hash, uint16_t len, uint64_t txtime,
		 unsigned n);
/* Dequeue up to n at m->now. Accounts sent bytes, checks txtime and the ledger. */
unsigned sim_deq(struct sim *m, struct xtx_desc *out, unsigned n, uint64_t *next);
/* After a dequeue that returned nothing: jump the clock to next. False (and a failed
 * check) if the scheduler holds packets but names no future time: a test loop would spin. */
bool sim_jump(struct sim *m, uint64_t next);
/* Per class conservation, without purging. */
void sim_check_counts(struct sim *m);
/* Purge everything, then check the ledger and the counters, and free. */
void sim_finish(struct sim *m);
/* Class c's drops for one reason (enum xtx_drop_reason), and its queue length. */
uint64_t class_drops(struct sim *m, unsigned c, unsigned reason);
uint32_t class_qlen(struct sim *m, unsigned c);

/* One source of backlogged traffic for sim_run(). */
struct src {
	uint16_t cls;
	uint32_t hash;
	uint16_t len;
	bool on;		/* keep it backlogged */
	unsigned depth;		/* top up to 2 * depth packets when below depth */
	uint64_t inq;		/* its packets in the scheduler */
	uint64_t sent_wire;	/* wire bytes dequeued since the last src_reset() */
	uint64_t sent_pkts;
};

struct run_stats {
	uint64_t calls, pkts, wakeups, empty_wakeups;
	unsigned probe_every;	/* every Nth wakeup, first dequeue at next_ns - 1 */
	uint64_t probes, probe_bad;	/* ... which must yield nothing */
	uint64_t bytes;			/* wire bytes dequeued */
	/* clock and bytes dequeued before the first / latest wakeup: the rate between two
	 * wakeups is free of the initial bucket and of packet granularity */
	uint64_t first_wake_t, first_wake_bytes, last_wake_t, last_wake_bytes;
};

/* Zero the sent counters of v[0..n-1]. */
void src_reset(struct src *v, unsigned n);
/* Charge the got descriptors of out to the sources of v[0..nv-1] they came from. */
void src_account(struct sim *m, struct src *v, unsigned nv, const struct xtx_desc *out,
		 unsigned got);
/* Run the clock from m->now to `until`: keep every `on` source backlogged, dequeue bursts
 * of `burst` and jump the clock to *next_ns whenever nothing is eligible. A wakeup that
 * yields nothing is counted (with one class of traffic it means next_ns was wrong). */
void sim_run(struct sim *m, struct src *v, unsigned nv, uint64_t until, unsigned burst,
	     struct run_stats *rs);

/* Jain's fairness index of x[0..n-1]. */
double jain(const double *x, unsigned n);
/* xorshift64*: deterministic test randomness */
uint64_t rnd(uint64_t *st);

#endif /* XTX_TEST_SCHED_HARNESS_H */
