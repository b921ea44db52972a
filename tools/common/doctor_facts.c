/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/doctor_facts.c - see doctor_facts.h. Collecting reads files and asks the
 * kernel; it changes nothing. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "doctor_facts.h"

/* --- the store ---------------------------------------------------------------------- */

void facts_set(struct facts *f, const char *key, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	unsigned i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < f->n; i++)
		if (!strcmp(f->key[i], key)) {
			free(f->val[i]);
			f->val[i] = strdup(buf);
			return;
		}
	if (f->n == FACTS_MAX)
		return;
	f->key[f->n] = strdup(key);
	f->val[f->n] = strdup(buf);
	if (f->key[f->n] && f->val[f->n])
		f->n++;
}

const char *facts_get(const struct facts *f, const char *key)
{
	for (unsigned i = 0; i < f->n; i++)
		if (!strcmp(f->key[i], key))
			return f->val[i];
	return NULL;
}

long long facts_num(const struct facts *f, const char *key, long long def)
{
	const char *v = facts_get(f, key);
	char *end;
	long long x;

	if (!v || !*v)
		return def;
	errno = 0;
	x = strtoll(v, &end, 0);
	return errno || *end ? def : x;
}

const char *facts_geti(const struct facts *f, const char *prefix, long i, const char *name)
{
	char k[128];

	snprintf(k, sizeof(k), "%s.%ld.%s", prefix, i, name);
	return facts_get(f, k);
}

void facts_free(struct facts *f)
{
	for (unsigned i = 0; i < f->n; i++) {
		free(f->key[i]);
		free(f->val[i]);
	}
	f->n = 0;
}

int facts_load(struct facts *f, const char *path, char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	char line[1200];
	unsigned ln = 0;

	if (!in) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	while (fgets(line, sizeof(line), in)) {
		char *eq, *s = line;

		ln++;
		line[strcspn(line, "\n")] = '\0';
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq || eq == s) {
			snprintf(err, errlen, "%s:%u: expected KEY=VALUE, found '%.60s'", path, ln, s);
			fclose(in);
			return -EINVAL;
		}
		*eq = '\0';
		facts_set(f, s, "%s", eq + 1);
	}
	fclose(in);
	return 0;
}

void facts_dump(const struct facts *f, FILE *out)
{
	for (unsigned i = 0; i < f->n; i++)
		fprintf(out, "%s=%s\n", f->key[i], f->val[i]);
}

/* --- files ------------------------------------------------------------------------------ */

/* The first line of a file, without its newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *in = fopen(path, "r");
	int rc = -1;

	if (!in)
		return -1;
	if (fgets(buf, (int)len, in)) {
		buf[strcspn(buf, "\n")] = '\0';
		rc = 0;
	}
	fclose(in);
	return rc;
}

static void fact_file(struct facts *f, const char *key, const char *fmt, const char *ifname)
{
	char path[PATH_MAX], buf[512];

	snprintf(path, sizeof(path), fmt, ifname);
	if (!read_line(path, buf, sizeof(buf)))
		facts_set(f, key, "%s", buf);
}

/* --- ethtool (ioctls that get) ------------------------------------------------------------ */

static int ethtool(const char *ifname, void *cmd)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	rc = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	return rc;
}

/* What sysfs did not say (it shows the namespace it was mounted in; `ip netns exec`
 * mounts the namespace's own): the MTU and whether the link is up, by ioctl. */
static void collect_ifreq(struct facts *f, const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (!facts_get(f, "if.mtu") && !ioctl(fd, SIOCGIFMTU, &ifr))
		facts_set(f, "if.mtu", "%d", ifr.ifr_mtu);
	if (!facts_get(f, "if.operstate") && !ioctl(fd, SIOCGIFFLAGS, &ifr))
		facts_set(f, "if.operstate", "%s", (ifr.ifr_flags & IFF_UP) &&
			  (ifr.ifr_flags & IFF_RUNNING) ? "up" : "down");
	close(fd);
}

