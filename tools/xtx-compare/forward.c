/* SPDX-License-Identifier: BSD-3-Clause */
/* forward.c - one measurement of --mode forward: the three-namespace testbed
 * (tx0 -> fw0 [forwarder] fw1 -> rx0), the same sender and the same class tree for
 * both forwarders:
 *   kernel-fwd-htb  the kernel's IPv4 forwarding, the tree as tc htb + u32 filters on
 *                   fw1 (qdisc_apply on the qdisc device, restored after the run);
 *   xtx-shape       xtx-shape in router mode on fw0 -> fw1, the same tree, a rules file
 *                   that puts every flow's port into the leaf the u32 filters use.
 *
 * Timing. The sender runs first, for FWD_WARMUP_MS, so that queues are full and rates
 * settled; then xtx-sink counts for --duration seconds (the span from the first frame it
 * counted to the last, its arrival_s, is the denominator of every rate); then the sender
 * is stopped. So start-up and the backlog
 * drained at the end are never counted, and the sender is known to have been sending
 * for the whole window (checked: a sender that ended early fails the measurement).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"

#define FWD_SLACK_S	30	/* sender's --duration beyond warm-up + window: only a bound,
				 * it is stopped as soon as the sink is done */

/* One rule per flow (flow i -> leaf i mod L, as tc_plan__build's u32 filters); runs of
 * consecutive ports of one leaf become one range, which with one leaf is a single rule. */
int fwd_rules_write(struct ctx *x, const char *path, char *err, size_t errlen)
{
	const struct opts *o = x->o;
	unsigned nrules = 0;
	FILE *f = fopen(path, "we");

	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "# xtx-compare --mode forward: flow i (UDP port %u + i) -> leaf i mod %u, as "
		"the tc u32 filters\n", o->base_port, x->plan.nleaves);
	for (unsigned f0 = 0; f0 < o->flows; nrules++) {
		unsigned l = tc_plan__flow_leaf(&x->plan, f0), f1 = f0;
		char h[24];

		while (f1 + 1 < o->flows && tc_plan__flow_leaf(&x->plan, f1 + 1) == l)
			f1++;
		tc_fmt_handle(x->plan.leaves[l].handle, h, sizeof(h));
		if (f1 > f0)
			fprintf(f, "match proto udp dport %u-%u class %s\n", o->base_port + f0,
				o->base_port + f1, h);
		else
			fprintf(f, "match proto udp dport %u class %s\n", o->base_port + f0, h);
		f0 = f1 + 1;
	}
	if (fclose(f)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	if (nrules > FWD_MAX_RULES) {
		snprintf(err, errlen, "--mode forward: %u flows over %u leaves need %u xtx-shape "
			 "rules (one per flow), more than its %d; give --flows %d or fewer",
			 o->flows, x->plan.nleaves, nrules, FWD_MAX_RULES, FWD_MAX_RULES);
		return -E2BIG;
	}
	return 0;
}

static void sender_argv(struct ctx *x, unsigned size, double duration, struct argv_buf *a)
{
	const struct opts *o = x->o;
	const struct env *e = x->e;

	if (o->rate) {
		av_add(a, "%s/xtx-send", e->bindir);
		av_opt(a, "--producers", "%u", o->producers[0]);
		av_opt(a, "--rate", "%s", o->rate);
		av_add(a, "--drop");
		av_opt(a, "--interval", "0");
	} else {
		av_add(a, "%s/xsk-plain", e->bindir);
		av_add(a, "--stamp");
		av_add(a, "--quiet");
	}
	av_dst(a, e);
	av_opt(a, "--queues", "%u", o->queues);
	av_load(a, o, size, duration);
}

/* --- the forwarders ----------------------------------------------------------------- */

static const struct ready_spec shape_ready = {
	.what = "xtx-shape", .doing = "forwarding", .late = "was not forwarding",
	.timeout_s = 20, .grace_s = 10,	/* start to forwarding: loads XDP, binds sockets */
};

static int shape_start(struct ctx *x, struct child *c, struct meas *m)
{
	const struct env *e = x->e;
	struct argv_buf a = { .n = 0 };
	char ready[256], out[256], err[256];

	snprintf(ready, sizeof(ready), "%s/shape.ready", e->tmpdir);
	snprintf(out, sizeof(out), "%s/shape.json", e->tmpdir);
	snprintf(err, sizeof(err), "%s/shape.err", e->tmpdir);
	unlink(ready);
	av_add(&a, "%s/xtx-shape", e->bindir);
	av_opt(&a, "--netns", "%s", e->fw_netns);
	av_opt(&a, "--in", "%s", e->fw_in_dev);
	av_opt(&a, "--out", "%s", e->fw_out_dev);
	av_opt(&a, "--queues", "%u", x->o->queues);
	/* One egress queue: one scheduler, exact HTB rates (with more, every rate applies
	 * per queue), the same as the single tc htb qdisc on fw1. */
	av_opt(&a, "--tx-queues", "1");
	av_opt(&a, "--classes", "%s", e->classes_path);
	av_opt(&a, "--rules", "%s", e->rules_path);
	av_opt(&a, "--interval", "0");
	av_add(&a, "--json");
	/* The backlog left at the end is dropped, as tc's is when the qdisc is deleted. */
	av_add(&a, "--drop");
	for (unsigned i = 0; i < x->o->nshape_opts; i++)
		av_add(&a, "%s", x->o->shape_opts[i]);
	av_opt(&a, "--ready-file", "%s", ready);
	if (proc_spawn(c, NULL, a.v, out, err)) {
		set_error(m, "cannot start xtx-shape: %s", strerror(errno));
		return -1;
	}
	return await_ready(m, c, ready, err, &shape_ready);
}

