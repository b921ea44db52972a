/* SPDX-License-Identifier: BSD-3-Clause */
/* test_compare_meas.c - the parts of xtx-compare that both modes share: a measurement's
 * record, its qdisc checks and figures (meas.c), the command lines (argv.c) and the
 * ready-file wait (proc.c). Table-driven where there is a table; failures print expected
 * and actual. Exit 0 when every check passed, 1 otherwise; one summary line.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compare.h"

volatile sig_atomic_t g_stop;	/* main.c's, which the test does not link */

static const char tree[] =
	"class 1: rate 1gbit\n"
	"class 1:10 parent 1: rate 100mbit\n"
	"class 1:20 parent 1: rate 100mbit\n";

/* Flow i at UDP port 9000 + i; ports outside 9000..9003, a port that is not a number and
 * a member without a port are left out. */
static const char sink_json[] =
	"{\"duration_s\":1.6,\"arrival_s\":1.5,\"pkts\":1000,\"bytes\":128000,"
	"\"delay_ns\":{\"p50\":10,\"p99\":20,\"p999\":30},\"per_port\":["
	"{\"port\":9000,\"pkts\":100,\"bytes\":12800},{\"port\":9001,\"pkts\":200,\"bytes\":25600},"
	"{\"port\":9002,\"pkts\":300,\"bytes\":38400},{\"port\":9003,\"pkts\":400,\"bytes\":51200},"
	"{\"port\":8999,\"pkts\":7,\"bytes\":7},{\"port\":9004,\"pkts\":7,\"bytes\":7},"
	"{\"port\":\"x\",\"pkts\":7},{\"pkts\":7}]}";
static const char sender_json[] =
	"{\"duration_s\":2,\"pps\":1100,\"cpu_ns_per_pkt\":50,\"sent_pkts\":2200}";

struct fixture {
	struct opts o;
	struct env e;
	struct ctx x;
};

static int fixture_init(struct fixture *t)
{
	char err[256];

	memset(t, 0, sizeof(*t));
	t->o.flows = 4;
	t->o.base_port = 9000;
	t->e.remote_fd = -1;
	t->x.o = &t->o;
	t->x.e = &t->e;
	t->x.cfg = xtx_sched_config__parse_string(tree, "t", err, sizeof(err));
	if (!CHECK(t->x.cfg != NULL))
		return -1;
	return CHECK(tc_plan__build(t->x.cfg, "tx0", 9000, 4, &t->x.plan, err,
				    sizeof(err)) == 0) ? 0 : -1;
}

static void fixture_fini(struct fixture *t)
{
	tc_plan__free(&t->x.plan);
	xtx_sched_config__free(t->x.cfg);
}

/* One measurement of path p with the summaries above. */
static void measure_fixed(struct fixture *t, enum path_id p, struct meas *m)
{
	char err[256];

	CHECK_EQ_I64(0, meas_init(&t->x, m, p, 2, 128, 1));
	m->sender = json_parse(sender_json, err, sizeof(err));
	m->sink = json_parse(sink_json, err, sizeof(err));
	if (CHECK(m->sender && m->sink))
		figures(&t->x, m);
}

