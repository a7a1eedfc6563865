// tasks.cpp: task<T> (values, move-only values, failures propagating,
// exceptions, synchronous and deep chains), native handles both ways
// (native(), complete_into(), co_await of a handle), and when_any / when_all /
// race over task<>s: values, indices, the C rules (checked against
// onity_when_any / onity_when_all over the same coroutines' native handles),
// losers, ranges.
#include <memory>
#include <string>

#include "check.hpp"

using namespace onity;
using t20::host;
using t20::point;

namespace {

host *g = nullptr;

/* Completes after `frames` frames (Update) with `value`; how: 0 succeed,
 * 1 fail with value as the error, 2 cancel itself. */
task<int> after(uint32_t frames, int value, int how = 0, point *at = nullptr) {
    if (frames) co_await delay_frame(frames);
    if (at) *at = g->now();
    if (how == 1) co_await this_coroutine::fail(value);
    if (how == 2) co_await this_coroutine::cancel();
    co_return value;
}
task<> after_void(uint32_t frames, int *flag) {
    co_await delay_frame(frames);
    ++*flag;
}
task<std::string> after_string(uint32_t frames, const char *s) {
    co_await delay_frame(frames);
    co_return std::string(s);
}
task<std::unique_ptr<int>> make_unique_later(int v) {
    co_await next_frame();
    co_return std::make_unique<int>(v);
}

task<int> sum_chain(int depth) {
    if (depth == 0) co_return 0;
    co_return 1 + co_await sum_chain(depth - 1);
}
task<int> async_chain(int depth) {
    if (depth == 0) {
        co_await next_frame();
        co_return 0;
    }
    co_return 1 + co_await async_chain(depth - 1);
}

}  // namespace

TEST(task_values_and_chains) {
    host h;
    g = &h;
    task<int> a = after(0, 5);
    CHECK(a.done() && *a.result() == 5);
    task<int> deep = sum_chain(t20::small ? 200 : 5000);  // synchronous: no stack growth per level
    CHECK(deep.done() && *deep.result() == (t20::small ? 200 : 5000));
    task<int> slow = async_chain(300);
    CHECK(!slow.done());
    h.frame_all();
    CHECK(slow.done() && *slow.result() == 300);
    task<std::unique_ptr<int>> u = make_unique_later(9);
    h.frame_all();
    CHECK(u.done() && **u.result() == 9);
    std::unique_ptr<int> got;
    auto take = [](task<std::unique_ptr<int>> t, std::unique_ptr<int> *out) -> task<> {
        *out = co_await std::move(t);
    };
    task<> tk = take(std::move(u), &got);
    CHECK(tk.done() && got && *got == 9);
    CHECK_EQ(t20::misuse.count, 0);
    g = nullptr;
}

namespace {
task<> propagate(task<int> child, int *reached, int *value) {
    *value = co_await std::move(child);
    ++*reached;
}
task<> inspect(task<int> child, task_result<int> *out) { *out = co_await try_await(std::move(child)); }
}  // namespace

TEST(failures_propagate_or_are_inspected) {
    host h;
    g = &h;
    for (int how : {1, 2}) {
        int reached = 0, value = 0;
        task<> p = propagate(after(2, 17, how), &reached, &value);
        task_result<int> r(TaskState::Pending, 0);
        task<> q = inspect(after(2, 17, how), &r);
        h.frames(3);
        CHECK(p.done());
        CHECK_EQ(reached, 0);
        CHECK(p.state() == (how == 1 ? TaskState::Faulted : TaskState::Canceled));
        CHECK_EQ(p.error(), how == 1 ? 17 : 0);
        CHECK(q.done() && q.state() == TaskState::Succeeded);
        CHECK(r.state() == p.state());
        CHECK_EQ(r.error(), p.error());
        CHECK(!r.has_value());
    }
    // Already failed when awaited.
    int reached = 0, value = 0;
    task<int> failed = after(0, 3, 1);
    task<> p = propagate(std::move(failed), &reached, &value);
    CHECK(p.done() && p.state() == TaskState::Faulted && p.error() == 3 && reached == 0);
    g = nullptr;
}

#if ONITY_CORO_EXCEPTIONS
namespace {
struct boom {
    int code;
};
task<int> throws_later(int frames) {
    co_await delay_frame(static_cast<uint32_t>(frames));
    throw boom{frames};
}
task<> catches(task<int> t, int *caught) {
    try {
        (void)co_await std::move(t);
    } catch (const boom &b) {
        *caught = b.code;
    }
}
task<> catches_any(int *caught) {
    try {
        (void)co_await when_any(throws_later(1), after(5, 1));
    } catch (const boom &b) {
        *caught = 100 + b.code;
    }
}
}  // namespace

