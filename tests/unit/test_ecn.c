/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ecn.c - CoDel's CE marking in the frame (userspace/engine/ecn.c): ECT(0) and
 * ECT(1) become CE with a valid IPv4 header checksum (recomputed here from scratch),
 * CE stays CE, Not-ECT and non-IP frames are left alone, behind zero, one and two VLAN
 * tags, IPv4 and IPv6; a frame too short for its header is not touched.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../userspace/engine/ecn.h"
#include "check.h"

/* The IPv4 header checksum over ihl words, with the checksum field as it is: 0 when
 * the header is valid. */
static uint16_t ip_csum(const uint8_t *ip)
{
	uint32_t s = 0;
	unsigned n = (ip[0] & 15u) * 4;

	for (unsigned i = 0; i < n; i += 2)
		s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* An Ethernet frame with `tags` VLAN tags and an IPv4 (v6 = 0) or IPv6 header whose ECN
 * field is ecn; returns the IP header's offset. */
static unsigned frame(uint8_t *f, unsigned tags, int v6, unsigned ecn, uint8_t tos_hi)
{
	unsigned off = 12;

	memset(f, 0, 128);
	for (unsigned t = 0; t < tags; t++) {
		f[off] = t == 0 && tags == 2 ? 0x88 : 0x81;
		f[off + 1] = t == 0 && tags == 2 ? 0xa8 : 0x00;
		f[off + 3] = (uint8_t)(10 + t);
		off += 4;
	}
	f[off] = v6 ? 0x86 : 0x08;
	f[off + 1] = v6 ? 0xdd : 0x00;
	off += 2;
	if (v6) {
		f[off] = (uint8_t)(0x60 | tos_hi >> 4);
		f[off + 1] = (uint8_t)((tos_hi & 0x0c) << 4 | ecn << 4 | 0x0a);	/* + flow label */
		f[off + 6] = 17;
		f[off + 7] = 64;
	} else {
		uint16_t c;

		f[off] = 0x45;
		f[off + 1] = (uint8_t)(tos_hi | ecn);
		f[off + 3] = 60;
		f[off + 8] = 64;
		f[off + 9] = 17;
		memcpy(f + off + 12, "\xc6\x12\x00\x01\xc6\x12\x00\x02", 8);	/* 198.18.0.1/2 */
		c = ip_csum(f + off);
		f[off + 10] = (uint8_t)(c >> 8);
		f[off + 11] = (uint8_t)c;
	}
	return off;
}

int main(void)
{
	static const char *const names[] = { "Not-ECT", "ECT(1)", "ECT(0)", "CE" };
	uint8_t f[128], before[128];

	for (unsigned tags = 0; tags <= 2; tags++)
		for (int v6 = 0; v6 <= 1; v6++)
			for (unsigned ecn = 0; ecn < 4; ecn++)
				for (unsigned tos = 0; tos < 256; tos += 0x2c) {
					unsigned off = frame(f, tags, v6, ecn, (uint8_t)(tos & 0xfc));
					int rc;

					memcpy(before, f, sizeof(f));
					rc = xtx_ecn_set_ce(f, 100);
					CHECK_EQ_U64(ecn ? 1 : 0, (uint64_t)rc);
					if (!ecn || ecn == 3) {
						CHECK(!memcmp(f, before, sizeof(f)));
						continue;
					}
					if (v6) {
						CHECK_EQ_U64(3, (f[off + 1] >> 4) & 3u);
						CHECK_EQ_U64(before[off] , f[off]);
						CHECK_EQ_U64(before[off + 1] & 0xcf, f[off + 1] & 0xcf);
					} else {
						CHECK_EQ_U64(3, f[off + 1] & 3u);
						CHECK_EQ_U64(before[off + 1] & 0xfc, f[off + 1] & 0xfc);
						CHECK_EQ_U64(0, ip_csum(f + off));
					}
					CHECK(!memcmp(f + off + 2, before + off + 2, 100 - off - 2) ||
					      !v6);
				}
	printf("IPv4 and IPv6 behind 0..2 VLAN tags: %s, %s, %s, %s as RFC 3168\n", names[0],
	       names[1], names[2], names[3]);

	/* too short for the header, or not IP: untouched */
	unsigned off = frame(f, 1, 0, 2, 0);

	memcpy(before, f, sizeof(f));
	CHECK_EQ_U64(0, (uint64_t)xtx_ecn_set_ce(f, off + 19));
	CHECK(!memcmp(f, before, sizeof(f)));
	off = frame(f, 0, 1, 2, 0);
	memcpy(before, f, sizeof(f));
	CHECK_EQ_U64(0, (uint64_t)xtx_ecn_set_ce(f, off + 39));
	CHECK(!memcmp(f, before, sizeof(f)));
	frame(f, 0, 0, 2, 0);
	f[12] = 0x08;
	f[13] = 0x06;		/* ARP */
	memcpy(before, f, sizeof(f));
	CHECK_EQ_U64(0, (uint64_t)xtx_ecn_set_ce(f, 100));
	CHECK(!memcmp(f, before, sizeof(f)));
	CHECK_EQ_U64(0, (uint64_t)xtx_ecn_set_ce(f, 10));
	/* a version nibble that contradicts the EtherType */
	off = frame(f, 0, 0, 2, 0);
	f[off] = 0x65;
	CHECK_EQ_U64(0, (uint64_t)xtx_ecn_set_ce(f, 100));
	return check_summary("test_ecn");
}
