// check.hpp: the test harness of the C++20 coroutine programs (tests/cpp20):
// CHECK, self-registering TESTs, a host that drives a runtime frame by frame
// and knows where it is (frame, timing, run), and a misuse recorder.
#ifndef ONITY_CPP20_CHECK_HPP
#define ONITY_CPP20_CHECK_HPP

#include <cstdio>
#include <cstring>
#include <vector>

#include "onity/coro.hpp"

namespace t20 {

inline int failures = 0;
inline bool small = false;  // --small / ONITY_TEST_SMALL=1 (valgrind)
inline bool full = false;   // --full: the stress test at its full size (one build runs it)

#define CHECK(cond)                                                                              \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
            ::t20::failures++;                                                                   \
        }                                                                                        \
    } while (0)

#define CHECK_EQ(a, b)                                                                           \
    do {                                                                                         \
        const auto va_ = (a);                                                                    \
        const auto vb_ = (b);                                                                    \
        if (!(va_ == vb_)) {                                                                     \
            std::fprintf(stderr, "%s:%d: check failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, #a, #b, \
                         static_cast<long long>(va_), static_cast<long long>(vb_));              \
            ::t20::failures++;                                                                   \
        }                                                                                        \
    } while (0)

struct test_case {
    const char *name;
    void (*fn)();
};
inline std::vector<test_case> &registry() {
    static std::vector<test_case> r;
    return r;
}
#define T20_CAT2(a, b) a##b
#define T20_CAT(a, b) T20_CAT2(a, b)
#define TEST(name)                                                                              \
    static void name();                                                                         \
    static const bool T20_CAT(name, _registered) = (::t20::registry().push_back({#name, &name}), true); \
    static void name()

/* Misuse reports, recorded instead of aborting. */
struct misuse_log {
    int count = 0;
    onity::Status last = onity::Status::Ok;
};
inline misuse_log misuse;
inline void record_misuse(onity::Status s, const char *what) noexcept {
    misuse.count++;
    misuse.last = s;
    if (std::getenv("T20_VERBOSE")) std::fprintf(stderr, "misuse: %s (%s)\n", what, onity::status_text(s));
}
inline int unobserved_faults = 0;
inline void record_unobserved(onity::TaskState, int32_t) noexcept { unobserved_faults++; }

/* Where the host is: the frame, the timing being ticked (16 = none) and a
 * serial number of the tick (distinguishes two FixedUpdate runs). */
struct point {
    uint64_t frame = 0;
    uint32_t timing = 99;
    uint64_t run = 0;
    bool operator==(const point &o) const { return frame == o.frame && timing == o.timing && run == o.run; }
    bool operator!=(const point &o) const { return !(*this == o); }
};

/* A runtime, the coroutine layer attached to it, and a frame driver. */
struct host {
    onity::Runtime rt;
    onity::coro_runtime co;
    uint64_t frame = 0;
    double realtime = 0;
    uint32_t timing = 16;
    uint64_t run = 0;

    host() {
        rt = onity::Runtime::create().unwrap();
        co = onity::coro_runtime::attach(rt.raw()).unwrap();
    }
    host(const host &) = delete;
    ~host() {
        co.detach();
        rt.reset();
    }
    OnityRuntime *raw() const { return rt.raw(); }
    point now() const { return point{frame, timing, run}; }

    void begin(double dt = 1.0 / 60, double unscaled = 1.0 / 60, double real_step = 1.0 / 60) {
        frame++;
        realtime += real_step;
        rt.begin_frame(frame, dt, unscaled, realtime).unwrap();
    }
    void tick(onity::Timing t) {
        timing = static_cast<uint32_t>(t);
        run++;
        onity::Result<void> r = rt.tick(t);
        CHECK(r.ok());
        timing = 16;
    }
    void tick_all() {
        for (uint32_t t = 0; t < ONITY_TIMING_COUNT; t++) tick(static_cast<onity::Timing>(t));
    }
    void frame_all(double dt = 1.0 / 60) {
        begin(dt, dt, dt);
        tick_all();
    }
    void frames(int n) {
        for (int i = 0; i < n; i++) frame_all();
    }
    void drain() { CHECK(rt.drain().ok()); }
    /* Destroys the runtime now (coroutines still suspended finish canceled). */
    void destroy() { CHECK(rt.destroy().ok()); }
    onity::coro_stats stats() const { return co.stats(); }
    uint64_t live_native_tasks() const {
        onity::Result<uint32_t> n = rt.live_task_count();
        return n.ok() ? n.value() : 999999;
    }
};

inline onity::Timing T(uint32_t t) { return static_cast<onity::Timing>(t); }

/* The thread id, not reusable across a co_await (see onity::detail::this_thread). */
inline std::thread::id thread_id() { return onity::detail::this_thread(); }

}  // namespace t20

#endif
