// csharp_plugin.cpp: a native plugin written with C++20 coroutines that
// shares one Onity runtime with C# (tests/csharp/Tests/CppCoroutineTests.cs
// drives it; scripts/test-csharp.sh builds it as libonity_cpp_plugin.so).
//
// C# creates and ticks the runtime and hands its OnityRuntime* to
// plugin_attach (on its main thread, the runtime's owner). plugin_start
// starts a coroutine that awaits NextFrame three times, then a task C#
// completes, and returns that task's value + 1 into a native task C# awaits
// (one made by OnityRuntime.CreateNativeCompletionSource). plugin_watch /
// plugin_complete_later: a native thread started here completes a task
// that C# awaits and a coroutine here waits on. Everything is on the owner
// thread but plugin_complete_later's thread. Every export returns an
// OnityStatus (0 = OK).
#include <atomic>
#include <chrono>
#include <thread>

#include "onity/coro.hpp"

using namespace onity;

namespace {

coro_runtime *g_co = nullptr;
OnityRuntime *g_rt = nullptr;
std::thread g_thread;

// What the coroutines saw, read by C# through plugin_events.
constexpr int kEvents = 16;
uint64_t g_frames[kEvents];
uint64_t g_values[kEvents];
int g_count = 0;

uint64_t frame_now() {
    OnityStats st{};
    st.size = sizeof st;
    return onity_runtime_stats(g_rt, &st) == ONITY_STATUS_OK ? st.frame : 0;
}
void event(uint64_t value) {
    if (g_count < kEvents) {
        g_frames[g_count] = frame_now();
        g_values[g_count] = value;
        g_count++;
    }
}

task<uint64_t> three_frames_then(Task from_csharp) {
    for (int i = 0; i < 3; i++) {
        co_await next_frame();
        event(static_cast<uint64_t>(i + 1));
    }
    const uint64_t v = co_await from_csharp;  // completed by C# (NativeSetResult)
    event(v);
    co_return v + 1;
}

task<> watch(uint64_t shared) {
    // C# awaits `shared` (its one continuation, which consumes it); this side
    // waits for its state. STALE_HANDLE: completed and consumed already.
    co_await until([shared] {
        uint32_t st = ONITY_TASK_STATE_PENDING;
        const OnityStatus s = onity_task_state(g_rt, shared, &st);
        return s == ONITY_STATUS_STALE_HANDLE || (s == ONITY_STATUS_OK && st != ONITY_TASK_STATE_PENDING);
    });
    event(1000);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) uint32_t plugin_attach(OnityRuntime *rt) {
    if (g_co) return ONITY_STATUS_ALREADY_AWAITED;
    Result<coro_runtime> r = coro_runtime::attach(rt);
    if (!r) return static_cast<uint32_t>(r.status());
    g_co = new coro_runtime(std::move(r).value());
    g_rt = rt;
    g_count = 0;
    return ONITY_STATUS_OK;
}

/* Starts the coroutine; writes the task C# must complete to *out_from_csharp.
 * The coroutine's outcome completes `sink`. */
__attribute__((visibility("default"))) uint32_t plugin_start(uint64_t sink, uint64_t *out_from_csharp) {
    if (!g_co || !out_from_csharp) return ONITY_STATUS_NULL_POINTER;
    uint64_t manual = 0;
    OnityStatus s = onity_task_create(g_rt, &manual);
    if (s != ONITY_STATUS_OK) return s;
    Result<void> bound = three_frames_then(Task(manual)).complete_into(Task(sink));
    if (!bound) return static_cast<uint32_t>(bound.status());
    *out_from_csharp = manual;
    return ONITY_STATUS_OK;
}

__attribute__((visibility("default"))) uint32_t plugin_watch(uint64_t shared) {
    if (!g_co) return ONITY_STATUS_NULL_POINTER;
    watch(shared).forget();
    return ONITY_STATUS_OK;
}

/* A native thread (never seen by Mono) completes `shared` after `delay_ms`. */
__attribute__((visibility("default"))) uint32_t plugin_complete_later(uint64_t shared, uint64_t value, int delay_ms) {
    if (!g_rt || g_thread.joinable()) return ONITY_STATUS_NULL_POINTER;
    OnityRuntime *rt = g_rt;
    g_thread = std::thread([rt, shared, value, delay_ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        onity_task_set_result(rt, shared, value);  // any thread
    });
    return ONITY_STATUS_OK;
}

__attribute__((visibility("default"))) void plugin_join_thread() {
    if (g_thread.joinable()) g_thread.join();
}

/* Copies up to `cap` events (frame, value) and returns how many there are. */
__attribute__((visibility("default"))) int plugin_events(uint64_t *frames, uint64_t *values, int cap) {
    for (int i = 0; i < g_count && i < cap; i++) {
        frames[i] = g_frames[i];
        values[i] = g_values[i];
    }
    return g_count;
}

/* The coroutine layer's counters: frames alive, blocks out of the pool,
 * coroutines started, and whether the runtime is still alive. */
__attribute__((visibility("default"))) void plugin_stats(uint64_t *live_frames, uint64_t *live_blocks, uint64_t *started,
                                                         int *runtime_alive) {
    coro_stats st = g_co ? g_co->stats() : coro_stats();
    *live_frames = st.live_frames;
    *live_blocks = st.live_blocks;
    *started = st.started;
    *runtime_alive = st.runtime_alive ? 1 : 0;
}

__attribute__((visibility("default"))) void plugin_detach() {
    plugin_join_thread();
    delete g_co;  // owner thread; with nothing live the layer's bell task goes too
    g_co = nullptr;
    g_rt = nullptr;
}

}  // extern "C"
