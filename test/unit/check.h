/*
 * Shared by the unit tests: CHECK records a failure and carries on, so one run
 * reports every broken expectation.  A test sets current_test to name itself in
 * messages; main() returns failures != 0.
 */
#ifndef OL_TEST_CHECK_H
#define OL_TEST_CHECK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static const char *current_test = "";

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: %s%scheck failed: %s\n", __FILE__, __LINE__, \
				current_test, *current_test ? ": " : "", #cond);         \
			failures++;                                                      \
		}                                                                        \
	} while (0)

/* A reader's failure (rc -1, the message *why, the offset *bad) is the one
 * expected; a message ending in "..." is a prefix (the rest comes from a
 * library).  Reports and counts a mismatch. */
static inline void check_failure(const char *what, int rc, const char *why, uint64_t bad,
				 const char *message, uint64_t offset)
{
	size_t len = strlen(message);
	int prefix = len >= 3 && !strcmp(message + len - 3, "...");

	if (rc == -1 && why && (prefix ? !strncmp(why, message, len - 3) : !strcmp(why, message)) &&
	    bad == offset)
		return;
	fprintf(stderr, "%s: %s: got rc %d, +0x%" PRIx64 " \"%s\"\n  expected +0x%" PRIx64 " \"%s\"\n",
		current_test, what, rc, bad, why ? why : "(none)", offset, message);
	failures++;
}

/* Calls check() on every proper prefix of data[0 .. size) (past 256 bytes,
 * every `step`-th length), each in an allocation of exactly that size, so
 * that ASan reports any read past the end. */
static inline void check_prefixes(const uint8_t *data, size_t size, size_t step,
				  void (*check)(const uint8_t *prefix, size_t len))
{
	for (size_t len = 0; len < size; len += len < 256 ? 1 : step) {
		uint8_t *copy = malloc(len ? len : 1);

		if (len)
			memcpy(copy, data, len);
		check(copy, len);
		free(copy);
	}
}

#endif
