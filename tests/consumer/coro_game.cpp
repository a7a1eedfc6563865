// A C++20 coroutine program built against the installed Onity package (Onity::coro; tests/consumer,
// scripts/test-consumer.sh): gameplay coroutines on next_frame / yield / delay_frame, a task<int>
// awaited by another coroutine, a native task completed by another thread, cancellation by token.
// Prints one line and "OK".
#include <cstdio>
#include <thread>

#include <onity/coro.hpp>
using namespace onity;

static int frames_seen = 0, fixed_seen = 0, patrols = 0;

task<int> countdown(int n) {
    for (int i = 0; i < n; i++) co_await delay_frame(2);
    co_return n * 10;
}

task<> watcher() {
    for (;;) {
        co_await next_frame();
        frames_seen++;
    }
}

task<> physics() {
    for (;;) {
        co_await yield(Timing::FixedUpdate);
        fixed_seen++;
    }
}

task<> patrol(Token) {
    for (;;) {
        co_await delay_frame(5);
        patrols++;
    }
}

task<uint64_t> level(Task loaded) {
    uint64_t bytes = co_await loaded;  // completed by the loader thread
    int c = co_await countdown(3);
    co_return bytes + uint64_t(c);
}

int main() {
    Runtime rt = Runtime::create().unwrap();
    coro_runtime co = coro_runtime::attach(rt).unwrap();
    CancelSource stop = rt.create_cancel_source().unwrap();
    Task loaded = rt.create_task().unwrap();
    task<uint64_t> lv = level(loaded);
    task<> w = watcher();
    task<> p = physics();
    patrol(stop.token()).forget();
    std::thread loader([&] { onity_task_set_result(rt.raw(), loaded.handle(), 4096); });
    loader.join();
    const double dt = 1.0 / 60;
    for (uint64_t f = 1; f <= 30; f++) {
        rt.begin_frame(f, dt, dt, double(f) * dt).unwrap();
        rt.tick_all().unwrap();
        if (f == 20) stop.cancel().unwrap();
    }
    const uint64_t* value = lv.result();
    bool ok = value && *value == 4126 && frames_seen == 30 && fixed_seen == 30 && patrols == 4 &&
              co.stats().started == 5;
    std::printf("level %llu frames %d fixed %d patrols %d coroutines %llu %s\n",
                value ? (unsigned long long)*value : 0ULL, frames_seen, fixed_seen, patrols,
                (unsigned long long)co.stats().started, ok ? "OK" : "FAILED");
    w.cancel();
    p.cancel();
    stop.reset();
    rt.destroy().unwrap();
    return ok ? 0 : 1;
}
