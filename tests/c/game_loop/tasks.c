/*
 * tasks.c: the scenarios of the game_loop program on manual tasks and
 * continuations, WhenAny and WhenAll.
 */
#include "game_loop.h"

static uint64_t g_chain_task;  /* created inside continuation 52 */

static void act_52(int id) { /* chains a second manual task, completed inline */
    (void)id;
    g_chain_task = manual();
    on_complete(g_chain_task, 53);
    OK(onity_task_set_result(L.rt, g_chain_task, 5353));
    CHECK(R[53].count == 1); /* nested continuation ran before set_result returned */
}

void test_manual_tasks(void) {
    uint64_t m1, m2, m3, m4, m5, m6;
    OnityOutcome o;

    m1 = manual();
    CHECK_EQ_U64(state_of(m1), ONITY_TASK_STATE_PENDING);
    on_complete(m1, 50);
    EXPECT_NOT_RUN(50);
    OK(onity_task_set_result(L.rt, m1, 1234));
    EXPECT_RAN(50, L.frame, HOST, ONITY_TASK_STATE_SUCCEEDED, 1); /* before set_result returned */
    CHECK(R[50].consumed);
    CHECK_EQ_U64(R[50].outcome.value, 1234);
    CHECK_EQ_U64(R[50].outcome.index, UINT32_MAX);

    m2 = manual();
    OK(onity_task_set_error(L.rt, m2, -7));
    CHECK_EQ_U64(state_of(m2), ONITY_TASK_STATE_FAULTED);
    on_complete(m2, 51); /* already completed: runs before on_complete returns */
    EXPECT_RAN(51, L.frame, HOST, ONITY_TASK_STATE_FAULTED, 1);
    CHECK_EQ_U64(R[51].outcome.state, ONITY_TASK_STATE_FAULTED);
    CHECK(R[51].outcome.error == -7);

    m3 = manual();
    OK(onity_task_cancel(L.rt, m3));
    CHECK_EQ_U64(state_of(m3), ONITY_TASK_STATE_CANCELED);
    o = consume(m3);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);

    m4 = manual();
    OK(onity_task_set_result(L.rt, m4, UINT64_MAX));
    o = consume(m4);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK(o.value == UINT64_MAX);
    CHECK_EQ_U64(o.index, UINT32_MAX);

    /* A continuation that creates and completes another task. */
    m5 = manual();
    R[52].action = act_52;
    on_complete(m5, 52);
    OK(onity_task_set_result(L.rt, m5, 52));
    EXPECT_RAN(52, L.frame, HOST, ONITY_TASK_STATE_SUCCEEDED, 1);
    EXPECT_RAN(53, L.frame, HOST, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[53].outcome.value, 5353);
    CHECK(g_chain_task != 0 && R[53].task == g_chain_task);
    EXPECT_ORDER(L.frame, HOST, 0, 50, 51, 52, 53);

    /* A continuation that leaves the task for the host. */
    m6 = manual();
    R[54].no_consume = 1;
    on_complete(m6, 54);
    OK(onity_task_set_error(L.rt, m6, 99));
    EXPECT_RAN(54, L.frame, HOST, ONITY_TASK_STATE_FAULTED, 1);
    CHECK_EQ_U64(stats().completed_unconsumed, 1);
    o = consume(m6);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_FAULTED);
    CHECK(o.error == 99);
    CHECK_EQ_U64(stats().completed_unconsumed, 0);
}

