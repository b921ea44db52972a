/* SPDX-License-Identifier: BSD-3-Clause */
/* engine.c - the engine's open, stop and close, its getters and counters. It owns struct
 * xtx_engine and fills each thread's own struct at open: dequeuer.h (one per TX queue),
 * receiver.h (one per ingress queue). Sockets and UMEM: xsk.c; producers: producer.c and
 * registry.c; the free-frame pool: pool.c; producers waiting for room: room.c.
 *
 * Frame life: pool -> producer cache (get_frames pops a batch) -> application (owner[]
 * set to the producer) -> send_burst (owner checked and cleared) -> stage -> dequeuer ->
 * scheduler -> TX ring -> completion ring -> dequeuer's partial batch -> pool. Frames the
 * scheduler refuses go from the dequeuer straight back to its partial batch.
 * Received frames (receiver.c): pool -> receive worker's cache -> fill ring (owner[] set
 * to the queue) -> RX ring -> worker (owner cleared) -> stage -> ... as above.
 */
#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpulist.h"
#include "ecn.h"
#include "control.h"
#include "engine_int.h"
#include "tstamp.h"
#include "nulldev.h"
#include "nic.h"
#include "opts.h"

#define CPU_LIST_MAX	4096	/* cpus and rx_cpus name CPUs 0..4095 */

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* Real-time dequeuers (deq_rtprio) must leave at least one CPU of this process without
 * one: a dequeuer that always has work holds its CPU, and ksoftirqd (the kernel's network
 * work once softirqs run long) and the threads feeding the dequeuers run at normal
 * priority (docs/bench/engine.notes.md). Every pinned CPU is one this process may run
 * on (pick_cpus()). -EINVAL with a message. */
static int check_rt_cpus(const struct xtx_engine *e, int ncpus, char *err, size_t errlen)
{
	cpu_set_t allowed, used;
	int nallowed;

	if (!e->o.deq_rtprio || sched_getaffinity(0, sizeof(allowed), &allowed))
		return 0;
	nallowed = CPU_COUNT(&allowed);
	if (ncpus > 0) {		/* pinned: the CPUs they hold */
		CPU_ZERO(&used);
		for (unsigned i = 0; i < e->nq; i++)
			CPU_SET(e->q[i].cpu, &used);
		if (CPU_COUNT(&used) < nallowed)
			return 0;
	} else if ((int)e->nq < nallowed) {	/* unpinned: any nq of them */
		return 0;
	}
	xtx_errf(err, errlen, "deq_rtprio: %u real-time dequeuer(s) could hold all %d CPU(s) "
		 "this process may run on, starving the kernel's softirq work and the threads "
		 "that feed them; leave one CPU without a dequeuer (fewer queues, or cpus)",
		 e->nq, nallowed);
	return -EINVAL;
}

/* The NUMA node of IF as the engine uses it (-1: none), with a message when it cannot
 * be read or used. */
static int nic_node(const struct xtx_engine *e, const char *ifname)
{
	int node = xtx_nic_numa_node_said(NULL, ifname, e->o.quiet);

	if (node >= 0 && (numa_available() < 0 || node > numa_max_node())) {
		xtx_warn(&e->log, "%s is on NUMA node %d, which libnuma cannot use here (%s): "
			 "memory left local, threads not pinned by node", ifname, node,
			 numa_available() < 0 ? "no NUMA support" : "no such node");
		return -1;
	}
	return node;
}

/* CPUs for the dequeuers (receive workers; what names them): the user's list, else the
 * CPUs of NUMA node `node` (-1: none, not pinned). A CPU of the user's list that this
 * process may not run on (taskset, a cpuset, offline) is refused: -EINVAL with a message;
 * a node's CPUs are cut to the allowed ones (said if that leaves none). */
static int pick_cpus(const struct xtx_engine *e, const char *what, const char *list,
		     int node, int *cpus, int max, char *err, size_t errlen)
{
	cpu_set_t allowed;
	char set[256];
	int n = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		int rc = -errno;

		xtx_errf(err, errlen, "cannot read this process's CPUs (sched_getaffinity): %s",
			 strerror(-rc));
		return rc;
	}
	xtx_cpulist_format(&allowed, set, sizeof(set));
	if (list) {
		n = xtx_cpulist_parse(list, CPU_LIST_MAX, cpus, max);
		if (n < 0) {
			xtx_errf(err, errlen, "bad %s CPU list '%s': expected e.g. 2,3 or 2-5",
				 what, list);
			return n;
		}
		if (n > max)
			n = max;	/* the first max of them */
		for (int i = 0; i < n; i++)
			if (cpus[i] >= CPU_SETSIZE || !CPU_ISSET(cpus[i], &allowed)) {
				xtx_errf(err, errlen, "%s CPU %d (of '%s'): this process may "
					 "run only on CPUs %s (taskset, cpuset, online CPUs); "
					 "choose among those", what, cpus[i], list, set);
				return -EINVAL;
			}
		return n;
	}
	if (node < 0)
		return 0;	/* no node: leave placement to the kernel */
	struct bitmask *bm = numa_allocate_cpumask();
	unsigned dropped = 0;

	if (numa_node_to_cpus(node, bm) == 0)
		for (unsigned c = 0; c < bm->size && n < max; c++) {
			if (!numa_bitmask_isbitset(bm, c))
				continue;
			if (c < CPU_SETSIZE && CPU_ISSET(c, &allowed))
				cpus[n++] = (int)c;
			else
				dropped++;
		}
	numa_free_cpumask(bm);
	if (!n && dropped)
		xtx_warn(&e->log, "none of NUMA node %d's CPUs is one this process may run on (%s): "
			 "%ss not pinned", node, set, what);
	else if (dropped)
		xtx_info(&e->log, "%ss on the %d CPU(s) of NUMA node %d that this process may run on "
			 "(%s), not on its %u other(s)", what, n, node, set, dropped);
	return n;
}

static struct xtx_sched_config *one_class_config(void)
{
	struct xtx_sched_config *c = xtx_sched_config__new();
	/* One leaf with no practical limit: 8 Pbit/s. */
	struct xtx_class_opts o = { .sz = sizeof(o), .handle = XTX_HANDLE(1, 0),
				    .parent = XTX_HANDLE_ROOT, .rate = 1000ull * 1000 * 1000 * 1000 * 1000,
				    .limit = 65536 };

