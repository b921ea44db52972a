/* SPDX-License-Identifier: BSD-3-Clause */
/* print.c - see print.h. */
#include <stdatomic.h>
#include <stdio.h>

#include "print.h"

/* XTX_WARN and XTX_INFO to stderr as "xtx: MESSAGE\n"; XTX_DEBUG dropped. */
static int default_print(enum xtx_print_level level, const char *fmt, va_list ap)
{
	int n;

	if (level > XTX_INFO)
		return 0;
	fputs("xtx: ", stderr);
	n = vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return n;
}

/* Set by the application, read by any library thread (dequeuers print). */
static _Atomic(xtx_print_fn_t) print_fn = default_print;

xtx_print_fn_t xtx_set_print(xtx_print_fn_t fn)
{
	/* Release, pairs with the acquire load in xtx_vprint(): what the application wrote
	 * for its callback before setting it is visible to the callback's callers. */
	return atomic_exchange_explicit(&print_fn, fn, memory_order_acq_rel);
}

void xtx_vprint(enum xtx_print_level level, const char *fmt, va_list ap)
{
	/* Acquire, pairs with the release in xtx_set_print(). */
	xtx_print_fn_t fn = atomic_load_explicit(&print_fn, memory_order_acquire);

	if (fn)
		fn(level, fmt, ap);
}

void xtx_print(enum xtx_print_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xtx_vprint(level, fmt, ap);
	va_end(ap);
}

void xtx_logf(const struct xtx_log *log, enum xtx_print_level level, const char *fmt, ...)
{
	va_list ap;

	if (log->quiet)
		return;
	va_start(ap, fmt);
	xtx_vprint(level, fmt, ap);
	va_end(ap);
}
