/* SPDX-License-Identifier: BSD-3-Clause */
/* control.c - the engine's control socket (xtx_engine__control_listen()): what xtx-ctl
 * talks to.
 *
 * Rules
 *   - A UNIX stream socket, mode 0600, under /run/xtx/ unless given: a peer whose uid
 *     (SO_PEERCRED) is not this process's effective uid is told so and closed, whatever
 *     the file's mode.
 *   - One request per connection: one line of words, at most CTL_LINE bytes, read within
 *     a second. The answer is "ok\n" or "error: MESSAGE\n", then the body, then the
 *     server closes. One connection at a time.
 *   - Requests, in tc's words (tools/xtx-ctl/main.c is the manual):
 *       class show [-s] [-j]            the running tree, with -s its counters
 *       class change classid H WORDS    H's class line replaced by WORDS (tc's class
 *                                       change: what is not given takes its default)
 *       reload FILE                     a class file for the running tree
 *       stats [-j]                      queues, producers, frames by place
 *       metrics                         xtx_engine__metrics()'s text
 *   - Changes go through xtx_engine__classes_change() (its lock serializes them with the
 *     application's own). The measured rate of a class is its sent bytes over the last
 *     whole second, sampled by this thread.
 *   - The thread stops at xtx_engine__stop(), before the dequeuers, and the socket file
 *     is removed.
 * Control path only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "engine_int.h"
#include "err.h"
#include "fdio.h"

#define CTL_LINE	4096
#define CTL_DIR		"/run/xtx"
#define CTL_DEADLINE_NS	(2ull * 1000000000ull)	/* one connection, read and answer */

/* --- answers ----------------------------------------------------------------------- */

static void put_rate(FILE *f, uint64_t bytes_per_s)
{
	static const char *const unit[] = { "bit", "Kbit", "Mbit", "Gbit", "Tbit" };
	double v = (double)bytes_per_s * 8;
	unsigned u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	fprintf(f, "%.4g%s", v, unit[u]);
}

static void class_line(FILE *f, const struct xtx_sched_config *cfg, unsigned c)
{
	const struct xtx_class_opts *co = xtx_sched_config__class(cfg, c);
	char h[XTX_HANDLE_STRLEN], p[XTX_HANDLE_STRLEN];

	xtx_handle__str(co->handle, h, sizeof(h));
	xtx_handle__str(co->parent, p, sizeof(p));
	fprintf(f, "class htb %s %s%s%s prio %u rate ", h,
		co->parent == XTX_HANDLE_ROOT ? "root" : "parent ",
		co->parent == XTX_HANDLE_ROOT ? "" : p,
		xtx_sched_config__is_leaf(cfg, co->handle) == 1 ? " leaf" : "", co->prio);
	put_rate(f, co->rate);
	fputs(" ceil ", f);
	put_rate(f, co->ceil ? co->ceil : co->rate);
	fprintf(f, " burst %ub cburst %ub\n", co->burst, co->cburst);
}

static uint64_t drops_of(const struct xtx_class_stats *st)
{
	uint64_t d = 0;

	for (unsigned r = 0; r < XTX_DROP__MAX; r++)
		d += st->drops[r];
	return d;
}

static void class_stats_text(FILE *f, const struct xtx_class_stats *st, uint64_t bps)
{
	fprintf(f, " Sent %llu bytes %llu pkt (dropped %llu, overlimits %llu requeues 0)\n"
		" rate ", (unsigned long long)st->sent_bytes, (unsigned long long)st->sent_pkts,
		(unsigned long long)drops_of(st), (unsigned long long)st->throttled);
	put_rate(f, bps);
	fprintf(f, " backlog %ub %up requeues 0\n lended: %llu borrowed: %llu giants: 0\n"
		" tokens: %lld ctokens: %lld\n drops:", st->backlog, st->qlen,
		(unsigned long long)(st->sent_pkts - st->borrows),
		(unsigned long long)st->borrows, (long long)st->tokens, (long long)st->ctokens);
	for (unsigned r = 0; r < XTX_DROP__MAX; r++)
		fprintf(f, " %s %llu", xtx_drop_reason__str(r), (unsigned long long)st->drops[r]);
	fputs("\n\n", f);
}

