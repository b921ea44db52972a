/* SPDX-License-Identifier: BSD-3-Clause */
/* Mode: producers unregister and register again every few hundred items, with fewer
 * lanes than producers, so lanes are closed, drained, freed and reused all the time. */
#include "stress_mpsc_impl.h"

int main(void)
{
	static const struct stress_mode m = { .name = "churn", .churn = 300, .lanes = 4,
					      .lane_size = 64, .seconds = 0.5 };
	return stress_main(&m);
}
