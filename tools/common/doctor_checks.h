/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/doctor_checks.h - xtx-doctor's checks: each reads facts (doctor_facts.h)
 * and says pass, warn or fail, what it found, and the command that fixes it. xtx-send and
 * xtx-shape run them too, for the one line of doctor_summary() at their start. */
#ifndef XTX_TOOLS_DOCTOR_CHECKS_H
#define XTX_TOOLS_DOCTOR_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "doctor_facts.h"
#include "json.h"

enum doctor_status { DOCTOR_PASS, DOCTOR_WARN, DOCTOR_FAIL };

struct doctor_check {
	const char *name;
	enum doctor_status status;
	char detail[512];
	char fix[512];
};

struct doctor_opts {
	unsigned queues;	/* --queues; 0: not given */
	const char *cpus;	/* --cpus (the dequeuers'); NULL: not given */
	bool busy_poll;		/* --busy-poll */
	bool zero_copy;		/* --zero-copy */
	bool zc_prog_off;	/* --zc-prog off: xtx attaches no XDP program */
	int tx_csum;		/* --tx-csum: 0 off, 1 on (the device), 2 sw */
	bool tx_timestamps;	/* --tx-timestamps */
	unsigned frame_room;	/* bytes a frame may take in a UMEM chunk */
	unsigned frame_len;	/* the longest frame a sender will build (no FCS); 0: frames
				 * of the MTU, as a forwarder gets */
};

#define DOCTOR_CHECKS_MAX 24

/* The tx-metadata check alone: what the TX metadata xtx is asked to use (o->tx_csum,
 * o->tx_timestamps) needs of the device in zero-copy mode, where the driver acts on it
 * (copy mode: the kernel does, always). detail and fix filled. */
enum doctor_status doctor_txmd(const struct facts *f, const struct doctor_opts *o,
			       char *detail, size_t dlen, char *fix, size_t flen);
/* Every check, in order, into out[]; returns how many. */
unsigned doctor_run(const struct facts *f, const struct doctor_opts *o, struct doctor_check *out);
const char *doctor_status_str(enum doctor_status s);

/* A run's checks in one line: "IF: P pass, W warn, F fail" and, for each that did not
 * pass, ", STATUS NAME"; cnt[] indexed by enum doctor_status. */
struct doctor_line {
	unsigned cnt[3];
	char text[1024];
};
void doctor_summary(const char *ifname, const struct doctor_check *c, unsigned n,
		    struct doctor_line *out);
/* The checks of ifname in this network namespace (facts_collect(), doctor_run()), for a
 * tool's start. */
void doctor_check_iface(const char *ifname, const struct doctor_opts *o,
			struct doctor_line *out);
/* {"pass", "warn", "fail", "line"} as the value of a field the caller has named. */
void doctor_line_json(struct jsonw *w, const struct doctor_line *l);

#endif /* XTX_TOOLS_DOCTOR_CHECKS_H */
