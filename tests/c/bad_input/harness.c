/*
 * harness.c: the shared state of the bad_input program (its two runtimes,
 * the frame counter), frames, small helpers, and the counting and never-called
 * callbacks.
 */
#include "bad_input.h"

const uint32_t BAD_HANDLE_STATUSES[3] = {
    ONITY_STATUS_INVALID_HANDLE, ONITY_STATUS_STALE_HANDLE, ONITY_STATUS_FOREIGN_HANDLE};

/* ---- shared state -------------------------------------------------------- */

OnityRuntime *rt;
OnityRuntime *rt2;
uint64_t g_frame;

void frame(OnityRuntime *r) {
    OnityFrameInfo fi;
    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = ++g_frame;
    fi.delta_time = 0.25;
    fi.unscaled_delta_time = 0.25;
    fi.realtime = (double)g_frame * 0.25;
    OK(onity_runtime_frame_begin(r, &fi));
}

void full_frame(OnityRuntime *r) {
    uint32_t t;
    frame(r);
    for (t = 0; t < ONITY_TIMING_COUNT; t++) OK(onity_runtime_tick(r, t));
}

uint64_t manual(OnityRuntime *r) {
    uint64_t h = 0;
    OK(onity_task_create(r, &h));
    CHECK(h != 0);
    return h;
}

uint64_t source(OnityRuntime *r) {
    uint64_t s = 0;
    OK(onity_cancel_source_create(r, &s));
    CHECK(s != 0);
    return s;
}

uint32_t state_of(OnityRuntime *r, uint64_t t) {
    uint32_t s = 0xFFFFFFFFu;
    OK(onity_task_state(r, t, &s));
    return s;
}

uint32_t live_count(OnityRuntime *r) {
    uint32_t n = 0xFFFFFFFFu;
    OK(onity_runtime_live_tasks(r, NULL, 0, &n));
    return n;
}

int g_calls[MAX_ID];
uint32_t g_state[MAX_ID];
uint64_t g_task[MAX_ID];
OnityRuntime *g_cb_rt;

void count_cb(void *user, uint64_t task, uint32_t state) {
    int id = (int)(uintptr_t)user;
    CHECK(id >= 0 && id < MAX_ID);
    if (id < 0 || id >= MAX_ID) return;
    g_calls[id]++;
    g_state[id] = state;
    g_task[id] = task;
    if (task != 0 && id % 2 == 0) OK(onity_task_consume(g_cb_rt, task, NULL));
}

void never_cb(void *user, uint64_t task, uint32_t state) {
    (void)user;
    (void)task;
    (void)state;
    fprintf(stderr, "a callback registered by a failed call was invoked\n");
    g_failures++;
}
