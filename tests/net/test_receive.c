/* SPDX-License-Identifier: BSD-3-Clause */
/* test_receive.c - the engine's receive side end to end, in a private network namespace
 * it makes itself (run by tests/net/receive.sh in every build variant):
 *
 *     packet socket -> a0 ==veth== a1 [xtx_redirect, l2] -> RX socket -> worker -> stage
 *                      -> scheduler -> TX socket -> b1 ==veth== b0 (counted)
 *
 *   test_receive COUNT
 *
 *   1. shared UMEM, then 2. one-copy path: COUNT frames in two classes (by UDP port),
 *      paced so that nothing needs to drop: b0 receives exactly COUNT, the engine
 *      received and forwarded COUNT, each class sent its share, every frame carried
 *      metadata, and all frames are back in the pool after stop;
 *   3. starvation: a class that holds every frame it gets (1 kbit/s, limit above the
 *      frame count) fills the scheduler until the pool is empty; then received frames go
 *      back to the fill ring (no_frame drops) instead of the fill ring running dry: the
 *      kernel never finds it empty, reception goes on, and at stop (drop) every frame is
 *      accounted for.
 * Needs root: exits 77 (skip) only when not root, before anything runs. As root every
 * other setback is a failure (exit 1): no private namespace, a namespace that is the
 * host's (netns_require_private(), before any interface or socket is made), the BPF
 * program refused (the verifier log goes to stderr).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <xtx/xtx.h>
#include "rules.h"
#include "xtx_redirect.skel.h"
#include "check.h"
#include "netns.h"

static const uint8_t b0_mac[6] = { 0x02, 0, 0xc6, 0x12, 0xfc, 0x02 };
static int a0_idx, a1_idx, pkt_fd;

static const char script[] =
	"set -e\n"
	"sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1\n"
	"ip link set lo up\n"
	"ip link add a0 type veth peer a1\n"
	"ip link add b1 type veth peer b0\n"
	"ip link set b0 address 02:00:c6:12:fc:02\n"
	"for d in a0 a1 b0 b1; do ip link set $d up; done\n";

/* Frames b0 received, from the kernel's link statistics (netlink, this namespace; /sys
 * would show the namespace it was mounted in). */
static uint64_t b0_rx(void)
{
	struct ifaddrs *ifa, *i;
	uint64_t v = 0;

	if (getifaddrs(&ifa))
		return 0;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_PACKET && i->ifa_data &&
		    !strcmp(i->ifa_name, "b0"))
			v = ((const struct rtnl_link_stats *)i->ifa_data)->rx_packets;
	freeifaddrs(ifa);
	return v;
}

static void frame(uint8_t *f, uint16_t dport, uint32_t seq)
{
	memset(f, 0, 64);
	memcpy(f, b0_mac, 6);
	f[6] = 0x02; f[11] = 0x01;
	f[12] = 0x08;
	f[14] = 0x45; f[17] = 50; f[22] = 64; f[23] = 17;
	f[26] = 198; f[27] = 18; f[28] = 252; f[29] = 1;
	f[30] = 198; f[31] = 18; f[32] = 252; f[33] = 2;
	f[34] = 0x9c; f[35] = 0x40;
	f[36] = (uint8_t)(dport >> 8); f[37] = (uint8_t)dport;
	f[39] = 30;
	memcpy(f + 42, &seq, 4);
}

static struct xtx_sched_config *classes(const char *text)
{
	char err[256];
	struct xtx_sched_config *c = xtx_sched_config__parse_string(text, "classes", err,
								    sizeof(err));

	if (!c)
		fprintf(stderr, "classes: %s\n", err);
	return c;
}

static struct xtx_redirect *attach(const struct xtx_sched_config *cfg)
{
	static struct rd_rules rs;
	struct xtx_redirect *s = xtx_redirect__open();
	struct rd_maps m;
	char err[256];
	int rc;

