/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_parse.c - the scheduler's text configuration (docs/config.md) into a
 * struct xtx_sched_config.
 *
 * Design
 *   - One statement per line, tokens separated by blanks, '#' starts a comment anywhere.
 *     The grammar is flat (statement keyword, then keyword/value pairs), so the parser is a
 *     loop over lines and a loop over tokens: no recursion, no backtracking.
 *   - Everything is bounded: a line is at most LINE_MAX_CHARS bytes, a number at most
 *     DIGITS_MAX significant digits, a file at most FILE_MAX_BYTES. Any byte sequence gives
 *     either a config or a message; this file is a libFuzzer target.
 *   - Numbers are parsed exactly in integer arithmetic (tc uses strtod): "1.5gbit" is
 *     exactly 187500000 bytes/s; a fraction of a byte is truncated, as tc does.
 *   - A syntax error reads "NAME:LINE:COL: found 'X', expected Y" with the 1-based byte
 *     column of the offending token. After the last line the tree is checked with
 *     xtx_sched_config__validate(), whose messages carry "NAME:LINE:".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* the GNU strerror_r() returning char * */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xtx/sched.h>
#include "sched_config_pvt.h"

#ifndef __SIZEOF_INT128__
#error "sched_parse.c needs unsigned __int128 for exact unit arithmetic"
#endif

#define LINE_MAX_CHARS	4096u		/* bytes per line, comment included, '\n' not */
#define FILE_MAX_BYTES	(16u << 20)	/* a 65535-class tree is ~5 MiB */
#define DIGITS_MAX	24		/* significant digits: 10^24 * 2^40 < 2^128 */
#define TOK_SHOW_MAX	40		/* chars of a token quoted in a message */

struct parser {
	const char *name;	/* NAME in messages */
	uint32_t line;		/* 1-based */
	const char *ls;		/* start of the current line */
	size_t llen;		/* bytes of the line before any comment */
	char *err;
	size_t errlen;
	uint32_t default_line, overhead_line, r2q_line;	/* 0 = not seen yet */
};

struct tok {
	const char *s;
	size_t len;
	size_t col;		/* 1-based byte column */
};

__attribute__((format(printf, 3, 4)))
static void perr(const struct parser *p, size_t col, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || !p->errlen)
		return;
	if (col)
		n = snprintf(p->err, p->errlen, "%s:%u:%zu: ", p->name, p->line, col);
	else
		n = snprintf(p->err, p->errlen, "%s: ", p->name);
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* A token as it may be quoted in a message: printable ASCII as is, other bytes as \xNN,
 * cut at TOK_SHOW_MAX with "...". */
static const char *tok_show(const struct tok *t, char *buf, size_t len)
{
	size_t i, off = 0;

	for (i = 0; i < t->len && i < TOK_SHOW_MAX && off + 5 < len; i++) {
		unsigned char c = (unsigned char)t->s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[off++] = (char)c;
		else
			off += (size_t)snprintf(buf + off, len - off, "\\x%02x", c);
	}
	if (i < t->len && off + 4 < len) {
		memcpy(buf + off, "...", 3);
		off += 3;
	}
	buf[off] = '\0';
	return buf;
}
#define SHOW_LEN (TOK_SHOW_MAX * 4 + 8)

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Next token at or after *pos in the current line (comment already cut off). */
static bool tok_next(const struct parser *p, size_t *pos, struct tok *t)
{
	size_t i = *pos, start;

	while (i < p->llen && is_blank(p->ls[i]))
		i++;
	if (i >= p->llen) {
		*pos = i;
		return false;
	}
	start = i;
	while (i < p->llen && !is_blank(p->ls[i]))
		i++;
	t->s = p->ls + start;
	t->len = i - start;
	t->col = start + 1;
	*pos = i;
	return true;
}

static bool tok_is(const struct tok *t, const char *word)
{
	size_t n = strlen(word);

	return t->len == n && memcmp(t->s, word, n) == 0;
}

/* --- numbers --------------------------------------------------------------------------- */

/* "DIGITS[.DIGITS]" at the start of s[0, len) (at least one digit). Returns the number of
 * bytes read, 0 if there is no number, -1 if it has more than DIGITS_MAX significant
 * digits. The value is m / 10^frac. */
