/* SPDX-License-Identifier: BSD-3-Clause */
/* report.c - xtx-sink's output: reading the per-CPU maps (summed over CPUs), the interval
 * lines on stderr, and the final summary on stdout as text or one JSON object.
 *
 * Delay percentiles come from the histogram (xtx_sink.h): the value reported is the
 * middle of the bucket that holds the percentile's rank, clamped to the exact min/max;
 * buckets are at most 1/16 of their lower bound wide, so the estimate is within 3.2% of
 * the true sample (exact below 32 ns).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "json.h"
#include "sink.h"
#include "xdpattach.h"

/* Sum of one per-CPU counter; buf holds ncpu values. */
static int read_counter(const struct sink *s, int fd, __u32 key, struct xtx_xdp_counter *buf,
			struct xtx_xdp_counter *out)
{
	out->pkts = out->bytes = 0;
	if (bpf_map_lookup_elem(fd, &key, buf))
		return -errno;
	xtx_xdp_counter_add(out, buf, s->ncpu);
	return 0;
}

int sink_read_stats(const struct sink *s, struct sink_snapshot *out)
{
	struct xtx_xdp_counter buf[s->ncpu];
	int fd = bpf_map__fd(s->skel->maps.stats), err;

	for (__u32 i = 0; i < XTX_SINK_STAT_MAX; i++) {
		err = read_counter(s, fd, i, buf, &out->st[i]);
		if (err) {
			fprintf(stderr, "xtx-sink: reading the stats map failed: %s\n",
				strerror(-err));
			return err;
		}
	}
	return 0;
}

static __u64 others(const struct sink_snapshot *x)
{
	__u64 n = 0;

	for (int i = XTX_SINK_MATCHED + 1; i < XTX_SINK_CLASS_MAX; i++)
		n += x->st[i].pkts;
	return n;
}

void sink_print_interval(const struct sink *s, const struct sink_snapshot *prev,
			 const struct sink_snapshot *cur, double t_s, double dt_s)
{
	__u64 p = cur->st[XTX_SINK_MATCHED].pkts - prev->st[XTX_SINK_MATCHED].pkts;
	__u64 b = cur->st[XTX_SINK_MATCHED].bytes - prev->st[XTX_SINK_MATCHED].bytes;

	(void)s;
	if (dt_s <= 0)
		return;
	fprintf(stderr, "xtx-sink: %7.2f s  %12.0f pkt/s  %10.2f Mbit/s  total %" PRIu64
		" pkts  other %" PRIu64 "\n", t_s, (double)p / dt_s, (double)b * 8 / dt_s / 1e6,
		(uint64_t)cur->st[XTX_SINK_MATCHED].pkts, (uint64_t)(others(cur) - others(prev)));
}

/* --- the final report ------------------------------------------------------------------- */
struct port_row {
	unsigned port;
	struct xtx_xdp_counter c;
	struct xtx_sink_flow f;
};

struct order_sum {
	__u64 in_order, late, dup, old, gaps, gap_seqs;
};

/* Every port in the range with at least one packet, with its sequence state. */
static int read_ports(const struct sink *s, struct port_row **rows_out, size_t *n_out)
{
	int fd = bpf_map__fd(s->skel->maps.port_stats);
	int ffd = bpf_map__fd(s->skel->maps.flows);
	struct xtx_xdp_counter buf[s->ncpu], c;
	struct port_row *rows = NULL, *r;
	size_t n = 0, cap = 0;
	int err;

	for (unsigned port = s->opt.port_lo; port <= s->opt.port_hi; port++) {
		err = read_counter(s, fd, port, buf, &c);
		if (err) {
			fprintf(stderr, "xtx-sink: reading port_stats[%u] failed: %s\n", port,
				strerror(-err));
			free(rows);
			return err;
		}
		if (!c.pkts)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			r = realloc(rows, cap * sizeof(*rows));
			if (!r) {
				free(rows);
				fprintf(stderr, "xtx-sink: out of memory\n");
				return -ENOMEM;
			}
			rows = r;
		}
		r = &rows[n++];
		memset(r, 0, sizeof(*r));
		r->port = port;
		r->c = c;
		__u32 key = port;
		if (bpf_map_lookup_elem_flags(ffd, &key, &r->f, BPF_F_LOCK)) {
			err = -errno;
			fprintf(stderr, "xtx-sink: reading flows[%u] failed: %s\n", port,
				strerror(-err));
			free(rows);
			return err;
		}
	}
	*rows_out = rows;
	*n_out = n;
	return 0;
}

