/* SPDX-License-Identifier: BSD-3-Clause */
/* xsk.c - UMEM memory (huge pages, NUMA node of the NIC) and one AF_XDP socket per TX
 * queue on a shared UMEM (set up by xskraw.c, on libxdp's ring structs); with a receive
 * side also one RX-only socket per ingress queue. No XDP program is loaded here: the
 * caller's program redirects into the RX sockets.
 *
 * Mode: XDP_ZEROCOPY is tried first unless copy is forced; if the driver refuses it, copy
 * mode (XDP_COPY) is used and reported. XDP_USE_NEED_WAKEUP is always requested, so the
 * dequeuer calls sendto() only when the kernel sets the flag on the TX ring.
 *
 * RX sockets, shared path: bound with XDP_SHARED_UMEM to the first TX socket, on another
 * device and queue, each with a fill and completion ring of its own (libxdp makes them for
 * a new (device, queue)); the kernel gives them the UMEM's mode (zero-copy or copy) and
 * need_wakeup setting. If that bind is refused (the ingress driver cannot do the egress
 * socket's mode), the receive side gets a UMEM of its own (copy path; receiver.c copies).
 */
#include <errno.h>
#include <linux/capability.h>
#include <numa.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine_int.h"
#include "nic.h"
#include "nulldev.h"
#include "xskraw.h"

#define HUGE_2M (2u << 20)

/* CAP_IPC_LOCK in the calling thread's effective set (the UMEM is registered by it). */
static int has_cap_ipc_lock(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	return !syscall(SYS_capget, &h, d) &&
	       (d[CAP_IPC_LOCK / 32].effective & (1u << (CAP_IPC_LOCK % 32)));
}

/* The UMEM's pages are pinned and charged to RLIMIT_MEMLOCK unless the process has
 * CAP_IPC_LOCK (xdp_umem_account_pages()): raise it to unlimited (needs CAP_SYS_RESOURCE
 * to go above the hard limit). Returns 0, or the errno of a refused raise, after saying
 * so when the limit left is below the UMEM; *cur gets the limit in force. */
static int raise_memlock(struct xtx_engine *e, size_t len, struct rlimit *cur)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	int err;

	if (!setrlimit(RLIMIT_MEMLOCK, &unlimited)) {
		*cur = unlimited;
		return 0;
	}
	err = errno;
	if (getrlimit(RLIMIT_MEMLOCK, cur))
		cur->rlim_cur = cur->rlim_max = 0;
	if (cur->rlim_cur != RLIM_INFINITY && cur->rlim_cur < len && !has_cap_ipc_lock())
		xtx_warn(&e->log, "cannot raise RLIMIT_MEMLOCK from %llu KiB to unlimited (%s): the "
			 "UMEM of %zu MiB is charged to it unless this process has CAP_IPC_LOCK",
			 (unsigned long long)cur->rlim_cur >> 10, strerror(err), len >> 20);
	return err;
}

/* SO_BUSY_POLL (us), SO_PREFER_BUSY_POLL and SO_BUSY_POLL_BUDGET on an AF_XDP socket:
 * its sendto()/poll() then poll the device's NAPI context itself (zero-copy: the queue's
 * NAPI; a copy-mode socket has none to poll), and with the device's
 * napi_defer_hard_irqs / gro_flush_timeout set, in place of its interrupts. 0 or -errno
 * with a message naming the option. */
