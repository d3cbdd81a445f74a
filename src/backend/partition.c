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
 *           mutable variables, and functions whose address two partitions
 *           take; local ones that another partition reaches are promoted
 *           to hidden external symbols;
 *   copy    a private copy in every partition that reaches it: internal
 *           functions, internal unnamed_addr constants and shared-memory
 *           (LDS) variables, whose state lives only as long as a kernel's
 *           block;
 *   import  an owned constant, or an owned function whose address is
 *           taken, that another partition reaches is there as
 *           available_externally, for the inliner, as ThinLTO imports it
 *           (not at -O0 and -O1, whose pipelines keep such a body and
 *           codegen would then emit it); codegen emits no body.  An owned
 *           function whose address nothing takes is a private copy there
 *           instead: the Attributor reads a copy, not an import.
 *
 * A partition must see a global as used wherever full LTO does: what
 * something it lacks lets out joins its llvm.compiler.used (mark_kept).
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
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Comdat.h>

#include "backend_impl.h"

enum role { ROLE_DECLARATION, ROLE_OWNED, ROLE_COPY };
/* What a node is in the partition being built. */
enum presence { ABSENT, DEFINED, IMPORTED, DECLARED, PRIVATE_COPY, VIA_ALIASEE };

struct node {
	LLVMValueRef gv;
	unsigned part;           /* owner (ROLE_OWNED) */
	unsigned char role;
	unsigned char is_function;
	unsigned char importable;
	unsigned char copyable;    /* owned function another partition may hold privately */
	unsigned char address_taken;
	unsigned char promote;   /* local, but reached from another partition */
	unsigned char touches_lds; /* it, or what it reaches, names an LDS variable */
	unsigned char omp_helper;  /* a runtime function OpenMPOpt may start calling */
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

/* Values of the merged module to node indexes: open addressing. */
struct node_map {
	LLVMValueRef *keys;
	size_t *values;
	size_t cap;
};

struct splitter {
	LLVMModuleRef mod;
	struct node *nodes;
	size_t nnodes;
	struct node_map map;
	size_t nglobals, nfunctions;  /* nodes: globals, functions, then aliases */
	unsigned npartitions;
	int imports;              /* available_externally imports (-O2 and up) */
	unsigned char *presence;  /* per node, for the partition being built */
	unsigned char *keep;      /* per node: joins its llvm.compiler.used */
	size_t *stack;
	int out_of_memory;
};

static size_t pointer_hash(LLVMValueRef v, size_t cap)
{
	uintptr_t x = (uintptr_t)v;

	x ^= x >> 17;
	x *= 0x9e3779b97f4a7c15ull;
	return (size_t)(x >> 7) & (cap - 1);
}

static void map_put(struct node_map *map, LLVMValueRef key, size_t value)
{
	size_t i = pointer_hash(key, map->cap);

	while (map->keys[i])
		i = (i + 1) & (map->cap - 1);
	map->keys[i] = key;
	map->values[i] = value;
}

static size_t map_get(const struct node_map *map, LLVMValueRef key)
{
	size_t i = pointer_hash(key, map->cap);

	for (; map->keys[i]; i = (i + 1) & (map->cap - 1))
		if (map->keys[i] == key)
			return map->values[i];
	return SIZE_MAX;
}

static int is_local(LLVMLinkage linkage)
{
	return linkage == LLVMInternalLinkage || linkage == LLVMPrivateLinkage;
}

/* ptx_kernel and amdgpu_kernel: entry points, never called or imported. */
static int is_kernel(LLVMValueRef fn)
{
	unsigned cc = LLVMGetFunctionCallConv(fn);

	return cc == 71 || cc == 91;
}

static int is_lds(LLVMValueRef gv)
{
	return !LLVMIsAFunction(gv) && LLVMGetPointerAddressSpace(LLVMTypeOf(gv)) == 3;
}

/* A definition another partition may hold as available_externally: one
 * whose every copy is the same code (no weak or common interposition). */
static int odr_linkage(LLVMLinkage linkage)
{
	return linkage == LLVMExternalLinkage || linkage == LLVMWeakODRLinkage ||
	       linkage == LLVMLinkOnceODRLinkage;
}

static unsigned unit_of(LLVMValueRef gv, unsigned kind)
{
	size_t n = 0;
	LLVMValueMetadataEntry *entries = LLVMGlobalCopyAllMetadata(gv, &n);
	unsigned unit = UINT32_MAX;

	for (size_t i = 0; i < n; i++) {
		LLVMValueRef node, value;

		if (LLVMValueMetadataEntriesGetKind(entries, (unsigned)i) != kind)
			continue;
		node = LLVMMetadataAsValue(LLVMGetModuleContext(LLVMGetGlobalParent(gv)),
					   LLVMValueMetadataEntriesGetMetadata(entries, (unsigned)i));
		if (LLVMGetMDNodeNumOperands(node) == 1) {
			LLVMGetMDNodeOperands(node, &value);
			if (value && LLVMIsAConstantInt(value))
				unit = (unsigned)LLVMConstIntGetZExtValue(value);
		}
	}
	if (entries)
		LLVMDisposeValueMetadataEntries(entries);
	LLVMGlobalEraseMetadata(gv, kind);
	return unit;
}

/* A pointer computed from its first operand: a GEP or a cast between
 * pointer types (an instruction or a constant expression). */
static int is_address_computation(LLVMValueRef v)
{
	LLVMOpcode op;

	if (LLVMIsAGetElementPtrInst(v) || LLVMIsABitCastInst(v) || LLVMIsAAddrSpaceCastInst(v))
		return 1;
	if (!LLVMIsAConstantExpr(v))
		return 0;
	op = LLVMGetConstOpcode(v);
	return op == LLVMGetElementPtr || op == LLVMBitCast || op == LLVMAddrSpaceCast;
}

/* A reference is an index and one bit: whether it lets the address out
 * (anything but a direct call's callee or a load's pointer). */
static size_t ref_node(size_t ref)
{
	return ref >> 1;
}

static int ref_escapes(size_t ref)
{
	return (int)(ref & 1);
}

static void add_ref(struct splitter *s, struct node *from, size_t to, int escapes)
{
	size_t *refs = ol_be_grow(from->refs, &from->cap, from->nrefs, sizeof(*refs), 8);

	if (!refs) {
		s->out_of_memory = 1;
		return;
	}
	from->refs = refs;
	from->refs[from->nrefs++] = to << 1 | (escapes != 0);
}

/* The globals a constant names, through expressions and aggregates;
 * `escapes`: whether this use lets their address out. */
static void scan_constant(struct splitter *s, struct node *from, LLVMValueRef c, int depth,
			  int escapes)
{
	size_t index;
	int n, address;

	if (LLVMIsAGlobalValue(c)) {
		index = map_get(&s->map, c);
		if (index != SIZE_MAX) {
			add_ref(s, from, index, escapes);
			if (s->nodes[index].is_function)
				s->nodes[index].address_taken = 1;
		}
		return;
	}
	if (depth > 64 || !LLVMIsAConstant(c))
		return;
	/* An address computed from a global is used as that global is;
	 * anything else made of it (an aggregate, an integer) lets it out. */
	address = is_address_computation(c);
	n = LLVMGetNumOperands(c);
	for (int i = 0; i < n; i++)
		scan_constant(s, from, LLVMGetOperand(c, (unsigned)i), depth + 1,
			      address && i == 0 ? escapes : 1);
}

/* Whether `user`'s operand `index` (a global, or an address computed from
 * one) lets the address out: anything but a direct call's callee, the
 * pointer a load, store or atomic goes through, or an address computed
 * from it that none of its users lets out. */
static int use_escapes(LLVMValueRef user, unsigned index, int depth)
{
	unsigned n = (unsigned)LLVMGetNumOperands(user);

	if ((LLVMIsACallInst(user) || LLVMIsAInvokeInst(user)) && index == n - 1)
		return 0;
	if (LLVMIsALoadInst(user) || LLVMIsAAtomicRMWInst(user) || LLVMIsAAtomicCmpXchgInst(user))
		return index != 0;
	if (LLVMIsAStoreInst(user))
		return index != 1;
	if (is_address_computation(user) && index == 0 && depth < 8) {
		for (LLVMUseRef use = LLVMGetFirstUse(user); use; use = LLVMGetNextUse(use)) {
			LLVMValueRef next = LLVMGetUser(use);
			unsigned nops = (unsigned)LLVMGetNumOperands(next), k;

			for (k = 0; k < nops && LLVMGetOperand(next, k) != user; k++)
				;
			if (k == nops || use_escapes(next, k, depth + 1))
				return 1;
		}
		return 0;
	}
	return 1;
}

static void scan_function(struct splitter *s, struct node *from)
{
	if (LLVMHasPersonalityFn(from->gv))
		scan_constant(s, from, LLVMGetPersonalityFn(from->gv), 0, 1);
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(from->gv); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst;
		     inst = LLVMGetNextInstruction(inst)) {
			int call = LLVMIsACallInst(inst) || LLVMIsAInvokeInst(inst);
			int n = LLVMGetNumOperands(inst);

			for (int i = 0; i < n; i++) {
				LLVMValueRef op = LLVMGetOperand(inst, (unsigned)i);
				size_t index;

				if (!op)
					continue;
				/* The callee is a call's last operand; the same
				 * function as an argument is an address taken. */
				if (call && i == n - 1 && LLVMIsAFunction(op)) {
					index = map_get(&s->map, op);
					if (index != SIZE_MAX)
						add_ref(s, from, index, 0);
					continue;
				}
				if (LLVMIsAConstant(op))
					scan_constant(s, from, op, 0, use_escapes(inst, (unsigned)i, 0));
			}
		}
	}
}

