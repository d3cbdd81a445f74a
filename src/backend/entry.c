/*
 * entry: the module's entry, the function table the executable finds with
 * dlsym(OL_BACKEND_ENTRY) (offload/backend.h), and init().  This is the
 * only symbol the module exports; everything else is hidden
 * (C_VISIBILITY_PRESET hidden).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Support.h>

#include "backend_impl.h"

#ifndef OL_LLVM_VERSION_STRING
#error "OL_LLVM_VERSION_STRING must be defined by the build"
#endif

static pthread_mutex_t options_lock = PTHREAD_MUTEX_INITIALIZER;
static int options_parsed, options_ok;

/*
 * -mllvm and --offload-opt values.  The C API's LLVMParseCommandLineOptions
 * sends the parser's complaints to nulls() and drops its result, so an
 * unknown option would pass unnoticed.  Upstream calls
 * llvm::cl::ParseCommandLineOptions, which prints "<prog>: Unknown command
 * line argument '-x'.  Try: ..." and fails; we call the same function,
 * found by its mangled name (which spells out every parameter type, so a
 * match cannot be called with the wrong signature), with errs() as the
 * stream: it prints upstream's text and returns false instead of exiting.
 * The signature gained a vfs::FileSystem * in LLVM 21.  An LLVM with
 * neither symbol gets the C API's silent parse.
 */
struct string_ref {  /* llvm::StringRef, passed by value */
	const char *data;
	size_t size;
};
typedef void *(*errs_fn)(void);
typedef _Bool (*parse_with_vfs_fn)(int, const char *const *, struct string_ref, void *errs,
				  void *vfs, const char *env_var, _Bool long_double_dash);
typedef _Bool (*parse_fn)(int, const char *const *, struct string_ref, void *errs,
			  const char *env_var, _Bool long_double_dash);

#define PARSE_WITH_VFS "_ZN4llvm2cl23ParseCommandLineOptionsEiPKPKcNS_9StringRefEPNS_11raw_ostreamEPNS_3vfs10FileSystemES2_b"
#define PARSE_PLAIN "_ZN4llvm2cl23ParseCommandLineOptionsEiPKPKcNS_9StringRefEPNS_11raw_ostreamES2_b"

static void *llvm_library(void)
{
	Dl_info info;

	if (!dladdr((void *)(uintptr_t)LLVMParseCommandLineOptions, &info) || !info.dli_fname)
		return NULL;
	return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

/* 1: parsed; 0: LLVM rejected an option (and said which); -1: no such entry. */
static int parse_reporting_errors(int argc, const char *const *argv)
{
	static const struct string_ref overview = {"", 0};
	void *lib = llvm_library(), *sym, *errs = NULL;
	int rc = -1;

	if (!lib)
		return -1;
	sym = dlsym(lib, "_ZN4llvm4errsEv");
	if (sym)
		errs = ((errs_fn)(uintptr_t)sym)();
	if (errs && (sym = dlsym(lib, PARSE_WITH_VFS)))
		rc = ((parse_with_vfs_fn)(uintptr_t)sym)(argc, argv, overview, errs, NULL, NULL, 0);
	else if (errs && (sym = dlsym(lib, PARSE_PLAIN)))
		rc = ((parse_fn)(uintptr_t)sym)(argc, argv, overview, errs, NULL, 0);
	dlclose(lib);
	return rc;
}

/* LLVM's option registry is global and its parser may run only once: a
 * second parse reports every option as given twice.  Later calls keep the
 * first result. */
static int backend_init(int argc, const char *const *argv, char **err)
{
	if (argc < 0 || (argc > 0 && !argv))
		return ol_be_fail(err, "invalid LLVM option vector");
	pthread_mutex_lock(&options_lock);
	if (!options_parsed) {
		options_ok = 1;
		if (argc > 0)
			ol_be_set_progname(argv[0]);
		if (argc > 1) {
			int rc = parse_reporting_errors(argc, argv);

			if (rc < 0)
				LLVMParseCommandLineOptions(argc, argv, "");
			options_ok = rc != 0;
		}
		options_parsed = 1;
	}
	pthread_mutex_unlock(&options_lock);
	if (!options_ok)
		return ol_be_fail(err, "LLVM rejected an option given with -mllvm or --offload-opt");
	ol_be_init_targets();
	return 0;
}

static const struct ol_backend backend_table = {
	.abi = OL_BACKEND_ABI,
	.llvm_version = OL_LLVM_VERSION_STRING,
	.init = backend_init,
	.bitcode_info = ol_be_bitcode_info,
	.bitcode_info_free = ol_be_bitcode_info_free,
	.bitcode_symbols = ol_be_bitcode_symbols,
	.lto = ol_be_lto,
	.split = ol_be_split,
	.wrap = ol_be_wrap,
};

__attribute__((visibility("default"))) const struct ol_backend *offload_link_backend(void);

__attribute__((visibility("default"))) const struct ol_backend *offload_link_backend(void)
{
	return &backend_table;
}
