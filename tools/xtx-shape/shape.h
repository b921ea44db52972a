/* SPDX-License-Identifier: BSD-3-Clause */
/* shape.h - the parts of xtx-shape: main.c (options, the run loop, signals, output),
 * attach.c (namespace, per-interface lock, stale-program cleanup, XDP attach/detach, the
 * XSKMAP) and rules.c (the classifier rules; rules.h). Internal to the tool.
 */
#ifndef XTX_SHAPE_TOOL_H
#define XTX_SHAPE_TOOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <xdp/libxdp.h>

#include <xtx/xtx.h>
#include "doctor_checks.h"
#include "../../xdp/xtx_redirect.h"
#include "iflock.h"
#include "rules.h"
#include "xdpattach.h"
#include "xtx_redirect.skel.h"

#define SHAPE_PROG_NAME	"xtx_redirect"	/* the XDP function's name, as the kernel reports it */
#define SHAPE_POLICE_NS	20000000ull	/* --police default: 20 ms (docs/design.md, "Policing") */

struct shape_opts {
	const char *in, *out;		/* interfaces */
	const char *classes, *rules;	/* files; rules may be NULL */
	const char *netns;		/* NULL: the current namespace */
	const char *ready_file;
	const char *cpus, *rx_cpus;
	unsigned queues;		/* ingress queues (receive workers) */
	unsigned tx_queues;		/* egress queues (dequeuers, schedulers) */
	uint32_t frames;		/* 0: computed */
	uint32_t max_classes;		/* --max-classes; 0: the engine's default */
	double duration_s, interval_s;
	bool l2, json, skb_mode, copy, rx_copy, busy_poll, verbose;
	bool queue_classes;		/* --queue-classes: mq semantics */
	bool no_doctor;			/* --no-doctor: no xtx-doctor checks at start */
	uint64_t police_ns;		/* --police: room target of the policed leaves; 0 off */
	const char *control;		/* --control: path, "off", NULL the default */
	const char *metrics;		/* --metrics ADDR:PORT; NULL: none */
};

struct shape {
	struct shape_opts opt;
	int in_ifindex, out_ifindex;
	uint8_t in_mac[6];
	struct iflock lock;		/* lock.fd -1: not locked */
	bool doctored;			/* doctor_in, doctor_out: xtx-doctor's lines */
	struct doctor_line doctor_in, doctor_out;
	struct xtx_redirect *skel;
	struct xdpa_prog xp;		/* the program from skel, on in_ifindex */
	int ncpu;
	const char *gone;		/* the interface that disappeared during the run */
	unsigned ncls;			/* class indexes (slots): xtx_engine__class_count() */
	unsigned reloads, reloads_refused;	/* SIGHUP: class file taken, refused */
	uint32_t overhead;		/* its per-frame overhead */
	uint64_t *police;		/* rd_police, mmapped (tx_queues * ncls words) */
	size_t police_len;
	struct xtx_xdp_counter *policed;	/* per class, read before detach */
	/* --metrics (metrics.c) */
	struct xtx_engine *engine;
	int metrics_fd, metrics_stop[2], metrics_started;
	pthread_t metrics_th;
};

/* metrics.c: --metrics over HTTP, after the engine opened and before capabilities are
 * dropped (a port below 1024); stop before the engine stops. 0 or -errno after the
 * message; nothing without --metrics. */
int shape_metrics_start(struct shape *s, struct xtx_engine *e);
void shape_metrics_stop(struct shape *s);

/* attach.c. Each returns 0 or -errno after printing what went wrong and what to do. */
int shape_lock(struct shape *s);
void shape_unlock(struct shape *s);
int shape_detach_stale(struct shape *s);
int shape_attach(struct shape *s, const struct rd_rules *rs);
int shape_fill_xskmap(struct shape *s, struct xtx_engine *e);
/* --police: the engine's room mirrored into the program's rd_police (attached first). */
int shape_police(struct shape *s, struct xtx_engine *e);
/* Frames the program dropped by policing, per class, into s->policed (before detach). */
int shape_read_policed(struct shape *s);
/* Unmap rd_police, after xtx_engine__close(). */
void shape_unpolice(struct shape *s);
int shape_detach(struct shape *s);
int shape_drop_caps(const struct shape *s, const struct xtx_engine *e);
int shape_check_caps(const struct shape *s);

#endif /* XTX_SHAPE_TOOL_H */
