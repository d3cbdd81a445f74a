/*
 * registration_openmp: the OpenMP registration module (spec 5.3).  A descriptor
 * listing every device image, registered with libomptarget by a constructor:
 *
 *   19/22 (llvm/lib/Frontend/Offloading/OffloadWrapper.cpp): each image is a
 *   whole OffloadBinary, its __tgt_device_image brackets the raw image inside
 *   it, the constructor (priority 101) registers and hands the unregistration
 *   to atexit;
 *   16 (clang/tools/clang-linker-wrapper/OffloadWrapper.cpp): the image
 *   pointers bracket the whole OffloadBinary, constructor and destructor both
 *   have priority 1, and -r does not exist (it went to ld, images stayed in
 *   .llvm.offloading).  Ours treats -r alike for every flavor: the images of
 *   a relocatable link go to OL_RELOCATABLE_IMAGES_SECTION (backend.h);
 *   14, the legacy layout (clang-offload-wrapper, OL_WRAP_FLAVOR_LEGACY):
 *   16's, with the images in no particular section, and with target IDs
 *   AMD's image info records (__tgt_image_info), handed to
 *   __tgt_register_image_info before the library is registered.  Only AMD's
 *   libomptarget defines that function, so it is declared extern_weak and
 *   called only where it exists: the module then runs on upstream runtimes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "offload/entries_sections.h"
#include "../format/format_internal.h"

/* OffloadBinary header (spec 2.2): magic, version, size, entry offset,
 * entry size; entry: image kind, offload kind, flags, string offset,
 * string count, image offset, image size.  Little endian. */
#define OB_HEADER_SIZE 32u
#define OB_ENTRY_SIZE 40u
#define OB_ENTRY_OFFSET_AT 16u
#define OB_ENTRY_IMAGE_OFFSET_AT 24u
#define OB_ENTRY_IMAGE_SIZE_AT 32u

/* Where the device image lies inside `data`: the raw image for an
 * OffloadBinary, the whole buffer for anything else. */
static int image_bounds(const uint8_t *data, size_t size, size_t index,
			uint64_t *begin, uint64_t *end, char **err)
{
	static const uint8_t magic[4] = {0x10, 0xff, 0x10, 0xad};
	uint64_t entry, offset, length;

	*begin = 0;
	*end = size;
	if (size < OB_HEADER_SIZE || memcmp(data, magic, sizeof(magic)) != 0)
		return 0;
	entry = ol_get64le(data + OB_ENTRY_OFFSET_AT);
	if (entry > size || size - entry < OB_ENTRY_SIZE)
		return ol_be_fail(err, "device image %zu: offload binary entry at 0x%llx "
				  "lies outside its %zu bytes", index,
				  (unsigned long long)entry, size);
	offset = ol_get64le(data + entry + OB_ENTRY_IMAGE_OFFSET_AT);
	length = ol_get64le(data + entry + OB_ENTRY_IMAGE_SIZE_AT);
	if (offset > size || length > size - offset)
		return ol_be_fail(err, "device image %zu: image at 0x%llx+0x%llx lies outside "
				  "its offload binary of %zu bytes", index,
				  (unsigned long long)offset, (unsigned long long)length, size);
	*begin = offset;
	*end = offset + length;
	return 0;
}

