/*
 * fuzz_replay_main.c - runs a libFuzzer target's LLVMFuzzerTestOneInput
 * over every file of its seed corpus in the ordinary (gcc, ASan) build, so
 * ctest replays the seeds and the regression cases copied there without
 * clang: `<target>_replay DIR`. Exits 0 when every input ran (a target
 * aborts on a finding), 1 when the corpus is missing or empty.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	DIR *d = opendir(argv[1]);
	if (!d) {
		fprintf(stderr, "cannot read corpus %s\n", argv[1]);
		return 1;
	}
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", argv[1], de->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		static uint8_t buf[1 << 22];
		size_t len = fread(buf, 1, sizeof buf, f);
		fclose(f);
		/* a copy of exactly len bytes, so ASan sees reads past it */
		uint8_t *in = malloc(len ? len : 1);
		if (!in)
			return 1;
		memcpy(in, buf, len);
		LLVMFuzzerTestOneInput(in, len);
		free(in);
		printf("ran %s (%zu bytes)\n", de->d_name, len);
		n++;
	}
	closedir(d);
	printf("%d inputs\n", n);
	return n ? 0 : 1;
}
