/*
 * Unit tests for the command line (src/driver/): the llvm::opt-style
 * matcher in all its spellings, re-rendering for the host linker (joined ->
 * separate, aliases as their target, order kept, wrapper objects after every
 * -o), response files, the host linker's view (link_items), and the
 * --device-linker rules of each release.  Expected host lines were checked
 * against /usr/lib/llvm-{16,19,22}/bin/clang-linker-wrapper --dry-run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

#include "offload/cmdline.h"
#include "offload/diag.h"
#include "offload/strvec.h"

#include "check.h"



#define CHECK_STR(got, want)                                                         \
	do {                                                                         \
		const char *got_ = (got), *want_ = (want);                           \
		if (!got_ || strcmp(got_, want_) != 0) {                             \
			fprintf(stderr, "%s:%d: %s: got '%s'\n%*swant '%s'\n",        \
				__FILE__, __LINE__, current_test,                     \
				got_ ? got_ : "(null)", (int)strlen(__FILE__) + 8,    \
				"", want_);                                           \
			failures++;                                                  \
		}                                                                    \
	} while (0)

#define MAX_WORDS 64

/* Parses the NULL-terminated words after an implicit argv[0]. */
static int parse_words(struct ol_cmdline *cl, const char *const *words)
{
	char *argv[MAX_WORDS + 2];
	int argc = 0;

	argv[argc++] = (char *)"offload-link";
	for (size_t i = 0; words[i] && argc <= MAX_WORDS; i++)
		argv[argc++] = (char *)words[i];
	argv[argc] = NULL;
	return ol_cmdline_parse(argc, argv, cl);
}

/* Splits a space-separated line into words (no quoting: tests keep it
 * simple) and parses it. */
static int parse_line(struct ol_cmdline *cl, const char *line, char *storage, size_t size)
{
	const char *words[MAX_WORDS + 1];
	size_t n = 0;
	char *save = NULL;

	snprintf(storage, size, "%s", line);
	for (char *w = strtok_r(storage, " ", &save); w && n < MAX_WORDS;
	     w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	words[n] = NULL;
	return parse_words(cl, words);
}

static char *join(const struct strvec *sv)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < sv->nr; i++) {
		if (i)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, sv->v[i]);
	}
	return strbuf_detach(&sb);
}

static char *render(const struct ol_cmdline *cl, const char *const *objs)
{
	struct strvec out = STRVEC_INIT;
	char *s;

	ol_cmdline_render_host(cl, objs, &out);
	s = join(&out);
	strvec_release(&out);
	return s;
}

/* Parses `line` (with --offload-abi=<abi> in front unless abi is NULL) and
 * checks the rendered host line. */
static void check_host_line(const char *abi, const char *line, const char *want)
{
	char storage[2048], full[2048];
	struct ol_cmdline cl;
	char *got;

	if (abi)
		snprintf(full, sizeof(full), "--offload-abi=%s %s", abi, line);
	else
		snprintf(full, sizeof(full), "%s", line);
	if (parse_line(&cl, full, storage, sizeof(storage)) != 0) {
		fprintf(stderr, "%s: parse failed: %s\n", current_test, full);
		failures++;
		return;
	}
	got = render(&cl, NULL);
	CHECK_STR(got, want);
	free(got);
	ol_cmdline_release(&cl);
}

/* ------------------------------------------------------------------------ */

