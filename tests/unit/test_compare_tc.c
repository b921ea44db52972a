/* SPDX-License-Identifier: BSD-3-Clause */
/* test_compare_tc.c - xtx-compare's translation of a class tree into tc commands, its
 * model of the rate each leaf should get, and the JSON reader it reads the tools' summaries
 * with. Table-driven: each row is a class file, the device, ports and flow count, and the
 * exact tc command list (with fq fallbacks) that must come out; failures print the row,
 * the line number, expected and actual.
 * Exit 0 when every check passed, 1 otherwise; one summary line.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/sched.h>
#include "check.h"

#include "json.h"
#include "tc.h"

/* --- tc_fmt_rate ------------------------------------------------------------------- */

static void test_fmt_rate(void)
{
	static const struct { uint64_t bps; const char *want; } rows[] = {
		{ 12500000, "100mbit" },	/* 100mbit */
		{ 1250000000, "10gbit" },
		{ 125000000000ull, "1tbit" },
		{ 125, "1kbit" },
		{ 1, "8bit" },
		{ 187, "1496bit" },		/* 1.5kbit truncated to whole bytes by the parser */
		{ 134217728, "1073741824bit" },	/* 1gibit: no decimal unit divides it */
		{ 62500, "500kbit" },
		{ 0, "0bit" },
		{ UINT64_MAX / 8, "18446744073709551608bit" },	/* the largest in bits */
		{ UINT64_MAX / 8 + 1, "2305843009213693952bps" },
		{ UINT64_MAX, "18446744073709551615bps" },
	};
	char buf[64], row[64];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(row, sizeof(row), "rate %llu B/s", (unsigned long long)rows[i].bps);
		tc_fmt_rate(rows[i].bps, buf, sizeof(buf));
		if (!CHECK_STR_EQ(rows[i].want, buf))
			fprintf(stderr, "    row %s\n", row);
	}
	tc_fmt_handle(XTX_HANDLE(1, 0), buf, sizeof(buf));
	CHECK_STR_EQ("1:", buf);
	tc_fmt_handle(XTX_HANDLE(0xab, 0x10), buf, sizeof(buf));
	CHECK_STR_EQ("ab:10", buf);
}

/* --- tc_plan__build ---------------------------------------------------------------- */

struct plan_row {
	const char *name;
	const char *conf;
	const char *dev;
	uint32_t base, flows;
	const char *lines[40];		/* expected command lines, NULL-terminated */
	const char *fallbacks[40];	/* fallback of the same line, NULL = none */
	uint32_t leaf_qdisc[4];		/* expected leaf qdisc majors, 0-terminated */
};

