/*
 * partition_clone: each partition cut from the merged module (partition.c
 * tells the rules).  Locals another partition reaches get names of their
 * own; a clone keeps the bodies its partition holds, takes the linkage of
 * each global's presence there, drops the declarations nothing uses, lists
 * what must stay seen as used in its llvm.compiler.used, and is written as
 * bitcode with the bytes of its cache key.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Comdat.h>

#include "splitter.h"

/* A name PTX and every object format accept, unique in the module. */
void splitter_promote(LLVMModuleRef mod, LLVMValueRef gv)
{
	size_t len = 0;
	const char *name = LLVMGetValueName2(gv, &len);
	char *fresh = malloc(len + 48);
	size_t k = 0;

	if (!fresh)
		return;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '_' || c == '$';
		fresh[k++] = ok ? c : '_';
	}
	memcpy(fresh + k, "__ol_part", 10);
	for (unsigned serial = 1; LLVMGetNamedFunction(mod, fresh) || LLVMGetNamedGlobal(mod, fresh) ||
				  LLVMGetNamedGlobalAlias(mod, fresh, strlen(fresh));
	     serial++)
		snprintf(fresh + k, 48, "__ol_part%u", serial);
	LLVMSetValueName2(gv, fresh, strlen(fresh));
	LLVMSetLinkage(gv, LLVMExternalLinkage);
	LLVMSetVisibility(gv, LLVMHiddenVisibility);
	free(fresh);
}

static int keep_definition(LLVMValueRef gv, void *arg)
{
	const struct splitter *s = arg;
	size_t i = splitter_node_of(s, gv);

	return i != SIZE_MAX && holds_body(s->presence[i]);
}

/* The clone's globals and functions, in the merged module's order, then
 * its aliases by name: CloneModule turns an alias it does not define into
 * a function or variable declaration after the others. */
static LLVMValueRef *clone_values(const struct splitter *s, LLVMModuleRef part)
{
	LLVMValueRef *v = calloc(s->nnodes ? s->nnodes : 1, sizeof(*v));
	size_t i = 0, functions_end = s->nglobals + s->nfunctions;

	if (!v)
		return NULL;
	for (LLVMValueRef g = LLVMGetFirstGlobal(part); g && i < s->nglobals; g = LLVMGetNextGlobal(g))
		v[i++] = g;
	for (LLVMValueRef f = i == s->nglobals ? LLVMGetFirstFunction(part) : NULL;
	     f && i < functions_end; f = LLVMGetNextFunction(f))
		v[i++] = f;
	for (i = i == functions_end ? i : s->nnodes + 1; i < s->nnodes; i++) {
		size_t len = 0;
		const char *name = LLVMGetValueName2(s->nodes[i].gv, &len);

		if (!(v[i] = LLVMGetNamedGlobalAlias(part, name, len)) &&
		    !(v[i] = LLVMGetNamedFunction(part, name)) && !(v[i] = LLVMGetNamedGlobal(part, name)))
			break;
	}
	if (i != s->nnodes) {
		free(v);
		return NULL;
	}
	return v;
}

