/*
 * registration_cuda_hip: the CUDA and HIP registration modules (spec 5.4, 5.5), after
 * llvm/lib/Frontend/Offloading/OffloadWrapper.cpp (19, 22) and the 16-era
 * clang-linker-wrapper copy.  One fatbinary per module, wrapped in a
 * __fatBinC_Wrapper_t; a constructor registers it and then walks the offload
 * entries clang left in the host objects, registering each kernel and
 * variable with the CUDA/HIP runtime.
 *
 * Flavors differ in the entry layout (22: 56-byte entries with a kind field,
 * skipped unless they belong to this language), in which registration calls
 * exist (22: managed variables; HIP 19/22: surfaces and textures), and in
 * 16's use of the whole flags word as the switch value.  One difference is
 * not reproducible: 16's entry test was an `icmp` constant expression, which
 * LLVM 19 removed, so a 16-flavor module has it as an instruction.
 */
#include <string.h>

#include "backend_impl.h"

/* Relocatable links (-r) change nothing in these modules (the fat binary is
 * registered by the object's own constructor, its entries section renamed
 * afterwards by relocatable.c); only OpenMP images move to
 * OL_RELOCATABLE_IMAGES_SECTION (backend.h). */

enum { CUDA_FAT_MAGIC = 0x466243b1, HIP_FAT_MAGIC = 0x48495046 };

/* Entry kinds of the 22 layout (OffloadKind bit values). */
enum { ENTRY_KIND_CUDA = 2, ENTRY_KIND_HIP = 4 };

/* Flags of an entry (llvm::offloading::OffloadEntryKindFlag). */
enum {
	ENTRY_TYPE_MASK = 0x7,
	ENTRY_EXTERN = 0x8,
	ENTRY_CONSTANT = 0x10,
	ENTRY_NORMALIZED = 0x20,
};

/* Everything one module needs; names differ only in the cuda/hip prefix. */
struct fatbin_module {
	LLVMModuleRef mod;
	LLVMContextRef ctx;
	int flavor;
	int hip;
	LLVMTypeRef ptr, i16, i32, i64, void_type;
};

static LLVMTypeRef fn_type(LLVMTypeRef ret, LLVMTypeRef *params, unsigned n)
{
	return LLVMFunctionType(ret, params, n, 0);
}

static int is_macosx(const char *triple)
{
	const char *os = strchr(triple, '-');

	os = os ? strchr(os + 1, '-') : NULL;
	if (!os)
		return 0;
	os++;
	return strncmp(os, "darwin", 6) == 0 || strncmp(os, "macos", 5) == 0;
}

