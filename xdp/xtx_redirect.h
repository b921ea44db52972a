/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx_redirect.h - what the xtx_redirect XDP program (xdp/xtx_redirect.bpf.c) shares with
 * its loader (tools/xtx-shape) and its unit test (tests/unit/test_redirect_bpf.c): map
 * keys and values, rule actions, counter indices, the non-IP flow hash layout. Fixed-width
 * types only, no libc: compiled both by clang -target bpf and by gcc.
 *
 * Classification (bitmap intersection, Lakshman & Stiliadis 1998). Rules are numbered
 * 0..XTX_RD_RULES_MAX-1 in file order; the first rule that matches wins. For every field a
 * rule may test there is a map from the frame's value of that field to the set of rules
 * (a bitmask) that accept that value; a rule that does not test the field is in every
 * entry of that map. The program looks up each field, ANDs the masks, and takes the lowest
 * set bit. Maps (names as in the skeleton):
 *
 *   rd_src4, rd_dst4   LPM trie, struct xtx_rd_lpm4 -> struct xtx_rd_mask. The loader
 *                      inserts every prefix rules name plus 0.0.0.0/0; the value of prefix
 *                      P holds the rules whose prefix contains P and the rules that name no
 *                      IPv4 address there. The longest match P for an address a is then
 *                      exactly the rules whose prefix contains a (prefixes containing a
 *                      nest, so each contains P). Rules on IPv6 addresses are in no entry.
 *   rd_src6, rd_dst6   the same for IPv6 (struct xtx_rd_lpm6).
 *   rd_sport, rd_dport array [65536], port (host order) -> mask; frames without ports
 *                      (ICMP, other protocols, fragments) use rd_misc[XTX_RD_MISC_NOPORT].
 *   rd_proto           array [256], IP protocol -> mask.
 *   rd_dscp            array [64], DSCP -> mask.
 *   rd_vlan            array [XTX_RD_VLAN_UNTAGGED + 1], outer VLAN id -> mask; index
 *                      XTX_RD_VLAN_UNTAGGED for untagged frames.
 *   rd_misc            array [XTX_RD_MISC_MAX]: NOPORT (rules that test no port), NON_IP
 *                      (rules that test only the VLAN: the candidates for non-IP frames).
 *   rd_rules           array [XTX_RD_RULES_MAX + 1] of struct xtx_rd_rule; the last entry
 *                      (XTX_RD_RULE_DEFAULT) is what frames that match no rule get.
 *   rd_stats           per-CPU array [XTX_RD_STAT_MAX] of struct xtx_xdp_counter.
 *   xsks               XSKMAP, key = RX queue index: the engine's receive sockets.
 *   rd_police          array [TX queues * classes] of __u64, mmapable: the room word
 *                      (xtx/roomword.h) of each class on each TX queue, stored by the
 *                      engine's dequeuers. A frame whose flow hash maps to queue q
 *                      ((hash * cfg_tx_queues) >> 32) is admitted within its class's room
 *                      there, else dropped (POLICED).
 *   rd_admit           array [TX queues * classes] of struct xtx_rd_admit: what was
 *                      admitted since the word's last room event.
 *   rd_policed         per-CPU array [classes] of struct xtx_xdp_counter: those drops.
 *
 * When cfg_nrules is 0 (no rules file) the program skips the lookups and every frame gets
 * rd_rules[XTX_RD_RULE_DEFAULT].
 */
#ifndef XTX_REDIRECT_H
#define XTX_REDIRECT_H

#include <linux/types.h>
#include "xtx_counter.h"	/* struct xtx_xdp_counter: rd_stats' values */

#define XTX_RD_RULES_MAX	128
#define XTX_RD_MASK_WORDS	(XTX_RD_RULES_MAX / 64)
#define XTX_RD_RULE_DEFAULT	XTX_RD_RULES_MAX	/* index of the default action */
#define XTX_RD_PREFIX_MAX	1024	/* entries per LPM trie */
#define XTX_RD_VLAN_UNTAGGED	4096
#define XTX_RD_MAX_QUEUES	64	/* XSKMAP size */

struct xtx_rd_mask {
	__u64 w[XTX_RD_MASK_WORDS];	/* bit r of word r / 64: rule r */
};

struct xtx_rd_lpm4 {
	__u32 prefixlen;
	__u8 addr[4];			/* network order */
};

struct xtx_rd_lpm6 {
	__u32 prefixlen;
	__u8 addr[16];
};

enum xtx_rd_misc {
	XTX_RD_MISC_NOPORT = 0,
	XTX_RD_MISC_NON_IP,
	XTX_RD_MISC_MAX
};

enum xtx_rd_action {
	XTX_RD_ACT_CLASS = 0,		/* to the class `cls`, through the shaper */
	XTX_RD_ACT_PASS,		/* to the kernel stack, untouched */
	XTX_RD_ACT_DROP,		/* XDP_DROP */
};

struct xtx_rd_rule {
	__u32 action;			/* enum xtx_rd_action */
	__u32 cls;			/* class index (ACT_CLASS) */
};

struct xtx_rd_admit {
	__u64 used;			/* wire bytes admitted since ver */
	__u64 ver;			/* XTX_RD_ADMIT_VER(): the room event it counts for
					 * and when it began */
};
/* gen in bits 48-62, the start in 65.5 us units (bpf_ktime_get_ns() >> 16) below. */
#define XTX_RD_ADMIT_VER(gen, ns) \
	((__u64)((gen) & 0x7fffu) << 48 | (((__u64)(ns) >> 16) & ((1ull << 48) - 1)))
#define XTX_RD_ADMIT_GEN(v)	((__u32)((v) >> 48) & 0x7fffu)
#define XTX_RD_ADMIT_T(v)	(((v) & ((1ull << 48) - 1)) << 16)

