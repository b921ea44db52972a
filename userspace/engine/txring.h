/* SPDX-License-Identifier: BSD-3-Clause */
/* txring.h - one TX queue's transmit side: descriptors into the TX ring, the device told
 * of them (kick), completions back (internal to libxtx). Its one user is the queue's
 * dequeuer, which counts what these return.
 *
 * Rules:
 * - The rings are libxdp's (struct xsk_ring_prod / xsk_ring_cons), whoever plays the
 *   device's side of them: the kernel behind the AF_XDP socket `fd`, or, when `null` is
 *   set, a user-space device (nulldev.h) that xtx_txring__kick() runs in place of
 *   sendto(). Which one is one branch per step, never per packet.
 * - Every call is bounded by its caller's batch; one reserve/submit per write.
 * - The kernel is kicked only when it set need_wakeup on the TX ring. Copy mode sends at
 *   most 32 frames per sendto(), so while it has unread descriptors (xtx_txring__unread())
 *   and asks for a wake-up the dequeuer kicks again.
 * - outstanding: frames written and not completed yet, all of them the ring's.
 */
#ifndef XTX_TXRING_H
#define XTX_TXRING_H

#include <errno.h>
#include <stdint.h>
#include <xdp/xsk.h>

#include <xtx/desc.h>

#ifndef XDP_TX_METADATA
#define XDP_TX_METADATA	(1 << 1)	/* xdp_desc.options, Linux 6.8 */
#endif
_Static_assert((XTX_DESC_F_TXMD >> 61) == XDP_TX_METADATA,
	       "xtx_txring__write() shifts XTX_DESC_F_TXMD onto XDP_TX_METADATA");

struct xtx_nulldev;

struct xtx_txring {
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	int fd;				/* the AF_XDP socket (kernel device) */
	struct xtx_nulldev *null;	/* NULL: the kernel; else run instead of sendto() */
	uint64_t outstanding;		/* written, not completed yet (descriptors) */
	/* Multi-buffer frames (opts.multi_buffer): mb set, the UMEM and the bytes a frame
	 * holds, for xtx_txring__write_mb(). */
	int mb;
	void *area;
	uint32_t room;
	uint32_t comp_seen;		/* the completion ring's producer index, last read */
};

/* Room in the TX ring for up to max descriptors. */
static inline uint32_t xtx_txring__room(struct xtx_txring *t, uint32_t max)
{
	uint32_t room = xsk_prod_nb_free(&t->tx, max);

	return room > max ? max : room;
}

uint64_t xtx_txring__write_mb(struct xtx_txring *t, const struct xtx_desc *d, unsigned n);

/* Write d[0..n) (n at most the room; with mb, at most the room over XTX_MB_MAX_SEGS) in
 * one reserve/submit; returns their bytes. */
static inline uint64_t xtx_txring__write(struct xtx_txring *t, const struct xtx_desc *d,
					 unsigned n)
{
	uint32_t idx = 0;
	uint64_t bytes = 0;

	if (t->mb)
		return xtx_txring__write_mb(t, d, n);
	xsk_ring_prod__reserve(&t->tx, n, &idx);
	for (unsigned i = 0; i < n; i++) {
		struct xdp_desc *x = xsk_ring_prod__tx_desc(&t->tx, idx + i);

		x->addr = d[i].addr & XTX_DESC_ADDR_MASK;
		x->len = d[i].len;
		/* XDP_TX_METADATA from XTX_DESC_F_TXMD, without a branch */
		x->options = (uint32_t)(d[i].addr >> 61) & XDP_TX_METADATA;
		bytes += d[i].len;
	}
	xsk_ring_prod__submit(&t->tx, n);
	t->outstanding += n;
	return bytes;
}

/* Completions: peek up to max (their addresses: xtx_txring__comp_addr(t, idx + i)), then
 * release what was peeked. */
static inline uint32_t xtx_txring__comp_peek(struct xtx_txring *t, uint32_t max,
					     uint32_t *idx)
{
	return xsk_ring_cons__peek(&t->comp, max, idx);
}

static inline uint64_t xtx_txring__comp_addr(const struct xtx_txring *t, uint32_t idx)
{
	return *xsk_ring_cons__comp_addr(&t->comp, idx);
}

/* Completions the device produced since the last call (or xtx_txring__comp_start()),
 * reaped or not: how far it got, which a reap of at most a batch does not show after a
 * stall. */
static inline uint32_t xtx_txring__comp_new(struct xtx_txring *t)
{
	/* Relaxed: a count; the entries themselves are read after peek's acquire load of
	 * the same index (pairs with the device's release store of it). */
	uint32_t p = __atomic_load_n(t->comp.producer, __ATOMIC_RELAXED), n = p - t->comp_seen;

	t->comp_seen = p;
	return n;
}

/* Once the rings exist, before the first completion can come. */
static inline void xtx_txring__comp_start(struct xtx_txring *t)
{
	/* Relaxed: nothing was produced yet; the owner's thread starts later. */
	t->comp_seen = __atomic_load_n(t->comp.producer, __ATOMIC_RELAXED);
}

static inline void xtx_txring__comp_release(struct xtx_txring *t, uint32_t n)
{
	xsk_ring_cons__release(&t->comp, n);
	t->outstanding -= n;
}

/* Whether the device must be told of what was written: a user-space device at every
 * step with frames out, the kernel when it asked (need_wakeup). */
static inline int xtx_txring__needs_kick(const struct xtx_txring *t)
{
	return t->outstanding && (t->null || xsk_ring_prod__needs_wakeup(&t->tx));
}

/* Descriptors written that the device has not read yet. */
static inline uint32_t xtx_txring__unread(const struct xtx_txring *t)
{
	/* Acquire, pairs with the kernel's release of the consumer index. */
	return t->tx.cached_prod - __atomic_load_n(t->tx.consumer, __ATOMIC_ACQUIRE);
}

/* Before reaping: a user-space device with frames on its wire catches up to now, as a
 * NIC completes while its owner sleeps (`null` without a rate completes at its kick and
 * has none). The kernel's side needs nothing. */
void xtx_txring__poll(struct xtx_txring *t, uint64_t now);

/* Tell the device: sendto() on fd, or run the user-space device at now (CLOCK_MONOTONIC
 * ns). 0, or -errno of sendto(). */
int xtx_txring__kick(struct xtx_txring *t, uint64_t now);

/* A kick's error that is not transient (the kernel busy, out of buffers, or the link
 * down are). */
static inline int xtx_txring__kick_failed(int rc)
{
	return rc && rc != -EAGAIN && rc != -EBUSY && rc != -ENOBUFS && rc != -ENETDOWN;
}

#endif /* XTX_TXRING_H */
