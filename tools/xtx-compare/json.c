/* SPDX-License-Identifier: BSD-3-Clause */
/* json.c - see json.h. A recursive-descent parser over a NUL-terminated buffer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define JSON_DEPTH_MAX	64

struct parser {
	const char *s, *p;
	char *err;
	size_t errlen;
	int depth;
	bool failed;
};

static void fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->failed)
		return;
	ps->failed = true;
	if (!ps->err || !ps->errlen)
		return;
	n = snprintf(ps->err, ps->errlen, "offset %zu: ", (size_t)(ps->p - ps->s));
	if (n < 0 || (size_t)n >= ps->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static void free_inner(struct json *j)
{
	if (!j)
		return;
	free(j->str);
	for (unsigned i = 0; i < j->n; i++) {
		free_inner(&j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	memset(j, 0, sizeof(*j));
}

void json_free(struct json *j)
{
	free_inner(j);
	free(j);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int read_hex4(struct parser *ps, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(ps->p[i]);

		if (h < 0) {
			fail(ps, "bad \\u escape");
			return -1;
		}
		*v = *v << 4 | (uint32_t)h;
	}
	ps->p += 4;
	return 0;
}

/* A string at ps->p (on the opening quote). Returns a malloc'd copy or NULL. */
static char *parse_string(struct parser *ps)
{
	const char *q = ps->p + 1;
	size_t cap = 16;
	char *out;
	size_t n = 0;

	for (; *q && *q != '"'; q++)	/* upper bound of the decoded length */
		if (*q == '\\' && q[1])
			q++;
	cap = (size_t)(q - ps->p) + 4;
	out = malloc(cap);
	if (!out) {
		fail(ps, "out of memory");
		return NULL;
	}
	ps->p++;
	for (;;) {
		unsigned char c = (unsigned char)*ps->p;

		if (c == '"') {
			ps->p++;
			out[n] = 0;
			return out;
		}
		if (c == 0 || c < 0x20) {
			fail(ps, c ? "control character in a string" : "unterminated string");
			break;
		}
		if (c != '\\') {
			out[n++] = (char)c;
			ps->p++;
			continue;
		}
		ps->p++;
		c = (unsigned char)*ps->p++;
		switch (c) {
		case '"': out[n++] = '"'; break;
		case '\\': out[n++] = '\\'; break;
		case '/': out[n++] = '/'; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u': {
			uint32_t cp, lo;

			if (read_hex4(ps, &cp))
				goto out_fail;
			if (cp >= 0xd800 && cp < 0xdc00 && ps->p[0] == '\\' && ps->p[1] == 'u') {
				ps->p += 2;
				if (read_hex4(ps, &lo))
					goto out_fail;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			n += put_utf8(out + n, cp);	/* \uXXXX is 6 bytes, UTF-8 at most 4 */
			break;
		}
		default:
			ps->p--;
			fail(ps, "bad escape '\\%c'", c ? c : '0');
			goto out_fail;
		}
	}
out_fail:
	free(out);
	return NULL;
}

static int parse_value(struct parser *ps, struct json *v);

static int push(struct parser *ps, struct json *v, unsigned *cap, char *key)
{
	if (v->n == *cap) {
		unsigned nc = *cap ? *cap * 2 : 8;
		struct json *ni = realloc(v->items, nc * sizeof(*ni));

		if (!ni) {
			fail(ps, "out of memory");
			return -1;
		}
		v->items = ni;
		if (v->type == JSON_OBJ) {
			char **nk = realloc(v->keys, nc * sizeof(*nk));

			if (!nk) {
				fail(ps, "out of memory");
				return -1;
			}
			v->keys = nk;
		}
		*cap = nc;
	}
	memset(&v->items[v->n], 0, sizeof(v->items[0]));
	if (v->type == JSON_OBJ)
		v->keys[v->n] = key;
	v->n++;
	return 0;
}

static int parse_container(struct parser *ps, struct json *v, char close)
{
	unsigned cap = 0;

	if (++ps->depth > JSON_DEPTH_MAX) {
		fail(ps, "nested more than %d levels", JSON_DEPTH_MAX);
		return -1;
	}
	ps->p++;
	skip_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		skip_ws(ps);
		if (close == '}') {
			if (*ps->p != '"') {
				fail(ps, "expected a member name");
				return -1;
			}
			key = parse_string(ps);
			if (!key)
				return -1;
			skip_ws(ps);
			if (*ps->p != ':') {
				free(key);
				fail(ps, "expected ':'");
				return -1;
			}
			ps->p++;
		}
		if (push(ps, v, &cap, key)) {
			free(key);
			return -1;
		}
		if (parse_value(ps, &v->items[v->n - 1]))
			return -1;
		skip_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == close) {
			ps->p++;
			ps->depth--;
			return 0;
		}
		fail(ps, "expected ',' or '%c'", close);
		return -1;
	}
}

