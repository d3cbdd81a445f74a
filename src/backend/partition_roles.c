/*
 * partition_roles: owned, copy and import (partition.c tells the rules).
 * Each node's role before any reach is known, the OpenMP runtime's helpers
 * a partition with a kernel holds, what each partition reaches and holds
 * of every node, the promotions that settles, and what a partition's
 * llvm.compiler.used must keep so that its optimizer sees every global as
 * used wherever full LTO does.
 */
#include <stdint.h>
#include <string.h>

#include "splitter.h"

/* A definition another partition may hold as available_externally: one
 * whose every copy is the same code (no weak or common interposition). */
static int odr_linkage(LLVMLinkage linkage)
{
	return linkage == LLVMExternalLinkage || linkage == LLVMWeakODRLinkage ||
	       linkage == LLVMLinkOnceODRLinkage;
}

/* Roles, before any reach is known. */
void splitter_assign_role(struct node *n, unsigned unit_part)
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

/* AMDGPU: an owned function (not a kernel) that touches LDS. */
int splitter_owned_function_touches_lds(const struct splitter *s)
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

void splitter_mark_omp_helpers(struct splitter *s)
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
		if (s->nodes[i].omp_helper)
			s->helpers[s->nhelpers++] = i;
	}
}

/* Whether a function reached `depth` calls away is declared rather than
 * held: past SPLITTER_COPY_DEPTH, unless the partition must hold it (a
 * function that touches LDS runs in its kernel's partition). */
static int past_copy_depth(const struct node *n, unsigned depth, unsigned char presence)
{
	if (depth <= SPLITTER_COPY_DEPTH || !n->is_function || n->kernel || n->touches_lds)
		return 0;
	return presence == PRIVATE_COPY || presence == IMPORTED ||
	       (presence == DEFINED && n->role == ROLE_COPY);
}

/* What partition p holds, in s->presence: from its owned nodes (and, with a
 * kernel among them, the OpenMP helpers), through the references of what it
 * defines or imports, breadth first, so that s->depth is each node's
 * fewest calls from them.  Whether it owns anything. */
int splitter_reach(struct splitter *s, unsigned p)
{
	size_t head = 0, tail = 0;
	int kernel = 0, owns;

	for (size_t k = 0; k < s->nheld; k++) {
		s->presence[s->held[k]] = ABSENT;
		s->keep[s->held[k]] = 0;
	}
	s->nheld = 0;
	for (size_t k = s->owned_start[p]; k < s->owned_start[p + 1]; k++) {
		size_t i = s->owned[k];

		s->presence[i] = DEFINED;
		s->held[s->nheld++] = i;
		s->depth[i] = 0;
		s->stack[tail++] = i;
		kernel |= s->nodes[i].kernel;
	}
	owns = tail > 0;
	for (size_t k = 0; kernel && k < s->nhelpers; k++) {
		size_t i = s->helpers[k];

		if (s->presence[i] != ABSENT)
			continue;
		s->presence[i] = s->nodes[i].role == ROLE_OWNED && !s->nodes[i].touches_lds
					 ? DECLARED : s->nodes[i].role == ROLE_OWNED
					 ? PRIVATE_COPY : DEFINED;
		s->held[s->nheld++] = i;
		s->depth[i] = 0;
		if (s->presence[i] != DECLARED)
			s->stack[tail++] = i;
	}
	while (head < tail) {
		size_t at = s->stack[head++];
		const struct node *from = &s->nodes[at];

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
			s->depth[to] = s->depth[at] + 1;
			if (past_copy_depth(n, s->depth[to], presence)) {
				/* A local one becomes owned and exported
				 * (splitter_settle_roles). */
				n->exported |= n->role == ROLE_COPY;
				n->past_depth = 1;
				presence = DECLARED;
			}
			s->presence[to] = presence;
			s->held[s->nheld++] = to;
			if (n->last_reach != p + 1) {
				n->last_reach = p + 1;
				n->reached_by += n->reached_by < 2;
			}
			if (n->role == ROLE_OWNED && n->part != p && presence != VIA_ALIASEE &&
			    presence != PRIVATE_COPY)
				n->promote = is_local(LLVMGetLinkage(n->gv));
			if (presence != DECLARED)
				s->stack[tail++] = to;
		}
	}
	return owns;
}

