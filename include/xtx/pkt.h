/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/pkt.h - build Ethernet/IPv4|IPv6/UDP frames in a buffer, and rewrite the per-packet
 * fields of a built frame cheaply, with an incremental checksum update (RFC 1624).
 *
 * Header-only: everything is static inline. The builders are slow-path helpers (a sender
 * builds its templates once); the xtx_pkt__set_* and xtx_pkt__stamp helpers are the fast
 * path (no branch on errors, no syscall, a few loads and stores per packet).
 *
 * Byte order. Addresses are network order (struct in_addr / struct in6_addr, as inet_pton
 * fills them); ports, lengths, ids, TCI and flow label are host order. Checksum values that
 * functions return are "as stored": write them to the frame with a plain 16-bit store
 * (memcpy), which gives network order on any host (RFC 1071, section 2(B): the one's
 * complement sum does not depend on byte order).
 *
 * Sizes. `frame_len` is the Ethernet frame without FCS (what an AF_XDP descriptor and
 * tcpdump call the length):
 *
 *     frame_len = 14 [+ 4 VLAN tag] + 20 (IPv4) | 40 (IPv6) + 8 (UDP) + UDP payload
 *
 * so an untagged IPv4 frame of 64 bytes carries 22 bytes of UDP payload, and the smallest
 * Ethernet frame, 60 bytes, carries 18. A frame_len below 60 that still holds the headers
 * is built with IP and UDP lengths for frame_len and zero padding up to 60 bytes (what a
 * NIC would add); the builders then return 60. Nothing below 60 ever leaves a builder.
 *
 * The test payload (include/xtx/payload.h, struct xtx_payload, 24 bytes, little-endian)
 * starts right after the UDP header. Senders write as much of it as fits in the UDP
 * payload, in whole fields:
 *
 *     UDP payload   written                          frames (untagged) where this applies
 *     < 16 bytes    nothing (payload left as built)  IPv4 < 58, IPv6 < 78
 *     16..23        magic, flow, seq                 IPv4 58..65 (so 60 and 64), IPv6 78..85
 *     >= 24         magic, flow, seq, tstamp_ns      IPv4 >= 66, IPv6 >= 86
 *
 * (add 4 bytes to the frame sizes with a VLAN tag). xtx_pkt__payload_fit() computes the
 * middle column; xsk-plain and udp-send follow this table. A reader checks the UDP length
 * before it reads a field (xtx-sink reads only whole 24-byte payloads, so it checks no
 * order on frames of 58..65 bytes).
 *
 * Flow hash. xtx_pkt__flow_hash() is MurmurHash3_x86_32 (Austin Appleby, public domain)
 * over the 5-tuple laid out as 32-bit words in host order, serialised little-endian:
 *
 *     IPv4 (16 bytes): ntohl(saddr), ntohl(daddr), sport << 16 | dport, proto
 *     IPv6 (40 bytes): ntohl(saddr word 0..3), ntohl(daddr word 0..3), sport << 16 | dport,
 *                      proto
 *
 * with the caller's seed. It is stable: the same tuple and seed give the same value on
 * every host, compiler and release (tests/unit/test_pkt.c pins reference values).
 *
 * Thread safety: the helpers touch only the buffers and structs passed in.
 */
#ifndef XTX_PKT_H
#define XTX_PKT_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <xtx/payload.h>
#include <xtx/pkt_hash_pvt.h>	/* the flow hash, shared with xdp/xtx_redirect.bpf.c */

