/*
 * host_view: the host linker's view of the line (cl->link_items, -L
 * directories, --sysroot): the files, libraries and state switches that
 * decide what the host link loads, in order.  It knows the GNU ld options
 * upstream's table does not (they are still forwarded verbatim), and which
 * of them take the next word, so "-z now" never yields a file to scan.
 */
#include "driver_internal.h"
#include "offload/arena.h"
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

/* What the next word of a stream (the line's words, or the linker's words
 * in a driver's line) is: a word of its own, or the value of the one before. */
enum next_word { NEXT_OWN, NEXT_VALUE, NEXT_SYSROOT, NEXT_LIBRARY, NEXT_LIB_PATH, NEXT_LINKER };

struct host_view {
	struct ol_cmdline *cl;
	size_t items_alloc, paths_alloc;
	int saw_library;
	enum next_word ld_next;  /* in the linker's words */
};

static void add_item(struct host_view *hv, enum ol_link_item_kind kind, const char *value,
		     size_t arg_index)
{
	struct ol_cmdline *cl = hv->cl;

	OL_GROW(cl->link_items, cl->nlink_items + 1, hv->items_alloc, 32);
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

	OL_GROW(cl->lib_paths, cl->nlib_paths + 1, hv->paths_alloc, 16);
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

/* An option upstream's table does not know, as GNU ld reads it.  Returns
 * what the word after it is. */
static enum next_word ld_unknown_option(struct host_view *hv, const char *word, size_t i)
{
	enum ol_link_item_kind kind;

	if (ld_state_switch(word, &kind)) {
		add_item(hv, kind, NULL, i);
	} else if (is_ld_long_option(word, ld_sysroot)) {
		return NEXT_SYSROOT;
	} else if (strncmp(word, "-sysroot=", 9) == 0 || strncmp(word, "--sysroot=", 10) == 0) {
		hv->cl->sysroot = strchr(word, '=') + 1;  /* ld's spellings */
	} else if (is_ld_long_option(word, ld_relocatable)) {
		/* 16 has no -r of its own: clang 16 passes it to the linker
		 * (after "--").  The host linker makes a relocatable object all
		 * the same, so the output is finished as one (relocatable.h). */
		hv->cl->relocatable = 1;
	} else if (ld_option_takes_next_word(word)) {
		return NEXT_VALUE;
	}
	return NEXT_OWN;
}

/* A value word: consumed by the option before it. */
static void take_value(struct host_view *hv, enum next_word what, const char *word, size_t i)
{
	switch (what) {
	case NEXT_SYSROOT:
		hv->cl->sysroot = word;
		break;
	case NEXT_LIBRARY:
		add_item(hv, OL_LINK_LIBRARY, word, i);
		break;
	case NEXT_LIB_PATH:
		add_lib_path(hv, word);
		break;
	default:
		break;
	}
}

/* One word the driver hands the linker (-Wl,a,b or -Xlinker a), read as ld
 * reads it: here upstream's table does not apply, so -l, -L and -rpath are
 * ld's own. */
static void linker_word(struct host_view *hv, const char *word, size_t i)
{
	static const char *const rpath[] = { "rpath", NULL };
	enum next_word what = hv->ld_next;

	hv->ld_next = NEXT_OWN;
	if (what != NEXT_OWN)
		take_value(hv, what, word, i);
	else if (word[0] != '-')
		add_item(hv, OL_LINK_FILE, word, i);
	else if (strcmp(word, "-l") == 0 || strcmp(word, "--library") == 0)
		hv->ld_next = NEXT_LIBRARY;
	else if (strncmp(word, "-l", 2) == 0)
		add_item(hv, OL_LINK_LIBRARY, word + 2, i);
	else if (strncmp(word, "--library=", 10) == 0)
		add_item(hv, OL_LINK_LIBRARY, word + 10, i);
	else if (strcmp(word, "-L") == 0 || strcmp(word, "--library-path") == 0)
		hv->ld_next = NEXT_LIB_PATH;
	else if (strncmp(word, "-L", 2) == 0)
		add_lib_path(hv, word + 2);
	else if (strncmp(word, "--library-path=", 15) == 0)
		add_lib_path(hv, word + 15);
	else if (is_ld_long_option(word, rpath))
		hv->ld_next = NEXT_VALUE;
	else
		hv->ld_next = ld_unknown_option(hv, word, i);
}

/* "-Wl,a,b,c": the linker's words a, b and c. */
static void linker_words(struct host_view *hv, const char *list, size_t i)
{
	while (*list) {
		size_t len = strcspn(list, ",");

		if (len)
			linker_word(hv, ol_arena_strndup(&ol_link_arena, list, len), i);
		list += len + (list[len] == ',');
	}
}

/* A separate option's value is a word of the line of its own (not "-o"'s
 * "-ofile" joined form). */
static const char *separate_value(const struct ol_arg *a)
{
	size_t len = strlen(a->raw);

	return a->value && (a->value < a->raw || a->value > a->raw + len) ? a->value : NULL;
}

/*
 * A compiler driver's line (compiler_driver.c): inputs, -l and -L as for ld;
 * linker options come through -Wl, and -Xlinker; the driver's own options
 * that take a value swallow the next word, which is never a file to scan.
 */
static void build_driver_view(struct host_view *hv)
{
	struct ol_cmdline *cl = hv->cl;
	enum next_word next = NEXT_OWN;

	for (size_t i = 0; i < cl->nargs; i++) {
		const struct ol_arg *a = &cl->args[i];
		const char *value;

		if (a->id != OPT_INPUT && a->id != OPT_UNKNOWN &&
		    (ol_opts[a->id].flags & OL_OPTF_WRAPPER_ONLY))
			continue;
		if (next == NEXT_LINKER) {
			/* "-Xlinker -rpath -Xlinker /x": the table took "-Xlinker"
			 * as -rpath's value, a driver word again. */
			linker_word(hv, a->raw, i);
			value = separate_value(a);
			next = value && strcmp(value, "-Xlinker") == 0 ? NEXT_LINKER : NEXT_OWN;
			continue;
		}
		if (next != NEXT_OWN) {
			take_value(hv, next, a->raw, i);
			next = NEXT_OWN;
			continue;
		}
		switch (a->id) {
		case OPT_INPUT:
			if (strcmp(a->raw, "-") != 0)
				add_item(hv, OL_LINK_FILE, a->raw, i);
			break;
		case OPT_library:
			add_item(hv, OL_LINK_LIBRARY, a->value, i);
			break;
		case OPT_library_path:
			add_lib_path(hv, a->value);
			break;
		case OPT_sysroot:
			if (strcmp(a->raw, "--sysroot") == 0)
				next = NEXT_SYSROOT;
			else
				cl->sysroot = strchr(a->raw, '=') ? strchr(a->raw, '=') + 1 : a->value;
			break;
		case OPT_UNKNOWN:
			if (strncmp(a->raw, "-Wl,", 4) == 0)
				linker_words(hv, a->raw + 4, i);
			else if (strcmp(a->raw, "-Xlinker") == 0)
				next = NEXT_LINKER;
			else if (strcmp(a->raw, "-static") == 0)
				add_item(hv, OL_LINK_BSTATIC, NULL, i);
			else if (ol_driver_links_runtime(a->raw))
				strvec_push(&cl->driver_runtimes, a->raw);
			else if (ol_driver_option_takes_next_word(a->raw))
				next = NEXT_VALUE;
			break;
		default:
			break;
		}
	}
}

/*
 * Walks the forwarded arguments in order, as the host linker will read them.
 * An unknown ld option that takes a value swallows the next forwarded word
 * ("-z now", "-m elf_x86_64", "-dynamic-linker /lib64/ld-linux-x86-64.so.2"),
 * so that word is never taken for an input file.
 */
void ol_build_host_view(struct ol_cmdline *cl)
{
	struct host_view hv = { cl, 0, 0, 0, NEXT_OWN };
	enum next_word next = NEXT_OWN;

	if (cl->linker_is_driver) {
		build_driver_view(&hv);
		return;
	}
	/* link.exe's /wholearchive anywhere on the line makes upstream (19,
	 * 22) take every archive whole from the start, /wholearchive:<file>
	 * included; --no-whole-archive still ends it. */
	for (size_t i = 0; i < cl->nargs; i++)
		if (cl->args[i].id == OPT_wholearchive) {
			add_item(&hv, OL_LINK_WHOLE_ARCHIVE, NULL, i);
			break;
		}
	for (size_t i = 0; i < cl->nargs; i++) {
		const struct ol_arg *a = &cl->args[i];

		if (a->id != OPT_INPUT && a->id != OPT_UNKNOWN &&
		    (ol_opts[a->id].flags & OL_OPTF_WRAPPER_ONLY))
			continue;  /* the host linker never sees it */
		if (next != NEXT_OWN) {
			take_value(&hv, next, a->raw, i);
			next = NEXT_OWN;
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
				next = NEXT_SYSROOT;
			else if (a->value == a->raw + strlen("--sysroot") && a->value[0] == '=')
				cl->sysroot = a->value + 1;
			else
				cl->sysroot = a->value;
			break;
		case OPT_UNKNOWN:
			next = ld_unknown_option(&hv, a->raw, i);
			break;
		default:
			break;
		}
	}
}