	if (c && xtx_sched_config__add_class(c, &o)) {
		xtx_sched_config__free(c);
		return NULL;
	}
	return c;
}

static void engine_free(struct xtx_engine *e)
{
	xtx_rx_free(e);		/* before the UMEM goes */
	for (unsigned i = 0; i < e->nq; i++) {
		struct xtx_queue *q = &e->q[i];

		xtx_queue_socket_close(q);
		xtx_mpsc__destroy(q->deq.stage);
		xtx_sched__destroy(q->deq.sched);
		free(q->deq.snap);
		free(q->deq.cls_room);
		if (q->deq.ts)
			xtx_ts_free(q->deq.ts);
		free(q->deq.ts);
	}
	xtx_zcprog_detach(e);	/* after the sockets */
	xtx_sched_shared__destroy(e->shared);
	xtx_umem_teardown(e);
	xtx_pool__fini(&e->pool);
	free(e->fr.owner);
	xtx_sched_config__free(e->own_cfg);
	xtx_sched_config__free(e->cur);
	xtx_slots_free(e);
	xtx_registry__fini(&e->reg);
	pthread_mutex_destroy(&e->rx_lock);
	pthread_mutex_destroy(&e->change_lock);
	free(e);
}

static int is_pow2_64(uint32_t v)
{
	return v >= 64 && !(v & (v - 1));
}

/* The receive side's options (opts.rx_ifname set): -EINVAL/-ENODEV with a message. */
static int rx_options(struct xtx_engine *e, char *err, size_t errlen)
{
	if (strlen(e->o.rx_ifname) >= IF_NAMESIZE ||
	    !(e->rx_ifindex = (int)if_nametoindex(e->o.rx_ifname))) {
		xtx_errf(err, errlen, "no interface '%s' in this network namespace (see ip link "
			 "show)", e->o.rx_ifname);
		return -ENODEV;
	}
	strcpy(e->rx_ifname, e->o.rx_ifname);
	if (e->rx_ifindex == e->ifindex) {
		xtx_errf(err, errlen, "the ingress interface is the egress interface (%s): "
			 "forwarding back out of the interface a frame came in on is not "
			 "supported", e->ifname);
		return -EINVAL;
	}
	if (e->o.rx_queues > XTX_MAX_QUEUES) {
		xtx_errf(err, errlen, "at most %d ingress queues, not %u", XTX_MAX_QUEUES,
			 e->o.rx_queues);
		return -EINVAL;
	}
	if (!is_pow2_64(e->o.rx_ring_size) || !is_pow2_64(e->o.fill_ring_size)) {
		xtx_errf(err, errlen, "RX and fill ring sizes must be powers of two >= 64 (rx "
			 "%u, fill %u)", e->o.rx_ring_size, e->o.fill_ring_size);
		return -EINVAL;
	}
	e->nrq = e->o.rx_queues;
	e->rx_size = e->o.rx_ring_size;
	e->fill_size = e->o.fill_ring_size;
	return 0;
}

/* Wake a dequeuer after e->ctl.stop was set and wait for it to exit. One kick is enough: the
 * dequeuer takes its sleep ticket (xtx_mpsc__wait_prepare) before it reads stop, so a kick
 * between its check and its sleep fails the futex compare instead of being lost. */
static void join_dequeuer(struct xtx_queue *q)
{
	xtx_mpsc__kick(q->deq.stage);
	pthread_join(q->thread, NULL);
}

/* The schedulers may hold every leaf at its limit, in every queue. A UMEM smaller than that
 * lets one class at its limit (held back by its ceil) keep the frames that the producers of
 * every other class need: they wait for frames and those classes starve
 * (docs/bench/engine.notes.md). With two or more leaves and no frame count given, size
 * the UMEM to cover the limits (up to 512 MiB); when it cannot, say so. */
static void size_frames_for_limits(struct xtx_engine *e, int may_grow, uint32_t min_frames)
{
	unsigned ncls = xtx_sched_config__class_count(e->cfg);
	uint8_t *has_child = calloc(ncls ? ncls : 1, 1);
	uint64_t queued = 0, need, cap = (512ull << 20) / e->fr.size;
	unsigned nleaves = 0;

	if (!has_child)
		return;
	for (unsigned i = 0; i < ncls; i++) {
		int p = xtx_sched_config__class_index(e->cfg, xtx_sched_config__class(e->cfg, i)->parent);

		if (p >= 0)
			has_child[p] = 1;
	}
	for (unsigned i = 0; i < ncls; i++)
		if (!has_child[i]) {
			queued += xtx_sched_config__class(e->cfg, i)->limit;
			nleaves++;
		}
	free(has_child);
	need = queued * e->nq + min_frames;
	if (nleaves < 2 || need <= e->fr.count)
		return;
	if (may_grow) {
		uint64_t n = need < cap ? need : cap;

		e->fr.count = (uint32_t)((n + XTX_BATCH - 1) / XTX_BATCH * XTX_BATCH);
		if (e->fr.count >= need) {
			xtx_info(&e->log, "UMEM sized to %u frames so that every class can queue up to its "
				 "limit (%lu packets in all)", e->fr.count, (unsigned long)(queued * e->nq));
			return;
		}
	}
	xtx_warn(&e->log, "the classes may queue %lu packets but the UMEM has %u frames: a class "
		 "held at its limit can starve the others of frames; lower the leaves' limit "
		 "or use more frames", (unsigned long)(queued * e->nq), e->fr.count);
}

/* The defaults of the options the frame count depends on: queues and ring sizes. */
static void ring_defaults(struct xtx_engine_opts *o)
{
	if (!o->queues)
		o->queues = 1;
	if (!o->tx_ring_size)
		o->tx_ring_size = 2048;
	if (!o->rx_ifname)
		return;
	if (!o->rx_queues)
		o->rx_queues = 1;
	if (!o->rx_ring_size)
		o->rx_ring_size = 2048;
	/* Twice the RX ring: the kernel can fill the RX ring and still have fill frames, so
	 * a worker that falls behind shows as rx_ring_full, and fill_empty means frames
	 * really ran short. */
	if (!o->fill_ring_size)
		o->fill_ring_size = 2 * o->rx_ring_size;
}

/* Enough frames for every TX ring and some for each producer to work with; with a
 * receive side also every fill and RX ring full and the workers' caches. o has its
 * ring_defaults(). */