TEST(exceptions_are_rethrown_where_awaited) {
    host h;
    g = &h;
    int caught = 0, caught_any = 0;
    task<> c = catches(throws_later(2), &caught);
    task<> ca = catches_any(&caught_any);
    task<int> lone = throws_later(1);
    CHECK_EQ(static_cast<int>(lone.state()), 0);
    throws_later(1).forget();  // nobody observes this one
    h.frames(3);
    CHECK_EQ(caught, 2);
    CHECK_EQ(caught_any, 101);
    CHECK(lone.done() && lone.state() == TaskState::Faulted && lone.error() == error_exception);
    CHECK_EQ(t20::unobserved_faults, 1);
    // A throwing until predicate faults its coroutine.
    auto waiter = []() -> task<> { co_await until([]() -> bool { throw boom{1}; }); };
    task<> w = waiter();
    h.frame_all();
    CHECK(w.done() && w.state() == TaskState::Faulted && w.error() == error_exception);
    h.frames(5);
    g = nullptr;
}
#endif

namespace {
task<> fails_at_once(int code) { co_await this_coroutine::fail(code); }
#if ONITY_CORO_EXCEPTIONS
task<> throws_at_once() {
    throw boom{7};
    co_return;
}
#endif
task<> all_of(std::vector<task<>> *v) { co_await when_all(*v); }
}  // namespace

/* A fault that completes while its task<> is held reaches the unobserved
 * handler when the task<> lets go of it without anyone having looked at it
 * (forget(), reset(), the destructor); awaiting, a combinator, reading
 * state() / error() or native() look at it. */
TEST(held_fault_goes_to_unobserved_when_let_go) {
    host h;
    g = &h;
    int n = 0;
    fails_at_once(3).forget();
    CHECK_EQ(t20::unobserved_faults, ++n);
    { task<> dropped = fails_at_once(3); }
    CHECK_EQ(t20::unobserved_faults, ++n);
#if ONITY_CORO_EXCEPTIONS
    throws_at_once().forget();
    CHECK_EQ(t20::unobserved_faults, ++n);
#endif
    task<int> later = after(1, 4, 1);
    h.frame_all();
    CHECK(later.done());
    CHECK_EQ(t20::unobserved_faults, n);  // held: its holder may still look
    later.reset();
    CHECK_EQ(t20::unobserved_faults, ++n);
    task<> moved = fails_at_once(3);
    task<> into;
    into = std::move(moved);
    into = fails_at_once(4);  // the first one is dropped
    CHECK_EQ(t20::unobserved_faults, ++n);
    into.forget();
    CHECK_EQ(t20::unobserved_faults, ++n);
    // Looked at: no report.
    task<> read = fails_at_once(3);
    CHECK_EQ(read.error(), 3);
    read.forget();
    task<> seen = fails_at_once(3);
    CHECK(seen.state() == TaskState::Faulted);
    seen.reset();
    CHECK(h.rt.consume(fails_at_once(3).native().unwrap()).unwrap().error() == 3);
    std::vector<task<>> v;
    v.push_back(fails_at_once(1));
    v.push_back(fails_at_once(2));
    task<> all = all_of(&v);
    CHECK(all.error() == 1);
    v.clear();
    all.reset();
    // Not faulted: no report.
    task<int> canceled = after(1, 0);
    canceled.cancel();
    canceled.forget();
    task<int> ok = after(0, 1);
    ok.forget();
    CHECK_EQ(t20::unobserved_faults, n);
    h.frames(2);
    CHECK_EQ(t20::unobserved_faults, n);
    CHECK_EQ(t20::misuse.count, 0);
    g = nullptr;
}

namespace {
task<> any_of_three(point *at, any_result<int> *out) {
    *out = co_await when_any(after(3, 30), after(1, 10), after(2, 20));
    *at = g->now();
}
task<> any_mixed(any_result<std::variant<int, std::monostate, std::string>> *out, int *flag) {
    *out = co_await when_any(after(4, 1), after_void(5, flag), after_string(2, "two"));
}
task<> race_three(any_result<int> *out, int *reached) {
    *out = co_await race(after(3, 30), after(1, 10), after(2, 20));
    ++*reached;
}
task<> all_of(std::tuple<int, std::monostate, std::string> *out, int *flag) {
    *out = co_await when_all(after(3, 30), after_void(1, flag), after_string(2, "two"));
}
task<> all_failing(task_result<std::tuple<int, int, int>> *out) {
    *out = co_await try_await(when_all(after(3, 30), after(1, 10, 1), after(2, 20, 2)));
}
task<> ranges(std::vector<task<int>> *v, any_result<int> *any, int *all_done) {
    *any = co_await when_any(*v);
    CHECK(!(*v)[any->index].valid());  // the winner's task is consumed
    std::vector<task<int>> rest;
    for (task<int> &t : *v)
        if (t.valid()) rest.push_back(std::move(t));
    co_await when_all(rest);
    for (task<int> &t : rest) *all_done += *t.result();
}
}  // namespace

