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
#include <llvm/ADT/SmallString.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* Declared for the C files in backend_impl.h. */
extern "C" int ol_be_emit_module(LLVMTargetMachineRef tm, LLVMModuleRef mod, int assembly,
				 LLVMMemoryBufferRef *out, char **message);

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
