/*
 * edge_cases.c: regression tests for five library bugs a second reader found,
 * each of which failed before its fix:
 *
 * 1. onity_batch_destroy from a continuation that onity_runtime_destroy runs
 *    freed the batch while the destroy still held its waits (use after free;
 *    valgrind: "Invalid read" in batch_emit). Now REENTRANT.
 * 2. A WhenAny whose token was canceled was skipped (stayed pending for
 *    good) when a continuation run by the cancellation pass completed another
 *    watched combinator: the watch list was compacted under the loop.
 * 3. Runtime tags were an 8-bit counter: after 255 more runtimes, a live
 *    runtime shared a tag with an older live one, and the older one's task
 *    handles acted on the newer one's tasks instead of FOREIGN_HANDLE.
 * 4. combinator16_capacity = UINT32_MAX aborted the process (a 32 GiB
 *    reservation) instead of creating a runtime.
 * 5. Frame numbers >= 2^60 made NextFrame/DelayFrame waits due at once; frame
 *    numbers >= 2^59 are now refused with INVALID_ARGUMENT.
 * 6. A task completed on another thread, its continuation queued for the
 *    owner, could be consumed by the host: the continuation then never ran.
 *    Now ALREADY_AWAITED (the continuation owns the task) until it has run.
 * 7. Creating a combinator with an already-canceled token also completed
 *    every other combinator watching a canceled token, running their
 *    continuations inside onity_when_any; they complete at the next tick or
 *    drain, as documented, and only the new one completes at once.
 *
 * Exits 0 with a final "OK" line.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "onity.h"
#include "check.h"

/* ---- 1 ---- */
static OnityRuntime *g_rt;
static OnityBatch *g_batch;
static uint32_t g_batch_destroy = 0xFFFFFFFFu;

static void shutdown_hook(void *user, uint64_t task, uint32_t state) {
    (void)user;
    (void)task;
    if (state == ONITY_TASK_STATE_CANCELED && g_batch) {
        g_batch_destroy = onity_batch_destroy(g_rt, g_batch);
        g_batch = NULL;
    }
}

static void batch_destroy_during_runtime_destroy(void) {
    OK(onity_runtime_create(NULL, &g_rt));
    OK(onity_batch_create(g_rt, 64, &g_batch));
    /* Filed first in Initialization: its continuation runs before the batch's waits. */
    OK(onity_yield_then(g_rt, ONITY_TIMING_INITIALIZATION, 0, shutdown_hook, NULL));
    for (uint32_t i = 0; i < 64; i++) {
        OnityBatchRecord r;
        memset(&r, 0, sizeof r);
        r.id = 1000 + i;
        r.kind = ONITY_WAIT_KIND_YIELD;
        r.timing = ONITY_TIMING_INITIALIZATION;
        g_batch->submit[g_batch->submit_count++] = r;
    }
    OK(onity_batch_flush(g_rt, g_batch));
    OK(onity_runtime_destroy(g_rt));
    CHECK_STATUS(g_batch_destroy, ONITY_STATUS_REENTRANT);
}

/* ---- 2 ---- */
static uint64_t g_a0;

static void complete_a0(void *user, uint64_t task, uint32_t state) {
    (void)user;
    (void)task;
    (void)state;
    OK(onity_task_set_result(g_rt, g_a0, 5));
}

