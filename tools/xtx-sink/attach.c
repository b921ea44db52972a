/* SPDX-License-Identifier: BSD-3-Clause */
/* attach.c - xtx-sink's setup and teardown: the per-interface lock
 * (tools/common/iflock.c), removing a stale xtx_sink program, attaching and detaching.
 * Entering --netns: tools/common/xdpattach.c.
 *
 * The lock: /run/xtx-sink/net<netns inode>-if<ifindex>.lock, held with flock() for the
 * whole run. The kernel drops it when the process dies however it dies, so while we hold
 * it no other live xtx-sink is attached to the interface, and any xtx_sink program found
 * on it was left by a killed run: we detach it. A live one is never touched.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "iflock.h"
#include "xdpattach.h"
#include "sink.h"

#define LOCK_DIR	"/run/xtx-sink"

int sink_lock(struct sink *s)
{
	return iflock_take(&s->lock, "xtx-sink", LOCK_DIR, s->ifindex, s->opt.dev,
			   "is attached to");
}

void sink_unlock(struct sink *s)
{
	iflock_release(&s->lock);
}

int sink_detach_stale(struct sink *s)
{
	return xdpa_detach_stale("xtx-sink", s->ifindex, s->opt.dev, SINK_PROG_NAME);
}

/* Loads and attaches in one mode; on failure leaves nothing loaded and s->skel NULL. */
static int attach_mode(struct sink *s, enum xdp_attach_mode mode, char *why, size_t why_len)
{
	long err;

	s->skel = xtx_sink__open();
	if (!s->skel) {
		err = -errno;
		snprintf(why, why_len, "opening the embedded BPF object: %s", strerror(errno));
		return (int)err;
	}
	s->skel->rodata->cfg_port_lo = (__u16)s->opt.port_lo;
	s->skel->rodata->cfg_port_hi = (__u16)s->opt.port_hi;
	s->skel->rodata->cfg_action = s->opt.pass ? XDP_PASS : XDP_DROP;

	/* libxdp loads the object at attach time: as an extension of its dispatcher where
	 * the kernel supports that (several programs can share the interface), else alone. */
	s->prog = xdp_program__from_bpf_obj(s->skel->obj, "xdp");
	err = libxdp_get_error(s->prog);
	if (err) {
		s->prog = NULL;
		libxdp_strerror((int)err, why, why_len);
		goto out_destroy_skel;
	}
	err = xdp_program__attach(s->prog, s->ifindex, mode, 0);
	if (err) {
		xdpa_err_str((int)err, why, why_len);
		goto out_close_prog;
	}
	s->mode = mode;
	s->attached = true;
	/* Report how libxdp attached it: through its dispatcher or alone. */
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(s->ifindex);
	if (!libxdp_get_error(mp) && mp) {
		s->dispatcher = !xdp_multiprog__is_legacy(mp);
		xdp_multiprog__close(mp);
	}
	return 0;

out_close_prog:
	xdp_program__close(s->prog);
	s->prog = NULL;
out_destroy_skel:
	xtx_sink__destroy(s->skel);
	s->skel = NULL;
	return (int)err;
}

static int try_mode(void *ctx, enum xdp_attach_mode mode, char *why, size_t why_len)
{
	return attach_mode(ctx, mode, why, why_len);
}

int sink_attach(struct sink *s)
{
	return xdpa_attach("xtx-sink", s->opt.dev, s->opt.skb_mode, try_mode, s);
}

int sink_detach(struct sink *s)
{
	char buf[256];
	int err = 0;

	if (s->attached) {
		err = xdp_program__detach(s->prog, s->ifindex, s->mode, 0);
		if (err && (int)if_nametoindex(s->opt.dev) != s->ifindex) {
			fprintf(stderr, "xtx-sink: warning: %s disappeared while counting (its XDP "
				"program went with it); the counts end there\n", s->opt.dev);
			err = 0;
		} else if (err)
			fprintf(stderr, "xtx-sink: detaching from %s failed: %s; remove it with "
				"'xdp-loader unload %s --all' (a later xtx-sink run on %s also "
				"removes it)\n", s->opt.dev, xdpa_err_str(err, buf, sizeof(buf)),
				s->opt.dev, s->opt.dev);
		s->attached = false;
	}
	return err;
}
