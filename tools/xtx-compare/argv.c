/* SPDX-License-Identifier: BSD-3-Clause */
/* argv.c - the command lines of the tools xtx-compare runs, built into a struct argv_buf
 * (compare.h): one argument per call, the options both modes' senders and every xtx-sink
 * take built once. An argument that does not fit is left out (the buffer holds far more
 * than any command here needs).
 */
#include <stdarg.h>
#include <stdio.h>

#include "compare.h"

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

void av_sink(struct argv_buf *a, const char *bindir, const char *netns, const char *dev,
	     unsigned lo, unsigned hi)
{
	av_add(a, "%s/xtx-sink", bindir);
	if (netns && netns[0])
		av_opt(a, "--netns", "%s", netns);
	av_opt(a, "--dev", "%s", dev);
	av_opt(a, "--ports", "%u-%u", lo, hi);
	av_opt(a, "--interval", "0");
}

void av_delay_mod(struct argv_buf *a, const struct tc_plan *p)
{
	if (p->nleaves >= 2 && p->nleaves <= CMP_DELAY_GROUPS)
		av_opt(a, "--delay-mod", "%u", p->nleaves);
}
