/* harness: helpers of the fuzz harnesses.  See harness.h. */
#include "harness.h"

#include "offload/arena.h"
#include "offload/backend.h"
#include "offload/diag.h"
#include "offload/fatbinary.h"
#include "offload/inputs.h"
#include "offload/mapped_file.h"
#include "offload/offload_binary.h"

#include <stdlib.h>
#include <string.h>

static struct ol_diag_buffer messages;

/* Host bitcode goes to LLVM's reader in the backend, which is not fuzzed
 * here (it is isolated on its own): the scanner gets no backend and reports
 * that, as it does when the backend cannot be loaded.  Linked before olcore,
 * this definition is the one the scanner calls. */
const struct ol_backend *ol_backend_get(void)
{
	ol_error("host bitcode is not read under the fuzzers");
	return NULL;
}

void ol_fuzz_begin(void)
{
	memset(&messages, 0, sizeof(messages));
	ol_diag_capture_begin(&messages);
}

void ol_fuzz_end(void)
{
	ol_diag_capture_end();
	free(messages.text);
	memset(&messages, 0, sizeof(messages));
	ol_mapped_release_all();
	ol_arena_release(&ol_link_arena);
}

void ol_fuzz_touch(const void *data, size_t size)
{
	const volatile uint8_t *p = data;
	uint8_t sum = 0;

	for (size_t i = 0; i < size; i++)
		sum ^= p[i];
	(void)sum;
}

static void touch_string(const char *s)
{
	if (s)
		ol_fuzz_touch(s, strlen(s) + 1);
}

void ol_fuzz_use_binary(const struct ol_offload_binary *bin)
{
	static const char *const keys[] = { "triple", "arch", "feature", "symbols", "kind" };
	const char **names = NULL;
	size_t nnames;

	for (size_t i = 0; i < bin->nstrings; i++) {
		touch_string(bin->strings[i].key);
		touch_string(bin->strings[i].value);
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		touch_string(ol_offload_binary_get(bin, keys[i]));
	touch_string(bin->triple);
	touch_string(bin->arch);
	touch_string(ol_offload_kind_name(bin->offload_kind));
	touch_string(ol_image_kind_name(bin->image_kind));
	nnames = ol_offload_symbol_list(ol_offload_binary_get(bin, "symbols") ?
					ol_offload_binary_get(bin, "symbols") : "",
					&ol_link_arena, &names);
	for (size_t i = 0; i < nnames; i++)
		touch_string(names[i]);
	ol_fuzz_touch(bin->image, (size_t)bin->image_size);
	if (bin->image_kind == OL_IMG_FATBINARY) {
		struct ol_fatbin fatbin;
		const char *why;
		uint64_t bad;

		if (ol_fatbin_parse(bin->image, (size_t)bin->image_size, &fatbin, &why, &bad) == 0)
			ol_fatbin_release(&fatbin);
	}
}

void ol_fuzz_use_image(struct ol_device_image *img)
{
	const struct ol_symtab *symbols;

	ol_fuzz_use_binary(&img->bin);
	switch (ol_identify(img->bin.image, (size_t)img->bin.image_size)) {
	case OL_IN_OBJECT:
	case OL_IN_SHARED:
	case OL_IN_EXEC:
		symbols = ol_image_symbols(img);
		for (size_t i = 0; i < symbols->n; i++)
			touch_string(symbols->v[i].name);
		break;
	default:
		break;   /* bitcode symbols come from LLVM: not fuzzed here */
	}
}
