/* SPDX-License-Identifier: BSD-3-Clause */
/* txmd.h - what the dequeuer adds to a frame's AF_XDP TX metadata (xtx/xtx.h,
 * xtx_desc__set_txmd()) on its way into the TX ring (internal to libxtx).
 *
 * Launch time (opts.launch_time; Linux 6.15+, drivers with tx-launch-time-fifo such as
 * igc and stmmac, behind an etf qdisc with offload on the queue): a descriptor with a
 * departure time (XTX_DESC_F_TXTIME, the CLOCK_MONOTONIC time at frame - 8) leaves with
 * XTX_TXMD_LAUNCH_TIME and that time in CLOCK_TAI, the clock the driver compares with its
 * PTP clock (kept in step with the system's by phc2sys). The scheduler still releases
 * the packet at its departure time: the NIC then starts it at that instant, or at once
 * when the release was late, so what launch time removes is the TX ring's and the
 * driver's jitter, not the scheduler's lateness. The slot of the departure time is the
 * request's launch_time, so nothing moves; only its clock changes.
 */
#ifndef XTX_TXMD_H
#define XTX_TXMD_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#include <xtx/desc.h>
#include <xtx/xtx.h>

/* CLOCK_TAI - CLOCK_MONOTONIC, ns: what a launch time adds to a departure time. */
static inline int64_t xtx_txmd_tai_offset(void)
{
	struct timespec m, t;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_TAI, &t);
	return ((int64_t)t.tv_sec - m.tv_sec) * 1000000000 + (t.tv_nsec - m.tv_nsec);
}

/* The frame at `frame`, its descriptor address *addr with XTX_DESC_F_TXTIME: ask for a
 * launch at its departure time in CLOCK_TAI (tai_off from xtx_txmd_tai_offset()), in the
 * request the producer wrote (XTX_DESC_F_TXMD) or in a new one, and flag *addr. */
static inline void xtx_txmd_launch(void *frame, int64_t tai_off, uint64_t *addr)
{
	unsigned char *m = (unsigned char *)frame - XTX_TXMD_LEN;
	uint64_t fl = 0, t;

	if (*addr & XTX_DESC_F_TXMD)
		memcpy(&fl, m, 8);
	fl |= XTX_TXMD_LAUNCH_TIME;
	memcpy(m, &fl, 8);
	memcpy(&t, m + 16, 8);
	t += (uint64_t)tai_off;
	memcpy(m + 16, &t, 8);
	*addr |= XTX_DESC_F_TXMD;
}

#endif /* XTX_TXMD_H */