static void cancel_pass_keeps_every_watch(void) {
    OK(onity_runtime_create(NULL, &g_rt));
    uint64_t t0, t, a1, a2, w0, w1, w2;
    OK(onity_cancel_source_create(g_rt, &t0));
    OK(onity_cancel_source_create(g_rt, &t));
    OK(onity_task_create(g_rt, &g_a0));
    OK(onity_task_create(g_rt, &a1));
    OK(onity_task_create(g_rt, &a2));
    OK(onity_when_any(g_rt, &g_a0, 1, t0, &w0)); /* watch 0 */
    OK(onity_when_any(g_rt, &a1, 1, t, &w1));    /* watch 1 */
    OK(onity_when_any(g_rt, &a2, 1, t, &w2));    /* watch 2 */
    /* w1's cancellation completes w0 (removing watch 0: watch 2 moves down). */
    OK(onity_task_on_complete(g_rt, w1, complete_a0, NULL));
    OK(onity_cancel_source_cancel(g_rt, t));
    OK(onity_runtime_drain(g_rt));
    uint32_t s0 = 99, s1 = 99, s2 = 99;
    OK(onity_task_state(g_rt, w0, &s0));
    OK(onity_task_state(g_rt, w1, &s1));
    OK(onity_task_state(g_rt, w2, &s2));
    CHECK_EQ_U64(s0, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(s1, ONITY_TASK_STATE_CANCELED);
    CHECK_EQ_U64(s2, ONITY_TASK_STATE_CANCELED);
    OK(onity_runtime_tick(g_rt, ONITY_TIMING_UPDATE));
    OK(onity_task_state(g_rt, w2, &s2));
    CHECK_EQ_U64(s2, ONITY_TASK_STATE_CANCELED);
    OK(onity_runtime_destroy(g_rt));
}

/* ---- 3 ---- */
static void small_config(OnityRuntimeConfig *c) {
    OK(onity_runtime_config_init(c, sizeof *c));
    c->task_capacity = 16;
    c->cancel_capacity = 1;
    c->frame_alloc_first_block_bytes = 4096;
}

static void tags_stay_unique_among_live_runtimes(void) {
    OnityRuntimeConfig c;
    small_config(&c);
    OnityRuntime *a, *b;
    OK(onity_runtime_create(&c, &a));
    uint64_t ta, tb = 0;
    OK(onity_task_create(a, &ta));
    /* Well past one wrap of an 8-bit tag: every handle of B must differ from A's. */
    for (int i = 0; i < 600; i++) {
        OK(onity_runtime_create(&c, &b));
        OK(onity_task_create(b, &tb));
        CHECK(tb != ta);
        CHECK_STATUS(onity_task_set_result(b, ta, 42), ONITY_STATUS_FOREIGN_HANDLE);
        uint32_t st = 99;
        OK(onity_task_state(b, tb, &st));
        CHECK_EQ_U64(st, ONITY_TASK_STATE_PENDING);
        OK(onity_runtime_destroy(b));
    }
    uint32_t sa = 99;
    OK(onity_task_state(a, ta, &sa));
    CHECK_EQ_U64(sa, ONITY_TASK_STATE_PENDING);
    OK(onity_runtime_destroy(a));

    /* 255 live runtimes use every tag: the next one is refused, and one
     * destroy makes room again. */
    static OnityRuntime *live[255];
    int n = 0;
    for (; n < 255; n++) {
        if (onity_runtime_create(&c, &live[n]) != ONITY_STATUS_OK) break;
    }
    CHECK_EQ_U64(n, 255);
    OnityRuntime *extra = NULL;
    CHECK_STATUS(onity_runtime_create(&c, &extra), ONITY_STATUS_EXHAUSTED);
    CHECK(extra == NULL);
    if (n > 0) {
        OK(onity_runtime_destroy(live[--n]));
        OK(onity_runtime_create(&c, &live[n++]));
    }
    while (n > 0) OK(onity_runtime_destroy(live[--n]));
}

/* ---- 4 ---- */
static void huge_pool_capacity_does_not_abort(void) {
    OnityRuntimeConfig c;
    OK(onity_runtime_config_init(&c, sizeof c));
    c.combinator16_capacity = UINT32_MAX;
    c.combinator32_capacity = UINT32_MAX;
    OnityRuntime *rt = NULL;
    OK(onity_runtime_create(&c, &rt));
    if (rt) {
        uint64_t in[2], w;
        OK(onity_task_create(rt, &in[0]));
        OK(onity_task_create(rt, &in[1]));
        OK(onity_when_any(rt, in, 2, 0, &w));
        OK(onity_task_set_result(rt, in[1], 7));
        OnityOutcome o;
        OK(onity_task_consume(rt, w, &o));
        CHECK_EQ_U64(o.index, 1); /* the winner: the second input */
        CHECK_EQ_U64(o.value, 7);
        OK(onity_runtime_destroy(rt));
    }
}

/* ---- 5 ---- */
static void frame_numbers_stay_in_range(void) {
    OnityRuntime *rt;
    OK(onity_runtime_create(NULL, &rt));
    OnityFrameInfo f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.delta_time = 0.016;
    f.unscaled_delta_time = 0.016;
    f.realtime = 1;
    f.frame = (uint64_t)1 << 60;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &f), ONITY_STATUS_INVALID_ARGUMENT);
    f.frame = (uint64_t)1 << 59;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &f), ONITY_STATUS_INVALID_ARGUMENT);
    /* The largest accepted frame: NextFrame and DelayFrame still wait. */
    f.frame = ((uint64_t)1 << 59) - 1;
    OK(onity_runtime_frame_begin(rt, &f));
    uint64_t nf, df;
    OK(onity_next_frame(rt, ONITY_TIMING_UPDATE, 0, &nf));
    OK(onity_delay_frame(rt, 100, ONITY_TIMING_UPDATE, 0, &df));
    OK(onity_runtime_tick(rt, ONITY_TIMING_UPDATE));
    uint32_t s1 = 99, s2 = 99;
    OK(onity_task_state(rt, nf, &s1));
    OK(onity_task_state(rt, df, &s2));
    CHECK_EQ_U64(s1, ONITY_TASK_STATE_PENDING);
    CHECK_EQ_U64(s2, ONITY_TASK_STATE_PENDING);
    OK(onity_runtime_destroy(rt));
}