#ifdef __cplusplus
extern "C" {
#endif

#define XTX_PKT_ETH_ALEN	6
#define XTX_PKT_ETH_HLEN	14
#define XTX_PKT_VLAN_HLEN	4
#define XTX_PKT_IP4_HLEN	20	/* no options */
#define XTX_PKT_IP6_HLEN	40
#define XTX_PKT_UDP_HLEN	8
#define XTX_PKT_UDP4_HDRS	42	/* 14 + 20 + 8: frame_len - UDP payload, untagged IPv4 */
#define XTX_PKT_UDP6_HDRS	62	/* 14 + 40 + 8 */
#define XTX_PKT_MIN_FRAME	60	/* Ethernet minimum without FCS */
#define XTX_PKT_MAX_FRAME	65535	/* fits xtx_desc.len and the IPv4 total length */

#define XTX_PKT_ETH_P_IP	0x0800
#define XTX_PKT_ETH_P_IPV6	0x86dd
#define XTX_PKT_ETH_P_8021Q	0x8100
#define XTX_PKT_ETH_P_8021AD	0x88a8

/* How much of struct xtx_payload fits (see "Sizes" above). */
#define XTX_PKT_PAYLOAD_SEQ_LEN		16	/* magic, flow, seq */
#define XTX_PKT_PAYLOAD_FULL_LEN	24	/* ... and tstamp_ns */

_Static_assert(sizeof(struct xtx_payload) == XTX_PKT_PAYLOAD_FULL_LEN,
	       "pkt.h assumes the 24-byte xtx_payload");
_Static_assert(offsetof(struct xtx_payload, tstamp_ns) == XTX_PKT_PAYLOAD_SEQ_LEN,
	       "pkt.h assumes tstamp_ns is the last field");

/* ------------------------------------------------------------------------------------ */
/* One's complement checksums (RFC 1071)                                                */
/* ------------------------------------------------------------------------------------ */

/* Fold a 64-bit accumulator of 16/32-bit words to 16 bits with end-around carry. The
 * result is 0 only if acc is 0. */
static inline uint32_t _xtx_pkt_fold(uint64_t acc)
{
	acc = (acc & 0xffffffffu) + (acc >> 32);	/* <= 2^33 */
	acc = (acc & 0xffffffffu) + (acc >> 32);	/* <= 2^32 */
	acc = (acc & 0xffffu) + (acc >> 16);		/* <= 0x1fffe + ... */
	acc = (acc & 0xffffu) + (acc >> 16);
	acc = (acc & 0xffffu) + (acc >> 16);
	return (uint32_t)acc;
}

/* One's complement sum of `len` bytes at `buf` (any alignment) added to `sum`, folded to
 * 16 bits (0..0xffff). `sum` is a previous result or 0. Sums of pieces may be chained only
 * if each piece starts at an even offset of the checksummed data (an odd-length piece is
 * padded with a zero byte, as the last byte of a datagram is). len < 16 GiB. */
static inline uint32_t xtx_pkt__csum_add(uint32_t sum, const void *buf, size_t len)
{
	const uint8_t *p = (const uint8_t *)buf;
	uint64_t acc = sum;

	for (; len >= 4; len -= 4, p += 4) {
		uint32_t w;

		memcpy(&w, p, 4);
		acc += w;
	}
	if (len >= 2) {
		uint16_t w;

		memcpy(&w, p, 2);
		acc += w;
		p += 2;
		len -= 2;
	}
	if (len) {
		uint16_t w = 0;

		memcpy(&w, p, 1);	/* the byte at the lower address, zero after it */
		acc += w;
	}
	return _xtx_pkt_fold(acc);
}

/* The checksum of a folded sum: its one's complement, as stored. */
static inline uint16_t xtx_pkt__csum_finish(uint32_t sum)
{
	return (uint16_t)~_xtx_pkt_fold(sum);
}

/* UDP's rule: a computed checksum of 0 is sent as 0xffff (0 means "none" for IPv4 and is
 * forbidden for IPv6). Both encode the same one's complement value, so receivers verify
 * either. */
static inline uint16_t xtx_pkt__csum_nz(uint16_t csum)
{
	return csum ? csum : 0xffff;
}

/* IPv4 header checksum over IHL * 4 bytes at `iph` (IHL from byte 0; the caller makes sure
 * the header is readable and IHL >= 5), including what the checksum field holds. With the
 * field zeroed this is the value to store; over a correct header it returns 0. */
static inline uint16_t xtx_pkt__ip4_csum(const void *iph)
{
	size_t hl = (size_t)(((const uint8_t *)iph)[0] & 0x0f) * 4;

	return xtx_pkt__csum_finish(xtx_pkt__csum_add(0, iph, hl));
}

/* Sum of the IPv4 pseudo-header (RFC 768): addresses network order, len host order. */
static inline uint32_t xtx_pkt__pseudo4_sum(uint32_t saddr, uint32_t daddr, uint8_t proto,
					    uint16_t len)
{
	uint8_t ph[12];
	uint16_t l = htons(len);

	memcpy(ph, &saddr, 4);
	memcpy(ph + 4, &daddr, 4);
	ph[8] = 0;
	ph[9] = proto;
	memcpy(ph + 10, &l, 2);
	return xtx_pkt__csum_add(0, ph, sizeof(ph));
}

/* Sum of the IPv6 pseudo-header (RFC 8200 section 8.1); len host order. */
static inline uint32_t xtx_pkt__pseudo6_sum(const struct in6_addr *saddr,
					    const struct in6_addr *daddr, uint8_t proto,
					    uint32_t len)
{
	uint8_t ph[40];
	uint32_t l = htonl(len);

	memcpy(ph, saddr, 16);
	memcpy(ph + 16, daddr, 16);
	memcpy(ph + 32, &l, 4);
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = proto;
	return xtx_pkt__csum_add(0, ph, sizeof(ph));
}

/* UDP checksum of the datagram of `udp_len` bytes at `udph` behind the IPv4 header `iph`
 * (addresses read from it), including what the checksum field holds. To compute: zero the
 * field, call, store xtx_pkt__csum_nz() of the result. To verify: call on the datagram as
 * received; 0 means correct (a stored 0, "no checksum", is the caller's to test first). */
static inline uint16_t xtx_pkt__udp4_csum(const void *iph, const void *udph, size_t udp_len)
{
	uint32_t s, d;

	memcpy(&s, (const uint8_t *)iph + 12, 4);
	memcpy(&d, (const uint8_t *)iph + 16, 4);
	return xtx_pkt__csum_finish(xtx_pkt__csum_add(
		xtx_pkt__pseudo4_sum(s, d, IPPROTO_UDP, (uint16_t)udp_len), udph, udp_len));
}

/* The same for a datagram behind the IPv6 header `ip6h` (no extension headers). */
static inline uint16_t xtx_pkt__udp6_csum(const void *ip6h, const void *udph, size_t udp_len)
{
	struct in6_addr s, d;

	memcpy(&s, (const uint8_t *)ip6h + 8, 16);
	memcpy(&d, (const uint8_t *)ip6h + 24, 16);
	return xtx_pkt__csum_finish(xtx_pkt__csum_add(
		xtx_pkt__pseudo6_sum(&s, &d, IPPROTO_UDP, (uint32_t)udp_len), udph, udp_len));
}

/* Incremental update (RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')). _xtx_pkt_csum_diff adds
 * ~old + new over n bytes (n even; the bytes start at an even offset of the checksummed
 * data) to acc; _xtx_pkt_csum_apply folds acc into the 16-bit field at `field`. nz applies
 * UDP's 0 -> 0xffff rule. The result equals a full recomputation (after the rule): both
 * are complements of the same one's complement value, and the fold yields -0 only for an
 * all-zero sum. */
static inline uint64_t _xtx_pkt_csum_diff(uint64_t acc, const void *old, const void *nw,
					  size_t n)
{
	const uint8_t *o = (const uint8_t *)old, *w = (const uint8_t *)nw;

	for (; n >= 4; n -= 4, o += 4, w += 4) {
		uint32_t a, b;

		memcpy(&a, o, 4);
		memcpy(&b, w, 4);
		acc += (uint32_t)~a;	/* ~ of each 16-bit half */
		acc += b;
	}
	if (n >= 2) {
		uint16_t a, b;

		memcpy(&a, o, 2);
		memcpy(&b, w, 2);
		acc += (uint16_t)~a;
		acc += b;
	}
	return acc;
}

static inline void _xtx_pkt_csum_apply(void *field, uint64_t acc, bool nz)
{
	uint16_t hc, r;

	memcpy(&hc, field, 2);
	acc += (uint16_t)~hc;
	r = (uint16_t)~_xtx_pkt_fold(acc);
	if (nz && r == 0)
		r = 0xffff;
	memcpy(field, &r, 2);
}

/* ------------------------------------------------------------------------------------ */
/* Header writers (slow path). Each writes a complete header at `buf`.                  */
/* ------------------------------------------------------------------------------------ */

static inline void _xtx_pkt_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet header, with one VLAN tag if vlan_tpid is XTX_PKT_ETH_P_8021Q or
 * XTX_PKT_ETH_P_8021AD (vlan_tci = PCP << 13 | DEI << 12 | VID), untagged if vlan_tpid is
 * 0. Returns the header length: 14 or 18. The caller validates vlan_tpid
 * (xtx_pkt__build_* do). */
static inline size_t xtx_pkt__put_eth(void *buf, const uint8_t dst[XTX_PKT_ETH_ALEN],
				      const uint8_t src[XTX_PKT_ETH_ALEN], uint16_t vlan_tpid,
				      uint16_t vlan_tci, uint16_t ethertype)
{
	uint8_t *p = (uint8_t *)buf;

	memcpy(p, dst, XTX_PKT_ETH_ALEN);
	memcpy(p + 6, src, XTX_PKT_ETH_ALEN);
	if (vlan_tpid) {
		_xtx_pkt_put16(p + 12, vlan_tpid);
		_xtx_pkt_put16(p + 14, vlan_tci);
		_xtx_pkt_put16(p + 16, ethertype);
		return XTX_PKT_ETH_HLEN + XTX_PKT_VLAN_HLEN;
	}
	_xtx_pkt_put16(p + 12, ethertype);
	return XTX_PKT_ETH_HLEN;
}

/* 20-byte IPv4 header (no options) with its checksum. saddr/daddr network order; tos is
 * DSCP << 2 | ECN; ttl as given (0 is sent as 0); df sets Don't Fragment; tot_len is the
 * IP total length (header + payload), host order. */
static inline void xtx_pkt__put_ip4(void *buf, uint32_t saddr, uint32_t daddr, uint8_t tos,
				    uint8_t ttl, uint16_t id, bool df, uint8_t proto,
				    uint16_t tot_len)
{
	uint8_t *p = (uint8_t *)buf;
	uint16_t c;

	p[0] = 0x45;			/* version 4, IHL 5 */
	p[1] = tos;
	_xtx_pkt_put16(p + 2, tot_len);
	_xtx_pkt_put16(p + 4, id);
	_xtx_pkt_put16(p + 6, df ? 0x4000 : 0);	/* flags + fragment offset */
	p[8] = ttl;
	p[9] = proto;
	p[10] = p[11] = 0;
	memcpy(p + 12, &saddr, 4);
	memcpy(p + 16, &daddr, 4);
	c = xtx_pkt__ip4_csum(p);
	memcpy(p + 10, &c, 2);
}

/* 40-byte IPv6 header. tclass = DSCP << 2 | ECN; flow_label's low 20 bits are used;
 * payload_len host order (bytes after this header). */
static inline void xtx_pkt__put_ip6(void *buf, const struct in6_addr *saddr,
				    const struct in6_addr *daddr, uint8_t tclass,
				    uint32_t flow_label, uint8_t hop_limit, uint8_t next_hdr,
				    uint16_t payload_len)
{
	uint8_t *p = (uint8_t *)buf;
	uint32_t w = htonl(6u << 28 | (uint32_t)tclass << 20 | (flow_label & 0xfffffu));

	memcpy(p, &w, 4);
	_xtx_pkt_put16(p + 4, payload_len);
	p[6] = next_hdr;
	p[7] = hop_limit;
	memcpy(p + 8, saddr, 16);
	memcpy(p + 24, daddr, 16);
}

/* 8-byte UDP header with checksum 0 (fill it in with xtx_pkt__udp4/6_csum). Ports and len
 * (header + payload) host order. */
static inline void xtx_pkt__put_udp(void *buf, uint16_t sport, uint16_t dport, uint16_t len)
{
	uint8_t *p = (uint8_t *)buf;

	_xtx_pkt_put16(p, sport);
	_xtx_pkt_put16(p + 2, dport);
	_xtx_pkt_put16(p + 4, len);
	p[6] = p[7] = 0;
}

/* ------------------------------------------------------------------------------------ */
/* Whole frames                                                                         */
/* ------------------------------------------------------------------------------------ */

#define XTX_PKT_F_DF		(1u << 0)	/* IPv4: set Don't Fragment */
#define XTX_PKT_F_NO_UDP_CSUM	(1u << 1)	/* IPv4 only: send UDP checksum 0 ("none") */

/* What to build. Zero-initialise, set sz = sizeof(struct xtx_pkt_udp_opts) and the fields
 * you need; zero means the default noted. */
struct xtx_pkt_udp_opts {
	size_t sz;				/* sizeof(struct xtx_pkt_udp_opts) */
	uint8_t dst_mac[XTX_PKT_ETH_ALEN];
	uint8_t src_mac[XTX_PKT_ETH_ALEN];
	uint16_t vlan_tpid;	/* 0 untagged; XTX_PKT_ETH_P_8021Q / _8021AD: one tag */
	uint16_t vlan_tci;	/* PCP << 13 | DEI << 12 | VID */
	struct in_addr src4;	/* xtx_pkt__build_udp4: source address, network order */
	struct in_addr dst4;
	struct in6_addr src6;	/* xtx_pkt__build_udp6 */
	struct in6_addr dst6;
	uint16_t src_port;	/* host order */
	uint16_t dst_port;
	uint8_t ttl;		/* IPv4 TTL / IPv6 hop limit; 0 = 64 */
	uint8_t tos;		/* IPv4 TOS / IPv6 traffic class: DSCP << 2 | ECN */
	uint16_t ip_id;		/* IPv4 identification */
	uint32_t flow_label;	/* IPv6 flow label, < 2^20 */
	uint32_t flags;		/* XTX_PKT_F_* */
	uint32_t frame_len;	/* frame length without FCS (see "Sizes"); required */
	const void *payload;	/* copied to the start of the UDP payload; the rest is zero */
	uint32_t payload_len;	/* bytes at payload; <= UDP payload length */
};

/* Sized as every xtx_*_opts (see xtx_engine_opts in xtx/xtx.h): the fields up to
 * __last_field are read, a larger sz only with zero bytes beyond it, and sz must reach the
 * sizeof of the first release (XTX_PKT_UDP_OPTS_SZ_MIN). Header-only, so the check is inline here
 * (_xtx_pkt_opts_valid) rather than the library's; it has no message to give. */
#define xtx_pkt_udp_opts__last_field	payload_len
#define xtx_pkt_udp_opts__min_field	payload_len
#define XTX_PKT_UDP_OPTS_SZ_MIN							\
	((offsetof(struct xtx_pkt_udp_opts, payload_len) + sizeof(uint32_t) +		\
	  _Alignof(struct xtx_pkt_udp_opts) - 1) & ~(_Alignof(struct xtx_pkt_udp_opts) - 1))
#define _XTX_PKT_UDP_OPTS_KNOWN \
	(offsetof(struct xtx_pkt_udp_opts, payload_len) + sizeof(uint32_t))

static inline bool _xtx_pkt_opts_valid(const struct xtx_pkt_udp_opts *o)
{
	const uint8_t *p = (const uint8_t *)o;

	if (o->sz < XTX_PKT_UDP_OPTS_SZ_MIN)
		return false;
	for (size_t i = _XTX_PKT_UDP_OPTS_KNOWN; i < o->sz; i++)
		if (p[i])
			return false;
	return true;
}

static inline int _xtx_pkt_build_udp(void *buf, size_t buflen,
				     const struct xtx_pkt_udp_opts *o, bool v6)
{
	uint8_t *p = (uint8_t *)buf;
	size_t l2, l3, hdrs, out;
	uint32_t pay;
	uint16_t c;
	uint8_t ttl;

	if (!buf || !o || !_xtx_pkt_opts_valid(o))
		return -EINVAL;
	if (o->vlan_tpid && o->vlan_tpid != XTX_PKT_ETH_P_8021Q &&
	    o->vlan_tpid != XTX_PKT_ETH_P_8021AD)
		return -EINVAL;
	if (o->flags & ~(XTX_PKT_F_DF | XTX_PKT_F_NO_UDP_CSUM))
		return -EINVAL;
	if (v6 && (o->flags || o->flow_label > 0xfffffu))
		return -EINVAL;
	l2 = XTX_PKT_ETH_HLEN + (o->vlan_tpid ? XTX_PKT_VLAN_HLEN : 0);
	l3 = v6 ? XTX_PKT_IP6_HLEN : XTX_PKT_IP4_HLEN;
	hdrs = l2 + l3 + XTX_PKT_UDP_HLEN;
	if (o->frame_len < hdrs || o->frame_len > XTX_PKT_MAX_FRAME)
		return -EINVAL;
	pay = o->frame_len - (uint32_t)hdrs;
	if (o->payload_len > pay || (o->payload_len && !o->payload))
		return -EINVAL;
	out = o->frame_len < XTX_PKT_MIN_FRAME ? XTX_PKT_MIN_FRAME : o->frame_len;
	if (buflen < out)
		return -EMSGSIZE;

	memset(p, 0, out);	/* payload tail and padding */
	xtx_pkt__put_eth(p, o->dst_mac, o->src_mac, o->vlan_tpid, o->vlan_tci,
			 v6 ? XTX_PKT_ETH_P_IPV6 : XTX_PKT_ETH_P_IP);
	ttl = o->ttl ? o->ttl : 64;
	if (v6)
		xtx_pkt__put_ip6(p + l2, &o->src6, &o->dst6, o->tos, o->flow_label, ttl,
				 IPPROTO_UDP, (uint16_t)(XTX_PKT_UDP_HLEN + pay));
	else
		xtx_pkt__put_ip4(p + l2, o->src4.s_addr, o->dst4.s_addr, o->tos, ttl, o->ip_id,
				 o->flags & XTX_PKT_F_DF, IPPROTO_UDP,
				 (uint16_t)(l3 + XTX_PKT_UDP_HLEN + pay));
	xtx_pkt__put_udp(p + l2 + l3, o->src_port, o->dst_port,
			 (uint16_t)(XTX_PKT_UDP_HLEN + pay));
	if (o->payload_len)
		memcpy(p + hdrs, o->payload, o->payload_len);
	if (!(o->flags & XTX_PKT_F_NO_UDP_CSUM)) {
		c = v6 ? xtx_pkt__udp6_csum(p + l2, p + l2 + l3, XTX_PKT_UDP_HLEN + pay)
		       : xtx_pkt__udp4_csum(p + l2, p + l2 + l3, XTX_PKT_UDP_HLEN + pay);
		c = xtx_pkt__csum_nz(c);
		memcpy(p + l2 + l3 + 6, &c, 2);
	}
	return (int)out;
}

/* Build a whole Ethernet [+ VLAN] + IPv4 + UDP frame in buf[0..buflen) from o->src4/dst4
 * and the common fields: IPv4 header checksum and UDP checksum (over the pseudo-header,
 * 0 sent as 0xffff) filled in, UDP payload = o->payload then zeros, padding to 60 bytes.
 * Bytes of buf past the returned length are not touched.
 *
 * Returns the frame length written (max(o->frame_len, 60)), or
 *   -EINVAL    buf or o NULL; o->sz < XTX_PKT_UDP_OPTS_SZ_MIN, or larger with a non-zero
 *              byte beyond; unknown flag; vlan_tpid
 *              not 0, 0x8100 or 0x88a8; frame_len smaller than the headers (42, 46 tagged)
 *              or above 65535; payload_len larger than the UDP payload or payload NULL
 *              with payload_len > 0
 *   -EMSGSIZE  buflen smaller than the frame to write */
static inline int xtx_pkt__build_udp4(void *buf, size_t buflen,
				      const struct xtx_pkt_udp_opts *o)
{
	return _xtx_pkt_build_udp(buf, buflen, o, false);
}

/* The same with an IPv6 header from o->src6/dst6, o->tos as traffic class, o->flow_label
 * and o->ttl as hop limit. UDP checksum is mandatory over IPv6. Headers are 62 bytes (66
 * tagged), so the frame is never padded.
 *
 * Returns the frame length, or -EINVAL (as for IPv4, and: any XTX_PKT_F_* flag set,
 * flow_label >= 2^20) or -EMSGSIZE. */
static inline int xtx_pkt__build_udp6(void *buf, size_t buflen,
				      const struct xtx_pkt_udp_opts *o)
{
	return _xtx_pkt_build_udp(buf, buflen, o, true);
}

/* ------------------------------------------------------------------------------------ */
/* Parsing a frame; per-packet rewrites (fast path)                                      */
/* ------------------------------------------------------------------------------------ */

/* Where things are in a UDP frame; filled by xtx_pkt__parse_udp(), read by the fast-path
 * rewrite helpers. */
struct xtx_pkt_layout {
	uint16_t frame_len;	/* bytes in the frame (the parsed length) */
	uint16_t l3_off;	/* IPv4 / IPv6 header */
	uint16_t l4_off;	/* UDP header */
	uint16_t pay_off;	/* UDP payload: l4_off + 8 */
	uint16_t pay_len;	/* UDP payload bytes: UDP length - 8 */
	uint8_t pay_fit;	/* xtx_payload bytes that fit: 0, 16 or 24 */
	uint8_t ipv6;		/* 1 IPv6, 0 IPv4 */
	uint8_t udp_csum;	/* 1 if the UDP checksum is in use (always for IPv6); the
				 * rewrite helpers then keep it correct */
};

/* A transport 5-tuple: addresses network order, ports host order. */
struct xtx_pkt_flow {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t proto;		/* IPPROTO_UDP, ... */
	uint16_t src_port;
	uint16_t dst_port;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} src, dst;
};

