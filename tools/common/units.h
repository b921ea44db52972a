/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/units.h - rates on the command line, in tc's units (tc(8) "RATES") and
 * packets per second: the one reading of "100mbit", "1.5gbit", "12mbps", "500kpps" for
 * every tool (xtx-send --rate, and xtx-compare, which checks the --rate it passes on to
 * xtx-send before it builds a testbed).
 *
 *   bit kbit mbit gbit tbit    bits per second, decimal multiples (1 kbit = 1000 bit/s)
 *   bps kbps mbps gbps         bytes per second, decimal multiples
 *   pps kpps mpps              packets per second
 *   no unit                    bits per second, as tc reads a bare number
 *
 * Units are matched without regard to case, right after the number ("100 mbit" is not a
 * rate). Printing a rate the way tc reads it is tc_fmt_rate() of tools/xtx-compare/tc.h
 * (the only tool that writes tc commands).
 */
#ifndef XTX_TOOLS_UNITS_H
#define XTX_TOOLS_UNITS_H

#include <stdint.h>

/* A rate s: a packet rate into *pps (and *Bps = 0) or a bit or byte rate into *Bps, in
 * bytes per second, rounded down (and *pps = 0). Returns 0, or -EINVAL with both left
 * untouched: not a positive finite number followed by one of the units above, below 1 or
 * above 1e15 in bit/s or packets/s, or less than a byte per second. */
int units_parse_rate(const char *s, uint64_t *pps, uint64_t *Bps);

#endif /* XTX_TOOLS_UNITS_H */
