/* SPDX-License-Identifier: BSD-3-Clause */
/* nic.c - see nic.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"
#include "print.h"

int xtx_nic_numa_node(const char *sysfs, const char *ifname, int *node)
{
	char path[PATH_MAX], buf[32], *end;
	size_t n;
	long v;
	FILE *f;

	*node = -1;
	if (snprintf(path, sizeof(path), "%s/class/net/%s/device/numa_node",
		     sysfs ? sysfs : "/sys", ifname) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;	/* ENOENT: no device, no node */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	if (ferror(f)) {
		int rc = -errno;

		fclose(f);
		return rc ? rc : -EIO;
	}
	fclose(f);
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || errno || v < -1 || v > INT_MAX || (*end && strcmp(end, "\n")))
		return -EINVAL;
	*node = (int)v;
	return 0;
}

int xtx_nic_numa_node_said(const char *sysfs, const char *ifname, int quiet)
{
	int node, rc = xtx_nic_numa_node(sysfs, ifname, &node);

	if (rc && !quiet)
		xtx_print(XTX_WARN, "cannot read the NUMA node of %s (%s/class/net/%s/device/"
			  "numa_node: %s): memory left local, threads not pinned by node",
			  ifname, sysfs ? sysfs : "/sys", ifname, strerror(-rc));
	return rc ? -1 : node;
}

unsigned xtx_nic_tx_queues(const char *sysfs, const char *ifname)
{
	char path[PATH_MAX];
	struct dirent *d;
	unsigned n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/net/%s/queues", sysfs ? sysfs : "/sys", ifname);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		n += strncmp(d->d_name, "tx-", 3) == 0;
	closedir(dir);
	return n;
}
