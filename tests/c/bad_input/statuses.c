/*
 * statuses.c: the scenarios of the bad_input program on status texts, null
 * and invalid runtime pointers, frames, null out pointers, null callbacks and
 * invalid enums.
 */
#include "bad_input.h"

/* ---- 1. status texts ------------------------------------------------------ */

void test_status_texts(void) {
    uint32_t i;
    for (i = 0; i <= 18; i++) {
        const char *s = onity_status_text(i);
        CHECK(s != NULL && s[0] != '\0');
    }
    CHECK(onity_status_text(19) != NULL && onity_status_text(19)[0] != '\0');
    CHECK(onity_status_text(9999) != NULL && onity_status_text(9999)[0] != '\0');
    CHECK(onity_status_text(0xFFFFFFFFu) != NULL && onity_status_text(0xFFFFFFFFu)[0] != '\0');
    CHECK(strcmp(onity_status_text(9999), "unknown status") == 0);
    CHECK(strcmp(onity_status_text(ONITY_STATUS_OK), "unknown status") != 0);
    CHECK(strcmp(onity_status_text(ONITY_STATUS_INVALID_ALIGNMENT), "unknown status") != 0);
    CHECK(strcmp(onity_timing_name(16), "invalid") == 0);
    CHECK(strcmp(onity_timing_name(0xFFFFFFFFu), "invalid") == 0);
    CHECK(strcmp(onity_pool_name(ONITY_POOL_COUNT), "invalid") == 0);
    CHECK(strcmp(onity_pool_name(0xFFFFFFFFu), "invalid") == 0);
}

/* ---- 2. null and invalid runtime pointers -------------------------------- */

/* Runs every function that takes a runtime with `r`; each must return `want`
 * (NULL_POINTER for a null runtime, INVALID_RUNTIME for a bogus one). The
 * other arguments are valid-looking so only the runtime is wrong. */
static void all_calls_with_runtime(OnityRuntime *r, uint32_t want) {
    uint64_t h = SENTINEL, hs[2] = {1, 2};
    uint32_t u = 0xABCDu;
    OnityOutcome o;
    OnityStats st;
    OnityFrameInfo fi;
    memset(&o, 0, sizeof o);
    memset(&st, 0, sizeof st);
    st.size = (uint32_t)sizeof st;
    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = 1000000;

    CHECK_STATUS(onity_cancel_source_create(r, &h), want);
    CHECK_STATUS(onity_cancel_source_cancel(r, 1), want);
    CHECK_STATUS(onity_cancel_source_is_canceled(r, 1, &u), want);
    CHECK_STATUS(onity_cancel_source_destroy(r, 1), want);
    CHECK_STATUS(onity_when_any(r, hs, 2, 0, &h), want);
    CHECK_STATUS(onity_when_all(r, hs, 2, 0, &h), want);
    CHECK_STATUS(onity_when_all_results(r, 1, &o, 1), want);
    CHECK_STATUS(onity_runtime_frame_begin(r, &fi), want);
    CHECK_STATUS(onity_runtime_tick(r, ONITY_TIMING_UPDATE), want);
    CHECK_STATUS(onity_runtime_drain(r), want);
    CHECK_STATUS(onity_runtime_stats(r, &st), want);
    CHECK_STATUS(onity_runtime_live_tasks(r, NULL, 0, &u), want);
    CHECK_STATUS(onity_task_create(r, &h), want);
    CHECK_STATUS(onity_task_set_result(r, 1, 1), want);
    CHECK_STATUS(onity_task_set_error(r, 1, 1), want);
    CHECK_STATUS(onity_task_cancel(r, 1), want);
    CHECK_STATUS(onity_task_state(r, 1, &u), want);
    CHECK_STATUS(onity_task_consume(r, 1, &o), want);
    CHECK_STATUS(onity_task_on_complete(r, 1, never_cb, NULL), want);
    CHECK_STATUS(onity_yield(r, ONITY_TIMING_UPDATE, 0, &h), want);
    CHECK_STATUS(onity_next_frame(r, ONITY_TIMING_UPDATE, 0, &h), want);
    CHECK_STATUS(onity_delay_frame(r, 1, ONITY_TIMING_UPDATE, 0, &h), want);
    CHECK_STATUS(onity_delay(r, 1.0, ONITY_CLOCK_SCALED, ONITY_TIMING_UPDATE, 0, &h), want);
    CHECK_STATUS(onity_yield_then(r, ONITY_TIMING_UPDATE, 0, never_cb, NULL), want);
    CHECK_STATUS(onity_next_frame_then(r, ONITY_TIMING_UPDATE, 0, never_cb, NULL), want);
    CHECK_STATUS(onity_delay_frame_then(r, 1, ONITY_TIMING_UPDATE, 0, never_cb, NULL), want);
    CHECK_STATUS(onity_delay_then(r, 1.0, ONITY_CLOCK_SCALED, ONITY_TIMING_UPDATE, 0, never_cb, NULL),
                 want);
    {
        OnityBatch fake, *out_b = (OnityBatch *)(void *)&fake;
        memset(&fake, 0, sizeof fake);
        CHECK_STATUS(onity_batch_create(r, 4, &out_b), want);
        CHECK_STATUS(onity_batch_flush(r, &fake), want);
        CHECK_STATUS(onity_batch_tick(r, &fake, ONITY_TIMING_UPDATE), want);
        CHECK_STATUS(onity_batch_drain(r, &fake), want);
        CHECK_STATUS(onity_batch_destroy(r, &fake), want);
        CHECK(out_b == &fake);
    }
    CHECK_STATUS(onity_runtime_destroy(r), want);
    CHECK_EQ_U64(h, SENTINEL);
    CHECK_EQ_U64(u, 0xABCDu);
}

