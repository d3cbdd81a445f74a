/*
 * Fuzz harness: the command line (src/driver/).  The bytes are a response
 * file: tokenized as @file contents are (ol_words_tokenize), then matched
 * against the option tables, decoded (ol_cmdline_parse_words), rendered for
 * the host linker, and the device-linker arguments picked per release.
 * Words naming response files are left out: expanding them reads the disk.
 */
#include "harness.h"
#include "driver/driver_internal.h"
#include "offload/strvec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const wrapper_objs[] = { "wrapper.o", NULL };
	static const char *const triples[] = { "nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa",
					       "x86_64-unknown-linux-gnu" };
	static const enum ol_flavor flavors[] = { OL_FLAVOR_16, OL_FLAVOR_19, OL_FLAVOR_22 };
	struct ol_words all = { NULL, 0, 0 }, words = { NULL, 0, 0 };
	enum ol_cmdline_request request;
	struct ol_cmdline cl;

	ol_fuzz_begin();
	ol_words_tokenize((const char *)data, size, &all);
	for (size_t i = 0; i < all.nr; i++)
		if (all.v[i][0] != '@')
			ol_words_push(&words, all.v[i]);
	if (ol_cmdline_parse_words(&words, "offload-link", &cl, &request) == 0 &&
	    request == OL_CMDLINE_LINK) {
		struct strvec out = STRVEC_INIT;

		ol_cmdline_render_host(&cl, wrapper_objs, &out);
		for (size_t t = 0; t < sizeof(triples) / sizeof(*triples); t++)
			for (size_t f = 0; f < sizeof(flavors) / sizeof(*flavors); f++) {
				ol_cmdline_device_args(&cl, &cl.device_linker, triples[t],
						       flavors[f], &out);
				ol_cmdline_device_args(&cl, &cl.device_compiler, triples[t],
						       flavors[f], &out);
			}
		strvec_release(&out);
		ol_cmdline_release(&cl);
	}
	free(all.v);
	free(words.v);
	ol_fuzz_end();
	return 0;
}
