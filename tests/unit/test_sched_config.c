/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sched_config.c - the scheduler configuration: C API container, text parser, and
 * validate(). Table-driven; every failing check prints expected vs actual and the row's
 * input. Exit 0 when every check passed, 1 otherwise; one summary line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xtx/sched.h>
#include "check.h"
#include "sched_config_pvt.h"	/* _xtx_rate_fmt(), _xtx_handle_fmt() */

#define NAME	"t.conf"
#define ERRLEN	1024

/* The input of a table row, printable, for failure reports. */
static const char *show(const char *s)
{
	static char buf[256];
	size_t off = 0;

	for (; *s && off + 8 < sizeof(buf); s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "\\n");
		else if (c == '\t')
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "\\t");
		else if (c < 0x20 || c >= 0x7f)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "\\x%02x", c);
		else
			buf[off++] = (char)c;
	}
	if (*s)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "...");
	buf[off] = '\0';
	return buf;
}

/* Runs the checks of one row (the statements after input); on any failure in it, names
 * the row. Variadic so that commas in the body need no extra parentheses. */
#define ROW(input, ...) do {							\
	unsigned long f0_ = atomic_load(&check_n_fail);				\
	__VA_ARGS__;								\
	if (atomic_load(&check_n_fail) != f0_)					\
		fprintf(stderr, "    in row: \"%s\"\n", show(input));		\
} while (0)

static struct xtx_sched_config *parse(const char *text, char *err)
{
	return xtx_sched_config__parse_string(text, NAME, err, ERRLEN);
}

/* --- one value read back from a parsed config ---------------------------------------- */

enum field {
	F_HANDLE, F_PARENT, F_RATE, F_CEIL, F_BURST, F_CBURST, F_QUANTUM, F_PRIO, F_FQ, F_LIMIT,
	F_FLOWS, F_FLOW_LIMIT, F_FQ_QUANTUM, F_MAXRATE, F_LINE, F_DEFAULT, F_OVERHEAD, F_R2Q,
};

static uint64_t field_get(const struct xtx_sched_config *cfg, enum field f)
{
	unsigned n = xtx_sched_config__class_count(cfg);
	const struct xtx_class_opts *o = n ? xtx_sched_config__class(cfg, n - 1) : NULL;

	switch (f) {
	case F_DEFAULT:		return xtx_sched_config__default(cfg);
	case F_OVERHEAD:	return xtx_sched_config__overhead(cfg);
	case F_R2Q:		return xtx_sched_config__r2q(cfg);
	default:		break;
	}
	if (!o)
		return UINT64_MAX - 1;	/* no class: cannot equal any expected value below */
	switch (f) {
	case F_HANDLE:		return o->handle;
	case F_PARENT:		return o->parent;
	case F_RATE:		return o->rate;
	case F_CEIL:		return o->ceil;
	case F_BURST:		return o->burst;
	case F_CBURST:		return o->cburst;
	case F_QUANTUM:		return o->quantum;
	case F_PRIO:		return o->prio;
	case F_FQ:		return o->fq;
	case F_LIMIT:		return o->limit;
	case F_FLOWS:		return o->flows;
	case F_FLOW_LIMIT:	return o->flow_limit;
	case F_FQ_QUANTUM:	return o->fq_quantum;
	case F_MAXRATE:		return o->maxrate;
	case F_LINE:		return o->line;
	default:		return UINT64_MAX - 1;
	}
}

/* text parses and field (of the last class) == want; or text fails with err (a substring
 * that starts with "NAME:LINE:COL:") and, if given, why (a second substring). */
struct val_case {
	const char *text;
	enum field f;
	uint64_t want;
	const char *err[2];	/* [0] error substring (NULL = success), [1] a second one */
};
#define V(t, fld, w, ...) { .text = (t), .f = (fld), .want = (w), .err = { __VA_ARGS__ } }

#define R(v)	"class 1: rate " v			/* value at column 15 */
#define S(v)	"class 1: rate 1gbit burst " v		/* value at column 27 */
#define EXP_RATE "expected a rate: a number and a unit such as 100mbit, 2.5gbit or 125mbps"
#define EXP_SIZE "expected a size in bytes such as 1514, 64k or 1.5mb"
#define EXP_HANDLE "expected a class handle like 1:10 (hex major 1..ffff, ':', hex minor 0..ffff)"

