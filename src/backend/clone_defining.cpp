/*
 * clone_defining: the three calls partitioned LTO needs that the LLVM C API
 * lacks.
 *
 * Cloning a partition.  LLVMCloneModule copies every body; a partition keeps a few
 * hundred of the merged module's thousands of functions, so cloning all and
 * deleting most would cost each partition the whole module (and the C API
 * cannot turn a definition into a declaration in place).  CloneModule with
 * ShouldCloneDefinition still declares every global of the module and maps
 * the metadata of each, in every partition: the split of a program grew
 * with its size times its partitions.  ol_be_clone_partition makes the
 * module CloneModule would once the unused declarations are gone, from
 * what the partition holds and names alone.
 *
 * Pruning named metadata.  The C API can add to a named metadata node but
 * not remove from it.  A partition's copy of the merged module's lists
 * names every input's kernels, and under -g every input's compile unit
 * (with its globals, types and files), so an edit anywhere would change
 * every partition's bytes (its cache key) unless the lists are cut to what
 * the partition defines.
 *
 * The merged module's use-list order.  Where a value is used several times
 * the optimizer's walks follow its use list (the order of OpenMPOpt's
 * tests for an outlined region, of a block's predecessors), and full LTO
 * optimizes the merged module as the IR linker left those lists.  A clone
 * gets its uses in the order their originals have, and carries that order
 * to its LTO (use_order.cpp), so that a partition is optimized as full LTO
 * would do it.
 *
 * Canonical names for the cache key.  The IR linker renames a module's
 * private globals and struct types after those of the modules linked
 * before it (".str" becomes ".str5" when another input gains a string), so
 * a partition's bitcode would change with any edit of an earlier input.
 * Its key is taken from bitcode in which local globals and named types are
 * numbered in module order; the names are put back for the code.  The C
 * API cannot rename a struct type.
 *
 * Built with the backend (C++17, no exceptions, no RTTI, as libLLVM is),
 * as the backend's other C++ files are, for the same reason.
 */
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Value.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>
#include <llvm-c/Core.h>

#include "use_order.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

/* Declared for the C files in backend_impl.h. */
extern "C" LLVMModuleRef ol_be_clone_partition(LLVMModuleRef mod, const LLVMValueRef *gvs,
					       const unsigned char *what, size_t n,
					       LLVMValueRef *clones,
					       size_t (*index_of)(void *arg, LLVMValueRef gv),
					       void *arg, struct ol_be_use_places *places);
extern "C" void ol_be_prune_named_metadata(LLVMModuleRef mod);
extern "C" int ol_be_canonical_bitcode(LLVMModuleRef mod, uint8_t **data, size_t *size);

namespace {

void copy_comdat(llvm::GlobalObject *to, const llvm::GlobalObject *from)
{
	const llvm::Comdat *comdat = from->getComdat();

	if (!comdat)
		return;
	llvm::Comdat *copy = to->getParent()->getOrInsertComdat(comdat->getName());
	copy->setSelectionKind(comdat->getSelectionKind());
	to->setComdat(copy);
}

/* The declaration an alias the clone does not define becomes: an alias
 * cannot stand for something defined elsewhere. */
llvm::GlobalValue *declare_alias(llvm::Module &clone, const llvm::GlobalAlias &alias)
{
	if (alias.getValueType()->isFunctionTy())
		return llvm::Function::Create(llvm::cast<llvm::FunctionType>(alias.getValueType()),
					      llvm::GlobalValue::ExternalLinkage,
					      alias.getAddressSpace(), alias.getName(), &clone);
	return new llvm::GlobalVariable(clone, alias.getValueType(), false,
					llvm::GlobalValue::ExternalLinkage, nullptr, alias.getName(),
					nullptr, alias.getThreadLocalMode(),
					alias.getType()->getAddressSpace());
}

/* A function declared only: what copyAttributesFrom took of its body
 * (personality, prefix and prologue data) would name the merged module's
 * globals. */
void forget_body_constants(llvm::Function *fn)
{
	fn->setPersonalityFn(nullptr);
	fn->setPrefixData(nullptr);
	fn->setPrologueData(nullptr);
}

/* A global the partition was not meant to name (metadata may, a template
 * parameter's value say) becomes a declaration when something maps it,
 * so that nothing of the clone points into the merged module. */
class DeclareMissing final : public llvm::ValueMaterializer {
public:
	explicit DeclareMissing(llvm::Module &clone) : clone(clone) {}

