/*
 * bad_input: every bad input gets the status include/onity.h documents,
 * outputs are left untouched on error, and the runtime keeps working
 * afterwards. Also: calls from the wrong thread, re-entrant calls from
 * continuations, and destroying a runtime with everything in flight (every
 * continuation and callback runs exactly once, canceled; nothing leaks -- run
 * it under valgrind).
 *
 * main.c runs the scenarios in order; harness.c holds the shared state and
 * callbacks; statuses.c, handles.c, threads_batches.c and teardown.c the
 * scenarios (declared in bad_input.h).
 *
 * Exit status 0 and a final "OK" line on success.
 */
#include "bad_input.h"

int g_failures; /* check.h's counter, shared by the program's files */

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
