/*
 * Issue 17 #5: a runtime created, used (a frame allocation, the rewind of a
 * tick and an explicit one) and destroyed on a thread, then the thread
 * exits: nothing may be left behind, not even "possibly lost" bytes
 * (valgrind's default leak kinds, as a host checking with
 * --error-exitcode sees them). `thread` (default): on a pthread; `main`:
 * on the main thread; `worker`: the main thread owns the runtime, a
 * pthread allocates from it and exits.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "onity.h"
#include "../c/check.h"

static void allocate(OnityRuntime *rt) {
    void *p = NULL;
    OK(onity_frame_alloc(rt, 64, 8, ONITY_LIFETIME_FRAME, &p));
    if (p) memset(p, 1, 64);
}

static void *owner(void *arg) {
    OnityRuntime *rt = NULL;
    (void)arg;
    OK(onity_runtime_create(NULL, &rt));
    allocate(rt);
    OnityFrameInfo f = {sizeof f, 0, 1, 0.016, 0.016, 0.016};
    OK(onity_runtime_frame_begin(rt, &f));
    OK(onity_runtime_tick(rt, ONITY_TIMING_INITIALIZATION)); /* the frame's rewind */
    allocate(rt);
    OK(onity_frame_alloc_rewind(rt));
    OK(onity_runtime_destroy(rt));
    return NULL;
}

static void *allocating_worker(void *arg) {
    allocate((OnityRuntime *)arg);
    return NULL;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "thread";
    if (strcmp(mode, "main") == 0) {
        owner(NULL);
    } else if (strcmp(mode, "worker") == 0) {
        OnityRuntime *rt = NULL;
        pthread_t t;
        OK(onity_runtime_create(NULL, &rt));
        pthread_create(&t, NULL, allocating_worker, rt);
        pthread_join(t, NULL);
        OK(onity_frame_alloc_rewind(rt));
        OK(onity_runtime_destroy(rt));
    } else {
        pthread_t t;
        pthread_create(&t, NULL, owner, NULL);
        pthread_join(t, NULL);
    }
    if (g_failures) return 1;
    printf("OK\n");
    return 0;
}
