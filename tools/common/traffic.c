/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/traffic.c - the options the baseline senders share: their table, their
 * parsing and checks, the defaults read from --dev, and what follows from --duration,
 * --count and --timeout for the run. See traffic.h. */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "dstguard.h"
#include "netdev.h"
#include "traffic.h"
#include <xtx/pkt.h>
#include <xtx/xtx.h>

#define MAX_THREADS	256
#define MAX_BATCH	1024
#define MAX_FLOWS	65536
#define MAX_OPTIONS	64	/* shared + own + the end of the table */

enum {
	O_DEV = 256, O_DST_IP, O_DST_MAC, O_SRC_IP, O_SRC_MAC, O_SIZE, O_FLOWS, O_DST_PORT,
	O_SRC_PORT, O_TOS, O_THREADS, O_CPUS, O_BATCH, O_SNDBUF, O_PRIORITY, O_DURATION,
	O_COUNT, O_TIMEOUT, O_STAMP, O_JSON, O_QUIET, O_ALLOW_DST, O_ALLOW_ANY_DST, O_HELP,
	O_END
};
_Static_assert(O_END <= TRAFFIC_OPT_OWN, "shared option values run into the tools' own");

/* Every shared option but the thread count, whose name the tool gives. */
static const struct option shared[] = {
	{ "dev", required_argument, NULL, O_DEV },
	{ "dst-ip", required_argument, NULL, O_DST_IP },
	{ "dst-mac", required_argument, NULL, O_DST_MAC },
	{ "src-ip", required_argument, NULL, O_SRC_IP },
	{ "src-mac", required_argument, NULL, O_SRC_MAC },
	{ "size", required_argument, NULL, O_SIZE },
	{ "flows", required_argument, NULL, O_FLOWS },
	{ "dst-port", required_argument, NULL, O_DST_PORT },
	{ "src-port", required_argument, NULL, O_SRC_PORT },
	{ "tos", required_argument, NULL, O_TOS },
	{ "cpus", required_argument, NULL, O_CPUS },
	{ "batch", required_argument, NULL, O_BATCH },
	{ "sndbuf", required_argument, NULL, O_SNDBUF },
	{ "priority", required_argument, NULL, O_PRIORITY },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "count", required_argument, NULL, O_COUNT },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "stamp", no_argument, NULL, O_STAMP },
	{ "json", no_argument, NULL, O_JSON },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "allow-dst", required_argument, NULL, O_ALLOW_DST },
	{ "allow-any-dst", no_argument, NULL, O_ALLOW_ANY_DST },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

void traffic_init(struct traffic_opts *t)
{
	memset(t, 0, sizeof(*t));
	t->size = 64;
	t->threads = 1;
	t->batch = 64;
	t->dst_port = 9000;
	t->src_port = 1024;
	t->timeout = 60;
	dstguard_init(&t->guard);
}

/* Whether spec's tool takes shared option o. */
static bool takes(const struct traffic_spec *spec, int o)
{
	switch (o) {
	case O_DST_MAC:
	case O_SRC_MAC:
		return spec->dst_mac_like != NULL;
	case O_SNDBUF:
	case O_PRIORITY:
		return spec->sockopts;
	default:
		return true;
	}
}

/* The getopt_long() table of spec's tool: the shared options it takes, then its own.
 * The order does not matter to getopt_long(), only the set of names. */
static void build_table(const struct traffic_spec *spec, struct option *tab)
{
	int n = 0;

	for (const struct option *o = shared; o->name; o++)
		if (takes(spec, o->val))
			tab[n++] = *o;
	tab[n++] = (struct option){ spec->threads_name, required_argument, NULL, O_THREADS };
	for (const struct option *o = spec->own; o && o->name; o++) {
		if (n == MAX_OPTIONS - 1)
			abort();	/* raise MAX_OPTIONS */
		tab[n++] = *o;
	}
	tab[n] = (struct option){ NULL, 0, NULL, 0 };
}

static void parse_mac(const char *opt, const char *s, uint8_t mac[6], const char *like)
{
	if (xtx_pkt__parse_mac(s, mac))
		cli_die_usage("%s: '%s' is not a MAC address like %s", opt, s, like);
}

