/*
 * lto: full LTO of the bitcode images of one device link, the in-process step
 * clang-linker-wrapper 16 and 19 perform before the device link (spec 4.3):
 * link every module into one, internalize what no other input can see,
 * optimize with the LTO pipeline, then generate an object (PTX for NVPTX).
 *
 * Everything lives in one LLVMContext created for this call, so two device
 * links can run on two threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Error.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "backend_impl.h"
#include "offload/hashtab.h"  /* compiled into the backend (CMakeLists.txt) */
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
	if (ol_be_save_bitcode_ordered(mod, path) < 0)
		rc = ol_be_fail(err, "cannot write '%s'", path);
	free(path);
	return rc;
}

static void phase(const struct ol_lto_request *req, const char *name, int begin)
{
	if (req->phase)
		req->phase(name, begin);
}

static LLVMModuleRef parse_buffer(LLVMContextRef ctx, struct ol_be_diag *diag,
				  const uint8_t *data, size_t size, const char *name, char **err)
{
	LLVMMemoryBufferRef buf;
	LLVMModuleRef mod = NULL;
	LLVMBool failed;

	buf = LLVMCreateMemoryBufferWithMemoryRange((const char *)data, size, name, 0);
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

static LLVMModuleRef parse_module(LLVMContextRef ctx, struct ol_be_diag *diag,
				  const struct ol_lto_request *req, size_t i, char **err)
{
	const char *name = req->names && req->names[i] ? req->names[i] : "bitcode";

	return parse_buffer(ctx, diag, req->modules[i], req->sizes[i], name, err);
}

/*
 * The names of the strong definitions linked so far.  lto::LTO (16, 19)
 * lets the first definition of a symbol prevail and drops the others
 * (spec 4.3); the IR linker would instead fail on a second strong
 * definition, as 22's device linker (ld.lld) does.  Weak, linkonce and common definitions need nothing: the IR
 * linker already prefers a strong definition and keeps the first of equals.
 */
struct name_set {
	struct ol_hashtab table;       /* of struct name_slot */
};

struct name_slot {
	char *name;                    /* malloc'd, NUL-terminated */
	size_t len;
};

struct name_key {
	const char *name;
	size_t len;
};

static int slot_names(const void *record, const void *key)
{
	const struct name_slot *slot = record;
	const struct name_key *k = key;

	return slot->len == k->len && memcmp(slot->name, k->name, k->len) == 0;
}

/* 1: added; 0: already there; -1: out of memory. */
static int name_set_add(struct name_set *set, const char *name, size_t len)
{
	struct name_key key = { name, len };
	uint64_t hash = ol_hash_bytes(OL_HASH_SEED, name, len);
	struct name_slot *slot;
	char *copy;
	int added;

	if (ol_hashtab_find(&set->table, hash, slot_names, &key))
		return 0;
	copy = ol_be_strndup(name, len);
	slot = copy ? ol_hashtab_try_insert(&set->table, hash, slot_names, &key, &added) : NULL;
	if (!slot) {
		free(copy);
		return -1;
	}
	slot->name = copy;
	slot->len = len;
	return 1;
}

static void name_set_release(struct name_set *set)
{
	for (size_t i = 0; i < set->table.cap; i++)
		if (set->table.hashes[i])
			free(((struct name_slot *)(set->table.records +
						   i * set->table.record_size))->name);
	ol_hashtab_release(&set->table);
}

/* A definition that loses to an earlier one becomes a declaration, as
 * lto::LTO drops a non-prevailing definition; the IR linker then binds its
 * uses to the prevailing one.  The C API cannot strip a body, so a fresh
 * declaration of the same type takes the definition's uses and name. */
static void drop_definition(LLVMModuleRef mod, LLVMValueRef gv, const char *name, size_t len)
{
	LLVMTypeRef type = LLVMGlobalGetValueType(gv);
	LLVMValueRef decl;

	if (LLVMIsAFunction(gv)) {
		decl = LLVMAddFunction(mod, "", type);
		LLVMSetFunctionCallConv(decl, LLVMGetFunctionCallConv(gv));
	} else {
		decl = LLVMAddGlobalInAddressSpace(mod, type, "",
						   LLVMGetPointerAddressSpace(LLVMTypeOf(gv)));
		LLVMSetThreadLocal(decl, LLVMIsThreadLocal(gv));
		LLVMSetGlobalConstant(decl, LLVMIsGlobalConstant(gv));
	}
	LLVMReplaceAllUsesWith(gv, decl);
	if (LLVMIsAFunction(gv))
		LLVMDeleteFunction(gv);
	else
		LLVMDeleteGlobal(gv);
	LLVMSetValueName2(decl, name, len);
}

/* Registers the module's strong definitions and drops the ones already
 * defined by an earlier module.  Aliases are left alone (the C API cannot
 * turn an alias into a declaration); a duplicate one still fails the link. */
static int keep_first_definitions(LLVMModuleRef mod, struct name_set *defined, char **err)
{
	LLVMValueRef next;
	char *name_copy;

	for (int pass = 0; pass < 2; pass++) {
		LLVMValueRef gv = pass == 0 ? LLVMGetFirstFunction(mod) : LLVMGetFirstGlobal(mod);

		for (; gv; gv = next) {
			size_t len = 0;
			const char *name = LLVMGetValueName2(gv, &len);
			int added;

			next = pass == 0 ? LLVMGetNextFunction(gv) : LLVMGetNextGlobal(gv);
			if (LLVMIsDeclaration(gv) || LLVMGetLinkage(gv) != LLVMExternalLinkage || !len)
				continue;
			added = name_set_add(defined, name, len);
			if (added < 0)
				return ol_be_fail(err, "out of memory");
			if (added > 0)
				continue;
			/* The name must outlive the definition it belongs to. */
			name_copy = ol_be_strndup(name, len);
			if (!name_copy)
				return ol_be_fail(err, "out of memory");
			drop_definition(mod, gv, name_copy, len);
			free(name_copy);
		}
	}
	return 0;
}

/* Split mode: every definition of module `unit` carries !ol.unit !{i32
 * unit}, which the IR linker keeps, so that the partitioner knows where
 * each definition of the merged module came from. */
static void tag_unit(LLVMModuleRef mod, size_t unit)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	unsigned kind = LLVMGetMDKindIDInContext(ctx, OL_BE_UNIT_MD, (unsigned)strlen(OL_BE_UNIT_MD));
	LLVMMetadataRef value =
		LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), unit, 0));
	LLVMMetadataRef node = LLVMMDNodeInContext2(ctx, &value, 1);

	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			LLVMGlobalSetMetadata(f, kind, node);
	for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g))
			LLVMGlobalSetMetadata(g, kind, node);
}

