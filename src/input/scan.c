/*
 * scan: what the files on the link line hold.  See offload/inputs.h.
 *
 * One pass over cl->link_items: the state switches (--whole-archive,
 * -Bstatic, groups) are tracked, each -l is searched like the host linker
 * does, each file is mapped once and classified by its magic.  A file named
 * twice (or once as a path and once through -l) is scanned once: the second
 * input record shares the first one's object or archive, so its images are
 * counted once and resolve sees one member per (file, offset).
 *
 * The fast path: a link without offloading data maps each file, reads its
 * ELF section headers and names, and nothing else.  Symbol tables are read
 * on demand (ol_object_symbols); the LLVM backend is loaded only for bitcode.
 */
#include "scan_internal.h"
#include "offload/arena.h"
#include "offload/backend.h"
#include "offload/bitcode_header.h"
#include "offload/bitcode_sandbox.h"
#include "offload/cmdline.h"
#include "offload/coff.h"
#include "offload/diag.h"
#include "offload/hashtab.h"
#include "offload/mapped_file.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- classification ---------------------------------------------------- */

enum ol_input_kind ol_identify(const uint8_t *data, size_t size)
{
	if (size >= 8 && (!memcmp(data, "!<arch>\n", 8) || !memcmp(data, "!<thin>\n", 8)))
		return OL_IN_ARCHIVE;
	if (size < 4)
		return OL_IN_OTHER;
	if (!memcmp(data, OL_OFFLOAD_MAGIC_BYTES, 4))
		return OL_IN_OFFLOAD_BINARY;
	/* Raw bitcode, or the wrapper header 0x0B17C0DE (little-endian). */
	if (ol_bitcode_magic(data, size))
		return OL_IN_BITCODE;
	/* ELF: e_type at 16, in the byte order of e_ident[EI_DATA] (as LLVM's
	 * identify_magic, which also wants the 18 bytes). */
	if (size >= 18 && !memcmp(data, "\x7f" "ELF", 4)) {
		unsigned type = data[5] == 2 ? (unsigned)(data[16] << 8 | data[17])
					     : (unsigned)(data[17] << 8 | data[16]);

		switch (type) {
		case 1: return OL_IN_OBJECT;   /* ET_REL */
		case 2: return OL_IN_EXEC;     /* ET_EXEC */
		case 3: return OL_IN_SHARED;   /* ET_DYN, PIE executables included, as upstream */
		default: return OL_IN_OTHER;
		}
	}
	/* COFF objects have no magic, only a known machine in front. */
	if (ol_coff_is_object(data, size))
		return OL_IN_COFF;
	return OL_IN_OTHER;
}

/* ---- object formats ------------------------------------------------------ */

/* What each kind of host object file is read with; images and symbols of
 * everything else (bitcode, raw binaries) are scan.c's own.  Shared objects
 * have symbols but no images: their device code is registered by their own
 * constructors (19 and 22 skip them). */
static const struct object_format {
	enum ol_input_kind kind;
	int (*scan)(struct ol_object *obj, struct ol_image_vec *vec);
	int (*symbols)(const uint8_t *data, size_t size, const struct ol_loc *loc,
		       struct ol_symtab *out);
	int host_machine_only;    /* images only in objects for the host triple's machine */
} object_formats[] = {
	{ OL_IN_OBJECT, ol_elf_scan, ol_elf_symbols, 1 },
	{ OL_IN_EXEC, ol_elf_scan, ol_elf_symbols, 1 },
	{ OL_IN_SHARED, NULL, ol_elf_symbols, 0 },
	{ OL_IN_COFF, ol_coff_scan, ol_coff_symbols, 0 },
};

static const struct object_format *object_format_of(enum ol_input_kind kind)
{
	for (size_t i = 0; i < sizeof(object_formats) / sizeof(object_formats[0]); i++)
		if (object_formats[i].kind == kind)
			return &object_formats[i];
	return NULL;
}

/* ---- host bitcode ------------------------------------------------------- */