/* Roles, before any reach is known. */
static void assign_role(struct node *n, unsigned unit_part)
{
	LLVMValueRef gv = n->gv;
	LLVMLinkage linkage = LLVMGetLinkage(gv);

	n->part = unit_part;
	if (LLVMIsDeclaration(gv)) {
		n->role = ROLE_DECLARATION;
	} else if (linkage == LLVMAppendingLinkage) {
		n->role = ROLE_OWNED;
		n->part = 0;
	} else if (n->is_function) {
		n->role = is_local(linkage) ? ROLE_COPY : ROLE_OWNED;
		n->importable = n->role == ROLE_OWNED && odr_linkage(linkage) && !n->kernel;
	} else if (is_local(linkage)) {
		/* Constants whose address nothing compares, and LDS whose life
		 * is one block's. */
		n->role = (LLVMIsGlobalConstant(gv) && LLVMGetUnnamedAddress(gv) != LLVMNoUnnamedAddr) ||
					  is_lds(gv)
				  ? ROLE_COPY
				  : ROLE_OWNED;
		n->importable = n->role == ROLE_OWNED && LLVMIsGlobalConstant(gv);
	} else {
		n->role = ROLE_OWNED;
		n->importable = LLVMIsGlobalConstant(gv) && odr_linkage(linkage);
	}
}

