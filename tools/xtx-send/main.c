/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx-send - the sender a user runs on a real NIC: UDP flows from N producer threads
 * through the xtx engine (stage -> HTB/FQ scheduler -> AF_XDP TX ring). See --help. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <xtx/pkt.h>
#include <xtx/xtx.h>

#include "caps.h"
#include "cli.h"
#include "doctor_checks.h"
#include "xdpattach.h"
#include "json.h"
#include "neigh.h"
#include "netdev.h"
#include "opts.h"
#include "pace.h"

#define BURST 32

/* imix: templates of 60, 590 and 1514 bytes, sent in this order (7:4:1) by every flow. */
static const uint16_t imix_len[3] = { 60, 590, 1514 };
static const uint8_t imix_pattern[12] = { 0, 1, 0, 0, 1, 0, 2, 0, 1, 0, 0, 1 };

static struct send_opts o;
static struct xtx_engine *eng;
static _Atomic int stop_req;		/* SIGINT/SIGTERM or end of duration */
static volatile sig_atomic_t got_signal;
static uint16_t flow_cls[65536];	/* class index of flow i */
static uint32_t flow_hash[65536];
static bool use_room;			/* some leaf has a room target: ask before building */
static unsigned segs = 1;		/* UMEM frames per packet: more than 1 for jumbo
					 * frames (multi-buffer) */
static uint32_t room;			/* bytes a UMEM frame holds (frame room) */

struct tmpl {
	uint8_t frame[9216];
	struct xtx_pkt_layout l;
	uint32_t len;
};

/* --rate, per producer. Each flow is paced at R/F whatever the producer count: a
 * producer that owns k of the F flows paces its own stream at k*R/F and sends its flows
 * in turn, so each flow gets every k-th packet of it, R/F. The gap after a packet of
 * template i is gap[i] (packet rate: 1e9*F / (R*k); frame-byte rate: len*1e9*F /
 * (R*k)), carried exactly (pace.h). */
struct pace {
	uint64_t next_ns;		/* departure of the next packet, CLOCK_MONOTONIC */
	uint64_t rem;			/* fraction of a ns carried, in 1/den; < den */
	uint64_t den;			/* R*k (pps or bytes/s); 0 = not paced */
	struct pace_gap gap[3];		/* per template */
};

struct prod {
	pthread_t th;
	unsigned id;
	uint64_t quota;			/* packets to offer with --count: its flows' shares */
	uint64_t offered;
	uint64_t cpu_ns;		/* the thread's CPU time, written before done */
	_Atomic int done;
	int err;
};

static struct prod prods[MAX_PRODUCERS];
static unsigned nprod;
static uint64_t stop_flows_ns;		/* --stop-flows: CLOCK_MONOTONIC; 0: none */

static void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
	/* Relaxed: a flag polled by every thread; lock-free atomics are signal-safe. */
	atomic_store_explicit(&stop_req, 1, memory_order_relaxed);
}

static int build_tmpl(struct tmpl *t, uint32_t len)
{
	struct xtx_pkt_udp_opts po = { .sz = sizeof(po), .src_port = o.src_port,
				       .dst_port = o.dst_port, .frame_len = len };
	int n;

	memcpy(po.dst_mac, o.dst_mac, 6);
	memcpy(po.src_mac, o.src_mac, 6);
	if (o.family == AF_INET) {
		memcpy(&po.src4, o.src_ip, 4);
		memcpy(&po.dst4, o.dst_ip, 4);
		n = xtx_pkt__build_udp4(t->frame, sizeof(t->frame), &po);
	} else {
		memcpy(&po.src6, o.src_ip, 16);
		memcpy(&po.dst6, o.dst_ip, 16);
		n = xtx_pkt__build_udp6(t->frame, sizeof(t->frame), &po);
	}
	if (n < 0 || xtx_pkt__parse_udp(t->frame, (size_t)n, &t->l, NULL))
		return -EINVAL;
	if (o.tx_csum)		/* the device completes it; rewrites leave it */
		xtx_pkt__udp_csum_partial(t->frame, &t->l);
	t->len = (uint32_t)n;
	xtx_pkt__set_payload(t->frame, &t->l, 0, 0, 0);
	return 0;
}

/* Per template, the gap of a packet at rate den (pps if per_pkt, else frame bytes/s)
 * for a stream that has mul / k of it: (1 or len) * 1e9 * mul / den. */
static void tmpl_gaps(struct pace_gap *gap, const struct tmpl *t, unsigned ntmpl,
		      bool per_pkt, uint32_t mul, uint64_t den)
{
	for (unsigned i = 0; i < ntmpl; i++)
		/* <= 4032 * 1e9 * 65535 < 2^58 */
		gap[i] = pace_gap((per_pkt ? 1 : t[i].len) * 1000000000ull * mul, den);
}

/* pc for a producer of k flows with templates t[0..ntmpl), starting now. R*k >= 2^63
 * (a gap under 1e-5 ns) is not paced: as fast as it goes. */
static void pace_init(struct pace *pc, const struct tmpl *t, unsigned ntmpl, uint32_t k)
{
	unsigned __int128 den = (unsigned __int128)(o.rate_pps ? o.rate_pps : o.rate_bps) * k;

	memset(pc, 0, sizeof(*pc));
	pc->next_ns = cli_now_ns(CLOCK_MONOTONIC);
	if (!den || den >= (unsigned __int128)1 << 63)
		return;
	pc->den = (uint64_t)den;
	tmpl_gaps(pc->gap, t, ntmpl, o.rate_pps != 0, o.flows, pc->den);
}

/* --flow-rate: a paced flow's next departure, and the fraction of a ns carried (< den).
 * Each flow of the group departs every (frame bytes or 1) * 1e9 * n / R ns (pace.h). */
struct frpace {
	uint64_t due, rem;
};

/* Flow f is in --flow-rate's group (precondition: --flow-rate given). */
static inline bool fr_paced(uint32_t f)
{
	return f >= o.fr_first && f <= o.fr_last;
}

/* --stop-flows: drop flows stop_first..stop_last from flows[0..*n) (and their seq, imix
 * and pacing state), keeping the others' order; *fi follows the flow it pointed at, or
 * the next. */
static void stop_flows(uint32_t *flows, uint64_t *seq, uint8_t *pat, struct frpace *fr,
		       uint32_t *n, uint32_t *fi)
{
	uint32_t k = 0, nfi = 0;

	for (uint32_t i = 0; i < *n; i++) {
		if (i == *fi)
			nfi = k;
		if (flows[i] >= o.stop_first && flows[i] <= o.stop_last)
			continue;
		flows[k] = flows[i];
		seq[k] = seq[i];
		fr[k] = fr[i];
		pat[k++] = pat[i];
	}
	*n = k;
	*fi = nfi < k ? nfi : 0;
}

