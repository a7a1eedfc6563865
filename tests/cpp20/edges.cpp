// edges.cpp: what a hostile reading of the layer turned up: chains of
// coroutines awaiting each other 10,000+ deep (completion, failure,
// exception, cancellation and runtime destruction travel the whole chain)
// on a thread with a small stack.
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "check.hpp"

using namespace onity;
using t20::host;

namespace {

/* Runs fn() on a new thread with a stack of `bytes` (the owner thread of
 * whatever fn creates): a recursion per level of a chain overflows it. */
template <class F>
void on_small_stack(std::size_t bytes, F fn) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, bytes);
    pthread_t th;
    auto trampoline = [](void *p) -> void * {
        onity::set_misuse_handler(&t20::record_misuse);
        (*static_cast<F *>(p))();
        return nullptr;
    };
    CHECK_EQ(pthread_create(&th, &attr, trampoline, &fn), 0);
    pthread_join(th, nullptr);
    pthread_attr_destroy(&attr);
}

constexpr std::size_t kSmallStack = 256 * 1024;

int depth() { return t20::small ? 10000 : 100000; }

struct counted {
    int *n;
    ~counted() { ++*n; }
};

enum chain_end { end_value, end_fail, end_throw, end_wait_forever };

/* The bottom of a chain: waits a frame (with the token), then ends as `how`. */
task<int> bottom(chain_end how, Token tok, int *dtors) {
    counted c{dtors};
    co_await next_frame(Timing::Update, tok);
    if (how == end_fail) co_await this_coroutine::fail(3);
#if ONITY_CORO_EXCEPTIONS
    if (how == end_throw) throw 7;
#endif
    if (how == end_wait_forever) co_await delay(1e9);
    co_return 0;
}
/* A level above it: awaits it (level % 3: directly, through when_any of
 * one, through race of one). */
task<int> level(task<int> below, int d, int *dtors) {
    counted c{dtors};
    if (d % 3 == 1) co_return 1 + (co_await when_any(std::move(below))).value;
    if (d % 3 == 2) co_return 1 + (co_await race(std::move(below))).value;
    co_return 1 + co_await std::move(below);
}
/* n levels over a bottom, built from the bottom up (a coroutine that started
 * its own child would recurse n deep when it starts, as any function). */
task<int> chain(int n, chain_end how, Token tok, int *dtors) {
    task<int> t = bottom(how, tok, dtors);
    for (int d = 1; d <= n; d++) t = level(std::move(t), d, dtors);
    return t;
}

#if ONITY_CORO_EXCEPTIONS
task<int> catches(task<int> t) {
    try {
        co_return co_await std::move(t);
    } catch (int e) {
        co_return -e;
    }
}
#endif

}  // namespace

/* A chain completes, fails, throws, is canceled (task<>::cancel at the top,
 * or the bottom's token) and is ended by the runtime's destruction: each
 * travels the whole chain without a stack frame per level. */
TEST(deep_chains_do_not_grow_the_stack) {
    for (int mode = 0; mode < 6; mode++) {
#if !ONITY_CORO_EXCEPTIONS
        if (mode == 2) continue;
#endif
        on_small_stack(kSmallStack, [mode] {
            const int n = depth();
            host h;
            CancelSource src = h.rt.create_cancel_source().unwrap();
            int dtors = 0;
            const chain_end how = mode == 0 ? end_value : mode == 1 ? end_fail : mode == 2 ? end_throw : end_wait_forever;
            task<int> t = chain(n, how, mode == 4 ? src.token() : Token(), &dtors);
#if ONITY_CORO_EXCEPTIONS
            if (mode == 2) t = catches(std::move(t));
#endif
            CHECK(!t.done());
            h.frame_all();
            if (mode == 3) t.cancel();
            if (mode == 4) {
                src.cancel().unwrap();
                h.frame_all();
            }
            if (mode == 5) {
                src.reset();
                h.destroy();
            }
            CHECK(t.done());
            switch (mode) {
                case 0: CHECK(t.state() == TaskState::Succeeded && *t.result() == n); break;
                case 1: CHECK(t.state() == TaskState::Faulted && t.error() == 3); break;
                case 2: CHECK(t.state() == TaskState::Succeeded && *t.result() == -7); break;
                default: CHECK(t.state() == TaskState::Canceled); break;
            }
            CHECK_EQ(dtors, n + 1);
            t.reset();
            CHECK_EQ(h.stats().live_frames, 0u);
            CHECK_EQ(t20::misuse.count, 0);
        });
    }
}