static void parse_ip4(const char *opt, const char *s, struct in_addr *a)
{
	if (xtx_pkt__parse_ip4(s, a))
		cli_die_usage("%s: '%s' is not an IPv4 address", opt, s);
}

/* Read shared option o with argument arg into t. */
static void take(struct traffic_opts *t, const struct traffic_spec *spec, int o,
		 const char *arg)
{
	char threads[32], err[256];

	switch (o) {
	case O_DEV:
		t->dev = arg;
		break;
	case O_DST_IP:
		parse_ip4("--dst-ip", arg, &t->dst_ip);
		t->have_dst_ip = true;
		break;
	case O_DST_MAC:
		parse_mac("--dst-mac", arg, t->dst_mac, spec->dst_mac_like);
		t->have_dst_mac = true;
		break;
	case O_SRC_IP:
		parse_ip4("--src-ip", arg, &t->src_ip);
		t->have_src_ip = true;
		break;
	case O_SRC_MAC:
		parse_mac("--src-mac", arg, t->src_mac, spec->src_mac_like);
		t->have_src_mac = true;
		break;
	case O_SIZE:
		t->size = (uint32_t)cli_parse_uint("--size", arg, XTX_PKT_MIN_FRAME,
						   spec->max_size);
		break;
	case O_FLOWS:
		t->flows = (uint32_t)cli_parse_uint("--flows", arg, 1, MAX_FLOWS);
		t->have_flows = true;
		break;
	case O_DST_PORT:
		t->dst_port = (uint16_t)cli_parse_uint("--dst-port", arg, 1, 65535);
		break;
	case O_SRC_PORT:
		t->src_port = (uint16_t)cli_parse_uint("--src-port", arg, spec->min_src_port,
						       65535);
		break;
	case O_TOS:
		t->tos = (uint8_t)cli_parse_uint("--tos", arg, 0, 255);
		t->have_tos = true;
		break;
	case O_THREADS:
		snprintf(threads, sizeof(threads), "--%s", spec->threads_name);
		t->threads = (uint32_t)cli_parse_uint(threads, arg, 1, MAX_THREADS);
		break;
	case O_CPUS:
		t->ncpus = cli_parse_cpus(arg, t->cpus, CPU_SETSIZE);
		break;
	case O_BATCH:
		t->batch = (uint32_t)cli_parse_uint("--batch", arg, 1, MAX_BATCH);
		break;
	case O_SNDBUF:
		t->sndbuf = (int)cli_parse_uint("--sndbuf", arg, 4096, 1u << 30);
		break;
	case O_PRIORITY:
		t->priority = (uint32_t)cli_parse_uint("--priority", arg, 0, UINT32_MAX);
		t->have_priority = true;
		break;
	case O_DURATION:
		t->duration = cli_parse_seconds("--duration", arg);
		t->have_duration = true;
		break;
	case O_COUNT:
		t->count = cli_parse_uint("--count", arg, 1, UINT64_MAX / 2);
		break;
	case O_TIMEOUT:
		t->timeout = cli_parse_seconds("--timeout", arg);
		break;
	case O_STAMP:
		t->stamp = true;
		break;
	case O_JSON:
		t->json = true;
		break;
	case O_QUIET:
		t->quiet = true;
		break;
	case O_ALLOW_DST:
		if (dstguard_add(&t->guard, arg, err, sizeof(err)))
			cli_die_usage("%s", err);
		break;
	case O_ALLOW_ANY_DST:
		dstguard_allow_any(&t->guard);
		break;
	case O_HELP:
		fputs(spec->usage, stdout);
		exit(0);
	}
}

int traffic_getopt(struct traffic_opts *t, const struct traffic_spec *spec, int argc,
		   char **argv)
{
	struct option tab[MAX_OPTIONS];
	int o;

	build_table(spec, tab);
	opterr = 0;
	while ((o = getopt_long(argc, argv, "", tab, NULL)) != -1) {
		if (o >= TRAFFIC_OPT_OWN)
			return o;
		if (o < O_DEV || o >= O_END)
			cli_die_usage("unknown option or missing value: '%s'", argv[optind - 1]);
		take(t, spec, o, optarg);
	}
	return -1;
}