static void class_json(FILE *f, const struct xtx_sched_config *cfg, unsigned c, bool stats,
		       const struct xtx_class_stats *st, uint64_t bps)
{
	const struct xtx_class_opts *co = xtx_sched_config__class(cfg, c);
	char h[XTX_HANDLE_STRLEN], p[XTX_HANDLE_STRLEN];

	xtx_handle__str(co->handle, h, sizeof(h));
	xtx_handle__str(co->parent, p, sizeof(p));
	fprintf(f, "{\"class\":\"htb\",\"handle\":\"%s\",", h);
	if (co->parent == XTX_HANDLE_ROOT)
		fputs("\"root\":true,", f);
	else
		fprintf(f, "\"parent\":\"%s\",", p);
	fprintf(f, "\"leaf\":%s,\"prio\":%u,\"rate\":%llu,\"ceil\":%llu,\"burst\":%u,"
		"\"cburst\":%u,\"quantum\":%u",
		xtx_sched_config__is_leaf(cfg, co->handle) == 1 ? "true" : "false", co->prio,
		(unsigned long long)co->rate, (unsigned long long)(co->ceil ? co->ceil : co->rate),
		co->burst, co->cburst, co->quantum);
	if (stats) {
		fprintf(f, ",\"stats\":{\"bytes\":%llu,\"packets\":%llu,\"drops\":%llu,"
			"\"overlimits\":%llu,\"requeues\":0,\"backlog\":%u,\"qlen\":%u,"
			"\"rate_bps\":%llu,\"drops_by_reason\":{",
			(unsigned long long)st->sent_bytes, (unsigned long long)st->sent_pkts,
			(unsigned long long)drops_of(st), (unsigned long long)st->throttled,
			st->backlog, st->qlen, (unsigned long long)bps * 8);
		for (unsigned r = 0; r < XTX_DROP__MAX; r++)
			fprintf(f, "%s\"%s\":%llu", r ? "," : "", xtx_drop_reason__str(r),
				(unsigned long long)st->drops[r]);
		fprintf(f, "}},\"xstats\":{\"lends\":%llu,\"borrows\":%llu,\"giants\":0,"
			"\"tokens\":%lld,\"ctokens\":%lld}",
			(unsigned long long)(st->sent_pkts - st->borrows),
			(unsigned long long)st->borrows, (long long)st->tokens,
			(long long)st->ctokens);
	}
	fputc('}', f);
}

static void class_show(struct xtx_engine *e, FILE *f, bool stats, bool json)
{
	struct xtx_control *k = e->control;
	const struct xtx_sched_config *cfg;
	unsigned n;

	pthread_mutex_lock(&e->change_lock);
	cfg = e->cur;
	n = xtx_sched_config__class_count(cfg);
	fputs(json ? "ok\n[" : "ok\n", f);
	for (unsigned c = 0; c < n; c++) {
		struct xtx_class_stats st;
		uint32_t slot = e->slot_of[c];	/* change_lock: cur's class c */
		uint64_t bps = slot < k->ncls ? k->bps[slot] : 0;

		xtx_engine__class_stats(e, slot, &st);
		if (json) {
			if (c)
				fputc(',', f);
			class_json(f, cfg, c, stats, &st, bps);
			continue;
		}
		class_line(f, cfg, c);
		if (stats)
			class_stats_text(f, &st, bps);
	}
	if (json)
		fputs("]\n", f);
	pthread_mutex_unlock(&e->change_lock);
}

