/* SPDX-License-Identifier: BSD-3-Clause */
/* metrics.c - xtx-shape --metrics ADDR:PORT: the engine's Prometheus metrics
 * (xtx_engine__metrics()) over HTTP, for a scraper.
 *
 * Rules
 *   - GET /metrics answers 200 with the text (Content-Type text/plain; version=0.0.4),
 *     any other path 404, any other method 405; HTTP/1.0 and 1.1, one request per
 *     connection (Connection: close), read and answered within 2 s in all.
 *   - Its own thread, one connection at a time; it stops (and closes the socket) before
 *     the engine does.
 *   - ADDR defaults to 127.0.0.1 (a port alone): metrics are for this host unless an
 *     address says otherwise. IPv6 as [ADDR]:PORT.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "fdio.h"
#include "shape.h"

#define HEAD_MAX	4096

/* The head, then the body, both by the connection's deadline (a scraper that stops
 * reading cannot hold the thread, nor the shaper's exit behind it). */
static void reply(struct shape *s, int fd, uint64_t deadline, const char *status,
		  const char *type, const char *body, size_t len)
{
	char head[256];
	int n = snprintf(head, sizeof(head), "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\n", status, type, len);

	if (!xtx_fd_write_all(fd, head, (size_t)n, deadline, s->metrics_stop[0]))
		xtx_fd_write_all(fd, body, len, deadline, s->metrics_stop[0]);
}

static void serve(struct shape *s, int fd)
{
	static const char plain[] = "text/plain; charset=utf-8";
	uint64_t deadline = xtx_now_ns() + 2000000000ull;	/* the whole connection */
	char req[HEAD_MAX + 1];
	char *text;
	size_t len;

	/* the request line is all it needs: a head cut short by the deadline still has it */
	xtx_fd_read_until(fd, req, sizeof(req), "\r\n\r\n", deadline, s->metrics_stop[0]);
	if (strncmp(req, "GET ", 4)) {
		reply(s, fd, deadline, "405 Method Not Allowed", plain, "GET /metrics\n", 13);
	} else if (strncmp(req + 4, "/metrics ", 9) && strncmp(req + 4, "/metrics?", 9)) {
		reply(s, fd, deadline, "404 Not Found", plain, "GET /metrics\n", 13);
	} else if (xtx_engine__metrics(s->engine, &text, &len)) {
		reply(s, fd, deadline, "500 Internal Server Error", plain, "out of memory\n", 14);
	} else {
		reply(s, fd, deadline, "200 OK", "text/plain; version=0.0.4; charset=utf-8", text,
		      len);
		free(text);
	}
}

static void *metrics_main(void *arg)
{
	struct shape *s = arg;

	for (;;) {
		struct pollfd p[2] = { { s->metrics_fd, POLLIN, 0 },
				       { s->metrics_stop[0], POLLIN, 0 } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (p[0].revents & POLLIN) {
			int fd = accept4(s->metrics_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

			if (fd >= 0) {
				serve(s, fd);
				close(fd);
			}
		}
	}
	return NULL;
}

/* ADDR:PORT, [ADDR6]:PORT or PORT into host (NULL: 127.0.0.1) and port. */
static int split(const char *spec, char *host, size_t hl, const char **port)
{
	const char *c;

	if (spec[0] == '[') {
		c = strchr(spec, ']');
		if (!c || c[1] != ':' || (size_t)(c - spec) >= hl)
			return -1;
		snprintf(host, hl, "%.*s", (int)(c - spec - 1), spec + 1);
		*port = c + 2;
		return 0;
	}
	c = strrchr(spec, ':');
	if (!c) {
		snprintf(host, hl, "127.0.0.1");
		*port = spec;
		return 0;
	}
	if ((size_t)(c - spec) >= hl)
		return -1;
	snprintf(host, hl, "%.*s", (int)(c - spec), spec);
	*port = c + 1;
	return 0;
}

int shape_metrics_start(struct shape *s, struct xtx_engine *e)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char host[128];
	const char *port;
	int one = 1, rc;

	s->metrics_fd = s->metrics_stop[0] = s->metrics_stop[1] = -1;
	if (!s->opt.metrics)
		return 0;
	s->engine = e;
	if (split(s->opt.metrics, host, sizeof(host), &port) ||
	    (rc = getaddrinfo(host, port, &hints, &ai))) {
		fprintf(stderr, "xtx-shape: --metrics '%s': give PORT, ADDR:PORT or [ADDR6]:PORT "
			"with a numeric address\n", s->opt.metrics);
		return -EINVAL;
	}
	s->metrics_fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->metrics_fd < 0 ||
	    setsockopt(s->metrics_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->metrics_fd, ai->ai_addr, ai->ai_addrlen) || listen(s->metrics_fd, 16) ||
	    pipe2(s->metrics_stop, O_CLOEXEC)) {
		rc = -errno;
		fprintf(stderr, "xtx-shape: --metrics %s: %s\n", s->opt.metrics, strerror(-rc));
		freeaddrinfo(ai);
		shape_metrics_stop(s);
		return rc;
	}
	freeaddrinfo(ai);
	if (pthread_create(&s->metrics_th, NULL, metrics_main, s)) {
		fprintf(stderr, "xtx-shape: --metrics: cannot start its thread\n");
		shape_metrics_stop(s);
		return -EAGAIN;
	}
	s->metrics_started = 1;
	return 0;
}

void shape_metrics_stop(struct shape *s)
{
	if (s->metrics_started) {
		if (write(s->metrics_stop[1], "x", 1) == 1)
			pthread_join(s->metrics_th, NULL);
		s->metrics_started = 0;
	}
	if (s->metrics_fd >= 0)
		close(s->metrics_fd);
	for (int i = 0; i < 2; i++)
		if (s->metrics_stop[i] >= 0)
			close(s->metrics_stop[i]);
	s->metrics_fd = s->metrics_stop[0] = s->metrics_stop[1] = -1;
}