static int set_busy_poll(const char *ifname, uint32_t qid, int fd, int budget, char *err,
			 size_t errlen)
{
	static const struct { int opt; const char *name; } opts[] = {
		{ SO_PREFER_BUSY_POLL, "SO_PREFER_BUSY_POLL" },
		{ SO_BUSY_POLL, "SO_BUSY_POLL" },
		{ SO_BUSY_POLL_BUDGET, "SO_BUSY_POLL_BUDGET" },
	};
	const int val[] = { 1, XTX_BUSY_POLL_US, budget };

	for (unsigned i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (setsockopt(fd, SOL_SOCKET, opts[i].opt, &val[i], sizeof(val[i]))) {
			int rc = -errno;

			xtx_errf(err, errlen, "%s queue %u: busy poll: setsockopt(%s, %d): %s%s",
				 ifname, qid, opts[i].name, val[i], strerror(-rc), rc == -EPERM ?
				 " (needs CAP_NET_ADMIN)" : rc == -ENOPROTOOPT ? " (a kernel "
				 "without CONFIG_NET_RX_BUSY_POLL, or before 5.11)" : "");
			return rc;
		}
	return 0;
}

int xtx_umem_setup(struct xtx_engine *e, char *err, size_t errlen)
{
	size_t len = (size_t)e->fr.count * e->fr.size;
	int node = e->numa_node, lim_err;
	unsigned nqueues = xtx_nic_tx_queues(NULL, e->ifname);
	struct rlimit lim;
	void *p = MAP_FAILED;

	if (!e->null && nqueues && e->o.first_queue + e->nq > nqueues) {
		xtx_errf(err, errlen, "%s has %u TX queue%s; queues %u..%u do not all exist "
			 "(see ethtool -l %s; use --queues)", e->ifname, nqueues,
			 nqueues == 1 ? "" : "s", e->o.first_queue, e->o.first_queue + e->nq - 1,
			 e->ifname);
		return -EINVAL;
	}
	lim_err = e->null ? 0 : raise_memlock(e, len, &lim);

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
			xtx_warn(&e->log, "huge pages unavailable (%s): UMEM of %zu MiB on 4 KiB pages "
				 "(sysctl vm.nr_hugepages=%zu to use them)", strerror(errno),
				 len >> 20, hlen / HUGE_2M);
		}
	}
	if (p == MAP_FAILED) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			int rc = -errno;

			xtx_errf(err, errlen, "cannot allocate a UMEM of %zu MiB (%u frames of %u "
				 "bytes): %s; use fewer or smaller frames", len >> 20, e->fr.count,
				 e->fr.size, strerror(errno));
			return rc;
		}
	}
	if (node >= 0) {	/* a node libnuma can use (engine.c, nic_node()) */
		numa_tonode_memory(p, len, node);
		xtx_info(&e->log, "UMEM placed on NUMA node %d (the node of %s)", node, e->ifname);
	} else if (!e->null) {
		xtx_info(&e->log, "%s reports no NUMA node (virtual device?): UMEM left local",
			 e->ifname);
	}
	e->fr.area = p;
	e->area_len = len;
	if (e->null)
		return 0;	/* nothing to register: the device is in user space */

	struct xtx_xumem_cfg ucfg = {
		.area = e->fr.area, .size = (uint64_t)e->fr.count * e->fr.size,
		.frame_size = e->fr.size,
		/* Every fill ring has this size: the receive side's (shared path) and the
		 * first TX socket's, which stays empty. */
		.fill_size = e->nrq ? e->fill_size : 64,
		.comp_size = e->o.comp_ring_size,
		.tx_metadata_len = e->o.tx_metadata ? XTX_TXMD_LEN : 0,
		.flags = e->o.tx_sw_csum ? XDP_UMEM_TX_SW_CSUM : 0,
	};
	int rc = xtx_xumem_create(&e->umem, &ucfg, &e->q[0].fill, &e->q[0].deq.ring.comp);

	if (rc == -ENOBUFS) {		/* xdp_umem_account_pages(): over RLIMIT_MEMLOCK */
		char was[96] = "", cur[32] = "unlimited";

		if (lim_err)
			snprintf(was, sizeof(was), "; raising it to unlimited failed: %s",
				 strerror(lim_err));
		if (lim.rlim_cur != RLIM_INFINITY)
			snprintf(cur, sizeof(cur), "%llu KiB",
				 (unsigned long long)lim.rlim_cur >> 10);
		xtx_errf(err, errlen, "cannot register the UMEM with the kernel: %s: the UMEM "
			 "of %zu MiB exceeds RLIMIT_MEMLOCK (%s, less what this user has locked "
			 "already%s); grant CAP_IPC_LOCK (or CAP_SYS_RESOURCE), raise ulimit -l, "
			 "or use fewer frames", strerror(-rc), len >> 20, cur, was);
		return rc;
	} else if (rc == -EINVAL && e->o.tx_metadata) {
		xtx_errf(err, errlen, "cannot register the UMEM with TX metadata: %s (it needs "
			 "Linux 6.8 or later, 6.11 for the kernel's software checksums)",
			 strerror(-rc));
		return -EOPNOTSUPP;
	} else if (rc) {
		xtx_errf(err, errlen, "cannot register the UMEM with the kernel: %s%s",
			 strerror(-rc), rc == -EPERM ? " (needs CAP_NET_RAW, and CAP_IPC_LOCK "
			 "or an RLIMIT_MEMLOCK above the UMEM's size)" : "");
		return rc;
	}
	return 0;
}

void xtx_umem_teardown(struct xtx_engine *e)
{
	xtx_xumem_delete(e->umem);
	e->umem = NULL;
	if (e->fr.area)
		munmap(e->fr.area, e->area_len);
	e->fr.area = NULL;
}

