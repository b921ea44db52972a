/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/pkt_hash_pvt.h - the flow hash of xtx/pkt.h ("Flow hash" there), in the one form
 * that pkt.h and the XDP program which must agree with it (xdp/xtx_redirect.bpf.c) both
 * compile: fixed-width types only, no libc, no loop, addresses read byte by byte.
 * Internal: include xtx/pkt.h, not this (the BPF program excepted); the names may change.
 *
 * MurmurHash3_x86_32 (Austin Appleby, public domain) over 32-bit words: a 5-tuple is the
 * addresses as big-endian words, then sport << 16 | dport, then the protocol; 16 bytes for
 * IPv4, 40 for IPv6. The XDP program also hashes non-IP frames with these steps.
 */
#ifndef XTX_PKT_HASH_PVT_H
#define XTX_PKT_HASH_PVT_H

#include <linux/types.h>

/* Every step inlined: the BPF program calls them on packet pointers. */
#define _XTX_HASH_INLINE	static inline __attribute__((always_inline))

_XTX_HASH_INLINE __u32 _xtx_rotl32(__u32 x, __u32 r)
{
	return x << r | x >> (32 - r);
}

/* One body step for a 4-byte block k. */
_XTX_HASH_INLINE __u32 _xtx_mmh3_mix(__u32 h, __u32 k)
{
	k *= 0xcc9e2d51u;
	k = _xtx_rotl32(k, 15);
	k *= 0x1b873593u;
	h ^= k;
	h = _xtx_rotl32(h, 13);
	return h * 5 + 0xe6546b64u;
}

/* The finalizer (fmix32) after mixing in the key length in bytes. */
_XTX_HASH_INLINE __u32 _xtx_mmh3_final(__u32 h, __u32 len)
{
	h ^= len;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* The big-endian 32-bit word at p (any alignment). */
_XTX_HASH_INLINE __u32 _xtx_be32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

/* IPv4 5-tuple: saddr and daddr 4 bytes each in network order (as in the header),
 * ports host order (below 65536). */
_XTX_HASH_INLINE __u32 _xtx_flow_hash4(const __u8 *saddr, const __u8 *daddr, __u32 sport,
				       __u32 dport, __u32 proto, __u32 seed)
{
	__u32 h = _xtx_mmh3_mix(seed, _xtx_be32(saddr));

	h = _xtx_mmh3_mix(h, _xtx_be32(daddr));
	h = _xtx_mmh3_mix(h, (__u32)sport << 16 | dport);
	h = _xtx_mmh3_mix(h, proto);
	return _xtx_mmh3_final(h, 16);
}

/* IPv6 5-tuple: saddr and daddr 16 bytes each in network order. */
_XTX_HASH_INLINE __u32 _xtx_flow_hash6(const __u8 *saddr, const __u8 *daddr, __u32 sport,
				       __u32 dport, __u32 proto, __u32 seed)
{
	__u32 h = seed;

	h = _xtx_mmh3_mix(h, _xtx_be32(saddr));
	h = _xtx_mmh3_mix(h, _xtx_be32(saddr + 4));
	h = _xtx_mmh3_mix(h, _xtx_be32(saddr + 8));
	h = _xtx_mmh3_mix(h, _xtx_be32(saddr + 12));
	h = _xtx_mmh3_mix(h, _xtx_be32(daddr));
	h = _xtx_mmh3_mix(h, _xtx_be32(daddr + 4));
	h = _xtx_mmh3_mix(h, _xtx_be32(daddr + 8));
	h = _xtx_mmh3_mix(h, _xtx_be32(daddr + 12));
	h = _xtx_mmh3_mix(h, (__u32)sport << 16 | dport);
	h = _xtx_mmh3_mix(h, proto);
	return _xtx_mmh3_final(h, 40);
}

#endif /* XTX_PKT_HASH_PVT_H */
