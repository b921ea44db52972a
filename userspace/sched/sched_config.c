/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_config.c - the scheduler's configuration container: the HTB class tree as the user
 * wrote it, with tc's / sch_htb's / sch_fq's defaults filled in, and the tree-wide checks.
 *
 * Design
 *   - Classes live in one array in config order; that order is the class index a
 *     descriptor carries (xtx_desc.cls), so it never changes once a class is added.
 *   - A handle -> index open-addressing table (linear probing, load <= 1/2) makes
 *     class_index() O(1): the scheduler core calls it once per class at create, and a
 *     65535-class config must not take O(n^2).
 *   - Each class keeps a private mask of the options the user set explicitly (a zero field
 *     from the C API means "default"; the parser also reports "maxrate 0" as set). The mask
 *     tells validate() which leaf-only options were really asked for on an inner class, and
 *     tells set_r2q() which quanta are defaults to recompute.
 *   - add_class() checks one class alone; validate() checks the tree. It may run many times
 *     (parse, then again in xtx_sched__create()), so it only reads the config.
 *   - This is slow-path code: it allocates, and nothing here runs per packet.
 *
 * Units as in xtx/sched.h: rates in bytes/s, sizes in bytes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/sched.h>
#include "opts.h"
#include "sched_config_pvt.h"

/* Defaults, from the comment on struct xtx_class_opts in xtx/sched.h. */
#define DEF_HZ			1000u		/* tc's burst = rate / HZ + mtu */
#define DEF_MTU			1600u
#define DEF_R2Q			10u		/* sch_htb's r2q */
#define DEF_QUANTUM_MIN		1000u		/* sch_htb clamps a computed quantum */
#define DEF_QUANTUM_MAX		200000u
#define DEF_LIMIT		10000u		/* sch_fq's limit, packets per leaf */
#define DEF_FLOWS_FQ		1024u		/* sch_fq's default buckets */
#define DEF_FLOW_LIMIT		100u		/* sch_fq's flow_limit */
#define DEF_FQ_QUANTUM		(2u * 1514u)	/* sch_fq: 2 * psched_mtu */
#define FLOWS_MAX		(1u << 18)	/* sch_fq: buckets_log <= 18 */

struct cfg_class {
	struct xtx_class_opts o;	/* as given, defaults filled, parent normalised */
	uint32_t set;			/* _XTX_OPT_* the user gave explicitly */
};

struct xtx_sched_config {
	struct cfg_class *cls;		/* config order = class index */
	unsigned n, cap;
	uint32_t *hidx;			/* handle table: class index + 1, 0 = empty */
	uint32_t hsize;			/* slots, power of two, >= 2 * n; 0 = no table yet */
	uint32_t dflt;			/* default class handle, 0 = first leaf */
	uint32_t dflt_line;		/* line of the "default" statement, 0 = C API */
	uint32_t overhead;		/* bytes added per packet on the wire */
	uint32_t r2q;			/* divisor for default quanta */
	char *source;			/* file name for messages, NULL = C API */
};

/* --- formatting ---------------------------------------------------------------------- */

char *_xtx_handle_fmt(char *buf, size_t len, uint32_t h)
{
	if (h == XTX_HANDLE_ROOT)
		snprintf(buf, len, "root");
	else if (XTX_HANDLE_MIN(h) == 0)
		snprintf(buf, len, "%x:", XTX_HANDLE_MAJ(h));
	else
		snprintf(buf, len, "%x:%x", XTX_HANDLE_MAJ(h), XTX_HANDLE_MIN(h));
	return buf;
}

