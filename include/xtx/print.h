/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx/print.h - where libxtx's messages go (included by xtx/xtx.h).
 *
 * The library writes nothing itself: each message it has for the application (a fallback
 * taken, where memory and threads went) goes to one callback for the process, as
 * libbpf_set_print(). A message is one line without its newline and without the "xtx: "
 * that the default callback puts before it; the default writes XTX_WARN and XTX_INFO to
 * stderr and drops XTX_DEBUG. opts.quiet still silences one engine's messages.
 */
#ifndef XTX_PRINT_H
#define XTX_PRINT_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

enum xtx_print_level {
	XTX_WARN,		/* a fallback or a limit the application should know of */
	XTX_INFO,		/* what was set up, and where */
	XTX_DEBUG,
};
typedef int (*xtx_print_fn_t)(enum xtx_print_level level, const char *fmt, va_list ap);

/* Sets the callback (NULL: no messages) and returns the previous one. Any thread may
 * call it at any time; library threads may be printing through the old one as it
 * returns. */
xtx_print_fn_t xtx_set_print(xtx_print_fn_t fn);

#ifdef __cplusplus
}
#endif
#endif /* XTX_PRINT_H */