void test_when_any(void) {
    uint64_t a[3], w[3], c[3], d[2], e[2], g[2], big[40], mid[20], out;
    uint64_t cs3, cs4;
    uint32_t i;
    OnityOutcome o;
    uint64_t f;

    /* a) manual inputs: the first to complete wins; the losers are consumed
     *    by the combinator when they complete. */
    for (i = 0; i < 3; i++) a[i] = manual();
    out = when_any(a, 3, 0);
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_PENDING);
    on_complete(out, 60);
    OK(onity_task_set_result(L.rt, a[1], 42));
    EXPECT_RAN(60, L.frame, HOST, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[60].outcome.value, 42);
    CHECK_EQ_U64(R[60].outcome.index, 1);
    OK(onity_task_set_error(L.rt, a[0], 5));
    OK(onity_task_cancel(L.rt, a[2]));
    for (i = 0; i < 3; i++) {
        uint32_t s;
        CHECK_STATUS(onity_task_state(L.rt, a[i], &s), ONITY_STATUS_STALE_HANDLE);
    }

    /* b) wait inputs: NextFrame beats DelayFrame(3) and DelayFrame(5). */
    f = L.frame;
    w[0] = df_task(5, ONITY_TIMING_UPDATE, 0);
    w[1] = nf_task(ONITY_TIMING_UPDATE, 0);
    w[2] = df_task(3, ONITY_TIMING_UPDATE, 0);
    out = when_any(w, 3, 0);
    on_complete(out, 61);
    std_frame();
    EXPECT_RAN(61, f + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[61].outcome.index, 1);

    /* c) inputs already completed: the first in array order wins at once. */
    c[0] = manual();
    c[1] = manual();
    c[2] = manual();
    OK(onity_task_set_result(L.rt, c[2], 22));
    OK(onity_task_set_result(L.rt, c[1], 11));
    out = when_any(c, 3, 0);
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_SUCCEEDED);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(o.value, 11);
    CHECK_EQ_U64(o.index, 1);
    OK(onity_task_cancel(L.rt, c[0]));

    /* d) a faulted winner: the output faults with its error. */
    d[0] = manual();
    d[1] = manual();
    out = when_any(d, 2, 0);
    OK(onity_task_set_error(L.rt, d[0], -3));
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_FAULTED);
    CHECK(o.error == -3);
    CHECK_EQ_U64(o.index, 0);
    OK(onity_task_set_result(L.rt, d[1], 1));

    /* e) a token canceled later: canceled at the owner's next tick or drain. */
    cs3 = source();
    e[0] = manual();
    e[1] = manual();
    out = when_any(e, 2, cs3);
    OK(onity_cancel_source_cancel(L.rt, cs3));
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_PENDING);
    begin_std_frame();
    tick(ONITY_TIMING_INITIALIZATION);
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_CANCELED);
    tick_range(ONITY_TIMING_INITIALIZATION + 1, ONITY_TIMING_COUNT);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    CHECK_EQ_U64(o.index, UINT32_MAX);
    OK(onity_task_set_result(L.rt, e[0], 1)); /* still owned and consumed by the combinator */
    OK(onity_task_cancel(L.rt, e[1]));

    /* e') the same with drain instead of a tick. */
    e[0] = manual();
    e[1] = manual();
    OK(onity_cancel_source_destroy(L.rt, cs3));
    cs3 = source();
    out = when_any(e, 2, cs3);
    on_complete(out, 62);
    OK(onity_cancel_source_cancel(L.rt, cs3));
    EXPECT_NOT_RUN(62);
    OK(onity_runtime_drain(L.rt));
    EXPECT_RAN(62, L.frame, HOST, ONITY_TASK_STATE_CANCELED, 1);
    CHECK_EQ_U64(R[62].outcome.index, UINT32_MAX);
    OK(onity_task_cancel(L.rt, e[0]));
    OK(onity_task_set_error(L.rt, e[1], 3));
    OK(onity_cancel_source_destroy(L.rt, cs3));

    /* f) an already-canceled token: canceled at once. */
    cs4 = source();
    OK(onity_cancel_source_cancel(L.rt, cs4));
    g[0] = manual();
    g[1] = manual();
    out = when_any(g, 2, cs4);
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_CANCELED);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    CHECK_EQ_U64(o.index, UINT32_MAX);
    OK(onity_task_cancel(L.rt, g[0]));
    OK(onity_task_cancel(L.rt, g[1]));
    OK(onity_cancel_source_destroy(L.rt, cs4));

    /* g) 17-32 inputs and more than 32 inputs (other coordinator pools). */
    for (i = 0; i < 20; i++) mid[i] = manual();
    out = when_any(mid, 20, 0);
    OK(onity_task_set_result(L.rt, mid[17], 1717));
    o = consume(out);
    CHECK_EQ_U64(o.value, 1717);
    CHECK_EQ_U64(o.index, 17);
    for (i = 0; i < 20; i++)
        if (i != 17) OK(onity_task_cancel(L.rt, mid[i]));
    for (i = 0; i < 40; i++) big[i] = (i % 2) ? manual() : df_task(1 + i, ONITY_TIMING_UPDATE, 0);
    out = when_any(big, 40, 0);
    OK(onity_task_set_result(L.rt, big[39], 3939));
    o = consume(out);
    CHECK_EQ_U64(o.value, 3939);
    CHECK_EQ_U64(o.index, 39);
    for (i = 1; i < 39; i += 2) OK(onity_task_set_result(L.rt, big[i], i));
    /* the DelayFrame inputs finish over the next 40 frames (run below) */
}

