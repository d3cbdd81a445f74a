/*
 * registration_sycl: the SYCL registration module of upstream 22 (spec 5.6, after
 * wrapSYCLBinaries in 22's llvm/lib/Frontend/Offloading/OffloadWrapper.cpp).
 *
 * A __sycl.tgt_bin_desc lists one __sycl.tgt_device_image per device image:
 * the image's triple (in the field the runtime calls Arch), compile and link
 * options for the runtime's device compiler, the raw device code in
 * .llvm.offloading, and an array of offload entries, one per entry point the
 * image names (each also emitted as a weak .offloading.entry.<name>).  A
 * constructor of priority 1 hands the descriptor to __sycl_register_lib, a
 * destructor of priority 1 to __sycl_unregister_lib.
 *
 * The core parsed the images (struct ol_wrap_sycl_image); this file only
 * builds IR, in upstream's creation order, which is the printed order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"

/* OffloadKind::OFK_SYCL, the kind of every entry. */
enum { ENTRY_KIND_SYCL = 8 };
/* Versions of the two structures the runtime checks. */
enum { DEVICE_IMAGE_VERSION = 3, BIN_DESC_VERSION = 1 };

struct sycl_module {
	LLVMModuleRef mod;
	LLVMContextRef ctx;
	LLVMTypeRef ptr, i8, i16, i64;
	LLVMTypeRef entry_type, image_type, desc_type;
};

static LLVMValueRef add_constant(struct sycl_module *m, const char *name, LLVMValueRef init,
				 int unnamed_addr)
{
	LLVMValueRef gv = LLVMAddGlobal(m->mod, LLVMTypeOf(init), name);

	LLVMSetGlobalConstant(gv, 1);
	LLVMSetLinkage(gv, LLVMInternalLinkage);
	LLVMSetInitializer(gv, init);
	if (unnamed_addr)
		LLVMSetUnnamedAddress(gv, LLVMGlobalUnnamedAddr);
	return gv;
}

/* addStringToModule(): a NUL-terminated [N x i8]. */
static LLVMValueRef add_string(struct sycl_module *m, const char *name, const char *text)
{
	return add_constant(m, name, LLVMConstStringInContext2(m->ctx, text, strlen(text), 0), 1);
}

/* gep(array, 0, index): folds to the array itself for index 0. */
static LLVMValueRef element_address(struct sycl_module *m, LLVMValueRef array, uint64_t index)
{
	LLVMValueRef indices[] = { LLVMConstInt(m->i64, 0, 0), LLVMConstInt(m->i64, index, 0) };

	return LLVMConstGEP2(LLVMGlobalGetValueType(array), array, indices, 2);
}

/* initOffloadEntriesPerImage(): an entry per symbol, and the image's array
 * of them; fills its begin and end pointers. */
static int add_entries(struct sycl_module *m, const struct ol_wrap_sycl_image *img,
		       LLVMValueRef bounds[2], char **err)
{
	LLVMValueRef *inits = calloc(img->nsymbols ? img->nsymbols : 1, sizeof(*inits));
	LLVMValueRef array;

	if (!inits)
		return ol_be_fail(err, "out of memory");
	for (size_t i = 0; i < img->nsymbols; i++) {
		LLVMValueRef entry = ol_be_offloading_entry(m->mod, ENTRY_KIND_SYCL, NULL,
							    img->symbols[i], 0, 0, 0,
							    "llvm_offload_entries");
		if (!entry) {
			free(inits);
			return ol_be_fail(err, "out of memory");
		}
		inits[i] = LLVMGetInitializer(entry);
	}
	array = add_constant(m, ".sycl_offloading.entries_arr",
			     LLVMConstArray2(m->entry_type, inits, img->nsymbols), 0);
	free(inits);
	bounds[0] = element_address(m, array, 0);
	bounds[1] = element_address(m, array, img->nsymbols);
	return 0;
}

/* wrapImage(): the globals of image `index` and its __sycl.tgt_device_image. */
static LLVMValueRef add_image(struct sycl_module *m, const struct ol_wrap_sycl_image *img,
			      size_t index, char **err)
{
	LLVMValueRef fields[12], data, code, entries[2] = { NULL, NULL };
	char name[64];

	fields[0] = LLVMConstInt(m->i16, DEVICE_IMAGE_VERSION, 0);
	fields[1] = LLVMConstInt(m->i8, img->offload_kind & 0xff, 0);
	fields[2] = LLVMConstInt(m->i8, img->image_kind & 0xff, 0);
	snprintf(name, sizeof(name), ".sycl_offloading.target.%zu", index);
	fields[3] = add_string(m, name, img->triple ? img->triple : "");
	snprintf(name, sizeof(name), ".sycl_offloading.opts.compile.%zu", index);
	fields[4] = add_string(m, name, img->compile_options ? img->compile_options : "");
	snprintf(name, sizeof(name), ".sycl_offloading.opts.link.%zu", index);
	fields[5] = add_string(m, name, img->link_options ? img->link_options : "");

	data = ol_be_byte_array(m->ctx, img->image, img->image_size, err);
	if (!data)
		return NULL;
	snprintf(name, sizeof(name), ".sycl_offloading.%zu.data", index);
	code = add_constant(m, name, data, 1);
	LLVMSetSection(code, ".llvm.offloading");
	fields[6] = element_address(m, code, 0);
	fields[7] = element_address(m, code, img->image_size);

	if (add_entries(m, img, entries, err))
		return NULL;
	fields[8] = entries[0];
	fields[9] = entries[1];
	/* Property sets: none yet in 22. */
	fields[10] = LLVMConstPointerNull(m->ptr);
	fields[11] = LLVMConstPointerNull(m->ptr);
	return LLVMConstNamedStruct(m->image_type, fields, 12);
}

