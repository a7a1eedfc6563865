// semantics.cpp: every awaiter completes exactly where the C rules say, frame
// for frame. Differential: each coroutine wait is made at the same moment as
// the C callback wait of the same kind, over a script of frames with varying
// clocks, skipped timings and 0-2 FixedUpdate runs, and both must complete at
// the same (frame, timing, run). Plus the README table's cases checked
// directly, chained waits, until / while_ against the C# rule, and the native
// combinators against C.
#include "check.hpp"

using namespace onity;
using t20::host;
using t20::point;

namespace {

host *g = nullptr;

struct rec {
    point p;
    int hits = 0;
    uint32_t state = 99;
};

void c_record(void *user, uint64_t, uint32_t state) {
    rec *r = static_cast<rec *>(user);
    r->p = g->now();
    r->hits++;
    r->state = state;
}

enum kind { k_yield, k_next, k_df0, k_df1, k_df2, k_d0, k_ds, k_du, k_dr, kind_count };

const char *kind_name(int k) {
    static const char *n[] = {"yield", "next_frame", "delay_frame(0)", "delay_frame(1)", "delay_frame(2)",
                              "delay(0)", "delay(scaled)", "delay(unscaled)", "delay(realtime)"};
    return n[k];
}

OnityStatus c_wait(int k, uint32_t timing, rec *r) {
    OnityRuntime *rt = g->raw();
    switch (k) {
        case k_yield: return onity_yield_then(rt, timing, 0, &c_record, r);
        case k_next: return onity_next_frame_then(rt, timing, 0, &c_record, r);
        case k_df0: return onity_delay_frame_then(rt, 0, timing, 0, &c_record, r);
        case k_df1: return onity_delay_frame_then(rt, 1, timing, 0, &c_record, r);
        case k_df2: return onity_delay_frame_then(rt, 2, timing, 0, &c_record, r);
        case k_d0: return onity_delay_then(rt, 0.0, ONITY_CLOCK_SCALED, timing, 0, &c_record, r);
        case k_ds: return onity_delay_then(rt, 0.025, ONITY_CLOCK_SCALED, timing, 0, &c_record, r);
        case k_du: return onity_delay_then(rt, 0.035, ONITY_CLOCK_UNSCALED, timing, 0, &c_record, r);
        default: return onity_delay_then(rt, 0.04, ONITY_CLOCK_REALTIME, timing, 0, &c_record, r);
    }
}

task<> co_wait(int k, Timing t, rec *r) {
    switch (k) {
        case k_yield: co_await yield(t); break;
        case k_next: co_await next_frame(t); break;
        case k_df0: co_await delay_frame(0, t); break;
        case k_df1: co_await delay_frame(1, t); break;
        case k_df2: co_await delay_frame(2, t); break;
        case k_d0: co_await delay(0.0, Clock::Scaled, t); break;
        case k_ds: co_await delay(0.025, Clock::Scaled, t); break;
        case k_du: co_await delay(0.035, Clock::Unscaled, t); break;
        default: co_await delay(std::chrono::milliseconds(40), Clock::Realtime, t); break;
    }
    r->p = g->now();
    r->hits++;
    r->state = ONITY_TASK_STATE_SUCCEEDED;
}

const uint32_t targets[] = {ONITY_TIMING_INITIALIZATION, ONITY_TIMING_FIXED_UPDATE, ONITY_TIMING_UPDATE,
                            ONITY_TIMING_LAST_UPDATE, ONITY_TIMING_LAST_TIME_UPDATE};
const uint32_t spawn_timings[] = {ONITY_TIMING_INITIALIZATION, ONITY_TIMING_FIXED_UPDATE, ONITY_TIMING_UPDATE,
                                  ONITY_TIMING_LAST_POST_LATE_UPDATE};

struct pair_rec {
    rec c, co;
    int kind;
    uint32_t target;
    point made;
};
std::vector<pair_rec> *g_pairs;
std::vector<task<>> *g_tasks;

void spawn_all() {
    for (uint32_t tg : targets) {
        for (int k = 0; k < kind_count; k++) {
            g_pairs->push_back(pair_rec{});
            pair_rec &pr = g_pairs->back();
            pr.kind = k;
            pr.target = tg;
            pr.made = g->now();
            CHECK_EQ(c_wait(k, tg, &pr.c), ONITY_STATUS_OK);
            g_tasks->push_back(co_wait(k, t20::T(tg), &pr.co));
        }
    }
}
void spawn_cb(void *, uint64_t, uint32_t state) {
    if (state == ONITY_TASK_STATE_SUCCEEDED) spawn_all();
}

/* Frame f of the script: clocks, which timings run, FixedUpdate runs. */
void run_script_frame(uint64_t f, bool spawn) {
    const double dt = 0.01 * static_cast<double>(f % 3 + 1);
    g->begin(dt, 0.02, 0.015);
    const int fixed_runs = static_cast<int>(f % 3);
    for (uint32_t t = 0; t < ONITY_TIMING_COUNT; t++) {
        if (f == 4 && t == ONITY_TIMING_UPDATE) continue;           // a frame without Update
        if (f == 7 && t == ONITY_TIMING_INITIALIZATION) continue;  // nor Initialization
        const bool fixed = t == ONITY_TIMING_FIXED_UPDATE || t == ONITY_TIMING_LAST_FIXED_UPDATE;
        const int runs = fixed ? fixed_runs : 1;
        for (int r = 0; r < runs; r++) {
            if (spawn && r == 0) {
                for (uint32_t s : spawn_timings) {
                    if (s != t) continue;
                    spawn_all();  // between ticks: before this timing's run
                    CHECK_EQ(onity_yield_then(g->raw(), t, 0, &spawn_cb, nullptr), ONITY_STATUS_OK);  // inside it
                }
            }
            g->tick(t20::T(t));
        }
    }
}

}  // namespace