static void test_figures(void)
{
	static const struct {
		enum path_id path;
		bool remote;
		double duration_s;	/* the sender's send time, or the sink's arrival span */
	} rows[] = {
		{ P_XTX, false, 2 },
		{ P_KERNEL_HTB, true, 2 },
		{ P_FWD_XTX_SHAPE, false, 1.5 },
	};
	struct fixture t;

	if (fixture_init(&t))
		return;
	CHECK_EQ_U64(2, t.x.plan.nleaves);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct meas m;

		t.e.remote_fd = rows[i].remote ? 5 : -1;
		measure_fixed(&t, rows[i].path, &m);
		CHECK_NEAR(rows[i].duration_s, m.duration_s, 1e-12);
		CHECK_NEAR(1000 / rows[i].duration_s, m.pps, 1e-12);
		CHECK_NEAR(128000 / rows[i].duration_s, m.bytes_per_s, 1e-12);
		CHECK_NEAR(1100, m.offered_pps, 1e-12);
		CHECK_NEAR(50, m.cpu_ns_per_pkt, 1e-12);
		CHECK_NEAR(2200, m.sent_pkts, 1e-12);
		/* one clock only when sender and sink share a host */
		if (rows[i].remote) {
			CHECK(isnan(m.d50) && isnan(m.d99) && isnan(m.d999));
		} else {
			CHECK_NEAR(10, m.d50, 1e-12);
			CHECK_NEAR(20, m.d99, 1e-12);
			CHECK_NEAR(30, m.d999, 1e-12);
		}
		for (unsigned f = 0; f < 4; f++) {
			CHECK_NEAR(100.0 * (f + 1), m.flow_pkts[f], 1e-12);
			CHECK_NEAR(12800.0 * (f + 1), m.flow_bytes[f], 1e-12);
		}
		/* flow i -> leaf i mod 2: leaf 1:10 has flows 0 and 2, 1:20 flows 1 and 3 */
		CHECK_NEAR(400, m.leaf_pkts[0], 1e-12);
		CHECK_NEAR(600, m.leaf_pkts[1], 1e-12);
		CHECK_NEAR(51200, m.leaf_bytes[0], 1e-12);
		CHECK_NEAR(76800, m.leaf_bytes[1], 1e-12);
		/* Jain (sum x)^2 / (n sum x^2): 400^2 / (2 * 100000), 600^2 / (2 * 200000) */
		CHECK_NEAR(0.8, m.leaf_jain[0], 1e-12);
		CHECK_NEAR(0.9, m.leaf_jain[1], 1e-12);
		CHECK_NEAR(0.8, m.jain_min, 1e-12);
		meas_free(&m);
		CHECK(m.sender == NULL && m.sink == NULL && m.flow_pkts == NULL);
	}
	fixture_fini(&t);
}

