/*
 * backend: everything that needs libLLVM, behind one function table.
 *
 * The backend is a separate shared module (offload-link-llvm.so, built from
 * src/backend/) that links libLLVM.  The executable dlopens it only when an
 * input carries device code or host bitcode, so a plain host link never loads
 * libLLVM (upstream spends ~15 ms of every link doing that).
 *
 * Lookup: $OFFLOAD_LINK_BACKEND, then <exe dir>/../lib/offload-link/
 * offload-link-llvm.so (build tree, relocatable installs), then the configured
 * install path OL_BACKEND_INSTALL_PATH.
 *
 * Ownership: everything the backend returns (buffers, strings, arrays) is
 * allocated with malloc and freed by the caller with free().  Error strings
 * (*err) likewise.  The backend keeps no state between calls except LLVM's
 * global option registry, set once by init().
 *
 * Threading: lto() and wrap() may run concurrently on different threads; each
 * call creates and disposes its own LLVMContext.
 */
#ifndef OFFLOAD_BACKEND_H
#define OFFLOAD_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OL_BACKEND_ABI 10
#define OL_BACKEND_ENTRY "offload_link_backend"

struct ol_buffer {
	uint8_t *data;
	size_t size;
};

struct ol_bc_symbol {
	char *name;
	unsigned char defined, weak, hidden, common;
};

/* What a host bitcode file carries. */
struct ol_bc_info {
	struct ol_bc_symbol *symbols;   /* global symbols of the module */
	size_t nsymbols;
	struct ol_buffer *offload_sections; /* bytes of each llvm.embedded.objects entry
	                                       whose section is ".llvm.offloading" */
	size_t noffload_sections;
	int clang_major;                /* from llvm.ident, 0 if unknown */
	int entries_abi;                /* 16/22 as in inputs.h, from global sections */
};

/* Frees what a struct ol_bc_info holds (malloc'd names, symbols, sections)
 * and empties it; shared by the backend and the core, which both fill one. */
static inline void ol_bc_info_release(struct ol_bc_info *info)
{
	for (size_t i = 0; i < info->nsymbols; i++)
		free(info->symbols[i].name);
	free(info->symbols);
	for (size_t i = 0; i < info->noffload_sections; i++)
		free(info->offload_sections[i].data);
	free(info->offload_sections);
	memset(info, 0, sizeof(*info));
}

/* What lto() does with a request's modules. */
enum ol_lto_mode {
	OL_LTO_WHOLE,          /* link, internalize, optimize, generate code */
	OL_LTO_PARTITION,      /* the one module is a partition split() made: its
				  linkage is final (nothing is internalized) */
	OL_LTO_CODEGEN_ONLY,   /* link and generate code, no optimization: the
				  modules are partitions lto() optimized (emit_bitcode) */
};

/* Which optimization remarks lto() returns (docs/design/remarks.md): those of the passes each pattern matches (LLVM regular
 * expressions, as -pass-remarks takes them; NULL: none of that kind), or
 * every remark when `all` is set (for --remarks-file), each marked with
 * whether a pattern selected it. */
struct ol_remark_request {
	const char *passed, *missed, *analysis;
	int all;
};

static inline int ol_remarks_wanted(const struct ol_remark_request *r)
{
	return r->passed || r->missed || r->analysis || r->all;
}