static int dec_parse(const char *s, size_t len, unsigned __int128 *m, unsigned *frac)
{
	size_t i = 0, ib, ie, fb = 0, fe = 0, k;
	unsigned digits;

	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	ib = 0;
	ie = i;
	if (i < len && s[i] == '.') {
		fb = ++i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		fe = i;
	}
	if (ie == ib && fe == fb)
		return 0;
	while (ib < ie && s[ib] == '0')		/* leading zeros are not significant */
		ib++;
	while (fe > fb && s[fe - 1] == '0')	/* nor are trailing zeros of the fraction */
		fe--;
	digits = (unsigned)((ie - ib) + (fe - fb));
	if (digits > DIGITS_MAX || i > (size_t)INT32_MAX)
		return -1;
	*m = 0;
	for (k = ib; k < ie; k++)
		*m = *m * 10 + (unsigned)(s[k] - '0');
	for (k = fb; k < fe; k++)
		*m = *m * 10 + (unsigned)(s[k] - '0');
	*frac = (unsigned)(fe - fb);
	return (int)i;
}

struct unit {
	const char *name;
	uint64_t num;	/* value = number * num / den */
	uint64_t den;
};

/* tc's get_rate64() suffixes, case-insensitive; the result is bytes/s. */
static const struct unit rate_units[] = {
	{ "",		1, 8 },			/* bare number: bits per second */
	{ "bit",	1, 8 },
	{ "kbit",	1000, 8 },
	{ "kibit",	1024, 8 },
	{ "mbit",	1000000, 8 },
	{ "mibit",	1ull << 20, 8 },
	{ "gbit",	1000000000, 8 },
	{ "gibit",	1ull << 30, 8 },
	{ "tbit",	1000000000000ull, 8 },
	{ "tibit",	1ull << 40, 8 },
	{ "bps",	1, 1 },			/* bytes per second */
	{ "kbps",	1000, 1 },
	{ "kibps",	1024, 1 },
	{ "mbps",	1000000, 1 },
	{ "mibps",	1ull << 20, 1 },
	{ "gbps",	1000000000, 1 },
	{ "gibps",	1ull << 30, 1 },
	{ "tbps",	1000000000000ull, 1 },
	{ "tibps",	1ull << 40, 1 },
};

/* tc's get_size() suffixes, case-insensitive; the result is bytes. */
static const struct unit size_units[] = {
	{ "",		1, 1 },			/* bare number: bytes */
	{ "b",		1, 1 },
	{ "k",		1024, 1 },
	{ "kb",		1024, 1 },
	{ "m",		1ull << 20, 1 },
	{ "mb",		1ull << 20, 1 },
	{ "g",		1ull << 30, 1 },
	{ "gb",		1ull << 30, 1 },
	{ "kbit",	1024, 8 },
	{ "mbit",	1ull << 20, 8 },
	{ "gbit",	1ull << 30, 8 },
};

/* tc's get_time() suffixes, case-insensitive; a bare number is microseconds, as tc reads
 * it; the result is nanoseconds. */
static const struct unit time_units[] = {
	{ "",		1000, 1 },
	{ "s",		1000000000, 1 },
	{ "sec",	1000000000, 1 },
	{ "secs",	1000000000, 1 },
	{ "ms",		1000000, 1 },
	{ "msec",	1000000, 1 },
	{ "msecs",	1000000, 1 },
	{ "us",		1000, 1 },
	{ "usec",	1000, 1 },
	{ "usecs",	1000, 1 },
};

enum num_rc { NUM_OK, NUM_BAD, NUM_NEG, NUM_BIG, NUM_DIGITS };

/* A number with one of the units; value truncated to an integer, at most max. */
static enum num_rc unit_parse(const struct tok *t, const struct unit *units, size_t nunits,
			      uint64_t max, uint64_t *out)
{
	unsigned __int128 v, div, m;
	unsigned frac, i;
	size_t k, slen;
	int n;

	if (t->len && (t->s[0] == '-' || t->s[0] == '+'))
		return t->s[0] == '-' && t->len > 1 && t->s[1] >= '0' && t->s[1] <= '9' ?
		       NUM_NEG : NUM_BAD;
	n = dec_parse(t->s, t->len, &m, &frac);
	if (n < 0)
		return NUM_DIGITS;
	if (n == 0)
		return NUM_BAD;
	slen = t->len - (size_t)n;
	for (k = 0; k < nunits; k++)
		if (strlen(units[k].name) == slen &&
		    strncasecmp(units[k].name, t->s + n, slen) == 0)
			break;
	if (k == nunits)
		return NUM_BAD;
	/* m < 10^24 < 2^80 and num <= 2^40: the product is < 2^120; den * 10^24 < 2^83. */
	v = (unsigned __int128)m * units[k].num;
	div = units[k].den;
	for (i = 0; i < frac; i++)
		div *= 10;
	v /= div;
	if (v > max)
		return NUM_BIG;
	*out = (uint64_t)v;
	return NUM_OK;
}

