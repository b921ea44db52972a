/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/sched.h - HTB class tree with per-flow fair queueing and pacing.
 *
 * One scheduler instance belongs to one dequeuer thread (one NIC TX queue). Only that thread
 * calls it, so it has no lock and no atomic. Time is injected: every call that needs the
 * clock takes `now_ns` (CLOCK_MONOTONIC nanoseconds in the engine, virtual time in tests).
 *
 * Two objects:
 *   struct xtx_sched_config  the class tree as the user wrote it (C API or text file,
 *                            see docs/config.md); validated before use.
 *   struct xtx_sched         the running scheduler built from a validated config.
 *
 * Units: rates in bytes per second (tc's "10gbit" is 1.25e9 B/s), sizes in bytes,
 * times in nanoseconds. Class handles are tc's major:minor, XTX_HANDLE(1, 0x10) for "1:10".
 */
#ifndef XTX_SCHED_H
#define XTX_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include <xtx/desc.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XTX_HANDLE(maj, min)	((((uint32_t)(maj)) << 16) | ((uint32_t)(min) & 0xffffu))
#define XTX_HANDLE_MAJ(h)	((uint32_t)(h) >> 16)
#define XTX_HANDLE_MIN(h)	((uint32_t)(h) & 0xffffu)
#define XTX_HANDLE_ROOT		0xffffffffu	/* parent of a root class (tc's TC_H_ROOT) */

#define XTX_PRIO_MAX		7		/* prio 0 (highest) .. 7 */
#define XTX_CLASS_MAX		65535		/* class indexes fit the descriptor's u16 */
#define XTX_ETH_OVERHEAD	24	/* preamble+SFD 8, inter-frame gap 12, FCS 4 */

/* One class as configured. Zero means "default" for every optional field; the defaults
 * are tc's and sch_htb's / sch_fq's, filled in by xtx_sched_config__add_class():
 *   ceil     = rate
 *   burst    = rate / 1000 + 1600  (tc: rate/HZ + mtu, HZ 1000, mtu 1600)
 *   cburst   = ceil / 1000 + 1600
 *   quantum  = rate / r2q, clamped to [1000, 200000] as sch_htb does (only when unset)
 *   limit    = 10000 packets per leaf (sch_fq's limit)
 *   flows    = 1024 flow slots when fq is on (sch_fq's buckets), 1 otherwise
 *   flow_limit = 100 packets per flow (sch_fq)
 *   fq_quantum = 2 * 1514 bytes (sch_fq: 2 * psched_mtu)
 */
struct xtx_class_opts {
	size_t sz;		/* sizeof(struct xtx_class_opts), for growth */
	uint32_t handle;	/* XTX_HANDLE(maj, min); minor 0 only for a root class */
	uint32_t parent;	/* parent's handle, or XTX_HANDLE_ROOT */
	uint64_t rate;		/* guaranteed rate, bytes/s; required, > 0 */
	uint64_t ceil;		/* maximum rate with borrowing, bytes/s; >= rate */
	uint32_t burst;		/* bytes that may be sent at once above rate */
	uint32_t cburst;	/* bytes that may be sent at once above ceil */
	uint32_t quantum;	/* DRR quantum among classes of equal prio, bytes */
	uint8_t prio;		/* 0 (highest) .. XTX_PRIO_MAX */
	uint8_t fq;		/* leaf only: 1 = per-flow fair queueing, 0 = one FIFO */
	uint32_t limit;		/* leaf only: packets queued in the leaf, all flows */
	uint32_t flows;		/* leaf only, fq: flow table size (slots, power of 2) */
	uint32_t flow_limit;	/* leaf only, fq: packets queued per flow */
	uint32_t fq_quantum;	/* leaf only, fq: bytes per flow per DRR round */
	uint64_t maxrate;	/* leaf only, fq: per-flow pacing rate, bytes/s; 0 = off */
	uint32_t line;		/* config file line that defined it (0 from the C API) */
	uint8_t scope;		/* XTX_SCOPE_DEVICE (0): rate, ceil and bursts hold for the
				 * sum over a device's TX queues, when the schedulers share
				 * an xtx_sched_shared; XTX_SCOPE_QUEUE: per queue (mq) */
	uint64_t target;	/* leaf only: room target, ns (below); 0: the scheduler's
				 * (xtx_sched_opts.target_ns), XTX_TARGET_OFF: none */
	uint8_t codel;		/* leaf only: CoDel per flow (below): XTX_CODEL_DEFAULT the
				 * scheduler's (xtx_sched_opts.codel), XTX_CODEL_ON, _OFF */
	uint8_t codel_ecn;	/* with codel: 1 marks ECT packets CE instead of dropping
				 * them (xtx_sched_opts.ecn_mark) */
	uint64_t codel_target;	/* with codel: sojourn target, ns; 0: XTX_CODEL_TARGET_NS */
	uint64_t codel_interval; /* with codel: interval, ns; 0: XTX_CODEL_INTERVAL_NS */
};

/* Room: a leaf is full (xtx_sched__room_full()) once it holds `target` of its own
 * departures: wire bytes queued >= its budget, where the budget is target times the
 * rate at which the leaf sent over its last 10 ms windows (halved toward each new
 * window's rate), at least min(64 KiB, target * ceil) and 4 full frames, at most
 * max(that, target * ceil), and (unless xtx_sched__set_room_hold() turned it off) at most
 * half of what its limits hold: min(limit, flow_limit x the flows attached) packets at
 * the mean wire size of those it accepted. It has room again once it holds half its
 * budget or less. The scheduler never refuses a packet for it (the limits do that):
 * producers that ask (the engine's xtx_producer__room()) wait instead of filling the
 * leaf to its limit. */
#define XTX_SCHED_TARGET_NS	250000ull	/* 250 us: xtx-send's default target; each
						 * class's delay at or below kernel HTB's in
						 * docs/bench/compare-room.notes.md,
						 * "default target" */
#define XTX_TARGET_OFF		UINT64_MAX

/* CoDel (RFC 8289) on each flow of a leaf, as fq_codel applies it: a flow whose head
 * packet waited (enqueue to dequeue) at least `codel_target` for a whole
 * `codel_interval`, with more than one MTU (1514 bytes) queued behind it, enters the
 * dropping state; it then drops (or, with codel_ecn and an ECT packet, marks CE) its head
 * at times interval / sqrt(count) apart, count the drops in this state, until a head
 * waited less than target. Drops are counted as XTX_DROP_CODEL, marks as ecn_marks; the
 * dropped descriptors wait for xtx_sched__take_dropped(). */
enum {
	XTX_CODEL_DEFAULT = 0,
	XTX_CODEL_ON = 1,
	XTX_CODEL_OFF = 2,
};
#define XTX_CODEL_TARGET_NS	5000000ull	/* fq_codel's 5 ms */
#define XTX_CODEL_INTERVAL_NS	100000000ull	/* fq_codel's 100 ms */
#define XTX_CODEL_MTU		1514u		/* fq_codel: psched_mtu() of Ethernet */

enum {
	XTX_SCOPE_DEVICE = 0,
	XTX_SCOPE_QUEUE = 1,
};
/* Sized as every xtx_*_opts (see xtx_engine_opts): fields up to __last_field read, a
 * larger sz only with zero bytes beyond it, sz at least the first release's sizeof (it
 * ended at __min_field). */
#define xtx_class_opts__last_field	codel_interval
#define xtx_class_opts__min_field	line

struct xtx_sched_config;

/* Create an empty configuration. NULL with errno ENOMEM on failure. */
struct xtx_sched_config *xtx_sched_config__new(void);
void xtx_sched_config__free(struct xtx_sched_config *cfg);

/* Add a class; fills the defaults listed above. Errors: -EINVAL (sz too small, rate 0,
 * prio > 7, ceil < rate), -EEXIST (handle already present), -E2BIG (more than
 * XTX_CLASS_MAX classes), -ENOMEM. Tree-wide checks are left to validate(). */
int xtx_sched_config__add_class(struct xtx_sched_config *cfg, const struct xtx_class_opts *o);
/* The class that gets descriptors without a valid class index. Must name a leaf.
 * Default: the first leaf in config order. */
int xtx_sched_config__set_default(struct xtx_sched_config *cfg, uint32_t handle);
/* Extra bytes counted per packet on the wire (default XTX_ETH_OVERHEAD; may be 0). */
int xtx_sched_config__set_overhead(struct xtx_sched_config *cfg, uint32_t bytes);
/* Divisor for default quanta (default 10, sch_htb's r2q). -EINVAL if 0. */
int xtx_sched_config__set_r2q(struct xtx_sched_config *cfg, uint32_t r2q);

/* Check the whole tree: parents exist, no cycle, one or more roots, a child's rate and
 * ceil not above its parent's ceil, leaf-only options only on leaves, default is a leaf,
 * flows a power of two. Returns 0, or -EINVAL with a message in err naming the file and
 * line when the class came from a file ("classes.conf:4: class 1:10: ..."). */
int xtx_sched_config__validate(const struct xtx_sched_config *cfg, char *err, size_t errlen);

/* Parse the text format (docs/config.md). Returns NULL with errno EINVAL and a message
 * "NAME:LINE:COL: found 'X', expected Y" in err on a syntax error, or the validate()
 * message on an impossible tree; ENOENT/EACCES/... for an unreadable file. */
struct xtx_sched_config *xtx_sched_config__parse_file(const char *path, char *err, size_t errlen);
struct xtx_sched_config *xtx_sched_config__parse_string(const char *text, const char *name,
						       char *err, size_t errlen);

/* The configuration as class file text (docs/config.md) that parses back to the same
 * classes, in order, with every value explicit, and the same default class, overhead and
 * r2q. Writes at most len bytes, NUL-terminated, as snprintf; returns the length the
 * whole text needs (without the NUL), -EINVAL, -ENOMEM. */
int xtx_sched_config__format(const struct xtx_sched_config *cfg, char *buf, size_t len);
/* A copy of cfg (its source name too). NULL with errno ENOMEM or EINVAL. */
struct xtx_sched_config *xtx_sched_config__dup(const struct xtx_sched_config *cfg);

/* Read back the configuration, in config order. */
unsigned xtx_sched_config__class_count(const struct xtx_sched_config *cfg);
const struct xtx_class_opts *xtx_sched_config__class(const struct xtx_sched_config *cfg,
						       unsigned idx);
uint32_t xtx_sched_config__default(const struct xtx_sched_config *cfg); /* 0 = unset */
uint32_t xtx_sched_config__overhead(const struct xtx_sched_config *cfg);
uint32_t xtx_sched_config__r2q(const struct xtx_sched_config *cfg);
/* Class index (config order) of a handle, or -ENOENT. This is the index a descriptor
 * carries in xtx_desc.cls. */
int xtx_sched_config__class_index(const struct xtx_sched_config *cfg, uint32_t handle);
/* Whether the class `handle` is a leaf (no class names it as parent): 1 leaf, 0 inner
 * class, -ENOENT no such class (or cfg NULL). Looks at every class: O(classes). */
int xtx_sched_config__is_leaf(const struct xtx_sched_config *cfg, uint32_t handle);

/* A handle as tc prints it: "1:10" (hex), "1:" for minor 0, "root" for XTX_HANDLE_ROOT,
 * written NUL-terminated to buf. Returns the length of the string (XTX_HANDLE_STRLEN
 * always suffices), -EINVAL (buf NULL or len 0), -ENOSPC (cut short to fit len). */
#define XTX_HANDLE_STRLEN	16
int xtx_handle__str(uint32_t handle, char *buf, size_t len);

/* A rate as the config file reads one (docs/config.md), in tc's units: a decimal number
 * ("100", "2.5", ".5", "5.") right before a unit matched without regard to case:
 *   bit kbit mbit gbit tbit, kibit mibit gibit tibit   bits per second (decimal, binary)
 *   bps kbps mbps gbps tbps, kibps mibps gibps tibps   bytes per second
 *   none                                               bits per second, as tc reads it
 * into *bytes_per_s, exactly ("1.5gbit" is 187500000; a fraction of a byte per second is
 * truncated, as tc does; 0 is a valid result). Returns 0, -EINVAL (s or bytes_per_s NULL,
 * or not such a rate: a sign, a blank, an exponent or hex included), -ERANGE (above
 * UINT64_MAX bytes/s, or more than 24 significant digits). */
int xtx_rate__parse(const char *s, uint64_t *bytes_per_s);

/* A time as the config file reads one, in tc's units: a decimal number right before
 * s, sec, secs, ms, msec, msecs, us, usec or usecs (case-insensitive), or no unit
 * (microseconds, as tc reads it), into *ns. Returns 0, -EINVAL, -ERANGE. */
int xtx_time__parse(const char *s, uint64_t *ns);

/* --- the running scheduler --------------------------------------------------- */

enum xtx_drop_reason {
	XTX_DROP_LEAF_LIMIT,	/* leaf already holds `limit` packets */
	XTX_DROP_FLOW_LIMIT,	/* flow already holds `flow_limit` packets */
	XTX_DROP_NO_CLASS,	/* class index names no leaf and there is no default */
	XTX_DROP_NO_BUFS,	/* scheduler's packet pool is exhausted */
	XTX_DROP_HORIZON,	/* txtime further ahead than the horizon (sch_fq's horizon_drop) */
	XTX_DROP_PURGED,	/* given back by xtx_sched__purge() */
	XTX_DROP_CODEL,		/* dropped at dequeue by CoDel (xtx_sched__take_dropped()) */
	XTX_DROP__MAX
};

/* The name of a drop reason, as the tools print it and use as a JSON key: "leaf_limit",
 * "flow_limit", "no_class", "no_bufs", "horizon", "purged", "codel". NULL for a value
 * outside the enum (as libbpf's *_str()). */
const char *xtx_drop_reason__str(enum xtx_drop_reason r);

struct xtx_class_stats {
	uint64_t enq_pkts, enq_bytes;	/* accepted */
	uint64_t sent_pkts, sent_bytes;	/* returned by dequeue */
	uint64_t drops[XTX_DROP__MAX];	/* refused or purged, by reason */
	uint64_t borrows;		/* packets sent on a parent's tokens */
	uint64_t throttled;		/* times the class went over its ceil / rate */
	uint32_t qlen;			/* packets queued now (leaf) */
	uint32_t flows;			/* flows with packets or credit now (fq leaf) */
	int64_t tokens, ctokens;	/* now, in nanoseconds of transmission time */
	uint32_t backlog;		/* wire bytes queued now (leaf with a room target;
					 * 0 without one) */
	uint32_t room_budget;		/* wire bytes that make it full now (leaf; room,
					 * above); UINT32_MAX: no target */
	uint64_t room_closes;		/* times it became full (leaf) */
	uint64_t ecn_marks;		/* packets CoDel marked CE instead of dropping */
};

struct xtx_sched_shared;

struct xtx_sched_opts {
	size_t sz;		/* sizeof(struct xtx_sched_opts) */
	uint32_t pkt_pool;	/* packets held at once over all leaves; 0 = sum of limits,
				 * capped at 1 << 20 */
	uint64_t horizon_ns;	/* txtime further ahead is dropped; 0 = 10 s (sch_fq) */
	struct xtx_sched_shared *shared; /* device-wide classes: made from the same config;
				 * NULL: every class per scheduler */
	uint32_t queue;		/* with shared: this scheduler's queue, 0 .. nqueues - 1,
				 * each taken by one scheduler */
	uint64_t target_ns;	/* room target of the leaves whose own is 0; 0 or
				 * XTX_TARGET_OFF: none (never full) */
	uint8_t codel;		/* XTX_CODEL_ON: CoDel with the default target and
				 * interval on leaves whose class leaves codel at
				 * XTX_CODEL_DEFAULT; else none there */
	/* Marks the packet of d Congestion Experienced if it is ECT(0), ECT(1) or already
	 * CE (IPv4 or IPv6; fixing the IPv4 header checksum) and returns 1; returns 0 for
	 * a packet that is not ECN-capable, which CoDel then drops. NULL: every such
	 * packet is dropped. Called only at a CoDel drop of a codel_ecn leaf. */
	int (*ecn_mark)(void *ctx, const struct xtx_desc *d);
	void *ecn_ctx;
	/* Class slots: the class index a descriptor carries for config class i is
	 * slots[i], all distinct and below nslots (with shared: its slot count). NULL:
	 * config index i, and nslots 0 the class count. A slot no class has goes to the
	 * default class, as an index out of range does. A running engine keeps a class's
	 * slot across live changes that add and remove others (xtx_sched__adopt()). */
	const uint32_t *slots;
	uint32_t nslots;
};
#define xtx_sched_opts__last_field	nslots
#define xtx_sched_opts__min_field	pkt_pool

/* Device-wide classes. The schedulers of one device's TX queues (one per dequeuer thread)
 * share one xtx_sched_shared, made from the same config: each class of scope
 * XTX_SCOPE_DEVICE then holds its rate, ceil, burst and cburst for the sum of what they
 * send, without a lock. Each scheduler takes the tokens it spends from the class's
 * device-wide buckets a slice at a time (one CAS per slice, none per packet) and holds at
 * most one slice: min(slice_ns, burst time / 2). In any interval the schedulers together
 * send at most the class's rate times the interval, plus its burst, plus
 * Q * (2 slices + one packet) for Q schedulers (docs/design.md, "Device-wide classes").
 * slice_ns 0: XTX_SCHED_SLICE_NS. now_ns starts the device-wide buckets full. NULL with
 * errno EINVAL (bad config, message in err) or ENOMEM. Destroy after every scheduler that
 * uses it. */
#define XTX_SCHED_SLICE_NS	50000ull	/* 50 us of transmission at the class's rate */
#define XTX_SCHED_SHARED_MAXQ	256u
struct xtx_sched_shared *xtx_sched_shared__create(const struct xtx_sched_config *cfg,
						  unsigned nqueues, uint64_t slice_ns,
						  uint64_t now_ns, char *err, size_t errlen);
/* The same with class slots (xtx_sched_opts.slots): state for nslots classes, config
 * class i in slots[i] (NULL: slot i; nslots >= the class count). Schedulers that use it
 * pass the same nslots. */
struct xtx_sched_shared *xtx_sched_shared__create_slots(const struct xtx_sched_config *cfg,
							const uint32_t *slots, unsigned nslots,
							unsigned nqueues, uint64_t slice_ns,
							uint64_t now_ns, char *err,
							size_t errlen);
void xtx_sched_shared__destroy(struct xtx_sched_shared *sh);
/* Classes of device scope in it. */
unsigned xtx_sched_shared__class_count(const struct xtx_sched_shared *sh);

struct xtx_sched;

/* Build a scheduler from a configuration (validated here again). now_ns starts the
 * token buckets full. NULL with errno EINVAL (bad config; message in err if given),
 * ENOMEM. All memory is allocated here; enqueue/dequeue never allocate. */
struct xtx_sched *xtx_sched__create(const struct xtx_sched_config *cfg,
				    const struct xtx_sched_opts *opts, uint64_t now_ns,
				    char *err, size_t errlen);
void xtx_sched__destroy(struct xtx_sched *s);

/* Offer n descriptors. txtime is NULL, or n earliest departure times in ns (0 = none).
 * Refused descriptors are copied to drops[] (room for n) and counted in *ndrops and in
 * the class's drop counters. Returns the number accepted; accepted + *ndrops == n. */
unsigned xtx_sched__enqueue_burst(struct xtx_sched *s, const struct xtx_desc *d,
				  const uint64_t *txtime, unsigned n, uint64_t now_ns,
				  struct xtx_desc *drops, unsigned *ndrops);

/* Take up to n descriptors that may leave at now_ns, in the order they should leave.
 * *next_ns is set to: now_ns if more are eligible right away, the earliest time more
 * can become eligible if everything queued is held back, or UINT64_MAX if empty. */
unsigned xtx_sched__dequeue_burst(struct xtx_sched *s, struct xtx_desc *out, unsigned n,
				  uint64_t now_ns, uint64_t *next_ns);

/* Remove up to n queued descriptors (shutdown with drop): counted as XTX_DROP_PURGED.
 * Returns the number written; 0 when empty. */
unsigned xtx_sched__purge(struct xtx_sched *s, struct xtx_desc *out, unsigned n);

/* Descriptors CoDel dropped at dequeue, oldest first: up to n, removed from the
 * scheduler; their frames are the caller's again. The scheduler holds at most
 * XTX_SCHED_DROPPED_MAX of them: while that many wait, CoDel sends what it would have
 * dropped. Call it after each dequeue. Returns how many; 0 when none. */
#define XTX_SCHED_DROPPED_MAX	1024u
unsigned xtx_sched__take_dropped(struct xtx_sched *s, struct xtx_desc *out, unsigned n);

/* Room (above): hold each budget within half of what the leaf's limits hold (1, the
 * default) or not (0: for a reader of the room that drops instead of waiting, and
 * whose frames reach the scheduler a receive path's delay after it admitted them, as
 * xtx-shape's policing: a budget below that delay empties the leaf). Taken at each
 * leaf's next 10 ms window. The owner's thread only. */
void xtx_sched__set_room_hold(struct xtx_sched *s, int hold);

/* Room (above): 1 if leaf class cls is full, 0 if it has room or is not a leaf. */
int xtx_sched__room_full(const struct xtx_sched *s, unsigned cls);

/* A leaf's room as its producers see it. A room event (gen + 1) comes each time the
 * leaf sent half its budget, and when it empties: per event each producer may add
 * `quota` bytes (half the budget, shared by the producers), and of that each flow
 * `flow_quota` (half the budget over the flows attached, at least 64 bytes: a packet);
 * none while full. */
struct xtx_room_state {
	uint32_t cls;		/* the class's slot (xtx_sched_opts.slots): the index
				 * its descriptors carry */
	uint32_t gen;		/* room events so far */
	uint32_t quota;		/* wire bytes of all producers per event */
	uint32_t flow_quota;	/* wire bytes per flow per event */
	uint8_t full;
};
/* Leaves with a target whose room changed (full, or a room event; at create, their
 * first state) since they were last taken here: up to n, each leaf once however often
 * it changed, with its state now. Leaves without a target are never listed. Returns how
 * many; 0 when none changed. */
unsigned xtx_sched__room_changes(struct xtx_sched *s, struct xtx_room_state *out,
				 unsigned n);

/* Packets queued in the whole scheduler. */
uint32_t xtx_sched__qlen(const struct xtx_sched *s);

/* 1 when XTX_SCHED_ABSORB more packets, whatever their classes and flows, can meet no
 * packet limit: no leaf is within that many of its `limit` or (fq) `flow_limit`, and the
 * packet pool has that many free. A caller that may hold packets back (a dequeuer whose
 * stage is full) takes more only then, so taking more never drops at a limit. */
#define XTX_SCHED_ABSORB	64u
int xtx_sched__absorbs(struct xtx_sched *s);

/* Class index of a handle (same as the config's), or -ENOENT. */
int xtx_sched__class_index(const struct xtx_sched *s, uint32_t handle);
/* The slot (the index descriptors carry, xtx_sched_opts.slots) of class index idx, or
 * -ENOENT. */
int xtx_sched__class_slot(const struct xtx_sched *s, unsigned idx);
unsigned xtx_sched__class_count(const struct xtx_sched *s);
/* Copy a class's counters. -ENOENT for a bad index. */
int xtx_sched__class_stats(const struct xtx_sched *s, unsigned idx, struct xtx_class_stats *st);

/* --- changing a running tree (docs/config.md, "Changing a running tree") ------------
 *
 * A scheduler takes new class parameters while it runs, as `tc class change` does:
 * rate, ceil, burst, cburst, quantum and prio of any class, and of a leaf its limit,
 * flow_limit, fq_quantum, maxrate, room target (a new value; not on or off) and
 * CoDel's target, interval and ecn (not on or off), and the default class. What the
 * running tree was built with stays: the classes in config order (the index a
 * descriptor carries), their parents and scope, fq and flows, whether CoDel and a room
 * target are on, the overhead; and the limits together fit the packet pool it was
 * built with. Tokens carry over in nanoseconds of transmission time (sch_htb's
 * htb_change_class), cut to the new burst; queued packets stay, and a leaf above a
 * lowered limit refuses new ones until it is below it; counters go on.
 *
 * change_check: 0 if cfg is a valid tree that the running one can take; -EINVAL with
 * validate()'s message, or -EOPNOTSUPP naming the class (and its file:line) and what
 * needs a restart. Reads only what a running scheduler never changes but through
 * change(), so another thread may call it while the owner runs.
 * change: change_check(), then apply, in the owner thread between two calls; nothing
 * changes on an error. cfg is not kept.
 * shared change: the device-wide buckets' depths, slices and fairness of cfg (checked
 * by the caller against a scheduler that uses sh); any thread, while the schedulers
 * run: a bucket that grows does not gain the tokens it could not hold before. Each
 * scheduler then takes its own change(); until it has, it charges with its old
 * rates (one step of its dequeuer). */
int xtx_sched__change_check(const struct xtx_sched *s, const struct xtx_sched_config *cfg,
			    char *err, size_t errlen);
int xtx_sched__change(struct xtx_sched *s, const struct xtx_sched_config *cfg, uint64_t now_ns,
		      char *err, size_t errlen);
int xtx_sched_shared__change(struct xtx_sched_shared *sh, const struct xtx_sched_config *cfg,
			     uint64_t now_ns);

/* --- a new tree for a running scheduler: classes added and removed -----------------
 *
 * What change() refuses (classes added, removed or moved, a new parent, scope, fq or
 * flows, CoDel or a room target on or off, the overhead) takes a new scheduler: build
 * `to` from the new tree with the same opts (queue, shared, nslots; slots keeping each
 * staying class's slot; pkt_pool at least from's), off the data path, then in the owner
 * thread between two calls:
 *
 * adopt: every class of `to` whose handle `from` has takes its tokens and ctokens (in
 * ns, cut to the new bursts; a device-wide class's local slice only if its slot and
 * scope stay), its checkpoint and its counters; every packet queued in `from` moves, in
 * flow order with its departure time and CoDel stamp, to the leaf of the same handle,
 * or, its leaf gone, to `to`'s default leaf (counted there as enqueued). Limits are not
 * applied to what moves (a leaf above its limit refuses new packets until below it);
 * flows start afresh (pacing clock, credit, CoDel state). `from` is left empty and is
 * the caller's to destroy. Returns the packets moved to the default leaf (>= 0), or
 * -ENOSPC (to's pool is smaller than from's queue) or -EBUSY (CoDel drops not yet
 * taken from `from`), and then nothing moved. A class removed from a device-wide tree
 * leaves its slot's state alone; shared_change_slots() readies the slots of classes
 * added.
 * shared change_slots: as shared change, cfg's class i in slots[i]: device-wide slots
 * of staying classes change, new ones start full; call it before building `to`. */
int xtx_sched__adopt(struct xtx_sched *to, struct xtx_sched *from, uint64_t now_ns);
int xtx_sched_shared__change_slots(struct xtx_sched_shared *sh,
				   const struct xtx_sched_config *cfg, const uint32_t *slots,
				   uint64_t now_ns);

#ifdef __cplusplus
}
#endif
#endif /* XTX_SCHED_H */
