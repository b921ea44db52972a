/* SPDX-License-Identifier: BSD-3-Clause */
/* neigh.h - next hop of a destination as the kernel would choose it (rtnetlink). */
#ifndef XTX_SEND_NEIGH_H
#define XTX_SEND_NEIGH_H

#include <netinet/in.h>
#include <stdint.h>

struct nexthop {
	int family;			/* AF_INET or AF_INET6 */
	int oif;			/* output interface index */
	uint8_t src[16];		/* preferred source address (route's prefsrc or the
					 * address the kernel would pick) */
	uint8_t via[16];		/* gateway, or the destination when on-link */
	uint8_t mac[6];			/* next hop's link-layer address */
};

/* Resolve dst (family AF_INET/AF_INET6, 4 or 16 bytes): route, source address, and the
 * neighbour's MAC from the ARP/ND table, probing (a UDP datagram to the discard port
 * makes the kernel resolve) and waiting up to timeout_ms when the entry is missing.
 * need_mac 0 skips the neighbour step. Returns 0 or -errno with a message in err:
 * -ENETUNREACH (no route), -EHOSTUNREACH (no answer to ARP/ND), -EXDEV (the route leaves
 * through another interface than ifindex). */
int nexthop_resolve(int family, const void *dst, int ifindex, int need_mac, int timeout_ms,
		    struct nexthop *nh, char *err, size_t errlen);

#endif
