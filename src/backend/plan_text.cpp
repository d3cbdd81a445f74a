/*
 * plan_text: what a partition's plan key is made of, where the LLVM C
 * API cannot say it (docs/design/partitioned-lto.md, "The plan key").
 *
 * A partition's bitcode is decided by the merged module's settings and
 * named metadata, by the bodies it holds (each from one input module, whose
 * bytes the caller hashes), and by the declaration of each global it holds
 * or names: the header text below.  Types are written out in full (a named
 * struct's name depends on the other inputs, its layout does not), local
 * names not at all (the canonical key numbers them, partition_clone.c).
 * Anything the text cannot vouch for makes the partition unplannable: it
 * is then cut and keyed by its bitcode, as without plans.
 *
 * Built with the backend (C++17, no exceptions, no RTTI, as libLLVM is).
 */
#include <llvm/ADT/DenseMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalAlias.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm-c/Core.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

extern "C" int ol_be_module_plan_text(LLVMModuleRef mod, char **text, size_t *size);
extern "C" int ol_be_global_plan_text(LLVMValueRef gv, char **text, size_t *size);
extern "C" int ol_be_annotation_plan_texts(LLVMModuleRef mod,
					   void (*each)(void *arg, LLVMValueRef gv, const char *text,
							size_t size),
					   void *arg);
extern "C" struct ol_be_use_order *ol_be_use_order_new(size_t (*node_of)(void *arg,
									   LLVMValueRef gv),
							 void *arg);
extern "C" int ol_be_use_order_text(struct ol_be_use_order *order, LLVMValueRef gv,
				    size_t (*held_rank)(void *arg, size_t node, int body),
				    void *arg, char **text, size_t *size);
extern "C" void ol_be_use_order_free(struct ol_be_use_order *order);

namespace {

/* A type with every struct's layout spelled out: no name in it. */
void write_type(llvm::raw_ostream &os, llvm::Type *type)
{
	if (auto *st = llvm::dyn_cast<llvm::StructType>(type)) {
		if (st->isOpaque()) {
			os << "opaque";
			return;
		}
		os << (st->isPacked() ? "<{" : "{");
		for (llvm::Type *element : st->elements()) {
			write_type(os, element);
			os << ',';
		}
		os << (st->isPacked() ? "}>" : "}");
	} else if (auto *array = llvm::dyn_cast<llvm::ArrayType>(type)) {
		os << '[' << array->getNumElements() << 'x';
		write_type(os, array->getElementType());
		os << ']';
	} else if (auto *vector = llvm::dyn_cast<llvm::VectorType>(type)) {
		os << '<' << (llvm::isa<llvm::ScalableVectorType>(vector) ? "vscale " : "")
		   << vector->getElementCount().getKnownMinValue() << 'x';
		write_type(os, vector->getElementType());
		os << '>';
	} else if (auto *fn = llvm::dyn_cast<llvm::FunctionType>(type)) {
		write_type(os, fn->getReturnType());
		os << '(';
		for (llvm::Type *param : fn->params()) {
			write_type(os, param);
			os << ',';
		}
		os << (fn->isVarArg() ? "...)" : ")");
	} else {
		type->print(os);   /* no struct inside: integers, pointers, floats, ... */
	}
}

/* A constant or global named by metadata or a header: its type and its
 * text as an operand (globals by name). */
void write_operand(llvm::raw_ostream &os, const llvm::Value *value)
{
	write_type(os, value->getType());
	os << ' ';
	value->printAsOperand(os, false);
}

/*
 * Metadata as a structure: each node once (a later mention by number, so
 * cycles end), strings and values by content.  Debug information is not
 * written: its nodes hold fields outside their operands, and a module that
 * has it is not planned (its compile units are pruned per partition).
 */
class MetadataWriter {
public:
	explicit MetadataWriter(llvm::raw_ostream &os) : os(os) {}
	bool unplannable = false;

