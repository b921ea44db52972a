/* SPDX-License-Identifier: BSD-3-Clause */
/* replay.c - run a fuzz target over every file of a corpus directory, without libFuzzer:
 * how make test keeps the corpus (and every crash found, saved there) as regression tests.
 *   NAME_replay DIR     exit 0 when every input ran; a crash is a test failure. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int main(int argc, char **argv)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	if (argc != 2 || !(d = opendir(argv[1]))) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	while ((de = readdir(d))) {
		char path[4096];
		static uint8_t buf[1 << 20];
		FILE *f;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name);
		if (!(f = fopen(path, "rb")))
			continue;
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		n++;
	}
	closedir(d);
	printf("%s: %u inputs replayed\n", argv[0], n);
	return n ? 0 : 1;
}