/* true, false or null at ps->p: 0, or -1 (nothing consumed) if none of them is there. */
static int parse_literal(struct parser *ps, struct json *v)
{
	static const struct { const char *text; enum json_type type; bool b; } lit[] = {
		{ "true", JSON_BOOL, true }, { "false", JSON_BOOL, false }, { "null", JSON_NULL, false },
	};

	for (size_t i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
		size_t n = strlen(lit[i].text);

		if (!strncmp(ps->p, lit[i].text, n)) {
			v->type = lit[i].type;
			v->b = lit[i].b;
			ps->p += n;
			return 0;
		}
	}
	return -1;
}

static int parse_value(struct parser *ps, struct json *v)
{
	skip_ws(ps);
	switch (*ps->p) {
	case '{':
		v->type = JSON_OBJ;
		return parse_container(ps, v, '}');
	case '[':
		v->type = JSON_ARR;
		return parse_container(ps, v, ']');
	case '"':
		v->type = JSON_STR;
		v->str = parse_string(ps);
		return v->str ? 0 : -1;
	case 't':
	case 'f':
	case 'n':
		if (parse_literal(ps, v) == 0)
			return 0;
		break;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) {
			char *end;

			errno = 0;
			v->num = strtod(ps->p, &end);
			if (end == ps->p) {
				fail(ps, "bad number");
				return -1;
			}
			v->type = JSON_NUM;
			ps->p = end;
			return 0;
		}
	}
	fail(ps, *ps->p ? "unexpected character '%c'" : "unexpected end of text", *ps->p);
	return -1;
}

struct json *json_parse(const char *text, char *err, size_t errlen)
{
	struct parser ps = { .s = text, .p = text, .err = err, .errlen = errlen };
	struct json *j;

	if (err && errlen)
		err[0] = 0;
	if (!text) {
		if (err && errlen)
			snprintf(err, errlen, "no text");
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_value(&ps, j) == 0) {
		skip_ws(&ps);
		if (*ps.p)
			fail(&ps, "text after the value");
	}
	if (ps.failed) {
		json_free(j);
		return NULL;
	}
	return j;
}

const struct json *json_get(const struct json *j, const char *path)
{
	while (j && path && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		const struct json *next = NULL;

		if (j->type != JSON_OBJ)
			return NULL;
		for (unsigned i = 0; i < j->n; i++)
			if (strlen(j->keys[i]) == len && !strncmp(j->keys[i], path, len)) {
				next = &j->items[i];
				break;
			}
		j = next;
		path = dot ? dot + 1 : NULL;
	}
	return j;
}

double json_num(const struct json *j, const char *path)
{
	const struct json *v = json_get(j, path);

	if (!v)
		return NAN;
	if (v->type == JSON_NUM)
		return v->num;
	if (v->type == JSON_BOOL)
		return v->b;
	return NAN;
}

const char *json_str(const struct json *j, const char *path)
{
	const struct json *v = json_get(j, path);

	return v && v->type == JSON_STR ? v->str : NULL;
}

void json_put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void json_put_num(FILE *f, double v, int prec)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == (double)(int64_t)v && fabs(v) < 1e15)
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%.*g", prec, v);
}

void json_write(FILE *f, const struct json *j, const char *skip)
{
	bool first = true;

	if (!j) {
		fputs("null", f);
		return;
	}
	switch (j->type) {
	case JSON_NULL:
		fputs("null", f);
		break;
	case JSON_BOOL:
		fputs(j->b ? "true" : "false", f);
		break;
	case JSON_NUM:
		json_put_num(f, j->num, 17);
		break;
	case JSON_STR:
		json_put_str(f, j->str);
		break;
	case JSON_ARR:
		fputc('[', f);
		for (unsigned i = 0; i < j->n; i++) {
			if (i)
				fputc(',', f);
			json_write(f, &j->items[i], skip);
		}
		fputc(']', f);
		break;
	case JSON_OBJ:
		fputc('{', f);
		for (unsigned i = 0; i < j->n; i++) {
			if (skip && !strcmp(j->keys[i], skip))
				continue;
			if (!first)
				fputc(',', f);
			first = false;
			json_put_str(f, j->keys[i]);
			fputc(':', f);
			json_write(f, &j->items[i], skip);
		}
		fputc('}', f);
		break;
	}
}
