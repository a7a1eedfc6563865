// misuse.cpp: every misuse is reported with its status and ends the
// coroutine faulted with status_error(status) (try_await: that outcome
// instead), never undefined behaviour: no runtime, another thread, awaiting
// twice, empty and stale handles, foreign handles, bad arguments, empty
// combinators; two runtimes on one thread; the coro_runtime's own errors.
#include <thread>

#include "check.hpp"

using namespace onity;
using t20::host;

namespace {

int g_ran = 0;

task<int> plain() {
    g_ran++;
    co_await next_frame();
    co_return 1;
}

task<> await_twice(task<int> &t, int *stage) {
    *stage = 1;
    (void)co_await t;
    *stage = 2;
    (void)co_await t;  // misuse
    *stage = 3;
}
task<> await_ref(task<int> &t, int *stage) {
    *stage = 1;
    (void)co_await t;
    *stage = 2;
}
task<> await_handle(Task h, int *stage) {
    *stage = 1;
    (void)co_await h;
    *stage = 2;
}
task<> try_handle(Task h, Outcome *out) { *out = co_await try_await(h); }
task<> bad_timing(int *stage) {
    *stage = 1;
    co_await next_frame(static_cast<Timing>(99));
    *stage = 2;
}
task<> bad_delay(task_result<void> *out) { *out = co_await try_await(delay(-1.0)); }
task<> empty_any(std::vector<task<int>> *v, int *stage) {
    *stage = 1;
    (void)co_await when_any(*v);
    *stage = 2;
}
task<> dup_native(Task a, int *stage) {
    *stage = 1;
    (void)co_await when_any(a, a);
    *stage = 2;
}

void expect_misuse(int before, Status s) {
    CHECK_EQ(t20::misuse.count, before + 1);
    CHECK(t20::misuse.last == s);
}

}  // namespace

TEST(no_runtime_at_the_start) {
    // No coro_runtime on this thread: the body never runs.
    g_ran = 0;
    task<int> t = plain();
    expect_misuse(0, Status::InvalidRuntime);
    CHECK(t.done() && t.state() == TaskState::Faulted && t.error() == status_error(Status::InvalidRuntime));
    CHECK_EQ(g_ran, 0);
    CHECK(!std::move(t).native().ok());  // no runtime to make a handle on
    task<int> u = plain();
    u.forget();  // its frame is freed at once
    // Nor on another thread of a host.
    host h;
    std::thread th([] {
        task<int> w = plain();
        CHECK(w.done() && w.error() == status_error(Status::InvalidRuntime));
    });
    th.join();
    CHECK_EQ(g_ran, 0);
    CHECK_EQ(t20::misuse.count, 3);
}

TEST(awaiting_twice_or_empty) {
    host h;
    task<int> t = plain();
    int stage = 0;
    task<> a = await_twice(t, &stage);
    h.frame_all();
    CHECK_EQ(stage, 2);
    expect_misuse(0, Status::AlreadyAwaited);
    CHECK(a.done() && a.state() == TaskState::Faulted && a.error() == status_error(Status::AlreadyAwaited));

    // Two coroutines awaiting one task<> at once.
    task<int> shared = plain();
    int s1 = 0, s2 = 0;
    task<> first = await_ref(shared, &s1);
    task<> second = await_ref(shared, &s2);
    expect_misuse(1, Status::AlreadyAwaited);
    CHECK(second.done() && second.error() == status_error(Status::AlreadyAwaited));
    h.frame_all();
    CHECK(first.done() && first.state() == TaskState::Succeeded && s1 == 2);

    // Moved-from.
    task<int> m = plain();
    task<int> moved = std::move(m);
    int s3 = 0;
    task<> e = await_ref(m, &s3);
    expect_misuse(2, Status::InvalidHandle);
    CHECK(e.done() && e.error() == status_error(Status::InvalidHandle) && s3 == 1);
    h.frame_all();
}

TEST(stale_foreign_and_busy_handles) {
    host h;
    Task done_task = h.rt.create_task().unwrap();
    h.rt.set_result(done_task, 1).unwrap();
    h.rt.consume(done_task).unwrap();  // now stale
    int stage = 0;
    task<> a = await_handle(done_task, &stage);
    expect_misuse(0, Status::StaleHandle);
    CHECK(a.done() && a.error() == status_error(Status::StaleHandle) && stage == 1);

    Task busy = h.rt.create_task().unwrap();
    int s2 = 0, s3 = 0;
    task<> b1 = await_handle(busy, &s2);
    task<> b2 = await_handle(busy, &s3);  // it has a continuation already
    expect_misuse(1, Status::AlreadyAwaited);
    CHECK(b2.done() && b2.error() == status_error(Status::AlreadyAwaited));
    h.rt.set_result(busy, 5).unwrap();
    CHECK(b1.done() && b1.state() == TaskState::Succeeded);

    Outcome o;
    task<> c = try_handle(Task(), &o);  // handle 0
    expect_misuse(2, Status::InvalidHandle);
    CHECK(c.done() && c.state() == TaskState::Succeeded);  // try_await: the outcome, not a fault
    CHECK(o.faulted() && o.error() == status_error(Status::InvalidHandle));

    Runtime other = Runtime::create().unwrap();
    Task foreign = other.create_task().unwrap();
    int s4 = 0;
    task<> d = await_handle(foreign, &s4);
    expect_misuse(3, Status::ForeignHandle);
    CHECK(d.done() && d.error() == status_error(Status::ForeignHandle));
    int s5 = 0;
    Task x = h.rt.create_task().unwrap();
    task<> e = dup_native(x, &s5);
    expect_misuse(4, Status::DuplicateInput);
    CHECK(e.done() && e.error() == status_error(Status::DuplicateInput) && s5 == 1);
    h.rt.cancel(x).unwrap();
    h.rt.consume(x).unwrap();
}

