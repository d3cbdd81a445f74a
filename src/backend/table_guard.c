/*
 * table_guard: keeps OpenMPOpt's Attributor from folding a read of a table
 * to the wrong element (docs/design/table-guard.md).
 *
 * In an OpenMP device module, OpenMPOpt runs the Attributor over the whole
 * program before anything is inlined.  When a load's pointer may be one of
 * several offsets into a global the Attributor believes it sees every use
 * of (an index that is 0 or 1, `c ? &t[1] : &t[0]`, or `&t[1]` and `&t[0]`
 * handed to one function), it reads the initializer at one of them for
 * all: LLVM 19 at the lowest offset of the range they span, LLVM 22 still
 * for pointers that reach a function through its arguments.  Every such
 * load then gets the same element.  Upstream's links do the same.
 *
 * A global listed in llvm.compiler.used may be used from outside the IR, so
 * the Attributor no longer reads its initializer for a load; loads at
 * constant offsets of a constant table still fold later (InstCombine reads
 * the initializer of any constant).  After the optimization the tables are
 * taken off the list; those nothing reads any more are deleted (GlobalDCE)
 * and equal constants merged (ConstantMerge), as the pipeline would have
 * done, and the others are listed again for code generation.  What is left
 * of the cost: a mutable table nothing writes is not made constant.
 *
 * Guarded: definitions the Attributor would read (local linkage, or
 * constants no other definition can replace) whose value type holds an
 * array (strings and tables, and structures holding one) and whose
 * initializer is not one value repeated (zeros, undef: every offset reads
 * the same, so no element can be wrong).  The device runtime's structures
 * of settings (kernel environments, grid values) hold no array and stay as
 * OpenMPOpt needs them; shared memory has no initializer.  LLVM 16 reads
 * only exact offsets and needs no guard.
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Transforms/PassBuilder.h>

#include "backend_impl.h"

/* The releases whose OpenMPOpt reads a table at the wrong offset: every
 * one the backend is built against since 17 (16 is right, 19 and 22 wrong;
 * the ones between are not supported builds and are assumed wrong). */
#define OL_BE_TABLE_GUARD (OL_LLVM_MAJOR >= 17)

static int holds_array(LLVMTypeRef type)
{
	switch (LLVMGetTypeKind(type)) {
	case LLVMArrayTypeKind:
	case LLVMVectorTypeKind:
		return 1;
	case LLVMStructTypeKind: {
		unsigned n = LLVMCountStructElementTypes(type);

		for (unsigned i = 0; i < n; i++)
			if (holds_array(LLVMStructGetTypeAtIndex(type, i)))
				return 1;
		return 0;
	}
	default:
		return 0;
	}
}

/* Whether the Attributor takes this global's initializer as its contents:
 * its own (local linkage), or one no other definition replaces. */
static int contents_are_known(LLVMValueRef gv)
{
	switch (LLVMGetLinkage(gv)) {
	case LLVMInternalLinkage:
	case LLVMPrivateLinkage:
		return 1;
	case LLVMExternalLinkage:
	case LLVMAvailableExternallyLinkage:
	case LLVMLinkOnceODRLinkage:
	case LLVMWeakODRLinkage:
		return LLVMIsGlobalConstant(gv);
	default:
		return 0;
	}
}

/* One value repeated: every offset reads the same. */
static int is_uniform(LLVMValueRef init)
{
	return LLVMIsNull(init) || LLVMIsUndef(init);
}

static int needs_guard(LLVMValueRef gv)
{
	size_t len = 0;
	LLVMValueRef init;

	/* llvm.used, llvm.global_ctors and the like are the IR's own lists. */
	if (LLVMIsDeclaration(gv) || LLVMIsThreadLocal(gv) || !contents_are_known(gv) ||
	    strncmp(LLVMGetValueName2(gv, &len), "llvm.", 5) == 0)
		return 0;
	init = LLVMGetInitializer(gv);
	return init && !is_uniform(init) && holds_array(LLVMGlobalGetValueType(gv));
}

static int has_name(LLVMValueRef gv)
{
	size_t len = 0;

	LLVMGetValueName2(gv, &len);
	return len != 0;
}

