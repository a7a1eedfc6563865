/*
 * waits.c: the scenarios of the game_loop program on waits: names and
 * version, Yield / NextFrame / DelayFrame / Delay in both forms, paused time,
 * FixedUpdate run twice or not at all, cancellation of waits.
 */
#include "game_loop.h"

/* ---- actions run inside continuations ------------------------------------ */

static uint64_t g_task_e;      /* Yield(Update) created during EarlyUpdate */

static void act_10(int id) { /* runs during frame 1 EarlyUpdate */
    (void)id;
    OK(onity_yield_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(11)));
    OK(onity_next_frame_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(12)));
    OK(onity_yield_then(L.rt, ONITY_TIMING_EARLY_UPDATE, 0, cb, U(13)));
    g_task_e = y_task(ONITY_TIMING_UPDATE, 0);
    on_complete(g_task_e, 17);
}

static void act_14(int id) { /* runs during frame 1 Update */
    (void)id;
    OK(onity_yield_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(15)));
    OK(onity_yield_then(L.rt, ONITY_TIMING_LAST_UPDATE, 0, cb, U(16)));
}

static void act_30(int id) { /* runs during the first FixedUpdate run */
    (void)id;
    OK(onity_yield_then(L.rt, ONITY_TIMING_FIXED_UPDATE, 0, cb, U(31)));
    OK(onity_next_frame_then(L.rt, ONITY_TIMING_FIXED_UPDATE, 0, cb, U(32)));
    OK(onity_delay_frame_then(L.rt, 0, ONITY_TIMING_FIXED_UPDATE, 0, cb, U(33)));
}
/* ---- scenarios ------------------------------------------------------------ */

void test_names_and_version(void) {
    uint32_t i, j;
    CHECK_EQ_U64(onity_abi_version(), ONITY_ABI_VERSION);
    CHECK((onity_abi_version() >> 16) == (ONITY_ABI_VERSION >> 16));
    for (i = 0; i <= 18; i++) {
        const char *s = onity_status_text(i);
        CHECK(s != NULL && s[0] != '\0');
    }
    CHECK(strcmp(onity_status_text(9999), "unknown status") == 0);
    for (i = 0; i < ONITY_TIMING_COUNT; i++) {
        const char *n = onity_timing_name(i);
        CHECK(n != NULL && n[0] != '\0' && strcmp(n, "invalid") != 0);
        for (j = 0; j < i; j++) CHECK(strcmp(n, onity_timing_name(j)) != 0);
    }
    CHECK(strcmp(onity_timing_name(ONITY_TIMING_UPDATE), "Update") == 0);
    CHECK(strcmp(onity_timing_name(ONITY_TIMING_INITIALIZATION), "Initialization") == 0);
    CHECK(strcmp(onity_timing_name(ONITY_TIMING_FIXED_UPDATE), "FixedUpdate") == 0);
    CHECK(strcmp(onity_timing_name(ONITY_TIMING_COUNT), "invalid") == 0);
    for (i = 0; i < ONITY_POOL_COUNT; i++) {
        const char *n = onity_pool_name(i);
        CHECK(n != NULL && n[0] != '\0' && strcmp(n, "invalid") != 0);
        for (j = 0; j < i; j++) CHECK(strcmp(n, onity_pool_name(j)) != 0);
    }
    CHECK(strcmp(onity_pool_name(ONITY_POOL_COUNT), "invalid") == 0);
}