/* A whole string as a number with one of `units`, for the public parsers below: 0,
 * -EINVAL, -ERANGE. */
static int str_parse(const char *s, const struct unit *units, size_t nunits, uint64_t *out)
{
	struct tok t;
	uint64_t v;

	if (!s || !out)
		return -EINVAL;
	t = (struct tok){ .s = s, .len = strlen(s), .col = 1 };
	switch (unit_parse(&t, units, nunits, UINT64_MAX, &v)) {
	case NUM_OK:
		*out = v;
		return 0;
	case NUM_BIG:
	case NUM_DIGITS:
		return -ERANGE;
	default:
		return -EINVAL;
	}
}

/* The one reading of a rate: the config file's (value_rate) and the tools' (xtx/sched.h). */
int xtx_rate__parse(const char *s, uint64_t *bytes_per_s)
{
	return str_parse(s, rate_units, sizeof(rate_units) / sizeof(rate_units[0]), bytes_per_s);
}

/* The one reading of a time: the config file's (value_target) and the tools'. */
int xtx_time__parse(const char *s, uint64_t *ns)
{
	return str_parse(s, time_units, sizeof(time_units) / sizeof(time_units[0]), ns);
}

/* Plain decimal integer, no unit, no sign, in [min, max]. */
static enum num_rc int_parse(const struct tok *t, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (t->len && t->s[0] == '-')
		return t->len > 1 && t->s[1] >= '0' && t->s[1] <= '9' ? NUM_NEG : NUM_BAD;
	if (!t->len)
		return NUM_BAD;
	for (i = 0; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return NUM_BAD;
		if (v > (UINT64_MAX - 9) / 10)
			return NUM_BIG;
		v = v * 10 + (uint64_t)(t->s[i] - '0');
	}
	if (v > max)
		return NUM_BIG;
	if (v < min)
		return NUM_BAD;
	*out = v;
	return NUM_OK;
}

/* tc's get_tc_classid(), strict: hex MAJ ':' [hex MIN], MAJ 1..ffff, MIN 0..ffff. */
static bool handle_parse(const struct tok *t, uint32_t *h)
{
	uint32_t maj = 0, min = 0;
	size_t i = 0;
	int d;

	for (; i < t->len && t->s[i] != ':'; i++) {
		d = t->s[i] >= '0' && t->s[i] <= '9' ? t->s[i] - '0' :
		    t->s[i] >= 'a' && t->s[i] <= 'f' ? t->s[i] - 'a' + 10 :
		    t->s[i] >= 'A' && t->s[i] <= 'F' ? t->s[i] - 'A' + 10 : -1;
		if (d < 0)
			return false;
		maj = maj * 16 + (uint32_t)d;
		if (maj > 0xffff)
			return false;
	}
	if (i == 0 || i == t->len || !maj)
		return false;
	for (i++; i < t->len; i++) {
		d = t->s[i] >= '0' && t->s[i] <= '9' ? t->s[i] - '0' :
		    t->s[i] >= 'a' && t->s[i] <= 'f' ? t->s[i] - 'a' + 10 :
		    t->s[i] >= 'A' && t->s[i] <= 'F' ? t->s[i] - 'A' + 10 : -1;
		if (d < 0)
			return false;
		min = min * 16 + (uint32_t)d;
		if (min > 0xffff)
			return false;
	}
	*h = XTX_HANDLE(maj, min);
	return *h != XTX_HANDLE_ROOT;
}

/* --- statements ---------------------------------------------------------------------- */

#define EXPECT_HANDLE "a class handle like 1:10 (hex major 1..ffff, ':', hex minor 0..ffff)"
#define EXPECT_RATE   "a rate: a number and a unit such as 100mbit, 2.5gbit or 125mbps"
#define EXPECT_SIZE   "a size in bytes such as 1514, 64k or 1.5mb"
#define EXPECT_TIME   "a time such as 1ms, 500us or 0.5ms, or off"
#define EXPECT_TIME_ON "a time above 0 such as 5ms, 100ms or 500us"

/* The token after keyword kw, or a "found end of line" error at the column after kw. */
static int value_tok(const struct parser *p, size_t *pos, const struct tok *kw,
		     struct tok *v, const char *expect)
{
	if (tok_next(p, pos, v))
		return 0;
	perr(p, kw->col + kw->len, "found end of line, expected %s after '%.*s'", expect,
	     (int)kw->len, kw->s);
	return -EINVAL;
}

