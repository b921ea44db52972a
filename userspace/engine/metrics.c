/* SPDX-License-Identifier: BSD-3-Clause */
/* metrics.c - the engine's counters as Prometheus metrics (xtx_engine__metrics()).
 *
 * Rules
 *   - The Prometheus text exposition format 0.0.4, what `promtool check metrics` reads:
 *     a HELP and a TYPE line per family, counters named *_total, base units (bytes,
 *     seconds, bytes per second), labels dev (the interface, "null" for the null device),
 *     class (tc's handle), queue, reason, place.
 *   - One home for each number: the class counters are xtx_engine__class_stats()'s, the
 *     queue counters xtx_engine__queue_stats()'s, the frames xtx_engine__frames()'.
 * Control path only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_int.h"

struct family {
	const char *name, *type, *help;
};

static void head(FILE *f, const struct family *m)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name, m->type);
}

/* One value per class of the running tree, from its counters or its configuration. */
enum cls_field { C_BYTES, C_PKTS, C_OVERLIMITS, C_BORROWED, C_QLEN, C_BACKLOG, C_RATE,
		 C_CEIL, C__N };

static const struct family cls_families[C__N] = {
	[C_BYTES] = { "xtx_class_sent_bytes_total", "counter",
		      "Frame bytes the class sent." },
	[C_PKTS] = { "xtx_class_sent_packets_total", "counter", "Packets the class sent." },
	[C_OVERLIMITS] = { "xtx_class_overlimits_total", "counter",
			   "Times the class went over its rate or ceil (tc's overlimits)." },
	[C_BORROWED] = { "xtx_class_borrowed_packets_total", "counter",
			 "Packets the class sent on a parent's tokens." },
	[C_QLEN] = { "xtx_class_backlog_packets", "gauge", "Packets queued in the leaf." },
	[C_BACKLOG] = { "xtx_class_backlog_bytes", "gauge",
			"Wire bytes queued in the leaf (leaves with a room target; 0 otherwise)." },
	[C_RATE] = { "xtx_class_rate_bytes_per_second", "gauge", "The class's rate." },
	[C_CEIL] = { "xtx_class_ceil_bytes_per_second", "gauge", "The class's ceil." },
};

static uint64_t cls_value(enum cls_field k, const struct xtx_class_stats *st,
			  const struct xtx_class_opts *co)
{
	switch (k) {
	case C_BYTES: return st->sent_bytes;
	case C_PKTS: return st->sent_pkts;
	case C_OVERLIMITS: return st->throttled;
	case C_BORROWED: return st->borrows;
	case C_QLEN: return st->qlen;
	case C_BACKLOG: return st->backlog;
	case C_RATE: return co->rate;
	case C_CEIL: return co->ceil ? co->ceil : co->rate;
	default: return 0;
	}
}

static int classes(struct xtx_engine *e, FILE *f, const char *dev)
{
	static const struct family drops = { "xtx_class_drops_total", "counter",
					     "Packets the class dropped, by reason." };
	const struct xtx_sched_config *cfg = e->cur;
	unsigned n = xtx_sched_config__class_count(cfg);
	struct xtx_class_stats *st = calloc(n ? n : 1, sizeof(*st));
	char h[XTX_HANDLE_STRLEN];

	if (!st)
		return -ENOMEM;
	for (unsigned c = 0; c < n; c++)
		xtx_engine__class_stats(e, e->slot_of[c], &st[c]);	/* change_lock */
	for (unsigned k = 0; k < C__N; k++) {
		head(f, &cls_families[k]);
		for (unsigned c = 0; c < n; c++) {
			const struct xtx_class_opts *co = xtx_sched_config__class(cfg, c);

			xtx_handle__str(co->handle, h, sizeof(h));
			fprintf(f, "%s{dev=\"%s\",class=\"%s\"} %llu\n", cls_families[k].name, dev,
				h, (unsigned long long)cls_value(k, &st[c], co));
		}
	}
	head(f, &drops);
	for (unsigned c = 0; c < n; c++) {
		xtx_handle__str(xtx_sched_config__class(cfg, c)->handle, h, sizeof(h));
		for (unsigned r = 0; r < XTX_DROP__MAX; r++)
			fprintf(f, "%s{dev=\"%s\",class=\"%s\",reason=\"%s\"} %llu\n", drops.name,
				dev, h, xtx_drop_reason__str(r),
				(unsigned long long)st[c].drops[r]);
	}
	free(st);
	return 0;
}

