/*
 * handles.c: the scenarios of the bad_input program on handles (invalid,
 * stale, foreign, wrong kind, random) and on combinator inputs.
 */
#include "bad_input.h"

/* ---- 5. handles ------------------------------------------------------------ */

static uint64_t xorshift64(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

void test_handles(void) {
    uint64_t t, t2, w, src, src2, foreign_task, foreign_src, h = SENTINEL, seed = 0x9E3779B97F4A7C15ULL;
    uint32_t s = 0xABCDu;
    OnityOutcome o;
    int i, bit;

    /* handle 0 */
    CHECK_STATUS(onity_task_set_result(rt, 0, 1), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_set_error(rt, 0, 1), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_cancel(rt, 0), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_state(rt, 0, &s), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_consume(rt, 0, &o), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_on_complete(rt, 0, never_cb, NULL), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_when_all_results(rt, 0, &o, 1), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_cancel_source_cancel(rt, 0), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_cancel_source_is_canceled(rt, 0, &s), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_cancel_source_destroy(rt, 0), ONITY_STATUS_INVALID_HANDLE);
    {
        uint64_t zero_in[2] = {0, 0};
        CHECK_STATUS(onity_when_any(rt, zero_in, 1, 0, &h), ONITY_STATUS_INVALID_HANDLE);
        CHECK_STATUS(onity_when_all(rt, zero_in, 1, 0, &h), ONITY_STATUS_INVALID_HANDLE);
    }
    CHECK_EQ_U64(s, 0xABCDu);

    /* forged handles: random bits, and every single-bit corruption of a real
     * handle while it is the only live task */
    CHECK_EQ_U64(live_count(rt), 0);
    t = manual(rt);
    for (i = 0; i < 20000; i++) {
        uint64_t f = xorshift64(&seed);
        if (f == t) continue;
        CHECK_STATUS_IN(onity_task_state(rt, f, &s), BAD_HANDLE_STATUSES, 3);
        CHECK_STATUS_IN(onity_task_cancel(rt, f), BAD_HANDLE_STATUSES, 3);
        CHECK_STATUS_IN(onity_task_set_result(rt, f, 7), BAD_HANDLE_STATUSES, 3);
        CHECK_STATUS_IN(onity_task_consume(rt, f, &o), BAD_HANDLE_STATUSES, 3);
        CHECK_STATUS_IN(onity_cancel_source_cancel(rt, f), BAD_HANDLE_STATUSES, 3);
        CHECK_STATUS_IN(onity_cancel_source_is_canceled(rt, f, &s), BAD_HANDLE_STATUSES, 3);
        if (i < 2000) {
            CHECK_STATUS_IN(onity_task_on_complete(rt, f, never_cb, NULL), BAD_HANDLE_STATUSES, 3);
            CHECK_STATUS_IN(onity_when_any(rt, &f, 1, 0, &h), BAD_HANDLE_STATUSES, 3);
            CHECK_STATUS_IN(onity_yield(rt, ONITY_TIMING_UPDATE, f, &h), BAD_HANDLE_STATUSES, 3);
        }
    }
    for (bit = 0; bit < 64; bit++) {
        uint64_t f = t ^ (1ULL << bit);
        CHECK_STATUS_IN(onity_task_state(rt, f, &s), BAD_HANDLE_STATUSES, 3);
        CHECK_STATUS_IN(onity_task_cancel(rt, f), BAD_HANDLE_STATUSES, 3);
        CHECK_STATUS_IN(onity_task_set_error(rt, f, 1), BAD_HANDLE_STATUSES, 3);
        CHECK_STATUS_IN(onity_task_on_complete(rt, f, never_cb, NULL), BAD_HANDLE_STATUSES, 3);
    }
    CHECK_EQ_U64(h, SENTINEL);
    CHECK_EQ_U64(state_of(rt, t), ONITY_TASK_STATE_PENDING);
    CHECK_EQ_U64(live_count(rt), 1);

    /* consume pending, double completion, double consume, stale */
    CHECK_STATUS(onity_task_consume(rt, t, &o), ONITY_STATUS_TASK_PENDING);
    OK(onity_task_set_result(rt, t, 11));
    CHECK_STATUS(onity_task_set_result(rt, t, 12), ONITY_STATUS_ALREADY_COMPLETED);
    CHECK_STATUS(onity_task_set_error(rt, t, 13), ONITY_STATUS_ALREADY_COMPLETED);
    CHECK_STATUS(onity_task_cancel(rt, t), ONITY_STATUS_ALREADY_COMPLETED);
    memset(&o, 0, sizeof o);
    OK(onity_task_consume(rt, t, &o));
    CHECK_EQ_U64(o.value, 11); /* the first completion won */
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_STATUS(onity_task_consume(rt, t, &o), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_task_consume(rt, t, NULL), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_task_state(rt, t, &s), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_task_set_result(rt, t, 1), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_task_set_error(rt, t, 1), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_task_cancel(rt, t), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_task_on_complete(rt, t, never_cb, NULL), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_when_any(rt, &t, 1, 0, &h), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_when_all(rt, &t, 1, 0, &h), ONITY_STATUS_STALE_HANDLE);
    /* A new task (likely in the same slot) is not disturbed by the old handle. */
    t2 = manual(rt);
    CHECK(t2 != t);
    CHECK_STATUS(onity_task_set_result(rt, t, 1), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_task_cancel(rt, t), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_task_consume(rt, t, &o), ONITY_STATUS_STALE_HANDLE);
    CHECK_EQ_U64(state_of(rt, t2), ONITY_TASK_STATE_PENDING);

    /* second continuation */
    OK(onity_task_on_complete(rt, t2, count_cb, U(10)));
    CHECK_STATUS(onity_task_on_complete(rt, t2, never_cb, NULL), ONITY_STATUS_ALREADY_AWAITED);
    OK(onity_task_set_error(rt, t2, 3));
    CHECK_EQ_U64(g_calls[10], 1);
    CHECK_EQ_U64(g_state[10], ONITY_TASK_STATE_FAULTED);
    CHECK_STATUS(onity_task_on_complete(rt, t2, never_cb, NULL), ONITY_STATUS_STALE_HANDLE);

    /* set_result / set_error on a wait task: not a manual source */
    OK(onity_next_frame(rt, ONITY_TIMING_UPDATE, 0, &w));
    CHECK_STATUS(onity_task_set_result(rt, w, 1), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_set_error(rt, w, 1), ONITY_STATUS_INVALID_HANDLE);
    CHECK_EQ_U64(state_of(rt, w), ONITY_TASK_STATE_PENDING);
    OK(onity_task_cancel(rt, w)); /* any pending task can be canceled */
    CHECK_STATUS(onity_task_cancel(rt, w), ONITY_STATUS_ALREADY_COMPLETED);
    OK(onity_task_consume(rt, w, &o));
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    full_frame(rt); /* its record falls due and is dropped */

    /* a completed wait task cannot be completed again */
    OK(onity_yield(rt, ONITY_TIMING_UPDATE, 0, &w));
    full_frame(rt);
    CHECK_STATUS(onity_task_cancel(rt, w), ONITY_STATUS_ALREADY_COMPLETED);
    OK(onity_task_consume(rt, w, &o));
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);

    /* cancel source used as a task, task used as a source or token */
    src = source(rt);
    t = manual(rt);
    CHECK_STATUS(onity_task_state(rt, src, &s), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_set_result(rt, src, 1), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_cancel(rt, src), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_consume(rt, src, &o), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_task_on_complete(rt, src, never_cb, NULL), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_when_any(rt, &src, 1, 0, &h), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_cancel_source_cancel(rt, t), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_cancel_source_is_canceled(rt, t, &s), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_cancel_source_destroy(rt, t), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_yield(rt, ONITY_TIMING_UPDATE, t, &h), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_next_frame_then(rt, ONITY_TIMING_UPDATE, t, never_cb, NULL),
                 ONITY_STATUS_INVALID_HANDLE);
    {
        uint64_t in1[1];
        in1[0] = manual(rt);
        CHECK_STATUS(onity_when_any(rt, in1, 1, t, &h), ONITY_STATUS_INVALID_HANDLE);
        CHECK_STATUS(onity_when_all(rt, in1, 1, t, &h), ONITY_STATUS_INVALID_HANDLE);
        OK(onity_task_cancel(rt, in1[0]));
        OK(onity_task_consume(rt, in1[0], NULL));
    }
    CHECK_EQ_U64(h, SENTINEL);
    CHECK_EQ_U64(state_of(rt, t), ONITY_TASK_STATE_PENDING);
    {
        uint32_t c = 9;
        OK(onity_cancel_source_is_canceled(rt, src, &c));
        CHECK_EQ_U64(c, 0);
    }

    /* destroyed source: stale everywhere */
    src2 = source(rt);
    OK(onity_cancel_source_destroy(rt, src2));
    CHECK_STATUS(onity_cancel_source_destroy(rt, src2), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_cancel_source_cancel(rt, src2), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_cancel_source_is_canceled(rt, src2, &s), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_yield(rt, ONITY_TIMING_UPDATE, src2, &h), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_delay_then(rt, 1.0, 0, ONITY_TIMING_UPDATE, src2, never_cb, NULL),
                 ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_when_any(rt, &t, 1, src2, &h), ONITY_STATUS_STALE_HANDLE);

    /* foreign handles (issued by rt2) */
    foreign_task = manual(rt2);
    foreign_src = source(rt2);
    CHECK_STATUS(onity_task_state(rt, foreign_task, &s), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_task_set_result(rt, foreign_task, 1), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_task_set_error(rt, foreign_task, 1), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_task_cancel(rt, foreign_task), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_task_consume(rt, foreign_task, &o), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_task_on_complete(rt, foreign_task, never_cb, NULL), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_when_any(rt, &foreign_task, 1, 0, &h), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_when_all(rt, &foreign_task, 1, 0, &h), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_when_all_results(rt, foreign_task, &o, 1), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_cancel_source_cancel(rt, foreign_src), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_cancel_source_is_canceled(rt, foreign_src, &s), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_cancel_source_destroy(rt, foreign_src), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_yield(rt, ONITY_TIMING_UPDATE, foreign_src, &h), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_yield_then(rt, ONITY_TIMING_UPDATE, foreign_src, never_cb, NULL),
                 ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_when_any(rt, &t, 1, foreign_src, &h), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_task_state(rt2, t, &s), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_STATUS(onity_task_set_result(rt2, t, 1), ONITY_STATUS_FOREIGN_HANDLE);
    CHECK_EQ_U64(h, SENTINEL);
    CHECK_EQ_U64(state_of(rt2, foreign_task), ONITY_TASK_STATE_PENDING);
    OK(onity_task_set_result(rt2, foreign_task, 2));
    OK(onity_task_consume(rt2, foreign_task, NULL));
    OK(onity_cancel_source_destroy(rt2, foreign_src));

    /* clean up */
    OK(onity_task_cancel(rt, t));
    OK(onity_task_consume(rt, t, NULL));
    OK(onity_cancel_source_destroy(rt, src));
    CHECK_EQ_U64(live_count(rt), 0);
}

/* ---- 6. combinator inputs ---------------------------------------------------- */

static uint64_t g_big_inputs[ONITY_MAX_COMBINATOR_INPUTS + 1];

void test_combinator_inputs(void) {
    uint64_t a, b, c, ins[4], out = SENTINEL, out2 = SENTINEL, wall;
    uint32_t i, s;
    OnityOutcome o, res[3];

    a = manual(rt);
    b = manual(rt);
    c = manual(rt);
    ins[0] = a;
    ins[1] = b;
    ins[2] = a;
    /* counts */
    CHECK_STATUS(onity_when_any(rt, ins, 0, 0, &out), ONITY_STATUS_COUNT_OUT_OF_RANGE);
    CHECK_STATUS(onity_when_all(rt, ins, 0, 0, &out), ONITY_STATUS_COUNT_OUT_OF_RANGE);
    for (i = 0; i <= ONITY_MAX_COMBINATOR_INPUTS; i++) g_big_inputs[i] = manual(rt);
    CHECK_STATUS(onity_when_any(rt, g_big_inputs, ONITY_MAX_COMBINATOR_INPUTS + 1, 0, &out),
                 ONITY_STATUS_COUNT_OUT_OF_RANGE);
    CHECK_STATUS(onity_when_all(rt, g_big_inputs, ONITY_MAX_COMBINATOR_INPUTS + 1, 0, &out),
                 ONITY_STATUS_COUNT_OUT_OF_RANGE);
    CHECK_STATUS(onity_when_all(rt, g_big_inputs, 0xFFFFFFFFu, 0, &out), ONITY_STATUS_COUNT_OUT_OF_RANGE);
    /* duplicates, small and large */
    CHECK_STATUS(onity_when_any(rt, ins, 3, 0, &out), ONITY_STATUS_DUPLICATE_INPUT);
    CHECK_STATUS(onity_when_all(rt, ins, 3, 0, &out), ONITY_STATUS_DUPLICATE_INPUT);
    {
        uint64_t keep = g_big_inputs[4000];
        g_big_inputs[4000] = g_big_inputs[17];
        CHECK_STATUS(onity_when_any(rt, g_big_inputs, ONITY_MAX_COMBINATOR_INPUTS, 0, &out),
                     ONITY_STATUS_DUPLICATE_INPUT);
        CHECK_STATUS(onity_when_all(rt, g_big_inputs, ONITY_MAX_COMBINATOR_INPUTS, 0, &out),
                     ONITY_STATUS_DUPLICATE_INPUT);
        g_big_inputs[4000] = keep;
    }
    /* one bad input among good ones: nothing changes */
    ins[2] = 0;
    CHECK_STATUS(onity_when_any(rt, ins, 3, 0, &out), ONITY_STATUS_INVALID_HANDLE);
    CHECK_EQ_U64(out, SENTINEL);
    /* the maximum count is accepted */
    OK(onity_when_any(rt, g_big_inputs, ONITY_MAX_COMBINATOR_INPUTS, 0, &out));
    CHECK(out != SENTINEL);
    OK(onity_task_set_result(rt, g_big_inputs[4095], 4095));
    OK(onity_task_consume(rt, out, &o));
    CHECK_EQ_U64(o.index, 4095);
    CHECK_EQ_U64(o.value, 4095);
    for (i = 0; i < ONITY_MAX_COMBINATOR_INPUTS - 1; i++) OK(onity_task_cancel(rt, g_big_inputs[i]));
    OK(onity_task_cancel(rt, g_big_inputs[ONITY_MAX_COMBINATOR_INPUTS]));
    OK(onity_task_consume(rt, g_big_inputs[ONITY_MAX_COMBINATOR_INPUTS], NULL));

    /* a, b, c are still free after the failed calls */
    OK(onity_task_on_complete(rt, c, count_cb, U(20)));
    /* c has a continuation: it cannot join a combinator */
    ins[0] = a;
    ins[1] = c;
    out = SENTINEL;
    CHECK_STATUS(onity_when_any(rt, ins, 2, 0, &out), ONITY_STATUS_ALREADY_AWAITED);
    CHECK_STATUS(onity_when_all(rt, ins, 2, 0, &out), ONITY_STATUS_ALREADY_AWAITED);
    CHECK_EQ_U64(out, SENTINEL);

    /* a and b join a WhenAny: they now belong to it */
    ins[0] = a;
    ins[1] = b;
    OK(onity_when_any(rt, ins, 2, 0, &out));
    CHECK_STATUS(onity_task_on_complete(rt, a, never_cb, NULL), ONITY_STATUS_ALREADY_AWAITED);
    CHECK_STATUS(onity_when_any(rt, &b, 1, 0, &out2), ONITY_STATUS_ALREADY_AWAITED);
    CHECK_STATUS(onity_when_all(rt, &b, 1, 0, &out2), ONITY_STATUS_ALREADY_AWAITED);
    CHECK_EQ_U64(out2, SENTINEL);
    /* A pending input owned by a combinator: consumed by it, not by us. */
    CHECK_STATUS(onity_task_consume(rt, a, &o), ONITY_STATUS_ALREADY_AWAITED);
    CHECK_EQ_U64(state_of(rt, a), ONITY_TASK_STATE_PENDING);
    /* when_all_results of a task that is not a WhenAll */
    CHECK_STATUS(onity_when_all_results(rt, c, res, 1), ONITY_STATUS_INVALID_HANDLE);
    CHECK_STATUS(onity_when_all_results(rt, out, res, 2), ONITY_STATUS_INVALID_HANDLE);
    OK(onity_task_set_result(rt, b, 2));
    OK(onity_task_consume(rt, out, &o));
    CHECK_EQ_U64(o.index, 1);
    CHECK_STATUS(onity_task_state(rt, b, &s), ONITY_STATUS_STALE_HANDLE); /* consumed by WhenAny */
    CHECK_STATUS(onity_task_consume(rt, b, &o), ONITY_STATUS_STALE_HANDLE);
    CHECK_STATUS(onity_task_consume(rt, a, &o), ONITY_STATUS_ALREADY_AWAITED);
    OK(onity_task_cancel(rt, a));
    CHECK_STATUS(onity_task_consume(rt, a, &o), ONITY_STATUS_STALE_HANDLE);

    /* when_all_results errors */
    a = manual(rt);
    b = manual(rt);
    ins[0] = a;
    ins[1] = b;
    OK(onity_when_all(rt, ins, 2, 0, &wall));
    CHECK_STATUS(onity_when_all_results(rt, wall, res, 2), ONITY_STATUS_TASK_PENDING);
    OK(onity_task_set_result(rt, a, 1));
    OK(onity_task_set_result(rt, b, 2));
    CHECK_STATUS(onity_when_all_results(rt, wall, res, 1), ONITY_STATUS_COUNT_OUT_OF_RANGE);
    CHECK_STATUS(onity_when_all_results(rt, wall, res, 3), ONITY_STATUS_COUNT_OUT_OF_RANGE);
    CHECK_STATUS(onity_when_all_results(rt, wall, res, 0), ONITY_STATUS_COUNT_OUT_OF_RANGE);
    CHECK_STATUS(onity_when_all_results(rt, wall, NULL, 2), ONITY_STATUS_NULL_POINTER);
    OK(onity_when_all_results(rt, wall, res, 2));
    CHECK_EQ_U64(res[1].value, 2);
    OK(onity_task_consume(rt, wall, &o));
    CHECK_EQ_U64(o.value, 2);
    CHECK_STATUS(onity_when_all_results(rt, wall, res, 2), ONITY_STATUS_STALE_HANDLE);

    /* c: its continuation (id 20) consumes it */
    OK(onity_task_set_result(rt, c, 3));
    CHECK_EQ_U64(g_calls[20], 1);
    CHECK_EQ_U64(live_count(rt), 0);
}
