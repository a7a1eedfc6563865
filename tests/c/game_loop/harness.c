/*
 * harness.c: the game loop of the game_loop program (frames and ticks), the
 * continuation every scenario registers and the checks on what it recorded,
 * and the helpers that create tasks, waits, sources and combinators.
 */
#include "game_loop.h"

/* ---- the loop ---------------------------------------------------------- */
Loop L;

void begin_frame(double dt, double udt, double rdt) {
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
void begin_std_frame(void) { begin_frame(0.125, 0.25, 0.25); }

void tick(uint32_t t) {
    L.timing = t;
    L.run = L.runs[t]++;
    L.in_tick = 1;
    OK(onity_runtime_tick(L.rt, t));
    L.in_tick = 0;
}

/* Ticks timings [from, to). */
void tick_range(uint32_t from, uint32_t to) {
    uint32_t t;
    for (t = from; t < to; t++) tick(t);
}

void std_frame(void) {
    begin_std_frame();
    tick_range(0, ONITY_TIMING_COUNT);
}

/* ---- continuations ------------------------------------------------------ */

Rec R[MAX_ID];

typedef struct {
    int id;
    uint64_t frame;
    uint32_t timing;
    uint32_t run;
} Event;

static Event g_events[4096];
static int g_nevents;

void cb(void *user, uint64_t task, uint32_t state) {
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
void expect_ran_run(const char *file, int line, int id, uint64_t frame, uint32_t timing,
                    uint32_t run, uint32_t state, int task_form) {
    Rec *r = &R[id];
    if (r->count != 1 || r->frame != frame || r->timing != timing || r->run != run ||
        r->state != state || (r->task != 0) != (task_form != 0)) {
        fprintf(stderr,
                "%s:%d: continuation %d: ran %d times, last at frame %llu timing %u run %u "
                "state %u task %s; expected once at frame %llu timing %u (%s) run %u state %u "
                "task %s\n",
                file, line, id, r->count, (unsigned long long)r->frame, (unsigned)r->timing,
                (unsigned)r->run, (unsigned)r->state, r->task ? "yes" : "no",
                (unsigned long long)frame, (unsigned)timing,
                timing == HOST ? "host" : onity_timing_name(timing), (unsigned)run,
                (unsigned)state, task_form ? "yes" : "no");
        g_failures++;
    }
}

void expect_not_run(const char *file, int line, int id) {
    if (R[id].count != 0) {
        fprintf(stderr, "%s:%d: continuation %d ran too early (frame %llu timing %u)\n", file,
                line, id, (unsigned long long)R[id].frame, (unsigned)R[id].timing);
        g_failures++;
    }
}

/* The continuations that ran at (frame, timing, run) are exactly `ids`, in
 * this order. */
void expect_order(const char *file, int line, uint64_t frame, uint32_t timing, uint32_t run,
                  const int *ids, int n) {
    int got[256], ng = 0, i, same;
    for (i = 0; i < g_nevents; i++) {
        const Event *e = &g_events[i];
        if (e->frame == frame && e->timing == timing && e->run == run && ng < 256)
            got[ng++] = e->id;
    }
    same = ng == n;
    for (i = 0; same && i < n; i++) same = got[i] == ids[i];
    if (!same) {
        fprintf(stderr, "%s:%d: order at frame %llu %s run %u: got [", file, line,
                (unsigned long long)frame, onity_timing_name(timing), (unsigned)run);
        for (i = 0; i < ng; i++) fprintf(stderr, "%s%d", i ? " " : "", got[i]);
        fprintf(stderr, "], expected [");
        for (i = 0; i < n; i++) fprintf(stderr, "%s%d", i ? " " : "", ids[i]);
        fprintf(stderr, "]\n");
        g_failures++;
    }
}
/* ---- helpers ------------------------------------------------------------ */

uint64_t manual(void) {
    uint64_t h = 0;
    OK(onity_task_create(L.rt, &h));
    CHECK(h != 0);
    return h;
}

uint32_t state_of(uint64_t task) {
    uint32_t s = 0xFFFFFFFFu;
    OK(onity_task_state(L.rt, task, &s));
    return s;
}

OnityOutcome consume(uint64_t task) {
    OnityOutcome o;
    memset(&o, 0xAB, sizeof o);
    OK(onity_task_consume(L.rt, task, &o));
    return o;
}

void on_complete(uint64_t task, int id) { OK(onity_task_on_complete(L.rt, task, cb, U(id))); }

uint64_t y_task(uint32_t timing, uint64_t token) {
    uint64_t h = 0;
    OK(onity_yield(L.rt, timing, token, &h));
    CHECK(h != 0);
    return h;
}
uint64_t nf_task(uint32_t timing, uint64_t token) {
    uint64_t h = 0;
    OK(onity_next_frame(L.rt, timing, token, &h));
    CHECK(h != 0);
    return h;
}
uint64_t df_task(uint32_t frames, uint32_t timing, uint64_t token) {
    uint64_t h = 0;
    OK(onity_delay_frame(L.rt, frames, timing, token, &h));
    CHECK(h != 0);
    return h;
}
uint64_t d_task(double seconds, uint32_t clock, uint32_t timing, uint64_t token) {
    uint64_t h = 0;
    OK(onity_delay(L.rt, seconds, clock, timing, token, &h));
    CHECK(h != 0);
    return h;
}
uint64_t source(void) {
    uint64_t s = 0;
    OK(onity_cancel_source_create(L.rt, &s));
    CHECK(s != 0);
    return s;
}
uint32_t is_canceled(uint64_t src) {
    uint32_t c = 0xFFu;
    OK(onity_cancel_source_is_canceled(L.rt, src, &c));
    return c;
}
uint64_t when_any(const uint64_t *in, uint32_t n, uint64_t token) {
    uint64_t h = 0;
    OK(onity_when_any(L.rt, in, n, token, &h));
    CHECK(h != 0);
    return h;
}
uint64_t when_all(const uint64_t *in, uint32_t n, uint64_t token) {
    uint64_t h = 0;
    OK(onity_when_all(L.rt, in, n, token, &h));
    CHECK(h != 0);
    return h;
}
OnityStats stats(void) {
    OnityStats s;
    memset(&s, 0, sizeof s);
    s.size = (uint32_t)sizeof s;
    OK(onity_runtime_stats(L.rt, &s));
    return s;
}
uint32_t live_count(void) {
    uint32_t n = 0xFFFFFFFFu;
    OK(onity_runtime_live_tasks(L.rt, NULL, 0, &n));
    return n;
}
