/* SPDX-License-Identifier: BSD-3-Clause */
/* err.h - the caller's error buffer (internal to libxtx). */
#ifndef XTX_ERR_H
#define XTX_ERR_H

#include <stddef.h>

/* A printf-formatted message into err (errlen bytes, truncated, always terminated);
 * nothing if err is NULL or errlen 0. */
void xtx_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* XTX_ERR_H */