	/* What it declared: each global of the merged module and its clone. */
	std::vector<std::pair<llvm::GlobalValue *, llvm::GlobalValue *>> declared;

	llvm::Value *materialize(llvm::Value *value) override
	{
		auto *gv = llvm::dyn_cast<llvm::GlobalValue>(value);
		llvm::GlobalValue *decl = gv && gv->getParent() != &clone ? declare(gv) : nullptr;

		if (decl)
			declared.emplace_back(gv, decl);
		return decl;
	}

private:
	llvm::GlobalValue *declare(llvm::GlobalValue *gv)
	{
		if (auto *alias = llvm::dyn_cast<llvm::GlobalAlias>(gv))
			return declare_alias(clone, *alias);
		/* A declaration keeps its linkage (extern_weak stays weak), as in
		 * CloneModule; a definition left out becomes an external one. */
		llvm::GlobalValue::LinkageTypes linkage =
			gv->isDeclaration() ? gv->getLinkage() : llvm::GlobalValue::ExternalLinkage;

		if (auto *fn = llvm::dyn_cast<llvm::Function>(gv)) {
			llvm::Function *decl = llvm::Function::Create(
				fn->getFunctionType(), linkage, fn->getAddressSpace(), fn->getName(),
				&clone);
			decl->copyAttributesFrom(fn);
			decl->setLinkage(linkage);
			forget_body_constants(decl);
			return decl;
		}
		if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv)) {
			auto *decl = new llvm::GlobalVariable(
				clone, var->getValueType(), var->isConstant(), linkage, nullptr,
				var->getName(), nullptr, var->getThreadLocalMode(),
				var->getType()->getAddressSpace());
			decl->copyAttributesFrom(var);
			decl->setLinkage(linkage);
			return decl;
		}
		return nullptr;
	}

	llvm::Module &clone;
};

void copy_attachments(llvm::GlobalObject *to, const llvm::GlobalObject &from,
		      llvm::ValueToValueMapTy &map, DeclareMissing &missing)
{
	llvm::SmallVector<std::pair<unsigned, llvm::MDNode *>, 1> attached;

	from.getAllMetadata(attached);
	for (auto &entry : attached)
		to->addMetadata(entry.first, *llvm::MapMetadata(entry.second, map, llvm::RF_None,
								 nullptr, &missing));
}

/* nvvm.annotations' entries of globals the clone leaves out point at
 * nothing (ol_be_prune_named_metadata drops them all the same). */
bool names_left_out(const llvm::NamedMDNode &list, const llvm::MDNode *entry,
		    const llvm::ValueToValueMapTy &map)
{
	if (list.getName() != "nvvm.annotations" || entry->getNumOperands() == 0)
		return false;
	auto *gv = llvm::mdconst::dyn_extract_or_null<llvm::GlobalValue>(entry->getOperand(0));
	if (!gv)
		return true;
	auto found = map.find(gv);
	return found == map.end() || llvm::cast<llvm::GlobalValue>(found->second)->isDeclaration();
}

} // namespace

/*
 * CloneModule, as LLVM does it (same order of globals, functions and
 * aliases, same linkage for what is declared only), but of what the
 * partition holds and names alone: its cost is the partition's, not N
 * declarations made and deleted again nor the metadata of every global.
 * gvs: every global, function and alias of mod, in module order (globals,
 * functions, aliases); what[i]: 0 left out, 1 declared, 2 defined;
 * clones[i] gets gvs[i]'s clone or NULL.  A global left out that
 * something maps all the same (metadata may name one) is declared, after
 * the others, and index_of() says which of gvs it is.
 */
LLVMModuleRef ol_be_clone_partition(LLVMModuleRef mod, const LLVMValueRef *gvs,
				    const unsigned char *what, size_t n, LLVMValueRef *clones,
				    size_t (*index_of)(void *arg, LLVMValueRef gv), void *arg,
				    struct ol_be_use_places *places)
{
	const llvm::Module &m = *llvm::unwrap(mod);
	auto clone = std::make_unique<llvm::Module>(m.getModuleIdentifier(), m.getContext());
	llvm::ValueToValueMapTy map;
	DeclareMissing missing(*clone);
	std::vector<size_t> held;