TEST(when_any_when_all_race_over_tasks) {
    host h;
    g = &h;
    point at;
    any_result<int> a{99, 0};
    task<> t1 = any_of_three(&at, &a);
    int flag = 0;
    any_result<std::variant<int, std::monostate, std::string>> m{99, {}};
    task<> t2 = any_mixed(&m, &flag);
    any_result<int> r{99, 0};
    int reached = 0;
    task<> t3 = race_three(&r, &reached);
    std::tuple<int, std::monostate, std::string> all;
    int flag2 = 0;
    task<> t4 = all_of(&all, &flag2);
    task_result<std::tuple<int, int, int>> af(TaskState::Pending, 0);
    task<> t5 = all_failing(&af);
    std::vector<task<int>> v;
    for (int i = 0; i < 5; i++) v.push_back(after(static_cast<uint32_t>(5 - i), i));
    any_result<int> ra{99, 0};
    int sum = 0;
    task<> t6 = ranges(&v, &ra, &sum);
    const uint64_t live_before = h.stats().live_frames;
    h.frames(1);
    CHECK(t1.done() && a.index == 1 && a.value == 10 && at.frame == 1);  // DelayFrame(1) made before the first frame
    CHECK(t3.done() && r.index == 1 && r.value == 10 && reached == 1);
    // race: the losers were canceled before the awaiting coroutine resumed.
    CHECK(h.stats().live_frames < live_before);
    h.frames(1);
    CHECK(t2.done() && m.index == 2 && std::get<2>(m.value) == "two");
    h.frames(3);
    CHECK(t4.done() && std::get<0>(all) == 30 && std::get<2>(all) == "two" && flag2 == 1);
    CHECK(t5.done() && af.state() == TaskState::Faulted && af.index() == 1 && af.error() == 10);  // completion order
    CHECK(t6.done() && ra.index == 4 && ra.value == 4 && sum == 0 + 1 + 2 + 3);
    h.frames(5);
    CHECK_EQ(flag, 1);  // when_any's losers ran on
    t1.reset(); t2.reset(); t3.reset(); t4.reset(); t5.reset(); t6.reset();
    v.clear();
    CHECK_EQ(h.stats().live_blocks, 0u);
    CHECK_EQ(t20::misuse.count, 0);
    g = nullptr;
}

namespace {
/* One input of the C++ / native comparison: completes at frame `at` (0 =
 * already at the await) with value, fault or cancel. */
struct spec {
    uint32_t at;
    int how;
};
task<int> input(spec s, int v) { return after(s.at, v, s.how); }
struct verdict {
    point at;
    uint32_t state = 99;
    int32_t error = 0;
    uint32_t index = 99;
    uint64_t value = 0;
};
task<> cpp_side(bool all, const spec *s, verdict *out) {
    if (all) {
        task_result<std::tuple<int, int, int>> r = co_await try_await(
            when_all(input(s[0], 100), input(s[1], 101), input(s[2], 102)));
        out->state = static_cast<uint32_t>(r.state());
        out->error = r.error();
        out->index = r.index();
        out->value = r.succeeded() ? 3 : 0;  // C's WhenAll value: the input count
    } else {
        task_result<any_result<int>> r = co_await try_await(when_any(input(s[0], 100), input(s[1], 101), input(s[2], 102)));
        out->state = static_cast<uint32_t>(r.state());
        out->error = r.error();
        out->index = r.index();
        out->value = r.succeeded() ? static_cast<uint64_t>(r.value().value) : 0;
    }
    out->at = g->now();
}
void c_done(void *user, uint64_t task, uint32_t) {
    verdict *v = static_cast<verdict *>(user);
    OnityOutcome o{};
    onity_task_consume(g->raw(), task, &o);
    v->at = g->now();
    v->state = o.state;
    v->error = o.error;
    v->index = o.index;
    v->value = o.state == ONITY_TASK_STATE_SUCCEEDED ? o.value : 0;
}
}  // namespace

/* The C++ combinators against onity_when_any / onity_when_all over native()
 * handles of the same coroutines: same moment, state, error, index, value. */
