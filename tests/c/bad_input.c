/*
 * bad_input.c: every bad input gets the status include/onity.h documents,
 * outputs are left untouched on error, and the runtime keeps working
 * afterwards. Also: calls from the wrong thread, re-entrant calls from
 * continuations, and destroying a runtime with everything in flight (every
 * continuation and callback runs exactly once, canceled; nothing leaks -- run
 * it under valgrind).
 *
 * Exit status 0 and a final "OK" line on success.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onity.h"
#include "check.h"

/* A status that must be one of a set (where the header allows several). */
#define CHECK_STATUS_IN(call, set, n)                                                    \
    do {                                                                                 \
        uint32_t got_ = (uint32_t)(call);                                                \
        int i_, hit_ = 0;                                                                \
        for (i_ = 0; i_ < (n); i_++) hit_ |= got_ == (uint32_t)(set)[i_];                \
        if (!hit_) {                                                                     \
            fprintf(stderr, "%s:%d: %s returned %u (%s), not an allowed status\n",        \
                    __FILE__, __LINE__, #call, (unsigned)got_, onity_status_text(got_)); \
            g_failures++;                                                                \
        }                                                                                \
    } while (0)

#define U(id) ((void *)(uintptr_t)(id))
#define SENTINEL 0x5E5E5E5E5E5E5E5EULL

static const uint32_t BAD_HANDLE_STATUSES[3] = {
    ONITY_STATUS_INVALID_HANDLE, ONITY_STATUS_STALE_HANDLE, ONITY_STATUS_FOREIGN_HANDLE};

/* ---- shared state -------------------------------------------------------- */

static OnityRuntime *rt;  /* the main runtime, owned by the main thread */
static OnityRuntime *rt2; /* a second runtime, for foreign handles */
static uint64_t g_frame;

static void frame(OnityRuntime *r) {
    OnityFrameInfo fi;
    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = ++g_frame;
    fi.delta_time = 0.25;
    fi.unscaled_delta_time = 0.25;
    fi.realtime = (double)g_frame * 0.25;
    OK(onity_runtime_frame_begin(r, &fi));
}

static void full_frame(OnityRuntime *r) {
    uint32_t t;
    frame(r);
    for (t = 0; t < ONITY_TIMING_COUNT; t++) OK(onity_runtime_tick(r, t));
}

static uint64_t manual(OnityRuntime *r) {
    uint64_t h = 0;
    OK(onity_task_create(r, &h));
    CHECK(h != 0);
    return h;
}

static uint64_t source(OnityRuntime *r) {
    uint64_t s = 0;
    OK(onity_cancel_source_create(r, &s));
    CHECK(s != 0);
    return s;
}

static uint32_t state_of(OnityRuntime *r, uint64_t t) {
    uint32_t s = 0xFFFFFFFFu;
    OK(onity_task_state(r, t, &s));
    return s;
}

static uint32_t live_count(OnityRuntime *r) {
    uint32_t n = 0xFFFFFFFFu;
    OK(onity_runtime_live_tasks(r, NULL, 0, &n));
    return n;
}

/* Counts calls per id and remembers the last state; consumes tasks unless
 * the id is odd (those are left for the host or for destroy to release). */
#define MAX_ID 512
static int g_calls[MAX_ID];
static uint32_t g_state[MAX_ID];
static uint64_t g_task[MAX_ID];
static OnityRuntime *g_cb_rt; /* runtime the counting callback talks to */

static void count_cb(void *user, uint64_t task, uint32_t state) {
    int id = (int)(uintptr_t)user;
    CHECK(id >= 0 && id < MAX_ID);
    if (id < 0 || id >= MAX_ID) return;
    g_calls[id]++;
    g_state[id] = state;
    g_task[id] = task;
    if (task != 0 && id % 2 == 0) OK(onity_task_consume(g_cb_rt, task, NULL));
}

static void never_cb(void *user, uint64_t task, uint32_t state) {
    (void)user;
    (void)task;
    (void)state;
    fprintf(stderr, "a callback registered by a failed call was invoked\n");
    g_failures++;
}

/* ---- 1. status texts ------------------------------------------------------ */

static void test_status_texts(void) {
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

static void test_bad_runtime_pointers(void) {
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

static void test_frames(void) {
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

static void test_null_outputs_and_enums(void) {
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

/* ---- 5. handles ------------------------------------------------------------ */

static uint64_t xorshift64(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

static void test_handles(void) {
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

static void test_combinator_inputs(void) {
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

static void test_wrong_thread(void) {
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

static void test_batches(void) {
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

static void test_reentrancy(void) {
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

static void test_destroy_in_flight(void) {
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

/* ---- main -------------------------------------------------------------------- */

int main(void) {
    OnityRuntimeConfig cfg;
    OnityStats st;

    test_status_texts();
    test_bad_runtime_pointers();

    OK(onity_runtime_config_default(&cfg));
    OK(onity_runtime_create(&cfg, &rt));
    OK(onity_runtime_create(NULL, &rt2));
    if (!rt || !rt2) return 1;
    g_cb_rt = rt;
    full_frame(rt);

    test_frames();
    test_handles();
    test_null_outputs_and_enums();
    test_combinator_inputs();
    test_wrong_thread();
    test_batches();
    test_reentrancy();
    test_destroy_in_flight();

    /* The main runtime is still healthy. */
    full_frame(rt);
    memset(&st, 0, sizeof st);
    st.size = (uint32_t)sizeof st;
    OK(onity_runtime_stats(rt, &st));
    CHECK_EQ_U64(st.live_tasks, 0);
    CHECK_EQ_U64(st.completed_unconsumed, 0);
    CHECK_EQ_U64(st.cross_thread_queued, 0);
    CHECK_EQ_U64(st.pools[ONITY_POOL_TASKS].rents, st.pools[ONITY_POOL_TASKS].returns);

    OK(onity_runtime_destroy(rt2));
    OK(onity_runtime_destroy(rt));

    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
