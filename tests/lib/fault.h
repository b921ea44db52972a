/* SPDX-License-Identifier: BSD-3-Clause */
/* fault.h - test-only fault points (built with -DXTX_FAULT_INJECT). */
#ifndef XTX_TEST_FAULT_H
#define XTX_TEST_FAULT_H

#include <xtx/mpsc.h>

/* Called between writing a lane's slots and publishing them. NULL = no hook. */
typedef void (*xtx_fault_mpsc_hook)(struct xtx_mpsc_prod *p);
void xtx_fault__set_mpsc_hook(xtx_fault_mpsc_hook hook);

#endif