char *_xtx_rate_fmt(char *buf, size_t len, uint64_t bytes)
{
	/* Decimal units as tc prints them; 1 Kbit/s = 125 B/s. Every unit is 2^a * 5^b bytes,
	 * so the fraction terminates (at most 12 digits for Tbit): the output is exact. */
	static const struct { uint64_t bytes; const char *name; } units[] = {
		{ 125000000000ull, "Tbit" },
		{ 125000000ull, "Gbit" },
		{ 125000ull, "Mbit" },
		{ 125ull, "Kbit" },
	};
	size_t i, off;

	if (!len)
		return buf;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t ub = units[i].bytes, r;
		int n;

		if (bytes < ub)
			continue;
		n = snprintf(buf, len, "%llu", (unsigned long long)(bytes / ub));
		off = n < 0 ? 0 : (size_t)n;
		r = bytes % ub;
		if (r && off + 1 < len)
			buf[off++] = '.';
		while (r && off + 1 < len) {	/* r < ub <= 1.25e11: r * 10 cannot overflow */
			r *= 10;
			buf[off++] = (char)('0' + r / ub);
			r %= ub;
		}
		if (off < len)
			snprintf(buf + off, len - off, "%s/s", units[i].name);
		else
			buf[len - 1] = '\0';
		return buf;
	}
	snprintf(buf, len, "%llubit/s", (unsigned long long)bytes * 8);	/* bytes < 125 */
	return buf;
}

