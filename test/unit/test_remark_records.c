/*
 * Unit tests for the remark records (src/format/remark_records.c): a blob
 * the backend makes decodes into sorted remarks without repeats; every
 * truncation and every damaged field of a blob (which may come back from a
 * shared cache) is an error with its offset, never a crash; the YAML of a
 * remark keeps its line breaks and quotes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload/remark_records.h"
#include "offload/strvec.h"

#include "check.h"

/* A literal with its embedded NULs, without the implicit last one. */
#define ADD_LITERAL(sb, lit) strbuf_add((sb), (lit), sizeof(lit) - 1)

/* One record, encoded as remarks.cpp encodes it; args: key, value pairs. */
static void add_record(struct strbuf *sb, const char *kind, int shown, const char *pass,
		       const char *name, const char *function, const char *file, unsigned line,
		       unsigned column, const char *const *args, size_t nargs)
{
	if (!sb->len)
		strbuf_addstr(sb, OL_REMARKS_MAGIC);
	/* "_Z3fooPi" comes with its demangled name, as the backend gives it. */
	strbuf_addf(sb, "%s%c%d%c%s%c%s%c%s%c%s%c%s%c%u%c%u%c%zu%c", kind, 0, shown, 0, pass, 0,
		    name, 0, function, 0, strcmp(function, "_Z3fooPi") ? "" : "foo(int*)", 0, file,
		    0, line, 0, column, 0, nargs, 0);
	for (size_t i = 0; i < nargs; i++)
		strbuf_addf(sb, "%s%c%s%c%c0%c0%c", args[2 * i], 0, args[2 * i + 1], 0, 0, 0, 0);
}

static const char *const spmd[] = { "String", "Transformed generic-mode kernel to SPMD-mode.",
				     "String", " [OMP120]" };
static const char *const mix[] = { "String", "mov.u32 \t", "INST_mov.u32", "1", "String",
				   "\n\"q\" \\" };

static struct strbuf sample(void)
{
	struct strbuf sb = STRBUF_INIT;

	add_record(&sb, "Analysis", 0, "asm-printer", "InstructionMix", "k", "", 0, 0, mix, 3);
	add_record(&sb, "Passed", 1, "openmp-opt", "OMP120", "k", "a.c", 7, 1, spmd, 2);
	add_record(&sb, "Missed", 1, "inline", "NoDefinition", "_Z3fooPi", "a.c", 3, 9, spmd, 1);
	/* The same remark from a second partition, not selected there. */
	add_record(&sb, "Passed", 0, "openmp-opt", "OMP120", "k", "a.c", 7, 1, spmd, 2);
	return sb;
}

static void test_decode(void)
{
	struct strbuf sb = sample();
	struct ol_remarks rs;
	const char *why = NULL;
	uint64_t bad = 0;

	current_test = "decode";
	CHECK(ol_remarks_decode((const uint8_t *)sb.buf, sb.len, &rs, &why, &bad) == 0);
	CHECK(rs.n == 3);
	if (rs.n == 3) {
		/* No file first, then by line. */
		CHECK(!strcmp(rs.v[0].name, "InstructionMix") && !rs.v[0].shown);
		CHECK(!strcmp(rs.v[1].name, "NoDefinition") && rs.v[1].line == 3 && rs.v[1].column == 9);
		CHECK(!strcmp(rs.v[1].function, "_Z3fooPi") && !strcmp(rs.v[1].demangled, "foo(int*)"));
		CHECK(!strcmp(rs.v[0].demangled, ""));
		CHECK(!strcmp(rs.v[2].name, "OMP120") && rs.v[2].shown);
		CHECK(!strcmp(rs.v[2].message, "Transformed generic-mode kernel to SPMD-mode. [OMP120]"));
		CHECK(!strcmp(ol_remark_option(&rs.v[2]), "-Rpass"));
		CHECK(!strcmp(ol_remark_option(&rs.v[1]), "-Rpass-missed"));
		CHECK(!strcmp(ol_remark_option(&rs.v[0]), "-Rpass-analysis"));
	}
	ol_remarks_release(&rs);
	CHECK(ol_remarks_decode(NULL, 0, &rs, &why, &bad) == 0 && rs.n == 0);
	CHECK(ol_remarks_decode((const uint8_t *)OL_REMARKS_MAGIC, OL_REMARKS_MAGIC_LEN, &rs, &why,
				&bad) == 0 && rs.n == 0);
	strbuf_release(&sb);
}

/* Every prefix of a valid blob but the whole is rejected, except those that
 * end exactly between records. */
static void test_truncations(void)
{
	struct strbuf sb = sample();
	size_t ends[5] = { OL_REMARKS_MAGIC_LEN }, nends = 1;
	struct strbuf one = STRBUF_INIT;

	current_test = "truncations";
	/* Where the records end: rebuild one at a time. */
	add_record(&one, "Analysis", 0, "asm-printer", "InstructionMix", "k", "", 0, 0, mix, 3);
	ends[nends++] = one.len;
	add_record(&one, "Passed", 1, "openmp-opt", "OMP120", "k", "a.c", 7, 1, spmd, 2);
	ends[nends++] = one.len;
	add_record(&one, "Missed", 1, "inline", "NoDefinition", "_Z3fooPi", "a.c", 3, 9, spmd, 1);
	ends[nends++] = one.len;
	strbuf_release(&one);
	for (size_t len = 1; len < sb.len; len++) {
		struct ol_remarks rs;
		const char *why = NULL;
		uint64_t bad = ~0ull;
		int boundary = 0;
		uint8_t *copy = malloc(len);

		memcpy(copy, sb.buf, len);
		for (size_t k = 0; k < nends; k++)
			boundary |= ends[k] == len;
		int rc = ol_remarks_decode(copy, len, &rs, &why, &bad);
		if (boundary)
			CHECK(rc == 0);
		else
			CHECK(rc == -1 && why && bad <= len && rs.n == 0 && !rs.v);
		ol_remarks_release(&rs);
		free(copy);
	}
	strbuf_release(&sb);
}

