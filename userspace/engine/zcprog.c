/* SPDX-License-Identifier: BSD-3-Clause */
/* zcprog.c - the XDP pass program (xdp/xtx_pass.bpf.c) on the TX interface for drivers
 * that bind AF_XDP zero-copy only while an XDP program is attached (opts.zc_prog).
 * Attached in native mode before the first socket binds, through libxdp (behind its
 * dispatcher where the kernel allows, so it shares the interface with other programs);
 * removed after the last socket closed, or at once when auto mode ended in copy mode.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "engine_int.h"
#include "xtx_pass.skel.h"

int xtx_driver__zc_needs_prog(const char *driver)
{
	static const char *const need[] = { "i40e", "ixgbe", "virtio_net" };

	for (unsigned i = 0; driver && i < sizeof(need) / sizeof(need[0]); i++)
		if (!strcmp(driver, need[i]))
			return 1;
	return 0;
}

/* ifname's driver (ethtool -i, in this network namespace) into buf; 0 or -errno. */
static int driver_name(const char *ifname, char *buf, size_t len)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { .ifr_data = (void *)&di };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		rc = -errno;
	else
		snprintf(buf, len, "%s", di.driver);
	close(fd);
	return rc;
}

/* The native-mode program on the interface now: its id, 0 none. */
static uint32_t native_prog_id(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	return bpf_xdp_query(ifindex, 0, &q) ? 0 : q.drv_prog_id;
}

/* Close what attach loaded. */
static void zcprog_free(struct xtx_engine *e)
{
	if (e->zc.prog)
		xdp_program__close(e->zc.prog);
	e->zc.prog = NULL;
	xtx_pass__destroy(e->zc.skel);
	e->zc.skel = NULL;
}

/* Load and attach; 0 or -errno with the reason in why. */
static int zcprog_load(struct xtx_engine *e, char *why, size_t why_len)
{
	long rc;

	e->zc.skel = xtx_pass__open();
	if (!e->zc.skel) {
		rc = -errno;
		snprintf(why, why_len, "cannot open its BPF object: %s", strerror(errno));
		return (int)rc;
	}
	e->zc.prog = xdp_program__from_bpf_obj(e->zc.skel->obj, "xdp");
	rc = libxdp_get_error(e->zc.prog);
	if (!rc)
		rc = xdp_program__attach(e->zc.prog, e->ifindex, XDP_MODE_NATIVE, 0);
	if (rc) {
		if (rc == -EPERM)
			snprintf(why, why_len, "not permitted (needs CAP_NET_ADMIN and CAP_BPF or "
				 "CAP_SYS_ADMIN)");
		else
			libxdp_strerror((int)rc, why, why_len);
		if (libxdp_get_error(e->zc.prog))
			e->zc.prog = NULL;
		zcprog_free(e);
		return (int)rc;
	}
	e->zc.id = xdp_program__id(e->zc.prog);
	e->zc.dispatcher = native_prog_id(e->ifindex) != e->zc.id;
	e->zc.attached = 1;
	return 0;
}

int xtx_zcprog_attach(struct xtx_engine *e, char *err, size_t errlen)
{
	char drv[ETHTOOL_BUSINFO_LEN] = "", why[256];
	uint32_t other;
	int rc;

	if (e->null || e->o.mode == XTX_MODE_COPY || e->o.zc_prog == XTX_ZC_PROG_OFF)
		return 0;
	driver_name(e->ifname, drv, sizeof(drv));
	if (e->o.zc_prog == XTX_ZC_PROG_AUTO && !xtx_driver__zc_needs_prog(drv))
		return 0;
	rc = zcprog_load(e, why, sizeof(why));
	if (!rc) {
		if (e->o.zc_prog == XTX_ZC_PROG_AUTO)
			xtx_info(&e->log, "%s: the driver %s binds AF_XDP zero-copy only with an "
				 "XDP program: attached xtx_pass (id %u, native mode%s), removed "
				 "at close", e->ifname, drv, e->zc.id, e->zc.dispatcher ?
				 ", behind libxdp's dispatcher" : "");
		else
			xtx_info(&e->log, "%s: attached the XDP pass program xtx_pass for "
				 "zero-copy (id %u, native mode%s), removed at close", e->ifname,
				 e->zc.id, e->zc.dispatcher ? ", behind libxdp's dispatcher" : "");
		return 0;
	}
	other = native_prog_id(e->ifindex);
	if (other) {
		xtx_info(&e->log, "%s: an XDP program (id %u) is attached that libxdp cannot "
			 "join (%s): zero-copy binds with it while it stays", e->ifname, other, why);
		return 0;
	}
	if (e->o.zc_prog == XTX_ZC_PROG_ON) {
		xtx_errf(err, errlen, "%s: cannot attach the XDP pass program for zero-copy: %s",
			 e->ifname, why);
		return rc;
	}
	xtx_warn(&e->log, "%s: the driver %s binds zero-copy only with an XDP program, and "
		 "attaching xtx_pass failed (%s): zero-copy may be refused", e->ifname, drv, why);
	return 0;
}

void xtx_zcprog_detach(struct xtx_engine *e)
{
	int rc = 0;

	if (e->zc.attached) {
		if (e->zc.dispatcher) {
			rc = xdp_program__detach(e->zc.prog, e->ifindex, XDP_MODE_NATIVE, 0);
		} else {
			/* Alone: replace exactly ours (the kernel refuses if another took its
			 * place); CAP_NET_ADMIN only. */
			LIBBPF_OPTS(bpf_xdp_attach_opts, xo,
				    .old_prog_fd = xdp_program__fd(e->zc.prog));
			rc = bpf_xdp_detach(e->ifindex, XDP_FLAGS_DRV_MODE, &xo);
		}
		e->zc.attached = 0;
		if (rc && (int)if_nametoindex(e->ifname) == e->ifindex)
			xtx_warn(&e->log, "%s: removing the XDP pass program xtx_pass (id %u) "
				 "failed: %s; remove it with: xdp-loader unload %s --id %u",
				 e->ifname, e->zc.id, strerror(rc < 0 ? -rc : rc), e->ifname,
				 e->zc.id);
	}
	zcprog_free(e);
}

void xtx_zcprog_settle(struct xtx_engine *e)
{
	if (e->zc.attached && !e->zerocopy && e->o.zc_prog == XTX_ZC_PROG_AUTO) {
		xtx_info(&e->log, "%s: copy mode: the XDP pass program is not needed, removed",
			 e->ifname);
		xtx_zcprog_detach(e);
	}
}

int xtx_engine__zc_prog(const struct xtx_engine *e, uint32_t *id, int *dispatcher)
{
	if (id)
		*id = e->zc.attached ? e->zc.id : 0;
	if (dispatcher)
		*dispatcher = e->zc.attached && e->zc.dispatcher;
	return e->zc.attached;
}
