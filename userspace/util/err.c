/* SPDX-License-Identifier: BSD-3-Clause */
/* err.c - see err.h. */
#include <stdarg.h>
#include <stdio.h>

#include "err.h"

void xtx_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
