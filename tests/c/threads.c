/*
 * threads.c: cross-thread completion through the C ABI, with pthreads.
 *
 * 1. Workers complete many tasks (set_result / set_error / cancel, distinct
 *    values) while the owner keeps running frames. Every continuation runs
 *    on the owner thread, exactly once, and sees the value its worker set.
 *    Some continuations are registered while workers are already completing
 *    (racing on_complete against the completion); some tasks are inputs of
 *    WhenAll / WhenAny combinators; a worker cancels a cancellation source
 *    that owner-side waits hold.
 * 2. Completion order: with one worker, continuations of tasks completed
 *    elsewhere run at the owner's drain in completion order.
 * 3. Races: several threads (and the owner) complete the same tasks at the
 *    same time with set_result / set_error / cancel; exactly one wins per
 *    task, the others get ONITY_STATUS_ALREADY_COMPLETED, and the
 *    continuation sees the winner's outcome.
 *
 * `--small` (or ONITY_TEST_SMALL=1) shrinks the sizes, for valgrind.
 * Exit status 0 and a final "OK" line on success.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "onity.h"

/* ---- checking (thread-safe failure counter) ---------------------------- */

static pthread_mutex_t g_fail_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_failures;

static void fail_at(const char *file, int line, const char *what) {
    pthread_mutex_lock(&g_fail_lock);
    if (g_failures < 50) fprintf(stderr, "%s:%d: %s\n", file, line, what);
    g_failures++;
    pthread_mutex_unlock(&g_fail_lock);
}

