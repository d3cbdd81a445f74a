/*
 * use_order: a partition's use-list order, the merged module's, carried in
 * the partition itself.
 *
 * A clone takes each value's uses in the merged module's order
 * (ol_be_follow_use_order, called by clone_defining.cpp): a use's place is
 * found from the clone's user back to the original's operand, and the
 * places of a much used value's uses are read once for every partition
 * (ol_be_use_places), since a global's list holds the uses of every
 * partition.  The LTO that optimizes the partition reads it
 * from bitcode in a context of its own.  LLVM's writer can keep use-list
 * order, but it walks every use of every constant the module names, and a
 * constant such as `i32 0` is shared with the merged module: each partition
 * then cost a walk of the whole program.  The order goes instead as a list
 * of the partition's own values (named metadata `ol.use.order`, one
 * string): for each global, argument, block and instruction with two uses
 * or more by instructions or globals, those users in order, each with the
 * operand.  Values and users are numbered as a module lists them: globals,
 * functions and aliases, then each body's arguments, blocks and
 * instructions, which bitcode keeps.  The list is in the partition's key as
 * any metadata is; the partition's LTO applies it and drops it before it
 * optimizes.  Uses by constants are left after the others.
 *
 * Built with the backend (C++17, no exceptions, no RTTI, as libLLVM is).
 */
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Value.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm-c/Core.h>

#include "use_order.h"

#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

extern "C" int ol_be_record_use_order(LLVMModuleRef mod);
extern "C" int ol_be_apply_use_order(LLVMModuleRef mod);
extern "C" int ol_be_save_bitcode_ordered(LLVMModuleRef mod, const char *path);
extern "C" struct ol_be_use_places *ol_be_use_places_new(void);
extern "C" void ol_be_use_places_free(struct ol_be_use_places *places);

/* Where each use of a much used value of the merged module stands in its
 * list, read once for all partitions of a split. */
struct ol_be_use_places {
	llvm::DenseMap<const llvm::Value *, llvm::DenseMap<const llvm::Use *, unsigned>> lists;

	unsigned of(const llvm::Value *value, const llvm::Use *use)
	{
		unsigned i = 0;

		if (!value->hasNUsesOrMore(32)) {
			for (const llvm::Use &u : value->uses()) {
				if (&u == use)
					return i;
				i++;
			}
			return ~0u;
		}
		auto &list = lists[value];
		if (list.empty())
			for (const llvm::Use &u : value->uses())
				list[&u] = i++;
		auto found = list.find(use);
		return found == list.end() ? ~0u : found->second;
	}
};

namespace {

const char list_name[] = "ol.use.order";

/* The values of m in the order bitcode keeps them. */
struct Numbering {
	std::vector<llvm::Value *> values;
	llvm::DenseMap<const llvm::Value *, uint32_t> id;

	explicit Numbering(llvm::Module &m)
	{
		for (llvm::GlobalValue &gv : m.global_values())
			add(&gv);
		for (llvm::Function &fn : m) {
			for (llvm::Argument &arg : fn.args())
				add(&arg);
			for (llvm::BasicBlock &block : fn) {
				add(&block);
				for (llvm::Instruction &inst : block)
					add(&inst);
			}
		}
	}

	void add(llvm::Value *v)
	{
		id[v] = static_cast<uint32_t>(values.size());
		values.push_back(v);
	}
};

void put(std::string &out, uint32_t n)
{
	while (n >= 0x80) {
		out.push_back(static_cast<char>((n & 0x7f) | 0x80));
		n >>= 7;
	}
	out.push_back(static_cast<char>(n));
}

bool get(llvm::StringRef &in, uint32_t &n)
{
	n = 0;
	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (in.empty())
			return false;
		auto byte = static_cast<unsigned char>(in.front());
		in = in.drop_front();
		n |= static_cast<uint32_t>(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return true;
	}
	return false;
}

/* Each value of the clone with two uses or more gets them in the order of
 * its original's (uses the clone made itself, llvm.compiler.used's, last).
 * A use's place is found from the clone's user back to the original's
 * operand: a global's list holds the uses of every partition, and walking
 * it for each partition made the split grow with partitions times program. */
void follow_use_order(llvm::ValueToValueMapTy &map, ol_be_use_places &places)
{
	llvm::DenseMap<const llvm::Value *, const llvm::Value *> original;
	llvm::DenseMap<const llvm::Use *, unsigned> place;

	for (auto entry : map)
		if (entry.second && entry.second != entry.first)
			original[entry.second] = entry.first;
	for (auto entry : map) {
		const llvm::Value *from = entry.first;
		llvm::Value *to = entry.second;

		if (!to || to == from || !to->hasNUsesOrMore(2))
			continue;
		place.clear();
		for (const llvm::Use &use : to->uses()) {
			auto back = original.find(use.getUser());
			unsigned at = ~0u;

			if (back != original.end()) {
				const auto *user = llvm::cast<llvm::User>(back->second);
				const llvm::Use &was = user->getOperandUse(use.getOperandNo());

				if (was.get() == from)
					at = places.of(from, &was);
			}
			place[&use] = at;
		}
		to->sortUseList([&](const llvm::Use &a, const llvm::Use &b) {
			return place.lookup(&a) < place.lookup(&b);
		});
	}
}

} // namespace

