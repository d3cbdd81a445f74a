/*
 * Private interface between the files of the LLVM backend module
 * (offload-link-llvm.so).  Nothing here is visible outside the module: it is
 * built with hidden visibility and exports only offload_link_backend().
 *
 * Conventions shared by every file of the module:
 *   - everything handed back to the executable is malloc'd (backend.h);
 *   - an error is a malloc'd message in *err, returned as -1;
 *   - every call that touches IR creates its own LLVMContext and installs a
 *     struct ol_be_diag on it, so two threads never share LLVM state and an
 *     LLVM error never reaches the default handler (which exits the process).
 */
#ifndef OFFLOAD_BACKEND_IMPL_H
#define OFFLOAD_BACKEND_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>

#include "offload/backend.h"

/*
 * The module is built against every installed LLVM (16, 19, 22).  The
 * 64-bit-length calls it uses came later than 16; before them, the 32-bit
 * forms, whose limits are checked where a length can be large
 * (ol_be_byte_array).
 */
#if OL_LLVM_MAJOR < 17
#define LLVMArrayType2(elem, n) LLVMArrayType((elem), (unsigned)(n))
#define LLVMConstArray2(elem, vals, n) LLVMConstArray((elem), (vals), (unsigned)(n))
#define LLVMGetArrayLength2(type) LLVMGetArrayLength(type)
#endif
#if OL_LLVM_MAJOR < 19
#define LLVMConstStringInContext2(ctx, str, n, no_nul) \
	LLVMConstStringInContext((ctx), (str), (unsigned)(n), (no_nul))
#endif

#if defined(__GNUC__)
#define OL_BE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OL_BE_PRINTF(f, a)
#endif

/* --- messages (common.c) ------------------------------------------------ */

/* A growing, malloc'd message: several LLVM diagnostics become one *err. */
struct ol_be_msg {
	char *text;
	size_t len;
	int failed_alloc;
};

void ol_be_msg_addf(struct ol_be_msg *msg, const char *fmt, ...) OL_BE_PRINTF(2, 3);
/* Moves the text into *err (or a fixed message if nothing was collected)
 * and returns -1, so callers can write `return ol_be_msg_fail(...)`. */
int ol_be_msg_fail(struct ol_be_msg *msg, char **err, const char *fallback);
void ol_be_msg_release(struct ol_be_msg *msg);

/* *err = formatted malloc'd message; returns -1. */
int ol_be_fail(char **err, const char *fmt, ...) OL_BE_PRINTF(2, 3);
/* Consumes an LLVMErrorRef into *err with a prefix; returns -1. */
int ol_be_fail_llvm_error(char **err, LLVMErrorRef e, const char *what);

char *ol_be_strdup(const char *s);
char *ol_be_strndup(const char *s, size_t n);
/* Room for element `count` of an array of *capacity elements of `size`
 * bytes: the array itself when there is room, else a larger one (double,
 * or `first` elements to begin), *capacity updated.  NULL when out of
 * memory, the array and *capacity as they were. */
void *ol_be_grow(void *array, size_t *capacity, size_t count, size_t size, size_t first);

/* The program name used for warnings LLVM reports (set by init). */
const char *ol_be_progname(void);
void ol_be_set_progname(const char *argv0);

/* --- diagnostics of one context (common.c) ------------------------------- */

/* Errors are collected (prefixed with `module` when set); warnings, notes and
 * remarks go to stderr at once, as upstream prints them. */
struct ol_be_diag {
	struct ol_be_msg errors;
	const char *module;             /* input being parsed/linked, may be NULL */
	int nerrors;
};

/* A fresh context with `diag` installed as its diagnostic handler. */
LLVMContextRef ol_be_context_create(struct ol_be_diag *diag);
/* That handler (opaque: the struct ol_be_diag). */
void ol_be_diag_handler(LLVMDiagnosticInfoRef info, void *opaque);

/* --- builtin bitcode (builtin_bitcode.cpp) ------------------------------- */

/* Links into dest what it uses of lib (consumed), lib's symbols made
 * internal, as clang's -mlink-builtin-bitcode does.  Returns 0 or -1
 * (the context's handler has the errors). */
int ol_be_link_builtin(LLVMModuleRef dest, LLVMModuleRef lib);

/* --- optimization remarks (remarks.cpp) ---------------------------------- */

