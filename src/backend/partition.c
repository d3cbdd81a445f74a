/*
 * partition: split(), the first half of partitioned device LTO
 * (docs/design/partitioned-lto.md).
 *
 * The inputs are linked and internalized as for full LTO; the merged module
 * is then cut into the partitions the caller asked for, each input module's
 * definitions going to its partition.  Every global of the merged module
 * gets a role:
 *
 *   owned   one definition, in its module's partition: whatever the rest of
 *           the link or the runtime may name (kernels, exported symbols),
 *           mutable variables, and local functions whose address, or
 *           local constants whose address the program may see (stored,
 *           passed, compared, in a table), two partitions reach; local
 *           ones that another partition reaches are promoted to hidden
 *           external symbols;
 *   copy    a private copy in every partition that reaches it: the other
 *           internal functions and internal unnamed_addr constants, and
 *           shared-memory (LDS) variables, whose state lives only as long
 *           as a kernel's block;
 *   import  an owned constant, or an owned function whose address is
 *           taken, that another partition reaches is there as
 *           available_externally, for the inliner, as ThinLTO imports it
 *           (not at -O0 and -O1, whose pipelines keep such a body and
 *           codegen would then emit it); codegen emits no body.  An owned
 *           function whose address nothing takes is a private copy there
 *           instead: the Attributor reads a copy, not an import.
 *
 * A partition with a kernel whose code takes the address of a function
 * owned by another partition, of which it holds no exact body, is joined
 * with that partition (splitter_join_for_exact_callees): a call through
 * the pointer would reach an import, which OpenMPOpt does not read.
 *
 * A partition must see a global as used wherever full LTO does: what
 * something it lacks lets out joins its llvm.compiler.used (splitter_mark_kept).
 *
 * Shared memory is per block and a kernel's block is laid out from what its
 * own partition holds, so every function that touches an LDS variable runs
 * in its kernel's partition: such a function is never promoted, and an
 * owned one is a private copy wherever another partition calls it.  AMDGPU
 * lowers LDS when it optimizes a partition, and an owned function that
 * touches LDS with no kernel of its partition using it would be left
 * unlowered beside lowered ones, which one codegen cannot mix: such a
 * module is not split.
 *
 * The appending arrays (llvm.used, llvm.compiler.used, llvm.global_ctors/
 * dtors) go to partition 0 with everything they name, so that one
 * partition runs the constructors (the GPU back ends make one init kernel
 * of them).  Partitions are returned as bitcode: lto() optimizes each in a
 * context of its own, on any thread, and the bytes are the cache key's.
 *
 * The graph is built in partition_graph.c, the roles worked out in
 * partition_roles.c, the partitions cut in partition_clone.c; what they
 * share is splitter.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitter.h"

static int has_ifuncs(LLVMModuleRef mod)
{
	return LLVMGetFirstGlobalIFunc(mod) != NULL;
}

/* Whether every owned node is in one partition. */
static int joined_into_one(const struct splitter *s)
{
	unsigned first = UINT32_MAX;

	for (size_t i = 0; i < s->nnodes; i++) {
		if (s->nodes[i].role != ROLE_OWNED)
			continue;
		if (first == UINT32_MAX)
			first = s->nodes[i].part;
		else if (s->nodes[i].part != first)
			return 0;
	}
	return 1;
}

/* Whether the caller has all partition p makes, by its plan key
 * (partition_plan.c; p's reach and keep marks made): then p is not cut,
 * and keys[p] holds the plan. */
static int planned(struct splitter *s, const struct ol_lto_request *req, unsigned p,
		   struct ol_buffer *key)
{
	uint8_t digest[32];

	if (splitter_plan_partition(s, req, p, digest) != 0 ||
	    !req->partition_planned(req->partition_arg, p, digest))
		return 0;
	key->data = malloc(sizeof(digest));
	if (!key->data)
		return 0;   /* cut after all: the caller has its products */
	memcpy(key->data, digest, sizeof(digest));
	key->size = sizeof(digest);
	return 1;
}

/* How many functions some partition declares past the copy depth. */
static size_t past_depth(const struct splitter *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nnodes; i++)
		n += s->nodes[i].past_depth;
	return n;
}

/* Whether what is left to build is small beside the inputs (a relink after
 * an edit): the memory of the merged module is then not wanted back, and
 * freeing it, a walk over every object of the whole program (0.3 s of a
 * 3000-unit relink), is left to the process's exit. */
static int little_left_to_build(const struct ol_lto_request *req, const struct ol_buffer *parts,
				unsigned npartitions)
{
	size_t inputs = 0, left = 0;

	for (size_t i = 0; i < req->nmodules; i++)
		inputs += req->sizes[i];
	for (unsigned p = 0; p < npartitions; p++)
		left += parts[p].size;
	return npartitions > 1 && left <= inputs / 8;
}

static void release_partitions(struct ol_buffer *parts, struct ol_buffer *keys, size_t n)
{
	for (size_t p = 0; p < n; p++) {
		free(parts[p].data);
		free(keys[p].data);
		memset(&parts[p], 0, sizeof(parts[p]));
		memset(&keys[p], 0, sizeof(keys[p]));
	}
}

int ol_be_split(const struct ol_lto_request *req, struct ol_buffer *parts,
		struct ol_buffer *keys, char **err)
{
	struct splitter s;
	struct ol_be_diag diag;
	const char *whole = NULL;
	unsigned note = 0;
	size_t distant = 0;
	int rc = 0, built = 0;