/* Kernels of clang 16 and 19's NVPTX (and AMDGPU) modules: calling
 * convention 0, listed in !nvvm.annotations as "kernel". */
static void mark_annotated_kernels(struct splitter *s)
{
	unsigned n = LLVMGetNamedMetadataNumOperands(s->mod, "nvvm.annotations");
	LLVMValueRef *entries;

	if (n == 0 || !(entries = calloc(n, sizeof(*entries))))
		return;
	LLVMGetNamedMetadataOperands(s->mod, "nvvm.annotations", entries);
	for (unsigned i = 0; i < n; i++) {
		unsigned nops = LLVMGetMDNodeNumOperands(entries[i]);
		LLVMValueRef *ops = nops ? calloc(nops, sizeof(*ops)) : NULL;
		size_t index;

		if (!ops)
			continue;
		LLVMGetMDNodeOperands(entries[i], ops);
		index = ops[0] ? map_get(&s->map, ops[0]) : SIZE_MAX;
		/* !{ptr @fn, !"property", i32 value, ...} */
		for (unsigned k = 1; index != SIZE_MAX && k < nops; k += 2) {
			unsigned len = 0;
			const char *what = ops[k] ? LLVMGetMDString(ops[k], &len) : NULL;

			if (what && len == 6 && memcmp(what, "kernel", 6) == 0)
				s->nodes[index].kernel = 1;
		}
		free(ops);
	}
	free(entries);
}

