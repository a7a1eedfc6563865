/*
 * cancel_then_destroy.c: a canceled source that is destroyed before the
 * waits and combinators holding its token have observed the cancel.
 *
 * include/onity.h, onity_cancel_source_destroy: "Destroying does not cancel:
 * if the source was not canceled, waits still holding its token are never
 * canceled by it; if it was, they still observe the cancellation as usual."
 * (Waits at the next run of their timing, combinators at the next tick or
 * drain.) Also the other half: a source destroyed without a cancel never
 * cancels anything, even when its slot is reused by a new source that is
 * then canceled.
 *
 * This was a library bug found by this suite (the cancel was lost); it
 * matters to RAII wrappers such as onity::CancelSource, whose destructor
 * destroys the source: `src.cancel(); }` must still cancel.
 *
 * Exit status 0 and a final "OK" line on success.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "onity.h"
#include "check.h"

static int g_cb_calls;
static uint32_t g_cb_state;
static void cb(void *user, uint64_t task, uint32_t state) {
    (void)user;
    (void)task;
    g_cb_calls++;
    g_cb_state = state;
}

int main(void) {
    OnityRuntime *rt = NULL;
    OnityFrameInfo fi;
    uint64_t src, wait, in[2], any;
    uint32_t st = 99, t;

    CHECK(onity_runtime_create(NULL, &rt) == ONITY_STATUS_OK);
    if (!rt) return 1;
    CHECK(onity_cancel_source_create(rt, &src) == ONITY_STATUS_OK);
    CHECK(onity_delay_frame(rt, 1000, ONITY_TIMING_UPDATE, src, &wait) == ONITY_STATUS_OK);
    CHECK(onity_delay_frame_then(rt, 1000, ONITY_TIMING_UPDATE, src, cb, NULL) == ONITY_STATUS_OK);
    CHECK(onity_task_create(rt, &in[0]) == ONITY_STATUS_OK);
    CHECK(onity_task_create(rt, &in[1]) == ONITY_STATUS_OK);
    CHECK(onity_when_any(rt, in, 2, src, &any) == ONITY_STATUS_OK);

    CHECK(onity_cancel_source_cancel(rt, src) == ONITY_STATUS_OK);
    CHECK(onity_cancel_source_destroy(rt, src) == ONITY_STATUS_OK);

    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = 1;
    CHECK(onity_runtime_frame_begin(rt, &fi) == ONITY_STATUS_OK);
    for (t = 0; t < ONITY_TIMING_COUNT; t++) CHECK(onity_runtime_tick(rt, t) == ONITY_STATUS_OK);

    CHECK(onity_task_state(rt, wait, &st) == ONITY_STATUS_OK);
    printf("wait: %u, callback wait: %d call(s), when_any: ", (unsigned)st, g_cb_calls);
    CHECK(st == ONITY_TASK_STATE_CANCELED);
    CHECK(g_cb_calls == 1 && g_cb_state == ONITY_TASK_STATE_CANCELED);
    CHECK(onity_task_state(rt, any, &st) == ONITY_STATUS_OK);
    printf("%u (3 = canceled)\n", (unsigned)st);
    CHECK(st == ONITY_TASK_STATE_CANCELED);

    /* The other half: destroyed without a cancel, the token never cancels,
     * even after its slot is reused by a new source that is canceled. */
    {
        uint64_t src2, src3, w2, w3;
        int calls_before = g_cb_calls;
        CHECK(onity_cancel_source_create(rt, &src2) == ONITY_STATUS_OK);
        CHECK(onity_delay_frame(rt, 1, ONITY_TIMING_UPDATE, src2, &w2) == ONITY_STATUS_OK);
        CHECK(onity_delay_frame_then(rt, 1, ONITY_TIMING_UPDATE, src2, cb, NULL) == ONITY_STATUS_OK);
        CHECK(onity_cancel_source_destroy(rt, src2) == ONITY_STATUS_OK);
        CHECK(onity_cancel_source_create(rt, &src3) == ONITY_STATUS_OK);
        CHECK(src3 != src2);
        CHECK(onity_delay_frame(rt, 1000, ONITY_TIMING_UPDATE, src3, &w3) == ONITY_STATUS_OK);
        CHECK(onity_cancel_source_cancel(rt, src3) == ONITY_STATUS_OK);
        fi.frame = 2;
        CHECK(onity_runtime_frame_begin(rt, &fi) == ONITY_STATUS_OK);
        for (t = 0; t < ONITY_TIMING_COUNT; t++) CHECK(onity_runtime_tick(rt, t) == ONITY_STATUS_OK);
        CHECK(onity_task_state(rt, w2, &st) == ONITY_STATUS_OK);
        CHECK(st == ONITY_TASK_STATE_SUCCEEDED);
        CHECK(g_cb_calls == calls_before + 1 && g_cb_state == ONITY_TASK_STATE_SUCCEEDED);
        CHECK(onity_task_state(rt, w3, &st) == ONITY_STATUS_OK);
        CHECK(st == ONITY_TASK_STATE_CANCELED);
        CHECK(onity_task_consume(rt, w2, NULL) == ONITY_STATUS_OK);
        CHECK(onity_task_consume(rt, w3, NULL) == ONITY_STATUS_OK);
        CHECK(onity_cancel_source_destroy(rt, src3) == ONITY_STATUS_OK);
    }

    CHECK(onity_runtime_destroy(rt) == ONITY_STATUS_OK);
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
