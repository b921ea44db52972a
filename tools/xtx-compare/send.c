/* SPDX-License-Identifier: BSD-3-Clause */
/* send.c - one measurement of --mode send: set the qdisc the path needs, start the sink,
 * run the sender for the duration, put the qdisc back at once (which also drops a shaped
 * backlog, so nothing queued is counted after the sender stopped), stop the sink, and turn
 * the two JSON summaries into figures (meas.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"

#define SEND_SLACK_S	30	/* a sender's time beyond its duration before it is stopped */

/* --- sink -------------------------------------------------------------------------- */

static const struct ready_spec sink_ready = {
	.what = "xtx-sink", .doing = "attaching", .late = "did not attach", .timeout_s = 15,
	.grace_s = 5,
};

static int sink_start(struct ctx *x, struct child *c, struct meas *m)
{
	struct opts *o = x->o;
	struct env *e = x->e;
	struct argv_buf a = { .n = 0 };
	char ready[256], out[256], err[256], msg[512];

	if (e->remote_fd >= 0) {
		if (remote_start(e->remote_fd, o->base_port, o->base_port + o->flows - 1, msg,
				 sizeof(msg))) {
			set_error(m, "remote sink: %s", msg);
			return -1;
		}
		return 0;
	}
	snprintf(ready, sizeof(ready), "%s/sink.ready", e->tmpdir);
	snprintf(out, sizeof(out), "%s/sink.json", e->tmpdir);
	snprintf(err, sizeof(err), "%s/sink.err", e->tmpdir);
	unlink(ready);
	av_sink(&a, e->bindir, e->rx_netns, e->rx_dev, o->base_port, o->base_port + o->flows - 1);
	av_delay_mod(&a, &x->plan);
	av_add(&a, "--json");
	av_opt(&a, "--ready-file", "%s", ready);
	if (proc_spawn(c, NULL, a.v, out, err)) {
		set_error(m, "cannot start xtx-sink: %s", strerror(errno));
		return -1;
	}
	return await_ready(m, c, ready, err, &sink_ready);
}