static int end_of_line(const struct parser *p, size_t *pos)
{
	char show[SHOW_LEN];
	struct tok t;

	if (!tok_next(p, pos, &t))
		return 0;
	perr(p, t.col, "found '%s', expected end of line", tok_show(&t, show, sizeof(show)));
	return -EINVAL;
}

static int num_err(const struct parser *p, const struct tok *v, enum num_rc rc,
		   const char *expect, const char *max)
{
	char show[SHOW_LEN];

	tok_show(v, show, sizeof(show));
	switch (rc) {
	case NUM_NEG:
		perr(p, v->col, "found '%s', expected %s; it cannot be negative", show, expect);
		break;
	case NUM_BIG:
		perr(p, v->col, "found '%s', expected %s of at most %s", show, expect, max);
		break;
	case NUM_DIGITS:
		perr(p, v->col, "found '%s', expected %s with at most %d significant digits",
		     show, expect, DIGITS_MAX);
		break;
	default:
		perr(p, v->col, "found '%s', expected %s", show, expect);
		break;
	}
	return -EINVAL;
}

static int value_rate(const struct parser *p, size_t *pos, const struct tok *kw,
		      bool zero_ok, uint64_t *out)
{
	char show[SHOW_LEN];
	struct tok v;
	enum num_rc rc;

	if (value_tok(p, pos, kw, &v, EXPECT_RATE))
		return -EINVAL;
	rc = unit_parse(&v, rate_units, sizeof(rate_units) / sizeof(rate_units[0]),
			UINT64_MAX, out);
	if (rc != NUM_OK)
		return num_err(p, &v, rc, EXPECT_RATE, "18446744073709551615 bytes/s");
	if (!zero_ok && !*out) {
		perr(p, v.col, "found '%s', expected a rate above 0 (at least 8bit: rates are "
		     "whole bytes per second)", tok_show(&v, show, sizeof(show)));
		return -EINVAL;
	}
	return 0;
}

static int value_size(const struct parser *p, size_t *pos, const struct tok *kw,
		      uint32_t *out)
{
	char show[SHOW_LEN];
	struct tok v;
	enum num_rc rc;
	uint64_t x;

	if (value_tok(p, pos, kw, &v, EXPECT_SIZE))
		return -EINVAL;
	rc = unit_parse(&v, size_units, sizeof(size_units) / sizeof(size_units[0]),
			UINT32_MAX, &x);
	if (rc != NUM_OK)
		return num_err(p, &v, rc, EXPECT_SIZE, "4294967295 bytes");
	if (!x) {
		perr(p, v.col, "found '%s', expected a size of at least 1 byte (leave '%.*s' "
		     "out for the default)", tok_show(&v, show, sizeof(show)),
		     (int)kw->len, kw->s);
		return -EINVAL;
	}
	*out = (uint32_t)x;
	return 0;
}

/* Token v as a time of at most _XTX_TIME_MAX; the error names expect. */
static int time_tok(const struct parser *p, const struct tok *v, const char *expect,
		    uint64_t *out)
{
	enum num_rc rc = unit_parse(v, time_units, sizeof(time_units) / sizeof(time_units[0]),
				    _XTX_TIME_MAX, out);

	return rc == NUM_OK ? 0 : num_err(p, v, rc, expect, "3600s");
}

/* A time in ns after kw; "off" and 0 give XTX_TARGET_OFF. At most 1 hour. */
static int value_target(const struct parser *p, size_t *pos, const struct tok *kw,
			uint64_t *out)
{
	struct tok v;

	if (value_tok(p, pos, kw, &v, EXPECT_TIME))
		return -EINVAL;
	if (tok_is(&v, "off")) {
		*out = XTX_TARGET_OFF;
		return 0;
	}
	if (time_tok(p, &v, EXPECT_TIME, out))
		return -EINVAL;
	if (!*out)
		*out = XTX_TARGET_OFF;
	return 0;
}

/* A time above 0 ns after kw, at most an hour (CoDel's target and interval). */
static int value_time(const struct parser *p, size_t *pos, const struct tok *kw,
		      uint64_t *out)
{
	char show[SHOW_LEN];
	struct tok v;

	if (value_tok(p, pos, kw, &v, EXPECT_TIME_ON) || time_tok(p, &v, EXPECT_TIME_ON, out))
		return -EINVAL;
	if (!*out) {
		perr(p, v.col, "found '%s', expected %s", tok_show(&v, show, sizeof(show)),
		     EXPECT_TIME_ON);
		return -EINVAL;
	}
	return 0;
}

