/* SPDX-License-Identifier: BSD-3-Clause */
/* print.h - where libxtx's messages go (internal to libxtx; the public side is
 * xtx_set_print() in xtx/xtx.h).
 *
 * The library does not write to stderr itself: every message it has for the application
 * (a fallback taken, a placement made) goes through xtx_print() to the callback set with
 * xtx_set_print() (libbpf_set_print). A message is one line, without "xtx: " and without
 * its newline; the default callback adds both and writes XTX_WARN and XTX_INFO to stderr.
 * NULL silences the library.
 */
#ifndef XTX_PRINT_H
#define XTX_PRINT_H

#include <stdarg.h>

/* The same definitions as in xtx/xtx.h, which util/ cannot include (its include path
 * reaches util/ only); one guard, so a file that includes both sees them once. */
#ifndef XTX_PRINT_TYPES
#define XTX_PRINT_TYPES
enum xtx_print_level {
	XTX_WARN,
	XTX_INFO,
	XTX_DEBUG,
};
typedef int (*xtx_print_fn_t)(enum xtx_print_level level, const char *fmt, va_list ap);
#endif

xtx_print_fn_t xtx_set_print(xtx_print_fn_t fn);

/* One message at `level` to the callback, if one is set. */
void xtx_print(enum xtx_print_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void xtx_vprint(enum xtx_print_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* XTX_PRINT_H */
