/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/cli.h - command-line helpers shared by the baseline senders (pkt-send,
 * udp-send, xsk-plain, xtx-shape, xtx-sink). Every tool links tools/common/ (see the Makefile). Errors go to
 * stderr as "PROG: message" plus a pointer to --help, and exit with status 2. */
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
/* Print "PROG: <message>" and a pointer to --help; exit 2. */
void cli_die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* A whole number in min..max (decimal, 0x hex or 0 octal) or die naming opt. */
uint64_t cli_parse_uint(const char *opt, const char *s, uint64_t min, uint64_t max);
/* Seconds in (0, 86400] or die. */
double cli_parse_seconds(const char *opt, const char *s);
/* Seconds in [0, 10000000] (0: off, for --duration and --interval of the long-running
 * tools) or die. */
double cli_parse_period(const char *opt, const char *s);
/* A CPU list like "0,2-3" into cpus[0..max) (--cpus); returns how many, or dies. */
int cli_parse_cpus(const char *s, int *cpus, int max);

#endif /* XTX_TOOLS_CLI_H */
