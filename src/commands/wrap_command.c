/*
 * wrap: "offload-link wrap", the registration module of device images as
 * the standalone wrapper tools write it (docs/usage.md, "wrap"):
 *
 *   clang-offload-wrapper (LLVM 14, AMD's fork): images as inputs, each
 *   after an optional --offload-arch=<target-id>, wrapped in the legacy
 *   OpenMP layout (OL_WRAP_FLAVOR_LEGACY) with AMD's image info records;
 *   llvm-offload-wrapper (LLVM 22): --kind=openmp|cuda|hip, the module
 *   clang-linker-wrapper 22 builds (OpenMP: one image per input, an
 *   OffloadBinary; CUDA: one fatbinary; HIP: one offload bundle).
 *
 * The backend builds the module (src/backend/registration_openmp.c,
 * registration_cuda_hip.c); this file reads the command line and the images and
 * writes the output atomically, so a failed run leaves none.  An OpenMP
 * input in the OffloadBinary layout of LLVM after 22 (version 2 or 3:
 * several entries, maybe compressed) is registered as one version 1 binary
 * per entry, the layout the runtimes of 16, 19 and 22 read.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload/backend.h"
#include "offload/diag.h"
#include "offload/arena.h"
#include "offload/mapped_file.h"
#include "offload/offload_binary.h"
#include "offload/tempfile.h"
#include "commands_internal.h"

/* Usage errors exit 2 (as the cache command's), failures 1. */
enum { WRAP_FAILED = 1, WRAP_USAGE = 2 };

struct wrap_image {
	const char *path;
	const char *offload_arch;       /* the --offload-arch before it, or NULL */
};

struct wrap_args {
	const char *output;
	const char *triple;             /* "" until given: the backend's default */
	enum ol_wrap_kind kind;         /* 0: clang-offload-wrapper's command line */
	int filetype_obj;               /* -1: from the output's name */
	struct wrap_image *images;
	size_t nimages;
	const char *pending_arch;       /* --offload-arch waiting for its image */
};

enum {
	OPT_OUTPUT = 1, OPT_TRIPLE, OPT_KIND, OPT_OFFLOAD_ARCH, OPT_FILETYPE,
};

static const struct ol_command_option wrap_options[] = {
	{ OPT_OUTPUT, "o", "<file>", "Write the module to <file>", 0 },
	{ OPT_TRIPLE, "target|triple", "<triple>", "The host triple (default: LLVM's)", 0 },
	{ OPT_KIND, "kind", "openmp|cuda|hip",
	  "llvm-offload-wrapper 22's command line: what the inputs are registered as", 0 },
	{ OPT_OFFLOAD_ARCH, "offload-arch", "<target-id>",
	  "clang-offload-wrapper: AMD's image info for the next image (every image or none)", 0 },
	{ OPT_FILETYPE, "filetype", "bc|obj",
	  "Bitcode or a host object (default: an object when -o names a .o file)", 0 },
	{ 0, NULL, NULL, NULL, 0 },
};

static const char *const wrap_synopsis[] = {
	"[--target=<triple>] [--filetype=bc|obj] -o <file> [--offload-arch=<target-id>] <image>...",
	"--kind=openmp|cuda|hip [--triple=<triple>] [--filetype=bc|obj] -o <file> <input>...",
	NULL,
};

static const struct ol_command_line wrap_command_line = {
	"wrap", wrap_synopsis,
	"Writes the registration module of device images.  Without --kind, as\n"
	"clang-offload-wrapper: the legacy OpenMP layout, with AMD's image info for\n"
	"images given an --offload-arch.  With --kind, as llvm-offload-wrapper 22:\n"
	"OpenMP takes OffloadBinaries, one image each; CUDA one fatbinary; HIP one\n"
	"offload bundle.  The output is LLVM bitcode, or a host object when -o names\n"
	"a .o file or --filetype=obj is given.  Exit status: 0, 1 on failure, 2 on a\n"
	"usage error.",
	"the command lines of clang-offload-wrapper and llvm-offload-wrapper",
	wrap_options, 1,
};

static int usage_error(const char *fmt, ...) OL_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ol_command_usage("wrap", "%s", what);
}

static int parse_kind(const char *value, enum ol_wrap_kind *kind)
{
	static const struct { const char *name; enum ol_wrap_kind kind; } kinds[] = {
		{ "openmp", OL_WRAP_OPENMP }, { "cuda", OL_WRAP_CUDA }, { "hip", OL_WRAP_HIP },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(value, kinds[i].name) == 0) {
			*kind = kinds[i].kind;
			return 0;
		}
	return usage_error("unknown offload kind '%s' (openmp, cuda or hip)", value);
}

