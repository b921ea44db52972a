/* SPDX-License-Identifier: BSD-3-Clause */
/* fdio.c - bounded socket reads and writes (fdio.h). */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "fdio.h"

/* Wait for ev on fd: 1 ready, 0 deadline passed or stop_fd readable, -errno. */
static int wait_fd(int fd, short ev, uint64_t deadline_ns, int stop_fd)
{
	for (;;) {
		struct pollfd p[2] = { { fd, ev, 0 }, { stop_fd, POLLIN, 0 } };
		uint64_t now = xtx_now_ns();
		int ms, rc;

		if (now >= deadline_ns)
			return 0;
		ms = (int)((deadline_ns - now + 999999) / 1000000);
		rc = poll(p, stop_fd >= 0 ? 2 : 1, ms);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -errno;
		if (stop_fd >= 0 && p[1].revents)
			return 0;
		if (p[0].revents)
			return 1;
	}
}

size_t xtx_fd_read_until(int fd, char *buf, size_t cap, const char *mark,
			 uint64_t deadline_ns, int stop_fd)
{
	size_t got = 0;

	if (!cap)
		return 0;
	buf[0] = '\0';
	while (got + 1 < cap && !strstr(buf, mark) && wait_fd(fd, POLLIN, deadline_ns, stop_fd) > 0) {
		ssize_t k = recv(fd, buf + got, cap - 1 - got, MSG_DONTWAIT);

		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
		buf[got] = '\0';
	}
	return got;
}

int xtx_fd_write_all(int fd, const void *buf, size_t len, uint64_t deadline_ns, int stop_fd)
{
	const char *p = buf;

	while (len) {
		ssize_t k = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		int rc;

		if (k > 0) {
			p += k;
			len -= (size_t)k;
			continue;
		}
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLOUT, deadline_ns, stop_fd);
		if (rc <= 0)
			return rc ? rc : -ETIMEDOUT;
	}
	return 0;
}
