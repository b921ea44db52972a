/* SPDX-License-Identifier: BSD-3-Clause */
/* xskraw.c - see xskraw.h. The ring layouts come from the kernel (XDP_MMAP_OFFSETS); the
 * struct fields are filled as libxdp's xsk.c fills them. */
#include <errno.h>
#include <linux/if_xdp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xskraw.h"

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

/* struct xdp_umem_reg as of Linux 6.8: tx_metadata_len sits in what was the padding of
 * the 5.4 struct (the same 32 bytes), so every kernel since takes it whole; one before
 * 6.11 reads tx_metadata_len without the flag, one since only with
 * XDP_UMEM_TX_METADATA_LEN, and each refuses flags it does not know. */
struct umem_reg_v3 {
	uint64_t addr;
	uint64_t len;
	uint32_t chunk_size;
	uint32_t headroom;
	uint32_t flags;
	uint32_t tx_metadata_len;
};
_Static_assert(sizeof(struct umem_reg_v3) == 32, "struct xdp_umem_reg is 32 bytes");

static void ring_unmap(struct xtx_ring_map *m)
{
	if (m->map)
		munmap(m->map, m->len);
	m->map = NULL;
}

static int offsets(int fd, struct xdp_mmap_offsets *off)
{
	socklen_t len = sizeof(*off);

	return getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, off, &len) ? -errno : 0;
}

/* Map the ring at pgoff: its descriptors from o->desc, n entries of esz bytes. */
static void *ring_map(int fd, const struct xdp_ring_offset *o, uint32_t n, size_t esz,
		      uint64_t pgoff, struct xtx_ring_map *m)
{
	m->len = o->desc + n * esz;
	m->map = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		      (off_t)pgoff);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return NULL;
	}
	return m->map;
}

/* A ring struct of type T (xsk_ring_prod or xsk_ring_cons: libxdp gives both the same
 * members) of n entries over the mapping m, laid out as o; its cached indexes 0. */
#define XRING(T, m, o, n) ((T){ .mask = (n) - 1, .size = (n), \
	.producer = (void *)((m) + (o).producer), .consumer = (void *)((m) + (o).consumer), \
	.flags = (void *)((m) + (o).flags), .ring = (m) + (o).desc })

/* The fill and completion rings of fd (the UMEM's or a shared socket's). 0 or -errno. */
static int fq_cq(int fd, uint32_t fill_size, uint32_t comp_size, struct xsk_ring_prod *fill,
		 struct xsk_ring_cons *comp, struct xtx_ring_map *fm, struct xtx_ring_map *cm)
{
	struct xdp_mmap_offsets off;
	uint8_t *f, *c;
	int rc;

	if (setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &fill_size, sizeof(fill_size)) ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &comp_size, sizeof(comp_size)))
		return -errno;
	rc = offsets(fd, &off);
	if (rc)
		return rc;
	f = ring_map(fd, &off.fr, fill_size, sizeof(uint64_t), XDP_UMEM_PGOFF_FILL_RING, fm);
	if (!f)
		return -errno;
	c = ring_map(fd, &off.cr, comp_size, sizeof(uint64_t), XDP_UMEM_PGOFF_COMPLETION_RING,
		     cm);
	if (!c) {
		rc = -errno;
		ring_unmap(fm);
		return rc;
	}
	*fill = XRING(struct xsk_ring_prod, f, off.fr, fill_size);
	fill->cached_cons = fill_size;
	*comp = XRING(struct xsk_ring_cons, c, off.cr, comp_size);
	return 0;
}

int xtx_xumem_create(struct xtx_xumem **out, const struct xtx_xumem_cfg *cfg,
		     struct xsk_ring_prod *fill, struct xsk_ring_cons *comp)
{
	struct umem_reg_v3 reg = {
		.addr = (uint64_t)(uintptr_t)cfg->area, .len = cfg->size,
		.chunk_size = cfg->frame_size, .flags = cfg->flags,
		.tx_metadata_len = cfg->tx_metadata_len,
	};
	struct xtx_xumem *u = calloc(1, sizeof(*u));
	int rc;