TEST(frame_waits_match_the_c_rules) {
    host h;
    g = &h;
    std::vector<pair_rec> pairs;
    std::vector<task<>> tasks;
    pairs.reserve(8000);
    g_pairs = &pairs;
    g_tasks = &tasks;
    spawn_all();  // before the first frame
    for (uint64_t f = 1; f <= 20; f++) run_script_frame(f, f <= 3 || f == 5 || f == 7);
    CHECK(pairs.size() > 1500);
    int mismatches = 0;
    for (const pair_rec &p : pairs) {
        CHECK_EQ(p.c.hits, 1);
        CHECK_EQ(p.co.hits, 1);
        if (p.c.p != p.co.p && mismatches++ < 10)
            std::fprintf(stderr,
                         "%s on %s made at frame %llu timing %u: C at (%llu, %u, run %llu), coroutine at (%llu, %u, "
                         "run %llu)\n",
                         kind_name(p.kind), onity_timing_name(p.target), (unsigned long long)p.made.frame,
                         p.made.timing, (unsigned long long)p.c.p.frame, p.c.p.timing, (unsigned long long)p.c.p.run,
                         (unsigned long long)p.co.p.frame, p.co.p.timing, (unsigned long long)p.co.p.run);
    }
    CHECK_EQ(mismatches, 0);
    for (task<> &t : tasks) CHECK(t.done() && t.state() == TaskState::Succeeded);
    CHECK_EQ(t20::misuse.count, 0);
    g = nullptr;
}

namespace {
task<> record_after(host &h, point *out, int which) {
    switch (which) {
        case 0: co_await next_frame(Timing::Update); break;
        case 1: co_await yield(Timing::Update); break;
        case 2: co_await delay_frame(3); break;
        case 3: co_await delay(0.04); break;
        default: co_await delay_frame(0, Timing::FixedUpdate); break;
    }
    *out = h.now();
}
}  // namespace