	clone->setSourceFileName(m.getSourceFileName());
	clone->setDataLayout(m.getDataLayout());
	clone->setTargetTriple(m.getTargetTriple());
	clone->setModuleInlineAsm(m.getModuleInlineAsm());
#if LLVM_VERSION_MAJOR >= 19 && LLVM_VERSION_MAJOR < 22
	clone->IsNewDbgInfoFormat = m.IsNewDbgInfoFormat;
#endif
	if (!m.ifunc_empty())
		return nullptr;
	for (size_t i = 0; i < n; i++) {
		clones[i] = nullptr;
		if (what[i])
			held.push_back(i);
	}

	/* The declarations first, so that bodies and initializers find them. */
	for (size_t i : held) {
		llvm::GlobalValue *from = llvm::unwrap<llvm::GlobalValue>(gvs[i]);
		llvm::GlobalValue *copy;

		if (from->getParent() != &m)
			return nullptr;
		if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(from)) {
			auto *made = new llvm::GlobalVariable(
				*clone, var->getValueType(), var->isConstant(), var->getLinkage(),
				nullptr, var->getName(), nullptr, var->getThreadLocalMode(),
				var->getType()->getAddressSpace());
			made->copyAttributesFrom(var);
			copy = made;
		} else if (auto *fn = llvm::dyn_cast<llvm::Function>(from)) {
			llvm::Function *made = llvm::Function::Create(
				llvm::cast<llvm::FunctionType>(fn->getValueType()), fn->getLinkage(),
				fn->getAddressSpace(), fn->getName(), clone.get());
			made->copyAttributesFrom(fn);
			copy = made;
		} else if (auto *alias = llvm::dyn_cast<llvm::GlobalAlias>(from)) {
			if (what[i] == 2) {
				llvm::GlobalAlias *made = llvm::GlobalAlias::create(
					alias->getValueType(), alias->getType()->getPointerAddressSpace(),
					alias->getLinkage(), alias->getName(), clone.get());
				made->copyAttributesFrom(alias);
				copy = made;
			} else {
				copy = declare_alias(*clone, *alias);
			}
		} else {
			return nullptr;
		}
		map[from] = copy;
		clones[i] = llvm::wrap(copy);
	}

	for (size_t i : held) {
		llvm::GlobalValue *from = llvm::unwrap<llvm::GlobalValue>(gvs[i]);

		if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(from)) {
			auto *copy = llvm::cast<llvm::GlobalVariable>(map[var]);

			copy_attachments(copy, *var, map, missing);
			if (var->isDeclaration())
				continue;
			if (what[i] != 2) {
				copy->setLinkage(llvm::GlobalValue::ExternalLinkage);
				continue;
			}
			if (var->hasInitializer())
				copy->setInitializer(llvm::MapValue(var->getInitializer(), map,
								    llvm::RF_None, nullptr, &missing));
			copy_comdat(copy, var);
		} else if (auto *fn = llvm::dyn_cast<llvm::Function>(from)) {
			auto *copy = llvm::cast<llvm::Function>(map[fn]);

			if (fn->isDeclaration()) {
				copy_attachments(copy, *fn, map, missing);
				continue;
			}
			if (what[i] != 2) {
				copy->setLinkage(llvm::GlobalValue::ExternalLinkage);
				forget_body_constants(copy);
				continue;
			}
			auto arg = copy->arg_begin();
			for (const llvm::Argument &param : fn->args()) {
				arg->setName(param.getName());
				map[&param] = &*arg++;
			}
			llvm::SmallVector<llvm::ReturnInst *, 8> returns;
			llvm::CloneFunctionInto(copy, fn, map,
						llvm::CloneFunctionChangeType::ClonedModule, returns, "",
						nullptr, nullptr, &missing);
			if (fn->hasPersonalityFn())
				copy->setPersonalityFn(llvm::MapValue(fn->getPersonalityFn(), map,
								      llvm::RF_None, nullptr, &missing));
			copy_comdat(copy, fn);
		} else if (auto *alias = llvm::dyn_cast<llvm::GlobalAlias>(from)) {
			if (what[i] != 2 || !alias->getAliasee())
				continue;
			llvm::cast<llvm::GlobalAlias>(map[alias])
				->setAliasee(llvm::MapValue(alias->getAliasee(), map, llvm::RF_None,
							    nullptr, &missing));
		}
	}
	/* Named metadata, but not the compiler's table of every input's target
	 * regions, which no pass after clang reads. */
	for (const llvm::NamedMDNode &list : m.named_metadata()) {
		if (list.getName() == "omp_offload.info")
			continue;
		llvm::NamedMDNode *copy = clone->getOrInsertNamedMetadata(list.getName());
		for (const llvm::MDNode *entry : list.operands())
			if (!names_left_out(list, entry, map))
				copy->addOperand(llvm::MapMetadata(entry, map, llvm::RF_None, nullptr,
								   &missing));
	}
	for (auto &[from, decl] : missing.declared) {
		size_t i = index_of(arg, llvm::wrap(static_cast<llvm::Value *>(from)));

		if (i < n)
			clones[i] = llvm::wrap(static_cast<llvm::Value *>(decl));
	}
	ol_be_follow_use_order(map, places);
	return llvm::wrap(clone.release());
}