/* After the parse: the first definition prevails (16, 19), and in split mode
 * the definitions are tagged with their module. */
static int prepare_input(LLVMModuleRef mod, const struct ol_lto_request *req, size_t index,
			 struct name_set *defined, char **err)
{
	if (req->first_definition_prevails && req->mode != OL_LTO_CODEGEN_ONLY &&
	    keep_first_definitions(mod, defined, err))
		return -1;
	if (req->module_partition)
		tag_unit(mod, index);
	return 0;
}

/*
 * Modules [first, end) parsed and linked into the first of them, in order;
 * NULL on failure (reported into *err, the modules freed).
 */
static LLVMModuleRef link_run(LLVMContextRef ctx, struct ol_be_diag *diag,
			      const struct ol_lto_request *req, size_t first, size_t end,
			      struct name_set *defined, char **err)
{
	struct ol_be_module_linker *linker = NULL;
	LLVMModuleRef dest = parse_module(ctx, diag, req, first, err);
	int failed = !dest || prepare_input(dest, req, first, defined, err);

	if (!failed && end - first > 1 && !(linker = ol_be_module_linker_create(dest)))
		failed = ol_be_fail(err, "out of memory");
	for (size_t i = first + 1; !failed && i < end; i++) {
		LLVMModuleRef src = parse_module(ctx, diag, req, i, err);

		if (!src || prepare_input(src, req, i, defined, err)) {
			if (src)
				LLVMDisposeModule(src);
			failed = 1;
		/* The linker consumes src, also on failure; conflicts (e.g. two
		 * strong definitions) come through the handler. */
		} else if (ol_be_module_linker_add(linker, src)) {
			failed = ol_be_msg_fail(&diag->errors, err, "linking bitcode modules failed");
		}
	}
	/* The linker first: it refers to the destination's types. */
	ol_be_module_linker_free(linker);
	if (failed && dest) {
		LLVMDisposeModule(dest);
		dest = NULL;
	}
	return dest;
}

/*
 * The inputs linked into one module, in order.  LLVM's ModuleLinker walks
 * every global of the destination for each module it links in (to drop
 * replaced comdats), so linking N modules one after the other costs N
 * times the growing program: 3000 heavy units took 6.5 s, 1000 took 0.7 s.
 * Runs of about sqrt(N) modules are linked first, each into its first
 * module, and then the runs' modules into the first run's, in order: the
 * same definitions prevail, the walks cost N^1.5.
 */
