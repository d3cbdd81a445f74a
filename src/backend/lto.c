/*
 * lto: full LTO of the bitcode images of one device link, the in-process step
 * clang-linker-wrapper 16 and 19 perform before the device link (spec 4.3):
 * link every module into one, internalize what no other input can see,
 * optimize with the LTO pipeline, then generate an object (PTX for NVPTX).
 *
 * Everything lives in one LLVMContext created for this call, so two device
 * links can run on two threads.
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Error.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "backend_impl.h"
#include "offload/strvec.h"   /* ol_starts_with (inline: no link to olcore) */

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names that must stay visible, sorted for bsearch. */
struct preserve_set {
	const char **names;
	size_t count;
};

static int preserve_set_init(struct preserve_set *set, const char *const *preserve)
{
	size_t n = 0;

	set->names = NULL;
	set->count = 0;
	if (!preserve)
		return 0;
	while (preserve[n])
		n++;
	if (n == 0)
		return 0;
	set->names = malloc(n * sizeof(*set->names));
	if (!set->names)
		return -1;
	memcpy(set->names, preserve, n * sizeof(*set->names));
	qsort(set->names, n, sizeof(*set->names), compare_strings);
	set->count = n;
	return 0;
}

static int preserve_set_has(const struct preserve_set *set, const char *name)
{
	return set->count &&
	       bsearch(&name, set->names, set->count, sizeof(*set->names), compare_strings);
}

/* Sections named like C identifiers get __start_/__stop_ symbols from the
 * linker; whatever lives in them is reached through those, not by name. */
static int is_c_identifier(const char *s)
{
	if (!s || !*s)
		return 0;
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* Mirrors the symbol resolution upstream hands to lto::LTO: a definition is
 * visible to the rest of the link when it is used by a non-bitcode input
 * (`preserve`), lives in a __start_/__stop_ section, or has default or
 * protected visibility (the CPU image is a shared object the runtime
 * searches by name, GPU kernels are protected).  Everything else is
 * internal, which lets GlobalDCE and the inliner do their work. */
static void internalize_one(LLVMValueRef gv, const struct preserve_set *preserve)
{
	size_t len = 0;
	const char *name = LLVMGetValueName2(gv, &len);
	const char *section;

	switch (LLVMGetLinkage(gv)) {
	case LLVMExternalLinkage:
	case LLVMLinkOnceAnyLinkage:
	case LLVMLinkOnceODRLinkage:
	case LLVMWeakAnyLinkage:
	case LLVMWeakODRLinkage:
	case LLVMCommonLinkage:
		break;
	default:
		/* Already local, appending (llvm.used & co), or not a
		 * definition for the linker. */
		return;
	}
	if (LLVMIsDeclaration(gv) || LLVMGetVisibility(gv) != LLVMHiddenVisibility)
		return;
	if (!name || len == 0 || (len >= 5 && memcmp(name, "llvm.", 5) == 0))
		return;
	if (preserve_set_has(preserve, name))
		return;
	section = LLVMIsAGlobalObject(gv) ? LLVMGetSection(gv) : NULL;
	if (is_c_identifier(section))
		return;
	LLVMSetLinkage(gv, LLVMInternalLinkage);
	LLVMSetVisibility(gv, LLVMDefaultVisibility);
}

/* clang 19 lists AMDGPU kernels in !nvvm.annotations; LLVM 22's bitcode reader
 * upgrades those to the ptx_kernel calling convention even in amdgcn modules,
 * and AMDGPU codegen then aborts.  They are AMDGPU kernels: say so. */
enum { CC_PTX_KERNEL = 71, CC_AMDGPU_KERNEL = 91 };

static void fix_amdgpu_kernel_calling_convention(LLVMModuleRef mod)
{
	for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn))
		if (LLVMGetFunctionCallConv(fn) == CC_PTX_KERNEL)
			LLVMSetFunctionCallConv(fn, CC_AMDGPU_KERNEL);
}

static void internalize(LLVMModuleRef mod, const struct preserve_set *preserve)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
		internalize_one(f, preserve);
	for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
		internalize_one(g, preserve);
	for (LLVMValueRef a = LLVMGetFirstGlobalAlias(mod); a; a = LLVMGetNextGlobalAlias(a))
		internalize_one(a, preserve);
}

