/* SPDX-License-Identifier: BSD-3-Clause */
/* rules.h - xtx-shape's classifier rules: the text format, its parser, and the compiler
 * that turns rules into the xtx_redirect program's maps (xdp/xtx_redirect.h).
 *
 * Format (one statement per line; '#' starts a comment; tokens separated by blanks):
 *
 *   match [src PREFIX] [dst PREFIX] [sport PORTS] [dport PORTS] [proto PROTO]
 *         [dscp N[-M]] [vlan ID|untagged] ACTION
 *   default ACTION
 *
 *   ACTION  = class HANDLE | pass | drop
 *   PREFIX  = an IPv4 or IPv6 address with an optional /LEN (host bits must be zero)
 *   PORTS   = P or P-Q, 0..65535 (only TCP and UDP have ports)
 *   PROTO   = tcp | udp | icmp | icmpv6 | a number 0..255
 *   HANDLE  = a class of the class file (docs/config.md), e.g. 1:10; it must be a leaf
 *
 * Rules are tried in file order; the first whose every criterion holds decides. A rule
 * with no criterion matches every frame. `pass` gives the frame to the kernel untouched,
 * `drop` drops it, `class` shapes it in that class. Frames no rule matches get `default`
 * (if not given: the class file's default class). Criteria on addresses make a rule
 * IPv4-only or IPv6-only (both families in one rule is an error); port criteria need TCP
 * or UDP; a non-IP frame can match only rules whose sole criterion is vlan (or none).
 * At most XTX_RD_RULES_MAX rules and XTX_RD_PREFIX_MAX distinct prefixes per field.
 *
 * Errors name the file, line and 1-based byte column of the offending token, what was
 * found and what was expected ("rules.conf:3:12: found 'x', expected ..."), as the class
 * file parser does.
 */
#ifndef XTX_SHAPE_RULES_H
#define XTX_SHAPE_RULES_H

#include <stddef.h>
#include <stdint.h>

#include <xtx/sched.h>
#include "../../xdp/xtx_redirect.h"

struct rd_prefix {
	uint8_t family;			/* 4 or 6 */
	uint8_t len;			/* prefix length in bits */
	uint8_t addr[16];		/* network order; 4 bytes used for IPv4 */
};

struct rd_rule {
	unsigned line, col;		/* where the statement starts */
	unsigned act_col;		/* column of the action (for resolve errors) */
	uint8_t has_src, has_dst, has_sport, has_dport, has_proto, has_dscp, has_vlan;
	uint8_t family;			/* 0 (any), 4 or 6: implied by the addresses */
	struct rd_prefix src, dst;
	uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
	uint8_t proto, dscp_lo, dscp_hi;
	uint16_t vlan;			/* 0..4095 or XTX_RD_VLAN_UNTAGGED */
	uint32_t action;		/* enum xtx_rd_action */
	uint32_t handle;		/* ACT_CLASS */
	uint32_t cls;			/* class index, after rd_rules__resolve() */
};

struct rd_rules {
	char name[256];			/* file name for messages */
	unsigned n;
	struct rd_rule r[XTX_RD_RULES_MAX];
	int has_default;
	struct rd_rule def;		/* the default statement (criteria unused) */
};

/* Parse rules text. Returns 0 or -EINVAL with "NAME:LINE:COL: ..." in err; a file that
 * cannot be read keeps its errno (-ENOENT, ...). */
int rd_rules__parse_string(struct rd_rules *rs, const char *text, const char *name,
			   char *err, size_t errlen);
int rd_rules__parse_file(struct rd_rules *rs, const char *path, char *err, size_t errlen);

/* Turn class handles into class indexes of cfg; every handle must name a leaf. Without a
 * default statement the default is the class file's default leaf (or its first leaf).
 * Returns 0 or -EINVAL with "NAME:LINE:COL: ..." in err. */
int rd_rules__resolve(struct rd_rules *rs, const struct xtx_sched_config *cfg, char *err,
		      size_t errlen);

/* An xtx_change_check_fn (xtx/xtx.h) with ctx a resolved struct rd_rules: a new tree
 * must keep every class a rule (or the default statement) sends to, as a leaf; tc
 * likewise refuses to delete a class a filter points at. 0, or -EBUSY with the rule's
 * NAME:LINE:COL in err. */
int rules_keep_classes(void *ctx, const struct xtx_sched_config *running,
		       const struct xtx_sched_config *proposed, char *err, size_t errlen);

/* The map fds of a loaded xtx_redirect program. */
struct rd_maps {
	int src4, dst4, src6, dst6, sport, dport, proto, dscp, vlan, misc, rules;
};

/* The rd_maps of a loaded skeleton (struct xtx_redirect *, from xtx_redirect.skel.h). */
#define RD_MAPS_OF(k) ((struct rd_maps){						\
	.src4 = bpf_map__fd((k)->maps.rd_src4), .dst4 = bpf_map__fd((k)->maps.rd_dst4),	\
	.src6 = bpf_map__fd((k)->maps.rd_src6), .dst6 = bpf_map__fd((k)->maps.rd_dst6),	\
	.sport = bpf_map__fd((k)->maps.rd_sport), .dport = bpf_map__fd((k)->maps.rd_dport), \
	.proto = bpf_map__fd((k)->maps.rd_proto), .dscp = bpf_map__fd((k)->maps.rd_dscp),	\
	.vlan = bpf_map__fd((k)->maps.rd_vlan), .misc = bpf_map__fd((k)->maps.rd_misc),	\
	.rules = bpf_map__fd((k)->maps.rd_rules) })

/* Fill the maps from resolved rules (rd_rules__resolve() first). Returns 0 or -errno
 * with a message in err. cfg_nrules of the program must be rs->n (set before load). */
int rd_rules__load(const struct rd_rules *rs, const struct rd_maps *m, char *err,
		   size_t errlen);

#endif /* XTX_SHAPE_RULES_H */