static uint32_t frames_min(const struct xtx_engine_opts *o)
{
	uint32_t nrq = o->rx_ifname ? o->rx_queues : 0;

	return o->queues * (o->tx_ring_size + 2 * XTX_BATCH) +
	       nrq * (o->fill_ring_size + o->rx_ring_size + XTX_RX_CACHE);
}

uint32_t xtx_engine_opts__min_frames(const struct xtx_engine_opts *opts)
{
	struct xtx_engine_opts o;

	if (!opts || XTX_OPTS_LOAD(&o, opts, xtx_engine_opts, NULL, 0))
		return 0;
	ring_defaults(&o);
	return frames_min(&o);
}

/* The device: an interface of this network namespace, or the null device ("null",
 * "null:RATE"), which has no interface, no NUMA node and needs no privilege. 0, or
 * -ENODEV/-EINVAL with a message. */
static int open_device(struct xtx_engine *e, char *err, size_t errlen)
{
	int rc = xtx_nulldev_parse(e->o.ifname, &e->null_rate_bps);

	if (rc < 0) {
		xtx_errf(err, errlen, "'%s': the null device's rate must be a rate in tc's units "
			 "above 0, e.g. null:10gbit", e->o.ifname);
		return -EINVAL;
	}
	if (!rc) {
		e->null = 1;
		e->numa_node = -1;
		snprintf(e->ifname, sizeof(e->ifname), "%s", e->o.ifname);
		if (e->o.rx_ifname) {
			xtx_errf(err, errlen, "%s: a receive side needs an interface (%s): the "
				 "null device only sends", e->o.ifname, e->o.rx_ifname);
			return -EINVAL;
		}
		if (e->o.mode != XTX_MODE_AUTO) {
			xtx_errf(err, errlen, "%s: mode %s is an AF_XDP socket's; the null device "
				 "has none (leave mode auto)", e->o.ifname,
				 xtx_xdp_mode__str(e->o.mode) ? xtx_xdp_mode__str(e->o.mode) : "?");
			return -EINVAL;
		}
		return 0;
	}
	if ((unsigned)e->o.mode > XTX_MODE_ZEROCOPY) {
		xtx_errf(err, errlen, "bad mode %d: expected auto, copy or zero-copy",
			 (int)e->o.mode);
		return -EINVAL;
	}
	if (strlen(e->o.ifname) >= IF_NAMESIZE || !(e->ifindex = (int)if_nametoindex(e->o.ifname))) {
		xtx_errf(err, errlen, "no interface '%s' in this network namespace (see ip link "
			 "show; 'null' or 'null:RATE' is the built-in null device)", e->o.ifname);
		return -ENODEV;
	}
	strcpy(e->ifname, e->o.ifname);
	e->numa_node = nic_node(e, e->ifname);
	return 0;
}

/* Defaults and checks of the caller's options (e->o), from the interface's name to the
 * frame count: 0, or -EINVAL/-ENODEV with a message. The fewest frames the queues and
 * rings need goes to *min_frames. */
static int open_options(struct xtx_engine *e, uint32_t *min_frames, char *err,
			size_t errlen)
{
	int rc;

	if (!e->o.ifname) {
		xtx_errf(err, errlen, "no interface name: set opts.ifname");
		return -EINVAL;
	}
	ring_defaults(&e->o);
	if (!e->o.frame_size)
		e->o.frame_size = 2048;
	if (!e->o.comp_ring_size)
		e->o.comp_ring_size = 2048;
	if (!e->o.max_producers)
		e->o.max_producers = 64;
	e->intake = !e->o.intake_batches ? 1 : e->o.intake_batches > 16 ? 16 :
		    e->o.intake_batches;
	if (e->o.deq_nice < -20 || e->o.deq_nice > 19) {
		xtx_errf(err, errlen, "bad deq_nice %d: expected -20..19", e->o.deq_nice);
		return -EINVAL;
	}
	if (e->o.deq_rtprio < 0 || e->o.deq_rtprio > 99) {
		xtx_errf(err, errlen, "bad deq_rtprio %d: expected 0 (off) or a SCHED_FIFO "
			 "priority 1..99", e->o.deq_rtprio);
		return -EINVAL;
	}
	if (e->o.codel < 0 || e->o.codel > 1) {
		xtx_errf(err, errlen, "bad codel %d: expected 0 (where the class file says) or 1 "
			 "(every leaf that says nothing)", e->o.codel);
		return -EINVAL;
	}
	if (e->o.deq_rtprio && e->o.busy_poll) {
		xtx_errf(err, errlen, "deq_rtprio with busy_poll: a dequeuer that spins at "
			 "real-time priority would keep its CPU from everything else; use one "
			 "or the other");
		return -EINVAL;
	}
	if (!e->o.lane_size)
		e->o.lane_size = 1024;
	if (!e->o.drain_timeout_ns)
		e->o.drain_timeout_ns = 1000ull * 1000 * 1000;

	rc = open_device(e, err, errlen);
	if (rc)
		return rc;
	if (e->o.rx_ifname) {
		rc = rx_options(e, err, errlen);
		if (rc)
			return rc;
	}
	if (!e->o.frame_count)
		e->o.frame_count = 8192 * (e->o.queues + e->nrq);
	if (e->o.queues > XTX_MAX_QUEUES) {
		xtx_errf(err, errlen, "at most %d queues, not %u", XTX_MAX_QUEUES, e->o.queues);
		return -EINVAL;
	}
	if (e->o.frame_size != 2048 && e->o.frame_size != 4096) {
		xtx_errf(err, errlen, "frame size must be 2048 or 4096, not %u", e->o.frame_size);
		return -EINVAL;
	}
	if (!is_pow2(e->o.tx_ring_size) || !is_pow2(e->o.comp_ring_size) ||
	    e->o.tx_ring_size < 64 || e->o.comp_ring_size < 64) {
		xtx_errf(err, errlen, "ring sizes must be powers of two >= 64 (tx %u, comp %u)",
			 e->o.tx_ring_size, e->o.comp_ring_size);
		return -EINVAL;
	}
	if ((e->o.tx_sw_csum || e->o.launch_time || e->o.tx_timestamps) && !e->o.tx_metadata) {
		xtx_errf(err, errlen, "%s needs tx_metadata", e->o.tx_sw_csum ? "tx_sw_csum" :
			 e->o.launch_time ? "launch_time" : "tx_timestamps");
		return -EINVAL;
	}
	if (e->o.tx_timestamps && e->null) {
		xtx_errf(err, errlen, "tx_timestamps: the null device gives no TX timestamps");
		return -EINVAL;
	}
	e->txmd_flag = e->o.tx_metadata ? XTX_DESC_F_TXMD : 0;
	e->mb_flag = e->o.multi_buffer ? XTX_DESC_F_MB : 0;
	if (e->o.multi_buffer && e->o.rx_ifname) {
		xtx_errf(err, errlen, "multi_buffer: not with a receive side (frames forwarded "
			 "are one buffer each)");
		return -EINVAL;
	}
	if (e->o.max_producers + e->nrq > XTX_MPSC_MAX_LANES) {
		xtx_errf(err, errlen, "at most %d producers (receive queues included)",
			 XTX_MPSC_MAX_LANES - e->nrq);
		return -EINVAL;
	}
	e->nq = e->o.queues;
	e->fr.size = e->o.frame_size;
	e->fr.shift = (uint32_t)__builtin_ctz(e->fr.size);
	e->fr.count = e->o.frame_count;
	*min_frames = frames_min(&e->o);
	if (e->fr.count < *min_frames || e->fr.count > (1u << 26)) {
		xtx_errf(err, errlen, "frame count %u out of range: at least %u for %u queue(s) "
			 "with TX rings of %u%s, at most %u", e->fr.count, *min_frames, e->nq,
			 e->o.tx_ring_size, e->nrq ? " and the receive queues' fill and RX rings" :
			 "", 1u << 26);
		return -EINVAL;
	}
	return 0;
}