static void collect_ethtool(struct facts *f, const char *ifname)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };

	if (!ethtool(ifname, &di)) {
		facts_set(f, "if.driver", "%s", di.driver);
		if (di.fw_version[0])
			facts_set(f, "if.fw", "%s", di.fw_version);
	}
	if (!ethtool(ifname, &ch)) {
		facts_set(f, "ch.rx", "%u", ch.rx_count);
		facts_set(f, "ch.tx", "%u", ch.tx_count);
		facts_set(f, "ch.combined", "%u", ch.combined_count);
		facts_set(f, "ch.max_rx", "%u", ch.max_rx);
		facts_set(f, "ch.max_tx", "%u", ch.max_tx);
		facts_set(f, "ch.max_combined", "%u", ch.max_combined);
	}
}

/* --- the netdev netlink family (dev-get) ---------------------------------------------- */

/* uapi linux/netdev.h (Linux 6.3+; the build machine's headers may be older) */
enum { ND_A_IFINDEX = 1, ND_A_XDP_FEATURES = 3, ND_A_ZC_MAX_SEGS = 4, ND_A_XSK_FEATURES = 6 };
enum { ND_CMD_DEV_GET = 1 };

static const char *const xdp_names[] = { "basic", "redirect", "ndo-xmit", "xsk-zerocopy",
					 "hw-offload", "rx-sg", "ndo-xmit-sg" };
static const char *const xsk_names[] = { "tx-timestamp", "tx-checksum", "tx-launch-time-fifo" };

struct nlreq {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[256];
};

/* An empty request of family `type`, command cmd. */
static void genl_start(struct nlreq *r, uint16_t type, uint8_t cmd)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = NLM_F_REQUEST;
	r->g.cmd = cmd;
	r->g.version = 1;
}

static void put_attr(struct nlreq *r, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* One request, its answer's attributes walked by fn; 0 or -1. */
static int genl_ask(int fd, struct nlreq *r, void (*fn)(void *, const struct nlattr *),
		    void *ctx)
{
	char buf[8192];
	ssize_t k;

	if (send(fd, r, r->n.nlmsg_len, 0) < 0)
		return -1;
	k = recv(fd, buf, sizeof(buf), 0);
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; k > 0 && NLMSG_OK(h, (unsigned)k);
	     h = NLMSG_NEXT(h, k)) {
		struct nlattr *a;
		int len;

		if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE)
			return -1;
		a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
		len = (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
		while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
			fn(ctx, a);
			len -= NLA_ALIGN(a->nla_len);
			a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
		}
		return 0;
	}
	return -1;
}

static void family_id(void *ctx, const struct nlattr *a)
{
	if (a->nla_type == CTRL_ATTR_FAMILY_ID)
		memcpy(ctx, (const char *)a + NLA_HDRLEN, sizeof(uint16_t));
}

static void names(char *out, size_t len, uint64_t bits, const char *const *n, unsigned nn)
{
	out[0] = '\0';
	for (unsigned i = 0; i < 64; i++)
		if (bits >> i & 1) {
			char tmp[32];

			if (i < nn)
				snprintf(tmp, sizeof(tmp), "%s", n[i]);
			else
				snprintf(tmp, sizeof(tmp), "bit%u", i);
			snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? "," : "", tmp);
		}
}

static void dev_attr(void *ctx, const struct nlattr *a)
{
	struct facts *f = ctx;
	const char *p = (const char *)a + NLA_HDRLEN;
	char list[256];
	uint64_t v = 0;
	uint32_t u = 0;

	switch (a->nla_type) {
	case ND_A_XDP_FEATURES:
	case ND_A_XSK_FEATURES:
		memcpy(&v, p, a->nla_len - NLA_HDRLEN < 8 ? a->nla_len - NLA_HDRLEN : 8);
		if (a->nla_type == ND_A_XDP_FEATURES)
			names(list, sizeof(list), v, xdp_names, 7);
		else
			names(list, sizeof(list), v, xsk_names, 3);
		facts_set(f, a->nla_type == ND_A_XDP_FEATURES ? "xdp.features" : "xsk.features",
			  "%s", list);
		break;
	case ND_A_ZC_MAX_SEGS:
		memcpy(&u, p, 4);
		facts_set(f, "xdp.zc_max_segs", "%u", u);
		break;
	}
}

