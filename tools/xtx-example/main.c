/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx-example - the whole libxtx cycle in one page: open an engine with a two-class tree
 * given through the C API, open a producer, get frames, build UDP packets with xtx/pkt.h,
 * send bursts with class and flow hash, read the counters, close.
 *
 *   xtx-example IF DST_IP DST_MAC [COUNT]     (DST_IP in 198.18.0.0/15)
 *
 * IF is an interface, or the built-in null device: null (every frame completes at once)
 * or null:RATE (an emulated wire, e.g. null:1gbit), which needs no interface, capability
 * or root; its counters are printed at the end.
 *
 * Build outside the tree: cc example.c $(pkg-config --cflags --libs libxtx)
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <xtx/pkt.h>
#include <xtx/xtx.h>

int main(int argc, char **argv)
{
	struct xtx_pkt_udp_opts po = { .sz = sizeof(po), .src_port = 9000, .frame_len = 64 };
	struct xtx_class_opts root = { .sz = sizeof(root), .handle = XTX_HANDLE(1, 0),
				       .parent = XTX_HANDLE_ROOT, .rate = 100000000 / 8 };
	struct xtx_class_opts gold = { .sz = sizeof(gold), .handle = XTX_HANDLE(1, 0x10),
				       .parent = XTX_HANDLE(1, 0), .rate = 60000000 / 8,
				       .ceil = 100000000 / 8, .prio = 0 };
	struct xtx_class_opts bulk = { .sz = sizeof(bulk), .handle = XTX_HANDLE(1, 0x20),
				       .parent = XTX_HANDLE(1, 0), .rate = 40000000 / 8,
				       .ceil = 100000000 / 8, .prio = 1, .fq = 1 };
	char err[512];
	unsigned long count = argc > 4 ? strtoul(argv[4], NULL, 10) : 10000, sent = 0;

	if (argc < 4 || inet_pton(AF_INET, argv[2], &po.dst4) != 1 ||
	    xtx_pkt__parse_mac(argv[3], po.dst_mac)) {
		fprintf(stderr, "usage: xtx-example IF DST_IP DST_MAC [COUNT]\n"
			"       IF: an interface, or null / null:RATE (the built-in null device)\n");
		return 2;
	}
	if (xtx_dev__is_null(argv[1]) < 0) {
		fprintf(stderr, "xtx-example: '%s': the null device's rate must be a rate in tc's "
			"units above 0, e.g. null:1gbit\n", argv[1]);
		return 2;
	}
	/* Load goes only to the benchmarking range 198.18.0.0/15 (RFC 2544); edit this for
	 * a lab network of your own (the tools take --allow-dst PREFIX). */
	if ((ntohl(po.dst4.s_addr) & 0xfffe0000u) != 0xc6120000u) {
		fprintf(stderr, "xtx-example: refusing to send to %s: outside the benchmarking "
			"range 198.18.0.0/15\n", argv[2]);
		return 2;
	}
	inet_pton(AF_INET, "198.18.0.1", &po.src4);

	/* 1. The class tree, through the C API (a file works too: parse_file). */
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	if (!cfg || xtx_sched_config__add_class(cfg, &root) ||
	    xtx_sched_config__add_class(cfg, &gold) || xtx_sched_config__add_class(cfg, &bulk) ||
	    xtx_sched_config__set_default(cfg, bulk.handle)) {
		fprintf(stderr, "cannot build the class tree\n");
		return 1;
	}

	/* 2. The engine: one queue, copy or zero-copy as the driver allows. */
	struct xtx_engine_opts eo = { .sz = sizeof(eo), .ifname = argv[1], .classes = cfg };
	struct xtx_engine *e = xtx_engine__open(&eo, err, sizeof(err));
	if (!e) {
		fprintf(stderr, "xtx_engine__open: %s\n", err);
		return 1;
	}
	int cls[2] = { xtx_engine__class_index(e, gold.handle),
		       xtx_engine__class_index(e, bulk.handle) };

	/* 3. A producer for this thread; packets in bursts of up to 32. */
	struct xtx_producer *p = xtx_producer__open(e);
	while (p && sent < count) {
		uint64_t addr[32];
		struct xtx_desc d[32];
		unsigned n = xtx_producer__get_frames(p, addr, count - sent < 32 ? (unsigned)(count - sent) : 32);

		for (unsigned i = 0; i < n; i++) {
			uint16_t flow = (uint16_t)((sent + i) % 8);

			po.dst_port = (uint16_t)(9000 + flow);
			int len = xtx_pkt__build_udp4(xtx_engine__frame(e, addr[i]),
						      xtx_engine__frame_room(e), &po);
			d[i] = (struct xtx_desc){
				.addr = addr[i], .len = (uint16_t)len,
				.cls = (uint16_t)cls[flow % 2],	/* even flows gold, odd bulk */
				.hash = xtx_pkt__flow_hash4(po.src4.s_addr, po.dst4.s_addr,
							    po.src_port, po.dst_port, 17, 0),
			};
		}
		unsigned k = xtx_producer__send_burst(p, d, n);
		/* Back-pressure: what was not taken is still ours; give it back and retry. */
		xtx_producer__put_frames(p, addr + k, n - k);
		sent += k;
		if (k < n || !n)
			usleep(100);
	}
	xtx_producer__close(p);

	/* 4. Drain, then read the counters (they stay readable until close). */
	int rc = xtx_engine__stop(e);
	for (int c = 0; c < 2; c++) {
		struct xtx_class_stats st;
		uint64_t dropped = 0;

		xtx_engine__class_stats(e, (unsigned)cls[c], &st);
		for (int r = 0; r < XTX_DROP__MAX; r++)
			dropped += st.drops[r];
		printf("class %s: sent %lu packets (%lu bytes), dropped %lu (flow/leaf limits)\n",
		       c ? "1:20" : "1:10", (unsigned long)st.sent_pkts,
		       (unsigned long)st.sent_bytes, (unsigned long)dropped);
	}
	printf("%lu packets offered, %s mode, stop: %s\n", sent, xtx_engine__mode(e),
	       rc ? "drain timed out" : "drained");
	/* 5. The null device's own counters: what its (emulated) wire completed. */
	struct xtx_null_stats ns;
	if (!xtx_engine__null_stats(e, 0, &ns))
		printf("null device: %lu frames (%lu bytes, %lu on the wire) completed, wire busy "
		       "%.3f ms, idle between frames %.3f ms\n", (unsigned long)ns.frames,
		       (unsigned long)ns.bytes, (unsigned long)ns.wire_bytes,
		       (double)ns.busy_ns * 1e-6, (double)ns.gap_ns * 1e-6);
	xtx_engine__close(e);
	xtx_sched_config__free(cfg);
	return rc ? 1 : 0;
}
