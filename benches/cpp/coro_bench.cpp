// coro_bench.cpp: the C++20 coroutine layer against the C callback API, side
// by side in one process (scripts/bench-cpp20.sh builds and runs it).
//
//   coro_bench time [rounds]      ns per operation: every round measures one set
//                                 of each scenario in a random order; prints the
//                                 min and median per scenario and the median of the
//                                 per-round ratios coroutine / C
//   coro_bench count SCENARIO N   runs N measured frames of one scenario (for
//                                 callgrind: instructions = difference of 2N and N)
//   coro_bench check              a short run of every scenario that fails unless
//                                 the measured frames made no heap allocation
//
// Scenarios (all through the shipped libonity and onity/coro.hpp):
//   c_next_frame     4096 C callbacks re-arming onity_next_frame_then    per task-frame
//   coro_next_frame  4096 coroutines looping co_await next_frame()       per task-frame
//   coro_cycle       4096 coroutines per frame: start, one next_frame,   per coroutine
//                    finish (forgotten)
//   c_when_any32     128 C loops: 32 onity_next_frame tasks, onity_when_any, per group
//                    on_complete, consume
//   coro_when_any32  128 coroutines: 32 child coroutines (one next_frame   per group
//                    each), co_await when_any over them
//   c_yield          4096 C callbacks re-arming onity_yield_then (Update) per task-frame
//   coro_yield       4096 coroutines looping co_await yield()             per task-frame
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "onity/coro.hpp"

#include "../../tests/cpp20/count_new.hpp"

