/* SPDX-License-Identifier: BSD-3-Clause */
/* rules.c - xtx-shape's rules: parser (text -> struct rd_rules), resolver (class handles ->
 * indexes) and compiler (struct rd_rules -> the xtx_redirect maps). See rules.h for the
 * format and xdp/xtx_redirect.h for what the maps mean.
 *
 * Also linked into the tests and fuzz targets of the classifier: test_redirect_bpf.c
 * checks the program's classification against rules written in this format.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "rules.h"

#define RULES_LINE_MAX	4096
#define RULES_TOK_MAX	40
#define RULES_FILE_MAX	(16u << 20)

struct tok {
	const char *s;
	unsigned len, col;
};

struct line {
	struct rd_rules *rs;
	unsigned no;			/* line number */
	unsigned n;			/* tokens */
	unsigned eol_col;		/* column just past the last token */
	struct tok t[RULES_TOK_MAX];
	char *err;
	size_t errlen;
};

static int perr(struct line *l, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct line *l, unsigned col, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!l->err || !l->errlen)
		return -EINVAL;
	n = snprintf(l->err, l->errlen, "%s:%u:%u: ", l->rs->name, l->no, col);
	if (n < 0 || (size_t)n >= l->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* 'token' for messages, cut at 40 bytes. */
static const char *show(const struct tok *t, char *buf, size_t len)
{
	snprintf(buf, len, "'%.*s%s'", t->len > 40 ? 40 : (int)t->len, t->s,
		 t->len > 40 ? "..." : "");
	return buf;
}

static int is(const struct tok *t, const char *word)
{
	return t->len == strlen(word) && !memcmp(t->s, word, t->len);
}

/* Decimal 0..max, digits only. */
static int num(const char *s, unsigned len, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (!len || len > 10)
		return -1;
	for (unsigned i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* N or N-M within 0..max, N <= M. */
static int range(const struct tok *t, unsigned long max, unsigned long *lo, unsigned long *hi)
{
	const char *dash = memchr(t->s, '-', t->len);

	if (!dash)
		return num(t->s, t->len, max, lo) ? -1 : (*hi = *lo, 0);
	if (num(t->s, (unsigned)(dash - t->s), max, lo) ||
	    num(dash + 1, t->len - (unsigned)(dash - t->s) - 1, max, hi))
		return -1;
	return *lo <= *hi ? 0 : -2;
}

static int hexnum(const char *s, unsigned len, unsigned long *out)
{
	unsigned long v = 0;

	if (!len || len > 8)
		return -1;
	for (unsigned i = 0; i < len; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + (unsigned long)d;
	}
	*out = v;
	return 0;
}

/* tc's MAJ:MIN in hex, as docs/config.md. */
static int handle(const struct tok *t, uint32_t *h)
{
	const char *colon = memchr(t->s, ':', t->len);
	unsigned long maj, min = 0;
	unsigned mlen;

	if (!colon)
		return -1;
	mlen = (unsigned)(colon - t->s);
	if (hexnum(t->s, mlen, &maj) || maj < 1 || maj > 0xffff)
		return -1;
	if (t->len > mlen + 1 && (hexnum(colon + 1, t->len - mlen - 1, &min) || min > 0xffff))
		return -1;
	*h = XTX_HANDLE(maj, min);
	return 0;
}

static int prefix(const struct tok *t, struct rd_prefix *p)
{
	char buf[64];
	const char *slash = memchr(t->s, '/', t->len);
	unsigned alen = slash ? (unsigned)(slash - t->s) : t->len;
	unsigned long len;
	int fam;

	if (!alen || alen >= sizeof(buf))
		return -1;
	memcpy(buf, t->s, alen);
	buf[alen] = '\0';
	memset(p, 0, sizeof(*p));
	fam = strchr(buf, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(fam, buf, p->addr) != 1)
		return -1;
	p->family = fam == AF_INET ? 4 : 6;
	len = p->family == 4 ? 32 : 128;
	if (slash && num(slash + 1, t->len - alen - 1, len, &len))
		return -1;
	p->len = (uint8_t)len;
	/* Host bits must be zero. */
	for (unsigned b = p->len; b < (p->family == 4 ? 32u : 128u); b++)
		if (p->addr[b / 8] & (0x80 >> (b % 8)))
			return -2;
	return 0;
}

static void host_bits_hint(const struct tok *t, char *buf, size_t len)
{
	struct rd_prefix p;
	char a[64], in[64];
	const char *slash = memchr(t->s, '/', t->len);
	unsigned alen = (unsigned)(slash - t->s);
	unsigned long plen = 0;

	snprintf(in, sizeof(in), "%.*s", (int)alen, t->s);
	memset(&p, 0, sizeof(p));
	p.family = strchr(in, ':') ? 6 : 4;
	inet_pton(p.family == 4 ? AF_INET : AF_INET6, in, p.addr);
	num(slash + 1, t->len - alen - 1, 128, &plen);
	for (unsigned b = (unsigned)plen; b < 128; b++)
		p.addr[b / 8] &= (uint8_t)~(0x80 >> (b % 8));
	inet_ntop(p.family == 4 ? AF_INET : AF_INET6, p.addr, a, sizeof(a));
	snprintf(buf, len, "%s/%lu", a, plen);
}

/* ACTION at t[*i]; advances *i past it. */
static int action(struct line *l, unsigned *i, struct rd_rule *r)
{
	struct tok *t = &l->t[*i];
	char b[64];

	r->act_col = t->col;
	if (is(t, "pass")) {
		r->action = XTX_RD_ACT_PASS;
	} else if (is(t, "drop")) {
		r->action = XTX_RD_ACT_DROP;
	} else if (is(t, "class")) {
		r->action = XTX_RD_ACT_CLASS;
		if (*i + 1 >= l->n)
			return perr(l, l->eol_col, "found end of line, expected a class handle "
				    "like 1:10 after 'class'");
		t = &l->t[++*i];
		r->act_col = t->col;
		if (handle(t, &r->handle))
			return perr(l, t->col, "found %s, expected a class handle like 1:10 "
				    "(hex major 1..ffff, ':', hex minor 0..ffff)",
				    show(t, b, sizeof(b)));
	} else {
		return perr(l, t->col, "found %s, expected an action (class HANDLE, pass or "
			    "drop)", show(t, b, sizeof(b)));
	}
	++*i;
	return 0;
}

static int end_of_line(struct line *l, unsigned i)
{
	char b[64];

	if (i < l->n)
		return perr(l, l->t[i].col, "found %s, expected end of line (the action ends "
			    "the statement)", show(&l->t[i], b, sizeof(b)));
	return 0;
}

enum { F_SRC, F_DST, F_SPORT, F_DPORT, F_PROTO, F_DSCP, F_VLAN, F__MAX };
static const char *const field_names[F__MAX] = {
	"src", "dst", "sport", "dport", "proto", "dscp", "vlan"
};

static int match(struct line *l)
{
	struct rd_rules *rs = l->rs;
	unsigned seen[F__MAX] = { 0 };
	struct rd_rule *r;
	unsigned i = 1;
	char b[64];
	int rc;

	if (rs->n == XTX_RD_RULES_MAX)
		return perr(l, l->t[0].col, "found rule %u, expected at most %d rules; merge "
			    "rules (prefixes and port ranges)", rs->n + 1, XTX_RD_RULES_MAX);
	r = &rs->r[rs->n];
	memset(r, 0, sizeof(*r));
	r->line = l->no;
	r->col = l->t[0].col;
	while (i < l->n) {
		struct tok *k = &l->t[i], *v;
		unsigned long lo, hi;
		int f;

		for (f = 0; f < F__MAX && !is(k, field_names[f]); f++)
			;
		if (f == F__MAX) {
			if ((rc = action(l, &i, r)))
				return rc;
			if ((rc = end_of_line(l, i)))
				return rc;
			goto done;
		}
		if (seen[f])
			return perr(l, k->col, "found '%s' again, expected each criterion once "
				    "per rule (first at column %u)", field_names[f], seen[f]);
		seen[f] = k->col;
		if (i + 1 >= l->n)
			return perr(l, l->eol_col, "found end of line, expected a value after "
				    "'%s'", field_names[f]);
		v = &l->t[i + 1];
		switch (f) {
		case F_SRC:
		case F_DST: {
			struct rd_prefix *p = f == F_SRC ? &r->src : &r->dst;

			rc = prefix(v, p);
			if (rc == -2) {
				char hint[80];

				host_bits_hint(v, hint, sizeof(hint));
				return perr(l, v->col, "found %s with host bits set, expected a "
					    "network prefix such as %s", show(v, b, sizeof(b)),
					    hint);
			}
			if (rc)
				return perr(l, v->col, "found %s, expected an IPv4 or IPv6 "
					    "prefix such as 198.18.1.0/24 or 2001:db8::/32",
					    show(v, b, sizeof(b)));
			if (r->family && r->family != p->family)
				return perr(l, v->col, "found %s (IPv%u), expected an IPv%u "
					    "prefix: a rule matches one address family; write two "
					    "rules", show(v, b, sizeof(b)), p->family, r->family);
			r->family = p->family;
			if (f == F_SRC)
				r->has_src = 1;
			else
				r->has_dst = 1;
			break;
		}
		case F_SPORT:
		case F_DPORT:
			rc = range(v, 65535, &lo, &hi);
			if (rc)
				return perr(l, v->col, "found %s, expected ports P or P-Q from 0 "
					    "to 65535%s", show(v, b, sizeof(b)),
					    rc == -2 ? " with P <= Q" : "");
			if (f == F_SPORT) {
				r->has_sport = 1;
				r->sport_lo = (uint16_t)lo;
				r->sport_hi = (uint16_t)hi;
			} else {
				r->has_dport = 1;
				r->dport_lo = (uint16_t)lo;
				r->dport_hi = (uint16_t)hi;
			}
			break;
		case F_PROTO:
			if (is(v, "tcp"))
				lo = IPPROTO_TCP;
			else if (is(v, "udp"))
				lo = IPPROTO_UDP;
			else if (is(v, "icmp"))
				lo = IPPROTO_ICMP;
			else if (is(v, "icmpv6"))
				lo = IPPROTO_ICMPV6;
			else if (num(v->s, v->len, 255, &lo))
				return perr(l, v->col, "found %s, expected a protocol: tcp, udp, "
					    "icmp, icmpv6 or a number from 0 to 255",
					    show(v, b, sizeof(b)));
			r->has_proto = 1;
			r->proto = (uint8_t)lo;
			break;
		case F_DSCP:
			rc = range(v, 63, &lo, &hi);
			if (rc)
				return perr(l, v->col, "found %s, expected a DSCP N or N-M from 0 "
					    "to 63%s", show(v, b, sizeof(b)),
					    rc == -2 ? " with N <= M" : "");
			r->has_dscp = 1;
			r->dscp_lo = (uint8_t)lo;
			r->dscp_hi = (uint8_t)hi;
			break;
		case F_VLAN:
			if (is(v, "untagged"))
				lo = XTX_RD_VLAN_UNTAGGED;
			else if (num(v->s, v->len, 4095, &lo))
				return perr(l, v->col, "found %s, expected a VLAN id from 0 to "
					    "4095, or untagged", show(v, b, sizeof(b)));
			r->has_vlan = 1;
			r->vlan = (uint16_t)lo;
			break;
		}
		i += 2;
	}
	return perr(l, l->eol_col, "found end of line, expected an action (class HANDLE, "
		    "pass or drop) to end the rule");
done:
	if ((r->has_sport || r->has_dport) && r->has_proto && r->proto != IPPROTO_TCP &&
	    r->proto != IPPROTO_UDP)
		return perr(l, seen[r->has_sport ? F_SPORT : F_DPORT], "found a port criterion "
			    "with proto %u, expected ports only with proto tcp or udp (or no "
			    "proto)", r->proto);
	rs->n++;
	return 0;
}

static int statement(struct line *l)
{
	struct rd_rules *rs = l->rs;
	char b[64];
	unsigned i = 1;
	int rc;

	if (is(&l->t[0], "match"))
		return match(l);
	if (is(&l->t[0], "default")) {
		if (rs->has_default)
			return perr(l, l->t[0].col, "found 'default' again, expected it once per "
				    "file (first at line %u)", rs->def.line);
		memset(&rs->def, 0, sizeof(rs->def));
		rs->def.line = l->no;
		rs->def.col = l->t[0].col;
		if (l->n < 2)
			return perr(l, l->eol_col, "found end of line, expected an action (class "
				    "HANDLE, pass or drop) after 'default'");
		if ((rc = action(l, &i, &rs->def)) || (rc = end_of_line(l, i)))
			return rc;
		rs->has_default = 1;
		return 0;
	}
	return perr(l, l->t[0].col, "found %s, expected a statement (match or default)",
		    show(&l->t[0], b, sizeof(b)));
}

int rd_rules__parse_string(struct rd_rules *rs, const char *text, const char *name,
			   char *err, size_t errlen)
{
	struct line l = { .rs = rs, .err = err, .errlen = errlen };
	const char *p = text;

	memset(rs, 0, sizeof(*rs));
	snprintf(rs->name, sizeof(rs->name), "%s", name ? name : "<string>");
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		int rc;

		l.no++;
		l.n = 0;
		l.eol_col = 1;
		if (len > RULES_LINE_MAX)
			return perr(&l, RULES_LINE_MAX + 1, "found a line of %zu characters, "
				    "expected at most %d; shorten it (comments count too)", len,
				    RULES_LINE_MAX);
		for (size_t i = 0; i < len;) {
			unsigned char c = (unsigned char)p[i];

			if (c == '#')
				break;
			if (c == ' ' || c == '\t' || c == '\r') {
				i++;
				continue;
			}
			if (c < 0x20 || c == 0x7f)
				return perr(&l, (unsigned)i + 1, "found '\\x%02x', expected text; "
					    "is this a binary file?", c);
			if (l.n == RULES_TOK_MAX)
				return perr(&l, (unsigned)i + 1, "found more than %d tokens, "
					    "expected a shorter statement", RULES_TOK_MAX);
			l.t[l.n].s = p + i;
			l.t[l.n].col = (unsigned)i + 1;
			while (i < len && p[i] != ' ' && p[i] != '\t' && p[i] != '\r' &&
			       p[i] != '#') {
				c = (unsigned char)p[i];
				if (c < 0x20 || c == 0x7f)
					return perr(&l, (unsigned)i + 1, "found '\\x%02x', "
						    "expected text; is this a binary file?", c);
				i++;
			}
			l.t[l.n].len = (unsigned)(p + i - l.t[l.n].s);
			l.eol_col = (unsigned)i + 1;
			l.n++;
		}
		/* Control bytes in a comment are refused too. */
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)p[i];

			if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
				return perr(&l, (unsigned)i + 1, "found '\\x%02x', expected text; "
					    "is this a binary file?", c);
		}
		if (l.n && (rc = statement(&l)))
			return rc;
		p += len + (eol ? 1 : 0);
	}
	return 0;
}