static void test_matcher_spellings(void)
{
	char storage[1024];
	struct ol_cmdline cl;

	current_test = "matcher";
	CHECK(parse_line(&cl, "-lfoo -l bar -L/x -L /y --library-path=/z --library-path /w "
			      "-library-path=/v --library=baz -oo3 -o out --output=f --output g "
			      "--rpath=/a -rpath /b m.o -z now",
			 storage, sizeof(storage)) == 0);
	CHECK(cl.nargs == 17);
	if (cl.nargs == 17) {
		CHECK(cl.args[0].id == OPT_library);
		CHECK_STR(cl.args[0].value, "foo");
		CHECK_STR(cl.args[0].raw, "-lfoo");
		CHECK(cl.args[1].id == OPT_library);
		CHECK_STR(cl.args[1].value, "bar");
		CHECK_STR(cl.args[1].raw, "-l");
		CHECK(cl.args[2].id == OPT_library_path);
		CHECK_STR(cl.args[2].value, "/x");
		CHECK(cl.args[3].id == OPT_library_path);
		CHECK_STR(cl.args[3].value, "/y");
		CHECK(cl.args[4].id == OPT_library_path);  /* alias, reported as its target */
		CHECK_STR(cl.args[4].value, "/z");
		CHECK(cl.args[5].id == OPT_library_path);
		CHECK_STR(cl.args[5].value, "/w");
		CHECK(cl.args[6].id == OPT_library_path);
		CHECK(cl.args[7].id == OPT_library_path);  /* upstream's --library bug */
		CHECK_STR(cl.args[7].value, "baz");
		CHECK(cl.args[8].id == OPT_o);
		CHECK_STR(cl.args[8].value, "o3");
		CHECK(cl.args[9].id == OPT_o);
		CHECK(cl.args[10].id == OPT_o);
		CHECK(cl.args[11].id == OPT_o);
		CHECK_STR(cl.args[11].value, "g");
		CHECK(cl.args[12].id == OPT_rpath);
		CHECK_STR(cl.args[12].value, "/a");
		CHECK(cl.args[13].id == OPT_rpath);
		CHECK(cl.args[14].id == OPT_INPUT);
		CHECK(cl.args[15].id == OPT_UNKNOWN);
		CHECK(cl.args[16].id == OPT_INPUT);
		CHECK_STR(cl.output, "g");
	}
	ol_cmdline_release(&cl);

	/* Flags must match exactly; joined values may be empty; the longest
	 * name wins ("--offload-opt=-" before "--offload-opt="). */
	CHECK(parse_line(&cl, "--dry-run --dry-runx -dry-run --wrapper-verbose --save-temps "
			      "--offload-opt=-a -offload-opt=-b --offload-opt=c --linker-path= "
			      "-mllvm -x --pass-remarks=inline",
			 storage, sizeof(storage)) == 0);
	CHECK(cl.dry_run && cl.verbose && cl.save_temps);
	CHECK(cl.nargs == 11);
	if (cl.nargs == 11) {
		CHECK(cl.args[1].id == OPT_UNKNOWN);
		CHECK(cl.args[2].id == OPT_UNKNOWN);  /* --dry-run has no one-dash form */
		CHECK(cl.args[5].id == OPT_offload_opt);
		CHECK(cl.args[6].id == OPT_offload_opt);
		CHECK(cl.args[7].id == OPT_offload_opt);
		CHECK(cl.args[9].id == OPT_mllvm);
		CHECK_STR(cl.args[9].value, "-x");
	}
	CHECK(cl.offload_opt.nr == 3);
	if (cl.offload_opt.nr == 3) {
		CHECK_STR(cl.offload_opt.v[0], "-a");
		CHECK_STR(cl.offload_opt.v[1], "-b");
		CHECK_STR(cl.offload_opt.v[2], "c");
	}
	CHECK_STR(cl.linker_path, "");
	CHECK(cl.mllvm.nr == 1);
	CHECK(cl.pass_remarks.nr == 1 && strcmp(cl.pass_remarks.v[0], "--pass-remarks=inline") == 0);
	ol_cmdline_release(&cl);

	/* Defaults. */
	CHECK(parse_line(&cl, "m.o", storage, sizeof(storage)) == 0);
	CHECK_STR(cl.output, "a.out");
	CHECK_STR(cl.host_triple, OL_DEFAULT_TRIPLE);
	CHECK(cl.opt_level == 2 && cl.compression_level == -1 && cl.wrapper_jobs == 0);
	CHECK(cl.flavor == OL_FLAVOR_AUTO && !cl.saw_separator);
	ol_cmdline_release(&cl);

	/* Empty words vanish, as in llvm::opt. */
	{
		const char *words[] = { "a.o", "", "b.o", NULL };

		CHECK(parse_words(&cl, words) == 0);
		CHECK(cl.nargs == 2);
		ol_cmdline_release(&cl);
	}

	/* A separate option at the end of the line is an error. */
	CHECK(parse_line(&cl, "m.o -o", storage, sizeof(storage)) == -1);
	CHECK(parse_line(&cl, "m.o --library-path", storage, sizeof(storage)) == -1);
	CHECK(parse_line(&cl, "-mllvm", storage, sizeof(storage)) == -1);
}

