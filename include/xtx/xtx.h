/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/xtx.h - the engine: AF_XDP transmit with a lock-free stage and an HTB/FQ scheduler
 * per TX queue.
 *
 * Life cycle:
 *   e = xtx_engine__open(&opts, err, sizeof(err));    one per interface
 *   p = xtx_producer__open(e);                         one per sending thread
 *   loop:
 *     n = xtx_producer__get_frames(p, addrs, 64);      frames from p's cache
 *     write packets at xtx_engine__frame(e, addr)      (helpers: xtx/pkt.h)
 *     k = xtx_producer__send_burst(p, descs, n);       k < n: the rest are still yours
 *   xtx_producer__close(p);                            gives cached frames back
 *   xtx_engine__close(e);                              drains (or drops), frees all
 *
 * Threads: one dequeuer thread per TX queue, started by open(). Producer calls are made by
 * the producer's own thread only; counters may be read from any thread at any time.
 * Every frame is at every moment in exactly one place: free pool, a producer's cache, the
 * application (got, not yet sent), a stage, a scheduler, or the TX ring awaiting
 * completion; with a receive side also a receive worker's hands or the kernel's (fill and
 * RX rings). xtx_engine__frames() counts each place.
 *
 * Receive side (forwarding; opts.rx_ifname): one AF_XDP socket and one receive worker
 * thread per ingress queue, on the engine's UMEM (XDP_SHARED_UMEM across devices), so a
 * received frame is forwarded by handing its descriptor on: RX ring -> worker -> stage ->
 * scheduler -> TX ring -> completion -> pool -> fill ring. The worker takes class and
 * flow hash from the metadata an XDP program put in front of the frame (xtx/rxmeta.h);
 * the caller loads that program and puts the sockets into its XSKMAP
 * (xtx_engine__rx_socket()). A frame is forwarded only in exchange for a free frame put
 * on the fill ring in its place; without one it goes back to the fill ring itself
 * (dropped, counted), so the fill ring never runs dry however many frames the schedulers
 * hold. If the two interfaces cannot share a UMEM (the kernel refuses the bind: e.g. the
 * egress queue is zero-copy and the ingress driver has no zero-copy) the receive side gets
 * a UMEM of its own and copies each frame once into an engine frame (reported;
 * xtx_engine__rx_path()).
 */
#ifndef XTX_XTX_H
#define XTX_XTX_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xtx/desc.h>
#include <xtx/print.h>
#include <xtx/sched.h>