int rd_rules__parse_file(struct rd_rules *rs, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	int rc;

	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open: %s; check the path and its permissions",
			 path, strerror(errno));
		return rc;
	}
	buf = malloc(RULES_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	n = fread(buf, 1, RULES_FILE_MAX + 1, f);
	if (ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
	} else if (n > RULES_FILE_MAX) {
		rc = -EFBIG;
		snprintf(err, errlen, "%s: larger than %u MiB; is this a rules file?", path,
			 RULES_FILE_MAX >> 20);
	} else if (memchr(buf, '\0', n)) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: contains a NUL byte; is this a binary file?", path);
	} else {
		buf[n] = '\0';
		rc = rd_rules__parse_string(rs, buf, path, err, errlen);
	}
	free(buf);
	fclose(f);
	return rc;
}

/* --- resolve ---------------------------------------------------------------------------- */

static void leaf_list(const struct xtx_sched_config *cfg, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < xtx_sched_config__class_count(cfg) && used + 16 < len; i++) {
		uint32_t h = xtx_sched_config__class(cfg, i)->handle;
		char hs[16];

		if (xtx_sched_config__is_leaf(cfg, h) != 1)
			continue;
		xtx_handle__str(h, hs, sizeof(hs));
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", hs);
	}
}

static int resolve_one(struct rd_rules *rs, struct rd_rule *r, const struct xtx_sched_config *cfg,
		       char *err, size_t errlen)
{
	char hs[16], leaves[256];
	int idx;

	if (r->action != XTX_RD_ACT_CLASS)
		return 0;
	xtx_handle__str(r->handle, hs, sizeof(hs));
	idx = xtx_sched_config__class_index(cfg, r->handle);
	leaf_list(cfg, leaves, sizeof(leaves));
	if (idx < 0) {
		snprintf(err, errlen, "%s:%u:%u: found class %s, expected a class of the class "
			 "file; its leaf classes are: %s", rs->name, r->line, r->act_col, hs,
			 leaves);
		return -EINVAL;
	}
	if (xtx_sched_config__is_leaf(cfg, r->handle) != 1) {
		snprintf(err, errlen, "%s:%u:%u: found class %s, expected a leaf class (%s has "
			 "children); leaf classes: %s", rs->name, r->line, r->act_col, hs, hs,
			 leaves);
		return -EINVAL;
	}
	r->cls = (uint32_t)idx;
	return 0;
}

