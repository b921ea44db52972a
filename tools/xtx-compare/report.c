/* SPDX-License-Identifier: BSD-3-Clause */
/* report.c - the runs summarised: medians, min and max per path, size and N; the main and
 * per-class tables (terminal text on stdout, Markdown with --md), --json and --plot.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* --- statistics -------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median, min, max of the finite values. */
static struct stat5 stat_of(const double *v, unsigned n)
{
	struct stat5 s = { NAN, NAN, NAN, 0 };
	double *w = malloc((n ? n : 1) * sizeof(*w));

	if (!w)
		return s;
	for (unsigned i = 0; i < n; i++)
		if (isfinite(v[i]))
			w[s.n++] = v[i];
	if (s.n) {
		qsort(w, s.n, sizeof(*w), cmp_double);
		s.min = w[0];
		s.max = w[s.n - 1];
		s.median = s.n % 2 ? w[s.n / 2] : (w[s.n / 2 - 1] + w[s.n / 2]) / 2;
	}
	free(w);
	return s;
}

struct group {
	enum path_id p;
	unsigned size, n;
	struct meas **m;		/* its runs */
	unsigned nm, nok;
	struct stat5 pps, bps, cpu, jain, d50, d99, d999;
	struct stat5 offered, fwd_pkts, fwd_drops;	/* forward mode */
	struct stat5 *leaf_pps, *leaf_Bps, *leaf_wire, *leaf_jain;	/* per leaf */
	struct stat5 *leaf_delay;	/* per leaf p50, p99, p99.9 ns: [leaf * 3 + k] */
	double *leaf_err;		/* (wire - expected) / expected, NaN if n/a */
	const char **leaf_note;		/* why no error */
	bool fq_fallback;
	char errors[512];		/* first failure */
};

struct report {
	struct ctx *x;
	struct group *g;
	unsigned ng;
	unsigned nleaves;
	double overhead;
	bool any_fallback, any_nodelay, any_failed;
	bool any_leaf_delay;		/* some group has a class's delay */
};

static struct group *find_group(const struct report *r, enum path_id p, unsigned size, unsigned n)
{
	if (!path_defs[p].per_producers)
		n = 1;
	for (unsigned i = 0; i < r->ng; i++)
		if (r->g[i].p == p && r->g[i].size == size && r->g[i].n == n)
			return &r->g[i];
	return NULL;
}

/* Expected wire rate (bits/s) of leaf l. */
static double leaf_expected(const struct report *r, unsigned l)
{
	return r->x->expected_Bps[r->x->plan.leaves[l].cfg_index] * 8;
}

static void summarise(struct report *r, struct group *g)
{
	unsigned nl = r->nleaves, k = g->nm;
	double *v = calloc(k ? k : 1, sizeof(*v));
	double total_exp = 0, total_wire = 0;

	g->leaf_pps = calloc(nl, sizeof(*g->leaf_pps));
	g->leaf_Bps = calloc(nl, sizeof(*g->leaf_Bps));
	g->leaf_wire = calloc(nl, sizeof(*g->leaf_wire));
	g->leaf_jain = calloc(nl, sizeof(*g->leaf_jain));
	g->leaf_err = calloc(nl, sizeof(*g->leaf_err));
	g->leaf_note = calloc(nl, sizeof(*g->leaf_note));
	g->leaf_delay = calloc((size_t)nl * 3, sizeof(*g->leaf_delay));
	if (!v || !g->leaf_pps || !g->leaf_Bps || !g->leaf_wire || !g->leaf_jain ||
	    !g->leaf_err || !g->leaf_note || !g->leaf_delay) {
		free(v);
		return;
	}
#define STAT(field, expr) do {							\
		for (unsigned i = 0; i < k; i++) {				\
			const struct meas *m_ = g->m[i];			\
			v[i] = m_->ok ? (expr) : NAN;				\
		}								\
		field = stat_of(v, k);						\
	} while (0)
	STAT(g->pps, m_->pps);
	STAT(g->bps, m_->bytes_per_s);
	STAT(g->cpu, m_->cpu_ns_per_pkt);
	STAT(g->jain, m_->jain_min);
	STAT(g->d50, m_->d50);
	STAT(g->d99, m_->d99);
	STAT(g->d999, m_->d999);
	STAT(g->offered, m_->offered_pps);
	STAT(g->fwd_pkts, m_->fwd_pkts);
	STAT(g->fwd_drops, m_->fwd_drops);
	for (unsigned l = 0; l < nl; l++) {
		STAT(g->leaf_pps[l], m_->leaf_pkts[l] / m_->duration_s);
		STAT(g->leaf_Bps[l], m_->leaf_bytes[l] / m_->duration_s);
		STAT(g->leaf_wire[l], (m_->leaf_bytes[l] + r->overhead * m_->leaf_pkts[l]) * 8 /
				      m_->duration_s);
		STAT(g->leaf_jain[l], m_->leaf_jain[l]);
		for (unsigned q = 0; q < 3; q++) {
			STAT(g->leaf_delay[l * 3 + q], m_->leaf_delay[l * 3 + q]);
			r->any_leaf_delay |= isfinite(g->leaf_delay[l * 3 + q].median);
		}
		total_exp += leaf_expected(r, l);
		if (isfinite(g->leaf_wire[l].median))
			total_wire += g->leaf_wire[l].median;
	}
#undef STAT
	for (unsigned i = 0; i < k; i++) {
		g->nok += g->m[i]->ok;
		g->fq_fallback |= g->m[i]->fq_fallback;
		if (!g->m[i]->ok && !g->errors[0])
			snprintf(g->errors, sizeof(g->errors), "%s", g->m[i]->error);
	}
	/* The error against the expected share means something for a shaped path where the
	 * tree, not the sender, set the rate: a leaf held by its own ceil, or all leaves
	 * when the tree's total was (nearly) reached. */
	for (unsigned l = 0; l < nl; l++) {
		double exp = leaf_expected(r, l), w = g->leaf_wire[l].median;

		g->leaf_err[l] = NAN;
		if (!path_defs[g->p].shaped)
			g->leaf_note[l] = "unshaped path";
		else if (!isfinite(w))
			g->leaf_note[l] = "no successful run";
		else if (!r->x->capped[r->x->plan.leaves[l].cfg_index] && total_wire < 0.9 * total_exp)
			g->leaf_note[l] = "sender-limited: the tree's total was not reached";
		else if (exp > 0)
			g->leaf_err[l] = (w - exp) / exp;
	}
	free(v);
}

