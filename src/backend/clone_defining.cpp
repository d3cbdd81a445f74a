/*
 * clone_defining: the three calls partitioned LTO needs that the LLVM C API
 * lacks.
 *
 * Cloning a partition.  LLVMCloneModule copies every body; a partition keeps a few
 * hundred of the merged module's thousands of functions, so cloning all and
 * deleting most would cost each partition the whole module (and the C API
 * cannot turn a definition into a declaration in place).  CloneModule's
 * ShouldCloneDefinition does it in one pass: the chosen definitions get
 * their bodies, everything else becomes an external declaration.
 *
 * Pruning named metadata.  The C API can add to a named metadata node but
 * not remove from it.  A partition's copy of the merged module's lists
 * names every input's kernels, and under -g every input's compile unit
 * (with its globals, types and files), so an edit anywhere would change
 * every partition's bytes (its cache key) unless the lists are cut to what
 * the partition defines.
 *
 * Canonical names for the cache key.  The IR linker renames a module's
 * private globals and struct types after those of the modules linked
 * before it (".str" becomes ".str5" when another input gains a string), so
 * a partition's bitcode would change with any edit of an earlier input.
 * Its key is taken from bitcode in which local globals and named types are
 * numbered in module order; the names are put back for the code.  The C
 * API cannot rename a struct type.
 *
 * Built with the backend (C++17, no exceptions, no RTTI, as libLLVM is);
 * the only other C++ of offload-link is remarks.cpp, for the same reason.
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

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

/* Declared for the C files in backend_impl.h. */
extern "C" LLVMModuleRef ol_be_clone_defining(LLVMModuleRef mod,
					      int (*keep)(LLVMValueRef gv, void *arg), void *arg);
extern "C" void ol_be_prune_named_metadata(LLVMModuleRef mod);
extern "C" int ol_be_canonical_bitcode(LLVMModuleRef mod, uint8_t **data, size_t *size);

LLVMModuleRef ol_be_clone_defining(LLVMModuleRef mod,
					      int (*keep)(LLVMValueRef gv, void *arg), void *arg)
{
	llvm::ValueToValueMapTy map;
	std::unique_ptr<llvm::Module> clone =
		llvm::CloneModule(*llvm::unwrap(mod), map, [&](const llvm::GlobalValue *gv) {
			return keep(llvm::wrap(gv), arg) != 0;
		});

	return llvm::wrap(clone.release());
}

/* nvvm.annotations keeps the entries of the partition's definitions (the
 * others point at nothing once their declarations are gone); llvm.ident
 * keeps one of each; omp_offload.info, the compiler's table of every
 * input's target regions, which no pass after clang reads, goes. */
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
