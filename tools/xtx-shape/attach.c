/* SPDX-License-Identifier: BSD-3-Clause */
/* attach.c - xtx-shape's setup and teardown around the engine: the per-interface lock
 * (tools/common/iflock.c), removing a stale xtx_redirect program, attaching the program
 * (libxdp; native, else skb mode), filling its rule maps and its XSKMAP, detaching,
 * capabilities. Entering --netns: tools/common/xdpattach.c.
 *
 * The lock: /run/xtx-shape/net<netns inode>-if<ingress ifindex>.lock, held with flock()
 * for the whole run. The kernel drops it when the process dies however it dies, so while
 * we hold it no other live xtx-shape uses the ingress interface, and an xtx_redirect
 * program found on it was left by a killed run: we detach it. A live one is never touched.
 *
 * Order at start: the program is attached with its XSKMAP empty, so every frame still
 * goes to the kernel untouched (no socket on its queue); then the rule maps are filled;
 * then the engine's RX sockets go into the XSKMAP, and only from then on are frames
 * redirected. At exit the program is detached first (frames go back to the kernel), then
 * the engine stops.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/capability.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <stdint.h>
#include <xtx/roomword.h>
#include "caps.h"
#include "iflock.h"
#include "xdpattach.h"
#include "shape.h"

#define LOCK_DIR	"/run/xtx-shape"

int shape_lock(struct shape *s)
{
	return iflock_take(&s->lock, "xtx-shape", LOCK_DIR, s->in_ifindex, s->opt.in,
			   "is using");
}

void shape_unlock(struct shape *s)
{
	iflock_release(&s->lock);
}

int shape_detach_stale(struct shape *s)
{
	return xdpa_detach_stale("xtx-shape", s->in_ifindex, s->opt.in, SHAPE_PROG_NAME);
}

/* Loads and attaches in one mode; on failure leaves nothing loaded and s->skel NULL. */
static int attach_mode(struct shape *s, const struct rd_rules *rs, enum xdp_attach_mode mode,
		       char *why, size_t why_len)
{
	int err;

	s->skel = xtx_redirect__open();
	if (!s->skel) {
		err = -errno;
		snprintf(why, why_len, "opening the embedded BPF object: %s", strerror(errno));
		return err;
	}
	s->skel->rodata->cfg_mode = s->opt.l2 ? XTX_RD_MODE_L2 : XTX_RD_MODE_ROUTER;
	s->skel->rodata->cfg_out_ifindex = (uint32_t)s->out_ifindex;
	memcpy((void *)s->skel->rodata->cfg_in_mac, s->in_mac, 6);
	s->skel->rodata->cfg_nrules = rs->n;
	s->skel->rodata->cfg_police = s->opt.police_ns != 0;
	s->skel->rodata->cfg_tx_queues = s->opt.tx_queues;
	s->skel->rodata->cfg_ncls = s->ncls;
	s->skel->rodata->cfg_overhead = s->overhead;
	/* room events come each half target of departures: four targets without one is
	 * most likely a lost one (a slow class's may be further apart: its count then
	 * restarts early, and the full flag still caps its queue) */
	s->skel->rodata->cfg_stale_ns = 4 * (s->opt.police_ns ? s->opt.police_ns : 1);
	err = bpf_map__set_max_entries(s->skel->maps.rd_police, s->opt.tx_queues * s->ncls);
	if (!err)
		err = bpf_map__set_max_entries(s->skel->maps.rd_admit, s->opt.tx_queues * s->ncls);
	if (!err)
		err = bpf_map__set_max_entries(s->skel->maps.rd_policed, s->ncls);
	if (err) {
		snprintf(why, why_len, "sizing the policing maps: %s", strerror(-err));
		xtx_redirect__destroy(s->skel);
		s->skel = NULL;
		return err;
	}
	/* The XSKMAP is empty until shape_fill_xskmap(): frames go to the kernel. */
	err = xdpa_prog_attach(&s->xp, s->skel->obj, s->in_ifindex, mode, why, why_len);
	if (err) {
		xtx_redirect__destroy(s->skel);
		s->skel = NULL;
	}
	return err;
}

struct attach_ctx {
	struct shape *s;
	const struct rd_rules *rs;
};

static int try_mode(void *ctx, enum xdp_attach_mode mode, char *why, size_t why_len)
{
	struct attach_ctx *c = ctx;

	return attach_mode(c->s, c->rs, mode, why, why_len);
}

static int police_map(struct shape *s);

int shape_attach(struct shape *s, const struct rd_rules *rs)
{
	struct attach_ctx c = { .s = s, .rs = rs };
	char err[512];
	struct rd_maps m;
	int rc;

	rc = xdpa_attach("xtx-shape", s->opt.in, s->opt.skb_mode, try_mode, &c);
	if (rc)
		return rc;

	m = RD_MAPS_OF(s->skel);
	rc = rd_rules__load(rs, &m, err, sizeof(err));
	if (rc)
		fprintf(stderr, "xtx-shape: %s\n", err);
	if (!rc && s->opt.police_ns)
		rc = police_map(s);
	if (rc)
		shape_detach(s);
	return rc;
}