/* The debug-info compile units the module's code and data reach: through
 * the metadata of its definitions and their instructions (debug records
 * too, LLVM 19 on), and of the other named lists. */
class UnitFinder {
public:
	llvm::SmallPtrSet<const llvm::MDNode *, 8> units;

	void add(const llvm::Metadata *md)
	{
		auto *node = llvm::dyn_cast_or_null<llvm::MDNode>(md);

		if (node && seen.insert(node).second)
			work.push_back(node);
	}

	void add_attached(const llvm::GlobalObject &object)
	{
		llvm::SmallVector<std::pair<unsigned, llvm::MDNode *>, 4> attached;

		object.getAllMetadata(attached);
		for (auto &entry : attached)
			add(entry.second);
	}

	void add_instruction(const llvm::Instruction &inst)
	{
		llvm::SmallVector<std::pair<unsigned, llvm::MDNode *>, 4> attached;

		inst.getAllMetadata(attached);
		for (auto &entry : attached)
			add(entry.second);
		for (const llvm::Use &op : inst.operands())
			if (auto *wrapped = llvm::dyn_cast<llvm::MetadataAsValue>(op.get()))
				add(wrapped->getMetadata());
#if LLVM_VERSION_MAJOR >= 19
		for (const llvm::DbgRecord &record : inst.getDbgRecordRange()) {
			add(record.getDebugLoc().getAsMDNode());
			if (auto *var = llvm::dyn_cast<llvm::DbgVariableRecord>(&record)) {
				add(var->getRawVariable());
				add(var->getRawExpression());
			} else if (auto *label = llvm::dyn_cast<llvm::DbgLabelRecord>(&record)) {
				add(label->getRawLabel());
			}
		}
#endif
	}

	void close()
	{
		while (!work.empty()) {
			const llvm::MDNode *node = work.pop_back_val();

			if (auto *unit = llvm::dyn_cast<llvm::DICompileUnit>(node))
				units.insert(unit);
			for (const llvm::MDOperand &op : node->operands())
				add(op.get());
		}
	}

private:
	llvm::SmallPtrSet<const llvm::MDNode *, 32> seen;
	llvm::SmallVector<const llvm::MDNode *, 64> work;
};

/* llvm.dbg.cu keeps the compile units something in the module reaches: the
 * verifier wants every reachable unit listed, and each unit listed drags
 * its globals, types and files into the bitcode. */
