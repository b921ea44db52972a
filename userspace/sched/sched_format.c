/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_format.c - a configuration as the class file it reads back as
 * (xtx_sched_config__format(); docs/config.md).
 *
 * Rules
 *   - Every value is written, exactly: rates in bytes per second (`bps`), sizes in bytes,
 *     times in seconds with nine decimals. Parsing the text gives the same classes in the
 *     same order (defaults included, now explicit), default class, overhead and r2q.
 *   - Leaf options only on leaves, fq options only with fq; a CoDel or room target left to
 *     the scheduler's default is not written.
 * Control path only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <xtx/sched.h>

struct out {
	char *buf;
	size_t len, n;		/* n: what the whole text needs, without the NUL */
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(o->n < o->len ? o->buf + o->n : NULL, o->n < o->len ? o->len - o->n : 0,
		      fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n += (size_t)k;
}

static void put_time(struct out *o, const char *kw, uint64_t ns)
{
	put(o, " %s %llu.%09llus", kw, (unsigned long long)(ns / 1000000000ull),
	    (unsigned long long)(ns % 1000000000ull));
}

static void put_handle(struct out *o, const char *kw, uint32_t h)
{
	char s[XTX_HANDLE_STRLEN];

	xtx_handle__str(h, s, sizeof(s));
	put(o, "%s%s", kw, s);
}

static void put_leaf(struct out *o, const struct xtx_class_opts *c)
{
	put(o, " limit %u", c->limit);
	if (c->fq) {
		put(o, " fq flows %u flow_limit %u fq_quantum %u", c->flows, c->flow_limit,
		    c->fq_quantum);
		if (c->maxrate)
			put(o, " maxrate %llubps", (unsigned long long)c->maxrate);
	}
	if (c->target == XTX_TARGET_OFF)
		put(o, " target off");
	else if (c->target)
		put_time(o, "target", c->target);
	if (c->codel == XTX_CODEL_OFF) {
		put(o, " codel off");
	} else if (c->codel == XTX_CODEL_ON) {
		put(o, " codel");
		if (c->codel_target)
			put_time(o, "target", c->codel_target);
		if (c->codel_interval)
			put_time(o, "interval", c->codel_interval);
		put(o, " %s", c->codel_ecn ? "ecn" : "noecn");
	}
}

int xtx_sched_config__format(const struct xtx_sched_config *cfg, char *buf, size_t len)
{
	unsigned n = cfg ? xtx_sched_config__class_count(cfg) : 0, i;
	struct out o = { buf, buf ? len : 0, 0 };
	uint8_t *inner;

	if (!cfg)
		return -EINVAL;
	inner = calloc(n ? n : 1, 1);
	if (!inner)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int p = xtx_sched_config__class_index(cfg, xtx_sched_config__class(cfg, i)->parent);

		if (p >= 0)
			inner[p] = 1;
	}
	for (i = 0; i < n; i++) {
		const struct xtx_class_opts *c = xtx_sched_config__class(cfg, i);

		put_handle(&o, "class ", c->handle);
		if (c->parent != XTX_HANDLE_ROOT)
			put_handle(&o, " parent ", c->parent);
		put(&o, " rate %llubps ceil %llubps burst %u cburst %u quantum %u prio %u",
		    (unsigned long long)c->rate, (unsigned long long)(c->ceil ? c->ceil : c->rate),
		    c->burst, c->cburst, c->quantum, c->prio);
		if (c->scope == XTX_SCOPE_QUEUE)
			put(&o, " scope queue");
		if (!inner[i])
			put_leaf(&o, c);
		put(&o, "\n");
	}
	free(inner);
	if (xtx_sched_config__default(cfg)) {
		put_handle(&o, "default ", xtx_sched_config__default(cfg));
		put(&o, "\n");
	}
	put(&o, "overhead %u\nr2q %u\n", xtx_sched_config__overhead(cfg),
	    xtx_sched_config__r2q(cfg));
	if (o.n > INT32_MAX)
		return -E2BIG;
	return (int)o.n;
}
