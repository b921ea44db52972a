/* SPDX-License-Identifier: BSD-3-Clause */
/* fdio.h - bounded reads and writes on a non-blocking socket for the control paths (the
 * control socket, xtx-shape's metrics server): a peer that sends or reads slowly, or not
 * at all, holds the serving thread until a deadline, never longer, and a byte on stop_fd
 * (-1: none) ends the wait at once. */
#ifndef XTX_FDIO_H
#define XTX_FDIO_H

#include <stddef.h>
#include <stdint.h>

/* Read into buf (cap bytes, NUL-terminated: cap - 1 at most) until it holds `mark`, is
 * full, the peer closes, the deadline (CLOCK_MONOTONIC ns) passes or stop_fd is
 * readable. Returns the bytes read. */
size_t xtx_fd_read_until(int fd, char *buf, size_t cap, const char *mark,
			 uint64_t deadline_ns, int stop_fd);
/* Write all len bytes by the deadline: 0, -ETIMEDOUT (deadline or stop_fd), -errno. */
int xtx_fd_write_all(int fd, const void *buf, size_t len, uint64_t deadline_ns, int stop_fd);

#endif /* XTX_FDIO_H */
