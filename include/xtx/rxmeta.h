/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/rxmeta.h - the metadata an XDP program leaves in front of a received frame for the
 * engine's receive workers (xtx_engine_opts.rx_ifname). Shared by userspace and BPF
 * (xdp/xtx_redirect.bpf.c): fixed-width types only, no libc.
 *
 * The program grows the XDP metadata area by sizeof(struct xtx_rx_meta) with
 * bpf_xdp_adjust_meta(ctx, -8) and fills it before XDP_REDIRECT into the XSKMAP; the
 * kernel copies it along with the frame (copy mode) or leaves it in place (zero-copy), so
 * it ends right where the RX descriptor's address points:
 *
 *     frame:  ... | struct xtx_rx_meta (8 bytes) | packet (desc.addr, desc.len) ...
 *
 * The receive worker reads it, then clears `magic`, so a later frame that arrives in the
 * same UMEM frame without metadata is not taken for one with stale metadata. A frame
 * without the magic goes to the default class with flow hash 0 (counted: no_meta).
 *
 * Host byte order: the program and the worker run on the same host.
 */
#ifndef XTX_RXMETA_H
#define XTX_RXMETA_H

#include <linux/types.h>

#define XTX_RX_META_MAGIC	0x7852u		/* "Rx" */

struct xtx_rx_meta {
	__u32 hash;		/* flow hash (xtx_desc.hash): one flow stays in order */
	__u16 cls;		/* class index (xtx_desc.cls); no leaf -> default class */
	__u16 magic;		/* XTX_RX_META_MAGIC */
};

#endif /* XTX_RXMETA_H */
