/* SPDX-License-Identifier: BSD-3-Clause */
/* test_engine.c - the engine end to end on an interface the calling script created (run
 * by tests/net/engine.sh inside the sender's namespace).
 *
 *   test_engine IF COUNT PRODUCERS QUEUES
 *
 * Opens the engine on IF, sends exactly COUNT UDP frames from PRODUCERS threads with
 * flow hashes spread over QUEUES queues, closes, and checks: every frame offered was
 * sent and completed, no drop, producer counters add up, the frame accounting adds up to
 * the UMEM while running and after the last producer closed, bad descriptors are refused
 * and counted, and an idle engine sleeps (the process's CPU time over 2 s idle is under 1%
 * of a core), and the engine's NUMA node is the one sysfs gives for IF (-1 for a veth).
 * While the producers send, another thread changes the class tree, 1000 times or more
 * (xtx_engine__classes_change(): rate and prio alternating; the count still exact, the
 * class's counter never back, RSS flat), after a change that must be refused, and asks
 * the control socket (xtx_engine__control_listen()) to show and to change the tree
 * meanwhile; the socket is gone after stop; a stopped engine refuses a change.
 * Prints one JSON line with the figures for the script, which compares them with what
 * the receiver counted.
 * Before that, engines that must be refused or must show their settings:
 *   - deq_rtprio out of range, with busy_poll, and on every CPU the process may use;
 *   - cpus naming a CPU this process may not run on (under taskset -c 0: CPU 1): refused,
 *     the message names the CPU; a CPU it may run on: the dequeuer thread is pinned there;
 *   - busy_poll and sock_busy_poll: every AF_XDP socket of the process reads back
 *     SO_PREFER_BUSY_POLL 1 and SO_BUSY_POLL 20 (SO_BUSY_POLL_BUDGET 64 too, on a kernel
 *     that can read it back); idle, the dequeuers spin with busy_poll (over 150 ms of CPU
 *     in 300 ms) and sleep with sock_busy_poll (under 50 ms);
 *   - RLIMIT_MEMLOCK below the UMEM without CAP_IPC_LOCK and CAP_SYS_RESOURCE (a child
 *     process): open fails with ENOBUFS and a message naming RLIMIT_MEMLOCK and why it
 *     could not be raised.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xtx/xtx.h>
#include "check.h"
#include "netns.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif

static struct xtx_engine *eng;
static uint64_t per_prod;
static _Atomic int producers_left;	/* producer threads not yet done */
static _Atomic unsigned rebuilds_under_load;	/* changer: trees rebuilt while producers sent */
#define REBUILDS_UNDER_LOAD 4	/* producers go slow until that many (test_engine) */