/* Linkage in the partition, then the declarations nothing uses go. */
static void finish_partition(const struct splitter *s, LLVMValueRef *values)
{
	for (size_t i = 0; i < s->nnodes; i++) {
		LLVMValueRef v = values[i];
		LLVMLinkage linkage = LLVMGetLinkage(v);

		switch (s->presence[i]) {
		case DEFINED:
			/* A copy's comdat would make the linker keep one copy of
			 * many; an owned linkonce must not vanish where it lives. */
			if (is_local(linkage) && !s->nodes[i].is_alias)
				LLVMSetComdat(v, NULL);
			else if (linkage == LLVMLinkOnceODRLinkage || linkage == LLVMLinkOnceAnyLinkage)
				LLVMSetLinkage(v, linkage == LLVMLinkOnceODRLinkage ? LLVMWeakODRLinkage
										     : LLVMWeakAnyLinkage);
			break;
		case IMPORTED:
			LLVMSetLinkage(v, LLVMAvailableExternallyLinkage);
			LLVMSetComdat(v, NULL);
			break;
		case PRIVATE_COPY:
			LLVMSetLinkage(v, LLVMInternalLinkage);
			LLVMSetVisibility(v, LLVMDefaultVisibility);
			if (!s->nodes[i].is_alias)
				LLVMSetComdat(v, NULL);
			break;
		case VIA_ALIASEE:
			/* Calls go to the imported object itself, which the
			 * inliner may take in. */
			LLVMReplaceAllUsesWith(v, values[s->nodes[i].aliasee]);
			if (LLVMIsAFunction(v))
				LLVMDeleteFunction(v);
			else
				LLVMDeleteGlobal(v);
			values[i] = NULL;
			break;
		default:
			if (LLVMIsDeclaration(v))
				LLVMSetComdat(v, NULL);
			break;
		}
	}
	for (size_t i = 0; i < s->nnodes; i++) {
		LLVMValueRef v = values[i];

		if (!v || (s->presence[i] != ABSENT && s->presence[i] != DECLARED) ||
		    LLVMGetFirstUse(v) || LLVMIsAGlobalAlias(v))
			continue;
		if (!LLVMIsDeclaration(v))
			continue;
		if (LLVMIsAFunction(v))
			LLVMDeleteFunction(v);
		else
			LLVMDeleteGlobal(v);
	}
}

/* The partition's bitcode, and its key's: nothing in them may name the
 * partition. */
int splitter_write_module(LLVMModuleRef mod, struct ol_buffer *out, struct ol_buffer *key,
			char **err)
{
	static const char name[] = "ol.partition";

	LLVMSetModuleIdentifier(mod, name, sizeof(name) - 1);
	LLVMSetSourceFileName(mod, name, sizeof(name) - 1);
	if (ol_be_canonical_bitcode(mod, &key->data, &key->size) < 0)
		return ol_be_fail(err, "out of memory");
	return ol_be_write_bitcode(mod, out, err);
}

/* s->keep's globals join the partition's llvm.compiler.used, after what it
 * lists already.  Returns 0, or -1 when out of memory. */
static int extend_compiler_used(struct splitter *s, LLVMModuleRef part, const LLVMValueRef *values)
{
	LLVMValueRef *kept;
	size_t n = 0;
	int rc;

	if (splitter_mark_kept(s) == 0)
		return 0;
	kept = malloc(s->nnodes * sizeof(*kept));
	if (!kept)
		return -1;
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->keep[i])
			kept[n++] = values[i];
	rc = ol_be_compiler_used_add(part, kept, n);
	free(kept);
	return rc;
}

int splitter_write_partition(struct splitter *s, unsigned p, struct ol_buffer *out,
			   struct ol_buffer *key, char **err)
{
	LLVMModuleRef part;
	LLVMValueRef *values;
	int any = 0, rc;

	out->data = NULL;
	out->size = 0;
	splitter_reach(s, p);
	for (size_t i = 0; i < s->nnodes && !any; i++)
		any = s->presence[i] == DEFINED;
	if (!any)
		return 0;
	part = ol_be_clone_defining(s->mod, keep_definition, s);
	if (!part)
		return ol_be_fail(err, "cannot clone partition %u", p);
	values = clone_values(s, part);
	if (!values) {
		LLVMDisposeModule(part);
		return ol_be_fail(err, "partition %u: the clone does not match the module", p);
	}
	finish_partition(s, values);
	rc = extend_compiler_used(s, part, values);
	free(values);
	if (rc < 0) {
		LLVMDisposeModule(part);
		return ol_be_fail(err, "out of memory");
	}
	ol_be_prune_named_metadata(part);
	/* Not verified here: lto() verifies a partition before optimizing it
	 * (a cache hit was verified when it was built), and one it rejects is
	 * the splitter's mistake, after which the caller links the module
	 * whole (partitioned_lto.c). */
	rc = splitter_write_module(part, out, key, err);
	LLVMDisposeModule(part);
	return rc;
}
