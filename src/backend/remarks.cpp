/*
 * remarks: the optimization remarks of an LTO run, collected for the
 * executable (docs/design/remarks.md).
 *
 * The C API's diagnostic callback sees a remark only as a severity and a
 * printed line, and cannot say which remarks are wanted: the context's
 * handler decides that (the passes ask before they build a remark, and
 * most build none when nobody listens).  So a remark-collecting link gets
 * a DiagnosticHandler of its own: it answers "enabled" from the request's
 * patterns, encodes each remark it is given (offload/remark_records.h)
 * with its pass, name, function, location and arguments, and hands every
 * other diagnostic to the C handler of common.c, as before.
 *
 * Built as clone_defining.cpp is (C++17, no exceptions, no RTTI).
 */
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/Regex.h>
#include <llvm-c/Core.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "offload/backend.h"
#include "offload/remark_records.h"

/* Declared for the C files in backend_impl.h. */
extern "C" void ol_be_remarks_attach(LLVMContextRef ctx, void (*forward)(LLVMDiagnosticInfoRef, void *),
				     void *forward_arg, const struct ol_remark_request *want,
				     struct ol_buffer *sink);

namespace {

/* A pattern of the request, compiled once per run; an invalid one matches
 * nothing (the executable checked the patterns before any link ran). */
std::optional<llvm::Regex> compile(const char *pattern)
{
	if (!pattern)
		return std::nullopt;
	llvm::Regex re(pattern);
	std::string why;
	if (!re.isValid(why))
		return std::nullopt;
	return std::optional<llvm::Regex>(std::move(re));
}

class Collector final : public llvm::DiagnosticHandler {
public:
	Collector(void (*forward)(LLVMDiagnosticInfoRef, void *), void *forward_arg,
		  const ol_remark_request *want, ol_buffer *sink)
		: forward(forward), forward_arg(forward_arg), passed(compile(want->passed)),
		  missed(compile(want->missed)), analysis(compile(want->analysis)),
		  all(want->all != 0), sink(sink)
	{
	}

	bool handleDiagnostics(const llvm::DiagnosticInfo &info) override
	{
		if (info.getSeverity() == llvm::DS_Remark) {
			if (auto *remark = llvm::dyn_cast<llvm::DiagnosticInfoOptimizationBase>(&info))
				record(*remark);
			return true;
		}
		forward(reinterpret_cast<LLVMDiagnosticInfoRef>(
				const_cast<llvm::DiagnosticInfo *>(&info)),
			forward_arg);
		return true;
	}

	bool isAnalysisRemarkEnabled(llvm::StringRef pass) const override
	{
		return all || matches(analysis, pass);
	}
	bool isMissedOptRemarkEnabled(llvm::StringRef pass) const override
	{
		return all || matches(missed, pass);
	}
	bool isPassedOptRemarkEnabled(llvm::StringRef pass) const override
	{
		return all || matches(passed, pass);
	}
	bool isAnyRemarkEnabled() const override
	{
		return all || passed || missed || analysis;
	}

private:
	static bool matches(const std::optional<llvm::Regex> &re, llvm::StringRef pass)
	{
		return re && re->match(pass);
	}

	/* The kind's YAML tag, and the pattern that selects it for printing. */
	const char *classify(const llvm::DiagnosticInfoOptimizationBase &r,
			     const std::optional<llvm::Regex> **pattern) const
	{
		switch (r.getKind()) {
		case llvm::DK_OptimizationRemark:
		case llvm::DK_MachineOptimizationRemark:
			*pattern = &passed;
			return "Passed";
		case llvm::DK_OptimizationRemarkMissed:
		case llvm::DK_MachineOptimizationRemarkMissed:
			*pattern = &missed;
			return "Missed";
		case llvm::DK_OptimizationRemarkAnalysisFPCommute:
			*pattern = &analysis;
			return "AnalysisFPCommute";
		case llvm::DK_OptimizationRemarkAnalysisAliasing:
			*pattern = &analysis;
			return "AnalysisAliasing";
		case llvm::DK_OptimizationFailure:
			*pattern = &missed;
			return "Failure";
		default:
			*pattern = &analysis;
			return "Analysis";
		}
	}

	void field(const std::string &s) { field(s.data(), s.size()); }
	void field(llvm::StringRef s) { field(s.data(), s.size()); }
	void field(const char *s, size_t n)
	{
		encoded.append(s, n);
		encoded.push_back('\0');
	}
	/* The name a reader of the source knows ("" when it is the symbol's):
	 * printed for a remark without a place.  Itanium, Microsoft, Rust and
	 * D manglings, as llvm-cxxfilt reads them. */
	void demangled(llvm::StringRef name)
	{
		std::string symbol = name.str();
		std::string readable = llvm::demangle(symbol);

		if (readable == symbol)
			field("", 0);
		else
			field(readable);
	}
	void location(const llvm::DiagnosticLocation &loc)
	{
		if (loc.isValid()) {
			field(loc.getRelativePath());
			field(std::to_string(loc.getLine()));
			field(std::to_string(loc.getColumn()));
		} else {
			field("", 0);
			field("0", 1);
			field("0", 1);
		}
	}

	void record(const llvm::DiagnosticInfoOptimizationBase &r)
	{
		const std::optional<llvm::Regex> *pattern;
		const char *kind = classify(r, &pattern);
		bool shown = matches(*pattern, r.getPassName());

		if (!shown && !all)
			return;
		encoded.clear();
		field(llvm::StringRef(kind));
		field(llvm::StringRef(shown ? "1" : "0"));
		field(llvm::StringRef(r.getPassName()));
		field(r.getRemarkName());
		field(r.getFunction().getName());
		demangled(r.getFunction().getName());
		location(r.getLocation());
		field(std::to_string(r.getArgs().size()));
		for (const auto &arg : r.getArgs()) {
			field(arg.Key);
			field(arg.Val);
			location(arg.Loc);
		}
		append();
	}

	void append()
	{
		size_t head = sink->size ? 0 : OL_REMARKS_MAGIC_LEN;
		auto *grown = static_cast<uint8_t *>(
			std::realloc(sink->data, sink->size + head + encoded.size()));
		if (!grown)
			return; /* a remark lost to a failed allocation; the link goes on */
		sink->data = grown;
		if (head)
			std::memcpy(sink->data, OL_REMARKS_MAGIC, head);
		std::memcpy(sink->data + sink->size + head, encoded.data(), encoded.size());
		sink->size += head + encoded.size();
	}

	void (*forward)(LLVMDiagnosticInfoRef, void *);
	void *forward_arg;
	std::optional<llvm::Regex> passed, missed, analysis;
	bool all;
	ol_buffer *sink;
	std::string encoded;
};

} // namespace

extern "C" void ol_be_remarks_attach(LLVMContextRef ctx, void (*forward)(LLVMDiagnosticInfoRef, void *),
				     void *forward_arg, const struct ol_remark_request *want,
				     struct ol_buffer *sink)
{
	llvm::unwrap(ctx)->setDiagnosticHandler(
		std::make_unique<Collector>(forward, forward_arg, want, sink));
}
