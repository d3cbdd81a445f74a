/*
 * inspect: `offload-link inspect [--json] FILE...`: every device image in
 * objects, archives (lib.a(member.o)), executables, shared libraries,
 * host bitcode, raw OffloadBinaries (versions 1 to 3), offload bundles
 * (plain and CCOB) and CUDA fatbinaries, with what each holds: offload and
 * image kind, triple, arch, size and place, the string map, the entries of
 * a fatbinary or bundle inside it, for ELF images their kernels and
 * globals, for bitcode images what they define.  Like llvm-objdump
 * --offloading, for every container and version.
 *
 * The OffloadBinaries are found by the link's own scanner (embedded.c), so a
 * damaged file gets the message and offset a link would give it; the
 * sections that hold registered CUDA and HIP images (.nv_fatbin,
 * .hip_fatbin) are read here.
 */
#include "commands_internal.h"
#include "offload/arena.h"
#include "offload/backend.h"
#include "offload/cubin.h"
#include "offload/elf_cpu.h"
#include "offload/fatbinary.h"
#include "offload/mapped_file.h"
#include "offload/offload_bundle.h"
#include "offload/strvec.h"
#include "../input/scan_internal.h"

#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUDA marks kernel entry points in st_other (STO_CUDA_ENTRY). */
#define STO_CUDA_ENTRY_FLAG 0x10

/* Output as text or JSON through one set of calls: a record is a list of
 * fields, nested records indent (text) or nest (JSON). */
struct printer {
	struct strbuf out;
	int json;
	int depth;
	int first[16];     /* JSON: no comma before the next member yet */
	int indents[16];   /* text: whether the group at this depth indents */
	int ngroups;
};

static void json_string(struct strbuf *out, const char *s, size_t len)
{
	strbuf_addch(out, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			strbuf_addf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			strbuf_addf(out, "\\u%04x", c);
		else
			strbuf_addch(out, (char)c);
	}
	strbuf_addch(out, '"');
}

/* Text: bytes outside printable ASCII as \xNN, so a hostile string
 * cannot drive the terminal. */
static void text_string(struct strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f)
			strbuf_addf(out, "\\x%02x", c);
		else
			strbuf_addch(out, (char)c);
	}
}

static void indent(struct printer *p)
{
	for (int i = 0; i < p->depth; i++)
		strbuf_addstr(&p->out, "  ");
}

static void json_sep(struct printer *p)
{
	if (!p->first[p->depth])
		strbuf_addch(&p->out, ',');
	p->first[p->depth] = 0;
}

/* A field: "name  value" in text, "name": value in JSON.  raw: a number
 * (JSON) printed as is.  Our own names are JSON identifiers ("image_kind"),
 * shown in text with spaces; a string map's keys are shown as they are. */
static void field(struct printer *p, const char *name, const char *value, size_t len, int raw,
		  int ours)
{
	if (p->json) {
		json_sep(p);
		json_string(&p->out, name, strlen(name));
		strbuf_addch(&p->out, ':');
		if (raw)
			strbuf_add(&p->out, value, len);
		else
			json_string(&p->out, value, len);
		return;
	}
	indent(p);
	if (ours) {
		size_t at = p->out.len;

		strbuf_addf(&p->out, "%-15s ", name);
		for (char *c = p->out.buf + at; *c; c++)
			if (*c == '_')
				*c = ' ';
	} else {
		size_t name_len = strlen(name);

		text_string(&p->out, name, name_len);
		strbuf_addf(&p->out, "%*s ", name_len < 15 ? (int)(15 - name_len) : 0, "");
	}
	text_string(&p->out, value, len);
	strbuf_addch(&p->out, '\n');
}

static void field_str(struct printer *p, const char *name, const char *value)
{
	field(p, name, value, strlen(value), 0, 1);
}

static void field_u64(struct printer *p, const char *name, uint64_t value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	field(p, name, buf, strlen(buf), 1, 1);
}

/* Opens a nested record (JSON object) or a list (JSON array) under name;
 * text shows the title line instead. */
static void open_group(struct printer *p, const char *name, const char *title, int list)
{
	if (p->json) {
		json_sep(p);
		if (name) {
			json_string(&p->out, name, strlen(name));
			strbuf_addch(&p->out, ':');
		}
		strbuf_addch(&p->out, list ? '[' : '{');
	} else if (title) {
		indent(p);
		text_string(&p->out, title, strlen(title));
		strbuf_addch(&p->out, '\n');
	}
	/* Text indents under a title only. */
	p->indents[p->ngroups++] = p->json || title;
	if (p->json || title)
		p->depth++;
	p->first[p->depth] = 1;
}

