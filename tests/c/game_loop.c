/*
 * game_loop.c: a whole game loop driven through the C ABI of onity.
 *
 * Every frame calls onity_runtime_frame_begin and then ticks the 16 timings
 * in order (a few frames run FixedUpdate twice or not at all). On the way it
 * uses every feature of the runtime and checks the frame-by-frame rules that
 * include/onity.h documents:
 *   - Yield / NextFrame / DelayFrame / Delay (scaled, unscaled, realtime), in
 *     task form (consumed afterwards) and `_then` callback form;
 *   - manual tasks (set_result / set_error / cancel) and continuations;
 *   - cancellation sources as tokens of waits and combinators;
 *   - WhenAny (winner index and value) and WhenAll (onity_when_all_results);
 *   - batches: records of every kind filed through shared memory, rejected
 *     records, resumptions reported per timing, batch destruction;
 *   - statistics, live task listing, names and status texts, ABI version;
 *   - the order in which the continuations of one timing run.
 *
 * Every continuation is the same function `cb`; it records the id it was
 * registered with, the frame, the timing being ticked and its run number.
 *
 * Exit status 0 and a final "OK" line on success.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onity.h"
#include "check.h"

#define U(id) ((void *)(uintptr_t)(id))

/* ---- the loop ---------------------------------------------------------- */

#define HOST 0xFFFFu /* "timing" recorded for continuations run outside a tick */

static struct {
    OnityRuntime *rt;
    uint64_t frame;
    uint32_t timing;
    uint32_t run;
    int in_tick;
    uint32_t runs[ONITY_TIMING_COUNT];
    double realtime;
} L;

static void begin_frame(double dt, double udt, double rdt) {
    OnityFrameInfo fi;
    memset(&fi, 0, sizeof fi);
    fi.size = (uint32_t)sizeof fi;
    fi.frame = ++L.frame;
    fi.delta_time = dt;
    fi.unscaled_delta_time = udt;
    L.realtime += rdt;
    fi.realtime = L.realtime;
    OK(onity_runtime_frame_begin(L.rt, &fi));
    memset(L.runs, 0, sizeof L.runs);
}

/* A normal frame: scaled 0.125 s, unscaled 0.25 s (time scale 0.5), realtime
 * 0.25 s. All values are exact binary fractions. */
static void begin_std_frame(void) { begin_frame(0.125, 0.25, 0.25); }

static void tick(uint32_t t) {
    L.timing = t;
    L.run = L.runs[t]++;
    L.in_tick = 1;
    OK(onity_runtime_tick(L.rt, t));
    L.in_tick = 0;
}

/* Ticks timings [from, to). */
static void tick_range(uint32_t from, uint32_t to) {
    uint32_t t;
    for (t = from; t < to; t++) tick(t);
}

static void std_frame(void) {
    begin_std_frame();
    tick_range(0, ONITY_TIMING_COUNT);
}

/* ---- continuations ------------------------------------------------------ */

#define MAX_ID 256
#define MAX_ALL 64

typedef void (*Action)(int id);

typedef struct {
    int count;
    uint64_t frame;
    uint32_t timing;
    uint32_t run;
    uint32_t state;
    uint64_t task;
    int consumed;
    OnityOutcome outcome;
    int no_consume;     /* leave the task for the host to consume */
    uint32_t all_count; /* a WhenAll: read the per-input results first */
    OnityOutcome all[MAX_ALL];
    Action action; /* extra work done inside the continuation */
} Rec;

static Rec R[MAX_ID];

typedef struct {
    int id;
    uint64_t frame;
    uint32_t timing;
    uint32_t run;
} Event;

static Event g_events[4096];
static int g_nevents;

static void cb(void *user, uint64_t task, uint32_t state) {
    int id = (int)(uintptr_t)user;
    Rec *r;
    CHECK(id > 0 && id < MAX_ID);
    if (id <= 0 || id >= MAX_ID) return;
    r = &R[id];
    r->count++;
    r->frame = L.frame;
    r->timing = L.in_tick ? L.timing : HOST;
    r->run = L.in_tick ? L.run : 0;
    r->state = state;
    r->task = task;
    if (g_nevents < (int)(sizeof g_events / sizeof g_events[0])) {
        Event e;
        e.id = id;
        e.frame = r->frame;
        e.timing = r->timing;
        e.run = r->run;
        g_events[g_nevents++] = e;
    }
    CHECK(state == ONITY_TASK_STATE_SUCCEEDED || state == ONITY_TASK_STATE_FAULTED ||
          state == ONITY_TASK_STATE_CANCELED);
    if (task != 0) {
        uint32_t st = 0xFFFFFFFFu;
        OK(onity_task_state(L.rt, task, &st));
        CHECK_EQ_U64(st, state);
        if (r->all_count) OK(onity_when_all_results(L.rt, task, r->all, r->all_count));
        if (!r->no_consume) {
            OK(onity_task_consume(L.rt, task, &r->outcome));
            r->consumed = 1;
            CHECK_EQ_U64(r->outcome.state, state);
            CHECK_STATUS(onity_task_state(L.rt, task, &st), ONITY_STATUS_STALE_HANDLE);
        }
    }
    if (r->action) r->action(id);
}

/* The continuation `id` ran exactly once, at (frame, timing, run), with
 * `state`; `task_form` says whether it was a task continuation (task != 0)
 * or a callback wait (task == 0). */
static void expect_ran_run(int line, int id, uint64_t frame, uint32_t timing, uint32_t run,
                           uint32_t state, int task_form) {
    Rec *r = &R[id];
    if (r->count != 1 || r->frame != frame || r->timing != timing || r->run != run ||
        r->state != state || (r->task != 0) != (task_form != 0)) {
        fprintf(stderr,
                "%s:%d: continuation %d: ran %d times, last at frame %llu timing %u run %u "
                "state %u task %s; expected once at frame %llu timing %u (%s) run %u state %u "
                "task %s\n",
                __FILE__, line, id, r->count, (unsigned long long)r->frame, (unsigned)r->timing,
                (unsigned)r->run, (unsigned)r->state, r->task ? "yes" : "no",
                (unsigned long long)frame, (unsigned)timing,
                timing == HOST ? "host" : onity_timing_name(timing), (unsigned)run,
                (unsigned)state, task_form ? "yes" : "no");
        g_failures++;
    }
}
#define EXPECT_RAN(id, frame, timing, state, task_form) \
    expect_ran_run(__LINE__, id, frame, timing, 0, state, task_form)
#define EXPECT_RAN_RUN(id, frame, timing, run, state, task_form) \
    expect_ran_run(__LINE__, id, frame, timing, run, state, task_form)

static void expect_not_run(int line, int id) {
    if (R[id].count != 0) {
        fprintf(stderr, "%s:%d: continuation %d ran too early (frame %llu timing %u)\n", __FILE__,
                line, id, (unsigned long long)R[id].frame, (unsigned)R[id].timing);
        g_failures++;
    }
}
#define EXPECT_NOT_RUN(id) expect_not_run(__LINE__, id)

/* The continuations that ran at (frame, timing, run) are exactly `ids`, in
 * this order. */
static void expect_order(int line, uint64_t frame, uint32_t timing, uint32_t run, const int *ids,
                         int n) {
    int got[256], ng = 0, i, same;
    for (i = 0; i < g_nevents; i++) {
        const Event *e = &g_events[i];
        if (e->frame == frame && e->timing == timing && e->run == run && ng < 256)
            got[ng++] = e->id;
    }
    same = ng == n;
    for (i = 0; same && i < n; i++) same = got[i] == ids[i];
    if (!same) {
        fprintf(stderr, "%s:%d: order at frame %llu %s run %u: got [", __FILE__, line,
                (unsigned long long)frame, onity_timing_name(timing), (unsigned)run);
        for (i = 0; i < ng; i++) fprintf(stderr, "%s%d", i ? " " : "", got[i]);
        fprintf(stderr, "], expected [");
        for (i = 0; i < n; i++) fprintf(stderr, "%s%d", i ? " " : "", ids[i]);
        fprintf(stderr, "]\n");
        g_failures++;
    }
}
#define EXPECT_ORDER(frame, timing, run, ...)                                         \
    do {                                                                              \
        static const int ids_[] = {__VA_ARGS__};                                      \
        expect_order(__LINE__, frame, timing, run, ids_, (int)(sizeof ids_ / sizeof ids_[0])); \
    } while (0)

