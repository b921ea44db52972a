/* SPDX-License-Identifier: BSD-3-Clause */
/* cpulist.c - see cpulist.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpulist.h"

int xtx_cpulist_parse(const char *s, int max_cpu, int *cpus, int n)
{
	const char *p = s;
	int count = 0;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0 || a >= max_cpu)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= max_cpu)
				return -EINVAL;
			p = end;
		}
		for (long i = a; i <= b; i++, count++)
			if (count < n)
				cpus[count] = (int)i;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return count ? count : -EINVAL;
}

void xtx_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && off < len; c++) {
		int d = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (d + 1 < CPU_SETSIZE && CPU_ISSET(d + 1, set))
			d++;
		off += (size_t)snprintf(buf + off, len - off, d > c ? "%s%d-%d" : "%s%d",
					off ? "," : "", c, d);
		c = d;
	}
}