static void close_group(struct printer *p, int list)
{
	if (p->indents[--p->ngroups])
		p->depth--;
	if (p->json)
		strbuf_addch(&p->out, list ? ']' : '}');
}

/* A list of names: one text line, or a JSON array of strings. */
static void name_list(struct printer *p, const char *name, const struct strvec *names)
{
	if (p->json) {
		json_sep(p);
		json_string(&p->out, name, strlen(name));
		strbuf_addstr(&p->out, ":[");
		for (size_t i = 0; i < names->nr; i++) {
			if (i)
				strbuf_addch(&p->out, ',');
			json_string(&p->out, names->v[i], strlen(names->v[i]));
		}
		strbuf_addch(&p->out, ']');
		return;
	}
	if (!names->nr)
		return;
	indent(p);
	strbuf_addf(&p->out, "%-15s", name);
	for (size_t i = 0; i < names->nr; i++) {
		strbuf_addch(&p->out, ' ');
		text_string(&p->out, names->v[i], strlen(names->v[i]));
	}
	strbuf_addch(&p->out, '\n');
}

/* ---- what is inside an image ------------------------------------------- */

static int has_symbol(const struct strvec *v, const char *name, size_t len)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strncmp(v->v[i], name, len) && v->v[i][len] == '\0')
			return 1;
	return 0;
}

static int is_elf(const uint8_t *data, uint64_t size)
{
	return size >= 4 && !memcmp(data, "\x7f" "ELF", 4);
}

/* A cubin's layout (the ELF ABI version decides where e_flags keeps the SM
 * number, and which libomptarget can read it) and the tools it records. */
static void cubin_fields(struct printer *p, const uint8_t *data, size_t size)
{
	struct ol_cubin_header header;
	struct ol_cubin_tool tools[16];
	struct strvec tools_seen = STRVEC_INIT;
	size_t n;

	if (ol_cubin_read_header(data, size, &header) < 0)
		return;
	field_u64(p, "elf_abi_version", header.abi_version);
	field_u64(p, "sm", header.sm);
	n = ol_cubin_tools(data, size, tools, 16);
	for (size_t i = 0; i < n && i < 16; i++) {
		size_t len;
		const char *release = ol_cubin_tool_release(&tools[i], &len);
		char *tool = ol_xasprintf("%.*s/%.*s", (int)tools[i].name_len, tools[i].name,
					  (int)len, release);

		if (!has_symbol(&tools_seen, tool, strlen(tool)))
			strvec_push(&tools_seen, tool);
		free(tool);
	}
	name_list(p, "tools", &tools_seen);
	strvec_release(&tools_seen);
}

/* Kernels and globals of an ELF image: AMDGPU kernels have a "<name>.kd"
 * descriptor, CUDA ones STO_CUDA_ENTRY, CPU ones the OpenMP outlined
 * names; globals are the other defined data objects. */
static void elf_symbols(struct printer *p, const uint8_t *data, size_t size,
			const struct ol_loc *loc)
{
	struct strvec functions = STRVEC_INIT, objects = STRVEC_INIT;
	struct strvec kernels = STRVEC_INIT, globals = STRVEC_INIT;
	Elf *elf = ol_elf_open(data, size, loc);
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;

	if (!elf)
		return;
	gelf_getehdr(elf, &ehdr);
	if (ehdr.e_machine == OL_EM_CUDA)
		cubin_fields(p, data, size);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *symbols;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB || !shdr.sh_entsize)
			continue;
		symbols = elf_getdata(scn, NULL);
		for (size_t i = 0; symbols && i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(symbols, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_BIND(sym.st_info) == STB_LOCAL)
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
				if (ehdr.e_machine == OL_EM_CUDA ? (sym.st_other & STO_CUDA_ENTRY_FLAG) != 0
								  : !strncmp(name, "__omp_offloading_", 17))
					strvec_push(&kernels, name);
				else
					strvec_push(&functions, name);
			} else if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT) {
				strvec_push(&objects, name);
			}
		}
	}
	for (size_t i = 0; i < objects.nr; i++) {
		size_t len = strlen(objects.v[i]);

		if (ehdr.e_machine == OL_EM_AMDGPU && len > 3 && !strcmp(objects.v[i] + len - 3, ".kd")) {
			if (has_symbol(&functions, objects.v[i], len - 3))
				strvec_pushf(&kernels, "%.*s", (int)(len - 3), objects.v[i]);
			continue;
		}
		strvec_push(&globals, objects.v[i]);
	}
	name_list(p, "kernels", &kernels);
	name_list(p, "globals", &globals);
	strvec_release(&functions);
	strvec_release(&objects);
	strvec_release(&kernels);
	strvec_release(&globals);
	elf_end(elf);
}