static const struct val_case val_cases[] = {
	/* rates: every tc unit, bits (bare number too) and bytes, decimal and IEC */
	V(R("8"),		F_RATE, 1),
	V(R("8bit"),		F_RATE, 1),
	V(R("8BIT"),		F_RATE, 1),
	V(R("12bit"),		F_RATE, 1),		/* 1.5 bytes: truncated as tc */
	V(R("1kbit"),		F_RATE, 125),
	V(R("1Kbit"),		F_RATE, 125),
	V(R("1kibit"),		F_RATE, 128),
	V(R("1mbit"),		F_RATE, 125000),
	V(R("1mibit"),		F_RATE, 131072),
	V(R("1gbit"),		F_RATE, 125000000),
	V(R("1GBIT"),		F_RATE, 125000000),
	V(R("1gibit"),		F_RATE, 134217728),
	V(R("1tbit"),		F_RATE, 125000000000ull),
	V(R("1tibit"),		F_RATE, 137438953472ull),
	V(R("1bps"),		F_RATE, 1),
	V(R("1Bps"),		F_RATE, 1),
	V(R("1kbps"),		F_RATE, 1000),
	V(R("1KBps"),		F_RATE, 1000),
	V(R("1kibps"),		F_RATE, 1024),
	V(R("1KiBps"),		F_RATE, 1024),
	V(R("1mbps"),		F_RATE, 1000000),		/* megaBYTES, as in tc */
	V(R("1mibps"),		F_RATE, 1048576),
	V(R("1gbps"),		F_RATE, 1000000000),
	V(R("1gibps"),		F_RATE, 1073741824),
	V(R("1tbps"),		F_RATE, 1000000000000ull),
	V(R("1tibps"),		F_RATE, 1099511627776ull),
	V(R("10gbit"),		F_RATE, 1250000000),
	V(R("1.5gbit"),		F_RATE, 187500000),
	V(R("2.5Mbit"),		F_RATE, 312500),
	V(R("0.001gbit"),	F_RATE, 125000),
	V(R(".5kbit"),		F_RATE, 62),			/* 62.5 truncated */
	V(R("5.kbit"),		F_RATE, 625),
	V(R("007mbit"),		F_RATE, 875000),
	V(R("1.500000000000000000000000000000000gbit"), F_RATE, 187500000),
	V(R("18446744073709551615bps"),	  F_RATE, UINT64_MAX),	/* the maximum */
	V(R("147573952589676412920bit"),  F_RATE, UINT64_MAX),
	V(R("147573952589676412927bit"),  F_RATE, UINT64_MAX),	/* .875 byte truncated */
	V(R("147573952589676412928bit"),  F_RATE, 0, NAME ":1:15: found '147573952589676412928bit', " EXP_RATE, "of at most 18446744073709551615 bytes/s"),
	V(R("18446744073709551616bps"),   F_RATE, 0, NAME ":1:15: found '18446744073709551616bps', " EXP_RATE, "of at most 18446744073709551615 bytes/s"),
	V(R("18446744.073709551616tbps"), F_RATE, 0, NAME ":1:15: found '18446744.073709551616tbps'", "of at most 18446744073709551615 bytes/s"),
	V(R("99999999999999tbps"),	  F_RATE, 0, NAME ":1:15: found '99999999999999tbps'", "of at most 18446744073709551615 bytes/s"),
	V(R("1000000000000000000000000bit"), F_RATE, 0, NAME ":1:15: found '1000000000000000000000000bit', " EXP_RATE, "with at most 24 significant digits"),
	V(R("-5mbit"),		F_RATE, 0, NAME ":1:15: found '-5mbit', " EXP_RATE, "; it cannot be negative"),
	V(R("+5mbit"),		F_RATE, 0, NAME ":1:15: found '+5mbit', " EXP_RATE),
	V(R("10gbitx"),		F_RATE, 0, NAME ":1:15: found '10gbitx', " EXP_RATE),
	V(R("10gbit/s"),	F_RATE, 0, NAME ":1:15: found '10gbit/s', " EXP_RATE),
	V(R("mbit"),		F_RATE, 0, NAME ":1:15: found 'mbit', " EXP_RATE),
	V(R("1e9"),		F_RATE, 0, NAME ":1:15: found '1e9', " EXP_RATE),
	V(R("0x10"),		F_RATE, 0, NAME ":1:15: found '0x10', " EXP_RATE),
	V(R("."),		F_RATE, 0, NAME ":1:15: found '.', " EXP_RATE),
	V(R("1..5gbit"),	F_RATE, 0, NAME ":1:15: found '1..5gbit', " EXP_RATE),
	V(R("1,5gbit"),		F_RATE, 0, NAME ":1:15: found '1,5gbit', " EXP_RATE),
	V(R("inf"),		F_RATE, 0, NAME ":1:15: found 'inf', " EXP_RATE),
	V(R("nan"),		F_RATE, 0, NAME ":1:15: found 'nan', " EXP_RATE),
	V(R("0"),		F_RATE, 0, NAME ":1:15: found '0', expected a rate above 0"),
	V(R("0gbit"),		F_RATE, 0, NAME ":1:15: found '0gbit', expected a rate above 0"),
	V(R("7bit"),		F_RATE, 0, NAME ":1:15: found '7bit', expected a rate above 0"),
	V(R("0.000000000000000000000001bit"), F_RATE, 0, NAME ":1:15: found '0.000000000000000000000001bit', expected a rate above 0"),
	V(R("10 gbit"),		F_RATE, 0, NAME ":1:18: found 'gbit', expected a class option"),
	V("class 1: rate",	F_RATE, 0, NAME ":1:14: found end of line, " EXP_RATE " after 'rate'"),
	V("class 1: rate   # 10gbit", F_RATE, 0, NAME ":1:14: found end of line, " EXP_RATE),
	V(R("1gbit ceil 2gbit"), F_CEIL, 250000000),
	V(R("1gbit ceil 2GBPS"), F_CEIL, 2000000000),
	V(R("1gbit ceil 0"),	F_CEIL, 0, NAME ":1:26: found '0', expected a rate above 0"),
	V(R("1gbit ceil"),	F_CEIL, 0, NAME ":1:25: found end of line, " EXP_RATE " after 'ceil'"),
	V(R("1gbit fq maxrate 100mbit"), F_MAXRATE, 12500000),
	V(R("1gbit fq maxrate 0"),	 F_MAXRATE, 0),		/* 0 = pacing off */
	V(R("1gbit fq maxrate -1"),	 F_MAXRATE, 0, NAME ":1:32: found '-1', " EXP_RATE, "cannot be negative"),

	/* sizes: tc's get_size(), k/m/g are binary, kbit/mbit/gbit are bits/8 */
	V(S("1514"),		F_BURST, 1514),
	V(S("1514b"),		F_BURST, 1514),
	V(S("1B"),		F_BURST, 1),
	V(S("1k"),		F_BURST, 1024),
	V(S("1K"),		F_BURST, 1024),
	V(S("1kb"),		F_BURST, 1024),
	V(S("1KB"),		F_BURST, 1024),
	V(S("1m"),		F_BURST, 1048576),
	V(S("1mb"),		F_BURST, 1048576),
	V(S("1g"),		F_BURST, 1073741824),
	V(S("1gb"),		F_BURST, 1073741824),
	V(S("1kbit"),		F_BURST, 128),
	V(S("1mbit"),		F_BURST, 131072),
	V(S("1gbit"),		F_BURST, 134217728),
	V(S("1.5k"),		F_BURST, 1536),
	V(S("0.5kb"),		F_BURST, 512),
	V(S("4294967295"),	F_BURST, UINT32_MAX),			/* the maximum */
	V(S("3.999999999g"),	F_BURST, 4294967294u),
	V(S("4294967296"),	F_BURST, 0, NAME ":1:27: found '4294967296', " EXP_SIZE, "of at most 4294967295 bytes"),
	V(S("4g"),		F_BURST, 0, NAME ":1:27: found '4g', " EXP_SIZE, "of at most 4294967295 bytes"),
	V(S("0"),		F_BURST, 0, NAME ":1:27: found '0', expected a size of at least 1 byte (leave 'burst' out"),
	V(S("0.1"),		F_BURST, 0, NAME ":1:27: found '0.1', expected a size of at least 1 byte"),
	V(S("-1"),		F_BURST, 0, NAME ":1:27: found '-1', " EXP_SIZE, "; it cannot be negative"),
	V(S("1kib"),		F_BURST, 0, NAME ":1:27: found '1kib', " EXP_SIZE),
	V(S("1tb"),		F_BURST, 0, NAME ":1:27: found '1tb', " EXP_SIZE),
	V(S("k"),		F_BURST, 0, NAME ":1:27: found 'k', " EXP_SIZE),
	V(S("1 k"),		F_BURST, 0, NAME ":1:29: found 'k', expected a class option"),
	V("class 1: rate 1gbit burst", F_BURST, 0, NAME ":1:26: found end of line, " EXP_SIZE " after 'burst'"),
	V(R("1gbit cburst 64k"),	F_CBURST, 65536),
	V(R("1gbit quantum 1514"),	F_QUANTUM, 1514),
	V(R("1gbit quantum 0"),		F_QUANTUM, 0, NAME ":1:29: found '0', expected a size of at least 1 byte (leave 'quantum' out"),
	V(R("1gbit fq fq_quantum 9000"), F_FQ_QUANTUM, 9000),

	/* plain integers */
	V(R("1gbit prio 0"),	F_PRIO, 0),
	V(R("1gbit prio 7"),	F_PRIO, 7),
	V(R("1gbit prio 07"),	F_PRIO, 7),
	V(R("1gbit prio 8"),	F_PRIO, 0, NAME ":1:26: found '8', expected a whole number from 0 to 7"),
	V(R("1gbit prio -1"),	F_PRIO, 0, NAME ":1:26: found '-1', expected a whole number from 0 to 7; it cannot be negative"),
	V(R("1gbit prio 1.0"),	F_PRIO, 0, NAME ":1:26: found '1.0', expected a whole number from 0 to 7"),
	V(R("1gbit prio"),	F_PRIO, 0, NAME ":1:25: found end of line, expected a whole number from 0 to 7 after 'prio'"),
	V(R("1gbit limit 1"),	F_LIMIT, 1),
	V(R("1gbit limit 4294967295"), F_LIMIT, UINT32_MAX),
	V(R("1gbit limit 0"),	F_LIMIT, 0, NAME ":1:27: found '0', expected a whole number from 1 to 4294967295"),
	V(R("1gbit limit 4294967296"), F_LIMIT, 0, NAME ":1:27: found '4294967296', expected a whole number from 1 to 4294967295"),
	V(R("1gbit limit 99999999999999999999999"), F_LIMIT, 0, NAME ":1:27: found '99999999999999999999999', expected a whole number"),
	V(R("1gbit limit 1k"),	F_LIMIT, 0, NAME ":1:27: found '1k', expected a whole number from 1 to 4294967295"),
	V(R("1gbit fq flows 4096"),	F_FLOWS, 4096),
	V(R("1gbit fq flows abc"),	F_FLOWS, 0, NAME ":1:30: found 'abc', expected a whole number from 1 to 4294967295"),
	V(R("1gbit fq flow_limit 5"),	F_FLOW_LIMIT, 5),
	V(R("1gbit fq flow_limit 0"),	F_FLOW_LIMIT, 0, NAME ":1:35: found '0', expected a whole number from 1"),
	V(R("1gbit fq"),		F_FQ, 1),
	V(R("1gbit\noverhead 0"),	F_OVERHEAD, 0),
	V(R("1gbit\noverhead 65535"),	F_OVERHEAD, 65535),
	V(R("1gbit\noverhead 38 # ethernet + VLAN"), F_OVERHEAD, 38),
	V(R("1gbit\noverhead 65536"),	F_OVERHEAD, 0, NAME ":2:10: found '65536', expected a whole number from 0 to 65535"),
	V(R("1gbit\noverhead 24b"),	F_OVERHEAD, 0, NAME ":2:10: found '24b', expected a whole number from 0 to 65535"),
	V(R("1gbit\noverhead"),		F_OVERHEAD, 0, NAME ":2:9: found end of line, expected a whole number from 0 to 65535 after 'overhead'"),
	V(R("1gbit\nr2q 1"),		F_R2Q, 1),
	V(R("1gbit\nr2q 4294967295"),	F_R2Q, UINT32_MAX),
	V(R("1gbit\nr2q 0"),		F_R2Q, 0, NAME ":2:5: found '0', expected a whole number from 1 to 4294967295"),

	/* handles: hex as tc, major 1..ffff, minor 0..ffff, ffff:ffff is tc's root */
	V("class 1: rate 1mbit",	 F_HANDLE, 0x10000),
	V("class 1:0 rate 1mbit",	 F_HANDLE, 0x10000),
	V("class 1:10 rate 1mbit",	 F_HANDLE, 0x10010),
	V("class a:ff rate 1mbit",	 F_HANDLE, 0xa00ff),
	V("class A:FF rate 1mbit",	 F_HANDLE, 0xa00ff),
	V("class 0001:0010 rate 1mbit",	 F_HANDLE, 0x10010),
	V("class ffff:fffe rate 1mbit",	 F_HANDLE, 0xfffffffe),
	V("class ffff:ffff rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found 'ffff:ffff', " EXP_HANDLE),
	V("class 0:10 rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found '0:10', " EXP_HANDLE),
	V("class :10 rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found ':10', " EXP_HANDLE),
	V("class 1 rate 1mbit",		 F_HANDLE, 0, NAME ":1:7: found '1', " EXP_HANDLE),
	V("class 10000:1 rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found '10000:1', " EXP_HANDLE),
	V("class 1:10000 rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found '1:10000', " EXP_HANDLE),
	V("class 1:g rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found '1:g', " EXP_HANDLE),
	V("class 0x1:1 rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found '0x1:1', " EXP_HANDLE),
	V("class 1:10:1 rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found '1:10:1', " EXP_HANDLE),
	V("class -1:1 rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found '-1:1', " EXP_HANDLE),
	V("class root rate 1mbit",	 F_HANDLE, 0, NAME ":1:7: found 'root', " EXP_HANDLE),
	V("class",			 F_HANDLE, 0, NAME ":1:6: found end of line, " EXP_HANDLE " after 'class'"),
	V("class 1:10 parent root rate 1mbit", F_PARENT, XTX_HANDLE_ROOT),
	V("class 1:10 rate 1mbit",	 F_PARENT, XTX_HANDLE_ROOT),	/* no parent: a root */
	V("class 1: rate 1mbit\nclass 1:10 parent 1: rate 1mbit", F_PARENT, 0x10000),
	V("class 1:10 parent rootx rate 1mbit", F_PARENT, 0, NAME ":1:19: found 'rootx', " EXP_HANDLE " or root"),
	V("class 1:10 parent",		 F_PARENT, 0, NAME ":1:18: found end of line, " EXP_HANDLE " or root after 'parent'"),
	V("class 1:10 rate 1mbit\ndefault 1:10", F_DEFAULT, 0x10010),
	V("class 1:10 rate 1mbit",	 F_DEFAULT, 0),		/* unset */
	V("class 1:10 rate 1mbit\ndefault root", F_DEFAULT, 0, NAME ":2:9: found 'root', " EXP_HANDLE),

	/* line numbers, comments, blank lines, CRLF, tabs */
	V("\n# c\n\n   \nclass 1: rate 1mbit # tail\n",	F_LINE, 5),
	V("class 1: rate 1mbit#glued comment",		F_RATE, 125000),
	V("class 1: rate 1mbit\r\n",			F_RATE, 125000),
	V("\tclass\t1:\trate\t2mbit\t",			F_RATE, 250000),
};