struct ol_lto_request {
	const char *triple;
	const char *cpu;                /* "" for none */
	const char *features;           /* "+a,-b" or "" */
	int opt_level;                  /* 0..3 */
	int debug;
	const uint8_t *const *modules;  /* bitcode buffers (views) */
	const size_t *sizes;
	const char *const *names;       /* for messages: "lib.a(m.o)" */
	size_t nmodules;
	/* Symbols that must stay visible: referenced from non-bitcode inputs of
	 * the same device link.  NULL-terminated, may be NULL. */
	const char *const *preserve;
	int whole_program;
	int emit_assembly;              /* PTX for NVPTX */
	int emit_bitcode;               /* stop after optimization, return bitcode
	                                   (--embed-bitcode: an image for the JIT) */
	const char *save_temps_prefix;  /* write <prefix>.postlink.bc / .postopt.bc if set */
	/* Two strong definitions of a symbol: the first module's prevails and
	 * the others are dropped, as lto::LTO resolves them (16, 19); 0: the
	 * link fails, as 22's device linker does. */
	int first_definition_prevails;
	/* Called around each phase (link, optimize, codegen) for the time
	 * trace: begin != 0 opens a scope named name, 0 closes it.  May be NULL. */
	void (*phase)(const char *name, int begin);
	/* Partitioned LTO (docs/design/partitioned-lto.md).
	 * split(): the partition each module's definitions go to (nmodules
	 * entries below npartitions). */
	const unsigned *module_partition;
	size_t npartitions;
	/* split(): asked of each partition once its key is made, with
	 * key = &keys[partition], filled (may be NULL: all are wanted); 0
	 * leaves its bitcode unwritten (parts[p] empty), as when the caller
	 * has its products already. */
	int (*partition_wanted)(void *arg, size_t partition, const struct ol_buffer *key);
	/* split(): asked of each partition but the first, before it is cut,
	 * with its plan key (a digest of what decides its bitcode, made from
	 * module_digests and the merged module without cutting it); nonzero:
	 * the caller has all the partition makes, and it is not cut (parts[p]
	 * empty, keys[p] the plan's 32 bytes).  NULL, or no module_digests:
	 * no plans. */
	int (*partition_planned)(void *arg, size_t partition, const uint8_t plan[32]);
	/* The SHA-256 of each module's bytes (nmodules entries), for plans. */
	const uint8_t (*module_digests)[32];
	void *partition_arg;
	enum ol_lto_mode mode;
	struct ol_remark_request remarks;
	/* --builtin-bitcode (19): bitcode libraries (libdevice and the like)
	 * linked into the optimized module, only what it uses and made
	 * internal, as clang's -mlink-builtin-bitcode links them; the module
	 * is then optimized again, as upstream's device clang does.  Not in
	 * an OL_LTO_CODEGEN_ONLY request (its partitions have them). */
	const uint8_t *const *builtins;
	const size_t *builtin_sizes;
	const char *const *builtin_names;
	size_t nbuiltins;
};

enum ol_wrap_kind { OL_WRAP_OPENMP = 1, OL_WRAP_CUDA = 2, OL_WRAP_HIP = 4, OL_WRAP_SYCL = 8 };

/* One device image of a SYCL registration module (22's
 * __sycl.tgt_device_image), read by the core from the OffloadBinaries that
 * clang-sycl-linker wrote. */
struct ol_wrap_sycl_image {
	uint16_t offload_kind;          /* raw OffloadBinary fields; the module keeps */
	uint16_t image_kind;            /* their low byte, as upstream does */
	const char *triple;             /* "" when the binary has none */
	const char *compile_options;    /* for the runtime's device compiler */
	const char *link_options;
	const char *const *symbols;     /* entry points, one offload entry each */
	size_t nsymbols;
	const uint8_t *image;           /* the device code itself (SPIR-V) */
	size_t image_size;
};

/* Where the OpenMP images of a relocatable link (-r) live: a name LLVM's
 * codegen types SHT_PROGBITS (not ".llvm.offloading*", which it types
 * SHT_LLVM_OFFLOADING), so that no later wrapper, ours or upstream's,
 * extracts these already registered images again (docs/design/host-linking.md,
 * "Relocatable links"). */
#define OL_RELOCATABLE_IMAGES_SECTION ".omp_offloading.images"

/* The layout clang-offload-wrapper (LLVM 14 and AMD's fork) gives its
 * OpenMP module: 16's, with raw images and no section, plus AMD's image
 * info records when target IDs are given (docs/design/wrapping.md, "The
 * wrap command").  A flavor of OL_WRAP_OPENMP only. */
#define OL_WRAP_FLAVOR_LEGACY 14