static void prune_compile_units(llvm::Module *m)
{
	llvm::NamedMDNode *list = m->getNamedMetadata("llvm.dbg.cu");
	UnitFinder finder;
	llvm::SmallVector<llvm::MDNode *, 8> keep;

	if (!list)
		return;
	/* What another partition defines is declared here; the debug
	 * information of its definition (line, unit) stays with it. */
	for (llvm::GlobalVariable &gv : m->globals())
		if (gv.isDeclaration())
			gv.eraseMetadata(llvm::LLVMContext::MD_dbg);
	for (llvm::Function &fn : *m)
		if (fn.isDeclaration() && fn.getSubprogram() && fn.getSubprogram()->isDefinition())
			fn.setSubprogram(nullptr);
	if (list->getNumOperands() < 2)
		return;
	for (const llvm::Function &fn : *m) {
		if (fn.isDeclaration())
			continue;
		finder.add_attached(fn);
		for (const llvm::BasicBlock &block : fn)
			for (const llvm::Instruction &inst : block)
				finder.add_instruction(inst);
	}
	for (const llvm::GlobalVariable &gv : m->globals())
		finder.add_attached(gv);
	for (const llvm::NamedMDNode &named : m->named_metadata())
		if (&named != list)
			for (const llvm::MDNode *entry : named.operands())
				finder.add(entry);
	finder.close();
	for (llvm::MDNode *unit : list->operands())
		if (finder.units.count(unit))
			keep.push_back(unit);
	list->clearOperands();
	for (llvm::MDNode *unit : keep)
		list->addOperand(unit);
}

/* nvvm.annotations keeps the entries of the partition's definitions (the
 * others point at nothing once their declarations are gone); llvm.ident
 * keeps one of each; omp_offload.info, the compiler's table of every
 * input's target regions, which no pass after clang reads, goes. */
void ol_be_prune_named_metadata(LLVMModuleRef mod)
{
	llvm::Module *m = llvm::unwrap(mod);

	prune_compile_units(m);

	if (llvm::NamedMDNode *info = m->getNamedMetadata("omp_offload.info"))
		m->eraseNamedMetadata(info);
	if (llvm::NamedMDNode *annotations = m->getNamedMetadata("nvvm.annotations")) {
		llvm::SmallVector<llvm::MDNode *, 16> keep;

		for (llvm::MDNode *entry : annotations->operands()) {
			auto *gv = entry->getNumOperands()
					   ? llvm::mdconst::dyn_extract_or_null<llvm::GlobalValue>(
						     entry->getOperand(0))
					   : nullptr;
			if (gv && !gv->isDeclaration())
				keep.push_back(entry);
		}
		annotations->clearOperands();
		for (llvm::MDNode *entry : keep)
			annotations->addOperand(entry);
	}
	if (llvm::NamedMDNode *ident = m->getNamedMetadata("llvm.ident")) {
		llvm::SmallVector<llvm::MDNode *, 4> unique;
		llvm::SmallPtrSet<llvm::MDNode *, 4> seen;

		for (llvm::MDNode *entry : ident->operands())
			if (seen.insert(entry).second)
				unique.push_back(entry);
		ident->clearOperands();
		for (llvm::MDNode *entry : unique)
			ident->addOperand(entry);
	}
}

/* The module's bitcode with its local globals and named struct types
 * renamed in module order ("ol.l<N>", "ol.t<N>"), the names restored
 * after; *data is malloc'd.  Returns 0, or -1 when out of memory. */
int ol_be_canonical_bitcode(LLVMModuleRef mod, uint8_t **data, size_t *size)
{
	llvm::Module *m = llvm::unwrap(mod);
	std::vector<std::pair<llvm::GlobalValue *, std::string>> values;
	std::vector<std::pair<llvm::StructType *, std::string>> types;
	llvm::SmallVector<char, 0> bytes;
	unsigned serial = 0;

	for (llvm::GlobalValue &gv : m->global_values()) {
		if (!gv.hasLocalLinkage())
			continue;
		values.emplace_back(&gv, gv.getName().str());
		gv.setName("ol.l" + std::to_string(serial++));
	}
	for (llvm::StructType *type : m->getIdentifiedStructTypes()) {
		if (!type->hasName())
			continue;
		types.emplace_back(type, type->getName().str());
		type->setName("ol.t" + std::to_string(serial++));
	}
	{
		llvm::raw_svector_ostream out(bytes);
		llvm::WriteBitcodeToFile(*m, out);
	}
	for (auto &[type, name] : types)
		type->setName(name);
	for (auto &[gv, name] : values)
		gv->setName(name);
	*size = bytes.size();
	*data = static_cast<uint8_t *>(std::malloc(bytes.size() ? bytes.size() : 1));
	if (!*data)
		return -1;
	std::memcpy(*data, bytes.data(), bytes.size());
	return 0;
}