void test_when_all(void) {
    uint64_t in[3], b[3], c[2], big[40], out;
    uint64_t cs5;
    uint32_t i;
    OnityOutcome res[40];
    OnityOutcome o;
    uint64_t f;

    /* a) a Yield, a DelayFrame(2) and a manual task. */
    begin_std_frame();
    f = L.frame;
    in[0] = y_task(ONITY_TIMING_UPDATE, 0);
    in[1] = df_task(2, ONITY_TIMING_UPDATE, 0);
    in[2] = manual();
    out = when_all(in, 3, 0);
    R[70].all_count = 3;
    on_complete(out, 70);
    OK(onity_task_set_result(L.rt, in[2], 7));
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(70);
    CHECK_STATUS(onity_when_all_results(L.rt, out, res, 3), ONITY_STATUS_TASK_PENDING);
    std_frame();
    EXPECT_NOT_RUN(70);
    std_frame();
    EXPECT_RAN(70, f + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[70].outcome.value, 3);
    CHECK_EQ_U64(R[70].outcome.index, UINT32_MAX);
    for (i = 0; i < 3; i++) CHECK_EQ_U64(R[70].all[i].state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(R[70].all[2].value, 7);

    /* b) a failure: the first input (in completion order) that faulted or was
     *    canceled gives the output its state and index. */
    for (i = 0; i < 3; i++) b[i] = manual();
    out = when_all(b, 3, 0);
    OK(onity_task_set_result(L.rt, b[0], 1));
    OK(onity_task_cancel(L.rt, b[2]));
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_PENDING);
    OK(onity_task_set_error(L.rt, b[1], -9));
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_CANCELED);
    OK(onity_when_all_results(L.rt, out, res, 3));
    CHECK_EQ_U64(res[0].state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(res[0].value, 1);
    CHECK_EQ_U64(res[1].state, ONITY_TASK_STATE_FAULTED);
    CHECK(res[1].error == -9);
    CHECK_EQ_U64(res[2].state, ONITY_TASK_STATE_CANCELED);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    CHECK_EQ_U64(o.index, 2);
    CHECK_STATUS(onity_when_all_results(L.rt, out, res, 3), ONITY_STATUS_STALE_HANDLE);

    /* b') a fault first. */
    for (i = 0; i < 3; i++) b[i] = manual();
    out = when_all(b, 3, 0);
    OK(onity_task_set_error(L.rt, b[1], 17));
    OK(onity_task_set_result(L.rt, b[0], 1));
    OK(onity_task_cancel(L.rt, b[2]));
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_FAULTED);
    CHECK(o.error == 17);
    CHECK_EQ_U64(o.index, 1);

    /* c) a token: the output is canceled at the next drain; pending inputs
     *    read as pending. */
    cs5 = source();
    c[0] = manual();
    c[1] = manual();
    out = when_all(c, 2, cs5);
    OK(onity_task_set_result(L.rt, c[0], 5));
    OK(onity_cancel_source_cancel(L.rt, cs5));
    OK(onity_runtime_drain(L.rt));
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_CANCELED);
    OK(onity_when_all_results(L.rt, out, res, 2));
    CHECK_EQ_U64(res[0].state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(res[0].value, 5);
    CHECK_EQ_U64(res[1].state, ONITY_TASK_STATE_PENDING);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    OK(onity_task_set_result(L.rt, c[1], 6)); /* consumed by the combinator */
    OK(onity_cancel_source_destroy(L.rt, cs5));

    /* d) more than 32 inputs, waits of every kind and timing. */
    begin_std_frame();
    f = L.frame;
    for (i = 0; i < 40; i++) {
        uint32_t t = i % ONITY_TIMING_COUNT;
        switch (i % 4) {
        case 0: big[i] = y_task(t, 0); break;
        case 1: big[i] = nf_task(t, 0); break;
        case 2: big[i] = df_task(1, t, 0); break;
        default: big[i] = d_task(0.125, ONITY_CLOCK_SCALED, t, 0); break;
        }
    }
    out = when_all(big, 40, 0);
    R[71].all_count = 40;
    on_complete(out, 71);
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(71);
    std_frame();
    /* the last input to complete is a frame f+1 wait of the last timing */
    EXPECT_RAN(71, f + 1, ONITY_TIMING_LAST_TIME_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[71].outcome.value, 40);
    for (i = 0; i < 40; i++) CHECK_EQ_U64(R[71].all[i].state, ONITY_TASK_STATE_SUCCEEDED);
    /* (A WhenAll output as an input of another combinator: see
     * repro_nested_when_all.c, a library bug.) */
}