int rd_rules__resolve(struct rd_rules *rs, const struct xtx_sched_config *cfg, char *err,
		      size_t errlen)
{
	int rc;

	for (unsigned i = 0; i < rs->n; i++)
		if ((rc = resolve_one(rs, &rs->r[i], cfg, err, errlen)))
			return rc;
	if (rs->has_default)
		return resolve_one(rs, &rs->def, cfg, err, errlen);
	/* The class file's default leaf, else its first leaf (as the scheduler does). */
	rs->def.action = XTX_RD_ACT_CLASS;
	rs->def.handle = xtx_sched_config__default(cfg);
	for (unsigned i = 0; !rs->def.handle && i < xtx_sched_config__class_count(cfg); i++)
		if (xtx_sched_config__is_leaf(cfg, xtx_sched_config__class(cfg, i)->handle) == 1)
			rs->def.handle = xtx_sched_config__class(cfg, i)->handle;
	rc = xtx_sched_config__class_index(cfg, rs->def.handle);
	if (rc < 0) {
		snprintf(err, errlen, "%s: the class file has no leaf class for the default",
			 rs->name);
		return -EINVAL;
	}
	rs->def.cls = (uint32_t)rc;
	return 0;
}

static int keeps(const struct rd_rules *rs, const struct rd_rule *r,
		 const struct xtx_sched_config *cfg, char *err, size_t errlen)
{
	char hs[XTX_HANDLE_STRLEN];

	if (r->action != XTX_RD_ACT_CLASS || xtx_sched_config__is_leaf(cfg, r->handle) == 1)
		return 0;
	xtx_handle__str(r->handle, hs, sizeof(hs));
	if (r == &rs->def && !rs->has_default)
		snprintf(err, errlen, "class %s is the rules' default (the class file's default "
			 "leaf when xtx-shape started): it must stay a leaf while xtx-shape "
			 "runs", hs);
	else
		snprintf(err, errlen, "%s:%u:%u: a rule sends to class %s: it must stay a leaf "
			 "while xtx-shape runs (change the rules and restart)", rs->name,
			 r->line, r->act_col, hs);
	return -EBUSY;
}