struct ol_wrap_request {
	enum ol_wrap_kind kind;
	int flavor;                     /* 16, 19 or 22: layout of the module (spec 5),
	                                   or OL_WRAP_FLAVOR_LEGACY */
	const char *host_triple;
	const uint8_t *const *images;   /* OpenMP: one OffloadBinary each; CUDA/HIP: one fatbin */
	const size_t *sizes;
	size_t nimages;
	int relocatable;                /* OpenMP images go to OL_RELOCATABLE_IMAGES_SECTION */
	int want_ir;                    /* fill *ir_text with the printed module */
	const char *save_bc_path;       /* write the module's bitcode here if set */
	int emit_bitcode;               /* wrap() returns the module's bitcode in *obj
	                                   instead of compiling it */
	/* OL_WRAP_FLAVOR_LEGACY: the target ID of each image (nimages of them,
	 * none NULL), registered through __tgt_register_image_info; NULL: no
	 * image info, as clang-offload-wrapper 14 without --offload-arch. */
	const char *const *offload_archs;
	/* OL_WRAP_SYCL: the images to register (images/sizes above are the
	 * OffloadBinaries they were read from). */
	const struct ol_wrap_sycl_image *sycl_images;
	size_t nsycl_images;
};

struct ol_backend {
	int abi;                        /* OL_BACKEND_ABI */
	const char *llvm_version;       /* "22.1.8" */
	/* Feed -mllvm / --offload-opt values to LLVM's option parser once.
	 * argv[0] is the program name.  Returns 0 or -1 with *err. */
	int (*init)(int argc, const char *const *argv, char **err);
	/* Read a host bitcode file. */
	int (*bitcode_info)(const uint8_t *data, size_t size, const char *name,
			    struct ol_bc_info *out, char **err);
	void (*bitcode_info_free)(struct ol_bc_info *info);
	/* Device bitcode symbols only (cheaper than bitcode_info). */
	int (*bitcode_symbols)(const uint8_t *data, size_t size, const char *name,
			       struct ol_bc_symbol **syms, size_t *nsyms, char **err);
	/* Link, optimize and codegen bitcode modules to one object (or assembly).
	 * When req->remarks asks for any, *remarks gets the remarks the passes
	 * made, encoded as offload/remark_records.h says (empty: none; the
	 * caller frees it whatever lto() returns).
	 * Returns 0, -1 on error, or, for an OL_LTO_PARTITION request, 2 when
	 * the partition is not valid IR (the splitter's mistake), why in *err. */
	int (*lto)(const struct ol_lto_request *req, struct ol_buffer *out,
		   struct ol_buffer *remarks, char **err);
	/* Link and internalize the modules as lto() does, then split the result
	 * into req->npartitions modules, returned as bitcode in parts[0..n-1]
	 * (size 0: nothing went to that partition, or req->partition_wanted
	 * did not want it, or req->partition_planned had it; keys[p] is empty
	 * only in the first case).  Each holds its modules'
	 * definitions and a private copy of what they reach that may be copied;
	 * a definition more than one partition needs lives in one of them.
	 * keys[p]: the same partition's bitcode with its local names numbered
	 * in order, which other inputs' edits do not change, for its cache key.
	 * Returns 0; 1 when the module cannot be split (an ifunc; on AMDGPU,
	 * shared memory an exported function touches) and comes back whole in
	 * parts[0], why in *err; -1 on error.  0 with *err set: split, with
	 * partitions joined, why in *err.  The partitions are not verified
	 * here: lto() does it before optimizing one. */
	int (*split)(const struct ol_lto_request *req, struct ol_buffer *parts,
		     struct ol_buffer *keys, char **err);
	/* Build the registration module and compile it to a host object (its
	 * bitcode under emit_bitcode). */
	int (*wrap)(const struct ol_wrap_request *req, struct ol_buffer *obj,
		    char **ir_text, char **err);
};

/* Exported by the backend module. */
typedef const struct ol_backend *(*ol_backend_entry_fn)(void);

/* In the executable: load the backend on first use (reports an error naming
 * the paths tried, returns NULL on failure). */
const struct ol_backend *ol_backend_get(void);
/* LLVM options (-mllvm, --offload-opt values; argv[0] first) handed to the
 * backend's init() when it is loaded.  The strings must outlive the link. */
void ol_backend_set_llvm_args(int argc, const char *const *argv);
int ol_backend_loaded(void);
/* The LLVM major the inputs call for (the release being emulated): the
 * backend built for it, offload-link-llvm-<N>.so, is loaded instead of the
 * default one when it exists, unless $OFFLOAD_LINK_BACKEND names a plugin.
 * Only one backend is ever loaded: after the first load this only notes
 * under -v that the loaded one stays. */
void ol_backend_prefer(int llvm_major);
/* The file the backend was loaded from (NULL before it is). */
const char *ol_backend_path(void);

#endif