void traffic_require(const struct traffic_opts *t, const struct traffic_spec *spec,
		     int argc, char **argv)
{
	char msg[512];

	if (optind < argc)
		cli_die_usage("unexpected argument '%s'", argv[optind]);
	if (spec->need_dev && !t->dev)
		cli_die_usage("%s", spec->need_dev);
	if (!t->have_dst_ip)
		cli_die_usage("--dst-ip IP is required");
	if (spec->need_dst_mac && !t->have_dst_mac)
		cli_die_usage("%s", spec->need_dst_mac);
	/* Before any socket or interface is opened: the IP destination of the datagrams
	 * or of the frames written whole is the same --dst-ip. */
	if (dstguard_check(&t->guard, AF_INET, &t->dst_ip, "send to", msg, sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", cli_get_prog(), msg);
		exit(2);
	}
}

void traffic_finish(struct traffic_opts *t, const struct traffic_spec *spec)
{
	if (t->have_duration && t->count)
		cli_die_usage("--duration and --count exclude each other");
	if (!t->have_duration && !t->count)
		t->duration = 10;
	if (!t->have_flows)
		t->flows = t->threads;
	if (t->flows < t->threads)
		cli_die_usage("--flows %u < --%s %u: every %s needs at least one flow",
			      t->flows, spec->threads_name, t->threads, spec->thread_name);
	if ((uint32_t)t->dst_port + t->flows - 1 > 65535)
		cli_die_usage("--dst-port %u + --flows %u goes past port 65535", t->dst_port,
			      t->flows);
	if (!t->ncpus) {
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set))
			CPU_ZERO(&set);
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set))
				t->cpus[t->ncpus++] = i;
		if (!t->ncpus)
			t->cpus[t->ncpus++] = 0;
	}
}

void traffic_probe_dev(struct traffic_opts *t)
{
	int mtu;

	t->ifindex = (int)if_nametoindex(t->dev);
	if (!t->ifindex) {
		if (xtx_dev__is_null(t->dev))
			fprintf(stderr, "%s: --dev %s: %s needs a real interface; '%s' names "
				"xtx's built-in null device, which only the engine's senders take "
				"(xtx-send --dev null)\n", cli_get_prog(), t->dev, cli_get_prog(),
				t->dev);
		else
			fprintf(stderr, "%s: --dev %s: no such interface in this network namespace "
				"(see 'ip link'; run inside the right namespace with 'ip netns "
				"exec')\n", cli_get_prog(), t->dev);
		exit(1);
	}
	if (!netdev_mtu(t->dev, &mtu) && t->size > (uint32_t)mtu + XTX_PKT_ETH_HLEN) {
		fprintf(stderr, "%s: --size %u: larger than %s's MTU %d + 14; use --size <= %d "
			"or raise the MTU\n", cli_get_prog(), t->size, t->dev, mtu,
			mtu + XTX_PKT_ETH_HLEN);
		exit(1);
	}
}

void traffic_dev_addrs(struct traffic_opts *t)
{
	struct ifaddrs *ifa, *i;
	bool got_ip = false, got_mac = false;

	if (getifaddrs(&ifa))
		ifa = NULL;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || strcmp(i->ifa_name, t->dev))
			continue;
		if (!t->have_src_ip && !got_ip && i->ifa_addr->sa_family == AF_INET) {
			t->src_ip = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
			got_ip = true;
		}
		if (!t->have_src_mac && !got_mac && i->ifa_addr->sa_family == AF_PACKET) {
			struct sockaddr_ll *ll = (struct sockaddr_ll *)(void *)i->ifa_addr;

			if (ll->sll_halen == 6) {
				memcpy(t->src_mac, ll->sll_addr, 6);
				got_mac = true;
			}
		}
	}
	if (ifa)
		freeifaddrs(ifa);
	if (!t->have_src_ip && !got_ip) {
		fprintf(stderr, "%s: %s has no IPv4 address to send from; give --src-ip\n",
			cli_get_prog(), t->dev);
		exit(1);
	}
	if (!t->have_src_mac && !got_mac) {
		fprintf(stderr, "%s: cannot read %s's MAC address; give --src-mac\n",
			cli_get_prog(), t->dev);
		exit(1);
	}
}