/* Histogram idx: 0 all matched frames, g + 1 the g-th --delay-group. */
static int read_delay(const struct sink *s, __u32 idx, struct xtx_sink_delay *sum)
{
	struct xtx_sink_delay *v = calloc((size_t)s->ncpu, sizeof(*v));
	int err = 0;

	memset(sum, 0, sizeof(*sum));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.delay), &idx, v)) {
		err = -errno;
		fprintf(stderr, "xtx-sink: reading the delay map failed: %s\n", strerror(-err));
		goto out;
	}
	xtx_sink_delay_add(sum, v, s->ncpu);
out:
	free(v);
	return err;
}

static int read_span(const struct sink *s, struct xtx_sink_span *sum)
{
	struct xtx_sink_span v[s->ncpu];
	__u32 zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.span), &zero, v)) {
		int err = -errno;

		fprintf(stderr, "xtx-sink: reading the span map failed: %s\n", strerror(-err));
		return err;
	}
	xtx_sink_span_add(sum, v, s->ncpu);
	return 0;
}

/* Seconds from the first matched frame to the last (0 with fewer than two). */
static double arrival_s(const struct xtx_sink_span *sp)
{
	return sp->first_ns ? (double)(sp->last_ns - sp->first_ns) / 1e9 : 0.0;
}

/* The q-quantile (0 < q <= 1) of the histogram: middle of the bucket of rank ceil(q*n). */
static uint64_t quantile(const struct xtx_sink_delay *d, double q)
{
	uint64_t rank = (uint64_t)ceil(q * (double)d->samples), cum = 0, lo, hi, v;

	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < XTX_SINK_HIST_BUCKETS; b++) {
		cum += d->hist[b];
		if (cum < rank)
			continue;
		lo = xtx_sink_hist_low(b);
		hi = b + 1 < XTX_SINK_HIST_BUCKETS ? xtx_sink_hist_low(b + 1) : UINT64_MAX;
		v = lo + (hi - lo) / 2;
		if (v < d->min_ns)
			v = d->min_ns;
		if (v > d->max_ns)
			v = d->max_ns;
		return v;
	}
	return d->max_ns;
}

static const char *fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 10000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.1f s", (double)ns / 1e9);
	return buf;
}

static void sum_order(const struct port_row *rows, size_t n, struct order_sum *o)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < n; i++) {
		o->in_order += rows[i].f.in_order;
		o->late += rows[i].f.late;
		o->dup += rows[i].f.dup;
		o->old += rows[i].f.old;
		o->gaps += rows[i].f.gaps;
		o->gap_seqs += rows[i].f.gap_seqs;
	}
}

