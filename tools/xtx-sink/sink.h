/* SPDX-License-Identifier: BSD-3-Clause */
/* sink.h - the parts of xtx-sink: main.c (options, the run loop, signals), attach.c
 * (namespace, per-interface lock, stale-program cleanup, XDP attach/detach) and report.c
 * (reading the maps, interval lines, the summary as text or JSON). Internal to the tool.
 */
#ifndef XTX_SINK_TOOL_H
#define XTX_SINK_TOOL_H

#include <stdbool.h>
#include <stdio.h>
#include <xdp/libxdp.h>

#include "../../xdp/xtx_sink.h"
#include "iflock.h"
#include "xdpattach.h"
#include "xtx_sink.skel.h"

#define SINK_PROG_NAME	"xtx_sink"	/* the XDP function's name, as the kernel reports it */

struct sink_opts {
	const char *dev;
	const char *netns;		/* NULL: the current namespace */
	const char *ready_file;		/* NULL: none */
	double duration_s;		/* 0: until SIGINT/SIGTERM */
	double interval_s;		/* 0: no interval lines */
	unsigned port_lo, port_hi;	/* matched UDP destination ports, inclusive */
	unsigned ngroups;		/* delay groups, each with a histogram */
	unsigned group_mod;		/* --delay-mod M: group g holds the ports p with
					 * (p - port_lo) % M == g; 0: --delay-group ranges */
	unsigned group_lo[XTX_SINK_DELAY_GROUPS], group_hi[XTX_SINK_DELAY_GROUPS];
	bool json;
	bool skb_mode;			/* skip native, attach in skb (generic) mode */
	bool pass;			/* XDP_PASS matched frames instead of XDP_DROP */
	bool verbose;			/* libbpf/libxdp info messages too */
};

struct sink {
	struct sink_opts opt;
	int ifindex;
	struct iflock lock;		/* lock.fd -1: not locked */
	struct xtx_sink *skel;
	struct xdpa_prog xp;		/* the program from skel, on ifindex */
	int ncpu;			/* possible CPUs: per-CPU map value count */
};

/* attach.c. Each returns 0 or -errno after printing what went wrong and what to do. */
int sink_lock(struct sink *s);
void sink_unlock(struct sink *s);
int sink_detach_stale(struct sink *s);
int sink_attach(struct sink *s);
int sink_detach(struct sink *s);

/* report.c */
struct sink_snapshot {
	struct xtx_xdp_counter st[XTX_SINK_STAT_MAX];
};
int sink_read_stats(const struct sink *s, struct sink_snapshot *out);
void sink_print_interval(const struct sink *s, const struct sink_snapshot *prev,
			 const struct sink_snapshot *cur, double t_s, double dt_s);
int sink_report(const struct sink *s, double duration_s, FILE *out);

#endif /* XTX_SINK_TOOL_H */