static LLVMCodeGenOptLevel codegen_level(int opt_level)
{
	switch (opt_level) {
	case 0:
		return LLVMCodeGenLevelNone;
	case 1:
		return LLVMCodeGenLevelLess;
	case 3:
		return LLVMCodeGenLevelAggressive;
	default:
		return LLVMCodeGenLevelDefault;
	}
}

static int save_bitcode(LLVMModuleRef mod, const char *prefix, const char *suffix, char **err)
{
	size_t n = strlen(prefix) + strlen(suffix) + 1;
	char *path = malloc(n);
	int rc = 0;

	if (!path)
		return ol_be_fail(err, "out of memory");
	memcpy(path, prefix, strlen(prefix));
	memcpy(path + strlen(prefix), suffix, strlen(suffix) + 1);
	if (LLVMWriteBitcodeToFile(mod, path))
		rc = ol_be_fail(err, "cannot write '%s'", path);
	free(path);
	return rc;
}

static void phase(const struct ol_lto_request *req, const char *name, int begin)
{
	if (req->phase)
		req->phase(name, begin);
}

static LLVMModuleRef parse_module(LLVMContextRef ctx, struct ol_be_diag *diag,
				  const struct ol_lto_request *req, size_t i, char **err)
{
	const char *name = req->names && req->names[i] ? req->names[i] : "bitcode";
	LLVMMemoryBufferRef buf;
	LLVMModuleRef mod = NULL;
	LLVMBool failed;

	buf = LLVMCreateMemoryBufferWithMemoryRange((const char *)req->modules[i],
						    req->sizes[i], name, 0);
	if (!buf) {
		ol_be_fail(err, "out of memory");
		return NULL;
	}
	diag->module = name;
	/* A full parse: the optimizer needs every body, and the module does
	 * not keep pointers into the buffer afterwards. */
	failed = LLVMParseBitcodeInContext2(ctx, buf, &mod);
	LLVMDisposeMemoryBuffer(buf);
	if (failed || !mod) {
		ol_be_msg_fail(&diag->errors, err, "invalid bitcode");
		return NULL;
	}
	return mod;
}

/* Links every input into the first one; NULL with *err on failure. */
static LLVMModuleRef link_inputs(LLVMContextRef ctx, struct ol_be_diag *diag,
				 const struct ol_lto_request *req, char **err)
{
	LLVMModuleRef dest = parse_module(ctx, diag, req, 0, err);

	for (size_t i = 1; dest && i < req->nmodules; i++) {
		LLVMModuleRef src = parse_module(ctx, diag, req, i, err);

		if (!src) {
			LLVMDisposeModule(dest);
			return NULL;
		}
		/* LLVMLinkModules2 destroys src, also on failure; conflicts
		 * (e.g. two strong definitions) come through the handler. */
		if (LLVMLinkModules2(dest, src)) {
			ol_be_msg_fail(&diag->errors, err, "linking bitcode modules failed");
			LLVMDisposeModule(dest);
			return NULL;
		}
	}
	diag->module = NULL;
	return dest;
}

static int optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm,
		    const struct ol_lto_request *req, struct ol_be_diag *diag, char **err)
{
	static const char *const pipelines[] = {"lto<O0>", "lto<O1>", "lto<O2>", "lto<O3>"};
	int level = req->opt_level < 0 ? 0 : req->opt_level > 3 ? 3 : req->opt_level;
	LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
	LLVMErrorRef e;

	/* buildLTODefaultPipeline, as lto::LTO runs for full-LTO modules;
	 * at O0 it still runs the passes the LTO ABI needs. */
	LLVMPassBuilderOptionsSetLoopVectorization(options, level > 1);
	LLVMPassBuilderOptionsSetSLPVectorization(options, level > 1);
	e = LLVMRunPasses(mod, pipelines[level], tm, options);
	LLVMDisposePassBuilderOptions(options);
	if (e)
		return ol_be_fail_llvm_error(err, e, "LTO pipeline");
	if (diag->nerrors)
		return ol_be_msg_fail(&diag->errors, err, "errors encountered inside the LTO pipeline");
	return 0;
}

/* CPU targets whose constructors clang would put in .init_array
 * (-fuse-init-array).  GPU back ends lower llvm.global_ctors themselves
 * (AMDGPU into kernels the runtime calls), so the list must stay. */
