// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xtx_pass.bpf.c - passes every frame to the kernel's stack, untouched.
 *
 * The engine (userspace/engine/zcprog.c) attaches it in native mode to a TX interface
 * whose driver binds AF_XDP zero-copy only while an XDP program is attached (its XDP TX
 * rings exist only then): i40e, ixgbe, virtio_net (xtx_driver__zc_needs_prog()). Through
 * libxdp's dispatcher where the kernel allows it, so other programs can share the
 * interface: libxdp's default run config (priority 50, chain on XDP_PASS) hands every
 * frame on to the next program.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xtx_pass(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