static uint64_t count_share, count_extra;	/* --count / --flows, and the remainder */

/* --count: flow f's share of the packets, as --help promises. */
static inline uint64_t flow_share(uint32_t f)
{
	return count_share + (f < count_extra);
}

/* send_burst, and when a class without room stopped it, again with the descriptors of
 * the flows that have room (room is per class and queue, and per flow): a held flow
 * never holds the others back, its class's flows on other queues included. The ones not
 * taken are left in d[0..n - taken) in their order. Returns how many were taken. */
/* A jumbo frame (segs > 1) from template tp: room bytes into frame fr (its first), the
 * rest room bytes at a time into the frames at more[0..segs-1). */
static void build_chain(uint8_t *fr, const struct tmpl *tp, const uint64_t *more)
{
	memcpy(fr, tp->frame, room);
	for (unsigned s = 1; s < segs; s++) {
		uint32_t off = s * room, n = tp->len - off < room ? tp->len - off : room;

		memcpy(xtx_engine__frame(eng, more[s - 1]), tp->frame + off, n);
	}
}

/* A packet built and not taken back to the producer's frames, a jumbo one's with it. */
static void put_packet(struct xtx_producer *p, const struct xtx_desc *d)
{
	uint64_t a[XTX_MB_MAX_SEGS];

	a[0] = d->addr & XTX_DESC_ADDR_MASK;
	if (segs > 1)
		memcpy(a + 1, (uint8_t *)xtx_engine__frame(eng, d->addr) - XTX_MB_CHAIN_OFF,
		       (segs - 1) * sizeof(a[0]));
	xtx_producer__put_frames(p, a, segs);
}

static unsigned send_room_first(struct xtx_producer *p, struct xtx_desc *d, unsigned n)
{
	struct xtx_desc held[BURST];
	unsigned taken = 0;

	for (int round = 0; round < 2 && n; round++) {
		unsigned k = xtx_producer__send_burst(p, d, n), nh = 0, nr = 0;

		taken += k;
		memmove(d, d + k, (n - k) * sizeof(*d));
		n -= k;
		if (!n || xtx_producer__room(p, d[0].cls, d[0].hash))
			break;	/* all taken, or the stage was full */
		for (unsigned i = 0; i < n; i++) {	/* stable: room first, then held */
			bool hold = !xtx_producer__room(p, d[i].cls, d[i].hash);

			/* A flow held once stays held in this pass (its room may change
			 * meanwhile; a flow's packets must not pass each other). */
			for (unsigned j = 0; j < nh && !hold; j++)
				hold = held[j].cls == d[i].cls && held[j].hash == d[i].hash;
			if (hold)
				held[nh++] = d[i];
			else
				d[nr++] = d[i];
		}
		memcpy(d + nr, held, nh * sizeof(*d));
		if (!nr)
			break;
	}
	return taken;
}

/* Whether flow f may add a packet of len bytes: reserved for it, or asked. */
static inline bool room_for(struct xtx_producer *p, uint32_t f, uint32_t len, bool reserve)
{
	return reserve ? xtx_producer__room_reserve(p, flow_cls[f], flow_hash[f], len) :
			 xtx_producer__room(p, flow_cls[f], flow_hash[f]);
}

/* Offer packets of this producer's flows (flow f with f % nprod == id), in order per flow,
 * one flow after the other; with --rate each flow at R/F (struct pace). */
