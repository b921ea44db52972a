/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_rules.c - libFuzzer target: xtx-shape's rules parser (tools/xtx-shape/rules.c) and
 * the resolution of its class handles against a fixed class tree. Any input must either be
 * refused with a message, or parse and then resolve (or be refused with a message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/xtx-shape/rules.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rd_rules rules;
static struct xtx_sched_config *cfg;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[1024] = "";

	if (!text)
		return 0;
	if (!cfg) {
		cfg = xtx_sched_config__parse_string(
			"class 1: rate 1gbit\n"
			"class 1:10 parent 1: rate 500mbit\n"
			"class 1:20 parent 1: rate 300mbit fq\n"
			"class 1:30 parent 1: rate 200mbit\n", "classes", err, sizeof(err));
		if (!cfg)
			abort();
	}
	memcpy(text, data, size);
	text[size] = 0;
	memset(&rules, 0, sizeof(rules));
	if (rd_rules__parse_string(&rules, text, "fuzz", err, sizeof(err))) {
		if (!err[0])
			abort();	/* refused without saying why */
	} else if (rd_rules__resolve(&rules, cfg, err, sizeof(err)) && !err[0]) {
		abort();
	}
	free(text);
	return 0;
}
