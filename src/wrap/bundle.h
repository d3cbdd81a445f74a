/* Private to src/wrap: turning one offload kind's linked images into what its
 * registration module embeds (upstream's bundleLinkedOutput, spec 4.5). */
#ifndef OFFLOAD_WRAP_BUNDLE_H
#define OFFLOAD_WRAP_BUNDLE_H

#include "offload/device_link.h"
#include "offload/offload_binary.h"

/* What a kind's bundler made: OpenMP and SYCL one buffer per image, CUDA one
 * fatbinary, HIP one offload bundle.  Buffers are malloc'd, owned here. */
struct ol_bundled {
	uint8_t **data;
	size_t *size;
	size_t n;
	const char *path;   /* the file the tool wrote (fatbinary), or NULL */
	/* SYCL: the device images inside the buffers (views into them, names
	 * in the link arena). */
	struct ol_wrap_sycl_image *sycl_images;
	size_t nsycl_images;
};

/* The linked images of one kind, sorted as upstream sorts them. */
struct ol_kind_images {
	enum ol_offload_kind kind;
	const struct ol_group **groups;
	size_t n;
};

int ol_bundle_openmp(const struct ol_kind_images *images, const struct ol_link_context *ctx,
		     struct ol_bundled *out);
int ol_bundle_cuda(const struct ol_kind_images *images, const struct ol_link_context *ctx,
		   struct ol_bundled *out);
int ol_bundle_hip(const struct ol_kind_images *images, const struct ol_link_context *ctx,
		  struct ol_bundled *out);
int ol_bundle_sycl(const struct ol_kind_images *images, const struct ol_link_context *ctx,
		   struct ol_bundled *out);

/* Append one buffer (taking ownership). */
void ol_bundled_add(struct ol_bundled *b, uint8_t *data, size_t size);
void ol_bundled_release(struct ol_bundled *b);

#endif
