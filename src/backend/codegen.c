/*
 * codegen: target registration, target machines and emitting a module to a
 * malloc'd buffer.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/Target.h>

#include "backend_impl.h"

static pthread_once_t targets_once = PTHREAD_ONCE_INIT;

static void init_targets_once(void)
{
	/* These cover whatever this libLLVM was built with (Targets.def), so
	 * X86, AArch64, NVPTX and AMDGPU are there when the distribution
	 * enabled them.  Asm parsers are needed for module-level and inline
	 * assembly during codegen. */
	LLVMInitializeAllTargetInfos();
	LLVMInitializeAllTargets();
	LLVMInitializeAllTargetMCs();
	LLVMInitializeAllAsmPrinters();
	LLVMInitializeAllAsmParsers();
}

void ol_be_init_targets(void)
{
	pthread_once(&targets_once, init_targets_once);
}

LLVMTargetMachineRef ol_be_target_machine(const char *triple, const char *cpu,
					  const char *features,
					  LLVMCodeGenOptLevel level, char **err)
{
	LLVMTargetRef target = NULL;
	char *message = NULL;
	LLVMTargetMachineRef tm;

	ol_be_init_targets();
	if (LLVMGetTargetFromTriple(triple, &target, &message)) {
		ol_be_fail(err, "no registered target for '%s': %s", triple,
			   message ? message : "unknown target");
		LLVMDisposeMessage(message);
		return NULL;
	}
	LLVMDisposeMessage(message);
	tm = LLVMCreateTargetMachine(target, triple, cpu ? cpu : "", features ? features : "",
				     level, LLVMRelocPIC, LLVMCodeModelDefault);
	if (!tm)
		ol_be_fail(err, "cannot create a target machine for '%s'", triple);
	return tm;
}

/* Copies an LLVM memory buffer into malloc'd memory and disposes it. */
static int take_buffer(LLVMMemoryBufferRef buf, struct ol_buffer *out, char **err)
{
	size_t size = LLVMGetBufferSize(buf);

	/* malloc(0) may return NULL; the caller frees whatever we hand out. */
	out->data = malloc(size ? size : 1);
	if (!out->data) {
		LLVMDisposeMemoryBuffer(buf);
		return ol_be_fail(err, "out of memory");
	}
	memcpy(out->data, LLVMGetBufferStart(buf), size);
	out->size = size;
	LLVMDisposeMemoryBuffer(buf);
	return 0;
}

int ol_be_emit(LLVMTargetMachineRef tm, LLVMModuleRef mod, LLVMCodeGenFileType type,
	       struct ol_buffer *out, char **err)
{
	char *message = NULL;
	LLVMMemoryBufferRef buf = NULL;

	/* Not LLVMTargetMachineEmitToMemoryBuffer: its pass manager has no
	 * TargetLibraryInfo for the triple (emit.cpp). */
	if (ol_be_emit_module(tm, mod, type == LLVMAssemblyFile, &buf, &message)) {
		ol_be_fail(err, "code generation failed: %s",
			   message ? message : "unknown error");
		LLVMDisposeMessage(message);
		return -1;
	}
	LLVMDisposeMessage(message);
	return take_buffer(buf, out, err);
}

int ol_be_write_bitcode(LLVMModuleRef mod, struct ol_buffer *out, char **err)
{
	LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(mod);

	if (!buf)
		return ol_be_fail(err, "cannot write the module's bitcode");
	return take_buffer(buf, out, err);
}

/* llvm.global_ctors / llvm.global_dtors as explicit .init_array.N /
 * .fini_array.N entries, what the AsmPrinter emits when
 * TargetOptions::UseInitArray is set.  Upstream's tools set it through
 * InitTargetOptionsFromCodeGenFlags(); the C API cannot, and its target
 * machines would put constructors in .ctors.NNNNN, which lld and the
 * runtime loaders treat differently. */
static void lower_structor_list(LLVMModuleRef mod, const char *list_name, const char *section)
{
	LLVMValueRef list = LLVMGetNamedGlobal(mod, list_name);
	LLVMValueRef init;
	LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(mod), 0);
	int n;

	if (!list)
		return;
	init = LLVMGetInitializer(list);
	n = init && LLVMIsAConstantArray(init) ? LLVMGetNumOperands(init) : 0;
	for (int i = 0; i < n; i++) {
		LLVMValueRef entry = LLVMGetOperand(init, (unsigned)i);
		LLVMValueRef priority, fn, key, slot;
		unsigned long long prio;
		char name[64];

		if (!LLVMIsAConstantStruct(entry) || LLVMGetNumOperands(entry) < 2)
			continue;
		priority = LLVMGetOperand(entry, 0);
		fn = LLVMGetOperand(entry, 1);
		if (!LLVMIsAConstantInt(priority) || LLVMIsNull(fn))
			continue;
		prio = LLVMConstIntGetZExtValue(priority);
		if (prio == 65535)
			snprintf(name, sizeof(name), "%s", section);
		else
			snprintf(name, sizeof(name), "%s.%llu", section, prio);
		/* Private: like the AsmPrinter's entries, no symbol of its own. */
		slot = LLVMAddGlobal(mod, ptr, ".ol.structor");
		LLVMSetLinkage(slot, LLVMPrivateLinkage);
		LLVMSetInitializer(slot, fn);
		LLVMSetSection(slot, name);
		LLVMSetAlignment(slot, 8);
		/* A key symbol puts the entry in that symbol's comdat group. */
		key = LLVMGetNumOperands(entry) > 2 ? LLVMGetOperand(entry, 2) : NULL;
		if (key && LLVMIsAGlobalObject(key) && LLVMGetComdat(key))
			LLVMSetComdat(slot, LLVMGetComdat(key));
	}
	LLVMDeleteGlobal(list);
}

void ol_be_lower_structors(LLVMModuleRef mod)
{
	lower_structor_list(mod, "llvm.global_ctors", ".init_array");
	lower_structor_list(mod, "llvm.global_dtors", ".fini_array");
}
