// alloc.cpp: no heap allocation per coroutine or per await after warm-up.
// Global operator new is replaced and counted; a workload that starts
// coroutines and awaits every kind (frame waits, until, native handles and
// combinators, task<>s, when_any / when_all / race, cancellation by token and
// by cancel(), guards, try_await) runs once to warm the pools, then again:
// the second run must make zero C++ heap allocations, and the runtime's own
// pools no cold allocation. A separate program (operator new is global).
#include <atomic>
#include <cstdlib>
#include <new>
#include <span>

#include "check.hpp"

#include "count_new.hpp"

using namespace onity;
using t20::host;

namespace {

constexpr int kEach = 64;
int g_flag = 0;

task<int> child(uint32_t frames, int v) {
    co_await delay_frame(frames);
    co_return v;
}
task<> every_kind(Token, int i, Task raw, Task a, Task b, int *sum) {
    co_await next_frame();
    co_await yield(Timing::LastUpdate);
    co_await delay_frame(1, Timing::PreUpdate);
    co_await delay(0.001, Clock::Unscaled);
    co_await delay(0.001, Clock::Realtime, Timing::Initialization);
    co_await until([] { return g_flag > 0; });
    co_await while_([] { return g_flag == 0; }, Timing::LastPostLateUpdate);
    *sum += static_cast<int>(co_await raw);
    any_result<uint64_t> na = co_await when_any(a, b);
    *sum += static_cast<int>(na.value);
    *sum += co_await child(1, i);
    any_result<int> w = co_await when_any(child(1, 1), child(2, 2));
    *sum += w.value;
    auto all = co_await when_all(child(1, 1), child(1, 2), child(2, 3));
    *sum += std::get<0>(all) + std::get<1>(all) + std::get<2>(all);
    any_result<int> r = co_await race(child(1, 5), child(3, 6));
    *sum += r.value;
    {
        cancel_guard g = co_await this_coroutine::defer_cancellation();
        co_await next_frame();
    }
    task_result<int> tr = co_await try_await(child(1, 7));
    *sum += tr.value();
    bool c = co_await this_coroutine::canceled();
    *sum += c ? 1000 : 0;
    if (i % 2) co_await delay(1000.0);  // the token's half: canceled here at the end
}

/* Canceled by task<>::cancel while its wait is pending: its block waits for
 * the wait's callback (8 frames later), then returns to the pool. */
task<> canceled_later() { co_await delay_frame(8); }

struct round_state {
    Task raw[kEach], a[kEach], b[kEach];
    task<> tasks[kEach];
    task<> victims[kEach];
    int sum = 0;
};

/* One round of the workload, from start to every coroutine finished. */
void one_round(host &h, round_state &s) {
    CancelSource src = h.rt.create_cancel_source().unwrap();
    g_flag = 0;
    s.sum = 0;
    for (int i = 0; i < kEach; i++) {
        s.raw[i] = h.rt.create_task().unwrap();
        s.a[i] = h.rt.create_task().unwrap();
        s.b[i] = h.rt.create_task().unwrap();
        s.tasks[i] = every_kind(i % 2 ? src.token() : Token(), i, s.raw[i], s.a[i], s.b[i], &s.sum);
        s.victims[i] = canceled_later();
    }
    h.frames(2);
    for (int i = 0; i < kEach; i++) s.victims[i].cancel();
    for (int f = 0; f < 6; f++) h.frame_all();
    g_flag = 1;
    for (int f = 0; f < 4; f++) h.frame_all();
    for (int i = 0; i < kEach; i++) {
        h.rt.set_result(s.raw[i], 2).unwrap();
        h.rt.set_result(s.b[i], 3).unwrap();
        h.rt.set_result(s.a[i], 4).unwrap();
    }
    for (int f = 0; f < 16; f++) h.frame_all();
    CHECK_EQ(h.stats().ghost_waits, 0u);
    src.cancel().unwrap();
    for (int f = 0; f < 4; f++) h.frame_all();
    for (int i = 0; i < kEach; i++) {
        CHECK(s.tasks[i].done());
        CHECK(s.tasks[i].state() == (i % 2 ? TaskState::Canceled : TaskState::Succeeded));
        CHECK(s.victims[i].state() == TaskState::Canceled);
        s.tasks[i].reset();
        s.victims[i].reset();
    }
    h.frames(4);  // the race's and when_any's slower children end
    src.reset();
}

uint64_t native_cold(const host &h) {
    Stats st = h.rt.stats().unwrap();
    uint64_t n = 0;
    for (uint32_t p = 0; p < ONITY_POOL_COUNT; p++) n += st.pool(p).cold_allocations;
    return n;
}

}  // namespace

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (std::strcmp(argv[i], "--small") == 0) t20::small = true;
    onity::set_misuse_handler(&t20::record_misuse);
    {
        host h;
        round_state *s = new round_state();
        one_round(h, *s);  // warm-up
        const int expected = s->sum;
        const uint64_t before = g_allocs.load();
        const uint64_t cold_before = native_cold(h);
        const coro_stats pool_before = h.stats();
        const int rounds = t20::small ? 2 : 5;
        for (int r = 0; r < rounds; r++) {
            one_round(h, *s);
            CHECK_EQ(s->sum, expected);
        }
        const uint64_t allocs = g_allocs.load() - before;
        const coro_stats pool_after = h.stats();
        std::printf("%d rounds, %llu coroutines started, C++ heap allocations after warm-up: %llu\n", rounds,
                    static_cast<unsigned long long>(pool_after.started - pool_before.started),
                    static_cast<unsigned long long>(allocs));
        CHECK_EQ(allocs, 0u);
        CHECK_EQ(native_cold(h), cold_before);
        CHECK_EQ(pool_after.total().cold_allocations, pool_before.total().cold_allocations);
        CHECK_EQ(pool_after.total().capacity, pool_before.total().capacity);
        CHECK(pool_after.started > pool_before.started);
        CHECK_EQ(pool_after.live_blocks, 0u);
        CHECK_EQ(t20::misuse.count, 0);
        delete s;
    }
    {
        // when_any / when_all over a span of more native handles than fit a
        // small on-stack copy: still no allocation per await.
        host h;
        auto many = [](std::span<const Task> in, bool all) -> task<> {
            if (all)
                co_await when_all(in);
            else
                co_await when_any(in);
        };
        uint64_t allocs = 0;
        for (int round = 0; round < 3; round++) {
            const uint64_t before = g_allocs.load();
            for (bool all : {false, true}) {
                Task in[40];
                for (Task &t : in) t = h.rt.create_task().unwrap();
                task<> w = many(std::span<const Task>(in), all);
                for (Task &t : in) h.rt.set_result(t, 1).unwrap();
                h.frame_all();
                CHECK(w.done() && w.state() == TaskState::Succeeded);
            }
            if (round > 0) allocs += g_allocs.load() - before;
        }
        std::printf("when_any / when_all over 40 handles: C++ heap allocations after warm-up: %llu\n",
                    static_cast<unsigned long long>(allocs));
        CHECK_EQ(allocs, 0u);
    }
    if (t20::failures != 0) return 1;
    std::printf("OK\n");
    return 0;
}