static const struct plan_row plan_rows[] = {
	{
		.name = "demo tree: root 1: becomes 1:1, fq leaf with pfifo fallback",
		.conf = "class 1:   rate 100mbit\n"
			"class 1:10 parent 1: rate 60mbit ceil 100mbit prio 0\n"
			"class 1:20 parent 1: rate 40mbit ceil 100mbit prio 1 fq flows 1024\n"
			"default 1:20\n",
		.dev = "tx0", .base = 9000, .flows = 4,
		.lines = {
			"qdisc replace dev tx0 root handle 1: htb default 20 r2q 10",
			"class add dev tx0 parent 1: classid 1:1 htb rate 100mbit ceil 100mbit "
			"burst 14100 cburst 14100 prio 0 quantum 200000 overhead 24",
			"class add dev tx0 parent 1:1 classid 1:10 htb rate 60mbit ceil 100mbit "
			"burst 9100 cburst 14100 prio 0 quantum 200000 overhead 24",
			"class add dev tx0 parent 1:1 classid 1:20 htb rate 40mbit ceil 100mbit "
			"burst 6600 cburst 14100 prio 1 quantum 200000 overhead 24",
			"qdisc add dev tx0 parent 1:10 handle 10: pfifo limit 10000",
			"qdisc add dev tx0 parent 1:20 handle 20: fq limit 10000 flow_limit 100 "
			"quantum 3028 buckets 1024",
			"filter add dev tx0 parent 1: protocol ip prio 1 handle 100: u32 divisor 256",
			"filter add dev tx0 parent 1: protocol ip prio 1 u32 ht 100:28: match ip "
			"dport 9000 0xffff flowid 1:10",
			"filter add dev tx0 parent 1: protocol ip prio 1 u32 ht 100:29: match ip "
			"dport 9001 0xffff flowid 1:20",
			"filter add dev tx0 parent 1: protocol ip prio 1 u32 ht 100:2a: match ip "
			"dport 9002 0xffff flowid 1:10",
			"filter add dev tx0 parent 1: protocol ip prio 1 u32 ht 100:2b: match ip "
			"dport 9003 0xffff flowid 1:20",
			"filter add dev tx0 parent 1: protocol ip prio 1 u32 ht 800:: match ip "
			"protocol 17 0xff hashkey mask 0x000000ff at 20 link 100:",
		},
		.fallbacks = {
			[5] = "qdisc add dev tx0 parent 1:20 handle 20: pfifo limit 10000",
		},
		.leaf_qdisc = { 0x10, 0x20 },
	},
	{
		.name = "tc-style 1:1 root, explicit options, r2q, overhead 0, maxrate",
		.conf = "class 1:1 rate 1gbit\n"
			"class 1:2 parent 1:1 rate 300mbit ceil 1gbit prio 2 quantum 1514 burst 32k\n"
			"class 1:3 parent 1:1 rate 700mbit prio 3 fq flows 64 flow_limit 50 "
			"fq_quantum 1514 maxrate 10mbit limit 500\n"
			"overhead 0\n"
			"r2q 100\n",
		.dev = "eth1", .base = 5000, .flows = 3,
		.lines = {
			"qdisc replace dev eth1 root handle 1: htb default 2 r2q 100",
			"class add dev eth1 parent 1: classid 1:1 htb rate 1gbit ceil 1gbit "
			"burst 126600 cburst 126600 prio 0 quantum 200000 overhead 0",
			"class add dev eth1 parent 1:1 classid 1:2 htb rate 300mbit ceil 1gbit "
			"burst 32768 cburst 126600 prio 2 quantum 1514 overhead 0",
			"class add dev eth1 parent 1:1 classid 1:3 htb rate 700mbit ceil 700mbit "
			"burst 89100 cburst 89100 prio 3 quantum 200000 overhead 0",
			"qdisc add dev eth1 parent 1:2 handle 2: pfifo limit 10000",
			"qdisc add dev eth1 parent 1:3 handle 3: fq limit 500 flow_limit 50 "
			"quantum 1514 buckets 64 maxrate 10mbit",
			"filter add dev eth1 parent 1: protocol ip prio 1 handle 100: u32 divisor 256",
			"filter add dev eth1 parent 1: protocol ip prio 1 u32 ht 100:88: match ip "
			"dport 5000 0xffff flowid 1:2",
			"filter add dev eth1 parent 1: protocol ip prio 1 u32 ht 100:89: match ip "
			"dport 5001 0xffff flowid 1:3",
			"filter add dev eth1 parent 1: protocol ip prio 1 u32 ht 100:8a: match ip "
			"dport 5002 0xffff flowid 1:2",
			"filter add dev eth1 parent 1: protocol ip prio 1 u32 ht 800:: match ip "
			"protocol 17 0xff hashkey mask 0x000000ff at 20 link 100:",
		},
		.fallbacks = {
			[5] = "qdisc add dev eth1 parent 1:3 handle 3: pfifo limit 500",
		},
		.leaf_qdisc = { 2, 3 },
	},
	{
		.name = "two root trees, minor collisions, leaf qdisc handle taken by the root",
		.conf = "class 1: rate 10mbit\n"
			"class 1:1 parent 1: rate 5mbit\n"
			"class 2: rate 20mbit\n"
			"class 2:1 parent 2: rate 20mbit\n"
			"default 2:1\n",
		.dev = "v-x.1", .base = 65534, .flows = 2,
		.lines = {
			"qdisc replace dev v-x.1 root handle 1: htb default 4 r2q 10",
			"class add dev v-x.1 parent 1: classid 1:2 htb rate 10mbit ceil 10mbit "
			"burst 2850 cburst 2850 prio 0 quantum 125000 overhead 24",
			"class add dev v-x.1 parent 1:2 classid 1:1 htb rate 5mbit ceil 5mbit "
			"burst 2225 cburst 2225 prio 0 quantum 62500 overhead 24",
			"class add dev v-x.1 parent 1: classid 1:3 htb rate 20mbit ceil 20mbit "
			"burst 4100 cburst 4100 prio 0 quantum 200000 overhead 24",
			"class add dev v-x.1 parent 1:3 classid 1:4 htb rate 20mbit ceil 20mbit "
			"burst 4100 cburst 4100 prio 0 quantum 200000 overhead 24",
			"qdisc add dev v-x.1 parent 1:1 handle f000: pfifo limit 10000",
			"qdisc add dev v-x.1 parent 1:4 handle 4: pfifo limit 10000",
			"filter add dev v-x.1 parent 1: protocol ip prio 1 handle 100: u32 divisor 256",
			"filter add dev v-x.1 parent 1: protocol ip prio 1 u32 ht 100:fe: match ip "
			"dport 65534 0xffff flowid 1:1",
			"filter add dev v-x.1 parent 1: protocol ip prio 1 u32 ht 100:ff: match ip "
			"dport 65535 0xffff flowid 1:4",
			"filter add dev v-x.1 parent 1: protocol ip prio 1 u32 ht 800:: match ip "
			"protocol 17 0xff hashkey mask 0x000000ff at 20 link 100:",
		},
		.leaf_qdisc = { 0xf000, 4 },
	},
	{
		.name = "a single root class is the only leaf; major 7; odd rates",
		.conf = "class 7: rate 1.5kbit\n",
		.dev = "lo", .base = 1, .flows = 1,
		.lines = {
			"qdisc replace dev lo root handle 7: htb default 1 r2q 10",
			"class add dev lo parent 7: classid 7:1 htb rate 1496bit ceil 1496bit "
			"burst 1600 cburst 1600 prio 0 quantum 1000 overhead 24",
			"qdisc add dev lo parent 7:1 handle 1: pfifo limit 10000",
			"filter add dev lo parent 7: protocol ip prio 1 handle 100: u32 divisor 256",
			"filter add dev lo parent 7: protocol ip prio 1 u32 ht 100:1: match ip "
			"dport 1 0xffff flowid 7:1",
			"filter add dev lo parent 7: protocol ip prio 1 u32 ht 800:: match ip "
			"protocol 17 0xff hashkey mask 0x000000ff at 20 link 100:",
		},
		.leaf_qdisc = { 1 },
	},
};

