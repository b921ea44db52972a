/* SPDX-License-Identifier: BSD-3-Clause */
/* thread.h - starting the library's threads (internal to libxtx). */
#ifndef XTX_THREAD_H
#define XTX_THREAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* Start a thread on `cpu` (-1: anywhere). The pin is part of the creation: if the kernel
 * refuses it, no thread runs and the error comes back. 0 or -errno (-EINVAL: a CPU this
 * process may not run on). */
int xtx_thread_start(pthread_t *th, int cpu, void *(*fn)(void *), void *arg);

/* xtx_thread_start() with a message in err on failure: "cannot start the WHAT of queue
 * QID on CPU N: ..." (naming a CPU this process may not run on as such), or, unpinned,
 * "cannot start the ALONE: ...". 0 or -errno. */
int xtx_thread_start_said(pthread_t *th, int cpu, void *(*fn)(void *), void *arg,
			  const char *what, const char *alone, uint32_t qid, char *err,
			  size_t errlen);

#endif /* XTX_THREAD_H */