TEST(bad_arguments_and_empty_combinators) {
    host h;
    int stage = 0;
    task<> a = bad_timing(&stage);
    expect_misuse(0, Status::InvalidArgument);
    CHECK(a.done() && a.error() == status_error(Status::InvalidArgument) && stage == 1);
    task_result<void> r(TaskState::Pending, 0);
    task<> b = bad_delay(&r);
    expect_misuse(1, Status::InvalidArgument);
    CHECK(b.done() && b.state() == TaskState::Succeeded && r.faulted());
    std::vector<task<int>> none;
    int s2 = 0;
    task<> c = empty_any(&none, &s2);
    expect_misuse(2, Status::CountOutOfRange);
    CHECK(c.done() && c.error() == status_error(Status::CountOutOfRange) && s2 == 1);
    // native() of an empty task, complete_into a completed task.
    task<int> empty;
    CHECK(std::move(empty).native().status() == Status::InvalidHandle);
    Task m = h.rt.create_task().unwrap();
    h.rt.set_result(m, 1).unwrap();
    task<int> p = plain();
    CHECK(std::move(p).complete_into(m).status() == Status::AlreadyCompleted);
    CHECK(p.valid());  // not consumed on error
    h.rt.consume(m).unwrap();
    h.frame_all();
    CHECK_EQ(t20::misuse.count, 3);
}

namespace {
task<> on_runtime(t20::host *expect, OnityRuntime **seen, int *steps) {
    co_await next_frame();
    *seen = current_runtime();  // whatever is current; the coroutine itself stays on its own
    ++*steps;
    co_await next_frame();
    ++*steps;
    (void)expect;
}
}  // namespace

TEST(two_runtimes_on_one_thread) {
    host a;
    host b;  // attached last: current now
    CHECK(b.co.is_current() && !a.co.is_current());
    OnityRuntime *seen = nullptr;
    int steps_b = 0, steps_a = 0;
    task<> tb = on_runtime(&b, &seen, &steps_b);
    task<> ta;
    {
        coro_runtime::scope s(a.co);
        CHECK(a.co.is_current());
        ta = on_runtime(&a, &seen, &steps_a);
    }
    CHECK(b.co.is_current());
    a.frame_all();
    CHECK_EQ(steps_a, 1);
    CHECK_EQ(steps_b, 0);
    b.frame_all();
    CHECK_EQ(steps_b, 1);
    a.frame_all();
    b.frame_all();
    CHECK(ta.done() && tb.done());
    CHECK_EQ(a.stats().started, 1u);
    CHECK_EQ(b.stats().started, 1u);
    CHECK_EQ(t20::misuse.count, 0);
}

TEST(coro_runtime_errors) {
    CHECK(coro_runtime::attach(static_cast<OnityRuntime *>(nullptr)).status() == Status::NullPointer);
    Runtime rt = Runtime::create().unwrap();
    Status off = Status::Ok;
    std::thread th([&] { off = coro_runtime::attach(rt.raw()).status(); });
    th.join();
    CHECK(off == Status::WrongThread);
    {
        coro_runtime co = coro_runtime::attach(rt).unwrap();
        CHECK(co.runtime_alive());
        CHECK_EQ(rt.live_task_count().unwrap(), 1u);  // the bell
    }
    CHECK_EQ(rt.live_task_count().unwrap(), 0u);  // detached with nothing live: the bell is gone
    CHECK(current_runtime() == nullptr);
    CHECK_EQ(t20::misuse.count, 0);
}

namespace {
task<> after_destroy_switch(int *stage) {
    *stage = 1;
    co_await switch_to_owner();  // on the owner: no suspension
    *stage = 2;
}
}  // namespace

TEST(layer_outlives_its_runtime) {
    host h;
    task<int> held = plain();  // suspended in a wait
    h.destroy();
    CHECK(held.done() && held.state() == TaskState::Canceled);
    CHECK(!h.co.runtime_alive());
    int stage = 0;
    task<> t = after_destroy_switch(&stage);
    CHECK(t.done() && stage == 2);
    task<int> late = plain();  // starts; its first wait ends it canceled
    CHECK(late.done() && late.state() == TaskState::Canceled);
    CHECK_EQ(t20::misuse.count, 0);
}

/* A scope outlives the runtime it saved as current: restoring a detached
 * one makes none current (no dangling state), and a detached runtime a scope
 * still refers to stays valid until the scope ends. */
TEST(scopes_and_detach_in_any_order) {
    Runtime r1 = Runtime::create().unwrap();
    Runtime r2 = Runtime::create().unwrap();
    coro_runtime a = coro_runtime::attach(r1).unwrap();
    coro_runtime b = coro_runtime::attach(r2).unwrap();  // current b, then a when b detaches
    {
        coro_runtime::scope s(a);
        b.detach();  // saved by the scope: kept alive until it ends
        CHECK(a.is_current());
        a.detach();  // current: none now
        CHECK(current_runtime() == nullptr);
    }
    CHECK(current_runtime() == nullptr);  // the scope does not bring back a detached runtime
    task<int> t = plain();                // no runtime: reported, never run
    CHECK(t.done() && t.error() == status_error(Status::InvalidRuntime));
    CHECK_EQ(t20::misuse.count, 1);
    CHECK_EQ(r1.live_task_count().unwrap(), 0u);  // both bells gone
    CHECK_EQ(r2.live_task_count().unwrap(), 0u);
}