static void test_plan_row(const struct plan_row *r)
{
	struct xtx_sched_config *cfg;
	struct tc_plan p;
	char err[512], what[128];
	unsigned want = 0;

	cfg = xtx_sched_config__parse_string(r->conf, "t.conf", err, sizeof(err));
	if (!CHECK(cfg != NULL)) {
		fprintf(stderr, "    row %s: %s\n", r->name, err);
		return;
	}
	if (!CHECK(tc_plan__build(cfg, r->dev, r->base, r->flows, &p, err, sizeof(err)) == 0)) {
		fprintf(stderr, "    row %s: %s\n", r->name, err);
		xtx_sched_config__free(cfg);
		return;
	}
	while (r->lines[want])
		want++;
	if (!CHECK_EQ_U64(want, p.ncmds))
		fprintf(stderr, "    row %s\n", r->name);
	for (unsigned i = 0; i < p.ncmds && i < want; i++) {
		snprintf(what, sizeof(what), "%s, line %u", r->name, i);
		if (!CHECK_STR_EQ(r->lines[i], p.cmds[i].line))
			fprintf(stderr, "    row %s\n", what);
		if (!CHECK_STR_EQ(r->fallbacks[i] ? r->fallbacks[i] : "", p.cmds[i].fallback))
			fprintf(stderr, "    row %s\n", what);
		/* A note goes with every fallback and only with one. */
		CHECK((p.cmds[i].note != NULL) == (p.cmds[i].fallback[0] != 0));
	}
	for (unsigned k = 0; k < p.nleaves; k++) {
		if (!CHECK_EQ_U64(r->leaf_qdisc[k], p.leaves[k].qdisc_major))
			fprintf(stderr, "    row %s, leaf %u\n", r->name, k);
	}
	CHECK_EQ_U64(0, r->leaf_qdisc[p.nleaves]);
	/* Flow i -> leaf i mod nleaves, as xtx-send assigns (leaves in config order). */
	for (uint32_t f = 0; f < 10; f++)
		CHECK_EQ_U64(f % p.nleaves, tc_plan__flow_leaf(&p, f));
	tc_plan__free(&p);
	CHECK(p.cmds == NULL && p.ncmds == 0);
	xtx_sched_config__free(cfg);
}

/* Many flows: every port lands in the bucket of its low byte, in the leaf i mod n. */
static void test_plan_many_flows(void)
{
	struct xtx_sched_config *cfg;
	struct tc_plan p;
	char err[256], want[TC_LINE_MAX];

	cfg = xtx_sched_config__parse_string("class 1: rate 1gbit\n"
					     "class 1:a parent 1: rate 100mbit\n"
					     "class 1:b parent 1: rate 100mbit\n"
					     "class 1:c parent 1: rate 100mbit\n", NULL, err,
					     sizeof(err));
	if (!CHECK(cfg != NULL))
		return;
	if (!CHECK(tc_plan__build(cfg, "tx0", 9000, 1024, &p, err, sizeof(err)) == 0)) {
		xtx_sched_config__free(cfg);
		return;
	}
	/* qdisc + 4 classes + 3 leaf qdiscs + table + 1024 flows + link */
	CHECK_EQ_U64(1 + 4 + 3 + 1 + 1024 + 1, p.ncmds);
	for (uint32_t f = 0; f < 1024 && 9 + f < p.ncmds; f++) {
		uint32_t port = 9000 + f;

		snprintf(want, sizeof(want), "filter add dev tx0 parent 1: protocol ip prio 1 u32 "
			 "ht 100:%x: match ip dport %u 0xffff flowid 1:%x", port & 0xff, port,
			 0xa + f % 3);
		if (!CHECK_STR_EQ(want, p.cmds[9 + f].line))
			break;
	}
	tc_plan__free(&p);
	xtx_sched_config__free(cfg);
}