#define CHECK(cond)                                                   \
    do {                                                              \
        if (!(cond)) fail_at(__FILE__, __LINE__, "check failed: " #cond); \
    } while (0)

#define CHECK_STATUS(call, want)                                                               \
    do {                                                                                       \
        uint32_t got_ = (uint32_t)(call);                                                      \
        if (got_ != (uint32_t)(want)) {                                                        \
            char buf_[256];                                                                    \
            snprintf(buf_, sizeof buf_, "%s returned %u (%s), expected %s", #call,             \
                     (unsigned)got_, onity_status_text(got_), #want);                          \
            fail_at(__FILE__, __LINE__, buf_);                                                 \
        }                                                                                      \
    } while (0)

#define OK(call) CHECK_STATUS(call, ONITY_STATUS_OK)

static int failures(void) {
    int f;
    pthread_mutex_lock(&g_fail_lock);
    f = g_failures;
    pthread_mutex_unlock(&g_fail_lock);
    return f;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the owner's loop ------------------------------------------------------ */

static OnityRuntime *rt;
static pthread_t g_owner;
static uint64_t g_frame;
static double g_realtime;

static void run_frame(void) {
    OnityFrameInfo fi;
    uint32_t t;
    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = ++g_frame;
    fi.delta_time = 1.0 / 64;
    fi.unscaled_delta_time = 1.0 / 64;
    g_realtime += 1.0 / 64;
    fi.realtime = g_realtime;
    OK(onity_runtime_frame_begin(rt, &fi));
    for (t = 0; t < ONITY_TIMING_COUNT; t++) OK(onity_runtime_tick(rt, t));
}

static void check_owner_thread(void) { CHECK(pthread_equal(pthread_self(), g_owner)); }

static OnityStats stats(void) {
    OnityStats s;
    memset(&s, 0, sizeof s);
    s.size = (uint32_t)sizeof s;
    OK(onity_runtime_stats(rt, &s));
    return s;
}

/* ---- 1. workers complete, the owner ticks ------------------------------------ */

enum { HOW_RESULT, HOW_ERROR, HOW_CANCEL };

typedef struct {
    uint64_t task;
    int how;
    uint64_t value;
    int32_t error;
    int runs;           /* continuation runs, owner thread only */
    int late;           /* continuation registered after the workers started */
    int in_combinator;  /* an input of a combinator: no continuation of its own */
} Item;

static Item *g_items;
static size_t g_n;
static size_t g_done; /* owner thread only */
static size_t g_expected_done;

static uint64_t value_of(size_t i) { return (uint64_t)i * 0x9E3779B97F4A7C15ULL + 1; }

static void item_cb(void *user, uint64_t task, uint32_t state) {
    Item *it = (Item *)user;
    OnityOutcome o;
    check_owner_thread();
    it->runs++;
    CHECK(it->runs == 1);
    CHECK(task == it->task);
    memset(&o, 0, sizeof o);
    OK(onity_task_consume(rt, task, &o));
    CHECK(o.state == state);
    switch (it->how) {
    case HOW_RESULT: CHECK(state == ONITY_TASK_STATE_SUCCEEDED && o.value == it->value); break;
    case HOW_ERROR: CHECK(state == ONITY_TASK_STATE_FAULTED && o.error == it->error); break;
    default: CHECK(state == ONITY_TASK_STATE_CANCELED); break;
    }
    g_done++;
}

/* WhenAll over GROUP items, WhenAny over GROUP items. */
#define GROUP 4
typedef struct {
    uint64_t out;
    size_t first; /* index of the first input in g_items */
    int all;      /* 1: WhenAll, 0: WhenAny */
    int runs;
} Combo;

static Combo *g_combos;
static size_t g_ncombos;

static void combo_cb(void *user, uint64_t task, uint32_t state) {
    Combo *c = (Combo *)user;
    OnityOutcome o, res[GROUP];
    size_t k;
    check_owner_thread();
    c->runs++;
    CHECK(c->runs == 1);
    if (c->all) {
        int all_ok = 1;
        OK(onity_when_all_results(rt, task, res, GROUP));
        for (k = 0; k < GROUP; k++) {
            const Item *it = &g_items[c->first + k];
            if (it->how == HOW_RESULT) {
                CHECK(res[k].state == ONITY_TASK_STATE_SUCCEEDED && res[k].value == it->value);
            } else if (it->how == HOW_ERROR) {
                CHECK(res[k].state == ONITY_TASK_STATE_FAULTED && res[k].error == it->error);
                all_ok = 0;
            } else {
                CHECK(res[k].state == ONITY_TASK_STATE_CANCELED);
                all_ok = 0;
            }
        }
        OK(onity_task_consume(rt, task, &o));
        CHECK(o.state == state);
        if (all_ok) CHECK(state == ONITY_TASK_STATE_SUCCEEDED && o.value == GROUP);
        else CHECK(state != ONITY_TASK_STATE_SUCCEEDED && o.index < GROUP);
    } else {
        const Item *w;
        OK(onity_task_consume(rt, task, &o));
        CHECK(o.index < GROUP);
        if (o.index < GROUP) {
            w = &g_items[c->first + o.index];
            if (w->how == HOW_RESULT) CHECK(state == ONITY_TASK_STATE_SUCCEEDED && o.value == w->value);
            else if (w->how == HOW_ERROR) CHECK(state == ONITY_TASK_STATE_FAULTED && o.error == w->error);
            else CHECK(state == ONITY_TASK_STATE_CANCELED);
        }
    }
    g_done++;
}

typedef struct {
    size_t worker, workers;
    uint64_t source; /* worker 0 cancels it halfway */
} WorkerArgs;

static void *worker_main(void *p) {
    WorkerArgs *a = (WorkerArgs *)p;
    size_t i;
    uint32_t s;
    OnityStatus st;
    for (i = a->worker; i < g_n; i += a->workers) {
        Item *it = &g_items[i];
        switch (it->how) {
        case HOW_RESULT: OK(onity_task_set_result(rt, it->task, it->value)); break;
        case HOW_ERROR: OK(onity_task_set_error(rt, it->task, it->error)); break;
        default: OK(onity_task_cancel(rt, it->task)); break;
        }
        /* Completed here: reads as completed at once (or, if the owner has
         * already run the continuation, which consumes it, as stale); a
         * second completion loses. */
        s = 0xFFu;
        st = onity_task_state(rt, it->task, &s);
        CHECK((st == ONITY_STATUS_OK && s != ONITY_TASK_STATE_PENDING && s != 0xFFu) ||
              st == ONITY_STATUS_STALE_HANDLE);
        st = onity_task_set_result(rt, it->task, 1);
        CHECK(st == ONITY_STATUS_ALREADY_COMPLETED || st == ONITY_STATUS_STALE_HANDLE);
        if (a->source && i >= g_n / 2 && i < g_n / 2 + a->workers) OK(onity_cancel_source_cancel(rt, a->source));
        /* owner-only calls are refused here */
        if (i % 997 == 0) CHECK_STATUS(onity_runtime_drain(rt), ONITY_STATUS_WRONG_THREAD);
    }
    return NULL;
}

static int g_token_waits_canceled;
static void token_wait_cb(void *user, uint64_t task, uint32_t state) {
    (void)user;
    check_owner_thread();
    CHECK(state == ONITY_TASK_STATE_CANCELED);
    if (task) OK(onity_task_consume(rt, task, NULL));
    g_token_waits_canceled++;
}

static int g_owner_waits;
static void owner_wait_cb(void *user, uint64_t task, uint32_t state) {
    (void)user;
    (void)task;
    check_owner_thread();
    CHECK(state == ONITY_TASK_STATE_SUCCEEDED);
    g_owner_waits++;
}

static void test_workers(size_t n, size_t workers) {
    pthread_t th[16];
    WorkerArgs args[16];
    size_t i, late_next = 0, w;
    uint64_t src, wait_task;
    int frames = 0, owner_waits_scheduled = 0;
    double start = now_seconds(), elapsed;
    OnityStats s;

    g_n = n;
    g_done = 0;
    g_items = (Item *)calloc(n, sizeof *g_items);
    g_ncombos = n / 40; /* 10% of the items are combinator inputs */
    g_combos = (Combo *)calloc(g_ncombos ? g_ncombos : 1, sizeof *g_combos);
    CHECK(g_items != NULL && g_combos != NULL);
    if (!g_items || !g_combos) return;

    for (i = 0; i < n; i++) {
        Item *it = &g_items[i];
        OK(onity_task_create(rt, &it->task));
        it->how = (i % 7 == 3) ? HOW_ERROR : (i % 11 == 5) ? HOW_CANCEL : HOW_RESULT;
        it->value = value_of(i);
        it->error = -(int32_t)(i % 1000000) - 1;
    }
    for (i = 0; i < g_ncombos; i++) {
        Combo *c = &g_combos[i];
        uint64_t ins[GROUP];
        size_t k;
        c->first = i * GROUP;
        c->all = (int)(i % 2);
        for (k = 0; k < GROUP; k++) {
            ins[k] = g_items[c->first + k].task;
            g_items[c->first + k].in_combinator = 1;
        }
        if (c->all) OK(onity_when_all(rt, ins, GROUP, 0, &c->out));
        else OK(onity_when_any(rt, ins, GROUP, 0, &c->out));
        OK(onity_task_on_complete(rt, c->out, combo_cb, c));
    }
    for (i = g_ncombos * GROUP; i < n; i++) {
        Item *it = &g_items[i];
        it->late = (i % 3 == 0);
        if (!it->late) OK(onity_task_on_complete(rt, it->task, item_cb, it));
    }
    g_expected_done = g_ncombos + (n - g_ncombos * GROUP);

    /* owner-side waits on a source a worker cancels */
    OK(onity_cancel_source_create(rt, &src));
    OK(onity_delay_frame_then(rt, 1000000, ONITY_TIMING_UPDATE, src, token_wait_cb, NULL));
    OK(onity_delay(rt, 1e9, ONITY_CLOCK_REALTIME, ONITY_TIMING_LAST_UPDATE, src, &wait_task));
    OK(onity_task_on_complete(rt, wait_task, token_wait_cb, NULL));

    for (w = 0; w < workers; w++) {
        args[w].worker = w;
        args[w].workers = workers;
        args[w].source = (w == 0) ? src : 0;
        CHECK(pthread_create(&th[w], NULL, worker_main, &args[w]) == 0);
    }

    while (g_done < g_expected_done || g_token_waits_canceled < 2) {
        size_t k;
        /* register the late continuations while workers complete */
        for (k = 0; k < 64 && late_next < n; late_next++) {
            Item *it = &g_items[late_next];
            if (it->late) {
                OK(onity_task_on_complete(rt, it->task, item_cb, it));
                k++;
            }
        }
        /* ordinary owner-side work every frame */
        OK(onity_yield_then(rt, ONITY_TIMING_UPDATE, 0, owner_wait_cb, NULL));
        owner_waits_scheduled++;
        run_frame();
        frames++;
        if (frames % 8 == 0) OK(onity_runtime_drain(rt));
        elapsed = now_seconds() - start;
        if (elapsed > 90.0) {
            fprintf(stderr, "timeout: %lu of %lu continuations ran after %d frames\n",
                    (unsigned long)g_done, (unsigned long)g_expected_done, frames);
            g_failures++;
            break;
        }
        if (failures() > 50) break;
    }
    for (w = 0; w < workers; w++) CHECK(pthread_join(th[w], NULL) == 0);
    /* late registrations left over (all their tasks have completed by now) */
    for (; late_next < n; late_next++)
        if (g_items[late_next].late) OK(onity_task_on_complete(rt, g_items[late_next].task, item_cb, &g_items[late_next]));
    OK(onity_runtime_drain(rt));
    run_frame();

    CHECK(g_done == g_expected_done);
    for (i = g_ncombos * GROUP; i < n; i++) CHECK(g_items[i].runs == 1);
    for (i = 0; i < g_ncombos; i++) CHECK(g_combos[i].runs == 1);
    CHECK(g_token_waits_canceled == 2);
    CHECK(g_owner_waits == owner_waits_scheduled);
    OK(onity_cancel_source_destroy(rt, src));

    s = stats();
    CHECK(s.live_tasks == 0);
    CHECK(s.cross_thread_queued == 0);
    CHECK(s.completed_unconsumed == 0);
    CHECK(s.pools[ONITY_POOL_TASKS].rents == s.pools[ONITY_POOL_TASKS].returns);
    CHECK(s.pools[ONITY_POOL_WHEN_ALL16].rents == s.pools[ONITY_POOL_WHEN_ALL16].returns);
    CHECK(s.pools[ONITY_POOL_WHEN_ANY16].rents == s.pools[ONITY_POOL_WHEN_ANY16].returns);
    printf("workers: %lu tasks, %lu combinators, %lu threads, %d frames, %.3f s\n",
           (unsigned long)n, (unsigned long)g_ncombos, (unsigned long)workers, frames,
           now_seconds() - start);
    free(g_items);
    free(g_combos);
    g_items = NULL;
    g_combos = NULL;
}

/* ---- 2. completion order -------------------------------------------------------- */

static uint64_t *g_order_tasks;
static size_t *g_order_log;
static size_t g_order_n;

static void order_cb(void *user, uint64_t task, uint32_t state) {
    size_t i = (size_t)(uintptr_t)user;
    check_owner_thread();
    CHECK(state == ONITY_TASK_STATE_SUCCEEDED);
    OK(onity_task_consume(rt, task, NULL));
    g_order_log[g_order_n++] = i;
}

static void *order_worker(void *p) {
    size_t n = *(size_t *)p, i;
    /* reverse index order, so completion order differs from creation order */
    for (i = n; i-- > 0;) OK(onity_task_set_result(rt, g_order_tasks[i], i));
    return NULL;
}

static void test_completion_order(size_t n) {
    pthread_t th;
    size_t i;
    OnityStats s;
    g_order_tasks = (uint64_t *)calloc(n, sizeof *g_order_tasks);
    g_order_log = (size_t *)calloc(n, sizeof *g_order_log);
    g_order_n = 0;
    CHECK(g_order_tasks && g_order_log);
    if (!g_order_tasks || !g_order_log) return;
    for (i = 0; i < n; i++) {
        OK(onity_task_create(rt, &g_order_tasks[i]));
        OK(onity_task_on_complete(rt, g_order_tasks[i], order_cb, (void *)(uintptr_t)i));
    }
    CHECK(pthread_create(&th, NULL, order_worker, &n) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(g_order_n == 0); /* nothing runs before the owner drains */
    s = stats();
    CHECK(s.cross_thread_queued == n);
    OK(onity_runtime_drain(rt));
    CHECK(g_order_n == n);
    for (i = 0; i < g_order_n; i++)
        if (g_order_log[i] != n - 1 - i) {
            fprintf(stderr, "completion order: position %lu ran task %lu, expected %lu\n",
                    (unsigned long)i, (unsigned long)g_order_log[i], (unsigned long)(n - 1 - i));
            g_failures++;
            break;
        }
    s = stats();
    CHECK(s.cross_thread_queued == 0);
    CHECK(s.live_tasks == 0);
    free(g_order_tasks);
    free(g_order_log);
}

/* ---- 3. races --------------------------------------------------------------------- */

#define RACERS 4 /* 3 threads + the owner */

typedef struct {
    uint64_t task;
    uint32_t status[RACERS];
    int runs;
    uint32_t state;
    OnityOutcome outcome;
} RaceItem;

static RaceItem *g_race;
static size_t g_race_n;
static pthread_barrier_t g_barrier;

static uint64_t race_value(size_t racer, size_t i) { return ((uint64_t)(racer + 1) << 40) | i; }
static int32_t race_error(size_t i) { return -(int32_t)(i % 100000) - 1; }

/* Does not consume: a consumed handle would make later racers see
 * STALE_HANDLE instead of ALREADY_COMPLETED. The owner consumes after the
 * race. */
static void race_cb(void *user, uint64_t task, uint32_t state) {
    RaceItem *r = (RaceItem *)user;
    check_owner_thread();
    CHECK(task == r->task);
    r->runs++;
    r->state = state;
}

static void race_one(size_t racer, size_t i) {
    RaceItem *r = &g_race[i];
    switch (racer) {
    case 0: r->status[0] = onity_task_set_result(rt, r->task, race_value(0, i)); break;
    case 1: r->status[1] = onity_task_cancel(rt, r->task); break;
    case 2: r->status[2] = onity_task_set_error(rt, r->task, race_error(i)); break;
    default: r->status[3] = onity_task_set_result(rt, r->task, race_value(3, i)); break;
    }
}

static void *racer_main(void *p) {
    size_t racer = (size_t)(uintptr_t)p, i;
    pthread_barrier_wait(&g_barrier);
    for (i = 0; i < g_race_n; i++) race_one(racer, i);
    return NULL;
}

static void test_races(size_t n, int rounds) {
    pthread_t th[RACERS - 1];
    size_t i, k, wins[RACERS] = {0, 0, 0, 0};
    int round;
    OnityStats s;
    g_race_n = n;
    g_race = (RaceItem *)calloc(n, sizeof *g_race);
    CHECK(g_race != NULL);
    if (!g_race) return;
    for (round = 0; round < rounds; round++) {
        memset(g_race, 0, n * sizeof *g_race);
        for (i = 0; i < n; i++) {
            OK(onity_task_create(rt, &g_race[i].task));
            OK(onity_task_on_complete(rt, g_race[i].task, race_cb, &g_race[i]));
            for (k = 0; k < RACERS; k++) g_race[i].status[k] = 0xFFFFFFFFu;
        }
        CHECK(pthread_barrier_init(&g_barrier, NULL, RACERS) == 0);
        for (k = 0; k < RACERS - 1; k++)
            CHECK(pthread_create(&th[k], NULL, racer_main, (void *)(uintptr_t)k) == 0);
        pthread_barrier_wait(&g_barrier);
        /* the owner races too: its wins run the continuation inline */
        for (i = 0; i < n; i++) {
            race_one(RACERS - 1, i);
            if (i % 256 == 0) OK(onity_runtime_drain(rt));
        }
        for (k = 0; k < RACERS - 1; k++) CHECK(pthread_join(th[k], NULL) == 0);
        pthread_barrier_destroy(&g_barrier);
        run_frame();

        for (i = 0; i < n; i++) {
            RaceItem *r = &g_race[i];
            size_t winner = RACERS, oks = 0;
            for (k = 0; k < RACERS; k++) {
                if (r->status[k] == ONITY_STATUS_OK) {
                    oks++;
                    winner = k;
                } else if (r->status[k] != ONITY_STATUS_ALREADY_COMPLETED) {
                    fprintf(stderr, "race task %lu: racer %lu got status %u (%s)\n", (unsigned long)i,
                            (unsigned long)k, (unsigned)r->status[k], onity_status_text(r->status[k]));
                    g_failures++;
                }
            }
            if (oks != 1 || r->runs != 1) {
                fprintf(stderr, "race task %lu: %lu winners, continuation ran %d times\n",
                        (unsigned long)i, (unsigned long)oks, r->runs);
                g_failures++;
                continue;
            }
            wins[winner]++;
            OK(onity_task_consume(rt, r->task, &r->outcome));
            CHECK(r->outcome.state == r->state);
            switch (winner) {
            case 0:
            case 3:
                CHECK(r->state == ONITY_TASK_STATE_SUCCEEDED && r->outcome.value == race_value(winner, i));
                break;
            case 1: CHECK(r->state == ONITY_TASK_STATE_CANCELED); break;
            default: CHECK(r->state == ONITY_TASK_STATE_FAULTED && r->outcome.error == race_error(i)); break;
            }
            if (failures() > 50) break;
        }
        s = stats();
        CHECK(s.live_tasks == 0);
        CHECK(s.cross_thread_queued == 0);
    }
    printf("races: %lu tasks x %d rounds; wins: set_result %lu, cancel %lu, set_error %lu, owner %lu\n",
           (unsigned long)n, rounds, (unsigned long)wins[0], (unsigned long)wins[1],
           (unsigned long)wins[2], (unsigned long)wins[3]);
    free(g_race);
    g_race = NULL;
}

/* ---- main -------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    int small = (argc > 1 && strcmp(argv[1], "--small") == 0);
    const char *env = getenv("ONITY_TEST_SMALL");
    OnityStats s;
    if (env && strcmp(env, "1") == 0) small = 1;

    g_owner = pthread_self();
    OK(onity_runtime_create(NULL, &rt));
    if (!rt) return 1;

    test_workers(small ? 2000 : 20000, small ? 2 : 4);
    test_completion_order(small ? 500 : 5000);
    test_races(small ? 500 : 5000, small ? 2 : 10);

    s = stats();
    CHECK(s.live_tasks == 0);
    CHECK(s.cross_thread_queued == 0);
    CHECK(s.completed_unconsumed == 0);
    OK(onity_runtime_destroy(rt));

    if (failures()) {
        fprintf(stderr, "%d check(s) failed\n", failures());
        return 1;
    }
    printf("OK\n");
    return 0;
}