namespace {

using namespace onity;

constexpr int kTasks = 4096;
constexpr int kGroups = 128;
constexpr int kGroupSize = 32;

uint64_t g_work = 0;  // resumptions counted (so nothing is optimized away)

struct env {
    Runtime rt;
    coro_runtime co;
    uint64_t frame = 0;
    env() {
        Config cfg;
        cfg.task_capacity(1 << 16).wait_capacity(1 << 14);
        rt = Runtime::create(cfg).unwrap();
        co = coro_runtime::attach(rt.raw()).unwrap();
    }
    ~env() {
        co.detach();
        rt.reset();
    }
    /* Several envs live on this thread in `time` mode: each makes its own
     * runtime current while it runs (coroutines bind to the current one). */
    void step() {
        coro_runtime::scope current(co);
        ++frame;
        rt.begin_frame(frame, 0.016, 0.016, static_cast<double>(frame) * 0.016).unwrap();
        onity_runtime_tick(rt.raw(), ONITY_TIMING_UPDATE);
    }
};

/* ---- the scenarios: set up, then step frames ---------------------------------------- */

struct scenario {
    const char *name;
    const char *unit;
    double ops_per_frame;
    void (*setup)(env &);
};

void c_cb(void *user, uint64_t, uint32_t state) {
    if (state != ONITY_TASK_STATE_SUCCEEDED) return;
    g_work++;
    onity_next_frame_then(static_cast<OnityRuntime *>(user), ONITY_TIMING_UPDATE, 0, &c_cb, user);
}
void setup_c_next(env &e) {
    for (int i = 0; i < kTasks; i++) onity_next_frame_then(e.rt.raw(), ONITY_TIMING_UPDATE, 0, &c_cb, e.rt.raw());
}

task<> looper() {
    for (;;) {
        co_await next_frame();
        g_work++;
    }
}
void setup_coro_next(env &e) {
    (void)e;
    for (int i = 0; i < kTasks; i++) looper().forget();
}

void c_yield_cb(void *user, uint64_t, uint32_t state) {
    if (state != ONITY_TASK_STATE_SUCCEEDED) return;
    g_work++;
    onity_yield_then(static_cast<OnityRuntime *>(user), ONITY_TIMING_UPDATE, 0, &c_yield_cb, user);
}
void setup_c_yield(env &e) {
    for (int i = 0; i < kTasks; i++) onity_yield_then(e.rt.raw(), ONITY_TIMING_UPDATE, 0, &c_yield_cb, e.rt.raw());
}

task<> yielder() {
    for (;;) {
        co_await yield();  // Update, like next_frame()
        g_work++;
    }
}
void setup_coro_yield(env &e) {
    (void)e;
    for (int i = 0; i < kTasks; i++) yielder().forget();
}

task<> one_wait() {
    co_await next_frame();
    g_work++;
}
void cycle_cb(void *, uint64_t, uint32_t state) {
    if (state != ONITY_TASK_STATE_SUCCEEDED) return;
    for (int i = 0; i < kTasks; i++) one_wait().forget();
}
/* A C callback in Update starts the next 4096 each frame (after the previous
 * ones finished, earlier in the same run), re-armed by itself. */
void cycle_driver(void *user, uint64_t, uint32_t state) {
    if (state != ONITY_TASK_STATE_SUCCEEDED) return;
    cycle_cb(user, 0, state);
    onity_next_frame_then(static_cast<OnityRuntime *>(user), ONITY_TIMING_UPDATE, 0, &cycle_driver, user);
}
void setup_coro_cycle(env &e) {
    for (int i = 0; i < kTasks; i++) one_wait().forget();
    onity_next_frame_then(e.rt.raw(), ONITY_TIMING_UPDATE, 0, &cycle_driver, e.rt.raw());
}

struct c_group {
    OnityRuntime *rt;
};
void c_group_start(c_group *g);
void c_group_done(void *user, uint64_t task, uint32_t state) {
    c_group *g = static_cast<c_group *>(user);
    OnityOutcome o;
    onity_task_consume(g->rt, task, &o);
    if (state != ONITY_TASK_STATE_SUCCEEDED) return;
    g_work += o.index + 1;
    c_group_start(g);
}
void c_group_start(c_group *g) {
    uint64_t in[kGroupSize];
    for (uint64_t &h : in) onity_next_frame(g->rt, ONITY_TIMING_UPDATE, 0, &h);
    uint64_t w = 0;
    onity_when_any(g->rt, in, kGroupSize, 0, &w);
    onity_task_on_complete(g->rt, w, &c_group_done, g);
}
c_group g_cgroups[kGroups];
void setup_c_any(env &e) {
    for (c_group &g : g_cgroups) {
        g.rt = e.rt.raw();
        c_group_start(&g);
    }
}

task<int> child(int i) {
    co_await next_frame();
    co_return i;
}
task<> group_loop() {
    std::array<task<int>, kGroupSize> kids;
    for (;;) {
        for (int i = 0; i < kGroupSize; i++) kids[i] = child(i);
        any_result<int> r = co_await when_any(std::span<task<int>>(kids));
        g_work += static_cast<uint64_t>(r.value) + 1;
    }
}
void setup_coro_any(env &e) {
    (void)e;
    for (int i = 0; i < kGroups; i++) group_loop().forget();
}

const scenario kScenarios[] = {
    {"c_next_frame", "ns per task-frame", kTasks, &setup_c_next},
    {"coro_next_frame", "ns per task-frame", kTasks, &setup_coro_next},
    {"coro_cycle", "ns per start-await-finish", kTasks, &setup_coro_cycle},
    {"c_when_any32", "ns per group", kGroups, &setup_c_any},
    {"coro_when_any32", "ns per group", kGroups, &setup_coro_any},
    {"c_yield", "ns per task-frame", kTasks, &setup_c_yield},
    {"coro_yield", "ns per task-frame", kTasks, &setup_coro_yield},
};
constexpr int kScenarioCount = sizeof kScenarios / sizeof kScenarios[0];

/* One environment per scenario, warmed up once and then stepped in sets. */
struct running {
    env *e = nullptr;
    void start(const scenario &s) {
        e = new env();
        coro_runtime::scope current(e->co);
        s.setup(*e);
        for (int i = 0; i < 20; i++) e->step();  // warm-up: pools at their steady size
    }
};

double thread_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

int run_time(int rounds) {
    std::vector<running> envs(kScenarioCount);
    for (int i = 0; i < kScenarioCount; i++) envs[i].start(kScenarios[i]);
    const int frames_per_set = 20;
    std::vector<std::vector<double>> per(kScenarioCount);
    std::vector<double> ratio_next, ratio_any, ratio_yield;
    std::mt19937 rng(12345);
    std::vector<int> order(kScenarioCount);
    uint64_t allocs = 0;
    for (int r = 0; r < rounds + 5; r++) {
        for (int i = 0; i < kScenarioCount; i++) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        double set_ns[kScenarioCount] = {};
        for (int i : order) {
            const uint64_t a0 = g_allocs.load();
            const double t0 = thread_ns();
            for (int f = 0; f < frames_per_set; f++) envs[i].e->step();
            const double t1 = thread_ns();
            allocs += g_allocs.load() - a0;
            set_ns[i] = (t1 - t0) / (frames_per_set * kScenarios[i].ops_per_frame);
        }
        if (r < 5) continue;  // warm-up rounds
        for (int i = 0; i < kScenarioCount; i++) per[i].push_back(set_ns[i]);
        ratio_next.push_back(set_ns[1] / set_ns[0]);
        ratio_any.push_back(set_ns[4] / set_ns[3]);
        ratio_yield.push_back(set_ns[6] / set_ns[5]);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf("%-16s %10s %10s  %s\n", "scenario", "min", "median", "unit");
    for (int i = 0; i < kScenarioCount; i++)
        std::printf("%-16s %10.2f %10.2f  %s\n", kScenarios[i].name, *std::min_element(per[i].begin(), per[i].end()),
                    median(per[i]), kScenarios[i].unit);
    std::printf("ratio coro_next_frame / c_next_frame (median of %d rounds): %.3f\n", rounds, median(ratio_next));
    std::printf("ratio coro_when_any32 / c_when_any32 (median of %d rounds): %.3f\n", rounds, median(ratio_any));
    std::printf("ratio coro_yield / c_yield (median of %d rounds): %.3f\n", rounds, median(ratio_yield));
    std::printf("heap allocations in measured sets: %llu\n", static_cast<unsigned long long>(allocs));
    for (running &r : envs) delete r.e;
    return allocs == 0 ? 0 : 1;
}

int run_count(const char *name, int n) {
    for (const scenario &s : kScenarios) {
        if (std::strcmp(s.name, name) != 0) continue;
        running r;
        r.start(s);
        for (int f = 0; f < n; f++) r.e->step();
        delete r.e;
        return 0;
    }
    std::fprintf(stderr, "unknown scenario %s\n", name);
    return 2;
}

int run_check() {
    int bad = 0;
    for (const scenario &s : kScenarios) {
        running r;
        r.start(s);
        const uint64_t a0 = g_allocs.load();
        const uint64_t w0 = g_work;
        for (int f = 0; f < 10; f++) r.e->step();
        const uint64_t allocs = g_allocs.load() - a0;
        std::printf("%-16s allocations %llu, work %llu\n", s.name, static_cast<unsigned long long>(allocs),
                    static_cast<unsigned long long>(g_work - w0));
        if (allocs != 0 || g_work == w0) bad++;
        delete r.e;
    }
    if (bad) return 1;
    std::printf("OK\n");
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    const std::string mode = argc > 1 ? argv[1] : "check";
    if (mode == "time") return run_time(argc > 2 ? std::atoi(argv[2]) : 50);
    if (mode == "count" && argc > 3) return run_count(argv[2], std::atoi(argv[3]));
    if (mode == "check") return run_check();
    std::fprintf(stderr, "usage: coro_bench time [rounds] | count SCENARIO N | check\n");
    return 2;
}