	if (!s)
		return NULL;
	CHECK_EQ_I64(0, rd_rules__parse_string(&rs, "match dport 5000 class 1:10\n"
					       "match dport 5001 class 1:20\n", "r", err,
					       sizeof(err)));
	CHECK_EQ_I64(0, rd_rules__resolve(&rs, cfg, err, sizeof(err)));
	s->rodata->cfg_mode = XTX_RD_MODE_L2;
	s->rodata->cfg_nrules = rs.n;
	rc = xtx_redirect__load(s);
	if (rc) {
		xtx_redirect__destroy(s);
		fprintf(stderr, "test_receive: FAIL: loading xtx_redirect as root failed: %s "
			"(libbpf's message and the verifier log, if any, above)\n", strerror(-rc));
		exit(1);
	}
	m = RD_MAPS_OF(s);
	CHECK_EQ_I64(0, rd_rules__load(&rs, &m, err, sizeof(err)));
	CHECK_EQ_I64(0, bpf_xdp_attach(a1_idx, bpf_program__fd(s->progs.xtx_redirect),
				       XDP_FLAGS_DRV_MODE, NULL));
	return s;
}

static void detach(struct xtx_redirect *s)
{
	bpf_xdp_detach(a1_idx, XDP_FLAGS_DRV_MODE, NULL);
	xtx_redirect__destroy(s);
}

static struct xtx_engine *open_engine(const struct xtx_sched_config *cfg, int copy,
				      uint32_t frames, struct xtx_redirect *s)
{
	struct xtx_engine_opts o = {
		.sz = sizeof(o), .ifname = "b1", .mode = XTX_MODE_COPY, .classes = cfg,
		.rx_ifname = "a1", .rx_copy = copy, .frame_count = frames, .quiet = 1,
		.tx_ring_size = 256, .comp_ring_size = 256, .rx_ring_size = 256,
		.fill_ring_size = 512, .drop_on_close = 1,
		/* a lane holds every frame: the stage cannot fill before the pool runs dry,
		 * however far the dequeuer lags (starvation; ASan once filled a 1024 lane) */
		.lane_size = 4096,
	};
	char err[512];
	struct xtx_engine *e = xtx_engine__open(&o, err, sizeof(err));
	uint32_t qid;
	int fd;

	if (!e) {
		fprintf(stderr, "engine open: %s\n", err);
		return NULL;
	}
	fd = xtx_engine__rx_socket(e, 0, &qid);
	CHECK(fd >= 0);
	CHECK_EQ_I64(0, bpf_map_update_elem(bpf_map__fd(s->maps.xsks), &qid, &fd, BPF_ANY));
	return e;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static uint64_t rx_of(struct xtx_engine *e, struct xtx_rx_stats *st)
{
	xtx_engine__rx_stats(e, 0, st);
	return st->rx_pkts;
}

/* Frames through the whole pipeline: sent, dropped on receive or by the scheduler. */
static uint64_t done_of(struct xtx_engine *e)
{
	struct xtx_rx_stats st;
	struct xtx_queue_stats qs;
	uint64_t d = 0;

	xtx_engine__rx_stats(e, 0, &st);
	xtx_engine__queue_stats(e, 0, &qs);
	for (int k = 0; k < XTX_RX_DROP__MAX; k++)
		d += st.drops[k];
	for (int k = 0; k < XTX_DROP__MAX; k++)
		d += qs.drops[k];
	return qs.sent_pkts + d;
}

/* Sends n frames alternating ports 5000/5001, at most `window` ahead of what the engine
 * has sent or dropped (so that no stage or ring needs to drop anything however slow the
 * build: sanitizers), or with on_rx, of what it has received. */
static void inject(struct xtx_engine *e, uint64_t n, uint64_t window, int on_rx)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_ifindex = a0_idx, .sll_halen = 6 };
	struct xtx_rx_stats st;
	uint64_t base = on_rx ? rx_of(e, &st) : done_of(e), sent = 0;
	uint8_t f[64];

	memcpy(to.sll_addr, b0_mac, 6);
	for (int stall = 0; sent < n && stall < 20000;) {
		if (sent - ((on_rx ? rx_of(e, &st) : done_of(e)) - base) >= window) {
			sleep_us(100);
			stall++;
			continue;
		}
		frame(f, (uint16_t)(5000 + sent % 2), (uint32_t)sent);
		if (sendto(pkt_fd, f, 64, 0, (struct sockaddr *)&to, sizeof(to)) == 64)
			sent++;
		else
			sleep_us(100);
		stall = 0;
	}
	CHECK_EQ_U64(n, sent);
}