/* The README's table, checked directly. */
TEST(readme_table_cases) {
    host h;
    point p[8];
    std::vector<task<>> ts;
    ts.push_back(record_after(h, &p[0], 2));  // DelayFrame(3) before the first frame: its third frame
    h.frame_all();                             // frame 1
    h.begin();                                 // frame 2
    h.tick(Timing::Initialization);
    ts.push_back(record_after(h, &p[1], 0));  // NextFrame made in frame 2 (before Update): frame 3's Update
    ts.push_back(record_after(h, &p[2], 1));  // Yield before Update has run: this frame's Update
    h.tick(Timing::Update);
    ts.push_back(record_after(h, &p[3], 1));  // Yield after Update ran: next frame's Update
    ts.push_back(record_after(h, &p[4], 4));  // DelayFrame(0) = Yield on FixedUpdate (none left this frame)
    for (uint32_t t = ONITY_TIMING_LAST_UPDATE; t < ONITY_TIMING_COUNT; t++) h.tick(t20::T(t));
    ts.push_back(record_after(h, &p[5], 3));  // Delay(0.04 s) at 1/60 s per frame: 3 frames later
    h.frames(6);
    CHECK_EQ(p[0].frame, 3u);
    CHECK_EQ(p[0].timing, static_cast<uint32_t>(ONITY_TIMING_UPDATE));
    CHECK_EQ(p[1].frame, 3u);
    CHECK_EQ(p[2].frame, 2u);
    CHECK_EQ(p[2].timing, static_cast<uint32_t>(ONITY_TIMING_UPDATE));
    CHECK_EQ(p[3].frame, 3u);
    CHECK_EQ(p[4].frame, 3u);
    CHECK_EQ(p[4].timing, static_cast<uint32_t>(ONITY_TIMING_FIXED_UPDATE));
    CHECK_EQ(p[5].frame, 5u);  // 3/60 >= 0.04 first at frame 2 + 3
    for (task<> &t : ts) CHECK(t.done());
}

namespace {
/* A chain of waits made from each resumption (inside the runtime's tick),
 * as a coroutine and as C callbacks re-arming from their callback. */
struct step {
    int kind;
    uint32_t timing;
};
const step chain[] = {{k_yield, ONITY_TIMING_UPDATE},     {k_next, ONITY_TIMING_FIXED_UPDATE},
                      {k_df2, ONITY_TIMING_LAST_UPDATE},  {k_du, ONITY_TIMING_INITIALIZATION},
                      {k_yield, ONITY_TIMING_TIME_UPDATE}, {k_df0, ONITY_TIMING_TIME_UPDATE},
                      {k_next, ONITY_TIMING_UPDATE},      {k_ds, ONITY_TIMING_FIXED_UPDATE},
                      {k_dr, ONITY_TIMING_LAST_TIME_UPDATE}, {k_d0, ONITY_TIMING_UPDATE}};
constexpr int chain_len = sizeof chain / sizeof chain[0];

struct c_chain {
    point at[chain_len];
    int i = 0;
    rec r;
};
void c_chain_cb(void *user, uint64_t, uint32_t) {
    c_chain *c = static_cast<c_chain *>(user);
    c->at[c->i++] = g->now();
    if (c->i < chain_len) {
        const step &s = chain[c->i];
        OnityRuntime *rt = g->raw();
        switch (s.kind) {
            case k_yield: onity_yield_then(rt, s.timing, 0, &c_chain_cb, c); break;
            case k_next: onity_next_frame_then(rt, s.timing, 0, &c_chain_cb, c); break;
            case k_df0: onity_delay_frame_then(rt, 0, s.timing, 0, &c_chain_cb, c); break;
            case k_df2: onity_delay_frame_then(rt, 2, s.timing, 0, &c_chain_cb, c); break;
            case k_d0: onity_delay_then(rt, 0.0, ONITY_CLOCK_SCALED, s.timing, 0, &c_chain_cb, c); break;
            case k_ds: onity_delay_then(rt, 0.025, ONITY_CLOCK_SCALED, s.timing, 0, &c_chain_cb, c); break;
            case k_du: onity_delay_then(rt, 0.035, ONITY_CLOCK_UNSCALED, s.timing, 0, &c_chain_cb, c); break;
            default: onity_delay_then(rt, 0.04, ONITY_CLOCK_REALTIME, s.timing, 0, &c_chain_cb, c); break;
        }
    }
}
task<> co_chain(point *at) {
    for (int i = 0; i < chain_len; i++) {
        rec r;
        co_await co_wait(chain[i].kind, t20::T(chain[i].timing), &r);
        at[i] = r.p;
    }
}
}  // namespace

