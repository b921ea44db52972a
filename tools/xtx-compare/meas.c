/* SPDX-License-Identifier: BSD-3-Clause */
/* meas.c - the paths and one measurement's record, whatever the mode: the table of
 * paths, a struct meas set up and freed, its error (the first one set is kept), whether
 * the qdisc was put back (a failed check is never undone by a later one), the tools' JSON
 * summaries read into it, and the figures computed from them.
 *
 * Rates are counted at the sink, never taken from a sender: packets and bytes per flow
 * from xtx-sink's per_port list, summed per leaf (flow i belongs to leaf i mod L), over
 * the send mode sender's own send time, or over the sink's arrival span in forward mode.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

const struct path_def path_defs[P__MAX] = {
	[P_KERNEL_HTB] = { "kernel-htb", "UDP sockets, sendmmsg, N threads; the tree as tc htb "
			   "+ u32 filters", QD_HTB, true, true },
	[P_KERNEL_MQ_HTB] = { "kernel-mq-htb", "UDP sockets, sendmmsg, N threads; root mq, the "
			      "tree as tc htb + u32 filters on each TX queue", QD_MQ_HTB, true,
			      true },
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

int meas_init(struct ctx *x, struct meas *m, enum path_id p, unsigned n, unsigned size,
	      unsigned run)
{
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
	m->leaf_delay = calloc((size_t)x->plan.nleaves * 3, sizeof(double));
	for (size_t i = 0; m->leaf_delay && i < (size_t)x->plan.nleaves * 3; i++)
		m->leaf_delay[i] = NAN;
	m->offered_pps = m->fwd_pkts = m->fwd_drops = NAN;
	if (path_defs[p].qdisc == QD_MQ_HTB && x->mq_plan.queues) {
		size_t nq = (size_t)x->mq_plan.queues * x->plan.nleaves;

		m->queue_leaf_pkts = calloc(nq, sizeof(double));
		for (size_t i = 0; m->queue_leaf_pkts && i < nq; i++)
			m->queue_leaf_pkts[i] = NAN;
		if (!m->queue_leaf_pkts) {
			set_error(m, "out of memory");
			return -1;
		}
	}
	if (!m->flow_pkts || !m->flow_bytes || !m->leaf_pkts || !m->leaf_bytes ||
	    !m->leaf_jain || !m->leaf_delay) {
		set_error(m, "out of memory");
		return -1;
	}
	return 0;
}

void meas_free(struct meas *m)
{
	free(m->flow_pkts);
	free(m->flow_bytes);
	free(m->leaf_pkts);
	free(m->leaf_bytes);
	free(m->leaf_jain);
	free(m->leaf_delay);
	free(m->queue_leaf_pkts);
	m->queue_leaf_pkts = NULL;
	json_free(m->sender);
	json_free(m->sink);
	json_free(m->forwarder);
	m->forwarder = NULL;
	m->flow_pkts = m->flow_bytes = m->leaf_pkts = m->leaf_bytes = m->leaf_jain = NULL;
	m->sender = m->sink = NULL;
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

void set_exit_error(struct meas *m, const char *what, int status, const char *errpath)
{
	char msg[512];

	tail_of(errpath, msg, sizeof(msg));
	set_error(m, "%s failed (exit %d): %s", what, exit_code(status), msg);
}

void qdisc_record(struct ctx *x, struct meas *m, bool same)
{
	if (same)
		return;		/* a failure recorded before stays */
	m->qdisc_restored = false;
	set_error(m, "the qdisc of %s is not as it was after the run", x->e->qd_dev);
}

int await_ready(struct meas *m, struct child *c, const char *ready, const char *errpath,
		const struct ready_spec *r)
{
	char msg[512];
	int rc = proc_await_file(c, ready, r->timeout_s, NULL);

	if (rc == 1) {
		tail_of(errpath, msg, sizeof(msg));
		set_error(m, "%s exited before %s: %s", r->what, r->doing, msg);
		return -1;
	}
	if (rc) {
		proc_stop(c, SIGINT, r->grace_s);
		if (rc == -EINTR)
			set_error(m, "interrupted");
		else
			set_error(m, "%s %s within %d s", r->what, r->late, r->timeout_s);
		return -1;
	}
	return 0;
}

int parse_summary(struct meas *m, struct json **out, const char *text, const char *who,
		  const char *none_why)
{
	char jerr[256];

	*out = text ? json_parse(text, jerr, sizeof(jerr)) : NULL;
	if (*out)
		return 0;
	set_error(m, "cannot read %s's JSON summary (%s)", who, text ? jerr : none_why);
	return -1;
}

/* Each leaf's delay percentiles from the sink's --delay-mod groups (av_delay_mod), or
 * with one leaf the overall ones. */
static void leaf_delays(struct meas *m, unsigned nl)
{
	static const char *const q[3] = { "delay_ns.p50", "delay_ns.p99", "delay_ns.p999" };
	const struct json *dg = json_get(m->sink, "delay_groups");

	for (unsigned k = 0; nl == 1 && k < 3; k++)
		m->leaf_delay[k] = json_num(m->sink, q[k]);
	if (nl < 2 || nl > CMP_DELAY_GROUPS || !dg || dg->type != JSON_ARR || dg->n != nl)
		return;
	for (unsigned l = 0; l < nl; l++)
		for (unsigned k = 0; k < 3; k++)
			m->leaf_delay[l * 3 + k] = json_num(&dg->items[l], q[k]);
}

void figures(struct ctx *x, struct meas *m)
{
	const struct opts *o = x->o;
	const struct json *pp = json_get(m->sink, "per_port");
	unsigned nl = x->plan.nleaves;
	double *sum, *sq;
	unsigned *cnt;

	/* Forwarding: the sink counts over a window inside the sender's run (forward.c), so
	 * the span of the frames it counted (first arrival to last) is the denominator. */
	m->duration_s = path_defs[m->path].forward ? json_num(m->sink, "arrival_s") :
			json_num(m->sender, "duration_s");
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
		leaf_delays(m, nl);
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