static int try_socket_once(struct xtx_engine *e, struct xtx_queue *q, uint16_t mode_flag)
{
	return xtx_xsk_create(&q->xsk, e->ifindex, q->qid, e->umem, NULL, 0, &q->deq.ring.tx,
			      e->o.tx_ring_size, &q->fill, &q->deq.ring.comp,
			      (uint16_t)(XDP_USE_NEED_WAKEUP | mode_flag |
					 (e->o.multi_buffer ? XDP_USE_SG : 0)));
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

/* opts.busy_poll or sock_busy_poll: the TX socket polls its NAPI context in sendto(). 0 or
 * -errno. */
static int busy_poll_tx(struct xtx_engine *e, struct xtx_queue *q, char *err, size_t errlen)
{
	if (!e->o.busy_poll && !e->o.sock_busy_poll)
		return 0;
	return set_busy_poll(e->ifname, q->qid, q->xsk->fd, XTX_DEQ_BATCH, err,
			     errlen);
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
			xtx_warn(&e->log, "%s: zero-copy not offered (%s): using copy mode", e->ifname,
				 strerror(-rc));
		}
		if (e->zerocopy)
			return busy_poll_tx(e, q, err, errlen);
	}
	rc = try_socket(e, q, e->zerocopy ? XDP_ZEROCOPY : XDP_COPY);
	if (!rc)
		return busy_poll_tx(e, q, err, errlen);
