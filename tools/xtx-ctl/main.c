/* SPDX-License-Identifier: BSD-3-Clause */
/* xtx-ctl - ask and tell a running xtx engine (xtx-shape, or an application that called
 * xtx_engine__control_listen()) through its control socket, in tc's words. `xtx-ctl
 * --help` is the manual; the server side is userspace/engine/control.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define CTL_DIR		"/run/xtx"

static const char usage_text[] =
"NAME\n"
"    xtx-ctl - show and change a running xtx engine's classes, in tc's words\n"
"\n"
"SYNOPSIS\n"
"    xtx-ctl [-s] [-j] [--watch S [--count N]] [--control PATH] class show [dev IF]\n"
"    xtx-ctl [--control PATH] class change dev IF classid H OPTION VALUE...\n"
"    xtx-ctl [--control PATH] class add dev IF classid H parent P OPTION VALUE...\n"
"    xtx-ctl [--control PATH] class del dev IF classid H\n"
"    xtx-ctl [--control PATH] reload dev IF FILE\n"
"    xtx-ctl [-j] [--control PATH] stats dev IF\n"
"    xtx-ctl [--control PATH] metrics dev IF\n"
"\n"
"DESCRIPTION\n"
"    Talks to the control socket of the engine that sends on IF: /run/xtx/IF.ctl\n"
"    (/run/xtx/null.ctl for the null device), or PATH. The socket answers its owner's\n"
"    uid only (mode 0600, and the peer's uid checked); anyone else is refused and told.\n"
"\n"
"    class show     every class of the running tree, as tc class show prints HTB's:\n"
"                   handle, parent (or root), leaf, prio, rate, ceil, burst, cburst.\n"
"                   With -s (tc -s) its counters: Sent bytes and packets, dropped (all\n"
"                   reasons), overlimits (times it went over its rate or ceil), the rate\n"
"                   it sent at over the last whole second, backlog (wire bytes of a leaf\n"
"                   with a room target; 0 otherwise) and packets queued, lended (packets\n"
"                   sent on its own rate) and borrowed, tokens and ctokens (nanoseconds\n"
"                   of transmission time), and the drops by reason. With -j one JSON\n"
"                   array as tc -j: {class, handle, parent or root, leaf, prio, rate,\n"
"                   ceil (bytes/s), burst, cburst, quantum (bytes); with -s stats\n"
"                   {bytes, packets, drops, overlimits, requeues, backlog, qlen,\n"
"                   rate_bps, drops_by_reason {REASON: n}} and xstats {lends, borrows,\n"
"                   giants, tokens, ctokens}}.\n"
"    class change   replace class H's options while it runs, as tc class change: the\n"
"                   options given (class file words: rate, ceil, burst, cburst, quantum,\n"
"                   prio, limit, fq, flows, flow_limit, fq_quantum, maxrate, target,\n"
"                   codel, scope; docs/config.md) and, for the rest, their defaults;\n"
"                   the parent stays (a parent other than H's is refused: a class is\n"
"                   not moved). Impossible trees and what the engine cannot take (a\n"
"                   new overhead, more classes than it has indexes for, a room target\n"
"                   where it opened with none) are refused with the reason, and nothing\n"
"                   changes (docs/config.md, 'Changing a running tree').\n"
"    class add      a class H under P (a class of the tree, or root) with the options\n"
"                   given, as tc class add; refused if H is there. Classes added and\n"
"                   removed keep every other class's index, tokens, counters and\n"
"                   queued packets.\n"
"    class del      remove class H, as tc class del: its queued packets go to the\n"
"                   default class (xtx-ctl stats: moved). Refused for a class with\n"
"                   children, the default class, and in xtx-shape a class its rules\n"
"                   send to.\n"
"    reload         the class file FILE for the running tree, as xtx-shape's SIGHUP\n"
"                   (FILE is read by the engine's process).\n"
"    stats          per TX queue: packets and bytes sent, completed, dropped, TX ring\n"
"                   full, the ring limit, kicks, moved (queued packets of removed\n"
"                   classes given to the default class); producers open and what they\n"
"                   sent;\n"
"                   frames by place (pool, producers' caches, application, stages,\n"
"                   schedulers, TX rings, dequeuers, fill ring, receivers).\n"
"    metrics        the same counters as Prometheus metrics (text format 0.0.4, what\n"
"                   promtool check metrics reads): xtx_class_sent_bytes_total,\n"
"                   xtx_class_sent_packets_total, xtx_class_drops_total{reason},\n"
"                   xtx_class_overlimits_total, xtx_class_borrowed_packets_total,\n"
"                   xtx_class_backlog_packets, xtx_class_backlog_bytes,\n"
"                   xtx_class_rate_bytes_per_second,\n"
"                   xtx_class_ceil_bytes_per_second (labels dev, class);\n"
"                   xtx_queue_sent_packets_total,\n"
"                   xtx_queue_sent_bytes_total, xtx_queue_completed_packets_total,\n"
"                   xtx_queue_tx_ring_full_total, xtx_queue_kicks_total,\n"
"                   xtx_queue_ring_limit_packets (dev, queue); xtx_frames (dev, place).\n"
"                   xtx-shape --metrics serves them over HTTP.\n"
"\n"
"OPTIONS\n"
"    -s, --stats        with class show: the counters\n"
"    -j, --json         JSON, as tc -j\n"
"    --control PATH     the socket (default /run/xtx/IF.ctl from 'dev IF')\n"
"    --watch S          class show: redraw every S seconds until interrupted\n"
"    --count N          with --watch: stop after N draws\n"
"    -h, --help         this text\n"
"\n"
"EXIT STATUS\n"
"    0 done; 1 the engine refused (its message on stderr) or could not be reached (no\n"
"    socket, a stale one, another uid); 2 bad usage.\n"
"\n"
"EXAMPLES\n"
"    xtx-ctl -s class show dev eth1\n"
"    xtx-ctl class change dev eth1 classid 1:10 rate 200mbit ceil 300mbit\n"
"    xtx-ctl class add dev eth1 parent 1: classid 1:30 rate 50mbit ceil 100mbit fq\n"
"    xtx-ctl class del dev eth1 classid 1:30\n"
"    xtx-ctl -j stats dev eth1 | jq '.frames'\n";

static void usage(void)
{
	fputs(usage_text, stdout);
	exit(0);
}

/* One request; its answer's body on stdout. 0, or 1 after the message. */
static int ask(const char *path, const char *req, const char *dev)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t got = 0, cap = 0;
	char *buf = NULL, *nl;
	int fd, rc = 1, send_err = 0;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = errno;

		if (e == ENOENT)
			fprintf(stderr, "xtx-ctl: no control socket %s: no xtx engine listens "
				"for %s (xtx-shape running? an application that calls "
				"xtx_engine__control_listen()?)\n", path, dev ? dev : path);
		else if (e == ECONNREFUSED)
			fprintf(stderr, "xtx-ctl: %s is stale: nothing listens there (the "
				"engine exited without removing it; it is replaced at the next "
				"start)\n", path);
		else if (e == EACCES)
			fprintf(stderr, "xtx-ctl: %s: permission denied: the control socket "
				"answers its owner only (run as the engine's user)\n", path);
		else
			fprintf(stderr, "xtx-ctl: %s: %s\n", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	/* A send the engine cut short (it refuses a peer before reading) still leaves its
	 * answer to read: report the send only without one. */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req))
		send_err = errno;
	for (;;) {		/* the whole answer: the server closes after it */
		ssize_t k;

		if (got + 4096 > cap) {
			char *n = realloc(buf, cap = cap * 2 + 65536);

			if (!n) {
				fprintf(stderr, "xtx-ctl: out of memory\n");
				free(buf);
				close(fd);
				return 1;
			}
			buf = n;
		}
		k = recv(fd, buf + got, cap - got - 1, 0);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	if (!buf) {
		fprintf(stderr, "xtx-ctl: out of memory\n");
		return 1;
	}
	buf[got] = '\0';
	if (!got && send_err) {
		fprintf(stderr, "xtx-ctl: %s: send: %s\n", path, strerror(send_err));
		free(buf);
		return 1;
	}
	nl = strchr(buf, '\n');
	if (!strncmp(buf, "ok\n", 3)) {
		fputs(buf + 3, stdout);
		rc = 0;
	} else {
		if (nl)
			*nl = '\0';
		fprintf(stderr, "xtx-ctl: %s\n", !strncmp(buf, "error: ", 7) ? buf + 7 :
			buf[0] ? buf : "the engine closed the connection without an answer");
	}
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "stats", 0, 0, 's' }, { "json", 0, 0, 'j' }, { "control", 1, 0, 'c' },
		{ "watch", 1, 0, 'w' }, { "count", 1, 0, 'n' }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	const char *path = NULL, *dev = NULL;
	char req[8192] = "", def[128];
	double watch = 0;
	uint64_t count = 0;
	bool stats = false, json = false;
	int c, rc, nw = 0;

	cli_set_prog("xtx-ctl");
	while ((c = getopt_long(argc, argv, "+sjh", lo, NULL)) != -1) {
		switch (c) {
		case 's': stats = true; break;
		case 'j': json = true; break;
		case 'c': path = optarg; break;
		case 'w': watch = cli_parse_period("--watch", optarg); break;
		case 'n': count = cli_parse_uint("--count", optarg, 1, UINT32_MAX); break;
		case 'h': usage(); break;
		default: cli_die_usage("unknown option (see --help)");
		}
	}
	/* The words, but "dev IF", which names the socket. */
	for (int i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "dev") && i + 1 < argc) {
			dev = argv[++i];
			continue;
		}
		if (strlen(req) + strlen(argv[i]) + 2 >= sizeof(req))
			cli_die_usage("the request is longer than %zu bytes", sizeof(req));
		strcat(req, nw++ ? " " : "");
		strcat(req, argv[i]);
	}
	if (!nw)
		cli_die_usage("give a request: class show, class change, class add, class del, "
			      "reload, stats or metrics (see --help)");
	if (!path && !dev)
		cli_die_usage("give dev IF (or --control PATH)");
	if (!path) {
		if (strchr(dev, '/') || strlen(dev) > 64)
			cli_die_usage("dev '%s': not an interface name", dev);
		snprintf(def, sizeof(def), CTL_DIR "/%s.ctl", dev);
		path = def;
	}
	if (watch && strncmp(req, "class show", 10))
		cli_die_usage("--watch goes with class show");
	if (count && !watch)
		cli_die_usage("--count goes with --watch");
	strcat(req, stats ? " -s" : "");
	strcat(req, json ? " -j" : "");
	strcat(req, "\n");
	if (!watch)
		return ask(path, req, dev);
	for (uint64_t i = 0; !count || i < count; i++) {
		struct timespec ts = { (time_t)watch, (long)((watch - (time_t)watch) * 1e9) };

		if (i)
			nanosleep(&ts, NULL);
		if (!json)
			fputs("\033[H\033[2J", stdout);	/* redraw in place */
		rc = ask(path, req, dev);
		fflush(stdout);
		if (rc)
			return rc;
	}
	return 0;
}