/* codel off | codel [target TIME | interval TIME | ecn | noecn]...: the words right
 * after 'codel' that are its own (each once); the first other word, or 'off', ends
 * them. */
static int value_codel(const struct parser *p, size_t *pos, struct xtx_class_opts *o)
{
	static const char *const words[] = { "target", "interval", "ecn", "noecn", "off" };
	size_t seen[5] = { 0 };
	struct tok t;

	o->codel = XTX_CODEL_ON;
	for (;;) {
		size_t save = *pos, w;
		int rc = 0;

		if (!tok_next(p, pos, &t))
			return 0;
		for (w = 0; w < 5 && !tok_is(&t, words[w]); w++)
			;
		if (w == 5 || seen[4]) {
			*pos = save;	/* the next class option */
			return 0;
		}
		if (seen[w] || (w == 2 && seen[3]) || (w == 3 && seen[2]) ||
		    (w == 4 && (seen[0] || seen[1] || seen[2] || seen[3]))) {
			perr(p, t.col, "found '%s' where codel already has %s, expected each of "
			     "codel's options once, 'off' alone (a room target goes before "
			     "'codel' or after 'codel off')", words[w], seen[w] ? "it" :
			     "an option that excludes it");
			return -EINVAL;
		}
		seen[w] = t.col;
		if (w == 0)
			rc = value_time(p, pos, &t, &o->codel_target);
		else if (w == 1)
			rc = value_time(p, pos, &t, &o->codel_interval);
		else if (w == 2)
			o->codel_ecn = 1;
		else if (w == 4)
			o->codel = XTX_CODEL_OFF;
		if (rc)
			return rc;
	}
}

static int value_int(const struct parser *p, size_t *pos, const struct tok *kw,
		     uint64_t min, uint64_t max, uint64_t *out)
{
	char expect[96], maxs[24];
	struct tok v;
	enum num_rc rc;

	snprintf(expect, sizeof(expect), "a whole number from %llu to %llu",
		 (unsigned long long)min, (unsigned long long)max);
	if (value_tok(p, pos, kw, &v, expect))
		return -EINVAL;
	rc = int_parse(&v, min, max, out);
	if (rc == NUM_BIG)
		rc = NUM_BAD;	/* the range is already in the message */
	snprintf(maxs, sizeof(maxs), "%llu", (unsigned long long)max);
	return rc == NUM_OK ? 0 : num_err(p, &v, rc, expect, maxs);
}

/* The handle after kw; its token in *v. */
static int value_handle(const struct parser *p, size_t *pos, const struct tok *kw,
			bool root_ok, uint32_t *h, struct tok *v)
{
	char show[SHOW_LEN];

	if (value_tok(p, pos, kw, v, root_ok ? EXPECT_HANDLE " or root" : EXPECT_HANDLE))
		return -EINVAL;
	if (root_ok && tok_is(v, "root")) {
		*h = XTX_HANDLE_ROOT;
		return 0;
	}
	if (handle_parse(v, h))
		return 0;
	perr(p, v->col, "found '%s', expected %s%s", tok_show(v, show, sizeof(show)),
	     EXPECT_HANDLE, root_ok ? " or root" : "");
	return -EINVAL;
}

enum opt_id {
	OPT_PARENT, OPT_RATE, OPT_CEIL, OPT_BURST, OPT_CBURST, OPT_QUANTUM, OPT_PRIO, OPT_FQ,
	OPT_LIMIT, OPT_FLOWS, OPT_FLOW_LIMIT, OPT_FQ_QUANTUM, OPT_MAXRATE, OPT_SCOPE, OPT_TARGET,
	OPT_CODEL, OPT__MAX
};

