/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/dstguard.c - the destination guard of the load generators. See
 * dstguard.h for the rules. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "dstguard.h"

/* The benchmarking ranges, always allowed. */
static const struct dstguard_net bench_ranges[] = {
	{ AF_INET, 15, { 198, 18 } },				/* RFC 2544 */
	{ AF_INET6, 48, { 0x20, 0x01, 0x00, 0x02 } },		/* RFC 5180 */
};

/* ::ffff:0:0/96, the IPv4-mapped IPv6 addresses. */
static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

void dstguard_init(struct dstguard *g)
{
	memset(g, 0, sizeof(*g));
}

void dstguard_allow_any(struct dstguard *g)
{
	g->any = true;
}

static unsigned addr_bytes(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* Whether the first len bits of a and b are equal. */
static bool same_bits(const uint8_t *a, const uint8_t *b, unsigned len)
{
	unsigned full = len / 8, rest = len % 8;

	if (memcmp(a, b, full))
		return false;
	return !rest || !((a[full] ^ b[full]) & (uint8_t)(0xff00 >> rest));
}

/* a with the bits past len cleared, into out. */
static void mask_bits(const uint8_t *a, unsigned len, unsigned bytes, uint8_t *out)
{
	for (unsigned i = 0; i < bytes; i++) {
		unsigned keep = len >= 8 * (i + 1) ? 8 : len > 8 * i ? len - 8 * i : 0;

		out[i] = a[i] & (uint8_t)(0xff00 >> keep);
	}
}

/* An IPv4-mapped IPv6 address becomes the IPv4 address it maps (family and addr
 * rewritten in place); others stay. */
static void unmap(int *family, uint8_t addr[16])
{
	if (*family == AF_INET6 && !memcmp(addr, v4mapped, sizeof(v4mapped))) {
		memmove(addr, addr + 12, 4);
		memset(addr + 4, 0, 12);
		*family = AF_INET;
	}
}

static bool in_net(const struct dstguard_net *n, int family, const uint8_t *addr)
{
	return n->family == family && same_bits(n->addr, addr, n->len);
}

int dstguard_parse_addr(const char *s, int *family, uint8_t addr[16])
{
	memset(addr, 0, 16);
	*family = strchr(s, ':') ? AF_INET6 : AF_INET;
	return inet_pton(*family, s, addr) == 1 ? 0 : -EINVAL;
}

/* "0".."max" in decimal, no sign, no leading zero. */
static int parse_len(const char *s, unsigned max, unsigned *out)
{
	unsigned v = 0;

	if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 3)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int dstguard_add(struct dstguard *g, const char *prefix, char *err, size_t errlen)
{
	char host[64], aligned[INET6_ADDRSTRLEN];
	const char *slash = strchr(prefix, '/');
	size_t hl = slash ? (size_t)(slash - prefix) : strlen(prefix);
	struct dstguard_net n;
	uint8_t masked[16];
	unsigned max;

	if (g->n == DSTGUARD_MAX) {
		snprintf(err, errlen, "--allow-dst '%s': at most %d prefixes", prefix,
			 DSTGUARD_MAX);
		return -ENOSPC;
	}
	if (hl >= sizeof(host) || !hl) {
		snprintf(err, errlen, "--allow-dst '%s': give a prefix like 10.0.0.0/24 or "
			 "2001:db8::/64, or an address", prefix);
		return -EINVAL;
	}
	memcpy(host, prefix, hl);
	host[hl] = 0;
	if (dstguard_parse_addr(host, &n.family, n.addr)) {
		snprintf(err, errlen, "--allow-dst '%s': '%s' is not an IPv4 or IPv6 address",
			 prefix, host);
		return -EINVAL;
	}
	max = n.family == AF_INET ? 32 : 128;
	n.len = max;
	if (slash && parse_len(slash + 1, max, &n.len)) {
		snprintf(err, errlen, "--allow-dst '%s': the prefix length must be a number "
			 "from 0 to %u for %s", prefix, max, n.family == AF_INET ? "IPv4" : "IPv6");
		return -EINVAL;
	}
	mask_bits(n.addr, n.len, addr_bytes(n.family), masked);
	if (memcmp(masked, n.addr, addr_bytes(n.family))) {
		inet_ntop(n.family, masked, aligned, sizeof(aligned));
		snprintf(err, errlen, "--allow-dst '%s': bits are set past /%u; did you mean "
			 "%s/%u?", prefix, n.len, aligned, n.len);
		return -EINVAL;
	}
	/* Inside ::ffff:0:0/96: the IPv4 prefix it maps (dstguard.h). */
	if (n.family == AF_INET6 && n.len >= 96 && !memcmp(n.addr, v4mapped, sizeof(v4mapped))) {
		memmove(n.addr, n.addr + 12, 4);
		memset(n.addr + 4, 0, 12);
		n.family = AF_INET;
		n.len -= 96;
	}
	g->net[g->n++] = n;
	return 0;
}

bool dstguard_allows(const struct dstguard *g, int family, const void *addr)
{
	uint8_t a[16] = { 0 };

	if (family != AF_INET && family != AF_INET6)
		return false;
	memcpy(a, addr, addr_bytes(family));
	unmap(&family, a);
	if (g->any)
		return true;
	for (size_t i = 0; i < sizeof(bench_ranges) / sizeof(bench_ranges[0]); i++)
		if (in_net(&bench_ranges[i], family, a))
			return true;
	for (unsigned i = 0; i < g->n; i++)
		if (in_net(&g->net[i], family, a))
			return true;
	return false;
}

bool dstguard_is_loopback(int family, const void *addr)
{
	static const struct dstguard_net lo4 = { AF_INET, 8, { 127 } };
	static const struct dstguard_net lo6 = { AF_INET6, 128, { [15] = 1 } };
	uint8_t a[16] = { 0 };

	if (family != AF_INET && family != AF_INET6)
		return false;
	memcpy(a, addr, addr_bytes(family));
	unmap(&family, a);
	return in_net(&lo4, family, a) || in_net(&lo6, family, a);
}

int dstguard_check(const struct dstguard *g, int family, const void *addr, const char *verb,
		   char *msg, size_t msglen)
{
	char shown[INET6_ADDRSTRLEN] = "?", net[INET6_ADDRSTRLEN] = "?";
	uint8_t a[16] = { 0 }, m[16];
	unsigned len;

	if (dstguard_allows(g, family, addr))
		return 0;
	if (family == AF_INET || family == AF_INET6) {
		memcpy(a, addr, addr_bytes(family));
		inet_ntop(family, a, shown, sizeof(shown));
		unmap(&family, a);
		len = family == AF_INET ? 24 : 64;
		mask_bits(a, len, addr_bytes(family), m);
		inet_ntop(family, m, net, sizeof(net));
	} else {
		len = 0;
	}
	snprintf(msg, msglen, "refusing to %s %s: outside the benchmarking ranges "
		 DSTGUARD_RANGES "%s; allow your lab's prefix with --allow-dst %s/%u "
		 "(repeatable), or any destination with --allow-any-dst", verb, shown,
		 g->n ? " and the --allow-dst prefixes given" : "", net, len);
	return -EPERM;
}
