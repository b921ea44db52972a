/* SPDX-License-Identifier: BSD-3-Clause */
/* nulldev.c - the built-in null device (rules in nulldev.h). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/sched.h>

#include "nulldev.h"
#include "stat.h"

#ifndef __SIZEOF_INT128__
#error "nulldev.c needs unsigned __int128 for exact wire times"
#endif

#define PS_PER_NS	1000ull
#define PS_BITS		8000000000000ull	/* ps x bits/s in a byte: 8 * 10^12 */

/* A frame the emulated NIC has taken from the TX ring: its address, its time on the wire
 * and when the wire has sent its last bit. */
struct hw_slot {
	uint64_t addr;
	uint64_t wire_ps;
	uint64_t done_ps;
	uint32_t len;
};

struct xtx_nulldev {
	/* The words the kernel would map for the two rings, each on its own line as the
	 * kernel lays them out. */
	uint32_t tx_prod __attribute__((aligned(64)));
	uint32_t tx_cons __attribute__((aligned(64)));
	uint32_t comp_prod __attribute__((aligned(64)));
	uint32_t comp_cons __attribute__((aligned(64)));
	uint32_t flags __attribute__((aligned(64)));	/* never XDP_RING_NEED_WAKEUP */

	uint32_t tx_mask, comp_size, comp_mask, hw_mask;
	struct xdp_desc *txd;
	uint64_t *compd;
	struct hw_slot *hw;
	uint32_t hw_head, hw_tail;	/* in flight: [hw_tail, hw_head) */
	uint32_t hw_done;		/* hw_tail + frames the wire has finished */
	uint64_t rate_bps;
	/* A wire byte takes PS_BITS / rate_bps ps = byte_ps + byte_rem / rate_bps; frac32
	 * is floor(2^32 * byte_rem / rate_bps), to estimate the remainder's share without a
	 * division (all three set at open). carry (< rate_bps) is what the frames timed so
	 * far left over, in 1/rate_bps ps; written by take() only. */
	uint64_t byte_ps, byte_rem, carry;
	uint32_t frac32;
	uint64_t wire_free_ps;		/* end of the last frame given to the wire */

	/* Written by the owner only; read by anyone (stat.h). */
	_Atomic uint64_t frames, bytes, wire_bytes, busy_ps, gap_ps;
};

static int pow2_ok(uint32_t v)
{
	return v >= 64 && !(v & (v - 1));
}

int xtx_nulldev_open(struct xtx_nulldev **out, uint32_t tx_size, uint32_t comp_size,
		     uint64_t rate_bps, struct xsk_ring_prod *tx, struct xsk_ring_cons *comp)
{
	struct xtx_nulldev *d;

	if (!pow2_ok(tx_size) || !pow2_ok(comp_size))
		return -EINVAL;
	d = aligned_alloc(64, (sizeof(*d) + 63) & ~(size_t)63);
	if (!d)
		return -ENOMEM;
	memset(d, 0, sizeof(*d));
	d->txd = calloc(tx_size, sizeof(*d->txd));
	d->compd = calloc(comp_size, sizeof(*d->compd));
	d->hw = calloc(tx_size, sizeof(*d->hw));
	if (!d->txd || !d->compd || !d->hw) {
		xtx_nulldev_close(d);
		return -ENOMEM;
	}
	d->tx_mask = tx_size - 1;
	d->comp_size = comp_size;
	d->comp_mask = comp_size - 1;
	d->hw_mask = tx_size - 1;
	d->rate_bps = rate_bps;
	if (rate_bps) {
		d->byte_ps = PS_BITS / rate_bps;
		d->byte_rem = PS_BITS % rate_bps;
		d->frac32 = (uint32_t)(((unsigned __int128)d->byte_rem << 32) / rate_bps);
	}

	*tx = (struct xsk_ring_prod){
		.cached_prod = 0, .cached_cons = tx_size, .mask = tx_size - 1,
		.size = tx_size, .producer = &d->tx_prod, .consumer = &d->tx_cons,
		.ring = d->txd, .flags = &d->flags,
	};
	*comp = (struct xsk_ring_cons){
		.cached_prod = 0, .cached_cons = 0, .mask = comp_size - 1, .size = comp_size,
		.producer = &d->comp_prod, .consumer = &d->comp_cons, .ring = d->compd,
		.flags = &d->flags,
	};
	*out = d;
	return 0;
}

void xtx_nulldev_close(struct xtx_nulldev *d)
{
	if (!d)
		return;
	free(d->txd);
	free(d->compd);
	free(d->hw);
	free(d);
}

/* Bytes on the wire for a frame of len bytes (without FCS). */
static uint64_t wire_len(uint32_t len)
{
	return (len < XTX_NULL_MIN_FRAME ? XTX_NULL_MIN_FRAME : len) + XTX_NULL_WIRE_OVERHEAD;
}

/* Picoseconds the wire needs for the next frame of len bytes: its exact time plus what the
 * frames before it left over, rounded down, the new remainder carried. Frames timed in
 * turn thus add up to their exact time rounded down once, not per frame. Preconditions:
 * rate_bps > 0; len < 2^16 (a UMEM frame is 4096 bytes at most), so that L * byte_ps
 * (< 2^17 * 2^43) and L * frac32 (< 2^17 * 2^32) fit 64 bits.
 *
 * exact = L * byte_ps + (L * byte_rem + carry) / rate_bps. Its floor's second term, q,
 * is estimated as L * frac32 >> 32 and corrected by the exact remainder: no division per
 * frame. The estimate is never above q and at most 2 below it: L * frac32 / 2^32 is short
 * of L * byte_rem / rate_bps by < L / 2^32 < 1, the shift drops < 1, and carry / rate_bps
 * adds < 1. */