static const struct {
	const char *kw;
	uint32_t bit;		/* _XTX_OPT_*, 0 for rate (required, not a default) */
} class_opts[OPT__MAX] = {
	[OPT_PARENT]	 = { "parent", _XTX_OPT_PARENT },
	[OPT_RATE]	 = { "rate", 0 },
	[OPT_CEIL]	 = { "ceil", _XTX_OPT_CEIL },
	[OPT_BURST]	 = { "burst", _XTX_OPT_BURST },
	[OPT_CBURST]	 = { "cburst", _XTX_OPT_CBURST },
	[OPT_QUANTUM]	 = { "quantum", _XTX_OPT_QUANTUM },
	[OPT_PRIO]	 = { "prio", _XTX_OPT_PRIO },
	[OPT_FQ]	 = { "fq", _XTX_OPT_FQ },
	[OPT_LIMIT]	 = { "limit", _XTX_OPT_LIMIT },
	[OPT_FLOWS]	 = { "flows", _XTX_OPT_FLOWS },
	[OPT_FLOW_LIMIT] = { "flow_limit", _XTX_OPT_FLOW_LIMIT },
	[OPT_FQ_QUANTUM] = { "fq_quantum", _XTX_OPT_FQ_QUANTUM },
	[OPT_MAXRATE]	 = { "maxrate", _XTX_OPT_MAXRATE },
	[OPT_SCOPE]	 = { "scope", 0 },
	[OPT_TARGET]	 = { "target", _XTX_OPT_TARGET },
	[OPT_CODEL]	 = { "codel", _XTX_OPT_CODEL },
};

#define EXPECT_OPTION "a class option (parent, rate, ceil, burst, cburst, quantum, prio, " \
		      "fq, limit, flows, flow_limit, fq_quantum, maxrate, scope, target, codel)"

/* scope device | queue */
static int value_scope(const struct parser *p, size_t *pos, const struct tok *kw,
		       uint8_t *scope)
{
	char show[SHOW_LEN];
	struct tok v;

	if (value_tok(p, pos, kw, &v, "'device' or 'queue'"))
		return -EINVAL;
	if (tok_is(&v, "device") || tok_is(&v, "queue")) {
		*scope = tok_is(&v, "queue") ? XTX_SCOPE_QUEUE : XTX_SCOPE_DEVICE;
		return 0;
	}
	perr(p, v.col, "found '%s', expected 'device' or 'queue' after 'scope'",
	     tok_show(&v, show, sizeof(show)));
	return -EINVAL;
}

/* class HANDLE [OPTION VALUE | fq]... */
static int stmt_class(const struct parser *p, size_t *pos, const struct tok *kw,
		      struct xtx_sched_config *cfg)
{
	char show[SHOW_LEN], hs[_XTX_HANDLE_STRLEN], r1[_XTX_RATE_STRLEN];
	size_t seen_col[OPT__MAX] = { 0 };
	struct xtx_class_opts o = { .sz = sizeof(o), .line = p->line };
	struct tok ht, t, v;
	uint32_t set = 0;
	uint64_t x = 0;
	size_t end_col;
	int rc, id;

	if (value_handle(p, pos, kw, false, &o.handle, &ht))
		return -EINVAL;
	rc = xtx_sched_config__class_index(cfg, o.handle);
	if (rc >= 0) {
		perr(p, ht.col, "found '%s', expected a new class handle (%s is already defined "
		     "at line %u)", tok_show(&ht, show, sizeof(show)),
		     _xtx_handle_fmt(hs, sizeof(hs), o.handle),
		     xtx_sched_config__class(cfg, (unsigned)rc)->line);
		return -EINVAL;
	}
	end_col = ht.col + ht.len;

	while (tok_next(p, pos, &t)) {
		for (id = 0; id < OPT__MAX; id++)
			if (tok_is(&t, class_opts[id].kw))
				break;
		if (id == OPT__MAX) {
			perr(p, t.col, "found '%s', expected %s", tok_show(&t, show, sizeof(show)),
			     EXPECT_OPTION);
			return -EINVAL;
		}
		if (seen_col[id]) {
			perr(p, t.col, "found '%s' again, expected each option once per class "
			     "(first at column %zu)", class_opts[id].kw, seen_col[id]);
			return -EINVAL;
		}
		seen_col[id] = t.col;
		set |= class_opts[id].bit;
		switch (id) {
		case OPT_PARENT:
			rc = value_handle(p, pos, &t, true, &o.parent, &v);
			break;
		case OPT_RATE:
			rc = value_rate(p, pos, &t, false, &o.rate);
			break;
		case OPT_CEIL:
			rc = value_rate(p, pos, &t, false, &o.ceil);
			break;
		case OPT_MAXRATE:
			rc = value_rate(p, pos, &t, true, &o.maxrate);
			break;
		case OPT_BURST:
			rc = value_size(p, pos, &t, &o.burst);
			break;
		case OPT_CBURST:
			rc = value_size(p, pos, &t, &o.cburst);
			break;
		case OPT_QUANTUM:
			rc = value_size(p, pos, &t, &o.quantum);
			break;
		case OPT_FQ_QUANTUM:
			rc = value_size(p, pos, &t, &o.fq_quantum);
			break;
		case OPT_PRIO:
			rc = value_int(p, pos, &t, 0, XTX_PRIO_MAX, &x);
			o.prio = (uint8_t)x;
			break;
		case OPT_FQ:
			o.fq = 1;
			rc = 0;
			break;
		case OPT_SCOPE:
			rc = value_scope(p, pos, &t, &o.scope);
			break;
		case OPT_TARGET:
			rc = value_target(p, pos, &t, &o.target);
			break;
		case OPT_CODEL:
			rc = value_codel(p, pos, &o);
			break;
		case OPT_LIMIT:
			rc = value_int(p, pos, &t, 1, UINT32_MAX, &x);
			o.limit = (uint32_t)x;
			break;
		case OPT_FLOWS:
			rc = value_int(p, pos, &t, 1, UINT32_MAX, &x);
			o.flows = (uint32_t)x;
			break;
		case OPT_FLOW_LIMIT:
			rc = value_int(p, pos, &t, 1, UINT32_MAX, &x);
			o.flow_limit = (uint32_t)x;
			break;
		default:
			rc = -EINVAL;
			break;
		}
		if (rc)
			return rc;
		end_col = *pos + 1;
	}