static void build(struct report *r, struct ctx *x, struct meas *ms, unsigned nms)
{
	const struct opts *o = x->o;

	r->x = x;
	r->nleaves = x->plan.nleaves;
	r->overhead = xtx_sched_config__overhead(x->cfg);
	r->g = calloc((size_t)P__MAX * o->nsizes * o->nproducers, sizeof(*r->g));
	if (!r->g)
		return;
	for (unsigned si = 0; si < o->nsizes; si++)
		for (int p = 0; p < P__MAX; p++) {
			if (!o->path_on[p])
				continue;
			for (unsigned ni = 0; ni < o->nproducers; ni++) {
				struct group *g = &r->g[r->ng];

				if (!path_defs[p].per_producers && ni)
					break;
				g->p = (enum path_id)p;
				g->size = o->sizes[si];
				g->n = path_defs[p].per_producers ? o->producers[ni] : 1;
				g->m = calloc(o->runs, sizeof(*g->m));
				for (unsigned i = 0; g->m && i < nms; i++)
					if (ms[i].path == g->p && ms[i].size == g->size &&
					    ms[i].producers == g->n && g->nm < o->runs)
						g->m[g->nm++] = &ms[i];
				if (g->nm)
					r->ng++;
			}
		}
	for (unsigned i = 0; i < r->ng; i++) {
		summarise(r, &r->g[i]);
		r->any_fallback |= r->g[i].fq_fallback;
		r->any_failed |= r->g[i].nok < r->g[i].nm;
		r->any_nodelay |= r->g[i].nok && !isfinite(r->g[i].d50.median);
	}
}

static void free_report(struct report *r)
{
	for (unsigned i = 0; i < r->ng; i++) {
		struct group *g = &r->g[i];

		free(g->m);
		free(g->leaf_pps);
		free(g->leaf_Bps);
		free(g->leaf_wire);
		free(g->leaf_jain);
		free(g->leaf_delay);
		free(g->leaf_err);
		free(g->leaf_note);
	}
	free(r->g);
}

/* --- tables ------------------------------------------------------------------------ */

#define CELL 64

struct table {
	unsigned ncols, nrows, cap;
	char (*cells)[CELL];	/* nrows * ncols, row 0 is the header */
	bool *right;		/* per column: right-aligned */
};

static void t_init(struct table *t, unsigned ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->right = calloc(ncols, sizeof(*t->right));
}

static char *t_cell(struct table *t, unsigned row, unsigned col)
{
	if (row >= t->cap) {
		unsigned nc = t->cap ? t->cap * 2 : 32;
		char (*n)[CELL] = realloc(t->cells, (size_t)nc * t->ncols * CELL);

		if (!n)
			return NULL;
		memset(n + (size_t)t->cap * t->ncols, 0, (size_t)(nc - t->cap) * t->ncols * CELL);
		t->cells = n;
		t->cap = nc;
	}
	if (row >= t->nrows)
		t->nrows = row + 1;
	return t->cells[(size_t)row * t->ncols + col];
}

static void t_set(struct table *t, unsigned row, unsigned col, const char *fmt, ...)
{
	char *c = t_cell(t, row, col);
	va_list ap;

	if (!c)
		return;
	va_start(ap, fmt);
	vsnprintf(c, CELL, fmt, ap);
	va_end(ap);
}

static void t_print(const struct table *t, FILE *f, bool md)
{
	unsigned w[32] = { 0 };

	for (unsigned r = 0; r < t->nrows; r++)
		for (unsigned c = 0; c < t->ncols && c < 32; c++) {
			unsigned l = (unsigned)strlen(t->cells[(size_t)r * t->ncols + c]);

			/* count UTF-8 characters, not bytes ("±", "µ") */
			for (const char *p = t->cells[(size_t)r * t->ncols + c]; *p; p++)
				if (((unsigned char)*p & 0xc0) == 0x80)
					l--;
			if (l > w[c])
				w[c] = l;
		}
	for (unsigned r = 0; r < t->nrows; r++) {
		for (unsigned c = 0; c < t->ncols && c < 32; c++) {
			const char *s = t->cells[(size_t)r * t->ncols + c];
			int pad = (int)w[c] - (int)strlen(s);

			for (const char *p = s; *p; p++)
				if (((unsigned char)*p & 0xc0) == 0x80)
					pad++;
			if (md) {
				fprintf(f, "| %s ", s);
				continue;
			}
			if (t->right[c] && r)
				fprintf(f, "%*s%s", pad, "", s);
			else
				fprintf(f, "%s%*s", s, c + 1 < t->ncols ? pad : 0, "");
			if (c + 1 < t->ncols)
				fputs("  ", f);
		}
		fputs(md ? "|\n" : "\n", f);
		if (md && r == 0) {
			for (unsigned c = 0; c < t->ncols; c++)
				fputs(t->right[c] ? "|---:" : "|---", f);
			fputs("|\n", f);
		}
	}
}

static void t_free(struct table *t)
{
	free(t->cells);
	free(t->right);
}

static void fmt_ratio(char *buf, size_t len, double a, double b)
{
	if (isfinite(a) && isfinite(b) && b > 0)
		snprintf(buf, len, "%.2fx", a / b);
	else
		snprintf(buf, len, "-");
}

/* v in units of `unit`, with `decimals` decimals and one more below `below` (both in v's
 * own unit); "-" if v is not a number. */
static void fmt_num(char *buf, size_t len, double v, double unit, double below, int decimals)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", v < below ? decimals + 1 : decimals, v / unit);
}

/* ns as µs: "3.2", "150". */
static void fmt_us(char *buf, size_t len, double ns)
{
	fmt_num(buf, len, ns, 1e3, 1e4, 0);
}

/* bit/s as Mbit/s: "1.25", "50.0". */
static void fmt_mbit(char *buf, size_t len, double bps)
{
	fmt_num(buf, len, bps, 1e6, 1e7, 1);
}

/* Columns col, col+1: packets per second (median ± half the spread, * if some runs
 * failed) and the ratio to the baseline group h (base: this is the baseline). */
static void cell_pps(struct table *t, unsigned row, unsigned col, const struct group *g,
		     const struct group *h, bool base)
{
	char a[32];

	t_set(t, row, col, "%.3f ± %.3f%s", g->pps.median / 1e6,
	      (g->pps.max - g->pps.min) / 2e6, g->nok < g->nm ? " *" : "");
	fmt_ratio(a, sizeof(a), g->pps.median, h ? h->pps.median : NAN);
	t_set(t, row, col + 1, "%s", base ? "1.00x" : a);
}

/* Columns col, col+1: Jain's index and the delay percentiles, "-" where not measured. */
static void cell_jain_delay(struct table *t, unsigned row, unsigned col, const struct group *g)
{
	char a[32], b[32], c[32];

	if (isfinite(g->jain.median))
		t_set(t, row, col, "%.3f", g->jain.median);
	else
		t_set(t, row, col, "-");
	fmt_us(a, sizeof(a), g->d50.median);
	fmt_us(b, sizeof(b), g->d99.median);
	fmt_us(c, sizeof(c), g->d999.median);
	if (isfinite(g->d50.median))
		t_set(t, row, col + 1, "%s / %s / %s", a, b, c);
	else
		t_set(t, row, col + 1, "-");
}

