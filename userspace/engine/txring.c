/* SPDX-License-Identifier: BSD-3-Clause */
/* txring.c - see txring.h. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <xtx/xtx.h>

#include "nulldev.h"
#include "txring.h"

void xtx_txring__poll(struct xtx_txring *t, uint64_t now)
{
	if (t->null && xtx_nulldev_inflight(t->null))
		xtx_nulldev_run(t->null, now);
}

int xtx_txring__kick(struct xtx_txring *t, uint64_t now)
{
	if (t->null) {
		xtx_nulldev_run(t->null, now);
		return 0;
	}
	if (sendto(t->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
		return 0;
	return -errno;
}

#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD	(1 << 0)	/* xdp_desc.options, Linux 6.6 */
#endif

/* A multi-buffer descriptor's segments (xtx/xtx.h, xtx_desc__set_chain()): the first in
 * its own frame, then one per further frame, each with XDP_PKT_CONTD but the last; TX
 * metadata goes with the first only. */
uint64_t xtx_txring__write_mb(struct xtx_txring *t, const struct xtx_desc *d, unsigned n)
{
	uint32_t idx = 0, nd = 0, k = 0;
	uint64_t bytes = 0;

	for (unsigned i = 0; i < n; i++)
		nd += d[i].addr & XTX_DESC_F_MB ? (d[i].len + t->room - 1) / t->room : 1;
	xsk_ring_prod__reserve(&t->tx, nd, &idx);
	for (unsigned i = 0; i < n; i++) {
		uint64_t a = d[i].addr & XTX_DESC_ADDR_MASK;
		uint32_t left = d[i].len, segs = 1;
		const unsigned char *chain = (const unsigned char *)t->area + a - XTX_MB_CHAIN_OFF;
		uint32_t md = (uint32_t)(d[i].addr >> 61) & XDP_TX_METADATA;

		if (d[i].addr & XTX_DESC_F_MB)
			segs = (d[i].len + t->room - 1) / t->room;
		for (uint32_t s = 0; s < segs; s++) {
			struct xdp_desc *x = xsk_ring_prod__tx_desc(&t->tx, idx + k++);

			if (s) {
				memcpy(&a, chain + 8 * (s - 1), 8);
				a &= XTX_DESC_ADDR_MASK;
			}
			x->addr = a;
			x->len = left < t->room ? left : t->room;
			x->options = (s + 1 < segs ? XDP_PKT_CONTD : 0) | (s ? 0 : md);
			left -= x->len;
		}
		bytes += d[i].len;
	}
	xsk_ring_prod__submit(&t->tx, nd);
	t->outstanding += nd;
	return bytes;
}
