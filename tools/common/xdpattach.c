/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/xdpattach.c - see xdpattach.h. */
#include <errno.h>
#include <net/if.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "caps.h"
#include "xdpattach.h"

int xdpa_enter_netns(const char *prog, const char *netns)
{
	char path[256];
	int fd, err;

	if (strchr(netns, '/'))
		snprintf(path, sizeof(path), "%s", netns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			fprintf(stderr, "%s: --netns %s: no such network namespace (%s "
				"does not exist); see 'ip netns list', create it with "
				"'ip netns add' or 'tools/testbed up'\n", prog, netns, path);
		else
			fprintf(stderr, "%s: --netns %s: cannot open %s: %s\n", prog, netns,
				path, strerror(-err));
		return err;
	}
	if (setns(fd, CLONE_NEWNET)) {
		err = -errno;
		fprintf(stderr, "%s: --netns %s: setns(%s) failed: %s%s\n", prog, netns,
			path, strerror(-err),
			err == -EPERM ? "; run as root (needs CAP_SYS_ADMIN)" : "");
		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

const char *xdpa_mode_name(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE: return "native";
	case XDP_MODE_SKB: return "skb";
	case XDP_MODE_HW: return "hw";
	default: return "unspec";
	}
}

const char *xdpa_err_str(int err, char *buf, size_t len)
{
	if (libxdp_strerror(err, buf, len))
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}

/* One pass: finds a program named name on ifindex and detaches it.
 * Returns 1 if it detached one (call again: the other mode may hold another), 0 if none,
 * or -errno. */
static int detach_one_stale(const char *prog, int ifindex, const char *ifname,
			    const char *name)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	long err = libxdp_get_error(mp);
	struct xdp_program *p;
	enum xdp_attach_mode mode;
	char buf[256];
	int ret = 0;

	if (err == -ENOENT || (!err && !mp))
		return 0;
	if (err) {
		fprintf(stderr, "%s: warning: cannot inspect the XDP programs on %s: %s\n", prog,
			ifname, xdpa_err_str((int)err, buf, sizeof(buf)));
		return (int)err;
	}
	mode = xdp_multiprog__attach_mode(mp);
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && !strcmp(xdp_program__name(p), name)) {
			fprintf(stderr, "%s: removing a stale %s program (id %u, %s mode) "
				"left on %s by an earlier run\n", prog, name,
				xdp_program__id(p), xdpa_mode_name(mode), ifname);
			ret = xdp_multiprog__detach(mp);
			ret = ret ? ret : 1;
		}
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p; p = xdp_multiprog__next_prog(p, mp)) {
			if (strcmp(xdp_program__name(p), name))
				continue;
			fprintf(stderr, "%s: removing a stale %s program (id %u, %s mode, "
				"libxdp dispatcher) left on %s by an earlier run\n", prog, name,
				xdp_program__id(p), xdpa_mode_name(mode), ifname);
			ret = xdp_program__detach(p, ifindex, mode, 0);
			ret = ret ? ret : 1;
			break;
		}
	}
	if (ret < 0)
		fprintf(stderr, "%s: cannot detach the stale program from %s: %s; remove "
			"it with 'xdp-loader unload %s --all'\n", prog, ifname,
			xdpa_err_str(ret, buf, sizeof(buf)), ifname);
	xdp_multiprog__close(mp);
	return ret;
}

int xdpa_detach_stale(const char *prog, int ifindex, const char *ifname, const char *name)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int ret;

	/* Nothing attached (netlink, no capability needed): nothing to look at. */
	if (!bpf_xdp_query(ifindex, 0, &q) && !q.prog_id && !q.drv_prog_id &&
	    !q.skb_prog_id && !q.hw_prog_id)
		return 0;
	/* Something is: opening it by id to read its name is BPF_PROG_GET_FD_BY_ID, which
	 * the kernel allows only with CAP_SYS_ADMIN. */
	if (caps_have(CAP_SYS_ADMIN) == 0) {
		fprintf(stderr, "%s: %s already has an XDP program (id %u); telling whether "
			"it is a stale %s left by a killed run needs CAP_SYS_ADMIN (the kernel's "
			"BPF_PROG_GET_FD_BY_ID): run once with it, or remove the program "
			"('ip link set dev %s xdp off') if you know it is ours\n", prog, ifname,
			q.prog_id ? q.prog_id : q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id,
			name, ifname);
		return -EPERM;
	}

	/* At most one per mode (native, skb) and a spare round. */
	for (int i = 0; i < 3; i++) {
		ret = detach_one_stale(prog, ifindex, ifname, name);
		if (ret <= 0)
			return ret == -ENOENT ? 0 : ret;
	}
	return 0;
}

/* --- library messages ---------------------------------------------------------------- */

static bool verbose, no_bpffs;

static int lib_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static bool last_was_probe;
	char buf[1024];
	bool probe;

	if (level != LIBBPF_WARN && !verbose)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	probe = strstr(buf, "xdp-dispatcher") || strstr(buf, "'xdp_pass'") ||
		strstr(buf, "'xdp_dispatcher'") ||
		(last_was_probe && strstr(buf, "permission error while running as root"));
	last_was_probe = probe;
	if (probe && !verbose)
		return 0;
	return fputs(buf, stderr);
}