static void stats_show(struct xtx_engine *e, FILE *f, bool json)
{
	struct xtx_producer_stats ps;
	struct xtx_frame_count fc;

	xtx_engine__producer_totals(e, &ps);
	xtx_engine__frames(e, &fc);
	fputs(json ? "ok\n{\"queues\":[" : "ok\n", f);
	for (unsigned q = 0; q < e->nq; q++) {
		struct xtx_queue_stats qs;
		uint64_t d = 0;

		xtx_engine__queue_stats(e, q, &qs);
		for (unsigned r = 0; r < XTX_DROP__MAX; r++)
			d += qs.drops[r];
		fprintf(f, json ? "%s{\"queue\":%u,\"sent_pkts\":%llu,\"sent_bytes\":%llu,"
				  "\"completed\":%llu,\"drops\":%llu,\"tx_ring_full\":%llu,"
				  "\"ring_limit\":%llu,\"kicks\":%llu,\"moved\":%llu}"
			       : "%squeue %u: sent %llu pkt %llu bytes, completed %llu, dropped "
				 "%llu, tx ring full %llu, ring limit %llu, kicks %llu, moved "
				 "%llu\n",
			json && q ? "," : "", q, (unsigned long long)qs.sent_pkts,
			(unsigned long long)qs.sent_bytes, (unsigned long long)qs.completed,
			(unsigned long long)d, (unsigned long long)qs.tx_ring_full,
			(unsigned long long)qs.ring_limit, (unsigned long long)qs.kicks,
			(unsigned long long)qs.moved);
	}
	fprintf(f, json ? "],\"producers\":{\"open\":%u,\"sent\":%llu,\"sent_bytes\":%llu,"
			  "\"room_waits\":%llu},"
		       : "producers: %u open, sent %llu pkt %llu bytes, room waits %llu\n",
		xtx_registry__open_hint(&e->reg), (unsigned long long)ps.sent,
		(unsigned long long)ps.sent_bytes, (unsigned long long)ps.room_waits);
	fprintf(f, json ? "\"frames\":{\"total\":%llu,\"pool\":%llu,\"cached\":%llu,\"app\":%llu,"
			  "\"stage\":%llu,\"sched\":%llu,\"tx\":%llu,\"dequeuer\":%llu,"
			  "\"fill\":%llu,\"receiver\":%llu}}\n"
		       : "frames: %llu total, pool %llu, cached %llu, app %llu, stage %llu, "
			 "sched %llu, tx %llu, dequeuer %llu, fill %llu, receiver %llu\n",
		(unsigned long long)fc.total, (unsigned long long)fc.pool,
		(unsigned long long)fc.cached, (unsigned long long)fc.app,
		(unsigned long long)fc.stage, (unsigned long long)fc.sched,
		(unsigned long long)fc.tx, (unsigned long long)fc.dequeuer,
		(unsigned long long)fc.fill, (unsigned long long)fc.receiver);
}

/* --- changes ----------------------------------------------------------------------- */

/* cfg (NULL: err says why it did not parse) for the running tree; with `locked` the
 * caller holds change_lock. */
static void answer_change(struct xtx_engine *e, FILE *f, struct xtx_sched_config *cfg,
			  const char *err, bool locked)
{
	char msg[1024];
	int rc;

	if (!cfg) {
		fprintf(f, "error: %s\n", err);
		return;
	}
	rc = locked ? xtx_classes_change_locked(e, cfg, msg, sizeof(msg))
		    : xtx_engine__classes_change(e, cfg, msg, sizeof(msg));
	xtx_sched_config__free(cfg);
	if (rc)
		fprintf(f, "error: %s\n", msg[0] ? msg : strerror(-rc));
	else
		fputs("ok\n", f);
}

enum edit { ED_CHANGE, ED_ADD, ED_DEL };

/* The running tree's text with class h's line replaced by "class H parent P WORDS"
 * (change; P: its parent, or `parent` if given and the same), added (add; `parent`
 * given) or left out (del) into *out; 0, or an answer already written to f. Refused as
 * tc refuses: a change or del of a class that is not there, an add of one that is, a
 * change that moves a class, a del of a class with children or of the default class. */
static int edited_text(struct xtx_engine *e, FILE *f, enum edit ed, uint32_t h,
		       const char *parent, const char *words, char **out)
{
	char hs[XTX_HANDLE_STRLEN], ps[XTX_HANDLE_STRLEN], *text, *save = NULL;
	const struct xtx_sched_config *cur = e->cur;
	int idx = xtx_sched_config__class_index(cur, h);
	int n = xtx_sched_config__format(cur, NULL, 0);
	size_t outlen = 0;
	FILE *o;

	xtx_handle__str(h, hs, sizeof(hs));
	if (idx < 0 && ed != ED_ADD) {
		fprintf(f, "error: class %s: no such class in the running tree\n", hs);
		return -ENOENT;
	}
	if (idx >= 0 && ed == ED_ADD) {
		fprintf(f, "error: class %s: already in the running tree (class change "
			"changes it)\n", hs);
		return -EEXIST;
	}
	if (ed == ED_ADD && !parent) {
		fprintf(f, "error: class add: give parent P (a class of the tree, or root)\n");
		return -EINVAL;
	}
	if (idx >= 0)
		xtx_handle__str(xtx_sched_config__class(cur, (unsigned)idx)->parent, ps, sizeof(ps));
	if (ed == ED_CHANGE && parent && strcmp(parent, ps) &&
	    !(!strcmp(parent, "root") && !strcmp(ps, "root"))) {
		fprintf(f, "error: class %s: its parent is %s: class change cannot move a class "
			"(as tc: class del, then class add)\n", hs, ps);
		return -EINVAL;
	}
	if (ed == ED_DEL) {
		for (unsigned i = 0; i < xtx_sched_config__class_count(cur); i++)
			if (xtx_sched_config__class(cur, i)->parent == h) {
				fprintf(f, "error: class %s has children: delete them first (as tc)\n",
					hs);
				return -EBUSY;
			}
		if (xtx_sched_config__default(cur) == h) {
			fprintf(f, "error: class %s is the default class: reload a file with "
				"another default first\n", hs);
			return -EBUSY;
		}
	}
	text = n > 0 ? malloc((size_t)n + 1) : NULL;
	o = text ? open_memstream(out, &outlen) : NULL;
	if (!o) {
		fputs("error: out of memory\n", f);
		free(text);
		return -ENOMEM;
	}
	xtx_sched_config__format(cur, text, (size_t)n + 1);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t k = strlen("class ") + strlen(hs);
		bool mine = !strncmp(line, "class ", 6) && !strncmp(line + 6, hs, strlen(hs)) &&
			    line[k] == ' ';

		if (mine && ed == ED_CHANGE)
			fprintf(o, "class %s parent %s %s\n", hs, ps, words);
		else if (!mine)
			fprintf(o, "%s\n", line);
	}
	if (ed == ED_ADD)
		fprintf(o, "class %s parent %s %s\n", hs, parent, words);
	fclose(o);
	free(text);
	return 0;
}

