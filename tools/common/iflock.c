/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/iflock.c - see iflock.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iflock.h"

int iflock_take(struct iflock *l, const char *prog, const char *dir, int ifindex,
		const char *ifname, const char *busy)
{
	char pid[32] = "";
	struct stat st, fst;
	ssize_t n;
	int fd = -1;

	l->fd = -1;
	if (stat("/proc/self/ns/net", &st)) {
		fprintf(stderr, "%s: cannot stat /proc/self/ns/net: %s\n", prog, strerror(errno));
		return -errno;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot create %s: %s; run as root\n", prog, dir,
			strerror(errno));
		return -errno;
	}
	chmod(dir, 0700);	/* also when an older run made it wider */
	snprintf(l->path, sizeof(l->path), "%s/net%lu-if%d.lock", dir,
		 (unsigned long)st.st_ino, ifindex);
	/* The holder unlinks the file when it is done; so after locking, check that the
	 * path still names the file we locked, else we locked a removed one: retry. */
	for (int tries = 0; tries < 10; tries++) {
		fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0) {
			fprintf(stderr, "%s: cannot open lock file %s: %s; run as root\n", prog,
				l->path, strerror(errno));
			return -errno;
		}
		fchmod(fd, 0600);	/* a file an older version made wider */
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int err = -errno;

			n = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			if (err == -EWOULDBLOCK)
				fprintf(stderr, "%s: another %s (pid %s) %s %s in this namespace; "
					"stop it first (lock %s)\n", prog, prog,
					pid[0] ? pid : "?", busy, ifname, l->path);
			else
				fprintf(stderr, "%s: cannot lock %s: %s\n", prog, l->path,
					strerror(-err));
			close(fd);
			return err;
		}
		if (!fstat(fd, &fst) && !stat(l->path, &st) && fst.st_ino == st.st_ino &&
		    fst.st_dev == st.st_dev)
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fprintf(stderr, "%s: cannot keep hold of lock file %s (it keeps being replaced); "
			"is another %s starting and stopping in a loop?\n", prog, l->path, prog);
		return -EBUSY;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n)
		fprintf(stderr, "%s: warning: cannot write the pid into %s: %s\n", prog, l->path,
			strerror(errno));
	l->fd = fd;
	return 0;
}

void iflock_release(struct iflock *l)
{
	if (l->fd >= 0) {
		unlink(l->path);	/* while still holding it; see iflock_take() */
		close(l->fd);
		l->fd = -1;
	}
}
