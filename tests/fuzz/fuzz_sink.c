/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_sink.c - libFuzzer target: the xtx_sink XDP program's packet parser, run in the
 * kernel with BPF_PROG_TEST_RUN on the fuzz input as a frame. Invariants: the run
 * succeeds, the verdict is XDP_DROP or XDP_PASS, and every frame lands in exactly one of
 * the sink's classes (the class counters move by one packet and its length in total).
 * Needs root: as any other user it exits 77 (skip) before loading anything. As root a
 * program the kernel refuses is a failure (exit 1, with the verifier log on stderr). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "xtx_sink.skel.h"
#include "../../xdp/xtx_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct xtx_sink *skel;
static int ncpu;

/* Setup: libbpf's warnings (a refused program's verifier log) to stderr. */
static int loud(enum libbpf_print_level l, const char *f, va_list ap)
{
	return l == LIBBPF_DEBUG ? 0 : vfprintf(stderr, f, ap);
}

static int quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int rc;

	(void)argc; (void)argv;
	if (geteuid() != 0) {
		printf("skip: not root, nothing run: BPF_PROG_TEST_RUN of the sink needs root\n");
		exit(77);
	}
	libbpf_set_print(loud);
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		fprintf(stderr, "fuzz_sink: FAIL: cannot read the number of possible CPUs\n");
		exit(1);
	}
	skel = xtx_sink__open();
	if (!skel)
		abort();
	skel->rodata->cfg_port_lo = 9000;
	skel->rodata->cfg_port_hi = 9999;
	rc = xtx_sink__load(skel);
	if (rc) {
		fprintf(stderr, "fuzz_sink: FAIL: loading xtx_sink as root failed: %s (libbpf's "
			"message and the verifier log, if any, above)\n", strerror(-rc));
		exit(1);
	}
	libbpf_set_print(quiet);
	return 0;
}

static void totals(uint64_t *pkts, uint64_t *bytes)
{
	struct xtx_xdp_counter v[ncpu], sum = { 0, 0 };

	for (uint32_t k = 0; k < XTX_SINK_CLASS_MAX; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &k, v))
			abort();
		xtx_xdp_counter_add(&sum, v, ncpu);
	}
	*pkts = sum.pkts;
	*bytes = sum.bytes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t p0, b0, p1, b1;

	/* The kernel refuses test frames shorter than an Ethernet header or beyond a page. */
	if (size < 14 || size > 3000)
		return 0;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = data, .data_size_in = (uint32_t)size,
		    .repeat = 1);
	totals(&p0, &b0);
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.xtx_sink), &o))
		abort();
	if (o.retval != XDP_DROP && o.retval != XDP_PASS)
		abort();
	totals(&p1, &b1);
	if (p1 - p0 != 1 || b1 - b0 != size)
		abort();	/* not exactly one class for this frame */
	return 0;
}
