/*
 * Fuzz harness: the COFF reader (src/format/coff.c): the headers, every
 * section header and name, every symbol with its name; then the same bytes
 * through the scanner's COFF path (coff_object.c) when they look like a
 * COFF object.
 */
#include "harness.h"
#include "input/scan_internal.h"
#include "offload/coff.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ol_coff coff;
	const char *why;

	ol_fuzz_begin();
	if (ol_coff_open(data, size, &coff, &why) == 0) {
		for (uint32_t i = 0; i < coff.nsections; i++) {
			struct ol_coff_section section;

			if (ol_coff_section(&coff, i, &section, &why) != 0)
				continue;
			ol_fuzz_touch(section.name, section.name_len);
			if (section.size)
				ol_fuzz_touch(data + section.offset, section.size);
		}
		for (uint32_t i = 0; i < coff.nsymbols; i++) {
			struct ol_coff_symbol symbol;

			if (ol_coff_symbol(&coff, i, &symbol, &why) != 0)
				continue;
			ol_fuzz_touch(symbol.name, symbol.name_len);
			i += symbol.aux_count;
		}
	}
	if (ol_coff_is_object(data, size)) {
		struct ol_inputs in;
		struct ol_input input;

		ol_scan_memory("fuzz.obj", data, size, &in, &input);
		if (input.object) {
			const struct ol_symtab *symbols = ol_object_symbols(input.object);

			for (size_t i = 0; i < symbols->n; i++)
				ol_fuzz_touch(symbols->v[i].name, strlen(symbols->v[i].name) + 1);
			for (size_t i = 0; i < input.object->nimages; i++)
				ol_fuzz_use_image(&input.object->images[i]);
		}
	}
	ol_fuzz_end();
	return 0;
}
