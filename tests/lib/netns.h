/* SPDX-License-Identifier: BSD-3-Clause */
/* netns.h - the guard every network test binary calls before it opens a socket.
 *
 * A test sends only inside a network namespace that its script created. The host's
 * namespace is PID 1's and that of the oldest ancestor below PID 1 that can be read
 * (where PID 1 cannot be read, in a sandbox, that ancestor is the host's session). A
 * process whose namespace equals either refuses to send.
 */
#ifndef XTX_TEST_NETNS_H
#define XTX_TEST_NETNS_H

/* 0 when this process's network namespace differs from PID 1's and from the oldest
 * readable ancestor's. Otherwise prints "WHO: refusing to run ..." on stderr and returns -EPERM
 * (a shared namespace) or -errno (this process's own namespace could not be read). */
int netns_require_private(const char *who);

#endif
