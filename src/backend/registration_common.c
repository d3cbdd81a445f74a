/*
 * registration_common: the pieces every registration module is built from, written
 * after llvm/lib/Frontend/Offloading/Utility.cpp (19, 22), the 16-era
 * clang/tools/clang-linker-wrapper/OffloadWrapper.cpp, and
 * llvm/lib/Transforms/Utils/ModuleUtils.cpp (appendToGlobalCtors,
 * appendToCompilerUsed).  Creation order matters: it is the order
 * --print-wrapped-module prints, which tests compare against upstream.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "offload/strvec.h"   /* ol_starts_with (inline: no link to olcore) */

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Triple::getDefaultFormat(), reduced to what the wrapper distinguishes. */
enum ol_be_objfmt ol_be_object_format(const char *triple)
{
	const char *vendor, *os;
	size_t len = strlen(triple);

	/* An explicit object format in the environment wins (x86_64-pc-windows-elf). */
	if (ends_with(triple, len, "-elf"))
		return OL_BE_ELF;
	if (ends_with(triple, len, "-macho"))
		return OL_BE_MACHO;
	if (ends_with(triple, len, "-coff"))
		return OL_BE_COFF;
	vendor = strchr(triple, '-');
	if (!vendor)
		return OL_BE_ELF;
	vendor++;
	os = strchr(vendor, '-');
	os = os ? os + 1 : "";
	if (ol_starts_with(vendor, "apple-") || ol_starts_with(os, "darwin") ||
	    ol_starts_with(os, "macos") || ol_starts_with(os, "ios") || ol_starts_with(os, "tvos") ||
	    ol_starts_with(os, "watchos") || ol_starts_with(os, "xros") || ol_starts_with(os, "driverkit"))
		return OL_BE_MACHO;
	if (ol_starts_with(os, "windows") || ol_starts_with(os, "win32") || ol_starts_with(os, "uefi"))
		return OL_BE_COFF;
	return OL_BE_ELF;
}

/* getEntryTy(): the module's entry type, made on first use. */
LLVMTypeRef ol_be_entry_type(LLVMModuleRef mod, int flavor)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMTypeRef i16 = LLVMInt16TypeInContext(ctx);
	const char *name = flavor == 16 ? "__tgt_offload_entry" : "struct.__tgt_offload_entry";
	LLVMTypeRef type = LLVMGetTypeByName2(ctx, name);

	if (type)
		return type;
	if (flavor >= 22) {
		/* llvm::offloading::EntryTy: { Reserved, Version, Kind, Flags,
		 * Address, SymbolName, Size, Data, AuxAddr } */
		LLVMTypeRef fields[] = {i64, i16, i16, i32, ptr, ptr, i64, i64, ptr};

		type = LLVMStructCreateNamed(ctx, name);
		LLVMStructSetBody(type, fields, 9, 0);
	} else {
		/* { addr, name, size, flags, reserved } */
		LLVMTypeRef fields[] = {ptr, ptr, i64, i32, i32};

		type = LLVMStructCreateNamed(ctx, name);
		LLVMStructSetBody(type, fields, 5, 0);
	}
	return type;
}

static LLVMValueRef add_hidden_external(LLVMModuleRef mod, LLVMTypeRef type, const char *name)
{
	LLVMValueRef gv = LLVMAddGlobal(mod, type, name);

	LLVMSetGlobalConstant(gv, 1);
	LLVMSetVisibility(gv, LLVMHiddenVisibility);
	return gv;
}

static char *concat(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);

	if (s) {
		memcpy(s, a, la);
		memcpy(s + la, b, lb + 1);
	}
	return s;
}

/* Names here are short and fixed ("__start_" + a section name we chose), so
 * a stack buffer is enough; longer ones would be a bug in this file. */
#define OL_BE_NAME_MAX 128

static const char *join(char buf[OL_BE_NAME_MAX], const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la + lb + 1 > OL_BE_NAME_MAX)
		lb = OL_BE_NAME_MAX - 1 - la;
	memcpy(buf, a, la);
	memcpy(buf + la, b, lb);
	buf[la + lb] = '\0';
	return buf;
}

