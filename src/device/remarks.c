/*
 * remarks: what the device LTO's passes said, kept with the group, cached
 * with its product, printed and written once the links are done
 * (offload/device_remarks.h).
 *
 * Printed as clang prints a remark, "file:line:col: remark: <message>
 * [-Rpass=<pass>]", sorted by place and each once (a function that several
 * partitions copy is optimized, and remarked on, in each), under a heading
 * that names the image: one program's remarks for sm_80 and gfx90a differ.
 */
#include "offload/cache.h"
#include "offload/device_remarks.h"
#include "offload/diag.h"
#include "offload/key_material.h"
#include "offload/remark_records.h"
#include "offload/sha256.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ol_group_keep_remarks(struct ol_group *g, struct ol_buffer *more)
{
	ol_remarks_append(&g->remark_records.data, &g->remark_records.size, more->data,
			  more->size);
	free(more->data);
	more->data = NULL;
	more->size = 0;
}

void ol_key_remark_request(struct ol_sha256 *h, const struct ol_remark_request *r)
{
	/* The patterns as remark_options.c normalized them (sorted, each
	 * once): the spelling that asked plays no part. */
	ol_key_str(h, "remarks");
	ol_key_str(h, r->passed);
	ol_key_str(h, r->missed);
	ol_key_str(h, r->analysis);
	ol_key_u64(h, (uint64_t)(r->all != 0));
}

/* The remarks' key: their product's, and which remarks they are.  The
 * product's key leaves the remark options out, so one product serves
 * links that ask for any remarks or none. */
static void remarks_key(const char *key, const struct ol_remark_request *r,
			char out[OL_CACHE_KEY_HEX])
{
	struct ol_sha256 h;
	uint8_t digest[OL_SHA256_SIZE];

	ol_sha256_init(&h);
	ol_key_str(&h, "remarks of");
	ol_key_str(&h, key);
	ol_key_remark_request(&h, r);
	ol_sha256_final(&h, digest);
	ol_sha256_hex(digest, out);
}

int ol_remarks_cache_get(struct ol_cache *c, const struct ol_group *g, const char *key,
			 struct ol_buffer *out)
{
	char derived[OL_CACHE_KEY_HEX];
	struct ol_cache_lookup found;

	out->data = NULL;
	out->size = 0;
	if (!ol_remarks_wanted(&g->remarks))
		return 1;
	remarks_key(key, &g->remarks, derived);
	if (!ol_cache_get(c, derived, &found))
		return 0;
	out->data = found.data;
	out->size = found.size;
	return 1;
}

void ol_remarks_cache_put(struct ol_cache *c, const struct ol_group *g, const char *key,
			  const struct ol_buffer *remarks)
{
	char derived[OL_CACHE_KEY_HEX];

	if (!ol_remarks_wanted(&g->remarks))
		return;
	remarks_key(key, &g->remarks, derived);
	/* Stored even when there are none (the format's magic alone), so that
	 * a later lookup can tell "none" from "not kept". */
	if (remarks->size)
		ol_cache_put(c, derived, remarks->data, remarks->size);
	else
		ol_cache_put(c, derived, (const uint8_t *)OL_REMARKS_MAGIC, OL_REMARKS_MAGIC_LEN);
}

/* Text from the inputs goes out escaped, as every message does. */
static void add_escaped(struct strbuf *sb, const char *s)
{
	size_t len = strlen(s), room = 4 * len + 1;
	char *out = ol_xcalloc(room, 1);

	ol_escape_bytes(s, len, out, room);
	strbuf_addstr(sb, out);
	free(out);
}

