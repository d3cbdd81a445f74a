/*
 * symbol_table: a bitcode file's global symbols read from the symbol table
 * its writer stored beside the module (the irsymtab that lld and LLVM's LTO
 * resolve with), without reading the module.  Archive resolution asks for
 * the symbols of every device image of the link, each once; loading each
 * module lazily for them took a fifth of a 3000-unit relink.
 *
 * The table lists what a lazily loaded module's global values would give
 * (bitcode.c, add_symbol), in the same order, with local symbols and
 * LLVM's own globals marked, which are left out here as there.  A file
 * without a table of the layout this LLVM reads (a writer without one, a
 * table of another version) answers 1, and the caller loads the module.
 *
 * Built as clone_defining.cpp is (C++17, no exceptions, no RTTI).
 */
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/GlobalValue.h>
#include <llvm/Object/IRSymtab.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBufferRef.h>

#include <cstddef>
#include <cstdint>

/* Declared for the C files in backend_impl.h. */
extern "C" int ol_be_symbol_table_read(const uint8_t *data, size_t size,
				       int (*add)(void *arg, const char *name, size_t len,
						  int defined, int weak, int hidden, int common),
				       void *arg);

namespace storage = llvm::irsymtab::storage;

/* The table comes with the input, which may lie: LLVM's own reader trusts
 * its offsets, so every range and string is checked against its blob. */
static bool fits(uint64_t offset, uint64_t size, uint64_t limit)
{
	return offset <= limit && size <= limit - offset;
}

static bool string_of(const storage::Str &str, llvm::StringRef strtab, llvm::StringRef *out)
{
	if (!fits(str.Offset, str.Size, strtab.size()))
		return false;
	*out = llvm::StringRef(strtab.data() + str.Offset, str.Size);
	return true;
}

int ol_be_symbol_table_read(const uint8_t *data, size_t size,
			    int (*add)(void *arg, const char *name, size_t len, int defined, int weak,
				       int hidden, int common),
			    void *arg)
{
	llvm::MemoryBufferRef buffer(
		llvm::StringRef(reinterpret_cast<const char *>(data), size), "");
	llvm::Expected<llvm::BitcodeFileContents> contents = llvm::getBitcodeFileContents(buffer);

	if (!contents) {
		llvm::consumeError(contents.takeError());
		return 1;
	}
	llvm::StringRef symtab(contents->Symtab.data(), contents->Symtab.size());
	llvm::StringRef strtab = contents->StrtabForSymtab;

	/* One module, and a table of the layout this LLVM reads (the version
	 * is the header's first word in every layout). */
	if (contents->Mods.size() != 1 || strtab.empty() || symtab.size() < sizeof(storage::Header))
		return 1;
	const storage::Header *header = reinterpret_cast<const storage::Header *>(symtab.data());
	if (header->Version != storage::Header::kCurrentVersion || header->Modules.Size != 1 ||
	    !fits(header->Modules.Offset, sizeof(storage::Module), symtab.size()) ||
	    !fits(header->Symbols.Offset, (uint64_t)header->Symbols.Size * sizeof(storage::Symbol),
		  symtab.size()))
		return 1;
	const storage::Module *module =
		reinterpret_cast<const storage::Module *>(symtab.data() + header->Modules.Offset);
	if (module->Begin != 0 || module->End != header->Symbols.Size)
		return 1;
	const storage::Symbol *syms =
		reinterpret_cast<const storage::Symbol *>(symtab.data() + header->Symbols.Offset);

	for (uint32_t i = 0; i < header->Symbols.Size; i++) {
		const storage::Symbol &sym = syms[i];
		uint32_t bits = sym.Flags;
		llvm::StringRef name;

		if (!string_of(sym.IRName, strtab, &name))
			return 1;
		/* Module asm symbols have no IR name; locals and llvm.* are no
		 * symbols of the object. */
		if (name.empty() || !(bits >> storage::Symbol::FB_global & 1) ||
		    name.starts_with("llvm."))
			continue;
		int common = bits >> storage::Symbol::FB_common & 1;
		if (add(arg, name.data(), name.size(), !(bits >> storage::Symbol::FB_undefined & 1),
			(bits >> storage::Symbol::FB_weak & 1) || common,
			(bits >> storage::Symbol::FB_visibility & 3) == llvm::GlobalValue::HiddenVisibility,
			common) < 0)
			return -1;
	}
	return 0;
}
