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
 */
#ifndef XTX_TOOLS_STOPSIG_H
#define XTX_TOOLS_STOPSIG_H

#include <signal.h>

/* Block the three stop signals, give them handler (which should only set a flag), ignore
 * SIGPIPE; *waitmask is the mask to wait with: the one before, without the three. */
void stopsig_block(void (*handler)(int), sigset_t *waitmask);
/* Wait for a stop signal, or until wake (seconds on CLOCK_MONOTONIC, as cli_now_s();
 * INFINITY: no timeout; a time past: do not wait). Returns 0 (also after a signal), or
 * -errno after printing "PROG: ppoll: ..." (cli.h's program name). */
int stopsig_wait(double wake, const sigset_t *waitmask);

#endif /* XTX_TOOLS_STOPSIG_H */
