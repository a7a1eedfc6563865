/*
 * game_loop: a whole game loop driven through the C ABI of onity. main.c
 * runs the scenarios in order and checks the final statistics; harness.c
 * holds the loop and the continuation records, waits.c, tasks.c and batch.c
 * the scenarios (declared in game_loop.h).
 *
 * Every frame calls onity_runtime_frame_begin and then ticks the 16 timings
 * in order (a few frames run FixedUpdate twice or not at all). On the way it
 * uses every feature of the runtime and checks the frame-by-frame rules that
 * include/onity.h documents:
 *   - Yield / NextFrame / DelayFrame / Delay (scaled, unscaled, realtime), in
 *     task form (consumed afterwards) and `_then` callback form;
 *   - manual tasks (set_result / set_error / cancel) and continuations;
 *   - cancellation sources as tokens of waits and combinators;
 *   - WhenAny (winner index and value) and WhenAll (onity_when_all_results);
 *   - batches: records of every kind filed through shared memory, rejected
 *     records, resumptions reported per timing, batch destruction;
 *   - statistics, live task listing, names and status texts, ABI version;
 *   - the order in which the continuations of one timing run.
 *
 * Every continuation is the same function `cb`; it records the id it was
 * registered with, the frame, the timing being ticked and its run number.
 *
 * Exit status 0 and a final "OK" line on success.
 */
#include "game_loop.h"

int g_failures; /* check.h's counter, shared by the program's files */

static void check_final_stats(void) {
    OnityStats s = stats();
    uint32_t p, k;
    CHECK_EQ_U64(s.size, sizeof s);
    CHECK_EQ_U64(s.pool_count, ONITY_POOL_COUNT);
    CHECK_EQ_U64(s.frame, L.frame);
    CHECK_EQ_U64(s.live_tasks, 0);
    CHECK_EQ_U64(s.completed_unconsumed, 0);
    CHECK_EQ_U64(s.cross_thread_queued, 0);
    CHECK_EQ_U64(live_count(), 0);
    for (p = 0; p < ONITY_POOL_COUNT; p++) {
        const OnityPoolStats *ps = &s.pools[p];
        /* Task and cancel slots count never-used slots as idle, and wait
         * records count storage, so "idle <= capacity" is for the
         * coordinator pools only. */
        int object_pool = p >= ONITY_POOL_WHEN_ANY16;
        if (ps->rents != ps->returns || ps->live != 0 || ps->high_water > ps->rents ||
            (object_pool && (ps->idle > ps->capacity || ps->cold_allocations > ps->rents ||
                             ps->discards > ps->returns))) {
            fprintf(stderr,
                    "pool %s: capacity %llu idle %llu live %llu high_water %llu rents %llu "
                    "returns %llu cold %llu discards %llu\n",
                    onity_pool_name(p), (unsigned long long)ps->capacity,
                    (unsigned long long)ps->idle, (unsigned long long)ps->live,
                    (unsigned long long)ps->high_water, (unsigned long long)ps->rents,
                    (unsigned long long)ps->returns, (unsigned long long)ps->cold_allocations,
                    (unsigned long long)ps->discards);
            g_failures++;
        }
    }
    /* every pool this test used saw traffic */
    CHECK(s.pools[ONITY_POOL_TASKS].rents > 100);
    CHECK(s.pools[ONITY_POOL_CANCEL_SOURCES].rents >= 6);
    CHECK(s.pools[ONITY_POOL_WAIT_RECORDS].rents > 50);
    CHECK(s.pools[ONITY_POOL_WHEN_ANY16].rents >= 7);
    CHECK(s.pools[ONITY_POOL_WHEN_ANY32].rents >= 1);
    CHECK(s.pools[ONITY_POOL_WHEN_ANY_LARGE].rents >= 1);
    CHECK(s.pools[ONITY_POOL_WHEN_ALL16].rents >= 4);
    CHECK(s.pools[ONITY_POOL_WHEN_ALL_LARGE].rents >= 1);
    CHECK_EQ_U64(s.pools[ONITY_POOL_WHEN_ANY_LARGE].idle, 0); /* never pooled */
    CHECK_EQ_U64(s.pools[ONITY_POOL_WHEN_ALL_LARGE].idle, 0);
    for (k = 0; k < ONITY_WAIT_KIND_COUNT; k++) {
        const OnityWaitStats *w = &s.waits[k];
        if (w->pending != 0 || w->scheduled != w->completed + w->canceled || w->scheduled == 0 ||
            w->high_water == 0 || w->high_water > w->scheduled) {
            fprintf(stderr, "wait kind %u: pending %llu high_water %llu scheduled %llu "
                            "completed %llu canceled %llu\n",
                    (unsigned)k, (unsigned long long)w->pending, (unsigned long long)w->high_water,
                    (unsigned long long)w->scheduled, (unsigned long long)w->completed,
                    (unsigned long long)w->canceled);
            g_failures++;
        }
    }
    CHECK(s.waits[ONITY_WAIT_KIND_YIELD].canceled >= 1);
    CHECK(s.waits[ONITY_WAIT_KIND_DELAY_FRAME].canceled >= 2);
    CHECK(s.waits[ONITY_WAIT_KIND_DELAY].canceled >= 1);
    CHECK(s.waits[ONITY_WAIT_KIND_NEXT_FRAME].canceled >= 1);
}

int main(void) {
    OnityRuntimeConfig cfg;
    int i;

    test_names_and_version();

    memset(&cfg, 0xEE, sizeof cfg);
    OK(onity_runtime_config_init(&cfg, (uint32_t)sizeof cfg));
    CHECK_EQ_U64(cfg.size, sizeof cfg);
    CHECK_EQ_U64(cfg.frame_alloc_prefault, 0);
    CHECK_EQ_U64(cfg.reserved, 0);
    CHECK_EQ_U64(cfg.task_capacity, 4096);
    CHECK_EQ_U64(cfg.cancel_capacity, 256);
    CHECK_EQ_U64(cfg.wait_capacity, 8192);
    CHECK_EQ_U64(cfg.combinator16_capacity, 256);
    CHECK_EQ_U64(cfg.combinator32_capacity, 128);
    cfg.task_capacity = 64; /* small: the test grows past it */
    cfg.cancel_capacity = 4;
    cfg.wait_capacity = 16;
    cfg.combinator16_capacity = 2;
    cfg.combinator32_capacity = 1;
    OK(onity_runtime_create(&cfg, &L.rt));
    CHECK(L.rt != NULL);
    if (L.rt == NULL) return 1;
    L.frame = 100; /* frame numbers need not start at 1 */

    test_waits();
    test_pause();
    test_fixed_update();
    test_wait_cancellation();
    test_manual_tasks();
    test_live_tasks();
    test_when_any();
    test_when_all();
    test_batch();
    /* Let every outstanding wait (the WhenAny losers of test_when_any) finish. */
    for (i = 0; i < 45; i++) std_frame();

    check_final_stats();
    {
        OnityStats s = stats();
        printf("frames %llu, tasks rented %llu (cold %llu), waits scheduled %llu/%llu/%llu/%llu\n",
               (unsigned long long)s.frame, (unsigned long long)s.pools[ONITY_POOL_TASKS].rents,
               (unsigned long long)s.pools[ONITY_POOL_TASKS].cold_allocations,
               (unsigned long long)s.waits[0].scheduled, (unsigned long long)s.waits[1].scheduled,
               (unsigned long long)s.waits[2].scheduled, (unsigned long long)s.waits[3].scheduled);
    }
    OK(onity_runtime_destroy(L.rt));
    L.rt = NULL;

    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
