// game_loop.cpp: a small game written with C++20 coroutines on Onity
// (include/onity/coro.hpp). Built and run by `cargo test` (tests/cpp20.rs);
// by hand:
//
//   cargo build --lib
//   g++ -std=c++20 -O2 -Iinclude examples/cpp/game_loop.cpp -Ltarget/debug -lonity
//       -Wl,-rpath,$PWD/target/debug -lpthread -o game_loop && ./game_loop
//
// A level loads its map on a worker thread, spawns waves of enemies (each a
// coroutine: patrol on the scaled clock, chase until the player is close, a
// race between an attack and a timeout), runs a physics coroutine on
// FixedUpdate and a HUD on LastUpdate, slows time down for a while (scaled
// delays stretch, unscaled ones do not), and ends the level by canceling its
// token: every enemy finishes canceled where it waits, its destructors run.
// The runtime is then destroyed with coroutines still suspended. Prints what
// happened and the coroutine pool's statistics, then "OK".
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "onity/coro.hpp"

using namespace onity;

namespace {

struct game {
    uint64_t frame = 0;
    double time_scale = 1.0;
    float player_x = 0;
    int spawned = 0, attacks = 0, timeouts = 0, despawned = 0, fixed_steps = 0, hud_updates = 0;
    int waves_done = 0;
    uint64_t map_loaded_frame = 0, slow_mo_end_frame = 0, level_end_frame = 0;
} g;

int failures = 0;
#define EXPECT(c)                                                                       \
    do {                                                                                \
        if (!(c)) {                                                                     \
            std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #c);       \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

/* Destructors run when an enemy is canceled, wherever it waits. */
struct enemy_body {
    int id;
    ~enemy_body() { g.despawned++; }
};

task<> attack(int id) {
    co_await delay_frame(static_cast<uint32_t>(12 + 5 * id));  // wind-up: slow enemies time out
    g.attacks++;
}

task<> give_up() {
    co_await delay(0.5);  // scaled seconds
    g.timeouts++;
}

/* An enemy: the level's token is its first parameter, so every wait below
 * ends canceled when the level ends. */
task<> enemy(Token level, int id, float x) {
    enemy_body body{id};
    g.spawned++;
    co_await yield();  // appear next Update
    for (int round = 0; round < 4; round++) {
        co_await delay(0.25 + 0.05 * id);  // patrol (scaled clock: slower in slow motion)
        co_await until([x] { return g.player_x >= x; }, Timing::Update, level);  // the player comes close
        any_result<void> r = co_await race(attack(id), give_up());  // the loser is canceled
        (void)r.index;
    }
}

/* The level: load the map off the main thread, then waves of enemies. */
task<int> level(Token level_token, Task map_ready) {
    const uint64_t map_bytes = co_await map_ready;  // completed by a worker thread
    g.map_loaded_frame = g.frame;
    EXPECT(map_bytes == 4096);
    std::vector<task<>> wave;  // warm-up allocations only (3 waves of 8)
    wave.reserve(8);
    for (int w = 0; w < 3; w++) {
        for (int i = 0; i < 8; i++) wave.push_back(enemy(level_token, i, static_cast<float>(i)));
        co_await delay_frame(30);
        wave.clear();  // the enemies run on, detached
        g.waves_done++;
    }
    co_return g.spawned;
}

task<> physics(Token stop) {
    for (;;) {
        co_await yield(Timing::FixedUpdate, stop);  // every fixed step (next_frame: once a frame)
        g.fixed_steps++;
        g.player_x += 0.05f;
    }
}

task<> hud(Token stop) {
    for (;;) {
        co_await yield(Timing::LastUpdate, stop);
        g.hud_updates++;
    }
}

task<> slow_motion() {
    co_await delay(1.0, Clock::Unscaled);
    g.time_scale = 0.25;
    co_await delay(0.5, Clock::Unscaled);  // unscaled: half a real second whatever the scale
    g.time_scale = 1.0;
    g.slow_mo_end_frame = g.frame;
}

}  // namespace

int main() {
    Runtime rt = Runtime::create().unwrap();
    coro_runtime co = coro_runtime::attach(rt).unwrap();  // this thread's current runtime
    CancelSource level_end = rt.create_cancel_source().unwrap();
    CancelSource shutdown = rt.create_cancel_source().unwrap();

    // The map loads on a worker thread, which completes a native task.
    Task map_ready = rt.create_task().unwrap();
    OnityRuntime *raw = rt.raw();
    std::thread loader([raw, map_ready] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        onity_task_set_result(raw, map_ready.handle(), 4096);  // any thread
    });

    task<int> lvl = level(level_end.token(), map_ready);
    physics(shutdown.token()).forget();
    hud(shutdown.token()).forget();
    task<> slow = slow_motion();

    const double dt = 1.0 / 60;
    double realtime = 0;
    for (int f = 1; f <= 240; f++) {
        g.frame = static_cast<uint64_t>(f);
        realtime += dt;
        rt.begin_frame(g.frame, dt * g.time_scale, dt, realtime).unwrap();
        for (uint32_t t = 0; t < ONITY_TIMING_COUNT; t++) {
            const bool fixed = t == ONITY_TIMING_FIXED_UPDATE || t == ONITY_TIMING_LAST_FIXED_UPDATE;
            const int runs = fixed ? (f % 2 ? 1 : 2) : 1;  // 1.5 fixed steps per frame
            for (int r = 0; r < runs; r++) rt.tick(static_cast<Timing>(t)).unwrap();
        }
        if (f == 10) loader.join();
        if (f == 150) {
            level_end.cancel().unwrap();  // every enemy ends where it waits
            g.level_end_frame = g.frame;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }

    coro_stats st = co.stats();
    std::printf("map loaded in frame %llu; %d waves, %d enemies spawned, %d attacks, %d timeouts\n",
                static_cast<unsigned long long>(g.map_loaded_frame), g.waves_done, g.spawned, g.attacks, g.timeouts);
    std::printf("level ended in frame %llu: %d enemies despawned (destructors ran); slow motion ended in frame %llu\n",
                static_cast<unsigned long long>(g.level_end_frame), g.despawned,
                static_cast<unsigned long long>(g.slow_mo_end_frame));
    std::printf("%d fixed steps, %d HUD updates; coroutines: %llu started, %llu succeeded, %llu canceled, "
                "%llu live; frame pool: %llu blocks, %llu rents, %llu chunk allocations, %llu oversize\n",
                g.fixed_steps, g.hud_updates, static_cast<unsigned long long>(st.started),
                static_cast<unsigned long long>(st.succeeded), static_cast<unsigned long long>(st.canceled),
                static_cast<unsigned long long>(st.live_frames), static_cast<unsigned long long>(st.total().capacity),
                static_cast<unsigned long long>(st.total().rents),
                static_cast<unsigned long long>(st.total().cold_allocations),
                static_cast<unsigned long long>(st.oversize.rents));

    // Loaded by frame 11 (the thread is joined in frame 10; on a busy machine
    // it may even have finished before the level awaited it: frame 0).
    EXPECT(g.map_loaded_frame <= 11);
    EXPECT(lvl.done() && lvl.state() == TaskState::Succeeded && *lvl.result() == 24);
    EXPECT(g.spawned == 24);
    EXPECT(g.despawned == 24);  // all canceled by frame 150 or done before
    EXPECT(g.attacks > 0 && g.timeouts > 0);
    EXPECT(slow.done() && g.slow_mo_end_frame >= 90 && g.slow_mo_end_frame <= 92);  // 1.5 real seconds
    EXPECT(g.fixed_steps == 360);  // 1.5 per frame for 240 frames
    EXPECT(g.hud_updates == 240);
    EXPECT(st.oversize.rents == 0);

    // Physics and HUD are still suspended: destroying the runtime finishes
    // them canceled and returns their frames.
    level_end.reset();
    shutdown.reset();
    rt.destroy().unwrap();
    st = co.stats();
    EXPECT(!st.runtime_alive);
    lvl.reset();
    slow.reset();
    st = co.stats();
    EXPECT(st.live_blocks == 0);
    std::printf("after the runtime: %llu canceled, %llu blocks still out\n",
                static_cast<unsigned long long>(st.canceled), static_cast<unsigned long long>(st.live_blocks));
    if (failures) return 1;
    std::printf("OK\n");
    return 0;
}