/* ---- helpers ------------------------------------------------------------ */

static uint64_t manual(void) {
    uint64_t h = 0;
    OK(onity_task_create(L.rt, &h));
    CHECK(h != 0);
    return h;
}

static uint32_t state_of(uint64_t task) {
    uint32_t s = 0xFFFFFFFFu;
    OK(onity_task_state(L.rt, task, &s));
    return s;
}

static OnityOutcome consume(uint64_t task) {
    OnityOutcome o;
    memset(&o, 0xAB, sizeof o);
    OK(onity_task_consume(L.rt, task, &o));
    return o;
}

static void on_complete(uint64_t task, int id) { OK(onity_task_on_complete(L.rt, task, cb, U(id))); }

static uint64_t y_task(uint32_t timing, uint64_t token) {
    uint64_t h = 0;
    OK(onity_yield(L.rt, timing, token, &h));
    CHECK(h != 0);
    return h;
}
static uint64_t nf_task(uint32_t timing, uint64_t token) {
    uint64_t h = 0;
    OK(onity_next_frame(L.rt, timing, token, &h));
    CHECK(h != 0);
    return h;
}
static uint64_t df_task(uint32_t frames, uint32_t timing, uint64_t token) {
    uint64_t h = 0;
    OK(onity_delay_frame(L.rt, frames, timing, token, &h));
    CHECK(h != 0);
    return h;
}
static uint64_t d_task(double seconds, uint32_t clock, uint32_t timing, uint64_t token) {
    uint64_t h = 0;
    OK(onity_delay(L.rt, seconds, clock, timing, token, &h));
    CHECK(h != 0);
    return h;
}
static uint64_t source(void) {
    uint64_t s = 0;
    OK(onity_cancel_source_create(L.rt, &s));
    CHECK(s != 0);
    return s;
}
static uint32_t is_canceled(uint64_t src) {
    uint32_t c = 0xFFu;
    OK(onity_cancel_source_is_canceled(L.rt, src, &c));
    return c;
}
static uint64_t when_any(const uint64_t *in, uint32_t n, uint64_t token) {
    uint64_t h = 0;
    OK(onity_when_any(L.rt, in, n, token, &h));
    CHECK(h != 0);
    return h;
}
static uint64_t when_all(const uint64_t *in, uint32_t n, uint64_t token) {
    uint64_t h = 0;
    OK(onity_when_all(L.rt, in, n, token, &h));
    CHECK(h != 0);
    return h;
}
static OnityStats stats(void) {
    OnityStats s;
    memset(&s, 0, sizeof s);
    s.size = (uint32_t)sizeof s;
    OK(onity_runtime_stats(L.rt, &s));
    return s;
}
static uint32_t live_count(void) {
    uint32_t n = 0xFFFFFFFFu;
    OK(onity_runtime_live_tasks(L.rt, NULL, 0, &n));
    return n;
}

/* ---- actions run inside continuations ------------------------------------ */

static uint64_t g_task_e;      /* Yield(Update) created during EarlyUpdate */
static uint64_t g_chain_task;  /* created inside continuation 52 */

static void act_10(int id) { /* runs during frame 1 EarlyUpdate */
    (void)id;
    OK(onity_yield_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(11)));
    OK(onity_next_frame_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(12)));
    OK(onity_yield_then(L.rt, ONITY_TIMING_EARLY_UPDATE, 0, cb, U(13)));
    g_task_e = y_task(ONITY_TIMING_UPDATE, 0);
    on_complete(g_task_e, 17);
}

static void act_14(int id) { /* runs during frame 1 Update */
    (void)id;
    OK(onity_yield_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(15)));
    OK(onity_yield_then(L.rt, ONITY_TIMING_LAST_UPDATE, 0, cb, U(16)));
}

static void act_30(int id) { /* runs during the first FixedUpdate run */
    (void)id;
    OK(onity_yield_then(L.rt, ONITY_TIMING_FIXED_UPDATE, 0, cb, U(31)));
    OK(onity_next_frame_then(L.rt, ONITY_TIMING_FIXED_UPDATE, 0, cb, U(32)));
    OK(onity_delay_frame_then(L.rt, 0, ONITY_TIMING_FIXED_UPDATE, 0, cb, U(33)));
}

static void act_52(int id) { /* chains a second manual task, completed inline */
    (void)id;
    g_chain_task = manual();
    on_complete(g_chain_task, 53);
    OK(onity_task_set_result(L.rt, g_chain_task, 5353));
    CHECK(R[53].count == 1); /* nested continuation ran before set_result returned */
}

/* ---- scenarios ------------------------------------------------------------ */

static void test_names_and_version(void) {
    uint32_t i, j;
    CHECK_EQ_U64(onity_abi_version(), ONITY_ABI_VERSION);
    CHECK((onity_abi_version() >> 16) == (ONITY_ABI_VERSION >> 16));
    for (i = 0; i <= 18; i++) {
        const char *s = onity_status_text(i);
        CHECK(s != NULL && s[0] != '\0');
    }
    CHECK(strcmp(onity_status_text(9999), "unknown status") == 0);
    for (i = 0; i < ONITY_TIMING_COUNT; i++) {
        const char *n = onity_timing_name(i);
        CHECK(n != NULL && n[0] != '\0' && strcmp(n, "invalid") != 0);
        for (j = 0; j < i; j++) CHECK(strcmp(n, onity_timing_name(j)) != 0);
    }
    CHECK(strcmp(onity_timing_name(ONITY_TIMING_UPDATE), "Update") == 0);
    CHECK(strcmp(onity_timing_name(ONITY_TIMING_INITIALIZATION), "Initialization") == 0);
    CHECK(strcmp(onity_timing_name(ONITY_TIMING_FIXED_UPDATE), "FixedUpdate") == 0);
    CHECK(strcmp(onity_timing_name(ONITY_TIMING_COUNT), "invalid") == 0);
    for (i = 0; i < ONITY_POOL_COUNT; i++) {
        const char *n = onity_pool_name(i);
        CHECK(n != NULL && n[0] != '\0' && strcmp(n, "invalid") != 0);
        for (j = 0; j < i; j++) CHECK(strcmp(n, onity_pool_name(j)) != 0);
    }
    CHECK(strcmp(onity_pool_name(ONITY_POOL_COUNT), "invalid") == 0);
}

