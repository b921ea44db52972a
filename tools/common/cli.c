/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/cli.c - see cli.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cpulist.h"

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

double cli_now_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

int cli_write_ready(const char *path, const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	FILE *f;
	int err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		fprintf(stderr, "%s: --ready-file path too long\n", prog);
		return -ENAMETOOLONG;
	}
	f = fopen(tmp, "w");
	if (!f)
		goto fail;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f) || rename(tmp, path))
		goto fail;
	return 0;
fail:
	err = -errno;
	fprintf(stderr, "%s: cannot write --ready-file %s: %s; check that its directory exists "
		"and is writable\n", prog, path, strerror(-err));
	unlink(tmp);
	return err;
}

int cli_str_to_u64(const char *s, int base, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s[0] == '-')	/* strtoull() would take it and negate */
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_str_to_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_str_to_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_str_to_cpus(const char *s, int max_cpu, int *cpus, int n)
{
	return xtx_cpulist_parse(s, max_cpu, cpus, n);
}

uint64_t cli_parse_uint(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (cli_str_to_u64(s, 0, min, max, &v))
		cli_die_usage("%s: '%s' is not a whole number in %llu..%llu", opt, s,
			      (unsigned long long)min, (unsigned long long)max);
	return v;
}

double cli_parse_seconds(const char *opt, const char *s)
{
	double v;

	if (cli_str_to_double(s, 0, 86400, &v) || v == 0)
		cli_die_usage("%s: '%s' is not a number of seconds in (0, 86400]", opt, s);
	return v;
}

double cli_parse_period(const char *opt, const char *s)
{
	double v;

	if (cli_str_to_double(s, 0, 1e7, &v))
		cli_die_usage("%s '%s': give seconds as a number from 0 to 10000000", opt, s);
	return v;
}

int cli_parse_cpus(const char *s, int *cpus, int max)
{
	int n = cli_str_to_cpus(s, max, cpus, max);

	if (n < 0)
		cli_die_usage("--cpus: '%s' is not a CPU list like 0,2-3", s);
	return n < max ? n : max;
}
