/* SPDX-License-Identifier: BSD-3-Clause */
/* test_opts.c - the one convention of every sized options struct (userspace/util/opts.h):
 * for each struct, one table of sizes and tail bytes, and what its API must say:
 *   sz below the first release's sizeof   refused, -EINVAL (__min_field: its last field)
 *   sz = the first release's sizeof       accepted (a caller of the first release)
 *   sz = sizeof                           accepted
 *   sz larger, zero beyond                accepted (a newer caller that set nothing new)
 *   sz larger, a non-zero byte beyond     refused, -EINVAL (an option this libxtx lacks)
 *   sizeof, padding after __last_field    refused if not zero (a field a newer header put
 *                                         there)
 * No network: the engine is opened on an interface that does not exist, so an accepted
 * struct gets as far as ENODEV and a refused one stops at EINVAL with the message.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#include <xtx/mpsc.h>
#include <xtx/pkt.h>
#include <xtx/sched.h>
#include <xtx/xtx.h>
#include "check.h"

#define END(type, field)	(offsetof(type, field) + sizeof(((type *)0)->field))
/* sizeof of the first release: its last field's end, rounded up to the alignment. */
#define MIN_SZ(name)		((END(struct name, name##__min_field) + _Alignof(struct name) - 1) \
				 & ~(_Alignof(struct name) - 1))
#define KNOWN_SZ(name)		END(struct name, name##__last_field)
#define NO_BYTE			((size_t)-1)
#define BUFSZ			512

/* One struct under test: its sizes, a valid instance, and its API as "0 accepted,
 * -errno refused" (with the message in err where the API gives one). */
struct subject {
	const char *name;
	size_t min, known, size;
	void (*fill)(void *opts);
	int (*call)(void *opts, char *err, size_t errlen);
	int has_msg;		/* the API returns a message */
};

static struct xtx_sched_config *one_leaf(void)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	struct xtx_class_opts o = { .sz = sizeof(o), .handle = XTX_HANDLE(1, 0),
				    .parent = XTX_HANDLE_ROOT, .rate = 1250000 };

	if (!cfg || xtx_sched_config__add_class(cfg, &o)) {
		fprintf(stderr, "test_opts: cannot build a one-class config\n");
		exit(1);
	}
	return cfg;
}

/* --- xtx_class_opts: xtx_sched_config__add_class() -------------------------------------- */

static void fill_class(void *p)
{
	struct xtx_class_opts *o = p;

	o->handle = XTX_HANDLE(1, 0);
	o->parent = XTX_HANDLE_ROOT;
	o->rate = 1250000;
}

static int call_class(void *p, char *err, size_t errlen)
{
	struct xtx_sched_config *cfg = xtx_sched_config__new();
	int rc = cfg ? xtx_sched_config__add_class(cfg, p) : -ENOMEM;

	(void)err, (void)errlen;
	xtx_sched_config__free(cfg);
	return rc;
}

/* --- xtx_sched_opts: xtx_sched__create() ------------------------------------------------ */

static void fill_sched(void *p)
{
	((struct xtx_sched_opts *)p)->pkt_pool = 128;
}

static int call_sched(void *p, char *err, size_t errlen)
{
	struct xtx_sched_config *cfg = one_leaf();
	struct xtx_sched *s = xtx_sched__create(cfg, p, 0, err, errlen);
	int rc = s ? 0 : -errno;

	xtx_sched__destroy(s);
	xtx_sched_config__free(cfg);
	return rc;
}

/* --- xtx_mpsc_opts: xtx_mpsc__create() -------------------------------------------------- */

static void fill_mpsc(void *p)
{
	struct xtx_mpsc_opts *o = p;

	o->lanes = 2;
	o->lane_size = 64;
	o->numa_node = -1;
}

static int call_mpsc(void *p, char *err, size_t errlen)
{
	struct xtx_mpsc *s = xtx_mpsc__create(p);
	int rc = s ? 0 : -errno;

	(void)err, (void)errlen;
	xtx_mpsc__destroy(s);
	return rc;
}

/* --- xtx_pkt_udp_opts: xtx_pkt__build_udp4() (header-only, same rule) ------------------- */

static void fill_pkt(void *p)
{
	((struct xtx_pkt_udp_opts *)p)->frame_len = 64;
}

static int call_pkt(void *p, char *err, size_t errlen)
{
	uint8_t frame[128];
	int rc = xtx_pkt__build_udp4(frame, sizeof(frame), p);

	(void)err, (void)errlen;
	return rc < 0 ? rc : 0;
}

/* --- xtx_engine_opts: xtx_engine__open() on no interface -------------------------------- */

static void fill_engine(void *p)
{
	((struct xtx_engine_opts *)p)->ifname = "xtx-no-such0";
}

static int call_engine(void *p, char *err, size_t errlen)
{
	struct xtx_engine *e = xtx_engine__open(p, err, errlen);

	if (e) {		/* an interface of that name: cannot tell */
		xtx_engine__close(e);
		return -EEXIST;
	}
	return errno == ENODEV ? 0 : -errno;	/* ENODEV: the options were taken */
}

