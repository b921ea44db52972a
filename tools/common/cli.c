/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/cli.c - see cli.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static const char *prog = "xtx";

void cli_set_prog(const char *p)
{
	prog = p;
}

const char *cli_get_prog(void)
{
	return prog;
}

uint64_t cli_now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cli_die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	exit(2);
}

uint64_t cli_parse_uint(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		cli_die_usage("%s: '%s' is not a whole number in %llu..%llu", opt, s,
			      (unsigned long long)min, (unsigned long long)max);
	return v;
}

double cli_parse_seconds(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400)
		cli_die_usage("%s: '%s' is not a number of seconds in (0, 86400]", opt, s);
	return v;
}

double cli_parse_period(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e7)
		cli_die_usage("%s '%s': give seconds as a number from 0 to 10000000", opt, s);
	return v;
}

int cli_parse_cpus(const char *s, int *cpus, int max)
{
	const char *p = s;
	int n = 0;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0 || a >= max)
			goto bad;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= max)
				goto bad;
			p = end;
		}
		for (long i = a; i <= b && n < max; i++)
			cpus[n++] = (int)i;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (n)
		return n;
bad:
	cli_die_usage("--cpus: '%s' is not a CPU list like 0,2-3", s);
}