static void test_flavor_tables(void)
{
	char storage[1024];
	struct ol_cmdline cl;

	current_test = "flavor tables";
	CHECK(parse_line(&cl, "--offload-abi=16 -r --relocatable --whole-archive -- m.o",
			 storage, sizeof(storage)) == 0);
	CHECK(cl.flavor == OL_FLAVOR_16);
	/* 16 has no -r record, but the host linker gets "-r": the output is
	 * relocatable all the same. */
	CHECK(cl.relocatable);
	CHECK(cl.saw_separator);
	ol_cmdline_release(&cl);
	/* clang 16 puts it after "--"; -rpath is something else. */
	CHECK(parse_line(&cl, "--offload-abi=16 -- -o m.o -rpath /x -r a.o", storage,
			 sizeof(storage)) == 0);
	CHECK(cl.relocatable);
	ol_cmdline_release(&cl);
	CHECK(parse_line(&cl, "--offload-abi=16 -- -o m.o -rpath /x a.o", storage,
			 sizeof(storage)) == 0);
	CHECK(!cl.relocatable);
	ol_cmdline_release(&cl);

	CHECK(parse_line(&cl, "--offload-abi=19 -r m.o", storage, sizeof(storage)) == 0);
	CHECK(cl.relocatable && cl.flavor == OL_FLAVOR_19);
	ol_cmdline_release(&cl);

	/* --wrapper-jobs: 22 knows jobserver (any case), 19 does not. */
	CHECK(parse_line(&cl, "--offload-abi=22 --wrapper-jobs=JobServer", storage,
			 sizeof(storage)) == 0);
	CHECK(cl.wrapper_jobserver);
	ol_cmdline_release(&cl);
	CHECK(parse_line(&cl, "--wrapper-jobs=jobserver", storage, sizeof(storage)) == 0);
	CHECK(cl.wrapper_jobserver);
	ol_cmdline_release(&cl);
	CHECK(parse_line(&cl, "--offload-abi=19 --wrapper-jobs=jobserver", storage,
			 sizeof(storage)) == -1);
	CHECK(parse_line(&cl, "--wrapper-jobs=0", storage, sizeof(storage)) == -1);
	CHECK(parse_line(&cl, "--wrapper-jobs=0 --wrapper-jobs=4", storage, sizeof(storage)) == 0);
	CHECK(cl.wrapper_jobs == 4);
	ol_cmdline_release(&cl);

	CHECK(parse_line(&cl, "--offload-abi=17", storage, sizeof(storage)) == -1);
	CHECK(parse_line(&cl, "--opt-level=O3 --compression-level=9 "
			      "--wrapper-time-trace=t.json --wrapper-time-trace-granularity=100",
			 storage, sizeof(storage)) == 0);
	CHECK(cl.opt_level == 3 && cl.compression_level == 9);
	CHECK(cl.time_trace_granularity == 100);
	CHECK_STR(cl.time_trace, "t.json");
	ol_cmdline_release(&cl);
	CHECK(parse_line(&cl, "--opt-level=O4", storage, sizeof(storage)) == -1);
	CHECK(parse_line(&cl, "--opt-level=2", storage, sizeof(storage)) == -1);
	CHECK(parse_line(&cl, "--compression-level=high", storage, sizeof(storage)) == -1);
	CHECK(parse_line(&cl, "--wrapper-time-trace-granularity=x", storage, sizeof(storage)) == -1);

	/* 22's --offload-opt= keeps the value as written. */
	CHECK(parse_line(&cl, "--offload-abi=22 --offload-opt=-a --offload-opt=b", storage,
			 sizeof(storage)) == 0);
	CHECK(cl.offload_opt.nr == 2 && strcmp(cl.offload_opt.v[0], "-a") == 0 &&
	      strcmp(cl.offload_opt.v[1], "b") == 0);
	ol_cmdline_release(&cl);

	/* --sysroot: 16 has no '=' in the name; the separate form is ld's. */
	CHECK(parse_line(&cl, "--offload-abi=16 --sysroot=/s16", storage, sizeof(storage)) == 0);
	CHECK_STR(cl.sysroot, "/s16");
	ol_cmdline_release(&cl);
	CHECK(parse_line(&cl, "--offload-abi=22 --sysroot=/s22", storage, sizeof(storage)) == 0);
	CHECK_STR(cl.sysroot, "/s22");
	ol_cmdline_release(&cl);
	CHECK(parse_line(&cl, "--sysroot=/a --sysroot /b m.o", storage, sizeof(storage)) == 0);
	CHECK_STR(cl.sysroot, "/b");
	CHECK(cl.nlink_items == 1);
	ol_cmdline_release(&cl);
	CHECK(parse_line(&cl, "--offload-abi=16 --sysroot /b m.o", storage, sizeof(storage)) == 0);
	CHECK_STR(cl.sysroot, "/b");
	CHECK(cl.nlink_items == 1);
	ol_cmdline_release(&cl);
}

