/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/netdev.h - what the tools read about an interface of the current network
 * namespace with an ioctl on a throwaway socket: its MAC address, its MTU, its receive
 * queue count. Each returns 0 or -errno (no interface of that name: -ENODEV) and prints
 * nothing: the tool says what to do about it.
 */
#ifndef XTX_TOOLS_NETDEV_H
#define XTX_TOOLS_NETDEV_H

#include <stdint.h>

/* The interface's hardware address (SIOCGIFHWADDR), its first 6 bytes. */
int netdev_mac(const char *ifname, uint8_t mac[6]);
/* The interface's MTU (SIOCGIFMTU). */
int netdev_mtu(const char *ifname, int *mtu);
/* Receive queues: rx + combined channels (ETHTOOL_GCHANNELS). Through ethtool, so it is
 * the current namespace's interface, where /sys may show another namespace's. */
int netdev_rx_queues(const char *ifname, unsigned *n);

#endif /* XTX_TOOLS_NETDEV_H */