static void test_values(void)
{
	size_t i;

	for (i = 0; i < sizeof(val_cases) / sizeof(val_cases[0]); i++) {
		const struct val_case *c = &val_cases[i];
		char err[ERRLEN];
		struct xtx_sched_config *cfg;

		errno = 0;
		cfg = parse(c->text, err);
		ROW(c->text, {
			if (!c->err[0]) {
				if (CHECK_STR_EQ("", err) && CHECK(cfg != NULL))
					CHECK_EQ_U64(c->want, field_get(cfg, c->f));
			} else {
				CHECK(cfg == NULL);
				CHECK_EQ_I64(EINVAL, errno);
				CHECK_STR_CONTAINS(err, c->err[0]);
				if (c->err[1])
					CHECK_STR_CONTAINS(err, c->err[1]);
			}
		});
		xtx_sched_config__free(cfg);
	}
}

/* --- defaults ----------------------------------------------------------------------- */

struct def_case {
	const char *text;	/* the last class is checked */
	struct xtx_class_opts want;
};

static const struct def_case def_cases[] = {
	/* 10gbit: burst = 1.25e9/1000 + 1600; quantum 1.25e8 clamped to 200000 */
	{ "class 1: rate 10gbit",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 1250000000, .ceil = 1250000000,
	    .burst = 1251600, .cburst = 1251600, .quantum = 200000, .limit = 10000, .flows = 1,
	    .flow_limit = 100, .fq_quantum = 3028, .line = 1 } },
	/* 8kbit = 1000 B/s: quantum 100 clamped up to 1000 */
	{ "class 1: rate 8kbit",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 1000, .ceil = 1000,
	    .burst = 1601, .cburst = 1601, .quantum = 1000, .limit = 10000, .flows = 1,
	    .flow_limit = 100, .fq_quantum = 3028, .line = 1 } },
	/* 8mbit = 1e6 B/s: quantum = rate / 10; ceil drives cburst; fq: 1024 flows */
	{ "class 1: rate 8mbit ceil 16mbit fq",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 1000000, .ceil = 2000000,
	    .burst = 2600, .cburst = 3600, .quantum = 100000, .fq = 1, .limit = 10000,
	    .flows = 1024, .flow_limit = 100, .fq_quantum = 3028, .line = 1 } },
	/* r2q given after the class still sets the default quantum: 1e6 / 100 */
	{ "class 1: rate 8mbit\nr2q 100",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 1000000, .ceil = 1000000,
	    .burst = 2600, .cburst = 2600, .quantum = 10000, .limit = 10000, .flows = 1,
	    .flow_limit = 100, .fq_quantum = 3028, .line = 1 } },
	/* an explicit quantum is kept as given, even below the clamp and with r2q */
	{ "r2q 100\nclass 1: rate 8mbit quantum 500",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 1000000, .ceil = 1000000,
	    .burst = 2600, .cburst = 2600, .quantum = 500, .limit = 10000, .flows = 1,
	    .flow_limit = 100, .fq_quantum = 3028, .line = 2 } },
	/* the largest rate: burst clamps to u32 */
	{ "class 1: rate 18446744073709551615bps",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = UINT64_MAX, .ceil = UINT64_MAX,
	    .burst = UINT32_MAX, .cburst = UINT32_MAX, .quantum = 200000, .limit = 10000,
	    .flows = 1, .flow_limit = 100, .fq_quantum = 3028, .line = 1 } },
	/* every option given: nothing is replaced */
	{ "class 1: rate 1gbit\n"
	  "class 1:20 parent 1: rate 4mbit ceil 1gbit burst 10k cburst 20k quantum 3028 prio 3 "
	  "fq limit 500 flows 4096 flow_limit 50 fq_quantum 9000 maxrate 1mbit target 2.5ms",
	  { .handle = 0x10020, .parent = 0x10000, .rate = 500000, .ceil = 125000000,
	    .burst = 10240, .cburst = 20480, .quantum = 3028, .prio = 3, .fq = 1, .limit = 500,
	    .flows = 4096, .flow_limit = 50, .fq_quantum = 9000, .maxrate = 125000,
	    .target = 2500000, .line = 2 } },
	/* target: tc's bare number is microseconds; off and 0 are none */
	{ "class 1: rate 1gbit target 250",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 125000000, .ceil = 125000000,
	    .burst = 126600, .cburst = 126600, .quantum = 200000, .limit = 10000, .flows = 1,
	    .flow_limit = 100, .fq_quantum = 3028, .target = 250000, .line = 1 } },
	{ "class 1: rate 1gbit target off",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 125000000, .ceil = 125000000,
	    .burst = 126600, .cburst = 126600, .quantum = 200000, .limit = 10000, .flows = 1,
	    .flow_limit = 100, .fq_quantum = 3028, .target = XTX_TARGET_OFF, .line = 1 } },
	/* codel: alone on with the defaults (0); its own words right after it; a room
	 * target before it; off */
	{ "class 1: rate 1gbit codel",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 125000000, .ceil = 125000000,
	    .burst = 126600, .cburst = 126600, .quantum = 200000, .limit = 10000, .flows = 1,
	    .flow_limit = 100, .fq_quantum = 3028, .codel = XTX_CODEL_ON, .line = 1 } },
	{ "class 1: rate 1gbit fq target 1ms codel target 2ms interval 50ms ecn limit 500",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 125000000, .ceil = 125000000,
	    .burst = 126600, .cburst = 126600, .quantum = 200000, .limit = 500, .flows = 1024,
	    .fq = 1, .flow_limit = 100, .fq_quantum = 3028, .target = 1000000,
	    .codel = XTX_CODEL_ON, .codel_ecn = 1, .codel_target = 2000000,
	    .codel_interval = 50000000, .line = 1 } },
	{ "class 1: rate 1gbit codel noecn interval 200",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 125000000, .ceil = 125000000,
	    .burst = 126600, .cburst = 126600, .quantum = 200000, .limit = 10000, .flows = 1,
	    .flow_limit = 100, .fq_quantum = 3028, .codel = XTX_CODEL_ON,
	    .codel_interval = 200000, .line = 1 } },
	{ "class 1: rate 1gbit codel off target 3ms",
	  { .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 125000000, .ceil = 125000000,
	    .burst = 126600, .cburst = 126600, .quantum = 200000, .limit = 10000, .flows = 1,
	    .flow_limit = 100, .fq_quantum = 3028, .target = 3000000, .codel = XTX_CODEL_OFF,
	    .line = 1 } },
};

