/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_line.c - the user-space limit of the engine's transmit loop on the null device:
 * what one core does per packet when nothing but the rings and the pool is left.
 *
 * One thread, per batch of 64: take frames from the free pool (as a producer does), write
 * their descriptors into the TX ring and submit (as a dequeuer does), let the null device
 * complete them (userspace/engine/nulldev.h, rate 0), read the completions and give the
 * frames back to the pool. No stage, no scheduler, no packet bytes written: the loop the
 * engine runs around. One CLOCK_MONOTONIC read per batch, as the dequeuer's step has.
 *
 * Prints one JSON line per run: {"config":"limit","run":i,"pkts":N,"mpps":M,
 * "cpu_ns_per_pkt":C,"wall_ns_per_pkt":W} (CPU: this thread's CPU clock).
 *
 * Usage: bench_line [--pkts N] [--runs K] [--cpu C]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nulldev.h"
#include "pool.h"

#define NFRAMES		8192
#define RING		2048
#define FRAME		4096

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_line: %s: %s\n", what, strerror(-err));
	exit(1);
}

/* Sends pkts descriptors through pool -> TX ring -> device -> completion -> pool. */
static void run(uint64_t pkts, unsigned runno)
{
	struct xtx_pool pool;
	struct xtx_nulldev *d;
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	uint64_t addr[XTX_BATCH], done = 0, sink = 0, w0, c0, w1, c1;
	int rc;

	rc = xtx_pool__init(&pool, NFRAMES / XTX_BATCH + 4);
	if (rc)
		die("pool", rc);
	for (uint32_t f = 0; f < NFRAMES; f += XTX_BATCH) {
		for (uint32_t i = 0; i < XTX_BATCH; i++)
			addr[i] = (uint64_t)(f + i) * FRAME + 64;
		rc = xtx_pool__put(&pool, addr, XTX_BATCH);
		if (rc)
			die("pool put", rc);
	}
	rc = xtx_nulldev_open(&d, RING, RING, 0, &tx, &comp);
	if (rc)
		die("null device", rc);

	w0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	while (done < pkts) {
		uint32_t n = xtx_pool__get(&pool, addr, XTX_BATCH), idx = 0, k;

		if (n && xsk_ring_prod__reserve(&tx, n, &idx) == n) {
			for (uint32_t i = 0; i < n; i++) {
				struct xdp_desc *td = xsk_ring_prod__tx_desc(&tx, idx + i);

				td->addr = addr[i];
				td->len = 60;
				td->options = 0;
			}
			xsk_ring_prod__submit(&tx, n);
		} else if (n) {
			xtx_pool__put(&pool, addr, n);
		}
		sink += clock_ns(CLOCK_MONOTONIC) & 1;
		xtx_nulldev_run(d, 0);
		k = xsk_ring_cons__peek(&comp, XTX_BATCH, &idx);
		for (uint32_t i = 0; i < k; i++)
			addr[i] = *xsk_ring_cons__comp_addr(&comp, idx + i);
		if (k) {
			xsk_ring_cons__release(&comp, k);
			xtx_pool__put(&pool, addr, k);
		}
		done += k;
	}
	c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	w1 = clock_ns(CLOCK_MONOTONIC);
	printf("{\"config\":\"limit\",\"run\":%u,\"pkts\":%" PRIu64 ",\"mpps\":%.3f,"
	       "\"cpu_ns_per_pkt\":%.2f,\"wall_ns_per_pkt\":%.2f}\n", runno, done,
	       done * 1e3 / (double)(w1 - w0), (double)(c1 - c0) / (double)done,
	       (double)(w1 - w0) / (double)done);
	fflush(stdout);
	if (sink == UINT64_MAX)
		puts("");
	xtx_nulldev_close(d);
	xtx_pool__fini(&pool);
}

static void usage(void)
{
	fputs("usage: bench_line [--pkts N] [--runs K] [--cpu C]\n"
	      "  The engine's transmit loop with nothing but the pool, the TX and completion\n"
	      "  rings and the null device: one JSON line per run (see the file's comment).\n",
	      stderr);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "pkts", required_argument, 0, 'p' }, { "runs", required_argument, 0, 'r' },
		{ "cpu", required_argument, 0, 'c' }, { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	uint64_t pkts = 50000000;
	unsigned runs = 1;
	int cpu = -1, opt;
	char *end;

	while ((opt = getopt_long(argc, argv, "p:r:c:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'p': pkts = strtoull(optarg, &end, 10);
			  if (*end || pkts < 1000 || pkts > 10000000000ull)
				  goto bad;
			  break;
		case 'r': runs = (unsigned)strtoul(optarg, &end, 10);
			  if (*end || runs < 1 || runs > 100)
				  goto bad;
			  break;
		case 'c': cpu = (int)strtol(optarg, &end, 10);
			  if (*end || cpu < 0 || cpu >= CPU_SETSIZE)
				  goto bad;
			  break;
		case 'h': usage(); return 0;
		default: goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "bench_line: cannot pin to CPU %d: %s\n", cpu,
				strerror(errno));
			return 1;
		}
	}
	for (unsigned r = 0; r < runs; r++)
		run(pkts, r);
	return 0;
bad:
	usage();
	return 2;
}