TEST(chained_waits_match_c_callbacks) {
    host h;
    g = &h;
    for (int start = 0; start < 3; start++) {
        c_chain c;
        point at[chain_len];
        h.begin();
        h.tick(Timing::Initialization);
        CHECK_EQ(onity_yield_then(h.raw(), chain[0].timing, 0, &c_chain_cb, &c), ONITY_STATUS_OK);
        task<> t = co_chain(at);
        for (uint32_t tm = 1; tm < ONITY_TIMING_COUNT; tm++) h.tick(t20::T(tm));
        for (uint64_t f = 0; f < 40; f++) run_script_frame(f + start, false);
        CHECK(t.done());
        CHECK_EQ(c.i, chain_len);
        for (int i = 0; i < chain_len; i++) CHECK(at[i] == c.at[i]);
    }
    g = nullptr;
}

namespace {
int c_until_checks = 0;
int c_until_goal = 0;
struct until_rec {
    rec r;
    bool want;
};
void c_until_cb(void *user, uint64_t, uint32_t) {
    until_rec *u = static_cast<until_rec *>(user);
    c_until_checks++;
    if ((g->frame >= static_cast<uint64_t>(c_until_goal)) == u->want) {
        u->r.p = g->now();
        u->r.hits++;
        return;
    }
    onity_yield_then(g->raw(), ONITY_TIMING_LAST_UPDATE, 0, &c_until_cb, u);
}
task<> co_until(int goal, bool want, point *out, int *checks) {
    auto pred = [goal, checks] {
        ++*checks;
        return g->frame >= static_cast<uint64_t>(goal);
    };
    if (want)
        co_await until(pred, Timing::LastUpdate);
    else
        co_await while_([&] { return !pred(); }, Timing::LastUpdate);
    *out = g->now();
}
}  // namespace

/* until / while_: a predicate true already is still first checked at the
 * next run (C#'s WaitUntil rule), then once per run, without resuming. */
TEST(until_and_while_match_a_yield_loop) {
    host h;
    g = &h;
    for (int goal : {0, 1, 3, 6}) {
        for (bool want : {true, false}) {
            h.frame_all();
            c_until_checks = 0;
            c_until_goal = static_cast<int>(h.frame) + goal;
            until_rec u{rec{}, true};
            CHECK_EQ(onity_yield_then(h.raw(), ONITY_TIMING_LAST_UPDATE, 0, &c_until_cb, &u), ONITY_STATUS_OK);
            int checks = 0;
            point p;
            task<> t = co_until(c_until_goal, want, &p, &checks);
            h.frames(goal + 2);
            CHECK(t.done());
            CHECK_EQ(u.r.hits, 1);
            CHECK(p == u.r.p);
            CHECK_EQ(checks, c_until_checks);
        }
    }
    g = nullptr;
}

namespace {
task<> co_any(Task a, Task b, Task c, point *at, uint32_t *index, uint64_t *value, int *fails) {
    Outcome o = co_await try_await(when_any(a, b, c));
    *at = g->now();
    *index = o.index();
    *value = o.value();
    if (!o.succeeded()) ++*fails;
}
task<> co_all(Task a, Task b, Task c, point *at, Outcome *out, OnityOutcome *each) {
    const Task in[] = {a, b, c};
    Outcome o = co_await try_await(when_all(std::span<const Task>(in), std::span<OnityOutcome>(each, 3)));
    *out = o;
    *at = g->now();
}
struct c_out {
    rec r;
    OnityOutcome o{};
    OnityOutcome each[3]{};
    bool all = false;
};
void c_out_cb(void *user, uint64_t task, uint32_t state) {
    c_out *c = static_cast<c_out *>(user);
    c_record(&c->r, task, state);
    if (c->all) onity_when_all_results(g->raw(), task, c->each, 3);
    onity_task_consume(g->raw(), task, &c->o);
}
}  // namespace

/* Native when_any / when_all over handles: the same outcome, index and
 * moment as C's, for inputs completed before and during the wait. */