/* ---- 6 ---- */
static int g_cont_runs;
static uint32_t g_cont_consume = 0xFFFFFFFFu;

static void consuming_cont(void *user, uint64_t task, uint32_t state) {
    (void)user;
    (void)state;
    g_cont_runs++;
    OnityOutcome o;
    g_cont_consume = onity_task_consume(g_rt, task, &o);
}

static void *complete_on_worker(void *task) {
    CHECK_STATUS(onity_task_set_result(g_rt, *(uint64_t *)task, 9), ONITY_STATUS_OK);
    return NULL;
}

static void queued_continuation_keeps_its_task(void) {
    OK(onity_runtime_create(NULL, &g_rt));
    uint64_t t;
    OK(onity_task_create(g_rt, &t));
    OK(onity_task_on_complete(g_rt, t, consuming_cont, NULL));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, complete_on_worker, &t) == 0);
    pthread_join(th, NULL);
    uint32_t st = 99;
    OK(onity_task_state(g_rt, t, &st));
    CHECK_EQ_U64(st, ONITY_TASK_STATE_SUCCEEDED);
    /* Completed, its continuation queued for the owner: not the host's to consume. */
    OnityOutcome o;
    CHECK_STATUS(onity_task_consume(g_rt, t, &o), ONITY_STATUS_ALREADY_AWAITED);
    CHECK_EQ_U64(g_cont_runs, 0);
    OK(onity_runtime_drain(g_rt));
    CHECK_EQ_U64(g_cont_runs, 1);
    CHECK_STATUS(g_cont_consume, ONITY_STATUS_OK);
    CHECK_STATUS(onity_task_consume(g_rt, t, &o), ONITY_STATUS_STALE_HANDLE);
    OK(onity_runtime_destroy(g_rt));
}

/* ---- 7 ---- */
static int g_other_runs;

static void count_other(void *user, uint64_t task, uint32_t state) {
    (void)user;
    (void)task;
    (void)state;
    g_other_runs++;
}

static void creation_completes_only_the_new_combinator(void) {
    OK(onity_runtime_create(NULL, &g_rt));
    uint64_t tok, a, b, w1, w2;
    OK(onity_cancel_source_create(g_rt, &tok));
    OK(onity_task_create(g_rt, &a));
    OK(onity_task_create(g_rt, &b));
    OK(onity_when_any(g_rt, &a, 1, tok, &w1));
    OK(onity_task_on_complete(g_rt, w1, count_other, NULL));
    OK(onity_cancel_source_cancel(g_rt, tok));
    /* w1 completes at the next tick or drain, not inside this call. */
    OK(onity_when_any(g_rt, &b, 1, tok, &w2));
    uint32_t s1 = 99, s2 = 99;
    OK(onity_task_state(g_rt, w2, &s2));
    CHECK_EQ_U64(s2, ONITY_TASK_STATE_CANCELED);
    CHECK_EQ_U64(g_other_runs, 0);
    OK(onity_task_state(g_rt, w1, &s1));
    CHECK_EQ_U64(s1, ONITY_TASK_STATE_PENDING);
    OK(onity_runtime_drain(g_rt));
    CHECK_EQ_U64(g_other_runs, 1);
    OK(onity_task_state(g_rt, w1, &s1));
    CHECK_EQ_U64(s1, ONITY_TASK_STATE_CANCELED);
    OnityOutcome o;
    OK(onity_task_consume(g_rt, w1, &o));
    OK(onity_task_consume(g_rt, w2, &o));
    OK(onity_runtime_destroy(g_rt));
}

int main(void) {
    batch_destroy_during_runtime_destroy();
    cancel_pass_keeps_every_watch();
    tags_stay_unique_among_live_runtimes();
    huge_pool_capacity_does_not_abort();
    frame_numbers_stay_in_range();
    queued_continuation_keeps_its_task();
    creation_completes_only_the_new_combinator();
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
