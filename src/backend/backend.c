/*
 * backend: the function table the executable finds with
 * dlsym(OL_BACKEND_ENTRY), and init().  This is the only symbol the module
 * exports; everything else is hidden (C_VISIBILITY_PRESET hidden).
 */
#include <pthread.h>

#include <llvm-c/Support.h>

#include "backend_impl.h"

#ifndef OL_LLVM_VERSION_STRING
#error "OL_LLVM_VERSION_STRING must be defined by the build"
#endif

static pthread_mutex_t options_lock = PTHREAD_MUTEX_INITIALIZER;
static int options_parsed;

/* LLVM's option registry is global and its parser may run only once: a
 * second parse reports every option as given twice.  Later calls keep the
 * first set.  LLVM itself prints and exits on an unknown option, as
 * upstream does ("clang-linker-wrapper: Unknown command line argument"). */
static int backend_init(int argc, const char *const *argv, char **err)
{
	if (argc < 0 || (argc > 0 && !argv))
		return ol_be_fail(err, "invalid LLVM option vector");
	pthread_mutex_lock(&options_lock);
	if (!options_parsed) {
		if (argc > 0)
			ol_be_set_progname(argv[0]);
		if (argc > 1)
			LLVMParseCommandLineOptions(argc, argv, "offload-link LLVM options\n");
		options_parsed = 1;
	}
	pthread_mutex_unlock(&options_lock);
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
	.wrap = ol_be_wrap,
};

__attribute__((visibility("default"))) const struct ol_backend *offload_link_backend(void);

__attribute__((visibility("default"))) const struct ol_backend *offload_link_backend(void)
{
	return &backend_table;
}