static void check_opts(const struct xtx_class_opts *w, const struct xtx_class_opts *o)
{
	CHECK_EQ_U64(sizeof(*o), o->sz);
	CHECK_EQ_U64(w->handle, o->handle);
	CHECK_EQ_U64(w->parent, o->parent);
	CHECK_EQ_U64(w->rate, o->rate);
	CHECK_EQ_U64(w->ceil, o->ceil);
	CHECK_EQ_U64(w->burst, o->burst);
	CHECK_EQ_U64(w->cburst, o->cburst);
	CHECK_EQ_U64(w->quantum, o->quantum);
	CHECK_EQ_U64(w->prio, o->prio);
	CHECK_EQ_U64(w->fq, o->fq);
	CHECK_EQ_U64(w->limit, o->limit);
	CHECK_EQ_U64(w->target, o->target);
	CHECK_EQ_U64(w->codel, o->codel);
	CHECK_EQ_U64(w->codel_ecn, o->codel_ecn);
	CHECK_EQ_U64(w->codel_target, o->codel_target);
	CHECK_EQ_U64(w->codel_interval, o->codel_interval);
	CHECK_EQ_U64(w->flows, o->flows);
	CHECK_EQ_U64(w->flow_limit, o->flow_limit);
	CHECK_EQ_U64(w->fq_quantum, o->fq_quantum);
	CHECK_EQ_U64(w->maxrate, o->maxrate);
	CHECK_EQ_U64(w->line, o->line);
}

static void test_defaults(void)
{
	size_t i;

	for (i = 0; i < sizeof(def_cases) / sizeof(def_cases[0]); i++) {
		const struct def_case *c = &def_cases[i];
		char err[ERRLEN];
		struct xtx_sched_config *cfg = parse(c->text, err);

		ROW(c->text, {
			if (CHECK_STR_EQ("", err) && CHECK(cfg != NULL)) {
				unsigned n = xtx_sched_config__class_count(cfg);

				check_opts(&c->want, xtx_sched_config__class(cfg, n - 1));
			}
		});
		xtx_sched_config__free(cfg);
	}

	/* config-wide defaults */
	struct xtx_sched_config *cfg = xtx_sched_config__new();

	if (CHECK(cfg != NULL)) {
		CHECK_EQ_U64(24, xtx_sched_config__overhead(cfg));
		CHECK_EQ_U64(10, xtx_sched_config__r2q(cfg));
		CHECK_EQ_U64(0, xtx_sched_config__default(cfg));
		CHECK_EQ_U64(0, xtx_sched_config__class_count(cfg));
		CHECK(xtx_sched_config__class(cfg, 0) == NULL);
	}
	xtx_sched_config__free(cfg);
}

/* The example of docs/config.md, read back field by field. */
static void test_example(void)
{
	static const char *text =
		"# 10 Gbit link, two tenants\n"
		"class 1:   rate 10gbit\n"
		"class 1:10 parent 1: rate 6gbit ceil 10gbit prio 0\n"
		"class 1:20 parent 1: rate 4gbit ceil 10gbit prio 1 quantum 3028 fq flows 4096 "
		"flow_limit 100\n"
		"default 1:20\n"
		"overhead 24\n"
		"r2q 10\n";
	static const struct xtx_class_opts want[] = {
		{ .handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 1250000000,
		  .ceil = 1250000000, .burst = 1251600, .cburst = 1251600, .quantum = 200000,
		  .limit = 10000, .flows = 1, .flow_limit = 100, .fq_quantum = 3028, .line = 2 },
		{ .handle = 0x10010, .parent = 0x10000, .rate = 750000000, .ceil = 1250000000,
		  .burst = 751600, .cburst = 1251600, .quantum = 200000, .limit = 10000,
		  .flows = 1, .flow_limit = 100, .fq_quantum = 3028, .line = 3 },
		{ .handle = 0x10020, .parent = 0x10000, .rate = 500000000, .ceil = 1250000000,
		  .burst = 501600, .cburst = 1251600, .quantum = 3028, .prio = 1, .fq = 1,
		  .limit = 10000, .flows = 4096, .flow_limit = 100, .fq_quantum = 3028, .line = 4 },
	};
	char err[ERRLEN];
	struct xtx_sched_config *cfg = parse(text, err);
	unsigned i;

	ROW(text, {
		if (CHECK_STR_EQ("", err) && CHECK(cfg != NULL)) {
			CHECK_EQ_U64(3, xtx_sched_config__class_count(cfg));
			for (i = 0; i < 3 && i < xtx_sched_config__class_count(cfg); i++) {
				check_opts(&want[i], xtx_sched_config__class(cfg, i));
				CHECK_EQ_I64(i, xtx_sched_config__class_index(cfg, want[i].handle));
			}
			CHECK_EQ_U64(0x10020, xtx_sched_config__default(cfg));
			CHECK_EQ_U64(24, xtx_sched_config__overhead(cfg));
			CHECK_EQ_U64(10, xtx_sched_config__r2q(cfg));
			CHECK_EQ_I64(-ENOENT, xtx_sched_config__class_index(cfg, 0x10030));
			CHECK_EQ_I64(0, xtx_sched_config__validate(cfg, err, sizeof(err)));
			CHECK_STR_EQ("", err);
		}
	});
	xtx_sched_config__free(cfg);
}

/* --- syntax errors ------------------------------------------------------------------ */

struct err_case {
	const char *text;
	const char *err;	/* substring, NAME:LINE:COL: included */
};

