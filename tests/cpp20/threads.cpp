// threads.cpp: tasks completed by other threads resume their coroutines on
// the owner; switch_to_owner() from a coroutine a job system resumed on
// another thread; a coroutine finishing on another thread is completed on
// the owner; an Onity await there faults it (on the owner); cancel and
// runtime destruction while it is queued for the owner.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "check.hpp"

using namespace onity;
using t20::host;

namespace {

host *g = nullptr;
std::thread::id g_owner;

/* A foreign awaiter (a job system, say): resumes the coroutine on a new
 * thread. */
struct on_new_thread {
    std::vector<std::thread> *threads;
    std::mutex *m;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) const {
        std::lock_guard<std::mutex> lock(*m);
        threads->emplace_back([h] { h.resume(); });
    }
    void await_resume() const noexcept {}
};

struct pool {
    std::vector<std::thread> threads;
    std::mutex m;
    on_new_thread hop() { return on_new_thread{&threads, &m}; }
    void join() {
        std::vector<std::thread> ts;
        {
            std::lock_guard<std::mutex> lock(m);
            ts.swap(threads);
        }
        for (std::thread &t : ts) t.join();
    }
    ~pool() { join(); }
};

task<uint64_t> await_from_thread(Task t, int *on_owner) {
    uint64_t v = co_await t;
    if (t20::thread_id() == g_owner) ++*on_owner;
    co_return v;
}

}  // namespace

TEST(tasks_completed_by_other_threads) {
    host h;
    g = &h;
    g_owner = t20::thread_id();
    const int n = t20::small ? 16 : 256;
    std::vector<Task> handles;
    std::vector<task<uint64_t>> tasks;
    int on_owner = 0;
    for (int i = 0; i < n; i++) {
        handles.push_back(h.rt.create_task().unwrap());
        tasks.push_back(await_from_thread(handles.back(), &on_owner));
    }
    OnityRuntime *rt = h.raw();
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; w++)
        workers.emplace_back([&, w] {
            for (int i = w; i < n; i += 4) onity_task_set_result(rt, handles[i].handle(), static_cast<uint64_t>(i) * 3);
        });
    for (std::thread &t : workers) t.join();
    for (task<uint64_t> &t : tasks) CHECK(!t.done());  // only the owner's tick resumes them
    h.frame_all();
    uint64_t sum = 0;
    for (task<uint64_t> &t : tasks) {
        CHECK(t.done());
        if (t.result()) sum += *t.result();
    }
    CHECK_EQ(sum, static_cast<uint64_t>(n) * (n - 1) / 2 * 3);
    CHECK_EQ(on_owner, n);
    CHECK_EQ(t20::misuse.count, 0);
    g = nullptr;
}

namespace {
task<int> hop_and_back(pool &p, int *stage, std::thread::id *where) {
    *stage = 1;
    co_await p.hop();
    *stage = 2;  // on the other thread
    *where = t20::thread_id();
    co_await switch_to_owner();
    *stage = 3;
    CHECK(t20::thread_id() == g_owner);
    co_await next_frame();
    co_return 7;
}
task<int> ends_elsewhere(pool &p) {
    co_await p.hop();
    co_return 11;  // finishes on the other thread
}
task<> awaits_ends_elsewhere(pool &p, int *got, bool *owner) {
    *got = co_await ends_elsewhere(p);
    *owner = t20::thread_id() == g_owner;
}
task<> waits_elsewhere(pool &p, int *after) {
    co_await p.hop();
    co_await next_frame();  // misuse: not the owner thread
    ++*after;
}
void wait_for(const std::atomic<int> &v, int want) {
    for (int i = 0; i < 20000 && v.load() != want; i++) std::this_thread::sleep_for(std::chrono::microseconds(100));
}
}  // namespace

TEST(switch_to_owner_and_completion_on_the_owner) {
    host h;
    g = &h;
    g_owner = t20::thread_id();
    pool p;
    int stage = 0;
    std::thread::id where;
    task<int> t = hop_and_back(p, &stage, &where);
    p.join();
    CHECK_EQ(stage, 2);
    CHECK(where != g_owner);
    h.drain();  // the owner's next drain (or tick) resumes it
    CHECK_EQ(stage, 3);
    h.frame_all();
    CHECK(t.done() && *t.result() == 7);

    int got = 0;
    bool owner = false;
    task<> a = awaits_ends_elsewhere(p, &got, &owner);
    p.join();
    CHECK(!a.done());
    h.drain();
    CHECK(a.done() && got == 11 && owner);

    int after = 0;
    task<> w = waits_elsewhere(p, &after);
    p.join();
    CHECK_EQ(t20::misuse.count, 1);
    CHECK(t20::misuse.last == Status::WrongThread);
    CHECK(!w.done());
    h.drain();
    CHECK(w.done() && w.state() == TaskState::Faulted && w.error() == status_error(Status::WrongThread));
    CHECK_EQ(after, 0);
    a.reset();
    t.reset();
    w.reset();
    CHECK_EQ(h.stats().live_blocks, 0u);
    g = nullptr;
}

namespace {
task<> queued(pool &p, std::atomic<int> *at_thread, int *resumed) {
    co_await p.hop();
    at_thread->fetch_add(1);
    co_await switch_to_owner();
    ++*resumed;
}
}  // namespace

TEST(cancel_or_destroy_while_queued_for_the_owner) {
    for (bool destroy : {false, true}) {
        host h;
        g = &h;
        g_owner = t20::thread_id();
        pool p;
        std::atomic<int> at_thread{0};
        int resumed = 0;
        task<> t = queued(p, &at_thread, &resumed);
        p.join();
        CHECK_EQ(at_thread.load(), 1);
        if (destroy) {
            h.destroy();  // drains the inbox: finishes it canceled
        } else {
            t.cancel();  // queued: recorded, done when drained
            CHECK(!t.done());
            h.drain();
        }
        CHECK(t.done() && t.state() == TaskState::Canceled);
        CHECK_EQ(resumed, 0);
        t.reset();
        CHECK_EQ(h.stats().live_blocks, 0u);
        CHECK_EQ(t20::misuse.count, 0);
        g = nullptr;
    }
}

namespace {
task<> round_trips(pool &p, int rounds, std::atomic<int> *done) {
    for (int i = 0; i < rounds; i++) {
        co_await p.hop();
        co_await switch_to_owner();
        co_await yield();
    }
    done->fetch_add(1);
}
}  // namespace

/* Many coroutines hop to threads and back while the owner ticks. */
TEST(many_threads_switching_back) {
    host h;
    g = &h;
    g_owner = t20::thread_id();
    pool p;
    const int n = t20::small ? 8 : 64;
    const int rounds = t20::small ? 3 : 10;
    std::atomic<int> done{0};
    std::vector<task<>> ts;
    for (int i = 0; i < n; i++) ts.push_back(round_trips(p, rounds, &done));
    for (int f = 0; f < 20000 && done.load() != n; f++) {
        h.frame_all();
        if (f % 8 == 0) p.join();
    }
    wait_for(done, n);
    CHECK_EQ(done.load(), n);
    for (task<> &t : ts) CHECK(t.done() && t.state() == TaskState::Succeeded);
    p.join();
    ts.clear();
    CHECK_EQ(h.stats().live_blocks, 0u);
    CHECK_EQ(t20::misuse.count, 0);
    g = nullptr;
}