static void add_image(struct wrap_args *a, const char *path)
{
	a->images = ol_xrealloc(a->images, (a->nimages + 1) * sizeof(*a->images));
	a->images[a->nimages].path = path;
	a->images[a->nimages].offload_arch = a->pending_arch;
	a->nimages++;
	a->pending_arch = NULL;
}

static int take_wrap_option(void *ctx, int id, const char *value)
{
	struct wrap_args *a = ctx;

	switch (id) {
	case OL_COMMAND_INPUT:
		add_image(a, value);
		break;
	case OPT_OUTPUT:
		a->output = value;
		break;
	case OPT_TRIPLE:
		a->triple = value;
		break;
	case OPT_KIND:
		return parse_kind(value, &a->kind);
	case OPT_OFFLOAD_ARCH:
		if (!*value)
			return usage_error("--offload-arch: an empty target ID");
		if (a->pending_arch)
			return usage_error("--offload-arch=%s is not followed by an image",
					   a->pending_arch);
		a->pending_arch = value;
		break;
	case OPT_FILETYPE:
		if (strcmp(value, "obj") != 0 && strcmp(value, "bc") != 0)
			return usage_error("unknown file type '%s' (bc or obj)", value);
		a->filetype_obj = strcmp(value, "obj") == 0;
		break;
	}
	return 0;
}

/* What parse() cannot see option by option. */
static int check(const struct wrap_args *a, size_t *narchs)
{
	*narchs = 0;
	for (size_t i = 0; i < a->nimages; i++)
		*narchs += a->images[i].offload_arch != NULL;
	if (a->pending_arch)
		return usage_error("--offload-arch=%s is not followed by an image",
				   a->pending_arch);
	if (!a->output)
		return usage_error("no output file (-o)");
	if (!a->nimages)
		return usage_error("no input file");
	if (a->kind && *narchs)
		return usage_error("--offload-arch belongs to the clang-offload-wrapper "
				   "command line, not to --kind");
	if ((a->kind == OL_WRAP_CUDA || a->kind == OL_WRAP_HIP) && a->nimages != 1)
		return usage_error("--kind=%s wraps a single fatbinary or offload bundle",
				   a->kind == OL_WRAP_CUDA ? "cuda" : "hip");
	if (*narchs && *narchs != a->nimages)
		return usage_error("give every image an --offload-arch, or none");
	return 0;
}

/* A host object for "-o x.o" (so that the output joins a link as it is),
 * bitcode otherwise, as both upstream tools write; --filetype decides. */
static int wants_object(const struct wrap_args *a)
{
	size_t n = strlen(a->output);

	if (a->filetype_obj >= 0)
		return a->filetype_obj;
	return n > 2 && strcmp(a->output + n - 2, ".o") == 0;
}

static int read_images(const struct wrap_args *a, const uint8_t **data, size_t *sizes)
{
	int rc = 0;

	for (size_t i = 0; i < a->nimages; i++) {
		const struct ol_mapped_file *mf = ol_map_file_reported(a->images[i].path,
									"device image");

		if (!mf) {
			rc = -1;
			continue;
		}
		data[i] = mf->data ? mf->data : (const uint8_t *)"";
		sizes[i] = mf->size;
	}
	return rc;
}

/* The images to register: each input as it is, but a version 2 or 3
 * OffloadBinary split into version 1 binaries, one per entry.  The arrays
 * are malloc'd; (*owned)[i] is image i when this function wrote it (to be
 * freed), else NULL.  Returns the number of images, or -1 after reporting
 * a damaged binary. */