static void build_frame(uint8_t *f, unsigned len, uint16_t dport)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 2 }, src[6] = { 0x02, 0, 0, 0, 0, 1 };
	uint16_t ulen = (uint16_t)(len - 34), tot = (uint16_t)(len - 14);
	uint32_t sum = 0;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)(tot >> 8);
	f[17] = (uint8_t)tot;
	f[22] = 64;
	f[23] = 17;
	f[26] = 198; f[27] = 18; f[28] = 0; f[29] = 1;
	f[30] = 198; f[31] = 18; f[32] = 0; f[33] = 2;
	for (int i = 14; i < 34; i += 2)
		sum += (uint32_t)(f[i] << 8 | f[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	f[24] = (uint8_t)(~sum >> 8);
	f[25] = (uint8_t)~sum;
	f[34] = 0x23; f[35] = 0x28;			/* sport 9000 */
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	f[38] = (uint8_t)(ulen >> 8);
	f[39] = (uint8_t)ulen;				/* UDP checksum 0: none (IPv4) */
}

static void *producer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	struct xtx_producer *p = xtx_producer__open(eng);
	uint64_t left = per_prod, addrs[32];
	struct xtx_desc d[32];
	unsigned have = 0;

	if (!CHECK(p != NULL))
		return NULL;
	while (left) {
		unsigned want = left < 32 ? (unsigned)left : 32, n, k;

		/* Odd frames to 2: while the changer has it in the tree (its index
		 * looked up as it comes and goes), else to 1: (index 0). */
		int two = xtx_engine__class_index(eng, XTX_HANDLE(2, 0));

		n = have + xtx_producer__get_frames(p, addrs + have, want - have);
		have = 0;
		for (unsigned i = 0; i < n; i++) {
			uint16_t port = (uint16_t)(9000 + id * 16 + i % 16);

			build_frame(xtx_engine__frame(eng, addrs[i]), 64, port);
			d[i] = (struct xtx_desc){ .addr = addrs[i], .len = 64,
						  .cls = (uint16_t)(i & 1 && two > 0 ? two : 0),
						  .hash = port * 2654435761u };
		}
		k = xtx_producer__send_burst(p, d, n);
		left -= k;
		/* Keep what the stage did not take for the next round. */
		for (unsigned i = k; i < n; i++)
			addrs[have++] = addrs[i];
		if (k < n || !n)
			usleep(50);
		/* seq_cst load, pairs with the changer's increment: slow until some trees
		 * were rebuilt while this producer sends (the sanitizers' builds are slow) */
		if (atomic_load(&rebuilds_under_load) < REBUILDS_UNDER_LOAD)
			usleep(left < per_prod / 2 ? 5000 : 1000);
	}
	xtx_producer__close(p);
	/* Seq_cst (the default): a counter the changer thread polls; no data rides on it. */
	atomic_fetch_sub(&producers_left, 1);
	return NULL;
}

/* One class, as the engine's own default (1:, no practical limit), at rate r and prio
 * p; with `extra`, a second root class 2: (a tree the engine rebuilds for). */
static struct xtx_sched_config *one_class(uint64_t r, uint8_t p, int extra)
{
	struct xtx_sched_config *c = xtx_sched_config__new();
	struct xtx_class_opts o = { .sz = sizeof(o), .handle = XTX_HANDLE(1, 0),
				    .parent = XTX_HANDLE_ROOT, .rate = r, .prio = p,
				    .limit = 65536 };

	CHECK(c && !xtx_sched_config__add_class(c, &o));
	o.handle = XTX_HANDLE(2, 0);
	CHECK(!extra || !xtx_sched_config__add_class(c, &o));
	return c;
}

