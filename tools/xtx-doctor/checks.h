/* SPDX-License-Identifier: BSD-3-Clause */
/* checks.h - xtx-doctor's checks: each reads facts (facts.h) and says pass, warn or fail,
 * what it found, and the command that fixes it. */
#ifndef XTX_DOCTOR_CHECKS_H
#define XTX_DOCTOR_CHECKS_H

#include <stdbool.h>

#include "facts.h"

enum status { ST_PASS, ST_WARN, ST_FAIL };

struct check {
	const char *name;
	enum status status;
	char detail[512];
	char fix[512];
};

struct doctor_opts {
	unsigned queues;	/* --queues; 0: not given */
	const char *cpus;	/* --cpus (the dequeuers'); NULL: not given */
	bool busy_poll;		/* --busy-poll */
	bool zero_copy;		/* --zero-copy */
	unsigned frame_room;	/* bytes a frame may take in a UMEM chunk */
};

#define CHECKS_MAX 24

/* Every check, in order, into out[]; returns how many. */
unsigned doctor_run(const struct facts *f, const struct doctor_opts *o, struct check *out);
const char *status_str(enum status s);

#endif /* XTX_DOCTOR_CHECKS_H */
