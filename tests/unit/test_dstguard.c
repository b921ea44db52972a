/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dstguard.c - the load generators' destination guard (tools/common/dstguard.c):
 * the benchmarking ranges at their edges, --allow-dst prefixes of every length, bad
 * prefixes, IPv4-mapped IPv6, the loopback test of the control channel and the refusal
 * message. Table-driven; a failed row prints its guard, address, expected and actual.
 * Exit 0 when every check passed, 1 otherwise; one summary line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "dstguard.h"

/* A guard from a comma-separated list of --allow-dst values ("" none, "*" =
 * --allow-any-dst); a value that is refused fails the check. */
static bool make_guard(struct dstguard *g, const char *allow)
{
	char buf[256], err[256], *save = NULL;

	dstguard_init(g);
	snprintf(buf, sizeof(buf), "%s", allow);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "*")) {
			dstguard_allow_any(g);
			continue;
		}
		if (!CHECK_EQ_I64(0, dstguard_add(g, t, err, sizeof(err)))) {
			fprintf(stderr, "    --allow-dst %s: %s\n", t, err);
			return false;
		}
	}
	return true;
}

static void check_row(const char *allow, const char *addr, bool want)
{
	struct dstguard g;
	uint8_t a[16];
	int fam;
	char d[256];

	if (!make_guard(&g, allow))
		return;
	if (!CHECK_EQ_I64(0, dstguard_parse_addr(addr, &fam, a))) {
		fprintf(stderr, "    address %s does not parse\n", addr);
		return;
	}
	bool got = dstguard_allows(&g, fam, a);

	snprintf(d, sizeof(d), "--allow-dst [%s], %s: expected %s, got %s", allow, addr,
		 want ? "allowed" : "refused", got ? "allowed" : "refused");
	check_report(got == want, __FILE__, __LINE__, "dstguard_allows", d);
}

/* --- the built-in ranges, their edges ---------------------------------------------- */