int ol_be_entry_array(LLVMModuleRef mod, int flavor, const char *section,
		       const char *dummy_name_16, struct ol_be_entry_array *out)
{
	enum ol_be_objfmt format = ol_be_object_format(LLVMGetTarget(mod));
	char name[OL_BE_NAME_MAX];
	LLVMTypeRef array_type;
	LLVMValueRef dummy;

	out->entry_type = ol_be_entry_type(mod, flavor);
	array_type = LLVMArrayType2(out->entry_type, 0);

	if (flavor == 16) {
		/* 16: scalar-typed bounds, and an *external* hidden dummy, which
		 * is why two 16 wrapper objects collide (issue #77018). */
		out->begin = add_hidden_external(mod, out->entry_type, join(name, "__start_", section));
		out->end = add_hidden_external(mod, out->entry_type, join(name, "__stop_", section));
		dummy = LLVMAddGlobal(mod, array_type, dummy_name_16);
		LLVMSetGlobalConstant(dummy, 1);
		LLVMSetInitializer(dummy, LLVMConstNull(array_type));
		LLVMSetSection(dummy, section);
		LLVMSetVisibility(dummy, LLVMHiddenVisibility);
		return 0;
	}

	out->begin = add_hidden_external(mod, array_type, join(name, "__start_", section));
	out->end = add_hidden_external(mod, array_type, join(name, "__stop_", section));
	if (format == OL_BE_COFF) {
		/* No __start_/__stop_ from the COFF linker: define them, weak,
		 * in sections that sort around the entries ($OE). */
		LLVMSetLinkage(out->begin, LLVMWeakODRLinkage);
		LLVMSetLinkage(out->end, LLVMWeakODRLinkage);
		LLVMSetInitializer(out->begin, LLVMConstNull(array_type));
		LLVMSetInitializer(out->end, LLVMConstNull(array_type));
	}
	if (format == OL_BE_ELF) {
		/* The linker defines __start_/__stop_ only when the section
		 * exists; the empty dummy makes sure it does. */
		dummy = LLVMAddGlobal(mod, array_type, join(name, "__dummy.", section));
		LLVMSetGlobalConstant(dummy, 1);
		LLVMSetLinkage(dummy, LLVMInternalLinkage);
		LLVMSetInitializer(dummy, LLVMConstNull(array_type));
		LLVMSetSection(dummy, section);
		if (flavor >= 22)
			LLVMSetAlignment(dummy, 8);
		if (ol_be_compiler_used_add(mod, &dummy, 1) != 0)
			return -1;
	} else {
		char *begin_section = concat(section, "$OA");
		char *end_section = concat(section, "$OZ");

		/* On allocation failure the sections stay unset: the object
		 * still links, only the entry order is not guaranteed. */
		if (begin_section)
			LLVMSetSection(out->begin, begin_section);
		if (end_section)
			LLVMSetSection(out->end, end_section);
		free(begin_section);
		free(end_section);
	}
	return 0;
}

static int is_nvptx(const char *triple)
{
	return ol_starts_with(triple, "nvptx-") || ol_starts_with(triple, "nvptx64-");
}

