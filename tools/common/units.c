/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/units.c - see units.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "units.h"

int units_parse_rate(const char *s, uint64_t *pps, uint64_t *Bps)
{
	static const struct { const char *unit; double mult; int is_pps; } units[] = {
		{ "pps", 1, 1 }, { "kpps", 1e3, 1 }, { "mpps", 1e6, 1 },
		{ "bit", 1, 0 }, { "kbit", 1e3, 0 }, { "mbit", 1e6, 0 }, { "gbit", 1e9, 0 },
		{ "tbit", 1e12, 0 }, { "bps", 8, 0 }, { "kbps", 8e3, 0 }, { "mbps", 8e6, 0 },
		{ "gbps", 8e9, 0 }, { "", 1, 0 },
	};
	char *end;
	double v = strtod(s, &end);

	if (end == s || !isfinite(v) || v <= 0)
		return -EINVAL;
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t r;

		if (strcasecmp(end, units[i].unit))
			continue;
		v *= units[i].mult;
		if (v < 1 || v > 1e15)
			return -EINVAL;
		r = (uint64_t)(units[i].is_pps ? v : v / 8);
		if (!r)
			return -EINVAL;
		*pps = units[i].is_pps ? r : 0;
		*Bps = units[i].is_pps ? 0 : r;
		return 0;
	}
	return -EINVAL;
}