static void test_ranges(void)
{
	static const struct { const char *addr; bool want; } rows[] = {
		{ "198.17.255.255", false },
		{ "198.18.0.0", true },
		{ "198.18.0.1", true },
		{ "198.18.200.2", true },
		{ "198.19.255.255", true },
		{ "198.20.0.0", false },
		{ "10.0.0.2", false },
		{ "192.0.2.7", false },
		{ "1.1.1.1", false },
		{ "0.0.0.0", false },
		{ "255.255.255.255", false },
		{ "127.0.0.1", false },		/* loopback is for the control channel only */
		{ "2001:2::", true },
		{ "2001:2::1", true },
		{ "2001:2:0:ffff:ffff:ffff:ffff:ffff", true },
		{ "2001:2:1::", false },
		{ "2001:1:ffff:ffff:ffff:ffff:ffff:ffff", false },
		{ "2001:3::", false },
		{ "2001:db8::2", false },
		{ "::1", false },
		{ "::", false },
		{ "fe80::1", false },
		/* IPv4-mapped: the IPv4 address decides */
		{ "::ffff:198.18.0.1", true },
		{ "::ffff:198.19.255.255", true },
		{ "::ffff:198.20.0.0", false },
		{ "::ffff:10.0.0.1", false },
		/* not mapped: ::c612:1 (IPv4-compatible, deprecated) and 64:ff9b::/96 (NAT64)
		 * are IPv6 addresses outside 2001:2::/48 */
		{ "::198.18.0.1", false },
		{ "64:ff9b::198.18.0.1", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_row("", rows[i].addr, rows[i].want);
}

/* --- --allow-dst prefixes ------------------------------------------------------------ */

static void test_allow(void)
{
	static const struct { const char *allow, *addr; bool want; } rows[] = {
		/* /0: everything of that family, the other family still guarded */
		{ "0.0.0.0/0", "10.0.0.2", true },
		{ "0.0.0.0/0", "255.255.255.255", true },
		{ "0.0.0.0/0", "2001:db8::2", false },
		{ "::/0", "2001:db8::2", true },
		{ "::/0", "10.0.0.2", false },
		/* an IPv6 prefix shorter than /96 does not cover the mapped addresses */
		{ "::/0", "::ffff:10.0.0.1", false },
		/* /1 .. /31 at their edges */
		{ "128.0.0.0/1", "128.0.0.0", true },
		{ "128.0.0.0/1", "127.255.255.255", false },
		{ "10.0.0.0/8", "10.255.255.255", true },
		{ "10.0.0.0/8", "11.0.0.0", false },
		{ "10.0.0.0/8", "9.255.255.255", false },
		{ "172.16.0.0/12", "172.31.255.255", true },
		{ "172.16.0.0/12", "172.32.0.0", false },
		{ "10.0.0.0/24", "10.0.0.255", true },
		{ "10.0.0.0/24", "10.0.1.0", false },
		{ "192.0.2.0/25", "192.0.2.127", true },
		{ "192.0.2.0/25", "192.0.2.128", false },
		{ "192.0.2.0/25", "192.0.2.200", false },
		{ "10.0.0.4/30", "10.0.0.7", true },
		{ "10.0.0.4/30", "10.0.0.8", false },
		{ "10.0.0.4/30", "10.0.0.3", false },
		{ "10.0.0.2/31", "10.0.0.3", true },
		{ "10.0.0.2/31", "10.0.0.4", false },
		/* /32 and a bare address */
		{ "10.0.0.2/32", "10.0.0.2", true },
		{ "10.0.0.2/32", "10.0.0.3", false },
		{ "10.0.0.2", "10.0.0.2", true },
		{ "10.0.0.2", "10.0.0.1", false },
		/* IPv6 lengths, within and across bytes */
		{ "2001:db8::/32", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true },
		{ "2001:db8::/32", "2001:db9::", false },
		{ "2001:db8:5::/48", "2001:db8:5:ffff::1", true },
		{ "2001:db8:5::/48", "2001:db8:6::", false },
		{ "2001:db8::/33", "2001:db8:7fff::1", true },
		{ "2001:db8::/33", "2001:db8:8000::", false },
		{ "2001:db8::/64", "2001:db8::ffff:ffff:ffff:ffff", true },
		{ "2001:db8::/64", "2001:db8:0:1::", false },
		{ "2001:db8::/127", "2001:db8::1", true },
		{ "2001:db8::/127", "2001:db8::2", false },
		{ "2001:db8::2/128", "2001:db8::2", true },
		{ "2001:db8::2/128", "2001:db8::3", false },
		{ "2001:db8::2", "2001:db8::2", true },
		{ "2001:db8::2", "2001:db8::1", false },
		/* IPv4-mapped addresses against IPv4 prefixes */
		{ "10.0.0.1", "::ffff:10.0.0.1", true },
		{ "10.0.0.1", "::ffff:10.0.0.2", false },
		{ "10.0.0.0/8", "::ffff:10.9.9.9", true },
		/* a prefix inside ::ffff:0:0/96 is the IPv4 prefix it maps */
		{ "::ffff:10.0.0.0/104", "10.1.2.3", true },
		{ "::ffff:10.0.0.0/104", "::ffff:10.1.2.3", true },
		{ "::ffff:10.0.0.0/104", "11.0.0.0", false },
		{ "::ffff:0:0/96", "1.1.1.1", true },
		{ "::ffff:0:0/96", "2001:db8::1", false },
		/* several prefixes, and the ranges stay allowed beside them */
		{ "10.0.0.0/24,2001:db8::/64", "10.0.0.9", true },
		{ "10.0.0.0/24,2001:db8::/64", "2001:db8::9", true },
		{ "10.0.0.0/24,2001:db8::/64", "10.0.1.9", false },
		{ "10.0.0.0/24,2001:db8::/64", "198.18.0.1", true },
		{ "10.0.0.0/24,2001:db8::/64", "2001:2::1", true },
		/* --allow-any-dst */
		{ "*", "1.1.1.1", true },
		{ "*", "2001:db8::2", true },
		{ "*", "::ffff:10.0.0.1", true },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_row(rows[i].allow, rows[i].addr, rows[i].want);
}

/* --- bad prefixes: usage errors that name the option and the value -------------------- */

static void test_bad_prefixes(void)
{
	static const struct { const char *prefix; const char *why; } rows[] = {
		{ "10.0.0.0/33", "from 0 to 32 for IPv4" },
		{ "2001:db8::/129", "from 0 to 128 for IPv6" },
		{ "2001:db8::/1000", "from 0 to 128 for IPv6" },
		{ "foo", "'foo' is not an IPv4 or IPv6 address" },
		{ "bogus", "'bogus' is not an IPv4 or IPv6 address" },
		{ "/", "give a prefix like" },
		{ "/24", "give a prefix like" },
		{ "", "give a prefix like" },
		{ "1.2.3.4/", "from 0 to 32" },
		{ "1.2.3.4/-1", "from 0 to 32" },
		{ "1.2.3.4/+8", "from 0 to 32" },
		{ "1.2.3.4/ 8", "from 0 to 32" },
		{ "1.2.3.4/08", "from 0 to 32" },
		{ "1.2.3.4/8x", "from 0 to 32" },
		{ "1.2.3.4/24/24", "from 0 to 32" },
		{ "1.2.3/24", "'1.2.3' is not an IPv4 or IPv6 address" },
		{ "256.0.0.0/8", "not an IPv4 or IPv6 address" },
		{ "10.0.0.0 /8", "not an IPv4 or IPv6 address" },
		{ "fe80::1%eth0/64", "not an IPv4 or IPv6 address" },
		{ "2001:db8:::/64", "not an IPv4 or IPv6 address" },
		/* bits set past the length: refused, with the aligned prefix named */
		{ "10.1.2.3/8", "bits are set past /8; did you mean 10.0.0.0/8?" },
		{ "192.0.2.200/25", "did you mean 192.0.2.128/25?" },
		{ "10.0.0.1/0", "did you mean 0.0.0.0/0?" },
		{ "2001:db8::1/64", "did you mean 2001:db8::/64?" },
		{ "2001:db8:8000::/32", "did you mean 2001:db8::/32?" },
	};
	struct dstguard g;
	char err[256];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char want[128];

		dstguard_init(&g);
		err[0] = 0;
		if (!CHECK_EQ_I64(-EINVAL, dstguard_add(&g, rows[i].prefix, err, sizeof(err))))
			fprintf(stderr, "    --allow-dst '%s' was taken\n", rows[i].prefix);
		CHECK_EQ_U64(0, g.n);
		snprintf(want, sizeof(want), "--allow-dst '%s': ", rows[i].prefix);
		CHECK_STR_CONTAINS(err, want);
		CHECK_STR_CONTAINS(err, rows[i].why);
	}
	/* the table is full at DSTGUARD_MAX */
	dstguard_init(&g);
	for (unsigned i = 0; i < DSTGUARD_MAX; i++) {
		char p[32];

		snprintf(p, sizeof(p), "10.0.%u.0/24", i);
		CHECK_EQ_I64(0, dstguard_add(&g, p, err, sizeof(err)));
	}
	CHECK_EQ_I64(-ENOSPC, dstguard_add(&g, "10.1.0.0/24", err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "at most 16 prefixes");
	CHECK_EQ_U64(DSTGUARD_MAX, g.n);
}

/* --- the control channel's loopback test -------------------------------------------- */

static void test_loopback(void)
{
	static const struct { const char *addr; bool want; } rows[] = {
		{ "127.0.0.1", true }, { "127.255.255.255", true }, { "127.0.0.0", true },
		{ "126.255.255.255", false }, { "128.0.0.0", false }, { "::1", true },
		{ "::2", false }, { "::", false }, { "::ffff:127.0.0.1", true },
		{ "::ffff:10.0.0.1", false }, { "198.18.0.1", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint8_t a[16];
		int fam;
		char d[128];

		CHECK_EQ_I64(0, dstguard_parse_addr(rows[i].addr, &fam, a));
		snprintf(d, sizeof(d), "%s: expected %s", rows[i].addr,
			 rows[i].want ? "loopback" : "not loopback");
		check_report(dstguard_is_loopback(fam, a) == rows[i].want, __FILE__, __LINE__,
			     "dstguard_is_loopback", d);
	}
	CHECK(!dstguard_is_loopback(AF_UNIX, "\x7f\0\0\1"));
}

/* --- the refusal message ------------------------------------------------------------- */

static void test_message(void)
{
	struct dstguard g;
	uint8_t a[16];
	int fam;
	char msg[512], err[128];

	dstguard_init(&g);
	dstguard_parse_addr("10.0.0.2", &fam, a);
	CHECK_EQ_I64(-EPERM, dstguard_check(&g, fam, a, "send to", msg, sizeof(msg)));
	CHECK_STR_CONTAINS(msg, "refusing to send to 10.0.0.2: outside the benchmarking "
			   "ranges 198.18.0.0/15 and 2001:2::/48; allow your lab's prefix with "
			   "--allow-dst 10.0.0.0/24 (repeatable), or any destination with "
			   "--allow-any-dst");
	dstguard_parse_addr("2001:db8::7", &fam, a);
	CHECK_EQ_I64(-EPERM, dstguard_check(&g, fam, a, "send to", msg, sizeof(msg)));
	CHECK_STR_CONTAINS(msg, "refusing to send to 2001:db8::7: outside");
	CHECK_STR_CONTAINS(msg, "--allow-dst 2001:db8::/64 (repeatable)");
	dstguard_parse_addr("::ffff:10.1.2.3", &fam, a);
	CHECK_EQ_I64(-EPERM, dstguard_check(&g, fam, a, "send to", msg, sizeof(msg)));
	CHECK_STR_CONTAINS(msg, "refusing to send to ::ffff:10.1.2.3: outside");
	CHECK_STR_CONTAINS(msg, "--allow-dst 10.1.2.0/24 (repeatable)");
	/* with prefixes given, the message says the address is in none of them */
	CHECK_EQ_I64(0, dstguard_add(&g, "192.0.2.0/25", err, sizeof(err)));
	dstguard_parse_addr("192.0.2.200", &fam, a);
	CHECK_EQ_I64(-EPERM, dstguard_check(&g, fam, a, "connect the control channel to", msg,
					    sizeof(msg)));
	CHECK_STR_CONTAINS(msg, "refusing to connect the control channel to 192.0.2.200: "
			   "outside the benchmarking ranges 198.18.0.0/15 and 2001:2::/48 and "
			   "the --allow-dst prefixes given;");
	/* allowed: 0 and msg untouched */
	snprintf(msg, sizeof(msg), "untouched");
	dstguard_parse_addr("192.0.2.100", &fam, a);
	CHECK_EQ_I64(0, dstguard_check(&g, fam, a, "send to", msg, sizeof(msg)));
	CHECK_STR_CONTAINS(msg, "untouched");
	/* a family that is neither: refused */
	CHECK(!dstguard_allows(&g, AF_UNIX, a));
	dstguard_allow_any(&g);
	CHECK(!dstguard_allows(&g, AF_UNIX, a));
}

/* --- dstguard_parse_addr --------------------------------------------------------------- */

static void test_parse_addr(void)
{
	uint8_t a[16];
	int fam = 0;

	CHECK_EQ_I64(0, dstguard_parse_addr("198.18.0.1", &fam, a));
	CHECK_EQ_I64(AF_INET, fam);
	CHECK_EQ_U64(0xc6120001, ((uint32_t)a[0] << 24) | ((uint32_t)a[1] << 16) |
		     ((uint32_t)a[2] << 8) | a[3]);
	CHECK_EQ_I64(0, dstguard_parse_addr("2001:2::1", &fam, a));
	CHECK_EQ_I64(AF_INET6, fam);
	CHECK_EQ_U64(1, a[15]);
	CHECK_EQ_I64(-EINVAL, dstguard_parse_addr("198.18.0", &fam, a));
	CHECK_EQ_I64(-EINVAL, dstguard_parse_addr("", &fam, a));
	CHECK_EQ_I64(-EINVAL, dstguard_parse_addr("rx.example", &fam, a));
	CHECK_EQ_I64(-EINVAL, dstguard_parse_addr("2001:2::1/48", &fam, a));
}

int main(void)
{
	test_ranges();
	test_allow();
	test_bad_prefixes();
	test_loopback();
	test_message();
	test_parse_addr();
	return check_summary("test_dstguard");
}
