/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_config.c - libFuzzer target: the class-file parser, and the scheduler built from
 * whatever parses. Any input must either be refused with a message or give a config from
 * which a scheduler is created, fed, drained and destroyed with every descriptor back.
 *
 * A refusal's message must have one of the parser's three forms (docs/bad-input.md,
 * docs/config.md), checked against the input:
 *   fuzz:LINE:COL: ...   an error inside one statement; LINE is a line of the input, COL at
 *                        most one past its end; "found 'X'" has X's first bytes at COL, at
 *                        the start of a token; "found end of line" has only blanks (or a
 *                        comment) from COL on;
 *   fuzz:LINE: class H: ... / default H: ...   a class (or the default) wrong against the
 *                        tree: LINE is a line of the input that holds that statement;
 *   fuzz: ...            the file as a whole: one of the messages in whole_file[].
 * Anything else aborts, with the message and the reason on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/sched.h>
#include "position.h"

#define NAME "fuzz"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const whole_file[] = {
	"no classes defined;", "no root class:", "out of memory", "more than ",
};

/* The first blank-separated word of a line. */
static int first_word_is(const char *l, size_t len, const char *w)
{
	size_t i = 0, n = strlen(w);

	while (i < len && pos_is_blank(l[i]))
		i++;
	return len - i >= n && !memcmp(l + i, w, n) && (len - i == n || pos_is_blank(l[i + n]) ||
							l[i + n] == '#');
}

/* "found 'X..." at column col of l: X as tok_show() prints it (bytes outside printable
 * ASCII, and '\', as \xNN; cut at 40 bytes) must be the bytes at col. */
static const char *check_quoted(const char *x, const char *l, size_t len, size_t col)
{
	size_t i = col - 1, shown = 0;

	while (*x && shown < 40) {
		unsigned c;

		if (shown && x[0] == '\'' && (x[1] == ',' || x[1] == ' '))
			break;			/* the closing quote (or one inside X: a prefix) */
		if (x[0] == '\\' && x[1] == 'x' && sscanf(x + 2, "%2x", &c) == 1)
			x += 4;
		else
			c = (unsigned char)*x++;
		if (i >= len || (unsigned char)l[i] != c)
			return "the quoted text is not what the input has at that column";
		i++;
		shown++;
	}
	return shown ? NULL : "nothing quoted after found '";
}

/* NULL if err is a message of one of the forms above for text, else why not. */
static const char *bad_message(const char *text, const char *err)
{
	const char *p = err + strlen(NAME), *l, *rest;
	unsigned long line, col;
	size_t len, i;

	if (strncmp(err, NAME ":", strlen(NAME ":")))
		return "it does not start with the file name and ':'";
	p++;
	if (*p == ' ') {
		for (i = 0; i < sizeof(whole_file) / sizeof(whole_file[0]); i++)
			if (!strncmp(p + 1, whole_file[i], strlen(whole_file[i])))
				return NULL;
		return "a message without a line number is none of the whole-file ones";
	}
	if (!(p = pos_number(p, &line)) || *p != ':')
		return "no line number after the file name";
	if (!(l = pos_line_of(text, line, &len)))
		return "its line number is beyond the input";
	p++;
	if (*p == ' ') {
		if (!strncmp(p + 1, "class ", 6))
			return first_word_is(l, len, "class") ? NULL :
			       "a class error names a line that is no class statement";
		if (!strncmp(p + 1, "default ", 8))
			return first_word_is(l, len, "default") ? NULL :
			       "a default error names a line that is no default statement";
		return "a message with a line but no column is no tree error (class/default)";
	}
	if (!(p = pos_number(p, &col)) || strncmp(p, ": ", 2))
		return "no column after the line number";
	if (col > len + 1)
		return "its column is beyond the end of the line";
	rest = p + 2;
	if (!strncmp(rest, "found '\\x", 9))
		return check_quoted(rest + 7, l, len, col);	/* a byte, inside a token */
	if (!strncmp(rest, "found '", 7)) {
		if (col > 1 && !pos_is_blank(l[col - 2]))
			return "a quoted token does not start at its column";
		return check_quoted(rest + 7, l, len, col);
	}
	if (!strncmp(rest, "found end of line", 17)) {
		for (i = col - 1; i < len && l[i] != '#'; i++)
			if (!pos_is_blank(l[i]))
				return "found end of line, but the line goes on at that column";
		return NULL;
	}
	if (!strncmp(rest, "found ", 6) || !strncmp(rest, "out of memory", 13) ||
	    !strncmp(rest, "class ", 6))
		return NULL;
	return "a message with line and column says neither found ... nor a resource error";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[1024] = "";
	struct xtx_sched_config *cfg;
	struct xtx_sched *s;
	const char *why;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	cfg = xtx_sched_config__parse_string(text, NAME, err, sizeof(err));
	if (!cfg) {
		if (!err[0])
			abort();	/* refused without saying why */
		if ((why = bad_message(text, err))) {
			fprintf(stderr, "fuzz_config: message \"%s\": %s\n", err, why);
			abort();	/* a message that does not say where, as promised */
		}
		free(text);
		return 0;
	}
	s = xtx_sched__create(cfg, NULL, 0, err, sizeof(err));
	if (s) {
		struct xtx_desc d[64], out[64], drops[64];
		unsigned nd = 0, back = 0, taken = 0, ncls = xtx_sched__class_count(s);
		uint64_t now = 0, next;

		for (unsigned i = 0; i < 64; i++)
			d[i] = (struct xtx_desc){ .addr = i, .len = (uint16_t)(60 + i * 23),
						  .hash = i * 2654435761u,
						  .cls = (uint16_t)(i % (ncls + 1)) };
		taken = xtx_sched__enqueue_burst(s, d, NULL, 64, now, drops, &nd);
		if (taken + nd != 64)
			abort();
		/* Drain on virtual time, bounded: then purge what a slow class still holds. */
		for (int step = 0; step < 1000 && xtx_sched__qlen(s); step++) {
			back += xtx_sched__dequeue_burst(s, out, 64, now, &next);
			if (next == UINT64_MAX)
				break;
			now = next > now ? next : now + 1;
		}
		back += xtx_sched__purge(s, out, 64);
		if (back != taken || xtx_sched__qlen(s))
			abort();	/* a descriptor lost or duplicated */
		xtx_sched__destroy(s);
	} else if (!err[0]) {
		abort();
	}
	xtx_sched_config__free(cfg);
	free(text);
	return 0;
}
