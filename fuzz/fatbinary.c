/*
 * Fuzz harness: the NVIDIA fatbinary reader (src/format/fatbinary.c) on a
 * .nv_fatbin section's bytes: containers back to back, each parsed where
 * the previous one ends, every image's payload, identifier and ptxas
 * options read.
 */
#include "harness.h"
#include "offload/fatbinary.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t offset = 0;

	ol_fuzz_begin();
	while (offset < size && ol_fatbin_is_fatbin(data + offset, size - offset)) {
		struct ol_fatbin fatbin;
		const char *why;
		uint64_t bad;

		if (ol_fatbin_parse(data + offset, size - offset, &fatbin, &why, &bad) != 0)
			break;
		for (size_t i = 0; i < fatbin.nimages; i++) {
			const struct ol_fatbin_image *image = &fatbin.images[i];
			const char *compression = ol_fatbin_compression(image);

			ol_fuzz_touch(image->payload, (size_t)image->payload_size);
			if (image->ident)
				ol_fuzz_touch(image->ident, image->ident_size);
			if (image->options)
				ol_fuzz_touch(image->options, image->options_size);
			ol_fuzz_touch(ol_fatbin_kind_name(image->kind), 1);
			if (compression)
				ol_fuzz_touch(compression, 1);
		}
		/* A container always moves the walk on: its header is not empty. */
		if (fatbin.size == 0)
			abort();
		offset += (size_t)fatbin.size;
		ol_fatbin_release(&fatbin);
	}
	ol_fuzz_end();
	return 0;
}
