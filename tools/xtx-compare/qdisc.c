/* SPDX-License-Identifier: BSD-3-Clause */
/* qdisc.c - the qdisc of the device a path changes (env.qd_dev: the sender's in send
 * mode, the forwarder's egress in forward mode), through tc.
 *
 * At start the device's `tc qdisc show` is saved. The tool only changes a device whose
 * qdiscs are all the kernel's defaults (handle 0:, as the kernel creates them;
 * ingress/clsact are left alone), because `tc qdisc del dev IF root` is then an exact
 * restore. After every run it deletes the root qdisc and compares `tc qdisc show` with
 * the saved text; a difference fails the measurement and stops the whole comparison
 * (main.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

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
			 "qdisc (kernel-htb, kernel-mq-htb, kernel-noqueue, kernel-pfifo_fast, "
			 "packet-htb). To "
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

/* The class tree's commands (plan: one htb at the root, or mq + one htb per queue).
 * Lines without a fallback go through tc -batch (one process for hundreds of filters); a
 * line with a fallback (fq leaves) runs alone so that its failure can be told apart. Once
 * fq is known to be missing, the fallback runs at once. */
static int apply_tree(struct ctx *x, const struct tc_plan *plan, struct meas *m)
{
	char out[2048];
	char *batch[4096];
	unsigned nb = 0;
	int rc;

	for (unsigned i = 0; i < plan->ncmds; i++) {
		const struct tc_cmd *c = &plan->cmds[i];

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
batch_failed:
	set_error(m, "tc -batch failed (%d): %.300s", rc, out);
	return -1;
}

int qdisc_apply(struct ctx *x, enum path_id p, struct meas *m)
{
	char out[2048], line[TC_LINE_MAX];
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
		return apply_tree(x, &x->plan, m);
	case QD_MQ_HTB:
		return apply_tree(x, &x->mq_plan, m);
	}
	rc = tc_line(x, line, out, sizeof(out));
	if (rc) {
		set_error(m, "'tc %s' failed (%d): %.300s", line, rc, out);
		return -1;
	}
	return 0;
}

int qdisc_tx_queues(struct ctx *x, unsigned *n, char *err, size_t errlen)
{
	struct argv_buf a = { .n = 0 };
	char out[16384], jerr[256];
	struct json *j;
	double v = NAN;
	int rc;

	av_add(&a, "ip");
	if (x->e->qd_netns[0])
		av_opt(&a, "-n", "%s", x->e->qd_netns);
	av_add(&a, "-d");
	av_add(&a, "-j");
	av_add(&a, "link");
	av_add(&a, "show");
	av_opt(&a, "dev", "%s", x->e->qd_dev);
	rc = proc_run(NULL, a.v, 30, out, sizeof(out));
	if (rc) {
		snprintf(err, errlen, "'ip -d -j link show dev %s' failed (%d): %.300s",
			 x->e->qd_dev, rc, out);
		return -1;
	}
	j = json_parse(out, jerr, sizeof(jerr));
	if (j && j->type == JSON_ARR && j->n == 1)
		v = json_num(&j->items[0], "num_tx_queues");
	json_free(j);
	if (!(v >= 1 && v <= 65536)) {
		snprintf(err, errlen, "'ip -d -j link show dev %s' gave no num_tx_queues",
			 x->e->qd_dev);
		return -1;
	}
	*n = (unsigned)v;
	return 0;
}

void qdisc_queue_stats(struct ctx *x, struct meas *m)
{
	char line[128];
	char *out = malloc(1 << 20);

	if (!out || !m->queue_leaf_pkts) {
		free(out);
		return;
	}
	/* this tc prints no JSON for class show: the text is parsed (tc.c) */
	snprintf(line, sizeof(line), "-s class show dev %s", x->e->qd_dev);
	if (tc_line(x, line, out, 1 << 20) == 0)
		tc_plan__mq_sent(&x->mq_plan, out, m->queue_leaf_pkts);
	free(out);
}
