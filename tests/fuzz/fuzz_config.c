/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_config.c - libFuzzer target: the class-file parser, and the scheduler built from
 * whatever parses. Any input must either be refused with a message or give a config from
 * which a scheduler is created, fed, drained and destroyed with every descriptor back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xtx/sched.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[1024] = "";
	struct xtx_sched_config *cfg;
	struct xtx_sched *s;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	cfg = xtx_sched_config__parse_string(text, "fuzz", err, sizeof(err));
	if (!cfg) {
		if (!err[0])
			abort();	/* refused without saying why */
		free(text);
		return 0;
	}
	s = xtx_sched__create(cfg, NULL, 0, err, sizeof(err));
	if (s) {
		struct xtx_desc d[64], out[64], drops[64];
		unsigned nd = 0, back = 0, taken = 0, ncls = xtx_sched__class_count(s);
		uint64_t now = 0, next;

		for (unsigned i = 0; i < 64; i++)
			d[i] = (struct xtx_desc){ .addr = i, .len = (uint16_t)(60 + i * 23),
						  .hash = i * 2654435761u,
						  .cls = (uint16_t)(i % (ncls + 1)) };
		taken = xtx_sched__enqueue_burst(s, d, NULL, 64, now, drops, &nd);
		if (taken + nd != 64)
			abort();
		/* Drain on virtual time, bounded: then purge what a slow class still holds. */
		for (int step = 0; step < 1000 && xtx_sched__qlen(s); step++) {
			back += xtx_sched__dequeue_burst(s, out, 64, now, &next);
			if (next == UINT64_MAX)
				break;
			now = next > now ? next : now + 1;
		}
		back += xtx_sched__purge(s, out, 64);
		if (back != taken || xtx_sched__qlen(s))
			abort();	/* a descriptor lost or duplicated */
		xtx_sched__destroy(s);
	} else if (!err[0]) {
		abort();
	}
	xtx_sched_config__free(cfg);
	free(text);
	return 0;
}