static void main_table(struct report *r, struct table *t)
{
	const struct opts *o = r->x->o;
	unsigned row = 1;

	t_init(t, 10);
	t_set(t, 0, 0, "path");
	t_set(t, 0, 1, "size");
	t_set(t, 0, 2, "N");
	t_set(t, 0, 3, "Mpps at the sink");
	t_set(t, 0, 4, "vs htb");
	t_set(t, 0, 5, "Gbit/s");
	t_set(t, 0, 6, "CPU ns/pkt");
	t_set(t, 0, 7, "CPU vs htb");
	t_set(t, 0, 8, "Jain");
	t_set(t, 0, 9, "delay p50/p99/p99.9 µs");
	for (unsigned c = 1; c < 10; c++)
		t->right[c] = true;
	for (unsigned si = 0; si < o->nsizes; si++)
		for (unsigned ni = 0; ni < o->nproducers; ni++) {
			unsigned n = o->producers[ni], size = o->sizes[si];
			struct group *h = find_group(r, P_KERNEL_HTB, size, n);

			for (int p = 0; p < P__MAX; p++) {
				struct group *g = find_group(r, (enum path_id)p, size, n);
				char a[32];

				/* A path that runs once (not per N) has its row in the first block. */
				if (!g || (!path_defs[p].per_producers && ni > 0))
					continue;
				t_set(t, row, 0, "%s", path_defs[p].name);
				t_set(t, row, 1, "%u", size);
				t_set(t, row, 2, "%u", g->n);
				if (!g->nok) {
					t_set(t, row, 3, "failed");
					for (unsigned col = 4; col < 10; col++)
						t_set(t, row, col, "-");
					row++;
					continue;
				}
				cell_pps(t, row, 3, g, h, p == P_KERNEL_HTB);
				t_set(t, row, 5, "%.3f", g->bps.median * 8 / 1e9);
				t_set(t, row, 6, "%.0f", g->cpu.median);
				fmt_ratio(a, sizeof(a), g->cpu.median, h ? h->cpu.median : NAN);
				t_set(t, row, 7, "%s", p == P_KERNEL_HTB ? "1.00x" : a);
				cell_jain_delay(t, row, 8, g);
				row++;
			}
		}
}

/* Forward mode: one row per path and size. */
static void fwd_main_table(struct report *r, struct table *t)
{
	static const char *const head[] = { "path", "size", "Mpps at the receiver",
		"vs kernel", "Gbit/s", "offered Mpps", "forwarder drops", "Jain",
		"delay p50/p99/p99.9 µs" };
	const unsigned nc = sizeof(head) / sizeof(head[0]);
	const struct opts *o = r->x->o;
	unsigned row = 1;

	t_init(t, nc);
	for (unsigned c = 0; c < nc; c++) {
		t_set(t, 0, c, "%s", head[c]);
		t->right[c] = c > 0;
	}
	for (unsigned si = 0; si < o->nsizes; si++) {
		struct group *h = find_group(r, P_FWD_KERNEL_HTB, o->sizes[si], 1);

		for (int p = 0; p < P__MAX; p++) {
			struct group *g = find_group(r, (enum path_id)p, o->sizes[si], 1);

			if (!g)
				continue;
			t_set(t, row, 0, "%s", path_defs[p].name);
			t_set(t, row, 1, "%u", g->size);
			if (!g->nok) {
				t_set(t, row, 2, "failed");
				for (unsigned col = 3; col < nc; col++)
					t_set(t, row, col, "-");
				row++;
				continue;
			}
			cell_pps(t, row, 2, g, h, p == P_FWD_KERNEL_HTB);
			t_set(t, row, 4, "%.3f", g->bps.median * 8 / 1e9);
			t_set(t, row, 5, "%.3f", g->offered.median / 1e6);
			if (isfinite(g->fwd_drops.median))
				t_set(t, row, 6, "%.0f", g->fwd_drops.median);
			else
				t_set(t, row, 6, "-");
			cell_jain_delay(t, row, 7, g);
			row++;
		}
	}
}

/* A table with a column per leaf (the first MAX_TABLE_LEAVES) and a row per path, size
 * and N: head() writes leaf l's header cell, cell() group g's cell of leaf l. */
static void leaf_table(struct report *r, struct table *t,
		       void (*head)(struct report *r, struct table *t, unsigned col, unsigned l),
		       void (*cell)(struct table *t, unsigned row, unsigned col,
				    const struct group *g, unsigned l))
{
	const struct opts *o = r->x->o;
	unsigned nl = r->nleaves < MAX_TABLE_LEAVES ? r->nleaves : MAX_TABLE_LEAVES, row = 1;
	bool fwd = o->mode == MODE_FORWARD;
	unsigned k0 = fwd ? 2 : 3;	/* first leaf column: forward mode has no N */

	t_init(t, k0 + nl);
	t_set(t, 0, 0, "path");
	t_set(t, 0, 1, "size");
	if (!fwd)
		t_set(t, 0, 2, "N");
	for (unsigned l = 0; l < nl; l++) {
		head(r, t, k0 + l, l);
		t->right[k0 + l] = true;
	}
	t->right[1] = t->right[k0 - 1] = true;
	for (unsigned si = 0; si < o->nsizes; si++)
		for (unsigned ni = 0; ni < o->nproducers; ni++)
			for (int p = 0; p < P__MAX; p++) {
				unsigned n = o->producers[ni], size = o->sizes[si];
				struct group *g = find_group(r, (enum path_id)p, size, n);

				if (!g || (!path_defs[p].per_producers && ni > 0))
					continue;
				t_set(t, row, 0, "%s", path_defs[p].name);
				t_set(t, row, 1, "%u", size);
				if (!fwd)
					t_set(t, row, 2, "%u", g->n);
				for (unsigned l = 0; l < nl; l++)
					cell(t, row, k0 + l, g, l);
				row++;
			}
}

/* The per-class table: each leaf's wire Mbit/s and its error against its share. */
static void rate_head(struct report *r, struct table *t, unsigned col, unsigned l)
{
	char h[24], e1[24];

	tc_fmt_handle(r->x->plan.leaves[l].handle, h, sizeof(h));
	fmt_mbit(e1, sizeof(e1), leaf_expected(r, l));
	t_set(t, 0, col, "%s Mbit/s (expect %s)", h, e1);
}

static void rate_cell(struct table *t, unsigned row, unsigned col, const struct group *g,
		      unsigned l)
{
	char w[24];

	fmt_mbit(w, sizeof(w), g->leaf_wire[l].median);
	if (isfinite(g->leaf_err[l]))
		t_set(t, row, col, "%s (%+.1f%%)", w, g->leaf_err[l] * 100);
	else
		t_set(t, row, col, "%s", w);
}

/* The per-class delay table: each leaf's one-way delay p50 / p99 µs, "-" where not
 * measured. */
static void delay_head(struct report *r, struct table *t, unsigned col, unsigned l)
{
	char h[24];

	tc_fmt_handle(r->x->plan.leaves[l].handle, h, sizeof(h));
	t_set(t, 0, col, "%s p50 / p99 µs", h);
}

static void delay_cell(struct table *t, unsigned row, unsigned col, const struct group *g,
		       unsigned l)
{
	char a[32], b[32];

	fmt_us(a, sizeof(a), g->leaf_delay[l * 3].median);
	fmt_us(b, sizeof(b), g->leaf_delay[l * 3 + 1].median);
	if (isfinite(g->leaf_delay[l * 3].median))
		t_set(t, row, col, "%s / %s", a, b);
	else
		t_set(t, row, col, "-");
}

