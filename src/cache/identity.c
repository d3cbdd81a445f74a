/*
 * identity: what a tool or a file contributes to a cache key, remembered in
 * <dir>/ids by (kind, path, device, inode, size, mtime) so that the common
 * case costs a stat(2): running `ptxas --version` or hashing libc on every
 * link would cost more than the lookup saves.  A tool or file that changes
 * changes its stat identity (a new mtime at least), and is looked at again.
 */
#include "cache_impl.h"
#include "offload/diag.h"
#include "offload/inputs.h"
#include "offload/mapped_file.h"
#include "offload/spawn.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Looks the identity up in <dir>/ids, computing and remembering it on a miss. */
static void key_identity(struct ol_cache *c, struct ol_sha256 *h, const char *kind,
			 const char *path, digest_fn compute)
{
	struct stat st;
	struct ol_sha256 id;
	uint8_t id_digest[OL_SHA256_SIZE], digest[OL_SHA256_SIZE];
	char id_hex[OL_CACHE_KEY_HEX], hex[OL_CACHE_KEY_HEX], *memo;
	uint8_t *known = NULL;
	size_t known_size = 0;

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
	ol_sha256_hex(id_digest, id_hex);
	memo = ol_xasprintf("%s/ids/%s", c->dir, id_hex);
	if (ol_read_whole_file(memo, &known, &known_size) == 0 && known_size == OL_CACHE_KEY_HEX - 1) {
		ol_key_bytes(h, known, known_size);
	} else if (compute(path, digest) == 0) {
		ol_sha256_hex(digest, hex);
		ol_key_bytes(h, hex, OL_CACHE_KEY_HEX - 1);
		ol_cache_write_whole(c, memo, hex, OL_CACHE_KEY_HEX - 1, NULL, 0);
	} else {
		ol_key_str(h, "unreadable");
		ol_key_str(h, path);
	}
	free(known);
	free(memo);
}

/*
 * An image's bytes: the digests of all images of one object (a file, or an
 * archive member) are remembered together, by the file's identity and the
 * member's offset, so a relink reads one small file per input object instead
 * of hashing every image again (24 MiB for a 100-unit, 4-GPU program).  The
 * digest is of the image's bytes alone: an object whose host code changed
 * gets the same image digests back, and the link still hits.
 */
static int object_image_digests(struct ol_cache *c, const struct ol_object *obj, uint8_t *digests)
{
	struct ol_mapped_file *mf = obj->path ? ol_map_file(obj->path) : NULL;
	struct ol_sha256 id;
	uint8_t id_digest[OL_SHA256_SIZE];
	char id_hex[OL_CACHE_KEY_HEX], *memo;
	uint8_t *known = NULL;
	size_t known_size = 0, want = obj->nimages * OL_SHA256_SIZE;

	if (!mf || !mf->data || obj->data < mf->data || obj->data > mf->data + mf->size)
		return -1;
	ol_sha256_init(&id);
	ol_key_str(&id, "images");
	ol_key_u64(&id, mf->dev);
	ol_key_u64(&id, mf->ino);
	ol_key_u64(&id, mf->size);
	ol_key_u64(&id, (uint64_t)mf->mtime_ns);
	ol_key_u64(&id, (uint64_t)(obj->data - mf->data));
	ol_key_u64(&id, obj->nimages);
	ol_sha256_final(&id, id_digest);
	ol_sha256_hex(id_digest, id_hex);
	memo = ol_xasprintf("%s/ids/%s", c->dir, id_hex);
	if (ol_read_whole_file(memo, &known, &known_size) == 0 && known_size == want) {
		memcpy(digests, known, want);
	} else {
		for (size_t i = 0; i < obj->nimages; i++)
			ol_sha256(obj->images[i].bin.image, obj->images[i].bin.image_size,
				  digests + i * OL_SHA256_SIZE);
		ol_cache_write_whole(c, memo, digests, want, NULL, 0);
	}
	free(known);
	free(memo);
	return 0;
}

void ol_key_image_bytes(struct ol_cache *c, struct ol_sha256 *h, const struct ol_device_image *img)
{
	const struct ol_object *obj = img->owner;
	size_t index = obj && img >= obj->images && img < obj->images + obj->nimages
			       ? (size_t)(img - obj->images) : SIZE_MAX;
	uint8_t *digests;

	ol_key_u64(h, img->bin.image_size);
	if (index == SIZE_MAX) {
		ol_key_bytes(h, img->bin.image, img->bin.image_size);
		return;
	}
	digests = ol_xmalloc(obj->nimages * OL_SHA256_SIZE);
	if (object_image_digests(c, obj, digests) == 0)
		ol_key_bytes(h, digests + index * OL_SHA256_SIZE, OL_SHA256_SIZE);
	else
		ol_key_bytes(h, img->bin.image, img->bin.image_size);
	free(digests);
}

void ol_key_tool(struct ol_cache *c, struct ol_sha256 *h, const char *path)
{
	key_identity(c, h, "tool", path, version_digest);
}

void ol_key_file(struct ol_cache *c, struct ol_sha256 *h, const char *path)
{
	key_identity(c, h, "file", path, content_digest);
}