/* "NAME:LINE: " + message. Without a source name the line alone; without either, bare. */
void _xtx_cfg_err(const struct xtx_sched_config *cfg, uint32_t line, char *err,
		  size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!err || !errlen)
		return;
	err[0] = '\0';
	if (cfg && cfg->source && line)
		n = snprintf(err, errlen, "%s:%u: ", cfg->source, line);
	else if (line)
		n = snprintf(err, errlen, "line %u: ", line);
	else if (cfg && cfg->source)
		n = snprintf(err, errlen, "%s: ", cfg->source);
	if (n < 0)
		n = 0;
	if ((size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* --- handle table ---------------------------------------------------------------------- */

static uint32_t handle_hash(uint32_t h)
{
	h *= 0x9e3779b1u;	/* Fibonacci hashing; mixes the minor into the high bits */
	return h ^ (h >> 16);
}

/* Index of handle, or -1. Terminates: the table is never more than half full. */
static int cfg_find(const struct xtx_sched_config *cfg, uint32_t handle)
{
	uint32_t mask, i, v;

	if (!cfg->hsize)
		return -1;
	mask = cfg->hsize - 1;
	for (i = handle_hash(handle) & mask;; i = (i + 1) & mask) {
		v = cfg->hidx[i];
		if (!v)
			return -1;
		if (cfg->cls[v - 1].o.handle == handle)
			return (int)(v - 1);
	}
}

static void table_put(uint32_t *tab, uint32_t size, uint32_t handle, uint32_t idx)
{
	uint32_t mask = size - 1, i;

	for (i = handle_hash(handle) & mask; tab[i]; i = (i + 1) & mask)
		;
	tab[i] = idx + 1;
}

/* Make room for one more class: array and table. 0 or -ENOMEM; the config is unchanged
 * on failure. */
static int cfg_reserve(struct xtx_sched_config *cfg)
{
	if (cfg->n == cfg->cap) {
		unsigned ncap = cfg->cap ? cfg->cap * 2 : 16;
		struct cfg_class *c;

		if (ncap > XTX_CLASS_MAX)
			ncap = XTX_CLASS_MAX;
		c = realloc(cfg->cls, (size_t)ncap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		cfg->cls = c;
		cfg->cap = ncap;
	}
	if ((uint64_t)(cfg->n + 1) * 2 > cfg->hsize) {
		uint32_t size = cfg->hsize ? cfg->hsize * 2 : 32, *tab;
		unsigned i;

		tab = calloc(size, sizeof(*tab));
		if (!tab)
			return -ENOMEM;
		for (i = 0; i < cfg->n; i++)
			table_put(tab, size, cfg->cls[i].o.handle, i);
		free(cfg->hidx);
		cfg->hidx = tab;
		cfg->hsize = size;
	}
	return 0;
}

/* --- life cycle and setters ---------------------------------------------------------- */

struct xtx_sched_config *xtx_sched_config__new(void)
{
	struct xtx_sched_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg) {
		errno = ENOMEM;
		return NULL;
	}
	cfg->overhead = XTX_ETH_OVERHEAD;
	cfg->r2q = DEF_R2Q;
	return cfg;
}

void xtx_sched_config__free(struct xtx_sched_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->cls);
	free(cfg->hidx);
	free(cfg->source);
	free(cfg);
}

struct xtx_sched_config *xtx_sched_config__dup(const struct xtx_sched_config *cfg)
{
	struct xtx_sched_config *d;

	if (!cfg) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		goto nomem;
	*d = *cfg;
	d->cls = NULL;
	d->hidx = NULL;
	d->source = NULL;
	d->cls = malloc((cfg->cap ? cfg->cap : 1) * sizeof(*d->cls));
	d->hidx = cfg->hsize ? malloc(cfg->hsize * sizeof(*d->hidx)) : NULL;
	d->source = cfg->source ? strdup(cfg->source) : NULL;
	if (!d->cls || (cfg->hsize && !d->hidx) || (cfg->source && !d->source)) {
		xtx_sched_config__free(d);
		goto nomem;
	}
	if (cfg->n)
		memcpy(d->cls, cfg->cls, cfg->n * sizeof(*d->cls));
	if (cfg->hsize)
		memcpy(d->hidx, cfg->hidx, cfg->hsize * sizeof(*d->hidx));
	return d;
nomem:
	errno = ENOMEM;
	return NULL;
}

static uint32_t clamp_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* sch_htb: quantum = rate / r2q, clamped to [1000, 200000]. */
static uint32_t default_quantum(uint64_t rate, uint32_t r2q)
{
	uint64_t q = rate / r2q;

	if (q < DEF_QUANTUM_MIN)
		return DEF_QUANTUM_MIN;
	if (q > DEF_QUANTUM_MAX)
		return DEF_QUANTUM_MAX;
	return (uint32_t)q;
}

/* Bits for the fields that are non-zero: the C API's only way to say "set". */
static uint32_t opts_set_mask(const struct xtx_class_opts *o)
{
	uint32_t set = 0;

	set |= (o->parent && o->parent != XTX_HANDLE_ROOT) ? _XTX_OPT_PARENT : 0;
	set |= o->ceil ? _XTX_OPT_CEIL : 0;
	set |= o->burst ? _XTX_OPT_BURST : 0;
	set |= o->cburst ? _XTX_OPT_CBURST : 0;
	set |= o->quantum ? _XTX_OPT_QUANTUM : 0;
	set |= o->prio ? _XTX_OPT_PRIO : 0;
	set |= o->fq ? _XTX_OPT_FQ : 0;
	set |= o->limit ? _XTX_OPT_LIMIT : 0;
	set |= o->flows ? _XTX_OPT_FLOWS : 0;
	set |= o->flow_limit ? _XTX_OPT_FLOW_LIMIT : 0;
	set |= o->fq_quantum ? _XTX_OPT_FQ_QUANTUM : 0;
	set |= o->maxrate ? _XTX_OPT_MAXRATE : 0;
	set |= o->target ? _XTX_OPT_TARGET : 0;
	set |= o->codel || o->codel_ecn || o->codel_target || o->codel_interval ?
	       _XTX_OPT_CODEL : 0;
	return set;
}

int _xtx_sched_config__add_class_set(struct xtx_sched_config *cfg,
				     const struct xtx_class_opts *o, uint32_t set)
{
	struct cfg_class c;
	int rc;

	if (!cfg || !o)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	rc = XTX_OPTS_LOAD(&c.o, o, xtx_class_opts, NULL, 0);
	if (rc)
		return rc;
	c.o.sz = sizeof(c.o);
	c.set = set | opts_set_mask(&c.o);

	if (!XTX_HANDLE_MAJ(c.o.handle) || c.o.handle == XTX_HANDLE_ROOT)
		return -EINVAL;
	if (!c.o.rate || c.o.prio > XTX_PRIO_MAX || c.o.fq > 1 || c.o.scope > XTX_SCOPE_QUEUE)
		return -EINVAL;
	if (c.o.ceil && c.o.ceil < c.o.rate)
		return -EINVAL;
	if (c.o.codel > XTX_CODEL_OFF || c.o.codel_ecn > 1 ||
	    c.o.codel_target > _XTX_TIME_MAX || c.o.codel_interval > _XTX_TIME_MAX ||
	    (c.o.codel == XTX_CODEL_OFF &&
	     (c.o.codel_ecn || c.o.codel_target || c.o.codel_interval)))
		return -EINVAL;
	if (cfg_find(cfg, c.o.handle) >= 0)
		return -EEXIST;
	if (cfg->n >= XTX_CLASS_MAX)
		return -E2BIG;

	if (!c.o.parent)
		c.o.parent = XTX_HANDLE_ROOT;
	if (!c.o.ceil)
		c.o.ceil = c.o.rate;
	if (!c.o.burst)
		c.o.burst = clamp_u32(c.o.rate / DEF_HZ + DEF_MTU);
	if (!c.o.cburst)
		c.o.cburst = clamp_u32(c.o.ceil / DEF_HZ + DEF_MTU);
	if (!(c.set & _XTX_OPT_QUANTUM) || !c.o.quantum)
		c.o.quantum = default_quantum(c.o.rate, cfg->r2q);
	if (!c.o.limit)
		c.o.limit = DEF_LIMIT;
	if (!c.o.flows)
		c.o.flows = c.o.fq ? DEF_FLOWS_FQ : 1;
	if (!c.o.flow_limit)
		c.o.flow_limit = DEF_FLOW_LIMIT;
	if (!c.o.fq_quantum)
		c.o.fq_quantum = DEF_FQ_QUANTUM;

	rc = cfg_reserve(cfg);
	if (rc)
		return rc;
	cfg->cls[cfg->n] = c;
	table_put(cfg->hidx, cfg->hsize, c.o.handle, cfg->n);
	cfg->n++;
	return 0;
}

int xtx_sched_config__add_class(struct xtx_sched_config *cfg, const struct xtx_class_opts *o)
{
	return _xtx_sched_config__add_class_set(cfg, o, 0);
}

int _xtx_sched_config__set_default_at(struct xtx_sched_config *cfg, uint32_t handle,
				      uint32_t line)
{
	if (!cfg || handle == XTX_HANDLE_ROOT)
		return -EINVAL;
	cfg->dflt = handle;
	cfg->dflt_line = handle ? line : 0;
	return 0;
}

int xtx_sched_config__set_default(struct xtx_sched_config *cfg, uint32_t handle)
{
	return _xtx_sched_config__set_default_at(cfg, handle, 0);
}

int xtx_sched_config__set_overhead(struct xtx_sched_config *cfg, uint32_t bytes)
{
	if (!cfg || bytes > _XTX_OVERHEAD_MAX)
		return -EINVAL;
	cfg->overhead = bytes;
	return 0;
}

int xtx_sched_config__set_r2q(struct xtx_sched_config *cfg, uint32_t r2q)
{
	unsigned i;

	if (!cfg || !r2q)
		return -EINVAL;
	cfg->r2q = r2q;
	/* Quanta the user did not give follow r2q, whatever the statement order. */
	for (i = 0; i < cfg->n; i++)
		if (!(cfg->cls[i].set & _XTX_OPT_QUANTUM))
			cfg->cls[i].o.quantum = default_quantum(cfg->cls[i].o.rate, r2q);
	return 0;
}

int _xtx_sched_config__set_source(struct xtx_sched_config *cfg, const char *name)
{
	char *s = NULL;

	if (!cfg)
		return -EINVAL;
	if (name) {
		s = strdup(name);
		if (!s)
			return -ENOMEM;
	}
	free(cfg->source);
	cfg->source = s;
	return 0;
}

const char *_xtx_sched_config__source(const struct xtx_sched_config *cfg)
{
	return cfg ? cfg->source : NULL;
}

/* --- getters ------------------------------------------------------------------------- */

unsigned xtx_sched_config__class_count(const struct xtx_sched_config *cfg)
{
	return cfg ? cfg->n : 0;
}

/* The pointer stays valid until the next add_class() or free(). */
const struct xtx_class_opts *xtx_sched_config__class(const struct xtx_sched_config *cfg,
						       unsigned idx)
{
	if (!cfg || idx >= cfg->n)
		return NULL;
	return &cfg->cls[idx].o;
}

uint32_t xtx_sched_config__default(const struct xtx_sched_config *cfg)
{
	return cfg ? cfg->dflt : 0;
}

uint32_t xtx_sched_config__overhead(const struct xtx_sched_config *cfg)
{
	return cfg ? cfg->overhead : XTX_ETH_OVERHEAD;
}

uint32_t xtx_sched_config__r2q(const struct xtx_sched_config *cfg)
{
	return cfg ? cfg->r2q : DEF_R2Q;
}

int xtx_sched_config__class_index(const struct xtx_sched_config *cfg, uint32_t handle)
{
	int i;

	if (!cfg)
		return -ENOENT;
	i = cfg_find(cfg, handle);
	return i < 0 ? -ENOENT : i;
}

int xtx_sched_config__is_leaf(const struct xtx_sched_config *cfg, uint32_t handle)
{
	if (!cfg || cfg_find(cfg, handle) < 0)
		return -ENOENT;
	for (uint32_t i = 0; i < cfg->n; i++)
		if (cfg->cls[i].o.parent == handle)
			return 0;
	return 1;
}

int xtx_handle__str(uint32_t handle, char *buf, size_t len)
{
	char s[_XTX_HANDLE_STRLEN];
	size_t n;

	if (!buf || !len)
		return -EINVAL;
	_xtx_handle_fmt(s, sizeof(s), handle);
	n = strlen(s);
	snprintf(buf, len, "%s", s);
	return n < len ? (int)n : -ENOSPC;
}

/* --- validate ------------------------------------------------------------------------ */

static const struct {
	uint32_t bit;
	const char *name;	/* the text format's keyword and the C field's name */
} leaf_opts[] = {
	{ _XTX_OPT_FQ, "fq" },
	{ _XTX_OPT_LIMIT, "limit" },
	{ _XTX_OPT_FLOWS, "flows" },
	{ _XTX_OPT_FLOW_LIMIT, "flow_limit" },
	{ _XTX_OPT_FQ_QUANTUM, "fq_quantum" },
	{ _XTX_OPT_MAXRATE, "maxrate" },
	{ _XTX_OPT_TARGET, "target" },
	{ _XTX_OPT_CODEL, "codel" },
};

static const char *leaf_opt_name(uint32_t set)
{
	size_t i;

	for (i = 0; i < sizeof(leaf_opts) / sizeof(leaf_opts[0]); i++)
		if (set & leaf_opts[i].bit)
			return leaf_opts[i].name;
	return "?";
}

static uint32_t round_up_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v && p < (1u << 31))
		p <<= 1;
	return p;
}

