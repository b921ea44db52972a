/* SPDX-License-Identifier: BSD-3-Clause */
/* xsk.c - UMEM memory (huge pages, NUMA node of the NIC) and one AF_XDP socket per TX
 * queue on a shared UMEM, through libxdp's xsk API. TX only: no XDP program is loaded
 * (XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD) and no RX ring is created.
 *
 * Mode: XDP_ZEROCOPY is tried first unless copy is forced; if the driver refuses it, copy
 * mode (XDP_COPY) is used and reported. XDP_USE_NEED_WAKEUP is always requested, so the
 * dequeuer calls sendto() only when the kernel sets the flag on the TX ring.
 */
#include <dirent.h>
#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine_int.h"

#define HUGE_2M (2u << 20)

static int nic_numa_node(const char *ifname)
{
	char path[128];
	FILE *f;
	int node = -1;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/numa_node", ifname);
	f = fopen(path, "r");
	if (!f)
		return -1;	/* a virtual device (veth) has no node */
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	return node;
}

static unsigned nic_tx_queues(const char *ifname)
{
	char path[128];
	struct dirent *d;
	unsigned n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		n += strncmp(d->d_name, "tx-", 3) == 0;
	closedir(dir);
	return n;
}

int xtx_umem_setup(struct xtx_engine *e, char *err, size_t errlen)
{
	size_t len = (size_t)e->nframes * e->frame_size;
	int node = nic_numa_node(e->ifname);
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	unsigned nqueues = nic_tx_queues(e->ifname);
	void *p = MAP_FAILED;

	if (nqueues && e->o.first_queue + e->nq > nqueues) {
		xtx_errf(err, errlen, "%s has %u TX queue%s; queues %u..%u do not all exist "
			 "(see ethtool -l %s; use --queues)", e->ifname, nqueues,
			 nqueues == 1 ? "" : "s", e->o.first_queue, e->o.first_queue + e->nq - 1,
			 e->ifname);
		return -EINVAL;
	}
	/* UMEM pages are pinned; older kernels charge them to RLIMIT_MEMLOCK. */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);

	if (e->o.huge != XTX_HUGE_NEVER) {
		size_t hlen = (len + HUGE_2M - 1) / HUGE_2M * HUGE_2M;

		p = mmap(NULL, hlen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p != MAP_FAILED) {
			len = hlen;
			e->area_huge = 1;
		} else if (e->o.huge == XTX_HUGE_ALWAYS) {
			xtx_errf(err, errlen, "no huge pages for a %zu MiB UMEM (%s); reserve "
				 "some with: sysctl vm.nr_hugepages=%zu", hlen >> 20,
				 strerror(errno), hlen / HUGE_2M);
			return -ENOMEM;
		} else {
			xtx_info(e, "huge pages unavailable (%s): UMEM of %zu MiB on 4 KiB pages "
				 "(sysctl vm.nr_hugepages=%zu to use them)", strerror(errno),
				 len >> 20, hlen / HUGE_2M);
		}
	}
	if (p == MAP_FAILED) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			int rc = -errno;

			xtx_errf(err, errlen, "cannot allocate a UMEM of %zu MiB (%u frames of %u "
				 "bytes): %s; use fewer or smaller frames", len >> 20, e->nframes,
				 e->frame_size, strerror(errno));
			return rc;
		}
	}
	if (node >= 0 && numa_available() >= 0) {
		numa_tonode_memory(p, len, node);
		xtx_info(e, "UMEM placed on NUMA node %d (the node of %s)", node, e->ifname);
	} else if (node < 0) {
		xtx_info(e, "%s reports no NUMA node (virtual device?): UMEM left local",
			 e->ifname);
	}
	e->area = p;
	e->area_len = len;

	struct xsk_umem_config ucfg = {
		.fill_size = 64,	/* TX only: the fill ring stays empty */
		.comp_size = e->o.comp_ring_size,
		.frame_size = e->frame_size,
		.frame_headroom = 0,
		.flags = 0,
	};
	int rc = xsk_umem__create(&e->umem, e->area, (uint64_t)e->nframes * e->frame_size,
				  &e->q[0].fill, &e->q[0].comp, &ucfg);
	if (rc) {
		xtx_errf(err, errlen, "cannot register the UMEM with the kernel: %s%s",
			 strerror(-rc), rc == -EPERM ?
			 " (needs CAP_NET_RAW, and CAP_IPC_LOCK or a large RLIMIT_MEMLOCK)" :
			 rc == -ENOBUFS ? " (the UMEM exceeds RLIMIT_MEMLOCK: grant CAP_IPC_LOCK, "
			 "raise ulimit -l, or use fewer frames)" : "");
		return rc;
	}
	return 0;
}