static void test_plan_errors(void)
{
	static const struct {
		const char *dev;
		uint32_t base, flows;
		const char *msg;
	} rows[] = {
		{ "tx 0", 9000, 1, "cannot be used in a tc command" },
		{ "", 9000, 1, "cannot be used in a tc command" },
		{ "a234567890123456", 9000, 1, "cannot be used in a tc command" },
		{ "tx0", 9000, 0, "need 1 or more flows" },
		{ "tx0", 65535, 2, "need 1 or more flows" },
		{ "tx0", 0, 1, "need 1 or more flows" },
	};
	struct xtx_sched_config *cfg;
	struct tc_plan p;
	char err[256];

	cfg = xtx_sched_config__parse_string("class 1: rate 1gbit\n", NULL, err, sizeof(err));
	if (!CHECK(cfg != NULL))
		return;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		err[0] = 0;
		CHECK_EQ_I64(-EINVAL, tc_plan__build(cfg, rows[i].dev, rows[i].base, rows[i].flows,
						      &p, err, sizeof(err)));
		CHECK_STR_CONTAINS(err, rows[i].msg);
		CHECK(p.cmds == NULL && p.ncmds == 0);
	}
	CHECK_EQ_I64(-EINVAL, tc_plan__build(NULL, "tx0", 9000, 1, &p, err, sizeof(err)));
	CHECK_EQ_I64(-EINVAL, tc_plan__build(cfg, NULL, 9000, 1, &p, err, sizeof(err)));
	CHECK_EQ_I64(-EINVAL, tc_plan__build(cfg, "tx0", 9000, 1, NULL, err, sizeof(err)));
	xtx_sched_config__free(cfg);
}

/* --- tc_plan__build_mq ------------------------------------------------------------- */

/* The built-in tree on 2 queues, 4 flows: mq at the root, then the root htb plan's lines
 * once per queue under majors 100: and 200:, leaf qdiscs 101:, 102: and 201:, 202:. */