/* The class configuration (the caller's, or one unlimited class) and the UMEM sized for
 * its limits when the caller gave no frame count (may_grow): 0, -ENOMEM, or -EINVAL with
 * a message. */
static int open_classes(struct xtx_engine *e, int may_grow, uint32_t min_frames, char *err,
			size_t errlen)
{
	char cerr[512] = "";
	int rc;

	e->cfg = e->o.classes;
	if (!e->cfg) {
		e->cfg = e->own_cfg = one_class_config();
		if (!e->cfg)
			return -ENOMEM;
	}
	if (xtx_sched_config__validate(e->cfg, cerr, sizeof(cerr))) {
		xtx_errf(err, errlen, "class configuration: %s", cerr);
		return -EINVAL;
	}
	e->cur = xtx_sched_config__dup(e->cfg);
	if (!e->cur)
		return -ENOMEM;
	rc = xtx_slots_open(e, err, errlen);
	if (rc)
		return rc;
	size_frames_for_limits(e, may_grow, min_frames);
	return 0;
}

/* The frame pool, the frame table and the UMEM, every frame in the pool: 0 or -errno
 * with a message. */
static int open_frames(struct xtx_engine *e, char *err, size_t errlen)
{
	int rc;

	rc = xtx_pool__init(&e->pool, e->fr.count / XTX_BATCH + 2 +
					2 * (e->nq + e->nrq + e->o.max_producers));
	if (rc) {
		xtx_errf(err, errlen, "out of memory for the frame pool");
		return rc;
	}
	e->fr.owner = calloc(e->fr.count, sizeof(*e->fr.owner));
	if (!e->fr.owner) {
		xtx_errf(err, errlen, "out of memory for the frame table");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < e->nq; i++) {
		e->q[i].idx = i;
		e->q[i].qid = e->o.first_queue + i;
		e->q[i].cpu = -1;
	}
	rc = xtx_umem_setup(e, err, errlen);
	if (rc)
		return rc;
	for (uint32_t f = 0; f < e->fr.count; f += XTX_BATCH) {
		uint64_t b[XTX_BATCH];
		uint32_t n = e->fr.count - f < XTX_BATCH ? e->fr.count - f : XTX_BATCH;

		for (uint32_t k = 0; k < n; k++)
			b[k] = ((uint64_t)(f + k) << e->fr.shift) + XTX_HEADROOM;
		xtx_pool__put(&e->pool, b, n);
	}
	/* Producers wake when the pool holds 8 batches, or an eighth of the frames on a
	 * small UMEM. */
	xtx_room__init(&e->room, &e->pool,
		       e->fr.count / 8 < 8 * XTX_BATCH ? e->fr.count / 8 : 8 * XTX_BATCH);
	xtx_registry__setup(&e->reg, e->o.max_producers, e->nq, &e->pool, &e->room, &e->fr,
			    &e->log);
	return 0;
}

/* The rest of what queue q's dequeuer works with: the engine's parts it shares. */
static void fill_dequeuer(struct xtx_engine *e, struct xtx_queue *q)
{
	struct xtx_dequeuer *d = &q->deq;

	d->pool = &e->pool;
	d->room = &e->room;
	d->reaper = q->idx == 0 && !e->o.no_reap ? &e->reg : NULL;
	d->ctl = &e->ctl;
	d->log = &e->log;
	d->fr = e->fr;
	d->qid = q->qid;
	d->idx = q->idx;
	d->intake = e->intake;
	d->wake_descs = e->o.lane_size / 2;	/* >= 1: lane_size >= 2 (mpsc.c) */
	d->nslots = e->nslots;
	d->nice = e->o.deq_nice;
	d->rtprio = e->o.deq_rtprio;
	d->launch = e->o.launch_time != 0;
	xtx_dql__init(&d->dql, XTX_DEQ_BATCH, e->o.tx_ring_size, xtx_now_ns());
}

/* Every TX queue's socket, stage, scheduler and class snapshot, and its dequeuer's CPU:
 * 0 or -errno with a message. */
