/*
 * destroy_in_destroy.c: regression test for a fixed library bug.
 *
 * onity_runtime_destroy cancels everything in flight and runs the
 * continuations. A continuation that itself calls onity_runtime_destroy on
 * the same runtime gets ONITY_STATUS_OK (Runtime::close() returns Ok(())
 * when `closing` is already set), and the inner call then frees the runtime
 * while the outer destroy is still iterating its task slots: use after free,
 * usually a segfault when the outer destroy continues (valgrind: "Invalid
 * read" in Runtime::close called from onity_runtime_destroy).
 *
 * include/onity.h: ONITY_STATUS_REENTRANT is "not allowed while the runtime
 * is ticking ... or is being destroyed", and destroy promises "on error
 * nothing is destroyed". Expected: the inner call returns REENTRANT, the
 * outer one returns OK after running both continuations once.
 *
 * Also checks destroying from a continuation that runs inline in
 * onity_task_set_result, outside a tick: refused with REENTRANT too (any
 * host code on the stack blocks destroy), and the runtime stays usable.
 *
 * Exits 0 with a final "OK" line.
 */
#include <stdint.h>
#include <stdio.h>

#include "onity.h"
#include "check.h"

static OnityRuntime *g_rt;
static int g_calls;
static uint32_t g_inner = 0xFFFFFFFFu;

static void destroying_cb(void *user, uint64_t task, uint32_t state) {
    (void)user;
    (void)task;
    (void)state;
    if (g_calls++ == 0) g_inner = onity_runtime_destroy(g_rt);
}

int main(void) {
    uint64_t a, b;
    uint32_t outer;

    /* Refused: destroy from any continuation, here one run inline by
     * set_result; the runtime stays usable and is destroyed later. */
    CHECK(onity_runtime_create(NULL, &g_rt) == ONITY_STATUS_OK);
    CHECK(onity_task_create(g_rt, &a) == ONITY_STATUS_OK);
    CHECK(onity_task_create(g_rt, &b) == ONITY_STATUS_OK);
    CHECK(onity_task_on_complete(g_rt, a, destroying_cb, NULL) == ONITY_STATUS_OK);
    CHECK(onity_task_on_complete(g_rt, b, destroying_cb, NULL) == ONITY_STATUS_OK);
    CHECK(onity_task_set_result(g_rt, a, 1) == ONITY_STATUS_OK);
    CHECK(g_inner == ONITY_STATUS_REENTRANT);
    CHECK(g_calls == 1);
    CHECK(onity_task_consume(g_rt, a, NULL) == ONITY_STATUS_OK);
    CHECK(onity_runtime_destroy(g_rt) == ONITY_STATUS_OK);
    CHECK(g_calls == 2); /* b was canceled by that destroy */

    /* The bug: destroy from a continuation run by destroy. */
    g_calls = 0;
    g_inner = 0xFFFFFFFFu;
    CHECK(onity_runtime_create(NULL, &g_rt) == ONITY_STATUS_OK);
    CHECK(onity_task_create(g_rt, &a) == ONITY_STATUS_OK);
    CHECK(onity_task_create(g_rt, &b) == ONITY_STATUS_OK);
    CHECK(onity_task_on_complete(g_rt, a, destroying_cb, NULL) == ONITY_STATUS_OK);
    CHECK(onity_task_on_complete(g_rt, b, destroying_cb, NULL) == ONITY_STATUS_OK);
    fflush(stdout);
    outer = onity_runtime_destroy(g_rt); /* used to free the runtime under the outer call */
    printf("outer destroy %u (%s), inner destroy %u (%s), continuations %d\n", (unsigned)outer,
           onity_status_text(outer), (unsigned)g_inner, onity_status_text(g_inner), g_calls);
    CHECK(g_inner == ONITY_STATUS_REENTRANT);
    CHECK(outer == ONITY_STATUS_OK);
    CHECK(g_calls == 2);

    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