/* Frames 1-5: the four waits in both forms, their frame rules and order. */
void test_waits(void) {
    uint64_t t_y, t_nf, t_df3, t_ds, t_df0;
    OnityOutcome o;
    const uint64_t f1 = L.frame + 1;

    begin_std_frame(); /* frame f1 */
    CHECK_EQ_U64(L.frame, f1);
    /* Scheduled by the host before any timing of f1 has run. */
    t_y = y_task(ONITY_TIMING_UPDATE, 0);                                     /* f1 Update */
    OK(onity_yield_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(1)));              /* f1 Update */
    t_nf = nf_task(ONITY_TIMING_UPDATE, 0);                                   /* f1+1 Update */
    on_complete(t_nf, 2);
    OK(onity_next_frame_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(3)));         /* f1+1 */
    t_df3 = df_task(3, ONITY_TIMING_UPDATE, 0);                               /* f1+3 */
    OK(onity_delay_frame_then(L.rt, 3, ONITY_TIMING_UPDATE, 0, cb, U(4)));     /* f1+3 */
    OK(onity_delay_frame_then(L.rt, 0, ONITY_TIMING_UPDATE, 0, cb, U(5)));     /* f1: as Yield */
    t_ds = d_task(0.5, ONITY_CLOCK_SCALED, ONITY_TIMING_UPDATE, 0);           /* 4 x 0.125 */
    on_complete(t_ds, 6);
    OK(onity_delay_then(L.rt, 0.5, ONITY_CLOCK_UNSCALED, ONITY_TIMING_UPDATE, 0, cb, U(7))); /* 2 x .25 */
    OK(onity_delay_then(L.rt, 0.5, ONITY_CLOCK_REALTIME, ONITY_TIMING_UPDATE, 0, cb, U(8))); /* 2 x .25 */
    OK(onity_delay_then(L.rt, 0.0, ONITY_CLOCK_SCALED, ONITY_TIMING_UPDATE, 0, cb, U(9)));   /* f1+1 */
    R[10].action = act_10;
    OK(onity_yield_then(L.rt, ONITY_TIMING_EARLY_UPDATE, 0, cb, U(10))); /* f1 EarlyUpdate */
    R[14].action = act_14;
    OK(onity_yield_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(14))); /* f1 Update */
    t_df0 = df_task(0, ONITY_TIMING_LAST_UPDATE, 0);               /* f1 LastUpdate */

    tick_range(0, ONITY_TIMING_UPDATE);
    EXPECT_RAN(10, f1, ONITY_TIMING_EARLY_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    CHECK_EQ_U64(state_of(t_y), ONITY_TASK_STATE_PENDING);
    CHECK_EQ_U64(state_of(g_task_e), ONITY_TASK_STATE_PENDING);
    CHECK_STATUS(onity_task_consume(L.rt, t_y, NULL), ONITY_STATUS_TASK_PENDING);
    EXPECT_NOT_RUN(1);
    EXPECT_NOT_RUN(11);
    EXPECT_NOT_RUN(5);
    tick(ONITY_TIMING_UPDATE);
    CHECK_EQ_U64(state_of(t_y), ONITY_TASK_STATE_SUCCEEDED);
    o = consume(t_y);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(o.index, UINT32_MAX);
    EXPECT_RAN(1, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(5, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    /* Yield(Update) scheduled during EarlyUpdate resumes in the same frame. */
    EXPECT_RAN(11, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(17, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK(R[17].consumed && R[17].outcome.index == UINT32_MAX);
    EXPECT_RAN(14, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    /* Scheduled by a continuation of this run: not looked at until the next run. */
    EXPECT_NOT_RUN(15);
    /* NextFrame(Update) scheduled in f1 before Update: not in f1's Update. */
    EXPECT_NOT_RUN(2);
    EXPECT_NOT_RUN(3);
    EXPECT_NOT_RUN(12);
    EXPECT_NOT_RUN(9); /* Delay(0) completes in a later frame */
    CHECK_EQ_U64(state_of(t_nf), ONITY_TASK_STATE_PENDING);
    /* In scheduling order: the host's waits, then the EarlyUpdate ones. */
    EXPECT_ORDER(f1, ONITY_TIMING_UPDATE, 0, 1, 5, 14, 11, 17);
    CHECK_EQ_U64(state_of(t_df0), ONITY_TASK_STATE_PENDING);
    tick_range(ONITY_TIMING_UPDATE + 1, ONITY_TIMING_COUNT);
    EXPECT_RAN(16, f1, ONITY_TIMING_LAST_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    CHECK_EQ_U64(state_of(t_df0), ONITY_TASK_STATE_SUCCEEDED);
    o = consume(t_df0);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    EXPECT_NOT_RUN(13);

    /* Frame f1+1. */
    begin_std_frame();
    tick_range(0, ONITY_TIMING_UPDATE);
    /* Yield(EarlyUpdate) scheduled during EarlyUpdate: the next run, i.e. now. */
    EXPECT_RAN(13, f1 + 1, ONITY_TIMING_EARLY_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_NOT_RUN(2);
    CHECK_EQ_U64(state_of(t_nf), ONITY_TASK_STATE_PENDING);
    tick(ONITY_TIMING_UPDATE);
    EXPECT_RAN(2, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    EXPECT_RAN(3, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(9, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(12, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(15, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_ORDER(f1 + 1, ONITY_TIMING_UPDATE, 0, 2, 3, 9, 12, 15);
    tick_range(ONITY_TIMING_UPDATE + 1, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(7);
    EXPECT_NOT_RUN(8);
    CHECK_EQ_U64(state_of(t_df3), ONITY_TASK_STATE_PENDING);

    /* Frame f1+2: unscaled and realtime clocks have advanced by 0.5. */
    std_frame();
    EXPECT_RAN(7, f1 + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(8, f1 + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_ORDER(f1 + 2, ONITY_TIMING_UPDATE, 0, 7, 8);
    CHECK_EQ_U64(state_of(t_df3), ONITY_TASK_STATE_PENDING);
    EXPECT_NOT_RUN(4);

    /* Frame f1+3: DelayFrame(3) resumes exactly 3 frames later, at Update. */
    begin_std_frame();
    tick_range(0, ONITY_TIMING_UPDATE);
    CHECK_EQ_U64(state_of(t_df3), ONITY_TASK_STATE_PENDING);
    EXPECT_NOT_RUN(4);
    tick(ONITY_TIMING_UPDATE);
    CHECK_EQ_U64(state_of(t_df3), ONITY_TASK_STATE_SUCCEEDED);
    EXPECT_RAN(4, f1 + 3, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    tick_range(ONITY_TIMING_UPDATE + 1, ONITY_TIMING_COUNT);
    o = consume(t_df3);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(o.index, UINT32_MAX);
    EXPECT_NOT_RUN(6); /* scaled clock: 3 x 0.125 = 0.375 < 0.5 */
    CHECK_EQ_U64(state_of(t_ds), ONITY_TASK_STATE_PENDING);

    /* Frame f1+4: the scaled clock reaches 0.5. */
    std_frame();
    EXPECT_RAN(6, f1 + 4, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK(R[6].consumed);
}

/* Paused time: the scaled clock stands still while delta_time is 0. */
void test_pause(void) {
    const uint64_t f = L.frame + 1;
    uint64_t t_unscaled, t_real;
    begin_std_frame(); /* f */
    OK(onity_delay_then(L.rt, 0.25, ONITY_CLOCK_SCALED, ONITY_TIMING_PRE_LATE_UPDATE, 0, cb, U(20)));
    OK(onity_delay_then(L.rt, 0.25, ONITY_CLOCK_UNSCALED, ONITY_TIMING_PRE_LATE_UPDATE, 0, cb, U(21)));
    t_unscaled = d_task(0.5, ONITY_CLOCK_UNSCALED, ONITY_TIMING_LAST_PRE_LATE_UPDATE, 0);
    t_real = d_task(1.0, ONITY_CLOCK_REALTIME, ONITY_TIMING_TIME_UPDATE, 0);
    tick_range(0, ONITY_TIMING_COUNT);
    begin_frame(0.0, 0.25, 0.5); /* f+1: paused, realtime jumps by 0.5 */
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(20);
    EXPECT_RAN(21, f + 1, ONITY_TIMING_PRE_LATE_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    CHECK_EQ_U64(state_of(t_unscaled), ONITY_TASK_STATE_PENDING);
    CHECK_EQ_U64(state_of(t_real), ONITY_TASK_STATE_PENDING);
    begin_frame(0.0, 0.25, 0.5); /* f+2: paused; unscaled 0.5, realtime 1.0 */
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(20);
    CHECK_EQ_U64(state_of(t_unscaled), ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(state_of(t_real), ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(consume(t_unscaled).state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(consume(t_real).state, ONITY_TASK_STATE_SUCCEEDED);
    begin_frame(0.125, 0.25, 0.25); /* f+3: scaled 0.125 */
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(20);
    begin_frame(0.125, 0.25, 0.25); /* f+4: scaled 0.25 */
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_RAN(20, f + 4, ONITY_TIMING_PRE_LATE_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
}

/* FixedUpdate may run several times per frame, or not at all. */
void test_fixed_update(void) {
    const uint64_t f = L.frame + 1;
    uint64_t t_nf;
    begin_std_frame(); /* f: FixedUpdate runs twice */
    R[30].action = act_30;
    OK(onity_yield_then(L.rt, ONITY_TIMING_FIXED_UPDATE, 0, cb, U(30)));
    t_nf = nf_task(ONITY_TIMING_FIXED_UPDATE, 0);
    on_complete(t_nf, 34);
    tick_range(0, ONITY_TIMING_FIXED_UPDATE);
    tick(ONITY_TIMING_FIXED_UPDATE);
    tick(ONITY_TIMING_LAST_FIXED_UPDATE);
    EXPECT_RAN_RUN(30, f, ONITY_TIMING_FIXED_UPDATE, 0, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_NOT_RUN(31);
    tick(ONITY_TIMING_FIXED_UPDATE);
    tick(ONITY_TIMING_LAST_FIXED_UPDATE);
    EXPECT_RAN_RUN(31, f, ONITY_TIMING_FIXED_UPDATE, 1, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN_RUN(33, f, ONITY_TIMING_FIXED_UPDATE, 1, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_ORDER(f, ONITY_TIMING_FIXED_UPDATE, 1, 31, 33);
    EXPECT_NOT_RUN(32);
    EXPECT_NOT_RUN(34);
    tick_range(ONITY_TIMING_PRE_UPDATE, ONITY_TIMING_COUNT);

    /* f+1: FixedUpdate does not run at all. */
    begin_std_frame();
    tick_range(0, ONITY_TIMING_FIXED_UPDATE);
    tick_range(ONITY_TIMING_PRE_UPDATE, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(32);
    EXPECT_NOT_RUN(34);

    /* f+2: the first FixedUpdate run of a later frame. */
    std_frame();
    EXPECT_RAN_RUN(34, f + 2, ONITY_TIMING_FIXED_UPDATE, 0, ONITY_TASK_STATE_SUCCEEDED, 1);
    EXPECT_RAN_RUN(32, f + 2, ONITY_TIMING_FIXED_UPDATE, 0, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_ORDER(f + 2, ONITY_TIMING_FIXED_UPDATE, 0, 34, 32);
}

/* Cancellation tokens on waits; onity_task_cancel on a wait task. */
void test_wait_cancellation(void) {
    const uint64_t f = L.frame + 1;
    uint64_t cs1, cs2, t_a, t_b, t_c, t_d;
    OnityOutcome o;

    begin_std_frame();
    cs1 = source();
    cs2 = source();
    CHECK(cs1 != cs2);
    CHECK_EQ_U64(is_canceled(cs1), 0);
    t_a = df_task(100, ONITY_TIMING_UPDATE, cs1);
    on_complete(t_a, 40);
    OK(onity_delay_frame_then(L.rt, 100, ONITY_TIMING_UPDATE, cs1, cb, U(41)));
    t_b = y_task(ONITY_TIMING_LAST_UPDATE, cs1);
    OK(onity_delay_then(L.rt, 1000.0, ONITY_CLOCK_REALTIME, ONITY_TIMING_UPDATE, cs1, cb, U(44)));
    OK(onity_next_frame_then(L.rt, ONITY_TIMING_UPDATE, cs1, cb, U(45)));
    /* A source destroyed before it is canceled never cancels its waits. */
    OK(onity_delay_frame_then(L.rt, 1, ONITY_TIMING_UPDATE, cs2, cb, U(42)));
    t_d = nf_task(ONITY_TIMING_UPDATE, cs2);
    OK(onity_cancel_source_destroy(L.rt, cs2));
    CHECK_STATUS(onity_cancel_source_cancel(L.rt, cs2), ONITY_STATUS_STALE_HANDLE);
    /* onity_task_cancel completes a wait task at once, continuation inline. */
    t_c = df_task(2, ONITY_TIMING_UPDATE, 0);
    on_complete(t_c, 43);
    OK(onity_task_cancel(L.rt, t_c));
    EXPECT_RAN(43, f, HOST, ONITY_TASK_STATE_CANCELED, 1);

    tick_range(0, ONITY_TIMING_UPDATE);
    OK(onity_cancel_source_cancel(L.rt, cs1));
    OK(onity_cancel_source_cancel(L.rt, cs1)); /* twice is fine */
    CHECK_EQ_U64(is_canceled(cs1), 1);
    /* Token waits complete at the next run of their timing, not before. */
    EXPECT_NOT_RUN(40);
    EXPECT_NOT_RUN(41);
    CHECK_EQ_U64(state_of(t_a), ONITY_TASK_STATE_PENDING);
    CHECK_EQ_U64(state_of(t_b), ONITY_TASK_STATE_PENDING);
    tick(ONITY_TIMING_UPDATE);
    EXPECT_RAN(40, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, 1);
    EXPECT_RAN(41, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, 0);
    EXPECT_RAN(44, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, 0);
    EXPECT_RAN(45, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, 0);
    EXPECT_ORDER(f, ONITY_TIMING_UPDATE, 0, 40, 41, 44, 45);
    CHECK_EQ_U64(state_of(t_b), ONITY_TASK_STATE_PENDING);
    tick(ONITY_TIMING_LAST_UPDATE);
    CHECK_EQ_U64(state_of(t_b), ONITY_TASK_STATE_CANCELED);
    o = consume(t_b);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    tick_range(ONITY_TIMING_LAST_UPDATE + 1, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(42);

    std_frame(); /* f+1 */
    EXPECT_RAN(42, f + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    CHECK_EQ_U64(consume(t_d).state, ONITY_TASK_STATE_SUCCEEDED);
    std_frame(); /* f+2: t_c's record falls due and is dropped; nothing runs twice */
    CHECK_EQ_U64(R[43].count, 1);
    CHECK_EQ_U64(R[40].count, 1);
    /* A wait created with an already-canceled token completes canceled at
     * the next run of its timing. */
    OK(onity_delay_frame_then(L.rt, 50, ONITY_TIMING_POST_LATE_UPDATE, cs1, cb, U(46)));
    std_frame(); /* f+3 */
    EXPECT_RAN(46, f + 3, ONITY_TIMING_POST_LATE_UPDATE, ONITY_TASK_STATE_CANCELED, 0);
    OK(onity_cancel_source_destroy(L.rt, cs1));
}

/* Manual tasks, completion from the owner thread, continuations. */