TEST(task_combinators_follow_the_c_rules) {
    host h;
    g = &h;
    const spec cases[][3] = {
        {{2, 0}, {1, 0}, {3, 0}}, {{2, 0}, {2, 0}, {1, 1}}, {{0, 0}, {0, 1}, {2, 0}}, {{3, 2}, {0, 0}, {1, 1}},
        {{1, 1}, {1, 2}, {1, 0}}, {{2, 2}, {3, 1}, {2, 0}}, {{0, 2}, {0, 0}, {0, 1}}, {{4, 0}, {2, 1}, {3, 2}},
    };
    for (const auto &c : cases) {
        for (bool all : {false, true}) {
            h.frame_all();
            verdict cv, nv;
            task<> t = cpp_side(all, c, &cv);
            uint64_t in[3];
            for (int i = 0; i < 3; i++) in[i] = input(c[i], 100 + i).native().unwrap().handle();
            uint64_t w = 0;
            CHECK_EQ(all ? onity_when_all(h.raw(), in, 3, 0, &w) : onity_when_any(h.raw(), in, 3, 0, &w),
                     ONITY_STATUS_OK);
            CHECK_EQ(onity_task_on_complete(h.raw(), w, &c_done, &nv), ONITY_STATUS_OK);
            h.frames(6);
            CHECK(t.done());
            CHECK(cv.at == nv.at);
            CHECK_EQ(cv.state, nv.state);
            CHECK_EQ(cv.error, nv.error);
            CHECK_EQ(cv.index, nv.index);
            CHECK_EQ(cv.value, nv.value);
        }
    }
    CHECK_EQ(h.live_native_tasks(), 1u);
    CHECK_EQ(h.stats().live_frames, 0u);
    g = nullptr;
}

namespace {
task<uint64_t> awaits_handles(Task a, Task b, int *stage) {
    *stage = 1;
    uint64_t x = co_await a;  // completed later by C on the owner: resumes inline
    *stage = 2;
    Outcome o = co_await try_await(b);
    *stage = 3;
    co_return x + (o.faulted() ? static_cast<uint64_t>(o.error()) : 0);
}
task<int> negative() {
    co_await next_frame();
    co_return -5;
}
}  // namespace

TEST(native_handles_both_ways) {
    host h;
    g = &h;
    Task a = h.rt.create_task().unwrap(), b = h.rt.create_task().unwrap();
    int stage = 0;
    task<uint64_t> t = awaits_handles(a, b, &stage);
    CHECK_EQ(stage, 1);
    h.rt.set_result(a, 40).unwrap();
    CHECK_EQ(stage, 2);
    h.rt.set_error(b, 2).unwrap();
    CHECK(t.done() && *t.result() == 42);
    // A coroutine's native handle, awaited by C.
    Task n = negative().native().unwrap();
    verdict v;
    CHECK_EQ(onity_task_on_complete(h.raw(), n.handle(), &c_done, &v), ONITY_STATUS_OK);
    h.frame_all();
    CHECK_EQ(v.state, static_cast<uint32_t>(ONITY_TASK_STATE_SUCCEEDED));
    CHECK_EQ(static_cast<int64_t>(v.value), -5);
    // complete_into: a manual task made elsewhere.
    Task m = h.rt.create_task().unwrap();
    CHECK(after(1, 7).complete_into(m).ok());
    h.frame_all();
    CHECK(h.rt.consume(m).unwrap().value() == 7);
    // Already done: the handle completes at once.
    Task d = after(0, 3, 1).native().unwrap();
    Outcome od = h.rt.consume(d).unwrap();
    CHECK(od.faulted() && od.error() == 3);
    CHECK_EQ(h.live_native_tasks(), 1u);
    CHECK_EQ(t20::misuse.count, 0);
    g = nullptr;
}

namespace {
task<> void_after(uint32_t frames, int how) {
    co_await delay_frame(frames);
    if (how == 1) co_await this_coroutine::fail(9);
    if (how == 2) co_await this_coroutine::cancel();
}
}  // namespace

/* task<>::native() and task<>::complete_into() (T = void) build with every
 * compiler under -Werror and carry each outcome (value 0). */
TEST(void_task_native_handles) {
    host h;
    g = &h;
    for (int how = 0; how < 3; how++) {
        Task n = void_after(1, how).native().unwrap();
        Task m = h.rt.create_task().unwrap();
        CHECK(void_after(2, how).complete_into(m).ok());
        CHECK(h.rt.consume(n).status() == Status::TaskPending);
        h.frames(3);
        for (Task x : {n, m}) {
            Outcome o = h.rt.consume(x).unwrap();
            CHECK(o.state() == (how == 0 ? TaskState::Succeeded : how == 1 ? TaskState::Faulted : TaskState::Canceled));
            CHECK_EQ(o.error(), how == 1 ? 9 : 0);
            CHECK_EQ(o.value(), 0u);
        }
    }
    CHECK_EQ(h.live_native_tasks(), 1u);  // the layer's bell
    CHECK_EQ(t20::misuse.count, 0);
    g = nullptr;
}