static const struct subject subjects[] = {
	{ "xtx_class_opts", MIN_SZ(xtx_class_opts), KNOWN_SZ(xtx_class_opts),
	  sizeof(struct xtx_class_opts), fill_class, call_class, 0 },
	{ "xtx_sched_opts", MIN_SZ(xtx_sched_opts), KNOWN_SZ(xtx_sched_opts),
	  sizeof(struct xtx_sched_opts), fill_sched, call_sched, 1 },
	{ "xtx_mpsc_opts", MIN_SZ(xtx_mpsc_opts), KNOWN_SZ(xtx_mpsc_opts),
	  sizeof(struct xtx_mpsc_opts), fill_mpsc, call_mpsc, 0 },
	{ "xtx_pkt_udp_opts", MIN_SZ(xtx_pkt_udp_opts), KNOWN_SZ(xtx_pkt_udp_opts),
	  sizeof(struct xtx_pkt_udp_opts), fill_pkt, call_pkt, 0 },
	{ "xtx_engine_opts", MIN_SZ(xtx_engine_opts), KNOWN_SZ(xtx_engine_opts),
	  sizeof(struct xtx_engine_opts), fill_engine, call_engine, 1 },
};

/* One row: sz, a byte to set non-zero (or NO_BYTE), the result and message expected. */
struct row {
	const char *what;
	size_t sz;
	size_t byte;
	int rc;
	const char *msg;	/* in err, for an API with messages */
};

static void run_row(const struct subject *s, const struct row *r)
{
	alignas(16) unsigned char buf[BUFSZ];
	char err[512] = "";
	unsigned long f0 = atomic_load(&check_n_fail);
	int rc;

	memset(buf, 0, sizeof(buf));
	s->fill(buf);
	memcpy(buf, &r->sz, sizeof(r->sz));	/* sz: the first field of every struct */
	if (r->byte != NO_BYTE)
		buf[r->byte] = 0x5a;
	rc = s->call(buf, err, sizeof(err));
	CHECK_EQ_I64(r->rc, rc);
	if (s->has_msg && r->msg) {
		CHECK_STR_CONTAINS(err, s->name);
		CHECK_STR_CONTAINS(err, r->msg);
	}
	if (atomic_load(&check_n_fail) != f0)
		fprintf(stderr, "    in struct %s, row \"%s\" (sz %zu, byte %zd): %s\n", s->name,
			r->what, r->sz, r->byte == NO_BYTE ? (ssize_t)-1 : (ssize_t)r->byte, err);
}

static void test_subject(const struct subject *s)
{
	const struct row rows[] = {
		{ "sz 0", 0, NO_BYTE, -EINVAL, "too small" },
		{ "sz too small", s->min - 1, NO_BYTE, -EINVAL, "too small" },
		{ "sz of the first release", s->min, NO_BYTE, 0, NULL },
		{ "sz exact", s->size, NO_BYTE, 0, NULL },
		{ "sz larger, zero tail", s->size + 64, NO_BYTE, 0, NULL },
		{ "sz larger, non-zero tail", s->size + 64, s->size + 3, -EINVAL, "not zero" },
		{ "sz larger, last tail byte", s->size + 64, s->size + 63, -EINVAL, "not zero" },
		/* A byte beyond sz is not the caller's: never looked at. */
		{ "byte beyond sz", s->size, s->size + 3, 0, NULL },
	};

	if (!CHECK(s->size + 64 <= BUFSZ) || !CHECK(s->min <= s->size) ||
	    !CHECK(s->known <= s->size))
		return;
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_row(s, &rows[i]);
	if (s->known < s->size) {	/* padding after the last field counts as tail */
		const struct row pad = { "padding after __last_field", s->size, s->known,
					 -EINVAL, "not zero" };

		run_row(s, &pad);
	}
}

/* The engine reads no field beyond sz: an old caller's garbage there is not an option. */
static void test_engine_short_reads_nothing_beyond(void)
{
	alignas(16) unsigned char buf[BUFSZ];
	struct xtx_engine_opts *o = (struct xtx_engine_opts *)buf;
	char err[512] = "";

	memset(buf, 0, sizeof(buf));
	o->ifname = "xtx-no-such0";
	o->sz = MIN_SZ(xtx_engine_opts);
	o->deq_nice = 100;	/* beyond sz: refused if it were read */
	o->intake_batches = 77;
	errno = 0;
	CHECK(xtx_engine__open(o, err, sizeof(err)) == NULL);
	CHECK_EQ_I64(ENODEV, errno);
	o->sz = sizeof(*o);	/* now it is read */
	CHECK(xtx_engine__open(o, err, sizeof(err)) == NULL);
	CHECK_EQ_I64(EINVAL, errno);
	CHECK_STR_CONTAINS(err, "deq_nice");
	errno = 0;
	CHECK(xtx_engine__open(NULL, err, sizeof(err)) == NULL);
	CHECK_EQ_I64(EINVAL, errno);
}

int main(void)
{
	for (unsigned i = 0; i < sizeof(subjects) / sizeof(subjects[0]); i++)
		test_subject(&subjects[i]);
	test_engine_short_reads_nothing_beyond();
	return check_summary("test_opts");
}
