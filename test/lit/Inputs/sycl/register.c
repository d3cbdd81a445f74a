/*
 * Stand-ins for the SYCL runtime's __sycl_register_lib and
 * __sycl_unregister_lib: they print what the registration module hands over
 * (22's __sycl.tgt_bin_desc and __sycl.tgt_device_image), check that the
 * destructor passes the descriptor the constructor did, and write image N's
 * bytes to $SYCL_IMAGE_DUMP.N when that is set.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct offload_entry {          /* llvm::offloading::EntryTy (22) */
	uint64_t reserved;
	uint16_t version;
	uint16_t kind;
	uint32_t flags;
	void *address;
	const char *symbol_name;
	uint64_t size;
	uint64_t data;
	void *aux_address;
};

struct device_image {           /* %__sycl.tgt_device_image */
	uint16_t version;
	uint8_t offload_kind;
	uint8_t image_kind;
	const char *target;
	const char *compile_options;
	const char *link_options;
	const unsigned char *image_start, *image_end;
	const struct offload_entry *entries_begin, *entries_end;
	const void *properties_begin, *properties_end;
};

struct bin_desc {               /* %__sycl.tgt_bin_desc */
	uint16_t version;
	uint16_t num_device_images;
	const struct device_image *device_images;
	const struct offload_entry *host_entries_begin, *host_entries_end;
};

static const struct bin_desc *registered;

static void dump(const struct device_image *img, unsigned index)
{
	const char *prefix = getenv("SYCL_IMAGE_DUMP");
	char path[4096];
	FILE *f;

	if (!prefix)
		return;
	snprintf(path, sizeof(path), "%s.%u", prefix, index);
	f = fopen(path, "wb");
	if (!f || fwrite(img->image_start, 1, (size_t)(img->image_end - img->image_start), f) !=
			  (size_t)(img->image_end - img->image_start)) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

void __sycl_register_lib(const struct bin_desc *desc)
{
	registered = desc;
	printf("register: version %u, %u image(s), host entries %s\n", desc->version,
	       desc->num_device_images,
	       desc->host_entries_begin || desc->host_entries_end ? "set" : "none");
	for (unsigned i = 0; i < desc->num_device_images; i++) {
		const struct device_image *img = &desc->device_images[i];
		size_t size = (size_t)(img->image_end - img->image_start);
		uint32_t magic = 0;

		if (size >= 4)
			memcpy(&magic, img->image_start, 4);
		printf("image %u: version %u, offload kind %u, image kind %u, target '%s', "
		       "compile options '%s', link options '%s', %s, properties %s\n",
		       i, img->version, img->offload_kind, img->image_kind, img->target,
		       img->compile_options, img->link_options,
		       magic == 0x07230203 ? "SPIR-V" : "not SPIR-V",
		       img->properties_begin || img->properties_end ? "set" : "none");
		for (const struct offload_entry *e = img->entries_begin; e < img->entries_end; e++)
			printf("image %u entry: %s (version %u, kind %u, flags %" PRIu32
			       ", size %" PRIu64 ", address %s)\n", i, e->symbol_name, e->version,
			       e->kind, e->flags, e->size, e->address ? "set" : "none");
		dump(img, i);
	}
	fflush(stdout);
}

void __sycl_unregister_lib(const struct bin_desc *desc)
{
	printf("unregister: %s descriptor\n", desc == registered ? "the registered" : "another");
	fflush(stdout);
}