/*
 * An alias goes with the object it names (a C++ complete-object
 * constructor or destructor with its base-object one): the same role and
 * partition, defined wherever that object is.  Another partition declares
 * it, or, where the object may be imported, calls the object itself.
 * Returns 0, or 1 when the aliasee is no object of the module.
 */
static int follow_aliasee(struct splitter *s, struct node *alias)
{
	LLVMValueRef target = LLVMAliasGetAliasee(alias->gv);
	const struct node *object;
	int depth = 0;

	while (target && !LLVMIsAGlobalObject(target) && depth++ < 16) {
		if (LLVMIsAGlobalAlias(target))
			target = LLVMAliasGetAliasee(target);
		else if (LLVMIsAConstantExpr(target) && LLVMGetNumOperands(target) > 0)
			target = LLVMGetOperand(target, 0);
		else
			target = NULL;
	}
	alias->aliasee = target && LLVMIsAGlobalObject(target) ? map_get(&s->map, target) : SIZE_MAX;
	if (alias->aliasee == SIZE_MAX)
		return 1;
	object = &s->nodes[alias->aliasee];
	if (LLVMIsDeclaration(object->gv))
		return 1;
	alias->aliasee_direct = LLVMAliasGetAliasee(alias->gv) == object->gv &&
				LLVMTypeOf(alias->gv) == LLVMTypeOf(object->gv);
	alias->is_function = object->is_function;
	alias->role = object->role;
	alias->part = object->part;
	alias->importable = 0;
	/* Not an address taken: the alias is the object under a second name. */
	add_ref(s, alias, alias->aliasee, 0);
	return 0;
}

