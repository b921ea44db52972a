/* SPDX-License-Identifier: BSD-3-Clause */
/* nic.h - what the engine reads about an interface from sysfs (internal to libxtx). */
#ifndef XTX_NIC_H
#define XTX_NIC_H

/* The NUMA node of IF's device, from SYSFS/class/net/IF/device/numa_node (SYSFS NULL:
 * "/sys"). Returns 0 with *node >= 0, or *node = -1 when the device has no node: no
 * device directory (a virtual device such as veth) or the kernel's "-1" (one node, or
 * the firmware did not say). Returns -errno with *node = -1 when the file exists but
 * cannot be read, -EINVAL when it does not hold one integer >= -1. */
int xtx_nic_numa_node(const char *sysfs, const char *ifname, int *node);

/* As xtx_nic_numa_node(), with a warning (print.h; none if quiet) when the file cannot
 * be read or parsed. Returns the node, or -1 (none, or unreadable). */
int xtx_nic_numa_node_said(const char *sysfs, const char *ifname, int quiet);

/* The number of TX queues of IF (SYSFS/class/net/IF/queues/tx-*), 0 if unknown. */
unsigned xtx_nic_tx_queues(const char *sysfs, const char *ifname);

#endif /* XTX_NIC_H */
