/*
 * job_key: what decides a device link's output, as the key of its entry in
 * the device-link cache (include/offload/job_key.h).  Beside the jobs
 * (jobs.c): the options come from the option table, each record of which
 * says whether it decides a device link (options.def), and each target family adds the tools it runs and the files it reads
 * through its identify function (target_*.c); the cache stores what the key
 * names and knows nothing of what it covers.
 *
 * Tools, files and images are hashed through the cache's identity table
 * (ol_cache_recall), by their stat identity, so that a relink runs no
 * `ptxas --version` and hashes no image again.
 */
#include "offload/job_key.h"
#include "offload/backend.h"
#include "offload/cache.h"
#include "offload/cmdline.h"
#include "offload/device_link.h"
#include "offload/device_remarks.h"
#include "offload/inputs.h"
#include "offload/key_material.h"
#include "offload/mapped_file.h"
#include "offload/spawn.h"
#include "offload/strvec.h"
#include "target_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Bumped whenever what a key covers changes. */
#define CACHE_FORMAT "offload-link device-link cache 4"

/* ---- tools, files and images ------------------------------------------------------ */

typedef int (*digest_fn)(const char *path, uint8_t digest[OL_SHA256_SIZE]);

static int version_digest(const char *path, uint8_t digest[OL_SHA256_SIZE])
{
	struct strvec argv = STRVEC_INIT;
	char *out;
	size_t size;
	int status;

	strvec_push(&argv, path);
	strvec_push(&argv, "--version");
	status = ol_spawn_read_output(&argv, &out, &size);
	strvec_release(&argv);
	if (status < 0)
		return -1;
	/* The exit status counts too: some tools print their version and fail. */
	ol_sha256(out, size, digest);
	digest[0] ^= (uint8_t)status;
	free(out);
	return 0;
}

static int content_digest(const char *path, uint8_t digest[OL_SHA256_SIZE])
{
	struct ol_mapped_file *mf = ol_map_file(path);

	if (!mf)
		return -1;
	ol_sha256(mf->data, mf->size, digest);
	return 0;
}

/* Looks the identity up in the table, computing and remembering it on a miss. */
static void key_identity(struct ol_cache *c, struct ol_sha256 *h, const char *kind,
			 const char *path, digest_fn compute)
{
	struct stat st;
	struct ol_sha256 id;
	uint8_t id_digest[OL_SHA256_SIZE], digest[OL_SHA256_SIZE];
	char hex[OL_CACHE_KEY_HEX];

	ol_key_str(h, kind);
	if (!path || stat(path, &st) < 0) {
		ol_key_str(h, "missing");
		ol_key_str(h, path);
		return;
	}
	ol_sha256_init(&id);
	ol_key_str(&id, kind);
	ol_key_str(&id, path);
	ol_key_u64(&id, (uint64_t)st.st_dev);
	ol_key_u64(&id, (uint64_t)st.st_ino);
	ol_key_u64(&id, (uint64_t)st.st_size);
	ol_key_u64(&id, (uint64_t)st.st_mtim.tv_sec);
	ol_key_u64(&id, (uint64_t)st.st_mtim.tv_nsec);
	ol_sha256_final(&id, id_digest);
	if (!ol_cache_recall(c, id_digest, digest)) {
		if (compute(path, digest) < 0) {
			ol_key_str(h, "unreadable");
			ol_key_str(h, path);
			return;
		}
		ol_cache_remember(c, id_digest, digest);
	}
	/* The key takes the digest in hex, as when the memos were text files. */
	ol_sha256_hex(digest, hex);
	ol_key_bytes(h, hex, OL_CACHE_KEY_HEX - 1);
}

/* The SHA-256 of an image's bytes: the digest the cache remembers under its
 * identity (ol_group_prepare), computed and remembered on a miss.  The
 * digest is of the image's bytes alone: an object whose host code changed
 * gets the same image digests back, and the link still hits.  0, or -1
 * without an identity. */
static int image_digest(struct ol_cache *c, const struct ol_device_image *img, const uint8_t id[32],
			uint8_t digest[OL_SHA256_SIZE])
{
	static const uint8_t none[32];

	if (!id || memcmp(id, none, sizeof(none)) == 0)
		return -1;
	if (!ol_cache_recall(c, id, digest)) {
		ol_sha256(img->bin.image, img->bin.image_size, digest);
		ol_cache_remember(c, id, digest);
	}
	return 0;
}

