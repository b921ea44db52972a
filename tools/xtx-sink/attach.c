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
	int err;

	s->skel = xtx_sink__open();
	if (!s->skel) {
		err = -errno;
		snprintf(why, why_len, "opening the embedded BPF object: %s", strerror(errno));
		return err;
	}
	s->skel->rodata->cfg_port_lo = (__u16)s->opt.port_lo;
	s->skel->rodata->cfg_port_hi = (__u16)s->opt.port_hi;
	s->skel->rodata->cfg_action = s->opt.pass ? XDP_PASS : XDP_DROP;
	s->skel->rodata->cfg_ngroups = s->opt.ngroups;
	s->skel->rodata->cfg_group_mod = s->opt.group_mod;
	for (unsigned g = 0; g < s->opt.ngroups; g++) {
		s->skel->rodata->cfg_group_lo[g] = (__u16)s->opt.group_lo[g];
		s->skel->rodata->cfg_group_hi[g] = (__u16)s->opt.group_hi[g];
	}
	err = xdpa_prog_attach(&s->xp, s->skel->obj, s->ifindex, mode, why, why_len);
	if (err) {
		xtx_sink__destroy(s->skel);
		s->skel = NULL;
	}
	return err;
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
	int err = xdpa_prog_detach(&s->xp, "xtx-sink", s->opt.dev);

	if (err == -ENODEV) {
		fprintf(stderr, "xtx-sink: warning: %s disappeared while counting (its XDP "
			"program went with it); the counts end there\n", s->opt.dev);
		err = 0;
	}
	return err;
}
