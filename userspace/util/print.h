/* SPDX-License-Identifier: BSD-3-Clause */
/* print.h - where libxtx's messages go (internal to libxtx; the public side, the levels and
 * xtx_set_print(), is xtx/print.h).
 *
 * The library does not write to stderr itself: every message it has for the application
 * goes through xtx_print() to the callback set with xtx_set_print() (libbpf_set_print). A
 * message is one line, without "xtx: " and without its newline. A part of the library
 * that can be silenced (an engine: opts.quiet) prints through a struct xtx_log.
 */
#ifndef XTX_UTIL_PRINT_H
#define XTX_UTIL_PRINT_H

#include <stdarg.h>
#include <xtx/print.h>

/* One message at `level` to the callback, if one is set. */
void xtx_print(enum xtx_print_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void xtx_vprint(enum xtx_print_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* A source of messages that may be silenced; read-only once set up. */
struct xtx_log {
	int quiet;			/* nothing reaches the callback */
};

/* A message from `log` at `level` unless it is quiet. xtx_info(): what was set up;
 * xtx_warn(): a fallback taken or a limit met. */
void xtx_logf(const struct xtx_log *log, enum xtx_print_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define xtx_info(log, ...)	xtx_logf(log, XTX_INFO, __VA_ARGS__)
#define xtx_warn(log, ...)	xtx_logf(log, XTX_WARN, __VA_ARGS__)

#endif /* XTX_UTIL_PRINT_H */