	void write(const llvm::Metadata *md)
	{
		if (!md) {
			os << "null;";
			return;
		}
		auto seen = ids.find(md);
		if (seen != ids.end()) {
			os << '#' << seen->second << ';';
			return;
		}
		unsigned id = ids.size();
		ids[md] = id;
		if (auto *string = llvm::dyn_cast<llvm::MDString>(md)) {
			os << 'S' << string->getLength() << ':' << string->getString() << ';';
		} else if (auto *value = llvm::dyn_cast<llvm::ValueAsMetadata>(md)) {
			os << 'V';
			write_operand(os, value->getValue());
			os << ';';
		} else if (auto *node = llvm::dyn_cast<llvm::MDNode>(md)) {
			if (!llvm::isa<llvm::MDTuple>(node)) {   /* debug information */
				unplannable = true;
				return;
			}
			os << (node->isDistinct() ? 'D' : 'N') << node->getNumOperands() << '(';
			for (const llvm::MDOperand &op : node->operands())
				write(op.get());
			os << ')';
		} else {
			unplannable = true;
		}
	}

private:
	llvm::raw_ostream &os;
	llvm::DenseMap<const llvm::Metadata *, unsigned> ids;
};

/* The global an nvvm.annotations entry is about, if any: the clone keeps
 * the entries of what it defines (clone_defining.cpp), so each goes with
 * its global's plan, not every partition's. */
const llvm::GlobalValue *annotated(const llvm::NamedMDNode &list, const llvm::MDNode *entry)
{
	if (list.getName() != "nvvm.annotations" || entry->getNumOperands() == 0)
		return nullptr;
	return llvm::mdconst::dyn_extract_or_null<llvm::GlobalValue>(entry->getOperand(0));
}

int hand_back(const std::string &text, char **out, size_t *size)
{
	*size = text.size();
	*out = static_cast<char *>(std::malloc(text.size() ? text.size() : 1));
	if (!*out)
		return -1;
	std::memcpy(*out, text.data(), text.size());
	return 0;
}

void write_attributes(llvm::raw_ostream &os, const llvm::AttributeList &list, unsigned nparams)
{
	os << "fn{" << list.getFnAttrs().getAsString() << "}ret{" << list.getRetAttrs().getAsString()
	   << '}';
	for (unsigned i = 0; i < nparams; i++)
		os << "p{" << list.getParamAttrs(i).getAsString() << '}';
}

} // namespace

/*
 * The merged module's part of every partition: triple, data layout, inline
 * assembly and its named lists but the table of target regions the clone
 * leaves out.  Returns 0 with *text malloc'd, 1 when the module cannot be
 * planned (debug information), -1 when out of memory.
 */
int ol_be_module_plan_text(LLVMModuleRef mod, char **text, size_t *size)
{
	const llvm::Module &m = *llvm::unwrap(mod);
	std::string buffer;
	llvm::raw_string_ostream os(buffer);
	MetadataWriter metadata(os);

	if (m.getNamedMetadata("llvm.dbg.cu"))
		return 1;
#if LLVM_VERSION_MAJOR >= 21
	const std::string triple = m.getTargetTriple().str();
#else
	const std::string triple = m.getTargetTriple();
#endif

	os << "module\n" << triple << '\n' << m.getDataLayoutStr() << '\n'
	   << m.getModuleInlineAsm().size() << ':' << m.getModuleInlineAsm() << '\n';
	for (const llvm::NamedMDNode &list : m.named_metadata()) {
		if (list.getName() == "omp_offload.info")
			continue;
		os << "list " << list.getName() << '(';
		for (const llvm::MDNode *entry : list.operands())
			if (!annotated(list, entry))
				metadata.write(entry);
		os << ')';
	}
	if (metadata.unplannable)
		return 1;
	os.flush();
	return hand_back(buffer, text, size);
}

/*
 * Each nvvm.annotations entry about a global, with the global, in list
 * order.  Returns 0, 1 when an entry cannot be written (the module is then
 * not planned), -1 when out of memory.
 */