/* createFatbinDesc(): the image and the __fatBinC_Wrapper_t pointing at it. */
static LLVMValueRef add_fatbin_wrapper(struct fatbin_module *m, const uint8_t *image,
				       size_t size, char **err)
{
	int macosx = !m->hip && is_macosx(LLVMGetTarget(m->mod));
	LLVMTypeRef wrapper_type = LLVMStructCreateNamed(m->ctx, "fatbin_wrapper");
	LLVMTypeRef fields[] = {m->i32, m->i32, m->ptr, m->ptr};
	LLVMValueRef data, fatbin, wrapper, init[4];

	LLVMStructSetBody(wrapper_type, fields, 4, 0);
	data = ol_be_byte_array(m->ctx, image, size, err);
	if (!data)
		return NULL;
	fatbin = LLVMAddGlobal(m->mod, LLVMTypeOf(data), ".fatbin_image");
	LLVMSetGlobalConstant(fatbin, 1);
	LLVMSetLinkage(fatbin, LLVMInternalLinkage);
	LLVMSetInitializer(fatbin, data);
	LLVMSetSection(fatbin, m->hip ? ".hip_fatbin" : macosx ? "__NV_CUDA,__nv_fatbin"
							       : ".nv_fatbin");

	init[0] = LLVMConstInt(m->i32, m->hip ? HIP_FAT_MAGIC : CUDA_FAT_MAGIC, 0);
	init[1] = LLVMConstInt(m->i32, 1, 0);
	init[2] = fatbin;
	init[3] = LLVMConstPointerNull(m->ptr);
	wrapper = LLVMAddGlobal(m->mod, wrapper_type, ".fatbin_wrapper");
	LLVMSetGlobalConstant(wrapper, 1);
	LLVMSetLinkage(wrapper, LLVMInternalLinkage);
	LLVMSetInitializer(wrapper, LLVMConstNamedStruct(wrapper_type, init, 4));
	LLVMSetSection(wrapper, m->hip ? ".hipFatBinSegment" : macosx ? "__NV_CUDA,__fatbin"
								   : ".nvFatBinSegment");
	LLVMSetAlignment(wrapper, 8);

	if (m->flavor == 16) {
		/* 16 made the dummy here, external and hidden (issue #77018). */
		LLVMTypeRef entry = LLVMStructCreateNamed(m->ctx, "__tgt_offload_entry");
		LLVMTypeRef entry_fields[] = {m->ptr, m->ptr, m->i64, m->i32, m->i32};
		LLVMTypeRef array = LLVMArrayType2(entry, 0);
		LLVMValueRef dummy;

		LLVMStructSetBody(entry, entry_fields, 5, 0);
		dummy = LLVMAddGlobal(m->mod, array, m->hip ? "__dummy.hip_offloading.entry"
							    : "__dummy.cuda_offloading.entry");
		LLVMSetGlobalConstant(dummy, 1);
		LLVMSetInitializer(dummy, LLVMConstNull(array));
		LLVMSetVisibility(dummy, LLVMHiddenVisibility);
		LLVMSetSection(dummy, m->hip ? "hip_offloading_entries" : "cuda_offloading_entries");
	}
	return wrapper;
}

/* 16 created the bounds when it built the registration loop. */
static void add_entry_array_16(struct fatbin_module *m, struct ol_be_entry_array *entries)
{
	LLVMTypeRef array;

	entries->entry_type = LLVMGetTypeByName2(m->ctx, "__tgt_offload_entry");
	array = LLVMArrayType2(entries->entry_type, 0);
	entries->begin = LLVMAddGlobal(m->mod, array, m->hip ? "__start_hip_offloading_entries"
							     : "__start_cuda_offloading_entries");
	entries->end = LLVMAddGlobal(m->mod, array, m->hip ? "__stop_hip_offloading_entries"
							   : "__stop_cuda_offloading_entries");
	LLVMSetGlobalConstant(entries->begin, 1);
	LLVMSetGlobalConstant(entries->end, 1);
	LLVMSetVisibility(entries->begin, LLVMHiddenVisibility);
	LLVMSetVisibility(entries->end, LLVMHiddenVisibility);
}

/* Address of field `index` of the entry at `entry`: an inbounds GEP whose
 * leading zero is an i32 in 22 and a size_t (i64) in 16/19, as upstream
 * wrote them (no struct GEP: 22's would add `nuw`). */
static LLVMValueRef field_address(struct fatbin_module *m, LLVMBuilderRef b,
				  LLVMTypeRef entry_type, LLVMValueRef entry, unsigned index)
{
	LLVMValueRef indices[2];

	indices[0] = LLVMConstInt(m->flavor >= 22 ? m->i32 : m->i64, 0, 0);
	indices[1] = LLVMConstInt(m->i32, index, 0);
	return LLVMBuildInBoundsGEP2(b, entry_type, entry, indices, 2, "");
}

static LLVMValueRef load_field(struct fatbin_module *m, LLVMBuilderRef b, LLVMTypeRef entry_type,
			       LLVMValueRef entry, unsigned index, LLVMTypeRef type,
			       const char *name)
{
	return LLVMBuildLoad2(b, type, field_address(m, b, entry_type, entry, index), name);
}

/* (flags & bit) >> shift, named as upstream names the C booleans. */
static LLVMValueRef flag_bit(struct fatbin_module *m, LLVMBuilderRef b, LLVMValueRef flags,
			     unsigned bit, unsigned shift, const char *name)
{
	LLVMValueRef masked = LLVMBuildAnd(b, flags, LLVMConstInt(m->i32, bit, 0), "");

	return LLVMBuildLShr(b, masked, LLVMConstInt(m->i32, shift, 0), name);
}