/* xtx_payload bytes that fit in a UDP payload of `udp_payload_len` bytes: 0, 16 or 24
 * (see "Sizes"). */
static inline uint32_t xtx_pkt__payload_fit(uint32_t udp_payload_len)
{
	if (udp_payload_len >= XTX_PKT_PAYLOAD_FULL_LEN)
		return XTX_PKT_PAYLOAD_FULL_LEN;
	if (udp_payload_len >= XTX_PKT_PAYLOAD_SEQ_LEN)
		return XTX_PKT_PAYLOAD_SEQ_LEN;
	return 0;
}

static inline uint16_t _xtx_pkt_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Parse an Ethernet frame of `len` bytes at `frame`: at most one VLAN tag (0x8100 or
 * 0x88a8), then IPv4 (options allowed, not a fragment) or IPv6 (UDP directly in the base
 * header), then UDP. Lengths must be consistent: the IP length fits in the frame (bytes
 * after it are padding), the UDP length is >= 8 and fits in the IP payload. Checksums are
 * not verified (see xtx_pkt__check_udp()).
 *
 * Fills *l and, if key is not NULL, *key. Returns 0, or
 *   -EINVAL           frame or l NULL
 *   -EBADMSG          truncated or inconsistent: frame shorter than its headers, IP
 *                     version not matching the ethertype, IHL < 5, IP or UDP length too
 *                     small or larger than what follows
 *   -EPROTONOSUPPORT  not IPv4/IPv6 (or more than one VLAN tag), not UDP, an IPv4
 *                     fragment, or an IPv6 extension header */
