/* SPDX-License-Identifier: BSD-3-Clause */
/* test_units.c - rates in tc's units: the library's xtx_rate__parse() (xtx/sched.h, the
 * config file's reading) and the tools' units_parse_rate() on top of it (tools/common/
 * units.c: packets per second, the tools' bounds). Table-driven; a failed row prints its
 * input, expected and actual. Exit 0 when every check passed, 1 otherwise; one summary
 * line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <xtx/sched.h>
#include "check.h"
#include "units.h"

struct rate_row {
	const char *s;
	int rc;			/* expected return */
	uint64_t v;		/* bytes per second when rc is 0 */
};

static const struct rate_row lib_rows[] = {
	{ "0", 0, 0 },				/* 0 is a value; the caller bounds it */
	{ "7bit", 0, 0 },			/* less than a byte: truncated */
	{ "8", 0, 1 },
	{ "100mbit", 0, 12500000 },
	{ "100MBIT", 0, 12500000 },
	{ "1.5gbit", 0, 187500000 },
	{ ".5kbit", 0, 62 },
	{ "5.kbit", 0, 625 },
	{ "1kibit", 0, 128 },
	{ "1tibps", 0, 1099511627776ull },
	{ "125mbps", 0, 125000000 },
	{ "18446744073709551615bps", 0, UINT64_MAX },
	{ "18446744073709551616bps", -ERANGE, 0 },
	{ "1000000000000000000000000bit", -ERANGE, 0 },	/* 25 significant digits */
	{ "", -EINVAL, 0 },
	{ "mbit", -EINVAL, 0 },
	{ "-5mbit", -EINVAL, 0 },
	{ "+5mbit", -EINVAL, 0 },
	{ " 5mbit", -EINVAL, 0 },
	{ "5 mbit", -EINVAL, 0 },
	{ "1e6bit", -EINVAL, 0 },
	{ "0x10mbit", -EINVAL, 0 },
	{ "inf", -EINVAL, 0 },
	{ "10gbit/s", -EINVAL, 0 },
	{ "5pps", -EINVAL, 0 },			/* a packet rate is the tools' */
};

static void test_lib(void)
{
	uint64_t v;
	char d[160];

	for (size_t i = 0; i < sizeof(lib_rows) / sizeof(lib_rows[0]); i++) {
		const struct rate_row *r = &lib_rows[i];
		int rc;

		v = 0x5a5a;
		rc = xtx_rate__parse(r->s, &v);
		snprintf(d, sizeof(d), "xtx_rate__parse(\"%s\"): expected %d / %llu, got %d / %llu",
			 r->s, r->rc, (unsigned long long)r->v, rc, (unsigned long long)v);
		check_report(rc == r->rc && (rc || v == r->v) && (!rc || v == 0x5a5a), __FILE__,
			     __LINE__, "lib_rows", d);
	}
	CHECK_EQ_I64(-EINVAL, xtx_rate__parse(NULL, &v));
	CHECK_EQ_I64(-EINVAL, xtx_rate__parse("1mbit", NULL));
}

struct tool_row {
	const char *s;
	int rc;
	uint64_t pps, Bps;
};

/* The forms xtx-send --rate took before it read numbers with the library, and what
 * changed: exponents, signs, hex and leading blanks (strtod's) are refused now, as the
 * config file refuses them; the binary units and tbps are taken now, as there. */
static const struct tool_row tool_rows[] = {
	{ "500kpps", 0, 500000, 0 },
	{ "500KPPS", 0, 500000, 0 },
	{ "2mpps", 0, 2000000, 0 },
	{ "1000pps", 0, 1000, 0 },
	{ "1.5kpps", 0, 1500, 0 },
	{ "1.9pps", 0, 1, 0 },			/* rounded down */
	{ "100mbit", 0, 0, 12500000 },
	{ "1gbit", 0, 0, 125000000 },
	{ "1.5gbit", 0, 0, 187500000 },
	{ "12mbps", 0, 0, 12000000 },
	{ "1000000", 0, 0, 125000 },		/* a bare number is bit/s */
	{ "8bit", 0, 0, 1 },
	{ "1kibit", 0, 0, 128 },		/* new: the library's binary units */
	{ "1tbps", 0, 0, 1000000000000ull },	/* new */
	{ "1000tbit", 0, 0, UNITS_MAX_BPS },	/* 1e15 bit/s, the most */
	{ "1000000000000000pps", 0, UNITS_MAX_PPS, 0 },
	{ "1000.001tbit", -EINVAL, 0, 0 },
	{ "125000000000001bps", -EINVAL, 0, 0 },
	{ "1000000000000001pps", -EINVAL, 0, 0 },
	{ "0mbit", -EINVAL, 0, 0 },
	{ "7bit", -EINVAL, 0, 0 },		/* below a byte per second */
	{ "0.5pps", -EINVAL, 0, 0 },
	{ "0pps", -EINVAL, 0, 0 },
	{ "fast", -EINVAL, 0, 0 },
	{ "", -EINVAL, 0, 0 },
	{ "pps", -EINVAL, 0, 0 },
	{ "kpps", -EINVAL, 0, 0 },
	{ "5kkpps", -EINVAL, 0, 0 },
	{ "5gpps", -EINVAL, 0, 0 },
	{ "5kibpps", -EINVAL, 0, 0 },
	{ "5mbitpps", -EINVAL, 0, 0 },
	{ "5 pps", -EINVAL, 0, 0 },
	{ "-5kpps", -EINVAL, 0, 0 },
	{ "1e6bit", -EINVAL, 0, 0 },		/* was 125000 B/s (strtod) */
	{ "1e3kpps", -EINVAL, 0, 0 },		/* was 1000000 pps */
	{ "+100mbit", -EINVAL, 0, 0 },		/* was 12500000 B/s */
	{ " 100mbit", -EINVAL, 0, 0 },		/* was 12500000 B/s */
	{ "0x10mbit", -EINVAL, 0, 0 },		/* was 2000000 B/s */
	{ "100 mbit", -EINVAL, 0, 0 },
	{ "inf", -EINVAL, 0, 0 },
	{ "nan", -EINVAL, 0, 0 },
};

static void test_tools(void)
{
	char d[200];

	for (size_t i = 0; i < sizeof(tool_rows) / sizeof(tool_rows[0]); i++) {
		const struct tool_row *r = &tool_rows[i];
		uint64_t pps = 7, Bps = 7;
		int rc = units_parse_rate(r->s, &pps, &Bps);
		int ok = rc == r->rc && (rc ? pps == 7 && Bps == 7 : pps == r->pps && Bps == r->Bps);

		snprintf(d, sizeof(d), "units_parse_rate(\"%s\"): expected %d, pps %llu, Bps %llu; "
			 "got %d, pps %llu, Bps %llu", r->s, r->rc, (unsigned long long)r->pps,
			 (unsigned long long)r->Bps, rc, (unsigned long long)pps,
			 (unsigned long long)Bps);
		check_report(ok, __FILE__, __LINE__, "tool_rows", d);
	}
}

int main(void)
{
	test_lib();
	test_tools();
	return check_summary("test_units");
}