void traffic_watch_init(const struct traffic_opts *t, struct run_watch *w)
{
	w->t0 = cli_now_ns(CLOCK_MONOTONIC);
	w->deadline = w->t0 + (uint64_t)((t->count ? t->timeout : t->duration) * 1e9);
	w->count = t->count != 0;
	w->frame_bytes = t->size;
	w->quiet = t->quiet;
	w->n = t->threads;
}

void *traffic_senders(const struct traffic_opts *t, size_t size)
{
	void *p = calloc(t->threads, size);

	if (!p) {
		fprintf(stderr, "%s: out of memory\n", cli_get_prog());
		exit(1);
	}
	return p;
}

void traffic_share(const struct traffic_opts *t, uint32_t i, struct run_sender *r)
{
	r->i = i;
	r->cpu = t->cpus[i % (uint32_t)t->ncpus];
	r->limited = t->count != 0;
	r->quota = t->count ? t->count / t->threads + (i < t->count % t->threads) : 0;
}

void traffic_udp_opts(const struct traffic_opts *t, uint32_t flow, struct xtx_pkt_udp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	memcpy(o->dst_mac, t->dst_mac, 6);
	memcpy(o->src_mac, t->src_mac, 6);
	o->src4 = t->src_ip;
	o->dst4 = t->dst_ip;
	o->src_port = t->src_port;
	o->dst_port = (uint16_t)(t->dst_port + flow);
	o->tos = t->tos;
	o->flags = XTX_PKT_F_DF;
	o->frame_len = t->size;
}

int traffic_sockopts(int fd, const struct traffic_opts *t, const char *prio_what,
		     const char **what)
{
	if (t->sndbuf) {
		*what = "setsockopt(SO_SNDBUFFORCE) (needs CAP_NET_ADMIN)";
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &t->sndbuf, sizeof(t->sndbuf)))
			return -1;
	}
	if (t->have_priority) {
		*what = prio_what;
		if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &t->priority, sizeof(int)))
			return -1;
	}
	return 0;
}

int traffic_send_error(struct traffic_errors *c, int e)
{
	switch (e) {
	case ENOBUFS:
		c->enobufs++;
		return 0;
	case EAGAIN:
		c->eagain++;
		return 0;
	case EINTR:
	case ENETDOWN:
		c->other++;
		return 0;
	default:
		return -1;
	}
}

void traffic_sender_exit(struct run_sender *r, const char *call, const char *emsgsize_hint)
{
	run_sender_end(r);
	if (r->err) {
		fprintf(stderr, "%s: thread %u: %s: %s%s; stopping\n", cli_get_prog(), r->i, call,
			strerror(r->err), r->err == EMSGSIZE ? emsgsize_hint : "");
		run_stop();
	}
	run_done();
}

void traffic_print_plan(const struct traffic_opts *t, const struct traffic_spec *spec)
{
	if (t->count)
		fprintf(stderr, "%llu %s", (unsigned long long)t->count, spec->units);
	else
		fprintf(stderr, "%g s", t->duration);
	fprintf(stderr, "%s\n", t->stamp ? ", stamped" : "");
}

void traffic_run(const struct traffic_opts *t, const struct traffic_spec *spec,
		 void *(*fn)(void *), struct run_sender *first, size_t stride,
		 struct run_watch *w, struct run_total *tot)
{
	pthread_t *tid = calloc(t->threads, sizeof(*tid));

	if (!tid) {
		fprintf(stderr, "%s: out of memory\n", cli_get_prog());
		exit(1);
	}
	run_block_signals(t->threads);
	for (uint32_t i = 0; i < t->threads; i++) {
		struct run_sender *s = run_sender_at(first, stride, i);
		int e = run_spawn(&tid[i], s->cpu, fn, s);

		if (e) {
			fprintf(stderr, "%s: starting %s %u on CPU %d: %s (is the CPU in this "
				"process's affinity mask? see --cpus)\n", cli_get_prog(),
				spec->start_name, i, s->cpu, strerror(e));
			exit(1);	/* threads already started wait in run_wait_start() */
		}
	}
	*w = (struct run_watch){ 0 };
	traffic_watch_init(t, w);
	w->progress = &first->progress;
	w->stride = stride;
	/* Before the start: run_watch() releases the senders through a barrier. */
	for (uint32_t i = 0; i < t->threads; i++)
		run_sender_at(first, stride, i)->deadline = w->deadline;
	run_watch(w);
	run_join(tid, t->threads, first, stride, tot);
	free(tid);
}