static void take_bc_symbols(struct ol_symtab *out, const struct ol_bc_symbol *syms, size_t n)
{
	out->v = n ? ol_arena_alloc(&ol_link_arena, n * sizeof(*out->v)) : NULL;
	out->n = 0;
	for (size_t i = 0; i < n; i++) {
		struct ol_symbol *sym;

		if (!syms[i].name || !syms[i].name[0])
			continue;
		sym = &out->v[out->n++];
		sym->name = ol_arena_strdup(&ol_link_arena, syms[i].name);
		sym->defined = syms[i].defined;
		sym->weak = syms[i].weak;
		sym->hidden = syms[i].hidden;
		sym->common = syms[i].common;
	}
}

/* Offloading data and symbols of a host bitcode file come from the backend
 * in one call; the symbols are kept so ol_object_symbols needs no second
 * trip.  The section buffers are copied to the arena because the images
 * point into them for the rest of the link. */
static int scan_bitcode(struct ol_object *obj, struct ol_image_vec *vec)
{
	const struct ol_backend *be = ol_backend_get();
	struct ol_loc loc = ol_object_loc(obj);
	struct ol_bc_info info;
	char *err = NULL;
	const char *why;
	uint64_t bad;
	int status = 0;

	if (ol_bitcode_header_check(obj->data, obj->size, &why, &bad) < 0) {
		loc.offset = bad;
		loc.has_offset = 1;
		return ol_error_at(&loc, "%s", why);
	}
	if (!be)
		return -1;   /* the loader said why */
	memset(&info, 0, sizeof(info));
	if (ol_bitcode_info_sandboxed(be, obj->data, obj->size, obj->display, &info, &err) != 0) {
		ol_error_at(&loc, "cannot read bitcode: %s", err ? err : "unknown error");
		free(err);
		return -1;
	}
	take_bc_symbols(&obj->host_symbols, info.symbols, info.nsymbols);
	obj->symbols_read = 1;
	obj->clang_major = info.clang_major;
	obj->entries_abi = info.entries_abi;
	for (size_t i = 0; i < info.noffload_sections; i++) {
		const struct ol_buffer *sec = &info.offload_sections[i];
		uint8_t *copy;

		if (!sec->size)
			continue;
		copy = ol_arena_alloc(&ol_link_arena, sec->size);
		memcpy(copy, sec->data, sec->size);
		if (ol_scan_offload_section(obj, vec, copy, sec->size, ".llvm.offloading") < 0)
			status = -1;
	}
	be->bitcode_info_free(&info);
	return status;
}

/* ---- objects and archives ---------------------------------------------- */

/* A file seen before on the line: its record is shared. */
struct seen_file {
	const struct ol_mapped_file *mf;
	enum ol_input_kind kind;
	struct ol_object *object;
	struct ol_archive *archive;
};

struct scan_state {
	struct ol_inputs *in;
	const char *host_triple;
	unsigned host_machine;      /* its ELF e_machine, 0 when unknown */
	struct ol_hashtab seen;     /* struct seen_file by the mapping's address */
	int failed;                 /* something was reported */
};

static int seen_is(const void *record, const void *mf)
{
	return ((const struct seen_file *)record)->mf == mf;
}

static struct seen_file *seen_lookup(struct scan_state *st, const struct ol_mapped_file *mf)
{
	int added;
	struct seen_file *slot;

	st->seen.record_size = sizeof(struct seen_file);
	slot = ol_hashtab_insert(&st->seen, ol_hash_pointer(mf), seen_is, mf, &added);
	if (added)
		slot->mf = mf;
	return slot;
}

/* "lib.a(member.o)", as messages name a member: every member of every
 * archive gets one, so it is built without printf. */
static const char *member_display(const char *path, const char *member)
{
	size_t plen = strlen(path), mlen = strlen(member);
	char *s = ol_arena_alloc(&ol_link_arena, plen + mlen + 3);

	memcpy(s, path, plen);
	s[plen] = '(';
	memcpy(s + plen + 1, member, mlen);
	s[plen + 1 + mlen] = ')';
	s[plen + 2 + mlen] = '\0';
	return s;
}

static struct ol_object *new_object(const char *path, const char *member,
				    const uint8_t *data, size_t size, enum ol_input_kind kind)
{
	struct ol_object *obj = ol_arena_alloc(&ol_link_arena, sizeof(*obj));

	obj->path = path;
	obj->member = member;
	obj->display = member ? member_display(path, member) : path;
	obj->kind = kind;
	obj->data = data;
	obj->size = size;
	return obj;
}

