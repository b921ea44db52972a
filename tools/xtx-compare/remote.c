/* SPDX-License-Identifier: BSD-3-Clause */
/* remote.c - the sink control channel, for a receiver on another host.
 *
 * On the receiver:  xtx-compare serve --dev IF [--netns NS] --listen ADDR:PORT
 * On the sender:    xtx-compare --dev IF ... --sink HOST:PORT
 *
 * The sender connects only to a HOST whose every address passes the destination guard
 * (dstguard.h, with the --allow-dst / --allow-any-dst given) or is loopback; a UNIX
 * socket path is always taken.
 *
 * One TCP connection per comparison; the server serves one controller at a time. Text
 * lines, '\n'-terminated:
 *
 *   server: XTX-SINK 1 DEV                       greeting
 *   client: START LO HI                          count UDP ports LO..HI
 *   server: READY | ERROR message                xtx-sink attached (or why not)
 *   client: STOP
 *   server: RESULT N, then N bytes of JSON        xtx-sink's summary (--json)
 *         | ERROR message
 *   client: BYE                                  (or just close)
 *
 * The server stops a sink by itself when the controller goes away or after 3600 s, so a
 * lost controller cannot leave the XDP program attached. ADDR:PORT may be a path: a UNIX
 * socket, owner-only (0600), reached from the sending host through ssh -L, which then
 * authenticates and encrypts; the way to run it. On a TCP port anyone who can reach it
 * can start and stop a sink on IF (nothing else; but a sink drops the matched ports):
 * a management address only (serve warns).
 * One-way delay is not reported for a remote sink (two hosts, two clocks).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"

#define GREETING	"XTX-SINK 1"
#define SESSION_MAX_S	3600
#define LINE_MAX_LEN	512

/* Read one line (without '\n') within timeout_s. Returns its length, or -1 (closed,
 * error, timeout or stop request). */
static int read_line(int fd, char *buf, size_t len, double timeout_s)
{
	size_t n = 0;
	double end = mono_s() + timeout_s;

	while (n + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = end - mono_s();
		char c;
		ssize_t r;

		if (left <= 0 || g_stop)
			return -1;
		if (poll(&p, 1, left > 0.2 ? 200 : (int)(left * 1000) + 1) <= 0)
			continue;
		r = recv(fd, &c, 1, 0);
		if (r <= 0)
			return -1;
		if (c == '\n') {
			buf[n] = 0;
			return (int)n;
		}
		if (c != '\r')
			buf[n++] = c;
	}
	return -1;
}

static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t r = send(fd, p, len, MSG_NOSIGNAL);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int send_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int send_line(int fd, const char *fmt, ...)
{
	char buf[LINE_MAX_LEN];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	return send_all(fd, buf, (size_t)n);
}

/* A path: the control channel on a UNIX socket, owner-only (0600, made under umask 077),
 * for this host or, from another host, through ssh -L (ssh then authenticates). A stale
 * socket left by a killed server is replaced; a live one is refused. */
static int unix_socket(const char *path, bool listen_, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "socket path '%s' is too long", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (!listen_) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			snprintf(err, errlen, "cannot connect to %s: %s; is 'xtx-compare serve "
				 "--listen %s' running (and, from another host, forwarded with "
				 "ssh -L)?", path, strerror(errno), path);
			close(fd);
			return -1;
		}
		return fd;
	}
	if (!lstat(path, &st)) {
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		bool live = probe >= 0 && !connect(probe, (struct sockaddr *)&sa, sizeof(sa));

		if (probe >= 0)
			close(probe);
		if (!S_ISSOCK(st.st_mode) || live) {
			snprintf(err, errlen, "%s exists and is %s", path, S_ISSOCK(st.st_mode) ?
				 "another server's live socket" : "not a socket");
			close(fd);
			return -1;
		}
		unlink(path);	/* a stale socket of a killed server */
	}
	mode_t old = umask(077);
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));

	umask(old);
	if (rc || chmod(path, 0600) || listen(fd, 1)) {
		snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether the controller may connect to every address of res: loopback, or what g
 * allows (the senders' destination guard; a control connection carries no load, but
 * an address outside the lab's ranges is most likely a typo). Else -EACCES with err
 * (not -EPERM: that is -1, tcp_socket()'s other failure). */
static int guard_all(const struct addrinfo *res, const struct dstguard *g, char *err,
		     size_t errlen)
{
	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		const struct sockaddr_in *s4 = (const void *)ai->ai_addr;
		const struct sockaddr_in6 *s6 = (const void *)ai->ai_addr;
		/* another family (none comes for TCP) is refused by dstguard_check() */
		const void *a = ai->ai_family == AF_INET6 ? (const void *)&s6->sin6_addr :
							      (const void *)&s4->sin_addr;
		char msg[512];

		if (dstguard_is_loopback(ai->ai_family, a))
			continue;
		if (dstguard_check(g, ai->ai_family, a, "connect the control channel to", msg,
				   sizeof(msg))) {
			snprintf(err, errlen, "%s (the control channel also takes loopback, "
				 "127.0.0.0/8 and ::1, or a UNIX socket path)", msg);
			return -EACCES;
		}
	}
	return 0;
}

/* HOST:PORT -> a connected or listening TCP socket; a path -> a UNIX socket. A client
 * (g != NULL) connects only if guard_all() lets it, to any address of HOST. */
static int tcp_socket(const char *hostport, bool listen_, const struct dstguard *g,
		      char *err, size_t errlen)
{
	char host[256], *colon;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int fd = -1, rc;

	if (hostport[0] == '/')
		return unix_socket(hostport, listen_, err, errlen);
	snprintf(host, sizeof(host), "%s", hostport);
	colon = strrchr(host, ':');
	if (!colon || colon == host || !colon[1]) {
		snprintf(err, errlen, "'%s' is not HOST:PORT", hostport);
		return -1;
	}
	*colon = 0;
	if (host[0] == '[' && colon[-1] == ']') {	/* [v6]:port */
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	if (listen_)
		hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve '%s': %s", hostport, gai_strerror(rc));
		return -1;
	}
	if (!listen_ && (rc = guard_all(res, g, err, errlen))) {
		freeaddrinfo(res);
		return rc;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int one = 1;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (listen_) {
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 1))
				break;
		} else if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			break;
		}
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		snprintf(err, errlen, "cannot %s %s: %s", listen_ ? "listen on" : "connect to",
			 hostport, strerror(errno));
	freeaddrinfo(res);
	return fd;
}