static void fatbin_entries(struct printer *p, const uint8_t *data, size_t size,
			   const struct ol_loc *loc)
{
	struct ol_fatbin fatbin;
	const char *why;
	uint64_t bad;

	if (ol_fatbin_parse(data, size, &fatbin, &why, &bad) < 0) {
		struct ol_loc at = *loc;

		at.offset += bad;
		ol_error_at(&at, "fatbinary: %s", why);
		return;
	}
	open_group(p, "fatbinary", "fatbinary:", 1);
	for (size_t i = 0; i < fatbin.nimages; i++) {
		const struct ol_fatbin_image *img = &fatbin.images[i];
		char arch[16];

		snprintf(arch, sizeof(arch), "sm_%" PRIu32, img->sm);
		open_group(p, NULL, NULL, 0);
		if (!p->json) {
			indent(p);
			strbuf_addf(&p->out, "entry %zu: %s %s, %" PRIu64 " bytes at 0x%" PRIx64 "%s%s\n", i,
				    ol_fatbin_kind_name(img->kind), arch, img->payload_size,
				    img->payload_offset, ol_fatbin_compression(img) ? ", " : "",
				    ol_fatbin_compression(img) ? ol_fatbin_compression(img) : "");
		} else {
			field_str(p, "kind", ol_fatbin_kind_name(img->kind));
			field_str(p, "arch", arch);
			field_u64(p, "size", img->payload_size);
			field_u64(p, "offset", img->payload_offset);
			if (ol_fatbin_compression(img))
				field_str(p, "compression", ol_fatbin_compression(img));
		}
		if (!ol_fatbin_compression(img) && is_elf(img->payload, img->payload_size)) {
			p->depth++;
			elf_symbols(p, img->payload, (size_t)img->payload_size, loc);
			p->depth--;
		}
		close_group(p, 0);
	}
	close_group(p, 1);
	ol_fatbin_release(&fatbin);
}

static void bundle_entries(struct printer *p, const uint8_t *data, size_t size,
			   const struct ol_loc *loc)
{
	uint8_t *inflated = NULL;
	struct ol_bundle bundle;
	const char *why;
	uint64_t bad = 0;

	if (ol_bundle_is_compressed(data, size)) {
		struct ol_ccob_header header;
		size_t inflated_size;

		inflated = ol_ccob_decompress(data, size, &inflated_size, &header, &why, &bad);
		if (!inflated)
			goto fail;
		data = inflated;
		size = inflated_size;
		if (p->json)
			field_str(p, "compression", header.method == OL_CCOB_ZSTD ? "zstd" : "zlib");
	}
	if (ol_bundle_parse(data, size, &bundle, &why, &bad) < 0)
		goto fail;
	open_group(p, "bundle", inflated ? "offload bundle (compressed):" : "offload bundle:", 1);
	for (size_t i = 0; i < bundle.nentries; i++) {
		const struct ol_bundle_entry *e = &bundle.entries[i];

		open_group(p, NULL, NULL, 0);
		if (!p->json) {
			indent(p);
			strbuf_addf(&p->out, "entry %zu: ", i);
			text_string(&p->out, e->id, e->id_size);
			strbuf_addf(&p->out, ", %" PRIu64 " bytes at 0x%" PRIx64 "\n", e->size, e->offset);
		} else {
			field(p, "id", e->id, e->id_size, 0, 1);
			field_u64(p, "size", e->size);
			field_u64(p, "offset", e->offset);
		}
		if (is_elf(e->data, e->size)) {
			p->depth++;
			elf_symbols(p, e->data, (size_t)e->size, loc);
			p->depth--;
		}
		close_group(p, 0);
	}
	close_group(p, 1);
	ol_bundle_release(&bundle);
	free(inflated);
	return;
fail:
	free(inflated);
	{
		struct ol_loc at = *loc;

		at.offset += bad;
		ol_error_at(&at, "offload bundle: %s", why);
	}
}