/* s->owned: each partition's owned nodes, in the order of the nodes. */
static void index_owners(struct splitter *s)
{
	size_t *start = s->owned_start;

	memset(start, 0, ((size_t)s->npartitions + 1) * sizeof(*start));
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].role == ROLE_OWNED)
			start[s->nodes[i].part + 1]++;
	for (unsigned p = 0; p < s->npartitions; p++)
		start[p + 1] += start[p];
	/* start[p] is where p's run begins; filling moves it to its end. */
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].role == ROLE_OWNED)
			s->owned[start[s->nodes[i].part]++] = i;
	for (unsigned p = s->npartitions; p > 0; p--)
		start[p] = start[p - 1];
	start[0] = 0;
}

/* Whether a copy in every partition that reaches it would give `n` several
 * addresses where full LTO has one that the program may see: a local
 * function whose address is taken, or a local constant whose address a
 * reference lets out (stored, passed, compared, or in another global's
 * initializer: a table of strings imported by two partitions must point
 * to the same strings in both, or a string one kernel stores compares
 * unequal to itself in another).  LDS lives per block and is never one. */
static int needs_one_address(const struct node *n)
{
	if (n->role != ROLE_COPY || n->reached_by < 2 || n->touches_lds)
		return 0;
	return n->is_function ? n->address_taken : n->address_escapes && !is_lds(n->gv);
}

/*
 * A local global that must keep one address (needs_one_address) becomes
 * owned by its module's partition and imported or declared elsewhere.  A
 * round of reaches finds them; the promotions change what partitions
 * reach, so the rounds go on until none promotes anything.
 */
void splitter_settle_roles(struct splitter *s)
{
	for (int changed = 1; changed;) {
		changed = 0;
		index_owners(s);
		for (size_t i = 0; i < s->nnodes; i++) {
			s->nodes[i].reached_by = s->nodes[i].last_reach = 0;
			s->nodes[i].past_depth = 0;
		}
		for (unsigned p = 0; p < s->npartitions; p++)
			splitter_reach(s, p);
		for (size_t i = 0; i < s->nnodes; i++) {
			struct node *n = &s->nodes[i];

			if (!n->is_alias && needs_one_address(n)) {
				n->role = ROLE_OWNED;
				n->importable = 1;
				changed = 1;
			} else if (n->exported && n->role == ROLE_COPY) {
				/* Declared past the copy depth somewhere: its
				 * module's partition defines it for all, and
				 * the others nearer to it keep their copies. */
				n->role = ROLE_OWNED;
				n->importable = 1;
				n->copyable = !n->address_taken;
				changed = 1;
			}
		}
		/* An alias follows its object into its new role. */
		for (size_t i = s->nglobals + s->nfunctions; changed && i < s->nnodes; i++) {
			s->nodes[i].role = s->nodes[s->nodes[i].aliasee].role;
			s->nodes[i].part = s->nodes[s->nodes[i].aliasee].part;
		}
	}
}

/* Every node's role again, its partition p becoming root[p]; nothing
 * promoted until splitter_settle_roles says so. */
void splitter_reassign_roles(struct splitter *s, const unsigned *root)
{
	for (size_t i = 0; i < s->nglobals + s->nfunctions; i++) {
		struct node *n = &s->nodes[i];

		n->promote = 0;
		splitter_assign_role(n, root[n->part]);
		/* As splitter_build_graph has it. */
		n->copyable = n->is_function && n->importable && !n->address_taken;
	}
	for (size_t i = s->nglobals + s->nfunctions; i < s->nnodes; i++) {
		s->nodes[i].promote = 0;
		s->nodes[i].role = s->nodes[s->nodes[i].aliasee].role;
		s->nodes[i].part = s->nodes[s->nodes[i].aliasee].part;
	}
}

static unsigned join_root(unsigned *root, unsigned p)
{
	while (root[p] != p)
		p = root[p] = root[root[p]];
	return p;
}