int ol_be_annotation_plan_texts(LLVMModuleRef mod,
				void (*each)(void *arg, LLVMValueRef gv, const char *text, size_t size),
				void *arg)
{
	const llvm::NamedMDNode *list = llvm::unwrap(mod)->getNamedMetadata("nvvm.annotations");

	if (!list)
		return 0;
	for (const llvm::MDNode *entry : list->operands()) {
		const llvm::GlobalValue *gv = annotated(*list, entry);
		std::string buffer;
		llvm::raw_string_ostream os(buffer);
		MetadataWriter metadata(os);

		if (!gv)
			continue;
		metadata.write(entry);
		if (metadata.unplannable)
			return 1;
		os.flush();
		each(arg, llvm::wrap(const_cast<llvm::GlobalValue *>(gv)), buffer.data(), buffer.size());
	}
	return 0;
}

/*
 * A global's header: everything of it that a clone's declaration or
 * definition takes besides the body (the linkage a partition gives it is
 * the caller's).  A local's name is left out.  Returns 0 with *text
 * malloc'd, 1 when it carries metadata (which a clone may copy onto a
 * declaration), -1 when out of memory.
 */
int ol_be_global_plan_text(LLVMValueRef gv, char **text, size_t *size)
{
	const auto *g = llvm::unwrap<llvm::GlobalValue>(gv);
	std::string buffer;
	llvm::raw_string_ostream os(buffer);
	int attached = 0;

	os << (llvm::isa<llvm::Function>(g) ? 'F' : llvm::isa<llvm::GlobalVariable>(g) ? 'V' : 'A');
	if (g->hasLocalLinkage())
		os << "local";
	else
		os << g->getName().size() << ':' << g->getName();
	os << ' ' << g->getLinkage() << ',' << g->getVisibility() << ',' << g->getDLLStorageClass()
	   << ',' << static_cast<int>(g->getUnnamedAddr()) << ',' << g->getThreadLocalMode() << ','
	   << g->getAddressSpace() << ',' << g->isDSOLocal() << ',' << g->getPartition() << ','
	   << g->hasSanitizerMetadata() << ',' << g->isDeclaration() << ' ';
	write_type(os, g->getValueType());
	if (const auto *object = llvm::dyn_cast<llvm::GlobalObject>(g)) {
		os << " section " << object->getSection() << " align " << LLVMGetAlignment(gv);
		if (const llvm::Comdat *comdat = object->getComdat())
			os << " comdat " << comdat->getName() << ',' << comdat->getSelectionKind();
		attached = object->hasMetadata();
	}
	if (const auto *fn = llvm::dyn_cast<llvm::Function>(g)) {
		os << " cc " << fn->getCallingConv() << ' ';
		write_attributes(os, fn->getAttributes(), fn->getFunctionType()->getNumParams());
		if (fn->hasGC())
			os << " gc " << fn->getGC();
		if (fn->hasPersonalityFn()) {
			os << " personality ";
			write_operand(os, fn->getPersonalityFn());
		}
		if (fn->hasPrefixData()) {
			os << " prefix ";
			write_operand(os, fn->getPrefixData());
		}
		if (fn->hasPrologueData()) {
			os << " prologue ";
			write_operand(os, fn->getPrologueData());
		}
	} else if (const auto *var = llvm::dyn_cast<llvm::GlobalVariable>(g)) {
		os << " constant " << var->isConstant() << " ext-init " << var->isExternallyInitialized()
		   << " attrs{" << var->getAttributes().getAsString() << '}';
#if LLVM_VERSION_MAJOR >= 18
		if (var->getCodeModel())
			os << " model " << static_cast<int>(*var->getCodeModel());
#endif
	} else if (const auto *alias = llvm::dyn_cast<llvm::GlobalAlias>(g)) {
		os << " aliasee ";
		if (alias->getAliasee())
			write_operand(os, alias->getAliasee());
	}
	os.flush();
	if (hand_back(buffer, text, size) < 0)
		return -1;
	return attached ? 1 : 0;
}

