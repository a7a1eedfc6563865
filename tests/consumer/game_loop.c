/* A C game loop built against the installed Onity package (tests/consumer, scripts/test-consumer.sh):
 * a fixed-timestep loop (FixedUpdate 0-3 times a frame), a callback that re-arms itself every Update,
 * a DelayFrame task consumed in its continuation and a manual task completed from the host.
 * Prints one line of counts and "OK"; the shared and the static build must print the same line. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "onity.h"

#define CHECK(call)                                                                      \
    do {                                                                                 \
        OnityStatus s_ = (call);                                                         \
        if (s_ != ONITY_STATUS_OK) {                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, onity_status_text(s_)); \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

static OnityRuntime *rt;
static uint64_t frame;
static int updates, fixed_runs, delayed_at, manual_value, canceled, failures;

/* A pending wait finishes canceled when the runtime is destroyed. */
static int done(uint32_t state) {
    if (state == ONITY_TASK_STATE_CANCELED) canceled++;
    else if (state != ONITY_TASK_STATE_SUCCEEDED) failures++;
    return state == ONITY_TASK_STATE_SUCCEEDED;
}

static void on_update(void *user, uint64_t task, uint32_t state) {
    (void)task;
    if (!done(state)) return;
    updates++;
    if (onity_next_frame_then(rt, ONITY_TIMING_UPDATE, 0, on_update, user) != ONITY_STATUS_OK) failures++;
}

static void on_fixed(void *user, uint64_t task, uint32_t state) {
    (void)task;
    if (!done(state)) return;
    fixed_runs++;
    if (onity_yield_then(rt, ONITY_TIMING_FIXED_UPDATE, 0, on_fixed, user) != ONITY_STATUS_OK) failures++;
}

static void on_task(void *user, uint64_t task, uint32_t state) {
    OnityOutcome o;
    if (state != ONITY_TASK_STATE_SUCCEEDED || onity_task_consume(rt, task, &o) != ONITY_STATUS_OK) {
        failures++;
        return;
    }
    if (user) manual_value = (int)o.value;
    else delayed_at = (int)frame;
}

int main(void) {
    if (onity_abi_version() != ONITY_ABI_VERSION) {
        fprintf(stderr, "ABI %u, header %u\n", onity_abi_version(), (unsigned)ONITY_ABI_VERSION);
        return 1;
    }
    CHECK(onity_runtime_create(NULL, &rt));
    uint64_t delayed, manual;
    CHECK(onity_delay_frame(rt, 10, ONITY_TIMING_UPDATE, 0, &delayed));
    CHECK(onity_task_on_complete(rt, delayed, on_task, NULL));
    CHECK(onity_task_create(rt, &manual));
    CHECK(onity_task_on_complete(rt, manual, on_task, &manual));
    CHECK(onity_next_frame_then(rt, ONITY_TIMING_UPDATE, 0, on_update, NULL));
    CHECK(onity_yield_then(rt, ONITY_TIMING_FIXED_UPDATE, 0, on_fixed, NULL));

    const double fixed_dt = 0.02, dts[4] = {0.016, 0.033, 0.05, 0.008};
    double acc = 0, now = 0;
    int fixed_ticks = 0;
    for (frame = 1; frame <= 40; frame++) {
        double dt = dts[frame % 4];
        now += dt;
        OnityFrameInfo f;
        memset(&f, 0, sizeof f);
        f.size = (uint32_t)sizeof f;
        f.frame = frame;
        f.delta_time = f.unscaled_delta_time = dt;
        f.realtime = now;
        CHECK(onity_runtime_frame_begin(rt, &f));
        for (acc += dt; acc >= fixed_dt; acc -= fixed_dt) { /* FixedUpdate 0-3 times */
            CHECK(onity_runtime_tick(rt, ONITY_TIMING_FIXED_UPDATE));
            fixed_ticks++;
        }
        CHECK(onity_runtime_tick(rt, ONITY_TIMING_UPDATE));
        if (frame == 20) CHECK(onity_task_set_result(rt, manual, 42));
    }
    CHECK(onity_runtime_destroy(rt));
    /* Waits made before frame 1 complete in frame 1's tick; the two re-armed ones end canceled. */
    int ok = failures == 0 && updates == 40 && delayed_at == 10 && manual_value == 42 &&
             fixed_runs == fixed_ticks && fixed_ticks > 40 && canceled == 2;
    printf("updates %d fixed %d/%d delay_frame(10) at frame %d manual %d canceled %d %s\n", updates,
           fixed_runs, fixed_ticks, delayed_at, manual_value, canceled, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