	if (!req || !req->triple || req->nmodules == 0 || !req->module_partition ||
	    req->npartitions == 0)
		return ol_be_fail(err, "split request without modules or partitions");
	memset(parts, 0, req->npartitions * sizeof(*parts));
	memset(keys, 0, req->npartitions * sizeof(*keys));
	memset(&s, 0, sizeof(s));
	s.mod = ol_be_link_request(req, &diag, NULL, err);
	if (!s.mod)
		return -1;
	if (req->phase)
		req->phase("Split", 1);
	rc = ol_be_close_module(s.mod, req, err);
	s.npartitions = (unsigned)req->npartitions;
	s.imports = req->opt_level >= 2;
	if (rc == 0 && ((built = splitter_build_graph(&s, req)) < 0 ||
			splitter_index_referrers(&s) < 0))
		rc = ol_be_fail(err, "out of memory");
	if (rc == 0) {
		splitter_mark_lds_users(&s);
		splitter_mark_omp_helpers(&s);
	}
	/* Why a module stays whole, in partition 0 (returned in *err). */
	if (rc == 0 && s.npartitions > 1) {
		if (has_ifuncs(s.mod))
			whole = "it has an ifunc";
		else if (built > 0)
			whole = "an alias names something other than a definition of the module";
		else if (strncmp(req->triple, "amdgcn", 6) == 0 && splitter_owned_function_touches_lds(&s))
			whole = "a function other partitions call uses shared memory (LDS)";
	}
	if (whole) {
		s.npartitions = 1;
		for (size_t i = 0; i < s.nnodes; i++)
			s.nodes[i].part = 0;
	}
	if (rc == 0)
		splitter_settle_roles(&s);
	/* Kernels that would call an import through a pointer: their
	 * partition and the function's owner become one, until none is left;
	 * all joined into one is the module whole. */
	if (rc == 0 && !whole && s.npartitions > 1) {
		unsigned *root = calloc(s.npartitions, sizeof(*root));
		unsigned joined = 0, n;

		if (!root)
			rc = ol_be_fail(err, "out of memory");
		while (root && (n = splitter_join_for_exact_callees(&s, root)) > 0) {
			joined += n;
			splitter_settle_roles(&s);
		}
		if (root && joined && joined_into_one(&s)) {
			whole = "a kernel calls, through a pointer, a function of another partition "
				"whose address is taken (an import is no exact definition for OpenMPOpt)";
			memset(root, 0, s.npartitions * sizeof(*root));
			splitter_reassign_roles(&s, root);
			s.npartitions = 1;
			splitter_settle_roles(&s);
		} else if (root && joined) {
			note = joined;
		}
		free(root);
	}
	for (size_t i = 0; rc == 0 && i < s.nnodes; i++)
		if (s.nodes[i].promote)
			splitter_promote(s.mod, s.nodes[i].gv);
	if (rc == 0 && s.npartitions == 1)
		rc = splitter_write_module(s.mod, req, 0, &parts[0], &keys[0], err);
	if (rc == 0 && s.npartitions > 1) {
		splitter_plan_begin(&s, req);
		if (!(s.places = ol_be_use_places_new()))
			rc = ol_be_fail(err, "out of memory");
	}
	/* A partition that owns nothing has neither bitcode nor key. */
	for (unsigned p = 0; rc == 0 && s.npartitions > 1 && p < s.npartitions; p++) {
		if (!splitter_reach(&s, p))
			continue;
		splitter_mark_kept(&s);
		if (!planned(&s, req, p, &keys[p]))
			rc = splitter_write_partition(&s, req, p, &parts[p], &keys[p], err);
	}
	if (rc != 0)
		release_partitions(parts, keys, req->npartitions);
	if (rc == 0 && whole) {
		ol_be_fail(err, "%s", whole);
		rc = 1;
	} else if (rc == 0 && (note || (distant = past_depth(&s)) > 0)) {
		/* Not a failure: what -v says of the partitions joined, and of
		 * the calls too far to copy. */
		char joined[160] = "", far[96] = "";

		if (note)
			snprintf(joined, sizeof(joined), "%u partition%s joined with another: a "
				 "kernel calls, through a pointer, a function of another partition "
				 "whose address is taken", note, note == 1 ? "" : "s");
		if (distant)
			snprintf(far, sizeof(far), "%zu function%s declared, not copied, where %s "
				 "more than %d calls away", distant, distant == 1 ? "" : "s",
				 distant == 1 ? "it is" : "they are", SPLITTER_COPY_DEPTH);
		ol_be_fail(err, "%s%s%s", joined, note && distant ? "; " : "", far);
	}
	if (req->phase)
		req->phase("Split", 0);
	for (size_t i = 0; i < s.nnodes; i++)
		free(s.nodes[i].refs);
	free(s.nodes);
	free(s.presence);
	free(s.keep);
	free(s.stack);
	free(s.depth);
	free(s.held);
	free(s.referrer_start);
	free(s.referrers);
	free(s.owned_start);
	free(s.owned);
	free(s.helpers);
	splitter_plan_end(s.plan);
	if (s.places)
		ol_be_use_places_free(s.places);
	ol_hashtab_release(&s.map);
	if (rc == 0 && little_left_to_build(req, parts, s.npartitions))
		ol_be_link_request_keep(s.mod, &diag);
	else
		ol_be_link_request_end(s.mod, &diag);
	return rc;
}
