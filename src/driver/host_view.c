/*
 * host_view: the host linker's view of the line (cl->link_items, -L
 * directories, --sysroot): the files, libraries and state switches that
 * decide what the host link loads, in order.  It knows the GNU ld options
 * upstream's table does not (they are still forwarded verbatim), and which
 * of them take the next word, so "-z now" never yields a file to scan.
 */
#include "driver_internal.h"
#include "offload/diag.h"

#include <stdlib.h>
#include <string.h>

/* "-name" or "--name" exactly, for one of names. */
static int is_ld_long_option(const char *word, const char *const *names)
{
	const char *body;

	if (word[0] != '-')
		return 0;
	body = word[1] == '-' ? word + 2 : word + 1;
	for (const char *const *n = names; *n; n++)
		if (strcmp(body, *n) == 0)
			return 1;
	return 0;
}

static const char *const ld_bstatic[] = { "Bstatic", "static", "dn", "non_shared", NULL };
static const char *const ld_bdynamic[] = { "Bdynamic", "dy", "call_shared", NULL };
static const char *const ld_start_group[] = { "start-group", NULL };
static const char *const ld_end_group[] = { "end-group", NULL };
static const char *const ld_as_needed[] = { "as-needed", NULL };
static const char *const ld_no_as_needed[] = { "no-as-needed", NULL };
static const char *const ld_whole_archive[] = { "whole-archive", NULL };
static const char *const ld_no_whole_archive[] = { "no-whole-archive", NULL };
static const char *const ld_sysroot[] = { "sysroot", NULL };
static const char *const ld_relocatable[] = { "r", "relocatable", NULL };

/* GNU ld (bfd) and lld options whose value may be the next word.  Their
 * one-letter forms only with one dash; the joined forms ("-zrelro",
 * "--hash-style=gnu", "-O1") never take the next word and are not here. */
static const char ld_short_with_value[] = "aAbceFfGhImOPRTuyYz";
static const char *const ld_long_with_value[] = {
	"architecture", "assert", "audit", "auxiliary", "call-graph-ordering-file", "defsym",
	"depaudit", "dependency-file", "dynamic-linker", "dynamic-list", "entry",
	"error-handling-script", "exclude-libs", "export-dynamic-symbol",
	"export-dynamic-symbol-list", "filter", "fini", "format", "gpsize", "hash-style", "heap",
	"image-base", "init", "just-symbols", "Map", "mri-script", "oformat", "orphan-handling",
	"out-implib", "plugin", "plugin-opt", "remap-inputs", "remap-inputs-file", "reproduce",
	"require-defined", "retain-symbols-file", "rpath-link", "script", "section-ordering-file",
	"section-start", "soname", "sort-section", "spare-dynamic-tags", "stack", "subsystem",
	"symbol-ordering-file", "Tbss", "Tdata", "Tldata-segment", "trace-symbol",
	"Trodata-segment", "Ttext", "Ttext-segment", "task-link", "undefined", "undefined-glob",
	"unresolved-symbols", "version-exports-section", "version-script", "wrap", NULL,
};

static int ld_option_takes_next_word(const char *word)
{
	if (word[0] == '-' && word[1] && !word[2] && strchr(ld_short_with_value, word[1]))
		return 1;
	return is_ld_long_option(word, ld_long_with_value);
}

struct host_view {
	struct ol_cmdline *cl;
	size_t items_alloc, paths_alloc;
	int saw_library;
};

static void add_item(struct host_view *hv, enum ol_link_item_kind kind, const char *value,
		     size_t arg_index)
{
	struct ol_cmdline *cl = hv->cl;

	if (cl->nlink_items == hv->items_alloc) {
		hv->items_alloc = hv->items_alloc ? hv->items_alloc * 2 : 32;
		cl->link_items = ol_xrealloc(cl->link_items,
					     hv->items_alloc * sizeof(*cl->link_items));
	}
	cl->link_items[cl->nlink_items].kind = kind;
	cl->link_items[cl->nlink_items].value = value;
	cl->link_items[cl->nlink_items].arg_index = arg_index;
	cl->nlink_items++;
	if (kind == OL_LINK_LIBRARY)
		hv->saw_library = 1;
	else if (kind == OL_LINK_BSTATIC && !hv->saw_library)
		cl->static_link = 1;
}

static void add_lib_path(struct host_view *hv, const char *dir)
{
	struct ol_cmdline *cl = hv->cl;

	if (cl->nlib_paths == hv->paths_alloc) {
		hv->paths_alloc = hv->paths_alloc ? hv->paths_alloc * 2 : 16;
		cl->lib_paths = ol_xrealloc(cl->lib_paths, hv->paths_alloc * sizeof(*cl->lib_paths));
	}
	cl->lib_paths[cl->nlib_paths++] = dir;
}

