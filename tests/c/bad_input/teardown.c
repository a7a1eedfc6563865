/*
 * teardown.c: the scenarios of the bad_input program on re-entrant calls
 * from continuations and on destroying a runtime with everything in flight.
 */
#include "bad_input.h"

/* ---- 8. re-entrancy -------------------------------------------------------------- */

static int g_reenter_calls;
static OnityBatch *g_reenter_batch;

static void reenter_cb(void *user, uint64_t task, uint32_t state) {
    OnityFrameInfo fi;
    uint64_t t = 0;
    OnityOutcome o;
    (void)user;
    (void)task;
    g_reenter_calls++;
    CHECK_EQ_U64(state, ONITY_TASK_STATE_SUCCEEDED);
    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = g_frame + 1;
    CHECK_STATUS(onity_runtime_tick(rt, ONITY_TIMING_UPDATE), ONITY_STATUS_REENTRANT);
    CHECK_STATUS(onity_runtime_tick(rt, ONITY_TIMING_EARLY_UPDATE), ONITY_STATUS_REENTRANT);
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_REENTRANT);
    CHECK_STATUS(onity_runtime_destroy(rt), ONITY_STATUS_REENTRANT);
    CHECK_STATUS(onity_batch_tick(rt, g_reenter_batch, ONITY_TIMING_LAST_UPDATE), ONITY_STATUS_REENTRANT);
    CHECK_STATUS(onity_batch_destroy(rt, g_reenter_batch), ONITY_STATUS_REENTRANT);
    /* Everything else is allowed from a continuation. */
    OK(onity_task_create(rt, &t));
    OK(onity_task_set_result(rt, t, 3));
    OK(onity_task_consume(rt, t, &o));
    CHECK_EQ_U64(o.value, 3);
    OK(onity_yield_then(rt, ONITY_TIMING_LAST_UPDATE, 0, count_cb, U(41)));
}

void test_reentrancy(void) {
    uint64_t w;
    OnityOutcome o;
    OK(onity_batch_create(rt, 1, &g_reenter_batch));
    frame(rt);
    OK(onity_yield_then(rt, ONITY_TIMING_UPDATE, 0, reenter_cb, NULL));
    OK(onity_yield(rt, ONITY_TIMING_UPDATE, 0, &w));
    OK(onity_runtime_tick(rt, ONITY_TIMING_UPDATE));
    CHECK_EQ_U64(g_reenter_calls, 1);
    /* The runtime is still fully usable. */
    CHECK_EQ_U64(state_of(rt, w), ONITY_TASK_STATE_SUCCEEDED);
    OK(onity_task_consume(rt, w, &o));
    OK(onity_runtime_tick(rt, ONITY_TIMING_LAST_UPDATE));
    CHECK_EQ_U64(g_calls[41], 1);
    full_frame(rt);
    CHECK_EQ_U64(g_reenter_calls, 1);
    OK(onity_batch_destroy(rt, g_reenter_batch)); /* it survived the refused destroy */
    CHECK_EQ_U64(live_count(rt), 0);
}

/* ---- 9. destroy with everything in flight --------------------------------------- */

static int g_expected_cb[MAX_ID];

static void *complete_on_thread(void *p) {
    uint64_t *arg = (uint64_t *)p;
    OK(onity_task_set_result((OnityRuntime *)(uintptr_t)arg[0], arg[1], 42));
    return NULL;
}
static int g_destroy_phase;

/* During destroy: adding work is refused, completing is allowed. */
static void destroy_cb(void *user, uint64_t task, uint32_t state) {
    uint64_t h = SENTINEL;
    count_cb(user, task, state);
    if (!g_destroy_phase) return;
    CHECK_STATUS(onity_task_create(g_cb_rt, &h), ONITY_STATUS_REENTRANT);
    CHECK_STATUS(onity_cancel_source_create(g_cb_rt, &h), ONITY_STATUS_REENTRANT);
    CHECK_STATUS(onity_yield(g_cb_rt, ONITY_TIMING_UPDATE, 0, &h), ONITY_STATUS_REENTRANT);
    CHECK_STATUS(onity_next_frame_then(g_cb_rt, ONITY_TIMING_UPDATE, 0, never_cb, NULL),
                 ONITY_STATUS_REENTRANT);
    CHECK_STATUS(onity_runtime_tick(g_cb_rt, ONITY_TIMING_UPDATE), ONITY_STATUS_REENTRANT);
    CHECK_EQ_U64(h, SENTINEL);
}