	if (!u)
		return -ENOMEM;
	if (cfg->tx_metadata_len)
		reg.flags |= XDP_UMEM_TX_METADATA_LEN;
	u->fill_size = cfg->fill_size;
	u->comp_size = cfg->comp_size;
	u->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		rc = -errno;
		free(u);
		return rc;
	}
	if (setsockopt(u->fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)))
		rc = -errno;
	else
		rc = fq_cq(u->fd, u->fill_size, u->comp_size, fill, comp, &u->fill, &u->comp);
	if (rc) {
		close(u->fd);
		free(u);
		return rc;
	}
	*out = u;
	return 0;
}

void xtx_xumem_delete(struct xtx_xumem *u)
{
	if (!u)
		return;
	ring_unmap(&u->fill);
	ring_unmap(&u->comp);
	close(u->fd);
	free(u);
}

/* Size s's RX or TX ring (once on the UMEM's socket: *set says it was). */
static int xring(struct xtx_xsk *s, int opt, uint32_t size, int *set)
{
	if (!s->owns_fd && *set)
		return 0;
	if (setsockopt(s->fd, SOL_XDP, opt, &size, sizeof(size)))
		return -errno;
	*set |= !s->owns_fd;
	return 0;
}

int xtx_xsk_create(struct xtx_xsk **out, int ifindex, uint32_t qid, struct xtx_xumem *u,
		   struct xsk_ring_cons *rx, uint32_t rx_size, struct xsk_ring_prod *tx,
		   uint32_t tx_size, struct xsk_ring_prod *fill, struct xsk_ring_cons *comp,
		   uint16_t bind_flags)
{
	struct sockaddr_xdp sxdp = { .sxdp_family = AF_XDP, .sxdp_ifindex = (uint32_t)ifindex,
				     .sxdp_queue_id = qid };
	struct xtx_xsk *s = calloc(1, sizeof(*s));
	struct xdp_mmap_offsets off;
	int first = !u->fd_taken, rc;
	uint8_t *m;

	if (!s)
		return -ENOMEM;
	s->fd = first ? u->fd : socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	s->owns_fd = !first;
	if (s->fd < 0) {
		rc = -errno;
		free(s);
		return rc;
	}
	if ((rx && (rc = xring(s, XDP_RX_RING, rx_size, &u->rx_set))) ||
	    (tx && (rc = xring(s, XDP_TX_RING, tx_size, &u->tx_set))))
		goto fail;
	if (!first && (rc = fq_cq(s->fd, u->fill_size, u->comp_size, fill, comp, &s->fill,
				  &s->comp)))
		goto fail;
	rc = offsets(s->fd, &off);
	if (rc)
		goto fail;
	if (rx) {
		m = ring_map(s->fd, &off.rx, rx_size, sizeof(struct xdp_desc), XDP_PGOFF_RX_RING,
			     &s->rx);
		if (!m) {
			rc = -errno;
			goto fail;
		}
		*rx = XRING(struct xsk_ring_cons, m, off.rx, rx_size);
		rx->cached_prod = *rx->producer;
		rx->cached_cons = *rx->consumer;
	}
	if (tx) {
		m = ring_map(s->fd, &off.tx, tx_size, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING,
			     &s->tx);
		if (!m) {
			rc = -errno;
			goto fail;
		}
		*tx = XRING(struct xsk_ring_prod, m, off.tx, tx_size);
		tx->cached_prod = *tx->producer;
		tx->cached_cons = *tx->consumer + tx_size;
	}
	if (first) {
		sxdp.sxdp_flags = bind_flags;
	} else {
		sxdp.sxdp_flags = XDP_SHARED_UMEM;
		sxdp.sxdp_shared_umem_fd = (uint32_t)u->fd;
	}
	if (bind(s->fd, (struct sockaddr *)&sxdp, sizeof(sxdp))) {
		rc = -errno;
		goto fail;
	}
	u->fd_taken |= first;
	*out = s;
	return 0;
fail:
	xtx_xsk_delete(s);
	return rc;
}

void xtx_xsk_delete(struct xtx_xsk *s)
{
	if (!s)
		return;
	ring_unmap(&s->rx);
	ring_unmap(&s->tx);
	ring_unmap(&s->fill);
	ring_unmap(&s->comp);
	if (s->owns_fd)
		close(s->fd);
	free(s);
}