/* The ELF machine of a host triple's architecture, 0 for one not listed. */
static unsigned elf_machine_of(const char *triple)
{
	static const struct { const char *arch; unsigned machine; } known[] = {
		{ "x86_64", 62 }, { "aarch64", 183 }, { "powerpc64le", 21 }, { "powerpc64", 21 },
		{ "riscv64", 243 }, { "s390x", 22 }, { "loongarch64", 258 },
	};
	size_t len = strcspn(triple, "-");

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strlen(known[i].arch) == len && !strncmp(triple, known[i].arch, len))
			return known[i].machine;
	return 0;
}

/* An object with device code for another machine than the host's: the
 * host linker refuses it ("Relocations in generic ELF"), but only after
 * the device links; say it first, naming the object. */
static int check_machine(const struct scan_state *st, const struct ol_object *obj)
{
	struct ol_loc loc = ol_object_loc(obj);
	unsigned machine;

	if (!st->host_machine || obj->size < 20 || obj->data[5] != 1)   /* ELFDATA2LSB */
		return 0;
	machine = (unsigned)(obj->data[18] | obj->data[19] << 8);
	if (machine == st->host_machine)
		return 0;
	return ol_error_at(&loc, "object is for ELF machine %u, not for the host triple '%s' "
			   "(machine %u)", machine, st->host_triple, st->host_machine);
}

/* Reads the offloading data of one object and folds it into the summary. */
static void scan_object(struct scan_state *st, struct ol_object *obj)
{
	struct ol_image_vec vec = { NULL, 0, 0 };
	struct ol_inputs *in = st->in;
	int status;

	const struct object_format *format = object_format_of(obj->kind);

	switch (obj->kind) {
	case OL_IN_BITCODE:
		in->any_bitcode = 1;
		status = scan_bitcode(obj, &vec);
		break;
	case OL_IN_OFFLOAD_BINARY:
		status = ol_scan_offload_section(obj, &vec, obj->data, obj->size, NULL);
		break;
	default:
		if (!format || !format->scan)
			return;   /* nothing for us (a shared object's device code is its own) */
		status = format->scan(obj, &vec);
		if (status == 0 && vec.n && format->host_machine_only && check_machine(st, obj) < 0)
			status = -1;
		break;
	}
	if (status < 0)
		st->failed = 1;
	if (vec.n) {
		obj->images = ol_arena_alloc(&ol_link_arena, vec.n * sizeof(*obj->images));
		memcpy(obj->images, vec.v, vec.n * sizeof(*obj->images));
		obj->nimages = vec.n;
		in->nimages += vec.n;
	}
	free(vec.v);
	if ((obj->nimages || obj->entries_abi) && obj->clang_major > in->clang_major)
		in->clang_major = obj->clang_major;
	/* Mixed inputs: the newest layout seen decides (the wrapper module
	 * brackets one entries section). */
	if (obj->entries_abi > in->entries_abi)
		in->entries_abi = obj->entries_abi;
}

struct member_list {
	struct scan_state *st;
	struct ol_archive *archive;
	struct ol_object **v;
	size_t n, alloc;
};

static void scan_member(void *ctx, const struct ol_ar_member *member)
{
	struct member_list *list = ctx;
	enum ol_input_kind kind = ol_identify(member->data, member->size);
	struct ol_object *obj;

	/* Host linkers do not load archives nested in archives. */
	if (kind == OL_IN_ARCHIVE)
		kind = OL_IN_OTHER;
	obj = new_object(list->archive->path, member->name, member->data, member->size, kind);
	obj->archive = list->archive;
	obj->member_offset = member->header_offset;
	scan_object(list->st, obj);
	if (obj->nimages)
		list->archive->has_offloading = 1;
	OL_GROW(list->v, list->n + 1, list->alloc, 16);
	list->v[list->n++] = obj;
}

static struct ol_archive *scan_archive(struct scan_state *st, const char *path,
				       const uint8_t *data, size_t size)
{
	struct ol_archive *ar = ol_arena_alloc(&ol_link_arena, sizeof(*ar));
	struct member_list list = { .st = st, .archive = ar };

	ar->path = path;
	ar->thin = !memcmp(data, "!<thin>\n", 8);
	if (ol_archive_walk(path, data, size, scan_member, &list) < 0)
		st->failed = 1;
	if (list.n) {
		ar->members = ol_arena_alloc(&ol_link_arena, list.n * sizeof(*ar->members));
		memcpy(ar->members, list.v, list.n * sizeof(*ar->members));
		ar->nmembers = list.n;
	}
	free(list.v);
	return ar;
}