/* Edited, parsed and changed under one hold of change_lock: no other change can land
 * between the snapshot of the tree and this change and be undone by it. */
static void class_edit(struct xtx_engine *e, FILE *f, enum edit ed, uint32_t h,
		       const char *parent, const char *words)
{
	static const char *const what[] = { "class change", "class add", "class del" };
	char err[1024], *out = NULL;

	pthread_mutex_lock(&e->change_lock);
	if (!edited_text(e, f, ed, h, parent, words, &out))
		answer_change(e, f, xtx_sched_config__parse_string(out, what[ed], err,
								   sizeof(err)), err, true);
	pthread_mutex_unlock(&e->change_lock);
	free(out);
}

/* "class change|add|del [classid H] [parent P] WORDS" in any order, as tc takes them:
 * H and P pulled out, the rest the class line's words (none for del). */
static void class_request(struct xtx_engine *e, FILE *f, const char *verb, char *rest)
{
	char words[CTL_LINE + 1] = "", *save = NULL, *hs = NULL, *parent = NULL;
	enum edit ed = !strcmp(verb, "add") ? ED_ADD : !strcmp(verb, "del") ? ED_DEL : ED_CHANGE;
	uint32_t maj, min;
	char c;

	for (char *t = strtok_r(rest, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
		if (!strcmp(t, "classid") || !strcmp(t, "parent")) {
			char *v = strtok_r(NULL, " \t\r\n", &save);

			if (!v) {
				fprintf(f, "error: %s: give a value\n", t);
				return;
			}
			*(t[0] == 'c' ? &hs : &parent) = v;
			continue;
		}
		if (!strcmp(t, "-s") || !strcmp(t, "-j"))
			continue;
		strncat(words, " ", sizeof(words) - strlen(words) - 1);
		strncat(words, t, sizeof(words) - strlen(words) - 1);
	}
	if (!hs) {
		fprintf(f, "error: class %s: give classid H\n", verb);
		return;
	}
	if (!(sscanf(hs, "%x:%x%c", &maj, &min, &c) == 2 ||
	      (sscanf(hs, "%x:%c", &maj, &c) == 1 && (min = 0, 1))) || maj > 0xffff ||
	    min > 0xffff) {
		fprintf(f, "error: classid '%s': expected a handle MAJ:MIN\n", hs);
		return;
	}
	if (ed == ED_DEL && words[0]) {
		fprintf(f, "error: class del takes classid H only, not '%s'\n", words + 1);
		return;
	}
	class_edit(e, f, ed, XTX_HANDLE(maj, min), parent, words[0] ? words + 1 : "");
}

/* --- requests ---------------------------------------------------------------------- */

static void handle(struct xtx_engine *e, FILE *f, char *line)
{
	char *w[8] = { 0 }, *rest = NULL, *save = NULL;
	unsigned n = 0;
	bool stats = false, json = false;

	for (char *t = strtok_r(line, " \t\r\n", &save); t && n < 8;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		w[n++] = t;
		if (n == 2 && !strcmp(w[0], "class") && strcmp(w[1], "show")) {
			rest = save;	/* the class line's words, as given */
			break;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		stats |= w[i] && !strcmp(w[i], "-s");
		json |= w[i] && !strcmp(w[i], "-j");
	}
	if (n >= 2 && !strcmp(w[0], "class") && !strcmp(w[1], "show")) {
		class_show(e, f, stats, json);
	} else if (n == 2 && !strcmp(w[0], "class") && (!strcmp(w[1], "change") ||
		   !strcmp(w[1], "add") || !strcmp(w[1], "del"))) {
		class_request(e, f, w[1], rest ? rest : (char *)"");
	} else if (n == 2 && !strcmp(w[0], "reload")) {
		char err[1024];

		answer_change(e, f, xtx_sched_config__parse_file(w[1], err, sizeof(err)), err,
			      false);
	} else if (n >= 1 && !strcmp(w[0], "stats")) {
		stats_show(e, f, json);
	} else if (n == 1 && !strcmp(w[0], "metrics")) {
		char *text;
		size_t len;

		if (xtx_engine__metrics(e, &text, &len)) {
			fputs("error: out of memory\n", f);
		} else {
			fputs("ok\n", f);
			fwrite(text, 1, len, f);
			free(text);
		}
	} else {
		fputs("error: unknown request; expected 'class show [-s] [-j]', 'class change "
		      "classid H OPTIONS', 'class add classid H parent P OPTIONS', 'class del "
		      "classid H', 'reload FILE', 'stats [-j]' or 'metrics'\n", f);
	}
}

/* One connection, within CTL_DEADLINE_NS in all (the request read and the answer
 * written: a peer that stalls cannot hold the thread, nor xtx_engine__stop() behind it). */
static void serve(struct xtx_engine *e, int fd)
{
	uint64_t deadline = xtx_now_ns() + CTL_DEADLINE_NS;
	struct ucred uc = { 0, 0, 0 };
	socklen_t ul = sizeof(uc);
	char line[CTL_LINE + 1], *out = NULL, *nl;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) || uc.uid != geteuid()) {
		fprintf(f, "error: uid %d may not control this engine: its control socket "
			"answers its owner, uid %u, only\n", (int)uc.uid, (unsigned)geteuid());
	} else {
		xtx_fd_read_until(fd, line, sizeof(line), "\n", deadline,
				  e->control->stop_fd[0]);
		nl = strchr(line, '\n');
		if (!nl) {
			fprintf(f, "error: no request line (at most %d bytes, within %llu s)\n",
				CTL_LINE, CTL_DEADLINE_NS / 1000000000ull);
		} else {
			*nl = '\0';	/* one line: nothing after it is part of the request */
			handle(e, f, line);
		}
	}
	fclose(f);
	if (out)
		xtx_fd_write_all(fd, out, len, deadline, e->control->stop_fd[0]);
	free(out);
}

