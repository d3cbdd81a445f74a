/*
 * Shared by the unit tests: CHECK records a failure and carries on, so one run
 * reports every broken expectation.  A test sets current_test to name itself in
 * messages; main() returns failures != 0.
 */
#ifndef OL_TEST_CHECK_H
#define OL_TEST_CHECK_H

#include <stdio.h>

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

#endif
