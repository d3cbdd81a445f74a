/*
 * package: `offload-link package`, the command line of clang-offload-packager
 * (16, 19, 22) and of llvm-offload-binary, its successor after 22.
 *
 *   offload-link package -o OUT --image=file=F,triple=T[,arch=A,kind=K,key=V...]...
 *       packages images: one OffloadBinary per image (version 1), or one
 *       binary holding every image (--format-version=2|3, 3 compressed with
 *       --compress[=zstd|zlib]); --fat-object writes it as a host object's
 *       .llvm.offloading section instead, ready to link.
 *   offload-link package IN --image=key=V,...[,file=F] [--archive]
 *       extracts the images of IN (an object, archive, executable, bitcode
 *       file or raw binary) whose keys match, as 19 and 22 do.
 *
 * Byte for byte what the release in --release=16|19|22 (default 22) writes:
 * the string entries follow the packager's hash map of the arguments
 * (llvm_map_order.h), HIP is kind 3 before 22 and 4 from it, 19 and 22 take
 * bitcode by its magic and several files per image ("file=a,file=b").
 */
#include "offload/commands.h"
#include "offload/arena.h"
#include "offload/ar_writer.h"
#include "offload/bitcode_header.h"
#include "offload/diag.h"
#include "offload/fat_object.h"
#include "offload/llvm_map_order.h"
#include "offload/mapped_file.h"
#include "offload/offload_binary.h"
#include "offload/strvec.h"
#include "offload/tempfile.h"
#include "commands_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct package_options {
	const char *output;
	const char *input;
	struct strvec images;
	int archive;
	int release;                   /* 16, 19 or 22 */
	struct ol_offload_write_options write;
	int fat_object;
	const char *host_triple;
};

/* One --image: its keys in the order the release's map iterates them. */
struct image_args {
	const char **keys, **values;
	size_t n;
};

static const char *arg_value(const struct image_args *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->keys[i], key))
			return a->values[i];
	return NULL;
}

/* "k=v,k=v": a repeated key's values are joined with ',' (the packager's
 * getImageArguments); then the keys are put in the map's order. */
static void parse_image_args(const char *spec, struct image_args *out)
{
	const char **keys = NULL, **values = NULL;
	size_t n = 0;
	size_t *order;

	for (const char *p = spec;;) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		char *key = ol_arena_strndup(&ol_link_arena, p, eq ? (size_t)(eq - p) : len);
		const char *value = eq ? ol_arena_strndup(&ol_link_arena, eq + 1, len - (size_t)(eq - p) - 1)
				       : "";
		size_t i;

		for (i = 0; i < n && strcmp(keys[i], key); i++)
			;
		if (i < n) {
			values[i] = ol_arena_printf(&ol_link_arena, "%s,%s", values[i], value);
		} else {
			keys = ol_xrealloc(keys, (n + 1) * sizeof(*keys));
			values = ol_xrealloc(values, (n + 1) * sizeof(*values));
			keys[n] = key;
			values[n++] = value;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	order = ol_xmalloc((n ? n : 1) * sizeof(*order));
	ol_llvm_map_order(OL_LLVM_DENSEMAP_STRREF, keys, n, order);
	out->n = n;
	out->keys = ol_arena_alloc(&ol_link_arena, (n ? n : 1) * sizeof(*out->keys));
	out->values = ol_arena_alloc(&ol_link_arena, (n ? n : 1) * sizeof(*out->values));
	for (size_t i = 0; i < n; i++) {
		out->keys[i] = keys[order[i]];
		out->values[i] = values[order[i]];
	}
	free(order);
	free(keys);
	free(values);
}

/* The image kind the packager gives a file: bitcode by its magic (19, 22),
 * else by the file name's extension ("spv" only after 22, whose binaries
 * are versions 2 and 3). */
static uint16_t image_kind_of(const char *path, const uint8_t *data, size_t size, int release,
			      int after_22)
{
	static const enum ol_image_kind kinds[] = {
		OL_IMG_OBJECT, OL_IMG_BITCODE, OL_IMG_CUBIN, OL_IMG_FATBINARY, OL_IMG_PTX,
		OL_IMG_SPIRV,
	};
	const char *base = strrchr(path, '/'), *dot;

	if (release >= 19 && ol_bitcode_magic(data, size))
		return OL_IMG_BITCODE;
	dot = strrchr(base ? base + 1 : path, '.');
	if (!dot)
		return OL_IMG_NONE;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		/* "spv" is known only after 22. */
		if (!strcmp(dot + 1, ol_image_kind_name(kinds[i])) &&
		    (kinds[i] != OL_IMG_SPIRV || after_22))
			return (uint16_t)kinds[i];
	return OL_IMG_NONE;
}

/* The value the release gives a kind= name: "sycl" is known from 22 on,
 * HIP is 3 before 22 and 4 from it; unknown names are 0 (OFK_None). */
static uint16_t kind_value(const char *name, int release)
{
	enum ol_offload_kind kind = ol_offload_kind_from_name(name);

	if (kind == OL_OFK_SYCL && release < 22)
		return 0;
	return ol_offload_kind_encode(kind, release);
}

/* The strings of an image as the release stores them: every key but file
 * and kind; 16 iterates them from a StringMap of their own. */
static void image_strings(const struct image_args *a, int release,
			  struct ol_offload_string **out, size_t *nout)
{
	const char **keys = ol_xmalloc((a->n ? a->n : 1) * sizeof(*keys));
	const char **values = ol_xmalloc((a->n ? a->n : 1) * sizeof(*values));
	size_t n = 0, *order;

	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->keys[i], "file") && strcmp(a->keys[i], "kind")) {
			keys[n] = a->keys[i];
			values[n++] = a->values[i];
		}
	order = ol_xmalloc((n ? n : 1) * sizeof(*order));
	if (release == 16)
		ol_llvm_map_order(OL_LLVM_STRINGMAP_16, keys, n, order);
	else
		for (size_t i = 0; i < n; i++)
			order[i] = i;   /* a MapVector: insertion order */
	*out = ol_arena_alloc(&ol_link_arena, (n ? n : 1) * sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		(*out)[i].key = keys[order[i]];
		(*out)[i].value = values[order[i]];
	}
	*nout = n;
	free(order);
	free(keys);
	free(values);
}

