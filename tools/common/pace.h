/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/pace.h - departure times at a fixed rate for the load tools (xtx-send
 * --rate and --flow-rate, udp-send --rate), carried exactly: a packet moves its stream's
 * time by num / den ns (den the rate, num 1e9 times what the rate counts of the packet -
 * 1 or its bytes - times the stream's share of it), the fraction kept in 1/den, so a long
 * run does not drift; no division per packet.
 *
 * Rules: a time more than PACE_LAG_NS behind now moves up to it (a stream that fell
 * behind makes up that much, not the rest); a sleeper sleeps at most PACE_NAP_NS at a
 * time, so a stop flag is seen promptly.
 */
#ifndef XTX_TOOLS_PACE_H
#define XTX_TOOLS_PACE_H

#include <stdint.h>
#include <time.h>

#define PACE_LAG_NS	1000000ull	/* lag made up at most: 1 ms */
#define PACE_NAP_NS	50000000ull	/* one sleep at most: 50 ms */

/* The gap num / den: q whole ns and r / den (r < den). */
struct pace_gap {
	uint64_t q, r;
};

static inline struct pace_gap pace_gap(uint64_t num, uint64_t den)
{
	return (struct pace_gap){ num / den, num % den };
}

static inline void pace_catch_up(uint64_t *t, uint64_t now)
{
	if (*t + PACE_LAG_NS < now)
		*t = now - PACE_LAG_NS;
}

/* One packet of gap g left: *t and its carried fraction *rem (< den) move on. rem + r <
 * 2 * den, so den below 2^63 keeps the sum from wrapping. */
static inline void pace_step(uint64_t *t, uint64_t *rem, struct pace_gap g, uint64_t den)
{
	*t += g.q;
	*rem += g.r;
	if (*rem >= den) {
		*rem -= den;
		(*t)++;
	}
}

/* n packets of gap g left (a batch): one division per batch. n * r must not wrap. */
static inline void pace_step_n(uint64_t *t, uint64_t *rem, struct pace_gap g, uint64_t den,
			       uint64_t n)
{
	*rem += n * g.r;
	*t += n * g.q + *rem / den;
	*rem %= den;
}

/* Sleep until t (at most PACE_NAP_NS), now being the time it is. */
static inline void pace_nap(uint64_t t, uint64_t now)
{
	uint64_t ns = t > now ? t - now : 0;
	struct timespec ts;

	if (ns > PACE_NAP_NS)
		ns = PACE_NAP_NS;
	ts.tv_sec = (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	nanosleep(&ts, NULL);
}

#endif /* XTX_TOOLS_PACE_H */