static long rss_kb(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* A control socket request (xtx_engine__control_listen()); its answer's first line must
 * be "ok". */
static char ctl_path[108];

static void ctl_ask(const char *req)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[4096];
	ssize_t k, got = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", ctl_path);
	if (!CHECK(fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	CHECK(send(fd, req, strlen(req), 0) == (ssize_t)strlen(req));
	while ((k = recv(fd, buf + got, sizeof(buf) - 1 - (size_t)got, 0)) > 0 &&
	       got + k < (ssize_t)sizeof(buf) - 1)
		got += k;
	close(fd);
	buf[got] = '\0';
	if (!CHECK(!strncmp(buf, "ok\n", 3)))
		fprintf(stderr, "control '%s': %.200s\n", req, buf);
}

/* Live changes of the tree in a row (rate and prio alternating), each taken by every
 * queue, from when the producers start until they are done and CHANGES were made; every
 * 25th, from the 6th, adds class 2: or removes it again (a new scheduler per queue, adopted: 2:'s
 * queued frames move to 1:, the default); the last leaves it out. 1:'s sent count never
 * goes back; refused changes say why; RSS flat over them. */
#define CHANGES 1000
static unsigned changes_under_load, rebuilds;

/* Refused: more classes than the engine has slots for, another overhead. */
static void refused_changes(void)
{
	struct xtx_sched_config *c = xtx_sched_config__new();
	struct xtx_class_opts o = { .sz = sizeof(o), .parent = XTX_HANDLE_ROOT, .rate = 1000 };
	char err[512];

	for (unsigned i = 0; i <= xtx_engine__class_count(eng); i++) {
		o.handle = XTX_HANDLE(1 + i, 0);
		CHECK(!xtx_sched_config__add_class(c, &o));
	}
	CHECK(xtx_engine__classes_change(eng, c, err, sizeof(err)) == -EOPNOTSUPP &&
	      strstr(err, "no class slot left"));
	printf("refused: %s\n", err);
	xtx_sched_config__free(c);
	c = one_class(1000000000000000ull, 0, 0);
	CHECK(!xtx_sched_config__set_overhead(c, 7));
	CHECK(xtx_engine__classes_change(eng, c, err, sizeof(err)) == -EOPNOTSUPP &&
	      strstr(err, "overhead"));
	printf("refused: %s\n", err);
	xtx_sched_config__free(c);
}

static void *changer(void *arg)
{
	struct xtx_class_stats cs;
	uint64_t last = 0;
	char err[512];
	long rss0 = 0;
	int two = 0;
	double change_ms = 0, rebuild_ms = 0;

	(void)arg;
	unsigned i;

	/* seq_cst load, pairs with each producer's fetch_sub */
	for (i = 0; i < CHANGES || atomic_load(&producers_left) || two; i++) {
		struct xtx_sched_config *c;

		if (i % 25 == 5) {
			two = !two;
			rebuilds++;
		}
		c = one_class(i & 1 ? 900000000000000ull : 1000000000000000ull, (uint8_t)(i & 1),
			      two);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int rc = xtx_engine__classes_change(eng, c, err, sizeof(err));
		double ms;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
		if (i % 25 == 5 && ms > rebuild_ms)
			rebuild_ms = ms;
		else if (i % 25 != 5 && ms > change_ms)
			change_ms = ms;

		if (!CHECK(rc == 0))
			fprintf(stderr, "change %u: %d %s\n", i, rc, err);
		xtx_sched_config__free(c);
		if (atomic_load(&producers_left)) {	/* seq_cst, pairs with the fetch_sub */
			changes_under_load++;
			if (i % 25 == 5)	/* seq_cst, pairs with the producers' load */
				atomic_fetch_add(&rebuilds_under_load, 1);
		}
		xtx_engine__class_stats(eng, 0, &cs);
		CHECK(cs.sent_pkts >= last);
		last = cs.sent_pkts;
		CHECK((xtx_engine__class_index(eng, XTX_HANDLE(2, 0)) > 0) == two);
		if (i % 100 == 50)	/* the control thread reads the tree as it changes */
			ctl_ask(i % 200 == 50 ? "class show -s -j\n" : "class change classid 1: "
				"rate 1000000000000000bps limit 65536\n");
		if (i == 9)
			rss0 = rss_kb();	/* after the first few: the lazy pages */
	}
	printf("changes: %u in a row (%u adding or removing 2:), %u while producers sent (%u "
	       "of them adding or removing); the longest %.2f ms (%.2f adding or removing); "
	       "RSS %ld -> %ld kB\n", i, rebuilds, changes_under_load,
	       /* seq_cst load: only this thread writes it (the increment above) */
	       atomic_load(&rebuilds_under_load), change_ms, rebuild_ms, rss0, rss_kb());
	refused_changes();
	CHECK(changes_under_load > 0);
	/* seq_cst load: this thread's own increments */
	CHECK(atomic_load(&rebuilds_under_load) >= REBUILDS_UNDER_LOAD);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	CHECK(rss_kb() - rss0 < 1024);	/* the sanitizers' allocators keep what is freed */
#endif
	return NULL;
}

/* The thread named NAME in this process, or -1. */
static pid_t thread_named(const char *name)
{
	char path[300], comm[32];
	struct dirent *d;
	pid_t tid = -1;
	DIR *dir = opendir("/proc/self/task");

	while (dir && tid < 0 && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			if (!strcmp(comm, name))
				tid = atoi(d->d_name);
		}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return tid;
}

/* cpus naming a CPU this process may not run on is refused, naming it; one it may run on
 * pins the dequeuer there. */
static void check_pinning(const struct xtx_engine_opts *o)
{
	struct xtx_engine_opts po = *o;
	cpu_set_t mask, got;
	char err[512], list[16];
	int off = -1, on = -1;

	if (!CHECK(!sched_getaffinity(0, sizeof(mask), &mask)))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &mask) && on < 0)
			on = c;
		else if (!CPU_ISSET(c, &mask) && off < 0)
			off = c;
	}
	po.queues = 1;
	po.cpus = list;
	snprintf(list, sizeof(list), "%d", off);
	errno = 0;
	struct xtx_engine *x = xtx_engine__open(&po, err, sizeof(err));
	char want[32];

	snprintf(want, sizeof(want), "dequeuer CPU %d ", off);
	CHECK(x == NULL && errno == EINVAL);
	CHECK_STR_CONTAINS(err, want);
	CHECK_STR_CONTAINS(err, "may run only on CPUs");
	printf("pin: cpus %s refused: %s\n", list, err);
	if (x)
		xtx_engine__close(x);

	snprintf(list, sizeof(list), "%d", on);
	x = xtx_engine__open(&po, err, sizeof(err));
	if (!CHECK(x != NULL)) {
		fprintf(stderr, "open with cpus %s: %s\n", list, err);
		return;
	}
	pid_t tid = -1;
	for (int i = 0; i < 1000 && tid < 0; i++) {	/* named once it runs: up to 1 s */
		tid = thread_named("xtx-deq/0");
		if (tid < 0)
			usleep(1000);
	}
	CHECK(tid > 0 && !sched_getaffinity(tid, sizeof(got), &got));
	CHECK_EQ_I64(1, CPU_COUNT(&got));
	CHECK(CPU_ISSET(on, &got));
	printf("pin: cpus %s: dequeuer thread %d on %d CPU(s), CPU %d among them: %s\n", list,
	       (int)tid, CPU_COUNT(&got), on, CPU_ISSET(on, &got) ? "yes" : "no");
	CHECK_EQ_I64(0, xtx_engine__close(x));
}