static int bundle_images(const struct package_options *o)
{
	struct ol_offload_binary_desc *descs = NULL;
	size_t ndescs = 0, size = 0;
	uint8_t *out;
	const char *why = NULL;
	int rc;

	for (size_t i = 0; i < o->images.nr; i++) {
		struct image_args a;
		const char *files, *kind;
		struct ol_offload_string *strings;
		size_t nstrings;

		parse_image_args(o->images.v[i], &a);
		files = arg_value(&a, "file");
		if (!arg_value(&a, "triple") || !files) {
			free(descs);
			return ol_error("'file' and 'triple' are required image arguments");
		}
		kind = arg_value(&a, "kind");
		image_strings(&a, o->release, &strings, &nstrings);
		/* 19 and 22 take several files per image; 16 opens the value whole. */
		for (const char *p = files;;) {
			size_t len = o->release >= 19 ? strcspn(p, ",") : strlen(p);
			const char *path = ol_arena_strndup(&ol_link_arena, p, len);
			struct ol_mapped_file *f = ol_map_file_reported(path, "device image");
			struct ol_offload_binary_desc *d;

			if (!f) {
				free(descs);
				return -1;
			}
			descs = ol_xrealloc(descs, (ndescs + 1) * sizeof(*descs));
			d = &descs[ndescs++];
			memset(d, 0, sizeof(*d));
			d->image_kind = image_kind_of(path, f->data, f->size, o->release,
						       o->write.version >= 2);
			d->offload_kind_raw = kind ? kind_value(kind, o->release) : 0;
			d->strings = strings;
			d->nstrings = nstrings;
			d->image = f->data;
			d->image_size = f->size;
			if (!p[len] || o->release < 19)
				break;
			p += len + 1;
		}
	}
	out = ol_offload_binary_write_version(descs, ndescs, &o->write, &size, &why);
	free(descs);
	if (!out)
		return ol_error("%s", why);
	if (o->fat_object) {
		uint16_t machine;
		uint32_t flags;
		uint8_t *object;

		if (ol_fat_object_machine(o->host_triple, &machine, &flags) < 0) {
			free(out);
			return ol_error("--fat-object: no ELF host object is known for '%s'",
					o->host_triple);
		}
		object = ol_fat_object_write(machine, flags, out, size, &size);
		free(out);
		out = object;
	}
	rc = ol_write_file_atomic(o->output, out, size);
	free(out);
	return rc;
}