static int open_queues(struct xtx_engine *e, char *err, size_t errlen)
{
	char cerr[512] = "";
	int cpus[256], ncpus, rc;

	ncpus = pick_cpus(e, "dequeuer", e->o.cpus, e->numa_node, cpus, 256, err, errlen);
	if (ncpus < 0)
		return ncpus;
	if (e->nq > 1 && !e->o.queue_classes) {
		e->shared = xtx_sched_shared__create_slots(e->cfg, NULL, e->nslots, e->nq,
							   e->o.slice_ns, xtx_now_ns(), cerr,
							   sizeof(cerr));
		if (!e->shared) {
			rc = -errno;
			xtx_errf(err, errlen, "cannot create the device-wide class state: %s", cerr);
			return rc;
		}
	}
	rc = xtx_zcprog_attach(e, err, errlen);
	if (rc)
		return rc;
	for (unsigned i = 0; i < e->nq; i++) {
		struct xtx_queue *q = &e->q[i];
		struct xtx_mpsc_opts mo = { .sz = sizeof(mo),
					    .lanes = e->o.max_producers + e->nrq,
					    .lane_size = e->o.lane_size,
					    .numa_node = e->numa_node,
					    .busy_poll = e->o.busy_poll };
		struct xtx_sched_opts so = { .sz = sizeof(so), .shared = e->shared, .queue = i,
					     .target_ns = e->o.target_ns,
					     .codel = e->o.codel ? XTX_CODEL_ON : 0,
					     .ecn_mark = xtx_ecn_mark,
					     .ecn_ctx = &q->deq.fr, .nslots = e->nslots };

		rc = e->null ? xtx_queue_null(e, q, err, errlen) :
			       xtx_queue_socket(e, q, err, errlen);
		if (rc)
			return rc;
		if (i == 0)
			xtx_zcprog_settle(e);
		q->deq.ring.mb = e->o.multi_buffer != 0;
		q->deq.ring.area = e->fr.area;
		q->deq.ring.room = e->fr.size - XTX_HEADROOM;
		if (!e->null)
			q->deq.ring.fd = q->xsk->fd;
		xtx_txring__comp_start(&q->deq.ring);
		q->deq.stage = xtx_mpsc__create(&mo);
		q->deq.sched = xtx_sched__create(e->cfg, &so, xtx_now_ns(), cerr, sizeof(cerr));
		q->deq.snap = calloc(e->nslots * SNAP_WORDS, sizeof(*q->deq.snap));
		q->deq.cls_room = aligned_alloc(64, (e->nslots * 8 + 63) / 64 * 64);
		if (!q->deq.stage || !q->deq.sched || !q->deq.snap || !q->deq.cls_room) {
			rc = -errno ? -errno : -ENOMEM;
			xtx_errf(err, errlen, "queue %u: cannot create stage or scheduler: %s",
				 q->qid, cerr[0] ? cerr : strerror(-rc));
			return rc;
		}
		fill_dequeuer(e, q);
		if (e->o.tx_timestamps) {
			q->deq.ts = malloc(sizeof(*q->deq.ts));
			if (!q->deq.ts || xtx_ts_init(q->deq.ts, e->o.tx_timestamps, e->nslots)) {
				free(q->deq.ts);
				q->deq.ts = NULL;
				xtx_errf(err, errlen, "out of memory for TX timestamps");
				return -ENOMEM;
			}
		}
		/* Every class without a limit, then each leaf's first state (the thread
		 * does not run yet). */
		for (unsigned c = 0; c < e->nslots; c++)
			atomic_init(&q->deq.cls_room[c], XTX_ROOM_NOLIMIT);
		for (unsigned c = 0; c < xtx_sched__class_count(q->deq.sched); c++) {
			struct xtx_class_stats cs;

			xtx_sched__class_stats(q->deq.sched, c, &cs);
			/* a leaf with a target: a budget (inner classes have 0, leaves
			 * without a target UINT32_MAX) */
			e->room_on |= cs.room_budget && cs.room_budget != UINT32_MAX;
		}
		xtx_room_publish(&q->deq);
		if (ncpus > 0)
			q->cpu = cpus[i % (unsigned)ncpus];
	}
	return check_rt_cpus(e, ncpus, err, errlen);
}

/* The rest of what ingress queue rq's worker works with (its pool, room and stop word
 * are set when the engine is allocated; its rings and socket by xsk.c). */
static void fill_receiver(struct xtx_engine *e, struct xtx_rxq *rq)
{
	struct xtx_receiver *w = &rq->w;

	w->fr = e->fr;
	w->idx = rq->idx;
	w->qid = rq->qid;
	w->nq = e->nq;
	w->fill_size = e->fill_size;
	w->copy = e->rx_copy;
	w->rx_area = e->rx_area;
	w->busy_poll = e->o.rx_busy_poll;
}

/* The receive side's sockets and workers, not started (none without opts.rx_ifname): 0
 * or -errno with a message. */
static int open_rx(struct xtx_engine *e, char *err, size_t errlen)
{
	int cpus[256], ncpus, rc;

	if (!e->nrq)
		return 0;
	for (unsigned i = 0; i < e->nrq; i++)
		e->rq[i].qid = e->o.rx_first_queue + i;
	rc = xtx_rx_sockets(e, err, errlen);
	if (rc)
		return rc;
	for (unsigned i = 0; i < e->nrq; i++)
		fill_receiver(e, &e->rq[i]);
	ncpus = pick_cpus(e, "receive worker", e->o.rx_cpus, nic_node(e, e->rx_ifname),
			  cpus, 256, err, errlen);
	if (ncpus < 0)
		return ncpus;
	return xtx_rx_open(e, cpus, ncpus, err, errlen);
}

/* What was opened, as one message per side. */
static void report_open(const struct xtx_engine *e)
{
	char where[32] = "no NUMA node";

	if (e->numa_node >= 0)
		snprintf(where, sizeof(where), "NUMA node %d", e->numa_node);
	xtx_info(&e->log, "%s: %u queue(s) from %u, %s mode, %u frames of %u bytes%s, %s",
		 e->ifname, e->nq, e->o.first_queue, xtx_engine__mode(e),
		 e->fr.count, e->fr.size, e->area_huge ? " on huge pages" : "", where);
	if (e->nrq)
		xtx_info(&e->log, "%s: %u receive queue(s) from %u, %s", e->rx_ifname, e->nrq,
			 e->o.rx_first_queue, e->rx_copy ? "own UMEM, one copy per frame" :
			 "shared UMEM, no copy in userspace");
}

/* One dequeuer per TX queue, each marked thread_started once it runs: 0 or -errno with a
 * message; the caller stops those that started. */
static int start_dequeuers(struct xtx_engine *e, char *err, size_t errlen)
{
	for (unsigned i = 0; i < e->nq; i++) {
		struct xtx_queue *q = &e->q[i];
		int rc = xtx_thread_start_said(&q->thread, q->cpu, xtx_dequeuer_main, &q->deq,
					       "dequeuer", "dequeuer thread", q->qid, err,
					       errlen);

		if (rc)
			return rc;
		q->thread_started = 1;
	}
	return 0;
}

