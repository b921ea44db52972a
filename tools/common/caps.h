/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/caps.h - this thread's capabilities (capget/capset, version 3): asking for
 * one before it is needed, so that a tool can name what is missing instead of passing on
 * an EPERM from deep inside a library, and giving up all but a few once setup is done
 * (least privilege: xtx-send keeps none, xtx-shape what its teardown needs).
 */
#ifndef XTX_TOOLS_CAPS_H
#define XTX_TOOLS_CAPS_H

#include <stdint.h>

/* A mask of capabilities for caps_keep(). */
#define CAPS_BIT(cap)	(1ull << (cap))

/* 1 if cap (CAP_NET_ADMIN, ...) is in this thread's effective set, 0 if not, -errno if the
 * kernel does not say (capget). */
int caps_have(int cap);
/* Keep only the capabilities in keep (CAPS_BIT(CAP_X) | ...; 0: none) in the effective
 * and permitted sets; empty the inheritable and ambient sets. Returns 0 or -errno. */
int caps_keep(uint64_t keep);

#endif /* XTX_TOOLS_CAPS_H */