/* CPU time of this process's dequeuer threads (xtx-deq/N), ns: schedstat's first field. */
static uint64_t deq_cpu_ns(void)
{
	uint64_t sum = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");

	while (dir && (d = readdir(dir))) {
		char path[300], comm[32] = "";
		unsigned long long ns = 0;
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		if (strncmp(comm, "xtx-deq/", 8))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", d->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return sum;
}

/* busy_poll, and sock_busy_poll (spin 0): the options on every AF_XDP socket of the
 * process (the engine's only); with sock_busy_poll the idle dequeuers sleep (under 50 ms
 * of CPU in 300 ms), with busy_poll they spin (over 150 ms). */
static void check_busy_poll(const struct xtx_engine_opts *o, int spin)
{
	struct xtx_engine_opts bo = *o;
	char err[512], path[300];
	unsigned found = 0;
	struct dirent *d;
	uint64_t c0, c1;

	bo.busy_poll = spin;
	bo.sock_busy_poll = !spin;
	struct xtx_engine *x = xtx_engine__open(&bo, err, sizeof(err));

	if (!CHECK(x != NULL)) {
		fprintf(stderr, "open with busy_poll: %s\n", err);
		return;
	}
	DIR *dir = opendir("/proc/self/fd");
	while (dir && (d = readdir(dir))) {
		int fd = atoi(d->d_name), dom = 0, v[3] = { -1, -1, -1 };
		socklen_t len = sizeof(dom);
		static const int opt[3] = { SO_PREFER_BUSY_POLL, SO_BUSY_POLL,
					    SO_BUSY_POLL_BUDGET };

		if (d->d_name[0] == '.' || fd == dirfd(dir) ||
		    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) || dom != AF_XDP)
			continue;
		found++;
		for (int k = 0; k < 3; k++) {
			len = sizeof(v[k]);
			errno = 0;
			if (getsockopt(fd, SOL_SOCKET, opt[k], &v[k], &len))
				v[k] = -errno;
		}
		CHECK_EQ_I64(1, v[0]);
		CHECK_EQ_I64(20, v[1]);
		/* Linux has no getsockopt() for the budget (ENOPROTOOPT, up to 6.18 at
		 * least): read back where the kernel can. Its setsockopt() is checked by
		 * open (a refused one fails it). */
		if (v[2] != -ENOPROTOOPT)
			CHECK_EQ_I64(64, v[2]);
		snprintf(path, sizeof(path), "busy_poll: AF_XDP fd %d: SO_PREFER_BUSY_POLL %d "
			 "SO_BUSY_POLL %d SO_BUSY_POLL_BUDGET %s", fd, v[0], v[1],
			 v[2] == -ENOPROTOOPT ? "(no getsockopt in this kernel)" :
			 v[2] == 64 ? "64" : "wrong");
		puts(path);
	}
	if (dir)
		closedir(dir);
	CHECK_EQ_U64(bo.queues, found);
	c0 = deq_cpu_ns();
	usleep(300 * 1000);
	c1 = deq_cpu_ns();
	printf("%s: the idle dequeuers used %.1f ms of CPU in 300 ms\n", spin ? "busy_poll" :
	       "sock_busy_poll", (double)(c1 - c0) / 1e6);
	if (spin)
		CHECK(c1 - c0 > 150ull * 1000 * 1000);
	else
		CHECK(c1 - c0 < 50ull * 1000 * 1000);
	CHECK_EQ_I64(0, xtx_engine__close(x));
}