/* The sum of the numbers that are members of object j (NaN-free; 0 if absent). */
static double sum_members(const struct json *j)
{
	double s = 0;

	for (unsigned i = 0; j && j->type == JSON_OBJ && i < j->n; i++)
		if (j->items[i].type == JSON_NUM)
			s += j->items[i].num;
	return s;
}

/* xtx-shape's xdp.NAME.pkts, 0 if absent (an older summary). */
static double xdp_num(const struct json *j, const char *name)
{
	char path[64];
	double v;

	snprintf(path, sizeof(path), "xdp.%s.pkts", name);
	v = json_num(j, path);
	return isfinite(v) ? v : 0;
}

/* SIGINT xtx-shape (it detaches XDP first, then drops its backlog) and read its summary:
 * sent = tx.sent_pkts; dropped = every drop counter of its scheduler (tx.drops), of its
 * receive path (rx.drops), of the kernel's AF_XDP receive ring (rx.kernel) and of its XDP
 * program's policing (xdp.policed). */
static void shape_stop(struct ctx *x, struct child *c, struct meas *m)
{
	char path[256];
	int status = 0, rc;
	char *t;

	if (!c->pid)
		return;
	kill(c->pid, SIGINT);
	if (proc_wait(c, 15, &status)) {
		proc_stop(c, SIGKILL, 1);
		set_error(m, "xtx-shape did not stop within 15 s of SIGINT");
		return;
	}
	snprintf(path, sizeof(path), "%s/shape.err", x->e->tmpdir);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		set_exit_error(m, "xtx-shape", status, path);
		return;
	}
	snprintf(path, sizeof(path), "%s/shape.json", x->e->tmpdir);
	t = read_file(path, 1 << 20);
	rc = parse_summary(m, &m->forwarder, t, "xtx-shape", "no output");
	free(t);
	if (rc)
		return;
	if (json_str(m->forwarder, "xdp_mode"))
		snprintf(x->e->shape_mode, sizeof(x->e->shape_mode), "%s %s",
			 json_str(m->forwarder, "xdp_mode"),
			 json_str(m->forwarder, "af_xdp") ? json_str(m->forwarder, "af_xdp") : "");
	m->fwd_pkts = json_num(m->forwarder, "tx.sent_pkts");
	m->fwd_drops = sum_members(json_get(m->forwarder, "tx.drops")) +
		       sum_members(json_get(m->forwarder, "rx.drops")) +
		       json_num(m->forwarder, "rx.kernel.dropped") +
		       json_num(m->forwarder, "rx.kernel.rx_ring_full") +
		       xdp_num(m->forwarder, "policed");
}

/* The root qdisc's counters on the qdisc device (`tc -s -j qdisc show`), kept as the
 * forwarder's summary: sent packets and drops (htb counts its leaves' drops at the root). */
static void tc_stats(struct ctx *x, struct meas *m)
{
	char line[128], jerr[256];
	char *out = malloc(65536);
	struct json *j;

	if (!out)
		return;
	snprintf(line, sizeof(line), "-s -j qdisc show dev %s", x->e->qd_dev);
	if (tc_line(x, line, out, 65536)) {
		free(out);
		return;	/* the figures stay NaN: not worth failing the measurement */
	}
	j = json_parse(out, jerr, sizeof(jerr));
	free(out);
	for (unsigned i = 0; j && j->type == JSON_ARR && i < j->n; i++) {
		const struct json *q = &j->items[i];
		const struct json *root = json_get(q, "root");

		if (root && root->type == JSON_BOOL && root->b) {
			m->fwd_pkts = json_num(q, "packets");
			m->fwd_drops = json_num(q, "drops");
		}
	}
	m->forwarder = j;
}

/* True if dev in netns has an XDP program attached (`ip -o link` shows "xdp",
 * "xdpgeneric", "xdpmulti" ...). A forwarder or sink that left one behind would change
 * the next path's measurement, so it fails the measurement instead. */
static bool xdp_attached(const char *netns, const char *dev)
{
	char out[4096];
	char *argv[] = { (char *)"ip", (char *)"-n", (char *)netns, (char *)"-o", (char *)"link",
			 (char *)"show", (char *)"dev", (char *)dev, NULL };

	if (proc_run(NULL, argv, 10, out, sizeof(out)))
		return false;	/* the testbed's removal says the rest */
	return strstr(out, " xdp") != NULL;
}

/* --- one measurement ----------------------------------------------------------------- */