/* --- client (the sending host) --------------------------------------------------------- */

int remote_connect(const char *hostport, const struct dstguard *g, char *err,
		   size_t errlen)
{
	char line[LINE_MAX_LEN];
	int fd = tcp_socket(hostport, false, g, err, errlen);

	if (fd < 0)
		return fd == -EACCES ? -EACCES : -1;
	if (read_line(fd, line, sizeof(line), 10) < 0 || strncmp(line, GREETING " ",
								  strlen(GREETING) + 1)) {
		snprintf(err, errlen, "no '" GREETING "' greeting from %s; is 'xtx-compare serve' "
			 "listening there?", hostport);
		close(fd);
		return -1;
	}
	return fd;
}

int remote_start(int fd, unsigned lo, unsigned hi, char *err, size_t errlen)
{
	char line[LINE_MAX_LEN];

	if (send_line(fd, "START %u %u", lo, hi) || read_line(fd, line, sizeof(line), 30) < 0) {
		snprintf(err, errlen, "the control connection failed");
		return -1;
	}
	if (strcmp(line, "READY")) {
		snprintf(err, errlen, "%s", !strncmp(line, "ERROR ", 6) ? line + 6 : line);
		return -1;
	}
	return 0;
}

char *remote_stop(int fd, char *err, size_t errlen)
{
	char line[LINE_MAX_LEN], *buf;
	unsigned long n;
	size_t got = 0;
	double end = mono_s() + 30;

	if (send_line(fd, "STOP") || read_line(fd, line, sizeof(line), 30) < 0) {
		snprintf(err, errlen, "the control connection failed");
		return NULL;
	}
	if (strncmp(line, "RESULT ", 7) || (n = strtoul(line + 7, NULL, 10)) == 0 ||
	    n > 64ul << 20) {
		snprintf(err, errlen, "%s", !strncmp(line, "ERROR ", 6) ? line + 6 : line);
		return NULL;
	}
	buf = malloc(n + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	while (got < n && mono_s() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 200) <= 0)
			continue;
		r = recv(fd, buf + got, n - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got < n) {
		snprintf(err, errlen, "the sink's summary was cut short");
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	return buf;
}

void remote_bye(int fd)
{
	send_line(fd, "BYE");
	close(fd);
}

/* --- server (the receiving host) -------------------------------------------------------- */

struct server {
	const struct opts *o;
	char bindir[PATH_MAX], tmp[128];
	struct child sink;
	double started;
};

static int srv_start(struct server *s, int fd, unsigned lo, unsigned hi)
{
	char ready[256], out[256], err[256];
	struct argv_buf a = { .n = 0 };

	snprintf(ready, sizeof(ready), "%s/ready", s->tmp);
	snprintf(out, sizeof(out), "%s/sink.json", s->tmp);
	snprintf(err, sizeof(err), "%s/sink.err", s->tmp);
	unlink(ready);
	av_sink(&a, s->bindir, s->o->netns, s->o->dev, lo, hi);
	av_add(&a, "--json");
	av_opt(&a, "--ready-file", "%s", ready);
	if (proc_spawn(&s->sink, NULL, a.v, out, err))
		return send_line(fd, "ERROR cannot start xtx-sink: %s", strerror(errno));
	if (proc_await_file(&s->sink, ready, 15, NULL)) {
		char *t = read_file(err, 400);

		proc_stop(&s->sink, SIGINT, 5);
		for (char *p = t; p && *p; p++)
			if (*p == '\n')
				*p = ' ';
		send_line(fd, "ERROR xtx-sink did not attach: %s", t ? t : "");
		free(t);
		return -1;
	}
	s->started = mono_s();
	fprintf(stderr, PROG " serve: counting ports %u-%u on %s\n", lo, hi, s->o->dev);
	return send_line(fd, "READY");
}

/* Stop the sink; if fd >= 0 send the result. */
static void srv_stop(struct server *s, int fd)
{
	char path[256];
	char *t;
	int status = 0;

	if (!s->sink.pid) {
		if (fd >= 0)
			send_line(fd, "ERROR no sink running");
		return;
	}
	kill(s->sink.pid, SIGINT);
	if (proc_wait(&s->sink, 15, &status)) {
		proc_stop(&s->sink, SIGKILL, 1);
		status = -1;
	}
	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "%s/sink.json", s->tmp);
	t = status == 0 ? read_file(path, 64 << 20) : NULL;
	if (!t || !*t) {
		send_line(fd, "ERROR xtx-sink failed (exit status %d)", status);
		free(t);
		return;
	}
	if (!send_line(fd, "RESULT %zu", strlen(t)))
		send_all(fd, t, strlen(t));
	free(t);
}