static inline int xtx_pkt__parse_udp(const void *frame, size_t len, struct xtx_pkt_layout *l,
				     struct xtx_pkt_flow *key)
{
	const uint8_t *p = (const uint8_t *)frame, *ip, *udp;
	size_t off = XTX_PKT_ETH_HLEN, ip_len, l4, udp_len;
	uint16_t et;
	bool v6;

	if (!frame || !l)
		return -EINVAL;
	if (len > XTX_PKT_MAX_FRAME || len < XTX_PKT_ETH_HLEN)
		return -EBADMSG;
	et = _xtx_pkt_get16(p + 12);
	if (et == XTX_PKT_ETH_P_8021Q || et == XTX_PKT_ETH_P_8021AD) {
		if (len < XTX_PKT_ETH_HLEN + XTX_PKT_VLAN_HLEN)
			return -EBADMSG;
		et = _xtx_pkt_get16(p + 16);
		off += XTX_PKT_VLAN_HLEN;
	}
	if (et != XTX_PKT_ETH_P_IP && et != XTX_PKT_ETH_P_IPV6)
		return -EPROTONOSUPPORT;
	v6 = et == XTX_PKT_ETH_P_IPV6;
	ip = p + off;
	if (!v6) {
		size_t ihl;

		if (len < off + XTX_PKT_IP4_HLEN || ip[0] >> 4 != 4)
			return -EBADMSG;
		ihl = (size_t)(ip[0] & 0x0f) * 4;
		ip_len = _xtx_pkt_get16(ip + 2);
		if (ihl < XTX_PKT_IP4_HLEN || ip_len < ihl || off + ip_len > len)
			return -EBADMSG;
		if (_xtx_pkt_get16(ip + 6) & 0x3fff)	/* MF or a fragment offset */
			return -EPROTONOSUPPORT;
		if (ip[9] != IPPROTO_UDP)
			return -EPROTONOSUPPORT;
		l4 = off + ihl;
		ip_len -= ihl;		/* now: IP payload length */
	} else {
		if (len < off + XTX_PKT_IP6_HLEN || ip[0] >> 4 != 6)
			return -EBADMSG;
		ip_len = _xtx_pkt_get16(ip + 4);
		if (off + XTX_PKT_IP6_HLEN + ip_len > len)
			return -EBADMSG;
		if (ip[6] != IPPROTO_UDP)
			return -EPROTONOSUPPORT;
		l4 = off + XTX_PKT_IP6_HLEN;
	}
	if (ip_len < XTX_PKT_UDP_HLEN)
		return -EBADMSG;
	udp = p + l4;
	udp_len = _xtx_pkt_get16(udp + 4);
	if (udp_len < XTX_PKT_UDP_HLEN || udp_len > ip_len)
		return -EBADMSG;

