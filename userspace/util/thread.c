/* SPDX-License-Identifier: BSD-3-Clause */
/* thread.c - see thread.h. */
#include <sched.h>

#include "thread.h"

int xtx_thread_start(pthread_t *th, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int rc;

	if (cpu < 0)
		return -pthread_create(th, NULL, fn, arg);
	rc = pthread_attr_init(&attr);
	if (rc)
		return -rc;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!rc)
		rc = pthread_create(th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return -rc;
}