static void describe_setup(struct report *r, FILE *f, bool md)
{
	const struct ctx *x = r->x;
	const struct opts *o = x->o;
	char sizes[128] = "", prods[128] = "", sender[160];
	size_t a = 0, b = 0;

	for (unsigned i = 0; i < o->nsizes; i++)
		a += (size_t)snprintf(sizes + a, sizeof(sizes) - a, "%s%u", i ? "," : "",
				      o->sizes[i]);
	if (o->mode == MODE_FORWARD) {
		char sopts[256] = " Options given to xtx-shape:";
		size_t k = strlen(sopts);

		for (unsigned i = 0; i < o->nshape_opts && k < sizeof(sopts); i++)
			k += (size_t)snprintf(sopts + k, sizeof(sopts) - k, " %s",
					      o->shape_opts[i]);
		if (!o->nshape_opts)
			sopts[0] = '\0';
		else if (k + 1 < sizeof(sopts))
			strcat(sopts, ".");
		if (o->rate)
			snprintf(sender, sizeof(sender), "xtx-send paced at %s (%u producers)",
				 o->rate, o->producers[0]);
		else
			snprintf(sender, sizeof(sender), "xsk-plain unpaced (a thread per queue)");
		fprintf(f, "%sthree-namespace veth testbed %s -> %s [forwarder] %s -> %s, %u "
			"queue(s), %u flows (UDP ports %u..%u), frames of %s bytes. Sender: %s, "
			"the same for both paths. Counted at the receiver for %g s after %.1f s "
			"of warm-up; median of %u interleaved runs (± half the spread). Tree: %s, "
			"%u leaves, overhead %u bytes. xtx-shape: XDP %s.%s%s\n",
			md ? "" : PROG ": ", x->e->tx_dev, x->e->fw_in_dev, x->e->fw_out_dev,
			x->e->rx_dev, o->queues, o->flows, o->base_port,
			o->base_port + o->flows - 1, sizes, sender, o->duration,
			FWD_WARMUP_MS / 1000.0, o->runs,
			o->classes ? o->classes : "built-in (xtx-compare --help)",
			x->plan.nleaves, xtx_sched_config__overhead(x->cfg),
			x->e->shape_mode[0] ? x->e->shape_mode : "-", sopts, md ? "" : "\n");
		return;
	}
	char xopts[256] = " Options given to xtx-send:";
	size_t k = strlen(xopts);

	for (unsigned i = 0; i < o->nsend_opts && k < sizeof(xopts); i++)
		k += (size_t)snprintf(xopts + k, sizeof(xopts) - k, " %s", o->send_opts[i]);
	if (!o->nsend_opts)
		xopts[0] = '\0';
	else if (k + 1 < sizeof(xopts))
		strcat(xopts, ".");
	for (unsigned i = 0; i < o->nproducers; i++)
		b += (size_t)snprintf(prods + b, sizeof(prods) - b, "%s%u", i ? "," : "",
				      o->producers[i]);
	fprintf(f, "%s%s %s -> %s, %u queue(s), %u flows (UDP ports %u..%u), frames of %s "
		"bytes, N = %s, %g s per run, median of %u interleaved runs (± half the "
		"spread). Tree: %s, %u leaves, overhead %u bytes. AF_XDP mode: xtx %s, afxdp "
		"%s.%s%s\n", md ? "" : PROG ": ", x->e->tb_name[0] ? "veth testbed" : "interface",
		x->e->tx_dev, x->e->remote_fd >= 0 ? o->sink_remote : x->e->rx_dev, o->queues,
		o->flows, o->base_port, o->base_port + o->flows - 1, sizes, prods, o->duration,
		o->runs, o->classes ? o->classes : "built-in (xtx-compare --help)",
		x->plan.nleaves, xtx_sched_config__overhead(x->cfg), x->e->xtx_mode,
		x->e->afxdp_mode, xopts, md ? "" : "\n");
}

static void fwd_notes(struct report *r, FILE *f, bool md)
{
	const char *b = md ? "- " : "  ";

	fprintf(f, "%sMpps and Gbit/s: counted by xtx-sink (XDP) on rx0 over its own window "
		"(the sender ran before and after it); Gbit/s counts frames without FCS. vs "
		"kernel: ratio to kernel-fwd-htb at the same size.\n", b);
	fprintf(f, "%soffered Mpps: the sender's own rate over its whole run. On a small host "
		"the sender, the forwarder and the receiver share the CPUs (the ingress veth's "
		"softirq runs on the sending CPU), so what the sender offers depends on the "
		"path.\n", b);
	fprintf(f, "%sforwarder drops: over the whole run; kernel-fwd-htb: the root htb "
		"qdisc's drops (tc -s); xtx-shape: its scheduler's, receive path's, AF_XDP "
		"ring's and XDP policing's drops (its --json summary).\n", b);
	fprintf(f, "%sPer class: wire Mbit/s (frames + overhead) at the receiver; in brackets "
		"the error against the expected share where the tree set the rate (a leaf held "
		"by its own ceil, or all leaves once the tree's total is reached).\n", b);
	if (r->any_nodelay)
		fprintf(f, "%sdelay '-': no timestamps (frames under 66 bytes).\n", b);
	if (r->any_fallback)
		fprintf(f, "%sfq: sch_fq is not available in this kernel, so the fq leaves run "
			"as pfifo of the same limit on kernel-fwd-htb; xtx-shape keeps its fq.\n",
			b);
}

/* kernel-mq-htb: how each leaf's packets spread over the TX queues (each queue's htb's
 * own count, summed over the group's runs), one line per size and N. */
static void mq_spread_notes(struct report *r, FILE *f, const char *b)
{
	const struct tc_plan *mq = &r->x->mq_plan;
	unsigned nq = mq->queues, nl = r->nleaves;

	if (!nq)
		return;
	fprintf(f, "%skernel-mq-htb: each TX queue has its own htb with the whole tree, so a "
		"class whose flows the kernel spreads over Q queues may get up to Q times its "
		"rate and ceil (the error in brackets is against the one-device share). The "
		"share of each leaf's packets per queue (each queue's htb's count, tc -s, summed "
		"over the runs):\n", b);
	for (unsigned i = 0; i < r->ng; i++) {
		const struct group *g = &r->g[i];

		if (g->p != P_KERNEL_MQ_HTB)
			continue;
		fprintf(f, "%s  %u B N=%u:", b, g->size, g->n);
		for (unsigned l = 0; l < nl && l < MAX_TABLE_LEAVES; l++) {
			double sum[TC_MQ_MAX_QUEUES] = { 0 }, tot = 0;
			char h[24];

			for (unsigned k = 0; k < g->nm; k++)
				for (unsigned q = 0; q < nq && g->m[k]->queue_leaf_pkts; q++) {
					double v = g->m[k]->queue_leaf_pkts[q * nl + l];

					if (g->m[k]->ok && isfinite(v)) {
						sum[q] += v;
						tot += v;
					}
				}
			tc_fmt_handle(r->x->plan.leaves[l].handle, h, sizeof(h));
			fprintf(f, "%s %s", l ? ";" : "", h);
			for (unsigned q = 0; q < nq; q++) {
				if (tot > 0)
					fprintf(f, " q%u %.0f%%", q, 100 * sum[q] / tot);
				else
					fprintf(f, " q%u -", q);
			}
		}
		fputc('\n', f);
	}
}