/* Every receive worker and dequeuer that started, stopped at once, dropping what they
 * hold. */
static void stop_threads(struct xtx_engine *e)
{
	xtx_rx_stop(e);
	/* Release, pairs with the dequeuers' acquire load of stop. */
	atomic_store_explicit(&e->ctl.drop, 1, memory_order_relaxed);
	atomic_store_explicit(&e->ctl.stop, 1, memory_order_release);
	for (unsigned i = 0; i < e->nq; i++)
		if (e->q[i].thread_started)
			join_dequeuer(&e->q[i]);
}

struct xtx_engine *xtx_engine__open(const struct xtx_engine_opts *opts, char *err,
				    size_t errlen)
{
	struct xtx_engine *e;
	uint32_t min_frames = 0;
	int rc;

	xtx_errf(err, errlen, "unknown error");
	if (!opts) {
		xtx_errf(err, errlen, "no options: opts is NULL");
		errno = EINVAL;
		return NULL;
	}
	rc = XTX_OPTS_VALID(opts, xtx_engine_opts, err, errlen);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		errno = ENOMEM;
		return NULL;
	}
	xtx_registry__init(&e->reg);
	pthread_mutex_init(&e->rx_lock, NULL);
	pthread_mutex_init(&e->change_lock, NULL);
	for (unsigned i = 0; i < XTX_MAX_QUEUES; i++) {
		e->rq[i].idx = i;
		e->rq[i].cpu = -1;
		e->rq[i].w.fd = -1;
		e->rq[i].w.evfd = -1;
		/* Good from here on: a failed open's stop() flushes every worker's cache. */
		e->rq[i].w.pool = &e->pool;
		e->rq[i].w.room = &e->room;
		e->rq[i].w.stop = &e->rx_stop;
	}
	/* Only the fields the caller's struct has (sz); the rest stay 0 (defaults). */
	XTX_OPTS_LOAD(&e->o, opts, xtx_engine_opts, NULL, 0);
	e->log.quiet = e->o.quiet;

	rc = open_options(e, &min_frames, err, errlen);
	if (rc)
		goto out_engine;
	rc = open_classes(e, opts->frame_count == 0, min_frames, err, errlen);
	if (rc)
		goto out_engine;
	rc = open_frames(e, err, errlen);
	if (rc)
		goto out_engine;
	rc = open_queues(e, err, errlen);
	if (rc)
		goto out_engine;
	rc = open_rx(e, err, errlen);
	if (rc)
		goto out_engine;
	report_open(e);
	rc = start_dequeuers(e, err, errlen);
	if (rc)
		goto out_threads;
	rc = xtx_rx_start(e, err, errlen);
	if (rc)
		goto out_threads;
	return e;

out_threads:
	stop_threads(e);
out_engine:
	engine_free(e);		/* every step's allocations, sockets and UMEM */
	errno = -rc;
	return NULL;
}

int xtx_engine__stop(struct xtx_engine *e)
{
	uint64_t before = 0, after = 0;

	if (e->stopped)
		return -EALREADY;
	/* A producer whose thread died does not hold up the stop. */
	xtx_registry__reap(&e->reg, 0);
	if (xtx_registry__busy(&e->reg))
		return -EBUSY;	/* close producers first */
	xtx_control_stop(e);	/* its requests call into the running engine */
	/* A change in flight finishes on every queue first; later ones are refused. */
	pthread_mutex_lock(&e->change_lock);
	e->changes_closed = 1;
	pthread_mutex_unlock(&e->change_lock);
	/* Receive workers first: what they forward still goes through the dequeuers. */
	xtx_rx_stop(e);
	for (unsigned i = 0; i < e->nq; i++)
		before += CTR_GET(e->q[i].deq.ctr.drops[XTX_DROP_PURGED]);
	e->ctl.deadline_ns = xtx_now_ns() + e->o.drain_timeout_ns;
	/* Relaxed: published by the release store of stop just below. */
	atomic_store_explicit(&e->ctl.drop, e->o.drop_on_close, memory_order_relaxed);
	/* Release, pairs with the dequeuers' acquire load: deadline and drop are visible. */
	atomic_store_explicit(&e->ctl.stop, 1, memory_order_release);
	for (unsigned i = 0; i < e->nq; i++) {
		if (e->q[i].thread_started)
			join_dequeuer(&e->q[i]);
		e->q[i].thread_started = 0;
	}
	e->stopped = 1;
	for (unsigned i = 0; i < e->nq; i++) {
		struct xtx_class_stats st;

		after += CTR_GET(e->q[i].deq.ctr.drops[XTX_DROP_PURGED]);
		for (unsigned c = 0; c < xtx_sched__class_count(e->q[i].deq.sched); c++)
			if (!xtx_sched__class_stats(e->q[i].deq.sched, c, &st))
				after += st.drops[XTX_DROP_PURGED];
	}
	return !e->o.drop_on_close && after > before ? -ETIMEDOUT : 0;
}

int xtx_engine__close(struct xtx_engine *e)
{
	int rc = 0;

	if (!e)
		return 0;
	if (!e->stopped) {
		rc = xtx_engine__stop(e);
		if (rc == -EBUSY)
			return rc;
	}
	engine_free(e);
	return rc;
}

static const char *const xdp_mode_names[] = {
	[XTX_MODE_AUTO] = "auto",
	[XTX_MODE_COPY] = "copy",
	[XTX_MODE_ZEROCOPY] = "zero-copy",
	[XTX_MODE_NULL] = "null",
};
_Static_assert(sizeof(xdp_mode_names) / sizeof(xdp_mode_names[0]) == XTX_MODE_NULL + 1,
	       "a name for every enum xtx_xdp_mode");

const char *xtx_xdp_mode__str(enum xtx_xdp_mode mode)
{
	return (unsigned)mode <= XTX_MODE_NULL ? xdp_mode_names[mode] : NULL;
}

enum xtx_xdp_mode xtx_engine__xdp_mode(const struct xtx_engine *e)
{
	return e->null ? XTX_MODE_NULL : e->zerocopy ? XTX_MODE_ZEROCOPY : XTX_MODE_COPY;
}

int xtx_engine__class_departures(const struct xtx_engine *e, unsigned cls,
				 struct xtx_departure_stats *st)
{
	const struct xtx_tstamp *ts[XTX_MAX_QUEUES];