/* Device bitcode: what it defines, through the backend (names only: the
 * IR's calling conventions, which tell kernels apart, are not read). */
static void bitcode_symbols(struct printer *p, const uint8_t *data, size_t size,
			    const struct ol_loc *loc)
{
	const struct ol_backend *be = ol_backend_get();
	struct strvec defined = STRVEC_INIT;
	struct ol_bc_symbol *syms = NULL;
	size_t nsyms = 0;
	char *err = NULL, where[1024];

	if (!be)
		return;
	ol_loc_format(loc, where, sizeof(where));
	if (be->bitcode_symbols(data, size, where, &syms, &nsyms, &err) != 0) {
		ol_error_at(loc, "cannot read device bitcode: %s", err ? err : "unknown error");
		free(err);
		return;
	}
	for (size_t i = 0; i < nsyms; i++) {
		if (syms[i].defined)
			strvec_push(&defined, syms[i].name);
		free(syms[i].name);
	}
	free(syms);
	name_list(p, "defines", &defined);
	strvec_release(&defined);
}

/* The payload of an image, by what its bytes are. */
static void image_contents(struct printer *p, const uint8_t *data, size_t size,
			   const struct ol_loc *loc)
{
	if (is_elf(data, size))
		elf_symbols(p, data, size, loc);
	else if (ol_identify(data, size) == OL_IN_BITCODE)
		bitcode_symbols(p, data, size, loc);
	else if (ol_fatbin_is_fatbin(data, size))
		fatbin_entries(p, data, size, loc);
	else if (ol_bundle_is_uncompressed(data, size) || ol_bundle_is_compressed(data, size))
		bundle_entries(p, data, size, loc);
}

static void print_binary(struct printer *p, const struct ol_embedded_image *img, size_t index)
{
	const struct ol_offload_binary *bin = &img->bin;
	char where[1024], title[1200];
	const char *kind = ol_image_kind_name(bin->image_kind);

	ol_loc_format(&img->loc, where, sizeof(where));
	snprintf(title, sizeof(title), "image %zu: %s", index, where);
	open_group(p, NULL, title, 0);
	if (p->json)
		field_str(p, "location", where);
	field_u64(p, "version", bin->version);
	if (bin->version >= 2)
		field_u64(p, "entry", bin->index);
	if (bin->compressed)
		field_str(p, "compressed", "yes");
	field_str(p, "offload_kind", ol_offload_kind_name(bin->offload_kind));
	field_u64(p, "offload_kind_value", bin->offload_kind_raw);
	field_str(p, "image_kind", *kind ? kind : "none");
	if (bin->flags & OL_OFFLOAD_FLAG_METADATA)
		field_str(p, "flags", "metadata only");
	field_str(p, "triple", bin->triple);
	field_str(p, "arch", bin->arch);
	field_u64(p, "size", bin->image_size);
	field_u64(p, "image_offset", ol_offload_image_offset(bin));
	open_group(p, "strings", "strings:", 0);
	for (size_t i = 0; i < bin->nstrings; i++)
		field(p, bin->strings[i].key, bin->strings[i].value, bin->strings[i].value_size, 0, 0);
	close_group(p, 0);
	image_contents(p, bin->image, (size_t)bin->image_size, &img->loc);
	close_group(p, 0);
}

/* .nv_fatbin and .hip_fatbin: CUDA and HIP images as registered in a
 * linked program or a relocatable object. */
static void registered_sections(struct printer *p, const char *path, const uint8_t *data,
				size_t size)
{
	struct ol_loc loc = { .file = path };
	Elf *elf = ol_elf_open(data, size, &loc);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf)
		return;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0)
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr shdr;
			const char *name;
			char title[256];

			if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
				continue;
			name = elf_strptr(elf, shstrndx, shdr.sh_name);
			if (!name || (strcmp(name, ".nv_fatbin") && strcmp(name, ".hip_fatbin")))
				continue;
			if (shdr.sh_offset > size || shdr.sh_size > size - shdr.sh_offset) {
				ol_error_at(&loc, "section '%s' lies outside the file", name);
				continue;
			}
			loc.section = name;
			loc.offset = 0;
			loc.has_offset = 1;
			snprintf(title, sizeof(title), "section %s: %" PRIu64 " bytes", name,
				 (uint64_t)shdr.sh_size);
			open_group(p, NULL, title, 0);
			if (p->json) {
				field_str(p, "section", name);
				field_u64(p, "size", shdr.sh_size);
			}
			image_contents(p, data + shdr.sh_offset, (size_t)shdr.sh_size, &loc);
			close_group(p, 0);
		}
	elf_end(elf);
}

