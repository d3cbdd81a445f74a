/*
 * splitter.h: what the files of the splitter share (partitioned device
 * LTO, docs/design/partitioned-lto.md; the rules are told at the top of
 * partition.c).
 *
 *   partition.c        ol_be_split(): the steps, in order, and why a module
 *                      stays whole;
 *   partition_graph.c  the reference graph of the merged module: a node per
 *                      global, what each names and whether that lets the
 *                      address out, kernels, aliases, who touches shared
 *                      memory (LDS);
 *   partition_roles.c  owned, copy and import: each node's role, what each
 *                      partition holds of it, and what must stay listed in
 *                      its llvm.compiler.used;
 *   partition_clone.c  each partition cut from the merged module: promoted
 *                      names, the clone's linkage, its bitcode and key;
 *   partition_plan.c   a partition's plan key, made without cutting it.
 */
#ifndef OFFLOAD_BACKEND_SPLITTER_H
#define OFFLOAD_BACKEND_SPLITTER_H

#include <stddef.h>
#include <stdint.h>

#include "backend_impl.h"
#include "offload/hashtab.h"

enum role { ROLE_DECLARATION, ROLE_OWNED, ROLE_COPY };
/* What a node is in the partition being built. */
enum presence { ABSENT, DEFINED, IMPORTED, DECLARED, PRIVATE_COPY, VIA_ALIASEE };

struct node {
	LLVMValueRef gv;
	unsigned part;           /* owner (ROLE_OWNED) */
	unsigned unit;           /* the input module of its definition, or UINT32_MAX */
	unsigned char role;
	unsigned char is_function;
	unsigned char importable;
	unsigned char copyable;    /* owned function another partition may hold privately */
	unsigned char address_taken;
	unsigned char address_escapes; /* a reference lets its address out */
	unsigned char promote;   /* local, but reached from another partition */
	unsigned char touches_lds; /* it, or what it reaches, names an LDS variable */
	unsigned char omp_helper;  /* a runtime function OpenMPOpt may start calling */
	unsigned char exported;    /* local, declared past the copy depth: owned and exported */
	unsigned char past_depth;  /* some partition declares it past the copy depth */
	unsigned char kernel;      /* an entry point (calling convention or nvvm.annotations) */
	unsigned char is_alias;
	size_t aliasee;          /* alias: the object it names, SIZE_MAX when not one */
	unsigned char aliasee_direct; /* alias: names the object itself, not a part of it */
	unsigned reached_by;     /* partitions that define or import it (counted up to 2) */
	unsigned last_reach;     /* 1 + the last partition counted */
	size_t *refs;            /* nodes its body or initializer names, each
				    as index << 1 | takes its address */
	size_t nrefs, cap;
};

struct splitter_plan;

struct splitter {
	LLVMModuleRef mod;
	struct node *nodes;
	size_t nnodes;
	struct ol_hashtab map;        /* values of the merged module to node indexes */
	size_t nglobals, nfunctions;  /* nodes: globals, functions, then aliases */
	unsigned npartitions;
	int imports;              /* available_externally imports (-O2 and up) */
	unsigned char *presence;  /* per node, for the partition being built */
	unsigned char *keep;      /* per node: joins its llvm.compiler.used */
	size_t *held;             /* the nodes presence has, in no order: what
				     the next reach clears, so that a partition
				     costs what it holds, not the module */
	size_t nheld;
	size_t *stack;            /* the reach's queue */
	unsigned *depth;          /* per node: calls from what the partition owns */
	size_t *referrer_start;   /* per node + 1: the nodes naming it, in referrers */
	size_t *referrers;        /* each as index << 1 | lets the address out */
	size_t *owned_start;      /* per partition + 1: what it owns, in owned */
	size_t *owned;            /* as the last splitter_settle_roles left roles */
	size_t *helpers;          /* the OpenMP helpers (splitter_mark_omp_helpers) */
	size_t nhelpers;
	struct splitter_plan *plan;   /* NULL: no plan keys (partition_plan.c) */
	struct ol_be_use_places *places; /* for the clones' use-list order */
	int out_of_memory;
};

