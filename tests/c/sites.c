/*
 * sites.c: creation sites through ONITY_SITE (issue 20 #1). Every `_at`
 * call made here records this file's __FILE__ and the line of the call;
 * the checks compare with __FILE__ and __LINE__ taken at the same line.
 * c_programs.rs builds this file as C99 and as C++14 (a C++ caller), and
 * runs both natively and under valgrind.
 *
 * Exit status 0 and a final "OK" line on success.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void frame(OnityRuntime *rt, uint64_t n) {
    OnityFrameInfo fi;
    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = n;
    fi.delta_time = 0.016;
    fi.unscaled_delta_time = 0.016;
    fi.realtime = (double)n;
    OK(onity_runtime_frame_begin(rt, &fi));
}

/* The task's recorded site is (`file`, `line`), made in `made`. */
static void check_site(OnityRuntime *rt, uint64_t task, const char *file, uint32_t line, uint64_t made) {
    const char *f = NULL;
    uint32_t l = 0;
    uint64_t fr = 0;
    OK(onity_task_site(rt, task, &f, &l, &fr));
    CHECK(f != NULL && strcmp(f, file) == 0);
    CHECK_EQ_U64(l, line);
    CHECK_EQ_U64(fr, made);
}

static int g_calls;
static void on_wait(void *user, uint64_t task, uint32_t state) {
    (void)user;
    CHECK_EQ_U64(task, 0);
    CHECK_EQ_U64(state, ONITY_TASK_STATE_SUCCEEDED);
    g_calls++;
}

/* Made in a helper: the site is the helper's line, as for any wrapper that does not
 * forward its caller's site. */
static uint64_t spawn_enemy(OnityRuntime *rt, uint32_t *line) {
    uint64_t t = 0;
    OK(onity_delay_frame_at(rt, 600, ONITY_TIMING_UPDATE, 0, &t, ONITY_SITE)); *line = __LINE__;
    return t;
}

int main(void) {
    OnityRuntime *rt = NULL;
    uint64_t t[4] = {0, 0, 0, 0};
    uint64_t enemies[12];
    uint32_t lines[4], enemy_line = 0;
    OnitySiteReport rep[8];
    uint32_t n = 0;
    int i;
    const char *f = (const char *)1;
    uint32_t l = 7;

    OK(onity_runtime_create(NULL, &rt));
    frame(rt, 10);
    /* Capture is off by default: an `_at` call records nothing. */
    OK(onity_task_create_at(rt, &t[0], ONITY_SITE));
    OK(onity_task_site(rt, t[0], &f, &l, NULL));
    CHECK(f == NULL);
    CHECK_EQ_U64(l, 0);
    OK(onity_task_cancel(rt, t[0]));
    OK(onity_task_consume(rt, t[0], NULL));

    OK(onity_runtime_set_site_capture(rt, 1));
    OK(onity_task_create_at(rt, &t[0], ONITY_SITE)); lines[0] = __LINE__;
    OK(onity_next_frame_at(rt, ONITY_TIMING_UPDATE, 0, &t[1], ONITY_SITE)); lines[1] = __LINE__;
    OK(onity_when_any_at(rt, t, 2, 0, &t[2], ONITY_SITE)); lines[2] = __LINE__;
    OK(onity_next_frame_then_at(rt, ONITY_TIMING_UPDATE, 0, on_wait, NULL, ONITY_SITE)); lines[3] = __LINE__;
    for (i = 0; i < 3; i++) check_site(rt, t[i], __FILE__, lines[i], 10);
    CHECK_EQ_U64(lines[3], lines[2] + 1);

    /* "12 tasks created at sites.c:<line> pending for 600 frames". */
    for (i = 0; i < 12; i++) enemies[i] = spawn_enemy(rt, &enemy_line);
    check_site(rt, enemies[0], __FILE__, enemy_line, 10);
    frame(rt, 11);
    OK(onity_runtime_tick(rt, ONITY_TIMING_UPDATE)); /* the NextFrame wins the WhenAny; the callback runs */
    CHECK_EQ_U64(g_calls, 1);
    frame(rt, 12);
    OK(onity_runtime_site_report(rt, 0, rep, 8, &n));
    /* Left: the enemies, the manual task (the WhenAny's loser) and the WhenAny's output
     * (completed, never consumed). The NextFrame was consumed by the WhenAny, the
     * callback wait by its run. */
    CHECK_EQ_U64(n, 3);
    CHECK(rep[0].file != NULL && strcmp(rep[0].file, __FILE__) == 0);
    CHECK_EQ_U64(rep[0].line, enemy_line);
    CHECK_EQ_U64(rep[0].tasks, 12);
    CHECK_EQ_U64(rep[0].pending, 12);
    CHECK_EQ_U64(rep[0].oldest_age_frames, 2);
    CHECK_EQ_U64(rep[0].newest_age_frames, 2);
    CHECK_EQ_U64(rep[1].line, lines[0]);
    CHECK_EQ_U64(rep[1].pending, 1);
    CHECK_EQ_U64(rep[1].awaited, 1);
    CHECK_EQ_U64(rep[2].line, lines[2]);
    CHECK_EQ_U64(rep[2].completed, 1);
    CHECK(strcmp(rep[1].file, __FILE__) == 0 && strcmp(rep[2].file, __FILE__) == 0);
    OK(onity_runtime_site_report(rt, 3, rep, 8, &n));
    CHECK_EQ_U64(n, 0);

    /* ONITY_NO_SITES style: a NULL file records no site. */
    OK(onity_task_from_result_at(rt, 1, &t[3], NULL, 0));
    OK(onity_task_site(rt, t[3], &f, NULL, NULL));
    CHECK(f == NULL);
    OK(onity_runtime_destroy(rt));
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