/* Zeroed storage far larger than any runtime. */
static uint64_t g_zeroed_runtime[1 << 15];

void test_bad_runtime_pointers(void) {
    OnityRuntime *out = (OnityRuntime *)(uintptr_t)0x1234;
    all_calls_with_runtime(NULL, ONITY_STATUS_NULL_POINTER);
    all_calls_with_runtime((OnityRuntime *)(void *)g_zeroed_runtime, ONITY_STATUS_INVALID_RUNTIME);

    CHECK_STATUS(onity_runtime_create(NULL, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_runtime_config_default(NULL), ONITY_STATUS_NULL_POINTER);
    {
        OnityRuntimeConfig cfg;
        OK(onity_runtime_config_init(&cfg, (uint32_t)sizeof cfg));
        CHECK_STATUS(onity_runtime_create(&cfg, NULL), ONITY_STATUS_NULL_POINTER);
        cfg.size = (uint32_t)sizeof cfg - 4;
        CHECK_STATUS(onity_runtime_create(&cfg, &out), ONITY_STATUS_SIZE_MISMATCH);
        cfg.size = (uint32_t)sizeof cfg + 4;
        CHECK_STATUS(onity_runtime_create(&cfg, &out), ONITY_STATUS_SIZE_MISMATCH);
        cfg.size = 0;
        CHECK_STATUS(onity_runtime_create(&cfg, &out), ONITY_STATUS_SIZE_MISMATCH);
        cfg.size = 0xFFFFFFFFu;
        CHECK_STATUS(onity_runtime_create(&cfg, &out), ONITY_STATUS_SIZE_MISMATCH);
        CHECK(out == (OnityRuntime *)(uintptr_t)0x1234); /* untouched on error */
    }
    /* ABI 1.1: onity_runtime_config_default writes only the 1.0 part of the struct (a program
     * built against the 1.0 header has a 56-byte struct); config_init writes what it is told. */
    CHECK_STATUS(onity_runtime_config_init(NULL, (uint32_t)sizeof(OnityRuntimeConfig)), ONITY_STATUS_NULL_POINTER);
    {
        unsigned char buf[sizeof(OnityRuntimeConfig) + 16];
        OnityRuntimeConfig *c = (OnityRuntimeConfig *)(void *)buf;
        size_t i;
        memset(buf, 0xAB, sizeof buf);
        OK(onity_runtime_config_default(c));
        CHECK(c->size == ONITY_RUNTIME_CONFIG_SIZE_1_0);
        for (i = ONITY_RUNTIME_CONFIG_SIZE_1_0; i < sizeof buf; i++) CHECK(buf[i] == 0xAB);
        OK(onity_runtime_create(c, &out)); /* later fields: defaults */
        OK(onity_runtime_destroy(out));
        c->frame_alloc_chunk_bytes = (uint64_t)128 << 20; /* above the 1.1 default largest chunk: 1.0 accepted it */
        OK(onity_runtime_create(c, &out));
        OK(onity_runtime_destroy(out));
        memset(buf, 0xAB, sizeof buf);
        CHECK_STATUS(onity_runtime_config_init(c, ONITY_RUNTIME_CONFIG_SIZE_1_0 + 8), ONITY_STATUS_SIZE_MISMATCH);
        CHECK_STATUS(onity_runtime_config_init(c, 0), ONITY_STATUS_SIZE_MISMATCH);
        CHECK(buf[0] == 0xAB);
        OK(onity_runtime_config_init(c, (uint32_t)sizeof(OnityRuntimeConfig)));
        CHECK(c->size == sizeof(OnityRuntimeConfig));
        CHECK(c->frame_alloc_prefault == 0 && c->reserved == 0 && c->frame_alloc_max_chunk_bytes > 0);
        for (i = sizeof(OnityRuntimeConfig); i < sizeof buf; i++) CHECK(buf[i] == 0xAB);
        c->frame_alloc_prefault = 2;
        CHECK_STATUS(onity_runtime_create(c, &out), ONITY_STATUS_INVALID_ARGUMENT);
        c->frame_alloc_prefault = 1;
        OK(onity_runtime_create(c, &out));
        OK(onity_runtime_destroy(out));
        c->frame_alloc_prefault = 0;
        c->frame_alloc_max_chunk_bytes = 0; /* the default, raised to the chunk size */
        c->frame_alloc_chunk_bytes = (uint64_t)128 << 20;
        OK(onity_runtime_create(c, &out));
        OK(onity_runtime_destroy(out));
        c->frame_alloc_max_chunk_bytes = (uint64_t)64 << 20; /* explicit and below the chunk: rejected */
        CHECK_STATUS(onity_runtime_create(c, &out), ONITY_STATUS_INVALID_ARGUMENT);
    }
    /* A null config means the defaults. */
    OK(onity_runtime_create(NULL, &out));
    CHECK(out != NULL && out != (OnityRuntime *)(uintptr_t)0x1234);
    OK(onity_runtime_destroy(out));
}

/* ---- 3. frames ------------------------------------------------------------- */

void test_frames(void) {
    OnityFrameInfo fi;
    OnityStats st;
    uint64_t before;
    memset(&st, 0, sizeof st);
    st.size = (uint32_t)sizeof st;
    OK(onity_runtime_stats(rt, &st));
    before = st.frame;

    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = g_frame + 1;
    fi.delta_time = 0.25;
    fi.unscaled_delta_time = 0.25;
    fi.realtime = 1.0;

    CHECK_STATUS(onity_runtime_frame_begin(rt, NULL), ONITY_STATUS_NULL_POINTER);
    fi.size = (uint32_t)sizeof fi - 8;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_SIZE_MISMATCH);
    fi.size = 0;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_SIZE_MISMATCH);
    fi.size = (uint32_t)sizeof fi;

    fi.delta_time = -0.25;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_INVALID_ARGUMENT);
    fi.delta_time = NAN;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_INVALID_ARGUMENT);
    fi.delta_time = INFINITY;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_INVALID_ARGUMENT);
    fi.delta_time = 0.25;
    fi.unscaled_delta_time = -1.0;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_INVALID_ARGUMENT);
    fi.unscaled_delta_time = NAN;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_INVALID_ARGUMENT);
    fi.unscaled_delta_time = 0.25;

    /* Nothing advanced. */
    OK(onity_runtime_stats(rt, &st));
    CHECK_EQ_U64(st.frame, before);

    OK(onity_runtime_frame_begin(rt, &fi));
    g_frame = fi.frame;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_FRAME_ORDER);
    fi.frame = g_frame - 1;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_FRAME_ORDER);
    fi.frame = 0;
    CHECK_STATUS(onity_runtime_frame_begin(rt, &fi), ONITY_STATUS_FRAME_ORDER);
    OK(onity_runtime_stats(rt, &st));
    CHECK_EQ_U64(st.frame, g_frame);
    /* Frame numbers may skip. */
    fi.frame = g_frame + 10;
    OK(onity_runtime_frame_begin(rt, &fi));
    g_frame = fi.frame;
    full_frame(rt);

    /* Stats with a wrong size. */
    st.size = (uint32_t)sizeof st - 8;
    CHECK_STATUS(onity_runtime_stats(rt, &st), ONITY_STATUS_SIZE_MISMATCH);
    CHECK_STATUS(onity_runtime_stats(rt, NULL), ONITY_STATUS_NULL_POINTER);
}