static void *producer_main(void *arg)
{
	struct prod *me = arg;
	struct xtx_producer *p = xtx_producer__open(eng);
	struct tmpl t[3];
	struct pace pc;
	unsigned ntmpl = o.size ? 1 : 3;
	uint32_t nflows = 0, fi = 0, *flows = NULL;
	uint8_t *pat = NULL;		/* per flow: next imix_pattern index */
	struct frpace *frp = NULL;	/* per flow: --flow-rate departures */
	const bool fr_on = o.fr_pps || o.fr_bps;
	const uint64_t fr_den = o.fr_pps ? o.fr_pps : o.fr_bps;
	struct pace_gap fr_gap[3];
	uint64_t *seq = NULL, addrs[BURST * XTX_MB_MAX_SEGS];
	struct xtx_desc d[BURST];
	unsigned pending = 0;	/* d[0..pending) built but not taken yet */
	int held;		/* this round found every flow's class without room */
	const bool may_skip = o.count || use_room || fr_on;	/* flows may be passed over */
	/* An unpaced flow's room is reserved per packet as it is built (a round then
	 * holds only what the room takes); a paced one's (--rate: every flow; --flow-rate:
	 * those it names) is asked: passed over for room, it would hand its turn, and its
	 * share of the pace, to another flow. */
	bool pace_all;
	uint64_t stop_ns = stop_flows_ns;

	if (!p) {
		me->err = errno;
		goto out;
	}
	for (unsigned i = 0; i < ntmpl; i++)
		if (build_tmpl(&t[i], o.size ? o.size : imix_len[i])) {
			me->err = EINVAL;
			goto out;
		}
	flows = calloc(o.flows / nprod + 1, sizeof(*flows));
	seq = calloc(o.flows / nprod + 1, sizeof(*seq));
	pat = calloc(o.flows / nprod + 1, sizeof(*pat));
	frp = calloc(o.flows / nprod + 1, sizeof(*frp));
	if (!flows || !seq || !pat || !frp) {
		me->err = ENOMEM;
		goto out;
	}
	for (uint32_t f = me->id; f < o.flows; f += nprod)
		flows[nflows++] = f;
	pace_init(&pc, t, ntmpl, nflows);
	pace_all = pc.den != 0;
	if (fr_on)
		tmpl_gaps(fr_gap, t, ntmpl, o.fr_pps != 0, o.fr_last - o.fr_first + 1, fr_den);
	for (uint32_t i = 0; fr_on && i < nflows; i++)
		frp[i].due = cli_now_ns(CLOCK_MONOTONIC);

	/* Relaxed: a stop flag polled each burst. */
	while (!atomic_load_explicit(&stop_req, memory_order_relaxed) && nflows &&
	       (!o.count || me->offered < me->quota)) {
		unsigned want = BURST, k;
		uint64_t now = 0, next_due = UINT64_MAX;	/* the earliest paced flow's */
		uint32_t rw_cls = 0, rw_hash = 0;	/* a flow passed over for room */
		bool rw = false;

		if (o.count && me->quota - me->offered < want)
			want = (unsigned)(me->quota - me->offered);
		if (pc.den || o.stamp || stop_ns || fr_on)
			now = cli_now_ns(CLOCK_MONOTONIC);
		if (stop_ns && now >= stop_ns) {
			/* No new frame of a stopped flow; those built (at most a burst) go on,
			 * unless no flow of this producer does (given back below). */
			stop_ns = 0;
			stop_flows(flows, seq, pat, frp, &nflows, &fi);
			if (!nflows)
				break;
			pace_init(&pc, t, ntmpl, nflows);
		}
		if (pc.den) {
			/* Credit up to one burst; never more than PACE_LAG_NS of lag. */
			pace_catch_up(&pc.next_ns, now);
			if (pc.next_ns > now) {
				if (pc.next_ns - now > 50000)
					pace_nap(pc.next_ns, now);
				continue;
			}
		}
		held = 0;
		if (pending < want) {
			unsigned got = xtx_producer__get_frames(p, addrs, (want - pending) * segs), i;

			for (i = 0; i + segs <= got; i += segs) {
				uint32_t f = flows[fi], tries = 0;
				unsigned ti;
				const struct tmpl *tp;
				uint8_t *fr;

				/* Only flows whose class has room (xtx_producer__room()): a
				 * held class's packets are not built, and the others go on;
				 * with --count only flows short of their share (skipping
				 * held ones must not move packets between flows); with
				 * --flow-rate a paced flow only once it is due. */
				while (may_skip && tries < nflows) {
					bool paced = fr_on && fr_paced(f) && frp[fi].due > now;
					bool done = o.count && seq[fi] >= flow_share(f);
					bool held_room = !paced && !done && use_room &&
							 !room_for(p, f, t[ntmpl > 1 ?
								imix_pattern[pat[fi]] : 0].len,
								!pace_all && !(fr_on && fr_paced(f)));

					if (!paced && !held_room && !done)
						break;
					if (paced && frp[fi].due < next_due)
						next_due = frp[fi].due;
					if (held_room) {
						rw = true;
						rw_cls = flow_cls[f];
						rw_hash = flow_hash[f];
					}
					fi = fi + 1 == nflows ? 0 : fi + 1;
					f = flows[fi];
					tries++;
				}
				if (__builtin_expect(tries == nflows, 0)) {
					held = 1;
					break;
				}
				ti = ntmpl > 1 ? imix_pattern[pat[fi]] : 0;
				tp = &t[ti];
				fr = xtx_engine__frame(eng, addrs[i]);

				pat[fi] = pat[fi] + 1 == 12 ? 0 : pat[fi] + 1;
				if (__builtin_expect(segs > 1, 0))
					build_chain(fr, tp, addrs + i + 1);
				else
					memcpy(fr, tp->frame, tp->len);
				xtx_pkt__set_udp_dport(fr, &tp->l, (uint16_t)(o.dst_port + f));
				xtx_pkt__set_payload(fr, &tp->l, f, seq[fi]++, o.stamp ? now : 0);
				d[pending++] = (struct xtx_desc){ .addr = addrs[i], .len = (uint16_t)tp->len,
								  .hash = flow_hash[f],
								  .cls = flow_cls[f] };
				if (o.tx_csum)
					xtx_desc__set_txmd(&d[pending - 1], fr, XTX_TXMD_CSUM,
							   tp->l.l4_off, 6);
				if (segs > 1)
					xtx_desc__set_chain(&d[pending - 1], fr, addrs + i + 1,
							    segs - 1);
				if (pc.den)
					pace_step(&pc.next_ns, &pc.rem, pc.gap[ti], pc.den);
				if (fr_on && fr_paced(f)) {
					pace_catch_up(&frp[fi].due, now);
					pace_step(&frp[fi].due, &frp[fi].rem, fr_gap[ti], fr_den);
				}
				fi = fi + 1 == nflows ? 0 : fi + 1;
			}
			if (i < got)	/* every flow's class is held: not built */
				xtx_producer__put_frames(p, addrs + i, got - i);
		}
		k = pending ? send_room_first(p, d, pending) : 0;
		me->offered += k;
		pending -= k;
		/* Back-pressure, when nothing was taken or the stage was full: sleep until the
		 * engine made room, for a class without it (1 ms at most: another class may
		 * get room first; any class getting room wakes us), else for frames or stage
		 * space. A round that sent something and holds only packets of classes
		 * without room goes on building for the others. */
		if (k && !(pending && xtx_producer__room(p, d[0].cls, d[0].hash)))
			continue;
		if (pending && !xtx_producer__room(p, d[0].cls, d[0].hash))
			xtx_producer__wait_room(p, d[0].cls, d[0].hash, 1000 * 1000);
		else if (held && !pending && fr_on && !rw)
			pace_nap(next_due, now);	/* every flow paced, none due */
		else if (held && !pending && fr_on)
			xtx_producer__wait_room(p, rw_cls, rw_hash,
						next_due - now < 1000000 ? next_due - now : 1000000);
		else if (held && !pending)
			xtx_producer__wait_room(p, flow_cls[flows[fi]], flow_hash[flows[fi]],
						1000 * 1000);
		else
			xtx_producer__wait(p, 10 * 1000 * 1000);
	}
	/* Stopped early with frames built but not taken: give them back (not offered). */
	for (unsigned i = 0; i < pending; i++)
		put_packet(p, &d[i]);
out:
	free(flows);
	free(seq);
	free(pat);
	free(frp);
	if (p)
		xtx_producer__close(p);
	me->cpu_ns = cli_now_ns(CLOCK_THREAD_CPUTIME_ID);
	/* Release, pairs with main's acquire load: offered and cpu_ns are final. */
	atomic_store_explicit(&me->done, 1, memory_order_release);
	return NULL;
}

struct totals {
	uint64_t sent, bytes, drops[XTX_DROP__MAX], dropped;
	uint64_t moved;		/* to the default class by live changes (xtx-ctl class del) */
};

static void totals(struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned q = 0; q < xtx_engine__queues(eng); q++) {
		struct xtx_queue_stats qs;

		xtx_engine__queue_stats(eng, q, &qs);
		t->sent += qs.sent_pkts;
		t->bytes += qs.sent_bytes;
		t->moved += qs.moved;
		for (int r = 0; r < XTX_DROP__MAX; r++) {
			t->drops[r] += qs.drops[r];
			t->dropped += qs.drops[r];
		}
	}
}

/* --- setup ---------------------------------------------------------------------------- */

/* What main() sets up, watches and reports. */
struct run {
	struct xtx_sched_config *cfg;	/* --classes; NULL: one class, no limit */
	uint32_t leaves[XTX_CLASS_MAX];	/* class indexes of the leaves, in file order */
	unsigned nleaves;
	int ifindex;			/* of --dev when the run started; 0: null device */
	bool null;			/* --dev null or null:RATE */
	uint64_t t0;			/* CLOCK_MONOTONIC ns at the start */
	/* results */
	bool dev_gone;			/* --dev disappeared during the run */
	uint64_t offered;		/* packets the producers handed over */
	int perr;			/* errno of a failed producer, 0 if none */
	int stop_rc;			/* xtx_engine__stop() */
	double secs, cpu;		/* run time and process CPU time, seconds */
	uint64_t prod_cpu_ns, deq_cpu_ns;	/* the producers' and dequeuers' threads */
	bool doctored;			/* doctor holds xtx-doctor's line of --dev */
	struct doctor_line doctor;
};