static const char *file_kind_name(enum ol_input_kind kind)
{
	switch (kind) {
	case OL_IN_OBJECT: return "ELF relocatable object";
	case OL_IN_SHARED: return "ELF shared object";
	case OL_IN_EXEC: return "ELF executable";
	case OL_IN_COFF: return "COFF object";
	case OL_IN_BITCODE: return "LLVM bitcode";
	case OL_IN_ARCHIVE: return "archive";
	case OL_IN_OFFLOAD_BINARY: return "offload binary";
	default: return "file";
	}
}

static int inspect_file(struct printer *p, const char *path)
{
	struct ol_embedded_images found;
	int errors = ol_error_count();
	struct ol_loc loc = { .file = path };
	char title[1100];

	if (ol_embedded_images(path, &found) < 0 && !found.data)
		return -1;
	snprintf(title, sizeof(title), "%s: %s", path, file_kind_name(found.kind));
	open_group(p, NULL, title, 0);
	if (p->json) {
		field_str(p, "file", path);
		field_str(p, "kind", file_kind_name(found.kind));
	}
	open_group(p, "images", NULL, 1);
	for (size_t i = 0; i < found.n; i++)
		print_binary(p, &found.v[i], i);
	close_group(p, 1);
	open_group(p, "containers", NULL, 1);
	if (found.kind == OL_IN_OBJECT || found.kind == OL_IN_EXEC || found.kind == OL_IN_SHARED)
		registered_sections(p, path, found.data, found.size);
	else if (found.kind == OL_IN_OTHER && found.size >= 4)
		image_contents(p, found.data, found.size, &loc);   /* a fatbinary or bundle file */
	close_group(p, 1);
	close_group(p, 0);
	return ol_error_count() > errors ? -1 : 0;
}

enum { OPT_JSON = 1 };

static const struct ol_command_option inspect_options[] = {
	{ OPT_JSON, "json", NULL, "One JSON array, an object per file", 0 },
	{ 0, NULL, NULL, NULL, 0 },
};

static const char *const inspect_synopsis[] = { "[--json] <file>...", NULL };

static const struct ol_command_line inspect_command_line = {
	"inspect", inspect_synopsis,
	"Lists the device images in objects, archives, executables, shared libraries,\n"
	"bitcode, offload binaries (versions 1 to 3), offload bundles and fatbinaries:\n"
	"kind, target, size and place of each, its strings, and the kernels and\n"
	"globals of ELF images.  Exit status: 0, 1 when a file cannot be read whole.",
	"device images in any file", inspect_options, 0,
};

struct inspect_request {
	struct printer *p;
	struct strvec files;
};

static int take_inspect_option(void *ctx, int id, const char *value)
{
	struct inspect_request *r = ctx;

	if (id == OPT_JSON)
		r->p->json = 1;
	else
		strvec_push(&r->files, value);
	return 0;
}

int ol_inspect_command(int argc, char **argv)
{
	struct printer p;
	struct inspect_request request = { &p, STRVEC_INIT };
	int rc;

	memset(&p, 0, sizeof(p));
	p.out = (struct strbuf)STRBUF_INIT;
	rc = ol_command_line_read(&inspect_command_line, argc, argv, take_inspect_option, &request);
	if (rc == 0 && !request.files.nr)
		rc = ol_command_usage("inspect", "no input file");
	if (rc) {
		strvec_release(&request.files);
		return rc == 1 ? 0 : rc;
	}
	p.first[0] = 1;
	if (p.json)
		strbuf_addch(&p.out, '[');
	for (size_t i = 0; i < request.files.nr; i++) {
		if (inspect_file(&p, request.files.v[i]) < 0)
			rc = 1;
		/* Print as we go: a later file's failure leaves the earlier
		 * ones' output whole. */
		fwrite(strbuf_str(&p.out), 1, p.out.len, stdout);
		p.out.len = 0;
		if (p.out.buf)
			p.out.buf[0] = '\0';
	}
	if (p.json)
		fputs("]\n", stdout);
	strbuf_release(&p.out);
	strvec_release(&request.files);
	return rc;
}