static void collect_netdev_nl(struct facts *f, int ifindex)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	struct timeval tv = { 1, 0 };
	struct nlreq r;
	uint16_t fam = 0;
	uint32_t idx = (uint32_t)ifindex;

	facts_set(f, "nl.netdev", "0");
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	genl_start(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, "netdev", 7);
	if (genl_ask(fd, &r, family_id, &fam) || !fam) {
		close(fd);
		return;
	}
	genl_start(&r, fam, ND_CMD_DEV_GET);
	put_attr(&r, ND_A_IFINDEX, &idx, 4);
	if (!genl_ask(fd, &r, dev_attr, f))
		facts_set(f, "nl.netdev", "1");
	close(fd);
}

/* --- interrupts, CPUs, memory, the system ---------------------------------------------------- */

/* The IF's IRQs: /proc/interrupts lines whose name holds ifname (drivers name their
 * queue vectors IF-TxRx-N, mlx5_comp0@pci:..., virtio0-output.0: by the interface or
 * by its device's MSI list). */
static void collect_irqs(struct facts *f, const char *ifname)
{
	char path[PATH_MAX], line[2048], buf[512];
	FILE *in = fopen("/proc/interrupts", "r");
	DIR *msi;
	struct dirent *d;
	long n = 0;
	int want[4096] = { 0 };

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/msi_irqs", ifname);
	msi = opendir(path);
	while (msi && (d = readdir(msi)))
		if (isdigit((unsigned char)d->d_name[0]) && atoi(d->d_name) < 4096)
			want[atoi(d->d_name)] = 1;
	if (msi)
		closedir(msi);
	while (in && fgets(line, sizeof(line), in)) {
		char *colon = strchr(line, ':'), *name;
		int irq;

		if (!colon || !isdigit((unsigned char)line[strspn(line, " ")]))
			continue;
		irq = atoi(line);
		line[strcspn(line, "\n")] = '\0';
		name = strrchr(line, ' ');
		name = name ? name + 1 : colon + 1;
		if (!strstr(name, ifname) && !(irq < 4096 && want[irq]))
			continue;
		snprintf(path, sizeof(path), "irq.%ld.num", n);
		facts_set(f, path, "%d", irq);
		snprintf(path, sizeof(path), "irq.%ld.name", n);
		facts_set(f, path, "%s", name);
		snprintf(buf, sizeof(buf), "/proc/irq/%d/smp_affinity_list", irq);
		if (!read_line(buf, line, sizeof(line))) {
			snprintf(path, sizeof(path), "irq.%ld.affinity", n);
			facts_set(f, path, "%s", line);
		}
		n++;
	}
	if (in)
		fclose(in);
	facts_set(f, "irq.count", "%ld", n);
}

static void collect_nodes(struct facts *f)
{
	char path[PATH_MAX], buf[512], key[64];
	int n = 0;

	for (int node = 0; node < 64; node++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
		if (read_line(path, buf, sizeof(buf)))
			continue;
		snprintf(key, sizeof(key), "node.%d.cpus", node);
		facts_set(f, key, "%s", buf);
		n++;
	}
	facts_set(f, "node.count", "%d", n);
}

