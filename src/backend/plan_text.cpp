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
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm-c/Core.h>

#include <cstdlib>
#include <cstring>
#include <string>

extern "C" int ol_be_module_plan_text(LLVMModuleRef mod, char **text, size_t *size);
extern "C" int ol_be_global_plan_text(LLVMValueRef gv, char **text, size_t *size);
extern "C" int ol_be_annotation_plan_texts(LLVMModuleRef mod,
					   void (*each)(void *arg, LLVMValueRef gv, const char *text,
							size_t size),
					   void *arg);

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