void xtx_umem_teardown(struct xtx_engine *e)
{
	if (e->umem)
		xsk_umem__delete(e->umem);
	e->umem = NULL;
	if (e->area)
		munmap(e->area, e->area_len);
	e->area = NULL;
}

static int try_socket_once(struct xtx_engine *e, struct xtx_queue *q, uint16_t mode_flag)
{
	struct xsk_socket_config cfg = {
		.rx_size = 0,
		.tx_size = e->o.tx_ring_size,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = 0,
		.bind_flags = (uint16_t)(XDP_USE_NEED_WAKEUP | mode_flag),
	};

	if (q->idx == 0)
		return xsk_socket__create(&q->xsk, e->ifname, q->qid, e->umem, NULL, &q->tx,
					  &cfg);
	return xsk_socket__create_shared(&q->xsk, e->ifname, q->qid, e->umem, NULL, &q->tx,
					 &q->fill, &q->comp, &cfg);
}

/* A socket closed a moment ago (a previous run on this queue) is released by the kernel
 * asynchronously: EBUSY for a while. Retry for up to 1 s before calling the queue taken. */
static int try_socket(struct xtx_engine *e, struct xtx_queue *q, uint16_t mode_flag)
{
	int rc;

	for (int tries = 0;; tries++) {
		rc = try_socket_once(e, q, mode_flag);
		if (rc != -EBUSY || tries == 100)
			return rc;
		usleep(10 * 1000);
	}
}

int xtx_queue_socket(struct xtx_engine *e, struct xtx_queue *q, char *err, size_t errlen)
{
	int rc;

	if (q->idx == 0 && e->o.mode != XTX_MODE_COPY) {
		rc = try_socket(e, q, XDP_ZEROCOPY);
		if (!rc) {
			e->zerocopy = 1;
		} else if (e->o.mode == XTX_MODE_ZEROCOPY) {
			xtx_errf(err, errlen, "%s queue %u: zero-copy refused (%s); the driver "
				 "may not support AF_XDP zero-copy: drop --zero-copy to allow copy "
				 "mode", e->ifname, q->qid, strerror(-rc));
			return rc == -EINVAL ? -EOPNOTSUPP : rc;
		} else if (rc == -EPERM || rc == -EBUSY || rc == -ENODEV) {
			goto fail;
		} else {
			xtx_info(e, "%s: zero-copy not offered (%s): using copy mode", e->ifname,
				 strerror(-rc));
		}
		if (e->zerocopy)
			return 0;
	}
	rc = try_socket(e, q, e->zerocopy ? XDP_ZEROCOPY : XDP_COPY);
	if (!rc)
		return 0;
fail:
	if (rc == -EPERM || rc == -EACCES)
		xtx_errf(err, errlen, "%s queue %u: AF_XDP socket not permitted: needs "
			 "CAP_NET_RAW and CAP_NET_ADMIN (run as root or grant them)", e->ifname,
			 q->qid);
	else if (rc == -EBUSY)
		xtx_errf(err, errlen, "%s queue %u already has an AF_XDP socket (another xtx "
			 "or AF_XDP program is using it); stop it or choose other queues",
			 e->ifname, q->qid);
	else
		xtx_errf(err, errlen, "%s queue %u: cannot create the AF_XDP socket: %s",
			 e->ifname, q->qid, strerror(-rc));
	return rc;
}

void xtx_queue_socket_close(struct xtx_queue *q)
{
	if (q->xsk)
		xsk_socket__delete(q->xsk);
	q->xsk = NULL;
}