/* Classifies the bytes of input->path and reads what they hold. */
static void scan_contents(struct scan_state *st, struct ol_input *input, const uint8_t *data,
			  size_t size)
{
	input->kind = ol_identify(data, size);
	switch (input->kind) {
	case OL_IN_ARCHIVE:
		input->archive = scan_archive(st, input->path, data, size);
		break;
	case OL_IN_OTHER:
		break;
	default:
		input->object = new_object(input->path, NULL, data, size, input->kind);
		scan_object(st, input->object);
		break;
	}
}

int ol_scan_memory(const char *path, const uint8_t *data, size_t size, struct ol_inputs *in,
		   struct ol_input *input)
{
	struct scan_state st = { .in = in };

	memset(in, 0, sizeof(*in));
	memset(input, 0, sizeof(*input));
	input->path = input->spelling = path;
	scan_contents(&st, input, data, size);
	return st.failed ? -1 : 0;
}

/* Fills input->kind/object/archive for the file at input->path. */
static void scan_file(struct scan_state *st, struct ol_input *input)
{
	const struct ol_mapped_file *mf = ol_map_file(input->path);
	struct seen_file *seen;

	if (!mf) {
		switch (errno) {
		case ENOENT: case ENOTDIR: case EISDIR: case ENAMETOOLONG: case ELOOP:
			/* Stray words ("now" of "-z now"), directories (the
			 * value of a linker option we do not know, such as
			 * lld's --chroot): upstream skips them, and the host
			 * linker has its own say. */
			input->kind = OL_IN_MISSING;
			break;
		case EINVAL:
			input->kind = OL_IN_OTHER;   /* a device file: the linker decides */
			break;
		case ESPIPE:
			/* The host linker would wait for a writer forever. */
			input->kind = OL_IN_MISSING;
			ol_error_not_readable_to_end(input->path, "link input");
			st->failed = 1;
			break;
		default:
			input->kind = OL_IN_MISSING;
			ol_error("cannot open '%s': %s", input->path, strerror(errno));
			st->failed = 1;
			break;
		}
		return;
	}
	seen = seen_lookup(st, mf);
	if (seen->kind != OL_IN_MISSING) {   /* mapped files are never MISSING: seen before */
		input->kind = seen->kind;
		input->object = seen->object;
		input->archive = seen->archive;
		return;
	}

	scan_contents(st, input, mf->data, mf->size);
	seen->kind = input->kind;
	seen->object = input->object;
	seen->archive = input->archive;
}

