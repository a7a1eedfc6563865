// stress.cpp: 10,000 coroutines for 1,000 frames (--full; by default for 100
// frames, --small: 1,000 coroutines for 100)
// looping over next_frame, yield, delay_frame, child coroutines and
// when_any, then all canceled by one token: exact resume counts, every
// coroutine finished canceled, every frame back in the pool, and the pool's
// size bounded by the peak (no growth after the first frames).
#include "check.hpp"

using namespace onity;
using t20::host;

namespace {

uint64_t g_resumes[5];

task<> child_next() { co_await next_frame(); }
task<int> child_delay(uint32_t n) {
    co_await delay_frame(n);
    co_return static_cast<int>(n);
}

task<> worker(Token, int group) {
    for (;;) {
        switch (group) {
            case 0: co_await next_frame(); break;
            case 1: co_await yield(Timing::LastUpdate); break;
            case 2: co_await delay_frame(2, Timing::PreUpdate); break;
            case 3: co_await child_next(); break;
            default: {
                any_result<int> r = co_await when_any(child_delay(1), child_delay(3));
                if (r.index != 0) co_return;  // never: the one-frame child wins
                break;
            }
        }
        g_resumes[group]++;
    }
}

}  // namespace

TEST(ten_thousand_coroutines_for_a_thousand_frames) {
    host h;
    const int n = t20::small ? 1000 : 10000;
    const int frames = t20::full ? 1000 : 100;
    CancelSource src = h.rt.create_cancel_source().unwrap();
    for (uint64_t &r : g_resumes) r = 0;
    std::vector<task<>> ts;
    ts.reserve(static_cast<std::size_t>(n));
    int per_group[5] = {};
    h.frame_all();  // frame 1: everything starts after it
    for (int i = 0; i < n; i++) {
        const int group = i % 10 < 4 ? 0 : i % 10 < 6 ? 1 : i % 10 < 8 ? 2 : i % 10 < 9 ? 3 : 4;
        per_group[group]++;
        ts.push_back(worker(src.token(), group));
    }
    uint64_t capacity_after_warmup = 0;
    for (int f = 0; f < frames; f++) {
        h.frame_all();
        if (f == 10) capacity_after_warmup = h.stats().total().capacity;
    }
    const uint64_t fr = static_cast<uint64_t>(frames);
    CHECK_EQ(g_resumes[0], per_group[0] * fr);
    CHECK_EQ(g_resumes[1], per_group[1] * fr);
    CHECK_EQ(g_resumes[2], per_group[2] * (fr / 2));
    CHECK_EQ(g_resumes[3], per_group[3] * fr);
    CHECK_EQ(g_resumes[4], per_group[4] * fr);
    coro_stats st = h.stats();
    CHECK_EQ(st.total().capacity, capacity_after_warmup);  // no pool growth after warm-up
    CHECK_EQ(st.oversize.rents, 0u);
    src.cancel().unwrap();
    h.frame_all();
    h.frame_all();
    for (task<> &t : ts) CHECK(t.done() && t.state() == TaskState::Canceled);
    ts.clear();
    h.frames(4);  // the when_any losers (3-frame children) end
    st = h.stats();
    CHECK_EQ(st.live_blocks, 0u);
    CHECK_EQ(st.live_frames, 0u);
    // The workers; their children have no token and succeed (the awaiting
    // worker ends canceled when its child completes).
    CHECK_EQ(st.canceled, static_cast<uint64_t>(n));
    CHECK_EQ(h.live_native_tasks(), 1u);
    CHECK_EQ(t20::misuse.count, 0);
}