static void collect_cmdline(struct facts *f)
{
	char buf[4096], *t, *save = NULL;

	if (read_line("/proc/cmdline", buf, sizeof(buf)))
		return;
	facts_set(f, "cmdline.isolcpus", "%s", "");
	facts_set(f, "cmdline.nohz_full", "%s", "");
	for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (!strncmp(t, "isolcpus=", 9))
			facts_set(f, "cmdline.isolcpus", "%s", t + 9);
		if (!strncmp(t, "nohz_full=", 10))
			facts_set(f, "cmdline.nohz_full", "%s", t + 10);
	}
}

static void collect_irqbalance(struct facts *f)
{
	DIR *p = opendir("/proc");
	struct dirent *d;
	int running = 0;

	while (p && !running && (d = readdir(p))) {
		char path[300], comm[64];

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		running = !read_line(path, comm, sizeof(comm)) && !strcmp(comm, "irqbalance");
	}
	if (p)
		closedir(p);
	facts_set(f, "irqbalance", "%d", running);
}

static void collect_self(struct facts *f)
{
	char line[512];
	FILE *in = fopen("/proc/self/status", "r");
	struct rlimit rl;

	while (in && fgets(line, sizeof(line), in))
		if (!strncmp(line, "CapEff:", 7)) {
			line[strcspn(line, "\n")] = '\0';
			facts_set(f, "caps.eff", "0x%s", line + 7 + strspn(line + 7, " \t"));
		}
	if (in)
		fclose(in);
	if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
		if (rl.rlim_cur == RLIM_INFINITY)
			facts_set(f, "memlock.cur", "unlimited");
		else
			facts_set(f, "memlock.cur", "%llu", (unsigned long long)rl.rlim_cur);
	}
}

static void collect_queues(struct facts *f, const char *ifname)
{
	char path[PATH_MAX], buf[512], key[64];
	int rx = 0;

	for (int q = 0; q < 256; q++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-%d/xps_cpus", ifname, q);
		if (read_line(path, buf, sizeof(buf)))
			break;
		snprintf(key, sizeof(key), "xps.%d", q);
		facts_set(f, key, "%s", buf);
	}
	for (int q = 0; q < 256; q++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%d", ifname, q);
		if (access(path, F_OK))
			break;
		rx++;
	}
	facts_set(f, "rx.queues", "%d", rx);
}

void facts_collect(struct facts *f, const char *ifname)
{
	char buf[64];
	int ifindex = (int)if_nametoindex(ifname);

	facts_set(f, "if.name", "%s", ifname);
	facts_set(f, "if.exists", "%d", ifindex > 0);
	if (ifindex > 0) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "/sys/class/net/%s", ifname);
		facts_set(f, "sysfs.this_netns", "%d", !access(path, F_OK));
		fact_file(f, "if.mtu", "/sys/class/net/%s/mtu", ifname);
		fact_file(f, "if.operstate", "/sys/class/net/%s/operstate", ifname);
		fact_file(f, "if.speed_mbps", "/sys/class/net/%s/speed", ifname);
		fact_file(f, "if.numa_node", "/sys/class/net/%s/device/numa_node", ifname);
		fact_file(f, "napi.defer_hard_irqs", "/sys/class/net/%s/napi_defer_hard_irqs",
			  ifname);
		fact_file(f, "napi.gro_flush_timeout", "/sys/class/net/%s/gro_flush_timeout",
			  ifname);
		collect_ifreq(f, ifname);
		collect_ethtool(f, ifname);
		collect_netdev_nl(f, ifindex);
		collect_irqs(f, ifname);
		collect_queues(f, ifname);
	}
	if (!read_line("/sys/devices/system/cpu/online", buf, sizeof(buf)))
		facts_set(f, "cpu.online", "%s", buf);
	collect_nodes(f);
	fact_file(f, "huge.free_2m", "%s/hugepages-2048kB/free_hugepages", "/sys/kernel/mm/hugepages");
	fact_file(f, "huge.free_1g", "%s/hugepages-1048576kB/free_hugepages",
		  "/sys/kernel/mm/hugepages");
	collect_cmdline(f);
	collect_irqbalance(f);
	collect_self(f);
}