static int build_nodes(struct splitter *s, const struct ol_lto_request *req)
{
	LLVMContextRef ctx = LLVMGetModuleContext(s->mod);
	unsigned kind = LLVMGetMDKindIDInContext(ctx, OL_BE_UNIT_MD, (unsigned)strlen(OL_BE_UNIT_MD));
	size_t n = 0, i = 0;

	for (LLVMValueRef g = LLVMGetFirstGlobal(s->mod); g; g = LLVMGetNextGlobal(g))
		n++;
	for (LLVMValueRef f = LLVMGetFirstFunction(s->mod); f; f = LLVMGetNextFunction(f))
		n++;
	for (LLVMValueRef a = LLVMGetFirstGlobalAlias(s->mod); a; a = LLVMGetNextGlobalAlias(a))
		n++;
	s->nodes = calloc(n ? n : 1, sizeof(*s->nodes));
	s->presence = calloc(n ? n : 1, 1);
	s->keep = calloc(n ? n : 1, 1);
	s->stack = calloc(n ? n : 1, sizeof(*s->stack));
	for (s->map.cap = 64; s->map.cap < 2 * n; s->map.cap *= 2)
		;
	s->map.keys = calloc(s->map.cap, sizeof(*s->map.keys));
	s->map.values = calloc(s->map.cap, sizeof(*s->map.values));
	if (!s->nodes || !s->presence || !s->keep || !s->stack || !s->map.keys || !s->map.values)
		return -1;
	s->nnodes = n;
	/* Globals, functions, then aliases: the order CloneModule creates them in. */
	for (LLVMValueRef g = LLVMGetFirstGlobal(s->mod); g; g = LLVMGetNextGlobal(g), i++)
		s->nodes[i].gv = g;
	s->nglobals = i;
	for (LLVMValueRef f = LLVMGetFirstFunction(s->mod); f; f = LLVMGetNextFunction(f), i++) {
		s->nodes[i].gv = f;
		s->nodes[i].is_function = 1;
	}
	s->nfunctions = i - s->nglobals;
	for (LLVMValueRef a = LLVMGetFirstGlobalAlias(s->mod); a; a = LLVMGetNextGlobalAlias(a), i++) {
		s->nodes[i].gv = a;
		s->nodes[i].is_alias = 1;
	}
	for (i = 0; i < n; i++) {
		map_put(&s->map, s->nodes[i].gv, i);
		s->nodes[i].kernel = s->nodes[i].is_function && is_kernel(s->nodes[i].gv);
	}
	mark_annotated_kernels(s);
	for (i = 0; i < n; i++) {
		struct node *node = &s->nodes[i];
		unsigned unit, part;

		if (node->is_alias)
			continue;
		unit = LLVMIsDeclaration(node->gv) ? UINT32_MAX : unit_of(node->gv, kind);
		part = unit < req->nmodules ? req->module_partition[unit] : 0;
		assign_role(node, part < s->npartitions ? part : 0);
		if (node->is_function && !LLVMIsDeclaration(node->gv))
			scan_function(s, node);
		else if (!node->is_function && !LLVMIsDeclaration(node->gv))
			scan_constant(s, node, LLVMGetInitializer(node->gv), 0, 1);
	}
	/* A function whose address nothing takes has no identity to keep:
	 * another partition may call a private copy of it, which the
	 * optimizer sees as exactly the code it runs (an available_externally
	 * import may be replaced at link time, so the Attributor does not look
	 * into it), as it sees it in full LTO. */
	for (i = 0; i < s->nglobals + s->nfunctions; i++)
		s->nodes[i].copyable = s->nodes[i].is_function && s->nodes[i].importable &&
				       !s->nodes[i].address_taken;
	/* 1: an alias of something else than an object defined here keeps
	 * the module whole. */
	for (i = s->nglobals + s->nfunctions; i < n; i++)
		if (follow_aliasee(s, &s->nodes[i]) != 0)
			return 1;
	return s->out_of_memory ? -1 : 0;
}

/* touches_lds: the LDS variables, then, backwards over the references,
 * everything that names one or reaches one that does. */
static int mark_lds_users(struct splitter *s)
{
	size_t *count = calloc(s->nnodes + 1, sizeof(*count)), *from, top = 0;
	int rc = -1;

	if (!count)
		return -1;
	for (size_t i = 0; i < s->nnodes; i++)
		for (size_t r = 0; r < s->nodes[i].nrefs; r++)
			count[ref_node(s->nodes[i].refs[r]) + 1]++;
	for (size_t i = 0; i < s->nnodes; i++)
		count[i + 1] += count[i];
	from = malloc((count[s->nnodes] ? count[s->nnodes] : 1) * sizeof(*from));
	if (from) {
		size_t *fill = calloc(s->nnodes ? s->nnodes : 1, sizeof(*fill));

		if (fill) {
			for (size_t i = 0; i < s->nnodes; i++)
				for (size_t r = 0; r < s->nodes[i].nrefs; r++) {
					size_t to = ref_node(s->nodes[i].refs[r]);
					from[count[to] + fill[to]++] = i;
				}
			for (size_t i = 0; i < s->nnodes; i++)
				if (is_lds(s->nodes[i].gv)) {
					s->nodes[i].touches_lds = 1;
					s->stack[top++] = i;
				}
			while (top) {
				size_t to = s->stack[--top];

				for (size_t k = count[to]; k < count[to + 1]; k++)
					if (!s->nodes[from[k]].touches_lds) {
						s->nodes[from[k]].touches_lds = 1;
						s->stack[top++] = from[k];
					}
			}
			free(fill);
			rc = 0;
		}
		free(from);
	}
	free(count);
	return rc;
}