/* Frames 1-5: the four waits in both forms, their frame rules and order. */
static void test_waits(void) {
    uint64_t t_y, t_nf, t_df3, t_ds, t_df0;
    OnityOutcome o;
    const uint64_t f1 = L.frame + 1;

    begin_std_frame(); /* frame f1 */
    CHECK_EQ_U64(L.frame, f1);
    /* Scheduled by the host before any timing of f1 has run. */
    t_y = y_task(ONITY_TIMING_UPDATE, 0);                                     /* f1 Update */
    OK(onity_yield_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(1)));              /* f1 Update */
    t_nf = nf_task(ONITY_TIMING_UPDATE, 0);                                   /* f1+1 Update */
    on_complete(t_nf, 2);
    OK(onity_next_frame_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(3)));         /* f1+1 */
    t_df3 = df_task(3, ONITY_TIMING_UPDATE, 0);                               /* f1+3 */
    OK(onity_delay_frame_then(L.rt, 3, ONITY_TIMING_UPDATE, 0, cb, U(4)));     /* f1+3 */
    OK(onity_delay_frame_then(L.rt, 0, ONITY_TIMING_UPDATE, 0, cb, U(5)));     /* f1: as Yield */
    t_ds = d_task(0.5, ONITY_CLOCK_SCALED, ONITY_TIMING_UPDATE, 0);           /* 4 x 0.125 */
    on_complete(t_ds, 6);
    OK(onity_delay_then(L.rt, 0.5, ONITY_CLOCK_UNSCALED, ONITY_TIMING_UPDATE, 0, cb, U(7))); /* 2 x .25 */
    OK(onity_delay_then(L.rt, 0.5, ONITY_CLOCK_REALTIME, ONITY_TIMING_UPDATE, 0, cb, U(8))); /* 2 x .25 */
    OK(onity_delay_then(L.rt, 0.0, ONITY_CLOCK_SCALED, ONITY_TIMING_UPDATE, 0, cb, U(9)));   /* f1+1 */
    R[10].action = act_10;
    OK(onity_yield_then(L.rt, ONITY_TIMING_EARLY_UPDATE, 0, cb, U(10))); /* f1 EarlyUpdate */
    R[14].action = act_14;
    OK(onity_yield_then(L.rt, ONITY_TIMING_UPDATE, 0, cb, U(14))); /* f1 Update */
    t_df0 = df_task(0, ONITY_TIMING_LAST_UPDATE, 0);               /* f1 LastUpdate */

    tick_range(0, ONITY_TIMING_UPDATE);
    EXPECT_RAN(10, f1, ONITY_TIMING_EARLY_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    CHECK_EQ_U64(state_of(t_y), ONITY_TASK_STATE_PENDING);
    CHECK_EQ_U64(state_of(g_task_e), ONITY_TASK_STATE_PENDING);
    CHECK_STATUS(onity_task_consume(L.rt, t_y, NULL), ONITY_STATUS_TASK_PENDING);
    EXPECT_NOT_RUN(1);
    EXPECT_NOT_RUN(11);
    EXPECT_NOT_RUN(5);
    tick(ONITY_TIMING_UPDATE);
    CHECK_EQ_U64(state_of(t_y), ONITY_TASK_STATE_SUCCEEDED);
    o = consume(t_y);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(o.index, UINT32_MAX);
    EXPECT_RAN(1, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(5, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    /* Yield(Update) scheduled during EarlyUpdate resumes in the same frame. */
    EXPECT_RAN(11, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(17, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK(R[17].consumed && R[17].outcome.index == UINT32_MAX);
    EXPECT_RAN(14, f1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    /* Scheduled by a continuation of this run: not looked at until the next run. */
    EXPECT_NOT_RUN(15);
    /* NextFrame(Update) scheduled in f1 before Update: not in f1's Update. */
    EXPECT_NOT_RUN(2);
    EXPECT_NOT_RUN(3);
    EXPECT_NOT_RUN(12);
    EXPECT_NOT_RUN(9); /* Delay(0) completes in a later frame */
    CHECK_EQ_U64(state_of(t_nf), ONITY_TASK_STATE_PENDING);
    /* In scheduling order: the host's waits, then the EarlyUpdate ones. */
    EXPECT_ORDER(f1, ONITY_TIMING_UPDATE, 0, 1, 5, 14, 11, 17);
    CHECK_EQ_U64(state_of(t_df0), ONITY_TASK_STATE_PENDING);
    tick_range(ONITY_TIMING_UPDATE + 1, ONITY_TIMING_COUNT);
    EXPECT_RAN(16, f1, ONITY_TIMING_LAST_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    CHECK_EQ_U64(state_of(t_df0), ONITY_TASK_STATE_SUCCEEDED);
    o = consume(t_df0);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    EXPECT_NOT_RUN(13);

    /* Frame f1+1. */
    begin_std_frame();
    tick_range(0, ONITY_TIMING_UPDATE);
    /* Yield(EarlyUpdate) scheduled during EarlyUpdate: the next run, i.e. now. */
    EXPECT_RAN(13, f1 + 1, ONITY_TIMING_EARLY_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_NOT_RUN(2);
    CHECK_EQ_U64(state_of(t_nf), ONITY_TASK_STATE_PENDING);
    tick(ONITY_TIMING_UPDATE);
    EXPECT_RAN(2, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    EXPECT_RAN(3, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(9, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(12, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(15, f1 + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_ORDER(f1 + 1, ONITY_TIMING_UPDATE, 0, 2, 3, 9, 12, 15);
    tick_range(ONITY_TIMING_UPDATE + 1, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(7);
    EXPECT_NOT_RUN(8);
    CHECK_EQ_U64(state_of(t_df3), ONITY_TASK_STATE_PENDING);

    /* Frame f1+2: unscaled and realtime clocks have advanced by 0.5. */
    std_frame();
    EXPECT_RAN(7, f1 + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN(8, f1 + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_ORDER(f1 + 2, ONITY_TIMING_UPDATE, 0, 7, 8);
    CHECK_EQ_U64(state_of(t_df3), ONITY_TASK_STATE_PENDING);
    EXPECT_NOT_RUN(4);

    /* Frame f1+3: DelayFrame(3) resumes exactly 3 frames later, at Update. */
    begin_std_frame();
    tick_range(0, ONITY_TIMING_UPDATE);
    CHECK_EQ_U64(state_of(t_df3), ONITY_TASK_STATE_PENDING);
    EXPECT_NOT_RUN(4);
    tick(ONITY_TIMING_UPDATE);
    CHECK_EQ_U64(state_of(t_df3), ONITY_TASK_STATE_SUCCEEDED);
    EXPECT_RAN(4, f1 + 3, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    tick_range(ONITY_TIMING_UPDATE + 1, ONITY_TIMING_COUNT);
    o = consume(t_df3);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(o.index, UINT32_MAX);
    EXPECT_NOT_RUN(6); /* scaled clock: 3 x 0.125 = 0.375 < 0.5 */
    CHECK_EQ_U64(state_of(t_ds), ONITY_TASK_STATE_PENDING);

    /* Frame f1+4: the scaled clock reaches 0.5. */
    std_frame();
    EXPECT_RAN(6, f1 + 4, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK(R[6].consumed);
}

/* Paused time: the scaled clock stands still while delta_time is 0. */
static void test_pause(void) {
    const uint64_t f = L.frame + 1;
    uint64_t t_unscaled, t_real;
    begin_std_frame(); /* f */
    OK(onity_delay_then(L.rt, 0.25, ONITY_CLOCK_SCALED, ONITY_TIMING_PRE_LATE_UPDATE, 0, cb, U(20)));
    OK(onity_delay_then(L.rt, 0.25, ONITY_CLOCK_UNSCALED, ONITY_TIMING_PRE_LATE_UPDATE, 0, cb, U(21)));
    t_unscaled = d_task(0.5, ONITY_CLOCK_UNSCALED, ONITY_TIMING_LAST_PRE_LATE_UPDATE, 0);
    t_real = d_task(1.0, ONITY_CLOCK_REALTIME, ONITY_TIMING_TIME_UPDATE, 0);
    tick_range(0, ONITY_TIMING_COUNT);
    begin_frame(0.0, 0.25, 0.5); /* f+1: paused, realtime jumps by 0.5 */
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(20);
    EXPECT_RAN(21, f + 1, ONITY_TIMING_PRE_LATE_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    CHECK_EQ_U64(state_of(t_unscaled), ONITY_TASK_STATE_PENDING);
    CHECK_EQ_U64(state_of(t_real), ONITY_TASK_STATE_PENDING);
    begin_frame(0.0, 0.25, 0.5); /* f+2: paused; unscaled 0.5, realtime 1.0 */
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(20);
    CHECK_EQ_U64(state_of(t_unscaled), ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(state_of(t_real), ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(consume(t_unscaled).state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(consume(t_real).state, ONITY_TASK_STATE_SUCCEEDED);
    begin_frame(0.125, 0.25, 0.25); /* f+3: scaled 0.125 */
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(20);
    begin_frame(0.125, 0.25, 0.25); /* f+4: scaled 0.25 */
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_RAN(20, f + 4, ONITY_TIMING_PRE_LATE_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
}

/* FixedUpdate may run several times per frame, or not at all. */
static void test_fixed_update(void) {
    const uint64_t f = L.frame + 1;
    uint64_t t_nf;
    begin_std_frame(); /* f: FixedUpdate runs twice */
    R[30].action = act_30;
    OK(onity_yield_then(L.rt, ONITY_TIMING_FIXED_UPDATE, 0, cb, U(30)));
    t_nf = nf_task(ONITY_TIMING_FIXED_UPDATE, 0);
    on_complete(t_nf, 34);
    tick_range(0, ONITY_TIMING_FIXED_UPDATE);
    tick(ONITY_TIMING_FIXED_UPDATE);
    tick(ONITY_TIMING_LAST_FIXED_UPDATE);
    EXPECT_RAN_RUN(30, f, ONITY_TIMING_FIXED_UPDATE, 0, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_NOT_RUN(31);
    tick(ONITY_TIMING_FIXED_UPDATE);
    tick(ONITY_TIMING_LAST_FIXED_UPDATE);
    EXPECT_RAN_RUN(31, f, ONITY_TIMING_FIXED_UPDATE, 1, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_RAN_RUN(33, f, ONITY_TIMING_FIXED_UPDATE, 1, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_ORDER(f, ONITY_TIMING_FIXED_UPDATE, 1, 31, 33);
    EXPECT_NOT_RUN(32);
    EXPECT_NOT_RUN(34);
    tick_range(ONITY_TIMING_PRE_UPDATE, ONITY_TIMING_COUNT);

    /* f+1: FixedUpdate does not run at all. */
    begin_std_frame();
    tick_range(0, ONITY_TIMING_FIXED_UPDATE);
    tick_range(ONITY_TIMING_PRE_UPDATE, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(32);
    EXPECT_NOT_RUN(34);

    /* f+2: the first FixedUpdate run of a later frame. */
    std_frame();
    EXPECT_RAN_RUN(34, f + 2, ONITY_TIMING_FIXED_UPDATE, 0, ONITY_TASK_STATE_SUCCEEDED, 1);
    EXPECT_RAN_RUN(32, f + 2, ONITY_TIMING_FIXED_UPDATE, 0, ONITY_TASK_STATE_SUCCEEDED, 0);
    EXPECT_ORDER(f + 2, ONITY_TIMING_FIXED_UPDATE, 0, 34, 32);
}

/* Cancellation tokens on waits; onity_task_cancel on a wait task. */
static void test_wait_cancellation(void) {
    const uint64_t f = L.frame + 1;
    uint64_t cs1, cs2, t_a, t_b, t_c, t_d;
    OnityOutcome o;

    begin_std_frame();
    cs1 = source();
    cs2 = source();
    CHECK(cs1 != cs2);
    CHECK_EQ_U64(is_canceled(cs1), 0);
    t_a = df_task(100, ONITY_TIMING_UPDATE, cs1);
    on_complete(t_a, 40);
    OK(onity_delay_frame_then(L.rt, 100, ONITY_TIMING_UPDATE, cs1, cb, U(41)));
    t_b = y_task(ONITY_TIMING_LAST_UPDATE, cs1);
    OK(onity_delay_then(L.rt, 1000.0, ONITY_CLOCK_REALTIME, ONITY_TIMING_UPDATE, cs1, cb, U(44)));
    OK(onity_next_frame_then(L.rt, ONITY_TIMING_UPDATE, cs1, cb, U(45)));
    /* A source destroyed before it is canceled never cancels its waits. */
    OK(onity_delay_frame_then(L.rt, 1, ONITY_TIMING_UPDATE, cs2, cb, U(42)));
    t_d = nf_task(ONITY_TIMING_UPDATE, cs2);
    OK(onity_cancel_source_destroy(L.rt, cs2));
    CHECK_STATUS(onity_cancel_source_cancel(L.rt, cs2), ONITY_STATUS_STALE_HANDLE);
    /* onity_task_cancel completes a wait task at once, continuation inline. */
    t_c = df_task(2, ONITY_TIMING_UPDATE, 0);
    on_complete(t_c, 43);
    OK(onity_task_cancel(L.rt, t_c));
    EXPECT_RAN(43, f, HOST, ONITY_TASK_STATE_CANCELED, 1);

    tick_range(0, ONITY_TIMING_UPDATE);
    OK(onity_cancel_source_cancel(L.rt, cs1));
    OK(onity_cancel_source_cancel(L.rt, cs1)); /* twice is fine */
    CHECK_EQ_U64(is_canceled(cs1), 1);
    /* Token waits complete at the next run of their timing, not before. */
    EXPECT_NOT_RUN(40);
    EXPECT_NOT_RUN(41);
    CHECK_EQ_U64(state_of(t_a), ONITY_TASK_STATE_PENDING);
    CHECK_EQ_U64(state_of(t_b), ONITY_TASK_STATE_PENDING);
    tick(ONITY_TIMING_UPDATE);
    EXPECT_RAN(40, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, 1);
    EXPECT_RAN(41, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, 0);
    EXPECT_RAN(44, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, 0);
    EXPECT_RAN(45, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, 0);
    EXPECT_ORDER(f, ONITY_TIMING_UPDATE, 0, 40, 41, 44, 45);
    CHECK_EQ_U64(state_of(t_b), ONITY_TASK_STATE_PENDING);
    tick(ONITY_TIMING_LAST_UPDATE);
    CHECK_EQ_U64(state_of(t_b), ONITY_TASK_STATE_CANCELED);
    o = consume(t_b);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    tick_range(ONITY_TIMING_LAST_UPDATE + 1, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(42);

    std_frame(); /* f+1 */
    EXPECT_RAN(42, f + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 0);
    CHECK_EQ_U64(consume(t_d).state, ONITY_TASK_STATE_SUCCEEDED);
    std_frame(); /* f+2: t_c's record falls due and is dropped; nothing runs twice */
    CHECK_EQ_U64(R[43].count, 1);
    CHECK_EQ_U64(R[40].count, 1);
    /* A wait created with an already-canceled token completes canceled at
     * the next run of its timing. */
    OK(onity_delay_frame_then(L.rt, 50, ONITY_TIMING_POST_LATE_UPDATE, cs1, cb, U(46)));
    std_frame(); /* f+3 */
    EXPECT_RAN(46, f + 3, ONITY_TIMING_POST_LATE_UPDATE, ONITY_TASK_STATE_CANCELED, 0);
    OK(onity_cancel_source_destroy(L.rt, cs1));
}

/* Manual tasks, completion from the owner thread, continuations. */
static void test_manual_tasks(void) {
    uint64_t m1, m2, m3, m4, m5, m6;
    OnityOutcome o;

    m1 = manual();
    CHECK_EQ_U64(state_of(m1), ONITY_TASK_STATE_PENDING);
    on_complete(m1, 50);
    EXPECT_NOT_RUN(50);
    OK(onity_task_set_result(L.rt, m1, 1234));
    EXPECT_RAN(50, L.frame, HOST, ONITY_TASK_STATE_SUCCEEDED, 1); /* before set_result returned */
    CHECK(R[50].consumed);
    CHECK_EQ_U64(R[50].outcome.value, 1234);
    CHECK_EQ_U64(R[50].outcome.index, UINT32_MAX);

    m2 = manual();
    OK(onity_task_set_error(L.rt, m2, -7));
    CHECK_EQ_U64(state_of(m2), ONITY_TASK_STATE_FAULTED);
    on_complete(m2, 51); /* already completed: runs before on_complete returns */
    EXPECT_RAN(51, L.frame, HOST, ONITY_TASK_STATE_FAULTED, 1);
    CHECK_EQ_U64(R[51].outcome.state, ONITY_TASK_STATE_FAULTED);
    CHECK(R[51].outcome.error == -7);

    m3 = manual();
    OK(onity_task_cancel(L.rt, m3));
    CHECK_EQ_U64(state_of(m3), ONITY_TASK_STATE_CANCELED);
    o = consume(m3);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);

    m4 = manual();
    OK(onity_task_set_result(L.rt, m4, UINT64_MAX));
    o = consume(m4);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK(o.value == UINT64_MAX);
    CHECK_EQ_U64(o.index, UINT32_MAX);

    /* A continuation that creates and completes another task. */
    m5 = manual();
    R[52].action = act_52;
    on_complete(m5, 52);
    OK(onity_task_set_result(L.rt, m5, 52));
    EXPECT_RAN(52, L.frame, HOST, ONITY_TASK_STATE_SUCCEEDED, 1);
    EXPECT_RAN(53, L.frame, HOST, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[53].outcome.value, 5353);
    CHECK(g_chain_task != 0 && R[53].task == g_chain_task);
    EXPECT_ORDER(L.frame, HOST, 0, 50, 51, 52, 53);

    /* A continuation that leaves the task for the host. */
    m6 = manual();
    R[54].no_consume = 1;
    on_complete(m6, 54);
    OK(onity_task_set_error(L.rt, m6, 99));
    EXPECT_RAN(54, L.frame, HOST, ONITY_TASK_STATE_FAULTED, 1);
    CHECK_EQ_U64(stats().completed_unconsumed, 1);
    o = consume(m6);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_FAULTED);
    CHECK(o.error == 99);
    CHECK_EQ_U64(stats().completed_unconsumed, 0);
}

static void test_when_any(void) {
    uint64_t a[3], w[3], c[3], d[2], e[2], g[2], big[40], mid[20], out;
    uint64_t cs3, cs4;
    uint32_t i;
    OnityOutcome o;
    uint64_t f;

    /* a) manual inputs: the first to complete wins; the losers are consumed
     *    by the combinator when they complete. */
    for (i = 0; i < 3; i++) a[i] = manual();
    out = when_any(a, 3, 0);
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_PENDING);
    on_complete(out, 60);
    OK(onity_task_set_result(L.rt, a[1], 42));
    EXPECT_RAN(60, L.frame, HOST, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[60].outcome.value, 42);
    CHECK_EQ_U64(R[60].outcome.index, 1);
    OK(onity_task_set_error(L.rt, a[0], 5));
    OK(onity_task_cancel(L.rt, a[2]));
    for (i = 0; i < 3; i++) {
        uint32_t s;
        CHECK_STATUS(onity_task_state(L.rt, a[i], &s), ONITY_STATUS_STALE_HANDLE);
    }

    /* b) wait inputs: NextFrame beats DelayFrame(3) and DelayFrame(5). */
    f = L.frame;
    w[0] = df_task(5, ONITY_TIMING_UPDATE, 0);
    w[1] = nf_task(ONITY_TIMING_UPDATE, 0);
    w[2] = df_task(3, ONITY_TIMING_UPDATE, 0);
    out = when_any(w, 3, 0);
    on_complete(out, 61);
    std_frame();
    EXPECT_RAN(61, f + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[61].outcome.index, 1);

    /* c) inputs already completed: the first in array order wins at once. */
    c[0] = manual();
    c[1] = manual();
    c[2] = manual();
    OK(onity_task_set_result(L.rt, c[2], 22));
    OK(onity_task_set_result(L.rt, c[1], 11));
    out = when_any(c, 3, 0);
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_SUCCEEDED);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(o.value, 11);
    CHECK_EQ_U64(o.index, 1);
    OK(onity_task_cancel(L.rt, c[0]));

    /* d) a faulted winner: the output faults with its error. */
    d[0] = manual();
    d[1] = manual();
    out = when_any(d, 2, 0);
    OK(onity_task_set_error(L.rt, d[0], -3));
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_FAULTED);
    CHECK(o.error == -3);
    CHECK_EQ_U64(o.index, 0);
    OK(onity_task_set_result(L.rt, d[1], 1));

    /* e) a token canceled later: canceled at the owner's next tick or drain. */
    cs3 = source();
    e[0] = manual();
    e[1] = manual();
    out = when_any(e, 2, cs3);
    OK(onity_cancel_source_cancel(L.rt, cs3));
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_PENDING);
    begin_std_frame();
    tick(ONITY_TIMING_INITIALIZATION);
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_CANCELED);
    tick_range(ONITY_TIMING_INITIALIZATION + 1, ONITY_TIMING_COUNT);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    CHECK_EQ_U64(o.index, UINT32_MAX);
    OK(onity_task_set_result(L.rt, e[0], 1)); /* still owned and consumed by the combinator */
    OK(onity_task_cancel(L.rt, e[1]));

    /* e') the same with drain instead of a tick. */
    e[0] = manual();
    e[1] = manual();
    OK(onity_cancel_source_destroy(L.rt, cs3));
    cs3 = source();
    out = when_any(e, 2, cs3);
    on_complete(out, 62);
    OK(onity_cancel_source_cancel(L.rt, cs3));
    EXPECT_NOT_RUN(62);
    OK(onity_runtime_drain(L.rt));
    EXPECT_RAN(62, L.frame, HOST, ONITY_TASK_STATE_CANCELED, 1);
    CHECK_EQ_U64(R[62].outcome.index, UINT32_MAX);
    OK(onity_task_cancel(L.rt, e[0]));
    OK(onity_task_set_error(L.rt, e[1], 3));
    OK(onity_cancel_source_destroy(L.rt, cs3));

    /* f) an already-canceled token: canceled at once. */
    cs4 = source();
    OK(onity_cancel_source_cancel(L.rt, cs4));
    g[0] = manual();
    g[1] = manual();
    out = when_any(g, 2, cs4);
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_CANCELED);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    CHECK_EQ_U64(o.index, UINT32_MAX);
    OK(onity_task_cancel(L.rt, g[0]));
    OK(onity_task_cancel(L.rt, g[1]));
    OK(onity_cancel_source_destroy(L.rt, cs4));

    /* g) 17-32 inputs and more than 32 inputs (other coordinator pools). */
    for (i = 0; i < 20; i++) mid[i] = manual();
    out = when_any(mid, 20, 0);
    OK(onity_task_set_result(L.rt, mid[17], 1717));
    o = consume(out);
    CHECK_EQ_U64(o.value, 1717);
    CHECK_EQ_U64(o.index, 17);
    for (i = 0; i < 20; i++)
        if (i != 17) OK(onity_task_cancel(L.rt, mid[i]));
    for (i = 0; i < 40; i++) big[i] = (i % 2) ? manual() : df_task(1 + i, ONITY_TIMING_UPDATE, 0);
    out = when_any(big, 40, 0);
    OK(onity_task_set_result(L.rt, big[39], 3939));
    o = consume(out);
    CHECK_EQ_U64(o.value, 3939);
    CHECK_EQ_U64(o.index, 39);
    for (i = 1; i < 39; i += 2) OK(onity_task_set_result(L.rt, big[i], i));
    /* the DelayFrame inputs finish over the next 40 frames (run below) */
}

static void test_when_all(void) {
    uint64_t in[3], b[3], c[2], big[40], out;
    uint64_t cs5;
    uint32_t i;
    OnityOutcome res[40];
    OnityOutcome o;
    uint64_t f;

    /* a) a Yield, a DelayFrame(2) and a manual task. */
    begin_std_frame();
    f = L.frame;
    in[0] = y_task(ONITY_TIMING_UPDATE, 0);
    in[1] = df_task(2, ONITY_TIMING_UPDATE, 0);
    in[2] = manual();
    out = when_all(in, 3, 0);
    R[70].all_count = 3;
    on_complete(out, 70);
    OK(onity_task_set_result(L.rt, in[2], 7));
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(70);
    CHECK_STATUS(onity_when_all_results(L.rt, out, res, 3), ONITY_STATUS_TASK_PENDING);
    std_frame();
    EXPECT_NOT_RUN(70);
    std_frame();
    EXPECT_RAN(70, f + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[70].outcome.value, 3);
    CHECK_EQ_U64(R[70].outcome.index, UINT32_MAX);
    for (i = 0; i < 3; i++) CHECK_EQ_U64(R[70].all[i].state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(R[70].all[2].value, 7);

    /* b) a failure: the first input (in completion order) that faulted or was
     *    canceled gives the output its state and index. */
    for (i = 0; i < 3; i++) b[i] = manual();
    out = when_all(b, 3, 0);
    OK(onity_task_set_result(L.rt, b[0], 1));
    OK(onity_task_cancel(L.rt, b[2]));
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_PENDING);
    OK(onity_task_set_error(L.rt, b[1], -9));
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_CANCELED);
    OK(onity_when_all_results(L.rt, out, res, 3));
    CHECK_EQ_U64(res[0].state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(res[0].value, 1);
    CHECK_EQ_U64(res[1].state, ONITY_TASK_STATE_FAULTED);
    CHECK(res[1].error == -9);
    CHECK_EQ_U64(res[2].state, ONITY_TASK_STATE_CANCELED);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    CHECK_EQ_U64(o.index, 2);
    CHECK_STATUS(onity_when_all_results(L.rt, out, res, 3), ONITY_STATUS_STALE_HANDLE);

    /* b') a fault first. */
    for (i = 0; i < 3; i++) b[i] = manual();
    out = when_all(b, 3, 0);
    OK(onity_task_set_error(L.rt, b[1], 17));
    OK(onity_task_set_result(L.rt, b[0], 1));
    OK(onity_task_cancel(L.rt, b[2]));
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_FAULTED);
    CHECK(o.error == 17);
    CHECK_EQ_U64(o.index, 1);

    /* c) a token: the output is canceled at the next drain; pending inputs
     *    read as pending. */
    cs5 = source();
    c[0] = manual();
    c[1] = manual();
    out = when_all(c, 2, cs5);
    OK(onity_task_set_result(L.rt, c[0], 5));
    OK(onity_cancel_source_cancel(L.rt, cs5));
    OK(onity_runtime_drain(L.rt));
    CHECK_EQ_U64(state_of(out), ONITY_TASK_STATE_CANCELED);
    OK(onity_when_all_results(L.rt, out, res, 2));
    CHECK_EQ_U64(res[0].state, ONITY_TASK_STATE_SUCCEEDED);
    CHECK_EQ_U64(res[0].value, 5);
    CHECK_EQ_U64(res[1].state, ONITY_TASK_STATE_PENDING);
    o = consume(out);
    CHECK_EQ_U64(o.state, ONITY_TASK_STATE_CANCELED);
    OK(onity_task_set_result(L.rt, c[1], 6)); /* consumed by the combinator */
    OK(onity_cancel_source_destroy(L.rt, cs5));

    /* d) more than 32 inputs, waits of every kind and timing. */
    begin_std_frame();
    f = L.frame;
    for (i = 0; i < 40; i++) {
        uint32_t t = i % ONITY_TIMING_COUNT;
        switch (i % 4) {
        case 0: big[i] = y_task(t, 0); break;
        case 1: big[i] = nf_task(t, 0); break;
        case 2: big[i] = df_task(1, t, 0); break;
        default: big[i] = d_task(0.125, ONITY_CLOCK_SCALED, t, 0); break;
        }
    }
    out = when_all(big, 40, 0);
    R[71].all_count = 40;
    on_complete(out, 71);
    tick_range(0, ONITY_TIMING_COUNT);
    EXPECT_NOT_RUN(71);
    std_frame();
    /* the last input to complete is a frame f+1 wait of the last timing */
    EXPECT_RAN(71, f + 1, ONITY_TIMING_LAST_TIME_UPDATE, ONITY_TASK_STATE_SUCCEEDED, 1);
    CHECK_EQ_U64(R[71].outcome.value, 40);
    for (i = 0; i < 40; i++) CHECK_EQ_U64(R[71].all[i].state, ONITY_TASK_STATE_SUCCEEDED);
    /* (A WhenAll output as an input of another combinator: see
     * repro_nested_when_all.c, a library bug.) */
}

/* ---- batches ---------------------------------------------------------------- */

typedef struct {
    int count;
    uint64_t frame;
    uint32_t timing;
    uint32_t state;
    uint32_t status;
} BatchRec;

static BatchRec B[64];
static int g_batch_order[64];
static int g_batch_norder;

/* Processes the batch's new resumptions, the way a host does after a call:
 * entries [resumed_consumed, resumed_count), then marks them consumed. */
static void take_resumptions(OnityBatch *b, uint32_t timing) {
    uint32_t i;
    CHECK(b->resumed_consumed <= b->resumed_count);
    for (i = b->resumed_consumed; i < b->resumed_count; i++) {
        const OnityResume *r = &b->resumed[i];
        CHECK(r->id > 0 && r->id < 64);
        if (r->id == 0 || r->id >= 64) continue;
        B[r->id].count++;
        B[r->id].frame = L.frame;
        B[r->id].timing = timing;
        B[r->id].state = r->state;
        B[r->id].status = r->status;
        if (g_batch_norder < 64) g_batch_order[g_batch_norder++] = (int)r->id;
    }
    b->resumed_consumed = b->resumed_count;
}

static void batch_add(OnityBatch *b, uint64_t id, uint8_t kind, uint8_t timing, uint64_t arg, uint8_t clock,
                      uint64_t token) {
    OnityBatchRecord *r;
    CHECK(b->submit_count < b->submit_capacity);
    if (b->submit_count >= b->submit_capacity) return;
    r = &b->submit[b->submit_count++];
    memset(r, 0, sizeof *r);
    r->id = id;
    r->kind = kind;
    r->timing = timing;
    r->arg = arg;
    r->clock = clock;
    r->token = token;
}

static void batch_frame(OnityBatch *b) {
    uint32_t t;
    begin_std_frame();
    for (t = 0; t < ONITY_TIMING_COUNT; t++) {
        L.timing = t;
        L.in_tick = 1;
        OK(onity_batch_tick(L.rt, b, t));
        L.in_tick = 0;
        take_resumptions(b, t);
    }
}

static void expect_batch(int line, int id, uint64_t frame, uint32_t timing, uint32_t state, uint32_t status) {
    const BatchRec *r = &B[id];
    if (r->count != 1 || r->frame != frame || r->timing != timing || r->state != state || r->status != status) {
        fprintf(stderr,
                "%s:%d: batch record %d: reported %d times, last at frame %llu timing %u state %u status %u; "
                "expected once at frame %llu timing %u state %u status %u\n",
                __FILE__, line, id, r->count, (unsigned long long)r->frame, (unsigned)r->timing,
                (unsigned)r->state, (unsigned)r->status, (unsigned long long)frame, (unsigned)timing,
                (unsigned)state, (unsigned)status);
        g_failures++;
    }
}
#define EXPECT_BATCH(id, frame, timing, state, status) expect_batch(__LINE__, id, frame, timing, state, status)

static void test_batch(void) {
    OnityBatch *b = NULL, *b2 = NULL;
    uint64_t cs, m, m2, seconds_bits, f;
    const double quarter = 0.25;
    OnityStats s0, s1;
    uint32_t t;
    int i;

    OK(onity_batch_create(L.rt, 8, &b));
    CHECK(b != NULL);
    if (!b) return;
    CHECK_EQ_U64(b->size, sizeof *b);
    CHECK_EQ_U64(b->submit_capacity, 8);
    CHECK(b->submit != NULL);
    CHECK_EQ_U64(b->submit_count, 0);
    CHECK_EQ_U64(b->resumed_count, 0);
    memcpy(&seconds_bits, &quarter, sizeof seconds_bits);

    begin_std_frame();
    f = L.frame;
    cs = source();
    m = manual();
    batch_add(b, 1, ONITY_WAIT_KIND_YIELD, ONITY_TIMING_UPDATE, 0, 0, 0);
    batch_add(b, 2, ONITY_WAIT_KIND_NEXT_FRAME, ONITY_TIMING_UPDATE, 0, 0, 0);
    batch_add(b, 3, ONITY_WAIT_KIND_DELAY_FRAME, ONITY_TIMING_UPDATE, 2, 0, 0);
    batch_add(b, 4, ONITY_WAIT_KIND_DELAY, ONITY_TIMING_UPDATE, seconds_bits, ONITY_CLOCK_SCALED, 0);
    batch_add(b, 5, ONITY_BATCH_TASK, 0, m, 0, 0);
    batch_add(b, 6, ONITY_WAIT_KIND_YIELD, 16, 0, 0, 0);                      /* bad timing: rejected */
    batch_add(b, 7, ONITY_WAIT_KIND_DELAY_FRAME, ONITY_TIMING_UPDATE, 100, 0, cs); /* canceled below */
    batch_add(b, 8, ONITY_WAIT_KIND_YIELD, ONITY_TIMING_EARLY_UPDATE, 0, 0, 0);
    CHECK_EQ_U64(b->submit_count, 8);
    OK(onity_batch_flush(L.rt, b)); /* full: file now */
    CHECK_EQ_U64(b->submit_count, 0);
    take_resumptions(b, HOST);
    EXPECT_BATCH(6, f, HOST, ONITY_TASK_STATE_FAULTED, ONITY_STATUS_INVALID_ARGUMENT);
    /* written after the flush: filed by the next batch call */
    batch_add(b, 9, ONITY_WAIT_KIND_YIELD, ONITY_TIMING_UPDATE, 0, 0, 0);
    batch_add(b, 10, ONITY_BATCH_TASK, 0, m, 0, 0); /* m already awaited by record 5 */
    batch_add(b, 11, ONITY_WAIT_KIND_DELAY, ONITY_TIMING_UPDATE, 0, 7, 0); /* bad clock */

    for (t = 0; t < ONITY_TIMING_COUNT; t++) {
        if (t == ONITY_TIMING_UPDATE) OK(onity_cancel_source_cancel(L.rt, cs));
        L.timing = t;
        L.in_tick = 1;
        OK(onity_batch_tick(L.rt, b, t));
        L.in_tick = 0;
        take_resumptions(b, t);
        if (t == ONITY_TIMING_PRE_UPDATE) {
            for (i = 1; i <= 11; i++)
                if (i != 6 && i != 8 && i != 10 && i != 11) CHECK_EQ_U64(B[i].count, 0);
            OK(onity_task_set_result(L.rt, m, 55)); /* on the owner: reported at once */
            take_resumptions(b, HOST);
            EXPECT_BATCH(5, f, HOST, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
            CHECK_EQ_U64(consume(m).value, 55); /* the host consumes BATCH_TASK tasks */
        }
    }
    EXPECT_BATCH(10, f, ONITY_TIMING_INITIALIZATION, ONITY_TASK_STATE_FAULTED, ONITY_STATUS_ALREADY_AWAITED);
    EXPECT_BATCH(11, f, ONITY_TIMING_INITIALIZATION, ONITY_TASK_STATE_FAULTED, ONITY_STATUS_INVALID_ARGUMENT);
    EXPECT_BATCH(8, f, ONITY_TIMING_EARLY_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    EXPECT_BATCH(1, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    EXPECT_BATCH(7, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, ONITY_STATUS_OK);
    EXPECT_BATCH(9, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    {
        /* scheduling order within Update: 1 and 7 (flush), then 9 */
        int k, pos1 = -1, pos7 = -1, pos9 = -1;
        for (k = 0; k < g_batch_norder; k++) {
            if (g_batch_order[k] == 1) pos1 = k;
            if (g_batch_order[k] == 7) pos7 = k;
            if (g_batch_order[k] == 9) pos9 = k;
        }
        CHECK(pos1 >= 0 && pos1 < pos7 && pos7 < pos9);
    }
    CHECK_EQ_U64(B[2].count, 0);

    batch_frame(b); /* f+1 */
    EXPECT_BATCH(2, f + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    CHECK_EQ_U64(B[3].count, 0);
    CHECK_EQ_U64(B[4].count, 0);
    batch_frame(b); /* f+2: DelayFrame(2) and 2 x 0.125 scaled seconds */
    EXPECT_BATCH(3, f + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    EXPECT_BATCH(4, f + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    for (i = 1; i <= 11; i++) CHECK_EQ_U64(B[i].count, 1);

    /* Destroying a batch cancels what it filed, reported nowhere; a task it
     * was awaiting is left to the host. */
    OK(onity_batch_create(L.rt, 4, &b2));
    m2 = manual();
    batch_add(b2, 20, ONITY_WAIT_KIND_DELAY_FRAME, ONITY_TIMING_UPDATE, 1000, 0, 0);
    batch_add(b2, 21, ONITY_WAIT_KIND_NEXT_FRAME, ONITY_TIMING_LAST_UPDATE, 0, 0, 0);
    batch_add(b2, 22, ONITY_BATCH_TASK, 0, m2, 0, 0);
    OK(onity_batch_flush(L.rt, b2));
    s0 = stats();
    OK(onity_batch_destroy(L.rt, b2));
    s1 = stats();
    CHECK_EQ_U64(s1.waits[ONITY_WAIT_KIND_DELAY_FRAME].pending + 1, s0.waits[ONITY_WAIT_KIND_DELAY_FRAME].pending);
    CHECK_EQ_U64(s1.waits[ONITY_WAIT_KIND_DELAY_FRAME].canceled, s0.waits[ONITY_WAIT_KIND_DELAY_FRAME].canceled + 1);
    CHECK_EQ_U64(s1.waits[ONITY_WAIT_KIND_NEXT_FRAME].pending + 1, s0.waits[ONITY_WAIT_KIND_NEXT_FRAME].pending);
    CHECK_STATUS(onity_batch_flush(L.rt, b2), ONITY_STATUS_INVALID_HANDLE); /* gone */
    OK(onity_task_set_result(L.rt, m2, 2));
    CHECK_EQ_U64(consume(m2).value, 2);
    batch_frame(b);
    for (i = 20; i <= 22; i++) CHECK_EQ_U64(B[i].count, 0);

    OK(onity_cancel_source_destroy(L.rt, cs));
    OK(onity_batch_destroy(L.rt, b));
}

/* Statistics and the live task list agree with what the test holds. */
static void test_live_tasks(void) {
    uint64_t t[5], list[16];
    uint32_t n = 0, i, j, found;
    uint32_t before = live_count();
    OnityStats s;
    for (i = 0; i < 5; i++) t[i] = manual();
    CHECK_EQ_U64(live_count(), before + 5);
    s = stats();
    CHECK_EQ_U64(s.live_tasks, before + 5);
    CHECK_EQ_U64(s.pools[ONITY_POOL_TASKS].live, before + 5);
    OK(onity_runtime_live_tasks(L.rt, list, 16, &n));
    CHECK_EQ_U64(n, before + 5);
    for (i = 0; i < 5; i++) {
        found = 0;
        for (j = 0; j < n && j < 16; j++) found += list[j] == t[i];
        CHECK_EQ_U64(found, 1);
    }
    /* capacity smaller than the count: the count is still the total */
    OK(onity_runtime_live_tasks(L.rt, list, 2, &n));
    CHECK_EQ_U64(n, before + 5);
    for (i = 0; i < 5; i++) OK(onity_task_set_result(L.rt, t[i], i));
    CHECK_EQ_U64(stats().completed_unconsumed, 5);
    for (i = 0; i < 5; i++) CHECK_EQ_U64(consume(t[i]).value, i);
    CHECK_EQ_U64(live_count(), before);

    /* A burst past the configured task_capacity (64): each rent of a
     * never-used slot beyond it is a cold allocation; reused slots are not.
     * The pool's `capacity` is the number of slots allocated, in chunks of
     * 1024, at least the configured capacity. */
    {
        uint64_t burst[100];
        OnityStats s0 = stats(), s1, s2;
        const OnityPoolStats *tp;
        for (i = 0; i < 100; i++) burst[i] = manual();
        s1 = stats();
        tp = &s1.pools[ONITY_POOL_TASKS];
        CHECK(tp->high_water >= before + 100);
        CHECK(tp->high_water > 64);
        CHECK_EQ_U64(tp->cold_allocations, tp->high_water - 64);
        CHECK(tp->cold_allocations > s0.pools[ONITY_POOL_TASKS].cold_allocations);
        CHECK(tp->capacity >= 64 && tp->capacity % 1024 == 0);
        CHECK(tp->live + tp->idle <= tp->capacity);
        for (i = 0; i < 100; i++) OK(onity_task_cancel(L.rt, burst[i]));
        for (i = 0; i < 100; i++) consume(burst[i]);
        for (i = 0; i < 100; i++) burst[i] = manual(); /* reuses slots: no new cold allocation */
        s2 = stats();
        CHECK_EQ_U64(s2.pools[ONITY_POOL_TASKS].cold_allocations, s1.pools[ONITY_POOL_TASKS].cold_allocations);
        for (i = 0; i < 100; i++) OK(onity_task_set_result(L.rt, burst[i], i));
        for (i = 0; i < 100; i++) CHECK_EQ_U64(consume(burst[i]).value, i);
    }
}

static void check_final_stats(void) {
    OnityStats s = stats();
    uint32_t p, k;
    CHECK_EQ_U64(s.size, sizeof s);
    CHECK_EQ_U64(s.pool_count, ONITY_POOL_COUNT);
    CHECK_EQ_U64(s.frame, L.frame);
    CHECK_EQ_U64(s.live_tasks, 0);
    CHECK_EQ_U64(s.completed_unconsumed, 0);
    CHECK_EQ_U64(s.cross_thread_queued, 0);
    CHECK_EQ_U64(live_count(), 0);
    for (p = 0; p < ONITY_POOL_COUNT; p++) {
        const OnityPoolStats *ps = &s.pools[p];
        /* Task and cancel slots count never-used slots as idle, and wait
         * records count storage, so "idle <= capacity" is for the
         * coordinator pools only. */
        int object_pool = p >= ONITY_POOL_WHEN_ANY16;
        if (ps->rents != ps->returns || ps->live != 0 || ps->high_water > ps->rents ||
            (object_pool && (ps->idle > ps->capacity || ps->cold_allocations > ps->rents ||
                             ps->discards > ps->returns))) {
            fprintf(stderr,
                    "pool %s: capacity %llu idle %llu live %llu high_water %llu rents %llu "
                    "returns %llu cold %llu discards %llu\n",
                    onity_pool_name(p), (unsigned long long)ps->capacity,
                    (unsigned long long)ps->idle, (unsigned long long)ps->live,
                    (unsigned long long)ps->high_water, (unsigned long long)ps->rents,
                    (unsigned long long)ps->returns, (unsigned long long)ps->cold_allocations,
                    (unsigned long long)ps->discards);
            g_failures++;
        }
    }
    /* every pool this test used saw traffic */
    CHECK(s.pools[ONITY_POOL_TASKS].rents > 100);
    CHECK(s.pools[ONITY_POOL_CANCEL_SOURCES].rents >= 6);
    CHECK(s.pools[ONITY_POOL_WAIT_RECORDS].rents > 50);
    CHECK(s.pools[ONITY_POOL_WHEN_ANY16].rents >= 7);
    CHECK(s.pools[ONITY_POOL_WHEN_ANY32].rents >= 1);
    CHECK(s.pools[ONITY_POOL_WHEN_ANY_LARGE].rents >= 1);
    CHECK(s.pools[ONITY_POOL_WHEN_ALL16].rents >= 4);
    CHECK(s.pools[ONITY_POOL_WHEN_ALL_LARGE].rents >= 1);
    CHECK_EQ_U64(s.pools[ONITY_POOL_WHEN_ANY_LARGE].idle, 0); /* never pooled */
    CHECK_EQ_U64(s.pools[ONITY_POOL_WHEN_ALL_LARGE].idle, 0);
    for (k = 0; k < ONITY_WAIT_KIND_COUNT; k++) {
        const OnityWaitStats *w = &s.waits[k];
        if (w->pending != 0 || w->scheduled != w->completed + w->canceled || w->scheduled == 0 ||
            w->high_water == 0 || w->high_water > w->scheduled) {
            fprintf(stderr, "wait kind %u: pending %llu high_water %llu scheduled %llu "
                            "completed %llu canceled %llu\n",
                    (unsigned)k, (unsigned long long)w->pending, (unsigned long long)w->high_water,
                    (unsigned long long)w->scheduled, (unsigned long long)w->completed,
                    (unsigned long long)w->canceled);
            g_failures++;
        }
    }
    CHECK(s.waits[ONITY_WAIT_KIND_YIELD].canceled >= 1);
    CHECK(s.waits[ONITY_WAIT_KIND_DELAY_FRAME].canceled >= 2);
    CHECK(s.waits[ONITY_WAIT_KIND_DELAY].canceled >= 1);
    CHECK(s.waits[ONITY_WAIT_KIND_NEXT_FRAME].canceled >= 1);
}

int main(void) {
    OnityRuntimeConfig cfg;
    int i;

    test_names_and_version();

    memset(&cfg, 0xEE, sizeof cfg);
    OK(onity_runtime_config_init(&cfg, (uint32_t)sizeof cfg));
    CHECK_EQ_U64(cfg.size, sizeof cfg);
    CHECK_EQ_U64(cfg.frame_alloc_prefault, 0);
    CHECK_EQ_U64(cfg.reserved, 0);
    CHECK_EQ_U64(cfg.task_capacity, 4096);
    CHECK_EQ_U64(cfg.cancel_capacity, 256);
    CHECK_EQ_U64(cfg.wait_capacity, 8192);
    CHECK_EQ_U64(cfg.combinator16_capacity, 256);
    CHECK_EQ_U64(cfg.combinator32_capacity, 128);
    cfg.task_capacity = 64; /* small: the test grows past it */
    cfg.cancel_capacity = 4;
    cfg.wait_capacity = 16;
    cfg.combinator16_capacity = 2;
    cfg.combinator32_capacity = 1;
    OK(onity_runtime_create(&cfg, &L.rt));
    CHECK(L.rt != NULL);
    if (L.rt == NULL) return 1;
    L.frame = 100; /* frame numbers need not start at 1 */

    test_waits();
    test_pause();
    test_fixed_update();
    test_wait_cancellation();
    test_manual_tasks();
    test_live_tasks();
    test_when_any();
    test_when_all();
    test_batch();
    /* Let every outstanding wait (the WhenAny losers of test_when_any) finish. */
    for (i = 0; i < 45; i++) std_frame();

    check_final_stats();
    {
        OnityStats s = stats();
        printf("frames %llu, tasks rented %llu (cold %llu), waits scheduled %llu/%llu/%llu/%llu\n",
               (unsigned long long)s.frame, (unsigned long long)s.pools[ONITY_POOL_TASKS].rents,
               (unsigned long long)s.pools[ONITY_POOL_TASKS].cold_allocations,
               (unsigned long long)s.waits[0].scheduled, (unsigned long long)s.waits[1].scheduled,
               (unsigned long long)s.waits[2].scheduled, (unsigned long long)s.waits[3].scheduled);
    }
    OK(onity_runtime_destroy(L.rt));
    L.rt = NULL;

    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
