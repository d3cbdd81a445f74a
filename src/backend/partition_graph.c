/*
 * partition_graph: the reference graph of the merged module, which the
 * splitter's roles are worked out on (partition.c tells the rules).
 *
 * A node per global, function and alias, in the order CloneModule creates
 * them; each with the nodes its body or initializer names, and whether
 * that use lets the address out (anything but a direct call's callee or
 * the pointer a load or store goes through).  Kernels are found by their
 * calling convention or nvvm.annotations, aliases follow their object, and
 * touches_lds marks whatever names shared memory or reaches what does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "splitter.h"

/* An entry of s->map. */
struct node_slot {
	LLVMValueRef gv;
	size_t index;
};

static int slot_holds(const void *record, const void *key)
{
	return ((const struct node_slot *)record)->gv == key;
}

size_t splitter_node_of(const struct splitter *s, LLVMValueRef gv)
{
	const struct node_slot *slot = ol_hashtab_find(&s->map, ol_hash_pointer(gv), slot_holds, gv);

	return slot ? slot->index : SIZE_MAX;
}

/* 0, or -1 when out of memory. */
static int add_node_slot(struct splitter *s, LLVMValueRef gv, size_t index)
{
	int added;
	struct node_slot *slot = ol_hashtab_try_insert(&s->map, ol_hash_pointer(gv), slot_holds, gv,
						       &added);

	if (!slot)
		return -1;
	if (added) {
		slot->gv = gv;
		slot->index = index;
	}
	return 0;
}

/* ptx_kernel and amdgpu_kernel: entry points, never called or imported. */
static int is_kernel(LLVMValueRef fn)
{
	unsigned cc = LLVMGetFunctionCallConv(fn);

	return cc == 71 || cc == 91;
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

static void add_ref(struct splitter *s, struct node *from, size_t to, int escapes)
{
	size_t *refs = ol_be_grow(from->refs, &from->cap, from->nrefs, sizeof(*refs), 8);

	if (!refs) {
		s->out_of_memory = 1;
		return;
	}
	from->refs = refs;
	from->refs[from->nrefs++] = to << 1 | (escapes != 0);
	if (escapes)
		s->nodes[to].address_escapes = 1;
}

/* The globals a constant names, through expressions and aggregates;
 * `escapes`: whether this use lets their address out. */
static void scan_constant(struct splitter *s, struct node *from, LLVMValueRef c, int depth,
			  int escapes)
{
	size_t index;
	int n, address;

	if (LLVMIsAGlobalValue(c)) {
		index = splitter_node_of(s, c);
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
					index = splitter_node_of(s, op);
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
		index = ops[0] ? splitter_node_of(s, ops[0]) : SIZE_MAX;
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
	alias->aliasee = target && LLVMIsAGlobalObject(target) ? splitter_node_of(s, target) : SIZE_MAX;
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

int splitter_build_graph(struct splitter *s, const struct ol_lto_request *req)
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
	s->depth = calloc(n ? n : 1, sizeof(*s->depth));
	s->held = calloc(n ? n : 1, sizeof(*s->held));
	s->owned = calloc(n ? n : 1, sizeof(*s->owned));
	s->owned_start = calloc((size_t)s->npartitions + 1, sizeof(*s->owned_start));
	s->helpers = calloc(n ? n : 1, sizeof(*s->helpers));
	s->map.record_size = sizeof(struct node_slot);
	if (!s->nodes || !s->presence || !s->keep || !s->stack || !s->depth || !s->held ||
	    !s->owned || !s->owned_start || !s->helpers)
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
		if (add_node_slot(s, s->nodes[i].gv, i) < 0)
			return -1;
		s->nodes[i].kernel = s->nodes[i].is_function && is_kernel(s->nodes[i].gv);
	}
	mark_annotated_kernels(s);
	for (i = 0; i < n; i++) {
		struct node *node = &s->nodes[i];
		unsigned unit, part;

		node->unit = UINT32_MAX;
		if (node->is_alias)
			continue;
		unit = LLVMIsDeclaration(node->gv) ? UINT32_MAX : unit_of(node->gv, kind);
		node->unit = unit;
		part = unit < req->nmodules ? req->module_partition[unit] : 0;
		splitter_assign_role(node, part < s->npartitions ? part : 0);
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

int splitter_index_referrers(struct splitter *s)
{
	size_t *start = calloc(s->nnodes + 1, sizeof(*start)), *from, *fill;

	if (!start)
		return -1;
	for (size_t i = 0; i < s->nnodes; i++)
		for (size_t r = 0; r < s->nodes[i].nrefs; r++)
			start[ref_node(s->nodes[i].refs[r]) + 1]++;
	for (size_t i = 0; i < s->nnodes; i++)
		start[i + 1] += start[i];
	from = malloc((start[s->nnodes] ? start[s->nnodes] : 1) * sizeof(*from));
	fill = calloc(s->nnodes ? s->nnodes : 1, sizeof(*fill));
	if (!from || !fill) {
		free(start);
		free(from);
		free(fill);
		return -1;
	}
	for (size_t i = 0; i < s->nnodes; i++)
		for (size_t r = 0; r < s->nodes[i].nrefs; r++) {
			size_t ref = s->nodes[i].refs[r], to = ref_node(ref);

			from[start[to] + fill[to]++] = i << 1 | (size_t)ref_escapes(ref);
		}
	free(fill);
	s->referrer_start = start;
	s->referrers = from;
	return 0;
}

/* touches_lds: the LDS variables, then, backwards over the references,
 * everything that names one or reaches one that does. */
void splitter_mark_lds_users(struct splitter *s)
{
	size_t top = 0;

	for (size_t i = 0; i < s->nnodes; i++)
		if (is_lds(s->nodes[i].gv)) {
			s->nodes[i].touches_lds = 1;
			s->stack[top++] = i;
		}
	while (top) {
		size_t to = s->stack[--top];

		for (size_t k = s->referrer_start[to]; k < s->referrer_start[to + 1]; k++) {
			size_t from = ref_node(s->referrers[k]);

			if (!s->nodes[from].touches_lds) {
				s->nodes[from].touches_lds = 1;
				s->stack[top++] = from;
			}
		}
	}
}