static int sink_run(struct ctx *x, struct child *c, struct meas *m)
{
	const struct opts *o = x->o;
	const struct env *e = x->e;
	struct argv_buf a = { .n = 0 };
	char out[256], err[256], msg[512];
	int status = 0, rc;

	snprintf(out, sizeof(out), "%s/sink.json", e->tmpdir);
	snprintf(err, sizeof(err), "%s/sink.err", e->tmpdir);
	av_sink(&a, e->bindir, e->rx_netns, e->rx_dev, o->base_port, o->base_port + o->flows - 1);
	av_delay_mod(&a, &x->plan);
	av_opt(&a, "--duration", "%g", o->duration);
	av_add(&a, "--json");
	if (proc_spawn(c, NULL, a.v, out, err)) {
		set_error(m, "cannot start xtx-sink: %s", strerror(errno));
		return -1;
	}
	rc = proc_wait(c, o->duration + 20, &status);
	if (rc) {
		proc_stop(c, SIGINT, 10);
		set_error(m, rc == -EINTR ? "interrupted" : "xtx-sink did not finish within its "
			  "duration + 20 s");
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		tail_of(err, msg, sizeof(msg));
		set_error(m, "xtx-sink failed: %s", msg);
		return -1;
	}
	return 0;
}

/* SIGINT the sender, still sending after the window, and reap it. */
static void stop_sender(struct child *snd, const char *what, const char *errpath,
			struct meas *m)
{
	int status = 0, rc;

	if (!snd->pid)
		return;
	kill(snd->pid, SIGINT);
	rc = proc_wait(snd, 15, &status);
	if (rc == -EINTR) {
		proc_stop(snd, SIGINT, 10);
		set_error(m, "interrupted");
	} else if (rc) {
		proc_stop(snd, SIGKILL, 1);
		set_error(m, "%s did not stop within 15 s of SIGINT", what);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		set_exit_error(m, what, status, errpath);
	}
}

/* Run the sender, and after FWD_WARMUP_MS the sink for the window; on return the sender
 * has exited or been stopped, and m->error says what went wrong, if anything. */
static void run_window(struct ctx *x, struct child *snd, unsigned size, struct meas *m)
{
	struct env *e = x->e;
	struct child sink = { .pid = 0 };
	struct argv_buf a = { .n = 0 };
	char out[256], err[256], msg[512];
	int status = 0;

	snprintf(out, sizeof(out), "%s/send.json", e->tmpdir);
	snprintf(err, sizeof(err), "%s/send.err", e->tmpdir);
	sender_argv(x, size, FWD_WARMUP_MS / 1000.0 + x->o->duration + FWD_SLACK_S, &a);
	if (proc_spawn(snd, e->tx_netns, a.v, out, err)) {
		set_error(m, "cannot start %s: %s", a.v[0], strerror(errno));
		return;
	}
	msleep(FWD_WARMUP_MS);
	if (g_stop) {
		set_error(m, "interrupted");
	} else if (!sink_run(x, &sink, m) && proc_wait(snd, 0, &status) == 0) {
		/* Not running any more? Then it did not send for the whole window. */
		tail_of(err, msg, sizeof(msg));
		set_error(m, "%s ended before the counting window did (exit %d): %s",
			  av_prog(&a), exit_code(status), msg);
		return;
	}
	stop_sender(snd, av_prog(&a), err, m);
}

int measure_forward(struct ctx *x, enum path_id p, unsigned size, struct meas *m)
{
	struct env *e = x->e;
	struct child snd = { .pid = 0 }, shape = { .pid = 0 };
	char path[256];
	char *text;
	bool kernel = p == P_FWD_KERNEL_HTB, same = true;
	int rc;

	if (!(kernel ? qdisc_apply(x, p, m) : shape_start(x, &shape, m)))
		run_window(x, &snd, size, m);
	if (kernel) {
		if (!g_stop)
			tc_stats(x, m);
		qdisc_restore(x, &same);
		qdisc_record(x, m, same);
	} else {
		shape_stop(x, &shape, m);
	}
	if (snd.pid)
		proc_stop(&snd, SIGINT, 10);
	if (!g_stop && xdp_attached(e->fw_netns, e->fw_in_dev))
		set_error(m, "an XDP program is still attached to %s after the run", e->fw_in_dev);
	if (!g_stop && xdp_attached(e->rx_netns, e->rx_dev))
		set_error(m, "an XDP program is still attached to %s after the run", e->rx_dev);
	if (m->error[0])
		return -1;

	snprintf(path, sizeof(path), "%s/send.json", e->tmpdir);
	text = read_file(path, 1 << 20);
	rc = parse_summary(m, &m->sender, text, "the sender", text ? NULL : strerror(errno));
	free(text);
	if (rc)
		return -1;
	snprintf(path, sizeof(path), "%s/sink.json", e->tmpdir);
	text = read_file(path, 64 << 20);
	rc = parse_summary(m, &m->sink, text, "xtx-sink", "no output");
	free(text);
	if (rc)
		return -1;
	if (!(json_num(m->sink, "arrival_s") > 0)) {
		set_error(m, "xtx-sink reports no arrival span (arrival_s: under two frames)");
		return -1;
	}
	figures(x, m);
	m->ok = true;
	return 0;
}
