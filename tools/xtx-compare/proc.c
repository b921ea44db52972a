/* SPDX-License-Identifier: BSD-3-Clause */
/* proc.c - child processes for xtx-compare: start one (optionally inside a network
 * namespace through `ip netns exec`), wait for it with a deadline, stop it, run a short
 * command and collect its output. Every child is remembered until reaped, so an exit on
 * error or signal can stop what is still running (kill_all_children, by pid only).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"

#define MAX_CHILDREN	16

static pid_t live[MAX_CHILDREN];

static void remember(pid_t pid)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (!live[i]) {
			live[i] = pid;
			return;
		}
}

static void forget(pid_t pid)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (live[i] == pid)
			live[i] = 0;
}

void msleep(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR && !g_stop)
		;
}

/* In the child: argv with "ip netns exec NS" in front when netns is set. */
static void exec_in(const char *netns, char *const argv[])
{
	if (netns && *netns) {
		size_t n = 0;
		char **v;

		while (argv[n])
			n++;
		v = calloc(n + 5, sizeof(*v));
		if (!v)
			_exit(127);
		v[0] = (char *)"ip";
		v[1] = (char *)"netns";
		v[2] = (char *)"exec";
		v[3] = (char *)netns;
		memcpy(v + 4, argv, n * sizeof(*v));
		execvp("ip", v);
		fprintf(stderr, PROG ": cannot run 'ip' (iproute2): %s\n", strerror(errno));
		_exit(127);
	}
	execvp(argv[0], argv);
	fprintf(stderr, PROG ": cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static void redirect(int fd, const char *path, int flags)
{
	int f = open(path ? path : "/dev/null", flags, 0644);

	if (f < 0)
		_exit(126);
	dup2(f, fd);
	close(f);
}

int proc_spawn(struct child *c, const char *netns, char *const argv[], const char *out,
	       const char *err)
{
	pid_t pid;

	c->pid = 0;
	snprintf(c->out, sizeof(c->out), "%s", out ? out : "");
	snprintf(c->err, sizeof(c->err), "%s", err ? err : "");
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Default dispositions: the parent's handlers must not run here. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		redirect(STDIN_FILENO, NULL, O_RDONLY);
		redirect(STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC);
		redirect(STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC);
		exec_in(netns, argv);
	}
	c->pid = pid;
	remember(pid);
	return 0;
}

/* Wait until the child exits (0, *status set), the timeout passes (-ETIMEDOUT) or a stop
 * is requested (-EINTR). A negative timeout waits for as long as it takes. */
int proc_wait(struct child *c, double timeout_s, int *status)
{
	double end = mono_s() + timeout_s;

	if (!c->pid)
		return -ECHILD;
	for (;;) {
		int st;
		pid_t r = waitpid(c->pid, &st, WNOHANG);

		if (r == c->pid) {
			forget(c->pid);
			c->pid = 0;
			if (status)
				*status = st;
			return 0;
		}
		if (r < 0 && errno != EINTR) {
			forget(c->pid);
			c->pid = 0;
			return -errno;
		}
		if (g_stop)
			return -EINTR;
		if (timeout_s >= 0 && mono_s() >= end)
			return -ETIMEDOUT;
		msleep(10);
	}
}

/* Send sig, wait up to grace_s, then SIGKILL and reap. */
void proc_stop(struct child *c, int sig, double grace_s)
{
	double end;

	if (!c->pid)
		return;
	kill(c->pid, sig);
	kill(c->pid, SIGCONT);	/* in case it is stopped (proc_pause) */
	end = mono_s() + grace_s;
	while (mono_s() < end) {
		if (waitpid(c->pid, NULL, WNOHANG) == c->pid) {
			forget(c->pid);
			c->pid = 0;
			return;
		}
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	forget(c->pid);
	c->pid = 0;
}

int proc_await_file(struct child *c, const char *path, double timeout_s, int *status)
{
	double end = mono_s() + timeout_s;
	struct stat st;

	while (stat(path, &st)) {
		if (proc_wait(c, 0, status) == 0)
			return 1;
		if (g_stop)
			return -EINTR;
		if (mono_s() > end)
			return -ETIMEDOUT;
		msleep(20);
	}
	return 0;
}

/* SIGSTOP the child and wait (up to timeout_s) until it is stopped. Returns 0 when it
 * is stopped (or did not stop in time), 1 if it had exited: then it is reaped, *status
 * set and c->pid 0. */
int proc_pause(struct child *c, double timeout_s, int *status)
{
	double end = mono_s() + timeout_s;

	if (!c->pid)
		return 1;
	kill(c->pid, SIGSTOP);
	while (mono_s() < end) {
		int st;
		pid_t r = waitpid(c->pid, &st, WNOHANG | WUNTRACED);

		if (r == c->pid && WIFSTOPPED(st))
			return 0;
		if (r == c->pid) {
			forget(c->pid);
			c->pid = 0;
			if (status)
				*status = st;
			return 1;
		}
		struct timespec ts = { 0, 500000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

void kill_all_children(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (live[i]) {
			struct child c = { .pid = live[i] };

			proc_stop(&c, SIGTERM, 3);
			live[i] = 0;
		}
}

/* Run argv (in netns if set) to completion, stdout and stderr together into out (cut to
 * outlen, NUL-terminated). Returns the exit status (0..255), or -errno / -ETIMEDOUT
 * (the command is then killed). */
int proc_run(const char *netns, char *const argv[], double timeout_s, char *out,
	     size_t outlen)
{
	int fds[2], st = 0;
	size_t n = 0;
	double end = mono_s() + timeout_s;
	pid_t pid;
	bool eof = false;

	if (out && outlen)
		out[0] = 0;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		redirect(STDIN_FILENO, NULL, O_RDONLY);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		exec_in(netns, argv);
	}
	remember(pid);
	close(fds[1]);
	while (!eof) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		double left = end - mono_s();
		char buf[4096];
		ssize_t r;

		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		r = read(fds[0], buf, sizeof(buf));
		if (r <= 0) {
			eof = r == 0 || errno != EINTR;
			continue;
		}
		if (out && n + 1 < outlen) {
			size_t k = (size_t)r < outlen - 1 - n ? (size_t)r : outlen - 1 - n;

			memcpy(out + n, buf, k);
			n += k;
			out[n] = 0;
		}
	}
	close(fds[0]);
	if (!eof) {
		struct child c = { .pid = pid };

		proc_stop(&c, SIGKILL, 1);
		return -ETIMEDOUT;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	forget(pid);
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return -ECHILD;
}

/* The file's contents, NUL-terminated (at most max bytes), or NULL with errno. */
char *read_file(const char *path, size_t max)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	n = fread(buf, 1, max, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}