/* combineWrappedImages(): the image array and the descriptor. */
static LLVMValueRef add_descriptor(struct sycl_module *m, const struct ol_wrap_request *req,
				   char **err)
{
	size_t n = req->nsycl_images;
	LLVMValueRef *images = calloc(n ? n : 1, sizeof(*images));
	LLVMValueRef array, fields[5];

	if (!images) {
		ol_be_fail(err, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		images[i] = add_image(m, &req->sycl_images[i], i, err);
		if (!images[i]) {
			free(images);
			return NULL;
		}
	}
	array = add_constant(m, ".sycl_offloading.device_images",
			     LLVMConstArray2(m->image_type, images, n), 1);
	free(images);

	fields[0] = LLVMConstInt(m->i16, BIN_DESC_VERSION, 0);
	fields[1] = LLVMConstInt(m->i16, n, 0);
	fields[2] = array;
	/* Host entries: none, every image carries its own. */
	fields[3] = LLVMConstPointerNull(m->ptr);
	fields[4] = LLVMConstPointerNull(m->ptr);
	return add_constant(m, ".sycl_offloading.descriptor",
			    LLVMConstNamedStruct(m->desc_type, fields, 5), 0);
}

/* A .text.startup function calling `callee`(desc), in llvm.global_ctors or
 * llvm.global_dtors with priority 1. */
static void add_lib_call(struct sycl_module *m, const char *name, const char *callee,
			 LLVMValueRef desc, const char *structors)
{
	LLVMTypeRef void_type = LLVMVoidTypeInContext(m->ctx);
	LLVMTypeRef fn_type = LLVMFunctionType(void_type, NULL, 0, 0);
	LLVMTypeRef lib_type = LLVMFunctionType(void_type, &m->ptr, 1, 0);
	LLVMValueRef fn = ol_be_startup_function(m->mod, name, fn_type);
	LLVMValueRef lib_fn = ol_be_get_function(m->mod, callee, lib_type);
	LLVMBuilderRef builder = LLVMCreateBuilderInContext(m->ctx);

	LLVMPositionBuilderAtEnd(builder, LLVMAppendBasicBlockInContext(m->ctx, fn, "entry"));
	LLVMBuildCall2(builder, lib_type, lib_fn, &desc, 1, "");
	LLVMBuildRetVoid(builder);
	LLVMDisposeBuilder(builder);
	ol_be_append_structor(m->mod, structors, fn, 1);
}

/* The types, made in upstream's order (the entry type may exist already). */
static void sycl_module_init(struct sycl_module *m, LLVMModuleRef mod)
{
	LLVMTypeRef image_fields[12], desc_fields[5];

	m->mod = mod;
	m->ctx = LLVMGetModuleContext(mod);
	m->ptr = LLVMPointerTypeInContext(m->ctx, 0);
	m->i8 = LLVMInt8TypeInContext(m->ctx);
	m->i16 = LLVMInt16TypeInContext(m->ctx);
	m->i64 = LLVMInt64TypeInContext(m->ctx);
	m->entry_type = ol_be_entry_type(mod, 22);
	/* { Version, OffloadKind, ImageKind, Arch, CompileOptions, LinkOptions,
	 *   ImageStart, ImageEnd, EntriesBegin, EntriesEnd, PropertiesBegin,
	 *   PropertiesEnd } */
	image_fields[0] = m->i16;
	image_fields[1] = m->i8;
	image_fields[2] = m->i8;
	for (size_t i = 3; i < 12; i++)
		image_fields[i] = m->ptr;
	m->image_type = LLVMStructCreateNamed(m->ctx, "__sycl.tgt_device_image");
	LLVMStructSetBody(m->image_type, image_fields, 12, 0);
	/* { Version, NumDeviceImages, DeviceImages, HostEntriesBegin, HostEntriesEnd } */
	desc_fields[0] = m->i16;
	desc_fields[1] = m->i16;
	desc_fields[2] = desc_fields[3] = desc_fields[4] = m->ptr;
	m->desc_type = LLVMStructCreateNamed(m->ctx, "__sycl.tgt_bin_desc");
	LLVMStructSetBody(m->desc_type, desc_fields, 5, 0);
}

int ol_be_wrap_sycl(LLVMModuleRef mod, const struct ol_wrap_request *req, char **err)
{
	struct sycl_module m;
	LLVMValueRef desc;

	if (req->flavor != 22)
		return ol_be_fail(err, "SYCL registration modules exist only in flavor 22, not %d",
				  req->flavor);
	if (req->nsycl_images && !req->sycl_images)
		return ol_be_fail(err, "SYCL wrapper request without images");
	/* The descriptor counts its images in 16 bits. */
	if (req->nsycl_images > UINT16_MAX)
		return ol_be_fail(err, "too many SYCL device images (%zu, at most %u)",
				  req->nsycl_images, (unsigned)UINT16_MAX);

	sycl_module_init(&m, mod);
	desc = add_descriptor(&m, req, err);
	if (!desc)
		return -1;
	add_lib_call(&m, "sycl.descriptor_reg", "__sycl_register_lib", desc, "llvm.global_ctors");
	add_lib_call(&m, "sycl.descriptor_unreg", "__sycl_unregister_lib", desc,
		     "llvm.global_dtors");
	return 0;
}
