/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/iflock.h - one live instance of a tool per interface and network
 * namespace (xtx-shape on its ingress interface, xtx-sink on its interface).
 *
 * The lock is DIR/net<netns inode>-if<ifindex>.lock, held with flock() for the whole run;
 * the kernel drops it when the process dies however it dies, so while we hold it no other
 * live instance uses the interface, and what such an instance would have attached is a
 * killed run's leftover. The directory is 0700 and the file 0600 (owner-only: they name
 * interfaces and PIDs of a root tool); the file holds the holder's PID for messages. */
#ifndef XTX_TOOLS_IFLOCK_H
#define XTX_TOOLS_IFLOCK_H

struct iflock {
	int fd;			/* -1: not held */
	char path[128];
};

/* Take the lock of ifindex (ifname, for messages) in dir for prog. busy: how a holder
 * uses the interface, for the message ("is using", "is attached to"). Returns 0, or
 * -errno after saying what went wrong and what to do. */
int iflock_take(struct iflock *l, const char *prog, const char *dir, int ifindex,
		const char *ifname, const char *busy);
/* Release (unlinks the file while still holding it). */
void iflock_release(struct iflock *l);

#endif /* XTX_TOOLS_IFLOCK_H */