static void test_rendering(void)
{
	static const char *const objs[] = { "w1.o", "w2.o", NULL };
	char storage[1024];
	struct ol_cmdline cl;
	char *got;

	current_test = "render";
	/* Upstream 16.0.6 --dry-run of the same line (without "--"). */
	check_host_line("16",
			"-- m.o -o out -lfoo -Lx --library=baz --library qux --library-path=/lp "
			"-library-path /lp2 --output=f -r -rpath=/a --rpath /b -z now -a -b -c "
			"--whole-archive --sysroot=/s --dynamic-linker=/lib/ld.so "
			"--dynamic-linker /lib/ld2.so --as-needed -oo3 /out:foo -out:bar "
			"--arch=sm_70 --triple=t --linker-arg=x --whole-program -relocatable "
			"-version0 -output=g --unknown=1 -dry-run --offload-opt=y",
			"m.o -o out -l foo -L x -L baz -L qux -L /lp -L /lp2 -o f -r --rpath /a "
			"--rpath /b -z now -a -b -c --whole-archive --sysroot=/s "
			"--dynamic-linker /lib/ld.so --dynamic-linker /lib/ld2.so --as-needed -o o3 "
			"/out:foo -o ut:bar --arch=sm_70 --triple=t --linker-arg=x --whole-program "
			"-relocatable -version0 -o utput=g --unknown=1 -dry-run --offload-opt=y");
	/* Upstream 19.1.7 and 22.1.8 (which also forward "--"). */
	check_host_line("19",
			"m.o -o out -lfoo -r -rpath=/a --sysroot=/s --dynamic-linker=/lib/ld.so "
			"/out:foo -out:bar /libpath:/q -?wholearchive --compiler-arg=y "
			"--compression-level=3 -o=foo -l:libx.a -no-whole-archive",
			"m.o -o out -l foo --relocatable --rpath /a --sysroot=/s "
			"--dynamic-linker=/lib/ld.so /out:foo -out:bar /libpath:/q -?wholearchive "
			"--compiler-arg=y -o =foo -l :libx.a -no-whole-archive");
	check_host_line("22", "-- m.o --opt-level=O5 --device-compiler=-g --should-extract=gfx90a",
			"m.o --opt-level=O5");
	/* Never merge single-letter flags; keep the order. */
	check_host_line(NULL, "-a -b -c z.o -x y.o", "-a -b -c z.o -x y.o");
	/* Wrapper-only options and the separator disappear in every mode. */
	check_host_line(NULL, "--linker-path=/usr/bin/ld --host-triple=x -- --dry-run -mllvm -v "
			      "--wrapper-jobs=2 m.o",
			"m.o");

	/* Wrapper objects after every -o (and /out: in 19/22). */
	CHECK(parse_line(&cl, "--offload-abi=22 a.o -o x --output=y /out:z.exe b.o", storage,
			 sizeof(storage)) == 0);
	got = render(&cl, objs);
	CHECK_STR(got, "a.o -o x w1.o w2.o -o y w1.o w2.o /out:z.exe w1.o w2.o b.o");
	free(got);
	ol_cmdline_release(&cl);

	/* Parsed without --offload-abi, rendered once the release is known. */
	CHECK(parse_line(&cl, "m.o -r -out:bar --dynamic-linker=/x -- n.o", storage,
			 sizeof(storage)) == 0);
	got = render(&cl, NULL);
	CHECK_STR(got, "m.o --relocatable -out:bar --dynamic-linker /x n.o");
	free(got);
	cl.flavor = OL_FLAVOR_16;
	got = render(&cl, objs);
	CHECK_STR(got, "m.o -r -o ut:bar w1.o w2.o --dynamic-linker /x n.o");
	free(got);
	cl.flavor = OL_FLAVOR_22;
	got = render(&cl, objs);
	CHECK_STR(got, "m.o --relocatable -out:bar w1.o w2.o --dynamic-linker=/x n.o");
	free(got);
	ol_cmdline_release(&cl);
}