/* In a child without CAP_IPC_LOCK and CAP_SYS_RESOURCE and a 1 MiB RLIMIT_MEMLOCK: the
 * UMEM cannot be registered, and the message says why. Before any thread exists. */
static void check_memlock(const struct xtx_engine_opts *o)
{
	int st = 0;

	fflush(stdout);		/* or the child prints the parent's buffered lines again */
	pid_t pid = fork();

	if (pid == 0) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct cd[2];
		struct rlimit small = { 1 << 20, 1 << 20 };
		uint32_t drop = 1u << CAP_IPC_LOCK | 1u << CAP_SYS_RESOURCE;
		char err[512];

		if (setrlimit(RLIMIT_MEMLOCK, &small) || syscall(SYS_capget, &h, cd))
			_exit(2);
		cd[0].effective &= ~drop;
		cd[0].permitted &= ~drop;
		cd[0].inheritable &= ~drop;
		if (syscall(SYS_capset, &h, cd))
			_exit(2);
		errno = 0;
		struct xtx_engine *x = xtx_engine__open(o, err, sizeof(err));
		int ok = !x && errno == ENOBUFS && strstr(err, "RLIMIT_MEMLOCK (1024 KiB") &&
			 strstr(err, "raising it to unlimited failed: Operation not permitted");

		printf("memlock: %s\n", x ? "opened" : err);
		fflush(stdout);
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ_I64(0, WEXITSTATUS(st));
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	char err[512];
	pthread_t th[65];

	if (argc != 5) {
		fprintf(stderr, "usage: test_engine IF COUNT PRODUCERS QUEUES\n");
		return 2;
	}
	if (netns_require_private("test_engine"))
		return 1;
	uint64_t count = strtoull(argv[2], NULL, 10);
	unsigned np = (unsigned)atoi(argv[3]), nq = (unsigned)atoi(argv[4]);
	struct xtx_engine_opts o = { .sz = sizeof(o), .ifname = argv[1], .queues = nq,
				     .mode = XTX_MODE_COPY };

	per_prod = count / np;
	count = per_prod * np;

	/* Refused at open: a real-time priority out of range, and one with busy_poll. */
	struct xtx_engine_opts rt = o;

	rt.deq_rtprio = 100;
	errno = 0;
	CHECK(xtx_engine__open(&rt, err, sizeof(err)) == NULL && errno == EINVAL &&
	      strstr(err, "deq_rtprio"));
	rt.deq_rtprio = 1;
	rt.busy_poll = 1;
	errno = 0;
	CHECK(xtx_engine__open(&rt, err, sizeof(err)) == NULL && errno == EINVAL &&
	      strstr(err, "busy_poll"));
	/* Real-time dequeuers on every CPU this process may use. */
	{
		cpu_set_t mask;
		char all[64] = "";

		if (!sched_getaffinity(0, sizeof(mask), &mask) && CPU_COUNT(&mask) <= (int)nq) {
			for (int c = 0, n = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &mask))
					snprintf(all + strlen(all), sizeof(all) - strlen(all),
						 n++ ? ",%d" : "%d", c);
			rt = o;
			rt.deq_rtprio = 1;
			rt.cpus = all;
			errno = 0;
			struct xtx_engine *x = xtx_engine__open(&rt, err, sizeof(err));

			CHECK(x == NULL && errno == EINVAL && strstr(err, "could hold all"));
			if (x)
				xtx_engine__close(x);
			printf("deq_rtprio, %u queues pinned to CPUs %s: %s\n", nq, all, err);
		} else {
			printf("deq_rtprio on every CPU: not checked, %u queue(s) cannot cover "
			       "this process's %d CPUs\n", nq, CPU_COUNT(&mask));
		}
	}
	check_memlock(&o);
	check_pinning(&o);
	check_busy_poll(&o, 1);
	check_busy_poll(&o, 0);

	eng = xtx_engine__open(&o, err, sizeof(err));
	if (!eng) {
		fprintf(stderr, "open: %s\n", err);
		return 1;
	}
	/* Placement: the node sysfs gives for IF's device (a veth has none: -1). */
	{
		char path[300];
		int node = -1;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/net/%s/device/numa_node", argv[1]);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%d", &node) != 1)
				node = -2;
			fclose(f);
		}
		CHECK_EQ_I64(node, xtx_engine__numa_node(eng));
		printf("numa: %s on node %d\n", argv[1], xtx_engine__numa_node(eng));
	}

	/* Bad descriptors: a frame not got, a frame got but too long, a misaligned one. */
	struct xtx_producer *bad = xtx_producer__open(eng);
	uint64_t a;
	CHECK_EQ_U64(1, xtx_producer__get_frames(bad, &a, 1));
	struct xtx_desc bd[3] = {
		{ .addr = a + 4096 * 2, .len = 64 },	/* someone else's frame */
		{ .addr = a, .len = 60000 },		/* longer than the frame */
		{ .addr = a + 1, .len = 64 },		/* not a packet start */
	};
	for (int i = 0; i < 3; i++)
		CHECK_EQ_U64(0, xtx_producer__send_burst(bad, &bd[i], 1));
	struct xtx_producer_stats ps;
	xtx_producer__stats(bad, &ps);
	CHECK_EQ_U64(3, ps.bad_desc);
	xtx_producer__put_frames(bad, &a, 1);
	xtx_producer__close(bad);

	snprintf(ctl_path, sizeof(ctl_path), "/tmp/xtx-test-engine-%d.ctl", (int)getpid());
	if (!CHECK(xtx_engine__control_listen(eng, ctl_path, err, sizeof(err)) == 0))
		fprintf(stderr, "control_listen: %s\n", err);
	CHECK(!strcmp(xtx_engine__control_path(eng), ctl_path));
	atomic_store(&producers_left, (int)np);	/* seq_cst, before the threads start */
	for (unsigned i = 0; i < np; i++)
		pthread_create(&th[i], NULL, producer, (void *)(uintptr_t)i);
	pthread_create(&th[np], NULL, changer, NULL);
	for (unsigned i = 0; i <= np; i++)
		pthread_join(th[i], NULL);

	/* Wait for the dequeuers to send and reap everything (bounded). */
	struct xtx_frame_count fc;
	for (int i = 0; i < 2000; i++) {
		xtx_engine__frames(eng, &fc);
		if (fc.pool + fc.dequeuer == fc.total)
			break;
		usleep(1000);
	}
	usleep(20 * 1000);	/* one class-counter publication period */
	xtx_engine__frames(eng, &fc);
	CHECK_EQ_U64(fc.total, fc.pool + fc.cached + fc.app + fc.stage + fc.sched + fc.tx +
		     fc.dequeuer);
	CHECK_EQ_U64(0, fc.stage + fc.sched + fc.tx + fc.app);

	/* Idle: the dequeuers sleep. CPU time of the whole process over 2 s. */
	double c0 = cpu_s();
	usleep(2000 * 1000);
	double idle_cpu = cpu_s() - c0;
	CHECK(idle_cpu < 0.02);	/* under 1% of a core over the 2 s */

	uint64_t sent = 0, completed = 0, drops = 0, kicks = 0, moved = 0;
	for (unsigned q = 0; q < nq; q++) {
		struct xtx_queue_stats qs;
		xtx_engine__queue_stats(eng, q, &qs);
		sent += qs.sent_pkts;
		completed += qs.completed;
		kicks += qs.kicks;
		for (int r = 0; r < XTX_DROP__MAX; r++)
			drops += qs.drops[r];
		moved += qs.moved;
		if (nq > 1)
			CHECK(qs.sent_pkts > 0);	/* flows spread over the queues */
	}
	struct xtx_class_stats cs;
	xtx_engine__class_stats(eng, 0, &cs);
	xtx_engine__producer_totals(eng, &ps);
	CHECK_EQ_U64(count, sent);
	CHECK_EQ_U64(count, completed);
	CHECK_EQ_U64(0, drops);
	/* 1: sent the even frames at least, and what 2: had when it was removed (moved);
	 * what 2: sent ended with it. */
	CHECK(cs.sent_pkts >= count / 2 && cs.sent_pkts <= count);
	CHECK(moved <= count);
	printf("classes: 1: sent %lu of %lu; %lu frames of 2: moved to 1: at its removals\n",
	       (unsigned long)cs.sent_pkts, (unsigned long)count, (unsigned long)moved);
	CHECK_EQ_U64(count, ps.sent);
	CHECK_EQ_U64(count * 64, ps.sent_bytes);	/* every frame 64 bytes */
	CHECK_EQ_U64(3, ps.bad_desc);
	printf("{\"sent\": %lu, \"completed\": %lu, \"drops\": %lu, \"kicks\": %lu, "
	       "\"idle_cpu_s\": %.4f, \"mode\": \"%s\"}\n", (unsigned long)sent,
	       (unsigned long)completed, (unsigned long)drops, (unsigned long)kicks, idle_cpu,
	       xtx_engine__mode(eng));
	/* The mode as an enum and its name; no receive side. */
	CHECK(xtx_engine__xdp_mode(eng) == XTX_MODE_COPY ||
	      xtx_engine__xdp_mode(eng) == XTX_MODE_ZEROCOPY);
	CHECK(!strcmp(xtx_engine__mode(eng), xtx_xdp_mode__str(xtx_engine__xdp_mode(eng))));
	CHECK(xtx_engine__rx_path_kind(eng) == XTX_RX_PATH_NONE);
	CHECK(xtx_engine__rx_path(eng) == NULL);
	CHECK_STR_CONTAINS(xtx_xdp_mode__str(XTX_MODE_AUTO), "auto");
	CHECK_STR_CONTAINS(xtx_rx_path__str(XTX_RX_PATH_SHARED), "shared UMEM");
	CHECK_STR_CONTAINS(xtx_rx_path__str(XTX_RX_PATH_COPY), "copy");
	CHECK(xtx_xdp_mode__str((enum xtx_xdp_mode)99) == NULL);
	CHECK(xtx_rx_path__str((enum xtx_rx_path)-1) == NULL);
	ctl_ask("stats -j\n");
	/* A peer that connects and never sends: stop still ends (the connection's deadline;
	 * a hang here is engine.sh's timeout). */
	int idle = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un ia = { .sun_family = AF_UNIX };

	snprintf(ia.sun_path, sizeof(ia.sun_path), "%s", ctl_path);
	CHECK(idle >= 0 && !connect(idle, (struct sockaddr *)&ia, sizeof(ia)));
	CHECK_EQ_I64(0, xtx_engine__stop(eng));
	if (idle >= 0)
		close(idle);
	CHECK(access(ctl_path, F_OK) && errno == ENOENT);	/* stop removed it */
	{
		struct xtx_sched_config *c = one_class(1000000000000000ull, 0, 0);

		CHECK(xtx_engine__classes_change(eng, c, err, sizeof(err)) == -ESRCH &&
		      strstr(err, "stopped"));
		xtx_sched_config__free(c);
	}
	CHECK_EQ_I64(0, xtx_engine__close(eng));
	return check_summary("test_engine");
}