static int uses_init_array(const char *triple)
{
	static const char *const gpu_prefixes[] = {"amdgcn", "nvptx", "spirv", "r600"};

	for (size_t i = 0; i < sizeof(gpu_prefixes) / sizeof(gpu_prefixes[0]); i++)
		if (ol_starts_with(triple, gpu_prefixes[i]))
			return 0;
	return ol_be_object_format(triple) == OL_BE_ELF;
}

/* Target-id features (gfx90a:xnack+) are not part of the processor name. */
static char *processor_of(const char *cpu)
{
	const char *colon;

	if (!cpu)
		return ol_be_strdup("");
	colon = strchr(cpu, ':');
	return colon ? ol_be_strndup(cpu, (size_t)(colon - cpu)) : ol_be_strdup(cpu);
}

static int lto_module(LLVMModuleRef mod, struct ol_be_diag *diag,
		      const struct ol_lto_request *req, struct ol_buffer *out, char **err)
{
	struct preserve_set preserve;
	LLVMTargetMachineRef tm;
	char *cpu;
	int rc;

	if (req->save_temps_prefix && save_bitcode(mod, req->save_temps_prefix, ".postlink.bc", err))
		return -1;
	if (preserve_set_init(&preserve, req->preserve))
		return ol_be_fail(err, "out of memory");
	internalize(mod, &preserve);
	if (strncmp(req->triple, "amdgcn", 6) == 0)
		fix_amdgpu_kernel_calling_convention(mod);
	free(preserve.names);

	cpu = processor_of(req->cpu);
	if (!cpu)
		return ol_be_fail(err, "out of memory");
	tm = ol_be_target_machine(req->triple, cpu, req->features,
				  codegen_level(req->opt_level), err);
	free(cpu);
	if (!tm)
		return -1;
	if (!*LLVMGetTarget(mod))
		LLVMSetTarget(mod, req->triple);
	if (!*LLVMGetDataLayoutStr(mod)) {
		LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);

		LLVMSetModuleDataLayout(mod, layout);
		LLVMDisposeTargetData(layout);
	}
	phase(req, "Optimize", 1);
	rc = optimize(mod, tm, req, diag, err);
	phase(req, "Optimize", 0);
	if (rc == 0 && req->save_temps_prefix)
		rc = save_bitcode(mod, req->save_temps_prefix, ".postopt.bc", err);
	if (rc == 0 && req->emit_bitcode) {
		LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(mod);
		size_t size = LLVMGetBufferSize(bc);

		out->data = malloc(size ? size : 1);
		if (out->data) {
			memcpy(out->data, LLVMGetBufferStart(bc), size);
			out->size = size;
		} else {
			rc = ol_be_fail(err, "out of memory");
		}
		LLVMDisposeMemoryBuffer(bc);
		LLVMDisposeTargetMachine(tm);
		return rc;
	}
	if (rc == 0 && uses_init_array(req->triple))
		ol_be_lower_structors(mod);
	if (rc == 0) {
		phase(req, "Code generation", 1);
		rc = ol_be_emit(tm, mod, req->emit_assembly ? LLVMAssemblyFile : LLVMObjectFile,
				out, err);
		phase(req, "Code generation", 0);
	}
	if (rc == 0 && diag->nerrors) {
		free(out->data);
		out->data = NULL;
		out->size = 0;
		rc = ol_be_msg_fail(&diag->errors, err, "code generation failed");
	}
	LLVMDisposeTargetMachine(tm);
	return rc;
}

int ol_be_lto(const struct ol_lto_request *req, struct ol_buffer *out, char **err)
{
	struct ol_be_diag diag;
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	int rc;

	out->data = NULL;
	out->size = 0;
	if (!req || !req->triple || req->nmodules == 0 || !req->modules || !req->sizes)
		return ol_be_fail(err, "LTO request without a triple or modules");
	ctx = ol_be_context_create(&diag);
	phase(req, "Link bitcode", 1);
	mod = link_inputs(ctx, &diag, req, err);
	phase(req, "Link bitcode", 0);
	if (!mod) {
		ol_be_msg_release(&diag.errors);
		LLVMContextDispose(ctx);
		return -1;
	}
	rc = lto_module(mod, &diag, req, out, err);
	LLVMDisposeModule(mod);
	ol_be_msg_release(&diag.errors);
	LLVMContextDispose(ctx);
	return rc;
}