/* Leaf l's counters, found by its handle in the running tree (a live change may have
 * moved or removed it: xtx-ctl class del); false, and zeros, once it is gone. */
static int leaf_slot(const struct run *r, unsigned l)
{
	return r->cfg ? xtx_engine__class_index(eng, xtx_sched_config__class(r->cfg,
						r->leaves[l])->handle) : (int)r->leaves[l];
}

static bool leaf_stats(const struct run *r, unsigned l, struct xtx_class_stats *cs)
{
	int slot = leaf_slot(r, l);

	memset(cs, 0, sizeof(*cs));
	return slot >= 0 && !xtx_engine__class_stats(eng, (unsigned)slot, cs);
}

/* "departure": leaf l's conformance (--tx-timestamps), or null. */
static void print_json_departure(struct jsonw *w, const struct run *r, unsigned l)
{
	struct xtx_departure_stats ds;
	int slot = leaf_slot(r, l);

	jsonw_name(w, "departure");
	if (slot < 0 || xtx_engine__class_departures(eng, (unsigned)slot, &ds)) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_uint_field(w, "samples", ds.samples);
	jsonw_uint_field(w, "early", ds.early);
	jsonw_uint_field(w, "invalid", ds.invalid);
	jsonw_uint_field(w, "p50_ns", ds.p50_ns);
	jsonw_uint_field(w, "p99_ns", ds.p99_ns);
	jsonw_uint_field(w, "max_ns", ds.max_ns);
	jsonw_end_object(w);
}

/* --classes into r->cfg and its leaves (classes that are nobody's parent); without it
 * one leaf, index 0. Returns 0, or 2 after printing the file's error. */
static int load_classes(struct run *r)
{
	char err[1024];
	unsigned n;

	if (!o.classes) {
		r->leaves[r->nleaves++] = 0;
		return 0;
	}
	r->cfg = xtx_sched_config__parse_file(o.classes, err, sizeof(err));
	if (!r->cfg) {
		fprintf(stderr, "xtx-send: %s\n", err);
		return 2;
	}
	n = xtx_sched_config__class_count(r->cfg);
	for (unsigned i = 0; i < n; i++)
		if (xtx_sched_config__is_leaf(r->cfg, xtx_sched_config__class(r->cfg, i)->handle) == 1)
			r->leaves[r->nleaves++] = (uint32_t)i;
	return 0;
}

/* The null device's defaults for the addresses not given (there is no route to ask):
 * 02:00:00:00:00:01 -> 02:00:00:00:00:02, from 198.18.0.1 or 2001:2::1. */
static int null_addresses(void)
{
	static const uint8_t src4[4] = { 198, 18, 0, 1 };
	static const uint8_t src6[16] = { 0x20, 0x01, 0x00, 0x02, [15] = 1 };

	if (!o.have_src_mac)
		memcpy(o.src_mac, (uint8_t[6]){ 2, 0, 0, 0, 0, 1 }, 6);
	if (!o.have_dst_mac)
		memcpy(o.dst_mac, (uint8_t[6]){ 2, 0, 0, 0, 0, 2 }, 6);
	if (!o.have_src_ip)
		memcpy(o.src_ip, o.family == AF_INET ? src4 : src6, o.family == AF_INET ? 4 : 16);
	return 0;
}

/* The addresses not given: --src-mac from --dev, --dst-mac and --src-ip as the kernel
 * would route to --dst-ip. Returns 0, or 1 after printing why. */
static int resolve_addresses(int ifindex)
{
	struct nexthop nh;
	char err[512];
	int need_mac = !o.have_dst_mac, rc;

	if (!ifindex)
		return null_addresses();

	if (!o.have_src_mac) {
		rc = netdev_mac(o.dev, o.src_mac);
		if (rc) {
			fprintf(stderr, "xtx-send: cannot read the MAC address of %s: %s; pass "
				"--src-mac\n", o.dev, strerror(-rc));
			return 1;
		}
	}
	if (!need_mac && o.have_src_ip)
		return 0;
	rc = nexthop_resolve(o.family, o.dst_ip, o.have_dst_mac ? 0 : ifindex, need_mac, 3000,
			     &nh, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "xtx-send: %s\n", err);
		return 1;
	}
	if (need_mac)
		memcpy(o.dst_mac, nh.mac, 6);
	if (!o.have_src_ip)
		memcpy(o.src_ip, nh.src, o.family == AF_INET ? 4 : 16);
	return 0;
}

/* Flow f's class (the leaves round robin, in file order) and its hash (the scheduler's
 * fq key and the queue it goes to). */
static void assign_flows(const struct run *r)
{
	for (uint32_t f = 0; f < o.flows; f++) {
		uint32_t s4, d4;

		flow_cls[f] = (uint16_t)r->leaves[f % r->nleaves];
		memcpy(&s4, o.src_ip, 4);
		memcpy(&d4, o.dst_ip, 4);
		flow_hash[f] = o.family == AF_INET ?
			xtx_pkt__flow_hash4(s4, d4, o.src_port, (uint16_t)(o.dst_port + f), 17, 0) :
			(uint32_t)(f * 2654435761u);
	}
}

/* --size against --dev's MTU: a longer frame leaves, and the peer drops it. Returns 0, or
 * 2 after the message (1 if the MTU cannot be read). */
static int check_mtu(void)
{
	uint32_t most = o.size ? o.size : 1514;
	int mtu = 0, rc = netdev_mtu(o.dev, &mtu);

	if (rc) {
		fprintf(stderr, "xtx-send: cannot read the MTU of %s: %s\n", o.dev, strerror(-rc));
		return 1;
	}
	if (most <= (uint32_t)mtu + 14)
		return 0;
	fprintf(stderr, "xtx-send: bad value '%u' for --size: %s's MTU %d takes frames of up to "
		"%d bytes; raise it (ip link set %s mtu %u) or send smaller frames\n", most, o.dev,
		mtu, mtu + 14, o.dev, most - 14);
	return 2;
}

/* xtx-doctor's checks of --dev for this run's options, its line on stderr (with --json,
 * in the summary instead). */