/* Replaces ctx's handler with one that collects the remarks `want` asks for
 * into *sink (encoded, offload/remark_records.h) and passes every other
 * diagnostic to forward(info, forward_arg). */
void ol_be_remarks_attach(LLVMContextRef ctx, void (*forward)(LLVMDiagnosticInfoRef, void *),
			  void *forward_arg, const struct ol_remark_request *want,
			  struct ol_buffer *sink);

/* --- what the optimizer must keep (compiler_used.c, table_guard.c) ------- */

/* Adds `values` to mod's llvm.compiler.used after what it lists: each once,
 * cast to the list's generic pointer when in another address space; an
 * unnamed global cannot be listed and is left out.  0, or -1 when out of
 * memory. */
int ol_be_compiler_used_add(LLVMModuleRef mod, const LLVMValueRef *values, size_t n);
/* Takes `values` off mod's llvm.compiler.used.  0, or -1 when out of
 * memory. */
int ol_be_compiler_used_remove(LLVMModuleRef mod, const LLVMValueRef *values, size_t n);

/* The tables LLVM's Attributor would misread (table_guard.c says which and
 * why), by name: listed in llvm.compiler.used while an OpenMP device module
 * is optimized.  Zero-initialized; ol_be_guard_free releases it. */
struct ol_be_table_guard {
	char **names;
	size_t count, capacity;
};
/* Before a pipeline that runs OpenMPOpt (req->opt_level > 0): lists the
 * module's tables not listed yet.  0, or -1 when out of memory. */
int ol_be_guard_tables(LLVMModuleRef mod, const struct ol_lto_request *req,
		       struct ol_be_table_guard *guard);
/* After the optimization: the listed tables nothing reads are taken off the
 * list and deleted; the others stay listed.  0, or -1 with *err. */
int ol_be_guard_release(LLVMModuleRef mod, LLVMTargetMachineRef tm,
			struct ol_be_table_guard *guard, char **err);
void ol_be_guard_free(struct ol_be_table_guard *guard);

/* --- targets and code generation (codegen.c, emit.cpp) ------------------- */

/* Registers every target built into libLLVM, once per process. */
void ol_be_init_targets(void);

/* A PIC target machine for `triple`; NULL with *err when the target is not
 * registered. */
LLVMTargetMachineRef ol_be_target_machine(const char *triple, const char *cpu,
					  const char *features,
					  LLVMCodeGenOptLevel level, char **err);

/* A bitcode file's global symbols from the table stored beside its module
 * (symbol_table.cpp): add() for each, as struct ol_bc_symbol has them.  0
 * when read, 1 when the file has no table this LLVM reads, -1 when add()
 * failed. */
int ol_be_symbol_table_read(const uint8_t *data, size_t size,
			    int (*add)(void *arg, const char *name, size_t len, int defined,
				       int weak, int hidden, int common),
			    void *arg);

/* One Linker for all of an LTO's input modules (module_linker.cpp): add()
 * consumes src, returns 0 or -1 (the error went to the context's handler).
 * NULL from create(): out of memory. */
struct ol_be_module_linker;
struct ol_be_module_linker *ol_be_module_linker_create(LLVMModuleRef dest);
int ol_be_module_linker_add(struct ol_be_module_linker *linker, LLVMModuleRef src);
void ol_be_module_linker_free(struct ol_be_module_linker *linker);

/* Code generation as llc and LLVM's LTO backend run it: a legacy pass
 * manager with the module triple's TargetLibraryInfo (emit.cpp).  0 with
 * *out, or -1 with *message (LLVMDisposeMessage). */
int ol_be_emit_module(LLVMTargetMachineRef tm, LLVMModuleRef mod, int assembly,
		      LLVMMemoryBufferRef *out, char **message);
/* The module's global variables each after those its initializer names
 * (module order otherwise), for a printer that would pick that order
 * through a set of pointers (emit.cpp). */
void ol_be_order_globals_by_use(LLVMModuleRef mod);

/* Runs codegen on `mod` and copies the result into a malloc'd buffer. */
int ol_be_emit(LLVMTargetMachineRef tm, LLVMModuleRef mod, LLVMCodeGenFileType type,
	       struct ol_buffer *out, char **err);

/* The module's bitcode, copied into a malloc'd buffer. */
int ol_be_write_bitcode(LLVMModuleRef mod, struct ol_buffer *out, char **err);

/* Turns llvm.global_ctors/dtors into .init_array.N/.fini_array.N entries
 * for ELF CPU targets (see codegen.c for why). */
