/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/drops.h - the names the tools print for the scheduler's drop reasons
 * (enum xtx_drop_reason, include/xtx/sched.h): "leaf_limit", "flow_limit", "no_class",
 * "no_bufs", "horizon", "purged". They are JSON keys of xtx-send's and xtx-shape's
 * summaries (dropped_pkts, tx.drops) and words of their text summaries.
 */
#ifndef XTX_TOOLS_DROPS_H
#define XTX_TOOLS_DROPS_H

#include <xtx/sched.h>

/* The name of r; "unknown" for a value outside the enum. */
const char *drops_name(enum xtx_drop_reason r);

#endif /* XTX_TOOLS_DROPS_H */
