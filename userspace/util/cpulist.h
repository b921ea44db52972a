/* SPDX-License-Identifier: BSD-3-Clause */
/* cpulist.h - CPU lists such as "0,2-3", as taskset -c and sysfs write them (internal to
 * libxtx; the tools link it too, through tools/common/cli.c). */
#ifndef XTX_CPULIST_H
#define XTX_CPULIST_H

#include <sched.h>
#include <stddef.h>

/* A CPU list like "0,2-3" (items N or A-B, decimal, A <= B, CPUs 0..max_cpu-1, separated
 * by commas; one comma at the end is taken): the CPUs in order, repeats kept, into
 * cpus[0..n) (the rest are counted, not stored; cpus may be NULL with n 0, to check only).
 * Returns how many the list names (at least 1), or -EINVAL. */
int xtx_cpulist_parse(const char *s, int max_cpu, int *cpus, int n);

/* The CPUs of set as a list like "0-3,8" into buf (truncated to len, always terminated). */
void xtx_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

#endif /* XTX_CPULIST_H */