/* ------------------------------------------------------------------------ */

static char tmpdir[256];

static void write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		failures++;
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void remove_tmpdir(void)
{
	DIR *dir;
	struct dirent *de;

	if (!tmpdir[0] || !(dir = opendir(tmpdir)))
		return;
	while ((de = readdir(dir))) {
		char path[600];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, de->d_name);
		unlink(path);
	}
	closedir(dir);
	rmdir(tmpdir);
}

static void test_response_files(void)
{
	char word[600], word2[600], text[600];
	struct ol_cmdline cl;
	char *got;

	current_test = "response files";
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_cmdline.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		failures++;
		return;
	}

	/* GNU quoting: quotes group, backslash escapes (also inside quotes),
	 * an empty "" alone is no word, x""y is "xy". */
	snprintf(text, sizeof(text),
		 "-o 'my out' \"a b\" c\\ d \\\"q\\\" \"\" x\"\"y 'it\\'s'\n\t@%s/inner.rsp\n",
		 tmpdir);
	write_file("outer.rsp", text);
	write_file("inner.rsp", "-lfoo\r\n-L/n1");
	snprintf(word, sizeof(word), "@%s/outer.rsp", tmpdir);
	{
		const char *words[] = { "first.o", word, "@no-such-file.rsp", "last.o", NULL };

		CHECK(parse_words(&cl, words) == 0);
		got = render(&cl, NULL);
		CHECK_STR(got, "first.o -o my out a b c d \"q\" xy it's -l foo -L /n1 "
			       "@no-such-file.rsp last.o");
		free(got);
		CHECK_STR(cl.output, "my out");
		ol_cmdline_release(&cl);
	}

	/* A loop is an error. */
	snprintf(text, sizeof(text), "a.o @%s/loop2.rsp", tmpdir);
	write_file("loop1.rsp", text);
	snprintf(text, sizeof(text), "b.o @%s/loop1.rsp", tmpdir);
	write_file("loop2.rsp", text);
	snprintf(word, sizeof(word), "@%s/loop1.rsp", tmpdir);
	{
		const char *words[] = { word, NULL };

		CHECK(parse_words(&cl, words) == -1);
	}

	/* The same file twice side by side is not a loop. */
	{
		const char *words[] = { word2, word2, NULL };

		snprintf(word2, sizeof(word2), "@%s/inner.rsp", tmpdir);
		CHECK(parse_words(&cl, words) == 0);
		CHECK(cl.nargs == 4);
		ol_cmdline_release(&cl);
	}

	/* Ten levels of nesting are fine, eleven are not: n<i>.rsp names
	 * n<i+1>.rsp, the last one names a file. */
	for (int depth = 10; depth <= 11; depth++) {
		for (int i = 0; i < depth; i++) {
			char name[32];

			snprintf(name, sizeof(name), "n%d.rsp", i);
			if (i + 1 < depth)
				snprintf(text, sizeof(text), "@%s/n%d.rsp", tmpdir, i + 1);
			else
				snprintf(text, sizeof(text), "deep.o");
			write_file(name, text);
		}
		snprintf(word, sizeof(word), "@%s/n0.rsp", tmpdir);
		{
			const char *words[] = { word, NULL };
			int ret = parse_words(&cl, words);

			CHECK(ret == (depth <= 10 ? 0 : -1));
			if (ret == 0) {
				CHECK(cl.nargs == 1 && strcmp(cl.args[0].raw, "deep.o") == 0);
				ol_cmdline_release(&cl);
			}
		}
	}
}

