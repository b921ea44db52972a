/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_harness.c - the scheduler unit tests' harness; see sched_harness.h. */
#include "sched_harness.h"

struct xtx_class_opts copts(uint32_t handle, uint32_t parent, uint64_t rate, uint64_t ceil)
{
	struct xtx_class_opts o;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.handle = handle;
	o.parent = parent;
	o.rate = rate;
	o.ceil = ceil;
	return o;
}

void cfg_add(struct xtx_sched_config *cfg, const struct xtx_class_opts *o)
{
	int rc = xtx_sched_config__add_class(cfg, o);

	if (rc) {
		fprintf(stderr, "add_class %x:%x failed: %d\n", XTX_HANDLE_MAJ(o->handle),
			XTX_HANDLE_MIN(o->handle), rc);
		exit(2);
	}
}

int cls_idx(const struct sim *m, uint32_t handle)
{
	int i = xtx_sched__class_index(m->s, handle);

	if (i < 0) {
		fprintf(stderr, "no class %x:%x\n", XTX_HANDLE_MAJ(handle), XTX_HANDLE_MIN(handle));
		exit(2);
	}
	return i;
}

void sim_init(struct sim *m, struct xtx_sched_config *cfg, uint32_t pool, uint64_t horizon)
{
	struct xtx_sched_opts o = { .sz = sizeof(o), .pkt_pool = pool, .horizon_ns = horizon };

	sim_init_opts(m, cfg, &o);
}

void sim_init_opts(struct sim *m, struct xtx_sched_config *cfg, const struct xtx_sched_opts *o)
{
	char err[256];

	memset(m, 0, sizeof(*m));
	m->cfg = cfg;
	m->now = T0;
	m->s = xtx_sched__create(cfg, o, m->now, err, sizeof(err));
	if (!m->s) {
		fprintf(stderr, "xtx_sched__create: %s (%s)\n", err, strerror(errno));
		exit(2);
	}
	m->ncls = xtx_sched__class_count(m->s);
	m->offered = calloc(m->ncls, sizeof(uint64_t));
	m->sent_wire = calloc(m->ncls, sizeof(uint64_t));
	m->sent_pkts = calloc(m->ncls, sizeof(uint64_t));
	m->aqm_pkts = calloc(m->ncls, sizeof(uint64_t));
	m->inq = calloc(m->ncls, sizeof(uint64_t));
	m->overhead = xtx_sched_config__overhead(cfg);
	m->dflt = -1;
	{
		uint32_t d = xtx_sched_config__default(cfg);
		unsigned i;

		if (d) {
			m->dflt = xtx_sched__class_index(m->s, d);
		} else {
			/* first leaf in config order: a class no other class names as parent */
			for (i = 0; i < m->ncls && m->dflt < 0; i++) {
				uint32_t h = xtx_sched_config__class(cfg, i)->handle;
				unsigned j;
				bool leaf = true;

				for (j = 0; j < m->ncls; j++)
					if (xtx_sched_config__class(cfg, j)->parent == h)
						leaf = false;
				if (leaf)
					m->dflt = (int)i;
			}
		}
	}
}

static void twin_diff(struct sim *m, const char *what, uint64_t a, uint64_t b)
{
	if (m->twin_diffs++ < 5)
		fprintf(stderr, "twin differs at %" PRIu64 " ns: %s %" PRIu64 " vs %" PRIu64
			" without deferred charging\n", m->now, what, a, b);
}

void sim_init_twin(struct sim *m, struct xtx_sched_config *cfg, uint32_t pool,
		   uint64_t horizon)
{
	struct xtx_sched_opts o = { .sz = sizeof(o), .pkt_pool = pool, .horizon_ns = horizon };
	char err[256];

	sim_init(m, cfg, pool, horizon);
	m->twin = xtx_sched__create(cfg, &o, m->now, err, sizeof(err));
	if (!m->twin) {
		fprintf(stderr, "xtx_sched__create (twin): %s (%s)\n", err, strerror(errno));
		exit(2);
	}
	_xtx_sched__set_defer(m->twin, false);
}

