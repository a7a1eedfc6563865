/*
 * queued_inputs.c: regression test for a fixed library bug.
 *
 * include/onity.h, onity_when_any: "If inputs have already completed, the
 * first of them in array order wins at once." And onity_task_state: "A task
 * completed on another thread reads as completed at once".
 *
 * Input 0 is completed on a worker thread (it reads SUCCEEDED), input 1 on
 * the owner; then the owner makes a WhenAny over [0, 1]. Input 1 used to win
 * (index 1): Runtime::settle_inputs skips inputs whose completion is still
 * queued for the owner (F_QUEUED) and leaves them to the next drain, so the
 * array-order rule is broken.
 *
 * WhenAll likewise: "otherwise it takes the state and error of the first
 * input (in completion order) that faulted or was canceled". Input 0 faults
 * on a worker, then input 1 is canceled on the owner, then the WhenAll is
 * made: it used to report input 1 (CANCELED) instead of input 0 (FAULTED).
 *
 * Exits 0 with a final "OK" line.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "onity.h"
#include "check.h"

static OnityRuntime *g_rt;
static uint64_t g_in[2];

static void *worker(void *p) {
    (void)p;
    CHECK(onity_task_set_result(g_rt, g_in[0], 100) == ONITY_STATUS_OK);
    return NULL;
}

static void *fault_worker(void *p) {
    (void)p;
    CHECK(onity_task_set_error(g_rt, g_in[0], 7) == ONITY_STATUS_OK);
    return NULL;
}

int main(void) {
    pthread_t th;
    uint64_t any;
    uint32_t st = 99;
    OnityOutcome o;

    CHECK(onity_runtime_create(NULL, &g_rt) == ONITY_STATUS_OK);
    if (!g_rt) return 1;
    CHECK(onity_task_create(g_rt, &g_in[0]) == ONITY_STATUS_OK);
    CHECK(onity_task_create(g_rt, &g_in[1]) == ONITY_STATUS_OK);
    CHECK(pthread_create(&th, NULL, worker, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(onity_task_state(g_rt, g_in[0], &st) == ONITY_STATUS_OK);
    CHECK(st == ONITY_TASK_STATE_SUCCEEDED);
    CHECK(onity_task_set_result(g_rt, g_in[1], 200) == ONITY_STATUS_OK);

    CHECK(onity_when_any(g_rt, g_in, 2, 0, &any) == ONITY_STATUS_OK);
    CHECK(onity_task_state(g_rt, any, &st) == ONITY_STATUS_OK);
    CHECK(st == ONITY_TASK_STATE_SUCCEEDED); /* "at once" */
    CHECK(onity_runtime_drain(g_rt) == ONITY_STATUS_OK);
    CHECK(onity_task_consume(g_rt, any, &o) == ONITY_STATUS_OK);
    printf("when_any: winner index %u, value %llu\n", (unsigned)o.index, (unsigned long long)o.value);
    CHECK(o.index == 0);
    CHECK(o.value == 100);

    /* WhenAll: the first failure in completion order. */
    CHECK(onity_task_create(g_rt, &g_in[0]) == ONITY_STATUS_OK);
    CHECK(onity_task_create(g_rt, &g_in[1]) == ONITY_STATUS_OK);
    CHECK(pthread_create(&th, NULL, fault_worker, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(onity_task_cancel(g_rt, g_in[1]) == ONITY_STATUS_OK);
    CHECK(onity_when_all(g_rt, g_in, 2, 0, &any) == ONITY_STATUS_OK);
    CHECK(onity_runtime_drain(g_rt) == ONITY_STATUS_OK);
    CHECK(onity_task_consume(g_rt, any, &o) == ONITY_STATUS_OK);
    printf("when_all: state %u, index %u, error %d\n", (unsigned)o.state, (unsigned)o.index, (int)o.error);
    CHECK(o.state == ONITY_TASK_STATE_FAULTED);
    CHECK(o.index == 0);                       
    CHECK(o.error == 7);

    CHECK(onity_runtime_destroy(g_rt) == ONITY_STATUS_OK);
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
