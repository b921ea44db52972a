/* SPDX-License-Identifier: BSD-3-Clause */
/* mem.h - page-backed allocations placed on a NUMA node (internal to libxtx). */
#ifndef XTX_MEM_H
#define XTX_MEM_H

#include <stddef.h>

/* Zeroed, page-aligned memory of len bytes, bound to NUMA node `node` when node >= 0 and
 * the system has NUMA (otherwise local to the first touch). NULL with errno on failure. */
void *xtx_mem__alloc(size_t len, int node);
void xtx_mem__free(void *p, size_t len);

#endif /* XTX_MEM_H */