static long split_later_versions(const struct wrap_args *a, const uint8_t *const *data,
				 const size_t *sizes, const uint8_t ***data_out, size_t **sizes_out,
				 uint8_t ***owned)
{
	size_t n = 0, alloc = a->nimages ? a->nimages : 1;
	const uint8_t **v = ol_xcalloc(alloc, sizeof(*v));
	size_t *len = ol_xcalloc(alloc, sizeof(*len));
	uint8_t **own = ol_xcalloc(alloc, sizeof(*own));

	for (size_t i = 0; i < a->nimages; i++) {
		struct ol_offload_binaries all;
		const char *why;
		uint64_t bad;

		if (sizes[i] < 8 || memcmp(data[i], OL_OFFLOAD_MAGIC_BYTES, 4) != 0 ||
		    data[i][4] < 2) {
			v[n] = data[i];
			len[n++] = sizes[i];
			continue;
		}
		if (ol_offload_binary_parse_all(data[i], sizes[i], &ol_link_arena, &all, &why,
						&bad) < 0) {
			struct ol_loc loc = { .file = a->images[i].path, .offset = bad,
					      .has_offset = 1 };

			for (size_t k = 0; k < n; k++)
				free(own[k]);
			free(own);
			free(v);
			free(len);
			return ol_error_at(&loc, "%s", why);
		}
		alloc += all.n;
		v = ol_xrealloc(v, alloc * sizeof(*v));
		len = ol_xrealloc(len, alloc * sizeof(*len));
		own = ol_xrealloc(own, alloc * sizeof(*own));
		for (size_t k = 0; k < all.n; k++) {
			const struct ol_offload_binary *bin = &all.v[k];
			struct ol_offload_binary_desc desc = {
				.image_kind = bin->image_kind,
				.offload_kind_raw = bin->offload_kind_raw,
				.flags = 0,   /* version 1 has no flags to give */
				.strings = bin->strings,
				.nstrings = bin->nstrings,
				.image = bin->image,
				.image_size = bin->image_size,
			};
			uint8_t *one;

			if (bin->flags & OL_OFFLOAD_FLAG_METADATA)
				continue;   /* no code to register */
			one = ol_offload_binary_write(&desc, &len[n]);
			own[n] = one;
			v[n++] = one;
		}
	}
	*data_out = v;
	*sizes_out = len;
	*owned = own;
	return (long)n;
}

/* "'a.img'" or "'a.img', 'b.img'": what failed to wrap. */
static char *image_list(const struct wrap_args *a)
{
	char *list = ol_xstrdup("");

	for (size_t i = 0; i < a->nimages; i++) {
		char *longer = ol_xasprintf("%s%s'%s'", list, i ? ", " : "", a->images[i].path);

		free(list);
		list = longer;
	}
	return list;
}

static int wrap_and_write(const struct wrap_args *a, const char *const *archs)
{
	const struct ol_backend *be;
	struct ol_wrap_request req;
	struct ol_buffer out = { NULL, 0 };
	const uint8_t **data = ol_xcalloc(a->nimages, sizeof(*data)), **images = NULL;
	size_t *sizes = ol_xcalloc(a->nimages, sizeof(*sizes)), *image_sizes = NULL, nimages = 0;
	uint8_t **owned = NULL;
	char *err = NULL;
	int rc = -1;

	if (read_images(a, data, sizes) < 0)
		goto out;
	if (a->kind == OL_WRAP_OPENMP) {
		long n = split_later_versions(a, data, sizes, &images, &image_sizes, &owned);

		if (n < 0)
			goto out;
		nimages = (size_t)n;
	} else {
		images = data;
		image_sizes = sizes;
		nimages = a->nimages;
	}
	/* The layout comes from the command line, whatever LLVM the backend
	 * was built against: the default backend does. */
	be = ol_backend_get();
	if (!be)
		goto out;
	memset(&req, 0, sizeof(req));
	req.kind = a->kind ? a->kind : OL_WRAP_OPENMP;
	req.flavor = a->kind ? 22 : OL_WRAP_FLAVOR_LEGACY;
	req.host_triple = a->triple;
	req.images = images;
	req.sizes = image_sizes;
	req.nimages = nimages;
	req.emit_bitcode = !wants_object(a);
	req.offload_archs = archs;
	if (be->wrap(&req, &out, NULL, &err) != 0) {
		char *list = image_list(a);

		ol_error("cannot wrap %s: %s", list, err ? err : "unknown error");
		free(list);
		goto out;
	}
	rc = ol_write_file_atomic(a->output, out.data, out.size);
out:
	if (owned) {
		for (size_t i = 0; i < nimages; i++)
			free(owned[i]);
		free(owned);
		free(images);
		free(image_sizes);
	}
	free(err);
	free(out.data);
	free(data);
	free(sizes);
	return rc;
}

int ol_wrap_command(int argc, char **argv)
{
	struct wrap_args a;
	const char **archs = NULL;
	size_t narchs = 0;
	int parsed, rc;

	ol_temp_init(0, 0);
	memset(&a, 0, sizeof(a));
	a.triple = "";
	a.filetype_obj = -1;
	parsed = ol_command_line_read(&wrap_command_line, argc, argv, take_wrap_option, &a);
	if (parsed == 0)
		parsed = check(&a, &narchs);
	if (parsed != 0) {
		free(a.images);
		return parsed == 1 ? 0 : WRAP_USAGE;
	}
	if (narchs) {
		archs = ol_xcalloc(a.nimages, sizeof(*archs));
		for (size_t i = 0; i < a.nimages; i++)
			archs[i] = a.images[i].offload_arch;
	}
	rc = wrap_and_write(&a, archs);
	free(archs);
	free(a.images);
	return rc < 0 ? WRAP_FAILED : 0;
}
