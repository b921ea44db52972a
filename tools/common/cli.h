/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/cli.h - command-line helpers of every tool (the Makefile links tools/common/
 * into each). Two layers:
 *
 *   cli_str_to_*()   read a value, return 0 or -EINVAL and print nothing: the one
 *                    definition of what a whole number or a CPU list is, for tools whose
 *                    messages have their own form (xtx-send's "bad value 'X' for --opt",
 *                    xtx-compare's, which cleans up before it exits);
 *   cli_parse_*()    the same, and on a bad value print "PROG: message" plus a pointer to
 *                    --help and exit with status 2 (the baseline senders, xtx-shape,
 *                    xtx-sink). */
#ifndef XTX_TOOLS_CLI_H
#define XTX_TOOLS_CLI_H

#include <stdint.h>
#include <time.h>

/* The program name for messages; call first. */
void cli_set_prog(const char *prog);
/* The name given to cli_set_prog(). */
const char *cli_get_prog(void);
/* Clock c in nanoseconds. */
uint64_t cli_now_ns(clockid_t c);
/* Clock c in seconds. */
double cli_now_s(clockid_t c);
/* Print "PROG: <message>" and a pointer to --help; exit 2. */
void cli_die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* s as a whole number in min..max, written in base (10; or 0: C's 0x hex and 0 octal too),
 * into *out: strtoull()'s syntax without a minus sign, nothing after the digits. 0, or
 * -EINVAL (and *out untouched). */
int cli_str_to_u64(const char *s, int base, uint64_t min, uint64_t max, uint64_t *out);
/* The same for a signed decimal number in min..max. */
int cli_str_to_i64(const char *s, int64_t min, int64_t max, int64_t *out);
/* s as a finite number in [min, max] (strtod()'s syntax, nothing after it), into *out.
 * 0, or -EINVAL (also on overflow and underflow). */
int cli_str_to_double(const char *s, double min, double max, double *out);
/* A CPU list like "0,2-3": xtx_cpulist_parse() (userspace/util/cpulist.h), the engine's
 * reader of xtx_engine_opts.cpus (there with max_cpu 4096). Returns how many CPUs the list
 * names (at least 1; the first n stored in cpus, which may be NULL with n 0), or -EINVAL. */
int cli_str_to_cpus(const char *s, int max_cpu, int *cpus, int n);

/* Write a --ready-file: fmt's text into "path.tmp.PID", then renamed to path, so that a
 * reader waiting for path sees all of it or nothing. Returns 0, or -errno after printing
 * "PROG: cannot write --ready-file PATH: ..." (or that the path is too long). */
int cli_write_ready(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A whole number in min..max (decimal, 0x hex or 0 octal) or die naming opt. */
uint64_t cli_parse_uint(const char *opt, const char *s, uint64_t min, uint64_t max);
/* Seconds in (0, 86400] or die. */
double cli_parse_seconds(const char *opt, const char *s);
/* Seconds in [0, 10000000] (0: off, for --duration and --interval of the long-running
 * tools) or die. */
double cli_parse_period(const char *opt, const char *s);
/* s as a finite number in [min, max] (strtod()'s syntax, nothing after it), into *out.
 * 0, or -EINVAL (also on overflow and underflow). */
int cli_str_to_double(const char *s, double min, double max, double *out);
/* A CPU list like "0,2-3" into cpus[0..max) (--cpus); returns how many, or dies. */
int cli_parse_cpus(const char *s, int *cpus, int max);

#endif /* XTX_TOOLS_CLI_H */
