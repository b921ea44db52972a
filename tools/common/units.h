/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/units.h - rates on the command line: the library's reading of tc's units
 * (xtx_rate__parse() of xtx/sched.h, the config file's) and packets per second, for every
 * tool (xtx-send --rate, and xtx-compare, which checks the --rate it passes on to xtx-send
 * before it builds a testbed):
 *
 *   bit kbit mbit gbit tbit, kibit .. tibit    bits per second
 *   bps kbps mbps gbps tbps, kibps .. tibps    bytes per second
 *   pps kpps mpps                              packets per second (decimal multiples)
 *   no unit                                    bits per second, as tc reads a bare number
 *
 * The number is decimal ("100", "1.5", ".5"), read exactly, right before the unit, which
 * is matched without regard to case ("100 mbit", "1e6bit", "+5mbit" are not rates).
 * Printing a rate the way tc reads it is tc_fmt_rate() of tools/xtx-compare/tc.h (the
 * only tool that writes tc commands).
 */
#ifndef XTX_TOOLS_UNITS_H
#define XTX_TOOLS_UNITS_H

#include <stdint.h>

/* Rates and packet rates above this are refused: 1e15 bit/s, or 1e15 packets/s. */
#define UNITS_MAX_BPS	125000000000000ull	/* bytes per second */
#define UNITS_MAX_PPS	1000000000000000ull

/* A rate s: a packet rate into *pps (and *Bps = 0) or a bit or byte rate into *Bps, in
 * bytes per second, rounded down (and *pps = 0). Returns 0, or -EINVAL with both left
 * untouched: not a rate as above, below one packet or one byte per second, or above
 * UNITS_MAX_PPS / UNITS_MAX_BPS. */
int units_parse_rate(const char *s, uint64_t *pps, uint64_t *Bps);

#endif /* XTX_TOOLS_UNITS_H */
