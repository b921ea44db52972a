/* SPDX-License-Identifier: BSD-3-Clause */
/* position.h - reading "FILE:LINE:COL" positions back against the fuzzed input, for the
 * fuzzers that check where a parser says an error is (fuzz_config.c, fuzz_rules.c). */
#ifndef XTX_FUZZ_POSITION_H
#define XTX_FUZZ_POSITION_H

#include <stddef.h>
#include <string.h>

static inline int pos_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* A decimal number from 1 up without leading zeros at s; the byte after it, or NULL. */
static inline const char *pos_number(const char *s, unsigned long *v)
{
	const char *p = s;

	*v = 0;
	if (*p < '1' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9' && p - s < 12)
		*v = *v * 10 + (unsigned long)(*p++ - '0');
	return p;
}

/* Line n (1-based) of text and its length without the '\n', or NULL if the parser saw no
 * such line (it reads up to the first NUL; a final '\n' ends the last line). */
static inline const char *pos_line_of(const char *text, unsigned long n, size_t *len)
{
	const char *p = text, *nl;

	for (unsigned long i = 1; i < n; i++) {
		if (!(nl = strchr(p, '\n')))
			return NULL;
		p = nl + 1;
	}
	if (!*p)
		return NULL;
	nl = strchr(p, '\n');
	*len = nl ? (size_t)(nl - p) : strlen(p);
	return p;
}

#endif
