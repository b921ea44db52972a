/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_rules.c - libFuzzer target: xtx-shape's rules parser (tools/xtx-shape/rules.c) and
 * the resolution of its class handles against a fixed class tree. Any input must either be
 * refused with a message, or parse and then resolve (or be refused with a message).
 *
 * Every message must have the form rules.h promises, checked against the input:
 * "fuzz:LINE:COL: found ..." with LINE a line of the input and COL at most one past its
 * end; "found 'X'" has X (raw, cut at 40 bytes) at COL, at the start of a token, or for a
 * control byte ("found '\xNN', expected text") that byte; "found end of line" has only
 * blanks (or a comment) from COL on; "found class H" (resolve) points at the token after
 * 'class'. The resolve error without a position ("the class file has no leaf class")
 * cannot happen with this tree. Anything else aborts, with the message and the reason on
 * stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "position.h"

#define NAME "fuzz"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rd_rules rules;
static struct xtx_sched_config *cfg;

/* Column col of l starts a token, and the token before it is "class". */
static int after_class(const char *l, size_t len, size_t col)
{
	size_t i = col - 1;

	if (i >= len || pos_is_blank(l[i]) || !i || !pos_is_blank(l[i - 1]))
		return 0;
	while (i && pos_is_blank(l[i - 1]))
		i--;
	return i >= 5 && !memcmp(l + i - 5, "class", 5) && (i == 5 || pos_is_blank(l[i - 6]));
}

/* NULL if err is "NAME:LINE:COL: found ..." as described above for text, else why not. */
static const char *bad_message(const char *text, const char *err)
{
	const char *p = err + strlen(NAME ":"), *l, *rest, *x;
	unsigned long line, col;
	unsigned c;
	size_t len, i;
	int n = 0;

	if (strncmp(err, NAME ":", strlen(NAME ":")))
		return "it does not start with the file name and ':'";
	if (!(p = pos_number(p, &line)) || *p != ':')
		return "no line number after the file name";
	if (!(p = pos_number(p + 1, &col)) || strncmp(p, ": found ", 8))
		return "no column after the line number, or no 'found' after the column";
	if (!(l = pos_line_of(text, line, &len)))
		return "its line number is beyond the input";
	if (col > len + 1)
		return "its column is beyond the end of the line";
	rest = p + 2;
	i = col - 1;
	if (sscanf(rest, "found '\\x%2x', expected text;%n", &c, &n) == 1 && n && i < len &&
	    (unsigned char)l[i] == c)
		return NULL;
	if (!strncmp(rest, "found '", 7)) {
		if (col > 1 && !pos_is_blank(l[col - 2]))
			return "a quoted token does not start at its column";
		for (x = rest + 7; *x && i < col - 1 + 40; x++, i++) {
			if (x[0] == '\'' && (x[1] == ',' || x[1] == ' ') && i > col - 1)
				break;		/* the closing quote (or one inside X: a prefix) */
			if (i >= len || l[i] != *x)
				return "the quoted text is not what the input has at that column";
		}
		return NULL;
	}
	if (!strncmp(rest, "found end of line", 17)) {
		for (; i < len && l[i] != '#'; i++)
			if (!pos_is_blank(l[i]))
				return "found end of line, but the line goes on at that column";
		return NULL;
	}
	if (!strncmp(rest, "found class ", 12))
		return after_class(l, len, col) ? NULL :
		       "a class handle's column is not that of the token after 'class'";
	return NULL;	/* "found rule N", "found a line of N characters", ... */
}

static void check_message(const char *text, const char *err)
{
	const char *why;

	if (!err[0])
		abort();	/* refused without saying why */
	if ((why = bad_message(text, err))) {
		fprintf(stderr, "fuzz_rules: message \"%s\": %s\n", err, why);
		abort();	/* a message that does not say where, as rules.h promises */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[1024] = "";

	if (!text)
		return 0;
	if (!cfg) {
		cfg = xtx_sched_config__parse_string(
			"class 1: rate 1gbit\n"
			"class 1:10 parent 1: rate 500mbit\n"
			"class 1:20 parent 1: rate 300mbit fq\n"
			"class 1:30 parent 1: rate 200mbit\n", "classes", err, sizeof(err));
		if (!cfg)
			abort();
	}
	memcpy(text, data, size);
	text[size] = 0;
	memset(&rules, 0, sizeof(rules));
	if (rd_rules__parse_string(&rules, text, NAME, err, sizeof(err)))
		check_message(text, err);
	else if (rd_rules__resolve(&rules, cfg, err, sizeof(err)))
		check_message(text, err);
	free(text);
	return 0;
}
