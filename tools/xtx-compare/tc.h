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
	uint32_t major;			/* the HTB qdisc's handle major (root htb plan) */
	unsigned queues;		/* 0: one htb at the root; Q: mq + one htb per queue */
	uint32_t queue_stride;		/* mq plan: queue q's htb major is stride * (q + 1) */
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

/* --- mq + one HTB per TX queue ------------------------------------------------------
 * The same tree and filters once per TX queue under a root mq, as a multi-queue device
 * is shaped without a root qdisc lock. mq numbers its classes 1:1 .. 1:Q, one per TX
 * queue (queue q-1 is class 1:q); each gets its own htb, which sees only the packets
 * the kernel put on that queue (netdev_pick_tx: XPS, else skb_tx_hash), so every class
 * exists Q times and its rate and ceil hold per queue, not per device:
 *
 *   qdisc replace dev DEV root handle 1: mq
 *   then for q = 1..Q, with H = S * q (hex; S = the stride, below):
 *   qdisc replace dev DEV parent 1:q handle H: htb default D r2q R
 *   class add dev DEV parent P classid H:m htb ...     (the root htb plan's class lines,
 *                                                       minor m kept, major H)
 *   qdisc add dev DEV parent H:m handle H+k+1: pfifo limit L | fq ...   (leaf k, config
 *                                                       order; the same fq fallback)
 *   filter add dev DEV parent H: ...                    (the same u32 table and filters)
 *
 * The per-queue htb replaces mq's default child of that class ("replace": mq made one).
 * Qdisc handles are unique per device, so H and the leaf qdiscs H+1 .. H+L must be
 * distinct across queues: S is nleaves + 1 rounded up to a multiple of 0x100 (0x100
 * for up to 255 leaves), so queue q's qdiscs read q00:, q01:, ... and S * Q + L must
 * stay below 0xffff. mq's own handle 1: is below every H.
 *
 * Builds on the root htb plan of the same arguments (classids, leaves, the expected
 * rates are the same: per queue). queues: 2..TC_MQ_MAX_QUEUES. Returns 0, or -EINVAL
 * (tc_plan__build's reasons, queues out of range, or too many leaves for Q queues) or
 * -ENOMEM, with a message in err. Free with tc_plan__free(). */
#define TC_MQ_MAX_QUEUES	64
int tc_plan__build_mq(const struct xtx_sched_config *cfg, const char *dev, uint32_t base_port,
		      uint32_t flows, unsigned queues, struct tc_plan *plan, char *err,
		      size_t errlen);

/* Queue q's (0-based) htb major in an mq plan. */
static inline uint32_t tc_plan__queue_major(const struct tc_plan *p, unsigned q)
{
	return p->queue_stride * (q + 1);
}

/* Where a tc classid of an mq plan belongs: 0 with *queue (0-based) and *leaf (index
 * into plan->leaves) for a leaf class of one of the queues' htbs, -ENOENT for anything
 * else (an inner class, mq's own classes, a root htb plan). */
int tc_plan__mq_locate(const struct tc_plan *p, uint32_t classid, unsigned *queue,
		       unsigned *leaf);

/* Each queue's leaf packets from the text of `tc -s class show dev DEV` on an mq plan:
 * a "class htb H:M ..." line, then " Sent B bytes P pkt ...". out has plan->queues *
 * plan->nleaves entries, [queue * nleaves + leaf]; the classes found are set to P, the
 * others are left as they were. Returns how many were set. */
unsigned tc_plan__mq_sent(const struct tc_plan *p, const char *show, double *out);

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
