/* SPDX-License-Identifier: BSD-3-Clause */
/* mem.c - page-backed allocations placed on a NUMA node. */
#include <errno.h>
#include <numa.h>
#include <sys/mman.h>

#include "mem.h"

void *xtx_mem__alloc(size_t len, int node)
{
	void *p;

	if (len == 0) {
		errno = EINVAL;
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;	/* errno from mmap: ENOMEM */
	/* Binding is a placement hint: on a machine without NUMA it is skipped. */
	if (node >= 0 && numa_available() >= 0 && node <= numa_max_node())
		numa_tonode_memory(p, len, node);
	return p;
}

void xtx_mem__free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}