static int is_openmp_device(LLVMModuleRef mod)
{
	static const char flag[] = "openmp-device";

	return LLVMGetModuleFlag(mod, flag, sizeof(flag) - 1) != NULL;
}

static int remember(struct ol_be_table_guard *guard, LLVMValueRef gv)
{
	size_t len = 0;
	const char *name = LLVMGetValueName2(gv, &len);
	char **names = ol_be_grow(guard->names, &guard->capacity, guard->count,
				  sizeof(*names), 64);
	char *copy;

	if (!names)
		return -1;
	guard->names = names;
	copy = ol_be_strndup(name, len);
	if (!copy)
		return -1;
	guard->names[guard->count++] = copy;
	return 0;
}

/* The globals the guard listed that the module still has. */
static LLVMValueRef *guarded_globals(LLVMModuleRef mod, const struct ol_be_table_guard *guard,
				     size_t *n)
{
	LLVMValueRef *values = malloc((guard->count ? guard->count : 1) * sizeof(*values));

	*n = 0;
	if (!values)
		return NULL;
	for (size_t i = 0; i < guard->count; i++) {
		LLVMValueRef gv = LLVMGetNamedGlobal(mod, guard->names[i]);

		if (gv)
			values[(*n)++] = gv;
	}
	return values;
}

int ol_be_guard_tables(LLVMModuleRef mod, const struct ol_lto_request *req,
		       struct ol_be_table_guard *guard)
{
	LLVMValueRef *tables = NULL;
	size_t n = 0, capacity = 0;
	int rc = 0;

	/* Only the optimizing pipelines run OpenMPOpt. */
	if (!OL_BE_TABLE_GUARD || req->opt_level <= 0 || !is_openmp_device(mod))
		return 0;
	for (LLVMValueRef gv = LLVMGetFirstGlobal(mod); gv && rc == 0; gv = LLVMGetNextGlobal(gv)) {
		LLVMValueRef *more;

		if (!needs_guard(gv))
			continue;
		more = ol_be_grow(tables, &capacity, n, sizeof(*tables), 64);
		if (!more) {
			rc = -1;
			break;
		}
		tables = more;
		/* A list member must have a name; an unnamed private
		 * constant gets one (it names no symbol). */
		if (!has_name(gv))
			LLVMSetValueName2(gv, ".ol.table", 9);
		tables[n++] = gv;
		rc = remember(guard, gv);
	}
	if (rc == 0)
		rc = ol_be_compiler_used_add(mod, tables, n);
	free(tables);
	return rc;
}

int ol_be_guard_release(LLVMModuleRef mod, LLVMTargetMachineRef tm,
			struct ol_be_table_guard *guard, char **err)
{
	LLVMPassBuilderOptionsRef options;
	LLVMValueRef *tables;
	LLVMErrorRef e;
	size_t n;
	int rc;

	if (guard->count == 0)
		return 0;
	tables = guarded_globals(mod, guard, &n);
	if (!tables || ol_be_compiler_used_remove(mod, tables, n) != 0) {
		free(tables);
		return ol_be_fail(err, "out of memory");
	}
	free(tables);
	options = LLVMCreatePassBuilderOptions();
	e = LLVMRunPasses(mod, "globaldce,constmerge", tm, options);
	LLVMDisposePassBuilderOptions(options);
	if (e)
		return ol_be_fail_llvm_error(err, e, "removing the tables nothing reads");
	/* What is still read stays listed through code generation: the
	 * definitions (an import the pipeline turned into a declaration is
	 * another partition's to keep). */
	tables = guarded_globals(mod, guard, &n);
	if (tables) {
		size_t kept = 0;

		for (size_t i = 0; i < n; i++)
			if (!LLVMIsDeclaration(tables[i]))
				tables[kept++] = tables[i];
		n = kept;
	}
	rc = tables ? ol_be_compiler_used_add(mod, tables, n) : -1;
	free(tables);
	return rc == 0 ? 0 : ol_be_fail(err, "out of memory");
}

void ol_be_guard_free(struct ol_be_table_guard *guard)
{
	for (size_t i = 0; i < guard->count; i++)
		free(guard->names[i]);
	free(guard->names);
	guard->names = NULL;
	guard->count = guard->capacity = 0;
}