void test_destroy_in_flight(void) {
    OnityRuntime *r3 = NULL;
    uint64_t h, src, canceled_src, ins[3], out;
    uint64_t queued_task;
    int id = 100, i, first_id = 100, last_id;
    pthread_t th;
    OK(onity_runtime_create(NULL, &r3));
    g_cb_rt = r3;
    {
        OnityFrameInfo fi;
        memset(&fi, 0, sizeof fi);
        fi.size = (uint32_t)sizeof fi;
        fi.frame = 1;
        fi.delta_time = fi.unscaled_delta_time = 0.1;
        OK(onity_runtime_frame_begin(r3, &fi));
    }
    src = source(r3);
    canceled_src = source(r3);
    OK(onity_cancel_source_cancel(r3, canceled_src));

#define REG(task_expr)                                                    \
    do {                                                                  \
        OK(onity_task_on_complete(r3, (task_expr), destroy_cb, U(id)));   \
        g_expected_cb[id] = 1;                                            \
        id++;                                                             \
    } while (0)

    /* pending manual tasks, with continuations (even ids consume) */
    for (i = 0; i < 4; i++) REG(manual(r3));
    /* pending manual tasks without continuation */
    for (i = 0; i < 3; i++) (void)manual(r3);
    /* task-form waits of every kind, with and without token, with and without continuation */
    for (i = 0; i < 2; i++) {
        uint64_t tok = i ? src : 0;
        OK(onity_yield(r3, ONITY_TIMING_UPDATE, tok, &h));
        REG(h);
        OK(onity_next_frame(r3, ONITY_TIMING_FIXED_UPDATE, tok, &h));
        REG(h);
        OK(onity_delay_frame(r3, 10, ONITY_TIMING_LAST_TIME_UPDATE, tok, &h));
        REG(h);
        OK(onity_delay(r3, 5.0, ONITY_CLOCK_REALTIME, ONITY_TIMING_INITIALIZATION, tok, &h));
        REG(h);
        OK(onity_yield(r3, ONITY_TIMING_PRE_UPDATE, tok, &h));
        OK(onity_next_frame(r3, ONITY_TIMING_PRE_UPDATE, tok, &h));
        OK(onity_delay_frame(r3, 3, ONITY_TIMING_PRE_UPDATE, tok, &h));
        OK(onity_delay(r3, 1.0, ONITY_CLOCK_SCALED, ONITY_TIMING_PRE_UPDATE, tok, &h));
    }
    /* a wait whose token is already canceled (not yet ticked) */
    OK(onity_delay_frame(r3, 10, ONITY_TIMING_UPDATE, canceled_src, &h));
    REG(h);
    /* callback waits of every kind */
    for (i = 0; i < 3; i++) {
        uint64_t tok = i == 0 ? 0 : (i == 1 ? src : canceled_src);
        OK(onity_yield_then(r3, ONITY_TIMING_UPDATE, tok, destroy_cb, U(id)));
        g_expected_cb[id++] = 1;
        OK(onity_next_frame_then(r3, ONITY_TIMING_POST_LATE_UPDATE, tok, destroy_cb, U(id)));
        g_expected_cb[id++] = 1;
        OK(onity_delay_frame_then(r3, 7, ONITY_TIMING_EARLY_UPDATE, tok, destroy_cb, U(id)));
        g_expected_cb[id++] = 1;
        OK(onity_delay_then(r3, 2.0, ONITY_CLOCK_UNSCALED, ONITY_TIMING_TIME_UPDATE, tok, destroy_cb,
                            U(id)));
        g_expected_cb[id++] = 1;
    }
    /* a WhenAny over manual tasks and waits, with a continuation */
    ins[0] = manual(r3);
    OK(onity_delay_frame(r3, 4, ONITY_TIMING_UPDATE, 0, &ins[1]));
    ins[2] = manual(r3);
    OK(onity_when_any(r3, ins, 3, 0, &out));
    REG(out);
    /* a WhenAny with a token, without continuation */
    ins[0] = manual(r3);
    ins[1] = manual(r3);
    OK(onity_when_any(r3, ins, 2, src, &out));
    /* a WhenAll with one input done, with a continuation */
    ins[0] = manual(r3);
    ins[1] = manual(r3);
    OK(onity_next_frame(r3, ONITY_TIMING_UPDATE, 0, &ins[2]));
    OK(onity_task_set_result(r3, ins[0], 1));
    OK(onity_when_all(r3, ins, 3, 0, &out));
    REG(out);
    /* another one: consecutive ids, so one of the two continuations consumes
     * its WhenAll and the other does not */
    ins[0] = manual(r3);
    ins[1] = manual(r3);
    OK(onity_when_all(r3, ins, 2, 0, &out));
    REG(out);
    /* a WhenAll without continuation, never consumed */
    ins[0] = manual(r3);
    ins[1] = manual(r3);
    OK(onity_when_all(r3, ins, 2, 0, &out));
    /* a batch with pending records of every kind, filed and not yet filed */
    {
        OnityBatch *bt = NULL;
        OnityBatchRecord *r;
        uint64_t bt_task = manual(r3);
        int k;
        OK(onity_batch_create(r3, 8, &bt));
        for (k = 0; k < 5; k++) {
            r = &bt->submit[bt->submit_count++];
            memset(r, 0, sizeof *r);
            r->id = (uint64_t)k + 1;
            r->kind = (uint8_t)k;
            r->timing = ONITY_TIMING_UPDATE;
            r->arg = k == ONITY_BATCH_TASK ? bt_task : 5;
        }
        OK(onity_batch_flush(r3, bt));
        r = &bt->submit[bt->submit_count++];
        memset(r, 0, sizeof *r);
        r->id = 9;
        r->kind = ONITY_WAIT_KIND_NEXT_FRAME;
    }
    /* a completed task never consumed, and a completed one with a continuation
     * that already ran (not expected to run again) */
    h = manual(r3);
    OK(onity_task_set_result(r3, h, 1));
    h = manual(r3);
    OK(onity_task_on_complete(r3, h, destroy_cb, U(id)));
    OK(onity_task_set_result(r3, h, 1));
    CHECK_EQ_U64(g_calls[id], 1);
    g_expected_cb[id] = 1;
    id++;
    /* a task completed on another thread, continuation not run yet: it runs
     * once during destroy with the state it completed with */
    queued_task = manual(r3);
    OK(onity_task_on_complete(r3, queued_task, destroy_cb, U(id)));
    g_expected_cb[id] = 1;
    last_id = id;
    id++;
    {
        static uint64_t arg[2];
        arg[0] = (uint64_t)(uintptr_t)r3;
        arg[1] = queued_task;
        CHECK(pthread_create(&th, NULL, complete_on_thread, arg) == 0);
        CHECK(pthread_join(th, NULL) == 0);
    }
    CHECK_EQ_U64(g_calls[last_id], 0);

    /* Nothing has run yet except the continuation of the completed task. */
    for (i = first_id; i < id; i++)
        if (i != last_id - 1 && g_calls[i] != 0) {
            fprintf(stderr, "callback %d ran before destroy\n", i);
            g_failures++;
        }

    g_destroy_phase = 1;
    OK(onity_runtime_destroy(r3));
    g_destroy_phase = 0;
    g_cb_rt = rt;

    for (i = first_id; i < id; i++) {
        uint32_t want = (i == last_id) ? ONITY_TASK_STATE_SUCCEEDED
                        : (i == last_id - 1) ? ONITY_TASK_STATE_SUCCEEDED
                                             : ONITY_TASK_STATE_CANCELED;
        if (g_calls[i] != g_expected_cb[i] || (g_expected_cb[i] && g_state[i] != want)) {
            fprintf(stderr, "destroy: callback %d ran %d times (expected %d), state %u (expected %u)\n",
                    i, g_calls[i], g_expected_cb[i], (unsigned)g_state[i], (unsigned)want);
            g_failures++;
        }
    }
#undef REG
}
