/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/json.c - see json.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "json.h"

#define JSONW_MAX_DEPTH	64

void jsonw_init(struct jsonw *w, FILE *f)
{
	*w = (struct jsonw){ .f = f };
}

int jsonw_finish(struct jsonw *w)
{
	fputc('\n', w->f);
	return fflush(w->f) || ferror(w->f) ? -EIO : 0;
}

/* Before a value: the comma after the previous element of an array (a member's comma
 * came with its name). */
static void value_begin(struct jsonw *w)
{
	if (w->named) {
		w->named = false;
		return;
	}
	if (w->has_value & (1ull << w->depth))
		fputs(", ", w->f);
	w->has_value |= 1ull << w->depth;
}

static void container_open(struct jsonw *w, char c)
{
	value_begin(w);
	if (w->depth + 1 >= JSONW_MAX_DEPTH)
		abort();
	fputc(c, w->f);
	w->depth++;
	w->has_value &= ~(1ull << w->depth);
}

static void container_close(struct jsonw *w, char c)
{
	if (!w->depth)
		abort();
	fputc(c, w->f);
	w->depth--;
}

void jsonw_start_object(struct jsonw *w)
{
	container_open(w, '{');
}

void jsonw_end_object(struct jsonw *w)
{
	container_close(w, '}');
}

void jsonw_start_array(struct jsonw *w)
{
	container_open(w, '[');
}

void jsonw_end_array(struct jsonw *w)
{
	container_close(w, ']');
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

void jsonw_name(struct jsonw *w, const char *name)
{
	value_begin(w);
	put_string(w->f, name);
	fputs(": ", w->f);
	w->named = true;
}

void jsonw_string(struct jsonw *w, const char *s)
{
	value_begin(w);
	if (s)
		put_string(w->f, s);
	else
		fputs("null", w->f);
}

void jsonw_uint(struct jsonw *w, uint64_t v)
{
	value_begin(w);
	fprintf(w->f, "%" PRIu64, v);
}

void jsonw_int(struct jsonw *w, int64_t v)
{
	value_begin(w);
	fprintf(w->f, "%" PRId64, v);
}

void jsonw_float(struct jsonw *w, double v, int decimals)
{
	value_begin(w);
	if (isfinite(v))
		fprintf(w->f, "%.*f", decimals, v);
	else
		fputs("null", w->f);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	value_begin(w);
	fputs(v ? "true" : "false", w->f);
}

void jsonw_null(struct jsonw *w)
{
	value_begin(w);
	fputs("null", w->f);
}

void jsonw_string_field(struct jsonw *w, const char *name, const char *s)
{
	jsonw_name(w, name);
	jsonw_string(w, s);
}

void jsonw_uint_field(struct jsonw *w, const char *name, uint64_t v)
{
	jsonw_name(w, name);
	jsonw_uint(w, v);
}

void jsonw_int_field(struct jsonw *w, const char *name, int64_t v)
{
	jsonw_name(w, name);
	jsonw_int(w, v);
}

void jsonw_float_field(struct jsonw *w, const char *name, double v, int decimals)
{
	jsonw_name(w, name);
	jsonw_float(w, v, decimals);
}

void jsonw_bool_field(struct jsonw *w, const char *name, bool v)
{
	jsonw_name(w, name);
	jsonw_bool(w, v);
}

void jsonw_null_field(struct jsonw *w, const char *name)
{
	jsonw_name(w, name);
	jsonw_null(w);
}
