/* SPDX-License-Identifier: BSD-3-Clause */
/* Mode: the consumer busy-polls (never enters the kernel to sleep). */
#include "stress_mpsc_impl.h"

int main(void)
{
	static const struct stress_mode m = { .name = "busy", .busy_poll = 1, .lane_size = 1024,
					      .seconds = 0.5 };
	return stress_main(&m);
}
