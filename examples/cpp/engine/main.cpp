// An engine-style game loop on Onity (README "C/C++ engines"; built through the CMake package):
//   - a fixed-timestep loop: each frame accumulates its delta time and runs FixedUpdate 0-3 times
//     (at most 3: a long frame drops the rest, no spiral of death), then Update and PreLateUpdate (LateUpdate);
//   - a job system (jobs.hpp): worker threads compute paths and load a level, completing the
//     native task each job was given from the worker; coroutines await those tasks on the owner;
//   - gameplay as C++20 coroutines (onity/coro.hpp): physics on FixedUpdate, enemies that patrol,
//     ask for a path and wait for it, a level that loads, spawns and ends by cancellation.
// Prints what happened and "OK" when every count matches what the engine drove.
#include <chrono>
#include <cstdio>
#include <thread>

#include "jobs.hpp"

using namespace onity;

struct World {
    double body_y = 100, body_v = 0;
    int physics_steps = 0, paths = 0, patrols = 0, enemies_alive = 0;
    uint64_t path_length = 0;
};
static World world;
static const double fixed_dt = 1.0 / 50;

task<> physics() {  // resumed at every FixedUpdate run, 0-3 per frame
    for (;;) {
        co_await yield(Timing::FixedUpdate);
        world.physics_steps++;
        world.body_v -= 9.81 * fixed_dt;
        world.body_y += world.body_v * fixed_dt;
        if (world.body_y < 0) world.body_y = 0, world.body_v = -world.body_v * 0.5;
    }
}

struct Alive {  // runs when the coroutine's frame is destroyed: also when it ends canceled
    Alive() { world.enemies_alive++; }
    ~Alive() { world.enemies_alive--; }
};

task<> enemy(Token, int id, JobSystem &jobs) {
    Alive alive;
    for (;;) {
        co_await delay(0.25);  // patrol for a quarter of a second of game time
        world.patrols++;
        uint64_t len = co_await jobs.submit([id] {  // path finding on a worker thread
            uint64_t steps = 0;
            for (uint64_t x = 7 + uint64_t(id); x != 1; steps++) x = (x & 1) ? 3 * x + 1 : x / 2;
            return steps;
        });
        world.paths++;
        world.path_length += len;
        co_await next_frame(Timing::PreLateUpdate);  // act on it after this frame's Update
    }
}

task<int> level(Token level_end, JobSystem &jobs) {
    uint64_t tiles = co_await jobs.submit([] { return uint64_t(64 * 64); });  // load on a worker
    for (int i = 0; i < 6; i++) enemy(level_end, i, jobs).forget();
    co_await delay_frame(30);
    co_return int(tiles);
}

int main() {
    Runtime rt = Runtime::create().unwrap();
    coro_runtime co = coro_runtime::attach(rt).unwrap();
    CancelSource level_end = rt.create_cancel_source().unwrap();
    JobSystem jobs(rt, 2);
    task<> phys = physics();
    task<int> lvl = level(level_end.token(), jobs);

    // Frame times of a game that hitches now and then: 0 to 3 fixed steps per frame.
    const double frame_times[] = {1.0 / 60, 1.0 / 144, 1.0 / 30, 1.0 / 60, 1.0 / 20, 0.1, 1.0 / 120};
    double acc = 0, now = 0;
    int frames = 0, end_frame = 0, fixed_ticks = 0, steps_hist[4] = {0, 0, 0, 0};
    // Runs until the level has loaded and its enemies found 60 paths, then ends the level and runs
    // 10 more frames (jobs run on other threads: how many frames that takes depends on the machine).
    for (int f = 1; f <= 100000 && (end_frame == 0 || f <= end_frame + 10); f++) {
        frames = f;
        double dt = frame_times[f % 7];
        now += dt;
        rt.begin_frame(uint64_t(f), dt, dt, now).unwrap();
        rt.tick(Timing::Initialization).unwrap();
        acc += dt;
        int steps = 0;
        for (; acc >= fixed_dt && steps < 3; steps++, acc -= fixed_dt) {
            rt.tick(Timing::FixedUpdate).unwrap();  // physics() runs once per step
            fixed_ticks++;
        }
        if (steps == 3) acc = 0;  // drop the backlog of a long frame
        steps_hist[steps]++;
        rt.tick(Timing::Update).unwrap();
        rt.tick(Timing::PreLateUpdate).unwrap();
        if (end_frame == 0 && lvl.done() && world.paths >= 60) {
            level_end.cancel().unwrap();  // the level ends: its enemies stop where they wait
            end_frame = f;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));  // the wait for the display
    }
    // Jobs may still be running: let them finish, then run their completions (canceled enemies'
    // path tasks are still completed and released by the runtime).
    jobs.shutdown();
    rt.drain().unwrap();
    phys.cancel();

    const int *tiles = lvl.result();
    bool ok = tiles && *tiles == 4096 && world.physics_steps == fixed_ticks && steps_hist[0] > 0 &&
              steps_hist[1] > 0 && steps_hist[2] > 0 && steps_hist[3] > 0 && world.enemies_alive == 0 &&
              end_frame > 0 && jobs.completed_off_owner() == jobs.submitted() &&
              world.paths + 1 <= int(jobs.submitted());
    std::printf("frames %d fixed steps %d (frames with 0/1/2/3 steps: %d/%d/%d/%d) level %d jobs %llu "
                "paths %d patrols %d enemies left %d body %.2f %s\n",
                frames, world.physics_steps, steps_hist[0], steps_hist[1], steps_hist[2], steps_hist[3],
                tiles ? *tiles : -1, (unsigned long long)jobs.submitted(), world.paths, world.patrols,
                world.enemies_alive, world.body_y, ok ? "OK" : "FAILED");
    level_end.reset();
    rt.destroy().unwrap();
    return ok ? 0 : 1;
}