struct runtime_fns {
	LLVMTypeRef reg_func_type, reg_var_type, reg_managed_type, reg_surface_type,
		reg_texture_type;
	LLVMValueRef reg_func, reg_var, reg_managed, reg_surface, reg_texture;
};

static void declare_runtime(struct fatbin_module *m, struct runtime_fns *rt)
{
	LLVMTypeRef p = m->ptr, i32 = m->i32, i64 = m->i64;
	LLVMTypeRef func_params[] = {p, p, p, p, i32, p, p, p, p, p};
	LLVMTypeRef var_params[] = {p, p, p, p, i32, i64, i32, i32};
	LLVMTypeRef managed_params[] = {p, p, p, p, i64, i32};
	LLVMTypeRef surface_params[] = {p, p, p, p, i32, i32};
	LLVMTypeRef texture_params[] = {p, p, p, p, i32, i32, i32};

	memset(rt, 0, sizeof(*rt));
	rt->reg_func_type = fn_type(i32, func_params, 10);
	rt->reg_var_type = fn_type(m->void_type, var_params, 8);
	rt->reg_managed_type = fn_type(m->void_type, managed_params, 6);
	rt->reg_surface_type = fn_type(m->void_type, surface_params, 6);
	rt->reg_texture_type = fn_type(m->void_type, texture_params, 7);

	/* Declaration order is upstream's getOrInsertFunction order. */
	rt->reg_func = ol_be_get_function(m->mod, m->hip ? "__hipRegisterFunction"
							 : "__cudaRegisterFunction",
					  rt->reg_func_type);
	rt->reg_var = ol_be_get_function(m->mod, m->hip ? "__hipRegisterVar" : "__cudaRegisterVar",
					 rt->reg_var_type);
	if (m->flavor == 16)
		return;
	if (m->flavor >= 22)
		rt->reg_managed = ol_be_get_function(m->mod, m->hip ? "__hipRegisterManagedVar"
								    : "__cudaRegisterManagedVar",
						     rt->reg_managed_type);
	rt->reg_surface = ol_be_get_function(m->mod, m->hip ? "__hipRegisterSurface"
							    : "__cudaRegisterSurface",
					     rt->reg_surface_type);
	rt->reg_texture = ol_be_get_function(m->mod, m->hip ? "__hipRegisterTexture"
							    : "__cudaRegisterTexture",
					     rt->reg_texture_type);
}

/* The loaded fields of one entry. */
struct entry_fields {
	LLVMValueRef addr, aux_addr, kind, name, size, flags, data32, textype;
	LLVMValueRef type, is_extern, is_constant, normalized;
};

static void load_entry(struct fatbin_module *m, LLVMBuilderRef b, LLVMTypeRef et,
		       LLVMValueRef entry, struct entry_fields *f)
{
	memset(f, 0, sizeof(*f));
	if (m->flavor >= 22) {
		LLVMValueRef data;

		f->addr = load_field(m, b, et, entry, 4, m->ptr, "addr");
		f->aux_addr = load_field(m, b, et, entry, 8, m->ptr, "aux_addr");
		f->kind = load_field(m, b, et, entry, 2, m->i16, "kind");
		f->name = load_field(m, b, et, entry, 5, m->ptr, "name");
		f->size = load_field(m, b, et, entry, 6, m->i64, "size");
		f->flags = load_field(m, b, et, entry, 3, m->i32, "flags");
		data = load_field(m, b, et, entry, 7, m->i64, "data");
		f->data32 = LLVMBuildTrunc(b, data, m->i32, "");
		f->textype = f->data32;
	} else {
		f->addr = load_field(m, b, et, entry, 0, m->ptr, "addr");
		f->name = load_field(m, b, et, entry, 1, m->ptr, "name");
		f->size = load_field(m, b, et, entry, 2, m->i64, "size");
		f->flags = load_field(m, b, et, entry, 3, m->i32, m->flavor == 16 ? "flag" : "flags");
		if (m->flavor == 16)
			return;
		f->textype = load_field(m, b, et, entry, 4, m->i32, "textype");
	}
	f->type = LLVMBuildAnd(b, f->flags, LLVMConstInt(m->i32, ENTRY_TYPE_MASK, 0), "type");
	f->is_extern = flag_bit(m, b, f->flags, ENTRY_EXTERN, 3, "extern");
	f->is_constant = flag_bit(m, b, f->flags, ENTRY_CONSTANT, 4, "constant");
	f->normalized = flag_bit(m, b, f->flags, ENTRY_NORMALIZED, 5, "normalized");
}

