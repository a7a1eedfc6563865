/*
 * native_helper.c: completes Onity tasks from native threads that Mono has never seen.
 *
 * helper_complete_later() starts a detached pthread (never attached to Mono: it calls no
 * managed code) that sleeps `delay_ms`, then completes `task` through the C ABI:
 * mode 0 = onity_task_set_result(value), 1 = onity_task_set_error((int32_t)value),
 * 2 = onity_task_cancel. The status it got is kept for helper_last_status().
 * helper_running() counts helper threads that have not finished yet.
 *
 * helper_complete_now() does the same on the calling thread. The helper_owner_* functions own a
 * runtime C# attaches to (AttachTests.cs).
 *
 * The helper_c_* functions are C code sharing the runtime on the owner thread, called by C#
 * between its BeginFrame and its first Tick (DeferredFrameTests.cs): they read the frame, begin
 * a frame and schedule a NextFrame wait through the C ABI.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "onity.h"

typedef struct {
    OnityRuntime *rt;
    uint64_t task;
    uint64_t value;
    int mode;
    int delay_ms;
} job_t;

static volatile int g_running;
static volatile uint32_t g_last_status = 0xFFFFFFFFu;
static volatile uint64_t g_last_thread;

uint32_t helper_complete_now(OnityRuntime *rt, uint64_t task, uint64_t value, int mode) {
    if (mode == 0) return (uint32_t)onity_task_set_result(rt, task, value);
    if (mode == 1) return (uint32_t)onity_task_set_error(rt, task, (int32_t)value);
    return (uint32_t)onity_task_cancel(rt, task);
}

static void *run(void *arg) {
    job_t *j = (job_t *)arg;
    if (j->delay_ms > 0) {
        struct timespec ts;
        ts.tv_sec = j->delay_ms / 1000;
        ts.tv_nsec = (long)(j->delay_ms % 1000) * 1000000L;
        nanosleep(&ts, NULL);
    }
    uint32_t st = helper_complete_now(j->rt, j->task, j->value, j->mode);
    g_last_thread = (uint64_t)pthread_self();
    __atomic_store_n(&g_last_status, st, __ATOMIC_SEQ_CST);
    free(j);
    __atomic_sub_fetch(&g_running, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

int helper_complete_later(OnityRuntime *rt, uint64_t task, uint64_t value, int mode, int delay_ms) {
    job_t *j = (job_t *)malloc(sizeof *j);
    if (!j) return -1;
    j->rt = rt;
    j->task = task;
    j->value = value;
    j->mode = mode;
    j->delay_ms = delay_ms;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    __atomic_add_fetch(&g_running, 1, __ATOMIC_SEQ_CST);
    int rc = pthread_create(&th, &attr, run, j);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        __atomic_sub_fetch(&g_running, 1, __ATOMIC_SEQ_CST);
        free(j);
        return -1;
    }
    return 0;
}

int helper_running(void) { return __atomic_load_n(&g_running, __ATOMIC_SEQ_CST); }

uint32_t helper_last_status(void) { return __atomic_load_n(&g_last_status, __ATOMIC_SEQ_CST); }

uint64_t helper_last_thread(void) { return g_last_thread; }

uint64_t helper_c_frame(OnityRuntime *rt) {
    OnityStats s;
    s.size = (uint32_t)sizeof s;
    return onity_runtime_stats(rt, &s) == ONITY_STATUS_OK ? s.frame : UINT64_MAX;
}

uint32_t helper_c_begin(OnityRuntime *rt, uint64_t frame) {
    OnityFrameInfo f = {(uint32_t)sizeof f, 0, frame, 1.0 / 60, 1.0 / 60, (double)frame / 60};
    return (uint32_t)onity_runtime_frame_begin(rt, &f);
}

/* C code making a batch of its own and writing a DelayFrame(frames) record on Update into it
 * (no call after the create: the record is filed by the next call). */
uint32_t helper_c_batch_delay_frame(OnityRuntime *rt, uint32_t frames, uint64_t id, OnityBatch **out) {
    OnityStatus s = onity_batch_create(rt, 4, out);
    if (s != ONITY_STATUS_OK) return (uint32_t)s;
    OnityBatch *b = *out;
    OnityBatchRecord r = {0};
    r.id = id;
    r.arg = frames;
    r.kind = ONITY_WAIT_KIND_DELAY_FRAME;
    r.timing = ONITY_TIMING_UPDATE;
    b->submit[b->submit_count++] = r;
    return 0;
}

/* The id of the batch's next resumption not yet read (0: none). */
uint64_t helper_c_batch_take(OnityBatch *b) {
    if (b->resumed_consumed == b->resumed_count) return 0;
    return b->resumed[b->resumed_consumed++].id;
}

uint32_t helper_c_next_frame(OnityRuntime *rt, uint64_t *task) {
    return (uint32_t)onity_next_frame(rt, ONITY_TIMING_UPDATE, 0, task);
}

/* The task's state, or 100 + the status when the query failed. */
uint32_t helper_c_task_state(OnityRuntime *rt, uint64_t task) {
    uint32_t st;
    OnityStatus s = onity_task_state(rt, task, &st);
    return s == ONITY_STATUS_OK ? st : 100 + (uint32_t)s;
}

uint32_t helper_c_consume(OnityRuntime *rt, uint64_t task) {
    OnityOutcome o;
    return (uint32_t)onity_task_consume(rt, task, &o);
}

/* C code destroying a runtime C# still uses (issue 30 #4). */
uint32_t helper_c_destroy(OnityRuntime *rt) { return onity_runtime_destroy(rt); }

/* A runtime C owns (OnityRuntime.Attach tests, AttachTests.cs): created, ticked and destroyed
 * here; C# wraps it and awaits its task handles. */
uint32_t helper_owner_create(OnityRuntime **out) { return (uint32_t)onity_runtime_create(NULL, out); }

/* Begins `frame` and ticks every timing; the first failing status, or 0. */
uint32_t helper_owner_frame(OnityRuntime *rt, uint64_t frame) {
    uint32_t s = helper_c_begin(rt, frame);
    for (uint32_t t = 0; t < ONITY_TIMING_COUNT && s == 0; t++) s = (uint32_t)onity_runtime_tick(rt, t);
    return s;
}

uint32_t helper_owner_destroy(OnityRuntime *rt) { return (uint32_t)onity_runtime_destroy(rt); }

uint32_t helper_task_create(OnityRuntime *rt, uint64_t *task) { return (uint32_t)onity_task_create(rt, task); }

/* Live native tasks (created, not consumed), or UINT32_MAX when the query failed. */
uint32_t helper_live_tasks(OnityRuntime *rt) {
    uint32_t n = 0;
    return onity_runtime_live_tasks(rt, NULL, 0, &n) == ONITY_STATUS_OK ? n : UINT32_MAX;
}

static void consume_on_complete(void *user, uint64_t task, uint32_t state) {
    OnityOutcome o;
    (void)state;
    onity_task_consume((OnityRuntime *)user, task, &o);
}

/* C awaits `task` itself (its one continuation consumes it). */
uint32_t helper_c_on_complete(OnityRuntime *rt, uint64_t task) {
    return (uint32_t)onity_task_on_complete(rt, task, consume_on_complete, rt);
}
