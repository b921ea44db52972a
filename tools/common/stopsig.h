/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/stopsig.h - the stop signals of the tools that run until told (xtx-shape,
 * xtx-sink): SIGINT, SIGTERM and SIGHUP are blocked except while the run loop waits in
 * stopsig_wait(), where their handler only records the signal. So a signal cannot cut
 * setup short halfway, and the loop sees every one without a race (the pselect/ppoll
 * idiom). SIGPIPE is ignored: a closed stdout must not end the run before the tool has
 * detached what it attached.
 *
 *   stopsig_block(on_signal, &waitmask);       first, before any setup
 *   while (!stop) { ...; stopsig_wait(wake, &waitmask); ... }
 *
 * The run loop's clock, struct stopsig_run: an interval line every interval_s, the end
 * after duration_s:
 *
 *   stopsig_run_init(&r, interval_s, duration_s);
 *   while (!stop) {
 *           stopsig_run_wait(&r, max_s, &waitmask, &t);
 *           if (stopsig_run_tick(&r, t, &dt)) { the line, for t - r.t0 and dt }
 *           if (stopsig_run_over(&r, t)) break;
 *   }
 *   duration = cli_now_s(CLOCK_MONOTONIC) - r.t0;
 */
#ifndef XTX_TOOLS_STOPSIG_H
#define XTX_TOOLS_STOPSIG_H

#include <signal.h>
#include <stdbool.h>

/* Block the three stop signals, give them handler (which should only set a flag), ignore
 * SIGPIPE; *waitmask is the mask to wait with: the one before, without the three. */
void stopsig_block(void (*handler)(int), sigset_t *waitmask);
/* Wait for a stop signal, or until wake (seconds on CLOCK_MONOTONIC, as cli_now_s();
 * INFINITY: no timeout; a time past: do not wait). Returns 0 (also after a signal), or
 * -errno after printing "PROG: ppoll: ..." (cli.h's program name). */
int stopsig_wait(double wake, const sigset_t *waitmask);

/* Seconds on CLOCK_MONOTONIC, as cli_now_s(). */
struct stopsig_run {
	double t0;			/* the start */
	double tick;			/* the next interval line */
	double last;			/* the last interval line (or the start) */
	double deadline;		/* t0 + duration_s */
	double interval_s;		/* 0: no interval lines */
	double duration_s;		/* 0: until a signal */
};
/* A run that starts now. */
void stopsig_run_init(struct stopsig_run *r, double interval_s, double duration_s);
/* stopsig_wait() until the next interval line, the end of the duration or a signal, and
 * at most max_s (INFINITY: no more limit); *t: the time after it. Returns its result. */
int stopsig_run_wait(const struct stopsig_run *r, double max_s, const sigset_t *waitmask,
		     double *t);
/* Whether an interval line is due at t; then *dt is the time since the last one, and
 * the next is set. */
bool stopsig_run_tick(struct stopsig_run *r, double t, double *dt);
/* Whether the duration is over at t. */
bool stopsig_run_over(const struct stopsig_run *r, double t);

#endif /* XTX_TOOLS_STOPSIG_H */
