/*
 * cmdline: the command line of clang-linker-wrapper 16, 19 and 22.
 *
 * The option table (include/offload/options.def) mirrors upstream's
 * LinkerWrapperOpts.td; one matcher accepts every spelling upstream accepts.
 * @file response files are expanded first (nested, depth limit 10).
 *
 * Every argument is kept, in order, in cl->args.  Wrapper-only options are
 * decoded into the fields below; everything else is re-rendered for the host
 * linker by ol_cmdline_render_host() exactly as llvm::opt does (joined-or-
 * separate options rendered separate, aliases as their target, unknown
 * options and positional words verbatim).  The host line follows the table
 * of the release being emulated, with one rule of our own unless
 * --offload-abi= names the release: an option that any release's wrapper
 * keeps for itself never reaches the host linker, so a line written by
 * clang 19 (--opt-level=O3) links whatever release the inputs point to.
 *
 * cl->link_items is the host linker's view of the same line: the files,
 * libraries and state switches (--whole-archive, -Bstatic, --start-group, ...)
 * that decide what the host link loads.  It understands GNU ld options that
 * upstream's table does not know (they are still forwarded verbatim), and it
 * knows which ld options take a separate value, so "-z now" or "-m
 * elf_x86_64" never produce a file to scan.
 *
 * All strings point into argv, the response-file buffers or the link arena;
 * they live until exit.
 */
#ifndef OFFLOAD_CMDLINE_H
#define OFFLOAD_CMDLINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "offload/strvec.h"

/* Which upstream release to behave like: decides the `--` handling, the
 * entries ABI of the wrapper module, OffloadKind numbering, etc.  AUTO means
 * "detect from the inputs" (see docs/design/flavors-and-backends.md). */
enum ol_flavor { OL_FLAVOR_AUTO = 0, OL_FLAVOR_16 = 16, OL_FLAVOR_19 = 19, OL_FLAVOR_22 = 22 };

enum ol_opt_id {
#define OPTION(id, ...) OPT_##id,
#include "offload/options.def"
#undef OPTION
	OPT_INPUT,    /* positional word */
	OPT_UNKNOWN,  /* an option no record matched: forwarded verbatim */
	OPT_COUNT
};

/* Whether an option decides a device link (options.def, its `key` column). */
enum ol_key_role {
	OL_KEY_UNKEYED,
	OL_KEY_KEYED,
	OL_KEY_KEYED_PER_TRIPLE,
	OL_KEY_KEYED_DECODED,
	OL_KEY_HOST_INPUT,
	OL_KEY_FAMILY,
	OL_KEY_REMARKS,
};

/* The role of the record `id` (a canonical id, as cl->args carry). */
enum ol_key_role ol_option_key_role(enum ol_opt_id id);

struct ol_arg {
	enum ol_opt_id id;
	const char *value;     /* value for joined/separate options, else NULL */
	const char *raw;       /* the word as written (first word for separate forms) */
};

enum ol_link_item_kind {
	OL_LINK_FILE,            /* positional input: value = path as given */
	OL_LINK_LIBRARY,         /* -lfoo / -l:foo.a: value = "foo" / ":foo.a" */
	OL_LINK_WHOLE_ARCHIVE,   /* --whole-archive */
	OL_LINK_NO_WHOLE_ARCHIVE,
	OL_LINK_BSTATIC,         /* -Bstatic, -static, -dn, -non_shared */
	OL_LINK_BDYNAMIC,        /* -Bdynamic, -dy, -call_shared */
	OL_LINK_START_GROUP,     /* --start-group, -( */
	OL_LINK_END_GROUP,       /* --end-group, -) */
	OL_LINK_AS_NEEDED,
	OL_LINK_NO_AS_NEEDED,
};

struct ol_link_item {
	enum ol_link_item_kind kind;
	const char *value;
	size_t arg_index;        /* index into cl->args */
};