static void serve_client(struct server *s, int fd)
{
	char line[LINE_MAX_LEN];

	send_line(fd, GREETING " %s", s->o->dev);
	for (;;) {
		unsigned lo, hi;
		int n = read_line(fd, line, sizeof(line), 5);

		if (n < 0) {
			/* quiet: keep waiting unless closed, stopped, or the session is too long */
			struct pollfd p = { .fd = fd, .events = POLLIN };
			char c;

			if (g_stop)
				break;
			if (s->sink.pid && mono_s() - s->started > SESSION_MAX_S) {
				fprintf(stderr, PROG " serve: sink running for %d s; stopping it\n",
					SESSION_MAX_S);
				srv_stop(s, -1);
			}
			if (poll(&p, 1, 0) > 0 && recv(fd, &c, 1, MSG_PEEK) <= 0)
				break;	/* closed */
			continue;
		}
		if (sscanf(line, "START %u %u", &lo, &hi) == 2) {
			if (s->sink.pid)
				srv_stop(s, -1);
			if (lo < 1 || hi > 65535 || lo > hi) {
				send_line(fd, "ERROR bad port range %u-%u", lo, hi);
				continue;
			}
			srv_start(s, fd, lo, hi);
		} else if (!strcmp(line, "STOP")) {
			srv_stop(s, fd);
		} else if (!strcmp(line, "BYE")) {
			break;
		} else {
			send_line(fd, "ERROR unknown command (START LO HI, STOP, BYE)");
		}
	}
	if (s->sink.pid)
		srv_stop(s, -1);
}

int serve_main(const struct opts *o)
{
	struct server s = { .o = o };
	char self[PATH_MAX], err[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int lfd;

	if (geteuid() != 0) {
		fprintf(stderr, PROG " serve: must run as root (xtx-sink attaches XDP)\n");
		return 1;
	}
	if (n <= 0) {
		fprintf(stderr, PROG " serve: cannot find my own path\n");
		return 1;
	}
	self[n] = 0;
	*strrchr(self, '/') = 0;
	snprintf(s.bindir, sizeof(s.bindir), "%s", self);
	snprintf(s.tmp, sizeof(s.tmp), "/tmp/xtx-compare-serve.XXXXXX");
	if (!mkdtemp(s.tmp)) {
		fprintf(stderr, PROG " serve: cannot make a directory in /tmp: %s\n",
			strerror(errno));
		return 1;
	}
	lfd = tcp_socket(o->listen, true, NULL, err, sizeof(err));
	if (lfd < 0) {
		fprintf(stderr, PROG " serve: %s\n", err);
		rmdir(s.tmp);
		return 1;
	}
	fprintf(stderr, PROG " serve: listening on %s for a controller; counting on %s%s%s\n",
		o->listen, o->dev, o->netns ? " in " : "", o->netns ? o->netns : "");
	if (o->listen[0] != '/')
		fprintf(stderr, PROG " serve: warning: anyone who can reach %s over TCP can start "
			"and stop a sink on %s; prefer a UNIX socket (--listen /run/xtx-compare.sock,"
			" owner-only) reached with ssh -L\n", o->listen, o->dev);
	while (!g_stop) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int cfd;

		if (poll(&p, 1, 200) <= 0)
			continue;
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		fprintf(stderr, PROG " serve: controller connected\n");
		serve_client(&s, cfd);
		close(cfd);
		fprintf(stderr, PROG " serve: controller gone\n");
	}
	close(lfd);
	if (o->listen[0] == '/')
		unlink(o->listen);
	kill_all_children();
	{
		char f[256];

		snprintf(f, sizeof(f), "%s/ready", s.tmp);
		unlink(f);
		snprintf(f, sizeof(f), "%s/sink.json", s.tmp);
		unlink(f);
		snprintf(f, sizeof(f), "%s/sink.err", s.tmp);
		unlink(f);
	}
	rmdir(s.tmp);
	return 0;
}
