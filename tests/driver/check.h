/* The driver tests' check: a failed condition is printed with its place and counted in
 * `failures`, which main returns (non-zero: the test fails). */
#ifndef STC_TESTS_DRIVER_CHECK_H
#define STC_TESTS_DRIVER_CHECK_H
#include <stdio.h>

static int failures;
#define CHECK(c)                                                                       \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
            failures++;                                                                \
        }                                                                              \
    } while (0)

#endif
