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

void stopsig_run_init(struct stopsig_run *r, double interval_s, double duration_s)
{
	r->t0 = cli_now_s(CLOCK_MONOTONIC);
	r->tick = r->t0 + interval_s;
	r->last = r->t0;
	r->deadline = r->t0 + duration_s;
	r->interval_s = interval_s;
	r->duration_s = duration_s;
}

int stopsig_run_wait(const struct stopsig_run *r, double max_s, const sigset_t *waitmask,
		     double *t)
{
	double wake = INFINITY, now = cli_now_s(CLOCK_MONOTONIC);
	int err;

	if (r->interval_s > 0)
		wake = r->tick;
	if (r->duration_s > 0 && r->deadline < wake)
		wake = r->deadline;
	if (wake > now + max_s)
		wake = now + max_s;
	err = stopsig_wait(wake, waitmask);
	*t = cli_now_s(CLOCK_MONOTONIC);
	return err;
}

bool stopsig_run_tick(struct stopsig_run *r, double t, double *dt)
{
	if (r->interval_s <= 0 || t < r->tick)
		return false;
	*dt = t - r->last;
	r->last = t;
	while (r->tick <= t)
		r->tick += r->interval_s;
	return true;
}

bool stopsig_run_over(const struct stopsig_run *r, double t)
{
	return r->duration_s > 0 && t >= r->deadline;
}