/* Checks that need no tree shape: one class against its parent's handle. */
static int check_links(const struct xtx_sched_config *cfg, int32_t *pidx, int32_t *child,
		       char *err, size_t errlen)
{
	char h[_XTX_HANDLE_STRLEN], ph[_XTX_HANDLE_STRLEN];
	unsigned i, roots = 0;

	for (i = 0; i < cfg->n; i++) {
		const struct xtx_class_opts *o = &cfg->cls[i].o;
		int p;

		pidx[i] = -1;
		_xtx_handle_fmt(h, sizeof(h), o->handle);
		if (o->parent == XTX_HANDLE_ROOT) {
			roots++;
			continue;
		}
		_xtx_handle_fmt(ph, sizeof(ph), o->parent);
		if (XTX_HANDLE_MIN(o->handle) == 0) {
			_xtx_cfg_err(cfg, o->line, err, errlen,
				"class %s: minor 0 is only for a root class, but it has parent %s; "
				"give it a non-zero minor, or no parent", h, ph);
			return -EINVAL;
		}
		p = cfg_find(cfg, o->parent);
		if (p < 0) {
			_xtx_cfg_err(cfg, o->line, err, errlen,
				"class %s: parent %s does not exist; define class %s or fix the "
				"parent", h, ph, ph);
			return -EINVAL;
		}
		if (XTX_HANDLE_MAJ(o->parent) != XTX_HANDLE_MAJ(o->handle)) {
			_xtx_cfg_err(cfg, o->line, err, errlen,
				"class %s: major %x differs from parent %s's major %x; as in tc, a "
				"class and its parent share the major number (use %x:%x)",
				h, XTX_HANDLE_MAJ(o->handle), ph, XTX_HANDLE_MAJ(o->parent),
				XTX_HANDLE_MAJ(o->parent), XTX_HANDLE_MIN(o->handle));
			return -EINVAL;
		}
		pidx[i] = p;
		if (child[p] < 0)
			child[p] = (int32_t)i;
	}
	if (!roots) {
		_xtx_cfg_err(cfg, 0, err, errlen,
			"no root class: every class has a parent; give the top class no parent "
			"(or parent root)");
		return -EINVAL;
	}
	return 0;
}

