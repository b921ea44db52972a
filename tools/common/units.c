/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/units.c - see units.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xtx/sched.h>
#include "units.h"

/* A packet rate "N[k|m]pps" is read as the byte rate "N[k|m]bps" (the same decimal
 * multiples), so that one parser reads every number. prefix: "", "k" or "m" as given. */
static int parse_pps(const char *s, size_t num_len, const char *prefix, size_t prefix_len,
		     uint64_t *pps)
{
	char *buf;
	int rc;

	/* The number ends right before the unit: "5gpps" must not become "5gbps". */
	if (!num_len || !strchr("0123456789.", s[num_len - 1]))
		return -EINVAL;
	buf = malloc(num_len + prefix_len + sizeof("bps"));
	if (!buf)
		return -ENOMEM;
	memcpy(buf, s, num_len);
	memcpy(buf + num_len, prefix, prefix_len);
	strcpy(buf + num_len + prefix_len, "bps");
	rc = xtx_rate__parse(buf, pps);
	free(buf);
	return rc;
}

int units_parse_rate(const char *s, uint64_t *pps, uint64_t *Bps)
{
	size_t len = s ? strlen(s) : 0;
	uint64_t v;

	if (!s)
		return -EINVAL;
	/* A unit ending in "pps" is a packet rate; anything else is the library's. */
	if (len >= 3 && !strcasecmp(s + len - 3, "pps")) {
		size_t prefix = len >= 4 && strchr("kKmM", s[len - 4]) ? 1 : 0;

		if (parse_pps(s, len - 3 - prefix, s + len - 3 - prefix, prefix, &v) || !v ||
		    v > UNITS_MAX_PPS)
			return -EINVAL;
		*pps = v;
		*Bps = 0;
		return 0;
	}
	if (xtx_rate__parse(s, &v) || !v || v > UNITS_MAX_BPS)
		return -EINVAL;
	*pps = 0;
	*Bps = v;
	return 0;
}