/* ------------------------------------------------------------------------ */

static int item_is(const struct ol_cmdline *cl, size_t i, enum ol_link_item_kind kind,
		   const char *value)
{
	const struct ol_link_item *it;

	if (i >= cl->nlink_items)
		return 0;
	it = &cl->link_items[i];
	if (it->kind != kind)
		return 0;
	if (!value)
		return it->value == NULL;
	return it->value && strcmp(it->value, value) == 0;
}

static void test_link_items(void)
{
	char storage[1024];
	struct ol_cmdline cl;

	current_test = "link items";
	CHECK(parse_line(&cl, "-z now -m elf_x86_64 -dynamic-linker /lib64/ld-linux-x86-64.so.2 "
			      "-zrelro -O1 crt1.o -O 2 --hash-style gnu -rpath-link /rl -T script.ld "
			      "-soname libx.so -e main -u sym --version-script v.map "
			      "-plugin /p.so -plugin-opt O2 --build-id -o out -L/lib -L /lib2 "
			      "--library-path=/lib3 main.o - --sysroot /sr",
			 storage, sizeof(storage)) == 0);
	CHECK(cl.nlink_items == 2);
	CHECK(item_is(&cl, 0, OL_LINK_FILE, "crt1.o"));
	CHECK(item_is(&cl, 1, OL_LINK_FILE, "main.o"));
	CHECK(cl.nlib_paths == 3);
	if (cl.nlib_paths == 3) {
		CHECK_STR(cl.lib_paths[0], "/lib");
		CHECK_STR(cl.lib_paths[1], "/lib2");
		CHECK_STR(cl.lib_paths[2], "/lib3");
	}
	CHECK_STR(cl.sysroot, "/sr");
	CHECK(cl.link_items[1].arg_index < cl.nargs &&
	      strcmp(cl.args[cl.link_items[1].arg_index].raw, "main.o") == 0);
	ol_cmdline_release(&cl);

	CHECK(parse_line(&cl, "a.o -Bstatic -lfoo -Bdynamic -l bar -l:baz.a --start-group x.a "
			      "-( y.a -) --end-group --as-needed -lm --no-as-needed --whole-archive "
			      "w.a -no-whole-archive -static -dn -non_shared -dy -call_shared "
			      "--Bstatic -lend",
			 storage, sizeof(storage)) == 0);
	{
		static const struct {
			enum ol_link_item_kind kind;
			const char *value;
		} want[] = {
			{ OL_LINK_FILE, "a.o" },
			{ OL_LINK_BSTATIC, NULL },
			{ OL_LINK_LIBRARY, "foo" },
			{ OL_LINK_BDYNAMIC, NULL },
			{ OL_LINK_LIBRARY, "bar" },
			{ OL_LINK_LIBRARY, ":baz.a" },
			{ OL_LINK_START_GROUP, NULL },
			{ OL_LINK_FILE, "x.a" },
			{ OL_LINK_START_GROUP, NULL },
			{ OL_LINK_FILE, "y.a" },
			{ OL_LINK_END_GROUP, NULL },
			{ OL_LINK_END_GROUP, NULL },
			{ OL_LINK_AS_NEEDED, NULL },
			{ OL_LINK_LIBRARY, "m" },
			{ OL_LINK_NO_AS_NEEDED, NULL },
			{ OL_LINK_WHOLE_ARCHIVE, NULL },
			{ OL_LINK_FILE, "w.a" },
			{ OL_LINK_NO_WHOLE_ARCHIVE, NULL },
			{ OL_LINK_BSTATIC, NULL },
			{ OL_LINK_BSTATIC, NULL },
			{ OL_LINK_BSTATIC, NULL },
			{ OL_LINK_BDYNAMIC, NULL },
			{ OL_LINK_BDYNAMIC, NULL },
			{ OL_LINK_BSTATIC, NULL },
			{ OL_LINK_LIBRARY, "end" },
		};
		size_t n = sizeof(want) / sizeof(want[0]);

		CHECK(cl.nlink_items == n);
		for (size_t i = 0; i < n && i < cl.nlink_items; i++) {
			if (!item_is(&cl, i, want[i].kind, want[i].value)) {
				fprintf(stderr, "%s: item %zu: kind %d value %s\n", current_test, i,
					cl.link_items[i].kind,
					cl.link_items[i].value ? cl.link_items[i].value : "(null)");
				failures++;
			}
		}
		CHECK(cl.static_link);
	}
	ol_cmdline_release(&cl);

	/* -Bstatic after the first -l does not make the whole link static. */
	CHECK(parse_line(&cl, "-lc -Bstatic -lfoo", storage, sizeof(storage)) == 0);
	CHECK(!cl.static_link);
	ol_cmdline_release(&cl);

	/* Upstream 16's own records for --as-needed and --dynamic-linker. */
	CHECK(parse_line(&cl, "--offload-abi=16 --as-needed -lfoo --dynamic-linker /ld.so m.o",
			 storage, sizeof(storage)) == 0);
	CHECK(cl.nlink_items == 3);
	CHECK(item_is(&cl, 0, OL_LINK_AS_NEEDED, NULL));
	CHECK(item_is(&cl, 1, OL_LINK_LIBRARY, "foo"));
	CHECK(item_is(&cl, 2, OL_LINK_FILE, "m.o"));
	ol_cmdline_release(&cl);

	/* Wrapper-only options are not seen by ld: "-z" takes "now", not the
	 * --dry-run between them. */
	CHECK(parse_line(&cl, "-z --dry-run now m.o", storage, sizeof(storage)) == 0);
	CHECK(cl.nlink_items == 1 && item_is(&cl, 0, OL_LINK_FILE, "m.o"));
	ol_cmdline_release(&cl);
}

