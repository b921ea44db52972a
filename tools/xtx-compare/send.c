/* SPDX-License-Identifier: BSD-3-Clause */
/* measure.c - one measurement of one path: set the qdisc the path needs, start the sink,
 * run the sender for the duration, put the qdisc back at once (which also drops a shaped
 * backlog, so nothing queued is counted after the sender stopped), stop the sink, and turn
 * the two JSON summaries into figures.
 *
 * The qdisc. At start the device's `tc qdisc show` is saved. The tool only changes a
 * device whose qdiscs are all the kernel's defaults (handle 0:, as the kernel creates
 * them; ingress/clsact are left alone), because `tc qdisc del dev IF root` is then an
 * exact restore. After every run it deletes the root qdisc and compares `tc qdisc show`
 * with the saved text; a difference stops the whole comparison (main.c).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"

const struct path_def path_defs[P__MAX] = {
	[P_KERNEL_HTB] = { "kernel-htb", "UDP sockets, sendmmsg, N threads; the tree as tc htb "
			   "+ u32 filters", QD_HTB, true, true },
	[P_KERNEL_NOQUEUE] = { "kernel-noqueue", "UDP sockets, sendmmsg, N threads; root "
			       "qdisc noqueue (no qdisc, no shaping)", QD_NOQUEUE, false, true },
	[P_KERNEL_PFIFO_FAST] = { "kernel-pfifo_fast", "UDP sockets, sendmmsg, N threads; root "
				  "pfifo_fast (lockless qdisc, no shaping)", QD_PFIFO_FAST, false,
				  true },
	[P_PACKET_HTB] = { "packet-htb", "PF_PACKET raw frames, sendmmsg, N threads; the tree "
			   "as tc htb", QD_HTB, true, true },
	[P_PACKET_BYPASS] = { "packet-bypass", "PF_PACKET with PACKET_QDISC_BYPASS, N threads "
			      "(no qdisc, no shaping)", QD_NONE, false, true },
	[P_XTX] = { "xtx", "xtx-send: N producers, the tree in xtx's scheduler, AF_XDP",
		    QD_NONE, true, true },
	[P_AFXDP] = { "afxdp", "xsk-plain: one AF_XDP socket, one thread, no scheduling",
		      QD_NONE, false, false },
	[P_FWD_KERNEL_HTB] = { "kernel-fwd-htb", "kernel IPv4 forwarding in the forwarding "
			       "namespace; the tree as tc htb + u32 filters on the egress veth",
			       QD_HTB, true, false, true },
	[P_FWD_XTX_SHAPE] = { "xtx-shape", "xtx-shape (router mode) in the forwarding "
			      "namespace: XDP, AF_XDP and the tree in xtx's scheduler",
			      QD_NONE, true, false, true },
};

/* --- small helpers ------------------------------------------------------------------ */

static void av_vadd(struct argv_buf *a, const char *fmt, va_list ap)
{
	int k;

	if (a->n + 1 >= sizeof(a->v) / sizeof(a->v[0]))
		return;
	k = vsnprintf(a->store + a->used, sizeof(a->store) - a->used, fmt, ap);
	if (k < 0 || (size_t)k >= sizeof(a->store) - a->used)
		return;
	a->v[a->n++] = a->store + a->used;
	a->v[a->n] = NULL;
	a->used += (size_t)k + 1;
}

void av_add(struct argv_buf *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	av_vadd(a, fmt, ap);
	va_end(ap);
}

void av_opt(struct argv_buf *a, const char *name, const char *fmt, ...)
{
	va_list ap;

	av_add(a, "%s", name);
	va_start(ap, fmt);
	av_vadd(a, fmt, ap);
	va_end(ap);
}

void av_dst(struct argv_buf *a, const struct env *e)
{
	av_opt(a, "--dev", "%s", e->tx_dev);
	av_opt(a, "--dst-ip", "%s", e->dst_ip);
	av_opt(a, "--dst-mac", "%s", e->dst_mac);
}

