/* SPDX-License-Identifier: BSD-3-Clause */
/* txring.c - see txring.h. */
#include <errno.h>
#include <sys/socket.h>

#include "nulldev.h"
#include "txring.h"

void xtx_txring__poll(struct xtx_txring *t, uint64_t now)
{
	if (t->null && xtx_nulldev_inflight(t->null))
		xtx_nulldev_run(t->null, now);
}

int xtx_txring__kick(struct xtx_txring *t, uint64_t now)
{
	if (t->null) {
		xtx_nulldev_run(t->null, now);
		return 0;
	}
	if (sendto(t->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
		return 0;
	return -errno;
}