	l->frame_len = (uint16_t)len;
	l->l3_off = (uint16_t)off;
	l->l4_off = (uint16_t)l4;
	l->pay_off = (uint16_t)(l4 + XTX_PKT_UDP_HLEN);
	l->pay_len = (uint16_t)(udp_len - XTX_PKT_UDP_HLEN);
	l->pay_fit = (uint8_t)xtx_pkt__payload_fit(l->pay_len);
	l->ipv6 = v6;
	l->udp_csum = v6 || udp[6] || udp[7];
	if (key) {
		memset(key, 0, sizeof(*key));
		key->family = v6 ? AF_INET6 : AF_INET;
		key->proto = IPPROTO_UDP;
		key->src_port = _xtx_pkt_get16(udp);
		key->dst_port = _xtx_pkt_get16(udp + 2);
		if (v6) {
			memcpy(&key->src.v6, ip + 8, 16);
			memcpy(&key->dst.v6, ip + 24, 16);
		} else {
			memcpy(&key->src.v4, ip + 12, 4);
			memcpy(&key->dst.v4, ip + 16, 4);
		}
	}
	return 0;
}

/* Parse (as xtx_pkt__parse_udp) and verify the IPv4 header checksum and the UDP checksum
 * (skipped when an IPv4 frame carries UDP checksum 0; an IPv6 frame with 0 fails). Fills
 * *l if l is not NULL. Returns 0, -EBADMSG for a wrong checksum, or parse's errors. */