/* Every parent chain must end at a root. Iterative, O(n): state 1 = on the current walk,
 * 2 = known to reach a root. A walk that meets a 1 has gone round a cycle. */
static int check_cycles(const struct xtx_sched_config *cfg, const int32_t *pidx,
			uint8_t *state, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < cfg->n; i++) {
		int32_t j = (int32_t)i, k;

		while (j >= 0 && state[j] == 0) {
			state[j] = 1;
			j = pidx[j];
		}
		if (j >= 0 && state[j] == 1) {
			char path[160], h[_XTX_HANDLE_STRLEN];
			size_t off = 0;
			int steps = 0;

			k = j;
			do {
				int n = snprintf(path + off, sizeof(path) - off, "%s -> ",
						 _xtx_handle_fmt(h, sizeof(h), cfg->cls[k].o.handle));
				if (n < 0 || (size_t)n >= sizeof(path) - off || ++steps > 6)
					break;
				off += (size_t)n;
				k = pidx[k];
			} while (k != j);
			snprintf(path + off, sizeof(path) - off, "%s%s", k == j ? "" : "... -> ",
				 _xtx_handle_fmt(h, sizeof(h), cfg->cls[j].o.handle));
			_xtx_cfg_err(cfg, cfg->cls[j].o.line, err, errlen,
				"class %s: parents form a cycle (%s); give one class of the cycle a "
				"parent outside it", h, path);
			return -EINVAL;
		}
		for (k = (int32_t)i; k >= 0 && state[k] == 1; k = pidx[k])
			state[k] = 2;
	}
	return 0;
}

