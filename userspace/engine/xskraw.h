/* SPDX-License-Identifier: BSD-3-Clause */
/* xskraw.h - a UMEM and AF_XDP sockets set up by hand (socket, setsockopt, mmap, bind),
 * in place of libxdp's xsk_umem__create() and xsk_socket__create*() (internal to libxtx).
 *
 * Why: TX metadata (checksum offload, TX timestamps, launch time; Linux 6.8+) needs the
 * UMEM registered with tx_metadata_len and XDP_UMEM_TX_METADATA_LEN, which libxdp 1.3.1
 * (Debian 12's) cannot pass. The rings stay libxdp's structs (xdp/xsk.h), so its inline
 * ring helpers serve unchanged; no XDP program is ever loaded here.
 *
 * Rules, as the kernel's net/xdp/xsk.c wants them:
 * - The UMEM is registered on one socket, which also holds its first fill and
 *   completion rings; the first socket of the UMEM is that socket.
 * - Every other socket binds with XDP_SHARED_UMEM to it and brings a fill and a
 *   completion ring of its own (each socket here has its own device and queue); it
 *   takes the first socket's mode: no mode flags on a shared bind.
 * - A refused bind of the first socket may be retried (with other flags) on the same
 *   UMEM; a refused shared socket leaves nothing.
 * - A socket's rings are unmapped and its descriptor closed by xtx_xsk_delete(); the
 *   UMEM's socket stays open until xtx_xumem_delete(), after every socket on it.
 */
#ifndef XTX_XSKRAW_H
#define XTX_XSKRAW_H

#include <stddef.h>
#include <stdint.h>
#include <xdp/xsk.h>

/* Linux 6.8+ uapi that Debian 12's headers (6.1) lack. */
#ifndef XDP_UMEM_TX_SW_CSUM
#define XDP_UMEM_TX_SW_CSUM		(1 << 1)
#endif
#ifndef XDP_UMEM_TX_METADATA_LEN
#define XDP_UMEM_TX_METADATA_LEN	(1 << 2)
#endif
#ifndef XDP_USE_SG
#define XDP_USE_SG			(1 << 4)
#endif

struct xtx_xumem_cfg {
	void *area;
	uint64_t size;
	uint32_t frame_size;
	uint32_t fill_size, comp_size;	/* ring sizes, powers of two */
	uint32_t flags;			/* XDP_UMEM_* */
	uint32_t tx_metadata_len;	/* 0: none; else with XDP_UMEM_TX_METADATA_LEN */
};

struct xtx_ring_map {
	void *map;
	size_t len;
};

struct xtx_xumem {
	int fd;				/* the socket the UMEM is registered on */
	int fd_taken;			/* its first socket was created on fd */
	int rx_set, tx_set;		/* fd's RX / TX ring sized: a retry of a refused
					 * first bind (another mode) must not size it again */
	uint32_t fill_size, comp_size;	/* every socket's fill and completion rings */
	struct xtx_ring_map fill, comp;
};

struct xtx_xsk {
	int fd;
	int owns_fd;			/* 0: the UMEM's socket (closed with the UMEM) */
	struct xtx_ring_map rx, tx, fill, comp;
};

/* Register cfg's area; *fill and *comp become its first rings. 0 or -errno. */
int xtx_xumem_create(struct xtx_xumem **out, const struct xtx_xumem_cfg *cfg,
		     struct xsk_ring_prod *fill, struct xsk_ring_cons *comp);
void xtx_xumem_delete(struct xtx_xumem *u);

/* A socket on ifindex's queue qid with an RX ring of rx_size (rx NULL: none) and a TX ring
 * of tx_size (tx NULL: none). The UMEM's first socket binds with bind_flags and uses
 * its rings (fill and comp are ignored); a later one binds shared and needs fill, comp
 * (sized as the UMEM's). 0 or -errno. */
int xtx_xsk_create(struct xtx_xsk **out, int ifindex, uint32_t qid, struct xtx_xumem *u,
		   struct xsk_ring_cons *rx, uint32_t rx_size, struct xsk_ring_prod *tx,
		   uint32_t tx_size, struct xsk_ring_prod *fill, struct xsk_ring_cons *comp,
		   uint16_t bind_flags);
void xtx_xsk_delete(struct xtx_xsk *s);

#endif /* XTX_XSKRAW_H */