/* createRegisterGlobalsFunction(): for each entry in [__start, __stop),
 * register kernels (size 0) and variables with the runtime. */
static LLVMValueRef add_globals_reg(struct fatbin_module *m, const struct ol_be_entry_array *entries)
{
	LLVMTypeRef et = entries->entry_type;
	LLVMTypeRef fty = fn_type(m->void_type, &m->ptr, 1);
	struct runtime_fns rt;
	struct entry_fields f;
	LLVMValueRef fn, handle, entry, next, sw, null_ptr = LLVMConstPointerNull(m->ptr);
	LLVMBasicBlockRef bb_entry, bb_loop, bb_kind = NULL, bb_then, bb_else, bb_global,
		bb_managed, bb_surface, bb_texture, bb_end, bb_exit;
	LLVMBuilderRef b = LLVMCreateBuilderInContext(m->ctx);

	declare_runtime(m, &rt);
	fn = ol_be_startup_function(m->mod, m->hip ? ".hip.globals_reg" : ".cuda.globals_reg", fty);
	handle = LLVMGetParam(fn, 0);
	bb_entry = LLVMAppendBasicBlockInContext(m->ctx, fn, "entry");
	bb_loop = LLVMAppendBasicBlockInContext(m->ctx, fn, "while.entry");
	if (m->flavor >= 22)
		bb_kind = LLVMAppendBasicBlockInContext(m->ctx, fn, "if.kind");
	bb_then = LLVMAppendBasicBlockInContext(m->ctx, fn, "if.then");
	bb_else = LLVMAppendBasicBlockInContext(m->ctx, fn, "if.else");
	bb_global = LLVMAppendBasicBlockInContext(m->ctx, fn, "sw.global");
	bb_managed = LLVMAppendBasicBlockInContext(m->ctx, fn, "sw.managed");
	bb_surface = LLVMAppendBasicBlockInContext(m->ctx, fn, "sw.surface");
	bb_texture = LLVMAppendBasicBlockInContext(m->ctx, fn, "sw.texture");
	bb_end = LLVMAppendBasicBlockInContext(m->ctx, fn, "if.end");
	bb_exit = LLVMAppendBasicBlockInContext(m->ctx, fn, "while.end");

	LLVMPositionBuilderAtEnd(b, bb_entry);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, entries->begin, entries->end, ""),
			bb_loop, bb_exit);

	LLVMPositionBuilderAtEnd(b, bb_loop);
	entry = LLVMBuildPhi(b, m->ptr, "entry");
	load_entry(m, b, et, entry, &f);
	if (bb_kind) {
		/* 22: one section for every language; skip foreign entries. */
		LLVMValueRef want = LLVMConstInt(m->i16, m->hip ? ENTRY_KIND_HIP : ENTRY_KIND_CUDA, 0);

		LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, f.kind, want, ""), bb_kind, bb_end);
		LLVMPositionBuilderAtEnd(b, bb_kind);
	}
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, f.size, LLVMConstNull(m->i64), ""),
			bb_then, bb_else);

	LLVMPositionBuilderAtEnd(b, bb_then);
	{
		LLVMValueRef args[] = {handle, f.addr, f.name, f.name,
				       LLVMConstInt(m->i32, (unsigned long long)-1, 1),
				       null_ptr, null_ptr, null_ptr, null_ptr, null_ptr};

		LLVMBuildCall2(b, rt.reg_func_type, rt.reg_func, args, 10, "");
	}
	LLVMBuildBr(b, bb_end);

	LLVMPositionBuilderAtEnd(b, bb_else);
	sw = LLVMBuildSwitch(b, m->flavor == 16 ? f.flags : f.type, bb_end, 4);

	LLVMPositionBuilderAtEnd(b, bb_global);
	{
		LLVMValueRef zero = LLVMConstInt(m->i32, 0, 0);
		LLVMValueRef args[] = {handle, f.addr, f.name, f.name,
				       m->flavor == 16 ? zero : f.is_extern, f.size,
				       m->flavor == 16 ? zero : f.is_constant, zero};

		LLVMBuildCall2(b, rt.reg_var_type, rt.reg_var, args, 8, "");
	}
	LLVMBuildBr(b, bb_end);
	LLVMAddCase(sw, LLVMConstInt(m->i32, 0, 0), bb_global);

	LLVMPositionBuilderAtEnd(b, bb_managed);
	if (rt.reg_managed) {
		LLVMValueRef args[] = {handle, f.aux_addr, f.addr, f.name, f.size, f.data32};

		LLVMBuildCall2(b, rt.reg_managed_type, rt.reg_managed, args, 6, "");
	}
	LLVMBuildBr(b, bb_end);
	LLVMAddCase(sw, LLVMConstInt(m->i32, 1, 0), bb_managed);

	/* Surfaces and textures: only HIP registers them (upstream's
	 * EmitSurfacesAndTextures), and 16 not at all. */
	LLVMPositionBuilderAtEnd(b, bb_surface);
	if (m->hip && rt.reg_surface) {
		LLVMValueRef args[] = {handle, f.addr, f.name, f.name, f.textype, f.is_extern};

		LLVMBuildCall2(b, rt.reg_surface_type, rt.reg_surface, args, 6, "");
	}
	LLVMBuildBr(b, bb_end);
	LLVMAddCase(sw, LLVMConstInt(m->i32, 2, 0), bb_surface);

	LLVMPositionBuilderAtEnd(b, bb_texture);
	if (m->hip && rt.reg_texture) {
		LLVMValueRef args[] = {handle, f.addr, f.name, f.name, f.textype, f.normalized,
				       f.is_extern};

		LLVMBuildCall2(b, rt.reg_texture_type, rt.reg_texture, args, 7, "");
	}
	LLVMBuildBr(b, bb_end);
	LLVMAddCase(sw, LLVMConstInt(m->i32, 3, 0), bb_texture);

	LLVMPositionBuilderAtEnd(b, bb_end);
	{
		LLVMValueRef one = LLVMConstInt(m->i64, 1, 0);
		LLVMValueRef incoming[2];
		LLVMBasicBlockRef from[2] = {bb_entry, bb_end};

		next = LLVMBuildInBoundsGEP2(b, et, entry, &one, 1, "");
		incoming[0] = entries->begin;
		incoming[1] = next;
		LLVMAddIncoming(entry, incoming, from, 2);
		LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, next, entries->end, ""),
				bb_exit, bb_loop);
	}
	LLVMPositionBuilderAtEnd(b, bb_exit);
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return fn;
}

