/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/doctor_facts.h - what xtx-doctor knows of a machine and an interface, as
 * KEY=VALUE facts: read from the running system (facts_collect()) or from a recorded
 * file (facts_load(), what `xtx-doctor --dump-facts` wrote, or a test's fixture). The
 * checks (doctor_checks.c) read facts only, so every branch can be fed from a file.
 *
 * Keys (a missing key: not known here, and the check says so):
 *   if.exists 0|1  sysfs.this_netns 0|1 (/sys shows this namespace)  if.driver  if.fw
 *   if.mtu  if.speed_mbps  if.operstate  if.numa_node
 *   ch.rx ch.tx ch.combined ch.max_rx ch.max_tx ch.max_combined   (ethtool -l)
 *   nl.netdev 0|1 (the netdev netlink family answered)  xdp.features (names, comma
 *   separated: basic,redirect,ndo-xmit,xsk-zerocopy,hw-offload,rx-sg,ndo-xmit-sg)
 *   xdp.zc_max_segs  xsk.features (tx-timestamp,tx-checksum,tx-launch-time-fifo)
 *   irq.count  irq.I.num irq.I.name irq.I.affinity (a CPU list)   the IF's queue IRQs
 *   cpu.online (a CPU list)  node.N.cpus (a CPU list)  node.count
 *   huge.free_2m  huge.free_1g  memlock.cur (bytes, or "unlimited")  caps.eff (hex)
 *   cmdline.isolcpus  cmdline.nohz_full  irqbalance 0|1
 *   napi.defer_hard_irqs  napi.gro_flush_timeout
 *   xps.Q (the TX queue's xps_cpus mask)  rx.queues (RX queues in sysfs)
 */
#ifndef XTX_TOOLS_DOCTOR_FACTS_H
#define XTX_TOOLS_DOCTOR_FACTS_H

#include <stdio.h>

#define FACTS_MAX 512

struct facts {
	unsigned n;
	char *key[FACTS_MAX], *val[FACTS_MAX];
};

void facts_set(struct facts *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The value of key, or NULL. */
const char *facts_get(const struct facts *f, const char *key);
/* The value as a number; def when missing or not a number. */
long long facts_num(const struct facts *f, const char *key, long long def);
/* facts_get(f, "PREFIX.I.NAME") */
const char *facts_geti(const struct facts *f, const char *prefix, long i, const char *name);
void facts_free(struct facts *f);

/* KEY=VALUE lines; '#' comments and blank lines skipped. 0, or -errno / -EINVAL with
 * "FILE:LINE: ..." in err. */
int facts_load(struct facts *f, const char *path, char *err, size_t errlen);
void facts_dump(const struct facts *f, FILE *out);
/* The running system's facts for interface ifname, in this network namespace; reads
 * only (sysfs, procfs, ethtool ioctls that get, the netdev netlink family's dev-get). */
void facts_collect(struct facts *f, const char *ifname);

#endif /* XTX_TOOLS_DOCTOR_FACTS_H */