/* Per-class checks that need the tree: rates against the parent, leaf-only options. */
static int check_class(const struct xtx_sched_config *cfg, unsigned i, const int32_t *pidx,
		       const int32_t *child, char *err, size_t errlen)
{
	const struct cfg_class *c = &cfg->cls[i];
	const struct xtx_class_opts *o = &c->o;
	char h[_XTX_HANDLE_STRLEN], ph[_XTX_HANDLE_STRLEN];
	char r1[_XTX_RATE_STRLEN], r2[_XTX_RATE_STRLEN];
	uint32_t fq_only;

	_xtx_handle_fmt(h, sizeof(h), o->handle);
	if (pidx[i] >= 0) {
		const struct xtx_class_opts *p = &cfg->cls[pidx[i]].o;

		_xtx_handle_fmt(ph, sizeof(ph), p->handle);
		if (o->rate > p->ceil) {
			_xtx_cfg_err(cfg, o->line, err, errlen,
				"class %s: rate %s exceeds parent %s's ceil %s; lower the rate or "
				"raise the parent's ceil", h, _xtx_rate_fmt(r1, sizeof(r1), o->rate),
				ph, _xtx_rate_fmt(r2, sizeof(r2), p->ceil));
			return -EINVAL;
		}
		if (o->ceil > p->ceil) {
			_xtx_cfg_err(cfg, o->line, err, errlen,
				"class %s: ceil %s exceeds parent %s's ceil %s; lower ceil to at "
				"most %s", h, _xtx_rate_fmt(r1, sizeof(r1), o->ceil), ph,
				_xtx_rate_fmt(r2, sizeof(r2), p->ceil), r2);
			return -EINVAL;
		}
	}
	if (child[i] >= 0 && (c->set & _XTX_OPT_LEAF_ONLY)) {
		const struct xtx_class_opts *k = &cfg->cls[child[i]].o;
		char kh[_XTX_HANDLE_STRLEN];

		_xtx_cfg_err(cfg, o->line, err, errlen,
			"class %s: %s is a leaf option, but %s has child %s; move it to the leaf "
			"classes", h, leaf_opt_name(c->set & _XTX_OPT_LEAF_ONLY), h,
			_xtx_handle_fmt(kh, sizeof(kh), k->handle));
		return -EINVAL;
	}
	fq_only = c->set & _XTX_OPT_FQ_ONLY;
	if (!o->fq && fq_only) {
		const char *name = leaf_opt_name(fq_only);

		_xtx_cfg_err(cfg, o->line, err, errlen,
			"class %s: %s only applies with fq; turn fq on for this class or drop %s",
			h, name, name);
		return -EINVAL;
	}
	if (o->flows & (o->flows - 1)) {
		_xtx_cfg_err(cfg, o->line, err, errlen,
			"class %s: flows %u is not a power of two; use %u", h, o->flows,
			round_up_pow2(o->flows) > FLOWS_MAX ? FLOWS_MAX : round_up_pow2(o->flows));
		return -EINVAL;
	}
	if (o->flows > FLOWS_MAX) {
		_xtx_cfg_err(cfg, o->line, err, errlen,
			"class %s: flows %u is above the maximum %u (sch_fq's); use at most %u",
			h, o->flows, FLOWS_MAX, FLOWS_MAX);
		return -EINVAL;
	}
	return 0;
}