	if (!seen_col[OPT_RATE]) {
		perr(p, end_col, "found end of line, expected 'rate RATE': every class needs a "
		     "guaranteed rate");
		return -EINVAL;
	}
	if (seen_col[OPT_CEIL] && o.ceil < o.rate) {
		perr(p, seen_col[OPT_CEIL], "found 'ceil' below the rate (%s), expected a ceil "
		     "of at least the rate; raise ceil or lower rate",
		     _xtx_rate_fmt(r1, sizeof(r1), o.rate));
		return -EINVAL;
	}
	rc = _xtx_sched_config__add_class_set(cfg, &o, set);
	if (rc == -E2BIG)
		perr(p, kw->col, "found a class beyond the %u-th, expected at most %u classes",
		     XTX_CLASS_MAX, XTX_CLASS_MAX);
	else if (rc == -ENOMEM)
		perr(p, kw->col, "out of memory adding class %s",
		     _xtx_handle_fmt(hs, sizeof(hs), o.handle));
	else if (rc)
		perr(p, kw->col, "class %s refused (error %d)",
		     _xtx_handle_fmt(hs, sizeof(hs), o.handle), rc);
	return rc;
}

/* A statement that may appear once per file; *seen is the line it was first given on. */
static int once(const struct parser *p, const struct tok *kw, uint32_t *seen)
{
	if (*seen) {
		perr(p, kw->col, "found '%.*s' again, expected it once per file (first at line "
		     "%u)", (int)kw->len, kw->s, *seen);
		return -EINVAL;
	}
	*seen = p->line;
	return 0;
}

static int parse_statement(struct parser *p, struct xtx_sched_config *cfg)
{
	char show[SHOW_LEN];
	struct tok kw, v;
	size_t pos = 0;
	uint64_t x;
	uint32_t h;

	if (!tok_next(p, &pos, &kw))
		return 0;	/* blank or comment-only line */
	if (tok_is(&kw, "class"))
		return stmt_class(p, &pos, &kw, cfg);
	if (tok_is(&kw, "default")) {
		if (once(p, &kw, &p->default_line) || value_handle(p, &pos, &kw, false, &h, &v) ||
		    end_of_line(p, &pos))
			return -EINVAL;
		return _xtx_sched_config__set_default_at(cfg, h, p->line);
	}
	if (tok_is(&kw, "overhead")) {
		if (once(p, &kw, &p->overhead_line) ||
		    value_int(p, &pos, &kw, 0, _XTX_OVERHEAD_MAX, &x) || end_of_line(p, &pos))
			return -EINVAL;
		return xtx_sched_config__set_overhead(cfg, (uint32_t)x);
	}
	if (tok_is(&kw, "r2q")) {
		if (once(p, &kw, &p->r2q_line) || value_int(p, &pos, &kw, 1, UINT32_MAX, &x) ||
		    end_of_line(p, &pos))
			return -EINVAL;
		return xtx_sched_config__set_r2q(cfg, (uint32_t)x);
	}
	perr(p, kw.col, "found '%s', expected a statement (class, default, overhead or r2q)",
	     tok_show(&kw, show, sizeof(show)));
	return -EINVAL;
}