/* Every class's counters and buckets, and the scheduler's state words, agree. */
static void twin_cmp_state(struct sim *m)
{
	unsigned c, r;

#define TWIN_EQ(what, a, b) do {						\
		if ((uint64_t)(a) != (uint64_t)(b))				\
			twin_diff(m, what, (uint64_t)(a), (uint64_t)(b));	\
	} while (0)
	TWIN_EQ("qlen", m->s->qlen, m->twin->qlen);
	TWIN_EQ("row_mask", m->s->row_mask, m->twin->row_mask);
	TWIN_EQ("wait heap size", m->s->wq_n, m->twin->wq_n);
	TWIN_EQ("flow timers", m->s->fh_n, m->twin->fh_n);
	TWIN_EQ("next wait event", m->s->wq_n ? m->s->wq[0].key : 0,
		m->twin->wq_n ? m->twin->wq[0].key : 0);
	for (c = 0; c < m->ncls; c++) {
		struct xtx_class_stats a, b;

		xtx_sched__class_stats(m->s, c, &a);
		xtx_sched__class_stats(m->twin, c, &b);
		TWIN_EQ("sent_pkts", a.sent_pkts, b.sent_pkts);
		TWIN_EQ("sent_bytes", a.sent_bytes, b.sent_bytes);
		TWIN_EQ("enq_pkts", a.enq_pkts, b.enq_pkts);
		TWIN_EQ("borrows", a.borrows, b.borrows);
		TWIN_EQ("throttled", a.throttled, b.throttled);
		TWIN_EQ("class qlen", a.qlen, b.qlen);
		TWIN_EQ("flows", a.flows, b.flows);
		TWIN_EQ("tokens", a.tokens, b.tokens);
		TWIN_EQ("ctokens", a.ctokens, b.ctokens);
		TWIN_EQ("mode", m->s->cls[c].mode, m->twin->cls[c].mode);
		TWIN_EQ("rate remainder", m->s->cls[c].rate_rem, m->twin->cls[c].rate_rem);
		TWIN_EQ("ceil remainder", m->s->cls[c].ceil_rem, m->twin->cls[c].ceil_rem);
		for (r = 0; r < XTX_DROP__MAX; r++)
			TWIN_EQ("drops", a.drops[r], b.drops[r]);
	}
}

void twin_cmp_descs(struct sim *m, const char *what, const struct xtx_desc *a, unsigned na,
		    const struct xtx_desc *b, unsigned nb)
{
	unsigned i;

	TWIN_EQ(what, na, nb);
	for (i = 0; i < na && i < nb; i++)
		TWIN_EQ(what, a[i].addr, b[i].addr);
}

bool sim_is_leaf(const struct sim *m, unsigned c)
{
	return c < m->ncls && m->s->cls_leaf[c] != _XTX_NIL;
}

void led_grow(struct sim *m, uint64_t need)
{
	uint64_t cap = m->led_cap ? m->led_cap : 4096;

	if (need <= m->led_cap)
		return;
	while (cap < need)
		cap *= 2;
	m->led = realloc(m->led, cap);
	m->txt = realloc(m->txt, cap * sizeof(uint64_t));
	m->cls_of = realloc(m->cls_of, cap * sizeof(uint16_t));
	m->hash_of = realloc(m->hash_of, cap * sizeof(uint32_t));
	if (!m->led || !m->txt || !m->cls_of || !m->hash_of) {
		fprintf(stderr, "out of memory for the ledger\n");
		exit(2);
	}
	memset(m->led + m->led_cap, 0, cap - m->led_cap);
	m->led_cap = cap;
}

void led_back(struct sim *m, const struct xtx_desc *d)
{
	if (d->addr >= m->seq || m->led[d->addr] != 1) {
		if (m->dup++ < 5)
			fprintf(stderr, "descriptor addr %" PRIu64 " came back twice or was never "
				"given (state %u)\n", d->addr,
				d->addr < m->seq ? m->led[d->addr] : 9);
		return;
	}
	m->led[d->addr] = 2;
}

unsigned sim_enq(struct sim *m, uint16_t cls, uint32_t hash, uint16_t len, uint64_t txtime,
		 unsigned n)
{
	struct xtx_desc d[64], drops[64];
	uint64_t tt[64];
	unsigned done = 0, accepted = 0;

	while (done < n) {
		unsigned k = n - done > 64 ? 64 : n - done, i, nd = 0, acc;
		int charged = sim_is_leaf(m, cls) ? cls : m->dflt;

		led_grow(m, m->seq + k);
		for (i = 0; i < k; i++) {
			uint64_t a = m->seq++;

			d[i] = (struct xtx_desc){ .addr = a, .hash = hash, .len = len, .cls = cls };
			tt[i] = txtime;
			m->led[a] = 1;
			m->txt[a] = txtime;
			m->cls_of[a] = (uint16_t)(charged < 0 ? 0xffff : charged);
			m->hash_of[a] = hash;
		}
		if (charged >= 0)
			m->offered[charged] += k;
		acc = xtx_sched__enqueue_burst(m->s, d, tt, k, m->now, drops, &nd);
		if (acc + nd != k)
			CHECK_EQ_U64(k, acc + nd);
		if (m->twin) {
			struct xtx_desc tdrops[64];
			unsigned tnd = 0;

			xtx_sched__enqueue_burst(m->twin, d, tt, k, m->now, tdrops, &tnd);
			twin_cmp_descs(m, "enqueue drops", drops, nd, tdrops, tnd);
		}
		for (i = 0; i < nd; i++)
			led_back(m, &drops[i]);
		if (charged >= 0)
			m->inq[charged] += acc;
		accepted += acc;
		done += k;
	}
	return accepted;
}

