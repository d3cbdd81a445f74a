/*
 * Fuzz harness: the cubin reader (src/format/cubin.c) on a device image's
 * bytes: the header, then every tool note, each name and version read to
 * its end as the link's warning and inspect print them.
 */
#include "harness.h"
#include "offload/cubin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ol_cubin_header header;
	struct ol_cubin_tool tools[8];
	size_t n;

	ol_fuzz_begin();
	if (ol_cubin_read_header(data, size, &header) == 0) {
		n = ol_cubin_tools(data, size, tools, 8);
		for (size_t i = 0; i < n && i < 8; i++) {
			size_t len;
			const char *release = ol_cubin_tool_release(&tools[i], &len);

			ol_fuzz_touch(tools[i].name, tools[i].name_len);
			ol_fuzz_touch(tools[i].version, tools[i].version_len);
			ol_fuzz_touch(release, len);
		}
	}
	ol_fuzz_end();
	return 0;
}