/*
 * The order of uses.  A partition's clone takes each value's uses in the
 * order of the merged module's (use_order.cpp), and that order is made
 * by the IR linker from every input: which module defines a global, and
 * whether a declaration was replaced when its definition came, reverse
 * parts of a global's list.  So a plan also says, for each global the
 * partition holds or names, the order in which its uses among the
 * partition's bodies come: each use as the holder's place among what the
 * partition holds, the use's place among the holder's uses of the global
 * in the text of its body, and the operand; a use through a constant
 * expression as the constant (globals in it by their place) and its own
 * uses, in turn.  The uses inside a body need nothing more: the IR linker
 * sets every operand of a body it brings in, in order, and the first input
 * keeps the order its bytes give (the plan says which bodies are its).
 */
struct ol_be_use_order {
	size_t (*node_of)(void *arg, LLVMValueRef gv);
	void *arg;
	struct Site {
		size_t holder;                /* node of the function or global using it */
		unsigned rank;                /* among the holder's uses, in its text */
		unsigned operand;
		const llvm::Constant *via;    /* a constant using it, or null */
	};
	/* Per value, its uses in list order; empty with `unknown` set when a
	 * user is of a kind the plan cannot place.  (A node map: the list a
	 * caller walks stays put while a constant's own list is added.) */
	std::unordered_map<const llvm::Value *, std::vector<Site>> sites;
	llvm::DenseMap<const llvm::Value *, bool> unknown;
	llvm::DenseMap<const llvm::BasicBlock *, unsigned> block_index;
};