static inline int xtx_pkt__check_udp(const void *frame, size_t len, struct xtx_pkt_layout *l)
{
	const uint8_t *p = (const uint8_t *)frame;
	struct xtx_pkt_layout tmp;
	int err;

	if (!l)
		l = &tmp;
	err = xtx_pkt__parse_udp(frame, len, l, NULL);
	if (err)
		return err;
	if (!l->ipv6 && xtx_pkt__ip4_csum(p + l->l3_off) != 0)
		return -EBADMSG;
	if (l->ipv6 && !p[l->l4_off + 6] && !p[l->l4_off + 7])
		return -EBADMSG;
	if (!l->udp_csum)
		return 0;
	if ((l->ipv6 ? xtx_pkt__udp6_csum(p + l->l3_off, p + l->l4_off, l->pay_len + 8u)
		     : xtx_pkt__udp4_csum(p + l->l3_off, p + l->l4_off, l->pay_len + 8u)) != 0)
		return -EBADMSG;
	return 0;
}

/* For a device that computes the UDP checksum (AF_XDP TX metadata: xtx_desc__set_txmd()
 * with XTX_TXMD_CSUM, csum_start l->l4_off, csum_offset 6; the kernel's CHECKSUM_PARTIAL):
 * store the folded pseudo-header sum in the checksum field, which the device completes
 * over the datagram, and clear l->udp_csum, so that the rewrite helpers leave the field
 * alone and the datagram's bytes may change freely until it is sent. */