/* AMDGPU: an owned function (not a kernel) that touches LDS. */
static int owned_function_touches_lds(const struct splitter *s)
{
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct node *n = &s->nodes[i];

		if (n->role == ROLE_OWNED && n->is_function && n->touches_lds && !n->kernel)
			return 1;
	}
	return 0;
}

/*
 * The device runtime's functions that OpenMPOpt calls in code it writes
 * (SPMD-ization's guards and barriers, the custom state machine).  In full
 * LTO other kernels keep them alive until it runs; a partition whose
 * kernels do not call them would get a bare declaration, which no object
 * defines.  A partition with a kernel holds them, kept (llvm.compiler.used)
 * until then and after.
 */
static const char *const omp_helpers[] = {
	"__kmpc_get_hardware_thread_id_in_block", "__kmpc_get_hardware_num_threads_in_block",
	"__kmpc_get_warp_size", "__kmpc_barrier_simple_spmd", "__kmpc_barrier_simple_generic",
	"__kmpc_kernel_parallel", "__kmpc_kernel_end_parallel",
};

static void mark_omp_helpers(struct splitter *s)
{
	for (size_t i = 0; i < s->nnodes; i++) {
		const char *name;
		size_t len = 0;

		if (!s->nodes[i].is_function || s->nodes[i].is_alias ||
		    LLVMIsDeclaration(s->nodes[i].gv))
			continue;
		name = LLVMGetValueName2(s->nodes[i].gv, &len);
		for (size_t k = 0; k < sizeof(omp_helpers) / sizeof(omp_helpers[0]); k++)
			if (strlen(omp_helpers[k]) == len && memcmp(name, omp_helpers[k], len) == 0)
				s->nodes[i].omp_helper = 1;
	}
}

/* What partition p holds, in s->presence: from its owned nodes (and, with a
 * kernel among them, the OpenMP helpers), through the references of what it
 * defines or imports. */
static void reach(struct splitter *s, unsigned p)
{
	size_t top = 0;
	int kernel = 0;

	memset(s->presence, ABSENT, s->nnodes);
	for (size_t i = 0; i < s->nnodes; i++) {
		if (s->nodes[i].role == ROLE_OWNED && s->nodes[i].part == p) {
			s->presence[i] = DEFINED;
			s->stack[top++] = i;
			kernel |= s->nodes[i].kernel;
		}
	}
	for (size_t i = 0; kernel && i < s->nnodes; i++) {
		if (s->nodes[i].omp_helper && s->presence[i] == ABSENT) {
			s->presence[i] = s->nodes[i].role == ROLE_OWNED && !s->nodes[i].touches_lds
						 ? DECLARED : s->nodes[i].role == ROLE_OWNED
						 ? PRIVATE_COPY : DEFINED;
			if (s->presence[i] != DECLARED)
				s->stack[top++] = i;
		}
	}
	while (top) {
		struct node *from = &s->nodes[s->stack[--top]];

		for (size_t r = 0; r < from->nrefs; r++) {
			size_t to = ref_node(from->refs[r]);
			struct node *n = &s->nodes[to];
			unsigned char presence;

			if (s->presence[to] != ABSENT)
				continue;
			if (n->role == ROLE_COPY || (n->role == ROLE_OWNED && n->part == p))
				presence = DEFINED;
			else if (n->role == ROLE_OWNED && n->is_function && !n->kernel &&
				 (n->touches_lds || n->copyable))
				presence = PRIVATE_COPY;
			else if (n->role == ROLE_OWNED && n->importable && s->imports)
				presence = IMPORTED;
			else if (n->is_alias && n->aliasee_direct && s->imports &&
				 s->nodes[n->aliasee].importable)
				presence = VIA_ALIASEE;
			else
				presence = DECLARED;
			s->presence[to] = presence;
			if (n->last_reach != p + 1) {
				n->last_reach = p + 1;
				n->reached_by += n->reached_by < 2;
			}
			if (n->role == ROLE_OWNED && n->part != p && presence != VIA_ALIASEE &&
			    presence != PRIVATE_COPY)
				n->promote = is_local(LLVMGetLinkage(n->gv));
			if (presence != DECLARED)
				s->stack[top++] = to;
		}
	}
}