/* Each class slot's sent bytes over the last whole second. */
static void sample(struct xtx_engine *e, struct xtx_control *k, uint64_t now)
{
	if (now - k->t_last < 1000000000ull)
		return;
	for (unsigned c = 0; c < k->ncls; c++) {
		struct xtx_class_stats st;

		xtx_engine__class_stats(e, c, &st);
		/* 0 for a slot whose class changed since (its counter started again) */
		k->bps[c] = k->t_last && st.sent_bytes >= k->last[c] ?
			    (uint64_t)((unsigned __int128)(st.sent_bytes - k->last[c]) *
				       1000000000ull / (now - k->t_last)) : 0;
		k->last[c] = st.sent_bytes;
	}
	k->t_last = now;
}

static void *control_main(void *arg)
{
	struct xtx_engine *e = arg;
	struct xtx_control *k = e->control;

	for (;;) {
		struct pollfd p[2] = { { k->lfd, POLLIN, 0 }, { k->stop_fd[0], POLLIN, 0 } };

		if (poll(p, 2, 250) < 0 && errno != EINTR)
			break;
		/* Relaxed: a flag on its own (xtx_control_stop() also writes stop_fd). */
		if (p[1].revents || atomic_load_explicit(&k->stop, memory_order_relaxed))
			break;
		sample(e, k, xtx_now_ns());
		if (p[0].revents & POLLIN) {
			int fd = accept4(k->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

			if (fd >= 0) {
				serve(e, fd);
				close(fd);
			}
		}
	}
	return NULL;
}

/* --- listen and stop --------------------------------------------------------------- */

/* Bind path: a live listener there is refused; a stale socket file is replaced. */
static int bind_path(int fd, const char *path, int *bound, char *err, size_t errlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int rc;

	if (strlen(path) >= sizeof(a.sun_path)) {
		xtx_errf(err, errlen, "control socket path %s: longer than %zu bytes", path,
			 sizeof(a.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(a.sun_path, path);
	if (!access(path, F_OK)) {
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		rc = probe >= 0 && !connect(probe, (struct sockaddr *)&a, sizeof(a));
		if (probe >= 0)
			close(probe);
		if (rc) {
			xtx_errf(err, errlen, "control socket %s: another process listens "
				 "there (give another path)", path);
			return -EADDRINUSE;
		}
		if (lstat(path, &st) || !S_ISSOCK(st.st_mode)) {
			xtx_errf(err, errlen, "control socket %s: the path exists and is not a "
				 "socket (give another path)", path);
			return -EEXIST;
		}
		unlink(path);	/* stale: left by a process that died */
	}
	/* 0600 right after the bind; a peer that connects in between is still checked
	 * by its uid (serve()). */
	rc = bind(fd, (struct sockaddr *)&a, sizeof(a)) || chmod(path, 0600) ? -errno : 0;
	*bound = !access(path, F_OK) && !rc;
	if (rc)
		xtx_errf(err, errlen, "control socket %s: %s", path, strerror(-rc));
	return rc;
}

int xtx_engine__control_listen(struct xtx_engine *e, const char *path, char *err,
			       size_t errlen)
{
	struct xtx_control *k;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!e)
		return -EINVAL;
	if (e->control)
		return -EBUSY;
	if (e->stopped)
		return -ESRCH;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	if (path && strlen(path) >= sizeof(k->path)) {
		xtx_errf(err, errlen, "control socket path %s: longer than %zu bytes", path,
			 sizeof(k->path) - 1);
		free(k);
		return -ENAMETOOLONG;
	}
	k->lfd = k->stop_fd[0] = k->stop_fd[1] = -1;
	k->ncls = e->nslots;
	k->bps = calloc(k->ncls ? k->ncls : 1, sizeof(*k->bps));
	k->last = calloc(k->ncls ? k->ncls : 1, sizeof(*k->last));
	if (path)
		snprintf(k->path, sizeof(k->path), "%s", path);
	else
		snprintf(k->path, sizeof(k->path), CTL_DIR "/%s.ctl",
			 e->null ? "null" : e->ifname);
	rc = !k->bps || !k->last ? -ENOMEM : 0;
	if (!rc && !path && mkdir(CTL_DIR, 0755) && errno != EEXIST) {
		rc = -errno;
		xtx_errf(err, errlen, "cannot make %s: %s", CTL_DIR, strerror(-rc));
	}
	if (!rc) {
		k->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		rc = k->lfd < 0 || pipe2(k->stop_fd, O_CLOEXEC) ? -errno : 0;
	}
	if (!rc)
		rc = bind_path(k->lfd, k->path, &k->bound, err, errlen);
	if (!rc && listen(k->lfd, 8))
		rc = -errno;
	e->control = k;
	if (!rc && pthread_create(&k->th, NULL, control_main, e))
		rc = -EAGAIN;
	if (rc) {
		if (err && errlen && !err[0])
			xtx_errf(err, errlen, "control socket %s: %s", k->path, strerror(-rc));
		xtx_control_stop(e);
		return rc;
	}
	k->started = 1;
	return 0;
}

const char *xtx_engine__control_path(const struct xtx_engine *e)
{
	return e && e->control ? e->control->path : NULL;
}

void xtx_control_stop(struct xtx_engine *e)
{
	struct xtx_control *k = e->control;

	if (!k)
		return;
	if (k->started) {
		/* Relaxed: a flag on its own; the byte wakes the poll at once, and without
		 * it the thread sees the flag within the poll's 250 ms. */
		atomic_store_explicit(&k->stop, 1, memory_order_relaxed);
		(void)!write(k->stop_fd[1], "x", 1);
		pthread_join(k->th, NULL);
	}
	if (k->bound)
		unlink(k->path);
	if (k->lfd >= 0)
		close(k->lfd);
	for (int i = 0; i < 2; i++)
		if (k->stop_fd[i] >= 0)
			close(k->stop_fd[i]);
	free(k->bps);
	free(k->last);
	free(k);
	e->control = NULL;
}