/* One @.omp_offloading.device_image[.N] global and its __tgt_device_image. */
static LLVMValueRef add_image(LLVMModuleRef mod, const struct ol_wrap_request *req, size_t i,
			      LLVMTypeRef image_type, const struct ol_be_entry_array *entries,
			      char **err)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	LLVMValueRef data, image, fields[4];
	LLVMTypeRef data_type;
	uint64_t begin = 0, end = req->sizes[i];

	if (req->flavor > 16 && image_bounds(req->images[i], req->sizes[i], i, &begin, &end, err))
		return NULL;
	data = ol_be_byte_array(ctx, req->images[i], req->sizes[i], err);
	if (!data)
		return NULL;
	data_type = LLVMTypeOf(data);
	/* Same name for every image: LLVM appends .1, .2, ... as upstream. */
	image = LLVMAddGlobal(mod, data_type, ".omp_offloading.device_image");
	LLVMSetGlobalConstant(image, 1);
	LLVMSetLinkage(image, LLVMInternalLinkage);
	LLVMSetInitializer(image, data);
	LLVMSetUnnamedAddress(image, LLVMGlobalUnnamedAddr);
	/* LLVM codegen gives ".llvm.offloading" SHT_LLVM_OFFLOADING (flags A),
	 * so the images stay readable in the final executable.  The images of
	 * a relocatable link go elsewhere: LLVM types every ".llvm.offloading.*"
	 * section SHT_LLVM_OFFLOADING too, and a later link would extract
	 * these already registered images and link them again (upstream's
	 * .llvm.offloading.relocatable, spec 6.1 item 5).  The name below gets
	 * plain SHT_PROGBITS, which no wrapper reads. */
	if (req->flavor != OL_WRAP_FLAVOR_LEGACY) {
		LLVMSetSection(image, req->relocatable ? OL_RELOCATABLE_IMAGES_SECTION
						       : ".llvm.offloading");
		LLVMSetAlignment(image, 8);
	}
	/* Legacy images (14's) are plain constants: codegen's preferred
	 * alignment of arrays over 16 bytes (16 on x86-64) is the runtime's. */

	if (req->flavor <= 16) {
		/* 16 printed its end pointer, gep(0, size), folded by 16's
		 * constant folder to `gep inbounds (1, 0)`; build that form so
		 * the module prints the same under any LLVM. */
		LLVMValueRef one_zero[] = {LLVMConstInt(i64, 1, 0), LLVMConstInt(i64, 0, 0)};

		fields[0] = image;
		fields[1] = LLVMConstInBoundsGEP2(data_type, image, one_zero, 2);
	} else {
		LLVMValueRef zero_begin[] = {LLVMConstInt(i64, 0, 0), LLVMConstInt(i64, begin, 0)};
		LLVMValueRef zero_end[] = {LLVMConstInt(i64, 0, 0), LLVMConstInt(i64, end, 0)};

		fields[0] = LLVMConstGEP2(data_type, image, zero_begin, 2);
		fields[1] = LLVMConstGEP2(data_type, image, zero_end, 2);
	}
	fields[2] = entries->begin;
	fields[3] = entries->end;
	return LLVMConstNamedStruct(image_type, fields, 4);
}

/* createBinDesc(): the images, their array and the __tgt_bin_desc. */
static LLVMValueRef add_descriptor(LLVMModuleRef mod, const struct ol_wrap_request *req,
				   const struct ol_be_entry_array *entries, char **err)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMTypeRef image_fields[] = {ptr, ptr, ptr, ptr};
	LLVMTypeRef desc_fields[] = {i32, ptr, ptr, ptr};
	LLVMTypeRef image_type = LLVMStructCreateNamed(ctx, "__tgt_device_image");
	LLVMTypeRef desc_type = LLVMStructCreateNamed(ctx, "__tgt_bin_desc");
	LLVMValueRef *inits, images_init, images, desc_init[4], desc;
	unsigned nimages;

	LLVMStructSetBody(image_type, image_fields, 4, 0);
	LLVMStructSetBody(desc_type, desc_fields, 4, 0);
	if (req->nimages > UINT32_MAX) {
		ol_be_fail(err, "too many device images (%zu)", req->nimages);
		return NULL;
	}
	nimages = (unsigned)req->nimages;
	inits = calloc(nimages ? nimages : 1, sizeof(*inits));
	if (!inits) {
		ol_be_fail(err, "out of memory");
		return NULL;
	}
	for (unsigned i = 0; i < nimages; i++) {
		inits[i] = add_image(mod, req, i, image_type, entries, err);
		if (!inits[i]) {
			free(inits);
			return NULL;
		}
	}
	images_init = LLVMConstArray2(image_type, inits, nimages);
	free(inits);

	images = LLVMAddGlobal(mod, LLVMTypeOf(images_init), ".omp_offloading.device_images");
	LLVMSetGlobalConstant(images, 1);
	LLVMSetLinkage(images, LLVMInternalLinkage);
	LLVMSetInitializer(images, images_init);
	LLVMSetUnnamedAddress(images, LLVMGlobalUnnamedAddr);

	/* Upstream points at gep(images, 0, 0), which folds to the global. */
	desc_init[0] = LLVMConstInt(i32, nimages, 0);
	desc_init[1] = images;
	desc_init[2] = entries->begin;
	desc_init[3] = entries->end;
	desc = LLVMAddGlobal(mod, desc_type, ".omp_offloading.descriptor");
	LLVMSetGlobalConstant(desc, 1);
	LLVMSetLinkage(desc, LLVMInternalLinkage);
	LLVMSetInitializer(desc, LLVMConstNamedStruct(desc_type, desc_init, 4));
	return desc;
}