LLVMValueRef ol_be_offloading_entry(LLVMModuleRef mod, uint16_t kind, LLVMValueRef addr,
				    const char *name, uint64_t size, uint32_t flags,
				    uint64_t data, const char *section)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	const char *triple = LLVMGetTarget(mod);
	/* PTX identifiers cannot hold '.'. */
	int nvptx = is_nvptx(triple);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMTypeRef i16 = LLVMInt16TypeInContext(ctx);
	LLVMTypeRef entry_type = ol_be_entry_type(mod, 22);
	LLVMValueRef name_data = LLVMConstStringInContext2(ctx, name, strlen(name), 0);
	LLVMValueRef name_gv, fields[9], entry, init;
	LLVMMetadataRef name_md;
	char *entry_name, *entry_section;

	/* The symbol name the runtime looks up in the device image. */
	name_gv = LLVMAddGlobal(mod, LLVMTypeOf(name_data),
				nvptx ? "$offloading$entry_name" : ".offloading.entry_name");
	LLVMSetGlobalConstant(name_gv, 1);
	LLVMSetLinkage(name_gv, LLVMInternalLinkage);
	LLVMSetInitializer(name_gv, name_data);
	LLVMSetUnnamedAddress(name_gv, LLVMGlobalUnnamedAddr);
	LLVMSetSection(name_gv, ".llvm.rodata.offloading");
	LLVMSetAlignment(name_gv, 1);
	name_md = LLVMValueAsMetadata(name_gv);
	LLVMAddNamedMetadataOperand(mod, "llvm.offloading.symbols",
				    LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, &name_md, 1)));

	fields[0] = LLVMConstNull(i64);
	fields[1] = LLVMConstInt(i16, 1, 0);
	fields[2] = LLVMConstInt(i16, kind, 0);
	fields[3] = LLVMConstInt(i32, flags, 0);
	fields[4] = addr ? addr : LLVMConstPointerNull(ptr);
	fields[5] = name_gv;
	fields[6] = LLVMConstInt(i64, size, 0);
	fields[7] = LLVMConstInt(i64, data, 0);
	fields[8] = LLVMConstPointerNull(ptr);
	init = LLVMConstNamedStruct(entry_type, fields, 9);

	entry_name = concat(nvptx ? "$offloading$entry$" : ".offloading.entry.", name);
	entry_section = ol_be_object_format(triple) == OL_BE_COFF ? concat(section, "$OE") : NULL;
	if (!entry_name) {
		free(entry_section);
		return NULL;
	}
	entry = LLVMAddGlobal(mod, entry_type, entry_name);
	LLVMSetGlobalConstant(entry, 1);
	LLVMSetLinkage(entry, LLVMWeakAnyLinkage);
	LLVMSetInitializer(entry, init);
	LLVMSetSection(entry, entry_section ? entry_section : section);
	LLVMSetAlignment(entry, 8);
	free(entry_name);
	free(entry_section);
	return entry;
}

void ol_be_append_structor(LLVMModuleRef mod, const char *array_name, LLVMValueRef fn,
			   unsigned priority)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
	LLVMTypeRef fields[] = {LLVMInt32TypeInContext(ctx), ptr, ptr};
	LLVMTypeRef elem = LLVMStructTypeInContext(ctx, fields, 3, 0);
	LLVMValueRef vals[] = {LLVMConstInt(fields[0], priority, 0), fn, LLVMConstPointerNull(ptr)};
	LLVMValueRef entry = LLVMConstStructInContext(ctx, vals, 3, 0);
	LLVMValueRef gv = LLVMAddGlobal(mod, LLVMArrayType2(elem, 1), array_name);

	LLVMSetLinkage(gv, LLVMAppendingLinkage);
	LLVMSetInitializer(gv, LLVMConstArray2(elem, &entry, 1));
}

LLVMValueRef ol_be_get_function(LLVMModuleRef mod, const char *name, LLVMTypeRef fn_type)
{
	LLVMValueRef fn = LLVMGetNamedFunction(mod, name);

	return fn ? fn : LLVMAddFunction(mod, name, fn_type);
}

LLVMValueRef ol_be_startup_function(LLVMModuleRef mod, const char *name, LLVMTypeRef fn_type)
{
	LLVMValueRef fn = LLVMAddFunction(mod, name, fn_type);

	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMSetSection(fn, ".text.startup");
	return fn;
}

LLVMValueRef ol_be_byte_array(LLVMContextRef ctx, const uint8_t *data, size_t size, char **err)
{
#if OL_LLVM_MAJOR >= 19
	(void)err;
	return LLVMConstStringInContext2(ctx, (const char *)data, size, 1);
#else
	if (size > UINT_MAX) {
		ol_be_fail(err, "device image of %zu bytes is too large", size);
		return NULL;
	}
	return LLVMConstStringInContext(ctx, (const char *)data, (unsigned)size, 1);
#endif
}