	memset(st, 0, sizeof(*st));
	if (!e->o.tx_timestamps)
		return -EOPNOTSUPP;
	if (cls >= e->nslots)
		return -ENOENT;
	for (unsigned i = 0; i < e->nq; i++)
		ts[i] = e->q[i].deq.ts;
	xtx_ts_read(ts, e->nq, cls, st);
	return 0;
}

const char *xtx_engine__mode(const struct xtx_engine *e)
{
	return xtx_xdp_mode__str(xtx_engine__xdp_mode(e));
}

unsigned xtx_engine__queues(const struct xtx_engine *e)
{
	return e->nq;
}

int xtx_engine__numa_node(const struct xtx_engine *e)
{
	return e->numa_node;
}

uint32_t xtx_engine__frame_size(const struct xtx_engine *e)
{
	return e->fr.size;
}

uint32_t xtx_engine__frame_room(const struct xtx_engine *e)
{
	return e->fr.size - XTX_HEADROOM;
}

int xtx_engine__class_index(const struct xtx_engine *e, uint32_t handle)
{
	return xtx_slot_lookup(e, handle);
}

unsigned xtx_engine__class_count(const struct xtx_engine *e)
{
	return e->nslots;
}

void *xtx_engine__frame(const struct xtx_engine *e, uint64_t addr)
{
	return xtx_frame_ptr(&e->fr, addr);
}

/* --- counters -------------------------------------------------------------------------- */

static void read_class_snap(const struct xtx_dequeuer *q, unsigned cls,
			    struct xtx_class_stats *st)
{
	uint64_t w[SNAP_WORDS];
	uint32_t s1, s2;

	do {
		/* Acquire, pairs with the writer's final release store (seqlock reader). */
		s1 = atomic_load_explicit(&((struct xtx_dequeuer *)q)->snap_seq, memory_order_acquire);
		for (unsigned k = 0; k < SNAP_WORDS; k++)
			/* Relaxed: validated by the seqcount re-check. */
			w[k] = atomic_load_explicit(&q->snap[cls * SNAP_WORDS + k],
						    memory_order_relaxed);
		/* Acquire fence: the loads above complete before the re-check; pairs with the
		 * writer's release fence after its odd store. */
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&((struct xtx_dequeuer *)q)->snap_seq, memory_order_relaxed);
	} while ((s1 & 1) || s1 != s2);
	memcpy(st, w, sizeof(*st));
}

int xtx_engine__queue_stats(const struct xtx_engine *e, unsigned qi, struct xtx_queue_stats *st)
{
	const struct xtx_queue *q;

	if (qi >= e->nq)
		return -ENOENT;
	q = &e->q[qi];
	memset(st, 0, sizeof(*st));
	st->stage_pkts = CTR_GET(q->deq.ctr.stage_pkts);
	st->sent_pkts = CTR_GET(q->deq.ctr.sent_pkts);
	st->sent_bytes = CTR_GET(q->deq.ctr.sent_bytes);
	st->completed = CTR_GET(q->deq.ctr.completed);
	st->tx_ring_full = CTR_GET(q->deq.ctr.tx_ring_full);
	st->ring_limit = CTR_GET(q->deq.ctr.ring_limit);
	st->ring_limited = CTR_GET(q->deq.ctr.ring_limited);
	st->kicks = CTR_GET(q->deq.ctr.kicks);
	st->kick_errors = CTR_GET(q->deq.ctr.kick_errors);
	st->sleeps = CTR_GET(q->deq.ctr.sleeps);
	st->loops = CTR_GET(q->deq.ctr.loops);
	st->moved = CTR_GET(q->deq.ctr.moved);
	for (unsigned r = 0; r < XTX_DROP__MAX; r++)
		st->drops[r] = CTR_GET(q->deq.ctr.drops[r]);
	for (unsigned c = 0; c < e->nslots; c++) {
		struct xtx_class_stats cs;

		read_class_snap(&q->deq, c, &cs);
		for (unsigned r = 0; r < XTX_DROP__MAX; r++)
			st->drops[r] += cs.drops[r];
	}
	return 0;
}

int xtx_engine__room_mirror(struct xtx_engine *e, uint64_t *words, unsigned n)
{
	if (!e || !words || n / e->nq < e->nslots || ((uintptr_t)words & 7))
		return -EINVAL;
	for (unsigned i = 0; i < e->nq; i++) {
		/* Relaxed: only this function stores it (below), from the caller's thread;
		 * pairs with nothing. */
		if (atomic_load_explicit(&e->q[i].deq.mirror, memory_order_relaxed))
			return -EBUSY;
	}
	for (unsigned i = 0; i < e->nq; i++)
		/* Release, pairs with the acquire load in xtx_room_publish(): what the
		 * caller stored in the words (xtx-shape: no limit) is ordered before the
		 * dequeuer's first stores to them. */
		atomic_store_explicit(&e->q[i].deq.mirror, (_Atomic uint64_t *)words,
				      memory_order_release);
	return 0;
}

int xtx_engine__queue_cpu_ns(const struct xtx_engine *e, unsigned qi, uint64_t *ns)
{
	if (qi >= e->nq)
		return -ENOENT;
	*ns = CTR_GET(e->q[qi].deq.ctr.cpu_ns);
	return 0;
}

int xtx_engine__null_stats(const struct xtx_engine *e, unsigned qi, struct xtx_null_stats *st)
{
	if (qi >= e->nq)
		return -ENOENT;
	if (!e->q[qi].deq.ring.null)
		return -ENODEV;
	xtx_nulldev_stats(e->q[qi].deq.ring.null, st);
	return 0;
}

int xtx_engine__class_stats(const struct xtx_engine *e, unsigned cls, struct xtx_class_stats *st)
{
	if (cls >= e->nslots)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < e->nq; i++) {
		struct xtx_class_stats cs;

		read_class_snap(&e->q[i].deq, cls, &cs);
		st->enq_pkts += cs.enq_pkts;
		st->enq_bytes += cs.enq_bytes;
		st->sent_pkts += cs.sent_pkts;
		st->sent_bytes += cs.sent_bytes;
		for (unsigned r = 0; r < XTX_DROP__MAX; r++)
			st->drops[r] += cs.drops[r];
		st->borrows += cs.borrows;
		st->throttled += cs.throttled;
		st->qlen += cs.qlen;
		st->flows += cs.flows;
		st->backlog += cs.backlog;
		st->room_budget = cs.room_budget == UINT32_MAX || st->room_budget == UINT32_MAX ?
				  UINT32_MAX : st->room_budget + cs.room_budget;
		st->room_closes += cs.room_closes;
		st->ecn_marks += cs.ecn_marks;
		st->tokens = cs.tokens;		/* of the last queue: per-queue by nature */
		st->ctokens = cs.ctokens;
	}
	return 0;
}