enum xtx_rd_mode {
	XTX_RD_MODE_ROUTER = 0,		/* FIB lookup, new MACs, TTL - 1 */
	XTX_RD_MODE_L2,			/* bump in the wire: frames leave unchanged */
};

/* Verdict counters: every frame lands in exactly one of the first XTX_RD_VERDICT_MAX.
 * Frames handed to the kernel say why; "router" marks those only router mode passes. */
enum xtx_rd_stat {
	XTX_RD_REDIRECT = 0,		/* to the AF_XDP socket of its RX queue */
	XTX_RD_DROP_RULE,		/* a rule said drop */
	XTX_RD_PASS_RULE,		/* a rule said pass */
	XTX_RD_PASS_ARP,		/* ARP: always the kernel's */
	XTX_RD_PASS_ND,			/* IPv6 neighbour discovery / router messages */
	XTX_RD_PASS_NO_SOCKET,		/* no receive socket on this queue (not ready yet) */
	XTX_RD_PASS_LOCAL,		/* l2: to this host's MAC; router: IPv6 link-local */
	XTX_RD_PASS_NOT_UNICAST,	/* router: broadcast/multicast or another host's MAC */
	XTX_RD_PASS_NON_IP,		/* router: not IPv4/IPv6 */
	XTX_RD_PASS_VLAN,		/* router: VLAN-tagged (the kernel's VLAN devices route) */
	XTX_RD_PASS_BAD,		/* router: truncated or malformed (the kernel drops it);
					 * both modes: shorter than an Ethernet header */
	XTX_RD_PASS_TTL,		/* router: TTL / hop limit <= 1 (kernel: ICMP time exceeded) */
	XTX_RD_PASS_NOT_FWDED,		/* router: FIB says local destination, or no route */
	XTX_RD_PASS_NO_ROUTE,		/* router: unreachable, blackhole, prohibit route */
	XTX_RD_PASS_NO_NEIGH,		/* router: next hop unresolved (kernel resolves it) */
	XTX_RD_PASS_FRAG_NEEDED,	/* router: above the egress MTU */
	XTX_RD_PASS_OTHER_IF,		/* router: the route leaves by another interface */
	XTX_RD_PASS_FWD_OFF,		/* router: forwarding disabled, or other FIB result */
	XTX_RD_POLICED,			/* dropped: its class is full on its TX queue (rd_police) */
	XTX_RD_VERDICT_MAX,
	/* sub-counts */
	XTX_RD_TRUNCATED = XTX_RD_VERDICT_MAX,	/* a header runs past the frame */
	XTX_RD_MALFORMED,		/* bad version/IHL/lengths, 3+ VLAN tags */
	XTX_RD_FRAGMENT,		/* IPv4 MF/offset or IPv6 fragment header: no ports */
	XTX_RD_NO_META,			/* redirected without metadata (adjust_meta failed) */
	XTX_RD_DEFAULT,			/* matched no rule: the default action */
	XTX_RD_STAT_MAX
};

/* The name of counter i (enum xtx_rd_stat) as xtx-shape's JSON keys it: "redirect",
 * "drop_rule", "pass_arp", ...; NULL outside the enum. */
static inline const char *xtx_rd_stat_name(__u32 i)
{
	static const char *const names[XTX_RD_STAT_MAX] = {
		[XTX_RD_REDIRECT] = "redirect",
		[XTX_RD_DROP_RULE] = "drop_rule",
		[XTX_RD_PASS_RULE] = "pass_rule",
		[XTX_RD_PASS_ARP] = "pass_arp",
		[XTX_RD_PASS_ND] = "pass_nd",
		[XTX_RD_PASS_NO_SOCKET] = "pass_no_socket",
		[XTX_RD_PASS_LOCAL] = "pass_local",
		[XTX_RD_PASS_NOT_UNICAST] = "pass_not_unicast",
		[XTX_RD_PASS_NON_IP] = "pass_non_ip",
		[XTX_RD_PASS_VLAN] = "pass_vlan",
		[XTX_RD_PASS_BAD] = "pass_bad",
		[XTX_RD_PASS_TTL] = "pass_ttl",
		[XTX_RD_PASS_NOT_FWDED] = "pass_not_fwded",
		[XTX_RD_PASS_NO_ROUTE] = "pass_no_route",
		[XTX_RD_PASS_NO_NEIGH] = "pass_no_neigh",
		[XTX_RD_PASS_FRAG_NEEDED] = "pass_frag_needed",
		[XTX_RD_PASS_OTHER_IF] = "pass_other_if",
		[XTX_RD_PASS_FWD_OFF] = "pass_fwd_off",
		[XTX_RD_POLICED] = "policed",
		[XTX_RD_TRUNCATED] = "truncated",
		[XTX_RD_MALFORMED] = "malformed",
		[XTX_RD_FRAGMENT] = "fragment",
		[XTX_RD_NO_META] = "no_meta",
		[XTX_RD_DEFAULT] = "default",
	};

	return i < XTX_RD_STAT_MAX ? names[i] : 0;
}

/* Flow hash: MurmurHash3_x86_32 with seed cfg_hash_seed over 32-bit words in host order
 * (include/xtx/pkt.h): IPv4 and IPv6 exactly as xtx_pkt__flow_hash() (ports 0 for ICMP,
 * fragments and protocols without ports), so a sender and the shaper agree. Non-IP frames
 * (and, in l2 mode, IP frames too damaged to parse): four words, 16 bytes,
 *   dst[0..3], dst[4..5] << 16 | src[0..1], src[2..5], ethertype (innermost seen)
 * each read big-endian from the frame. */

#endif /* XTX_REDIRECT_H */
