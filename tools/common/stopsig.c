/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/stopsig.c - see stopsig.h. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "stopsig.h"

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIGS	(sizeof(stop_sigs) / sizeof(stop_sigs[0]))

void stopsig_block(void (*handler)(int), sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = handler };
	sigset_t block;

	sigemptyset(&block);
	for (unsigned i = 0; i < NSIGS; i++)
		sigaddset(&block, stop_sigs[i]);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < NSIGS; i++) {
		sigdelset(waitmask, stop_sigs[i]);
		sigaction(stop_sigs[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
}

int stopsig_wait(double wake, const sigset_t *waitmask)
{
	struct timespec ts, *tsp = NULL;
	int err;

	if (wake != INFINITY) {
		double d = wake - cli_now_s(CLOCK_MONOTONIC);

		if (d < 0)
			d = 0;
		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
		tsp = &ts;
	}
	if (ppoll(NULL, 0, tsp, waitmask) >= 0 || errno == EINTR)
		return 0;
	err = -errno;
	fprintf(stderr, "%s: ppoll: %s\n", cli_get_prog(), strerror(-err));
	return err;
}