void xtx_engine__producer_totals(const struct xtx_engine *e, struct xtx_producer_stats *st)
{
	xtx_registry__totals(&((struct xtx_engine *)e)->reg, st);
}

int xtx_engine__reap(struct xtx_engine *e)
{
	return xtx_registry__reap(&e->reg, 0);
}

void xtx_engine__frames(const struct xtx_engine *e, struct xtx_frame_count *fc)
{
	struct xtx_engine *me = (struct xtx_engine *)e;

	memset(fc, 0, sizeof(*fc));
	fc->total = e->fr.count;
	fc->pool = (uint64_t)CTR_GET(me->pool.frames);
	xtx_registry__frames(&me->reg, &fc->cached, &fc->app, &fc->chained);
	for (unsigned i = 0; i < e->nq; i++) {
		const struct xtx_queue *q = &e->q[i];
		struct xtx_mpsc_stats ms;
		struct xtx_queue_stats qs;
		uint64_t dropped = 0;

		xtx_mpsc__stats(q->deq.stage, &ms);
		xtx_engine__queue_stats(e, i, &qs);
		for (unsigned r = 0; r < XTX_DROP__MAX; r++)
			dropped += qs.drops[r];
		fc->stage += ms.enq_items - ms.deq_items;
		fc->tx += CTR_GET(q->deq.ctr.tx_descs) - qs.completed;
		fc->chained -= CTR_GET(q->deq.ctr.chain_out);
		fc->dequeuer += CTR_GET(q->deq.ctr.held);
		/* Taken from the stage and neither sent nor dropped: in the scheduler. Drops
		 * come from the class snapshot, so this is exact when the dequeuer is idle. */
		fc->sched += qs.stage_pkts - qs.sent_pkts - dropped;
	}
	for (unsigned i = 0; i < e->nrq; i++) {
		const struct xtx_rxq *r = &e->rq[i];

		fc->receiver += CTR_GET(r->w.ctr.held);
		if (!e->rx_copy)	/* engine frames lent to the kernel, not back yet */
			fc->fill += CTR_GET(r->w.ctr.filled) - CTR_GET(r->w.ctr.rx_pkts) -
				    CTR_GET(r->w.ctr.reclaimed);
	}
}

/* --- receive side -------------------------------------------------------------------- */

unsigned xtx_engine__rx_queues(const struct xtx_engine *e)
{
	return e->nrq;
}

int xtx_engine__rx_socket(const struct xtx_engine *e, unsigned rq, uint32_t *qid)
{
	if (rq >= e->nrq)
		return -ENOENT;
	if (qid)
		*qid = e->rq[rq].qid;
	return e->rq[rq].xsk ? e->rq[rq].w.fd : -EBADF;
}

static const char *const rx_drop_names[XTX_RX_DROP__MAX] = {
	[XTX_RX_DROP_STAGE_FULL] = "stage_full",
	[XTX_RX_DROP_NO_FRAME] = "no_frame",
	[XTX_RX_DROP_BAD_DESC] = "bad_desc",
};
_Static_assert(XTX_RX_DROP__MAX == 3, "a name for every enum xtx_rx_drop_reason");

const char *xtx_rx_drop_reason__str(enum xtx_rx_drop_reason r)
{
	return (unsigned)r < XTX_RX_DROP__MAX ? rx_drop_names[r] : NULL;
}

static const char *const rx_path_names[] = {
	[XTX_RX_PATH_NONE] = "none",
	[XTX_RX_PATH_SHARED] = "shared UMEM",
	[XTX_RX_PATH_COPY] = "copy",
};
_Static_assert(sizeof(rx_path_names) / sizeof(rx_path_names[0]) == XTX_RX_PATH_COPY + 1,
	       "a name for every enum xtx_rx_path");

const char *xtx_rx_path__str(enum xtx_rx_path path)
{
	return (unsigned)path <= XTX_RX_PATH_COPY ? rx_path_names[path] : NULL;
}

enum xtx_rx_path xtx_engine__rx_path_kind(const struct xtx_engine *e)
{
	return !e->nrq ? XTX_RX_PATH_NONE : e->rx_copy ? XTX_RX_PATH_COPY : XTX_RX_PATH_SHARED;
}

const char *xtx_engine__rx_path(const struct xtx_engine *e)
{
	enum xtx_rx_path path = xtx_engine__rx_path_kind(e);

	return path == XTX_RX_PATH_NONE ? NULL : xtx_rx_path__str(path);
}

int xtx_engine__rx_stats(const struct xtx_engine *e, unsigned rq, struct xtx_rx_stats *st)
{
	struct xtx_engine *me = (struct xtx_engine *)e;
	struct xtx_rxq *r;

	if (rq >= e->nrq)
		return -ENOENT;
	r = &me->rq[rq];
	pthread_mutex_lock(&me->rx_lock);
	xtx_rx_read_kstats(r);		/* nothing once the socket is closed: kept */
	*st = r->kst;
	pthread_mutex_unlock(&me->rx_lock);
	st->rx_pkts = CTR_GET(r->w.ctr.rx_pkts);
	st->rx_bytes = CTR_GET(r->w.ctr.rx_bytes);
	st->fwd_pkts = CTR_GET(r->w.ctr.fwd_pkts);
	st->fwd_bytes = CTR_GET(r->w.ctr.fwd_bytes);
	for (unsigned k = 0; k < XTX_RX_DROP__MAX; k++)
		st->drops[k] = CTR_GET(r->w.ctr.drops[k]);
	st->no_meta = CTR_GET(r->w.ctr.no_meta);
	st->reclaimed = CTR_GET(r->w.ctr.reclaimed);
	st->copied = CTR_GET(r->w.ctr.copied);
	st->wakeups = CTR_GET(r->w.ctr.wakeups);
	st->sleeps = CTR_GET(r->w.ctr.sleeps);
	st->loops = CTR_GET(r->w.ctr.loops);
	return 0;
}