enum q_field { Q_PKTS, Q_BYTES, Q_DONE, Q_FULL, Q_KICKS, Q_LIMIT, Q__N };

static const struct family q_families[Q__N] = {
	[Q_PKTS] = { "xtx_queue_sent_packets_total", "counter",
		     "Packets written to the TX queue's ring." },
	[Q_BYTES] = { "xtx_queue_sent_bytes_total", "counter",
		      "Frame bytes written to the TX queue's ring." },
	[Q_DONE] = { "xtx_queue_completed_packets_total", "counter",
		     "Packets the TX queue's completion ring returned." },
	[Q_FULL] = { "xtx_queue_tx_ring_full_total", "counter",
		     "Times the TX ring had no room for what was eligible." },
	[Q_KICKS] = { "xtx_queue_kicks_total", "counter", "Wake-ups of the kernel (sendto)." },
	[Q_LIMIT] = { "xtx_queue_ring_limit_packets", "gauge",
		      "Descriptors the dequeuer lets the TX ring hold now (BQL-style)." },
};

static uint64_t q_value(enum q_field k, const struct xtx_queue_stats *qs)
{
	switch (k) {
	case Q_PKTS: return qs->sent_pkts;
	case Q_BYTES: return qs->sent_bytes;
	case Q_DONE: return qs->completed;
	case Q_FULL: return qs->tx_ring_full;
	case Q_KICKS: return qs->kicks;
	case Q_LIMIT: return qs->ring_limit;
	default: return 0;
	}
}

static void queues(struct xtx_engine *e, FILE *f, const char *dev)
{
	for (unsigned k = 0; k < Q__N; k++) {
		head(f, &q_families[k]);
		for (unsigned q = 0; q < e->nq; q++) {
			struct xtx_queue_stats qs;

			xtx_engine__queue_stats(e, q, &qs);
			fprintf(f, "%s{dev=\"%s\",queue=\"%u\"} %llu\n", q_families[k].name, dev, q,
				(unsigned long long)q_value(k, &qs));
		}
	}
}

static void frames(struct xtx_engine *e, FILE *f, const char *dev)
{
	static const struct family m = { "xtx_frames", "gauge",
					 "UMEM frames by place; they add up to place total." };
	struct xtx_frame_count fc;
	const struct { const char *place; uint64_t *v; } p[] = {
		{ "total", &fc.total }, { "pool", &fc.pool }, { "cached", &fc.cached },
		{ "app", &fc.app }, { "stage", &fc.stage }, { "sched", &fc.sched },
		{ "tx", &fc.tx }, { "dequeuer", &fc.dequeuer }, { "fill", &fc.fill },
		{ "receiver", &fc.receiver },
	};

	xtx_engine__frames(e, &fc);
	head(f, &m);
	for (unsigned i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		fprintf(f, "%s{dev=\"%s\",place=\"%s\"} %llu\n", m.name, dev, p[i].place,
			(unsigned long long)*p[i].v);
}

/* A label value as the format wants it: backslash, quote and newline escaped. */
static void label(char *out, size_t n, const char *in)
{
	size_t k = 0;

	for (; *in && k + 3 < n; in++) {
		if (*in == '\\' || *in == '"' || *in == '\n')
			out[k++] = '\\';
		out[k++] = *in == '\n' ? 'n' : *in;
	}
	out[k] = '\0';
}

int xtx_engine__metrics(struct xtx_engine *e, char **text, size_t *len)
{
	char dev[2 * IF_NAMESIZE + 8];
	FILE *f;
	int rc;

	if (!e || !text || !len)
		return -EINVAL;
	*text = NULL;
	f = open_memstream(text, len);
	if (!f)
		return -ENOMEM;
	label(dev, sizeof(dev), e->null ? "null" : e->ifname);
	pthread_mutex_lock(&e->change_lock);	/* the tree in e->cur */
	rc = classes(e, f, dev);
	pthread_mutex_unlock(&e->change_lock);
	queues(e, f, dev);
	frames(e, f, dev);
	if (fclose(f) || rc) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}
