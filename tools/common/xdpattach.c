/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/xdpattach.c - see xdpattach.h. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xdpattach.h"

int xdpa_enter_netns(const char *prog, const char *netns)
{
	char path[256];
	int fd, err;

	if (strchr(netns, '/'))
		snprintf(path, sizeof(path), "%s", netns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			fprintf(stderr, "%s: --netns %s: no such network namespace (%s "
				"does not exist); see 'ip netns list', create it with "
				"'ip netns add' or 'tools/testbed up'\n", prog, netns, path);
		else
			fprintf(stderr, "%s: --netns %s: cannot open %s: %s\n", prog, netns,
				path, strerror(-err));
		return err;
	}
	if (setns(fd, CLONE_NEWNET)) {
		err = -errno;
		fprintf(stderr, "%s: --netns %s: setns(%s) failed: %s%s\n", prog, netns,
			path, strerror(-err),
			err == -EPERM ? "; run as root (needs CAP_SYS_ADMIN)" : "");
		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

const char *xdpa_mode_name(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE: return "native";
	case XDP_MODE_SKB: return "skb";
	case XDP_MODE_HW: return "hw";
	default: return "unspec";
	}
}

const char *xdpa_err_str(int err, char *buf, size_t len)
{
	if (libxdp_strerror(err, buf, len))
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}
