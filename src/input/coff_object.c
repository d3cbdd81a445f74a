/*
 * coff_object: what the scanner needs from COFF objects, the host objects of
 * Windows targets (x86_64-pc-windows-msvc), read with format/coff.c.
 *
 * Upstream (19, 22) takes the device code of a COFF object from every
 * section whose name starts with ".llvm.offloading" (COFF has no section
 * type to go by).  The host code's entries live in "<name>$OE" sections,
 * which tell the entries layout as the ELF names do.  COFF objects carry no
 * producer string, so the release is decided by the other rules (main.c).
 */
#include "scan_internal.h"
#include "offload/entries_sections.h"
#include "offload/arena.h"
#include "offload/coff.h"
#include "offload/diag.h"

#include <string.h>

static int open_coff(const uint8_t *data, size_t size, const struct ol_loc *loc,
		     struct ol_coff *coff)
{
	const char *why;

	if (ol_coff_open(data, size, coff, &why) < 0)
		return ol_error_at(loc, "invalid COFF object: %s", why);
	return 0;
}

static int starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

int ol_coff_scan(struct ol_object *obj, struct ol_image_vec *vec)
{
	struct ol_loc loc = ol_object_loc(obj);
	struct ol_coff coff;
	int status = 0;

	if (open_coff(obj->data, obj->size, &loc, &coff) < 0)
		return -1;
	for (uint32_t i = 0; i < coff.nsections; i++) {
		struct ol_coff_section sec;
		const char *why, *dollar;
		size_t base_len;
		int abi;

		if (ol_coff_section(&coff, i, &sec, &why) < 0) {
			ol_error_at(&loc, "invalid COFF section %u: %s", (unsigned)i + 1, why);
			status = -1;
			continue;
		}
		if (starts_with(sec.name, sec.name_len, ".llvm.offloading")) {
			const char *name = ol_arena_strndup(&ol_link_arena, sec.name, sec.name_len);

			if (sec.size && ol_scan_offload_section(obj, vec, obj->data + sec.offset,
								sec.size, name) < 0)
				status = -1;
			continue;
		}
		/* "omp_offloading_entries$OE": the grouping suffix is not the name. */
		dollar = memchr(sec.name, '$', sec.name_len);
		base_len = dollar ? (size_t)(dollar - sec.name) : sec.name_len;
		abi = ol_entries_layout_of_n(sec.name, base_len);
		if (abi > obj->entries_abi)
			obj->entries_abi = abi;
	}
	return status;
}

int ol_coff_symbols(const uint8_t *data, size_t size, const struct ol_loc *loc,
		    struct ol_symtab *out)
{
	struct ol_coff coff;

	out->v = NULL;
	out->n = 0;
	if (open_coff(data, size, loc, &coff) < 0)
		return -1;
	out->v = coff.nsymbols ? ol_arena_alloc(&ol_link_arena, coff.nsymbols * sizeof(*out->v))
			       : NULL;
	for (uint32_t i = 0; i < coff.nsymbols; i++) {
		struct ol_coff_symbol sym;
		struct ol_symbol *s;
		const char *why;

		if (ol_coff_symbol(&coff, i, &sym, &why) < 0) {
			ol_error_at(loc, "invalid COFF symbol %u: %s", (unsigned)i, why);
			out->v = NULL;
			out->n = 0;
			return -1;
		}
		i += sym.aux_count;
		if ((sym.storage_class != OL_COFF_SYM_CLASS_EXTERNAL &&
		     sym.storage_class != OL_COFF_SYM_CLASS_WEAK_EXTERNAL) || !sym.name_len)
			continue;
		s = &out->v[out->n++];
		memset(s, 0, sizeof(*s));
		s->name = ol_arena_strndup(&ol_link_arena, sym.name, sym.name_len);
		/* A weak external is an undefined name with a fallback. */
		s->weak = sym.storage_class == OL_COFF_SYM_CLASS_WEAK_EXTERNAL;
		s->defined = sym.section > 0 || (sym.section == 0 && sym.value > 0 && !s->weak) ||
			     sym.section == -1;
		s->common = sym.section == 0 && sym.value > 0 && !s->weak;
	}
	return 0;
}
