/*
 * game_loop.h: what the files of the game_loop program share (see main.c
 * for what the program covers): the loop state, the continuation records,
 * the checks on them, the helpers (harness.c) and the scenarios (waits.c,
 * tasks.c, batch.c).
 */
#ifndef ONITY_TESTS_GAME_LOOP_H
#define ONITY_TESTS_GAME_LOOP_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onity.h"
#define ONITY_CHECK_SHARED
#include "../check.h"

#define U(id) ((void *)(uintptr_t)(id))

/* ---- the loop ---------------------------------------------------------- */

#define HOST 0xFFFFu /* "timing" recorded for continuations run outside a tick */

typedef struct {
    OnityRuntime *rt;
    uint64_t frame;
    uint32_t timing;
    uint32_t run;
    int in_tick;
    uint32_t runs[ONITY_TIMING_COUNT];
    double realtime;
} Loop;

extern Loop L;

void begin_frame(double dt, double udt, double rdt);
void begin_std_frame(void);
void tick(uint32_t t);
void tick_range(uint32_t from, uint32_t to);
void std_frame(void);

/* ---- continuations ------------------------------------------------------ */

#define MAX_ID 256
#define MAX_ALL 64

typedef void (*Action)(int id);

typedef struct {
    int count;
    uint64_t frame;
    uint32_t timing;
    uint32_t run;
    uint32_t state;
    uint64_t task;
    int consumed;
    OnityOutcome outcome;
    int no_consume;     /* leave the task for the host to consume */
    uint32_t all_count; /* a WhenAll: read the per-input results first */
    OnityOutcome all[MAX_ALL];
    Action action; /* extra work done inside the continuation */
} Rec;

extern Rec R[MAX_ID];

void cb(void *user, uint64_t task, uint32_t state);
/* `file` and `line` are the caller's (the EXPECT_ macros pass them). */
void expect_ran_run(const char *file, int line, int id, uint64_t frame, uint32_t timing,
                    uint32_t run, uint32_t state, int task_form);
void expect_not_run(const char *file, int line, int id);
void expect_order(const char *file, int line, uint64_t frame, uint32_t timing, uint32_t run,
                  const int *ids, int n);

#define EXPECT_RAN(id, frame, timing, state, task_form) \
    expect_ran_run(__FILE__, __LINE__, id, frame, timing, 0, state, task_form)
#define EXPECT_RAN_RUN(id, frame, timing, run, state, task_form) \
    expect_ran_run(__FILE__, __LINE__, id, frame, timing, run, state, task_form)
#define EXPECT_NOT_RUN(id) expect_not_run(__FILE__, __LINE__, id)
#define EXPECT_ORDER(frame, timing, run, ...)                                         \
    do {                                                                              \
        static const int ids_[] = {__VA_ARGS__};                                      \
        expect_order(__FILE__, __LINE__, frame, timing, run, ids_, (int)(sizeof ids_ / sizeof ids_[0])); \
    } while (0)

/* ---- helpers ------------------------------------------------------------ */

uint64_t manual(void);
uint32_t state_of(uint64_t task);
OnityOutcome consume(uint64_t task);
void on_complete(uint64_t task, int id);
uint64_t y_task(uint32_t timing, uint64_t token);
uint64_t nf_task(uint32_t timing, uint64_t token);
uint64_t df_task(uint32_t frames, uint32_t timing, uint64_t token);
uint64_t d_task(double seconds, uint32_t clock, uint32_t timing, uint64_t token);
uint64_t source(void);
uint32_t is_canceled(uint64_t src);
uint64_t when_any(const uint64_t *in, uint32_t n, uint64_t token);
uint64_t when_all(const uint64_t *in, uint32_t n, uint64_t token);
OnityStats stats(void);
uint32_t live_count(void);

/* ---- scenarios ------------------------------------------------------------ */

/* waits.c */
void test_names_and_version(void);
void test_waits(void);
void test_pause(void);
void test_fixed_update(void);
void test_wait_cancellation(void);
/* tasks.c */
void test_manual_tasks(void);
void test_when_any(void);
void test_when_all(void);
/* batch.c */
void test_batch(void);
void test_live_tasks(void);

#endif
