/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/netdev.c - see netdev.h. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netdev.h"

/* ioctl(req) on ifname with ifr (its name filled in here); 0 or -errno. */
static int dev_ioctl(const char *ifname, unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname);
	if (fd < 0 || ioctl(fd, req, ifr) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	return rc;
}

int netdev_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	rc = dev_ioctl(ifname, SIOCGIFHWADDR, &ifr);
	if (!rc)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return rc;
}

int netdev_mtu(const char *ifname, int *mtu)
{
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	rc = dev_ioctl(ifname, SIOCGIFMTU, &ifr);
	if (!rc)
		*mtu = ifr.ifr_mtu;
	return rc;
}

int netdev_rx_queues(const char *ifname, unsigned *n)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_data = (void *)&ch;
	rc = dev_ioctl(ifname, SIOCETHTOOL, &ifr);
	if (!rc)
		*n = ch.rx_count + ch.combined_count;
	return rc;
}