static inline int is_local(LLVMLinkage linkage)
{
	return linkage == LLVMInternalLinkage || linkage == LLVMPrivateLinkage;
}

static inline int is_lds(LLVMValueRef gv)
{
	return !LLVMIsAFunction(gv) && LLVMGetPointerAddressSpace(LLVMTypeOf(gv)) == 3;
}

/* A reference is an index and one bit: whether it lets the address out
 * (anything but a direct call's callee or a load's pointer). */
static inline size_t ref_node(size_t ref)
{
	return ref >> 1;
}

static inline int ref_escapes(size_t ref)
{
	return (int)(ref & 1);
}

/* A partition copies the functions its code reaches up to this many calls
 * away and declares those further on: in a chain of calls through every
 * unit, copying all would make the split grow with the square of the
 * program. */
#define SPLITTER_COPY_DEPTH 32

static inline int holds_body(unsigned char presence)
{
	return presence == DEFINED || presence == IMPORTED || presence == PRIVATE_COPY;
}

/* --- the reference graph (partition_graph.c) ----------------------------- */

/* The nodes of s->mod, their roles before any reach is known, and their
 * references.  Returns 0, 1 when an alias keeps the module whole, -1 when
 * out of memory. */
int splitter_build_graph(struct splitter *s, const struct ol_lto_request *req);
/* s->referrers: each node's referrers, read backwards from the references.
 * Returns 0, or -1 when out of memory. */
int splitter_index_referrers(struct splitter *s);
/* The node of a global of the merged module, or SIZE_MAX. */
size_t splitter_node_of(const struct splitter *s, LLVMValueRef gv);
/* touches_lds of every node (over s->referrers). */
void splitter_mark_lds_users(struct splitter *s);

/* --- roles (partition_roles.c) ------------------------------------------- */

void splitter_assign_role(struct node *n, unsigned unit_part);
void splitter_mark_omp_helpers(struct splitter *s);
int splitter_owned_function_touches_lds(const struct splitter *s);
/* What partition p holds, in s->presence (and listed in s->held), the
 * keep marks of the one before cleared; whether it owns anything (else it
 * defines nothing, and holds nothing).  Roles as splitter_settle_roles
 * left them. */
int splitter_reach(struct splitter *s, unsigned p);
void splitter_settle_roles(struct splitter *s);
/* Joins partitions whose kernels would call an import through a pointer
 * (root: npartitions entries, each partition's new one); how many. */
unsigned splitter_join_for_exact_callees(struct splitter *s, unsigned *root);
void splitter_reassign_roles(struct splitter *s, const unsigned *root);
/* What joins the partition's llvm.compiler.used, in s->keep. */
void splitter_mark_kept(struct splitter *s);

/* --- the clones (partition_clone.c) -------------------------------------- */

void splitter_promote(LLVMModuleRef mod, LLVMValueRef gv);
/* Partition p's key, then its bitcode unless req->partition_wanted says
 * it is not wanted (out stays empty). */
int splitter_write_module(LLVMModuleRef mod, const struct ol_lto_request *req, unsigned p,
			  struct ol_buffer *out, struct ol_buffer *key, char **err);
/* Partition p's key and bitcode (as above), its reach and keep marks made
 * (splitter_reach, splitter_mark_kept). */
int splitter_write_partition(struct splitter *s, const struct ol_lto_request *req, unsigned p,
			     struct ol_buffer *out, struct ol_buffer *key, char **err);

/* --- plan keys (partition_plan.c) -------------------------------------- */

/* Ready s->plan when the caller asks for plans and the module can have
 * them (no debug information); 1 if so, else 0. */
int splitter_plan_begin(struct splitter *s, const struct ol_lto_request *req);
void splitter_plan_end(struct splitter_plan *plan);
/* Partition p's plan key, its presence and keep marks made: 0 with
 * *digest, 1 when p has no plan (the first partition, or something the
 * plan cannot vouch for). */
int splitter_plan_partition(struct splitter *s, const struct ol_lto_request *req, unsigned p,
			    uint8_t digest[32]);

#endif