/* createRegisterFatbinFunction(): the constructor and its atexit-ed
 * destructor. */
static void add_registration(struct fatbin_module *m, LLVMValueRef wrapper,
			     const struct ol_be_entry_array *entries_19)
{
	LLVMTypeRef void_fn = fn_type(m->void_type, NULL, 0);
	LLVMTypeRef reg_fatbin_type = fn_type(m->ptr, &m->ptr, 1);
	LLVMTypeRef handle_fn_type = fn_type(m->void_type, &m->ptr, 1);
	LLVMTypeRef atexit_type = fn_type(m->i32, &m->ptr, 1);
	LLVMValueRef ctor, dtor, reg_fatbin, reg_fatbin_end, unreg_fatbin, atexit_fn;
	LLVMValueRef handle_global, handle, globals_reg, load, store;
	struct ol_be_entry_array entries_16;
	const struct ol_be_entry_array *entries = entries_19;
	LLVMBuilderRef b;

	ctor = ol_be_startup_function(m->mod, m->hip ? ".hip.fatbin_reg" : ".cuda.fatbin_reg",
				      void_fn);
	dtor = ol_be_startup_function(m->mod, m->hip ? ".hip.fatbin_unreg" : ".cuda.fatbin_unreg",
				      void_fn);
	reg_fatbin = ol_be_get_function(m->mod, m->hip ? "__hipRegisterFatBinary"
						       : "__cudaRegisterFatBinary",
					reg_fatbin_type);
	reg_fatbin_end = ol_be_get_function(m->mod, "__cudaRegisterFatBinaryEnd", handle_fn_type);
	unreg_fatbin = ol_be_get_function(m->mod, m->hip ? "__hipUnregisterFatBinary"
							 : "__cudaUnregisterFatBinary",
					  handle_fn_type);
	atexit_fn = ol_be_get_function(m->mod, "atexit", atexit_type);

	handle_global = LLVMAddGlobal(m->mod, m->ptr, m->hip ? ".hip.binary_handle"
							     : ".cuda.binary_handle");
	LLVMSetLinkage(handle_global, LLVMInternalLinkage);
	LLVMSetInitializer(handle_global, LLVMConstPointerNull(m->ptr));

	b = LLVMCreateBuilderInContext(m->ctx);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(m->ctx, ctor, "entry"));
	handle = LLVMBuildCall2(b, reg_fatbin_type, reg_fatbin, &wrapper, 1, "");
	store = LLVMBuildStore(b, handle, handle_global);
	LLVMSetAlignment(store, 8);
	if (m->flavor == 16) {
		add_entry_array_16(m, &entries_16);
		entries = &entries_16;
	}
	globals_reg = add_globals_reg(m, entries);
	LLVMBuildCall2(b, handle_fn_type, globals_reg, &handle, 1, "");
	if (!m->hip)
		LLVMBuildCall2(b, handle_fn_type, reg_fatbin_end, &handle, 1, "");
	LLVMBuildCall2(b, atexit_type, atexit_fn, &dtor, 1, "");
	LLVMBuildRetVoid(b);

	/* A global destructor would run too late for CUDA >= 9.2: the
	 * destructor goes through atexit. */
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(m->ctx, dtor, "entry"));
	load = LLVMBuildLoad2(b, m->ptr, handle_global, "");
	LLVMSetAlignment(load, 8);
	LLVMBuildCall2(b, handle_fn_type, unreg_fatbin, &load, 1, "");
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);

	ol_be_append_structor(m->mod, "llvm.global_ctors", ctor, m->flavor == 16 ? 1 : 101);
}