/* ---- extraction (19, 22) ------------------------------------------------- */

static int binary_matches(const struct ol_offload_binary *bin, const struct image_args *a)
{
	for (size_t i = 0; i < a->n; i++) {
		const char *have;

		if (!strcmp(a->keys[i], "file"))
			continue;
		if (!strcmp(a->keys[i], "kind")) {
			if (bin->offload_kind != ol_offload_kind_from_name(a->values[i]))
				return 0;
			continue;
		}
		have = ol_offload_binary_get(bin, a->keys[i]);
		if (!have || strcmp(have, a->values[i]))
			return 0;
	}
	return 1;
}

/* The name the packager derives: <input stem>-<triple>-<arch>.<n>.<ext>. */
static const char *derived_name(const char *input, const struct ol_offload_binary *bin, size_t n)
{
	const char *base = strrchr(input, '/'), *dot;
	size_t stem;

	base = base ? base + 1 : input;
	dot = strrchr(base, '.');
	stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	return ol_arena_printf(&ol_link_arena, "%.*s-%s-%s.%zu.%s", (int)stem, base, bin->triple,
			       bin->arch, n, ol_image_kind_name(bin->image_kind));
}

static int extract_images(const struct package_options *o)
{
	struct ol_embedded_images found;
	int rc = 0;

	if (ol_embedded_images(o->input, &found) < 0)
		return -1;
	for (size_t i = 0; i < o->images.nr && rc == 0; i++) {
		struct image_args a;
		const struct ol_offload_binary **matched = NULL;
		const char *file;
		size_t n = 0;

		parse_image_args(o->images.v[i], &a);
		for (size_t k = 0; k < found.n; k++)
			if (binary_matches(&found.v[k].bin, &a)) {
				matched = ol_xrealloc(matched, (n + 1) * sizeof(*matched));
				matched[n++] = &found.v[k].bin;
			}
		file = arg_value(&a, "file");
		if (n == 0) {
			free(matched);
			continue;
		}
		if (o->archive) {
			struct ol_ar_entry *members;
			struct strbuf ar = STRBUF_INIT;

			if (!file) {
				free(matched);
				return ol_error("Image must have a 'file' argument.");
			}
			members = ol_xcalloc(n, sizeof(*members));
			for (size_t k = 0; k < n; k++) {
				members[k].name = derived_name(o->input, matched[k], k);
				members[k].data = matched[k]->image;
				members[k].size = (size_t)matched[k]->image_size;
			}
			ol_ar_write(members, n, &ar);
			rc = ol_write_file_atomic(file, ar.buf, ar.len);
			strbuf_release(&ar);
			free(members);
		} else if (file) {
			if (n > 1)
				ol_warn("Multiple inputs match to a single file, '%s'", file);
			rc = ol_write_file_atomic(file, matched[n - 1]->image,
						  (size_t)matched[n - 1]->image_size);
		} else {
			for (size_t k = 0; k < n && rc == 0; k++)
				rc = ol_write_file_atomic(derived_name(o->input, matched[k], k),
							  matched[k]->image,
							  (size_t)matched[k]->image_size);
		}
		free(matched);
	}
	return rc;
}

/* ---- command line --------------------------------------------------------- */

enum {
	OPT_OUTPUT = 1, OPT_IMAGE, OPT_ARCHIVE, OPT_RELEASE, OPT_FORMAT_VERSION, OPT_COMPRESS,
	OPT_COMPRESSION_LEVEL, OPT_FAT_OBJECT, OPT_HOST_TRIPLE,
};