unsigned sim_deq(struct sim *m, struct xtx_desc *out, unsigned n, uint64_t *next)
{
	unsigned got = xtx_sched__dequeue_burst(m->s, out, n, m->now, next), i;

	if (m->twin) {
		struct xtx_desc tout[256];
		uint64_t tnext = 0;
		unsigned tgot = xtx_sched__dequeue_burst(m->twin, tout, n < 256 ? n : 256, m->now,
							 &tnext);

		twin_cmp_descs(m, "dequeued", out, got, tout, tgot);
		while (xtx_sched__take_dropped(m->twin, tout, 256))
			;	/* CoDel's, compared through the class counters */
		TWIN_EQ("next_ns", next ? *next : 0, next ? tnext : 0);
		twin_cmp_state(m);
	}

	for (i = 0; i < got; i++) {
		uint64_t a = out[i].addr;

		led_back(m, &out[i]);
		if (a < m->seq) {
			if (m->txt[a] > m->now && m->early++ < 5)
				fprintf(stderr, "addr %" PRIu64 " left at %" PRIu64 " before its txtime "
					"%" PRIu64 "\n", a, m->now, m->txt[a]);
			if (m->cls_of[a] < m->ncls) {
				m->sent_wire[m->cls_of[a]] += out[i].len + m->overhead;
				m->sent_pkts[m->cls_of[a]]++;
				m->inq[m->cls_of[a]]--;
			}
		}
	}
	/* CoDel's drops: back through the ledger, out of the class's queue */
	for (unsigned k; (k = xtx_sched__take_dropped(m->s, m->dropped, 64));)
		for (i = 0; i < k; i++) {
			uint64_t a = m->dropped[i].addr;

			led_back(m, &m->dropped[i]);
			if (m->on_aqm)
				m->on_aqm(m, &m->dropped[i]);
			if (a < m->seq && m->cls_of[a] < m->ncls) {
				m->aqm_pkts[m->cls_of[a]]++;
				m->inq[m->cls_of[a]]--;
			}
		}
	if (m->check_every && ++m->ncalls % m->check_every == 0 && !m->check_failed) {
		char err[256];

		if (_xtx_sched__check(m->s, err, sizeof(err))) {
			m->check_failed = true;
			check_report(0, __FILE__, __LINE__, "_xtx_sched__check", err);
		}
	}
	return got;
}

bool sim_jump(struct sim *m, uint64_t next)
{
	if (next == UINT64_MAX || next <= m->now) {
		check_report(0, __FILE__, __LINE__, "sim_jump", "dequeue gave nothing and no "
			     "future next_ns while packets are queued");
		return false;
	}
	m->now = next;
	return true;
}

void sim_check_counts(struct sim *m)
{
	unsigned c;

	for (c = 0; c < m->ncls; c++) {
		struct xtx_class_stats st;
		uint64_t refused = 0;
		unsigned r;

		CHECK(xtx_sched__class_stats(m->s, c, &st) == 0);
		for (r = 0; r < XTX_DROP__MAX; r++)
			if (r != XTX_DROP_PURGED && r != XTX_DROP_CODEL)
				refused += st.drops[r];
		if (!sim_is_leaf(m, c))
			continue;
		CHECK_EQ_U64(m->offered[c], st.enq_pkts + refused);
		CHECK_EQ_U64(st.enq_pkts, st.sent_pkts + st.drops[XTX_DROP_PURGED] +
			     st.drops[XTX_DROP_CODEL] + st.qlen);
		CHECK_EQ_U64(m->aqm_pkts[c], st.drops[XTX_DROP_CODEL]);
		CHECK_EQ_U64(m->sent_pkts[c], st.sent_pkts);
		CHECK_EQ_U64(m->inq[c], st.qlen);
	}
}

