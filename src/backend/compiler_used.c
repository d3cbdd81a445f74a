/*
 * compiler_used: adding globals to a module's llvm.compiler.used, the list
 * of what the optimizer must keep and treat as used from outside the IR,
 * and taking them off.  The registration module lists its section dummy, a
 * partition what full LTO sees escape, the table guard the tables it
 * protects while the module is optimized.
 */
#include <stdlib.h>

#include "backend_impl.h"

/* Whether `value` is in the list's `n` entries, as itself or cast (a global
 * of another address space is listed through an addrspacecast). */
static int listed(const LLVMValueRef *list, size_t n, LLVMValueRef value)
{
	for (size_t k = 0; k < n; k++)
		if (list[k] == value ||
		    (LLVMIsAConstantExpr(list[k]) && LLVMGetOperand(list[k], 0) == value))
			return 1;
	return 0;
}

/* The list's members, in order, into a malloc'd array with room for
 * `extra` more; NULL when out of memory. */
static LLVMValueRef *members(LLVMModuleRef mod, size_t extra, size_t *n)
{
	LLVMValueRef old = LLVMGetNamedGlobal(mod, "llvm.compiler.used");
	LLVMValueRef init = old ? LLVMGetInitializer(old) : NULL, *list;

	*n = init && LLVMIsAConstantArray(init) ? (size_t)LLVMGetNumOperands(init) : 0;
	list = malloc((*n + extra ? *n + extra : 1) * sizeof(*list));
	if (list)
		for (size_t k = 0; k < *n; k++)
			list[k] = LLVMGetOperand(init, (unsigned)k);
	return list;
}

/* The module's list becomes list[0..n) (none when n is 0). */
static void replace(LLVMModuleRef mod, const LLVMValueRef *list, size_t n)
{
	LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(mod), 0);
	LLVMValueRef old = LLVMGetNamedGlobal(mod, "llvm.compiler.used"), array;

	if (old) {
		LLVMSetValueName2(old, "", 0);
		LLVMDeleteGlobal(old);
	}
	if (n == 0)
		return;
	array = LLVMAddGlobal(mod, LLVMArrayType2(ptr, n), "llvm.compiler.used");
	LLVMSetInitializer(array, LLVMConstArray2(ptr, (LLVMValueRef *)list, n));
	LLVMSetLinkage(array, LLVMAppendingLinkage);
	LLVMSetSection(array, "llvm.metadata");
}

int ol_be_compiler_used_add(LLVMModuleRef mod, const LLVMValueRef *values, size_t n)
{
	LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(mod), 0);
	size_t nold, count;
	LLVMValueRef *list;

	if (n == 0)
		return 0;
	list = members(mod, n, &nold);
	if (!list)
		return -1;
	count = nold;
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;

		/* The verifier wants every member named. */
		LLVMGetValueName2(values[i], &len);
		if (len == 0 || listed(list, count, values[i]))
			continue;
		list[count++] = LLVMTypeOf(values[i]) == ptr
					? values[i]
					: LLVMConstAddrSpaceCast(values[i], ptr);
	}
	if (count != nold)
		replace(mod, list, count);
	free(list);
	return 0;
}

int ol_be_compiler_used_remove(LLVMModuleRef mod, const LLVMValueRef *values, size_t n)
{
	size_t nold, count = 0;
	LLVMValueRef *list;

	if (n == 0)
		return 0;
	list = members(mod, 0, &nold);
	if (!list)
		return -1;
	for (size_t k = 0; k < nold; k++) {
		LLVMValueRef global = LLVMIsAConstantExpr(list[k]) ? LLVMGetOperand(list[k], 0) : list[k];

		if (!listed(values, n, global))
			list[count++] = list[k];
	}
	if (count != nold)
		replace(mod, list, count);
	free(list);
	return 0;
}