static LLVMModuleRef link_inputs(LLVMContextRef ctx, struct ol_be_diag *diag,
				 const struct ol_lto_request *req, char **err)
{
	struct name_set defined = { OL_HASHTAB_INIT(struct name_slot) };
	struct ol_be_module_linker *linker = NULL;
	size_t run = 16, n = req->nmodules;
	LLVMModuleRef dest;
	int failed;

	while (run * run < n)
		run *= 2;
	dest = link_run(ctx, diag, req, 0, n < run ? n : run, &defined, err);
	failed = !dest;
	if (!failed && n > run && !(linker = ol_be_module_linker_create(dest)))
		failed = ol_be_fail(err, "out of memory");
	for (size_t first = run; !failed && first < n; first += run) {
		LLVMModuleRef src = link_run(ctx, diag, req, first, n - first < run ? n : first + run,
					     &defined, err);

		if (!src)
			failed = 1;
		else if (ol_be_module_linker_add(linker, src))
			failed = ol_be_msg_fail(&diag->errors, err, "linking bitcode modules failed");
	}
	ol_be_module_linker_free(linker);
	name_set_release(&defined);
	if (failed) {
		if (dest)
			LLVMDisposeModule(dest);
		return NULL;
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

/* --builtin-bitcode: each library's definitions the module uses, made
 * internal (builtin_bitcode.cpp), then the module optimized again, as
 * upstream 19's device clang does with -mlink-builtin-bitcode at -O<n>. */
static int link_builtins(LLVMModuleRef mod, LLVMTargetMachineRef tm,
			 const struct ol_lto_request *req, struct ol_be_diag *diag,
			 struct ol_be_table_guard *guard, char **err)
{
	char pipeline[16];
	LLVMPassBuilderOptionsRef options;
	LLVMErrorRef e;
	int level = req->opt_level < 0 ? 0 : req->opt_level > 3 ? 3 : req->opt_level;

	for (size_t i = 0; i < req->nbuiltins; i++) {
		const char *name = req->builtin_names ? req->builtin_names[i] : "builtin bitcode";
		LLVMModuleRef lib = parse_buffer(LLVMGetModuleContext(mod), diag, req->builtins[i],
						 req->builtin_sizes[i], name, err);

		if (!lib)
			return -1;
		if (ol_be_link_builtin(mod, lib) != 0 || diag->nerrors) {
			diag->module = NULL;
			return ol_be_msg_fail(&diag->errors, err, "cannot link builtin bitcode");
		}
		diag->module = NULL;
	}
	/* The libraries' tables meet the same Attributor in this pipeline. */
	if (ol_be_guard_tables(mod, req, guard) != 0)
		return ol_be_fail(err, "out of memory");
	snprintf(pipeline, sizeof(pipeline), "default<O%d>", level);
	options = LLVMCreatePassBuilderOptions();
	LLVMPassBuilderOptionsSetLoopVectorization(options, level > 1);
	LLVMPassBuilderOptionsSetSLPVectorization(options, level > 1);
	e = LLVMRunPasses(mod, pipeline, tm, options);
	LLVMDisposePassBuilderOptions(options);
	if (e)
		return ol_be_fail_llvm_error(err, e, "optimizing with the builtin bitcode");
	return diag->nerrors ? ol_be_msg_fail(&diag->errors, err,
					      "errors encountered optimizing with the builtin bitcode")
			     : 0;
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

/* Targets whose printer orders global variables itself, through sets of
 * pointers (NVPTX, for PTX's lack of forward references): their module
 * gets a fixed order first (ol_be_order_globals_by_use). */
static int orders_globals_by_use(const char *triple)
{
	static const char *const prefixes[] = {"nvptx"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (ol_starts_with(triple, prefixes[i]))
			return 1;
	return 0;
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

int ol_be_close_module(LLVMModuleRef mod, const struct ol_lto_request *req, char **err)
{
	struct preserve_set preserve;

	if (preserve_set_init(&preserve, req->preserve))
		return ol_be_fail(err, "out of memory");
	internalize(mod, &preserve);
	if (strncmp(req->triple, "amdgcn", 6) == 0)
		fix_amdgpu_kernel_calling_convention(mod);
	free(preserve.names);
	return 0;
}

static int lto_module(LLVMModuleRef mod, struct ol_be_diag *diag,
		      const struct ol_lto_request *req, struct ol_buffer *out, char **err)
{
	struct ol_be_table_guard guard = {0};
	LLVMTargetMachineRef tm;
	char *cpu;
	int rc = 0;

	if (req->save_temps_prefix && save_bitcode(mod, req->save_temps_prefix, ".postlink.bc", err))
		return -1;
	/* A partition's linkage was decided when the merged module was split. */
	if (req->mode == OL_LTO_WHOLE && ol_be_close_module(mod, req, err))
		return -1;

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
	if (req->mode != OL_LTO_CODEGEN_ONLY) {
		if (ol_be_guard_tables(mod, req, &guard) != 0)
			rc = ol_be_fail(err, "out of memory");
		phase(req, "Optimize", 1);
		if (rc == 0)
			rc = optimize(mod, tm, req, diag, err);
		phase(req, "Optimize", 0);
	}
	if (rc == 0 && req->nbuiltins && req->mode != OL_LTO_CODEGEN_ONLY) {
		phase(req, "Link builtin bitcode", 1);
		rc = link_builtins(mod, tm, req, diag, &guard, err);
		phase(req, "Link builtin bitcode", 0);
	}
	if (rc == 0)
		rc = ol_be_guard_release(mod, tm, &guard, err);
	ol_be_guard_free(&guard);
	if (rc == 0 && req->save_temps_prefix)
		rc = save_bitcode(mod, req->save_temps_prefix, ".postopt.bc", err);
	if (rc == 0 && req->emit_bitcode) {
		rc = ol_be_write_bitcode(mod, out, err);
		LLVMDisposeTargetMachine(tm);
		return rc;
	}
	if (rc == 0 && uses_init_array(req->triple))
		ol_be_lower_structors(mod);
	if (rc == 0 && orders_globals_by_use(req->triple))
		ol_be_order_globals_by_use(mod);
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

LLVMModuleRef ol_be_link_request(const struct ol_lto_request *req, struct ol_be_diag *diag,
				 struct ol_buffer *remarks, char **err)
{
	LLVMContextRef ctx = ol_be_context_create(diag);
	LLVMModuleRef mod;

	if (remarks && ol_remarks_wanted(&req->remarks))
		ol_be_remarks_attach(ctx, ol_be_diag_handler, diag, &req->remarks, remarks);

	/* As lto::LTO does by default: local value names cost memory and time in
	 * every pass and mean nothing to the object; --save-temps keeps them so
	 * that the saved modules stay readable. */
	if (!req->save_temps_prefix)
		LLVMContextSetDiscardValueNames(ctx, 1);
	phase(req, "Link bitcode", 1);
	mod = link_inputs(ctx, diag, req, err);
	phase(req, "Link bitcode", 0);
	if (!mod) {
		ol_be_msg_release(&diag->errors);
		LLVMContextDispose(ctx);
	}
	return mod;
}

void ol_be_link_request_end(LLVMModuleRef mod, struct ol_be_diag *diag)
{
	LLVMContextRef ctx = LLVMGetModuleContext(mod);

	LLVMDisposeModule(mod);
	ol_be_msg_release(&diag->errors);
	LLVMContextDispose(ctx);
}

static struct kept_module {
	LLVMModuleRef mod;
	struct kept_module *next;
} *kept_modules;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

void ol_be_link_request_keep(LLVMModuleRef mod, struct ol_be_diag *diag)
{
	struct kept_module *k = malloc(sizeof(*k));

	if (!k) {
		ol_be_link_request_end(mod, diag);
		return;
	}
	/* diag lives on the caller's stack: nothing may report to it now. */
	LLVMContextSetDiagnosticHandler(LLVMGetModuleContext(mod), NULL, NULL);
	ol_be_msg_release(&diag->errors);
	k->mod = mod;
	pthread_mutex_lock(&kept_lock);
	k->next = kept_modules;
	kept_modules = k;
	pthread_mutex_unlock(&kept_lock);
}

/* A partition split() made is checked here, before it is optimized, and
 * not when it is made: a relink takes most partitions from the cache, and
 * one whose bytes are in the cache passed this check when it was built.
 * The verifier is the costliest part of a split under -g (it walks all the
 * debug info).  2: not valid IR, the splitter's mistake (the caller links
 * the group whole). */
static int verify_partition(LLVMModuleRef mod, char **err)
{
	char *broken = NULL;
	int rc = 0;

	if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &broken)) {
		ol_be_fail(err, "a partition is not valid IR (%s)", broken ? broken : "");
		rc = 2;
	}
	LLVMDisposeMessage(broken);
	return rc;
}

int ol_be_lto(const struct ol_lto_request *req, struct ol_buffer *out, struct ol_buffer *remarks,
	      char **err)
{
	struct ol_be_diag diag;
	LLVMModuleRef mod;
	int rc;

	out->data = NULL;
	out->size = 0;
	remarks->data = NULL;
	remarks->size = 0;
	if (!req || !req->triple || req->nmodules == 0 || !req->modules || !req->sizes)
		return ol_be_fail(err, "LTO request without a triple or modules");
	mod = ol_be_link_request(req, &diag, remarks, err);
	if (!mod)
		return -1;
	rc = 0;
	/* The merged module's use-list order, which the split recorded. */
	if (req->mode == OL_LTO_PARTITION && ol_be_apply_use_order(mod) < 0) {
		ol_be_fail(err, "a partition's use-list order is malformed");
		rc = 2;
	}
	if (rc == 0 && req->mode == OL_LTO_PARTITION)
		rc = verify_partition(mod, err);
	if (rc == 0)
		rc = lto_module(mod, &diag, req, out, err);
	ol_be_link_request_end(mod, &diag);
	return rc;
}
