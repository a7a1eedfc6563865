/*
 * Issue 17 #7: a runtime pointer that is not a live runtime must get
 * ONITY_STATUS_INVALID_RUNTIME without a read through it.
 *   freed     a destroyed runtime (run under valgrind: no invalid read)
 *   unmapped  an address with no memory behind it
 *   copy      a byte copy of a live runtime's first 64 bytes, while two
 *             runtimes live
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "onity.h"
#include "../c/check.h"

static void expect_invalid(OnityRuntime *rt) {
    uint64_t t = 0;
    uint32_t st = 0;
    void *p = (void *)0x10;
    CHECK_STATUS(onity_task_create(rt, &t), ONITY_STATUS_INVALID_RUNTIME);
    CHECK_STATUS(onity_task_state(rt, 1, &st), ONITY_STATUS_INVALID_RUNTIME);
    CHECK_STATUS(onity_runtime_tick(rt, ONITY_TIMING_UPDATE), ONITY_STATUS_INVALID_RUNTIME);
    CHECK_STATUS(onity_frame_alloc(rt, 16, 8, ONITY_LIFETIME_FRAME, &p), ONITY_STATUS_INVALID_RUNTIME);
    CHECK_STATUS(onity_runtime_destroy(rt), ONITY_STATUS_INVALID_RUNTIME);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "freed";
    if (strcmp(mode, "freed") == 0) {
        OnityRuntime *rt = NULL;
        CHECK_STATUS(onity_runtime_create(NULL, &rt), ONITY_STATUS_OK);
        CHECK_STATUS(onity_runtime_destroy(rt), ONITY_STATUS_OK);
        expect_invalid(rt);
    } else if (strcmp(mode, "unmapped") == 0) {
        void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED) return 2;
        munmap(page, 4096);
        expect_invalid((OnityRuntime *)page);
        expect_invalid((OnityRuntime *)(uintptr_t)0x8000);
    } else if (strcmp(mode, "copy") == 0) {
        OnityRuntime *a = NULL, *b = NULL;
        void *copy = NULL;
        if (posix_memalign(&copy, 4096, 4096) != 0) return 2;
        memset(copy, 0, 4096);
        CHECK_STATUS(onity_runtime_create(NULL, &a), ONITY_STATUS_OK);
        CHECK_STATUS(onity_runtime_create(NULL, &b), ONITY_STATUS_OK);
        memcpy(copy, a, 64);
        expect_invalid((OnityRuntime *)copy);
        CHECK_STATUS(onity_runtime_destroy(b), ONITY_STATUS_OK);
        CHECK_STATUS(onity_runtime_destroy(a), ONITY_STATUS_OK);
        free(copy);
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    if (g_failures) return 1;
    printf("OK\n");
    return 0;
}
