/*
 * threads_batches.c: the scenarios of the bad_input program on calls from
 * the wrong thread and on batches.
 */
#include "bad_input.h"

/* ---- 7. wrong thread ---------------------------------------------------------- */

typedef struct {
    uint64_t to_complete, to_fail, to_cancel, completed, pending, src, owned_input;
    uint64_t wait_task, combinator_out; /* only the owner may cancel these */
    OnityBatch *batch;
} ThreadArgs;

static void *wrong_thread_main(void *p) {
    ThreadArgs *a = (ThreadArgs *)p;
    uint64_t h = SENTINEL;
    uint32_t u = 0xABCDu, n = 0xABCDu;
    OnityOutcome o;
    OnityStats st;
    OnityFrameInfo fi;
    OnityRuntimeConfig cfg;
    uint64_t ins[1];
    memset(&st, 0, sizeof st);
    st.size = (uint32_t)sizeof st;
    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = g_frame + 100;
    ins[0] = a->pending;

    /* owner-only: refused */
    CHECK_STATUS(onity_runtime_tick(rt, ONITY_TIMING_UPDATE), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_runtime_drain(rt), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_runtime_stats(rt, &st), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_runtime_live_tasks(rt, NULL, 0, &n), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_task_create(rt, &h), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_task_consume(rt, a->completed, &o), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_task_on_complete(rt, a->pending, never_cb, NULL), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_cancel_source_create(rt, &h), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_cancel_source_destroy(rt, a->src), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_yield(rt, ONITY_TIMING_UPDATE, 0, &h), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_next_frame(rt, ONITY_TIMING_UPDATE, 0, &h), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_delay_frame(rt, 1, ONITY_TIMING_UPDATE, 0, &h), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_delay(rt, 1.0, 0, ONITY_TIMING_UPDATE, 0, &h), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_yield_then(rt, ONITY_TIMING_UPDATE, 0, never_cb, NULL), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_next_frame_then(rt, ONITY_TIMING_UPDATE, 0, never_cb, NULL),
                 ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_delay_frame_then(rt, 1, ONITY_TIMING_UPDATE, 0, never_cb, NULL),
                 ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_delay_then(rt, 1.0, 0, ONITY_TIMING_UPDATE, 0, never_cb, NULL),
                 ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_when_any(rt, ins, 1, 0, &h), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_when_all(rt, ins, 1, 0, &h), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_when_all_results(rt, a->completed, &o, 1), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_runtime_destroy(rt), ONITY_STATUS_WRONG_THREAD);
    /* wait and combinator tasks: canceled on the owner only */
    CHECK_STATUS(onity_task_cancel(rt, a->wait_task), ONITY_STATUS_WRONG_THREAD);
    CHECK_STATUS(onity_task_cancel(rt, a->combinator_out), ONITY_STATUS_WRONG_THREAD);
    {
        OnityBatch *nb = (OnityBatch *)(void *)&h;
        CHECK_STATUS(onity_batch_create(rt, 4, &nb), ONITY_STATUS_WRONG_THREAD);
        CHECK(nb == (OnityBatch *)(void *)&h);
        CHECK_STATUS(onity_batch_flush(rt, a->batch), ONITY_STATUS_WRONG_THREAD);
        CHECK_STATUS(onity_batch_tick(rt, a->batch, ONITY_TIMING_UPDATE), ONITY_STATUS_WRONG_THREAD);
        CHECK_STATUS(onity_batch_drain(rt, a->batch), ONITY_STATUS_WRONG_THREAD);
        CHECK_STATUS(onity_batch_destroy(rt, a->batch), ONITY_STATUS_WRONG_THREAD);
    }
    CHECK_EQ_U64(h, SENTINEL);
    CHECK_EQ_U64(n, 0xABCDu);

    /* any thread: allowed */
    OK(onity_task_state(rt, a->pending, &u));
    CHECK_EQ_U64(u, ONITY_TASK_STATE_PENDING);
    OK(onity_task_set_result(rt, a->to_complete, 77));
    OK(onity_task_set_error(rt, a->to_fail, -77));
    OK(onity_task_cancel(rt, a->to_cancel));
    CHECK_STATUS(onity_task_set_result(rt, a->to_complete, 78), ONITY_STATUS_ALREADY_COMPLETED);
    CHECK_STATUS(onity_task_cancel(rt, a->completed), ONITY_STATUS_ALREADY_COMPLETED);
    /* completed elsewhere: reads as completed at once */
    OK(onity_task_state(rt, a->to_complete, &u));
    CHECK_EQ_U64(u, ONITY_TASK_STATE_SUCCEEDED);
    OK(onity_task_state(rt, a->to_fail, &u));
    CHECK_EQ_U64(u, ONITY_TASK_STATE_FAULTED);
    OK(onity_cancel_source_cancel(rt, a->src));
    OK(onity_cancel_source_is_canceled(rt, a->src, &u));
    CHECK_EQ_U64(u, 1);
    OK(onity_task_set_result(rt, a->owned_input, 5));
    /* handle errors are reported the same way off the owner thread */
    CHECK_STATUS(onity_task_set_result(rt, 0, 1), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_cancel(rt, a->src), ONITY_STATUS_INVALID_HANDLE);
    /* infallible functions */
    CHECK_EQ_U64(onity_abi_version(), ONITY_ABI_VERSION);
    CHECK(onity_status_text(ONITY_STATUS_WRONG_THREAD)[0] != '\0');
    CHECK(strcmp(onity_timing_name(ONITY_TIMING_UPDATE), "Update") == 0);
    OK(onity_runtime_config_default(&cfg));
    return NULL;
}