/* ------------------------------------------------------------------------ */

static void check_device_args(enum ol_flavor flavor, const char *triple, const char *want)
{
	static const char *const raw_values[] = {
		"-a",
		"nvptx64-nvidia-cuda=-b",
		"amdgcn-amd-amdhsa=-c",
		"k=v",
		"foo=",
		"-mllvm",
		"x86_64=-d",
		"nvptx64-nvidia-cuda",
		NULL,
	};
	struct strvec raw = STRVEC_INIT, out = STRVEC_INIT;
	struct ol_cmdline cl;
	char *got;

	memset(&cl, 0, sizeof(cl));
	strvec_pushv(&raw, raw_values);
	ol_cmdline_device_args(&cl, &raw, triple, flavor, &out);
	got = join(&out);
	CHECK_STR(got, want);
	free(got);
	strvec_release(&raw);
	strvec_release(&out);
}

static void test_device_args(void)
{
	current_test = "device args";
	/* 16/19: "k=v" is dropped (T is not the group triple), "foo=" -> "foo". */
	check_device_args(OL_FLAVOR_16, "nvptx64-nvidia-cuda",
			  "-a -b foo -mllvm nvptx64-nvidia-cuda");
	check_device_args(OL_FLAVOR_19, "amdgcn-amd-amdhsa", "-a -c foo -mllvm nvptx64-nvidia-cuda");
	/* 22: values whose T is not a triple are kept whole. */
	check_device_args(OL_FLAVOR_22, "nvptx64-nvidia-cuda",
			  "-a -b k=v foo= -mllvm nvptx64-nvidia-cuda");
	check_device_args(OL_FLAVOR_22, "x86_64", "-a k=v foo= -mllvm -d nvptx64-nvidia-cuda");
	check_device_args(OL_FLAVOR_AUTO, "amdgcn-amd-amdhsa",
			  "-a -c k=v foo= -mllvm nvptx64-nvidia-cuda");
}

int main(void)
{
	ol_diag_init("offload-link");
	test_matcher_spellings();
	test_flavor_tables();
	test_rendering();
	test_response_files();
	test_link_items();
	test_device_args();
	remove_tmpdir();
	if (failures) {
		fprintf(stderr, "test_cmdline: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_cmdline: all checks passed\n");
	return 0;
}
