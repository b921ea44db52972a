/* SPDX-License-Identifier: BSD-3-Clause */
/* thread.c - see thread.h. */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "err.h"
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

int xtx_thread_start_said(pthread_t *th, int cpu, void *(*fn)(void *), void *arg,
			  const char *what, const char *alone, uint32_t qid, char *err,
			  size_t errlen)
{
	int rc = xtx_thread_start(th, cpu, fn, arg);

	if (rc && cpu >= 0)
		xtx_errf(err, errlen, "cannot start the %s of queue %u on CPU %d: %s%s", what,
			 qid, cpu, strerror(-rc), rc == -EINVAL ? " (not a CPU this process may "
			 "run on: taskset, cpuset, online CPUs)" : "");
	else if (rc)
		xtx_errf(err, errlen, "cannot start the %s: %s", alone, strerror(-rc));
	return rc;
}