static void notes(struct report *r, FILE *f, bool md)
{
	const char *b = md ? "- " : "  ";

	if (r->x->o->mode == MODE_FORWARD) {
		fwd_notes(r, f, md);
		goto common;
	}

	fprintf(f, "%sMpps and Gbit/s: counted by xtx-sink (XDP) at the receiver over the "
		"sender's send time; Gbit/s counts frames without FCS. vs htb: ratio to "
		"kernel-htb at the same size and N.\n", b);
	fprintf(f, "%sCPU ns/pkt: the sender's CPU time per packet sent, as it reports it "
		"(xtx-send: whole process, dequeuers included; the others: sender threads). "
		"On veth the receiver's softirq often runs on the sending CPU and counts too.\n",
		b);
	fprintf(f, "%sJain: fairness among the flows of one leaf (1 = equal), the lowest "
		"over the leaves. afxdp runs once (one socket), whatever N.\n", b);
	fprintf(f, "%sPer class: wire Mbit/s (frames + overhead) at the receiver; in "
		"brackets the error against the expected share, for shaped paths (kernel-htb, "
		"kernel-mq-htb, packet-htb, xtx) where the tree set the rate: a leaf held by its own ceil, or "
		"all leaves once the tree's total is reached. Without brackets on a shaped "
		"path the sender, not the tree, limited the rate.\n", b);
	mq_spread_notes(r, f, b);
	if (r->any_nodelay)
		fprintf(f, "%sdelay '-': no timestamps (frames under 66 bytes, or sink on "
			"another host).\n", b);
	if (r->any_fallback)
		fprintf(f, "%sfq: sch_fq is not available in this kernel, so the fq leaves run "
			"as pfifo of the same limit on the kernel paths (no per-flow fairness "
			"there); xtx keeps its fq.\n", b);
common:
	if (r->any_leaf_delay)
		fprintf(f, "%sPer class one-way delay: each leaf's flows' own histogram at the "
			"receiver (xtx-sink --delay-mod: flow i is in leaf i mod L).\n", b);
	else if (r->nleaves > CMP_DELAY_GROUPS)
		fprintf(f, "%sPer class one-way delay: not measured with more than %d leaves "
			"(xtx-sink's delay groups).\n", b, CMP_DELAY_GROUPS);
	if (r->nleaves > MAX_TABLE_LEAVES)
		fprintf(f, "%sPer class: the first %d of %u leaves; --json has all.\n", b,
			MAX_TABLE_LEAVES, r->nleaves);
	if (r->any_failed)
		fprintf(f, "%s'*': some runs of that row failed (see --json); 'failed': all "
			"did.\n", b);
}

static void write_tables(struct report *r, FILE *f, bool md)
{
	struct table t;

	describe_setup(r, f, md);
	if (md)
		fputc('\n', f);
	if (r->x->o->mode == MODE_FORWARD)
		fwd_main_table(r, &t);
	else
		main_table(r, &t);
	t_print(&t, f, md);
	t_free(&t);
	fputc('\n', f);
	if (!md)
		fprintf(f, "Per class:\n");
	leaf_table(r, &t, rate_head, rate_cell);
	t_print(&t, f, md);
	t_free(&t);
	fputc('\n', f);
	if (r->any_leaf_delay) {
		if (!md)
			fprintf(f, "Per class one-way delay:\n");
		leaf_table(r, &t, delay_head, delay_cell);
		t_print(&t, f, md);
		t_free(&t);
		fputc('\n', f);
	}
	notes(r, f, md);
}

/* --- JSON ---------------------------------------------------------------------------- */

/* Members in order, comma-separated (the caller writes what comes around them). A
 * statistic is {"median":..,"min":..,"max":..,"n":..} scaled by scale; a number has up
 * to prec significant digits (json_put_num). */
struct stat_field { const char *name; struct stat5 s; double scale; };
struct num_field { const char *name; double v; int prec; };

#define PUT_STATS(f, ...) do {							\
		const struct stat_field s_[] = { __VA_ARGS__ };			\
		put_stats(f, s_, sizeof(s_) / sizeof(s_[0]));			\
	} while (0)
#define PUT_NUMS(f, ...) do {							\
		const struct num_field n_[] = { __VA_ARGS__ };			\
		put_nums(f, n_, sizeof(n_) / sizeof(n_[0]));			\
	} while (0)

static void put_stats(FILE *f, const struct stat_field *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\"%s\":{\"median\":", i ? "," : "", v[i].name);
		json_put_num(f, v[i].s.median * v[i].scale, 9);
		fputs(",\"min\":", f);
		json_put_num(f, v[i].s.min * v[i].scale, 9);
		fputs(",\"max\":", f);
		json_put_num(f, v[i].s.max * v[i].scale, 9);
		fprintf(f, ",\"n\":%u}", v[i].s.n);
	}
}

static void put_nums(FILE *f, const struct num_field *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", v[i].name);
		json_put_num(f, v[i].v, v[i].prec);
	}
}

/* An array of n numbers of up to prec significant digits, without the brackets. */
static void put_num_array(FILE *f, const double *v, unsigned n, int prec)
{
	for (unsigned i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		json_put_num(f, v[i], prec);
	}
}

static void put_str_or_null(FILE *f, const char *s)
{
	if (s)
		json_put_str(f, s);
	else
		fputs("null", f);
}

static void put_kv_str(FILE *f, const char *k, const char *v, bool comma)
{
	fprintf(f, "\"%s\":", k);
	json_put_str(f, v);
	if (comma)
		fputc(',', f);
}

/* "k":"the file's text", ("" if it cannot be read). */
static void put_kv_file(FILE *f, const char *k, const char *path)
{
	char *text = read_file(path, 1 << 20);

	put_kv_str(f, k, text ? text : "", true);
	free(text);
}

/* a / b, NaN unless b is a positive number. */
static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static void put_environment(const struct report *r, FILE *f)
{
	const struct opts *o = r->x->o;
	const struct env *e = r->x->e;

	put_kv_str(f, "kernel", e->kernel, true);
	put_kv_str(f, "cpu_model", e->cpu_model, true);
	fprintf(f, "\"cpus\":%u,", e->ncpus);
	put_kv_str(f, "started_utc", e->started_utc, true);
	put_kv_str(f, "command", e->cmdline, true);
	fprintf(f, "\"testbed\":%s,", !o->dev ? "true" : "false");
	put_kv_str(f, "testbed_name", e->tb_name, true);
	put_kv_str(f, "tx_dev", e->tx_dev, true);
	put_kv_str(f, "tx_netns", e->tx_netns, true);
	put_kv_str(f, "sink", e->remote_fd >= 0 || o->sink_remote ? "remote" : "local", true);
	put_kv_str(f, "sink_dev", o->sink_remote ? o->sink_remote : e->rx_dev, true);
	put_kv_str(f, "sink_netns", e->rx_netns, true);
	put_kv_str(f, "dst_ip", e->dst_ip, true);
	put_kv_str(f, "dst_mac", e->dst_mac, true);
	fprintf(f, "\"queues\":%u,\"qdisc_tx_queues\":%u,", o->queues, e->qd_tx_queues);
	put_kv_str(f, "xtx_mode", e->xtx_mode, true);
	put_kv_str(f, "afxdp_mode", e->afxdp_mode, true);
	fprintf(f, "\"fq_available\":%s,", !e->fq_probed ? "null" :
		e->fq_available ? "true" : "false");
	/* forward mode: the forwarding namespace; the qdisc device is fw1 there */
	put_kv_str(f, "fw_netns", e->fw_netns, true);
	put_kv_str(f, "fw_in_dev", e->fw_in_dev, true);
	put_kv_str(f, "fw_out_dev", e->fw_out_dev, true);
	put_kv_str(f, "qdisc_netns", e->qd_netns, true);
	put_kv_str(f, "qdisc_dev", e->qd_dev, true);
	put_kv_str(f, "shape_mode", e->shape_mode, true);
	put_kv_str(f, "saved_qdisc", e->saved_qdisc, false);
}

