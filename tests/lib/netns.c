/* SPDX-License-Identifier: BSD-3-Clause */
/* netns.c - see netns.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "netns.h"

/* The parent of PID from /proc/PID/stat (the field after the command name, which may
 * hold spaces and parentheses), or 0 when it cannot be read. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

/* The network namespace of PID, or -1 when it cannot be read. */
static int ns_of(pid_t pid, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	return stat(path, st) ? -1 : 0;
}

static int refuse(const char *who, pid_t pid)
{
	fprintf(stderr, "%s: refusing to run in the host's network namespace (that of pid %d); "
		"tests send only inside a namespace their script created (ip netns exec NS ...)\n",
		who, (int)pid);
	return -EPERM;
}

int netns_require_private(const char *who)
{
	struct stat self, st;
	pid_t pid, top = 0;
	int depth;

	if (ns_of(getpid(), &self)) {
		int err = errno;

		fprintf(stderr, "%s: refusing to run: cannot read /proc/self/ns/net: %s\n", who,
			strerror(err));
		return -err;
	}
	if (!ns_of(1, &st) && st.st_dev == self.st_dev && st.st_ino == self.st_ino)
		return refuse(who, 1);
	/* The oldest ancestor below PID 1 whose namespace can be read. */
	for (pid = parent_of(getpid()), depth = 0; pid > 1 && depth < 64;
	     pid = parent_of(pid), depth++)
		if (!ns_of(pid, &st))
			top = pid;
	if (top && !ns_of(top, &st) && st.st_dev == self.st_dev && st.st_ino == self.st_ino)
		return refuse(who, top);
	return 0;
}