int rules_keep_classes(void *ctx, const struct xtx_sched_config *running,
		       const struct xtx_sched_config *proposed, char *err, size_t errlen)
{
	const struct rd_rules *rs = ctx;
	int rc = 0;

	(void)running;
	for (unsigned i = 0; i < rs->n && !rc; i++)
		rc = keeps(rs, &rs->r[i], proposed, err, errlen);
	return rc ? rc : keeps(rs, &rs->def, proposed, err, errlen);
}

/* --- compile into maps ------------------------------------------------------------------ */

static void set_bit(struct xtx_rd_mask *m, unsigned r)
{
	m->w[r / 64] |= 1ull << (r % 64);
}

/* Does prefix q contain prefix p (same family)? */
static int contains(const struct rd_prefix *q, const struct rd_prefix *p)
{
	if (q->family != p->family || q->len > p->len)
		return 0;
	for (unsigned b = 0; b < q->len; b++) {
		uint8_t bit = (uint8_t)(0x80 >> (b % 8));

		if ((q->addr[b / 8] & bit) != (p->addr[b / 8] & bit))
			return 0;
	}
	return 1;
}

/* Rules that accept an address within prefix p (family p->family) in field src/dst. */
static void prefix_mask(const struct rd_rules *rs, int dst, const struct rd_prefix *p,
			struct xtx_rd_mask *m)
{
	memset(m, 0, sizeof(*m));
	for (unsigned i = 0; i < rs->n; i++) {
		const struct rd_rule *r = &rs->r[i];
		int has = dst ? r->has_dst : r->has_src;

		if (r->family && r->family != p->family)
			continue;
		if (!has || contains(dst ? &r->dst : &r->src, p))
			set_bit(m, i);
	}
}