/* An image's bytes in a key: their digest, or without an identity the
 * bytes themselves. */
static void key_image_bytes(struct ol_cache *c, struct ol_sha256 *h,
			    const struct ol_device_image *img, const uint8_t id[32])
{
	uint8_t digest[OL_SHA256_SIZE];

	ol_key_u64(h, img->bin.image_size);
	if (image_digest(c, img, id, digest) < 0)
		ol_key_bytes(h, img->bin.image, img->bin.image_size);
	else
		ol_key_bytes(h, digest, OL_SHA256_SIZE);
}

void ol_group_bitcode_digests(struct ol_cache *c, const struct ol_group *g,
			      uint8_t (*digests)[OL_SHA256_SIZE])
{
	size_t n = 0;

	for (size_t i = 0; i < g->nimages; i++) {
		const struct ol_device_image *img = g->images[i];

		if (!ol_image_is_bitcode(img))
			continue;
		if (image_digest(c, img, g->image_ids ? g->image_ids[i] : NULL, digests[n]) < 0)
			ol_sha256(img->bin.image, img->bin.image_size, digests[n]);
		n++;
	}
}

void ol_key_tool(struct ol_cache *c, struct ol_sha256 *h, const char *path)
{
	key_identity(c, h, "tool", path, version_digest);
}

void ol_key_file(struct ol_cache *c, struct ol_sha256 *h, const char *path)
{
	key_identity(c, h, "file", path, content_digest);
}

/* ---- the key of a group's device link ---------------------------------------------- */

static void identify_link(const struct ol_group *g, const struct ol_link_context *ctx,
			  struct ol_cache *c, struct ol_sha256 *h)
{
	/* The route the job runner takes (the group's, decided once). */
	ol_key_u64(h, (uint64_t)g->route);
	ol_key_str(h, g->target->name);
	if (g->route == OL_ROUTE_CLANG) {
		char *clang = ol_group_find_clang(ctx);
		ol_key_tool(c, h, clang);
		free(clang);
	} else if (g->route == OL_ROUTE_FAMILY && g->target->identify) {
		g->target->identify(g, ctx, c, h);
	}
}

static void key_strvec(struct ol_sha256 *h, const char *what, const struct strvec *v)
{
	ol_key_str(h, what);
	ol_key_u64(h, v->nr);
	for (size_t i = 0; i < v->nr; i++)
		ol_key_str(h, v->v[i]);
}

static void key_image(struct ol_cache *c, struct ol_sha256 *h, const struct ol_device_image *img,
		      const uint8_t id[32])
{
	const struct ol_offload_binary *bin = &img->bin;

	ol_key_u64(h, bin->image_kind);
	ol_key_u64(h, bin->offload_kind);
	ol_key_u64(h, bin->flags);
	ol_key_u64(h, bin->nstrings);
	for (size_t i = 0; i < bin->nstrings; i++) {
		ol_key_str(h, bin->strings[i].key);
		ol_key_str(h, bin->strings[i].value);
	}
	key_image_bytes(c, h, img, id);
}

/* What every key starts with: the format, this build and the group. */
static void key_group(struct ol_cache *c, const struct ol_group *g,
		      const struct ol_link_context *ctx, struct ol_sha256 *h)
{
	ol_sha256_init(h);
	ol_key_str(h, CACHE_FORMAT);
	ol_key_str(h, OL_VERSION);
	/* This build of the tool, and of its LLVM part below: a changed device
	 * link or LTO must not find the images the old one made. */
	ol_key_file(c, h, "/proc/self/exe");
	ol_key_u64(h, (uint64_t)ctx->flavor);
	ol_key_str(h, g->triple);
	ol_key_str(h, g->arch);
	ol_key_u64(h, g->kinds);
}

/* The LLVM that compiles the bitcode decides the code. */
static void key_backend(struct ol_cache *c, struct ol_sha256 *h)
{
	const struct ol_backend *be = ol_backend_get();

	ol_key_str(h, be ? be->llvm_version : "no backend");
	ol_key_file(c, h, ol_backend_path());
}

/* What decides the link besides the inputs: the options the table marks as
 * deciding one (include/offload/options.def, its key column), what the
 * group stage prepared (its device LTO's partitions), and the tools the family
 * runs and the other files it reads. */
