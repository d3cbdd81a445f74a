/* elf_object: see include/offload/elf_object.h. */
#include "offload/elf_object.h"
#include "format_internal.h"

#include <stdio.h>
#include <string.h>

enum { EHDR_SIZE = 64, ET_REL_TYPE = 1 };

int ol_elf_object_check(const uint8_t *data, size_t size, unsigned machine, const char **why)
{
	/* Per thread: a pool thread checks one product while another checks its own. */
	static _Thread_local char text[96];
	unsigned type, found;

	if (size == 0) {
		*why = "an empty file";
		return -1;
	}
	if (size < EHDR_SIZE || memcmp(data, "\177ELF", 4) != 0) {
		*why = "not an ELF file";
		return -1;
	}
	if (data[4] != 2 || data[5] != 1) {
		*why = "not a 64-bit little-endian ELF file";
		return -1;
	}
	type = ol_get16le(data + 16);
	found = ol_get16le(data + 18);
	if (type != ET_REL_TYPE) {
		snprintf(text, sizeof(text), "an ELF file of type %u, not a relocatable object", type);
		*why = text;
		return -1;
	}
	if (machine && found != machine) {
		snprintf(text, sizeof(text), "an ELF object for machine %u, not %u", found, machine);
		*why = text;
		return -1;
	}
	return 0;
}
