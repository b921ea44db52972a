/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/xdpattach.h - what the tools that attach an XDP program (xtx-shape,
 * xtx-sink) share around it: entering a named network namespace, naming an attach mode,
 * and turning a libxdp/libbpf error into text. */
#ifndef XTX_TOOLS_XDPATTACH_H
#define XTX_TOOLS_XDPATTACH_H

#include <stddef.h>
#include <xdp/libxdp.h>

/* Enter network namespace netns: a name under /run/netns or a path. Returns 0, or
 * -errno after saying why on stderr, prefixed with prog. */
int xdpa_enter_netns(const char *prog, const char *netns);
/* "native", "skb", "hw", "unspec". */
const char *xdpa_mode_name(enum xdp_attach_mode mode);
/* The text of a negative libxdp or errno error, in buf. */
const char *xdpa_err_str(int err, char *buf, size_t len);

#endif /* XTX_TOOLS_XDPATTACH_H */