/* A plan's commands as JSON strings "tc ...", comma-separated. */
static void put_tc_cmds(FILE *f, const struct tc_plan *p)
{
	for (unsigned i = 0; i < p->ncmds; i++) {
		char line[TC_LINE_MAX + 8];

		snprintf(line, sizeof(line), "tc %s", p->cmds[i].line);
		if (i)
			fputc(',', f);
		json_put_str(f, line);
	}
}

/* The leaves as configured and expected, and the tc commands of the tree. */
static void put_tree(const struct report *r, FILE *f)
{
	const struct ctx *x = r->x;

	fprintf(f, "\"overhead\":%u,\"leaves\":[", xtx_sched_config__overhead(x->cfg));
	for (unsigned l = 0; l < r->nleaves; l++) {
		const struct tc_leaf *lf = &x->plan.leaves[l];
		const struct xtx_class_opts *c = xtx_sched_config__class(x->cfg, lf->cfg_index);
		char h[24], th[24];

		tc_fmt_handle(lf->handle, h, sizeof(h));
		tc_fmt_handle(lf->tc_classid, th, sizeof(th));
		fprintf(f, "%s{\"handle\":\"%s\",\"tc_classid\":\"%s\",", l ? "," : "", h, th);
		PUT_NUMS(f, { "rate_bps", (double)c->rate * 8, 17 },
			 { "ceil_bps", (double)c->ceil * 8, 17 });
		fprintf(f, ",\"prio\":%u,\"fq\":%s,", c->prio, c->fq ? "true" : "false");
		PUT_NUMS(f, { "expected_bps", leaf_expected(r, l), 12 });
		fprintf(f, ",\"capped_by_ceil\":%s,\"flows\":\"i mod %u == %u\"}",
			x->capped[lf->cfg_index] ? "true" : "false", r->nleaves, l);
	}
	fputs("],\"tc_commands\":[", f);
	put_tc_cmds(f, &x->plan);
	/* kernel-mq-htb's commands: mq and the tree once per TX queue ([] if not run) */
	fputs("],\"tc_commands_mq\":[", f);
	put_tc_cmds(f, &x->mq_plan);
	fputs("],\"tc_fallbacks\":[", f);
	for (unsigned i = 0, first = 1; i < x->plan.ncmds; i++)
		if (x->plan.cmds[i].fallback[0]) {
			char line[TC_LINE_MAX + 8];

			fprintf(f, "%s{\"command\":", first ? "" : ",");
			snprintf(line, sizeof(line), "tc %s", x->plan.cmds[i].fallback);
			json_put_str(f, line);
			fputs(",\"note\":", f);
			json_put_str(f, x->plan.cmds[i].note);
			fputc('}', f);
			first = 0;
		}
	fputc(']', f);
}

/* "name":["s0","s1",...] */
static void put_str_list(FILE *f, const char *name, const char *const *s, unsigned n)
{
	fprintf(f, "\"%s\":[", name);
	for (unsigned i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		json_put_str(f, s[i]);
	}
	fputc(']', f);
}

static void put_config(const struct report *r, FILE *f)
{
	const struct opts *o = r->x->o;
	const struct env *e = r->x->e;

	put_kv_str(f, "classes_file", o->classes ? o->classes : "", true);
	put_kv_file(f, "classes_text", e->classes_path);
	if (o->mode == MODE_FORWARD) {
		put_kv_file(f, "rules_text", e->rules_path);
		put_kv_str(f, "sender", o->rate ? "xtx-send" : "xsk-plain", true);
		fputs("\"rate\":", f);
		put_str_or_null(f, o->rate);
		fputc(',', f);
		put_str_list(f, "shape_opts", o->shape_opts, o->nshape_opts);
		fprintf(f, ",\"warmup_s\":%g,", FWD_WARMUP_MS / 1000.0);
	} else {
		put_str_list(f, "send_opts", o->send_opts, o->nsend_opts);
		fputc(',', f);
	}
	fprintf(f, "\"flows\":%u,\"base_port\":%u,\"sndbuf\":%u,", o->flows, o->base_port,
		o->sndbuf);
	PUT_NUMS(f, { "duration_s", o->duration, 6 });
	fprintf(f, ",\"runs\":%u,\"producers\":[", o->runs);
	for (unsigned i = 0; i < o->nproducers; i++)
		fprintf(f, "%s%u", i ? "," : "", o->producers[i]);
	fputs("],\"sizes\":[", f);
	for (unsigned i = 0; i < o->nsizes; i++)
		fprintf(f, "%s%u", i ? "," : "", o->sizes[i]);
	fputs("],\"paths\":[", f);
	for (int p = 0, first = 1; p < P__MAX; p++)
		if (o->path_on[p]) {
			fprintf(f, "%s{\"name\":\"%s\",\"what\":", first ? "" : ",", path_defs[p].name);
			json_put_str(f, path_defs[p].what);
			fprintf(f, ",\"shaped\":%s}", path_defs[p].shaped ? "true" : "false");
			first = 0;
		}
	fputs("],", f);
	put_tree(r, f);
}