static void run_doctor(struct run *r)
{
	struct doctor_opts d = {
		.queues = o.queues, .cpus = o.cpus, .busy_poll = o.busy_poll || o.sock_busy_poll,
		.zero_copy = o.mode == XTX_MODE_ZEROCOPY, .zc_prog_off = o.zc_prog == XTX_ZC_PROG_OFF,
		.tx_csum = o.tx_csum, .tx_timestamps = o.tx_timestamps != 0,
		.frame_len = o.size ? o.size : 1514,
		/* the engine's frame size for --size, less its 64 bytes of headroom */
		.frame_room = (o.size > 1984 ? 4096 : 2048) - 64,
	};

	doctor_check_iface(o.dev, &d, &r->doctor);
	r->doctored = true;
	if (!o.json)
		fprintf(stderr, "xtx-send: xtx-doctor %s (xtx-doctor %s for the fixes; --no-doctor "
			"skips this)\n", r->doctor.text, o.dev);
}

/* In zero-copy mode the device, not the kernel, acts on TX metadata: xtx-doctor's
 * tx-metadata check for this run's --tx-csum and --tx-timestamps (doctor_txmd()). A fail
 * (--tx-csum on without the device's tx-checksum) stops the run. Returns 0, or 2 after
 * the message. */
static int check_zc_metadata(void)
{
	struct doctor_opts d = { .tx_csum = o.tx_csum, .tx_timestamps = o.tx_timestamps != 0 };
	struct facts f = { 0 };
	char detail[512], fix[256];
	enum doctor_status st;

	if (xtx_engine__xdp_mode(eng) != XTX_MODE_ZEROCOPY || (o.tx_csum != 1 && !o.tx_timestamps))
		return 0;
	facts_collect(&f, o.dev);
	st = doctor_txmd(&f, &d, detail, sizeof(detail), fix, sizeof(fix));
	facts_free(&f);
	if (st != DOCTOR_PASS)
		fprintf(stderr, "xtx-send: %s%s: %s%s%s\n", st == DOCTOR_FAIL ? "" : "warning: ",
			o.dev, detail, fix[0] ? "; " : "", fix);
	return st == DOCTOR_FAIL ? 2 : 0;
}

/* The engine on --dev. Returns 0, or the exit status after printing why: 2 for what the
 * options asked (EINVAL), 1 for what the system refused. */
static int open_engine(const struct run *r)
{
	struct xtx_engine_opts eo = {
		.sz = sizeof(eo), .ifname = o.dev, .queues = o.queues, .first_queue = o.first_queue,
		.frame_size = o.size > 1984 ? 4096 : 2048, .frame_count = o.frames,
		.mode = (enum xtx_xdp_mode)o.mode, .zc_prog = (enum xtx_zc_prog)o.zc_prog,
		.tx_metadata = o.tx_csum || o.tx_timestamps, .tx_sw_csum = o.tx_csum == 2,
		.multi_buffer = o.size > 4032,
		.tx_timestamps = o.tx_timestamps,
		.sock_busy_poll = o.sock_busy_poll,
		.busy_poll = o.busy_poll, .cpus = o.cpus,
		.queue_classes = o.queue_classes,
		.classes = r->cfg, .drain_timeout_ns = (uint64_t)(o.drain * 1e9) + 1,
		.drop_on_close = o.drop, .quiet = o.json,
		.target_ns = o.target_ns,
	};
	char err[1024];

	use_room = o.target_ns != XTX_TARGET_OFF;
	for (unsigned c = 0; r->cfg && c < xtx_sched_config__class_count(r->cfg); c++) {
		uint64_t t = xtx_sched_config__class(r->cfg, c)->target;

		use_room |= t && t != XTX_TARGET_OFF;
	}
	eng = xtx_engine__open(&eo, err, sizeof(err));
	if (eng) {
		room = xtx_engine__frame_room(eng);
		segs = o.size > room ? (o.size + room - 1) / room : 1;
		if (check_zc_metadata()) {
			xtx_engine__close(eng);
			eng = NULL;
			return 2;
		}
		return 0;
	}
	fprintf(stderr, "xtx-send: %s\n", err);
	return errno == EINVAL ? 2 : 1;
}

/* Least privilege: once the engine is open (socket bound, UMEM registered) nothing needs
 * a capability any more (sending is sendto() on our own socket; teardown is close and
 * munmap), but for the pass program of --zc-prog: its removal at close needs
 * CAP_NET_ADMIN, and CAP_SYS_ADMIN behind libxdp's dispatcher (programs looked up by id).
 * A failure is only a warning. */