/* AMD's image info records, one per image: { version 1, image number,
 * number of images, target ID, compile options (none) }, the target IDs
 * NUL-terminated and packed in .offload_arch_list, where AMD's offload-arch
 * tool reads them from the executable.  Returns the records (malloc'd,
 * nimages of them), NULL with *err. */
static LLVMValueRef *add_image_infos(LLVMModuleRef mod, const struct ol_wrap_request *req,
				     char **err)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMTypeRef info_fields[] = {i32, i32, i32, ptr, ptr};
	LLVMTypeRef info_type = LLVMStructCreateNamed(ctx, "__tgt_image_info");
	LLVMValueRef *infos = calloc(req->nimages ? req->nimages : 1, sizeof(*infos));

	if (!infos) {
		ol_be_fail(err, "out of memory");
		return NULL;
	}
	LLVMStructSetBody(info_type, info_fields, 5, 0);
	for (size_t i = 0; i < req->nimages; i++) {
		const char *arch = req->offload_archs[i];
		LLVMValueRef arch_data = LLVMConstStringInContext2(ctx, arch, strlen(arch), 0);
		LLVMValueRef arch_gv, init[5];
		char suffix[24] = "", name[48];

		/* Named with the image's number, as AMD's tool names them
		 * (LLVM's own suffixes count every clash in the module). */
		if (i)
			snprintf(suffix, sizeof(suffix), ".%zu", i);
		snprintf(name, sizeof(name), "__offload_arch%s", suffix);
		arch_gv = LLVMAddGlobal(mod, LLVMTypeOf(arch_data), name);
		LLVMSetGlobalConstant(arch_gv, 1);
		LLVMSetLinkage(arch_gv, LLVMInternalLinkage);
		LLVMSetInitializer(arch_gv, arch_data);
		LLVMSetUnnamedAddress(arch_gv, LLVMGlobalUnnamedAddr);
		LLVMSetSection(arch_gv, ".offload_arch_list");
		LLVMSetAlignment(arch_gv, 1);

		init[0] = LLVMConstInt(i32, 1, 0);
		init[1] = LLVMConstInt(i32, i, 0);
		init[2] = LLVMConstInt(i32, req->nimages, 0);
		init[3] = arch_gv;
		init[4] = LLVMConstPointerNull(ptr);
		snprintf(name, sizeof(name), ".offload_image_info%s", suffix);
		infos[i] = LLVMAddGlobal(mod, info_type, name);
		LLVMSetGlobalConstant(infos[i], 1);
		LLVMSetLinkage(infos[i], LLVMInternalLinkage);
		LLVMSetInitializer(infos[i], LLVMConstNamedStruct(info_type, init, 5));
	}
	return infos;
}

/* The legacy constructor's start: each image info handed to
 * __tgt_register_image_info when the runtime defines it (AMD's does,
 * upstream's does not: extern_weak, null there), leaving `builder` at the
 * block that registers the library. */
static void add_image_info_calls(LLVMModuleRef mod, LLVMBuilderRef builder, LLVMValueRef fn,
				 const LLVMValueRef *infos, size_t ninfos)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef info_fn_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptr, 1, 0);
	LLVMValueRef info_fn = ol_be_get_function(mod, "__tgt_register_image_info", info_fn_type);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
	LLVMBasicBlockRef calls = LLVMAppendBasicBlockInContext(ctx, fn, "register_image_info");
	LLVMBasicBlockRef lib = LLVMAppendBasicBlockInContext(ctx, fn, "register_lib");
	LLVMValueRef present;

	LLVMSetLinkage(info_fn, LLVMExternalWeakLinkage);
	LLVMPositionBuilderAtEnd(builder, entry);
	present = LLVMBuildICmp(builder, LLVMIntNE, info_fn, LLVMConstPointerNull(ptr),
				"has_image_info");
	LLVMBuildCondBr(builder, present, calls, lib);
	LLVMPositionBuilderAtEnd(builder, calls);
	for (size_t i = 0; i < ninfos; i++)
		LLVMBuildCall2(builder, info_fn_type, info_fn, (LLVMValueRef *)&infos[i], 1, "");
	LLVMBuildBr(builder, lib);
	LLVMPositionBuilderAtEnd(builder, lib);
}

