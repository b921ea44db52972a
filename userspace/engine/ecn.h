/* SPDX-License-Identifier: BSD-3-Clause */
/* ecn.h - ECN marking of a queued frame for CoDel (ecn.c). */
#ifndef XTX_ENGINE_ECN_H
#define XTX_ENGINE_ECN_H

#include <stdint.h>
#include <xtx/desc.h>

/* Mark the IP packet in frame f (len bytes, from the Ethernet header) CE if it is
 * ECN-capable: 1 if it is CE now, 0 if it was not ECN-capable or not IP (unchanged). */
int xtx_ecn_set_ce(uint8_t *f, uint32_t len);
/* xtx_sched_opts.ecn_mark: ctx is the engine's struct xtx_frames. */
int xtx_ecn_mark(void *ctx, const struct xtx_desc *d);

#endif /* XTX_ENGINE_ECN_H */