static void wait_idle(struct xtx_engine *e, uint64_t want_rx)
{
	struct xtx_rx_stats st;

	for (int i = 0; i < 3000 && rx_of(e, &st) < want_rx; i++)
		sleep_us(1000);
	sleep_us(50 * 1000);		/* the dequeuer's last batch, completions */
}

static void check_frames(struct xtx_engine *e, const char *when)
{
	struct xtx_frame_count fc;

	xtx_engine__frames(e, &fc);
	if (!CHECK_EQ_U64(fc.total, fc.pool + fc.cached + fc.app + fc.stage + fc.sched + fc.tx +
			  fc.dequeuer + fc.fill + fc.receiver))
		fprintf(stderr, "    %s: pool %lu stage %lu sched %lu tx %lu deq %lu fill %lu "
			"recv %lu\n", when, (unsigned long)fc.pool, (unsigned long)fc.stage,
			(unsigned long)fc.sched, (unsigned long)fc.tx, (unsigned long)fc.dequeuer,
			(unsigned long)fc.fill, (unsigned long)fc.receiver);
}

static void test_forward(uint64_t count, int copy)
{
	struct xtx_sched_config *cfg = classes("class 1: rate 10gbit\n"
		"class 1:10 parent 1: rate 5gbit ceil 10gbit\n"
		"class 1:20 parent 1: rate 5gbit ceil 10gbit\n");
	struct xtx_redirect *s = attach(cfg);
	struct xtx_engine *e = open_engine(cfg, copy, 0, s);
	struct xtx_class_stats c10, c20;
	struct xtx_rx_stats st;
	struct xtx_frame_count fc;
	uint64_t before = b0_rx();

	if (!CHECK(e != NULL))
		return;
	CHECK_STR_CONTAINS(xtx_engine__rx_path(e), copy ? "copy" : "shared");
	inject(e, count, 128, 0);
	wait_idle(e, count);
	check_frames(e, "running, idle");		/* quiescent: must add up */
	detach(s);
	CHECK_EQ_I64(0, xtx_engine__stop(e));
	xtx_engine__rx_stats(e, 0, &st);
	xtx_engine__class_stats(e, (unsigned)xtx_engine__class_index(e, XTX_HANDLE(1, 0x10)), &c10);
	xtx_engine__class_stats(e, (unsigned)xtx_engine__class_index(e, XTX_HANDLE(1, 0x20)), &c20);
	xtx_engine__frames(e, &fc);
	printf("%s: rx %lu fwd %lu (drops: stage %lu no_frame %lu) copied %lu no_meta %lu "
	       "classes %lu/%lu, b0 got %lu, reclaimed %lu, kernel drops %lu\n",
	       copy ? "copy path" : "shared UMEM", (unsigned long)st.rx_pkts,
	       (unsigned long)st.fwd_pkts, (unsigned long)st.drops[XTX_RX_DROP_STAGE_FULL],
	       (unsigned long)st.drops[XTX_RX_DROP_NO_FRAME], (unsigned long)st.copied,
	       (unsigned long)st.no_meta, (unsigned long)c10.sent_pkts,
	       (unsigned long)c20.sent_pkts, (unsigned long)(b0_rx() - before),
	       (unsigned long)st.reclaimed, (unsigned long)st.k_dropped);
	CHECK_EQ_U64(count, st.rx_pkts);
	CHECK_EQ_U64(count, st.fwd_pkts);
	CHECK_EQ_U64(copy ? count : 0, st.copied);
	CHECK_EQ_U64(0, st.no_meta);
	CHECK_EQ_U64(0, st.k_dropped);
	CHECK_EQ_U64(count / 2, c10.sent_pkts);
	CHECK_EQ_U64(count - count / 2, c20.sent_pkts);
	CHECK_EQ_U64(count, b0_rx() - before);
	CHECK_EQ_U64(fc.total, fc.pool);		/* all back after stop */
	CHECK_EQ_U64(copy ? 0 : 512, st.reclaimed);	/* the fill ring's frames */
	CHECK_EQ_I64(-EBADF, xtx_engine__rx_socket(e, 0, NULL));
	xtx_engine__close(e);
	xtx_sched_config__free(cfg);
}