static void test_plan_mq(void)
{
	static const char *const want[] = {
		"qdisc replace dev tx0 root handle 1: mq",
		"qdisc replace dev tx0 parent 1:1 handle 100: htb default 10 r2q 10",
		"class add dev tx0 parent 100: classid 100:1 htb rate 10gbit ceil 10gbit "
		"burst 1251600 cburst 1251600 prio 0 quantum 200000 overhead 24",
		"class add dev tx0 parent 100:1 classid 100:10 htb rate 50mbit ceil 50mbit "
		"burst 7850 cburst 7850 prio 0 quantum 200000 overhead 24",
		"class add dev tx0 parent 100:1 classid 100:20 htb rate 100mbit ceil 10gbit "
		"burst 14100 cburst 1251600 prio 1 quantum 200000 overhead 24",
		"qdisc add dev tx0 parent 100:10 handle 101: pfifo limit 10000",
		"qdisc add dev tx0 parent 100:20 handle 102: fq limit 10000 flow_limit 100 "
		"quantum 3028 buckets 1024",
		"filter add dev tx0 parent 100: protocol ip prio 1 handle 100: u32 divisor 256",
		"filter add dev tx0 parent 100: protocol ip prio 1 u32 ht 100:28: match ip dport "
		"9000 0xffff flowid 100:10",
		"filter add dev tx0 parent 100: protocol ip prio 1 u32 ht 100:29: match ip dport "
		"9001 0xffff flowid 100:20",
		"filter add dev tx0 parent 100: protocol ip prio 1 u32 ht 100:2a: match ip dport "
		"9002 0xffff flowid 100:10",
		"filter add dev tx0 parent 100: protocol ip prio 1 u32 ht 100:2b: match ip dport "
		"9003 0xffff flowid 100:20",
		"filter add dev tx0 parent 100: protocol ip prio 1 u32 ht 800:: match ip "
		"protocol 17 0xff hashkey mask 0x000000ff at 20 link 100:",
		"qdisc replace dev tx0 parent 1:2 handle 200: htb default 10 r2q 10",
		"class add dev tx0 parent 200: classid 200:1 htb rate 10gbit ceil 10gbit "
		"burst 1251600 cburst 1251600 prio 0 quantum 200000 overhead 24",
		"class add dev tx0 parent 200:1 classid 200:10 htb rate 50mbit ceil 50mbit "
		"burst 7850 cburst 7850 prio 0 quantum 200000 overhead 24",
		"class add dev tx0 parent 200:1 classid 200:20 htb rate 100mbit ceil 10gbit "
		"burst 14100 cburst 1251600 prio 1 quantum 200000 overhead 24",
		"qdisc add dev tx0 parent 200:10 handle 201: pfifo limit 10000",
		"qdisc add dev tx0 parent 200:20 handle 202: fq limit 10000 flow_limit 100 "
		"quantum 3028 buckets 1024",
		"filter add dev tx0 parent 200: protocol ip prio 1 handle 100: u32 divisor 256",
		"filter add dev tx0 parent 200: protocol ip prio 1 u32 ht 100:28: match ip dport "
		"9000 0xffff flowid 200:10",
		"filter add dev tx0 parent 200: protocol ip prio 1 u32 ht 100:29: match ip dport "
		"9001 0xffff flowid 200:20",
		"filter add dev tx0 parent 200: protocol ip prio 1 u32 ht 100:2a: match ip dport "
		"9002 0xffff flowid 200:10",
		"filter add dev tx0 parent 200: protocol ip prio 1 u32 ht 100:2b: match ip dport "
		"9003 0xffff flowid 200:20",
		"filter add dev tx0 parent 200: protocol ip prio 1 u32 ht 800:: match ip "
		"protocol 17 0xff hashkey mask 0x000000ff at 20 link 100:",
	};
	const size_t nwant = sizeof(want) / sizeof(want[0]);
	struct xtx_sched_config *cfg;
	struct tc_plan p, root;
	char err[256];
	unsigned q, l;

	cfg = xtx_sched_config__parse_string("class 1:   rate 10gbit\n"
					     "class 1:10 parent 1: rate 50mbit ceil 50mbit prio 0\n"
					     "class 1:20 parent 1: rate 100mbit ceil 10gbit prio 1 "
					     "fq flows 1024\n", NULL, err, sizeof(err));
	if (!CHECK(cfg != NULL))
		return;
	if (!CHECK(tc_plan__build_mq(cfg, "tx0", 9000, 4, 2, &p, err, sizeof(err)) == 0)) {
		fprintf(stderr, "    %s\n", err);
		xtx_sched_config__free(cfg);
		return;
	}
	CHECK_EQ_U64(nwant, p.ncmds);
	for (size_t i = 0; i < p.ncmds && i < nwant; i++) {
		if (!CHECK_STR_EQ(want[i], p.cmds[i].line))
			fprintf(stderr, "    mq line %zu\n", i);
		/* each queue's fq leaf falls back to a pfifo of its own handle */
		if (i == 6 || i == 18) {
			CHECK_STR_EQ(i == 6 ? "qdisc add dev tx0 parent 100:20 handle 102: pfifo "
					      "limit 10000" :
					      "qdisc add dev tx0 parent 200:20 handle 202: pfifo "
					      "limit 10000", p.cmds[i].fallback);
			CHECK(p.cmds[i].note != NULL);
		} else {
			CHECK_STR_EQ("", p.cmds[i].fallback);
		}
	}
	CHECK_EQ_U64(2, p.queues);
	CHECK_EQ_U64(0x100, p.queue_stride);
	CHECK_EQ_U64(0x100, tc_plan__queue_major(&p, 0));
	CHECK_EQ_U64(0x200, tc_plan__queue_major(&p, 1));
	/* The leaves and classids are the root htb plan's: reports read them. */
	if (CHECK(tc_plan__build(cfg, "tx0", 9000, 4, &root, err, sizeof(err)) == 0)) {
		CHECK_EQ_U64(root.nleaves, p.nleaves);
		for (l = 0; l < p.nleaves && l < root.nleaves; l++)
			CHECK_EQ_U64(root.leaves[l].tc_classid, p.leaves[l].tc_classid);
		CHECK_EQ_U64(root.major, p.major);
		CHECK_EQ_U64(0, root.queues);
		CHECK_EQ_I64(-ENOENT, tc_plan__mq_locate(&root, XTX_HANDLE(0x100, 0x10), &q, &l));
		tc_plan__free(&root);
	}
	/* tc's classids back to queue and leaf; inner classes and mq's own are not leaves. */
	q = l = 99;
	CHECK_EQ_I64(0, tc_plan__mq_locate(&p, XTX_HANDLE(0x200, 0x20), &q, &l));
	CHECK(q == 1 && l == 1);
	CHECK_EQ_I64(0, tc_plan__mq_locate(&p, XTX_HANDLE(0x100, 0x10), &q, &l));
	CHECK(q == 0 && l == 0);
	CHECK_EQ_I64(-ENOENT, tc_plan__mq_locate(&p, XTX_HANDLE(0x100, 0x1), &q, &l));
	CHECK_EQ_I64(-ENOENT, tc_plan__mq_locate(&p, XTX_HANDLE(0x300, 0x10), &q, &l));
	CHECK_EQ_I64(-ENOENT, tc_plan__mq_locate(&p, XTX_HANDLE(0x1, 0x1), &q, &l));
	CHECK_EQ_I64(-ENOENT, tc_plan__mq_locate(&p, XTX_HANDLE(0x180, 0x10), &q, &l));
	{
		/* what this kernel's tc -s class show prints (tc has no JSON for it) */
		static const char show[] =
			"class mq 1:1 root leaf 100: \n"
			" Sent 999 bytes 9 pkt (dropped 0, overlimits 0 requeues 0) \n"
			"class htb 100:1 root rate 10Gbit ceil 10Gbit burst 1251600b \n"
			" Sent 5000 bytes 50 pkt (dropped 0, overlimits 0 requeues 0) \n"
			"class htb 100:10 parent 100:1 leaf 101: prio 0 rate 50Mbit \n"
			" Sent 1280 bytes 10 pkt (dropped 0, overlimits 3 requeues 0) \n"
			" backlog 0b 0p requeues 0\n"
			"class htb 200:20 parent 200:1 leaf 202: prio 1 rate 100Mbit \n"
			" Sent 5120 bytes 40 pkt (dropped 0, overlimits 0 requeues 0) \n"
			"class htb 300:10 parent 300:1 leaf 301: prio 0 rate 50Mbit \n"
			" Sent 128 bytes 1 pkt (dropped 0, overlimits 0 requeues 0) \n";
		double v[4] = { -1, -1, -1, -1 };

		CHECK_EQ_U64(2, tc_plan__mq_sent(&p, show, v));
		CHECK(v[0] == 10 && v[1] == -1 && v[2] == -1 && v[3] == 40);
		CHECK_EQ_U64(0, tc_plan__mq_sent(&p, "", v));
	}
	tc_plan__free(&p);
	CHECK(p.cmds == NULL && p.ncmds == 0 && p.queues == 0);
	xtx_sched_config__free(cfg);
}

