/* SPDX-License-Identifier: BSD-3-Clause */
/* thread.h - starting the library's threads (internal to libxtx). */
#ifndef XTX_THREAD_H
#define XTX_THREAD_H

#include <pthread.h>

/* Start a thread on `cpu` (-1: anywhere). The pin is part of the creation: if the kernel
 * refuses it, no thread runs and the error comes back. 0 or -errno (-EINVAL: a CPU this
 * process may not run on). */
int xtx_thread_start(pthread_t *th, int cpu, void *(*fn)(void *), void *arg);

#endif /* XTX_THREAD_H */