/* An unknown option the host linker understands as a state switch. */
static int ld_state_switch(const char *word, enum ol_link_item_kind *kind)
{
	static const struct {
		const char *const *names;
		enum ol_link_item_kind kind;
	} switches[] = {
		{ ld_bstatic, OL_LINK_BSTATIC },
		{ ld_bdynamic, OL_LINK_BDYNAMIC },
		{ ld_start_group, OL_LINK_START_GROUP },
		{ ld_end_group, OL_LINK_END_GROUP },
		{ ld_as_needed, OL_LINK_AS_NEEDED },
		{ ld_no_as_needed, OL_LINK_NO_AS_NEEDED },
		{ ld_whole_archive, OL_LINK_WHOLE_ARCHIVE },
		{ ld_no_whole_archive, OL_LINK_NO_WHOLE_ARCHIVE },
	};

	if (strcmp(word, "-(") == 0) {
		*kind = OL_LINK_START_GROUP;
		return 1;
	}
	if (strcmp(word, "-)") == 0) {
		*kind = OL_LINK_END_GROUP;
		return 1;
	}
	for (size_t k = 0; k < sizeof(switches) / sizeof(switches[0]); k++) {
		if (is_ld_long_option(word, switches[k].names)) {
			*kind = switches[k].kind;
			return 1;
		}
	}
	return 0;
}

/*
 * Walks the forwarded arguments in order, as the host linker will read them.
 * An unknown ld option that takes a value swallows the next forwarded word
 * ("-z now", "-m elf_x86_64", "-dynamic-linker /lib64/ld-linux-x86-64.so.2"),
 * so that word is never taken for an input file.
 */
void ol_build_host_view(struct ol_cmdline *cl)
{
	struct host_view hv = { cl, 0, 0, 0 };
	int swallow_next = 0, next_is_sysroot = 0;

	for (size_t i = 0; i < cl->nargs; i++) {
		const struct ol_arg *a = &cl->args[i];
		enum ol_link_item_kind kind;

		if (a->id != OPT_INPUT && a->id != OPT_UNKNOWN &&
		    (ol_opts[a->id].flags & OL_OPTF_WRAPPER_ONLY))
			continue;  /* the host linker never sees it */
		if (swallow_next) {
			swallow_next = 0;
			if (next_is_sysroot)
				cl->sysroot = a->raw;
			next_is_sysroot = 0;
			continue;
		}
		switch (a->id) {
		case OPT_INPUT:
			if (strcmp(a->raw, "-") != 0)
				add_item(&hv, OL_LINK_FILE, a->raw, i);
			break;
		case OPT_library:
			add_item(&hv, OL_LINK_LIBRARY, a->value, i);
			break;
		case OPT_library_path:
		case OPT_libpath:
			add_lib_path(&hv, a->value);
			break;
		case OPT_whole_archive:
			add_item(&hv, OL_LINK_WHOLE_ARCHIVE, NULL, i);
			break;
		case OPT_no_whole_archive:
			add_item(&hv, OL_LINK_NO_WHOLE_ARCHIVE, NULL, i);
			break;
		case OPT_as_needed:
			add_item(&hv, OL_LINK_AS_NEEDED, NULL, i);
			break;
		case OPT_no_as_needed:
			add_item(&hv, OL_LINK_NO_AS_NEEDED, NULL, i);
			break;
		case OPT_sysroot:
			/* 16's record is "--sysroot" without '=': a bare
			 * "--sysroot" takes the next word, as ld does, and
			 * "--sysroot=/x" has the value "=/x". */
			if (strcmp(a->raw, "--sysroot") == 0)
				swallow_next = next_is_sysroot = 1;
			else if (a->value == a->raw + strlen("--sysroot") && a->value[0] == '=')
				cl->sysroot = a->value + 1;
			else
				cl->sysroot = a->value;
			break;
		case OPT_UNKNOWN:
			if (ld_state_switch(a->raw, &kind)) {
				add_item(&hv, kind, NULL, i);
			} else if (is_ld_long_option(a->raw, ld_sysroot)) {
				swallow_next = next_is_sysroot = 1;
			} else if (strncmp(a->raw, "-sysroot=", 9) == 0) {
				cl->sysroot = a->raw + 9;  /* ld's one-dash spelling */
			} else if (is_ld_long_option(a->raw, ld_relocatable)) {
				/* 16 has no -r of its own: clang 16 passes it to
				 * the linker (after "--").  The host linker makes a
				 * relocatable object all the same, so the output is
				 * finished as one (relocatable.h). */
				cl->relocatable = 1;
			} else if (ld_option_takes_next_word(a->raw)) {
				swallow_next = 1;
			}
			break;
		default:
			break;
		}
	}
}