/* void f(void) calling `callee`(desc), i.e. __tgt_{un,}register_lib, in a
 * new entry block unless `builder` already stands in one of fn's. */
static LLVMValueRef add_lib_call(LLVMModuleRef mod, LLVMBuilderRef builder, LLVMValueRef fn,
				 const char *callee, LLVMValueRef desc)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef lib_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptr, 1, 0);
	LLVMValueRef lib_fn = ol_be_get_function(mod, callee, lib_type);
	LLVMBasicBlockRef at = LLVMGetInsertBlock(builder);

	if (!at || LLVMGetBasicBlockParent(at) != fn)
		LLVMPositionBuilderAtEnd(builder, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
	LLVMBuildCall2(builder, lib_type, lib_fn, &desc, 1, "");
	return lib_fn;
}

static void add_registration(LLVMModuleRef mod, int flavor, LLVMValueRef desc,
			     const LLVMValueRef *infos, size_t ninfos)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef void_fn = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
	LLVMBuilderRef builder = LLVMCreateBuilderInContext(ctx);
	LLVMValueRef reg, unreg;

	reg = ol_be_startup_function(mod, ".omp_offloading.descriptor_reg", void_fn);
	if (flavor <= 16) {
		if (infos)
			add_image_info_calls(mod, builder, reg, infos, ninfos);
		add_lib_call(mod, builder, reg, "__tgt_register_lib", desc);
		LLVMBuildRetVoid(builder);
		ol_be_append_structor(mod, "llvm.global_ctors", reg, 1);

		unreg = ol_be_startup_function(mod, ".omp_offloading.descriptor_unreg", void_fn);
		add_lib_call(mod, builder, unreg, "__tgt_unregister_lib", desc);
		LLVMBuildRetVoid(builder);
		ol_be_append_structor(mod, "llvm.global_dtors", unreg, 1);
	} else {
		/* Declarations in upstream's order: __tgt_register_lib, atexit,
		 * then the unregistration function and its callee. */
		LLVMTypeRef lib_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptr, 1, 0);
		LLVMTypeRef atexit_type = LLVMFunctionType(LLVMInt32TypeInContext(ctx), &ptr, 1, 0);
		LLVMValueRef reg_lib = ol_be_get_function(mod, "__tgt_register_lib", lib_type);
		LLVMValueRef atexit_fn = ol_be_get_function(mod, "atexit", atexit_type);

		unreg = ol_be_startup_function(mod, ".omp_offloading.descriptor_unreg", void_fn);
		add_lib_call(mod, builder, unreg, "__tgt_unregister_lib", desc);
		LLVMBuildRetVoid(builder);

		LLVMPositionBuilderAtEnd(builder, LLVMAppendBasicBlockInContext(ctx, reg, "entry"));
		LLVMBuildCall2(builder, lib_type, reg_lib, &desc, 1, "");
		/* Unregister through atexit so it runs before the plugins'
		 * own static destructors. */
		LLVMBuildCall2(builder, atexit_type, atexit_fn, &unreg, 1, "");
		LLVMBuildRetVoid(builder);
		ol_be_append_structor(mod, "llvm.global_ctors", reg, 101);
	}
	LLVMDisposeBuilder(builder);
}

int ol_be_wrap_openmp(LLVMModuleRef mod, const struct ol_wrap_request *req, char **err)
{
	/* The legacy layout's entries are 16's: clang 14 to 19 wrote them. */
	int entries_flavor = req->flavor == OL_WRAP_FLAVOR_LEGACY ? 16 : req->flavor;
	const struct ol_entries_section *section = ol_entries_section_of(entries_flavor,
									 OL_OFK_OPENMP);
	struct ol_be_entry_array entries;
	LLVMValueRef desc, *infos = NULL;

	if (ol_be_entry_array(mod, entries_flavor, section->name, section->dummy16, &entries) != 0)
		return ol_be_fail(err, "out of memory");
	desc = add_descriptor(mod, req, &entries, err);
	if (!desc)
		return -1;
	if (req->flavor == OL_WRAP_FLAVOR_LEGACY && req->offload_archs) {
		infos = add_image_infos(mod, req, err);
		if (!infos)
			return -1;
	}
	add_registration(mod, req->flavor, desc, infos, req->nimages);
	free(infos);
	return 0;
}