static int scan_inputs(const struct ol_cmdline *cl, struct ol_inputs *in, int beside_host_link)
{
	struct scan_state st = { .in = in, .host_triple = cl->host_triple ? cl->host_triple : "" };
	struct ol_input *inputs = NULL;
	size_t ninputs = 0, alloc = 0;
	int whole_archive = 0, static_only = 0, group = 0, ngroups = 0;

	const char **files = ol_xcalloc(cl->nlink_items + 1, sizeof(*files));

	st.host_machine = elf_machine_of(st.host_triple);
	size_t nfiles = 0;

	memset(in, 0, sizeof(*in));
	for (size_t i = 0; i < cl->nlink_items; i++)
		if (cl->link_items[i].kind == OL_LINK_FILE)
			files[nfiles++] = cl->link_items[i].value;
	if (!beside_host_link)
		ol_map_files_ahead(files, nfiles);
	for (size_t i = 0; i < cl->nlink_items; i++) {
		const struct ol_link_item *item = &cl->link_items[i];
		struct ol_input *input;
		const char *path = item->value;

		switch (item->kind) {
		case OL_LINK_WHOLE_ARCHIVE: whole_archive = 1; continue;
		case OL_LINK_NO_WHOLE_ARCHIVE: whole_archive = 0; continue;
		case OL_LINK_BSTATIC: static_only = 1; continue;
		case OL_LINK_BDYNAMIC: static_only = 0; continue;
		case OL_LINK_START_GROUP: group = ++ngroups; continue;
		case OL_LINK_END_GROUP: group = 0; continue;
		case OL_LINK_AS_NEEDED:
		case OL_LINK_NO_AS_NEEDED:
			continue;
		case OL_LINK_LIBRARY:
			path = ol_find_library(cl, item->value, static_only);
			if (!path) {
				ol_error("unable to find library -l%s", item->value);
				st.failed = 1;
				continue;
			}
			break;
		case OL_LINK_FILE:
			break;
		}

		OL_GROW(inputs, ninputs + 1, alloc, 32);
		input = &inputs[ninputs++];
		memset(input, 0, sizeof(*input));
		input->path = path;
		input->spelling = item->kind == OL_LINK_LIBRARY
					  ? ol_arena_printf(&ol_link_arena, "-l%s", item->value)
					  : item->value;
		input->whole_archive = whole_archive;
		input->group = group;
		input->link_item = i;
		scan_file(&st, input);
	}
	ol_map_files_ahead_finish();
	free(files);
	if (ninputs) {
		in->v = ol_arena_alloc(&ol_link_arena, ninputs * sizeof(*in->v));
		memcpy(in->v, inputs, ninputs * sizeof(*in->v));
		in->n = ninputs;
	}
	free(inputs);
	ol_hashtab_release(&st.seen);
	return st.failed ? -1 : 0;
}

/* ---- symbols ------------------------------------------------------------- */

struct scan_call {
	const struct ol_cmdline *cl;
	struct ol_inputs *in;
	int status;
};

static void *scan_on_thread(void *arg)
{
	struct scan_call *call = arg;

	call->status = scan_inputs(call->cl, call->in, 1);
	return NULL;
}

int ol_inputs_scan(const struct ol_cmdline *cl, struct ol_inputs *in, int beside_host_link)
{
	struct scan_call call = { cl, in, -1 };
	pthread_t thread;

	/* The linker, vforked from this thread, starts on this thread's core,
	 * and the two share it until the scheduler moves one of them: the
	 * scan slowed a 22 ms link by 0.9 ms on two cores.  A new thread is
	 * placed on an idle core at once. */
	if (beside_host_link && pthread_create(&thread, NULL, scan_on_thread, &call) == 0) {
		pthread_join(thread, NULL);
		return call.status;
	}
	return scan_inputs(cl, in, beside_host_link);
}

const struct ol_symtab *ol_object_symbols(struct ol_object *obj)
{
	if (!obj->symbols_read) {
		const struct object_format *format = object_format_of(obj->kind);
		struct ol_loc loc = ol_object_loc(obj);

		obj->symbols_read = 1;
		/* Bitcode symbols arrive with the scan; a bitcode file whose
		 * scan failed (reported) and everything else has none. */
		if (format)
			format->symbols(obj->data, obj->size, &loc, &obj->host_symbols);
	}
	return &obj->host_symbols;
}

const struct ol_symtab *ol_image_symbols(struct ol_device_image *img)
{
	const struct ol_backend *be;
	struct ol_bc_symbol *syms = NULL;
	size_t nsyms = 0;
	char *err = NULL;

	if (img->symbols_read)
		return &img->symbols;
	img->symbols_read = 1;
	switch (ol_identify(img->bin.image, img->bin.image_size)) {
	case OL_IN_OBJECT:
	case OL_IN_SHARED:
	case OL_IN_EXEC:
		ol_elf_symbols(img->bin.image, img->bin.image_size, &img->loc, &img->symbols);
		break;
	case OL_IN_BITCODE:
		be = ol_backend_get();
		if (!be)
			break;
		if (be->bitcode_symbols(img->bin.image, img->bin.image_size, img->owner->display,
					&syms, &nsyms, &err) != 0) {
			ol_error_at(&img->loc, "cannot read device bitcode: %s",
				    err ? err : "unknown error");
			free(err);
			break;
		}
		take_bc_symbols(&img->symbols, syms, nsyms);
		for (size_t i = 0; i < nsyms; i++)
			free(syms[i].name);
		free(syms);
		break;
	default:
		break;   /* PTX, fatbinaries, ...: no symbols to offer */
	}
	return &img->symbols;
}
