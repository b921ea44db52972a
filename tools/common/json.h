/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/json.h - a small JSON writer for the tools' --json summaries, in the manner
 * of bpftool's json_writer: the caller opens and closes objects and arrays and writes
 * names and values in order; the writer puts the commas, the quotes and the escapes.
 *
 *   struct jsonw w;
 *   jsonw_init(&w, stdout);
 *   jsonw_start_object(&w);
 *   jsonw_string_field(&w, "dev", dev);
 *   jsonw_name(&w, "classes"); jsonw_start_array(&w); ... jsonw_end_array(&w);
 *   jsonw_end_object(&w);
 *   jsonw_finish(&w);               (a newline after the top value)
 *
 * Output is one line: "{"a": 1, "b": [true, null]}". Strings are escaped as RFC 8259
 * asks (quote, backslash, control characters); other bytes are written as they are
 * (UTF-8 in, UTF-8 out). A double that is not finite is written as null, which JSON
 * has for it. Nesting is limited to 64 levels (deeper aborts: a bug of the caller).
 * Differences from bpftool's: no pretty printing, no allocation (the writer is the
 * caller's struct), doubles with a fixed number of decimals, as the summaries print them.
 */
#ifndef XTX_TOOLS_JSON_H
#define XTX_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct jsonw {
	FILE *f;
	unsigned depth;			/* objects and arrays open */
	uint64_t has_value;		/* bit d: level d holds a value, so a comma comes next */
	bool named;			/* a member's name is out, its value not yet */
};

void jsonw_init(struct jsonw *w, FILE *f);
/* A newline after the top value, and a flush. 0, or -EIO when the stream had an error. */
int jsonw_finish(struct jsonw *w);

void jsonw_start_object(struct jsonw *w);
void jsonw_end_object(struct jsonw *w);
void jsonw_start_array(struct jsonw *w);
void jsonw_end_array(struct jsonw *w);
/* The name of the next member of the object open now; its value follows. */
void jsonw_name(struct jsonw *w, const char *name);

/* Values: a member's after jsonw_name(), or an array's element. */
void jsonw_string(struct jsonw *w, const char *s);	/* NULL: null */
void jsonw_uint(struct jsonw *w, uint64_t v);
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_float(struct jsonw *w, double v, int decimals);	/* "%.*f", or null */
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);

/* A member: its name and value in one call. */
void jsonw_string_field(struct jsonw *w, const char *name, const char *s);
void jsonw_uint_field(struct jsonw *w, const char *name, uint64_t v);
void jsonw_int_field(struct jsonw *w, const char *name, int64_t v);
void jsonw_float_field(struct jsonw *w, const char *name, double v, int decimals);
void jsonw_bool_field(struct jsonw *w, const char *name, bool v);
void jsonw_null_field(struct jsonw *w, const char *name);

#endif /* XTX_TOOLS_JSON_H */
