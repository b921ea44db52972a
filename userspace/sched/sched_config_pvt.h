/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_config_pvt.h - private link between the config container (sched_config.c), the
 * text parser (sched_parse.c) and the live change (sched_change.c). Do not include directly from anywhere else; nothing here is
 * exported (libxtx.map does not list it).
 *
 * The public add_class() can only say "set" by a non-zero field. The parser knows more: the
 * user wrote "maxrate 0" explicitly, and the file name and line a statement came from. These
 * entry points carry that to the container so validate() can name file and line.
 */
#ifndef XTX_SCHED_CONFIG_PVT_H
#define XTX_SCHED_CONFIG_PVT_H

#include <stddef.h>
#include <stdint.h>
#include <xtx/sched.h>

/* Bits of the "explicitly set" mask kept per class. */
enum {
	_XTX_OPT_PARENT		= 1u << 0,
	_XTX_OPT_CEIL		= 1u << 1,
	_XTX_OPT_BURST		= 1u << 2,
	_XTX_OPT_CBURST		= 1u << 3,
	_XTX_OPT_QUANTUM	= 1u << 4,
	_XTX_OPT_PRIO		= 1u << 5,
	_XTX_OPT_FQ		= 1u << 6,	/* leaf only from here on */
	_XTX_OPT_LIMIT		= 1u << 7,
	_XTX_OPT_FLOWS		= 1u << 8,
	_XTX_OPT_FLOW_LIMIT	= 1u << 9,
	_XTX_OPT_FQ_QUANTUM	= 1u << 10,
	_XTX_OPT_MAXRATE	= 1u << 11,
	_XTX_OPT_TARGET		= 1u << 12,
	_XTX_OPT_CODEL		= 1u << 13,
};
#define _XTX_OPT_LEAF_ONLY	(_XTX_OPT_FQ | _XTX_OPT_LIMIT | _XTX_OPT_FLOWS | \
				 _XTX_OPT_FLOW_LIMIT | _XTX_OPT_FQ_QUANTUM | _XTX_OPT_MAXRATE | \
				 _XTX_OPT_TARGET | _XTX_OPT_CODEL)
/* Longest time of the class file (room target, CoDel target and interval), ns: an hour
 * (keeps CoDel's interval << 32 within 128 bits with room). */
#define _XTX_TIME_MAX	3600000000000ull
/* Options that only mean something with fq on. */
#define _XTX_OPT_FQ_ONLY	(_XTX_OPT_FLOWS | _XTX_OPT_FLOW_LIMIT | _XTX_OPT_FQ_QUANTUM | \
				 _XTX_OPT_MAXRATE)

/* Largest per-packet overhead set_overhead() accepts: keeps len + overhead far from u32
 * overflow in the scheduler's byte arithmetic. */
#define _XTX_OVERHEAD_MAX	65535u

/* add_class() with the explicit-set mask given by the caller instead of derived from the
 * non-zero fields (the mask is OR-ed with the derived one). Same errors as add_class(). */
int _xtx_sched_config__add_class_set(struct xtx_sched_config *cfg,
				     const struct xtx_class_opts *o, uint32_t set);
/* Remember the source (file) name used as the "NAME:" of validate() messages. The string
 * is copied. -ENOMEM. */
int _xtx_sched_config__set_source(struct xtx_sched_config *cfg, const char *name);
const char *_xtx_sched_config__source(const struct xtx_sched_config *cfg); /* NULL = none */
/* set_default() that also records the line of the "default" statement for messages. */
int _xtx_sched_config__set_default_at(struct xtx_sched_config *cfg, uint32_t handle,
				      uint32_t line);

/* A message "NAME:LINE: " + fmt in err, as validate() writes them (the line of a class
 * is its opts' line; 0: none). */
__attribute__((format(printf, 5, 6)))
void _xtx_cfg_err(const struct xtx_sched_config *cfg, uint32_t line, char *err,
		  size_t errlen, const char *fmt, ...);

/* Format helpers shared by both files; each writes a NUL-terminated string and returns buf.
 * A handle as tc prints it: "1:" for minor 0, "1:10" (hex) otherwise, "root". */
#define _XTX_HANDLE_STRLEN	XTX_HANDLE_STRLEN
char *_xtx_handle_fmt(char *buf, size_t len, uint32_t h);
/* A rate in bytes/s as bits per second with the largest tc unit, exact: "10Gbit/s",
 * "1.5Mbit/s", "8bit/s". */
#define _XTX_RATE_STRLEN	48
char *_xtx_rate_fmt(char *buf, size_t len, uint64_t bytes_per_s);

#endif /* XTX_SCHED_CONFIG_PVT_H */