void ol_be_lower_structors(LLVMModuleRef mod);

/* Copies an LLVM string (e.g. LLVMPrintModuleToString) into malloc'd memory
 * and disposes the original. */
char *ol_be_take_message(char *llvm_message);

/* --- LTO steps that partitioning shares (lto.c, clone_defining.cpp) ------ */

/* The metadata kind that tags a definition with its input module in split
 * mode (lto.c); the partitioner reads and erases it. */
#define OL_BE_UNIT_MD "ol.unit"

/* Parses req's modules into a fresh context (with `diag` installed) and
 * links them into one, the first definition prevailing when the request
 * says so, each definition tagged with its module when
 * req->module_partition is set; NULL with *err (the context is gone then).
 * remarks (may be NULL): where the context's remarks go, when
 * req->remarks wants any.
 * ol_be_link_request_end disposes the module, its messages and context. */
LLVMModuleRef ol_be_link_request(const struct ol_lto_request *req, struct ol_be_diag *diag,
				 struct ol_buffer *remarks, char **err);
void ol_be_link_request_end(LLVMModuleRef mod, struct ol_be_diag *diag);
/* The same, but the module and its context stay until the process ends
 * (held from here, so a leak checker sees them as reachable): freeing a
 * big module walks it object by object, work that exit does for free. */
void ol_be_link_request_keep(LLVMModuleRef mod, struct ol_be_diag *diag);
/* What follows the link of a whole program: internalize what no other
 * input sees (req->preserve), and the AMDGPU kernel calling convention. */
int ol_be_close_module(LLVMModuleRef mod, const struct ol_lto_request *req, char **err);
struct ol_be_use_places;
/* A clone of mod in its context holding, of gvs[0..n) (every global,
 * function and alias of mod, in module order), the definitions of those
 * with what[i] == 2 and declarations of those with what[i] == 1, in
 * module order; clones[i] gets each one's clone, or NULL.  A global with
 * what[i] == 0 that something maps all the same is declared, index_of()
 * giving its i.  NULL when gvs is not the module's list. */
LLVMModuleRef ol_be_clone_partition(LLVMModuleRef mod, const LLVMValueRef *gvs,
				    const unsigned char *what, size_t n, LLVMValueRef *clones,
				    size_t (*index_of)(void *arg, LLVMValueRef gv), void *arg,
				    struct ol_be_use_places *places);
/* Where the uses of the merged module's much used values stand in their
 * lists, for every clone of one split (the clone follows that order). */
struct ol_be_use_places;
struct ol_be_use_places *ol_be_use_places_new(void);
void ol_be_use_places_free(struct ol_be_use_places *places);
/* Cuts a partition's named metadata to what concerns its definitions. */
void ol_be_prune_named_metadata(LLVMModuleRef mod);
/* The module's bitcode with its local names numbered in module order, for
 * a cache key; *data malloc'd.  Returns 0 or -1 (out of memory). */
int ol_be_canonical_bitcode(LLVMModuleRef mod, uint8_t **data, size_t *size);
/* The use-list order of the module's globals, arguments, blocks and
 * instructions, as named metadata of the module (a partition's, which
 * follows the merged module's): 0, or -1 when out of memory.  The LTO
 * that reads the partition applies it and drops the list: 0, or -1 when
 * it is malformed. */
int ol_be_record_use_order(LLVMModuleRef mod);
int ol_be_apply_use_order(LLVMModuleRef mod);
/* The module's bitcode at path with its use-list order (--save-temps):
 * 0, or -1. */
int ol_be_save_bitcode_ordered(LLVMModuleRef mod, const char *path);
/* The text of a partition plan (plan_text.cpp): the merged module's part
 * (1: none, under debug information) and one global's header (1: made,
 * but the global carries metadata); *text malloc'd; -1 out of memory. */
int ol_be_module_plan_text(LLVMModuleRef mod, char **text, size_t *size);
int ol_be_global_plan_text(LLVMValueRef gv, char **text, size_t *size);
/* Each nvvm.annotations entry about a global, in list order, to each()
 * (the module's text leaves them out); 1 when one cannot be written. */
int ol_be_annotation_plan_texts(LLVMModuleRef mod,
				void (*each)(void *arg, LLVMValueRef gv, const char *text, size_t size),
				void *arg);