static void key_settings(struct ol_cache *c, const struct ol_group *g,
			 const struct ol_link_context *ctx, struct ol_sha256 *h)
{
	key_strvec(h, "options", &g->key_args);
	/* KEYED_DECODED options: the setting, however it was given. */
	ol_key_u64(h, (uint64_t)g->lto_partition_units);
	/* Not the remark options: no byte of the product depends on them, and
	 * the remarks are cached under a key of their own (remarks.c).  But
	 * clang, where a group links through it, prints its remarks itself
	 * and nothing keeps them, so there they key the link. */
	if (g->route == OL_ROUTE_CLANG)
		ol_key_remark_request(h, &g->remarks);
	/* --builtin-bitcode names a file: what decides the link is its bytes. */
	ol_key_u64(h, g->nbuiltins);
	for (size_t i = 0; i < g->nbuiltins; i++)
		ol_key_bytes(h, g->builtins[i], g->builtin_sizes[i]);
	identify_link(g, ctx, c, h);
}

void ol_group_job_key(struct ol_cache *c, const struct ol_group *g,
		      const struct ol_link_context *ctx, char key[OL_CACHE_KEY_HEX])
{
	struct ol_sha256 h;
	uint8_t digest[OL_SHA256_SIZE];
	int bitcode = 0;

	key_group(c, g, ctx, &h);
	ol_key_u64(&h, g->nimages);
	for (size_t i = 0; i < g->nimages; i++) {
		key_image(c, &h, g->images[i], g->image_ids ? g->image_ids[i] : NULL);
		bitcode |= g->images[i]->bin.image_kind == OL_IMG_BITCODE;
	}
	if (bitcode)
		key_backend(c, &h);
	key_settings(c, g, ctx, &h);
	ol_sha256_final(&h, digest);
	ol_sha256_hex(digest, key);
}

void ol_partition_job_key(struct ol_cache *c, const struct ol_group *g,
			  const struct ol_link_context *ctx, const char *product,
			  const char *cpu, const char *features, const uint8_t *bitcode,
			  size_t size, char key[OL_CACHE_KEY_HEX])
{
	struct ol_sha256 h;
	uint8_t digest[OL_SHA256_SIZE];

	key_group(c, g, ctx, &h);
	ol_key_str(&h, "partition");
	ol_key_str(&h, product);
	ol_key_str(&h, cpu);
	ol_key_str(&h, features);
	key_backend(c, &h);
	key_settings(c, g, ctx, &h);
	ol_key_u64(&h, size);
	ol_key_bytes(&h, bitcode, size);
	ol_sha256_final(&h, digest);
	ol_sha256_hex(digest, key);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The symbols the LTO result must keep, as a set: in what order the native
 * objects name them, and how often, decides nothing. */
static void key_preserved(struct ol_sha256 *h, const char *const *preserve)
{
	size_t n = 0, distinct = 0;
	const char **sorted;

	while (preserve && preserve[n])
		n++;
	sorted = ol_xcalloc(n ? n : 1, sizeof(*sorted));
	if (n)
		memcpy(sorted, preserve, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_names);
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || strcmp(sorted[i - 1], sorted[i]) != 0;
	ol_key_str(h, "preserve");
	ol_key_u64(h, distinct);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(sorted[i - 1], sorted[i]) != 0)
			ol_key_str(h, sorted[i]);
	free(sorted);
}

void ol_lto_product_job_key(struct ol_cache *c, const struct ol_group *g,
			    const struct ol_link_context *ctx, const char *product,
			    const struct ol_lto_request *req, char key[OL_CACHE_KEY_HEX])
{
	struct ol_sha256 h;
	uint8_t digest[OL_SHA256_SIZE];
	size_t nbitcode = 0;

	key_group(c, g, ctx, &h);
	ol_key_str(&h, "bitcode of a mixed link");
	ol_key_str(&h, product);
	ol_key_str(&h, req->cpu);
	ol_key_str(&h, req->features);
	ol_key_u64(&h, (uint64_t)req->whole_program);
	ol_key_u64(&h, (uint64_t)req->first_definition_prevails);
	key_backend(c, &h);
	key_settings(c, g, ctx, &h);
	for (size_t i = 0; i < g->nimages; i++)
		nbitcode += ol_image_is_bitcode(g->images[i]);
	ol_key_u64(&h, nbitcode);
	for (size_t i = 0; i < g->nimages; i++)
		if (ol_image_is_bitcode(g->images[i]))
			key_image(c, &h, g->images[i], g->image_ids ? g->image_ids[i] : NULL);
	key_preserved(&h, req->preserve);
	ol_sha256_final(&h, digest);
	ol_sha256_hex(digest, key);
}
