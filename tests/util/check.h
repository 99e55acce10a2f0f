/* The tests of util/ and tuner/: a failed check names its file, line and condition, and ends the test. */
#ifndef STC_TEST_UTIL_CHECK_H
#define STC_TEST_UTIL_CHECK_H
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#endif
