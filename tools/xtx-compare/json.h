/* SPDX-License-Identifier: BSD-3-Clause */
/* json.h - a small JSON reader for the one-object summaries the senders and xtx-sink
 * print, and a few helpers to write JSON. Internal to xtx-compare.
 *
 * json_parse() builds a tree (RFC 8259: objects, arrays, strings with escapes, numbers as
 * double, true/false/null); nesting is limited to 64 levels. Lookups take a dotted path
 * ("delay_ns.p50"); a missing member or a value of another type reads as NaN / NULL.
 */
#ifndef XTX_COMPARE_JSON_H
#define XTX_COMPARE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
	enum json_type type;
	bool b;
	double num;
	char *str;			/* JSON_STR */
	struct json *items;		/* JSON_ARR / JSON_OBJ values */
	char **keys;			/* JSON_OBJ member names */
	unsigned n;
};

/* Parse text (NUL-terminated). Returns a tree or NULL with a message "offset N: ..." in
 * err. Trailing white space is allowed, anything else after the value is an error. */
struct json *json_parse(const char *text, char *err, size_t errlen);
void json_free(struct json *j);

/* The member at a dotted path ("a.b.c"), or NULL. */
const struct json *json_get(const struct json *j, const char *path);
/* A number at path; NaN if absent or not a number (booleans read as 0/1). */
double json_num(const struct json *j, const char *path);
/* A string at path, or NULL. */
const char *json_str(const struct json *j, const char *path);

/* Writers. json_put_str writes a quoted, escaped string; json_put_num a number with up
 * to `prec` significant digits, or null for NaN/inf. */
void json_put_str(FILE *f, const char *s);
void json_put_num(FILE *f, double v, int prec);
/* Write a tree compactly; members named `skip` (any depth; NULL = none) are left out. */
void json_write(FILE *f, const struct json *j, const char *skip);

#endif /* XTX_COMPARE_JSON_H */