static int check_default(const struct xtx_sched_config *cfg, const int32_t *child,
			 char *err, size_t errlen)
{
	char h[_XTX_HANDLE_STRLEN], kh[_XTX_HANDLE_STRLEN];
	int d;

	if (!cfg->dflt)
		return 0;	/* the first leaf; a finite acyclic tree always has one */
	_xtx_handle_fmt(h, sizeof(h), cfg->dflt);
	d = cfg_find(cfg, cfg->dflt);
	if (d < 0) {
		_xtx_cfg_err(cfg, cfg->dflt_line, err, errlen,
			"default %s: no such class; name one of the leaf classes", h);
		return -EINVAL;
	}
	if (child[d] >= 0) {
		_xtx_cfg_err(cfg, cfg->dflt_line, err, errlen,
			"default %s: class %s has child %s, but the default must be a leaf class; "
			"name a leaf", h, h,
			_xtx_handle_fmt(kh, sizeof(kh), cfg->cls[child[d]].o.handle));
		return -EINVAL;
	}
	return 0;
}

int xtx_sched_config__validate(const struct xtx_sched_config *cfg, char *err, size_t errlen)
{
	int32_t *pidx, *child;
	uint8_t *state;
	unsigned i;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!cfg) {
		_xtx_cfg_err(NULL, 0, err, errlen, "no configuration (NULL)");
		return -EINVAL;
	}
	if (!cfg->n) {
		_xtx_cfg_err(cfg, 0, err, errlen, cfg->source ?
			"no classes defined; add at least one line like 'class 1: rate 1gbit'" :
			"no classes defined; add at least one with xtx_sched_config__add_class()");
		return -EINVAL;
	}
	pidx = malloc((size_t)cfg->n * (2 * sizeof(int32_t) + 1));
	if (!pidx) {
		_xtx_cfg_err(cfg, 0, err, errlen, "out of memory checking %u classes", cfg->n);
		return -ENOMEM;
	}
	child = pidx + cfg->n;
	state = (uint8_t *)(child + cfg->n);
	for (i = 0; i < cfg->n; i++) {
		child[i] = -1;
		state[i] = 0;
	}

	rc = check_links(cfg, pidx, child, err, errlen);
	if (!rc)
		rc = check_cycles(cfg, pidx, state, err, errlen);
	for (i = 0; !rc && i < cfg->n; i++)
		rc = check_class(cfg, i, pidx, child, err, errlen);
	if (!rc)
		rc = check_default(cfg, child, err, errlen);
	free(pidx);
	return rc;
}