struct ol_cmdline {
	const char *argv0;
	struct ol_arg *args;
	size_t nargs;

	struct ol_link_item *link_items;
	size_t nlink_items;
	const char **lib_paths;  /* -L / --library-path / /libpath: values, in order */
	size_t nlib_paths;
	const char *sysroot;     /* --sysroot value (without '='), or NULL */
	int static_link;         /* -static / -Bstatic seen before any -l? (per item state lives in link_items) */

	/* Decoded wrapper options. */
	const char *linker_path;     /* --linker-path, found on PATH when it has no '/' */
	int linker_is_driver;        /* it is a compiler driver (cc, clang-19): the line is
					a driver's (-Wl,), rendered for it (compiler_driver.c) */
	const char *host_triple;     /* --host-triple, default: the build's default triple */
	const char *output;          /* last -o, default "a.out" */
	const char *cuda_path;
	int dry_run, verbose, save_temps, print_wrapped_module;
	int quiet;                   /* --quiet: no progress line (progress.h) */
	int no_cache;                /* --no-cache */
	const char *cache_dir;       /* --cache-dir= (the last), or NULL */
	const char *cache_max_size;  /* --cache-max-size= (the last), or NULL */
	const char *remote_storage;  /* --remote-storage= (the last; "" turns it off), or NULL */
	int relocatable;             /* -r / --relocatable (19, 22), or -r for the host linker (16) */
	int embed_bitcode, device_debug, clang_backend, compress, emit_fatbin_only;
	int whole_program;
	int opt_level;               /* 0..3, default 2 (--opt-level=O<n>) */
	int compression_level;       /* -1 when not given */
	int wrapper_jobs;            /* 0 = default (number of cores) */
	unsigned device_lto_units;   /* input modules a partition (--device-lto=partitioned[:N],
					OFFLOAD_LINK_DEVICE_LTO, default 8); 0: full LTO */
	const char *device_lto_origin; /* "--device-lto=..." or "OFFLOAD_LINK_DEVICE_LTO=..."
					  when one asked for partitions, for messages; else NULL */
	/* --device-link-memory= (or OFFLOAD_LINK_DEVICE_LINK_MEMORY) in bytes,
	 * 0: no limit; device_link_memory_given 0: neither said, the machine's
	 * default (memory_budget.h). */
	uint64_t device_link_memory;
	int device_link_memory_given;
	/* --device-lto-distributor= (or OFFLOAD_LINK_DEVICE_LTO_DISTRIBUTOR;
	 * NULL: none), its arguments, the offload-link its jobs run (NULL:
	 * this one) and whether a failed distribution builds here. */
	const char *distributor;
	struct strvec distributor_args;
	const char *remote_compiler;
	int distributor_fallback;
	int wrapper_jobserver;       /* --wrapper-jobs=jobserver */
	const char *time_trace;      /* --wrapper-time-trace= */
	int time_trace_granularity;
	int stats;                   /* --stats: 1 a summary, 2 as JSON (--stats=json); 0 none */
	int saw_separator;           /* the 16-style "--" was present */
	enum ol_flavor flavor;       /* --offload-abi=16|19|22, else AUTO; main sets the
					release it behaves as before the host link */
	int flavor_given;            /* --offload-abi= named the release: its table alone
					decides what reaches the host linker */
	int version_unless_22;       /* -v or --v on a link line of no known release
					(ol_cmdline_version_request) */

	struct strvec device_linker;   /* raw values of --device-linker= (maybe "<triple>=v") */
	struct strvec device_compiler; /* raw values of --device-compiler= */
	struct strvec mllvm;           /* -mllvm values, in order */
	struct strvec offload_opt;     /* --offload-opt= values, normalized to start with '-' */
	struct strvec ptxas_args;      /* --ptxas-arg= */
	struct strvec should_extract;  /* --should-extract= */
	struct strvec bitcode_library; /* --bitcode-library= raw values */
	struct strvec builtin_bitcode; /* --builtin-bitcode= raw values */
	struct strvec override_image;  /* --override-image= raw values */
	struct strvec pass_remarks;    /* "--pass-remarks=...", etc., as given */
	const char *remarks_file;      /* --remarks-file= prefix, or NULL */
	struct strvec driver_runtimes; /* a driver's options that link runtime libraries
					  (-fopenmp, -fopenmp=libomp): a CPU image links them too */
};