void test_wrong_thread(void) {
    ThreadArgs a;
    pthread_t th;
    uint64_t wany, other, other2, ins[2];
    OnityOutcome o;
    uint32_t s;
    a.to_complete = manual(rt);
    a.to_fail = manual(rt);
    a.to_cancel = manual(rt);
    a.completed = manual(rt);
    a.pending = manual(rt);
    a.src = source(rt);
    a.owned_input = manual(rt);
    other = manual(rt);
    OK(onity_task_set_result(rt, a.completed, 1));
    OK(onity_task_on_complete(rt, a.to_complete, count_cb, U(30)));
    OK(onity_task_on_complete(rt, a.to_fail, count_cb, U(32)));
    OK(onity_task_on_complete(rt, a.to_cancel, count_cb, U(34)));
    ins[0] = a.owned_input;
    ins[1] = other;
    OK(onity_when_any(rt, ins, 2, 0, &wany));
    OK(onity_next_frame(rt, ONITY_TIMING_UPDATE, 0, &a.wait_task));
    {
        uint64_t cin[1];
        cin[0] = manual(rt);
        OK(onity_when_all(rt, cin, 1, 0, &a.combinator_out));
        other2 = cin[0];
    }
    OK(onity_batch_create(rt, 2, &a.batch));

    CHECK(pthread_create(&th, NULL, wrong_thread_main, &a) == 0);
    CHECK(pthread_join(th, NULL) == 0);

    /* Continuations of tasks completed elsewhere wait for the owner. */
    CHECK_EQ_U64(g_calls[30], 0);
    CHECK_EQ_U64(state_of(rt, a.to_complete), ONITY_TASK_STATE_SUCCEEDED);
    /* The WhenAny input completed elsewhere is still owned by the WhenAny. */
    CHECK_STATUS(onity_task_consume(rt, a.owned_input, &o), ONITY_STATUS_ALREADY_AWAITED);
    CHECK_EQ_U64(state_of(rt, wany), ONITY_TASK_STATE_PENDING);
    OK(onity_runtime_drain(rt));
    CHECK_EQ_U64(g_calls[30], 1);
    CHECK_EQ_U64(g_state[30], ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(g_calls[32], 1);
    CHECK_EQ_U64(g_state[32], ONITY_TASK_STATE_FAULTED);
    CHECK_EQ_U64(g_calls[34], 1);
    CHECK_EQ_U64(g_state[34], ONITY_TASK_STATE_CANCELED);
    OK(onity_task_consume(rt, wany, &o));
    CHECK_EQ_U64(o.value, 5);
    CHECK_EQ_U64(o.index, 0);
    CHECK_STATUS(onity_task_consume(rt, a.owned_input, &o), ONITY_STATUS_STALE_HANDLE);
    OK(onity_task_cancel(rt, other));

    /* Nothing the refused calls touched changed. */
    OK(onity_task_consume(rt, a.completed, &o));
    CHECK_EQ_U64(o.value, 1);
    CHECK_STATUS(onity_task_state(rt, a.pending, &s), ONITY_STATUS_OK);
    CHECK_EQ_U64(s, ONITY_TASK_STATE_PENDING);
    OK(onity_task_set_result(rt, a.pending, 9));
    OK(onity_task_consume(rt, a.pending, NULL));
    /* ids 30, 32, 34 are even: count_cb consumed those tasks */
    CHECK_STATUS(onity_task_consume(rt, a.to_complete, NULL), ONITY_STATUS_STALE_HANDLE);
    OK(onity_cancel_source_destroy(rt, a.src));
    /* the owner can cancel the wait and combinator tasks the thread could not */
    CHECK_EQ_U64(state_of(rt, a.wait_task), ONITY_TASK_STATE_PENDING);
    CHECK_EQ_U64(state_of(rt, a.combinator_out), ONITY_TASK_STATE_PENDING);
    OK(onity_task_cancel(rt, a.wait_task));
    OK(onity_task_cancel(rt, a.combinator_out));
    OK(onity_task_consume(rt, a.wait_task, &o));
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    OK(onity_task_consume(rt, a.combinator_out, &o));
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    OK(onity_task_cancel(rt, other2)); /* consumed by the WhenAll */
    OK(onity_batch_destroy(rt, a.batch));
    full_frame(rt);
    CHECK_EQ_U64(live_count(rt), 0);
}

/* ---- 7b. batches ------------------------------------------------------------ */

void test_batches(void) {
    OnityBatch *b = NULL, *b2 = NULL, *out = (OnityBatch *)(uintptr_t)0x1234, fake;
    memset(&fake, 0, sizeof fake);
    CHECK_STATUS(onity_batch_create(rt, 4, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_batch_create(rt, 0, &out), ONITY_STATUS_COUNT_OUT_OF_RANGE);
    CHECK_STATUS(onity_batch_create(rt, (1u << 20) + 1, &out), ONITY_STATUS_COUNT_OUT_OF_RANGE);
    CHECK_STATUS(onity_batch_create(rt, 0xFFFFFFFFu, &out), ONITY_STATUS_COUNT_OUT_OF_RANGE);
    CHECK(out == (OnityBatch *)(uintptr_t)0x1234);
    OK(onity_batch_create(rt, 4, &b));
    OK(onity_batch_create(rt2, 4, &b2));
    /* null, forged and foreign batches */
    CHECK_STATUS(onity_batch_flush(rt, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_batch_tick(rt, NULL, ONITY_TIMING_UPDATE), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_batch_drain(rt, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_batch_destroy(rt, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_batch_flush(rt, &fake), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_batch_tick(rt, &fake, ONITY_TIMING_UPDATE), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_batch_drain(rt, &fake), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_batch_destroy(rt, &fake), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_batch_flush(rt, b2), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_batch_tick(rt, b2, ONITY_TIMING_UPDATE), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_batch_destroy(rt, b2), ONITY_STATUS_INVALID_HANDLE);
    /* bad timing */
    CHECK_STATUS(onity_batch_tick(rt, b, 16), ONITY_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(onity_batch_tick(rt, b, 0xFFFFFFFFu), ONITY_STATUS_INVALID_ARGUMENT);
    /* fast-lane records (ABI 1.1): the layout helper checks its inputs; any record a host
     * writes is a valid wait (even all ones), so garbage cannot hurt */
    {
        uint64_t rec = 77;
        CHECK_STATUS(onity_batch_fast_record(1, 16, 0, &rec), ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_batch_fast_record(1, 0, 1u << 28, &rec), ONITY_STATUS_COUNT_OUT_OF_RANGE);
        CHECK_STATUS(onity_batch_fast_record(1, 0, 0, NULL), ONITY_STATUS_NULL_POINTER);
        CHECK(rec == 77);
        OK(onity_batch_fast_record(5, ONITY_TIMING_UPDATE, 0, &rec));
        CHECK(b->fast_capacity == 4 && b->fast_count == 0);
        b->fast_submit[b->fast_count++] = rec;
        b->fast_submit[b->fast_count++] = UINT64_MAX; /* DelayFrame(2^28-1) on timing 15, id 0xFFFFFFFF */
        OK(onity_batch_tick(rt, b, ONITY_TIMING_UPDATE));
        CHECK(b->fast_resumed_count == 1 && b->fast_resumed[0] == 5);
        OK(onity_batch_drain(rt, b));
        CHECK(b->fast_resumed_count == 1); /* only a successful tick replaces the report */
        OK(onity_batch_tick(rt, b, ONITY_TIMING_UPDATE));
        CHECK(b->fast_resumed_count == 0);
    }
    /* bad records are reported, not fatal: unknown kind, bad timing, bad clock,
     * bad seconds, stale / foreign / wrong-kind token, bad task */
    {
        uint64_t src, stale_src, foreign_src, t;
        double nan_value = NAN, negative = -1.0;
        uint64_t nan_bits, neg_bits;
        uint32_t i;
        struct {
            uint8_t kind, timing, clock;
            uint64_t arg, token;
            uint32_t want;
        } bad[9];
        memcpy(&nan_bits, &nan_value, sizeof nan_bits);
        memcpy(&neg_bits, &negative, sizeof neg_bits);
        src = source(rt);
        stale_src = source(rt);
        OK(onity_cancel_source_destroy(rt, stale_src));
        foreign_src = source(rt2);
        t = manual(rt);
        memset(bad, 0, sizeof bad);
        bad[0].kind = 5, bad[0].want = ONITY_STATUS_INVALID_ARGUMENT;
        bad[1].kind = 0, bad[1].timing = 16, bad[1].want = ONITY_STATUS_INVALID_ARGUMENT;
        bad[2].kind = 3, bad[2].clock = 3, bad[2].want = ONITY_STATUS_INVALID_ARGUMENT;
        bad[3].kind = 3, bad[3].arg = nan_bits, bad[3].want = ONITY_STATUS_INVALID_ARGUMENT;
        bad[4].kind = 3, bad[4].arg = neg_bits, bad[4].want = ONITY_STATUS_INVALID_ARGUMENT;
        bad[5].kind = 1, bad[5].token = stale_src, bad[5].want = ONITY_STATUS_STALE_HANDLE;
        bad[6].kind = 1, bad[6].token = foreign_src, bad[6].want = ONITY_STATUS_FOREIGN_HANDLE;
        bad[7].kind = 1, bad[7].token = t, bad[7].want = ONITY_STATUS_INVALID_HANDLE;
        bad[8].kind = ONITY_BATCH_TASK, bad[8].arg = src, bad[8].want = ONITY_STATUS_INVALID_HANDLE;
        for (i = 0; i < 9; i++) {
            OnityBatchRecord *r;
            if (b->submit_count == b->submit_capacity) OK(onity_batch_flush(rt, b));
            r = &b->submit[b->submit_count++];
            memset(r, 0, sizeof *r);
            r->id = 100 + i;
            r->kind = bad[i].kind;
            r->timing = bad[i].timing;
            r->clock = bad[i].clock;
            r->arg = bad[i].arg;
            r->token = bad[i].token;
        }
        OK(onity_batch_drain(rt, b));
        CHECK_EQ_U64(b->resumed_count, 9);
        for (i = 0; i < b->resumed_count && i < 9; i++) {
            CHECK_EQ_U64(b->resumed[i].id, 100 + i);
            CHECK_EQ_U64(b->resumed[i].state, ONITY_TASK_STATE_FAULTED);
            CHECK_STATUS(b->resumed[i].status, bad[i].want);
        }
        b->resumed_consumed = b->resumed_count;
        OK(onity_batch_drain(rt, b));
        CHECK_EQ_U64(b->resumed_count, 0); /* consumed ones were dropped */
        OK(onity_task_cancel(rt, t));
        OK(onity_task_consume(rt, t, NULL));
        OK(onity_cancel_source_destroy(rt, src));
        OK(onity_cancel_source_destroy(rt2, foreign_src));
    }
    OK(onity_batch_destroy(rt, b));
    CHECK_STATUS(onity_batch_destroy(rt, b), ONITY_STATUS_INVALID_HANDLE); /* destroyed */
    CHECK_STATUS(onity_batch_tick(rt, b, ONITY_TIMING_UPDATE), ONITY_STATUS_INVALID_HANDLE);
    OK(onity_batch_destroy(rt2, b2));
    CHECK_EQ_U64(live_count(rt), 0);
}
