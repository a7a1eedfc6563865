/*
 * The C side of scripts/opcount.sh: runs a scenario through libonity.so as a
 * host calls a DLL (dlopen, every export called through a function pointer
 * from dlsym), so callgrind counts what a C/C++ engine pays, including the
 * cdylib's thread-local storage model.
 *
 *     opcount_host LIBONITY_SO SCENARIO ITERATIONS
 *
 * Scenarios as examples/opcount.rs: completed, from_result,
 * next_frame_callback, yield_callback, next_frame_task, frame_alloc.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onity.h"

#define UPDATE ((uint32_t)ONITY_TIMING_UPDATE)
#define TASKS 4096
#define ALLOCS 150

#define API(X)                                                                                                 \
    X(onity_runtime_config_init)                                                                               \
    X(onity_runtime_create)                                                                                    \
    X(onity_runtime_destroy)                                                                                   \
    X(onity_runtime_frame_begin)                                                                               \
    X(onity_runtime_tick)                                                                                      \
    X(onity_task_create)                                                                                       \
    X(onity_task_from_result)                                                                                  \
    X(onity_task_set_result)                                                                                   \
    X(onity_task_consume)                                                                                      \
    X(onity_task_on_complete)                                                                                  \
    X(onity_next_frame)                                                                                        \
    X(onity_next_frame_then)                                                                                   \
    X(onity_yield_then)                                                                                        \
    X(onity_frame_alloc)                                                                                       \
    X(onity_frame_alloc_rewind)

#define FIELD(f) __typeof__(&f) f;
static struct {
    API(FIELD)
} api;

static OnityRuntime *rt;

static void next_frame_then_cb(void *user, uint64_t task, uint32_t state) {
    (void)task;
    (void)state;
    api.onity_next_frame_then(rt, UPDATE, 0, next_frame_then_cb, user);
}

static void yield_then_cb(void *user, uint64_t task, uint32_t state) {
    (void)task;
    (void)state;
    api.onity_yield_then(rt, UPDATE, 0, yield_then_cb, user);
}

static void next_frame_task_cb(void *user, uint64_t task, uint32_t state) {
    OnityOutcome o;
    uint64_t h = 0;
    (void)state;
    api.onity_task_consume(rt, task, &o);
    api.onity_next_frame(rt, UPDATE, 0, &h);
    api.onity_task_on_complete(rt, h, next_frame_task_cb, user);
}

static OnityFrameInfo frame_info(uint64_t n) {
    OnityFrameInfo f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.frame = n;
    f.delta_time = 0.016;
    f.unscaled_delta_time = 0.016;
    f.realtime = (double)n;
    return f;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s LIBONITY_SO SCENARIO ITERATIONS\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
#define LOAD(f)                                                                                                \
    *(void **)&api.f = dlsym(lib, #f);                                                                         \
    if (!api.f) {                                                                                              \
        fprintf(stderr, "dlsym %s\n", #f);                                                                     \
        return 1;                                                                                              \
    }
    API(LOAD)
    const char *scenario = argv[2];
    uint64_t n = strtoull(argv[3], NULL, 10);
    volatile uint64_t sink = 0;
    OnityRuntimeConfig cfg;
    api.onity_runtime_config_init(&cfg, sizeof cfg);
    cfg.task_capacity = 65536;
    if (!strcmp(scenario, "frame_alloc"))
        cfg.frame_alloc_rewind_timing = ONITY_FRAME_ALLOC_REWIND_MANUAL;
    if (api.onity_runtime_create(&cfg, &rt) != ONITY_STATUS_OK)
        return 1;
    if (!strcmp(scenario, "completed")) {
        for (uint64_t i = 0; i < n; i++) {
            uint64_t h = 0;
            OnityOutcome o;
            api.onity_task_create(rt, &h);
            api.onity_task_set_result(rt, h, i);
            api.onity_task_consume(rt, h, &o);
            sink += o.value;
        }
    } else if (!strcmp(scenario, "from_result")) {
        for (uint64_t i = 0; i < n; i++) {
            uint64_t h = 0;
            OnityOutcome o;
            api.onity_task_from_result(rt, i, &h);
            api.onity_task_consume(rt, h, &o);
            sink += o.value;
        }
    } else if (!strcmp(scenario, "next_frame_callback") || !strcmp(scenario, "yield_callback") ||
               !strcmp(scenario, "next_frame_task")) {
        for (int i = 0; i < TASKS; i++) {
            if (!strcmp(scenario, "next_frame_task")) {
                uint64_t h = 0;
                api.onity_next_frame(rt, UPDATE, 0, &h);
                api.onity_task_on_complete(rt, h, next_frame_task_cb, NULL);
            } else if (!strcmp(scenario, "yield_callback")) {
                api.onity_yield_then(rt, UPDATE, 0, yield_then_cb, NULL);
            } else {
                api.onity_next_frame_then(rt, UPDATE, 0, next_frame_then_cb, NULL);
            }
        }
        for (uint64_t f = 1; f <= n; f++) {
            OnityFrameInfo fi = frame_info(f);
            api.onity_runtime_frame_begin(rt, &fi);
            api.onity_runtime_tick(rt, UPDATE);
        }
    } else if (!strcmp(scenario, "frame_alloc")) {
        for (uint64_t f = 0; f < n; f++) {
            for (int i = 0; i < ALLOCS; i++) {
                void *p = NULL;
                api.onity_frame_alloc(rt, 1024, 16, ONITY_LIFETIME_FRAME, &p);
                *(volatile unsigned char *)p = 1;
            }
            api.onity_frame_alloc_rewind(rt);
        }
    } else {
        fprintf(stderr, "unknown scenario %s\n", scenario);
        return 2;
    }
    (void)sink;
    return api.onity_runtime_destroy(rt) == ONITY_STATUS_OK ? 0 : 1;
}