#ifdef __cplusplus
extern "C" {
#endif

enum xtx_xdp_mode {
	XTX_MODE_AUTO = 0,	/* zero-copy if the driver offers it, else copy */
	XTX_MODE_COPY,		/* force copy mode (XDP_COPY) */
	XTX_MODE_ZEROCOPY,	/* require zero-copy (XDP_ZEROCOPY); open fails without it */
	XTX_MODE_NULL,		/* what xtx_engine__xdp_mode() says of the null device; not
				 * an option (open refuses it) */
};
/* Whether ifname names the built-in null device: "null" (every descriptor completes at
 * once) or "null:RATE" (an emulated wire of RATE in tc's units, e.g. null:10gbit, that
 * counts 24 bytes of preamble, gap and FCS per frame). 1 yes, 0 no, -EINVAL "null:" with
 * a rate that does not parse or is 0. No interface, capability or root is needed. */
int xtx_dev__is_null(const char *ifname);

/* "auto", "copy", "zero-copy", "null"; NULL for a value out of range. */
const char *xtx_xdp_mode__str(enum xtx_xdp_mode mode);

/* The XDP program some drivers need attached before they bind AF_XDP zero-copy (their
 * XDP TX rings exist only then): opts.zc_prog. */
enum xtx_zc_prog {
	XTX_ZC_PROG_AUTO = 0,	/* when zero-copy is tried on a driver that needs it
				 * (xtx_driver__zc_needs_prog()); removed again if the
				 * socket ends in copy mode. A failed attach is a warning */
	XTX_ZC_PROG_OFF,	/* never */
	XTX_ZC_PROG_ON,		/* whenever zero-copy is tried, on any driver, kept for the
				 * engine's life; a failed attach fails open */
};
/* 1 if driver (ethtool -i's name) is one that binds AF_XDP zero-copy only while an XDP
 * program is attached to the interface: i40e, ixgbe, virtio_net; else 0. */
int xtx_driver__zc_needs_prog(const char *driver);

enum xtx_huge {
	XTX_HUGE_AUTO = 0,	/* huge pages if available, else normal pages (reported) */
	XTX_HUGE_NEVER,
	XTX_HUGE_ALWAYS,	/* open fails without huge pages */
};

/* Engine options. Zero is each field's default. In detail:
 * - busy_poll: the dequeuers spin instead of sleeping, and the TX sockets get
 *   SO_PREFER_BUSY_POLL, SO_BUSY_POLL (20 us) and SO_BUSY_POLL_BUDGET (64); open fails if
 *   one is refused (CAP_NET_ADMIN). rx_busy_poll: the same for the receive workers (they
 *   spin instead of sleeping in poll()) and the RX sockets.
 * - cpus: the dequeuers' CPUs, "2,3" or "2-5", round robin over the queues; each must be
 *   one this process may run on (open fails naming it otherwise). NULL: the CPUs of the
 *   NIC's NUMA node that it may run on; no node (veth): not pinned. rx_cpus: the receive
 *   workers', the same way (NULL: the ingress NIC's node).
 * - intake_batches: batches of 64 a dequeuer may take from its stage per step while the
 *   stage stays full; default 1 (a full stage holds producers back), at most 16. More
 *   moves overload into the scheduler, which drops by class (leaf limit): for senders
 *   that cannot wait, like a receive side (xtx-shape uses 4). Whatever the value, one
 *   batch more is taken while the scheduler holds fewer than 1024 packets and no leaf is
 *   within 64 of a packet limit (docs/design.md, "Where a backlog waits").
 * - deq_nice: the dequeuers' nice value, -20..19 (0 leaves it). On CPUs shared with the
 *   threads that feed them, a negative value keeps the scheduler on time; dedicated cores
 *   (cpus) need none. Needs CAP_SYS_NICE (said if refused).
 * - deq_rtprio: 1..99 runs the dequeuers SCHED_FIFO at that priority (1 is the lowest
 *   real-time priority: ahead of every normal thread, behind threaded interrupts at 50),
 *   as the kernel's qdisc dequeue runs in softirq, ahead of the threads that feed it. A
 *   dequeuer sleeps whenever nothing is eligible, but one that always has work holds its
 *   CPU: open refuses it unless one CPU of the process is left without a dequeuer
 *   (ksoftirqd and the feeding threads need it), and with busy_poll. 0: off (deq_nice
 *   applies). Needs CAP_SYS_NICE (said if refused).
 * - queue_classes, slice_ns: with queues > 1 the dequeuers' schedulers share one
 *   xtx_sched_shared (xtx/sched.h), so every class of scope device (the default) holds
 *   its rate, ceil and bursts for the sum over the queues; slice_ns bounds what one queue
 *   holds of a class's tokens. queue_classes: no shared state; every class per queue, as
 *   mq with one HTB per queue. One queue never shares (nothing to share, no atomics).
 */
struct xtx_engine_opts {
	size_t sz;			/* sizeof(struct xtx_engine_opts) */
	const char *ifname;		/* required */
	uint32_t queues;		/* TX queues used, from first_queue; default 1 */
	uint32_t first_queue;		/* default 0 */
	uint32_t frame_size;		/* 2048 or 4096; default 2048 */
	uint32_t frame_count;		/* frames in the UMEM; default 8192 per queue, TX and
					 * RX (RX: ingress queues) */
	uint32_t tx_ring_size;		/* per socket, power of two; default 2048 */
	uint32_t comp_ring_size;	/* per socket, power of two; default 2048 */
	enum xtx_xdp_mode mode;
	enum xtx_huge huge;
	int busy_poll;			/* dequeuers spin, TX sockets busy-poll (above) */
	const char *cpus;		/* dequeuer CPUs (above); NULL: the NIC's node's */
	uint32_t max_producers;		/* producers open at once; default 64 */
	uint32_t lane_size;		/* stage lane size per producer; default 1024 */
	const struct xtx_sched_config *classes;	/* NULL: one class, no limit; read by
							 * open only */
	uint64_t drain_timeout_ns;	/* stop() waits this long for queued frames; 1 s */
	int drop_on_close;		/* stop() drops queued frames at once (counted) */
	int quiet;			/* no messages from this engine (xtx_set_print) */

	/* Receive side (see the head of this file). Fields from here on are read only if
	 * sz covers them. */
	const char *rx_ifname;		/* ingress interface; NULL: transmit only */
	uint32_t rx_queues;		/* ingress queues from rx_first_queue; default 1 */
	uint32_t rx_first_queue;	/* default 0 */
	uint32_t rx_ring_size;		/* per RX socket, power of two; default 2048 */
	uint32_t fill_ring_size;	/* per RX socket, power of two; default 2 * rx_ring */
	const char *rx_cpus;		/* receive worker CPUs, as cpus (above) */
	int rx_busy_poll;		/* receive workers spin, RX sockets busy-poll (above) */
	int rx_copy;			/* force the one-copy path (own UMEM for receiving) */

	/* Read only if sz covers it. */
	int no_reap;			/* never reap dead producers by itself (see
					 * xtx_engine__reap()); stop() still does */
	uint32_t intake_batches;	/* stage batches per dequeuer step (above); 1..16 */
	int deq_nice;			/* dequeuers' nice value, -20..19 (above) */
	int deq_rtprio;			/* dequeuers SCHED_FIFO at 1..99; 0: off (above) */
	int queue_classes;		/* every class per queue (mq + HTB), even where its
					 * scope is device (above) */
	uint64_t slice_ns;		/* device-wide classes' slice; 0: XTX_SCHED_SLICE_NS */
	uint64_t target_ns;		/* room target of leaves without their own (class
					 * file `target`); 0: none (xtx_producer__room()) */
	int codel;			/* 1: CoDel (xtx/sched.h) with its default target
					 * and interval on leaves whose class file says
					 * nothing of codel; 0: only where it says so.
					 * Dequeuers mark ECT packets of `codel ecn` leaves
					 * in the frame (IPv4 and IPv6 behind Ethernet and
					 * up to two VLAN tags) */
	uint32_t max_classes;		/* class slots: the most classes the tree may have
					 * after live changes that add classes
					 * (xtx_engine__classes_change()); 0: its class
					 * count + 64, at most XTX_CLASS_MAX + 1 */
	enum xtx_zc_prog zc_prog;	/* the XDP pass program for zero-copy (above):
					 * attached in native mode through libxdp (behind
					 * its dispatcher where the kernel allows) before
					 * the first socket binds, removed after the last
					 * closed; not with mode copy or the null device */
	int tx_metadata;		/* 1: the UMEM is registered with XTX_TXMD_LEN bytes
					 * of TX metadata (Linux 6.8+; open fails on an
					 * older kernel), so descriptors may carry requests
					 * (xtx_desc__set_txmd()) */
	int tx_sw_csum;			/* with tx_metadata: the kernel computes requested
					 * checksums in software (XDP_UMEM_TX_SW_CSUM, 6.11+)
					 * instead of the device */
	int launch_time;		/* with tx_metadata: a descriptor with a departure
					 * time (xtx_producer__set_txtime()) asks the device
					 * to start it then (XTX_TXMD_LAUNCH_TIME, in
					 * CLOCK_TAI; Linux 6.15+, tx-launch-time-fifo
					 * drivers behind an etf qdisc with offload;
					 * docs/real-nic.md). The scheduler still releases
					 * it at that time */
	uint32_t tx_timestamps;		/* with tx_metadata: every N-th packet of a queue
					 * asks for its TX timestamp, and the dequeuer keeps
					 * how late it left per class
					 * (xtx_engine__class_departures()); 0: off. Not on
					 * the null device */
	int multi_buffer;		/* frames longer than a UMEM frame, across up to
					 * XTX_MB_MAX_SEGS of them (xtx_desc__set_chain()):
					 * the sockets bind with XDP_USE_SG (Linux 6.6+; copy
					 * mode, or a device whose xdp-zc-max-segs allows).
					 * Not with a receive side */
	int sock_busy_poll;		/* the TX sockets' busy-poll options of busy_poll
					 * (above) without the dequeuers' spinning: they
					 * still sleep when idle, and each sendto() they
					 * make polls the queue's NAPI context */
};
/* sz: sizeof(struct xtx_engine_opts). The library reads the fields up to __last_field;
 * a larger sz is accepted only if the bytes beyond it are zero (-EINVAL otherwise), and sz
 * must be at least the sizeof of the struct's first release, which ended at __min_field. */
#define xtx_engine_opts__last_field	sock_busy_poll
#define xtx_engine_opts__min_field	quiet

/* The fewest frames (frame_count) that open() accepts for opts: each TX queue's ring and
 * two producer batches; with rx_ifname each ingress queue's fill and RX rings and a
 * receive worker's cache. Defaults filled in as open() fills them; nothing is opened or
 * checked beyond sz. 0 for opts NULL or an sz open() refuses. */
uint32_t xtx_engine_opts__min_frames(const struct xtx_engine_opts *opts);

struct xtx_engine;
struct xtx_producer;

/* Open the engine: UMEM, one AF_XDP socket and dequeuer thread per queue; with rx_ifname
 * also one RX socket and receive worker per ingress queue, fill rings filled. No XDP program
 * is loaded. Returns NULL with errno set and a message in err:
 *   ENODEV  no such interface;  EINVAL  bad option or class config (also: rx_ifname is
 *   ifname: forwarding back out of the ingress interface is not supported);
 *   EINVAL  also: a CPU in cpus/rx_cpus this process may not run on (taskset, cpuset,
 *           offline), or the kernel refused a pin when the thread started;
 *   EPERM   missing capability (the message names it: CAP_NET_RAW, CAP_NET_ADMIN, ...;
 *           also a busy-poll socket option without CAP_NET_ADMIN);
 *   EBUSY   the queue already has an AF_XDP socket (another xtx or AF_XDP program),
 *           still after 1 s of retries (a socket just closed is released late);
 *   EOPNOTSUPP  zero-copy required but not offered;
 *   ENOMEM  UMEM too large, huge pages required (XTX_HUGE_ALWAYS) but none free, or too
 *           few frames to fill the receive side's fill rings;
 *   ENOBUFS the UMEM exceeds RLIMIT_MEMLOCK (no CAP_IPC_LOCK; the message gives the
 *           limit and why it could not be raised).
 * Placement: the UMEM and the stages' lanes are bound to the NUMA node of ifname's device
 * (/sys/class/net/IF/device/numa_node; none for a virtual device such as veth), and the
 * dequeuers run on that node's CPUs unless cpus says otherwise; xtx_engine__numa_node(). */
struct xtx_engine *xtx_engine__open(const struct xtx_engine_opts *opts, char *err,
				    size_t errlen);

/* Stop: the receive workers first (each forwards what is on its RX ring, then exits), then
 * the RX sockets are closed and the frames the kernel held for receiving come back to the
 * pool (counted: reclaimed); detach the XDP program (or empty its XSKMAP) before, or
 * frames that arrive between the workers' last look and the close are reclaimed without
 * being counted as received. Then the dequeuers: send what is queued (up to
 * drain_timeout_ns) unless drop_on_close, then count what is left as dropped
 * (XTX_DROP_PURGED) and return its frames to the pool. Counters stay readable until
 * close. Producers must be closed first. Returns 0, -ETIMEDOUT if the drain timed out (the
 * rest was dropped and counted), -EBUSY if a producer is still open, -EALREADY if already
 * stopped. */
int xtx_engine__stop(struct xtx_engine *e);

/* Stop (if not stopped yet) and free everything. Returns what stop returned, or 0. */
int xtx_engine__close(struct xtx_engine *e);

/* The mode the TX sockets run in: XTX_MODE_COPY or XTX_MODE_ZEROCOPY. */
enum xtx_xdp_mode xtx_engine__xdp_mode(const struct xtx_engine *e);
/* xtx_xdp_mode__str(xtx_engine__xdp_mode(e)): "copy" / "zero-copy". */
const char *xtx_engine__mode(const struct xtx_engine *e);
/* 1 while the engine holds the XDP pass program of opts.zc_prog on its interface, with
 * its program id in *id and in *dispatcher whether it sits behind libxdp's dispatcher
 * (either pointer may be NULL); 0, with zeros, when it holds none. */
int xtx_engine__zc_prog(const struct xtx_engine *e, uint32_t *id, int *dispatcher);
/* Departure conformance of class index cls over every queue (opts.tx_timestamps): of
 * the sampled packets that left, how late against when they were meant to (their
 * departure time if they had one, else when the scheduler released them), from the
 * kernel's TX timestamp (copy mode: taken when the device has taken the frame; zero-copy:
 * the NIC's, in its clock). Percentiles are the top of a histogram bucket 12.5% wide (at
 * most that much high). Returns 0; -EOPNOTSUPP without opts.tx_timestamps, -ENOENT for
 * no such index. */
struct xtx_departure_stats {
	uint64_t samples;		/* timestamps read */
	uint64_t early;			/* of them, before the intended time (as 0) */
	uint64_t invalid;		/* samples without a timestamp (not counted above) */
	uint64_t p50_ns, p99_ns, max_ns;	/* lateness */
};
int xtx_engine__class_departures(const struct xtx_engine *e, unsigned cls,
				 struct xtx_departure_stats *st);

unsigned xtx_engine__queues(const struct xtx_engine *e);
/* The NUMA node the UMEM and stages were bound to: ifname's device's, -1 when it has none
 * (veth) or it cannot be used here (no NUMA support). */
int xtx_engine__numa_node(const struct xtx_engine *e);
uint32_t xtx_engine__frame_size(const struct xtx_engine *e);
/* Bytes a packet may occupy in a frame (frame size minus headroom). */
uint32_t xtx_engine__frame_room(const struct xtx_engine *e);
/* Class index for a handle (the index descriptors carry in cls), or -ENOENT. A class
 * keeps its index while it is in the tree, across live changes; a removed class's index
 * sends to the default class until a later change gives it to a class it adds (indexes
 * never used go first). Lock-free, O(1) expected; any thread. */
int xtx_engine__class_index(const struct xtx_engine *e, uint32_t handle);
/* Class indexes are below this: opts.max_classes (slots). An index no class has now
 * sends to the default class and has zero counters. */
unsigned xtx_engine__class_count(const struct xtx_engine *e);

/* Pointer to a frame's data. addr as returned by get_frames (flags are ignored). */
void *xtx_engine__frame(const struct xtx_engine *e, uint64_t addr);

/* --- producers --------------------------------------------------------------------- */

/* Register the calling thread as a producer (a lane on every queue's stage and a frame
 * cache). NULL with errno EBUSY (max_producers reached), ENOMEM.
 * The producer belongs to the calling thread: if that thread exits without closing it, the
 * engine reaps it (xtx_engine__reap()). Open it in the thread that uses it. The engine
 * learns of the exit from a thread-specific-data destructor (pthread_key_create()), so
 * once pthread_join() of the thread has returned the next reap finds it; do not use the
 * producer from the thread's own such destructors. */
struct xtx_producer *xtx_producer__open(struct xtx_engine *e);
/* Close: the producer's cached frames go back to the pool and its slot is free again.
 * Frames its application still holds (got, not sent) are not taken back: send them or
 * return them with xtx_producer__put_frames() first (otherwise xtx_engine__frames()
 * counts them as app for good). NULL is a no-op. */
void xtx_producer__close(struct xtx_producer *p);

/* Take up to n free frames (UMEM addresses) for writing packets. Returns how many (0 when
 * every frame is in flight: back-pressure, try again later). */
unsigned xtx_producer__get_frames(struct xtx_producer *p, uint64_t *addrs, unsigned n);
/* Return frames got but not sent. */
void xtx_producer__put_frames(struct xtx_producer *p, const uint64_t *addrs, unsigned n);

/* Back-pressure: sleep until a dequeuer frees frames or stage room (or timeout_ns passes;
 * UINT64_MAX = no timeout), instead of polling after get_frames() returned 0 or
 * send_burst() returned short; when the last send_burst() stopped at a class without
 * room, until that class has room (xtx_producer__wait_room()). Returns 0 (there may be
 * room now), -ETIMEDOUT or -EINTR. Costs the dequeuers nothing while no producer waits. */
int xtx_producer__wait(struct xtx_producer *p, uint64_t timeout_ns);

/* Room per class (xtx/sched.h, "Room"; the class file's `target`): 1 if flow hash of
 * leaf class cls has room on the TX queue it goes to, 0 if not, and send_burst() would
 * stop at such a descriptor. Ask before building a packet. No room: the class holds its
 * target there (full), or since the class's last room event (one each half budget the
 * class sends, and when it empties) this producer already added its share of the
 * class's quota (half its budget over the open producers; at least one packet) or
 * the flow's (half the budget over the class's flows, at least a packet); what it
 * reserved (xtx_producer__room_reserve()) and has not sent counts as added. A class index
 * that no class has (its class removed by a live change) has the default class's room,
 * as its packets go there; one that names an inner class, or a leaf without a target,
 * always has room. One relaxed load of the word the queue's dequeuer writes at each
 * change (at most once per class per dequeuer step); the count is the producer's own:
 * no shared line is written. */
int xtx_producer__room(struct xtx_producer *p, uint16_t cls, uint32_t hash);
/* xtx_producer__room(), and when it says yes, len bytes of the flow's room reserved
 * for a packet this producer is about to build: the next room() or room_reserve() of
 * the class counts them as added, so a producer that builds a burst before sending it
 * builds only what the room takes (asking room() per packet instead, every packet of
 * the burst sees the same room). send_burst() takes a reserved packet even if the class
 * filled meanwhile (the reservation came first), and counts it once. A reservation
 * lasts until its packet is sent, or until a wait_room() for the class times out; a
 * packet that is reserved and then not sent holds back that much of the producer's
 * share until then, and one that a full stage did not take has lost its reservation
 * (sent again, it is counted as any). 1 if reserved, 0 if the class has no room. */
int xtx_producer__room_reserve(struct xtx_producer *p, uint16_t cls, uint32_t hash,
			       uint32_t len);
/* Sleep until class cls has room on hash's queue (or timeout_ns; UINT64_MAX: none), as a
 * blocking socket waits for its send buffer. Other classes never wait for it. Returns
 * 0 (it may have room now: any class getting room wakes every waiter), -ETIMEDOUT or
 * -EINTR. */
int xtx_producer__wait_room(struct xtx_producer *p, uint16_t cls, uint32_t hash,
			    uint64_t timeout_ns);

/* Reap the producers whose thread has exited without closing them: the frames in their
 * caches and the frames their application held (got, not sent or returned) go back to the
 * pool, counted as reclaimed; what they had queued is still sent; their slots are free
 * again. A stopped or parked thread is alive and is not reaped; its frames stay its own.
 * The engine does this by itself about once a second (unless opts.no_reap), when
 * producer slots run out, and in xtx_engine__stop(). Returns how many were reaped. */
int xtx_engine__reap(struct xtx_engine *e);

/* Store an earliest departure time in the frame's headroom and flag the descriptor. */
void xtx_producer__set_txtime(struct xtx_producer *p, struct xtx_desc *d, uint64_t t_ns);

/* AF_XDP TX metadata (Linux 6.8+; opts.tx_metadata): a request to the device in the
 * XTX_TXMD_LEN bytes before the frame, which the kernel reads when the descriptor says so
 * (XTX_DESC_F_TXMD), in copy mode too. The layout is the kernel's struct xsk_tx_metadata
 * (flags; csum_start, csum_offset; launch_time), whose last 8 bytes are also where
 * xtx_producer__set_txtime() keeps a departure time. */
#define XTX_TXMD_LEN		24
#define XTX_TXMD_TIMESTAMP	(1u << 0)	/* XDP_TXMD_FLAGS_TIMESTAMP */
#define XTX_TXMD_CSUM		(1u << 1)	/* XDP_TXMD_FLAGS_CHECKSUM */
#define XTX_TXMD_LAUNCH_TIME	(1u << 2)	/* XDP_TXMD_FLAGS_LAUNCH_TIME */

/* Multi-buffer frames (opts.multi_buffer; AF_XDP's XDP_USE_SG, Linux 6.6+): a frame of
 * len bytes above xtx_engine__frame_room() (R) spans ceil(len / R) UMEM frames, at most
 * XTX_MB_MAX_SEGS: bytes [0, R) in the frame its descriptor names, [R, 2R) in the first
 * further one, and so on, each from its frame's start (the address get_frames() gave).
 * The descriptor carries the whole len (the scheduler charges it all) and the further
 * frames' addresses sit in the frame's headroom, before its TX metadata. */
#define XTX_MB_MAX_SEGS		6
#define XTX_MB_CHAIN_OFF	64	/* the addresses start this many bytes before frame */

/* Fast path: name the n = ceil(len / R) - 1 further frames (more[0..n), addresses from
 * get_frames(), this producer's) of the frame at `frame` and flag d. send_burst()
 * checks them and takes them with d; it refuses the descriptor (bad_desc) unless
 * opts.multi_buffer, when n is not what d->len needs, or a frame is not this producer's. */
static inline void xtx_desc__set_chain(struct xtx_desc *d, void *frame, const uint64_t *more,
				       unsigned n)
{
	memcpy((unsigned char *)frame - XTX_MB_CHAIN_OFF, more, n * sizeof(*more));
	d->addr |= XTX_DESC_F_MB;
}

/* Fast path: request flags (XTX_TXMD_*) for the frame at `frame` (xtx_engine__frame(e,
 * d->addr)) and flag d. With XTX_TXMD_CSUM the device sums the frame from csum_start to
 * its end and stores the checksum csum_offset bytes after csum_start; the field must
 * hold the folded pseudo-header sum (xtx_pkt__udp_csum_partial()). A departure time
 * stored before or after stays. send_burst() refuses a flagged descriptor (bad_desc)
 * unless opts.tx_metadata. */
static inline void xtx_desc__set_txmd(struct xtx_desc *d, void *frame, uint32_t flags,
				      uint16_t csum_start, uint16_t csum_offset)
{
	unsigned char *m = (unsigned char *)frame - XTX_TXMD_LEN;
	uint64_t f = flags;

	memcpy(m, &f, 8);
	memcpy(m + 8, &csum_start, 2);
	memcpy(m + 10, &csum_offset, 2);
	d->addr |= XTX_DESC_F_TXMD;
}

/* Send a burst: each descriptor names a frame from get_frames, its length, class index
 * and flow hash. Descriptors go to the queue chosen by their flow hash (stable, so a
 * flow stays in order). Returns how many were taken, in order from d[0]; when a queue's
 * stage is full, or the class of the next descriptor has no room on its queue
 * (xtx_producer__room()), the rest are not taken and are still the caller's
 * (back-pressure).
 * A descriptor whose address is not a frame this producer got, or whose length does not
 * fit the frame, is refused: it is counted (bad_desc) and the burst stops there. */
unsigned xtx_producer__send_burst(struct xtx_producer *p, const struct xtx_desc *d,
				  unsigned n);

/* --- counters ---------------------------------------------------------------------- */

struct xtx_queue_stats {
	uint64_t stage_pkts;		/* taken from the stage by the dequeuer */
	uint64_t sent_pkts, sent_bytes;	/* written to the TX ring */
	uint64_t completed;		/* returned by the completion ring */
	uint64_t drops[XTX_DROP__MAX];	/* refused or purged by the scheduler */
	uint64_t tx_ring_full;		/* times the TX ring had no room for what was eligible */
	uint64_t ring_limit;		/* descriptors the dequeuer lets the TX ring hold now:
					 * a limit from completions, as BQL (docs/design.md) */
	uint64_t ring_limited;		/* transmits cut short by that limit */
	uint64_t kicks;			/* sendto() wake-ups of the kernel (need_wakeup set);
					 * the null device: its runs */
	uint64_t kick_errors;		/* sendto() errors other than EAGAIN/EBUSY/ENOBUFS */
	uint64_t sleeps;		/* dequeuer sleeps (idle) */
	uint64_t loops;			/* dequeuer iterations */
	uint64_t moved;			/* packets a live change moved to the default class
					 * (their class was removed; counted there as
					 * enqueued) */
};

/* The null device's wire, per queue (xtx_engine__null_stats()). */
struct xtx_null_stats {
	uint64_t frames, bytes;		/* completed; bytes as submitted (no FCS) */
	uint64_t wire_bytes;		/* completed, as the wire counts them: padded to 60,
					 * plus 24 (preamble, inter-frame gap, FCS) */
	uint64_t busy_ns;		/* time the emulated wire spent sending (null:RATE) */
	uint64_t gap_ns;		/* wire idle between frames, summed (null:RATE) */
};

struct xtx_producer_stats {
	uint64_t got;			/* frames taken with get_frames */
	uint64_t sent;			/* descriptors accepted by send_burst */
	uint64_t sent_bytes;		/* their frame bytes */
	uint64_t short_sends;		/* send_burst calls cut short by a full stage */
	uint64_t bad_desc;		/* descriptors refused as invalid */
	uint64_t no_frames;		/* get_frames calls that found no frame */
	/* Engine totals only (xtx_engine__producer_totals): */
	uint64_t reaped;		/* producers reaped after their thread died */
	uint64_t reclaimed;		/* frames taken back from them (cache + application) */
	/* Per producer and in the engine totals, as got .. no_frames: */
	uint64_t room_stops;		/* send_burst calls cut short by a class without room */
	uint64_t room_waits;		/* wait_room calls that slept */
};

/* Where the frames are. At quiescence (no thread inside a call, no frame arriving) the
 * places add up to total; while running each count is exact for itself but they are read
 * one by one. */
struct xtx_frame_count {
	uint64_t total;
	uint64_t pool;			/* free, in the shared pool */
	uint64_t cached;		/* free, in producers' caches */
	uint64_t app;			/* got by the application, not sent or returned */
	uint64_t stage;			/* in the stages */
	uint64_t sched;			/* in the schedulers */
	uint64_t tx;			/* in the TX rings, awaiting completion */
	uint64_t dequeuer;		/* held by a dequeuer between steps (a batch) */
	uint64_t fill;			/* given to the kernel for receiving: on fill and RX
					 * rings (shared-UMEM receive side only) */
	uint64_t receiver;		/* free frames held by receive workers (their caches) */
	uint64_t chained;		/* the further frames of multi-buffer packets in the
					 * stages and schedulers (the first frames are in
					 * stage and sched) */
};

/* --- receive side ------------------------------------------------------------------- */

enum xtx_rx_drop_reason {
	XTX_RX_DROP_STAGE_FULL,		/* the egress queue's stage had no room */
	XTX_RX_DROP_NO_FRAME,		/* no free frame to give the kernel in exchange: the
					 * received frame went back to the fill ring */
	XTX_RX_DROP_BAD_DESC,		/* RX descriptor outside its frame or shorter than 14 */
	XTX_RX_DROP__MAX
};

/* "stage_full", "no_frame", "bad_desc" (xtx-shape's JSON keys); NULL outside the enum. */
const char *xtx_rx_drop_reason__str(enum xtx_rx_drop_reason r);

struct xtx_rx_stats {
	uint64_t rx_pkts, rx_bytes;	/* read from the RX ring */
	uint64_t fwd_pkts, fwd_bytes;	/* handed to the egress stages */
	uint64_t drops[XTX_RX_DROP__MAX];
	uint64_t no_meta;		/* frames without metadata: default class, hash 0 */
	uint64_t reclaimed;		/* frames taken back from the kernel at stop */
	uint64_t copied;		/* copy path: frames copied into engine frames */
	/* The kernel's counters of the socket (XDP_STATISTICS), as of the last read. */
	uint64_t k_dropped;		/* frames the socket could not take (no fill frame...) */
	uint64_t k_rx_ring_full;	/* ... because the RX ring was full */
	uint64_t k_fill_empty;		/* times the fill ring was empty */
	uint64_t k_invalid;		/* invalid descriptors on the fill ring */
	uint64_t wakeups;		/* recvfrom() kicks (fill ring need_wakeup) */
	uint64_t sleeps;		/* poll() sleeps (idle) */
	uint64_t loops;			/* worker iterations */
};

/* Ingress queues (0 without a receive side). */
unsigned xtx_engine__rx_queues(const struct xtx_engine *e);
/* The RX socket of ingress queue rq: its fd (for the XSKMAP) and NIC queue id (the XSKMAP
 * key: the XDP program's ctx->rx_queue_index). -ENOENT for a bad rq, -EBADF once
 * stopped. */
int xtx_engine__rx_socket(const struct xtx_engine *e, unsigned rq, uint32_t *qid);
/* How received frames reach the TX queues (the head of this file). */
enum xtx_rx_path {
	XTX_RX_PATH_NONE = 0,	/* no receive side */
	XTX_RX_PATH_SHARED,	/* the engine's UMEM, shared with the RX sockets: no copy */
	XTX_RX_PATH_COPY,	/* a UMEM of its own: one copy per frame into an engine frame */
};
/* "none", "shared UMEM", "copy"; NULL for a value out of range. */
const char *xtx_rx_path__str(enum xtx_rx_path path);
enum xtx_rx_path xtx_engine__rx_path_kind(const struct xtx_engine *e);
/* xtx_rx_path__str(xtx_engine__rx_path_kind(e)), but NULL without a receive side:
 * "shared UMEM" or "copy". */
const char *xtx_engine__rx_path(const struct xtx_engine *e);
/* Counters of ingress queue rq; -ENOENT for a bad rq. The k_* fields are read from the
 * kernel (a syscall); kept from the last read before stop closed the socket. */
int xtx_engine__rx_stats(const struct xtx_engine *e, unsigned rq, struct xtx_rx_stats *st);

/* Mirror each class's room (xtx/sched.h "Room") on each TX queue into words: word
 * q * classes + c is the room word (xtx/roomword.h) of class c on queue q, the queue of a
 * flow hash h being (h * queues) >> 32. Each dequeuer stores its words at each change of
 * its scheduler's room (never per packet), relaxed; readers load them plainly (xtx-shape's
 * XDP program, through an mmap of a BPF array, admits a class's frames within the room
 * before they are received). words: n >= queues * classes entries, 8-byte aligned, valid
 * until xtx_engine__close(); each queue writes its whole row at its first step after
 * this call. Only leaves with a room target (xtx_engine_opts.target_ns, class file
 * `target`) are ever limited. Once per engine. 0, -EINVAL, -EBUSY (already set). */
int xtx_engine__room_mirror(struct xtx_engine *e, uint64_t *words, unsigned n);

/* Change the running class tree to cfg while producers send (docs/config.md, "Changing
 * a running tree"). A change of parameters only (xtx/sched.h, xtx_sched__change()) is
 * taken in place; one that adds, removes or moves classes, or changes what those cannot,
 * builds a new scheduler per queue off the data path that each dequeuer adopts
 * (xtx_sched__adopt()): staying classes keep their index, tokens, counters and queued
 * packets, a removed leaf's packets move to the default class (xtx_queue_stats.moved),
 * and added classes take free indexes. Each dequeuer takes it between two of its steps,
 * the device-wide class state first: the data path takes no lock and checks one word
 * per step. Returns once every queue runs cfg; cfg is not kept (free it then). Nothing
 * changes on an error: -EINVAL (not a valid tree: validate()'s message in err),
 * -EOPNOTSUPP (what the running engine cannot take: more classes than max_classes, a
 * room target where none was on at open, the overhead; a class refused by the check
 * set with xtx_engine__set_change_check()), -ESRCH (stopped), -ENOMEM. Changes from
 * several threads (and the control socket's) are made one at a time; not during
 * xtx_engine__stop(). */
int xtx_engine__classes_change(struct xtx_engine *e, const struct xtx_sched_config *cfg,
			       char *err, size_t errlen);

/* A copy of the tree the engine runs now (opts.classes, or the last change); the caller
 * frees it. NULL with errno EINVAL or ENOMEM. */
struct xtx_sched_config *xtx_engine__classes(struct xtx_engine *e);

/* A check of the owner's on every change before anything changes (xtx-shape refuses to
 * remove a class its rules send to, as tc refuses to delete a class a filter points
 * at): fn(ctx, running, proposed, err, errlen) returns 0, or a negative errno with a
 * message in err, and the change is refused with it. Called with the engine's change
 * lock held, from the changing thread (the control socket's included); fn must not
 * call the engine's change or class functions. NULL: none. */
typedef int (*xtx_change_check_fn)(void *ctx, const struct xtx_sched_config *running,
				   const struct xtx_sched_config *proposed, char *err,
				   size_t errlen);
void xtx_engine__set_change_check(struct xtx_engine *e, xtx_change_check_fn fn, void *ctx);

/* The engine's counters as Prometheus metrics (text exposition format 0.0.4, what
 * `promtool check metrics` reads): per class (labels dev, class) sent bytes and packets,
 * drops by reason, overlimits, borrowed packets, backlog, rate and ceil; per TX queue
 * (dev, queue) sent, completed, ring full, kicks, ring limit; frames by place. *text is
 * malloc'ed (the caller frees it), *len its length. 0, -EINVAL, -ENOMEM. */
int xtx_engine__metrics(struct xtx_engine *e, char **text, size_t *len);

/* The control socket (xtx-ctl): a UNIX stream socket at path (NULL:
 * /run/xtx/IFNAME.ctl, /run/xtx/null.ctl for the null device), mode 0600, answered by a
 * thread of the engine until xtx_engine__stop(), which removes it. A peer of another uid
 * (SO_PEERCRED) is refused and told why. Requests, one per connection, in tc's words:
 * "class show [-s] [-j]", "class change classid H OPTIONS" (H's class line replaced, as
 * tc class change: options not given take their defaults), "class add classid H parent
 * P OPTIONS", "class del classid H" (refused for a class with children or the default
 * class, as tc refuses), "reload FILE", "stats [-j]", "metrics" (xtx_engine__metrics());
 * answers "ok" or "error: MESSAGE" on the first line, then the body. A stale socket file
 * (no listener) is replaced; a live one is -EADDRINUSE. 0, -EBUSY (already listening),
 * -ESRCH (stopped), -errno of the socket calls, with a message in err. */
int xtx_engine__control_listen(struct xtx_engine *e, const char *path, char *err,
			       size_t errlen);
/* Its path, or NULL without one. */
const char *xtx_engine__control_path(const struct xtx_engine *e);

int xtx_engine__queue_stats(const struct xtx_engine *e, unsigned q, struct xtx_queue_stats *st);
/* Sum over all queues' schedulers; as published by the dequeuers (at most ~10 ms old). */
int xtx_engine__class_stats(const struct xtx_engine *e, unsigned cls, struct xtx_class_stats *st);
void xtx_producer__stats(const struct xtx_producer *p, struct xtx_producer_stats *st);
/* Counters of producers already closed are kept in the engine's totals. */
void xtx_engine__producer_totals(const struct xtx_engine *e, struct xtx_producer_stats *st);
void xtx_engine__frames(const struct xtx_engine *e, struct xtx_frame_count *fc);
/* CPU time queue q's dequeuer thread has used (its thread CPU clock), as last published
 * (at most ~10 ms old while it runs; final after xtx_engine__stop()). 0 or -ENOENT (no
 * such queue). */
int xtx_engine__queue_cpu_ns(const struct xtx_engine *e, unsigned q, uint64_t *ns);
/* Queue q's null device counters. 0, -ENOENT (no such queue), -ENODEV (not the null
 * device). */
int xtx_engine__null_stats(const struct xtx_engine *e, unsigned q, struct xtx_null_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* XTX_XTX_H */
