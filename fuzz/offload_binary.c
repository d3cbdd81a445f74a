/*
 * Fuzz harness: the OffloadBinary reader (src/format/offload_binary.c) on a
 * section's bytes, through the scanner's own entry (ol_scan_offload_section,
 * which also rejects unknown image kinds), then every string and image
 * access the later stages make.
 */
#include "harness.h"
#include "input/scan_internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ol_object obj;
	struct ol_image_vec vec = { NULL, 0, 0 };

	ol_fuzz_begin();
	memset(&obj, 0, sizeof(obj));
	obj.path = obj.display = "fuzz.o";
	obj.kind = OL_IN_OBJECT;
	obj.data = data;
	obj.size = size;
	ol_scan_offload_section(&obj, &vec, data, size, ".llvm.offloading");
	for (size_t i = 0; i < vec.n; i++)
		ol_fuzz_use_image(&vec.v[i]);
	free(vec.v);
	ol_fuzz_end();
	return 0;
}
