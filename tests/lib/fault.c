/* SPDX-License-Identifier: BSD-3-Clause */
/* fault.c - the hooks behind the fault points compiled into test builds. */
#include <stdatomic.h>

#include "fault.h"

static _Atomic(xtx_fault_mpsc_hook) mpsc_hook;

void xtx_fault__set_mpsc_hook(xtx_fault_mpsc_hook hook)
{
	/* Release, pairs with the acquire load in the fault point. */
	atomic_store_explicit(&mpsc_hook, hook, memory_order_release);
}

void xtx_fault__mpsc_enqueue(struct xtx_mpsc_prod *p)
{
	/* Acquire, pairs with the release store in xtx_fault__set_mpsc_hook(). */
	xtx_fault_mpsc_hook h = atomic_load_explicit(&mpsc_hook, memory_order_acquire);

	if (h)
		h(p);
}
