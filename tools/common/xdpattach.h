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
/* Remove what a killed run left: a program called name on ifindex (ifname for messages),
 * alone or behind libxdp's dispatcher, in any mode. Call it holding the tool's
 * iflock, so that no live instance's program is touched. Telling whose program it is
 * needs CAP_SYS_ADMIN (BPF_PROG_GET_FD_BY_ID); without it, if a program is attached,
 * it says so and returns -EPERM. 0 when nothing (else) is left, or -errno after a
 * message. */
int xdpa_detach_stale(const char *prog, int ifindex, const char *ifname, const char *name);
/* "native", "skb", "hw", "unspec". */
const char *xdpa_mode_name(enum xdp_attach_mode mode);
/* The text of a negative libxdp or errno error, in buf. */
const char *xdpa_err_str(int err, char *buf, size_t len);

#endif /* XTX_TOOLS_XDPATTACH_H */
