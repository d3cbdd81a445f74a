/*
 * remark_records: the optimization remarks of a device LTO as the backend
 * hands them over and the cache keeps them, and what the device stage makes
 * of them (src/format/remark_records.c, pure functions over bytes).
 *
 * The encoding: OL_REMARKS_MAGIC, then records back to back, each a run of
 * NUL-terminated fields:
 *
 *   kind      LLVM's YAML tag without '!': Passed, Missed, Analysis,
 *             AnalysisFPCommute, AnalysisAliasing or Failure
 *   shown     "1" when a --pass-remarks* pattern selected it (it is
 *             printed), "0" when only --remarks-file wants it
 *   pass, name, function
 *   demangled the function's name demangled (llvm::demangle, in the
 *             backend: the executable has no C++), "" when that is the name
 *   file, line, column     where it points ("" and "0" "0" for nowhere)
 *   nargs     how many arguments follow, in decimal
 *   then per argument: key, value, file, line, column
 *
 * The message is the arguments' values joined, as LLVM prints a remark.
 * Blobs of several LTO runs (partitions) are joined by dropping every magic
 * but the first (ol_remarks_append).
 */
#ifndef OFFLOAD_REMARK_RECORDS_H
#define OFFLOAD_REMARK_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define OL_REMARKS_MAGIC "OLRMK2\n"
#define OL_REMARKS_MAGIC_LEN 7

struct ol_remark_arg {
	const char *key, *value, *file;
	unsigned line, column;
};

/* One remark; its strings point into the decoded blob. */
struct ol_remark {
	const char *kind, *pass, *name, *function, *file;
	const char *demangled;        /* the function's name demangled, or "" */
	unsigned line, column;
	int shown;
	struct ol_remark_arg *args;
	size_t nargs;
	char *message;                /* the values joined, malloc'd */
};

struct ol_remarks {
	struct ol_remark *v;
	size_t n;
};

/* Decodes a blob; records are sorted (file, line, column, kind, pass,
 * name, message, function) and exact repeats dropped (partitions that
 * copy one function report its remarks once each).  Returns 0, or -1 with
 * *why and the offset *bad of the first malformed byte (out empty).  The
 * remarks point into data, which must outlive them. */
int ol_remarks_decode(const uint8_t *data, size_t size, struct ol_remarks *out,
		      const char **why, uint64_t *bad);
void ol_remarks_release(struct ol_remarks *r);

/* Appends blob `more` to *blob (malloc'd, grown): the first magic stays. */
void ol_remarks_append(uint8_t **blob, size_t *size, const uint8_t *more, size_t more_size);

/* "-Rpass", "-Rpass-missed" or "-Rpass-analysis": the clang option that
 * selects remarks of this kind. */
const char *ol_remark_option(const struct ol_remark *r);

/* The remark as one LLVM YAML remark document ("--- !Passed ... ..."),
 * malloc'd; `function` is its function's name as the YAML records it. */
char *ol_remark_yaml(const struct ol_remark *r);

#endif