static void print_text(const struct sink *s, double dur, const struct sink_snapshot *st,
		       const struct port_row *rows, size_t n, const struct order_sum *o,
		       const struct xtx_sink_delay *d, const struct xtx_sink_span *sp, FILE *out)
{
	const struct xtx_xdp_counter *m = &st->st[XTX_SINK_MATCHED];
	double span = arrival_s(sp), gaps = m->pkts > 1 ? (double)(m->pkts - 1) : 0.0;
	char a[32], b[32], c[32], e[32], f[32];

	fprintf(out, "xtx-sink: %s%s%s, %s mode%s, %.3f s, UDP ports %u-%u, %s\n", s->opt.dev,
		s->opt.netns ? " in " : "", s->opt.netns ? s->opt.netns : "",
		xdpa_mode_name(s->xp.mode), s->xp.dispatcher ? " (libxdp dispatcher)" : "", dur,
		s->opt.port_lo, s->opt.port_hi, s->opt.pass ? "pass" : "drop");
	/* n frames over their arrival span are n - 1 gaps, each of a mean frame. */
	fprintf(out, "  matched    %12" PRIu64 " pkts %14" PRIu64 " bytes  %12.0f pkt/s  "
		"%10.2f Mbit/s over %.6f s of arrivals\n", (uint64_t)m->pkts, (uint64_t)m->bytes,
		span > 0 ? gaps / span : 0.0,
		span > 0 ? (double)m->bytes / (double)m->pkts * gaps * 8 / span / 1e6 : 0.0,
		span);
	fprintf(out, "  other     ");
	for (int i = XTX_SINK_MATCHED + 1; i < XTX_SINK_CLASS_MAX; i++)
		fprintf(out, " %s %" PRIu64, xtx_sink_stat_name(i), (uint64_t)st->st[i].pkts);
	fprintf(out, "\n");
	if (n) {
		fprintf(out, "  %-6s %12s %14s %10s %8s %8s %8s\n", "port", "pkts", "bytes",
			"in_order", "late", "dup+old", "gaps");
		for (size_t i = 0; i < n; i++)
			fprintf(out, "  %-6u %12" PRIu64 " %14" PRIu64 " %10" PRIu64 " %8" PRIu64
				" %8" PRIu64 " %8" PRIu64 "\n", rows[i].port,
				(uint64_t)rows[i].c.pkts, (uint64_t)rows[i].c.bytes,
				(uint64_t)rows[i].f.in_order, (uint64_t)rows[i].f.late,
				(uint64_t)(rows[i].f.dup + rows[i].f.old),
				(uint64_t)rows[i].f.gaps);
	}
	fprintf(out, "  order      %" PRIu64 " payload pkts: in_order %" PRIu64 ", out_of_order %"
		PRIu64 " (late %" PRIu64 ", duplicate %" PRIu64 ", older than 64 %" PRIu64
		"), gaps %" PRIu64 " (%" PRIu64 " seqs skipped)\n",
		(uint64_t)st->st[XTX_SINK_PAYLOAD].pkts, (uint64_t)o->in_order,
		(uint64_t)(o->late + o->dup + o->old), (uint64_t)o->late, (uint64_t)o->dup,
		(uint64_t)o->old, (uint64_t)o->gaps, (uint64_t)o->gap_seqs);
	if (d->samples)
		fprintf(out, "  delay      %" PRIu64 " samples: p50 %s  p99 %s  p99.9 %s  "
			"(min %s, max %s); %" PRIu64 " stamped in the future\n",
			(uint64_t)d->samples, fmt_ns(quantile(d, 0.5), a, sizeof(a)),
			fmt_ns(quantile(d, 0.99), b, sizeof(b)),
			fmt_ns(quantile(d, 0.999), c, sizeof(c)),
			fmt_ns(d->min_ns, e, sizeof(e)), fmt_ns(d->max_ns, f, sizeof(f)),
			(uint64_t)d->negative);
	else
		fprintf(out, "  delay      no timestamped payloads; %" PRIu64 " stamped in the "
			"future\n", (uint64_t)d->negative);
	for (unsigned g = 0; g < s->opt.ngroups; g++) {
		const struct xtx_sink_delay *dg = &d[1 + g];
		char step[24] = "";

		if (s->opt.group_mod)
			snprintf(step, sizeof(step), " every %u", s->opt.group_mod);
		if (dg->samples)
			fprintf(out, "    ports %u-%u%s: %" PRIu64 " samples: p50 %s  p99 %s  "
				"p99.9 %s\n", s->opt.group_lo[g], s->opt.group_hi[g], step,
				(uint64_t)dg->samples, fmt_ns(quantile(dg, 0.5), a, sizeof(a)),
				fmt_ns(quantile(dg, 0.99), b, sizeof(b)),
				fmt_ns(quantile(dg, 0.999), c, sizeof(c)));
		else
			fprintf(out, "    ports %u-%u%s: no timestamped payloads\n",
				s->opt.group_lo[g], s->opt.group_hi[g], step);
	}
}

/* One histogram's summary as a JSON object: samples, negative, p50 .. mean (null without
 * samples). */
static void json_delay(struct jsonw *w, const struct xtx_sink_delay *d)
{
	jsonw_start_object(w);
	jsonw_uint_field(w, "samples", d->samples);
	jsonw_uint_field(w, "negative", d->negative);
	if (d->samples) {
		jsonw_uint_field(w, "p50", quantile(d, 0.5));
		jsonw_uint_field(w, "p99", quantile(d, 0.99));
		jsonw_uint_field(w, "p999", quantile(d, 0.999));
		jsonw_uint_field(w, "min", d->min_ns);
		jsonw_uint_field(w, "max", d->max_ns);
		jsonw_float_field(w, "mean", (double)d->sum_ns / (double)d->samples, 1);
	} else {
		static const char *const none[] = { "p50", "p99", "p999", "min", "max", "mean" };

		for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
			jsonw_null_field(w, none[i]);
	}
	jsonw_end_object(w);
}