/* Parses argv.  --help/--help-hidden/--version print and exit(0) here.
 * Returns 0, or -1 after reporting errors (unknown wrapper option values,
 * bad --wrapper-jobs, unreadable response file, ...). */
int ol_cmdline_parse(int argc, char **argv, struct ol_cmdline *cl);

/* Host-link argv tail (without the linker path): every argument that is not
 * wrapper-only, re-rendered as upstream does, with wrapper_objs (NULL-
 * terminated) inserted right after each rendered -o <file>. */
void ol_cmdline_render_host(const struct ol_cmdline *cl, const char *const *wrapper_objs,
			    struct strvec *out);
/* The same line with the value of each -o replaced by `output` (the host
 * link's private output name, host_link.h); a line without -o is unchanged. */
void ol_cmdline_render_host_to(const struct ol_cmdline *cl, const char *output,
			       const char *const *wrapper_objs, struct strvec *out);

/* Values of --device-linker= / --device-compiler= that apply to `triple`,
 * with upstream's rules for the given flavor (spec 4.2). */
void ol_cmdline_device_args(const struct ol_cmdline *cl, const struct strvec *raw,
			    const char *triple, enum ol_flavor flavor, struct strvec *out);

/* The arguments of the line that decide a device link for `triple`, in the
 * line's order, each as "<option name><value>" (the option table's key
 * column: KEYED ones, and the KEYED_PER_TRIPLE values that apply to
 * `triple` under `flavor`'s rule; not the KEYED_DECODED ones, whose
 * settings the key takes, nor the REMARKS ones, nor any value that only
 * asks for remarks, ol_is_remark_arg, with the "-mllvm" before it).  What the device-link cache key takes
 * from the command line. */
void ol_cmdline_key_args(const struct ol_cmdline *cl, const char *triple, enum ol_flavor flavor,
			 struct strvec *out);

/* Whether a value of -mllvm, --offload-opt or --device-compiler only asks
 * for optimization remarks: LLVM's -pass-remarks* (one or two dashes, or
 * none as 16 and 19 keep --offload-opt=-<value>), clang's -Rpass=,
 * -Rpass-missed=, -Rpass-analysis=, -fsave-optimization-record[=yaml] and
 * -foptimization-record-file=.  They change no byte of an image, so the
 * key leaves them out (docs/design/remarks.md). */
int ol_is_remark_arg(const char *arg);
/* clang's flags that ask for the YAML records (-fsave-optimization-record
 * and its =yaml form): the in-process LTO writes them itself. */
int ol_is_records_flag(const char *arg);

/* The release the line's wrapper options point to: 16 or 19 when it has
 * one only their wrappers take (16 when the line also has 16's "--"), 22
 * when it has one only 22's takes, AUTO when they point nowhere or both
 * ways.  For a line whose inputs do not tell (objects from gcc). */
enum ol_flavor ol_cmdline_line_flavor(const struct ol_cmdline *cl);

/* -v and --v on a link line: 16 and 19 print the version and link nothing,
 * 22 (and a line of no known release) forwards them.  Prints the version
 * and returns 1 when `flavor`, the release decided, is 16 or 19. */
int ol_cmdline_version_request(const struct ol_cmdline *cl, enum ol_flavor flavor);

void ol_cmdline_release(struct ol_cmdline *cl);

/* offload-link.1, the man page, from the option table that --help prints
 * (every release's options); the build writes it with offload-link-man. */
void ol_print_man_page(FILE *out);

#endif
