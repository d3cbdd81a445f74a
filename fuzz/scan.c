/*
 * Fuzz harness: the input scanner over memory (src/input/scan.c through
 * ol_scan_memory): classification, ELF objects through libelf with their
 * .llvm.offloading sections (elf_object.c), ar archives of every dialect
 * (archive.c), COFF objects, raw offload binaries; then what resolve reads
 * afterwards: each object's host symbols and each image's strings, bytes
 * and device symbols.  Host bitcode is not read (harness.c).
 *
 * The input is named as a file in a directory that does not exist, so a
 * thin archive's relative members are reported missing, not read from disk.
 */
#include "harness.h"
#include "input/scan_internal.h"

#include <string.h>

static void use_object(struct ol_object *obj)
{
	const struct ol_symtab *symbols = ol_object_symbols(obj);

	for (size_t i = 0; i < symbols->n; i++)
		ol_fuzz_touch(symbols->v[i].name, strlen(symbols->v[i].name) + 1);
	for (size_t i = 0; i < obj->nimages; i++)
		ol_fuzz_use_image(&obj->images[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ol_inputs in;
	struct ol_input input;

	ol_fuzz_begin();
	ol_scan_memory("/nonexistent-fuzz-dir/input", data, size, &in, &input);
	if (input.object)
		use_object(input.object);
	if (input.archive)
		for (size_t i = 0; i < input.archive->nmembers; i++)
			use_object(input.archive->members[i]);
	ol_fuzz_end();
	return 0;
}
