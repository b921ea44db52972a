/* SPDX-License-Identifier: BSD-3-Clause */
/* tc.h - xtx-compare's translation of an xtx class tree (docs/config.md) into the tc
 * commands that build the same tree in the kernel, and the model of the rate each leaf
 * should get: pure functions (no I/O), unit-tested by tests/unit/test_compare_tc.c. The
 * command lines (tc_plan__build) have no leading "tc": they are what `tc -batch` reads.
 *
 *   qdisc replace dev DEV root handle M: htb default D r2q R
 *       M: the major of the first class in config order; D: the tc minor (hex) of the
 *       config's default leaf, or of the first leaf.
 *   class add dev DEV parent P classid C htb rate X ceil X burst B cburst B prio N
 *         quantum Q overhead O                                  (one per class, config order)
 *       xtx's root class with minor 0 ("1:") becomes tc class M:1 under the qdisc, or the
 *       smallest minor no other class uses; so does a class of another major (another
 *       root tree). Every other class keeps its handle. Rates exact, in the largest of
 *       tbit/gbit/mbit/kbit/bit that divides them (bps when bits overflow 64 bits); sizes
 *       in bytes; every option written, defaults too, so tc's defaults do not matter.
 *   qdisc add dev DEV parent C handle H: pfifo limit L          (each FIFO leaf)
 *   qdisc add dev DEV parent C handle H: fq limit L flow_limit F quantum Q buckets S
 *         [maxrate X]                                           (each fq leaf)
 *       with the fallback "... pfifo limit L" for kernels without sch_fq (a note says so).
 *       H: the class's tc minor unless that equals M or is taken, then 0xf000 upward.
 *   filter add dev DEV parent M: protocol ip prio 1 handle 100: u32 divisor 256
 *   filter add dev DEV parent M: protocol ip prio 1 u32 ht 100:K: match ip dport P 0xffff
 *         flowid C                                              (one per flow)
 *   filter add dev DEV parent M: protocol ip prio 1 u32 ht 800:: match ip protocol 17 0xff
 *         hashkey mask 0x000000ff at 20 link 100:
 *       Flow i (UDP port base + i) goes to leaf i mod nleaves, leaves in config order, as
 *       in xtx-send. Ports hash on their low byte into 256 buckets (K = port & 0xff, hex):
 *       a few compares per packet at any flow count, where a linear list of filters would
 *       slow the kernel path and bias the comparison. Offsets assume IPv4 without options,
 *       which every sender here builds.
 */
#ifndef XTX_COMPARE_TC_H
#define XTX_COMPARE_TC_H

#include <stddef.h>
#include <stdint.h>
#include <xtx/sched.h>

#define TC_LINE_MAX	256

struct tc_cmd {
	char line[TC_LINE_MAX];
	char fallback[TC_LINE_MAX];	/* "" = none; else run it if line fails */
	const char *note;		/* NULL, or what the fallback means (for the user) */
};

struct tc_leaf {
	unsigned cfg_index;		/* index in the config (xtx_desc.cls of its packets) */
	uint32_t handle;		/* xtx handle */
	uint32_t tc_classid;		/* tc's classid (major M) */
	uint32_t qdisc_major;		/* its leaf qdisc's handle major */
	int fq;				/* 1 if the leaf asks for fq */
};

struct tc_plan {
	struct tc_cmd *cmds;
	unsigned ncmds;
	uint32_t major;			/* the HTB qdisc's handle major */
	uint32_t *tc_classid;		/* per config class index */
	unsigned nclasses;
	struct tc_leaf *leaves;		/* config order */
	unsigned nleaves;
};

/* Build the plan for a validated config on DEV, for `flows` flows from UDP port
 * `base_port`. Returns 0, or -EINVAL (NULL argument, flows 0 or base_port + flows - 1 >
 * 65535, a device name tc could not take, or more classes than free tc minors) or -ENOMEM,
 * with a message in err. Free with tc_plan__free(). */
int tc_plan__build(const struct xtx_sched_config *cfg, const char *dev, uint32_t base_port,
		   uint32_t flows, struct tc_plan *plan, char *err, size_t errlen);
void tc_plan__free(struct tc_plan *plan);

/* Leaf of flow i (index into plan->leaves): i mod nleaves. */
static inline unsigned tc_plan__flow_leaf(const struct tc_plan *p, uint32_t flow)
{
	return p->nleaves ? flow % p->nleaves : 0;
}

/* A rate in bytes/s written as tc reads it, exactly ("100mbit", "1500bit", "12bps"). */
void tc_fmt_rate(uint64_t bytes_per_s, char *buf, size_t len);
/* A handle as tc prints it: "1:10", "1:" for minor 0. */
void tc_fmt_handle(uint32_t handle, char *buf, size_t len);

/* --- expected rates ----------------------------------------------------------------
 * The rate each leaf of the tree gets in HTB's steady state when every leaf always has
 * packets (all backlogged), in bytes/s on the wire (frame + overhead):
 *   - a root class has its ceil to give; every class first gets its own rate (HTB's
 *     CAN_SEND: a class under its rate sends without asking its parent);
 *   - what a parent has left (its share minus the children's rates, if positive) is lent
 *     to the children that can still borrow (below their ceil), lowest prio first; within
 *     one prio in proportion to the quantum (HTB's DRR), water-filling: a child that
 *     reaches its ceil drops out and the rest is shared among the others;
 *   - an inner class passes what it got down the same way.
 * Exact for a root with leaves; for deeper trees HTB decides borrowing by the leaves'
 * prio across the whole tree, which this per-level model only approximates.
 * capped[i] is set for a leaf whose share is bounded by its own ceil (the share does not
 * depend on what the rest of the tree offers).
 * out and capped are indexed by config class index (inner classes get their total).
 * Returns 0 or -EINVAL / -ENOMEM. */
int tc_expected_rates(const struct xtx_sched_config *cfg, double *out, int *capped);

#endif /* XTX_COMPARE_TC_H */
