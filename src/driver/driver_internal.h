/*
 * driver_internal: the pieces of the command line (src/driver/) shared
 * between its files.  Not part of the public contract (offload/cmdline.h).
 *
 *   cmdline.c        ol_cmdline_parse and ol_cmdline_release: the steps below
 *                    in order
 *   response_file.c  argv to words, @file expanded
 *   option_table.c   the records of options.def in llvm::opt's order
 *   match.c          words to arguments, as OptTable::ParseOneArg
 *   help.c           --help, --help-hidden, --version
 *   decode.c         the wrapper's own options into struct ol_cmdline
 *   host_view.c      the host linker's view: link_items, -L, --sysroot
 *   render.c         the host linker's command line (ol_cmdline_render_host)
 *   device_args.c    --device-linker/--device-compiler values per device link
 *   compiler_driver.c  a compiler driver as the host linker: its options
 */
#ifndef OFFLOAD_DRIVER_INTERNAL_H
#define OFFLOAD_DRIVER_INTERNAL_H

#include <stddef.h>
#include "offload/cmdline.h"

/* --- option_table.c --------------------------------------------------------- */

enum ol_opt_kind {
	OL_KIND_FLAG,
	OL_KIND_JOINED,
	OL_KIND_SEPARATE,
	OL_KIND_JOINED_OR_SEPARATE,
};

enum {
	OL_OPTF_WRAPPER_ONLY = 1 << 0,
	OL_OPTF_DEVICE_ONLY = 1 << 1,
	OL_OPTF_HIDDEN = 1 << 2,
	OL_OPTF_VARIANT = 1 << 3,
};

/* The releases a record belongs to. */
enum { OL_V16 = 1 << 0, OL_V19 = 1 << 1, OL_V22 = 1 << 2, OL_VALL = OL_V16 | OL_V19 | OL_V22 };

struct ol_opt {
	enum ol_opt_id id;
	const char *const *prefixes;
	const char *name;
	enum ol_opt_kind kind;
	unsigned flags;
	enum ol_opt_id alias;   /* OPT_COUNT when not an alias */
	enum ol_opt_id canon;
	const char *metavar;
	const char *help;
	unsigned versions;
	enum ol_key_role key;
};

/* Every record of options.def, indexed by enum ol_opt_id. */
extern const struct ol_opt ol_opts[];
#define OL_NOPTS ((size_t)OPT_INPUT)

/* The records of a release (OL_V*), every release's for AUTO. */
unsigned ol_flavor_mask(enum ol_flavor flavor);

/* Record indices in upstream's order (TableGen's StrCmpOptionName; records
 * with one name keep options.def order, newest release first). */
const unsigned short *ol_opts_sorted(void);

/* The records, in options.def order, that can match `word`: a few, among
 * them every record whose spelling starts the word. */
struct ol_opt_candidates {
	const unsigned short *v;
	size_t n;
};
struct ol_opt_candidates ol_opts_for_word(const char *word);

/* Does a come before b in ol_opts_sorted() order? */
int ol_opt_sorts_before(const struct ol_opt *a, const struct ol_opt *b);

/* Length of prefix+name when `word` starts with one of rec's spellings, else 0. */
size_t ol_opt_spelling_length(const struct ol_opt *rec, const char *word);

/* --- response_file.c -------------------------------------------------------- */

struct ol_words {
	const char **v;
	size_t nr, alloc;
};

void ol_words_push(struct ol_words *w, const char *s);
/* Appends `word`, or the words of the response file "@path" names (a file
 * that does not exist leaves "@path" a word).  Returns 0, or -1 (reported). */
int ol_words_expand(struct ol_words *out, const char *word);
/* Appends the words of a response file's bytes src[0 .. len) (GNU quoting,
 * as llvm::cl::TokenizeGNUCommandLine); words come from the link arena. */
void ol_words_tokenize(const char *src, size_t len, struct ol_words *out);

/* --- match.c ------------------------------------------------------------------ */

struct ol_parsed {
	struct ol_arg *args;
	const struct ol_opt **recs;  /* matched record per arg; NULL for INPUT/UNKNOWN */
	size_t nr, alloc;
};

/* Matches every word with the records of `vmask`.  A word none of them
 * knows that a wrapper-only record of `consume_mask` takes (another
 * release's option) matches that record, so it is never forwarded; 0 for
 * none.  A separate option at the end of the line is "<opt>: missing
 * argument" with `report` (returns -1), else an unknown option. */
int ol_match_words(const struct ol_words *w, unsigned vmask, unsigned consume_mask,
		   struct ol_parsed *out, int report);
/* The releases (OL_V*) whose wrapper keeps `word` for itself; OL_VALL when
 * all or none do. */
unsigned ol_wrapper_option_releases(const char *word);
void ol_parsed_release(struct ol_parsed *p);
/* The words a parsed line came from (empty words are gone, as in llvm). */
void ol_words_of_args(const struct ol_cmdline *cl, struct ol_words *out);

/* --- cmdline.c ---------------------------------------------------------------- */

enum ol_cmdline_request {
	OL_CMDLINE_LINK,          /* a link: cl is filled */
	OL_CMDLINE_HELP,          /* --help: print and exit 0 */
	OL_CMDLINE_HELP_HIDDEN,   /* --help-hidden */
	OL_CMDLINE_VERSION,       /* --version / -v */
};

/* The steps of ol_cmdline_parse after @file expansion: matches and decodes
 * `words` into cl.  For a help or version request only cl->flavor is set.
 * Returns 0, or -1 after reporting (cl released). */
int ol_cmdline_parse_words(const struct ol_words *words, const char *argv0, struct ol_cmdline *cl,
			   enum ol_cmdline_request *request);

/* --- help.c ------------------------------------------------------------------- */

void ol_print_help(const char *argv0, enum ol_flavor flavor, int show_hidden);
void ol_print_version(const char *argv0);

/* --- decode.c ----------------------------------------------------------------- */

/* --offload-abi=: the release whose table applies (AUTO without one). */
int ol_decode_offload_abi(const struct ol_parsed *p, enum ol_flavor *flavor);
/* The wrapper's options into cl.  Returns 0, or -1 after reporting bad values. */
int ol_decode_wrapper_options(struct ol_cmdline *cl, const struct ol_parsed *p);

/* --- host_view.c -------------------------------------------------------------- */

/* Fills cl->link_items, cl->lib_paths and cl->sysroot from cl->args. */
void ol_build_host_view(struct ol_cmdline *cl);

/* --- compiler_driver.c ---------------------------------------------------------- */

/* Whether the host linker is a compiler driver (cc, gcc, clang-19, ...). */
int ol_is_compiler_driver(const char *path);
/* A driver option whose value is the next word ("-x c", "-Xlinker a"). */
int ol_driver_option_takes_next_word(const char *word);
/* A driver option asking for an offloading link (-fopenmp-targets=, ...),
 * kept from the driver; *drops_next: its value is the next word. */
int ol_driver_offload_option(const char *word, int *drops_next);
/* A driver option that links a runtime library (-fopenmp). */
int ol_driver_links_runtime(const char *word);

#endif
