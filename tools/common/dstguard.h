/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/dstguard.h - where a load generator may send: the one check every tool
 * that sends (xtx-send, udp-send, pkt-send, xsk-plain, xtx-compare) makes on its IP
 * destination before it opens any socket or interface.
 *
 * Allowed without asking: the benchmarking ranges, 198.18.0.0/15 (RFC 2544) and
 * 2001:2::/48 (RFC 5180), which no one routes on the Internet. Anything else only when
 * the user says so: --allow-dst PREFIX (repeatable, IPv4 or IPv6 CIDR, an address alone
 * is /32 or /128) or --allow-any-dst.
 *
 * The rules:
 *   - A prefix with bits set past its length (10.1.2.3/8) is refused as a usage error,
 *     not rounded: the user may have meant /24 and would allow far more than intended.
 *     The message names the aligned prefix.
 *   - An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address a.b.c.d: a kernel
 *     socket sends it as IPv4. It is checked as that address, against 198.18.0.0/15 and
 *     the IPv4 prefixes allowed, so ::ffff:198.18.0.1 is allowed and ::ffff:10.0.0.1
 *     only with 10.0.0.1 allowed. An --allow-dst inside ::ffff:0:0/96 (length >= 96) is
 *     taken as the IPv4 prefix it maps; a shorter IPv6 prefix (::/0) does not cover the
 *     mapped addresses.
 *   - The table is fixed (DSTGUARD_MAX prefixes); nothing is allocated.
 */
#ifndef XTX_TOOLS_DSTGUARD_H
#define XTX_TOOLS_DSTGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DSTGUARD_MAX		16	/* --allow-dst prefixes at most */
#define DSTGUARD_RANGES		"198.18.0.0/15 and 2001:2::/48"

struct dstguard_net {
	int family;			/* AF_INET or AF_INET6 */
	unsigned len;			/* prefix length in bits */
	uint8_t addr[16];		/* network address, bits past len zero */
};

struct dstguard {
	bool any;			/* --allow-any-dst */
	unsigned n;			/* prefixes in net[] */
	struct dstguard_net net[DSTGUARD_MAX];
};

/* An empty guard: the benchmarking ranges only. (A zeroed struct is the same.) */
void dstguard_init(struct dstguard *g);
/* --allow-dst PREFIX. Returns 0, -EINVAL for a bad prefix or -ENOSPC when
 * DSTGUARD_MAX are given; then err says why, naming --allow-dst and PREFIX. */
int dstguard_add(struct dstguard *g, const char *prefix, char *err, size_t errlen);
/* --allow-any-dst. */
void dstguard_allow_any(struct dstguard *g);
/* Whether g lets a tool send to addr (family AF_INET: 4 bytes, AF_INET6: 16 bytes,
 * network order). Any other family is refused. */
bool dstguard_allows(const struct dstguard *g, int family, const void *addr);
/* 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104: accepted for a control connection. */
bool dstguard_is_loopback(int family, const void *addr);
/* s as an IPv4 or IPv6 address (a ':' makes it IPv6): 0 and *family, addr[16] filled,
 * or -EINVAL. */
int dstguard_parse_addr(const char *s, int *family, uint8_t addr[16]);
/* 0 if g allows addr; else -EPERM and msg gets "refusing to VERB ADDR: outside the
 * benchmarking ranges ...; allow your lab's prefix with --allow-dst P (repeatable), or
 * any destination with --allow-any-dst" (P: the address's /24 or /64). verb is e.g.
 * "send to". The caller prints it after "PROG: " and exits 2. */
int dstguard_check(const struct dstguard *g, int family, const void *addr, const char *verb,
		   char *msg, size_t msglen);

/* The --help lines of the two options, for the tools' usage texts. IND is the indent
 * of the option's description (a string of spaces). */
#define DSTGUARD_USAGE(IND)							\
"    --allow-dst PREFIX\n"							\
IND "also send to PREFIX, an IPv4 or IPv6 prefix (10.0.0.0/24,\n"		\
IND "2001:db8:5::/64; an address alone is /32 or /128; no bits set\n"		\
IND "past the length). Repeatable, up to 16. Without it only the\n"		\
IND "benchmarking ranges 198.18.0.0/15 (RFC 2544) and 2001:2::/48\n"		\
IND "(RFC 5180) are sent to: any other destination is refused, exit\n"		\
IND "status 2, before a socket is opened. ::ffff:a.b.c.d counts as\n"		\
IND "the IPv4 address a.b.c.d.\n"						\
"    --allow-any-dst\n"								\
IND "send to any destination (a network you own and may load).\n"

#endif /* XTX_TOOLS_DSTGUARD_H */
