/* SPDX-License-Identifier: BSD-3-Clause */
/* test_icmp_probe.c - ICMP echo for the network tests (the test VM has no ping): sends
 * COUNT echo requests to an IPv4 address, one every 100 ms, and counts the replies that
 * carry our identifier and a sequence number we sent. Run inside a namespace by a test
 * script (tests/net/shape.sh); the kernel resolves the next hop with ARP as usual, so a
 * reply also proves that ARP was answered when no neighbour entry existed.
 *
 *   test_icmp_probe ADDR COUNT TIMEOUT_S      exit 0 if every request got a reply
 *
 * Prints one line: "icmp ADDR: sent N, replies M". Needs root (raw socket). Refuses to
 * run (exit 1, before it opens the socket) in the host's network namespace.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "netns.h"

static uint16_t csum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		s += (uint32_t)(b[len - 1] << 8);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((uint16_t)~s);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	uint16_t id = (uint16_t)getpid();
	uint8_t seen[256] = { 0 };
	int fd, count, sent = 0, replies = 0;
	double timeout, t_end, next = 0;

	if (argc != 4 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1 ||
	    (count = atoi(argv[2])) < 1 || count > 255 || (timeout = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: test_icmp_probe ADDR COUNT(1..255) TIMEOUT_S\n");
		return 2;
	}
	if (netns_require_private("test_icmp_probe"))
		return 1;
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (fd < 0) {
		fprintf(stderr, "test_icmp_probe: raw socket: %s (run as root)\n", strerror(errno));
		return 1;
	}
	t_end = now_s() + timeout;
	while (now_s() < t_end && replies < count) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double t = now_s();

		if (sent < count && t >= next) {
			struct icmphdr h = { .type = ICMP_ECHO };
			uint8_t pkt[sizeof(h) + 32];

			h.un.echo.id = htons(id);
			h.un.echo.sequence = htons((uint16_t)sent);
			memcpy(pkt, &h, sizeof(h));
			memset(pkt + sizeof(h), 0x5a, 32);
			((struct icmphdr *)pkt)->checksum = csum(pkt, sizeof(pkt));
			if (sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&dst, sizeof(dst)) > 0)
				sent++;
			next = t + 0.1;
		}
		if (poll(&p, 1, 20) > 0) {
			uint8_t buf[1500];
			ssize_t n = recv(fd, buf, sizeof(buf), 0);
			const struct iphdr *ip = (const void *)buf;
			const struct icmphdr *ic;

			if (n < (ssize_t)sizeof(*ip) || n < ip->ihl * 4 + (ssize_t)sizeof(*ic))
				continue;
			ic = (const void *)(buf + ip->ihl * 4);
			if (ip->saddr != dst.sin_addr.s_addr || ic->type != ICMP_ECHOREPLY ||
			    ntohs(ic->un.echo.id) != id || ntohs(ic->un.echo.sequence) >= sent ||
			    seen[ntohs(ic->un.echo.sequence)]++)
				continue;
			replies++;
		}
	}
	printf("icmp %s: sent %d, replies %d\n", argv[1], sent, replies);
	close(fd);
	return replies == count ? 0 : 1;
}