struct ol_be_use_places *ol_be_use_places_new(void)
{
	return new (std::nothrow) ol_be_use_places;
}

void ol_be_use_places_free(struct ol_be_use_places *places)
{
	delete places;
}

void ol_be_follow_use_order(llvm::ValueToValueMapTy &map, ol_be_use_places *places)
{
	ol_be_use_places own;

	follow_use_order(map, places ? *places : own);
}

/* Writes m's use-list order into `ol.use.order`: 0. */
int ol_be_record_use_order(LLVMModuleRef mod)
{
	llvm::Module &m = *llvm::unwrap(mod);
	Numbering numbering(m);
	std::vector<std::pair<uint32_t, uint32_t>> uses;
	std::string out;

	for (uint32_t v = 0; v < numbering.values.size(); v++) {
		const llvm::Value *value = numbering.values[v];

		if (!value->hasNUsesOrMore(2))
			continue;
		uses.clear();
		for (const llvm::Use &use : value->uses()) {
			auto user = numbering.id.find(use.getUser());

			if (user != numbering.id.end())
				uses.emplace_back(user->second, use.getOperandNo());
		}
		if (uses.size() < 2)
			continue;
		put(out, v);
		put(out, static_cast<uint32_t>(uses.size()));
		for (auto &[user, operand] : uses) {
			put(out, user);
			put(out, operand);
		}
	}
	if (llvm::NamedMDNode *old = m.getNamedMetadata(list_name))
		m.eraseNamedMetadata(old);
	llvm::LLVMContext &ctx = m.getContext();
	m.getOrInsertNamedMetadata(list_name)
		->addOperand(llvm::MDNode::get(ctx, llvm::MDString::get(ctx, out)));
	return 0;
}

/* Sorts each listed value's uses as `ol.use.order` says, and drops the
 * list: 0, or -1 when it is malformed (nothing is dropped then). */
int ol_be_apply_use_order(LLVMModuleRef mod)
{
	llvm::Module &m = *llvm::unwrap(mod);
	llvm::NamedMDNode *list = m.getNamedMetadata(list_name);
	llvm::DenseMap<std::pair<const llvm::User *, unsigned>, uint32_t> rank;

	if (!list)
		return 0;
	auto *node = list->getNumOperands() == 1 ? list->getOperand(0) : nullptr;
	auto *text = node && node->getNumOperands() == 1
			     ? llvm::dyn_cast_or_null<llvm::MDString>(node->getOperand(0))
			     : nullptr;
	if (!text)
		return -1;
	Numbering numbering(m);
	llvm::StringRef in = text->getString();
	uint32_t v, n, user, operand;

	while (!in.empty()) {
		if (!get(in, v) || !get(in, n) || v >= numbering.values.size())
			return -1;
		llvm::Value *value = numbering.values[v];
		rank.clear();
		for (uint32_t i = 0; i < n; i++) {
			if (!get(in, user) || !get(in, operand) || user >= numbering.values.size())
				return -1;
			auto *u = llvm::dyn_cast<llvm::User>(numbering.values[user]);
			if (!u || operand >= u->getNumOperands() || u->getOperand(operand) != value)
				return -1;
			rank[{u, operand}] = i;
		}
		auto order = [&](const llvm::Use &use) {
			auto found = rank.find({use.getUser(), use.getOperandNo()});
			return found == rank.end() ? ~0u : found->second;
		};
		value->sortUseList(
			[&](const llvm::Use &a, const llvm::Use &b) { return order(a) < order(b); });
	}
	m.eraseNamedMetadata(list);
	return 0;
}

/* A module saved for --save-temps with its use-list order, so that `opt`
 * on the file optimizes what the link's pipeline did: 0, or -1. */
int ol_be_save_bitcode_ordered(LLVMModuleRef mod, const char *path)
{
	std::error_code error;
	llvm::raw_fd_ostream out(path, error, llvm::sys::fs::OF_None);

	if (error)
		return -1;
	llvm::WriteBitcodeToFile(*llvm::unwrap(mod), out, true);
	out.close();
	if (out.has_error()) {
		out.clear_error();
		return -1;
	}
	return 0;
}