/*
 * A local function whose address two partitions take must have one
 * address: it becomes owned by its module's partition.  The first round
 * of reaches finds them; a second round settles the promotions this makes.
 */
static void settle_roles(struct splitter *s)
{
	int changed = 0;

	for (unsigned p = 0; p < s->npartitions; p++)
		reach(s, p);
	for (size_t i = 0; i < s->nnodes; i++) {
		struct node *n = &s->nodes[i];

		if (n->role == ROLE_COPY && n->is_function && n->address_taken && n->reached_by > 1 &&
		    !n->touches_lds) {
			n->role = ROLE_OWNED;
			n->importable = 1;
			changed = 1;
		}
	}
	/* An alias follows its object into its new role. */
	for (size_t i = s->nglobals + s->nfunctions; changed && i < s->nnodes; i++) {
		s->nodes[i].role = s->nodes[s->nodes[i].aliasee].role;
		s->nodes[i].part = s->nodes[s->nodes[i].aliasee].part;
	}
	if (changed)
		for (unsigned p = 0; p < s->npartitions; p++)
			reach(s, p);
}

/* A name PTX and every object format accept, unique in the module. */
static void promote(LLVMModuleRef mod, LLVMValueRef gv)
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

static int holds_body(unsigned char presence)
{
	return presence == DEFINED || presence == IMPORTED || presence == PRIVATE_COPY;
}

static int keep_definition(LLVMValueRef gv, void *arg)
{
	struct splitter *s = arg;
	size_t i = map_get(&s->map, gv);

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
static int write_module(LLVMModuleRef mod, struct ol_buffer *out, struct ol_buffer *key,
			char **err)
{
	static const char name[] = "ol.partition";

	LLVMSetModuleIdentifier(mod, name, sizeof(name) - 1);
	LLVMSetSourceFileName(mod, name, sizeof(name) - 1);
	if (ol_be_canonical_bitcode(mod, &key->data, &key->size) < 0)
		return ol_be_fail(err, "out of memory");
	return ol_be_write_bitcode(mod, out, err);
}

/* Whether a global held here is the one full LTO has, as far as its
 * escapes go: an owned global (defined here or imported), or a private
 * copy of a constant, whose contents the optimizer reads as full LTO reads
 * the one constant.  Not a copy of a function or of shared memory: only
 * this partition's code can reach it, and the optimizer must keep seeing
 * all its uses (OpenMPOpt folds the device runtime's state in shared
 * memory from them). */
static int mirrors_escapes(const struct node *n, unsigned char presence)
{
	if (n->is_alias || presence == PRIVATE_COPY)
		return 0;
	if (n->role == ROLE_OWNED)
		return 1;
	return !n->is_function && !is_lds(n->gv);
}

/*
 * What must join the partition's llvm.compiler.used, in s->keep: private
 * copies of exported functions, and every global it holds whose address
 * full LTO sees let out by something this partition lacks (an llvm.used
 * list, a table in another partition, a function there).  The optimizer
 * must not find fewer uses of a global here than in the merged module:
 * LLVM's Attributor, for one, folds a load from a table it believes no one
 * else can see to the wrong element (clang's `.NAMES.ref` of a `declare
 * target` table prevents that in full LTO).
 */
static size_t mark_kept(struct splitter *s)
{
	size_t kept = 0;

	memset(s->keep, 0, s->nnodes);
	/* A private copy of a function the merged module exports: full LTO
	 * does not know all its callers, and neither may this partition (the
	 * Attributor specialized such a copy's table loads to one element). */
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->presence[i] == PRIVATE_COPY && s->nodes[i].is_function && !s->nodes[i].promote &&
		    !is_local(LLVMGetLinkage(s->nodes[i].gv)))
			s->keep[i] = 1;
	/* Tables are guarded when each partition is optimized, as the whole
	 * module is (table_guard.c). */
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct node *from = &s->nodes[i];

		if (holds_body(s->presence[i]))
			continue;
		for (size_t r = 0; r < from->nrefs; r++) {
			size_t to = ref_node(from->refs[r]);

			if (ref_escapes(from->refs[r]) && holds_body(s->presence[to]) &&
			    mirrors_escapes(&s->nodes[to], s->presence[to]))
				s->keep[to] = 1;
		}
	}
	for (size_t i = 0; i < s->nnodes; i++)
		kept += s->keep[i];
	return kept;
}