static const struct err_case syntax_cases[] = {
	{ "clas 1: rate 1gbit",
	  NAME ":1:1: found 'clas', expected a statement (class, default, overhead or r2q)" },
	{ "Class 1: rate 1gbit",	NAME ":1:1: found 'Class', expected a statement" },
	{ "class 1: rate 1gbit\n  rate 2gbit", NAME ":2:3: found 'rate', expected a statement" },
	{ "class 1: rate 1gbit foo 3",
	  NAME ":1:21: found 'foo', expected a class option (parent, rate, ceil, burst, cburst, "
	  "quantum, prio, fq, limit, flows, flow_limit, fq_quantum, maxrate, scope, target, "
	  "codel)" },
	{ "class 1: rate 1gbit codel target 0",
	  NAME ":1:34: found '0', expected a time above 0 such as 5ms, 100ms or 500us" },
	{ "class 1: rate 1gbit codel target off",
	  NAME ":1:34: found 'off', expected a time above 0" },
	{ "class 1: rate 1gbit codel interval 3601s",
	  NAME ":1:36: found '3601s'" },
	{ "class 1: rate 1gbit codel target 1ms target 2ms",
	  NAME ":1:38: found 'target' where codel already has it, expected each of codel's "
	  "options once, 'off' alone (a room target goes before 'codel' or after 'codel off')" },
	{ "class 1: rate 1gbit codel ecn off",
	  NAME ":1:31: found 'off' where codel already has an option that excludes it" },
	{ "class 1: rate 1gbit codel ecn noecn",
	  NAME ":1:31: found 'noecn' where codel already has an option that excludes it" },
	{ "class 1: rate 1gbit codel off ecn",
	  NAME ":1:31: found 'ecn', expected a class option" },
	{ "class 1: rate 1gbit codel codel",
	  NAME ":1:27: found 'codel' again, expected each option once per class" },
	{ "class 1: rate 1gbit codel interval",
	  NAME ":1:35: found end of line, expected a time above 0" },
	{ "class 1: rate 1gbit Rate 2gbit", NAME ":1:21: found 'Rate', expected a class option" },
	{ "class 1: rate 1gbit target 5mbit",
	  NAME ":1:28: found '5mbit', expected a time such as 1ms, 500us or 0.5ms, or off" },
	{ "class 1: rate 1gbit target", NAME ":1:27: found end of line, expected a time" },
	{ "class 1: rate 1gbit scope",
	  NAME ":1:26: found end of line, expected 'device' or 'queue' after 'scope'" },
	{ "class 1: rate 1gbit scope mq",
	  NAME ":1:27: found 'mq', expected 'device' or 'queue' after 'scope'" },
	{ "class 1: rate 1gbit scope queue scope device",
	  NAME ":1:33: found 'scope' again, expected each option once per class (first at column 21)" },
	{ "class 1: rate 1gbit fq-quantum 3k", NAME ":1:21: found 'fq-quantum', expected a class option" },
	{ "class 1: rate 1gbit rate 2gbit",
	  NAME ":1:21: found 'rate' again, expected each option once per class (first at column 10)" },
	{ "class 1: rate 1gbit fq fq",
	  NAME ":1:24: found 'fq' again, expected each option once per class (first at column 21)" },
	{ "class 1:10 parent root parent root rate 1gbit",
	  NAME ":1:24: found 'parent' again, expected each option once per class (first at column 12)" },
	{ "class 1:", NAME ":1:9: found end of line, expected 'rate RATE': every class needs a guaranteed rate" },
	{ "class 1: ceil 1gbit", NAME ":1:20: found end of line, expected 'rate RATE'" },
	{ "class 1: ceil 1gbit   # no rate", NAME ":1:20: found end of line, expected 'rate RATE'" },
	{ "class 1: rate 2gbit ceil 1gbit",
	  NAME ":1:21: found 'ceil' below the rate (2Gbit/s), expected a ceil of at least the rate" },
	{ "class 1: ceil 1gbit rate 2gbit",
	  NAME ":1:10: found 'ceil' below the rate (2Gbit/s), expected a ceil of at least the rate" },
	{ "class 1: rate 1gbit\nclass 1: rate 2gbit",
	  NAME ":2:7: found '1:', expected a new class handle (1: is already defined at line 1)" },
	{ "class 1: rate 1gbit\nclass 1:0 rate 2gbit",
	  NAME ":2:7: found '1:0', expected a new class handle (1: is already defined at line 1)" },
	{ "default", NAME ":1:8: found end of line, expected a class handle like 1:10" },
	{ "class 1: rate 1gbit\ndefault 1: 1:20", NAME ":2:12: found '1:20', expected end of line" },
	{ "class 1: rate 1gbit\ndefault 1:\ndefault 1:",
	  NAME ":3:1: found 'default' again, expected it once per file (first at line 2)" },
	{ "overhead 1\nclass 1: rate 1gbit\noverhead 2",
	  NAME ":3:1: found 'overhead' again, expected it once per file (first at line 1)" },
	{ "r2q 1\nr2q 2", NAME ":2:1: found 'r2q' again, expected it once per file (first at line 1)" },
	{ "r2q 5 6", NAME ":1:7: found '6', expected end of line" },
	{ "overhead 24 bytes", NAME ":1:13: found 'bytes', expected end of line" },
	/* binary junk: control bytes anywhere, comments included */
	{ "class 1: rate 1gbit\x01", NAME ":1:20: found '\\x01', expected text; is this a binary file?" },
	{ "\x7f" "ELF", NAME ":1:1: found '\\x7f', expected text; is this a binary file?" },
	{ "class 1: rate 1gbit # \x1b[0m", NAME ":1:23: found '\\x1b', expected text" },
	{ "class 1: rate 1gbit\n\x02\x03\x04", NAME ":2:1: found '\\x02', expected text" },
	/* non-ASCII in a token is shown escaped; in a comment it is fine (see below) */
	{ "class 1: rate 1gbit \xc3\xa9t\xc3\xa9", NAME ":1:21: found '\\xc3\\xa9t\\xc3\\xa9', expected a class option" },
	/* a long token is cut in the message */
	{ "class 1: rate 1gbit aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  NAME ":1:21: found 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...', expected a class option" },
	/* the column counts bytes: a tab is one column */
	{ "\tclass\t1:\trate\t1gbit\tbogus", NAME ":1:22: found 'bogus', expected a class option" },
};

static void test_syntax_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(syntax_cases) / sizeof(syntax_cases[0]); i++) {
		const struct err_case *c = &syntax_cases[i];
		char err[ERRLEN];
		struct xtx_sched_config *cfg;

		errno = 0;
		cfg = parse(c->text, err);
		ROW(c->text, {
			CHECK(cfg == NULL);
			CHECK_EQ_I64(EINVAL, errno);
			CHECK_STR_CONTAINS(err, c->err);
		});
		xtx_sched_config__free(cfg);
	}
}

/* Line length: 4096 bytes (comment included, '\n' not) is the limit. */
static void test_long_lines(void)
{
	static const char head[] = "class 1: rate 1gbit #";
	size_t hl = sizeof(head) - 1;
	char *text = malloc(8192), err[ERRLEN];
	struct xtx_sched_config *cfg;

	if (!CHECK(text != NULL))
		return;
	memcpy(text, head, hl);
	memset(text + hl, 'x', 4096 - hl);
	text[4096] = '\0';				/* exactly 4096: accepted */
	cfg = parse(text, err);
	CHECK_STR_EQ("", err);
	CHECK(cfg != NULL);
	xtx_sched_config__free(cfg);

	text[4096] = 'x';				/* 4097: refused at column 4097 */
	text[4097] = '\0';
	cfg = parse(text, err);
	CHECK(cfg == NULL);
	CHECK_STR_CONTAINS(err, NAME ":1:4097: found a line of 4097 characters, expected at most "
			   "4096");

	/* on line 2, after a good line, with a newline after it */
	memcpy(text, "class 1: rate 1gbit\n#", 21);
	memset(text + 21, 'y', 4200);
	strcpy(text + 21 + 4200, "\n");
	cfg = parse(text, err);
	CHECK(cfg == NULL);
	CHECK_STR_CONTAINS(err, NAME ":2:4097: found a line of 4201 characters");
	free(text);
}

/* --- validate() ----------------------------------------------------------------------- */

struct tree_case {
	const char *text;
	const char *err;	/* substring of the message, NULL = valid */
};

#define ROOT10 "class 1: rate 10mbit\n"

