/* SPDX-License-Identifier: BSD-3-Clause */
/* test_print.c - libxtx's messages go to the callback set with xtx_set_print(), with
 * their level and text; NULL silences them; the default writes "xtx: MESSAGE\n" to stderr.
 * The message comes from the NUMA reader (userspace/util/nic.c) on a garbled numa_node
 * file in a sysfs tree made in a temporary directory: no network, no privilege. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xtx/xtx.h>

#include "check.h"
#include "nic.h"

static char root[64];
static unsigned ncalls;
static enum xtx_print_level last_level;
static char last_text[512];

static int record(enum xtx_print_level level, const char *fmt, va_list ap)
{
	ncalls++;
	last_level = level;
	return vsnprintf(last_text, sizeof(last_text), fmt, ap);
}

static void mk(const char *rel, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (!content) {
		if (mkdir(path, 0755)) {
			perror(path);
			exit(1);
		}
		return;
	}
	f = fopen(path, "w");
	if (!f || fputs(content, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* What the default callback writes to stderr for one message, into buf. */
static void default_output(char *buf, size_t len)
{
	char path[128];
	int saved = dup(2), fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stderr", root);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || saved < 0) {
		perror(path);
		exit(1);
	}
	fflush(stderr);
	dup2(fd, 2);
	CHECK_EQ_I64(-1, xtx_nic_numa_node_said(root, "bad", 0));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

int main(void)
{
	char expect[512], out[1024], cmd[128];
	xtx_print_fn_t old;

	strcpy(root, "/tmp/xtx-test-print-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	mk("class", NULL);
	mk("class/net", NULL);
	mk("class/net/bad", NULL);
	mk("class/net/bad/device", NULL);
	mk("class/net/bad/device/numa_node", "garbled\n");
	snprintf(expect, sizeof(expect), "cannot read the NUMA node of bad (%s/class/net/bad/"
		 "device/numa_node: Invalid argument): memory left local, threads not pinned "
		 "by node", root);

	/* The callback sees the level and the whole text, without prefix or newline. */
	old = xtx_set_print(record);
	CHECK(old != NULL);
	CHECK_EQ_I64(-1, xtx_nic_numa_node_said(root, "bad", 0));
	CHECK_EQ_U64(1, ncalls);
	CHECK_EQ_I64(XTX_WARN, last_level);
	CHECK_STR_CONTAINS(last_text, expect);
	CHECK_EQ_U64(strlen(expect), strlen(last_text));

	/* quiet: not even the callback hears of it. */
	CHECK_EQ_I64(-1, xtx_nic_numa_node_said(root, "bad", 1));
	CHECK_EQ_U64(1, ncalls);

	/* NULL silences: no call, nothing on stderr; the old callback comes back. */
	CHECK(xtx_set_print(NULL) == record);
	default_output(out, sizeof(out));
	CHECK_EQ_U64(1, ncalls);
	CHECK_EQ_U64(0, strlen(out));

	/* The default, restored: "xtx: MESSAGE\n" on stderr, as before callbacks. */
	CHECK(xtx_set_print(old) == NULL);
	default_output(out, sizeof(out));
	CHECK_EQ_U64(1, ncalls);
	CHECK_EQ_U64(strlen("xtx: \n") + strlen(expect), strlen(out));
	CHECK(!strncmp(out, "xtx: ", 5) && !strncmp(out + 5, expect, strlen(expect)) &&
	      out[strlen(out) - 1] == '\n');

	/* A readable node: no message. */
	xtx_set_print(record);
	mk("class/net/good", NULL);
	mk("class/net/good/device", NULL);
	mk("class/net/good/device/numa_node", "0\n");
	CHECK_EQ_I64(0, xtx_nic_numa_node_said(root, "good", 0));
	CHECK_EQ_U64(1, ncalls);
	xtx_set_print(old);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", root);
	return check_summary("test_print");
}
