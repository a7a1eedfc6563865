/*
 * check.h: the checking macros of the C test programs whose checks run on
 * one thread. A failed check prints where and what, and counts in
 * g_failures; the program exits non-zero when it is not 0. threads.c keeps
 * its own thread-safe variant.
 *
 * A program of several files (a directory under tests/c) defines
 * ONITY_CHECK_SHARED before including this header and `int g_failures;` in
 * one of its files, so that all its files count in the same variable.
 */
#ifndef ONITY_TESTS_CHECK_H
#define ONITY_TESTS_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "onity.h"

#ifdef ONITY_CHECK_SHARED
extern int g_failures;
#else
static int g_failures;
#endif

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            g_failures++;                                                             \
        }                                                                             \
    } while (0)

#define CHECK_STATUS(call, want)                                                        \
    do {                                                                                \
        uint32_t got_ = (uint32_t)(call);                                               \
        uint32_t want_ = (uint32_t)(want);                                              \
        if (got_ != want_) {                                                            \
            fprintf(stderr, "%s:%d: %s returned %u (%s), expected %u (%s)\n", __FILE__, \
                    __LINE__, #call, (unsigned)got_, onity_status_text(got_),           \
                    (unsigned)want_, onity_status_text(want_));                         \
            g_failures++;                                                               \
        }                                                                               \
    } while (0)

#define OK(call) CHECK_STATUS(call, ONITY_STATUS_OK)

#define CHECK_EQ_U64(a, b)                                                                 \
    do {                                                                                   \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);     \
        if (a_ != b_) {                                                                    \
            fprintf(stderr, "%s:%d: %s == %s failed: %llu != %llu\n", __FILE__, __LINE__, \
                    #a, #b, a_, b_);                                                       \
            g_failures++;                                                                  \
        }                                                                                  \
    } while (0)

#endif