/* s->keep's globals join the partition's llvm.compiler.used, after what it
 * lists already.  Returns 0, or -1 when out of memory. */
static int extend_compiler_used(struct splitter *s, LLVMModuleRef part, const LLVMValueRef *values)
{
	LLVMValueRef *kept;
	size_t n = 0;
	int rc;

	if (mark_kept(s) == 0)
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

static int write_partition(struct splitter *s, unsigned p, struct ol_buffer *out,
			   struct ol_buffer *key, char **err)
{
	LLVMModuleRef part;
	LLVMValueRef *values;
	int any = 0, rc;

	out->data = NULL;
	out->size = 0;
	reach(s, p);
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
	rc = write_module(part, out, key, err);
	LLVMDisposeModule(part);
	return rc;
}

static int has_ifuncs(LLVMModuleRef mod)
{
	return LLVMGetFirstGlobalIFunc(mod) != NULL;
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
	if (rc == 0 && ((built = build_nodes(&s, req)) < 0 || mark_lds_users(&s) < 0))
		rc = ol_be_fail(err, "out of memory");
	if (rc == 0)
		mark_omp_helpers(&s);
	/* Why a module stays whole, in partition 0 (returned in *err). */
	if (rc == 0 && s.npartitions > 1) {
		if (has_ifuncs(s.mod))
			whole = "it has an ifunc";
		else if (built > 0)
			whole = "an alias names something other than a definition of the module";
		else if (strncmp(req->triple, "amdgcn", 6) == 0 && owned_function_touches_lds(&s))
			whole = "a function other partitions call uses shared memory (LDS)";
	}
	if (whole) {
		s.npartitions = 1;
		for (size_t i = 0; i < s.nnodes; i++)
			s.nodes[i].part = 0;
	}
	if (rc == 0)
		settle_roles(&s);
	for (size_t i = 0; rc == 0 && i < s.nnodes; i++)
		if (s.nodes[i].promote)
			promote(s.mod, s.nodes[i].gv);
	if (rc == 0 && s.npartitions == 1)
		rc = write_module(s.mod, &parts[0], &keys[0], err);
	for (unsigned p = 0; rc == 0 && s.npartitions > 1 && p < s.npartitions; p++)
		rc = write_partition(&s, p, &parts[p], &keys[p], err);
	if (rc != 0)
		release_partitions(parts, keys, req->npartitions);
	if (rc == 0 && whole) {
		ol_be_fail(err, "%s", whole);
		rc = 1;
	}
	if (req->phase)
		req->phase("Split", 0);
	for (size_t i = 0; i < s.nnodes; i++)
		free(s.nodes[i].refs);
	free(s.nodes);
	free(s.presence);
	free(s.keep);
	free(s.stack);
	free(s.map.keys);
	free(s.map.values);
	ol_be_link_request_end(s.mod, &diag);
	return rc;
}
