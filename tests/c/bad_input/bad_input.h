/*
 * bad_input.h: what the files of the bad_input program share (see main.c
 * for what the program covers): the checks, the two runtimes and the frame
 * counter, the counting callbacks (harness.c) and the scenarios (statuses.c,
 * handles.c, threads_batches.c, teardown.c).
 */
#ifndef ONITY_TESTS_BAD_INPUT_H
#define ONITY_TESTS_BAD_INPUT_H

#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onity.h"
#define ONITY_CHECK_SHARED
#include "../check.h"

/* A status that must be one of a set (where the header allows several). */
#define CHECK_STATUS_IN(call, set, n)                                                    \
    do {                                                                                 \
        uint32_t got_ = (uint32_t)(call);                                                \
        int i_, hit_ = 0;                                                                \
        for (i_ = 0; i_ < (n); i_++) hit_ |= got_ == (uint32_t)(set)[i_];                \
        if (!hit_) {                                                                     \
            fprintf(stderr, "%s:%d: %s returned %u (%s), not an allowed status\n",        \
                    __FILE__, __LINE__, #call, (unsigned)got_, onity_status_text(got_)); \
            g_failures++;                                                                \
        }                                                                                \
    } while (0)

#define U(id) ((void *)(uintptr_t)(id))
#define SENTINEL 0x5E5E5E5E5E5E5E5EULL

extern const uint32_t BAD_HANDLE_STATUSES[3];

/* ---- shared state -------------------------------------------------------- */

extern OnityRuntime *rt;  /* the main runtime, owned by the main thread */
extern OnityRuntime *rt2; /* a second runtime, for foreign handles */
extern uint64_t g_frame;

void frame(OnityRuntime *r);
void full_frame(OnityRuntime *r);
uint64_t manual(OnityRuntime *r);
uint64_t source(OnityRuntime *r);
uint32_t state_of(OnityRuntime *r, uint64_t t);
uint32_t live_count(OnityRuntime *r);

/* Counts calls per id and remembers the last state; consumes tasks unless
 * the id is odd (those are left for the host or for destroy to release). */
#define MAX_ID 512
extern int g_calls[MAX_ID];
extern uint32_t g_state[MAX_ID];
extern uint64_t g_task[MAX_ID];
extern OnityRuntime *g_cb_rt; /* runtime the counting callback talks to */

void count_cb(void *user, uint64_t task, uint32_t state);
/* Fails the program if it is ever called. */
void never_cb(void *user, uint64_t task, uint32_t state);

/* ---- scenarios ------------------------------------------------------------ */

/* statuses.c */
void test_status_texts(void);
void test_bad_runtime_pointers(void);
void test_frames(void);
void test_null_outputs_and_enums(void);
/* handles.c */
void test_handles(void);
void test_combinator_inputs(void);
/* threads_batches.c */
void test_wrong_thread(void);
void test_batches(void);
/* teardown.c */
void test_reentrancy(void);
void test_destroy_in_flight(void);

#endif