bool traffic_complete(const struct traffic_opts *t, const struct run_total *tot,
		      bool interrupted)
{
	return !tot->fatal && (t->count ? tot->sent == t->count : !interrupted);
}

void traffic_print_sent(const struct traffic_opts *t, const struct traffic_spec *spec,
			const struct run_total *tot)
{
	printf("  sent        %llu %s, %llu %s in %.3f s\n", (unsigned long long)tot->sent,
	       spec->units, (unsigned long long)(tot->sent * t->size), spec->bytes_name,
	       tot->dur);
	run_print_rates(tot->sent, t->size, tot->dur, tot->cpu_ns, spec->unit);
}

void traffic_json_start(struct jsonw *w, const char *dev)
{
	jsonw_init(w, stdout);
	jsonw_start_object(w);
	jsonw_string_field(w, "tool", cli_get_prog());
	if (dev)
		jsonw_string_field(w, "dev", dev);
}

void traffic_json_run(struct jsonw *w, const struct traffic_opts *t,
		      const struct traffic_spec *spec, const struct run_total *tot)
{
	double dur = tot->dur;
	uint64_t sent = tot->sent;

	jsonw_uint_field(w, spec->threads_name, t->threads);
	jsonw_uint_field(w, "flows", t->flows);
	jsonw_uint_field(w, "size", t->size);
	jsonw_bool_field(w, "stamp", t->stamp);
	jsonw_uint_field(w, "sent_pkts", sent);
	jsonw_uint_field(w, "sent_bytes", sent * t->size);
	jsonw_float_field(w, "duration_s", dur, 6);
	jsonw_float_field(w, "pps", dur > 0 ? (double)sent / dur : 0.0, 1);
	jsonw_float_field(w, "cpu_ns_per_pkt", sent ? (double)tot->cpu_ns / (double)sent : 0.0,
			  2);
}

void traffic_json_end(struct jsonw *w, const struct traffic_opts *t,
		      const struct traffic_spec *spec, const struct run_total *tot,
		      bool interrupted, const struct run_sender *first, size_t stride)
{
	char per[32];

	jsonw_bool_field(w, "complete", traffic_complete(t, tot, interrupted));
	jsonw_bool_field(w, "interrupted", interrupted);
	snprintf(per, sizeof(per), "per_%s", spec->thread_name);
	jsonw_name(w, per);
	jsonw_start_array(w);
	for (uint32_t i = 0; i < t->threads; i++) {
		const struct run_sender *s = run_sender_at((struct run_sender *)first, stride, i);

		jsonw_start_object(w);
		jsonw_uint_field(w, spec->thread_name, i);
		jsonw_int_field(w, "cpu", s->cpu);
		jsonw_uint_field(w, "sent_pkts", s->sent);
		if (spec->calls)
			jsonw_uint_field(w, "calls", s->calls);
		jsonw_uint_field(w, "cpu_ns", s->cpu_ns);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
	jsonw_finish(w);
}

int traffic_status(const struct traffic_opts *t, const struct run_watch *w, bool fatal,
		   uint64_t sent, const char *check)
{
	const char *why = "", *what = "";

	if (fatal)
		return 1;
	if (!t->count || sent == t->count)
		return 0;
	if (w->interrupted) {
		why = " (interrupted)";
	} else if (w->timed_out) {
		why = " within --timeout; raise --timeout or check ";
		what = check;
	}
	fprintf(stderr, "%s: sent %llu of --count %llu%s%s\n", cli_get_prog(),
		(unsigned long long)sent, (unsigned long long)t->count, why, what);
	return w->interrupted ? 0 : 1;
}
