/* SPDX-License-Identifier: BSD-3-Clause */
/* Mode: the consumer sleeps (futex) whenever the stage is empty; small lanes so that
 * producers hit back-pressure often. */
#include "stress_mpsc_impl.h"

int main(void)
{
	static const struct stress_mode m = { .name = "sleep", .lane_size = 256, .seconds = 0.5 };
	return stress_main(&m);
}