/*
 * Partitions whose kernels would lose what OpenMPOpt sees in full LTO
 * become one.  A function whose address is taken keeps one definition and
 * another partition imports it (available_externally), which is not an
 * exact definition: OpenMPOpt makes its own internal copy for the direct
 * calls, but a call through a pointer that the partition's code makes
 * from the address (returned, selected, read from a table it holds) is
 * resolved to the import, whose body the Attributor does not read.  Its
 * kernel then stays generic where full LTO makes it SPMD, or is marked as
 * one that may use nested parallelism.  So a partition with a kernel
 * whose code (a function it holds, or a constant it defines or copies)
 * takes the address of a function owned by another partition, and holds
 * no exact body of it, is joined with that partition: the function is
 * then defined where its address is taken, one address still.  Roles are
 * assigned again over the joined partitions (splitter_settle_roles runs
 * next).  Returns how many partitions were joined into another.
 */
unsigned splitter_join_for_exact_callees(struct splitter *s, unsigned *root)
{
	unsigned joined = 0;

	for (unsigned p = 0; p < s->npartitions; p++)
		root[p] = p;
	for (unsigned p = 0; p < s->npartitions; p++) {
		int kernel = 0;

		for (size_t k = s->owned_start[p]; k < s->owned_start[p + 1] && !kernel; k++)
			kernel = s->nodes[s->owned[k]].kernel;
		if (!kernel)
			continue;
		splitter_reach(s, p);
		/* In any order: the joins make the same partitions. */
		for (size_t k = 0; k < s->nheld; k++) {
			size_t i = s->held[k];
			const struct node *from = &s->nodes[i];

			if (!holds_body(s->presence[i]) || from->is_alias ||
			    (!from->is_function && s->presence[i] == IMPORTED))
				continue;
			for (size_t r = 0; r < from->nrefs; r++) {
				size_t to = ref_node(from->refs[r]);
				const struct node *f = &s->nodes[to];
				unsigned a, b;

				if (!ref_escapes(from->refs[r]))
					continue;
				if (f->is_alias && f->aliasee != SIZE_MAX) {
					to = f->aliasee;
					f = &s->nodes[to];
				}
				if (!f->is_function || f->kernel || f->role != ROLE_OWNED ||
				    s->presence[to] == DEFINED || s->presence[to] == PRIVATE_COPY)
					continue;
				a = join_root(root, p);
				b = join_root(root, f->part);
				if (a == b)
					continue;
				/* The lower partition is the root: partition 0
				 * keeps the appending arrays. */
				if (a < b)
					root[b] = a;
				else
					root[a] = b;
				joined++;
			}
		}
	}
	if (joined) {
		for (unsigned p = 0; p < s->npartitions; p++)
			root[p] = join_root(root, p);
		splitter_reassign_roles(s, root);
	}
	return joined;
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
void splitter_mark_kept(struct splitter *s)
{
	/* A private copy of a function the merged module exports: full LTO
	 * does not know all its callers, and neither may this partition (the
	 * Attributor specialized such a copy's table loads to one element). */
	for (size_t k = 0; k < s->nheld; k++) {
		size_t i = s->held[k];

		if (s->presence[i] == PRIVATE_COPY && s->nodes[i].is_function && !s->nodes[i].promote &&
		    !is_local(LLVMGetLinkage(s->nodes[i].gv)))
			s->keep[i] = 1;
	}
	/* Tables are guarded when each partition is optimized, as the whole
	 * module is (table_guard.c).  Read from the held node back to what
	 * names it: the first escaping name without a body here settles it. */
	for (size_t k = 0; k < s->nheld; k++) {
		size_t to = s->held[k];

		if (s->keep[to] || !holds_body(s->presence[to]) ||
		    !mirrors_escapes(&s->nodes[to], s->presence[to]))
			continue;
		for (size_t r = s->referrer_start[to]; r < s->referrer_start[to + 1]; r++) {
			if (ref_escapes(s->referrers[r]) &&
			    !holds_body(s->presence[ref_node(s->referrers[r])])) {
				s->keep[to] = 1;
				break;
			}
		}
	}
}
