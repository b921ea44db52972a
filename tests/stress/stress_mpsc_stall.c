/* SPDX-License-Identifier: BSD-3-Clause */
/* stress_mpsc_stall.c - a producer parked in the middle of its enqueue (after writing its
 * slots, before publishing them: the test-only fault point) must delay only its own
 * items. The consumer keeps receiving the other producers' items at a steady rate while it
 * is parked, and receives the parked burst, in order, after it resumes.
 *
 * Rates are compared with a baseline measured just before in the same run (no absolute
 * wall-clock figure is asserted): at least 90% of the 25 ms windows of the park must bring
 * items from the others, and their rate must stay above 10% of the baseline. A design
 * where a stalled producer blocks the others (rte_ring MP: the tail cannot pass the
 * stalled reservation) delivers nothing from anyone once the ring's published part is
 * drained, so 10% still separates the two cleanly on a noisy 2-core machine, where
 * measured ratios range from about 50% to 190%.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <xtx/mpsc.h>
#include "check.h"
#include "fault.h"

#define NPROD		4	/* producer 0 is the victim */
#define WINDOW_NS	(25ull * 1000 * 1000)
#define BASE_WINDOWS	8
#define PARK_WINDOWS	16

static struct xtx_mpsc *stage;
static struct xtx_mpsc_prod *_Atomic victim;
static _Atomic int park_req, parked, release_req, stop;
static _Atomic uint64_t victim_parked_seq = UINT64_MAX;
static uint64_t produced[NPROD];

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Fault point: runs in the producer between the slot writes and the tail store. */
static void hook(struct xtx_mpsc_prod *p)
{
	/* Seq_cst on these few flags: the test's own handshake, simplest to reason about. */
	if (p != victim || !atomic_exchange(&park_req, 0))
		return;
	/* The first sequence number of the burst being parked: the victim is the only user
	 * of its lane, so the lane's tail (relaxed: our own thread wrote it) is its count of
	 * items published so far. Recorded here, in the burst that actually parks. */
	atomic_store(&victim_parked_seq,
		     atomic_load_explicit(&p->p.tail, memory_order_relaxed));
	atomic_store(&parked, 1);
	while (!atomic_load(&release_req))
		usleep(1000);	/* parked: sleeping, so it costs the others no CPU */
}

static void *producer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	struct xtx_mpsc_prod *p = xtx_mpsc__register(stage);
	struct xtx_desc b[16];
	uint64_t seq = 0;

	if (id == 0)
		atomic_store(&victim, p);	/* main starts the others after this */
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned put;

		for (unsigned i = 0; i < 16; i++)
			b[i] = (struct xtx_desc){ .addr = seq + i, .hash = id, .len = 64 };
		put = xtx_mpsc__enqueue_burst(p, b, 16);
		seq += put;
		if (put < 16) {
			/* Keep the rest for the next turn: resend from seq. */
			sched_yield();
		}
	}
	xtx_mpsc__unregister(p);
	produced[id] = seq;
	return NULL;
}

int main(void)
{
	struct xtx_mpsc_opts o = { .sz = sizeof(o), .lanes = NPROD, .lane_size = 256,
				   .numa_node = -1 };
	pthread_t th[NPROD];
	uint64_t next[NPROD] = { 0 }, received[NPROD] = { 0 };
	uint64_t base = 0, during = 0, victim_during = 0, t, t0;
	unsigned windows_with_items = 0;
	struct xtx_desc out[64];
	int phase = 0;	/* 0 baseline, 1 parking, 2 parked, 3 released, 4 stopping */
	unsigned win = 0;
	uint64_t win_items = 0, win_start;

	stage = xtx_mpsc__create(&o);
	xtx_fault__set_mpsc_hook(hook);
	pthread_create(&th[0], NULL, producer, (void *)(uintptr_t)0);
	while (!atomic_load(&victim))
		usleep(1000);
	for (uintptr_t i = 1; i < NPROD; i++)
		pthread_create(&th[i], NULL, producer, (void *)i);

	t0 = win_start = now_ns();
	for (;;) {
		unsigned got = xtx_mpsc__dequeue_burst(stage, out, 64);
		uint64_t others = 0;

		for (unsigned i = 0; i < got; i++) {
			unsigned id = out[i].hash;

			if (id >= NPROD) {
				CHECK_EQ_U64(NPROD - 1, id);	/* corrupt item */
				continue;
			}
			if (out[i].addr != next[id])
				CHECK_EQ_U64(next[id], out[i].addr);
			next[id] = out[i].addr + 1;
			received[id]++;
			if (id)
				others++;
			else if (phase == 2 &&
				 out[i].addr >= atomic_load(&victim_parked_seq))
				victim_during++;	/* must stay 0 */
		}
		if (phase == 0)
			base += others;
		else if (phase == 2)
			during += others, win_items += others;
		if (!got && phase == 4) {
			struct xtx_mpsc_stats ss;
			xtx_mpsc__stats(stage, &ss);
			if (ss.lanes_owned == 0 && ss.enq_items == ss.deq_items)
				break;
		}
		if (!got)
			xtx_mpsc__wait(stage, 1000 * 1000);

		t = now_ns();
		if (phase == 0 && t - t0 >= BASE_WINDOWS * WINDOW_NS) {
			atomic_store(&park_req, 1);
			phase = 1;
		} else if (phase == 1 && atomic_load(&parked)) {
			phase = 2;
			t0 = win_start = t;
		} else if (phase == 2 && t - win_start >= WINDOW_NS) {
			windows_with_items += win_items > 0;
			win_items = 0;
			win_start = t;
			if (++win == PARK_WINDOWS) {
				atomic_store(&release_req, 1);
				phase = 3;
				t0 = t;
			}
		} else if (phase == 3 && t - t0 >= 4 * WINDOW_NS) {
			atomic_store(&stop, 1);
			for (int i = 0; i < NPROD; i++)
				pthread_join(th[i], NULL);
			phase = 4;
		}
	}

	double base_rate = (double)base / BASE_WINDOWS, park_rate = (double)during / PARK_WINDOWS;
	printf("others per %llu ms window: baseline %.0f, while parked %.0f (%.0f%%); "
	       "windows with items %u/%u; victim items leaked while parked %lu\n",
	       WINDOW_NS / 1000000, base_rate, park_rate,
	       base_rate > 0 ? 100.0 * park_rate / base_rate : 0.0, windows_with_items,
	       PARK_WINDOWS, (unsigned long)victim_during);
	{
		struct xtx_mpsc_stats ss;
		xtx_mpsc__stats(stage, &ss);
		printf("stage: rings %lu sleeps %lu wakeups %lu barriers %lu full %lu\n",
		       (unsigned long)ss.rings, (unsigned long)ss.sleeps,
		       (unsigned long)ss.wakeups, (unsigned long)ss.barriers,
		       (unsigned long)ss.full_events);
	}
	CHECK(base > 0);
	CHECK(park_rate >= 0.10 * base_rate);
	CHECK(windows_with_items * 10 >= PARK_WINDOWS * 9);
	CHECK_EQ_U64(0, victim_during);
	/* After release every item arrived: per producer, in order, none missing. */
	for (int i = 0; i < NPROD; i++) {
		CHECK_EQ_U64(produced[i], received[i]);
		CHECK_EQ_U64(produced[i], next[i]);
	}
	CHECK(produced[0] > atomic_load(&victim_parked_seq));
	xtx_fault__set_mpsc_hook(NULL);
	xtx_mpsc__destroy(stage);
	return check_summary("stress_mpsc_stall");
}