static int fill_trie(const struct rd_rules *rs, int fd, int dst, int family, char *err,
		     size_t errlen)
{
	struct rd_prefix seen[XTX_RD_RULES_MAX + 1];
	unsigned ns = 0;

	memset(&seen[0], 0, sizeof(seen[0]));
	seen[ns++].family = (uint8_t)family;	/* the /0 entry */
	for (unsigned i = 0; i < rs->n; i++) {
		const struct rd_rule *r = &rs->r[i];
		const struct rd_prefix *p = dst ? &r->dst : &r->src;
		unsigned k;

		if (!(dst ? r->has_dst : r->has_src) || p->family != family)
			continue;
		for (k = 0; k < ns; k++)
			if (seen[k].len == p->len && contains(&seen[k], p))
				break;
		if (k == ns)
			seen[ns++] = *p;
	}
	for (unsigned k = 0; k < ns; k++) {
		struct xtx_rd_mask m;
		int rc;

		prefix_mask(rs, dst, &seen[k], &m);
		if (family == 4) {
			struct xtx_rd_lpm4 key = { .prefixlen = seen[k].len };

			memcpy(key.addr, seen[k].addr, 4);
			rc = bpf_map_update_elem(fd, &key, &m, BPF_ANY);
		} else {
			struct xtx_rd_lpm6 key = { .prefixlen = seen[k].len };

			memcpy(key.addr, seen[k].addr, 16);
			rc = bpf_map_update_elem(fd, &key, &m, BPF_ANY);
		}
		if (rc) {
			snprintf(err, errlen, "cannot fill the %s%d prefix map: %s",
				 dst ? "dst" : "src", family, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Writes n masks at keys 0..n-1: one batch call, or one call each where the kernel has no
 * batch operations for arrays. */
static int fill_array(int fd, const struct xtx_rd_mask *v, uint32_t n, const char *what,
		      char *err, size_t errlen)
{
	uint32_t *keys = calloc(n, sizeof(*keys)), count = n;
	int rc;

	if (!keys) {
		snprintf(err, errlen, "out of memory filling the %s map", what);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < n; k++)
		keys[k] = k;
	rc = bpf_map_update_batch(fd, keys, v, &count, NULL);
	if (rc) {
		rc = 0;
		for (uint32_t k = 0; k < n && !rc; k++)
			rc = bpf_map_update_elem(fd, &k, &v[k], BPF_ANY);
	}
	free(keys);
	if (rc)
		snprintf(err, errlen, "cannot fill the %s map: %s", what, strerror(-rc));
	return rc;
}

int rd_rules__load(const struct rd_rules *rs, const struct rd_maps *m, char *err,
		   size_t errlen)
{
	struct xtx_rd_mask *v = calloc(65536, sizeof(*v));
	struct xtx_rd_rule act;
	int rc = 0;

	if (!v) {
		snprintf(err, errlen, "out of memory compiling the rules");
		return -ENOMEM;
	}
	for (int dst = 0; dst < 2 && !rc; dst++) {
		rc = fill_trie(rs, dst ? m->dst4 : m->src4, dst, 4, err, errlen);
		if (!rc)
			rc = fill_trie(rs, dst ? m->dst6 : m->src6, dst, 6, err, errlen);
	}
	for (int dst = 0; dst < 2 && !rc; dst++) {
		memset(v, 0, 65536 * sizeof(*v));
		for (unsigned i = 0; i < rs->n; i++) {
			const struct rd_rule *r = &rs->r[i];
			int has = dst ? r->has_dport : r->has_sport;
			unsigned lo = dst ? r->dport_lo : r->sport_lo;
			unsigned hi = dst ? r->dport_hi : r->sport_hi;

			for (unsigned p = has ? lo : 0; p <= (has ? hi : 65535u); p++)
				set_bit(&v[p], i);
		}
		rc = fill_array(dst ? m->dport : m->sport, v, 65536, dst ? "dport" : "sport",
				err, errlen);
	}
	if (!rc) {
		memset(v, 0, 256 * sizeof(*v));
		for (unsigned i = 0; i < rs->n; i++)
			for (unsigned p = 0; p < 256; p++)
				if (!rs->r[i].has_proto || rs->r[i].proto == p)
					set_bit(&v[p], i);
		rc = fill_array(m->proto, v, 256, "proto", err, errlen);
	}
	if (!rc) {
		memset(v, 0, 64 * sizeof(*v));
		for (unsigned i = 0; i < rs->n; i++)
			for (unsigned d = 0; d < 64; d++)
				if (!rs->r[i].has_dscp ||
				    (d >= rs->r[i].dscp_lo && d <= rs->r[i].dscp_hi))
					set_bit(&v[d], i);
		rc = fill_array(m->dscp, v, 64, "dscp", err, errlen);
	}
	if (!rc) {
		memset(v, 0, (XTX_RD_VLAN_UNTAGGED + 1) * sizeof(*v));
		for (unsigned i = 0; i < rs->n; i++)
			for (unsigned id = 0; id <= XTX_RD_VLAN_UNTAGGED; id++)
				if (!rs->r[i].has_vlan || rs->r[i].vlan == id)
					set_bit(&v[id], i);
		rc = fill_array(m->vlan, v, XTX_RD_VLAN_UNTAGGED + 1, "vlan", err, errlen);
	}
	if (!rc) {
		memset(v, 0, XTX_RD_MISC_MAX * sizeof(*v));
		for (unsigned i = 0; i < rs->n; i++) {
			const struct rd_rule *r = &rs->r[i];

			if (!r->has_sport && !r->has_dport)
				set_bit(&v[XTX_RD_MISC_NOPORT], i);
			if (!r->has_src && !r->has_dst && !r->has_sport && !r->has_dport &&
			    !r->has_proto && !r->has_dscp)
				set_bit(&v[XTX_RD_MISC_NON_IP], i);
		}
		rc = fill_array(m->misc, v, XTX_RD_MISC_MAX, "misc", err, errlen);
	}
	for (unsigned i = 0; i <= rs->n && !rc; i++) {
		const struct rd_rule *r = i < rs->n ? &rs->r[i] : &rs->def;
		uint32_t key = i < rs->n ? i : XTX_RD_RULE_DEFAULT;

		act.action = r->action;
		act.cls = r->cls;
		rc = bpf_map_update_elem(m->rules, &key, &act, BPF_ANY);
		if (rc)
			snprintf(err, errlen, "cannot fill the rules map: %s", strerror(-rc));
	}
	free(v);
	return rc;
}
