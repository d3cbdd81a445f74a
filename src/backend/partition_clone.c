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

static size_t node_index(void *arg, LLVMValueRef gv)
{
	return splitter_node_of(arg, gv);
}

/* Partition p's clone: what it holds with bodies, what it names declared;
 * *values gets each node's clone (NULL: not in the partition). */
static LLVMModuleRef clone_partition(struct splitter *s, LLVMValueRef **values)
{
	LLVMValueRef *gvs = malloc((s->nnodes ? s->nnodes : 1) * sizeof(*gvs));
	unsigned char *what = malloc(s->nnodes ? s->nnodes : 1);
	LLVMModuleRef part = NULL;

	*values = calloc(s->nnodes ? s->nnodes : 1, sizeof(**values));
	if (gvs && what && *values) {
		for (size_t i = 0; i < s->nnodes; i++) {
			gvs[i] = s->nodes[i].gv;
			what[i] = holds_body(s->presence[i]) ? 2 : s->presence[i] != ABSENT;
		}
		part = ol_be_clone_partition(s->mod, gvs, what, s->nnodes, *values, node_index, s,
					     s->places);
	}
	free(gvs);
	free(what);
	if (!part) {
		free(*values);
		*values = NULL;
	}
	return part;
}

/* Linkage in the partition, then the declarations nothing uses go. */
static void finish_partition(const struct splitter *s, LLVMValueRef *values)
{
	for (size_t i = 0; i < s->nnodes; i++) {
		LLVMValueRef v = values[i];
		LLVMLinkage linkage;

		if (!v)
			continue;
		linkage = LLVMGetLinkage(v);
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
int splitter_write_module(LLVMModuleRef mod, const struct ol_lto_request *req, unsigned p,
			  struct ol_buffer *out, struct ol_buffer *key, char **err)
{
	static const char name[] = "ol.partition";

	LLVMSetModuleIdentifier(mod, name, sizeof(name) - 1);
	LLVMSetSourceFileName(mod, name, sizeof(name) - 1);
	/* Its use-list order goes with it, in its key too (use_order.cpp). */
	if (ol_be_record_use_order(mod) < 0 ||
	    ol_be_canonical_bitcode(mod, &key->data, &key->size) < 0)
		return ol_be_fail(err, "out of memory");
	/* A partition whose products the caller has (its cache) is not
	 * written: on a relink that is all but the edited ones. */
	if (req->partition_wanted && !req->partition_wanted(req->partition_arg, p, key))
		return 0;
	return ol_be_write_bitcode(mod, out, err);
}

/* s->keep's globals join the partition's llvm.compiler.used, after what it
 * lists already.  Returns 0, or -1 when out of memory. */
static int extend_compiler_used(struct splitter *s, LLVMModuleRef part, const LLVMValueRef *values)
{
	LLVMValueRef *kept;
	size_t n = 0;
	int rc;

	kept = malloc(s->nnodes * sizeof(*kept));
	if (!kept)
		return -1;
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->keep[i] && values[i])
			kept[n++] = values[i];
	rc = n ? ol_be_compiler_used_add(part, kept, n) : 0;
	free(kept);
	return rc;
}

int splitter_write_partition(struct splitter *s, const struct ol_lto_request *req, unsigned p,
			     struct ol_buffer *out, struct ol_buffer *key, char **err)
{
	LLVMModuleRef part;
	LLVMValueRef *values;
	int rc;

	out->data = NULL;
	out->size = 0;
	part = clone_partition(s, &values);
	if (!part)
		return ol_be_fail(err, "cannot clone partition %u", p);
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
	rc = splitter_write_module(part, req, p, out, key, err);
	LLVMDisposeModule(part);
	return rc;
}