static void expect_failure(const char *what, const uint8_t *data, size_t size, const char *message,
			   uint64_t offset)
{
	struct ol_remarks rs;
	const char *why = NULL;
	uint64_t bad = 0;
	int rc = ol_remarks_decode(data, size, &rs, &why, &bad);

	check_failure(what, rc, why, bad, message, offset);
	ol_remarks_release(&rs);
}

static void test_damaged_fields(void)
{
	struct strbuf sb = STRBUF_INIT;
	const size_t m = OL_REMARKS_MAGIC_LEN;

	current_test = "damaged";
	expect_failure("magic", (const uint8_t *)"OLRMK9\n", 7, "not offload-link remark records "
		       "(bad magic)", 0);
	add_record(&sb, "Praised", 1, "p", "n", "f", "", 0, 0, NULL, 0);
	expect_failure("kind", (const uint8_t *)sb.buf, sb.len, "unknown remark kind 'Praised'", m);
	strbuf_release(&sb);
	add_record(&sb, "Passed", 2, "p", "n", "f", "", 0, 0, NULL, 0);
	expect_failure("shown", (const uint8_t *)sb.buf, sb.len,
		       "remark 'shown' field is not 0 or 1", m + 7);
	strbuf_release(&sb);
	/* A line number that is not one, and one that overflows. */
	strbuf_addstr(&sb, OL_REMARKS_MAGIC);
	ADD_LITERAL(&sb, "Passed\0" "1\0p\0n\0f\0\0a.c\0" "7x\0" "1\0" "0\0");
	expect_failure("line", (const uint8_t *)sb.buf, sb.len, "remark number field '7x' is not "
		       "a 32-bit decimal", m + 20);
	strbuf_release(&sb);
	strbuf_addstr(&sb, OL_REMARKS_MAGIC);
	ADD_LITERAL(&sb, "Passed\0" "1\0p\0n\0f\0\0a.c\0" "99999999999\0" "1\0" "0\0");
	expect_failure("overflow", (const uint8_t *)sb.buf, sb.len, "remark number field "
		       "'99999999999' is not a 32-bit decimal", m + 20);
	strbuf_release(&sb);
	/* More arguments claimed than bytes left. */
	strbuf_addstr(&sb, OL_REMARKS_MAGIC);
	ADD_LITERAL(&sb, "Passed\0" "1\0p\0n\0f\0\0a.c\0" "7\0" "1\0" "4000000000\0");
	expect_failure("nargs", (const uint8_t *)sb.buf, sb.len, "remark claims 4000000000 "
		       "arguments, more than the record's remaining 0 bytes hold", m + 24);
	strbuf_release(&sb);
	/* A last field without its NUL. */
	strbuf_addstr(&sb, OL_REMARKS_MAGIC);
	ADD_LITERAL(&sb, "Passed\0" "1\0p");
	expect_failure("nul", (const uint8_t *)sb.buf, sb.len,
		       "remark field without its terminating NUL", m + 9);
	strbuf_release(&sb);
}

static void test_append_and_yaml(void)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	uint8_t *blob = NULL;
	size_t size = 0;
	struct ol_remarks rs;
	const char *why = NULL;
	uint64_t bad = 0;

	current_test = "append";
	add_record(&a, "Passed", 1, "openmp-opt", "OMP120", "k", "a.c", 7, 1, spmd, 2);
	add_record(&b, "Analysis", 1, "asm-printer", "InstructionMix", "k", "", 0, 0, mix, 3);
	ol_remarks_append(&blob, &size, (const uint8_t *)a.buf, a.len);
	ol_remarks_append(&blob, &size, (const uint8_t *)b.buf, b.len);
	ol_remarks_append(&blob, &size, (const uint8_t *)OL_REMARKS_MAGIC, OL_REMARKS_MAGIC_LEN);
	CHECK(size == a.len + b.len - OL_REMARKS_MAGIC_LEN);
	CHECK(ol_remarks_decode(blob, size, &rs, &why, &bad) == 0 && rs.n == 2);
	if (rs.n == 2) {
		char *yaml = ol_remark_yaml(&rs.v[0]);
		current_test = "yaml";
		CHECK(!strcmp(yaml, "--- !Analysis\n"
				    "Pass:            \"asm-printer\"\n"
				    "Name:            \"InstructionMix\"\n"
				    "Function:        \"k\"\n"
				    "Args:\n"
				    "  - String: \"mov.u32 \\t\"\n"
				    "  - \"INST_mov.u32\": \"1\"\n"
				    "  - String: \"\\n\\\"q\\\" \\\\\"\n"
				    "...\n") || (fprintf(stderr, "%s", yaml), 0));
		free(yaml);
		yaml = ol_remark_yaml(&rs.v[1]);
		CHECK(strstr(yaml, "DebugLoc:        { File: \"a.c\", Line: 7, Column: 1 }\n") != NULL);
		free(yaml);
	}
	ol_remarks_release(&rs);
	free(blob);
	strbuf_release(&a);
	strbuf_release(&b);
}

int main(void)
{
	test_decode();
	test_truncations();
	test_damaged_fields();
	test_append_and_yaml();
	if (failures) {
		fprintf(stderr, "test_remark_records: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_remark_records: all checks passed\n");
	return 0;
}
