/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx_counter.h - the per-CPU {packets, bytes} counter of the XDP programs (xtx_redirect's
 * rd_stats, xtx_sink's stats and port_stats) and its sum over CPUs for their readers (the
 * tools and the tests). Fixed-width types only, no libc: compiled both by clang -target
 * bpf and by gcc.
 */
#ifndef XTX_COUNTER_H
#define XTX_COUNTER_H

#include <linux/types.h>

struct xtx_xdp_counter {
	__u64 pkts;
	__u64 bytes;
};

/* Add the ncpu per-CPU values v[0..ncpu) of one map slot (what a lookup in a per-CPU
 * array returns) to *sum. */
static inline void xtx_xdp_counter_add(struct xtx_xdp_counter *sum,
				       const struct xtx_xdp_counter *v, int ncpu)
{
	for (int c = 0; c < ncpu; c++) {
		sum->pkts += v[c].pkts;
		sum->bytes += v[c].bytes;
	}
}

#endif /* XTX_COUNTER_H */
