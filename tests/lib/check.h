/* SPDX-License-Identifier: BSD-3-Clause */
/* check.h - tiny assertion helpers for table-driven tests (DPDK TEST_ASSERT_* style).
 *
 * Each CHECK prints file:line, the expression, and expected vs actual on failure, counts
 * the failure and goes on. A test's main() ends with `return check_summary("name");`,
 * which prints one line and returns 0 if at least one check ran and none failed, 1
 * otherwise: a test that checked nothing has shown nothing, so it fails (a test that
 * cannot run exits 77 before the summary, with a line saying what is missing).
 */
#ifndef XTX_TEST_CHECK_H
#define XTX_TEST_CHECK_H

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One pair per test binary (tests/lib/check.c), so that checks made in a test's own file
 * and in the helpers it links (tests/lib/sched_harness.c) count in one summary. */
extern _Atomic unsigned long check_n_ok, check_n_fail;

static inline int check_report(int ok, const char *file, int line, const char *expr,
			       const char *detail)
{
	if (ok) {
		/* Relaxed: test counters. */
		atomic_fetch_add_explicit(&check_n_ok, 1, memory_order_relaxed);
		return 1;
	}
	atomic_fetch_add_explicit(&check_n_fail, 1, memory_order_relaxed);
	fprintf(stderr, "%s:%d: check failed: %s%s%s\n", file, line, expr,
		detail ? ": " : "", detail ? detail : "");
	return 0;
}

#define CHECK(cond) check_report(!!(cond), __FILE__, __LINE__, #cond, NULL)

#define CHECK_EQ_U64(exp, act) ({						\
	uint64_t e_ = (uint64_t)(exp), a_ = (uint64_t)(act);			\
	char d_[96];								\
	snprintf(d_, sizeof(d_), "expected %" PRIu64 ", got %" PRIu64, e_, a_);	\
	check_report(e_ == a_, __FILE__, __LINE__, #act " == " #exp, d_);	\
})

#define CHECK_EQ_I64(exp, act) ({						\
	int64_t e_ = (int64_t)(exp), a_ = (int64_t)(act);			\
	char d_[96];								\
	snprintf(d_, sizeof(d_), "expected %" PRId64 ", got %" PRId64, e_, a_);	\
	check_report(e_ == a_, __FILE__, __LINE__, #act " == " #exp, d_);	\
})

/* |act - exp| <= tol * |exp| */
#define CHECK_NEAR(exp, act, tol) ({						\
	double e_ = (double)(exp), a_ = (double)(act), t_ = (double)(tol);	\
	double r_ = e_ != 0 ? (a_ - e_) / e_ : a_;				\
	char d_[128];								\
	snprintf(d_, sizeof(d_), "expected %.6g within %.3g%%, got %.6g (%+.3f%%)",	\
		 e_, t_ * 100, a_, r_ * 100);					\
	check_report(r_ <= t_ && r_ >= -t_, __FILE__, __LINE__, #act " ~ " #exp, d_); \
})

/* Equal strings, both printed whole on failure; NULL equals only NULL. */
#define CHECK_STR_EQ(exp, act) ({						\
	const char *e_ = (exp), *a_ = (act);					\
	int ok_ = e_ && a_ ? strcmp(e_, a_) == 0 : e_ == a_;			\
	if (!ok_)								\
		fprintf(stderr, "  expected \"%s\"\n  got      \"%s\"\n",		\
			e_ ? e_ : "(null)", a_ ? a_ : "(null)");		\
	check_report(ok_, __FILE__, __LINE__, #act " == " #exp, NULL);		\
})

#define CHECK_STR_CONTAINS(hay, needle) ({					\
	const char *h_ = (hay), *n_ = (needle);					\
	int ok_ = h_ && strstr(h_, n_) != NULL;					\
	if (!ok_)								\
		fprintf(stderr, "  expected to contain \"%s\"\n  got \"%s\"\n", n_,	\
			h_ ? h_ : "(null)");					\
	check_report(ok_, __FILE__, __LINE__, #hay " contains " #needle, NULL);	\
})

static inline int check_summary(const char *name)
{
	unsigned long ok = atomic_load(&check_n_ok), bad = atomic_load(&check_n_fail);

	printf("%s: %lu checks, %lu failed\n", name, ok + bad, bad);
	if (!ok && !bad) {
		fprintf(stderr, "%s: no check ran: the test showed nothing, so it fails\n", name);
		return 1;
	}
	return bad ? 1 : 0;
}

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t check_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What the rest of test `name` cannot run without failed: say so and exit 1. */
static inline void check_die(const char *name, const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s; giving up\n", name, what, why);
	fflush(NULL);
	_exit(1);
}

#endif /* XTX_TEST_CHECK_H */