static const struct tree_case tree_cases[] = {
	/* valid trees */
	{ ROOT10 "class 1:10 parent 1: rate 10mbit", NULL },
	{ ROOT10 "class 2: rate 1mbit", NULL },				/* two roots */
	{ "class 1:10 parent 1: rate 1mbit\n" ROOT10, NULL },		/* child first */
	{ "class 1: rate 10mbit ceil 100mbit\nclass 1:10 parent 1: rate 20mbit ceil 100mbit", NULL },
	{ ROOT10 "class 1:10 parent 1: rate 1mbit fq maxrate 0 limit 5", NULL },
	{ ROOT10 "class 1:10 parent 1: rate 1mbit fq flows 262144", NULL },
	{ ROOT10 "class 1:1 parent 1: rate 1mbit\nclass 1:2 parent 1:1 rate 1mbit\ndefault 1:2", NULL },
	/* empty input */
	{ "", NAME ": no classes defined; add at least one line like 'class 1: rate 1gbit'" },
	{ "# nothing but comments\n\n   \n", NAME ": no classes defined" },
	{ "overhead 24\nr2q 10", NAME ": no classes defined" },
	/* parents */
	{ ROOT10 "class 1:10 parent 1:5 rate 1mbit",
	  NAME ":2: class 1:10: parent 1:5 does not exist; define class 1:5 or fix the parent" },
	{ ROOT10 "class 2:10 parent 1: rate 1mbit",
	  NAME ":2: class 2:10: major 2 differs from parent 1:'s major 1; as in tc, a class and "
	  "its parent share the major number (use 1:10)" },
	{ "class 1:1 rate 10mbit\nclass 1: parent 1:1 rate 1mbit",
	  NAME ":2: class 1:: minor 0 is only for a root class, but it has parent 1:1; give it a "
	  "non-zero minor, or no parent" },
	{ "class 1:10 parent 1:20 rate 1mbit\nclass 1:20 parent 1:10 rate 1mbit",
	  NAME ": no root class: every class has a parent; give the top class no parent" },
	{ ROOT10 "class 1:10 parent 1:20 rate 1mbit\nclass 1:20 parent 1:10 rate 1mbit",
	  NAME ":2: class 1:10: parents form a cycle (1:10 -> 1:20 -> 1:10); give one class of "
	  "the cycle a parent outside it" },
	{ ROOT10 "class 1:10 parent 1:10 rate 1mbit",
	  NAME ":2: class 1:10: parents form a cycle (1:10 -> 1:10)" },
	{ ROOT10 "class 1:1 parent 1:2 rate 1mbit\nclass 1:2 parent 1:3 rate 1mbit\n"
	  "class 1:3 parent 1:4 rate 1mbit\nclass 1:4 parent 1:5 rate 1mbit\n"
	  "class 1:5 parent 1:6 rate 1mbit\nclass 1:6 parent 1:7 rate 1mbit\n"
	  "class 1:7 parent 1:8 rate 1mbit\nclass 1:8 parent 1:1 rate 1mbit",
	  NAME ":2: class 1:1: parents form a cycle (1:1 -> 1:2 -> 1:3 -> 1:4 -> 1:5 -> 1:6 -> "
	  "... -> 1:1)" },
	/* rates against the parent's ceil */
	{ ROOT10 "class 1:10 parent 1: rate 20mbit",
	  NAME ":2: class 1:10: rate 20Mbit/s exceeds parent 1:'s ceil 10Mbit/s; lower the rate "
	  "or raise the parent's ceil" },
	{ ROOT10 "class 1:10 parent 1: rate 1mbit ceil 10.5mbit",
	  NAME ":2: class 1:10: ceil 10.5Mbit/s exceeds parent 1:'s ceil 10Mbit/s; lower ceil to "
	  "at most 10Mbit/s" },
	{ "class 1: rate 1gbit ceil 1.000000008gbit\nclass 1:10 parent 1: rate 1.000000016gbit",
	  NAME ":2: class 1:10: rate 1.000000016Gbit/s exceeds parent 1:'s ceil 1.000000008Gbit/s" },
	/* leaf-only options on an inner class, each one, and "maxrate 0" counts as given */
	{ "class 1: rate 10mbit fq\nclass 1:10 parent 1: rate 1mbit",
	  NAME ":1: class 1:: fq is a leaf option, but 1: has child 1:10; move it to the leaf classes" },
	{ "class 1: rate 10mbit limit 5\nclass 1:10 parent 1: rate 1mbit",
	  NAME ":1: class 1:: limit is a leaf option, but 1: has child 1:10" },
	{ "class 1:10 parent 1: rate 1mbit\nclass 1: rate 10mbit flows 8",
	  NAME ":2: class 1:: flows is a leaf option, but 1: has child 1:10" },
	{ "class 1: rate 10mbit flow_limit 8\nclass 1:10 parent 1: rate 1mbit",
	  NAME ":1: class 1:: flow_limit is a leaf option" },
	{ "class 1: rate 10mbit fq_quantum 8k\nclass 1:10 parent 1: rate 1mbit",
	  NAME ":1: class 1:: fq_quantum is a leaf option" },
	{ "class 1: rate 10mbit maxrate 1mbit\nclass 1:10 parent 1: rate 1mbit",
	  NAME ":1: class 1:: maxrate is a leaf option" },
	{ "class 1: rate 10mbit maxrate 0\nclass 1:10 parent 1: rate 1mbit",
	  NAME ":1: class 1:: maxrate is a leaf option" },
	{ "class 1: rate 10mbit target 1ms\nclass 1:10 parent 1: rate 1mbit",
	  NAME ":1: class 1:: target is a leaf option" },
	{ "class 1: rate 10mbit codel\nclass 1:10 parent 1: rate 1mbit",
	  NAME ":1: class 1:: codel is a leaf option" },
	{ "class 1: rate 10mbit codel off\nclass 1:10 parent 1: rate 1mbit",
	  NAME ":1: class 1:: codel is a leaf option" },
	/* fq options without fq */
	{ "class 1: rate 10mbit flows 1024",
	  NAME ":1: class 1:: flows only applies with fq; turn fq on for this class or drop flows" },
	{ "class 1: rate 10mbit maxrate 0", NAME ":1: class 1:: maxrate only applies with fq" },
	/* flows */
	{ "class 1: rate 10mbit fq flows 1000",
	  NAME ":1: class 1:: flows 1000 is not a power of two; use 1024" },
	{ "class 1: rate 10mbit fq flows 3", NAME ":1: class 1:: flows 3 is not a power of two; use 4" },
	{ "class 1: rate 10mbit fq flows 524288",
	  NAME ":1: class 1:: flows 524288 is above the maximum 262144" },
	{ "class 1: rate 10mbit fq flows 4294967295",
	  NAME ":1: class 1:: flows 4294967295 is not a power of two; use 262144" },
	/* default */
	{ ROOT10 "class 1:10 parent 1: rate 1mbit\ndefault 1:",
	  NAME ":3: default 1:: class 1: has child 1:10, but the default must be a leaf class; "
	  "name a leaf" },
	{ ROOT10 "default 1:30", NAME ":2: default 1:30: no such class; name one of the leaf classes" },
};

static void test_tree_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(tree_cases) / sizeof(tree_cases[0]); i++) {
		const struct tree_case *c = &tree_cases[i];
		char err[ERRLEN];
		struct xtx_sched_config *cfg;

		errno = 0;
		cfg = parse(c->text, err);
		ROW(c->text, {
			if (!c->err) {
				CHECK_STR_EQ("", err);
				CHECK(cfg != NULL);
			} else {
				CHECK(cfg == NULL);
				CHECK_EQ_I64(EINVAL, errno);
				CHECK_STR_CONTAINS(err, c->err);
			}
		});
		xtx_sched_config__free(cfg);
	}
}

/* --- the C API ---------------------------------------------------------------------- */

static void test_c_api(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = { .sz = sizeof(o) };
	char err[ERRLEN];
	union {
		struct xtx_class_opts o;
		unsigned char b[sizeof(struct xtx_class_opts) + 8];
	} big;
	unsigned i;

	if (!CHECK(cfg != NULL))
		return;

	/* add_class() argument errors, each -EINVAL; nothing is added */
	struct { const char *what; struct xtx_class_opts o; } bad[] = {
		{ "sz too small", { .sz = offsetof(struct xtx_class_opts, line), .handle = 0x10000,
				    .rate = 1 } },
		{ "rate 0",	  { .sz = sizeof(o), .handle = 0x10000 } },
		{ "prio 8",	  { .sz = sizeof(o), .handle = 0x10000, .rate = 1, .prio = 8 } },
		{ "ceil < rate",  { .sz = sizeof(o), .handle = 0x10000, .rate = 2, .ceil = 1 } },
		{ "fq 2",	  { .sz = sizeof(o), .handle = 0x10000, .rate = 1, .fq = 2 } },
		{ "major 0",	  { .sz = sizeof(o), .handle = 0x00010, .rate = 1 } },
		{ "handle root",  { .sz = sizeof(o), .handle = XTX_HANDLE_ROOT, .rate = 1 } },
	};
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ROW(bad[i].what, CHECK_EQ_I64(-EINVAL, xtx_sched_config__add_class(cfg, &bad[i].o)));
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__add_class(cfg, NULL));
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__add_class(NULL, &o));
	CHECK_EQ_U64(0, xtx_sched_config__class_count(cfg));

	/* a bigger opts struct from a newer caller: accepted if its unknown tail is zero */
	o = (struct xtx_class_opts){ .sz = sizeof(big), .handle = XTX_HANDLE(1, 0), .rate = 1250000 };
	memset(&big, 0, sizeof(big));
	big.o = o;
	big.b[sizeof(o) + 3] = 1;
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__add_class(cfg, &big.o));
	big.b[sizeof(o) + 3] = 0;
	CHECK_EQ_I64(0, xtx_sched_config__add_class(cfg, &big.o));
	/* the same handle again */
	o.sz = sizeof(o);
	CHECK_EQ_I64(-EEXIST, xtx_sched_config__add_class(cfg, &o));

	/* parent 0 means root; defaults as in the file format */
	const struct xtx_class_opts *r = xtx_sched_config__class(cfg, 0);
	if (CHECK(r != NULL)) {
		const struct xtx_class_opts want = {
			.handle = 0x10000, .parent = XTX_HANDLE_ROOT, .rate = 1250000,
			.ceil = 1250000, .burst = 2850, .cburst = 2850, .quantum = 125000,
			.limit = 10000, .flows = 1, .flow_limit = 100, .fq_quantum = 3028 };
		check_opts(&want, r);
	}

	/* set_r2q() recomputes default quanta, not given ones */
	o = (struct xtx_class_opts){ .sz = sizeof(o), .handle = XTX_HANDLE(1, 0x10),
				     .parent = XTX_HANDLE(1, 0), .rate = 1000000, .quantum = 1514,
				     .fq = 1 };
	CHECK_EQ_I64(0, xtx_sched_config__add_class(cfg, &o));
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__set_r2q(cfg, 0));
	CHECK_EQ_I64(0, xtx_sched_config__set_r2q(cfg, 50));
	CHECK_EQ_U64(50, xtx_sched_config__r2q(cfg));
	CHECK_EQ_U64(25000, xtx_sched_config__class(cfg, 0)->quantum);	/* 1250000 / 50 */
	CHECK_EQ_U64(1514, xtx_sched_config__class(cfg, 1)->quantum);
	CHECK_EQ_U64(1024, xtx_sched_config__class(cfg, 1)->flows);

	CHECK_EQ_I64(0, xtx_sched_config__set_overhead(cfg, 0));
	CHECK_EQ_U64(0, xtx_sched_config__overhead(cfg));
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__set_overhead(cfg, 65536));
	CHECK_EQ_U64(0, xtx_sched_config__overhead(cfg));
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__set_default(cfg, XTX_HANDLE_ROOT));

	/* validate() messages without a file: no prefix; with a line only: "line N: " */
	CHECK_EQ_I64(0, xtx_sched_config__validate(cfg, err, sizeof(err)));
	CHECK_STR_EQ("", err);
	CHECK_EQ_I64(0, xtx_sched_config__set_default(cfg, XTX_HANDLE(1, 0)));
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__validate(cfg, err, sizeof(err)));
	CHECK_STR_EQ("default 1:: class 1: has child 1:10, but the default must be a leaf class; "
		     "name a leaf", err);
	CHECK_EQ_I64(0, xtx_sched_config__set_default(cfg, XTX_HANDLE(1, 0x10)));
	CHECK_EQ_U64(0x10010, xtx_sched_config__default(cfg));
	o = (struct xtx_class_opts){ .sz = sizeof(o), .handle = XTX_HANDLE(1, 0x20),
				     .parent = XTX_HANDLE(1, 0), .rate = 2500000, .line = 7 };
	CHECK_EQ_I64(0, xtx_sched_config__add_class(cfg, &o));
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__validate(cfg, err, sizeof(err)));
	CHECK_STR_EQ("line 7: class 1:20: rate 20Mbit/s exceeds parent 1:'s ceil 10Mbit/s; lower "
		     "the rate or raise the parent's ceil", err);
	/* validate() is read-only: the same answer twice */
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__validate(cfg, err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "line 7: class 1:20: rate 20Mbit/s");
	/* a short or absent buffer is not overrun and still gets the error code */
	memset(err, 'Z', sizeof(err));
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__validate(cfg, err, 8));
	CHECK_STR_EQ("line 7:", err);
	CHECK_EQ_U64('Z', (unsigned char)err[8]);
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__validate(cfg, NULL, 0));
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__validate(NULL, err, sizeof(err)));

	/* getters on bad input */
	CHECK(xtx_sched_config__class(cfg, 3) == NULL);
	CHECK_EQ_I64(-ENOENT, xtx_sched_config__class_index(cfg, XTX_HANDLE(1, 0x30)));
	CHECK_EQ_I64(-ENOENT, xtx_sched_config__class_index(NULL, XTX_HANDLE(1, 0)));
	CHECK_EQ_U64(0, xtx_sched_config__class_count(NULL));
	xtx_sched_config__free(cfg);
	xtx_sched_config__free(NULL);

	/* an empty config */
	cfg = xtx_sched_config__new();
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__validate(cfg, err, sizeof(err)));
	CHECK_STR_EQ("no classes defined; add at least one with xtx_sched_config__add_class()", err);
	xtx_sched_config__free(cfg);
}