static uint64_t wire_ps(struct xtx_nulldev *d, uint32_t len)
{
	uint64_t L = wire_len(len), q = (L * d->frac32) >> 32;
	unsigned __int128 rem = (unsigned __int128)L * d->byte_rem + d->carry -
				(unsigned __int128)q * d->rate_bps;

	while (rem >= d->rate_bps) {	/* at most twice */
		rem -= d->rate_bps;
		q++;
	}
	d->carry = (uint64_t)rem;
	return L * d->byte_ps + q;
}

/* Takes what was submitted into the hardware ring, timing each frame on the wire. */
static void take(struct xtx_nulldev *d, uint64_t now_ps)
{
	/* Acquire, pairs with the release store of libxdp's xsk_ring_prod__submit(): the
	 * descriptors written before it are visible. */
	uint32_t prod = __atomic_load_n(&d->tx_prod, __ATOMIC_ACQUIRE);
	uint32_t n = prod - d->tx_cons, room = d->hw_mask + 1 - (d->hw_head - d->hw_tail);

	if (n > room)
		n = room;
	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *td = &d->txd[(d->tx_cons + i) & d->tx_mask];
		struct hw_slot *s = &d->hw[(d->hw_head + i) & d->hw_mask];

		s->addr = td->addr;
		s->len = td->len;
		s->wire_ps = 0;
		if (d->rate_bps) {
			uint64_t start = d->wire_free_ps;

			if (start < now_ps) {
				if (d->wire_free_ps)
					CTR_ADD(d->gap_ps, now_ps - d->wire_free_ps);
				start = now_ps;
			}
			s->wire_ps = wire_ps(d, td->len);
			s->done_ps = start + s->wire_ps;
			d->wire_free_ps = s->done_ps;
		}
	}
	d->hw_head += n;
	/* Release, pairs with libxdp's acquire load of the consumer in xsk_prod_nb_free():
	 * the slots are free for the owner to write again. */
	__atomic_store_n(&d->tx_cons, d->tx_cons + n, __ATOMIC_RELEASE);
}

/* Gives back, in order, what the wire has sent: a batch at a time while it is busy. */
static unsigned complete(struct xtx_nulldev *d, uint64_t now_ps)
{
	uint64_t bytes = 0, wbytes = 0, busy = 0;
	uint32_t n, room;

	if (d->rate_bps)
		while (d->hw_done != d->hw_head && d->hw[d->hw_done & d->hw_mask].done_ps <= now_ps)
			d->hw_done++;
	else
		d->hw_done = d->hw_head;
	n = d->hw_done - d->hw_tail;
	if (!n || (n < XTX_NULL_COMP_BATCH && d->hw_done != d->hw_head))
		return 0;
	/* Acquire, pairs with the release store of xsk_ring_cons__release(): the owner has
	 * read the addresses in the slots it gives back. */
	room = d->comp_size - (d->comp_prod - __atomic_load_n(&d->comp_cons, __ATOMIC_ACQUIRE));
	if (n > room)
		n = room;
	for (uint32_t i = 0; i < n; i++) {
		const struct hw_slot *s = &d->hw[(d->hw_tail + i) & d->hw_mask];

		d->compd[(d->comp_prod + i) & d->comp_mask] = s->addr;
		bytes += s->len;
		wbytes += wire_len(s->len);
		busy += s->wire_ps;
	}
	d->hw_tail += n;
	CTR_ADD(d->frames, n);
	CTR_ADD(d->bytes, bytes);
	CTR_ADD(d->wire_bytes, wbytes);
	CTR_ADD(d->busy_ps, busy);
	/* Release, pairs with the acquire load of the producer in xsk_ring_cons__peek(). */
	__atomic_store_n(&d->comp_prod, d->comp_prod + n, __ATOMIC_RELEASE);
	return n;
}

unsigned xtx_nulldev_run(struct xtx_nulldev *d, uint64_t now_ns)
{
	uint64_t now_ps = now_ns * PS_PER_NS;
	unsigned n;

	take(d, now_ps);
	n = complete(d, now_ps);
	if (n)
		take(d, now_ps);	/* into the slots just freed */
	return n;
}

uint32_t xtx_nulldev_inflight(const struct xtx_nulldev *d)
{
	return d->hw_head - d->hw_tail;
}

uint64_t xtx_nulldev_busy_ps(const struct xtx_nulldev *d)
{
	return CTR_GET(d->busy_ps);
}

void xtx_nulldev_stats(const struct xtx_nulldev *d, struct xtx_null_stats *st)
{
	st->frames = CTR_GET(d->frames);
	st->bytes = CTR_GET(d->bytes);
	st->wire_bytes = CTR_GET(d->wire_bytes);
	st->busy_ns = CTR_GET(d->busy_ps) / PS_PER_NS;
	st->gap_ns = CTR_GET(d->gap_ps) / PS_PER_NS;
}

int xtx_nulldev_parse(const char *ifname, uint64_t *rate_bps)
{
	uint64_t Bps;

	if (strncmp(ifname, "null", 4) || (ifname[4] && ifname[4] != ':'))
		return 1;
	*rate_bps = 0;
	if (!ifname[4])
		return 0;
	if (xtx_rate__parse(ifname + 5, &Bps) || !Bps || Bps > UINT64_MAX / 8)
		return -EINVAL;
	*rate_bps = Bps * 8;
	return 0;
}

int xtx_dev__is_null(const char *ifname)
{
	uint64_t r;
	int rc = ifname ? xtx_nulldev_parse(ifname, &r) : 1;

	return rc < 0 ? rc : !rc;
}