void av_load(struct argv_buf *a, const struct opts *o, unsigned size, double duration)
{
	av_opt(a, "--size", "%u", size);
	av_opt(a, "--flows", "%u", o->flows);
	av_opt(a, "--dst-port", "%u", o->base_port);
	av_opt(a, "--duration", "%g", duration);
	av_add(a, "--json");
	for (unsigned i = 0; i < o->nallow_dst; i++)
		av_opt(a, "--allow-dst", "%s", o->allow_dst[i]);
	if (o->allow_any_dst)
		av_add(a, "--allow-any-dst");
}

void set_error(struct meas *m, const char *fmt, ...)
{
	va_list ap;

	if (m->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(m->error, sizeof(m->error), fmt, ap);
	va_end(ap);
}

/* The last two lines of a tool's stderr, on one line, for an error message. */
void tail_of(const char *path, char *out, size_t len)
{
	char *t = read_file(path, 65536), *p;
	size_t n;

	out[0] = 0;
	if (!t)
		return;
	n = strlen(t);
	while (n && (t[n - 1] == '\n' || t[n - 1] == ' '))
		t[--n] = 0;
	p = t + n;
	for (int lines = 0; p > t; p--)
		if (p[-1] == '\n' && ++lines == 2)
			break;
	snprintf(out, len, "%s", p);
	for (char *q = out; *q; q++)
		if (*q == '\n')
			*q = ' ';
	free(t);
}

/* tc [-n NS] ARGS (ARGS: one command line, blank-separated, no quoting). */
int tc_line(struct ctx *x, const char *line, char *out, size_t outlen)
{
	struct argv_buf a = { .n = 0 };
	char copy[TC_LINE_MAX], *save = NULL;

	av_add(&a, "tc");
	if (x->e->qd_netns[0]) {
		av_opt(&a, "-n", "%s", x->e->qd_netns);
	}
	snprintf(copy, sizeof(copy), "%s", line);
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		av_add(&a, "%s", t);
	return proc_run(NULL, a.v, 30, out, outlen);
}

/* tc [-n NS] -batch FILE with the given lines. */
static int tc_batch(struct ctx *x, char **lines, unsigned n, char *out, size_t outlen)
{
	char path[256];
	struct argv_buf a = { .n = 0 };
	FILE *f;

	if (!n)
		return 0;
	snprintf(path, sizeof(path), "%s/tc.batch", x->e->tmpdir);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
	fclose(f);
	av_add(&a, "tc");
	if (x->e->qd_netns[0]) {
		av_opt(&a, "-n", "%s", x->e->qd_netns);
	}
	av_opt(&a, "-batch", "%s", path);
	return proc_run(NULL, a.v, 60, out, outlen);
}

static int qdisc_show(struct ctx *x, char *out, size_t outlen)
{
	char line[128];

	snprintf(line, sizeof(line), "qdisc show dev %s", x->e->qd_dev);
	return tc_line(x, line, out, outlen);
}

/* True if every qdisc on the device is one the kernel made (handle 0:), ingress/clsact
 * aside: then deleting the root qdisc gives exactly this state back. */
static bool qdisc_is_default(const char *show, char *why, size_t whylen)
{
	const char *p = show;

	while (p && *p) {
		char kind[64], handle[64];
		const char *nl = strchr(p, '\n');

		if (sscanf(p, "qdisc %63s %63s", kind, handle) == 2 &&
		    strcmp(kind, "ingress") && strcmp(kind, "clsact") && strcmp(handle, "0:")) {
			snprintf(why, whylen, "%s %s", kind, handle);
			return false;
		}
		p = nl ? nl + 1 : NULL;
	}
	return true;
}

int qdisc_save(struct ctx *x, char *err, size_t errlen)
{
	char why[160];
	int rc = qdisc_show(x, x->e->saved_qdisc, sizeof(x->e->saved_qdisc));

	if (rc) {
		snprintf(err, errlen, "'tc qdisc show dev %s' failed (%d): %s", x->e->qd_dev, rc,
			 x->e->saved_qdisc);
		return -1;
	}
	x->e->qdisc_ok = qdisc_is_default(x->e->saved_qdisc, why, sizeof(why));
	if (!x->e->qdisc_ok)
		snprintf(err, errlen, "%s has a configured qdisc (%s); %s can only put back the "
			 "kernel's default qdiscs, so it will not run the paths that change the "
			 "qdisc (kernel-htb, kernel-noqueue, kernel-pfifo_fast, packet-htb). To "
			 "run them: save your setup, remove it with 'tc qdisc del dev %s root', run "
			 "again, then restore your setup; or leave them out with --paths",
			 x->e->qd_dev, why, PROG, x->e->qd_dev);
	return 0;
}

/* Delete the root qdisc (the kernel puts its default back) and compare with the saved
 * state. Returns 0 and *same. */
int qdisc_restore(struct ctx *x, bool *same)
{
	char line[128], now[sizeof(x->e->saved_qdisc)];

	*same = false;
	snprintf(line, sizeof(line), "qdisc del dev %s root", x->e->qd_dev);
	for (int attempt = 0; attempt < 3; attempt++) {
		/* Fails harmlessly ("handle of zero") when the default is in place already. */
		tc_line(x, line, now, sizeof(now));
		if (qdisc_show(x, now, sizeof(now)) == 0 && !strcmp(now, x->e->saved_qdisc)) {
			*same = true;
			return 0;
		}
		msleep(100);
	}
	return 0;
}

/* Apply what path p needs. Returns 0 or -1 with m->error set. */
int qdisc_apply(struct ctx *x, enum path_id p, struct meas *m)
{
	char out[2048], line[TC_LINE_MAX];
	char *batch[4096];
	unsigned nb = 0;
	int rc;

	switch (path_defs[p].qdisc) {
	case QD_NONE:
		return 0;
	case QD_NOQUEUE:
		if (!strncmp(x->e->saved_qdisc, "qdisc noqueue 0: root", 21))
			return 0;	/* the device's default already */
		snprintf(line, sizeof(line), "qdisc replace dev %s root noqueue", x->e->qd_dev);
		break;
	case QD_PFIFO_FAST:
		snprintf(line, sizeof(line), "qdisc replace dev %s root pfifo_fast", x->e->qd_dev);
		break;
	case QD_HTB:
		/* Lines without a fallback go through tc -batch (one process for hundreds of
		 * filters); a line with a fallback (fq leaves) runs alone so that its failure
		 * can be told apart. Once fq is known to be missing, the fallback runs at once. */
		for (unsigned i = 0; i < x->plan.ncmds; i++) {
			const struct tc_cmd *c = &x->plan.cmds[i];

			if (!c->fallback[0]) {
				if (nb == sizeof(batch) / sizeof(batch[0])) {
					rc = tc_batch(x, batch, nb, out, sizeof(out));
					nb = 0;
					if (rc)
						goto batch_failed;
				}
				batch[nb++] = (char *)c->line;
				continue;
			}
			rc = tc_batch(x, batch, nb, out, sizeof(out));
			nb = 0;
			if (rc)
				goto batch_failed;
			if (!x->e->fq_probed || x->e->fq_available) {
				rc = tc_line(x, c->line, out, sizeof(out));
				x->e->fq_probed = true;
				x->e->fq_available = rc == 0;
				if (rc == 0)
					continue;
			}
			m->fq_fallback = true;
			rc = tc_line(x, c->fallback, out, sizeof(out));
			if (rc) {
				set_error(m, "'tc %s' failed (%d): %.300s", c->fallback, rc, out);
				return -1;
			}
		}
		rc = tc_batch(x, batch, nb, out, sizeof(out));
		if (rc)
			goto batch_failed;
		return 0;
	}
	rc = tc_line(x, line, out, sizeof(out));
	if (rc) {
		set_error(m, "'tc %s' failed (%d): %.300s", line, rc, out);
		return -1;
	}
	return 0;
batch_failed:
	set_error(m, "tc -batch failed (%d): %.300s", rc, out);
	return -1;
}

/* --- sink -------------------------------------------------------------------------- */

static int sink_start(struct ctx *x, struct child *c, struct meas *m)
{
	struct opts *o = x->o;
	struct env *e = x->e;
	struct argv_buf a = { .n = 0 };
	char ready[256], out[256], err[256], msg[512];
	struct stat st;
	double end;

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
	av_add(&a, "%s/xtx-sink", e->bindir);
	if (e->rx_netns[0]) {
		av_opt(&a, "--netns", "%s", e->rx_netns);
	}
	av_opt(&a, "--dev", "%s", e->rx_dev);
	av_opt(&a, "--ports", "%u-%u", o->base_port, o->base_port + o->flows - 1);
	av_opt(&a, "--interval", "0");
	av_add(&a, "--json");
	av_opt(&a, "--ready-file", "%s", ready);
	if (proc_spawn(c, NULL, a.v, out, err)) {
		set_error(m, "cannot start xtx-sink: %s", strerror(errno));
		return -1;
	}
	end = mono_s() + 15;
	while (stat(ready, &st)) {
		int status;

		if (proc_wait(c, 0, &status) == 0) {
			tail_of(err, msg, sizeof(msg));
			set_error(m, "xtx-sink exited before attaching: %s", msg);
			return -1;
		}
		if (g_stop || mono_s() > end) {
			proc_stop(c, SIGINT, 5);
			set_error(m, g_stop ? "interrupted" : "xtx-sink did not attach within 15 s");
			return -1;
		}
		msleep(20);
	}
	return 0;
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

/* --- figures ----------------------------------------------------------------------- */

void figures(struct ctx *x, struct meas *m)
{
	const struct opts *o = x->o;
	const struct json *pp = json_get(m->sink, "per_port");
	unsigned nl = x->plan.nleaves;
	double *sum, *sq;
	unsigned *cnt;

	/* Forwarding: the sink counts over a window inside the sender's run (forward.c), so
	 * its own attach-to-detach time is the denominator. */
	m->duration_s = json_num(path_defs[m->path].forward ? m->sink : m->sender, "duration_s");
	m->offered_pps = json_num(m->sender, "pps");
	m->cpu_ns_per_pkt = json_num(m->sender, "cpu_ns_per_pkt");
	m->sent_pkts = json_num(m->sender, "sent_pkts");
	m->sink_pkts = json_num(m->sink, "pkts");
	m->sink_bytes = json_num(m->sink, "bytes");
	m->pps = m->sink_pkts / m->duration_s;
	m->bytes_per_s = m->sink_bytes / m->duration_s;
	if (x->e->remote_fd < 0) {	/* one clock only when sender and sink share a host */
		m->d50 = json_num(m->sink, "delay_ns.p50");
		m->d99 = json_num(m->sink, "delay_ns.p99");
		m->d999 = json_num(m->sink, "delay_ns.p999");
	}
	for (unsigned i = 0; pp && pp->type == JSON_ARR && i < pp->n; i++) {
		double port = json_num(&pp->items[i], "port");
		long f;

		if (!isfinite(port))
			continue;
		f = (long)port - (long)o->base_port;
		if (f < 0 || f >= (long)o->flows)
			continue;
		m->flow_pkts[f] = json_num(&pp->items[i], "pkts");
		m->flow_bytes[f] = json_num(&pp->items[i], "bytes");
	}
	sum = calloc(nl, sizeof(*sum));
	sq = calloc(nl, sizeof(*sq));
	cnt = calloc(nl, sizeof(*cnt));
	if (!sum || !sq || !cnt)
		goto out;
	for (unsigned f = 0; f < o->flows; f++) {
		unsigned l = tc_plan__flow_leaf(&x->plan, f);

		m->leaf_pkts[l] += m->flow_pkts[f];
		m->leaf_bytes[l] += m->flow_bytes[f];
		sum[l] += m->flow_pkts[f];
		sq[l] += m->flow_pkts[f] * m->flow_pkts[f];
		cnt[l]++;
	}
	/* Jain's index (sum x)^2 / (n sum x^2) of the flows of each leaf with 2+ flows. */
	m->jain_min = NAN;
	for (unsigned l = 0; l < nl; l++) {
		m->leaf_jain[l] = cnt[l] >= 2 && sq[l] > 0 ? sum[l] * sum[l] / (cnt[l] * sq[l]) :
							      NAN;
		if (isfinite(m->leaf_jain[l]) && !(m->jain_min <= m->leaf_jain[l]))
			m->jain_min = m->leaf_jain[l];
	}
out:
	free(sum);
	free(sq);
	free(cnt);
}

void meas_free(struct meas *m)
{
	free(m->flow_pkts);
	free(m->flow_bytes);
	free(m->leaf_pkts);
	free(m->leaf_bytes);
	free(m->leaf_jain);
	json_free(m->sender);
	json_free(m->sink);
	json_free(m->forwarder);
	m->forwarder = NULL;
	m->flow_pkts = m->flow_bytes = m->leaf_pkts = m->leaf_bytes = m->leaf_jain = NULL;
	m->sender = m->sink = NULL;
}

/* --- one measurement ----------------------------------------------------------------- */

/* End a run through a shaped qdisc so that the sink counts exactly what left the qdisc
 * during the sender's own send time (the denominator of every rate). Left to end by
 * itself, the sender's time would stop first and the shaped backlog (up to a leaf's
 * limit) would keep draining into the sink until the qdisc is deleted: tens of ms
 * counted but not timed, +5% on a 50 Mbit/s leaf over 1 s. So:
 *   1. SIGSTOP the sender: it sends nothing more, its clock keeps running; the qdisc
 *      keeps sending at the shaped rate, which the sender's time covers;
 *   2. replace the root qdisc with "pfifo limit 0": the backlog is dropped, and
 *      whatever is sent from now on is dropped too;
 *   3. SIGINT + SIGCONT: the sender stops (its last sendmmsg calls fail with ENOBUFS)
 *      and prints its summary;
 *   4. the caller deletes the root qdisc afterwards (qdisc_restore). */
/* Returns 1 if the sender exited by itself meanwhile (*status set, reaped), else 0. */
static int end_shaped_run(struct ctx *x, struct child *snd, struct meas *m, int *status)
{
	char line[TC_LINE_MAX], out[1024];
	bool same;
	int exited = proc_pause(snd, 5, status);

	snprintf(line, sizeof(line), "qdisc replace dev %s root pfifo limit 0", x->e->qd_dev);
	if (tc_line(x, line, out, sizeof(out)))
		set_error(m, "'tc %s' failed: %.200s", line, out);
	if (!exited) {
		kill(snd->pid, SIGINT);
		kill(snd->pid, SIGCONT);
	}
	qdisc_restore(x, &same);	/* the caller checks again after the sender exits */
	m->qdisc_restored = same;
	return exited;
}

int measure(struct ctx *x, enum path_id p, unsigned n, unsigned size, unsigned run,
	    struct meas *m)
{
	struct env *e = x->e;
	struct child sink = { .pid = 0 }, snd = { .pid = 0 };
	struct argv_buf a = { .n = 0 };
	char out[256], err[256], msg[512], jerr[256];
	char *snd_text = NULL, *sink_text = NULL;
	bool changed = path_defs[p].qdisc != QD_NONE, same = true, sink_on = false;
	bool shaped_q = path_defs[p].qdisc == QD_HTB;
	int status = 0, rc;

	memset(m, 0, sizeof(*m));
	m->path = p;
	m->producers = path_defs[p].per_producers ? n : 1;
	m->size = size;
	m->run = run;
	m->d50 = m->d99 = m->d999 = m->jain_min = NAN;
	m->duration_s = m->pps = m->cpu_ns_per_pkt = NAN;
	m->qdisc_restored = true;
	m->flow_pkts = calloc(x->o->flows, sizeof(double));
	m->flow_bytes = calloc(x->o->flows, sizeof(double));
	m->leaf_pkts = calloc(x->plan.nleaves, sizeof(double));
	m->leaf_bytes = calloc(x->plan.nleaves, sizeof(double));
	m->leaf_jain = calloc(x->plan.nleaves, sizeof(double));
	m->offered_pps = m->fwd_pkts = m->fwd_drops = NAN;
	if (!m->flow_pkts || !m->flow_bytes || !m->leaf_pkts || !m->leaf_bytes ||
	    !m->leaf_jain) {
		set_error(m, "out of memory");
		return -1;
	}
	if (path_defs[p].forward)
		return measure_forward(x, p, size, m);

	if (changed && qdisc_apply(x, p, m))
		goto restore;
	if (sink_start(x, &sink, m))
		goto restore;
	sink_on = true;

	snprintf(out, sizeof(out), "%s/send.json", e->tmpdir);
	snprintf(err, sizeof(err), "%s/send.err", e->tmpdir);
	/* Through a shaped qdisc the end of the run is ours (end_shaped_run): the sender
	 * gets 30 s more than the duration, only as a bound. */
	sender_argv(x, p, n, size, x->o->duration + (shaped_q ? 30 : 0), &a);
	if (proc_spawn(&snd, e->tx_netns, a.v, out, err)) {
		set_error(m, "cannot start %s: %s", a.v[0], strerror(errno));
		goto stop_sink;
	}
	rc = proc_wait(&snd, x->o->duration + (shaped_q ? 0 : 30), &status);
	if (shaped_q && rc == -ETIMEDOUT) {
		rc = end_shaped_run(x, &snd, m, &status) ? 0 : proc_wait(&snd, 30, &status);
		changed = false;
	}
	if (rc == -EINTR) {
		proc_stop(&snd, SIGINT, 10);
		set_error(m, "interrupted");
	} else if (rc == -ETIMEDOUT) {
		proc_stop(&snd, SIGINT, 10);
		set_error(m, "%s did not finish within its duration + 30 s; stopped",
			  strrchr(a.v[0], '/') + 1);
	} else if (rc || !WIFEXITED(status) || WEXITSTATUS(status)) {
		tail_of(err, msg, sizeof(msg));
		set_error(m, "%s failed (exit %d): %s", strrchr(a.v[0], '/') + 1,
			  WIFEXITED(status) ? WEXITSTATUS(status) : -1, msg);
	}
	/* Put the qdisc back now (for the shaped paths, end_shaped_run did). */
	if (changed) {
		qdisc_restore(x, &same);
		changed = false;
	}
stop_sink:
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
	m->qdisc_restored = same;
	if (!same)
		set_error(m, "the qdisc of %s is not as it was after the run", e->qd_dev);
	if (m->error[0])
		goto out;

	snd_text = read_file(out, 1 << 20);
	m->sender = snd_text ? json_parse(snd_text, jerr, sizeof(jerr)) : NULL;
	if (!m->sender) {
		set_error(m, "cannot read the sender's JSON summary (%s)",
			  snd_text ? jerr : strerror(errno));
		goto out;
	}
	m->sink = sink_text ? json_parse(sink_text, jerr, sizeof(jerr)) : NULL;
	if (!m->sink) {
		set_error(m, "cannot read xtx-sink's JSON summary (%s)",
			  sink_text ? jerr : "no output");
		goto out;
	}
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
