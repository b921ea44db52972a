/* SPDX-License-Identifier: BSD-3-Clause */
/* opts.h - xtx-send's command line. */
#ifndef XTX_SEND_OPTS_H
#define XTX_SEND_OPTS_H

#include <netinet/in.h>
#include <stdint.h>

#include "dstguard.h"

#define MAX_PRODUCERS 256

struct send_opts {
	const char *dev;
	int family;			/* AF_INET / AF_INET6 of --dst-ip */
	uint8_t dst_ip[16], src_ip[16];
	int have_src_ip;
	uint8_t dst_mac[6], src_mac[6];
	int have_dst_mac, have_src_mac;
	uint16_t dst_port, src_port;
	uint32_t flows;
	uint32_t size;			/* frame length without FCS; 0 = imix */
	uint32_t queues, first_queue;
	uint32_t producers;
	const char *classes;		/* class file */
	const char *control;		/* --control: socket path, "dev" the default one */
	uint64_t rate_pps;		/* 0 = as fast as possible */
	uint64_t rate_bps;		/* bytes/s of frames, 0 = none */
	double duration;		/* seconds; 0 with count */
	uint64_t count;			/* exact packets to offer; 0 = duration */
	double interval;		/* live line period, s; 0 = off */
	int json;
	int mode;			/* enum xtx_xdp_mode */
	int zc_prog;			/* enum xtx_zc_prog (--zc-prog) */
	int tx_csum;			/* --tx-csum: 0 off, 1 on (the device), 2 sw */
	uint32_t tx_timestamps;		/* --tx-timestamps N: every N-th packet; 0 off */
	int busy_poll;
	int sock_busy_poll;		/* --sock-busy-poll */
	int queue_classes;	/* --queue-classes: mq semantics */
	int drop;			/* --drop: stop at once, drop what is queued */
	int stamp;			/* write CLOCK_MONOTONIC in the payload */
	int no_doctor;			/* --no-doctor: no xtx-doctor checks at start */
	const char *cpus;
	int prod_cpus[MAX_PRODUCERS];	/* --producer-cpus: producer i on prod_cpus[i % n] */
	int nprod_cpus;			/* 0: not pinned */
	uint32_t frames;		/* UMEM frames, 0 = engine default */
	double drain;			/* drain timeout, s */
	uint64_t target_ns;		/* --target: room target, ns; XTX_TARGET_OFF: off */
	/* --stop-flows FIRST[-LAST]@S: flows FIRST..LAST stop being offered S seconds into
	 * the run; stop_at_s 0: none. */
	uint32_t stop_first, stop_last;
	double stop_at_s;
	/* --flow-rate FIRST[-LAST]@R: flows FIRST..LAST offered at R together, each at R / n;
	 * fr_pps and fr_bps both 0: none. */
	uint32_t fr_first, fr_last;
	uint64_t fr_pps, fr_bps;
	struct dstguard guard;		/* --allow-dst, --allow-any-dst */
};

/* Parse argv. Returns 0, 1 for --help (printed), or 2 after printing an error: a bad
 * option or value, or a --dst-ip the destination guard refuses (dstguard.h). */
int send_opts_parse(int argc, char **argv, struct send_opts *o);

#endif