namespace {
/* Locals over-aligned for SIMD or cache lines, alive across suspensions. */
template <std::size_t A>
struct alignas(A) wide {
    unsigned char bytes[A];
};
/* Opaque to the optimizer: keeps `pad` (the frame's size) alive. */
[[gnu::noinline]] unsigned char first_of(const unsigned char *p, std::size_t n) {
    return n ? p[0] : 0;
}
template <std::size_t A, std::size_t Pad>
task<int> keeps_aligned(int *misaligned) {
    unsigned char pad[Pad] = {};
    wide<A> w{};
    pad[0] = 1;
    volatile uintptr_t at = reinterpret_cast<uintptr_t>(&w);  // the address as the program sees it
    co_await next_frame();
    if (at % A != 0 || reinterpret_cast<uintptr_t>(&w) % A != 0) ++*misaligned;
    w.bytes[A - 1] = first_of(pad, Pad);
    co_return w.bytes[A - 1];
}
template <std::size_t A, std::size_t... Pads>
void start_aligned(std::vector<task<int>> &out, int *misaligned, std::index_sequence<Pads...>) {
    (out.push_back(keeps_aligned<A, Pads * 24 + 1>(misaligned)), ...);
}
}  // namespace

/* A coroutine frame is as aligned as its locals need, up to 128 bytes
 * (C++20 compilers pass no alignment to the promise's operator new: the pool
 * aligns every frame to 128), in each size class and from the heap (no
 * runtime, larger than the largest class). */
TEST(over_aligned_frames) {
    int misaligned = 0;
    std::vector<task<int>> ts;
    {
        host h;
        start_aligned<32>(ts, &misaligned, std::make_index_sequence<6>{});
        start_aligned<64>(ts, &misaligned, std::make_index_sequence<6>{});
        start_aligned<128>(ts, &misaligned, std::make_index_sequence<6>{});
        ts.push_back(keeps_aligned<128, 20000>(&misaligned));  // oversize: from the heap
        h.frame_all();
        for (task<int> &t : ts) CHECK(t.done() && *t.result() == 1);
        CHECK_EQ(misaligned, 0);
        CHECK_EQ(h.stats().oversize.rents, 1u);
        ts.clear();
    }
    task<int> none = keeps_aligned<128, 1>(&misaligned);  // no runtime: from the heap, never runs
    CHECK(none.done() && none.error() == status_error(Status::InvalidRuntime));
    CHECK_EQ(t20::misuse.count, 1);
}

namespace {
task<> until_canceling(task<> *target, bool met, int *after) {
    co_await until([target, met] {
        target->cancel();  // its own coroutine, or one that awaits it
        return met;
    });
    ++*after;
}
task<> awaits(task<> child, int *after) {
    co_await std::move(child);
    ++*after;
}
}  // namespace

/* An until / while_ predicate that cancels its own coroutine (directly, or
 * through a coroutine awaiting it): the coroutine finishes canceled there,
 * as a cancel() while it waits does, whether the predicate held or not. */
TEST(cancel_from_inside_a_predicate) {
    for (int how = 0; how < 4; how++) {  // bit 0: the predicate holds; bit 1: cancels the parent
        host h;
        int after = 0, parent_after = 0;
        task<> self, parent;
        self = until_canceling(how & 2 ? &parent : &self, how & 1, &after);
        if (how & 2) parent = awaits(std::move(self), &parent_after);
        task<> &top = how & 2 ? parent : self;
        h.frame_all();
        CHECK(top.done() && top.state() == TaskState::Canceled);
        CHECK_EQ(after, 0);
        CHECK_EQ(parent_after, 0);
        h.frames(2);
        top.reset();
        CHECK_EQ(h.stats().live_blocks, 0u);
        CHECK_EQ(t20::misuse.count, 0);
    }
}