namespace {

unsigned block_index(ol_be_use_order &order, const llvm::BasicBlock *block)
{
	auto found = order.block_index.find(block);

	if (found != order.block_index.end())
		return found->second;
	unsigned i = 0;
	for (const llvm::BasicBlock &b : *block->getParent())
		order.block_index[&b] = i++;
	return order.block_index[block];
}

/* v's uses in list order, made once. */
const std::vector<ol_be_use_order::Site> *sites_of(ol_be_use_order &order, const llvm::Value *v)
{
	auto found = order.sites.find(v);

	if (found != order.sites.end())
		return order.unknown.count(v) ? nullptr : &found->second;
	std::vector<ol_be_use_order::Site> list;
	std::vector<const llvm::Instruction *> insts;
	bool unknown = false;

	for (const llvm::Use &use : v->uses()) {
		const llvm::User *user = use.getUser();
		ol_be_use_order::Site site = { SIZE_MAX, 0, use.getOperandNo(), nullptr };
		const llvm::Instruction *inst = llvm::dyn_cast<llvm::Instruction>(user);

		if (inst)
			site.holder = order.node_of(order.arg, llvm::wrap(inst->getFunction()));
		else if (auto *gv = llvm::dyn_cast<llvm::GlobalValue>(user))
			site.holder = order.node_of(order.arg, llvm::wrap(gv));
		else if (auto *c = llvm::dyn_cast<llvm::Constant>(user))
			site.via = c;
		else
			unknown = true;
		list.push_back(site);
		insts.push_back(inst);
	}
	/* Each holder's uses ranked in the text of its body. */
	std::vector<size_t> by_text(list.size());
	for (size_t i = 0; i < list.size(); i++)
		by_text[i] = i;
	std::stable_sort(by_text.begin(), by_text.end(), [&](size_t a, size_t b) {
		const llvm::Instruction *x = insts[a], *y = insts[b];

		if (list[a].holder != list[b].holder)
			return list[a].holder < list[b].holder;
		if (!x || !y) {
			if ((x == nullptr) != (y == nullptr))
				return x == nullptr;
			return list[a].operand < list[b].operand;
		}
		if (x == y)
			return list[a].operand < list[b].operand;
		if (x->getParent() != y->getParent())
			return block_index(order, x->getParent()) < block_index(order, y->getParent());
		return x->comesBefore(y);
	});
	for (size_t k = 0; k < by_text.size(); k++) {
		size_t i = by_text[k];
		bool same = k > 0 && list[by_text[k - 1]].holder == list[i].holder;

		list[i].rank = same ? list[by_text[k - 1]].rank + 1 : 0;
	}
	if (unknown)
		order.unknown[v] = true;
	auto &stored = order.sites[v];
	stored = std::move(list);
	return unknown ? nullptr : &stored;
}

/* A constant by its structure, a global in it by its place among what the
 * partition holds; false when one is not held. */
bool describe_constant(ol_be_use_order &order, const llvm::Constant *c,
		       size_t (*held_rank)(void *arg, size_t node, int body), void *arg,
		       llvm::raw_ostream &os)
{
	if (auto *gv = llvm::dyn_cast<llvm::GlobalValue>(c)) {
		size_t rank = held_rank(arg, order.node_of(order.arg, llvm::wrap(gv)), 0);

		os << 'h' << rank;
		return rank != SIZE_MAX;
	}
	if (auto *ce = llvm::dyn_cast<llvm::ConstantExpr>(c))
		os << 'e' << ce->getOpcodeName();
	else
		os << 'k';
	write_type(os, c->getType());
	if (c->getNumOperands() == 0) {
		write_operand(os, c);
		return true;
	}
	os << '(';
	for (const llvm::Use &op : c->operands()) {
		auto *operand = llvm::dyn_cast<llvm::Constant>(op.get());
		if (!operand || !describe_constant(order, operand, held_rank, arg, os))
			return false;
		os << ',';
	}
	os << ')';
	return true;
}

/* 0 with v's uses among the partition's bodies written, 1 when they
 * cannot be told. */
int write_use_order(ol_be_use_order &order, const llvm::Value *v,
		    size_t (*held_rank)(void *arg, size_t node, int body), void *arg,
		    llvm::raw_ostream &os, unsigned depth)
{
	const std::vector<ol_be_use_order::Site> *list = sites_of(order, v);

	if (!list || depth > 8)
		return 1;
	for (const ol_be_use_order::Site &site : *list) {
		if (site.via) {
			std::string inner;
			llvm::raw_string_ostream nested(inner);

			if (write_use_order(order, site.via, held_rank, arg, nested, depth + 1))
				return 1;
			nested.flush();
			if (inner.empty())
				continue;
			os << "c(";
			if (!describe_constant(order, site.via, held_rank, arg, os))
				return 1;
			os << ")[" << inner << ']';
			continue;
		}
		size_t rank = site.holder == SIZE_MAX ? SIZE_MAX : held_rank(arg, site.holder, 1);

		if (rank != SIZE_MAX)
			os << 'u' << rank << '.' << site.rank << '.' << site.operand << ';';
	}
	return 0;
}

} // namespace

struct ol_be_use_order *ol_be_use_order_new(size_t (*node_of)(void *arg, LLVMValueRef gv),
					    void *arg)
{
	auto *order = new (std::nothrow) ol_be_use_order;

	if (order) {
		order->node_of = node_of;
		order->arg = arg;
	}
	return order;
}

/*
 * The order of gv's uses among what the partition holds: held_rank(arg,
 * node, body) is node's place among the globals the partition holds
 * (body: among those whose body or initializer it holds), SIZE_MAX when
 * it holds none.  Returns 0 with *text malloc'd (empty: nothing to tell),
 * 1 when the order cannot be told (the partition is then not planned), -1
 * when out of memory.
 */
int ol_be_use_order_text(struct ol_be_use_order *order, LLVMValueRef gv,
			 size_t (*held_rank)(void *arg, size_t node, int body), void *arg,
			 char **text, size_t *size)
{
	std::string buffer;
	llvm::raw_string_ostream os(buffer);

	if (write_use_order(*order, llvm::unwrap(gv), held_rank, arg, os, 0))
		return 1;
	os.flush();
	return hand_back(buffer, text, size);
}

void ol_be_use_order_free(struct ol_be_use_order *order)
{
	delete order;
}