static void test_record(void)
{
	struct fixture t;
	struct meas m;
	char path[] = "/tmp/test_compare_meas.XXXXXX";
	int fd;

	if (fixture_init(&t))
		return;
	/* a path that runs once is recorded with N = 1 */
	CHECK_EQ_I64(0, meas_init(&t.x, &m, P_AFXDP, 4, 1514, 3));
	CHECK_EQ_U64(1, m.producers);
	CHECK_EQ_U64(1514, m.size);
	CHECK_EQ_U64(3, m.run);
	CHECK(!m.ok && m.qdisc_restored && !m.error[0]);
	CHECK(isnan(m.pps) && isnan(m.d50) && isnan(m.jain_min) && isnan(m.offered_pps));
	/* the first error is kept */
	set_error(&m, "first %d", 1);
	set_error(&m, "second");
	CHECK_STR_CONTAINS(m.error, "first 1");
	CHECK(strstr(m.error, "second") == NULL);
	meas_free(&m);

	/* The qdisc checks of a run: passes change nothing; a failure is recorded and a
	 * later pass does not undo it (a shaped send run is checked in end_shaped_run,
	 * then measure_send records its own check). */
	snprintf(t.e.qd_dev, sizeof(t.e.qd_dev), "tx0");
	{
		static const struct {
			bool checks[3];		/* qdisc_restore's same, in order */
			bool restored;
		} rows[] = {
			{ { true, true, true }, true },
			{ { false, true, true }, false },
			{ { true, false, true }, false },
			{ { false, false, false }, false },
		};

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			CHECK_EQ_I64(0, meas_init(&t.x, &m, P_KERNEL_HTB, 1, 64, 1));
			for (size_t k = 0; k < 3; k++)
				qdisc_record(&t.x, &m, rows[i].checks[k]);
			if (!CHECK_EQ_I64(rows[i].restored, m.qdisc_restored))
				fprintf(stderr, "    row %zu\n", i);
			if (rows[i].restored)
				CHECK_EQ_I64(0, strlen(m.error));
			else
				CHECK_STR_CONTAINS(m.error, "the qdisc of tx0 is not as it was "
						   "after the run");
			meas_free(&m);
		}
	}

	/* summaries: none, bad JSON, good */
	{
		static const struct {
			const char *text, *none_why, *want;
		} rows[] = {
			{ NULL, "no output", "cannot read xtx-sink's JSON summary (no output)" },
			{ "{\"a\":", "no output", "cannot read xtx-sink's JSON summary (offset " },
		};
		struct json *j = NULL;

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			CHECK_EQ_I64(0, meas_init(&t.x, &m, P_XTX, 1, 64, 1));
			CHECK_EQ_I64(-1, parse_summary(&m, &j, rows[i].text, "xtx-sink",
						       rows[i].none_why));
			CHECK(j == NULL);
			CHECK_STR_CONTAINS(m.error, rows[i].want);
			meas_free(&m);
		}
		CHECK_EQ_I64(0, meas_init(&t.x, &m, P_XTX, 1, 64, 1));
		CHECK_EQ_I64(0, parse_summary(&m, &m.sender, "{\"a\":1}", "the sender", NULL));
		CHECK(m.sender != NULL && !m.error[0]);
		meas_free(&m);
	}

	/* the tail of a stderr file, and the exit code in the failure message */
	fd = mkstemp(path);
	if (CHECK(fd >= 0)) {
		static const char text[] = "one\ntwo\nthree\n\n";
		char tail[64];

		CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1);
		close(fd);
		tail_of(path, tail, sizeof(tail));
		CHECK_STR_CONTAINS(tail, "two three");
		CHECK(strstr(tail, "one") == NULL);
		CHECK_EQ_I64(0, meas_init(&t.x, &m, P_XTX, 1, 64, 1));
		set_exit_error(&m, "xtx-shape", 3 << 8, path);	/* exited with 3 */
		CHECK_STR_CONTAINS(m.error, "xtx-shape failed (exit 3): two three");
		meas_free(&m);
		CHECK_EQ_I64(0, meas_init(&t.x, &m, P_XTX, 1, 64, 1));
		set_exit_error(&m, "pkt-send", SIGKILL, path);	/* killed by a signal */
		CHECK_STR_CONTAINS(m.error, "pkt-send failed (exit -1): two three");
		meas_free(&m);
		unlink(path);
	}
	fixture_fini(&t);
}

/* The arguments of a as one string, blank-separated. */
static void joined(const struct argv_buf *a, char *out, size_t len)
{
	size_t k = 0;

	out[0] = 0;
	for (unsigned i = 0; i < a->n && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, "%s%s", i ? " " : "", a->v[i]);
}

