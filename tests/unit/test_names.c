/* SPDX-License-Identifier: BSD-3-Clause */
/* test_names.c - the library's read-back helpers the tools print with: is_leaf() of a
 * class tree, handles as tc prints them, drop reason names. One table each. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <xtx/sched.h>
#include <xtx/xtx.h>
#include "check.h"

static void test_is_leaf(void)
{
	static const struct { uint32_t h, parent; } tree[] = {
		{ XTX_HANDLE(1, 0), XTX_HANDLE_ROOT },
		{ XTX_HANDLE(1, 0x10), XTX_HANDLE(1, 0) },
		{ XTX_HANDLE(1, 0x11), XTX_HANDLE(1, 0x10) },
		{ XTX_HANDLE(1, 0x20), XTX_HANDLE(1, 0) },
		{ XTX_HANDLE(2, 0), XTX_HANDLE_ROOT },	/* a root without children */
	};
	static const struct { uint32_t h; int rc; } rows[] = {
		{ XTX_HANDLE(1, 0), 0 },
		{ XTX_HANDLE(1, 0x10), 0 },
		{ XTX_HANDLE(1, 0x11), 1 },
		{ XTX_HANDLE(1, 0x20), 1 },
		{ XTX_HANDLE(2, 0), 1 },
		{ XTX_HANDLE(3, 0), -ENOENT },
		{ XTX_HANDLE_ROOT, -ENOENT },
		{ 0, -ENOENT },
	};
	struct xtx_sched_config *cfg = xtx_sched_config__new();

	if (!CHECK(cfg != NULL))
		return;
	for (unsigned i = 0; i < sizeof(tree) / sizeof(tree[0]); i++) {
		struct xtx_class_opts o = { .sz = sizeof(o), .handle = tree[i].h,
					    .parent = tree[i].parent, .rate = 1250000 };

		CHECK_EQ_I64(0, xtx_sched_config__add_class(cfg, &o));
	}
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!CHECK_EQ_I64(rows[i].rc, xtx_sched_config__is_leaf(cfg, rows[i].h)))
			fprintf(stderr, "    in row %u: handle %#x\n", i, rows[i].h);
	CHECK_EQ_I64(-ENOENT, xtx_sched_config__is_leaf(NULL, XTX_HANDLE(1, 0)));
	xtx_sched_config__free(cfg);
}

static void test_handle_str(void)
{
	static const struct { uint32_t h; size_t len; int rc; const char *s; } rows[] = {
		{ XTX_HANDLE(1, 0x10), 16, 4, "1:10" },
		{ XTX_HANDLE(1, 0), 16, 2, "1:" },
		{ XTX_HANDLE(0xffff, 0xfffe), 16, 9, "ffff:fffe" },	/* ffff:ffff is root */
		{ XTX_HANDLE(0xabc, 1), 16, 5, "abc:1" },
		{ XTX_HANDLE_ROOT, 16, 4, "root" },
		{ 0, 16, 2, "0:" },
		{ XTX_HANDLE(1, 0x10), 5, 4, "1:10" },		/* exactly fits */
		{ XTX_HANDLE(1, 0x10), 4, -ENOSPC, "1:1" },	/* cut, terminated */
		{ XTX_HANDLE(1, 0x10), 1, -ENOSPC, "" },
		{ XTX_HANDLE(0xffff, 0xfffe), XTX_HANDLE_STRLEN, 9, "ffff:fffe" },
	};
	char buf[32];

	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned long f0 = atomic_load(&check_n_fail);

		memset(buf, 'x', sizeof(buf));
		CHECK_EQ_I64(rows[i].rc, xtx_handle__str(rows[i].h, buf, rows[i].len));
		CHECK(strcmp(buf, rows[i].s) == 0);
		CHECK_EQ_U64('x', buf[rows[i].len]);	/* nothing written past len */
		if (atomic_load(&check_n_fail) != f0)
			fprintf(stderr, "    in row %u: handle %#x len %zu: got \"%.*s\"\n", i,
				rows[i].h, rows[i].len, (int)rows[i].len, buf);
	}
	CHECK_EQ_I64(-EINVAL, xtx_handle__str(1, NULL, 16));
	CHECK_EQ_I64(-EINVAL, xtx_handle__str(1, buf, 0));
}

static void test_drop_names(void)
{
	static const char *const want[XTX_DROP__MAX] = {
		[XTX_DROP_LEAF_LIMIT] = "leaf_limit", [XTX_DROP_FLOW_LIMIT] = "flow_limit",
		[XTX_DROP_NO_CLASS] = "no_class", [XTX_DROP_NO_BUFS] = "no_bufs",
		[XTX_DROP_HORIZON] = "horizon", [XTX_DROP_PURGED] = "purged",
		[XTX_DROP_CODEL] = "codel",
	};
	static const char *const rx_want[XTX_RX_DROP__MAX] = {
		[XTX_RX_DROP_STAGE_FULL] = "stage_full", [XTX_RX_DROP_NO_FRAME] = "no_frame",
		[XTX_RX_DROP_BAD_DESC] = "bad_desc",
	};

	for (int r = 0; r < XTX_DROP__MAX; r++) {
		const char *s = xtx_drop_reason__str((enum xtx_drop_reason)r);

		if (CHECK(s != NULL) && !CHECK(strcmp(s, want[r]) == 0))
			fprintf(stderr, "    reason %d: expected %s, got %s\n", r, want[r], s);
	}
	CHECK(xtx_drop_reason__str(XTX_DROP__MAX) == NULL);
	CHECK(xtx_drop_reason__str((enum xtx_drop_reason)-1) == NULL);
	for (int r = 0; r < XTX_RX_DROP__MAX; r++) {
		const char *s = xtx_rx_drop_reason__str((enum xtx_rx_drop_reason)r);

		if (CHECK(s != NULL) && !CHECK(strcmp(s, rx_want[r]) == 0))
			fprintf(stderr, "    rx reason %d: expected %s, got %s\n", r, rx_want[r], s);
	}
	CHECK(xtx_rx_drop_reason__str(XTX_RX_DROP__MAX) == NULL);
}

int main(void)
{
	test_is_leaf();
	test_handle_str();
	test_drop_names();
	return check_summary("test_names");
}