static inline void xtx_pkt__udp_csum_partial(void *frame, struct xtx_pkt_layout *l)
{
	uint8_t *p = (uint8_t *)frame, *ip = p + l->l3_off;
	uint16_t len = (uint16_t)(l->pay_len + XTX_PKT_UDP_HLEN), sum;

	if (l->ipv6) {
		struct in6_addr s, d;

		memcpy(&s, ip + 8, 16);
		memcpy(&d, ip + 24, 16);
		sum = (uint16_t)xtx_pkt__pseudo6_sum(&s, &d, IPPROTO_UDP, len);
	} else {
		uint32_t s, d;

		memcpy(&s, ip + 12, 4);
		memcpy(&d, ip + 16, 4);
		sum = (uint16_t)xtx_pkt__pseudo4_sum(s, d, IPPROTO_UDP, len);
	}
	memcpy(p + l->l4_off + 6, &sum, 2);
	l->udp_csum = 0;
}

/* Fast path. Overwrite n bytes of the UDP datagram of `frame` at frame offset `off` with
 * `src` and update the UDP checksum incrementally if l->udp_csum. Preconditions (not
 * checked): l describes frame; n is even; off - l->l4_off is even; the range lies inside
 * the datagram and does not cover the checksum field (l4_off + 6, 7) or the UDP length
 * (which is also in the pseudo-header). */
static inline void xtx_pkt__udp_rewrite(void *frame, const struct xtx_pkt_layout *l,
					size_t off, const void *src, size_t n)
{
	uint8_t *p = (uint8_t *)frame;

	if (l->udp_csum)
		_xtx_pkt_csum_apply(p + l->l4_off + 6, _xtx_pkt_csum_diff(0, p + off, src, n),
				    true);
	memcpy(p + off, src, n);
}

/* Fast path: set the UDP destination / source port (host order). */
static inline void xtx_pkt__set_udp_dport(void *frame, const struct xtx_pkt_layout *l,
					  uint16_t port)
{
	uint16_t v = htons(port);

	xtx_pkt__udp_rewrite(frame, l, l->l4_off + 2u, &v, 2);
}

static inline void xtx_pkt__set_udp_sport(void *frame, const struct xtx_pkt_layout *l,
					  uint16_t port)
{
	uint16_t v = htons(port);

	xtx_pkt__udp_rewrite(frame, l, l->l4_off, &v, 2);
}

/* Write the xtx_payload fields that fit (l->pay_fit: none, magic+flow+seq, or all) at the
 * start of the UDP payload, little-endian, updating the checksum. Use it once per template;
 * then xtx_pkt__stamp() per packet. */
static inline void xtx_pkt__set_payload(void *frame, const struct xtx_pkt_layout *l,
					uint32_t flow, uint64_t seq, uint64_t tstamp_ns)
{
	uint8_t b[XTX_PKT_PAYLOAD_FULL_LEN];
	uint32_t m = htole32(XTX_PAYLOAD_MAGIC), f = htole32(flow);
	uint64_t s = htole64(seq), t = htole64(tstamp_ns);

	if (!l->pay_fit)
		return;
	memcpy(b, &m, 4);
	memcpy(b + 4, &f, 4);
	memcpy(b + 8, &s, 8);
	memcpy(b + 16, &t, 8);
	/* One constant length per call: a variable one makes the copy an inline `rep movs`,
	 * slow for 16 or 24 bytes on many CPUs. */
	if (l->pay_fit == XTX_PKT_PAYLOAD_FULL_LEN)
		xtx_pkt__udp_rewrite(frame, l, l->pay_off, b, XTX_PKT_PAYLOAD_FULL_LEN);
	else
		xtx_pkt__udp_rewrite(frame, l, l->pay_off, b, XTX_PKT_PAYLOAD_SEQ_LEN);
}

/* Fast path, once per packet: rewrite the payload's seq (if it fits) and tstamp_ns (if it
 * fits) with one incremental checksum update. Does nothing if l->pay_fit is 0. The magic
 * and flow fields are left as xtx_pkt__set_payload() wrote them. */
