/*
 * mapped_file: one record per file, however it is spelled and however often
 * it is named (the scanner compares records to link a file once); small
 * files read, large ones mapped, the bytes intact either way.
 */
#include "check.h"
#include "offload/mapped_file.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_file(const char *path, size_t size)
{
	FILE *f = fopen(path, "wb");

	for (size_t i = 0; i < size; i++)
		fputc((int)(i * 7 % 251), f);
	fclose(f);
}

static int bytes_ok(const struct ol_mapped_file *mf, size_t size)
{
	if (!mf || mf->size != size)
		return 0;
	for (size_t i = 0; i < size; i++)
		if (mf->data[i] != (uint8_t)(i * 7 % 251))
			return 0;
	return 1;
}

int main(void)
{
	char dir[] = "/tmp/ol-mapped-XXXXXX";

	if (!mkdtemp(dir) || chdir(dir) != 0)
		return 1;
	write_file("small.o", 1000);
	write_file("large.o", 100000);

	current_test = "spellings";
	{
		struct ol_mapped_file *a = ol_map_file("small.o");
		struct ol_mapped_file *b = ol_map_file("./small.o");
		struct ol_mapped_file *c = ol_map_file("./small.o");
		struct ol_mapped_file *d = ol_map_file("small.o");

		CHECK(a && a == b && b == c && c == d);
		CHECK(bytes_ok(a, 1000) && !a->mapped);
	}
	current_test = "large file";
	{
		struct ol_mapped_file *a = ol_map_file("large.o");
		struct ol_mapped_file *b = ol_map_file(".//large.o");

		CHECK(a && a == b);
		CHECK(bytes_ok(a, 100000) && a->mapped);
	}
	current_test = "read-ahead";
	{
		static const char *const paths[] = {
			"s00", "s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "s09", "s10",
			"s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21",
			"s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31", "s32",
			"s33", "./s00", "./s01",
		};
		size_t n = sizeof(paths) / sizeof(paths[0]);
		struct ol_mapped_file *first[40];

		for (size_t i = 0; i < 34; i++)
			write_file(paths[i], 100 + i);
		ol_map_files_ahead(paths, n);
		for (size_t i = 0; i < n; i++)
			first[i] = ol_map_file(paths[i]);
		ol_map_files_ahead_finish();
		for (size_t i = 0; i < 34; i++)
			CHECK(bytes_ok(first[i], 100 + i) && ol_map_file(paths[i]) == first[i]);
		CHECK(first[34] == first[0] && first[35] == first[1]);
		for (size_t i = 0; i < 34; i++)
			unlink(paths[i]);
	}
	current_test = "missing";
	CHECK(ol_map_file("nowhere.o") == NULL);

	unlink("small.o");
	unlink("large.o");
	if (chdir("/") == 0)
		rmdir(dir);
	ol_mapped_release_all();
	return failures != 0;
}