static const struct ol_command_option package_options[] = {
	{ OPT_OUTPUT, "o", "<file>", "Package the images into <file>", 0 },
	{ OPT_IMAGE, "image", "file=<f>,triple=<t>[,arch=<a>,kind=<k>,<key>=<value>...]",
	  "One image and its strings; when extracting, which images to write where", 0 },
	{ OPT_ARCHIVE, "archive", NULL, "Extract into a static archive of the images", 0 },
	{ OPT_RELEASE, "release", "16|19|22",
	  "Write what that release's packager writes, string order included (default 22)", 0 },
	{ OPT_FORMAT_VERSION, "format-version", "1|2|3",
	  "OffloadBinary version to write (default 1; 2 and 3 are LLVM's after 22)", 0 },
	{ OPT_COMPRESS, "compress", "zstd|zlib", "Compress the binary (version 3; zstd unless "
	  "zlib is named)", 1 },
	{ OPT_COMPRESSION_LEVEL, "compression-level", "<n>", "The compressor's level", 0 },
	{ OPT_FAT_OBJECT, "fat-object", NULL,
	  "Write a host object whose .llvm.offloading section holds the binary", 0 },
	{ OPT_HOST_TRIPLE, "host-triple", "<triple>",
	  "The fat object's host (default " OL_DEFAULT_TRIPLE ")", 0 },
	{ 0, NULL, NULL, NULL, 0 },
};

static const char *const package_synopsis[] = {
	"-o <file> --image=file=<f>,triple=<t>[,...]... [--release=16|19|22]",
	"<binary> [--image=file=<out>,triple=<t>[,...]]... [--archive]",
	NULL,
};

static const struct ol_command_line package_command_line = {
	"package", package_synopsis,
	"Puts device images and their strings (triple, arch, kind, ...) into one\n"
	"OffloadBinary, the payload clang embeds in .llvm.offloading, or takes them\n"
	"out of one (a raw binary, an object, an archive).  The command line is that\n"
	"of clang-offload-packager 16 and 19 and of llvm-offload-binary 22, and the\n"
	"bytes are theirs.  Exit status: 0, 1 on failure, 2 on a usage error.",
	"the command line of clang-offload-packager and llvm-offload-binary",
	package_options, 0,
};

static int take_package_option(void *ctx, int id, const char *value)
{
	struct package_options *o = ctx;

	switch (id) {
	case OL_COMMAND_INPUT:
		if (o->input)
			return ol_command_usage("package", "one input file at most ('%s' and '%s')",
						o->input, value);
		o->input = value;
		break;
	case OPT_OUTPUT:
		o->output = value;
		break;
	case OPT_IMAGE:
		strvec_push(&o->images, value);
		break;
	case OPT_ARCHIVE:
		o->archive = 1;
		break;
	case OPT_RELEASE:
		o->release = atoi(value);
		if (o->release != 16 && o->release != 19 && o->release != 22)
			return ol_command_usage("package", "--release= takes 16, 19 or 22");
		break;
	case OPT_FORMAT_VERSION:
		o->write.version = (unsigned)atoi(value);
		break;
	case OPT_COMPRESS:
		if (value && strcmp(value, "zstd") != 0 && strcmp(value, "zlib") != 0)
			return ol_command_usage("package", "--compress= takes zstd or zlib");
		o->write.compress = !value || strcmp(value, "zstd") == 0;
		break;
	case OPT_COMPRESSION_LEVEL:
		o->write.level = atoi(value);
		break;
	case OPT_FAT_OBJECT:
		o->fat_object = 1;
		break;
	case OPT_HOST_TRIPLE:
		o->host_triple = value;
		break;
	}
	return 0;
}

int ol_package_command(int argc, char **argv)
{
	struct package_options o = { .release = 22, .write = { 1, -1, -1 },
				     .host_triple = OL_DEFAULT_TRIPLE };
	int rc;

	o.images = (struct strvec)STRVEC_INIT;
	rc = ol_command_line_read(&package_command_line, argc, argv, take_package_option, &o);
	if (rc) {
		strvec_release(&o.images);
		return rc == 1 ? 0 : rc;
	}
	if (o.write.compress >= 0 && o.write.version < 3)
		o.write.version = 3;
	if (o.input && o.output) {
		strvec_release(&o.images);
		return ol_command_usage("package", "-o packages images and an input file is "
					"extracted: one or the other");
	}
	if (o.output)
		rc = bundle_images(&o);
	else if (o.input)
		rc = extract_images(&o);
	else
		rc = ol_command_usage("package", "nothing to do: -o <file> packages images, "
				      "an input file extracts them");
	strvec_release(&o.images);
	if (rc == 2)
		return rc;
	return rc < 0 || ol_error_count() ? 1 : 0;
}