static void print_json(const struct sink *s, double dur, const struct sink_snapshot *st,
		       const struct port_row *rows, size_t n, const struct order_sum *o,
		       const struct xtx_sink_delay *d, const struct xtx_sink_span *sp, FILE *out)
{
	const struct xtx_xdp_counter *m = &st->st[XTX_SINK_MATCHED];
	struct jsonw w;

	jsonw_init(&w, out);
	jsonw_start_object(&w);
	jsonw_string_field(&w, "dev", s->opt.dev);
	jsonw_string_field(&w, "netns", s->opt.netns);	/* NULL: null */
	jsonw_string_field(&w, "mode", xdpa_mode_name(s->xp.mode));
	jsonw_bool_field(&w, "xdp_dispatcher", s->xp.dispatcher);
	jsonw_string_field(&w, "action", s->opt.pass ? "pass" : "drop");
	jsonw_float_field(&w, "duration_s", dur, 6);
	jsonw_float_field(&w, "arrival_s", arrival_s(sp), 9);
	jsonw_uint_field(&w, "first_ns", sp->first_ns);
	jsonw_uint_field(&w, "last_ns", sp->last_ns);
	jsonw_uint_field(&w, "port_lo", s->opt.port_lo);
	jsonw_uint_field(&w, "port_hi", s->opt.port_hi);
	jsonw_uint_field(&w, "pkts", m->pkts);
	jsonw_uint_field(&w, "bytes", m->bytes);
	jsonw_uint_field(&w, "payload_pkts", st->st[XTX_SINK_PAYLOAD].pkts);
	jsonw_uint_field(&w, "in_order", o->in_order);
	jsonw_uint_field(&w, "out_of_order", o->late + o->dup + o->old);
	jsonw_uint_field(&w, "late", o->late);
	jsonw_uint_field(&w, "duplicates", o->dup);
	jsonw_uint_field(&w, "old", o->old);
	jsonw_uint_field(&w, "gaps", o->gaps);
	jsonw_uint_field(&w, "gap_seqs", o->gap_seqs);
	jsonw_name(&w, "delay_ns");
	json_delay(&w, &d[0]);
	jsonw_name(&w, "delay_groups");
	jsonw_start_array(&w);
	for (unsigned g = 0; g < s->opt.ngroups; g++) {
		jsonw_start_object(&w);
		jsonw_uint_field(&w, "port_lo", s->opt.group_lo[g]);
		jsonw_uint_field(&w, "port_hi", s->opt.group_hi[g]);
		jsonw_uint_field(&w, "step", s->opt.group_mod ? s->opt.group_mod : 1);
		jsonw_name(&w, "delay_ns");
		json_delay(&w, &d[1 + g]);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_name(&w, "other");
	jsonw_start_object(&w);
	for (int i = XTX_SINK_MATCHED + 1; i < XTX_SINK_CLASS_MAX; i++) {
		jsonw_name(&w, xtx_sink_stat_name(i));
		jsonw_start_object(&w);
		jsonw_uint_field(&w, "pkts", st->st[i].pkts);
		jsonw_uint_field(&w, "bytes", st->st[i].bytes);
		jsonw_end_object(&w);
	}
	jsonw_end_object(&w);
	jsonw_name(&w, "per_port");
	jsonw_start_array(&w);
	for (size_t i = 0; i < n; i++) {
		const struct xtx_sink_flow *f = &rows[i].f;

		jsonw_start_object(&w);
		jsonw_uint_field(&w, "port", rows[i].port);
		jsonw_uint_field(&w, "pkts", rows[i].c.pkts);
		jsonw_uint_field(&w, "bytes", rows[i].c.bytes);
		jsonw_uint_field(&w, "in_order", f->in_order);
		jsonw_uint_field(&w, "out_of_order", f->late + f->dup + f->old);
		jsonw_uint_field(&w, "late", f->late);
		jsonw_uint_field(&w, "duplicates", f->dup);
		jsonw_uint_field(&w, "old", f->old);
		jsonw_uint_field(&w, "gaps", f->gaps);
		jsonw_uint_field(&w, "gap_seqs", f->gap_seqs);
		jsonw_uint_field(&w, "next_seq", f->next_seq);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_end_object(&w);
	fputc('\n', out);
}

int sink_report(const struct sink *s, double duration_s, FILE *out)
{
	struct xtx_sink_delay *d = calloc(1 + XTX_SINK_DELAY_GROUPS, sizeof(*d));
	struct port_row *rows = NULL;
	struct xtx_sink_span sp;
	struct sink_snapshot st;
	struct order_sum o;
	size_t n = 0;
	int err;

	if (!d) {
		fprintf(stderr, "xtx-sink: out of memory\n");
		return -ENOMEM;
	}
	err = sink_read_stats(s, &st);
	if (!err)
		err = read_ports(s, &rows, &n);
	for (unsigned g = 0; !err && g <= s->opt.ngroups; g++)
		err = read_delay(s, g, &d[g]);
	if (!err)
		err = read_span(s, &sp);
	if (!err) {
		sum_order(rows, n, &o);
		if (s->opt.json)
			print_json(s, duration_s, &st, rows, n, &o, d, &sp, out);
		else
			print_text(s, duration_s, &st, rows, n, &o, d, &sp, out);
		if (fflush(out))
			err = -errno;
	}
	free(rows);
	free(d);
	return err;
}