static inline void xtx_pkt__stamp(void *frame, const struct xtx_pkt_layout *l, uint64_t seq,
				  uint64_t tstamp_ns)
{
	uint8_t *p = (uint8_t *)frame, *pay = p + l->pay_off;
	uint64_t s = htole64(seq), t = htole64(tstamp_ns), acc;

	if (l->pay_fit < XTX_PKT_PAYLOAD_SEQ_LEN)
		return;
	acc = _xtx_pkt_csum_diff(0, pay + 8, &s, 8);
	if (l->pay_fit >= XTX_PKT_PAYLOAD_FULL_LEN)
		acc = _xtx_pkt_csum_diff(acc, pay + 16, &t, 8);
	if (l->udp_csum)
		_xtx_pkt_csum_apply(p + l->l4_off + 6, acc, true);
	memcpy(pay + 8, &s, 8);
	if (l->pay_fit >= XTX_PKT_PAYLOAD_FULL_LEN)
		memcpy(pay + 16, &t, 8);
}

/* ------------------------------------------------------------------------------------ */
/* Flow hash                                                                            */
/* ------------------------------------------------------------------------------------ */

/* Flow hash of an IPv4 5-tuple (see "Flow hash" above): saddr/daddr network order (as in
 * struct in_addr), ports host order. Any seed; 0 is fine. */
static inline uint32_t xtx_pkt__flow_hash4(uint32_t saddr, uint32_t daddr, uint16_t sport,
					   uint16_t dport, uint8_t proto, uint32_t seed)
{
	return _xtx_flow_hash4((const uint8_t *)&saddr, (const uint8_t *)&daddr, sport, dport,
			       proto, seed);
}

/* Flow hash of any 5-tuple: key->family AF_INET uses key->src.v4/dst.v4 (and equals
 * xtx_pkt__flow_hash4), AF_INET6 the v6 addresses. Fields of the other family and padding
 * are ignored. Any other family hashes as AF_INET6 (callers pass one of the two). */
static inline uint32_t xtx_pkt__flow_hash(const struct xtx_pkt_flow *key, uint32_t seed)
{
	if (key->family == AF_INET)
		return xtx_pkt__flow_hash4(key->src.v4.s_addr, key->dst.v4.s_addr,
					   key->src_port, key->dst_port, key->proto, seed);
	return _xtx_flow_hash6(key->src.v6.s6_addr, key->dst.v6.s6_addr, key->src_port,
			       key->dst_port, key->proto, seed);
}

/* ------------------------------------------------------------------------------------ */
/* Parsing addresses (for command lines)                                                */
/* ------------------------------------------------------------------------------------ */

static inline int _xtx_pkt_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse a MAC address: six groups of one or two hex digits separated by ':' or by '-'
 * (one kind throughout), nothing before or after: "02:00:5e:10:00:01", "2-0-5E-10-0-1".
 * Returns 0 and fills mac[6], or -EINVAL (s or mac NULL, or not such an address; mac is
 * then unspecified). */
static inline int xtx_pkt__parse_mac(const char *s, uint8_t mac[XTX_PKT_ETH_ALEN])
{
	char sep = 0;

	if (!s || !mac)
		return -EINVAL;
	for (int i = 0; i < XTX_PKT_ETH_ALEN; i++) {
		int hi = _xtx_pkt_hexval(*s), lo;

		if (hi < 0)
			return -EINVAL;
		s++;
		lo = _xtx_pkt_hexval(*s);
		if (lo >= 0) {
			mac[i] = (uint8_t)(hi << 4 | lo);
			s++;
		} else {
			mac[i] = (uint8_t)hi;
		}
		if (i == XTX_PKT_ETH_ALEN - 1)
			break;
		if (*s != ':' && *s != '-')
			return -EINVAL;
		if (sep && *s != sep)
			return -EINVAL;
		sep = *s++;
	}
	return *s ? -EINVAL : 0;
}

/* Format a MAC address as "xx:xx:xx:xx:xx:xx" into out (18 bytes); returns out. */
static inline char *xtx_pkt__format_mac(const uint8_t mac[XTX_PKT_ETH_ALEN], char out[18])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < XTX_PKT_ETH_ALEN; i++) {
		out[3 * i] = hex[mac[i] >> 4];
		out[3 * i + 1] = hex[mac[i] & 0x0f];
		out[3 * i + 2] = i == XTX_PKT_ETH_ALEN - 1 ? '\0' : ':';
	}
	return out;
}

/* An IPv4 or IPv6 address. */
struct xtx_pkt_addr {
	int family;		/* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;	/* network order */
		struct in6_addr v6;
	};
};

/* Parse a numeric IPv4 ("198.18.0.1", dotted quad only) or IPv6 ("2001:db8::1") address
 * with inet_pton(). Returns 0 and fills *a, or -EINVAL (s or a NULL, or neither form). */
static inline int xtx_pkt__parse_ip(const char *s, struct xtx_pkt_addr *a)
{
	if (!s || !a)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &a->v4) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a->v6) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

/* Parse an IPv4 address only. Returns 0 or -EINVAL. */
static inline int xtx_pkt__parse_ip4(const char *s, struct in_addr *a)
{
	if (!s || !a)
		return -EINVAL;
	return inet_pton(AF_INET, s, a) == 1 ? 0 : -EINVAL;
}

#ifdef __cplusplus
}
#endif

#endif /* XTX_PKT_H */