/* One configuration summarised: the medians, min and max of its runs, per class too. */
static void put_result(const struct report *r, const struct group *g, FILE *f)
{
	const struct ctx *x = r->x;
	bool fwd = x->o->mode == MODE_FORWARD;
	const struct group *h = find_group(r, P_KERNEL_HTB, g->size, g->n);

	fprintf(f, "{\"path\":\"%s\",\"mode\":\"%s\",\"size\":%u,\"producers\":%u,"
		"\"runs\":%u,\"runs_ok\":%u,", path_defs[g->p].name, fwd ? "forward" : "send",
		g->size, g->n, g->nm, g->nok);
	if (fwd) {
		const struct group *k = find_group(r, P_FWD_KERNEL_HTB, g->size, g->n);

		PUT_STATS(f, { "offered_pps", g->offered, 1 }, { "forwarder_pkts", g->fwd_pkts, 1 },
			  { "forwarder_drops", g->fwd_drops, 1 });
		fputc(',', f);
		PUT_NUMS(f, { "pps_vs_kernel_fwd_htb",
			      ratio(g->pps.median, k ? k->pps.median : NAN), 6 });
		fputc(',', f);
	}
	PUT_STATS(f, { "pps", g->pps, 1 }, { "bytes_per_s", g->bps, 1 },
		  { "cpu_ns_per_pkt", g->cpu, 1 }, { "jain_min", g->jain, 1 });
	fputs(",\"delay_us\":{", f);
	PUT_STATS(f, { "p50", g->d50, 1e-3 }, { "p99", g->d99, 1e-3 }, { "p999", g->d999, 1e-3 });
	fputs("},", f);
	PUT_NUMS(f, { "pps_vs_kernel_htb", ratio(g->pps.median, h ? h->pps.median : NAN), 6 },
		 { "cpu_vs_kernel_htb", ratio(g->cpu.median, h ? h->cpu.median : NAN), 6 });
	fprintf(f, ",\"fq_fallback\":%s,\"first_error\":", g->fq_fallback ? "true" : "false");
	put_str_or_null(f, g->errors[0] ? g->errors : NULL);
	fputs(",\"classes\":[", f);
	for (unsigned l = 0; l < r->nleaves; l++) {
		char hs[24];

		tc_fmt_handle(x->plan.leaves[l].handle, hs, sizeof(hs));
		fprintf(f, "%s{\"handle\":\"%s\",", l ? "," : "", hs);
		PUT_STATS(f, { "pps", g->leaf_pps[l], 1 }, { "bytes_per_s", g->leaf_Bps[l], 1 },
			  { "wire_bps", g->leaf_wire[l], 1 }, { "jain", g->leaf_jain[l], 1 });
		fputs(",\"delay_us\":{", f);
		PUT_STATS(f, { "p50", g->leaf_delay[l * 3], 1e-3 },
			  { "p99", g->leaf_delay[l * 3 + 1], 1e-3 },
			  { "p999", g->leaf_delay[l * 3 + 2], 1e-3 });
		fputs("},", f);
		PUT_NUMS(f, { "expected_bps", leaf_expected(r, l), 12 },
			 { "rate_error", g->leaf_err[l], 6 });
		fputs(",\"rate_error_note\":", f);
		put_str_or_null(f, g->leaf_note[l]);
		fputc('}', f);
	}
	fputs("]}", f);
}

