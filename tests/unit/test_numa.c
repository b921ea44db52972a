/* SPDX-License-Identifier: BSD-3-Clause */
/* test_numa.c - the sysfs reader behind the engine's NUMA placement (userspace/util/nic.c),
 * against a sysfs tree made in a temporary directory: one row per file content (or
 * absence), with the return value and node expected. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "nic.h"

#define NO_FILE		NULL	/* the interface has no device directory (veth) */

static const struct {
	const char *content;	/* numa_node's bytes, or NO_FILE */
	int rc, node;
} rows[] = {
	{ NO_FILE,	0,	 -1 },
	{ "-1\n",	0,	 -1 },	/* one node, or the firmware did not say */
	{ "0\n",	0,	  0 },
	{ "1\n",	0,	  1 },
	{ "3",		0,	  3 },	/* no newline */
	{ "17\n",	0,	 17 },
	{ "",		-EINVAL, -1 },
	{ "\n",		-EINVAL, -1 },
	{ "abc\n",	-EINVAL, -1 },
	{ "1x\n",	-EINVAL, -1 },
	{ "1\n2\n",	-EINVAL, -1 },
	{ "-2\n",	-EINVAL, -1 },
	{ "99999999999\n", -EINVAL, -1 },
};

static char root[64];

static void put(const char *rel, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f || fputs(content, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdir(path, 0755)) {
		perror(path);
		exit(1);
	}
}

int main(void)
{
	char path[256];
	int node;

	strcpy(root, "/tmp/xtx-test-numa-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	dir("class");
	dir("class/net");
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char ifdir[64], ifname[16];

		snprintf(ifname, sizeof(ifname), "if%u", i);
		snprintf(ifdir, sizeof(ifdir), "class/net/%s", ifname);
		dir(ifdir);
		if (rows[i].content) {
			snprintf(path, sizeof(path), "%s/device", ifdir);
			dir(path);
			snprintf(path, sizeof(path), "%s/device/numa_node", ifdir);
			put(path, rows[i].content);
		}
		node = 12345;
		int rc = xtx_nic_numa_node(root, ifname, &node);

		if (!CHECK_EQ_I64(rows[i].rc, rc) || !CHECK_EQ_I64(rows[i].node, node))
			fprintf(stderr, "  row %u: content \"%s\"\n", i,
				rows[i].content ? rows[i].content : "(no file)");
	}
	/* A file that exists but cannot be read (a directory in its place): -errno. */
	dir("class/net/ifdir");
	dir("class/net/ifdir/device");
	dir("class/net/ifdir/device/numa_node");
	node = 12345;
	CHECK_EQ_I64(-EISDIR, xtx_nic_numa_node(root, "ifdir", &node));
	CHECK_EQ_I64(-1, node);

	/* TX queues: the tx-* entries only. */
	dir("class/net/ifq");
	dir("class/net/ifq/queues");
	dir("class/net/ifq/queues/tx-0");
	dir("class/net/ifq/queues/tx-1");
	dir("class/net/ifq/queues/rx-0");
	CHECK_EQ_U64(2, xtx_nic_tx_queues(root, "ifq"));
	CHECK_EQ_U64(0, xtx_nic_tx_queues(root, "if0"));	/* no queues directory */

	/* This machine's loopback has no device: no node. */
	node = 12345;
	CHECK_EQ_I64(0, xtx_nic_numa_node(NULL, "lo", &node));
	CHECK_EQ_I64(-1, node);

	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	if (system(path))
		fprintf(stderr, "could not remove %s\n", root);
	return check_summary("test_numa");
}