/* Stop the sink; returns its JSON text (malloc'd) or NULL with m->error set. */
static char *sink_stop(struct ctx *x, struct child *c, struct meas *m)
{
	char path[256], msg[512];
	int status = 0;

	if (x->e->remote_fd >= 0) {
		char *t = remote_stop(x->e->remote_fd, msg, sizeof(msg));

		if (!t)
			set_error(m, "remote sink: %s", msg);
		return t;
	}
	if (!c->pid)
		return NULL;
	kill(c->pid, SIGINT);
	if (proc_wait(c, 15, &status)) {
		proc_stop(c, SIGKILL, 1);
		set_error(m, "xtx-sink did not stop within 15 s of SIGINT");
		return NULL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(path, sizeof(path), "%s/sink.err", x->e->tmpdir);
		tail_of(path, msg, sizeof(msg));
		set_error(m, "xtx-sink failed: %s", msg);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/sink.json", x->e->tmpdir);
	return read_file(path, 64 << 20);
}

/* --- senders ----------------------------------------------------------------------- */

static void sender_argv(struct ctx *x, enum path_id p, unsigned n, unsigned size,
			double duration, struct argv_buf *a)
{
	struct opts *o = x->o;
	struct env *e = x->e;

	switch (p) {
	case P_KERNEL_HTB:
	case P_KERNEL_MQ_HTB:
	case P_KERNEL_NOQUEUE:
	case P_KERNEL_PFIFO_FAST:
		av_add(a, "%s/udp-send", e->bindir);
		av_opt(a, "--dst-ip", "%s", e->dst_ip);
		av_opt(a, "--dev", "%s", e->tx_dev);
		av_opt(a, "--threads", "%u", n);
		if (o->sndbuf)
			av_opt(a, "--sndbuf", "%u", o->sndbuf);
		break;
	case P_PACKET_HTB:
	case P_PACKET_BYPASS:
		av_add(a, "%s/pkt-send", e->bindir);
		av_dst(a, e);
		av_opt(a, "--threads", "%u", n);
		if (o->sndbuf)
			av_opt(a, "--sndbuf", "%u", o->sndbuf);
		if (p == P_PACKET_BYPASS)
			av_add(a, "--qdisc-bypass");
		break;
	case P_XTX:
		av_add(a, "%s/xtx-send", e->bindir);
		av_dst(a, e);
		av_opt(a, "--producers", "%u", n);
		av_opt(a, "--queues", "%u", o->queues);
		av_opt(a, "--classes", "%s", e->classes_path);
		av_add(a, "--drop");
		av_opt(a, "--interval", "0");
		for (unsigned i = 0; i < o->nsend_opts; i++)
			av_add(a, "%s", o->send_opts[i]);
		break;
	case P_AFXDP:
		av_add(a, "%s/xsk-plain", e->bindir);
		av_dst(a, e);
		av_opt(a, "--queues", "1");
		break;
	case P_FWD_KERNEL_HTB:
	case P_FWD_XTX_SHAPE:	/* forward.c has its own sender */
	case P__MAX:
		break;
	}
	av_load(a, o, size, duration);
	if (p != P_XTX) {	/* xtx-send stamps by default and has no --quiet */
		av_add(a, "--stamp");
		av_add(a, "--quiet");
	}
}

/* End a run through a shaped qdisc so that the sink counts exactly what left the qdisc
 * during the sender's own send time (the denominator of every rate). Left to end by
 * itself, the sender's time would stop first and the shaped backlog (up to a leaf's
 * limit) would keep draining into the sink until the qdisc is deleted: counted but not
 * timed. So:
 *   1. SIGSTOP the sender: it sends nothing more, its clock keeps running; the qdisc
 *      keeps sending at the shaped rate, which the sender's time covers; for
 *      kernel-mq-htb, read what each queue's htb sent per leaf (qdisc_queue_stats);
 *   2. replace the root qdisc with "pfifo limit 0": the backlog is dropped, and
 *      whatever is sent from now on is dropped too;
 *   3. SIGINT + SIGCONT: the sender stops (its last sendmmsg calls fail with ENOBUFS)
 *      and prints its summary;
 *   4. delete the root qdisc (qdisc_restore) and record the check in m (qdisc_record;
 *      the caller's own record afterwards cannot undo a failure).
 * Returns 1 if the sender exited by itself meanwhile (*status set, reaped), else 0. */
static int end_shaped_run(struct ctx *x, struct child *snd, struct meas *m, int *status)
{
	char line[TC_LINE_MAX], out[1024];
	bool same;
	int exited = proc_pause(snd, 5, status);

	if (path_defs[m->path].qdisc == QD_MQ_HTB)
		qdisc_queue_stats(x, m);
	snprintf(line, sizeof(line), "qdisc replace dev %s root pfifo limit 0", x->e->qd_dev);
	if (tc_line(x, line, out, sizeof(out)))
		set_error(m, "'tc %s' failed: %.200s", line, out);
	if (!exited) {
		kill(snd->pid, SIGINT);
		kill(snd->pid, SIGCONT);
	}
	qdisc_restore(x, &same);
	qdisc_record(x, m, same);
	return exited;
}

/* Run the sender to its end; m->error says why if it did not end well. Through a shaped
 * qdisc the end of the run is ours (end_shaped_run, which puts the qdisc back and records
 * the check: then *changed is cleared); the sender gets SEND_SLACK_S more than the
 * duration, only as a bound. Returns 0, or -1 if the sender could not be started. */
static int run_sender(struct ctx *x, enum path_id p, unsigned n, unsigned size,
		       struct meas *m, bool *changed)
{
	struct env *e = x->e;
	struct child snd = { .pid = 0 };
	struct argv_buf a = { .n = 0 };
	char out[256], err[256];
	bool shaped_q = path_defs[p].qdisc == QD_HTB || path_defs[p].qdisc == QD_MQ_HTB;
	int status = 0, rc;

	snprintf(out, sizeof(out), "%s/send.json", e->tmpdir);
	snprintf(err, sizeof(err), "%s/send.err", e->tmpdir);
	sender_argv(x, p, n, size, x->o->duration + (shaped_q ? SEND_SLACK_S : 0), &a);
	if (proc_spawn(&snd, e->tx_netns, a.v, out, err)) {
		set_error(m, "cannot start %s: %s", a.v[0], strerror(errno));
		return -1;
	}
	rc = proc_wait(&snd, x->o->duration + (shaped_q ? 0 : SEND_SLACK_S), &status);
	if (shaped_q && rc == -ETIMEDOUT) {
		rc = end_shaped_run(x, &snd, m, &status) ? 0 : proc_wait(&snd, 30, &status);
		*changed = false;
	}
	if (rc == -EINTR) {
		proc_stop(&snd, SIGINT, 10);
		set_error(m, "interrupted");
	} else if (rc == -ETIMEDOUT) {
		proc_stop(&snd, SIGINT, 10);
		set_error(m, "%s did not finish within its duration + %d s; stopped",
			  av_prog(&a), SEND_SLACK_S);
	} else if (rc || !WIFEXITED(status) || WEXITSTATUS(status)) {
		set_exit_error(m, av_prog(&a), status, err);
	}
	return 0;
}

/* --- one measurement ----------------------------------------------------------------- */

int measure_send(struct ctx *x, enum path_id p, unsigned n, unsigned size, struct meas *m)
{
	struct env *e = x->e;
	struct child sink = { .pid = 0 };
	char path[256], msg[512];
	char *snd_text = NULL, *sink_text = NULL;
	bool changed = path_defs[p].qdisc != QD_NONE, same = true, sink_on = false;

	if (changed && qdisc_apply(x, p, m))
		goto restore;
	if (sink_start(x, &sink, m))
		goto restore;
	sink_on = true;
	/* Then put the qdisc back at once (for the shaped paths, end_shaped_run did). */
	if (run_sender(x, p, n, size, m, &changed) == 0 && changed) {
		qdisc_restore(x, &same);
		changed = false;
	}
	if (!g_stop)
		msleep(300);	/* frames still in the receiving veth's NAPI */
	sink_text = sink_stop(x, &sink, m);
	sink_on = false;
restore:
	if (sink_on && e->remote_fd >= 0)
		free(remote_stop(e->remote_fd, msg, sizeof(msg)));
	if (sink.pid)
		proc_stop(&sink, SIGINT, 10);
	if (changed)
		qdisc_restore(x, &same);
	qdisc_record(x, m, same);
	if (m->error[0])
		goto out;

	snprintf(path, sizeof(path), "%s/send.json", e->tmpdir);
	snd_text = read_file(path, 1 << 20);
	if (parse_summary(m, &m->sender, snd_text, "the sender", snd_text ? NULL : strerror(errno)) ||
	    parse_summary(m, &m->sink, sink_text, "xtx-sink", "no output"))
		goto out;
	if (!(json_num(m->sender, "duration_s") > 0)) {
		set_error(m, "the sender reports no send time (duration_s)");
		goto out;
	}
	if (p == P_XTX && json_str(m->sender, "mode"))
		snprintf(e->xtx_mode, sizeof(e->xtx_mode), "%s", json_str(m->sender, "mode"));
	if (p == P_AFXDP && json_str(m->sender, "mode"))
		snprintf(e->afxdp_mode, sizeof(e->afxdp_mode), "%s", json_str(m->sender, "mode"));
	figures(x, m);
	m->ok = true;
out:
	free(snd_text);
	free(sink_text);
	return m->ok ? 0 : -1;
}