static void test_argv(void)
{
	struct opts o = { .flows = 16, .base_port = 9000, .nallow_dst = 2 };
	struct env e = { .remote_fd = -1 };
	struct argv_buf a = { .n = 0 };
	char s[1024];

	o.allow_dst[0] = "10.0.0.0/8";
	o.allow_dst[1] = "2001:db8::/32";
	snprintf(e.tx_dev, sizeof(e.tx_dev), "tx0");
	snprintf(e.dst_ip, sizeof(e.dst_ip), "198.18.0.2");
	snprintf(e.dst_mac, sizeof(e.dst_mac), "02:00:00:00:00:02");

	av_add(&a, "%s/pkt-send", "/opt/bin");
	av_dst(&a, &e);
	av_load(&a, &o, 128, 1.5);
	joined(&a, s, sizeof(s));
	CHECK_STR_CONTAINS(s, "/opt/bin/pkt-send --dev tx0 --dst-ip 198.18.0.2 --dst-mac "
			   "02:00:00:00:00:02 --size 128 --flows 16 --dst-port 9000 --duration 1.5 "
			   "--json --allow-dst 10.0.0.0/8 --allow-dst 2001:db8::/32");
	CHECK(strstr(s, "--allow-any-dst") == NULL);
	CHECK(a.v[a.n] == NULL);
	CHECK_STR_CONTAINS(av_prog(&a), "pkt-send");
	CHECK_EQ_I64(0, strcmp(av_prog(&a), "pkt-send"));

	o.nallow_dst = 0;
	o.allow_any_dst = true;
	a = (struct argv_buf){ .n = 0 };
	av_load(&a, &o, 64, 2);
	joined(&a, s, sizeof(s));
	CHECK_STR_CONTAINS(s, "--duration 2 --json --allow-any-dst");

	/* every sink: the namespace only when there is one */
	{
		static const struct { const char *netns, *want; } rows[] = {
			{ NULL, "/b/xtx-sink --dev rx0 --ports 9000-9015 --interval 0" },
			{ "", "/b/xtx-sink --dev rx0 --ports 9000-9015 --interval 0" },
			{ "ns1", "/b/xtx-sink --netns ns1 --dev rx0 --ports 9000-9015 --interval 0" },
		};

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			a = (struct argv_buf){ .n = 0 };
			av_sink(&a, "/b", rows[i].netns, "rx0", 9000, 9015);
			joined(&a, s, sizeof(s));
			if (!CHECK(strcmp(s, rows[i].want) == 0))
				fprintf(stderr, "    expected \"%s\"\n    actual   \"%s\"\n",
					rows[i].want, s);
		}
	}
	/* an argument that does not fit is left out, and the vector stays terminated */
	a = (struct argv_buf){ .n = 0 };
	for (unsigned i = 0; i < 200; i++)
		av_opt(&a, "--x", "%u", i);
	CHECK(a.n == sizeof(a.v) / sizeof(a.v[0]) - 1 && a.v[a.n] == NULL);
}

static void test_await_file(void)
{
	char dir[] = "/tmp/test_compare_await.XXXXXX", path[64], cmd[160];
	static const struct {
		const char *script;	/* %s: the file */
		double timeout_s;
		int want;
	} rows[] = {
		{ "sleep 0.1; : > %s; sleep 5", 5, 0 },
		{ "exit 3", 5, 1 },
		{ "sleep 5", 0.2, -ETIMEDOUT },
	};

	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	snprintf(path, sizeof(path), "%s/ready", dir);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct child c;
		char *argv[] = { (char *)"sh", (char *)"-c", cmd, NULL };
		int status = -1, rc;

		unlink(path);
		snprintf(cmd, sizeof(cmd), rows[i].script, path);
		if (!CHECK(proc_spawn(&c, NULL, argv, NULL, NULL) == 0))
			continue;
		rc = proc_await_file(&c, path, rows[i].timeout_s, &status);
		if (!CHECK_EQ_I64(rows[i].want, rc))
			fprintf(stderr, "    row %zu: %s\n", i, cmd);
		if (rc == 1)
			CHECK_EQ_I64(3, exit_code(status));
		CHECK(rc == 1 ? c.pid == 0 : c.pid != 0);	/* reaped only when it exited */
		proc_stop(&c, SIGKILL, 1);
	}
	/* a stop request ends the wait */
	{
		struct child c;
		char *argv[] = { (char *)"sleep", (char *)"5", NULL };

		unlink(path);
		if (CHECK(proc_spawn(&c, NULL, argv, NULL, NULL) == 0)) {
			g_stop = 1;
			CHECK_EQ_I64(-EINTR, proc_await_file(&c, path, 5, NULL));
			g_stop = 0;
			proc_stop(&c, SIGKILL, 1);
		}
	}
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_figures();
	test_record();
	test_argv();
	test_await_file();
	return check_summary("test_compare_meas");
}