/* A tree of n leaves 1:1 .. 1:n (hex) under 1:, in buf. */
static struct xtx_sched_config *many_leaves(char *buf, size_t len, unsigned n)
{
	char err[256];
	size_t off = (size_t)snprintf(buf, len, "class 1: rate 10gbit\n");

	for (unsigned i = 1; i <= n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off,
					"class 1:%x parent 1: rate 1mbit ceil 10mbit\n", i);
	return xtx_sched_config__parse_string(buf, NULL, err, sizeof(err));
}

/* Handles stay distinct: with 300 leaves the stride grows to 0x200 per queue; queue
 * counts out of mq's range and more leaves than handles are refused. */
static void test_plan_mq_limits(void)
{
	static char conf[1000 * 48];
	struct xtx_sched_config *cfg;
	struct tc_plan p;
	char err[256];

	cfg = many_leaves(conf, sizeof(conf), 300);
	if (!CHECK(cfg != NULL))
		return;
	if (CHECK(tc_plan__build_mq(cfg, "tx0", 9000, 300, 4, &p, err, sizeof(err)) == 0)) {
		unsigned found = 0;

		CHECK_EQ_U64(0x200, p.queue_stride);
		CHECK_EQ_U64(0x800, tc_plan__queue_major(&p, 3));
		/* queue 4's last leaf qdisc: 0x800 + 299 + 1 */
		for (unsigned i = 0; i < p.ncmds; i++)
			if (strstr(p.cmds[i].line, "parent 800:12c handle")) {
				CHECK_STR_EQ("qdisc add dev tx0 parent 800:12c handle 92c: pfifo "
					     "limit 10000", p.cmds[i].line);
				found++;
			}
		CHECK_EQ_U64(1, found);
		tc_plan__free(&p);
	}
	xtx_sched_config__free(cfg);
	/* 1000 leaves: stride 0x400, and 0x400 * 64 + 1000 > 0xfffe: refused at 64 queues */
	cfg = many_leaves(conf, sizeof(conf), 1000);
	if (!CHECK(cfg != NULL))
		return;
	CHECK_EQ_I64(-EINVAL, tc_plan__build_mq(cfg, "tx0", 9000, 1000, 64, &p, err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "more qdisc handles than tc has");
	CHECK(p.cmds == NULL && p.ncmds == 0);
	if (CHECK(tc_plan__build_mq(cfg, "tx0", 9000, 1000, 2, &p, err, sizeof(err)) == 0)) {
		CHECK_EQ_U64(0x400, p.queue_stride);
		tc_plan__free(&p);
	}
	xtx_sched_config__free(cfg);
	cfg = xtx_sched_config__parse_string("class 1: rate 1gbit\n", NULL, err, sizeof(err));
	if (!CHECK(cfg != NULL))
		return;
	CHECK_EQ_I64(-EINVAL, tc_plan__build_mq(cfg, "tx0", 9000, 1, 1, &p, err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "mq needs 2 to 64");
	CHECK_EQ_I64(-EINVAL, tc_plan__build_mq(cfg, "tx0", 9000, 1, 65, &p, err, sizeof(err)));
	CHECK_EQ_I64(-EINVAL, tc_plan__build_mq(cfg, "tx 0", 9000, 1, 2, &p, err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "cannot be used in a tc command");
	CHECK_EQ_I64(-EINVAL, tc_plan__build_mq(cfg, "tx0", 9000, 1, 2, NULL, err, sizeof(err)));
	/* a one-class tree: queue q's htb defaults to the root's tc class */
	if (CHECK(tc_plan__build_mq(cfg, "tx0", 9000, 1, 3, &p, err, sizeof(err)) == 0)) {
		CHECK_STR_EQ("qdisc replace dev tx0 parent 1:3 handle 300: htb default 1 r2q 10",
			     p.cmds[1 + 2 * (p.ncmds - 1) / 3].line);
		tc_plan__free(&p);
	}
	xtx_sched_config__free(cfg);
}

/* --- tc_expected_rates ------------------------------------------------------------- */

struct share_row {
	const char *name;
	const char *conf;
	const char *handle[4];		/* leaves to check */
	double mbit[4];			/* their expected share in Mbit/s */
	int capped[4];
};

static const struct share_row share_rows[] = {
	{
		"rates fill the root: no spare",
		"class 1: rate 100mbit\n"
		"class 1:10 parent 1: rate 60mbit ceil 100mbit prio 0\n"
		"class 1:20 parent 1: rate 40mbit ceil 100mbit prio 1 fq\n",
		{ "1:10", "1:20" }, { 60, 40 }, { 0, 0 },
	},
	{
		"xtx-compare's default tree: a capped tenant, bulk borrows the rest",
		"class 1: rate 10gbit\n"
		"class 1:10 parent 1: rate 50mbit ceil 50mbit prio 0\n"
		"class 1:20 parent 1: rate 100mbit ceil 10gbit prio 1\n",
		{ "1:10", "1:20" }, { 50, 9950 }, { 1, 0 },
	},
	{
		"equal prio: the spare in proportion to the quantum",
		"class 1: rate 100mbit\n"
		"class 1:1 parent 1: rate 10mbit ceil 100mbit quantum 3000\n"
		"class 1:2 parent 1: rate 10mbit ceil 100mbit quantum 1000\n",
		{ "1:1", "1:2" }, { 70, 30 }, { 0, 0 },
	},
	{
		"water-filling: a child at its ceil leaves the rest to the others",
		"class 1: rate 100mbit\n"
		"class 1:1 parent 1: rate 10mbit ceil 20mbit quantum 1000\n"
		"class 1:2 parent 1: rate 10mbit ceil 100mbit quantum 1000\n",
		{ "1:1", "1:2" }, { 20, 80 }, { 1, 0 },
	},
	{
		"prio: the lower prio number borrows first",
		"class 1: rate 100mbit\n"
		"class 1:1 parent 1: rate 10mbit ceil 100mbit prio 1\n"
		"class 1:2 parent 1: rate 10mbit ceil 50mbit prio 0\n",
		{ "1:1", "1:2" }, { 50, 50 }, { 0, 1 },
	},
	{
		"two levels: an inner class passes its share down",
		"class 1: rate 100mbit\n"
		"class 1:1 parent 1: rate 30mbit ceil 40mbit prio 0\n"
		"class 1:2 parent 1: rate 10mbit ceil 100mbit prio 1\n"
		"class 1:11 parent 1:1 rate 10mbit ceil 40mbit quantum 1000\n"
		"class 1:12 parent 1:1 rate 10mbit ceil 40mbit quantum 1000\n",
		{ "1:11", "1:12", "1:2" }, { 20, 20, 60 }, { 0, 0, 0 },
	},
	{
		"children's rates above the parent's: each still gets its rate",
		"class 1: rate 10mbit\n"
		"class 1:1 parent 1: rate 8mbit ceil 10mbit\n"
		"class 1:2 parent 1: rate 8mbit ceil 10mbit\n",
		{ "1:1", "1:2" }, { 8, 8 }, { 0, 0 },
	},
	{
		"a root leaf gets its ceil",
		"class 1: rate 5mbit\n",
		{ "1:" }, { 5 }, { 1 },
	},
};

static void test_shares(void)
{
	for (size_t r = 0; r < sizeof(share_rows) / sizeof(share_rows[0]); r++) {
		const struct share_row *s = &share_rows[r];
		struct xtx_sched_config *cfg;
		double out[16];
		int capped[16];
		char err[256];

		cfg = xtx_sched_config__parse_string(s->conf, NULL, err, sizeof(err));
		if (!CHECK(cfg != NULL)) {
			fprintf(stderr, "    row %s: %s\n", s->name, err);
			continue;
		}
		CHECK_EQ_I64(0, tc_expected_rates(cfg, out, capped));
		for (int k = 0; k < 4 && s->handle[k]; k++) {
			unsigned maj, min = 0;
			int idx;

			sscanf(s->handle[k], "%x:%x", &maj, &min);
			idx = xtx_sched_config__class_index(cfg, XTX_HANDLE(maj, min));
			if (!CHECK(idx >= 0))
				continue;
			if (!CHECK_NEAR(s->mbit[k] * 125000.0, out[idx], 1e-9) ||
			    !CHECK_EQ_I64(s->capped[k], capped[idx]))
				fprintf(stderr, "    row %s, class %s\n", s->name, s->handle[k]);
		}
		xtx_sched_config__free(cfg);
	}
	CHECK_EQ_I64(-EINVAL, tc_expected_rates(NULL, NULL, NULL));
}

/* --- json.c ------------------------------------------------------------------------ */

static void test_json(void)
{
	static const struct { const char *text, *path; double num; const char *str; } ok[] = {
		{ "{\"pkts\": 12, \"x\": 1}", "pkts", 12, NULL },
		{ " {\"a\":{\"b\":{\"c\":-1.5e3}}} \n", "a.b.c", -1500, NULL },
		{ "{\"delay_ns\":{\"p50\":null}}", "delay_ns.p50", NAN, NULL },
		{ "{\"t\":true,\"f\":false}", "t", 1, NULL },
		{ "{\"t\":true,\"f\":false}", "f", 0, NULL },
		{ "{\"mode\":\"copy\"}", "mode", NAN, "copy" },
		{ "{\"s\":\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\"}", "s", NAN,
		  "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80" },
		{ "{\"per_port\":[{\"port\":9000},{\"port\":9001}],\"n\":0}", "n", 0, NULL },
		{ "{\"big\":18446744073709551615}", "big", 18446744073709551615.0, NULL },
		{ "{\"a\":1}", "b", NAN, NULL },
		{ "{\"a\":1}", "a.b", NAN, NULL },
	};
	static const char *const bad[] = {
		"", "{", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":1} x", "[1,2", "{\"a\":\"x}",
		"{\"a\":tru}", "{\"a\":\"\\q\"}", "{\"a\":\"\\u12\"}", "{a:1}",
		"{\"a\":\"x\ny\"}", "-", "{\"a\":[}",
		"{\"a\":nul}", "{\"a\":fals}", "{\"a\":t}", "[true false]", "nulls",
	};
	char err[128], row[160];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct json *j = json_parse(ok[i].text, err, sizeof(err));
		double v;

		snprintf(row, sizeof(row), "json row %zu", i);
		if (!CHECK(j != NULL)) {
			fprintf(stderr, "    row %s: %s\n", row, err);
			continue;
		}
		v = json_num(j, ok[i].path);
		if (isnan(ok[i].num))
			CHECK(isnan(v));
		else
			CHECK_NEAR(ok[i].num, v, 1e-12);
		if (ok[i].str) {
			if (!CHECK_STR_EQ(ok[i].str, json_str(j, ok[i].path)))
				fprintf(stderr, "    row %s\n", row);
		} else {
			CHECK(json_str(j, ok[i].path) == NULL);
		}
		json_free(j);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json *j = json_parse(bad[i], err, sizeof(err));

		snprintf(row, sizeof(row), "bad json row %zu '%s'", i, bad[i]);
		if (!CHECK(j == NULL)) {
			fprintf(stderr, "    row %s: parsed, expected refused\n", row);
			json_free(j);
		} else {
			CHECK_STR_CONTAINS(err, "offset ");
		}
	}
	/* The three literals. */
	{
		struct json *j = json_parse(" [true, false ,null] ", err, sizeof(err));

		if (CHECK(j && j->type == JSON_ARR && j->n == 3)) {
			CHECK(j->items[0].type == JSON_BOOL && j->items[0].b);
			CHECK(j->items[1].type == JSON_BOOL && !j->items[1].b);
			CHECK(j->items[2].type == JSON_NULL);
		}
		json_free(j);
	}
	/* Nesting beyond 64 levels is refused, not a stack overflow. */
	{
		char deep[200];

		memset(deep, '[', 100);
		deep[100] = 0;
		CHECK(json_parse(deep, err, sizeof(err)) == NULL);
		CHECK_STR_CONTAINS(err, "nested");
	}
	/* Writing back: compact, members named by skip left out, strings escaped. */
	{
		const char *in = "{ \"a\": [1, 2.5, null, true], \"per_port\": [{\"x\": 1}],"
				 " \"s\": \"q\\\"\\n\", \"o\": {\"per_port\": 3, \"k\": \"v\"} }";
		struct json *j = json_parse(in, err, sizeof(err));
		char buf[256] = "";
		FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

		if (CHECK(j != NULL && f != NULL)) {
			json_write(f, j, "per_port");
			fclose(f);
			CHECK_STR_EQ("{\"a\":[1,2.5,null,true],\"s\":\"q\\\"\\n\","
				     "\"o\":{\"k\":\"v\"}}", buf);
		}
		json_free(j);
	}
}

int main(void)
{
	test_fmt_rate();
	for (size_t i = 0; i < sizeof(plan_rows) / sizeof(plan_rows[0]); i++)
		test_plan_row(&plan_rows[i]);
	test_plan_many_flows();
	test_plan_errors();
	test_plan_mq();
	test_plan_mq_limits();
	test_shares();
	test_json();
	return check_summary("test_compare_tc");
}