/* XTX_CLASS_MAX classes, then -E2BIG; class_index() matches config order throughout. */
static void test_many_classes(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = { .sz = sizeof(o), .handle = XTX_HANDLE(1, 0), .rate = 125000000 };
	unsigned i, bad_add = 0, bad_idx = 0;
	char err[ERRLEN];

	if (!CHECK(cfg != NULL))
		return;
	CHECK_EQ_I64(0, xtx_sched_config__add_class(cfg, &o));
	o.parent = XTX_HANDLE(1, 0);
	o.rate = 1000;
	for (i = 1; i < XTX_CLASS_MAX; i++) {
		/* a scattered handle order, so the table sees collisions and growth */
		/* 40503 is odd, so i -> i * 40503 mod 2^16 is a bijection: distinct, non-zero */
		o.handle = XTX_HANDLE(1, (i * 40503u) & 0xffff);
		bad_add += xtx_sched_config__add_class(cfg, &o) != 0;
	}
	CHECK_EQ_U64(0, bad_add);
	CHECK_EQ_U64(XTX_CLASS_MAX, xtx_sched_config__class_count(cfg));
	o.handle = XTX_HANDLE(2, 1);
	o.parent = XTX_HANDLE_ROOT;
	CHECK_EQ_I64(-E2BIG, xtx_sched_config__add_class(cfg, &o));
	for (i = 0; i < XTX_CLASS_MAX; i++) {
		const struct xtx_class_opts *c = xtx_sched_config__class(cfg, i);

		bad_idx += xtx_sched_config__class_index(cfg, c->handle) != (int)i;
	}
	CHECK_EQ_U64(0, bad_idx);
	CHECK_EQ_I64(0, xtx_sched_config__validate(cfg, err, sizeof(err)));
	CHECK_STR_EQ("", err);
	xtx_sched_config__free(cfg);
}

/* --- files -------------------------------------------------------------------------- */

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void test_files(void)
{
	char dir[] = "/tmp/xtx_cfg_XXXXXX", path[256], err[ERRLEN], want[512];
	static const char good[] = "class 1: rate 10gbit\nclass 1:10 parent 1: rate 1gbit\n";
	static const char bad[] = "class 1: rate 10gbit\nclass 1:10 parent 1: rate 11gbit\n";
	static const char junk[] = "class 1: rate 10gbit\n\0\0\0\x7f" "ELF";
	struct xtx_sched_config *cfg;

	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	snprintf(path, sizeof(path), "%s/classes.conf", dir);

	CHECK_EQ_I64(0, write_file(path, good, sizeof(good) - 1));
	cfg = xtx_sched_config__parse_file(path, err, sizeof(err));
	CHECK_STR_EQ("", err);
	if (CHECK(cfg != NULL))
		CHECK_EQ_U64(2, xtx_sched_config__class_count(cfg));
	xtx_sched_config__free(cfg);

	/* the file name and line in a validate() message */
	CHECK_EQ_I64(0, write_file(path, bad, sizeof(bad) - 1));
	errno = 0;
	cfg = xtx_sched_config__parse_file(path, err, sizeof(err));
	CHECK(cfg == NULL);
	CHECK_EQ_I64(EINVAL, errno);
	snprintf(want, sizeof(want), "%s:2: class 1:10: rate 11Gbit/s exceeds parent 1:'s ceil "
		 "10Gbit/s; lower the rate or raise the parent's ceil", path);
	CHECK_STR_EQ(want, err);

	/* NUL bytes: binary junk with line and column */
	CHECK_EQ_I64(0, write_file(path, junk, sizeof(junk) - 1));
	errno = 0;
	cfg = xtx_sched_config__parse_file(path, err, sizeof(err));
	CHECK(cfg == NULL);
	CHECK_EQ_I64(EINVAL, errno);
	snprintf(want, sizeof(want), "%s:2:1: found '\\x00', expected text; is this a binary file?",
		 path);
	CHECK_STR_EQ(want, err);

	/* an empty file */
	CHECK_EQ_I64(0, write_file(path, "", 0));
	cfg = xtx_sched_config__parse_file(path, err, sizeof(err));
	CHECK(cfg == NULL);
	snprintf(want, sizeof(want), "%s: no classes defined", path);
	CHECK_STR_CONTAINS(err, want);

	/* a file without a final newline */
	CHECK_EQ_I64(0, write_file(path, "class 1: rate 1gbit", 19));
	cfg = xtx_sched_config__parse_file(path, err, sizeof(err));
	CHECK(cfg != NULL);
	xtx_sched_config__free(cfg);

	/* a missing file: ENOENT and what to check */
	CHECK_EQ_I64(0, unlink(path));
	errno = 0;
	cfg = xtx_sched_config__parse_file(path, err, sizeof(err));
	CHECK(cfg == NULL);
	CHECK_EQ_I64(ENOENT, errno);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory; check the path "
		 "and its permissions", path);
	CHECK_STR_EQ(want, err);

	/* a directory */
	errno = 0;
	cfg = xtx_sched_config__parse_file(dir, err, sizeof(err));
	CHECK(cfg == NULL);
	CHECK_EQ_I64(EISDIR, errno);
	CHECK_STR_CONTAINS(err, "cannot read: Is a directory");

	/* NULL arguments */
	errno = 0;
	CHECK(xtx_sched_config__parse_file(NULL, err, sizeof(err)) == NULL);
	CHECK_EQ_I64(EINVAL, errno);
	errno = 0;
	CHECK(xtx_sched_config__parse_string(NULL, NULL, err, sizeof(err)) == NULL);
	CHECK_EQ_I64(EINVAL, errno);
	CHECK_STR_EQ("<string>: no text (NULL)", err);
	/* no name: "<string>"; no error buffer: still NULL + errno */
	CHECK(xtx_sched_config__parse_string("bogus", NULL, err, sizeof(err)) == NULL);
	CHECK_STR_CONTAINS(err, "<string>:1:1: found 'bogus'");
	errno = 0;
	CHECK(xtx_sched_config__parse_string("bogus", NULL, NULL, 0) == NULL);
	CHECK_EQ_I64(EINVAL, errno);

	CHECK_EQ_I64(0, rmdir(dir));
}

/* --- formatting helpers shared by the messages -------------------------------------- */

