/*
 * nested_when_all.c: regression test for a fixed library bug.
 *
 * A WhenAll output used as an input of another combinator (WhenAny or
 * WhenAll). When the outer combinator consumes that input, the inner
 * WhenAll's coordinator is never released: onity_runtime_stats shows the
 * when_all_16 pool with live 1 and rents != returns forever, and valgrind
 * reports the coordinator as definitely lost after onity_runtime_destroy.
 *
 * Cause (src/core/runtime.rs): on_any_input / on_all_input retire the input
 * slot with `retire()`, which clears `attached` without calling
 * `release_all_out()` the way `consume()` does.
 *
 * Exits 0 with a final "OK" line.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "onity.h"
#include "check.h"

/* outer_all: 0 = WhenAny outer, 1 = WhenAll outer */
static void nested(OnityRuntime *rt, int outer_all) {
    uint64_t inner_in[2], outer_in[2], inner, outer;
    OnityOutcome o;
    CHECK(onity_task_create(rt, &inner_in[0]) == ONITY_STATUS_OK);
    CHECK(onity_task_create(rt, &inner_in[1]) == ONITY_STATUS_OK);
    CHECK(onity_when_all(rt, inner_in, 2, 0, &inner) == ONITY_STATUS_OK);
    CHECK(onity_task_create(rt, &outer_in[0]) == ONITY_STATUS_OK);
    outer_in[1] = inner;
    CHECK((outer_all ? onity_when_all : onity_when_any)(rt, outer_in, 2, 0, &outer) == ONITY_STATUS_OK);
    CHECK(onity_task_set_result(rt, inner_in[0], 1) == ONITY_STATUS_OK);
    CHECK(onity_task_set_result(rt, inner_in[1], 2) == ONITY_STATUS_OK);
    CHECK(onity_task_set_result(rt, outer_in[0], 3) == ONITY_STATUS_OK);
    CHECK(onity_task_consume(rt, outer, &o) == ONITY_STATUS_OK);
    CHECK(o.state == ONITY_TASK_STATE_SUCCEEDED);
}

int main(void) {
    OnityRuntime *rt = NULL;
    OnityStats s;
    const OnityPoolStats *p;
    CHECK(onity_runtime_create(NULL, &rt) == ONITY_STATUS_OK);
    if (!rt) return 1;
    nested(rt, 0);
    nested(rt, 1);

    memset(&s, 0, sizeof s);
    s.size = (uint32_t)sizeof s;
    CHECK(onity_runtime_stats(rt, &s) == ONITY_STATUS_OK);
    CHECK(s.live_tasks == 0);
    p = &s.pools[ONITY_POOL_WHEN_ALL16];
    printf("when_all_16: rents %llu returns %llu live %llu\n", (unsigned long long)p->rents,
           (unsigned long long)p->returns, (unsigned long long)p->live);
    CHECK(p->rents == 3);
    CHECK(p->returns == p->rents); /* fails: the inner coordinators are never returned */
    CHECK(p->live == 0);
    CHECK(onity_runtime_destroy(rt) == ONITY_STATUS_OK); /* valgrind: 2 blocks definitely lost */

    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
