/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/xdpattach.h - what the tools that attach an XDP program (xtx-shape,
 * xtx-sink) share around it: entering a named network namespace, naming an attach mode,
 * turning a libxdp/libbpf error into text, removing a stale program, and attaching and
 * detaching their own (with the fallback from native to skb mode). */
#ifndef XTX_TOOLS_XDPATTACH_H
#define XTX_TOOLS_XDPATTACH_H

#include <stdbool.h>
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

/* Route libbpf's and libxdp's messages to stderr: warnings only, or everything with
 * verbose. Without verbose, the warnings of libxdp's dispatcher probe (it loads
 * xdp-dispatcher.o to see whether the kernel takes it, and falls back to the program
 * alone when not) are left out, and so is libxdp's "no bpffs" warning: then
 * xdpa_no_bpffs() says whether it came, for the tool to say so once, plainly. */
void xdpa_set_print(bool verbose);
bool xdpa_no_bpffs(void);

/* Load and attach in one mode: 0, or -errno with the reason in why. */
typedef int (*xdpa_attach_fn)(void *ctx, enum xdp_attach_mode mode, char *why,
			      size_t why_len);
/* Attach through try: native mode, falling back to skb (generic) mode with a message,
 * or skb mode only when skb_only. On failure, says on stderr what each mode answered
 * and what to do about it (no permission, another program holds ifname, or --verbose),
 * each line prefixed with prog, and returns the last -errno. */
int xdpa_attach(const char *prog, const char *ifname, bool skb_only, xdpa_attach_fn try,
		void *ctx);

/* A tool's program on its interface: loaded from a skeleton's object, attached in one
 * mode, detached again. */
struct xdpa_prog {
	struct xdp_program *prog;	/* NULL: none loaded */
	int ifindex;
	enum xdp_attach_mode mode;	/* valid while attached */
	bool attached;
	bool dispatcher;		/* through libxdp's dispatcher (else alone on it) */
};
/* Load obj's program "xdp" and attach it to ifindex in mode: libxdp loads it at attach
 * time, as an extension of its dispatcher where the kernel supports that (several
 * programs can then share the interface), else alone. 0, or -errno with the reason in
 * why and nothing loaded (p->prog NULL); obj stays the caller's either way. */
int xdpa_prog_attach(struct xdpa_prog *p, struct bpf_object *obj, int ifindex,
		     enum xdp_attach_mode mode, char *why, size_t why_len);
/* Detach p if attached, needing CAP_NET_ADMIN only (and CAP_SYS_ADMIN behind the
 * dispatcher): 0; -ENODEV, silently, when ifname is gone (its program went with it);
 * or -errno after "PROG: detaching from IF failed: ...; remove it with ..." (prog is
 * the tool's name). */
int xdpa_prog_detach(struct xdpa_prog *p, const char *prog, const char *ifname);
/* Close what xdpa_prog_attach() loaded (after xdpa_prog_detach()). */
void xdpa_prog_close(struct xdpa_prog *p);

#endif /* XTX_TOOLS_XDPATTACH_H */
