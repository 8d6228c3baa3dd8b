/* Minimal assertion helpers for the C unit tests: each failed check prints
 * where and why, and the test exits non-zero at the end. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stdio.h>

static int test_failures;

#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
      test_failures++;                                                            \
    }                                                                             \
  } while (0)

#define TEST_EXIT() (test_failures ? (fprintf(stderr, "%d check(s) failed\n", test_failures), 1) : 0)

#endif