static void drop_privileges(void)
{
	int disp = 0, rc;

	rc = caps_keep(xtx_engine__zc_prog(eng, NULL, &disp) ? CAPS_BIT(CAP_NET_ADMIN) |
		       (disp ? CAPS_BIT(CAP_SYS_ADMIN) : 0) : 0);

	if (rc && !o.json)
		fprintf(stderr, "xtx-send: warning: could not drop capabilities: %s\n",
			strerror(-rc));
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* The producer count (at most one per flow: a flow stays with one producer, in order),
 * with the notes on what the options mean for this run. */
static void plan_producers(const struct run *r)
{
	if (r->cfg && o.queues > 1 && o.queue_classes && !o.json)
		fprintf(stderr, "xtx-send: note: --queue-classes: each of the %u TX queues applies "
			"every class's rate and ceil on its own (flows are spread over queues by "
			"hash)\n", o.queues);
	nprod = o.producers;
	if (nprod > o.flows) {
		if (!o.json)
			fprintf(stderr, "xtx-send: %u producers but %u flow(s): using %u producer(s), "
				"one flow stays with one producer to keep its order\n", nprod,
				o.flows, o.flows);
		nprod = o.flows;
	}
}

static void stop_producers(void);

/* --producer-cpus: pin producer i to the (i mod n)-th CPU of the list before the threads
 * start, through an attribute each. Returns 0, or 1 after printing a refused CPU. */
static int pin_producers(pthread_attr_t *attr)
{
	for (unsigned i = 0; i < nprod; i++) {
		cpu_set_t set;
		int cpu = o.prod_cpus[i % (unsigned)o.nprod_cpus], rc;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_init(&attr[i]);
		rc = pthread_attr_setaffinity_np(&attr[i], sizeof(set), &set);
		if (rc) {
			fprintf(stderr, "xtx-send: --producer-cpus: cannot pin producer %u to CPU "
				"%d: %s\n", i, cpu, strerror(rc));
			return 1;
		}
	}
	return 0;
}

/* Start the producers. With --count, flow f's share is count/F, one more for f < count
 * % F; a producer offers its flows' shares (they go round robin, lowest f first, so each
 * flow gets its own share exactly). */
static int start_producers(void)
{
	uint64_t share = count_share = o.count / o.flows, extra = count_extra = o.count % o.flows;
	static pthread_attr_t attr[MAX_PRODUCERS];

	if (o.nprod_cpus && pin_producers(attr))
		return 1;

	for (unsigned i = 0; i < nprod; i++) {
		uint32_t mine = (o.flows - i + nprod - 1) / nprod;
		int rc;

		prods[i].id = i;
		prods[i].quota = share * mine + (i < extra ? (extra - i + nprod - 1) / nprod : 0);
		rc = pthread_create(&prods[i].th, o.nprod_cpus ? &attr[i] : NULL, producer_main,
				    &prods[i]);
		if (rc) {
			fprintf(stderr, "xtx-send: cannot start producer %u: %s\n", i, strerror(rc));
			stop_producers();
			for (unsigned k = 0; k < i; k++)
				pthread_join(prods[k].th, NULL);
			return 1;
		}
	}
	return 0;
}


/* --- the run --------------------------------------------------------------------------- */

static void stop_producers(void)
{
	/* Relaxed: a stop flag. */
	atomic_store_explicit(&stop_req, 1, memory_order_relaxed);
}

static bool producers_done(void)
{
	unsigned done = 0;

	for (unsigned i = 0; i < nprod; i++)
		/* Acquire, pairs with the producer's release store of done. */
		done += atomic_load_explicit(&prods[i].done, memory_order_acquire);
	return done == nprod;
}

/* Per-interval state of the live line. */
struct live {
	uint64_t last;			/* CLOCK_MONOTONIC ns of the last line */
	struct totals prev;
	uint64_t prev_cls_bytes[XTX_CLASS_MAX];
};

/* The live line on stderr: rates since the last one, per-leaf rates, drops, frames. */
static void print_live(const struct run *r, struct live *lv, uint64_t now)
{
	double dt = (double)(now - lv->last) * 1e-9;
	struct xtx_frame_count lf;
	struct totals cur;

	totals(&cur);
	fprintf(stderr, "%7.1fs %8.3f Mpps %8.3f Gbit/s", (double)(now - r->t0) * 1e-9,
		(double)(cur.sent - lv->prev.sent) / dt * 1e-6,
		(double)(cur.bytes - lv->prev.bytes) * 8 / dt * 1e-9);
	for (unsigned l = 0; l < r->nleaves && r->cfg; l++) {
		struct xtx_class_stats cs;
		char h[XTX_HANDLE_STRLEN];

		leaf_stats(r, l, &cs);
		xtx_handle__str(xtx_sched_config__class(r->cfg, r->leaves[l])->handle, h, sizeof(h));
		fprintf(stderr, "  %s %.1f Mbit/s", h,
			(double)(cs.sent_bytes - lv->prev_cls_bytes[l]) * 8 / dt * 1e-6);
		lv->prev_cls_bytes[l] = cs.sent_bytes;
	}
	xtx_engine__frames(eng, &lf);
	fprintf(stderr, "  drops %lu  frames free %lu in-flight %lu of %lu\n",
		(unsigned long)(cur.dropped - lv->prev.dropped),
		(unsigned long)(lf.pool + lf.cached + lf.dequeuer),
		(unsigned long)(lf.stage + lf.sched + lf.tx + lf.app + lf.chained),
		(unsigned long)lf.total);
	lv->prev = cur;
	lv->last = now;
}

/* Until the producers are done (--count) or the duration ends: stop them at the deadline
 * or when --dev disappears (a veth deleted, a driver unbound: stop and report instead of
 * sending into nothing; checked every 100 ms), and print the live lines. */
static void watch(struct run *r)
{
	uint64_t deadline = o.count ? UINT64_MAX : r->t0 + (uint64_t)(o.duration * 1e9);
	uint64_t last_dev_check = r->t0;
	static struct live lv;

	lv.last = r->t0;
	while (!producers_done()) {
		uint64_t now = cli_now_ns(CLOCK_MONOTONIC);
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (now >= deadline)
			stop_producers();
		if (!r->null && !r->dev_gone && now - last_dev_check >= 100 * 1000 * 1000) {
			last_dev_check = now;
			if ((int)if_nametoindex(o.dev) != r->ifindex) {
				r->dev_gone = true;
				fprintf(stderr, "xtx-send: interface %s disappeared; stopping\n", o.dev);
				stop_producers();
			}
		}
		if (o.interval > 0 && !o.json && now - lv.last >= (uint64_t)(o.interval * 1e9))
			print_live(r, &lv, now);
		nanosleep(&ts, NULL);
	}
}

/* Join the producers, stop the engine (on a vanished device the drain times out; what is
 * left is counted as purged), and take the run's time and CPU time. */
static void finish(struct run *r)
{
	struct rusage ru;

	for (unsigned i = 0; i < nprod; i++) {
		pthread_join(prods[i].th, NULL);
		r->offered += prods[i].offered;
		r->prod_cpu_ns += prods[i].cpu_ns;
		if (prods[i].err)
			r->perr = prods[i].err;
	}
	r->stop_rc = xtx_engine__stop(eng);
	for (unsigned q = 0; q < xtx_engine__queues(eng); q++) {
		uint64_t ns = 0;

		if (!xtx_engine__queue_cpu_ns(eng, q, &ns))
			r->deq_cpu_ns += ns;
	}
	r->secs = (double)(cli_now_ns(CLOCK_MONOTONIC) - r->t0) * 1e-9;
	getrusage(RUSAGE_SELF, &ru);
	r->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* --- the summary ----------------------------------------------------------------------- */

/* "zc_prog": {id, dispatcher} of the pass program the engine holds (--zc-prog), or null. */
static void print_json_zc_prog(struct jsonw *w)
{
	uint32_t id;
	int disp;

	jsonw_name(w, "zc_prog");
	if (!xtx_engine__zc_prog(eng, &id, &disp)) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_uint_field(w, "id", id);
	jsonw_bool_field(w, "dispatcher", disp);
	jsonw_end_object(w);
}

/* The null device's wire, summed over the queues: "null": {frames, bytes, wire_bytes,
 * busy_ns, gap_ns, busy_frac}; busy_frac = busy / (busy + gap), 1 at rate 0. */
static void print_json_null(struct jsonw *w)
{
	struct xtx_null_stats sum = { 0 }, st;

	for (unsigned q = 0; q < xtx_engine__queues(eng); q++) {
		if (xtx_engine__null_stats(eng, q, &st))
			continue;
		sum.frames += st.frames;
		sum.bytes += st.bytes;
		sum.wire_bytes += st.wire_bytes;
		sum.busy_ns += st.busy_ns;
		sum.gap_ns += st.gap_ns;
	}
	jsonw_name(w, "null");
	jsonw_start_object(w);
	jsonw_uint_field(w, "frames", sum.frames);
	jsonw_uint_field(w, "bytes", sum.bytes);
	jsonw_uint_field(w, "wire_bytes", sum.wire_bytes);
	jsonw_uint_field(w, "busy_ns", sum.busy_ns);
	jsonw_uint_field(w, "gap_ns", sum.gap_ns);
	jsonw_float_field(w, "busy_frac", sum.busy_ns + sum.gap_ns ?
			  (double)sum.busy_ns / (double)(sum.busy_ns + sum.gap_ns) : 1.0, 6);
	jsonw_end_object(w);
}

static void print_json(const struct run *r, const struct totals *t,
		       const struct xtx_frame_count *fc)
{
	const struct xtx_sched_config *cfg = r->cfg;
	double secs = r->secs;
	struct jsonw w;

	jsonw_init(&w, stdout);
	jsonw_start_object(&w);
	jsonw_string_field(&w, "dev", o.dev);
	jsonw_string_field(&w, "mode", xtx_engine__mode(eng));
	print_json_zc_prog(&w);
	jsonw_string_field(&w, "tx_csum", (const char *[]){ "off", "on", "sw" }[o.tx_csum]);
	jsonw_uint_field(&w, "queues", xtx_engine__queues(eng));
	jsonw_string_field(&w, "class_scope", o.queue_classes ? "queue" : "device");
	jsonw_name(&w, "target_ns");	/* --target: room target of leaves without their own */
	if (o.target_ns == XTX_TARGET_OFF)
		jsonw_null(&w);
	else
		jsonw_uint(&w, o.target_ns);
	jsonw_uint_field(&w, "producers", nprod);
	jsonw_uint_field(&w, "flows", o.flows);
	jsonw_name(&w, "stop_flows");
	if (o.stop_at_s > 0) {
		jsonw_start_object(&w);
		jsonw_uint_field(&w, "first", o.stop_first);
		jsonw_uint_field(&w, "last", o.stop_last);
		jsonw_float_field(&w, "at_s", o.stop_at_s, 6);
		jsonw_end_object(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_name(&w, "flow_rate");
	if (o.fr_pps || o.fr_bps) {
		jsonw_start_object(&w);
		jsonw_uint_field(&w, "first", o.fr_first);
		jsonw_uint_field(&w, "last", o.fr_last);
		jsonw_uint_field(&w, "pps", o.fr_pps);
		jsonw_uint_field(&w, "bps", o.fr_bps * 8);
		jsonw_end_object(&w);
	} else {
		jsonw_null(&w);
	}
	if (o.size) {
		jsonw_uint_field(&w, "size", o.size);
	} else {
		jsonw_string_field(&w, "size", "imix");
		jsonw_uint_field(&w, "size_n", 0);
	}
	jsonw_uint_field(&w, "offered_pkts", r->offered);
	jsonw_uint_field(&w, "sent_pkts", t->sent);
	jsonw_uint_field(&w, "sent_bytes", t->bytes);
	jsonw_name(&w, "dropped_pkts");
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "total", t->dropped);
	for (int d = 0; d < XTX_DROP__MAX; d++)
		jsonw_uint_field(&w, xtx_drop_reason__str(d), t->drops[d]);
	jsonw_end_object(&w);
	jsonw_uint_field(&w, "unaccounted_pkts", r->offered - t->sent - t->dropped);
	jsonw_uint_field(&w, "moved_pkts", t->moved);
	{
		struct xtx_producer_stats ps;

		xtx_engine__producer_totals(eng, &ps);
		jsonw_name(&w, "tx_ring");	/* per queue: the ring's limit (BQL-like) */
		jsonw_start_array(&w);
		for (unsigned q = 0; q < xtx_engine__queues(eng); q++) {
			struct xtx_queue_stats qs;

			xtx_engine__queue_stats(eng, q, &qs);
			jsonw_start_object(&w);
			jsonw_uint_field(&w, "limit", qs.ring_limit);
			jsonw_uint_field(&w, "limited", qs.ring_limited);
			jsonw_uint_field(&w, "full", qs.tx_ring_full);
			jsonw_end_object(&w);
		}
		jsonw_end_array(&w);
		jsonw_name(&w, "room");	/* producers held back by a class's target */
		jsonw_start_object(&w);
		jsonw_uint_field(&w, "stops", ps.room_stops);
		jsonw_uint_field(&w, "waits", ps.room_waits);
		jsonw_end_object(&w);
		jsonw_uint_field(&w, "bad_desc", ps.bad_desc);	/* bursts a bad one cut */
	}
	jsonw_float_field(&w, "duration_s", secs, 6);
	jsonw_float_field(&w, "pps", (double)t->sent / secs, 1);
	jsonw_float_field(&w, "gbps", (double)t->bytes * 8 / secs * 1e-9, 6);
	jsonw_float_field(&w, "cpu_ns_per_pkt", t->sent ? r->cpu * 1e9 / (double)t->sent : 0.0,
			  1);
	jsonw_float_field(&w, "producer_cpu_ns_per_pkt",
			  t->sent ? (double)r->prod_cpu_ns / (double)t->sent : 0.0, 2);
	jsonw_float_field(&w, "dequeuer_cpu_ns_per_pkt",
			  t->sent ? (double)r->deq_cpu_ns / (double)t->sent : 0.0, 2);
	jsonw_name(&w, "doctor");
	if (r->doctored)
		doctor_line_json(&w, &r->doctor);
	else
		jsonw_null(&w);
	if (r->null)
		print_json_null(&w);
	jsonw_bool_field(&w, "interrupted", got_signal);
	jsonw_bool_field(&w, "device_gone", r->dev_gone);
	jsonw_name(&w, "classes");
	jsonw_start_array(&w);
	for (unsigned l = 0; l < r->nleaves; l++) {
		const struct xtx_class_opts *co = cfg ? xtx_sched_config__class(cfg, r->leaves[l]) :
						  NULL;
		struct xtx_class_stats cs;
		char h[XTX_HANDLE_STRLEN] = "1:";
		uint64_t dr = 0;

		bool live = leaf_stats(r, l, &cs);

		for (int d = 0; d < XTX_DROP__MAX; d++)
			dr += cs.drops[d];
		if (co)
			xtx_handle__str(co->handle, h, sizeof(h));
		jsonw_start_object(&w);
		jsonw_string_field(&w, "handle", h);
		jsonw_uint_field(&w, "index", r->leaves[l]);
		jsonw_bool_field(&w, "removed", !live);
		jsonw_uint_field(&w, "rate_bps", co ? co->rate * 8 : 0);
		jsonw_uint_field(&w, "ceil_bps", co ? co->ceil * 8 : 0);
		/* refused at enqueue: every drop but those of queued packets */
		jsonw_uint_field(&w, "offered_pkts", cs.enq_pkts + dr - cs.drops[XTX_DROP_PURGED] -
				 cs.drops[XTX_DROP_CODEL]);
		jsonw_uint_field(&w, "sent_pkts", cs.sent_pkts);
		jsonw_uint_field(&w, "sent_bytes", cs.sent_bytes);
		jsonw_uint_field(&w, "dropped_pkts", dr);
		jsonw_uint_field(&w, "room_closes", cs.room_closes);
		jsonw_uint_field(&w, "codel_drops", cs.drops[XTX_DROP_CODEL]);
		jsonw_uint_field(&w, "ecn_marks", cs.ecn_marks);
		jsonw_float_field(&w, "measured_bps", (double)cs.sent_bytes * 8 / secs, 1);
		print_json_departure(&w, r, l);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_name(&w, "frames");
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "total", fc->total);
	jsonw_uint_field(&w, "free", fc->pool + fc->cached + fc->dequeuer);
	jsonw_uint_field(&w, "in_flight", fc->stage + fc->sched + fc->tx + fc->app + fc->chained);
	jsonw_uint_field(&w, "pool", fc->pool);
	jsonw_uint_field(&w, "cached", fc->cached);
	jsonw_uint_field(&w, "dequeuer", fc->dequeuer);
	jsonw_uint_field(&w, "app", fc->app);
	jsonw_uint_field(&w, "stage", fc->stage);
	jsonw_uint_field(&w, "sched", fc->sched);
	jsonw_uint_field(&w, "tx", fc->tx);
	jsonw_uint_field(&w, "chained", fc->chained);
	jsonw_end_object(&w);
	jsonw_end_object(&w);
	jsonw_finish(&w);
}

static void print_text(const struct run *r, const struct totals *t)
{
	const struct xtx_sched_config *cfg = r->cfg;
	double secs = r->secs;

	printf("xtx-send: %s, %s mode, %u queue(s), %u producer(s), %u flow(s)\n", o.dev,
	       xtx_engine__mode(eng), xtx_engine__queues(eng), nprod, o.flows);
	if (o.stop_at_s > 0)
		printf("  flows %u-%u (ports %u-%u) stopped at %.3f s\n", o.stop_first, o.stop_last,
		       o.dst_port + o.stop_first, o.dst_port + o.stop_last, o.stop_at_s);
	printf("  offered %lu  sent %lu  dropped %lu", (unsigned long)r->offered,
	       (unsigned long)t->sent, (unsigned long)t->dropped);
	for (int d = 0; d < XTX_DROP__MAX; d++)
		if (t->drops[d])
			printf(" (%s %lu)", xtx_drop_reason__str(d), (unsigned long)t->drops[d]);
	printf("\n  %.3f s  %.3f Mpps  %.3f Gbit/s  %.0f ns CPU per packet\n", secs,
	       (double)t->sent / secs * 1e-6, (double)t->bytes * 8 / secs * 1e-9,
	       t->sent ? r->cpu * 1e9 / (double)t->sent : 0.0);
	for (unsigned l = 0; l < r->nleaves && cfg; l++) {
		const struct xtx_class_opts *co = xtx_sched_config__class(cfg, r->leaves[l]);
		struct xtx_class_stats cs;
		char h[XTX_HANDLE_STRLEN];

		bool live = leaf_stats(r, l, &cs);

		xtx_handle__str(co->handle, h, sizeof(h));
		printf("  class %-8s sent %10lu pkts %8.1f Mbit/s (rate %.1f Mbit/s)%s\n", h,
		       (unsigned long)cs.sent_pkts, (double)cs.sent_bytes * 8 / secs * 1e-6,
		       (double)co->rate * 8e-6, live ? "" : ", removed while it ran: its "
		       "counters ended, its flows went to the default class");
	}
	if (r->offered != t->sent + t->dropped)
		printf("  WARNING: %lu packets not accounted for\n",
		       (unsigned long)(r->offered - t->sent - t->dropped));
}

/* The messages on how the run ended, then the summary on stdout. */
static void report(const struct run *r)
{
	struct xtx_frame_count fc;
	struct totals t;

	totals(&t);
	xtx_engine__frames(eng, &fc);
	if (r->perr)
		fprintf(stderr, "xtx-send: a producer failed: %s\n", strerror(r->perr));
	if (r->stop_rc == -ETIMEDOUT && !o.json)
		fprintf(stderr, "xtx-send: drain timed out after %.1f s: the rest was dropped "
			"(counted as purged)\n", o.drain);
	if (o.json)
		print_json(r, &t, &fc);
	else
		print_text(r, &t);
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	int rc = send_opts_parse(argc, argv, &o);

	if (rc)
		return rc == 1 ? 0 : 2;
	xdpa_set_print(false);	/* libxdp's, for --zc-prog: warnings only */
	rc = xtx_dev__is_null(o.dev);
	if (rc < 0) {
		fprintf(stderr, "xtx-send: bad value '%s' for --dev: the null device's rate must be "
			"a rate in tc's units above 0, e.g. null:10gbit (see --help)\n", o.dev);
		return 2;
	}
	r.null = rc;
	r.ifindex = r.null ? 0 : (int)if_nametoindex(o.dev);
	if (!r.null && !r.ifindex) {
		fprintf(stderr, "xtx-send: no interface '%s' in this network namespace (see ip link "
			"show; null or null:RATE is the built-in null device)\n", o.dev);
		return 1;
	}
	rc = load_classes(&r);
	if (!rc && !r.null)
		rc = check_mtu();
	if (!rc && !r.null && !o.no_doctor)
		run_doctor(&r);
	if (!rc)
		rc = resolve_addresses(r.ifindex);
	if (!rc) {
		assign_flows(&r);
		rc = open_engine(&r);
	}
	if (rc) {
		xtx_sched_config__free(r.cfg);
		return rc;
	}
	if (!o.control || strcmp(o.control, "off")) {
		char cerr[512];

		rc = xtx_engine__control_listen(eng, o.control && strcmp(o.control, "dev") ?
						o.control : NULL, cerr, sizeof(cerr));
		if (rc && o.control) {
			fprintf(stderr, "xtx-send: --control: %s\n", cerr);
			xtx_engine__close(eng);
			xtx_sched_config__free(r.cfg);
			return 1;
		}
		if (rc)		/* the default path: the run goes on without it */
			fprintf(stderr, "xtx-send: warning: no control socket, xtx-ctl cannot "
				"reach this run: %s (--control PATH for another, off for none)\n",
				cerr);
		rc = 0;
	}
	drop_privileges();
	catch_signals();
	plan_producers(&r);
	r.t0 = cli_now_ns(CLOCK_MONOTONIC);
	if (o.stop_at_s > 0)
		stop_flows_ns = r.t0 + (uint64_t)(o.stop_at_s * 1e9);
	if (start_producers()) {
		xtx_engine__close(eng);
		xtx_sched_config__free(r.cfg);
		return 1;
	}
	watch(&r);
	finish(&r);
	report(&r);
	xtx_engine__close(eng);
	xtx_sched_config__free(r.cfg);
	if (r.dev_gone)
		fprintf(stderr, "xtx-send: %s disappeared during the run: exit status 1\n", o.dev);
	return r.perr || r.dev_gone ? 1 : 0;
}