int ol_be_wrap_cuda_hip(LLVMModuleRef mod, const struct ol_wrap_request *req, char **err)
{
	struct fatbin_module m;
	struct ol_be_entry_array entries;
	LLVMValueRef wrapper;
	const char *section;

	if (req->nimages != 1)
		return ol_be_fail(err, "%s wrapping takes one fatbinary, not %zu",
				  req->kind == OL_WRAP_HIP ? "HIP" : "CUDA", req->nimages);
	memset(&m, 0, sizeof(m));
	m.mod = mod;
	m.ctx = LLVMGetModuleContext(mod);
	m.flavor = req->flavor;
	m.hip = req->kind == OL_WRAP_HIP;
	m.ptr = LLVMPointerTypeInContext(m.ctx, 0);
	m.i16 = LLVMInt16TypeInContext(m.ctx);
	m.i32 = LLVMInt32TypeInContext(m.ctx);
	m.i64 = LLVMInt64TypeInContext(m.ctx);
	m.void_type = LLVMVoidTypeInContext(m.ctx);

	if (m.flavor != 16) {
		/* 19/22: the caller made the entry array before wrapping. */
		section = m.flavor >= 22 ? "llvm_offload_entries"
			  : m.hip ? "hip_offloading_entries" : "cuda_offloading_entries";
		if (ol_be_entry_array(mod, m.flavor, section, NULL, &entries) != 0)
			return ol_be_fail(err, "out of memory");
	}
	wrapper = add_fatbin_wrapper(&m, req->images[0], req->sizes[0], err);
	if (!wrapper)
		return -1;
	add_registration(&m, wrapper, m.flavor != 16 ? &entries : NULL);
	return 0;
}