void sim_finish(struct sim *m)
{
	struct xtx_desc out[256];
	uint64_t a, lost = 0;
	unsigned got;
	char err[256];

	while ((got = xtx_sched__purge(m->s, out, 256)) > 0) {
		unsigned i;

		if (m->twin) {
			struct xtx_desc tout[256];
			unsigned tgot = xtx_sched__purge(m->twin, tout, 256);

			twin_cmp_descs(m, "purged", out, got, tout, tgot);
		}

		for (i = 0; i < got; i++) {
			led_back(m, &out[i]);
			if (out[i].addr < m->seq && m->cls_of[out[i].addr] < m->ncls)
				m->inq[m->cls_of[out[i].addr]]--;
		}
	}
	CHECK_EQ_U64(0, xtx_sched__qlen(m->s));
	if (_xtx_sched__check(m->s, err, sizeof(err)))
		check_report(0, __FILE__, __LINE__, "_xtx_sched__check after purge", err);
	for (a = 0; a < m->seq; a++)
		if (m->led[a] != 2)
			lost++;
	CHECK_EQ_U64(0, lost);		/* every descriptor came back */
	CHECK_EQ_U64(0, m->dup);	/* and only once */
	CHECK_EQ_U64(0, m->early);	/* none before its txtime */
	sim_check_counts(m);
	if (m->twin) {
		twin_cmp_state(m);
		CHECK_EQ_U64(0, m->twin_diffs);	/* deferred charging changed nothing */
		xtx_sched__destroy(m->twin);
	}

	xtx_sched__destroy(m->s);
	xtx_sched_config__free(m->cfg);
	free(m->led);
	free(m->txt);
	free(m->cls_of);
	free(m->hash_of);
	free(m->offered);
	free(m->sent_wire);
	free(m->sent_pkts);
	free(m->aqm_pkts);
	free(m->inq);
	memset(m, 0, sizeof(*m));
}

uint64_t class_drops(struct sim *m, unsigned c, unsigned reason)
{
	struct xtx_class_stats st;

	xtx_sched__class_stats(m->s, c, &st);
	return st.drops[reason];
}

uint32_t class_qlen(struct sim *m, unsigned c)
{
	struct xtx_class_stats st;

	xtx_sched__class_stats(m->s, c, &st);
	return st.qlen;
}

void src_reset(struct src *v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		v[i].sent_wire = v[i].sent_pkts = 0;
}

void src_account(struct sim *m, struct src *v, unsigned nv, const struct xtx_desc *out,
		 unsigned got)
{
	unsigned i, j;

	for (i = 0; i < got; i++)
		for (j = 0; j < nv; j++)
			if (v[j].cls == out[i].cls && v[j].hash == out[i].hash) {
				v[j].inq--;
				v[j].sent_wire += out[i].len + m->overhead;
				v[j].sent_pkts++;
				break;
			}
}

void sim_run(struct sim *m, struct src *v, unsigned nv, uint64_t until, unsigned burst,
	     struct run_stats *rs)
{
	struct xtx_desc out[256];
	bool woke = false;

	if (burst > 256)
		burst = 256;
	while (m->now < until) {
		uint64_t next;
		unsigned i, got;

		for (i = 0; i < nv; i++)
			if (v[i].on && v[i].inq < v[i].depth)
				v[i].inq += sim_enq(m, v[i].cls, v[i].hash, v[i].len, 0,
						    (unsigned)(2 * v[i].depth - v[i].inq));
		got = sim_deq(m, out, burst, &next);
		if (rs) {
			rs->calls++;
			rs->pkts += got;
			if (woke && !got)
				rs->empty_wakeups++;
		}
		woke = false;
		src_account(m, v, nv, out, got);
		if (rs)
			for (i = 0; i < got; i++)
				rs->bytes += out[i].len + m->overhead;
		if (got)
			continue;
		if (next == UINT64_MAX)
			break;
		if (next <= m->now) {
			CHECK(next > m->now);	/* nothing eligible yet "now" */
			break;
		}
		if (next >= until) {
			m->now = until;
			break;
		}
		woke = true;
		if (rs) {
			rs->wakeups++;
			if (rs->probe_every && rs->wakeups % rs->probe_every == 0 &&
			    next > m->now + 1) {
				uint64_t n2;

				m->now = next - 1;
				got = sim_deq(m, out, burst, &n2);
				rs->probes++;
				if (got || n2 != next)
					rs->probe_bad++;
				src_account(m, v, nv, out, got);
			}
			if (!rs->first_wake_t) {
				rs->first_wake_t = next;
				rs->first_wake_bytes = rs->bytes;
			}
			rs->last_wake_t = next;
			rs->last_wake_bytes = rs->bytes;
		}
		m->now = next;
	}
}

double jain(const double *x, unsigned n)
{
	double s = 0, s2 = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return s2 > 0 ? s * s / (n * s2) : 0;
}

uint64_t rnd(uint64_t *st)
{
	uint64_t x = *st;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*st = x;
	return x * 0x2545f4914f6cdd1dull;
}
