/*
 * replay: runs a fuzz harness's LLVMFuzzerTestOneInput over every file of
 * the corpus directories given, without libFuzzer, so ctest replays every
 * seed and every past finding on each run (fuzz-replay/<harness>).  A crash
 * or a sanitizer report (OL_ENABLE_ASAN builds) ends the process and fails
 * the test; a corpus with no file fails too, as a test that ran nothing.
 */
#include "harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long size;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	/* An exact-size copy: a read past the input is past the allocation. */
	data = malloc(size ? (size_t)size : 1);
	if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)size);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	size_t replayed = 0;
	int failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s <corpus dir or file>...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *entry;
		DIR *dir;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			failed = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed |= replay_file(argv[i]) != 0;
			replayed++;
			continue;
		}
		dir = opendir(argv[i]);
		while (dir && (entry = readdir(dir))) {
			char *path;

			if (entry->d_name[0] == '.')
				continue;
			path = malloc(strlen(argv[i]) + strlen(entry->d_name) + 2);
			sprintf(path, "%s/%s", argv[i], entry->d_name);
			failed |= replay_file(path) != 0;
			replayed++;
			free(path);
		}
		if (dir)
			closedir(dir);
	}
	printf("replayed %zu inputs\n", replayed);
	return failed || replayed == 0;
}
