/* SPDX-License-Identifier: BSD-3-Clause */
/* stat.h - the engine's counters and gauges (internal to libxtx).
 *
 * Rule: each counter or gauge has one writer at a time (the thread that owns it, or
 * whoever holds the lock that guards it) and any number of readers. The writer uses a
 * relaxed load + store, no RMW (CTR_ADD, CTR_SET); a reader a relaxed load (CTR_GET, also
 * of a count that several threads keep by RMW, as the pool's frames). Relaxed suffices: a
 * reader wants a recent value of each, not an order between them (frames themselves
 * change hands through the pool and the stages, which order them). Anything that must
 * order other memory uses an atomic of its own, with its pairing named.
 */
#ifndef XTX_STAT_H
#define XTX_STAT_H

#include <stdatomic.h>

#define CTR_ADD(c, v) atomic_store_explicit(&(c), \
	atomic_load_explicit(&(c), memory_order_relaxed) + (v), memory_order_relaxed)
#define CTR_SET(c, v) atomic_store_explicit(&(c), (v), memory_order_relaxed)
#define CTR_GET(c) atomic_load_explicit(&(c), memory_order_relaxed)

#endif /* XTX_STAT_H */
