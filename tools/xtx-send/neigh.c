/* SPDX-License-Identifier: BSD-3-Clause */
/* neigh.c - route and neighbour lookup over rtnetlink (RTM_GETROUTE, RTM_GETNEIGH). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "neigh.h"

static int nl_request(int fd, struct nlmsghdr *req)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	return sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ?
	       -errno : 0;
}

static void add_attr(struct nlmsghdr *n, unsigned short type, const void *data, unsigned len)
{
	struct rtattr *rta = (struct rtattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static int route_get(int fd, int family, const void *dst, struct nexthop *nh)
{
	struct {
		struct nlmsghdr n;
		struct rtmsg r;
		char buf[64];
	} req = { .n = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
			 .nlmsg_type = RTM_GETROUTE, .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 },
		  .r = { .rtm_family = (unsigned char)family } };
	unsigned alen = family == AF_INET ? 4 : 16;
	char buf[8192];
	int rc, got_src = 0;

	req.r.rtm_dst_len = (unsigned char)(alen * 8);
	add_attr(&req.n, RTA_DST, dst, alen);
	rc = nl_request(fd, &req.n);
	if (rc)
		return rc;
	ssize_t len = recv(fd, buf, sizeof(buf), 0);
	if (len < 0)
		return -errno;
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len);
	     h = NLMSG_NEXT(h, len)) {
		if (h->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(h);
			return e->error ? e->error : -ENETUNREACH;
		}
		if (h->nlmsg_type != RTM_NEWROUTE)
			continue;
		struct rtmsg *r = NLMSG_DATA(h);
		int alen2 = (int)RTM_PAYLOAD(h);

		memcpy(nh->via, dst, alen);
		for (struct rtattr *a = RTM_RTA(r); RTA_OK(a, alen2); a = RTA_NEXT(a, alen2)) {
			if (a->rta_type == RTA_OIF)
				memcpy(&nh->oif, RTA_DATA(a), sizeof(int));
			else if (a->rta_type == RTA_GATEWAY)
				memcpy(nh->via, RTA_DATA(a), alen);
			else if (a->rta_type == RTA_PREFSRC) {
				memcpy(nh->src, RTA_DATA(a), alen);
				got_src = 1;
			}
		}
		if (r->rtm_type == RTN_UNREACHABLE || r->rtm_type == RTN_BLACKHOLE ||
		    r->rtm_type == RTN_PROHIBIT)
			return -ENETUNREACH;
		return got_src ? 0 : 1;	/* 1: no prefsrc, ask the socket layer */
	}
	return -ENETUNREACH;
}

/* Source address the kernel would use: connect a UDP socket and read its name. */
static int src_of(int family, const void *dst, uint8_t *src)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl = sizeof(ss);
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(9);
		memcpy(&s4->sin_addr, dst, 4);
		sl = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(9);
		memcpy(&s6->sin6_addr, dst, 16);
		sl = sizeof(*s6);
	}
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		rc = -errno;
	else if (family == AF_INET)
		memcpy(src, &((struct sockaddr_in *)&ss)->sin_addr, 4);
	else
		memcpy(src, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
	close(fd);
	return rc;
}

/* 1 found (mac filled), 0 not found / not usable yet, <0 error. */
static int neigh_get(int fd, int family, int ifindex, const uint8_t *via, uint8_t *mac)
{
	struct {
		struct nlmsghdr n;
		struct ndmsg m;
	} req = { .n = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)),
			 .nlmsg_type = RTM_GETNEIGH, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			 .nlmsg_seq = 2 },
		  .m = { .ndm_family = (unsigned char)family } };
	unsigned alen = family == AF_INET ? 4 : 16;
	char buf[32768];
	int found = 0, rc = nl_request(fd, &req.n);

	if (rc)
		return rc;
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);

		if (len < 0)
			return -errno;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return found;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -EIO;
			struct ndmsg *m = NLMSG_DATA(h);
			int l = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			const uint8_t *dst = NULL, *ll = NULL;

			if (m->ndm_ifindex != ifindex ||
			    (m->ndm_state & (NUD_INCOMPLETE | NUD_FAILED | NUD_NONE)))
				continue;
			for (struct rtattr *a = (struct rtattr *)((char *)m + NLMSG_ALIGN(sizeof(*m)));
			     RTA_OK(a, l); a = RTA_NEXT(a, l)) {
				if (a->rta_type == NDA_DST && RTA_PAYLOAD(a) == alen)
					dst = RTA_DATA(a);
				else if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6)
					ll = RTA_DATA(a);
			}
			if (dst && ll && !memcmp(dst, via, alen)) {
				memcpy(mac, ll, 6);
				found = 1;
			}
		}
	}
}

static void probe(int family, const uint8_t *via)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(9);	/* discard */
		memcpy(&s4->sin_addr, via, 4);
		sl = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(9);
		memcpy(&s6->sin6_addr, via, 16);
		sl = sizeof(*s6);
	}
	/* One empty datagram: the kernel queues it while it resolves the neighbour. */
	sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&ss, sl);
	close(fd);
}

int nexthop_resolve(int family, const void *dst, int ifindex, int need_mac, int timeout_ms,
		    struct nexthop *nh, char *err, size_t errlen)
{
	char ip[INET6_ADDRSTRLEN], dev[IF_NAMESIZE] = "?", via[INET6_ADDRSTRLEN];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), rc;

	memset(nh, 0, sizeof(*nh));
	nh->family = family;
	inet_ntop(family, dst, ip, sizeof(ip));
	if (fd < 0) {
		snprintf(err, errlen, "netlink socket: %s", strerror(errno));
		return -errno;
	}
	rc = route_get(fd, family, dst, nh);
	if (rc < 0) {
		snprintf(err, errlen, "no route to %s (%s); see ip route", ip, strerror(-rc));
		goto out;
	}
	if (rc == 1 && (rc = src_of(family, dst, nh->src)) < 0) {
		snprintf(err, errlen, "no source address for %s: %s; pass --src-ip", ip,
			 strerror(-rc));
		goto out;
	}
	if (ifindex && nh->oif != ifindex) {
		char want[IF_NAMESIZE] = "?";

		if_indextoname((unsigned)nh->oif, dev);
		if_indextoname((unsigned)ifindex, want);
		snprintf(err, errlen, "the route to %s leaves through %s, not %s; pass "
			 "--dst-mac (and --src-ip) to send on %s anyway", ip, dev, want, want);
		rc = -EXDEV;
		goto out;
	}
	rc = 0;
	if (!need_mac)
		goto out;
	inet_ntop(family, nh->via, via, sizeof(via));
	for (int waited = 0;; waited += 20) {
		rc = neigh_get(fd, family, nh->oif, nh->via, nh->mac);
		if (rc < 0) {
			snprintf(err, errlen, "reading the neighbour table: %s", strerror(-rc));
			goto out;
		}
		if (rc == 1) {
			rc = 0;
			goto out;
		}
		if (waited >= timeout_ms)
			break;
		if (waited == 0 || waited % 500 == 0)
			probe(family, nh->via);
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if_indextoname((unsigned)nh->oif, dev);
	snprintf(err, errlen, "no %s answer from %s on %s within %d ms; check that it is up, "
		 "or pass --dst-mac", family == AF_INET ? "ARP" : "neighbour discovery", via,
		 dev, timeout_ms);
	rc = -EHOSTUNREACH;
out:
	close(fd);
	return rc;
}
