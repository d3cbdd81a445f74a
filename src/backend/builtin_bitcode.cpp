/*
 * builtin_bitcode: --builtin-bitcode's link (19), which the LLVM C API
 * cannot make: LLVMLinkModules2 links every definition of the library and
 * keeps them external.  A vendor library (libdevice: hundreds of math
 * functions) must give the module only what it calls, and nothing it adds
 * may be seen outside, or two images, or the library and the runtime,
 * would define the same names.  This is clang's -mlink-builtin-bitcode:
 * Linker::LinkOnlyNeeded, then internalize every symbol the link added.
 *
 * Built as clone_defining.cpp is (C++17, no exceptions, no RTTI).
 */
#include <llvm/ADT/StringSet.h>
#include <llvm/IR/GlobalValue.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Transforms/IPO/Internalize.h>
#include <llvm-c/Core.h>

#include <memory>

/* Declared for the C files in backend_impl.h. */
extern "C" int ol_be_link_builtin(LLVMModuleRef dest, LLVMModuleRef lib);

extern "C" int ol_be_link_builtin(LLVMModuleRef dest, LLVMModuleRef lib)
{
	std::unique_ptr<llvm::Module> library(llvm::unwrap(lib));
	auto internalize_added = [](llvm::Module &mod, const llvm::StringSet<> &added) {
		llvm::internalizeModule(mod, [&added](const llvm::GlobalValue &gv) {
			return !gv.hasName() || added.count(gv.getName()) == 0;
		});
	};

	/* linkModules returns true on an error, which it reported. */
	return llvm::Linker::linkModules(*llvm::unwrap(dest), std::move(library),
					 llvm::Linker::Flags::LinkOnlyNeeded, internalize_added)
		       ? -1
		       : 0;
}