/* One measurement as it was taken, with the sender's and the sink's own summaries. */
static void put_run(const struct report *r, const struct meas *m, FILE *f)
{
	bool fwd = r->x->o->mode == MODE_FORWARD;

	fprintf(f, "{\"path\":\"%s\",\"mode\":\"%s\",\"size\":%u,\"producers\":%u,\"run\":%u,"
		"\"ok\":%s,\"error\":", path_defs[m->path].name, fwd ? "forward" : "send",
		m->size, m->producers, m->run, m->ok ? "true" : "false");
	put_str_or_null(f, m->error[0] ? m->error : NULL);
	fprintf(f, ",\"qdisc_restored\":%s,\"fq_fallback\":%s,",
		m->qdisc_restored ? "true" : "false", m->fq_fallback ? "true" : "false");
	PUT_NUMS(f, { "duration_s", m->duration_s, 9 }, { "sink_pkts", m->sink_pkts, 17 },
		 { "sink_bytes", m->sink_bytes, 17 }, { "pps", m->pps, 9 },
		 { "cpu_ns_per_pkt", m->cpu_ns_per_pkt, 9 }, { "jain_min", m->jain_min, 6 });
	fputs(",\"delay_ns\":{", f);
	PUT_NUMS(f, { "p50", m->d50, 12 }, { "p99", m->d99, 12 }, { "p999", m->d999, 12 });
	/* the per-class and per-flow counts of a failed run are left out */
	fputs("},\"class_pkts\":[", f);
	put_num_array(f, m->leaf_pkts, m->ok ? r->nleaves : 0, 17);
	fputs("],\"class_bytes\":[", f);
	put_num_array(f, m->leaf_bytes, m->ok ? r->nleaves : 0, 17);
	fputs("],\"class_delay_ns\":[", f);
	for (unsigned l = 0; m->ok && l < r->nleaves; l++) {
		fputs(l ? ",[" : "[", f);
		put_num_array(f, m->leaf_delay + (size_t)l * 3, 3, 12);
		fputc(']', f);
	}
	fputs("],\"flow_pkts\":[", f);
	put_num_array(f, m->flow_pkts, m->ok ? r->x->o->flows : 0, 17);
	fputs("],\"queue_class_pkts\":", f);
	if (m->queue_leaf_pkts) {	/* kernel-mq-htb: [queue][leaf] from each queue's htb */
		fputc('[', f);
		for (unsigned q = 0; q < r->x->mq_plan.queues; q++) {
			fputs(q ? ",[" : "[", f);
			put_num_array(f, m->queue_leaf_pkts + (size_t)q * r->nleaves, r->nleaves,
				      17);
			fputc(']', f);
		}
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	fputs(",\"sender\":", f);
	json_write(f, m->sender, NULL);
	fputs(",\"sink\":", f);
	json_write(f, m->sink, "per_port");
	if (fwd) {
		fputc(',', f);
		PUT_NUMS(f, { "offered_pps", m->offered_pps, 9 },
			 { "forwarder_pkts", m->fwd_pkts, 17 },
			 { "forwarder_drops", m->fwd_drops, 17 });
		fputs(",\"forwarder\":", f);
		json_write(f, m->forwarder, NULL);
	}
	fputc('}', f);
}

static void write_json(struct report *r, FILE *f)
{
	fprintf(f, "{\"tool\":\"xtx-compare\",\"mode\":\"%s\",\"environment\":{",
		r->x->o->mode == MODE_FORWARD ? "forward" : "send");
	put_environment(r, f);
	fputs("},\"config\":{", f);
	put_config(r, f);
	fputs("},\"results\":[", f);
	for (unsigned i = 0; i < r->ng; i++) {
		if (i)
			fputc(',', f);
		put_result(r, &r->g[i], f);
	}
	fputs("],\"runs\":[", f);
	for (unsigned i = 0, first = 1; i < r->ng; i++)
		for (unsigned k = 0; k < r->g[i].nm; k++) {
			if (!first)
				fputc(',', f);
			put_run(r, r->g[i].m[k], f);
			first = 0;
		}
	fputs("]}\n", f);
}

/* --- plot ---------------------------------------------------------------------------- */

/* Mpps against N: one block per path and size (gnuplot "index"), in path. */
static int plot_mpps_data(struct report *r, const char *path)
{
	const struct opts *o = r->x->o;
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	for (unsigned si = 0; si < o->nsizes; si++)
		for (int p = 0; p < P__MAX; p++) {
			if (!o->path_on[p])
				continue;
			fprintf(f, "# %s %u\n", path_defs[p].name, o->sizes[si]);
			for (unsigned ni = 0; ni < o->nproducers; ni++) {
				struct group *g = find_group(r, (enum path_id)p, o->sizes[si],
							     o->producers[ni]);

				if (g && g->nok)
					fprintf(f, "%u %.6f %.6f %.6f\n", o->producers[ni],
						g->pps.median / 1e6, g->pps.min / 1e6,
						g->pps.max / 1e6);
				else
					fprintf(f, "%u NaN NaN NaN\n", o->producers[ni]);
			}
			fputs("\n\n", f);
		}
	fclose(f);
	return 0;
}

/* Per class at N nmax and the first size: configured, expected, each shaped path, in
 * path; *lo and *hi: the smallest positive and the largest of those rates (Mbit/s). */
static int plot_class_data(struct report *r, const char *path, unsigned nmax, double *lo,
			   double *hi)
{
	const struct ctx *x = r->x;
	const struct opts *o = x->o;
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	fputs("# class rate ceil expected", f);
	for (int p = 0; p < P__MAX; p++)
		if (o->path_on[p] && path_defs[p].shaped)
			fprintf(f, " %s", path_defs[p].name);
	fputc('\n', f);
	for (unsigned l = 0; l < r->nleaves; l++) {
		const struct xtx_class_opts *c =
			xtx_sched_config__class(x->cfg, x->plan.leaves[l].cfg_index);
		char h[24];
		double v[3] = { (double)c->rate * 8e-6, (double)c->ceil * 8e-6,
				leaf_expected(r, l) * 1e-6 };

		tc_fmt_handle(x->plan.leaves[l].handle, h, sizeof(h));
		fprintf(f, "%s %.6f %.6f %.6f", h, v[0], v[1], v[2]);
		for (int k = 0; k < 3; k++) {
			*lo = v[k] > 0 && v[k] < *lo ? v[k] : *lo;
			*hi = v[k] > *hi ? v[k] : *hi;
		}
		for (int p = 0; p < P__MAX; p++) {
			struct group *g;

			if (!o->path_on[p] || !path_defs[p].shaped)
				continue;
			g = find_group(r, (enum path_id)p, o->sizes[0], nmax);
			if (g && g->nok && isfinite(g->leaf_wire[l].median)) {
				double w = g->leaf_wire[l].median * 1e-6;

				fprintf(f, " %.6f", w);
				*lo = w > 0 && w < *lo ? w : *lo;
				*hi = w > *hi ? w : *hi;
			} else {
				fputs(" NaN", f);
			}
		}
		fputc('\n', f);
	}
	fclose(f);
	return 0;
}

/* The gnuplot script of both plots, in path: Mpps against N (dat), per class (cls). */
static int plot_script(struct report *r, const char *path, const char *dat, const char *cls,
		       unsigned nmax, double lo, double hi)
{
	const struct ctx *x = r->x;
	const struct opts *o = x->o;
	unsigned idx = 0, first = 1;
	int col = 5;
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	fprintf(f, "set terminal pngcairo size 1500,600 font ',10' noenhanced\n");
	fprintf(f, "set output '%s'\n", o->plot_file);
	fprintf(f, "set multiplot layout 1,2 title \"xtx-compare: %s %s, %u flows, median of %u "
		"runs of %g s (bars: min..max)\"\n", x->e->tb_name[0] ? "veth testbed" : "dev",
		x->e->tx_dev, o->flows, o->runs, o->duration);
	fprintf(f, "set title 'Packets per second at the receiver'\n"
		"set xlabel 'N (sender threads / xtx producers)'\nset ylabel 'Mpps'\n"
		"set key outside bottom center horizontal\nset grid\nset yrange [0:*]\n"
		"set xtics (");
	for (unsigned i = 0; i < o->nproducers; i++)
		fprintf(f, "%s%u", i ? "," : "", o->producers[i]);
	fprintf(f, ")\nset offsets 0.3, 0.3, 0, 0\nplot ");
	for (unsigned si = 0; si < o->nsizes; si++)
		for (int p = 0; p < P__MAX; p++) {
			if (!o->path_on[p])
				continue;
			fprintf(f, "%s'%s' index %u using 1:2:3:4 with yerrorlines lw 2 "
				"title '%s%s", first ? "" : ", ", dat, idx, path_defs[p].name,
				path_defs[p].per_producers ? "" : " (1 socket, any N)");
			if (o->nsizes > 1)
				fprintf(f, " %u B", o->sizes[si]);
			fputc('\'', f);
			idx++;
			first = 0;
		}
	fputc('\n', f);
	fprintf(f, "unset offsets\nset title 'Per-class wire rate, N=%u, %u-byte frames "
		"(frames + %u B overhead)'\nset xlabel 'leaf class'\nset ylabel 'Mbit/s'\n"
		"set style data histograms\nset style histogram clustered gap 1\n"
		"set style fill solid 0.85 border -1\nset boxwidth 0.9\nunset xtics\n"
		"set xtics nomirror\n", nmax, o->sizes[0], xtx_sched_config__overhead(x->cfg));
	if (hi > 0 && lo < INFINITY && hi / lo > 20)
		fprintf(f, "set logscale y\nset yrange [%g:%g]\n", lo / 2, hi * 2);
	fprintf(f, "plot '%s' using 2:xtic(1) title 'rate', '' using 3 title 'ceil', "
		"'' using 4 title 'expected share'", cls);
	for (int p = 0; p < P__MAX; p++)
		if (o->path_on[p] && path_defs[p].shaped)
			fprintf(f, ", '' using %d title '%s'", col++, path_defs[p].name);
	fputs("\nunset multiplot\n", f);
	fclose(f);
	return 0;
}

static void write_plot(struct report *r)
{
	const struct ctx *x = r->x;
	const struct opts *o = x->o;
	unsigned nmax = o->producers[0];
	char dat[300], cls[300], gp[300], out[2048];
	char *argv[] = { (char *)"gnuplot", gp, NULL };
	double lo = INFINITY, hi = 0;
	int rc;

	for (unsigned i = 0; i < o->nproducers; i++)
		if (o->producers[i] > nmax)
			nmax = o->producers[i];
	snprintf(dat, sizeof(dat), "%s/mpps.dat", x->e->tmpdir);
	snprintf(cls, sizeof(cls), "%s/classes.dat", x->e->tmpdir);
	snprintf(gp, sizeof(gp), "%s/plot.gp", x->e->tmpdir);
	if (plot_mpps_data(r, dat) || plot_class_data(r, cls, nmax, &lo, &hi) ||
	    plot_script(r, gp, dat, cls, nmax, lo, hi)) {
		fprintf(stderr, PROG ": --plot: cannot write in %s: %s\n", x->e->tmpdir,
			strerror(errno));
		return;
	}
	rc = proc_run(NULL, argv, 60, out, sizeof(out));
	if (rc) {
		fprintf(stderr, PROG ": --plot: gnuplot failed (%d)%s%s\n", rc,
			rc == 127 ? ": is gnuplot installed? (apt-get install gnuplot-nox)" : ": ",
			rc == 127 ? "" : out);
		return;
	}
	if (!o->quiet)
		fprintf(stderr, PROG ": wrote %s\n", o->plot_file);
}

void report_all(struct ctx *x, struct meas *ms, unsigned nms)
{
	struct report r = { .x = x };
	FILE *f;

	build(&r, x, ms, nms);
	fputc('\n', stdout);
	write_tables(&r, stdout, false);
	fflush(stdout);
	if (x->o->md_file) {
		f = fopen(x->o->md_file, "w");
		if (f) {
			write_tables(&r, f, true);
			fclose(f);
		} else {
			fprintf(stderr, PROG ": --md %s: %s\n", x->o->md_file, strerror(errno));
		}
	}
	if (x->o->json_file) {
		f = fopen(x->o->json_file, "w");
		if (f) {
			write_json(&r, f);
			if (fclose(f))
				fprintf(stderr, PROG ": --json %s: %s\n", x->o->json_file,
					strerror(errno));
		} else {
			fprintf(stderr, PROG ": --json %s: %s\n", x->o->json_file, strerror(errno));
		}
	}
	if (x->o->plot_file)
		write_plot(&r);
	free_report(&r);
}
