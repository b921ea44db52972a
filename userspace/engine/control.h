/* SPDX-License-Identifier: BSD-3-Clause */
/* control.h - the engine's control socket (control.c). */
#ifndef XTX_CONTROL_H
#define XTX_CONTROL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/un.h>

struct xtx_engine;

struct xtx_control {
	int lfd;			/* the listening socket */
	int stop_fd[2];			/* a pipe: a byte on [1] stops the thread */
	pthread_t th;
	int started, bound;
	_Atomic int stop;		/* xtx_control_stop(): the thread ends */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	unsigned ncls;
	uint64_t *bps;			/* per class: bytes/s over the last second */
	uint64_t *last;			/* per class: sent bytes at t_last */
	uint64_t t_last;		/* ns; 0: no sample yet */
};

/* Stop the thread, remove the socket file, free it all; nothing without one. */
void xtx_control_stop(struct xtx_engine *e);

#endif /* XTX_CONTROL_H */