static int xdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	if (!verbose && strstr(fmt, "bpffs")) {
		no_bpffs = true;
		return 0;
	}
	if (level != LIBXDP_WARN && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void xdpa_set_print(bool v)
{
	verbose = v;
	libbpf_set_print(lib_print);
	libxdp_set_print(xdp_print);
}

bool xdpa_no_bpffs(void)
{
	return no_bpffs;
}

/* --- attach with fallback ------------------------------------------------------------- */

int xdpa_attach(const char *prog, const char *ifname, bool skb_only, xdpa_attach_fn try,
		void *ctx)
{
	char why_native[256] = "", why_skb[256] = "";
	int err;

	if (!skb_only) {
		err = try(ctx, XDP_MODE_NATIVE, why_native, sizeof(why_native));
		if (!err)
			return 0;
		if (err == -EPERM || err == -EACCES) {	/* skb mode needs the same rights */
			fprintf(stderr, "%s: cannot load/attach XDP on %s (tried native mode): "
				"%s\n", prog, ifname, why_native);
			goto out_explain;
		}
		fprintf(stderr, "%s: native XDP attach on %s failed: %s; falling back to skb "
			"(generic) mode\n", prog, ifname, why_native);
	}
	err = try(ctx, XDP_MODE_SKB, why_skb, sizeof(why_skb));
	if (!err)
		return 0;
	if (skb_only)
		fprintf(stderr, "%s: cannot attach XDP to %s in skb (generic) mode: %s\n", prog,
			ifname, why_skb);
	else
		fprintf(stderr, "%s: cannot attach XDP to %s, neither in native mode (%s) nor "
			"in skb mode (%s)\n", prog, ifname, why_native, why_skb);
out_explain:
	if (err == -EPERM || err == -EACCES)
		fprintf(stderr, "%s: no permission: run as root (needs CAP_BPF, CAP_NET_ADMIN "
			"and CAP_PERFMON)\n", prog);
	else if (err == -EEXIST || err == -EBUSY)
		fprintf(stderr, "%s: another XDP program holds %s; see 'ip link show dev %s' "
			"and 'xdp-loader status %s'\n", prog, ifname, ifname, ifname);
	else
		fprintf(stderr, "%s: rerun with --verbose for libbpf/libxdp details (the "
			"verifier log, if it refused the program)\n", prog);
	return err;
}

/* --- the tool's own program ---------------------------------------------------------- */

int xdpa_prog_attach(struct xdpa_prog *p, struct bpf_object *obj, int ifindex,
		     enum xdp_attach_mode mode, char *why, size_t why_len)
{
	long err;

	p->prog = xdp_program__from_bpf_obj(obj, "xdp");
	err = libxdp_get_error(p->prog);
	if (err) {
		p->prog = NULL;
		libxdp_strerror((int)err, why, why_len);
		return (int)err;
	}
	err = xdp_program__attach(p->prog, ifindex, mode, 0);
	if (err) {
		xdpa_err_str((int)err, why, why_len);
		xdp_program__close(p->prog);
		p->prog = NULL;
		return (int)err;
	}
	p->ifindex = ifindex;
	p->mode = mode;
	p->attached = true;
	/* Alone or behind libxdp's dispatcher: alone, the interface runs our program itself.
	 * Asked over netlink (no capability needed; libxdp's own query would need
	 * CAP_SYS_ADMIN to open the program by id). */
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	if (!bpf_xdp_query(ifindex, 0, &q)) {
		uint32_t id = mode == XDP_MODE_NATIVE ? q.drv_prog_id : q.skb_prog_id;

		p->dispatcher = id && id != xdp_program__id(p->prog);
	}
	return 0;
}

int xdpa_prog_detach(struct xdpa_prog *p, const char *prog, const char *ifname)
{
	char buf[256];
	int err;

	if (!p->attached)
		return 0;
	p->attached = false;
	if (p->dispatcher) {
		err = xdp_program__detach(p->prog, p->ifindex, p->mode, 0);
	} else {
		/* Alone on the interface: netlink, replacing exactly our program (the kernel
		 * refuses if another one took its place). Needs CAP_NET_ADMIN only; libxdp's
		 * detach looks the program up by id, which needs CAP_SYS_ADMIN. */
		LIBBPF_OPTS(bpf_xdp_attach_opts, xo, .old_prog_fd = xdp_program__fd(p->prog));
		err = bpf_xdp_detach(p->ifindex, p->mode == XDP_MODE_NATIVE ?
				     XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE, &xo);
	}
	if (!err)
		return 0;
	if ((int)if_nametoindex(ifname) != p->ifindex)
		return -ENODEV;
	fprintf(stderr, "%s: detaching from %s failed: %s; remove it with 'xdp-loader unload %s "
		"--all' (a later %s run on %s also removes it)\n", prog, ifname,
		xdpa_err_str(err, buf, sizeof(buf)), ifname, prog, ifname);
	return err;
}

void xdpa_prog_close(struct xdpa_prog *p)
{
	if (p->prog)
		xdp_program__close(p->prog);
	p->prog = NULL;
}
