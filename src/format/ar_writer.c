/* ar_writer: GNU ar archives in memory.  See offload/ar_writer.h. */
#include "offload/ar_writer.h"

#include <stdio.h>
#include <string.h>

/* One 60-byte member header: fields are space-padded ASCII. */
static void add_header(struct strbuf *out, const char *name, size_t size)
{
	strbuf_addf(out, "%-16.16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "0", "0", "0", "644", size);
}

static void add_padding(struct strbuf *out, size_t size)
{
	if (size & 1)
		strbuf_addch(out, '\n');
}

void ol_ar_write(const struct ol_ar_entry *members, size_t n, struct strbuf *out)
{
	struct strbuf names = STRBUF_INIT;

	strbuf_addstr(out, "!<arch>\n");
	/* Long names: "name/\n" entries, referred to as "/<offset>". */
	for (size_t i = 0; i < n; i++)
		if (strlen(members[i].name) > 15)
			strbuf_addf(&names, "%s/\n", members[i].name);
	if (names.len) {
		add_header(out, "//", names.len);
		strbuf_add(out, names.buf, names.len);
		add_padding(out, names.len);
	}
	for (size_t i = 0, long_offset = 0; i < n; i++) {
		size_t len = strlen(members[i].name);
		char field[32];

		if (len > 15) {
			snprintf(field, sizeof(field), "/%zu", long_offset);
			long_offset += len + 2;
		} else {
			snprintf(field, sizeof(field), "%s/", members[i].name);
		}
		add_header(out, field, members[i].size);
		strbuf_add(out, members[i].data, members[i].size);
		add_padding(out, members[i].size);
	}
	strbuf_release(&names);
}
