/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/drops.c - see drops.h. */
#include "drops.h"

static const char *const names[XTX_DROP__MAX] = {
	[XTX_DROP_LEAF_LIMIT] = "leaf_limit", [XTX_DROP_FLOW_LIMIT] = "flow_limit",
	[XTX_DROP_NO_CLASS] = "no_class", [XTX_DROP_NO_BUFS] = "no_bufs",
	[XTX_DROP_HORIZON] = "horizon", [XTX_DROP_PURGED] = "purged",
};
_Static_assert(XTX_DROP__MAX == 6, "a name for every enum xtx_drop_reason");

const char *drops_name(enum xtx_drop_reason r)
{
	return (unsigned)r < XTX_DROP__MAX && names[r] ? names[r] : "unknown";
}