static void test_starvation(void)
{
	/* 1:10 takes everything and holds it: 1 kbit/s, room for more than all frames. */
	struct xtx_sched_config *cfg = classes("class 1: rate 10gbit\n"
		"class 1:10 parent 1: rate 1kbit limit 100000\n"
		"class 1:20 parent 1: rate 5gbit\n");
	struct xtx_redirect *s = attach(cfg);
	struct xtx_engine *e = open_engine(cfg, 0, 2048, s);
	struct xtx_rx_stats st;
	struct xtx_queue_stats qs;
	struct xtx_frame_count fc;
	uint64_t n = 6000;

	if (!CHECK(e != NULL))
		return;
	inject(e, n, 128, 1);
	wait_idle(e, n);
	check_frames(e, "starved, idle");
	xtx_engine__rx_stats(e, 0, &st);
	xtx_engine__frames(e, &fc);
	printf("starvation: rx %lu fwd %lu no_frame %lu, kernel fill_empty %lu dropped %lu; "
	       "scheduler holds %lu, pool %lu, fill %lu\n", (unsigned long)st.rx_pkts,
	       (unsigned long)st.fwd_pkts, (unsigned long)st.drops[XTX_RX_DROP_NO_FRAME],
	       (unsigned long)st.k_fill_empty, (unsigned long)st.k_dropped,
	       (unsigned long)fc.sched, (unsigned long)fc.pool, (unsigned long)fc.fill);
	CHECK_EQ_U64(n, st.rx_pkts);			/* reception never stopped */
	CHECK(st.drops[XTX_RX_DROP_NO_FRAME] > 0);	/* the pool did run dry */
	CHECK_EQ_U64(n, st.fwd_pkts + st.drops[XTX_RX_DROP_NO_FRAME] +
		     st.drops[XTX_RX_DROP_STAGE_FULL]);
	CHECK_EQ_U64(0, st.k_fill_empty);		/* ... but the fill ring never did */
	CHECK_EQ_U64(0, st.k_dropped);
	CHECK_EQ_U64(512, fc.fill);			/* still full */
	detach(s);
	CHECK_EQ_I64(0, xtx_engine__stop(e));		/* drop_on_close: purged, counted */
	xtx_engine__queue_stats(e, 0, &qs);
	xtx_engine__frames(e, &fc);
	CHECK_EQ_U64(fc.total, fc.pool);
	CHECK_EQ_U64(st.fwd_pkts, qs.sent_pkts + qs.drops[XTX_DROP_PURGED] +
		     qs.drops[XTX_DROP_LEAF_LIMIT]);
	xtx_engine__close(e);
	xtx_sched_config__free(cfg);
}

int main(int argc, char **argv)
{
	uint64_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000;

	if (geteuid() != 0) {
		printf("skip: needs root (namespaces, XDP, AF_XDP)\n");
		return 77;
	}
	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "test_receive: FAIL: cannot make a private network namespace as "
			"root: %s\n", strerror(errno));
		return 1;
	}
	/* The namespace just made: this must pass, or the unshare did not take. */
	if (netns_require_private("test_receive"))
		return 1;
	if (system(script) != 0) {
		fprintf(stderr, "test_receive: setting up veth pairs failed\n");
		return 1;
	}
	a0_idx = (int)if_nametoindex("a0");
	a1_idx = (int)if_nametoindex("a1");
	pkt_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (!a0_idx || !a1_idx || pkt_fd < 0) {
		fprintf(stderr, "test_receive: setup: %s\n", strerror(errno));
		return 1;
	}
	test_forward(count, 0);
	test_forward(count, 1);
	test_starvation();
	close(pkt_fd);
	return check_summary("test_receive");
}