fail:
	if (rc == -EPERM || rc == -EACCES)
		xtx_errf(err, errlen, "%s queue %u: AF_XDP socket not permitted: needs "
			 "CAP_NET_RAW (run as root or grant it)", e->ifname,
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

/* The null device's queue: its rings played in user space (nulldev.h). 0 or -errno. */
int xtx_queue_null(struct xtx_engine *e, struct xtx_queue *q, char *err, size_t errlen)
{
	int rc = xtx_nulldev_open(&q->deq.ring.null, e->o.tx_ring_size, e->o.comp_ring_size,
				  e->null_rate_bps, &q->deq.ring.tx, &q->deq.ring.comp);

	if (rc)
		xtx_errf(err, errlen, "null device queue %u: %s", q->qid, strerror(-rc));
	q->deq.ring.fd = -1;
	return rc;
}

void xtx_queue_socket_close(struct xtx_queue *q)
{
	xtx_xsk_delete(q->xsk);
	q->xsk = NULL;
	xtx_nulldev_close(q->deq.ring.null);
	q->deq.ring.null = NULL;
}

/* --- receive side ---------------------------------------------------------------------- */

/* EBUSY right after a previous run closed its socket: retry up to 1 s (see try_socket).
 * bind_flags: the mode, for the UMEM's first socket (a shared one takes the UMEM's). */
static int rx_create(struct xtx_engine *e, struct xtx_rxq *r, struct xtx_xumem *umem,
		     uint16_t bind_flags)
{
	int rc;

	for (int tries = 0;; tries++) {
		rc = xtx_xsk_create(&r->xsk, e->rx_ifindex, r->qid, umem, &r->w.rx, e->rx_size,
				    NULL, 0, &r->w.fill, &r->comp, bind_flags);
		if (rc != -EBUSY || tries == 100)
			break;
		usleep(10 * 1000);
	}
	if (!rc)
		r->w.fd = r->xsk->fd;
	return rc;
}

/* opts.rx_busy_poll: the RX socket polls its NAPI context in poll()/recvfrom(). */
static int busy_poll_rx(struct xtx_engine *e, struct xtx_rxq *r, char *err, size_t errlen)
{
	if (!e->o.rx_busy_poll)
		return 0;
	return set_busy_poll(e->rx_ifname, r->qid, r->w.fd, XTX_RX_BATCH, err, errlen);
}

static void rx_errf(struct xtx_engine *e, struct xtx_rxq *r, int rc, char *err, size_t errlen)
{
	if (rc == -EPERM || rc == -EACCES)
		xtx_errf(err, errlen, "%s queue %u: AF_XDP socket not permitted: needs "
			 "CAP_NET_RAW (run as root or grant it)",
			 e->rx_ifname, r->qid);
	else if (rc == -EBUSY)
		xtx_errf(err, errlen, "%s queue %u already has an AF_XDP socket (another "
			 "xtx-shape or AF_XDP program is using it); stop it or choose other "
			 "queues", e->rx_ifname, r->qid);
	else
		xtx_errf(err, errlen, "%s queue %u: cannot create the receive socket: %s",
			 e->rx_ifname, r->qid, strerror(-rc));
}

/* The copy path: a UMEM of fill_size frames per ingress queue, of the engine's frame
 * size; queue i's frames are [i * fill_size, (i + 1) * fill_size). */
static int rx_sockets_copy(struct xtx_engine *e, char *err, size_t errlen)
{
	struct xtx_xumem_cfg ucfg = {
		.frame_size = e->fr.size,
		.fill_size = e->fill_size,
		.comp_size = 64,	/* no TX on these sockets */
	};
	size_t per = (size_t)e->fill_size * e->fr.size;
	uint16_t mode = e->o.mode == XTX_MODE_COPY ? XDP_COPY : XDP_ZEROCOPY;
	int rc;

	e->rx_area_len = per * e->nrq;
	e->rx_area = mmap(NULL, e->rx_area_len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (e->rx_area == MAP_FAILED) {
		rc = -errno;
		e->rx_area = NULL;
		xtx_errf(err, errlen, "cannot allocate %zu MiB for the receive UMEM: %s",
			 e->rx_area_len >> 20, strerror(-rc));
		return rc;
	}
	ucfg.area = e->rx_area;
	ucfg.size = e->rx_area_len;
	rc = xtx_xumem_create(&e->rx_umem, &ucfg, &e->rq[0].w.fill, &e->rq[0].comp);
	if (rc) {
		e->rx_umem = NULL;
		xtx_errf(err, errlen, "cannot register the receive UMEM: %s", strerror(-rc));
		return rc;
	}
	for (unsigned i = 0; i < e->nrq; i++) {
		struct xtx_rxq *r = &e->rq[i];

		r->w.rx_base = (uint64_t)i * per;
		if (i == 0) {
			rc = rx_create(e, r, e->rx_umem, (uint16_t)(XDP_USE_NEED_WAKEUP | mode));
			if (rc && mode == XDP_ZEROCOPY && e->o.mode != XTX_MODE_ZEROCOPY &&
			    rc != -EBUSY && rc != -EPERM && rc != -ENODEV)
				rc = rx_create(e, r, e->rx_umem,
					       (uint16_t)(XDP_USE_NEED_WAKEUP | XDP_COPY));
		} else {
			rc = rx_create(e, r, e->rx_umem, 0);
		}
		if (rc) {
			rx_errf(e, r, rc, err, errlen);
			return rc;
		}
		rc = busy_poll_rx(e, r, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

int xtx_rx_sockets(struct xtx_engine *e, char *err, size_t errlen)
{
	int rc = 0;

	if (!e->o.rx_copy) {
		for (unsigned i = 0; i < e->nrq && !rc; i++) {
			rc = rx_create(e, &e->rq[i], e->umem, 0);
			if (rc && (rc == -EBUSY || rc == -EPERM || rc == -EACCES || rc == -ENODEV)) {
				rx_errf(e, &e->rq[i], rc, err, errlen);
				return rc;
			}
		}
		if (!rc) {
			for (unsigned i = 0; i < e->nrq && !rc; i++)
				rc = busy_poll_rx(e, &e->rq[i], err, errlen);
			return rc;
		}
		/* The kernel refused to bind an RX socket of the ingress device to the
		 * egress UMEM (-EOPNOTSUPP: the ingress driver cannot do the egress
		 * socket's zero-copy; -EINVAL and others: the pair cannot share). */
		xtx_warn(&e->log, "%s cannot share the UMEM of %s (%s mode): %s; receiving into a "
			 "UMEM of its own, one copy per frame", e->rx_ifname, e->ifname,
			 e->zerocopy ? "zero-copy" : "copy", strerror(-rc));
		xtx_rx_sockets_close(e);
	}
	e->rx_copy = 1;
	return rx_sockets_copy(e, err, errlen);
}

/* Caller holds e->rx_lock (or is alone with the engine). */
void xtx_rx_read_kstats(struct xtx_rxq *r)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	if (!r->xsk || getsockopt(r->w.fd, SOL_XDP, XDP_STATISTICS, &st, &len))
		return;
	r->kst.k_dropped = st.rx_dropped;
	r->kst.k_invalid = st.rx_invalid_descs;
	if (len >= offsetof(struct xdp_statistics, rx_fill_ring_empty_descs) + sizeof(__u64)) {
		r->kst.k_rx_ring_full = st.rx_ring_full;
		r->kst.k_fill_empty = st.rx_fill_ring_empty_descs;
	}
}

void xtx_rx_sockets_close(struct xtx_engine *e)
{
	pthread_mutex_lock(&e->rx_lock);
	for (unsigned i = 0; i < e->nrq; i++) {
		struct xtx_rxq *r = &e->rq[i];

		if (!r->xsk)
			continue;
		xtx_rx_read_kstats(r);
		/* Synchronous: the kernel unbinds (synchronize_net) before close returns,
		 * so it touches none of this socket's frames afterwards. */
		xtx_xsk_delete(r->xsk);
		r->xsk = NULL;
		r->w.fd = -1;
	}
	pthread_mutex_unlock(&e->rx_lock);
	xtx_xumem_delete(e->rx_umem);
	e->rx_umem = NULL;
	if (e->rx_area)
		munmap(e->rx_area, e->rx_area_len);
	e->rx_area = NULL;
}
