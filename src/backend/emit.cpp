/*
 * emit: code generation as llc, LLVM's LTO backend (LTOBackend.cpp,
 * codegen()) and clang-linker-wrapper's wrapper module run it: a legacy
 * pass manager that holds the module triple's TargetLibraryInfo, then the
 * target machine's passes.  The C API's LLVMTargetMachineEmitToMemoryBuffer
 * adds no TargetLibraryInfo, so codegen passes that ask for one get a
 * default made without a triple, which does not take sqrt and sqrtf for
 * libm's: PartiallyInlineLibCalls then kept every sqrt/sqrtf a libm call
 * where upstream's code has the instruction (sqrtss on x86_64) and calls
 * libm only for a negative input.  docs/design/device-links-and-cache-key.md,
 * "Code generation".
 *
 * Built as clone_defining.cpp is (C++17, no exceptions, no RTTI).
 */
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include <vector>

/* Declared for the C files in backend_impl.h. */
extern "C" int ol_be_emit_module(LLVMTargetMachineRef tm, LLVMModuleRef mod, int assembly,
				 LLVMMemoryBufferRef *out, char **message);
extern "C" void ol_be_order_globals_by_use(LLVMModuleRef mod);

namespace {

/* The global variables an initializer names, in operand order; a constant
 * the initializer shares is walked once (constants form a DAG). */
void used_globals(const llvm::Value *value, llvm::SmallPtrSet<const llvm::Value *, 16> &seen,
		  std::vector<llvm::GlobalVariable *> &out)
{
	if (!seen.insert(value).second)
		return;
	if (auto *gv = llvm::dyn_cast<llvm::GlobalVariable>(value)) {
		out.push_back(const_cast<llvm::GlobalVariable *>(gv));
		return;
	}
	if (auto *user = llvm::dyn_cast<llvm::User>(value))
		for (const llvm::Use &op : user->operands())
			used_globals(op.get(), seen, out);
}

void place_after_its_uses(llvm::GlobalVariable *gv, llvm::SmallPtrSet<llvm::GlobalVariable *, 32> &placed,
			  llvm::SmallPtrSet<llvm::GlobalVariable *, 8> &placing,
			  std::vector<llvm::GlobalVariable *> &order)
{
	std::vector<llvm::GlobalVariable *> used;
	llvm::SmallPtrSet<const llvm::Value *, 16> seen;

	if (placed.count(gv) || !placing.insert(gv).second)
		return;
	if (gv->hasInitializer())
		used_globals(gv->getInitializer(), seen, used);
	for (llvm::GlobalVariable *other : used)
		if (other->getParent() == gv->getParent())
			place_after_its_uses(other, placed, placing, order);
	placing.erase(gv);
	placed.insert(gv);
	order.push_back(gv);
}

} // namespace

/*
 * PTX has no forward references between globals: NVPTX's printer emits
 * each global variable after those its initializer names, which it
 * visits through a set of pointers, so a table of several strings came
 * out in an order that changed from run to run (heap addresses).  The
 * module's globals in that order already (module order otherwise, the
 * named ones in operand order) leave it nothing to choose.
 */
void ol_be_order_globals_by_use(LLVMModuleRef mod)
{
	llvm::Module *module = llvm::unwrap(mod);
	llvm::SmallPtrSet<llvm::GlobalVariable *, 32> placed;
	llvm::SmallPtrSet<llvm::GlobalVariable *, 8> placing;
	std::vector<llvm::GlobalVariable *> order;

	for (llvm::GlobalVariable &gv : module->globals())
		place_after_its_uses(&gv, placed, placing, order);
	for (llvm::GlobalVariable *gv : order) {
#if LLVM_VERSION_MAJOR >= 17
		module->removeGlobalVariable(gv);
		module->insertGlobalVariable(gv);
#else
		module->getGlobalList().remove(gv);
		module->getGlobalList().push_back(gv);
#endif
	}
}

extern "C" int ol_be_emit_module(LLVMTargetMachineRef tm, LLVMModuleRef mod, int assembly,
				 LLVMMemoryBufferRef *out, char **message)
{
	/* An LLVMTargetMachineRef is a TargetMachine (TargetMachineC.cpp). */
	llvm::TargetMachine *machine = reinterpret_cast<llvm::TargetMachine *>(tm);
	llvm::Module *module = llvm::unwrap(mod);
#if LLVM_VERSION_MAJOR >= 18
	llvm::CodeGenFileType type = assembly ? llvm::CodeGenFileType::AssemblyFile
					      : llvm::CodeGenFileType::ObjectFile;
#else
	llvm::CodeGenFileType type = assembly ? llvm::CGFT_AssemblyFile : llvm::CGFT_ObjectFile;
#endif
	llvm::SmallString<0> code;
	llvm::raw_svector_ostream stream(code);
	llvm::legacy::PassManager passes;
	/* As llc and the C API: the target machine's layout (llc sets it as it
	 * reads the module). */
	module->setDataLayout(machine->createDataLayout());
	llvm::TargetLibraryInfoImpl library_info{llvm::Triple(module->getTargetTriple())};

	passes.add(new llvm::TargetLibraryInfoWrapperPass(library_info));
	if (machine->addPassesToEmitFile(passes, stream, nullptr, type)) {
		*message = LLVMCreateMessage("the target cannot emit a file of this type");
		return -1;
	}
	passes.run(*module);
	*out = LLVMCreateMemoryBufferWithMemoryRangeCopy(code.data(), code.size(), "");
	return 0;
}
