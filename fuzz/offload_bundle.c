/*
 * Fuzz harness: the offload bundle reader (src/format/offload_bundle.c): a
 * CCOB of any version (1 to 3, zlib or zstd) is checked and decompressed,
 * and the bundle inside it, or the input itself, is parsed; every entry's
 * id and payload is read and looked up again by id.
 */
#include "harness.h"
#include "offload/diag.h"
#include "offload/offload_bundle.h"

#include <stdlib.h>
#include <string.h>

static void use_bundle(const uint8_t *data, size_t size)
{
	struct ol_bundle bundle;
	const char *why;
	uint64_t bad;

	if (ol_bundle_parse(data, size, &bundle, &why, &bad) != 0)
		return;
	for (size_t i = 0; i < bundle.nentries; i++) {
		const struct ol_bundle_entry *entry = &bundle.entries[i];
		char *id = ol_xstrndup(entry->id, entry->id_size);

		ol_fuzz_touch(entry->id, entry->id_size);
		ol_fuzz_touch(entry->data, (size_t)entry->size);
		/* An id holding a NUL finds an earlier entry or none. */
		if (!ol_bundle_find(&bundle, id) && memchr(entry->id, 0, entry->id_size) == NULL)
			abort();
		free(id);
	}
	ol_bundle_release(&bundle);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ol_fuzz_begin();
	if (ol_bundle_is_compressed(data, size)) {
		struct ol_ccob_header header;
		const char *why;
		uint64_t bad;
		size_t bundle_size;
		uint8_t *bundle;

		if (ol_ccob_parse_header(data, size, &header, &why, &bad) == 0) {
			bundle = ol_ccob_decompress(data, size, &bundle_size, &header, &why, &bad);
			if (bundle) {
				if (bundle_size != header.uncompressed_size)
					abort();
				use_bundle(bundle, bundle_size);
				free(bundle);
			}
		}
	} else {
		use_bundle(data, size);
	}
	ol_fuzz_end();
	return 0;
}
