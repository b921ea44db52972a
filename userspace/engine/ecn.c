/* SPDX-License-Identifier: BSD-3-Clause */
/* ecn.c - CoDel's ECN marking in the frame (xtx_sched_opts.ecn_mark): the dequeuer owns
 * a queued frame, so it may rewrite its IP header before the frame leaves.
 *
 * Rules (RFC 3168; the kernel's INET_ECN_set_ce()): ECT(0) and ECT(1) become CE, CE
 * stays CE, and each counts as marked; Not-ECT, a frame that is not IPv4 or IPv6 behind
 * Ethernet and up to two VLAN tags (802.1Q, 802.1ad), or one too short for its IP header,
 * is not marked (CoDel drops it). IPv4's header checksum is updated incrementally (RFC
 * 1624); IPv6 has none, and the ECN bits are outside every transport checksum.
 */
#include <stdint.h>

#include "defs.h"
#include "ecn.h"

#define ETH_HLEN	14
#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_IPV6	0x86dd
#define ETHERTYPE_VLAN	0x8100
#define ETHERTYPE_QINQ	0x88a8
#define ECN_MASK	3u
#define ECN_CE		3u

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), on 16-bit words in network order. */
static uint16_t csum_replace(uint16_t hc, uint16_t m, uint16_t m2)
{
	uint32_t s = (uint16_t)~hc + (uint32_t)(uint16_t)~m + m2;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

int xtx_ecn_set_ce(uint8_t *f, uint32_t len)
{
	uint32_t off = ETH_HLEN;
	uint16_t type;

	if (len < ETH_HLEN)
		return 0;
	type = rd16(f + 12);
	for (int tags = 0; tags < 2 && (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ);
	     tags++) {
		if (len < off + 4)
			return 0;
		type = rd16(f + off + 2);
		off += 4;
	}
	if (type == ETHERTYPE_IPV4) {
		uint8_t *ip = f + off;
		uint16_t old, neu;

		if (len < off + 20 || ip[0] >> 4 != 4 || (ip[0] & 15) < 5)
			return 0;
		if ((ip[1] & ECN_MASK) == 0)
			return 0;		/* Not-ECT */
		if ((ip[1] & ECN_MASK) == ECN_CE)
			return 1;
		old = rd16(ip);
		ip[1] |= ECN_CE;
		neu = rd16(ip);
		uint16_t c = csum_replace(rd16(ip + 10), old, neu);

		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
		return 1;
	}
	if (type == ETHERTYPE_IPV6) {
		uint8_t *ip = f + off;
		uint32_t ecn;

		if (len < off + 40 || ip[0] >> 4 != 6)
			return 0;
		ecn = (uint32_t)(ip[1] >> 4) & ECN_MASK;	/* traffic class bits 1..0 */
		if (!ecn)
			return 0;
		ip[1] |= (uint8_t)(ECN_CE << 4);
		return 1;
	}
	return 0;
}

int xtx_ecn_mark(void *ctx, const struct xtx_desc *d)
{
	const struct xtx_frames *fr = ctx;

	return xtx_ecn_set_ce(xtx_frame_ptr(fr, d->addr), d->len);
}