/* ---- 4. null out pointers, null callbacks, invalid enums ------------------- */

void test_null_outputs_and_enums(void) {
    uint64_t t = manual(rt), src = source(rt), h = SENTINEL, ins[2];
    uint32_t live = live_count(rt), n = 0;
    OnityOutcome o;
    const uint32_t bad_timings[2] = {16, 0xFFFFFFFFu};
    const uint32_t bad_clocks[2] = {3, 0xFFFFFFFFu};
    const double bad_seconds[4] = {-1.0, -0.0 - 1e-300, NAN, INFINITY};
    int i;

    CHECK_STATUS(onity_task_create(rt, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_cancel_source_create(rt, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_cancel_source_is_canceled(rt, src, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_task_state(rt, t, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_runtime_live_tasks(rt, NULL, 0, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_runtime_live_tasks(rt, NULL, 4, &n), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_yield(rt, ONITY_TIMING_UPDATE, 0, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_next_frame(rt, ONITY_TIMING_UPDATE, 0, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_delay_frame(rt, 1, ONITY_TIMING_UPDATE, 0, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_delay(rt, 1.0, 0, ONITY_TIMING_UPDATE, 0, NULL), ONITY_STATUS_NULL_POINTER);
    ins[0] = t;
    ins[1] = manual(rt);
    CHECK_STATUS(onity_when_any(rt, NULL, 2, 0, &h), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_when_any(rt, ins, 2, 0, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_when_all(rt, NULL, 2, 0, &h), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_when_all(rt, ins, 2, 0, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_when_all_results(rt, t, NULL, 1), ONITY_STATUS_NULL_POINTER);
    /* null callbacks */
    CHECK_STATUS(onity_task_on_complete(rt, t, NULL, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_yield_then(rt, ONITY_TIMING_UPDATE, 0, NULL, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_next_frame_then(rt, ONITY_TIMING_UPDATE, 0, NULL, NULL), ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_delay_frame_then(rt, 1, ONITY_TIMING_UPDATE, 0, NULL, NULL),
                 ONITY_STATUS_NULL_POINTER);
    CHECK_STATUS(onity_delay_then(rt, 1.0, 0, ONITY_TIMING_UPDATE, 0, NULL, NULL),
                 ONITY_STATUS_NULL_POINTER);
    /* the failed on_complete registered nothing: a real one still works */
    OK(onity_task_on_complete(rt, t, count_cb, U(2)));

    /* invalid timings */
    for (i = 0; i < 2; i++) {
        uint32_t bt = bad_timings[i];
        CHECK_STATUS(onity_runtime_tick(rt, bt), ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_yield(rt, bt, 0, &h), ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_next_frame(rt, bt, 0, &h), ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_delay_frame(rt, 1, bt, 0, &h), ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_delay(rt, 1.0, ONITY_CLOCK_SCALED, bt, 0, &h), ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_yield_then(rt, bt, 0, never_cb, NULL), ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_next_frame_then(rt, bt, 0, never_cb, NULL), ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_delay_frame_then(rt, 1, bt, 0, never_cb, NULL), ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_delay_then(rt, 1.0, ONITY_CLOCK_SCALED, bt, 0, never_cb, NULL),
                     ONITY_STATUS_INVALID_ARGUMENT);
    }
    /* invalid clocks and seconds */
    for (i = 0; i < 2; i++) {
        CHECK_STATUS(onity_delay(rt, 1.0, bad_clocks[i], ONITY_TIMING_UPDATE, 0, &h),
                     ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_delay_then(rt, 1.0, bad_clocks[i], ONITY_TIMING_UPDATE, 0, never_cb, NULL),
                     ONITY_STATUS_INVALID_ARGUMENT);
    }
    for (i = 0; i < 4; i++) {
        CHECK_STATUS(onity_delay(rt, bad_seconds[i], ONITY_CLOCK_SCALED, ONITY_TIMING_UPDATE, 0, &h),
                     ONITY_STATUS_INVALID_ARGUMENT);
        CHECK_STATUS(onity_delay_then(rt, bad_seconds[i], ONITY_CLOCK_UNSCALED, ONITY_TIMING_UPDATE,
                                      0, never_cb, NULL),
                     ONITY_STATUS_INVALID_ARGUMENT);
    }
    CHECK_EQ_U64(h, SENTINEL);
    CHECK_EQ_U64(live_count(rt), live + 1); /* only ins[1]; no wait task was created */

    /* clean up: t's continuation (id 2) consumes it */
    OK(onity_task_set_result(rt, t, 1));
    CHECK_EQ_U64(g_calls[2], 1);
    OK(onity_task_cancel(rt, ins[1]));
    OK(onity_task_consume(rt, ins[1], &o));
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    OK(onity_cancel_source_destroy(rt, src));
    /* the failed waits registered nothing: run a few frames, never_cb is silent */
    full_frame(rt);
    full_frame(rt);
    CHECK_EQ_U64(live_count(rt), live - 1);
}