/* The order of a global's uses among what one partition holds (plan_text.cpp):
 * node_of() maps a global of the merged module to its node; each value's
 * uses are read once for all partitions. */
struct ol_be_use_order;
struct ol_be_use_order *ol_be_use_order_new(size_t (*node_of)(void *arg, LLVMValueRef gv),
					    void *arg);
int ol_be_use_order_text(struct ol_be_use_order *order, LLVMValueRef gv,
			 size_t (*held_rank)(void *arg, size_t node, int body), void *arg,
			 char **text, size_t *size);
void ol_be_use_order_free(struct ol_be_use_order *order);

/* --- the entry points (one file each) ------------------------------------ */

int ol_be_bitcode_info(const uint8_t *data, size_t size, const char *name,
		       struct ol_bc_info *out, char **err);
void ol_be_bitcode_info_free(struct ol_bc_info *info);
int ol_be_bitcode_symbols(const uint8_t *data, size_t size, const char *name,
			  struct ol_bc_symbol **syms, size_t *nsyms, char **err);
int ol_be_lto(const struct ol_lto_request *req, struct ol_buffer *out, struct ol_buffer *remarks,
	      char **err);
int ol_be_split(const struct ol_lto_request *req, struct ol_buffer *parts,
		struct ol_buffer *keys, char **err);
int ol_be_wrap(const struct ol_wrap_request *req, struct ol_buffer *obj,
	       char **ir_text, char **err);

/* --- wrapper modules (registration_openmp.c, registration_cuda_hip.c, registration_sycl.c) -------- */

/* Fill `mod` (fresh, with its triple set) with the registration code. */
int ol_be_wrap_openmp(LLVMModuleRef mod, const struct ol_wrap_request *req, char **err);
int ol_be_wrap_cuda_hip(LLVMModuleRef mod, const struct ol_wrap_request *req, char **err);
int ol_be_wrap_sycl(LLVMModuleRef mod, const struct ol_wrap_request *req, char **err);

/* Shared by the wrapper builders (registration_common.c). */
enum ol_be_objfmt { OL_BE_ELF, OL_BE_COFF, OL_BE_MACHO };
enum ol_be_objfmt ol_be_object_format(const char *triple);

/* getEntryTy(): %struct.__tgt_offload_entry of the flavor's layout (16:
 * %__tgt_offload_entry), created on first use. */
LLVMTypeRef ol_be_entry_type(LLVMModuleRef mod, int flavor);
/* emitOffloadingEntry() (22 layout): the name string in
 * .llvm.rodata.offloading (listed in !llvm.offloading.symbols) and the weak
 * entry ".offloading.entry.<name>" in `section`; addr may be NULL.  Returns
 * the entry, NULL when out of memory. */
LLVMValueRef ol_be_offloading_entry(LLVMModuleRef mod, uint16_t kind, LLVMValueRef addr,
				    const char *name, uint64_t size, uint32_t flags,
				    uint64_t data, const char *section);

struct ol_be_entry_array {
	LLVMTypeRef entry_type;         /* %struct.__tgt_offload_entry (or 16's name) */
	LLVMValueRef begin, end;        /* __start_<sec> / __stop_<sec> */
};
/* getOffloadEntryArray() of the flavor: the bracketing globals of section
 * `section` and, on ELF, the dummy that forces the linker to define them.
 * 0, or -1 when out of memory. */
int ol_be_entry_array(LLVMModuleRef mod, int flavor, const char *section,
		       const char *dummy_name_16, struct ol_be_entry_array *out);
/* appendToGlobalCtors / appendToGlobalDtors for a module that has none
 * yet. */
void ol_be_append_structor(LLVMModuleRef mod, const char *array_name, LLVMValueRef fn,
			   unsigned priority);
/* getOrInsertFunction(): the declaration `name` of type `fn_type`. */
LLVMValueRef ol_be_get_function(LLVMModuleRef mod, const char *name, LLVMTypeRef fn_type);
/* An internal function with section ".text.startup", as every wrapper
 * constructor/destructor has. */
LLVMValueRef ol_be_startup_function(LLVMModuleRef mod, const char *name, LLVMTypeRef fn_type);
/* A [N x i8] constant holding `size` bytes (zeroinitializer when all zero,
 * as ConstantDataArray does). */
LLVMValueRef ol_be_byte_array(LLVMContextRef ctx, const uint8_t *data, size_t size,
			      char **err);

#endif