static void test_format(void)
{
	static const struct { uint64_t bytes; const char *want; } rates[] = {
		{ 0, "0bit/s" },
		{ 1, "8bit/s" },
		{ 124, "992bit/s" },
		{ 125, "1Kbit/s" },
		{ 126, "1.008Kbit/s" },
		{ 187500000, "1.5Gbit/s" },
		{ 1250000001, "10.000000008Gbit/s" },
		{ 125000000000ull, "1Tbit/s" },
		{ UINT64_MAX, "147573952.58967641292Tbit/s" },
	};
	static const struct { uint32_t h; const char *want; } handles[] = {
		{ XTX_HANDLE_ROOT, "root" },
		{ 0x10000, "1:" },
		{ 0x10010, "1:10" },
		{ 0xffff0001, "ffff:1" },
	};
	char buf[_XTX_RATE_STRLEN];
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		CHECK_STR_EQ(rates[i].want, _xtx_rate_fmt(buf, sizeof(buf), rates[i].bytes));
	for (i = 0; i < sizeof(handles) / sizeof(handles[0]); i++)
		CHECK_STR_EQ(handles[i].want, _xtx_handle_fmt(buf, sizeof(buf), handles[i].h));
	/* a short buffer is cut, never overrun */
	memset(buf, 'Z', sizeof(buf));
	CHECK_STR_EQ("10.0", _xtx_rate_fmt(buf, 5, 1250000001));
	CHECK_EQ_U64('Z', (unsigned char)buf[5]);
}

/* --- robustness: mutated and random inputs never crash (ASan build checks memory) ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	uint64_t x = rng_state;	/* xorshift64 */

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static void test_robust(void)
{
	static const char seed[] =
		"class 1:   rate 10gbit\n"
		"class 1:10 parent 1: rate 6gbit ceil 10gbit prio 0\n"
		"class 1:20 parent 1: rate 4gbit ceil 10gbit prio 1 quantum 3028 fq flows 4096 "
		"flow_limit 100 maxrate 1.5mbit\n"
		"default 1:20 # tail\n"
		"overhead 24\n"
		"r2q 10\n";
	static const char alphabet[] = " \t\n#:.0123456789abcdefgkmtirpsqlu_-+\x01\xff";
	char text[sizeof(seed) + 64], err[ERRLEN];
	unsigned iter, ok = 0, refused = 0, no_message = 0;

	for (iter = 0; iter < 20000; iter++) {
		size_t len = sizeof(seed) - 1, k, edits = 1 + rng() % 4;
		struct xtx_sched_config *cfg;

		memcpy(text, seed, len + 1);
		for (k = 0; k < edits; k++) {
			size_t at = rng() % len;
			char c = alphabet[rng() % (sizeof(alphabet) - 1)];

			switch (rng() % 3) {
			case 0: text[at] = c; break;				/* replace */
			case 1: memmove(text + at, text + at + 1, len - at);	/* delete */
				len--; break;
			default: if (len + 1 < sizeof(text)) {			/* insert */
					memmove(text + at + 1, text + at, len - at + 1);
					text[at] = c; len++;
				}
			}
		}
		text[len] = '\0';
		cfg = parse(text, err);
		if (cfg) {
			ok++;
			no_message += err[0] != '\0';	/* success leaves err empty */
		} else {
			refused++;
			no_message += err[0] == '\0';	/* failure always explains */
		}
		xtx_sched_config__free(cfg);
	}
	CHECK_EQ_U64(0, no_message);
	CHECK(ok > 0);		/* the mutations are mild enough that some still parse */
	CHECK(refused > 0);
	printf("robustness: %u inputs, %u parsed, %u refused\n", ok + refused, ok, refused);

	/* fully random bytes, NUL-free, up to 300 bytes */
	for (iter = 0; iter < 5000; iter++) {
		size_t len = rng() % 300, k;
		char rnd[301];
		struct xtx_sched_config *cfg;

		for (k = 0; k < len; k++)
			rnd[k] = (char)(1 + rng() % 255);
		rnd[len] = '\0';
		cfg = parse(rnd, err);
		if (!cfg && !err[0])
			no_message++;
		xtx_sched_config__free(cfg);
	}
	CHECK_EQ_U64(0, no_message);
}

/* scope: device by default, queue when asked; the C API refuses anything else. */
static void test_scope(void)
{
	char err[256];
	struct xtx_sched_config *cfg = xtx_sched_config__parse_string(
		"class 1: rate 1gbit\nclass 1:10 parent 1: rate 1mbit scope queue\n"
		"class 1:20 parent 1: rate 1mbit scope device\n", NAME, err, sizeof(err));
	struct xtx_class_opts o = { .sz = sizeof(o), .handle = XTX_HANDLE(2, 0),
				    .parent = XTX_HANDLE_ROOT, .rate = 1000, .scope = 2 };

	if (CHECK(cfg != NULL)) {
		CHECK_EQ_U64(XTX_SCOPE_DEVICE, xtx_sched_config__class(cfg, 0)->scope);
		CHECK_EQ_U64(XTX_SCOPE_QUEUE, xtx_sched_config__class(cfg, 1)->scope);
		CHECK_EQ_U64(XTX_SCOPE_DEVICE, xtx_sched_config__class(cfg, 2)->scope);
		CHECK_EQ_I64(-EINVAL, xtx_sched_config__add_class(cfg, &o));
	}
	xtx_sched_config__free(cfg);
}

/* format() reads back as the same tree, and so does dup(): every class field (but the
 * line), the default, overhead and r2q; the text of the text is the text. */
static void check_same(const struct xtx_sched_config *a, const struct xtx_sched_config *b)
{
	CHECK_EQ_U64(xtx_sched_config__class_count(a), xtx_sched_config__class_count(b));
	for (unsigned i = 0; i < xtx_sched_config__class_count(a); i++) {
		struct xtx_class_opts x = *xtx_sched_config__class(a, i);
		struct xtx_class_opts y = *xtx_sched_config__class(b, i);

		x.line = y.line = 0;
		CHECK(!memcmp(&x, &y, sizeof(x)));
	}
	CHECK_EQ_U64(xtx_sched_config__default(a), xtx_sched_config__default(b));
	CHECK_EQ_U64(xtx_sched_config__overhead(a), xtx_sched_config__overhead(b));
	CHECK_EQ_U64(xtx_sched_config__r2q(a), xtx_sched_config__r2q(b));
}

static void test_round_trip(void)
{
	static const char text[] =
		"r2q 7\noverhead 38\n"
		"class 1: rate 1.5gbit burst 20k\n"
		"class 1:1 parent 1: rate 1gbit ceil 1.5gbit prio 2 quantum 3000 scope queue\n"
		"class 1:10 parent 1:1 rate 333kbit ceil 1gbit fq flows 64 flow_limit 7 "
		"fq_quantum 999 maxrate 1234567bps limit 77 target 0.0005s codel target 3ms "
		"interval 77ms ecn\n"
		"class 1:20 parent 1:1 rate 10mbit codel off target off\n"
		"class 1:30 parent 1: rate 5mbit\n"
		"default 1:20\n";
	char err[256], out[2048], again[2048];
	struct xtx_sched_config *a = parse(text, err), *b, *d;
	int n;

	printf("format: the text reads back as the same tree\n");
	if (!CHECK(a != NULL))
		return;
	n = xtx_sched_config__format(a, out, sizeof(out));
	CHECK(n > 0 && (size_t)n < sizeof(out));
	CHECK_EQ_I64(n, xtx_sched_config__format(a, NULL, 0));	/* the length alone */
	printf("%s", out);
	b = xtx_sched_config__parse_string(out, "formatted", err, sizeof(err));
	if (!CHECK(b != NULL)) {
		printf("  %s\n", err);
		xtx_sched_config__free(a);
		return;
	}
	check_same(a, b);
	CHECK_EQ_I64(n, xtx_sched_config__format(b, again, sizeof(again)));
	CHECK(!strcmp(out, again));
	d = xtx_sched_config__dup(a);
	if (CHECK(d != NULL)) {
		check_same(a, d);
		CHECK_EQ_I64(xtx_sched_config__class_index(a, XTX_HANDLE(1, 0x30)),
			     xtx_sched_config__class_index(d, XTX_HANDLE(1, 0x30)));
	}
	CHECK_EQ_I64(-EINVAL, xtx_sched_config__format(NULL, out, sizeof(out)));
	xtx_sched_config__free(a);
	xtx_sched_config__free(b);
	xtx_sched_config__free(d);
}

int main(void)
{
	test_scope();
	test_format();
	test_values();
	test_defaults();
	test_example();
	test_syntax_errors();
	test_long_lines();
	test_tree_errors();
	test_c_api();
	test_many_classes();
	test_files();
	test_robust();
	test_round_trip();
	return check_summary("test_sched_config");
}