namespace {
task<> pending_until(const std::atomic<bool> *stop) {
    co_await until([stop] { return stop->load(); });
}
task<> awaits_ref(task<> *t, int *after) {
    co_await *t;
    ++*after;
}
task<> awaits_any(std::span<task<>> ts, int *after) {
    co_await when_any(ts);
    ++*after;
}
}  // namespace

/* A task<> of a runtime that another thread owns cannot be awaited (its
 * completion would resume the awaiting coroutine on that thread): reported
 * as WRONG_THREAD, the awaiting coroutine finishes faulted, the task<> is
 * left alone. */
TEST(awaiting_a_task_of_another_threads_runtime) {
    std::atomic<int> phase{0};
    std::atomic<bool> stop{false};
    task<> foreign[1];
    std::thread owner([&] {
        host a;
        foreign[0] = pending_until(&stop);
        phase = 1;
        while (phase.load() != 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        stop = true;
        a.frame_all();
        CHECK(foreign[0].done() && foreign[0].state() == TaskState::Succeeded);
        foreign[0].reset();
        CHECK_EQ(a.stats().live_blocks, 0u);
    });
    while (phase.load() != 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    {
        host b;
        int after = 0;
        task<> p1 = awaits_ref(&foreign[0], &after);
        task<> p2 = awaits_any(std::span<task<>>(foreign), &after);
        CHECK_EQ(t20::misuse.count, 2);
        CHECK(t20::misuse.last == Status::WrongThread);
        CHECK(p1.done() && p1.error() == status_error(Status::WrongThread));
        CHECK(p2.done() && p2.error() == status_error(Status::WrongThread));
        CHECK_EQ(after, 0);
    }
    phase = 2;
    owner.join();
}

namespace {
task<int> frame_later(int v) {
    co_await next_frame();
    co_return v;
}
task<> awaits_lvalue(task<int> *t, int *got) { *got = co_await *t; }
task<> tries_lvalue(task<int> *t, int *got) {
    task_result<int> r = co_await try_await(*t);
    *got = r.succeeded() ? r.value() : -1;
}
}  // namespace

/* co_await on a task<> lvalue takes the coroutine from it: moving the
 * task<> (a vector growing, say) or destroying it while a coroutine awaits
 * it changes nothing for the await. */
TEST(task_moved_or_destroyed_while_awaited) {
    for (int how = 0; how < 4; how++) {  // bit 0: destroyed (else moved); bit 1: try_await
        host h;
        std::vector<task<int>> v;
        v.push_back(frame_later(7));
        int got = 0;
        task<> p = how & 2 ? tries_lvalue(&v[0], &got) : awaits_lvalue(&v[0], &got);
        CHECK(!v[0].valid());  // taken by the await
        if (how & 1) {
            v.clear();
        } else {
            for (int i = 0; i < 64; i++) v.push_back(task<int>());  // reallocates: v[0] moves
        }
        h.frame_all();
        CHECK(p.done() && p.state() == TaskState::Succeeded);
        CHECK_EQ(got, 7);
        p.reset();
        v.clear();
        CHECK_EQ(h.stats().live_blocks, 0u);
        CHECK_EQ(t20::misuse.count, 0);
    }
}

namespace {
/* A job system's awaiter: resumes the coroutine on a new thread once `go`. */
struct resume_on_thread {
    std::thread *th;
    const std::atomic<bool> *go;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) const {
        const std::atomic<bool> *g = go;
        *th = std::thread([h, g] {
            while (!g->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            h.resume();
        });
    }
    void await_resume() const noexcept {}
};
struct where_destroyed {
    std::thread::id *at;
    ~where_destroyed() { *at = t20::thread_id(); }
};
task<> waits_on_a_worker(std::thread *th, const std::atomic<bool> *go, std::thread::id *at, int *after) {
    where_destroyed w{at};
    co_await resume_on_thread{th, go};
    co_await next_frame();  // on the worker, after the runtime is gone
    ++*after;
}
}  // namespace

/* A coroutine that a job system resumed on a worker awaits a frame after the
 * runtime was destroyed: WRONG_THREAD, and the coroutine is finished on the
 * owner (when the layer detaches), never on the worker (its frame belongs to
 * the owner's pool). */
TEST(worker_await_after_the_runtime_is_destroyed) {
    host h;
    std::thread th;
    std::atomic<bool> go{false};
    std::thread::id at;
    int after = 0;
    task<> t = waits_on_a_worker(&th, &go, &at, &after);
    h.destroy();
    go = true;
    th.join();
    CHECK_EQ(t20::misuse.count, 1);
    CHECK(t20::misuse.last == Status::WrongThread);
    CHECK(!t.done());  // handed to the owner
    h.co.detach();
    CHECK(t.done() && t.state() == TaskState::Faulted && t.error() == status_error(Status::WrongThread));
    CHECK(at == t20::thread_id());
    CHECK_EQ(after, 0);
}

/* The same with nobody holding the coroutine: the layer's state goes with
 * the last block, after detach() is done with it. */
TEST(worker_await_after_the_runtime_is_destroyed_forgotten) {
    host h;
    std::thread th;
    std::atomic<bool> go{false};
    std::thread::id at;
    int after = 0;
    waits_on_a_worker(&th, &go, &at, &after).forget();
    h.destroy();
    go = true;
    th.join();
    CHECK_EQ(t20::misuse.count, 1);
    h.co.detach();
    CHECK(at == t20::thread_id());
    CHECK_EQ(after, 0);
    CHECK_EQ(t20::unobserved_faults, 1);
}

namespace {
task<int> done_now(int v) { co_return v; }
task<> canceled_then_awaits_done(Token, task<> *self, CancelSource *src, bool by_token, bool via_any, int *after) {
    co_await next_frame();
    if (by_token)
        src->cancel().unwrap();
    else
        self->cancel();  // recorded: it is running
    int v = via_any ? (co_await when_any(done_now(1))).value : co_await done_now(1);
    *after += v;
}
}  // namespace

/* A coroutine canceled while it runs (cancel(), its token) finishes
 * canceled at its next await, also when that awaits a task<> already
 * complete (no suspension), as it does at a combinator over one. */
TEST(cancel_seen_at_an_await_of_a_completed_task) {
    for (int how = 0; how < 4; how++) {  // bit 0: by the token; bit 1: through when_any
        host h;
        CancelSource src = h.rt.create_cancel_source().unwrap();
        int after = 0;
        task<> t;
        t = canceled_then_awaits_done(src.token(), &t, &src, how & 1, how & 2, &after);
        h.frame_all();
        CHECK(t.done() && t.state() == TaskState::Canceled);
        CHECK_EQ(after, 0);
        t.reset();
        src.reset();
        CHECK_EQ(t20::misuse.count, 0);
    }
}

/* The native handle of a coroutine (native(), complete_into()) is its
 * holder's: completed (canceled) and consumed before the coroutine ends, it
 * is gone when the coroutine's outcome comes; that outcome is dropped, as a
 * later completion of any task is, with no misuse. */
TEST(native_handle_given_up_before_the_coroutine_ends) {
    for (int how = 0; how < 2; how++) {
        host h;
        Task n;
        if (how == 0) {
            n = frame_later(7).native().unwrap();
        } else {
            n = h.rt.create_task().unwrap();
            CHECK(frame_later(7).complete_into(n).ok());
        }
        h.rt.cancel(n).unwrap();
        CHECK(h.rt.consume(n).unwrap().canceled());
        h.frame_all();
        CHECK_EQ(t20::misuse.count, 0);
        CHECK_EQ(h.stats().live_blocks, 0u);
        CHECK_EQ(h.stats().succeeded, 1u);
    }
}

namespace {
task<> sleeper_forever() { co_await delay(1e9); }
/* Awaits `below`, then cancels its own victim: it must be done at once,
 * however deep in a chain of continuations this runs. */
task<int> cancels_on_the_way_up(task<int> below, task<> *victim, int *not_at_once) {
    const int v = co_await std::move(below);
    victim->cancel();
    if (!victim->done()) ++*not_at_once;
    co_return v + 1;
}
}  // namespace

/* task<>::cancel() finishes a coroutine suspended in a runtime wait at once,
 * also when called by a coroutine resumed deep in a chain of continuations. */
TEST(cancel_at_once_deep_in_a_chain) {
    host h;
    const int n = 64;
    std::vector<task<>> victims(n);
    for (task<> &v : victims) v = sleeper_forever();
    int not_at_once = 0, dtors = 0;
    task<int> t = bottom(end_value, Token(), &dtors);
    for (int d = 0; d < n; d++) t = cancels_on_the_way_up(std::move(t), &victims[d], &not_at_once);
    h.frame_all();
    CHECK(t.done() && *t.result() == n);
    CHECK_EQ(not_at_once, 0);
    for (task<> &v : victims) CHECK(v.state() == TaskState::Canceled);
}

namespace {
task<> awaits_itself(task<> *self, bool via_any, int *after) {
    co_await next_frame();
    if (via_any)
        co_await when_any(std::span<task<>>(self, 1));
    else
        co_await *self;  // would wait for itself forever
    ++*after;
}
}  // namespace

/* A coroutine awaiting its own task<> (directly or in a combinator) would
 * wait forever, beyond cancel() and the runtime's destruction: misuse
 * (INVALID_ARGUMENT), it finishes faulted there. */
TEST(coroutine_awaiting_itself) {
    for (bool via_any : {false, true}) {
        host h;
        int after = 0;
        task<> t;
        t = awaits_itself(&t, via_any, &after);
        const int before = t20::misuse.count;
        h.frame_all();
        CHECK_EQ(t20::misuse.count, before + 1);
        CHECK(t20::misuse.last == Status::InvalidArgument);
        CHECK(t.done() && t.error() == status_error(Status::InvalidArgument));
        CHECK_EQ(after, 0);
        t.reset();
        CHECK_EQ(h.stats().live_blocks, 0u);
    }
}

/* coro_runtime::stats() reports the frame pool with the runtime's own
 * statistics taken in the same call: the native pools the coroutines use
 * (wait records, tasks) beside the frame blocks; none once the runtime is
 * gone, and none off the owner thread. */
namespace {
task<> stat_waiter() { co_await delay_frame(10); }
}  // namespace

TEST(stats_carry_the_runtimes_own) {
    t20::host h;
    h.frame_all();
    onity::coro_stats st = h.stats();
    CHECK(st.has_runtime);
    CHECK_EQ(st.runtime.pool(ONITY_POOL_WAIT_RECORDS).live, 0u);
    task<> a = stat_waiter();
    task<> b = stat_waiter();
    st = h.stats();
    CHECK(st.has_runtime);
    CHECK_EQ(st.live_frames, 2u);
    CHECK_EQ(st.total().live, 2u);
    CHECK_EQ(st.runtime.pool(ONITY_POOL_WAIT_RECORDS).live, 2u);
    CHECK_EQ(st.runtime.waits(ONITY_WAIT_KIND_DELAY_FRAME).pending, 2u);
    const onity::Stats native = h.rt.stats().unwrap();
    CHECK_EQ(native.pool(ONITY_POOL_TASKS).live, st.runtime.pool(ONITY_POOL_TASKS).live);
    bool off_thread = true;
    std::thread([&] { off_thread = h.co.stats().has_runtime; }).join();
    CHECK(!off_thread);
    a.cancel();
    st = h.stats();
    CHECK_EQ(st.runtime.pool(ONITY_POOL_WAIT_RECORDS).live, 1u);
    CHECK_EQ(st.live_frames, 1u);
    h.destroy();
    st = h.stats();
    CHECK(!st.runtime_alive);
    CHECK(!st.has_runtime);
    CHECK_EQ(st.ghost_waits, 0u);
}