/* Cut the comment, refuse control bytes (binary junk) and over-long lines. */
static int line_scan(struct parser *p, size_t full_len)
{
	size_t i;

	if (full_len > LINE_MAX_CHARS) {
		perr(p, LINE_MAX_CHARS + 1, "found a line of %zu characters, expected at most %u; "
		     "shorten it (comments count too)", full_len, LINE_MAX_CHARS);
		return -EINVAL;
	}
	p->llen = full_len;
	for (i = 0; i < full_len; i++) {
		unsigned char c = (unsigned char)p->ls[i];

		if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
			perr(p, i + 1, "found '\\x%02x', expected text; is this a binary file?", c);
			return -EINVAL;
		}
		if (c == '#' && p->llen == full_len)
			p->llen = i;
	}
	return 0;
}

static struct xtx_sched_config *parse_buf(const char *buf, size_t len, const char *name,
					  char *err, size_t errlen)
{
	struct parser p = { .name = name, .err = err, .errlen = errlen };
	struct xtx_sched_config *cfg;
	size_t pos = 0;
	int rc;

	cfg = xtx_sched_config__new();
	if (!cfg) {
		perr(&p, 0, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	rc = _xtx_sched_config__set_source(cfg, name);
	if (rc)
		perr(&p, 0, "out of memory");
	while (!rc && pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t full = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		if (p.line == UINT32_MAX) {
			perr(&p, 0, "more than %u lines", UINT32_MAX - 1);
			rc = -EINVAL;
			break;
		}
		p.line++;
		p.ls = buf + pos;
		rc = line_scan(&p, full);
		if (!rc)
			rc = parse_statement(&p, cfg);
		pos += full + 1;
	}
	if (!rc)
		rc = xtx_sched_config__validate(cfg, err, errlen);
	if (rc) {
		xtx_sched_config__free(cfg);
		errno = rc == -ENOMEM ? ENOMEM : EINVAL;
		return NULL;
	}
	return cfg;
}

struct xtx_sched_config *xtx_sched_config__parse_string(const char *text, const char *name,
						       char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!name)
		name = "<string>";
	if (!text) {
		if (err && errlen)
			snprintf(err, errlen, "%s: no text (NULL)", name);
		errno = EINVAL;
		return NULL;
	}
	return parse_buf(text, strlen(text), name, err, errlen);
}

/* Whole file into memory, at most FILE_MAX_BYTES. NULL with errno and message. */
static char *file_read(const char *path, size_t *len, char *err, size_t errlen)
{
	char ebuf[128], *buf = NULL, *nb;
	size_t cap = 0, n = 0;
	ssize_t r;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: cannot open: %s; check the path and its "
				 "permissions", path, strerror_r(e, ebuf, sizeof(ebuf)));
		errno = e;
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= FILE_MAX_BYTES + 1) {
				e = EFBIG;
				if (err && errlen)
					snprintf(err, errlen, "%s: larger than %u MiB; a class tree "
						 "needs far less, is this the right file?", path,
						 FILE_MAX_BYTES >> 20);
				goto out_buf;
			}
			cap = cap ? cap * 2 : 4096;
			if (cap > FILE_MAX_BYTES + 1)
				cap = FILE_MAX_BYTES + 1;
			nb = realloc(buf, cap);
			if (!nb) {
				e = ENOMEM;
				if (err && errlen)
					snprintf(err, errlen, "%s: out of memory reading it", path);
				goto out_buf;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			if (err && errlen)
				snprintf(err, errlen, "%s: cannot read: %s", path,
					 strerror_r(e, ebuf, sizeof(ebuf)));
			goto out_buf;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;	/* allocated on the first pass of the loop */
out_buf:
	free(buf);
	close(fd);
	errno = e;
	return NULL;
}

struct xtx_sched_config *xtx_sched_config__parse_file(const char *path, char *err,
						      size_t errlen)
{
	struct xtx_sched_config *cfg;
	size_t len = 0;
	char *buf;
	int e;

	if (err && errlen)
		err[0] = '\0';
	if (!path) {
		if (err && errlen)
			snprintf(err, errlen, "no file name (NULL)");
		errno = EINVAL;
		return NULL;
	}
	buf = file_read(path, &len, err, errlen);
	if (!buf) {
		if (!errno)
			errno = ENOMEM;
		return NULL;
	}
	cfg = parse_buf(buf, len, path, err, errlen);
	e = errno;
	free(buf);
	errno = e;
	return cfg;
}