int shape_fill_xskmap(struct shape *s, struct xtx_engine *e)
{
	int map = bpf_map__fd(s->skel->maps.xsks);

	for (unsigned i = 0; i < xtx_engine__rx_queues(e); i++) {
		uint32_t qid;
		int fd = xtx_engine__rx_socket(e, i, &qid), rc;

		if (fd < 0)
			return fd;
		if (qid >= XTX_RD_MAX_QUEUES) {
			fprintf(stderr, "xtx-shape: queue %u of %s is beyond the %d the program "
				"handles; use lower queues\n", qid, s->opt.in, XTX_RD_MAX_QUEUES);
			return -ERANGE;
		}
		rc = bpf_map_update_elem(map, &qid, &fd, BPF_ANY);
		if (rc) {
			fprintf(stderr, "xtx-shape: cannot put the receive socket of queue %u "
				"into the XSKMAP: %s\n", qid, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Map rd_police and open it wide (no limit) until the dequeuers write their rows: before
 * the XSKMAP is filled no frame reaches the policing. */
static int police_map(struct shape *s)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (size_t)s->opt.tx_queues * s->ncls;
	void *m;

	s->police_len = (n * 8 + pg - 1) / pg * pg;
	m = mmap(NULL, s->police_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(s->skel->maps.rd_police), 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "xtx-shape: cannot map the policing array: %s (needs a kernel "
			"with mmapable BPF arrays, 5.5 or later, and BPF atomics, 5.12; or --police "
			"off)\n",
			strerror(errno));
		return -errno;
	}
	s->police = m;
	for (size_t i = 0; i < n; i++)
		s->police[i] = XTX_ROOM_NOLIMIT;
	return 0;
}

int shape_police(struct shape *s, struct xtx_engine *e)
{
	int rc = xtx_engine__room_mirror(e, s->police, s->opt.tx_queues * s->ncls);

	if (rc)
		fprintf(stderr, "xtx-shape: cannot mirror the classes' room into XDP: %s\n",
			strerror(-rc));
	return rc;
}

/* After xtx_engine__close(): the dequeuers wrote the mapping until then (it keeps the
 * array alive after the program is gone). */
void shape_unpolice(struct shape *s)
{
	if (s->police)
		munmap(s->police, s->police_len);
	s->police = NULL;
}

int shape_read_policed(struct shape *s)
{
	struct xtx_xdp_counter *v = calloc((size_t)s->ncpu, sizeof(*v));
	int fd, rc = 0;

	if (!v || !s->skel || !s->policed) {
		free(v);
		return -EINVAL;
	}
	fd = bpf_map__fd(s->skel->maps.rd_policed);
	for (uint32_t c = 0; c < s->ncls && !rc; c++) {
		memset(&s->policed[c], 0, sizeof(s->policed[c]));
		rc = bpf_map_lookup_elem(fd, &c, v);
		if (!rc)
			xtx_xdp_counter_add(&s->policed[c], v, s->ncpu);
	}
	free(v);
	return rc;
}

int shape_detach(struct shape *s)
{
	int err = xdpa_prog_detach(&s->xp, "xtx-shape", s->opt.in);

	if (err == -ENODEV) {
		fprintf(stderr, "xtx-shape: warning: %s disappeared (its XDP program went with "
			"it)\n", s->opt.in);
		err = 0;
	}
	xdpa_prog_close(&s->xp);
	if (s->skel)
		xtx_redirect__destroy(s->skel);
	s->skel = NULL;
	return err;
}

/* Least privilege: once the program is attached, its maps filled and the engine's sockets
 * bound, keep only what the rest of the run needs: CAP_NET_ADMIN to detach at exit, CAP_BPF
 * to read the program's counters (kernels before 6.5 refuse any bpf() command without it
 * when unprivileged BPF is disabled), and CAP_SYS_ADMIN only on the libxdp dispatcher path
 * (its detach looks programs up by id), for our program on --in or the engine's pass
 * program on --out (xtx_engine__zc_prog()). Everything else goes: raw sockets, memory
 * locking, namespaces, ... Returns 0 or -errno. */
int shape_drop_caps(const struct shape *s, const struct xtx_engine *e)
{
	uint64_t keep = CAPS_BIT(CAP_NET_ADMIN) | CAPS_BIT(CAP_BPF);
	int zc_disp = 0;

	xtx_engine__zc_prog(e, NULL, &zc_disp);
	if (s->xp.dispatcher || zc_disp)
		keep |= CAPS_BIT(CAP_SYS_ADMIN);
	return caps_keep(keep);
}

/* Names the capability that is missing before anything is tried, rather than leaving it
 * to a verifier log or an EPERM from deep inside libbpf. CAP_SYS_ADMIN stands in for
 * CAP_BPF and CAP_PERFMON, as in the kernel. CAP_IPC_LOCK is the engine's to check (it is
 * not needed when RLIMIT_MEMLOCK covers the UMEM). */
int shape_check_caps(const struct shape *s)
{
	static const struct { int cap; const char *name, *why; } need[] = {
		{ CAP_NET_ADMIN, "CAP_NET_ADMIN", "attaching the XDP program" },
		{ CAP_BPF, "CAP_BPF", "loading the XDP program" },
		{ CAP_PERFMON, "CAP_PERFMON", "loading the XDP program (the verifier asks for "
		  "it for the program's pointer arithmetic)" },
		{ CAP_NET_RAW, "CAP_NET_RAW", "opening AF_XDP sockets" },
	};
	int bad = 0, sys_admin = caps_have(CAP_SYS_ADMIN);

	if (sys_admin < 0)
		return 0;	/* cannot tell: let the kernel say */
	if (s->opt.netns && !sys_admin) {
		fprintf(stderr, "xtx-shape: missing capability CAP_SYS_ADMIN, needed for --netns "
			"(setns); or run it inside the namespace (ip netns exec NS xtx-shape ...)\n");
		bad = 1;
	}
	for (unsigned i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int c = need[i].cap;

		if (caps_have(c) > 0 || ((c == CAP_BPF || c == CAP_PERFMON) && sys_admin))
			continue;
		fprintf(stderr, "xtx-shape: missing capability %s, needed for %s\n", need[i].name,
			need[i].why);
		bad = 1;
	}
	return bad ? -EPERM : 0;
}