TEST(native_combinators_match_c) {
    host h;
    g = &h;
    OnityRuntime *rt = h.raw();
    for (int scenario = 0; scenario < 4; scenario++) {
        for (bool all : {false, true}) {
            uint64_t cin[3], kin[3];
            for (int i = 0; i < 3; i++) {
                onity_task_create(rt, &cin[i]);
                onity_task_create(rt, &kin[i]);
            }
            auto complete = [&](int i, int how) {
                for (uint64_t *set : {cin, kin}) {
                    if (how == 0) onity_task_set_result(rt, set[i], 100 + static_cast<uint64_t>(i));
                    if (how == 1) onity_task_set_error(rt, set[i], 7 + i);
                    if (how == 2) onity_task_cancel(rt, set[i]);
                }
            };
            if (scenario == 1) complete(2, 0);  // complete before the combinator
            if (scenario == 3) {
                complete(1, 1);
                complete(0, 0);
            }
            c_out c;
            c.all = all;
            uint64_t w = 0;
            if (all)
                CHECK_EQ(onity_when_all(rt, cin, 3, 0, &w), ONITY_STATUS_OK);
            else
                CHECK_EQ(onity_when_any(rt, cin, 3, 0, &w), ONITY_STATUS_OK);
            CHECK_EQ(onity_task_on_complete(rt, w, &c_out_cb, &c), ONITY_STATUS_OK);
            point at;
            uint32_t index = 0;
            uint64_t value = 0;
            int fails = 0;
            Outcome allo;
            OnityOutcome each[3]{};
            task<> t = all ? co_all(Task(kin[0]), Task(kin[1]), Task(kin[2]), &at, &allo, each)
                           : co_any(Task(kin[0]), Task(kin[1]), Task(kin[2]), &at, &index, &value, &fails);
            h.frame_all();
            if (scenario != 3) complete(1, scenario == 2 ? 2 : 1);
            h.frame_all();
            if (scenario != 1) complete(2, 0);
            complete(0, scenario == 3 ? -1 : 0);
            h.frame_all();
            CHECK(t.done());
            CHECK_EQ(c.r.hits, 1);
            CHECK(at == c.r.p);
            if (all) {
                CHECK_EQ(allo.raw().state, c.o.state);
                CHECK_EQ(allo.raw().index, c.o.index);
                CHECK_EQ(allo.raw().error, c.o.error);
                CHECK_EQ(allo.raw().value, c.o.value);
                for (int i = 0; i < 3; i++) {
                    CHECK_EQ(each[i].state, c.each[i].state);
                    CHECK_EQ(each[i].value, c.each[i].value);
                }
            } else {
                CHECK_EQ(index, c.o.index);
                CHECK_EQ(value, c.o.value);
                CHECK_EQ(fails, c.o.state == ONITY_TASK_STATE_SUCCEEDED ? 0 : 1);
            }
        }
    }
    CHECK_EQ(h.live_native_tasks(), 1u);  // the layer's bell
    g = nullptr;
}

namespace {
task<> plain_or_update(host &h, point *out, int which) {
    switch (which) {
        case 0: co_await next_frame(); break;
        case 1: co_await next_frame(Timing::Update); break;
        case 2: co_await yield(); break;
        default: co_await yield(Timing::Update); break;
    }
    *out = h.now();
}
task<> try_plain(Token tok, int which, int *state) {
    (void)tok;  // the coroutine's token (taken by its promise)
    task_result<void> r = which == 0 ? co_await try_await(next_frame()) : co_await try_await(yield());
    *state = static_cast<int>(r.state());
}
}  // namespace

/* next_frame() / yield() without arguments (the frame-less awaiters) are the
 * Update waits with the coroutine's token: same frame, timing and run; a
 * canceled token ends them canceled (try_await sees it). */
TEST(plain_waits_are_the_update_waits) {
    host h;
    point p[4];
    std::vector<task<>> ts;
    for (int i = 0; i < 4; i++) ts.push_back(plain_or_update(h, &p[i], i));
    h.frame_all();
    h.frame_all();
    for (task<> &t : ts) CHECK(t.done() && t.state() == TaskState::Succeeded);
    CHECK(p[0] == p[1]);
    CHECK(p[2] == p[3]);
    for (int which = 0; which < 2; which++) {
        int ok = -1, canceled = -1;
        task<> a = try_plain(Token(), which, &ok);
        CancelSource src = h.rt.create_cancel_source().unwrap();
        task<> b = try_plain(src.token(), which, &canceled);
        CHECK(src.cancel().ok());
        h.frame_all();
        h.frame_all();
        CHECK_EQ(ok, static_cast<int>(TaskState::Succeeded));
        CHECK_EQ(canceled, static_cast<int>(TaskState::Canceled));
        CHECK(a.done() && b.done());
    }
}