static char *remark_line(const struct ol_remark *r)
{
	struct strbuf sb = STRBUF_INIT;

	if (*r->file) {
		add_escaped(&sb, r->file);
		strbuf_addf(&sb, ":%u:%u: ", r->line, r->column);
	} else {
		/* No place: its function, as a reader of the source names it. */
		add_escaped(&sb, *r->demangled ? r->demangled : r->function);
		strbuf_addstr(&sb, ": ");
	}
	strbuf_addstr(&sb, "remark: ");
	add_escaped(&sb, r->message);
	strbuf_addf(&sb, " [%s=", ol_remark_option(r));
	add_escaped(&sb, r->pass);
	strbuf_addstr(&sb, "]\n");
	return strbuf_detach(&sb);
}

static void print_remarks(const struct ol_group *g, const struct ol_remarks *rs)
{
	char image[160];
	char *previous = NULL;
	size_t shown = 0;
	int placeless = 0;
	struct strbuf out = STRBUF_INIT;

	for (size_t i = 0; i < rs->n; i++) {
		char *line;

		if (!rs->v[i].shown)
			continue;
		placeless |= !*rs->v[i].file;
		line = remark_line(&rs->v[i]);
		/* Remarks of two functions can read the same. */
		if (previous && !strcmp(previous, line)) {
			free(line);
			continue;
		}
		strbuf_addstr(&out, line);
		free(previous);
		previous = line;
		shown++;
	}
	free(previous);
	if (!shown) {
		strbuf_release(&out);
		return;
	}
	ol_group_image_name(g, image, sizeof(image));
	ol_note("the device LTO for %s made %zu remark%s:", image, shown, shown == 1 ? "" : "s");
	ol_diag_write(out.buf, out.len);
	strbuf_release(&out);
	/* Once per image: how to get a place.  Measured on clang 19's OpenMP
	 * programs for sm_90 and x86_64 (docs/design/remarks.md): the kernels'
	 * instructions stay the same; the data does not. */
	if (placeless)
		ol_note("remarks without file and line are in code compiled without line "
			"tables, as the device runtime's: compile yours with -gline-tables-only "
			"(the kernels' instructions stay the same; the image gains line tables, "
			"and OpenMP's source-location strings name file and line)");
}

/* "<prefix>-<triple>[-<arch>].opt.yaml", clang's name for a device
 * compile's records (":" of a target ID kept, as clang keeps it). */
static char *yaml_path(const char *prefix, const struct ol_group *g)
{
	return ol_xasprintf("%s-%s%s%s.opt.yaml", prefix, g->triple, *g->arch ? "-" : "", g->arch);
}

static int write_yaml(const struct ol_group *g, const struct ol_remarks *rs, const char *prefix)
{
	struct strbuf yaml = STRBUF_INIT;
	char *path = yaml_path(prefix, g);
	int rc;

	for (size_t i = 0; i < rs->n; i++) {
		char *doc = ol_remark_yaml(&rs->v[i]);
		strbuf_addstr(&yaml, doc);
		free(doc);
	}
	rc = ol_write_file_atomic(path, yaml.len ? yaml.buf : "", yaml.len);
	free(path);
	strbuf_release(&yaml);
	return rc;
}

int ol_device_report_remarks(const struct ol_groups *groups, int write_files)
{
	int rc = 0;

	for (size_t i = 0; i < groups->n; i++) {
		const struct ol_group *g = &groups->v[i];
		struct ol_remarks rs;
		const char *why = NULL;
		uint64_t bad = 0;
		char image[160];

		if (!ol_remarks_wanted(&g->remarks))
			continue;
		ol_group_image_name(g, image, sizeof(image));
		if (ol_remarks_decode(g->remark_records.data, g->remark_records.size, &rs, &why,
				      &bad) < 0) {
			ol_warn("the remarks of the device LTO for %s are unreadable (%s, at byte "
				"%llu); none are shown", image, why, (unsigned long long)bad);
			continue;
		}
		print_remarks(g, &rs);
		/* No records, no file: the same whether the link ran or the
		 * cache answered. */
		if (write_files && g->remarks_file && rs.n && write_yaml(g, &rs, g->remarks_file) < 0)
			rc = -1;
		ol_remarks_release(&rs);
	}
	return rc;
}
