// plain.cpp: the plain waits (next_frame() / yield() without arguments) and
// what their hot path leaves to others: a cancellation pending when they start
// (cell::wait_token = cancel_due_token, which the C API rejects: no check of
// the cancel word before the call), the stand-in frame a coroutine finished
// at one of them leaves for the wait's late callback (ghost_frame), and
// wait_token following the cancel word while the owner and the coroutine's
// thread change it at once.
#include <thread>

#include "check.hpp"

using namespace onity;
using t20::host;

namespace {

struct probe {
    int dtors = 0;
    int before = 0;  // reached the await that must end the coroutine
    int after = 0;   // went past it (must not)
};
struct loud {
    probe *p;
    ~loud() { p->dtors++; }
};

/* One plain wait: next_frame() (Kind 0) or yield() (Kind 1); chosen at
 * compile time (clang 14 -O2 crashes splitting a coroutine that picks one of
 * two awaits with a runtime `if` after an earlier await, whatever the
 * awaiters). */
#define PLAIN_WAIT(kind)               \
    if constexpr ((kind) == 0) {       \
        co_await next_frame();         \
    } else {                           \
        co_await yield();              \
    }

/* Cancels itself while running (task<>::cancel: recorded, it is not
 * suspended), then awaits a plain wait: it ends there, at once. */
template <int kind>
task<> self_canceler(task<> *self, probe *p) {
    loud l{p};
    co_await next_frame();
    self->cancel();
    p->before++;
    PLAIN_WAIT(kind)
    p->after++;
}

/* The same inside a cancel_guard: the plain wait inside goes on (the guard
 * defers), the first one after the guard ends the coroutine. `how` 0:
 * task<>::cancel, 1: this_coroutine::cancel(). */
template <int kind>
task<> guarded_self_canceler(task<> *self, probe *p, int how, int *inside) {
    loud l{p};
    co_await next_frame();
    {
        cancel_guard g = co_await this_coroutine::defer_cancellation();
        if (how == 0)
            self->cancel();
        else
            co_await this_coroutine::cancel();
        PLAIN_WAIT(kind)
        ++*inside;
        PLAIN_WAIT(kind)
        ++*inside;
    }
    p->before++;
    PLAIN_WAIT(kind)
    p->after++;
}

template <int kind>
task<> sleeper(probe *p) {
    loud l{p};
    for (;;) PLAIN_WAIT(kind)
}

/* A sleeper whose frame is larger than the largest pool class: its block
 * comes from the heap (the oversize class), and so does its stand-in. */
template <int kind>
task<> big_sleeper(probe *p) {
    loud l{p};
    volatile unsigned char big[20000] = {};
    for (unsigned i = 0;; i++) {
        big[i % sizeof(big)] = static_cast<unsigned char>(big[(i + 1) % sizeof(big)] + 1);
        PLAIN_WAIT(kind)
    }
}

}  // namespace

/* The token the plain waits carry while a cancellation is pending is one the
 * C API rejects at once, in every callback form they use, recording nothing. */
TEST(cancel_due_token_is_rejected_by_the_c_api) {
    host h;
    h.frame_all();
    const uint64_t live = h.stats().runtime.pool(ONITY_POOL_WAIT_RECORDS).live;
    auto cb = [](void *, uint64_t, uint32_t) {};
    CHECK_EQ(onity_next_frame_then(h.raw(), ONITY_TIMING_UPDATE, detail::cancel_due_token, cb, nullptr),
             ONITY_STATUS_INVALID_HANDLE);
    CHECK_EQ(onity_yield_then(h.raw(), ONITY_TIMING_UPDATE, detail::cancel_due_token, cb, nullptr),
             ONITY_STATUS_INVALID_HANDLE);
    CHECK_EQ(h.stats().runtime.pool(ONITY_POOL_WAIT_RECORDS).live, live);
}

TEST(plain_wait_ends_at_a_cancel_requested_while_running) {
    for (int kind = 0; kind < 2; kind++) {
        host h;
        h.frame_all();
        probe p;
        task<> t;
        t = kind == 0 ? self_canceler<0>(&t, &p) : self_canceler<1>(&t, &p);
        CHECK(!t.done());
        h.frame_all();
        CHECK(t.done());
        CHECK(t.state() == TaskState::Canceled);
        CHECK_EQ(p.before, 1);
        CHECK_EQ(p.after, 0);
        CHECK_EQ(p.dtors, 1);
        const onity::coro_stats st = h.stats();
        CHECK_EQ(st.ghost_waits, 0u);
        CHECK_EQ(st.live_frames, 0u);
        CHECK_EQ(st.runtime.pool(ONITY_POOL_WAIT_RECORDS).live, 0u);
        CHECK_EQ(t20::misuse.count, 0);
    }
}

TEST(plain_wait_inside_a_guard_goes_on_and_ends_after_it) {
    for (int kind = 0; kind < 2; kind++) {
        for (int how = 0; how < 2; how++) {
            host h;
            h.frame_all();
            probe p;
            int inside = 0;
            task<> t;
            t = kind == 0 ? guarded_self_canceler<0>(&t, &p, how, &inside) : guarded_self_canceler<1>(&t, &p, how, &inside);
            h.frame_all();
            CHECK(!t.done());
            CHECK_EQ(inside, 0);
            h.frame_all();
            CHECK_EQ(inside, 1);
            h.frame_all();
            CHECK_EQ(inside, 2);
            CHECK(t.done());
            CHECK(t.state() == TaskState::Canceled);
            CHECK_EQ(p.before, 1);
            CHECK_EQ(p.after, 0);
            CHECK_EQ(p.dtors, 1);
            CHECK_EQ(h.stats().ghost_waits, 0u);
            CHECK_EQ(t20::misuse.count, 0);
        }
    }
}

/* A coroutine canceled while suspended in a plain wait finishes at once; the
 * wait's callback comes later (a ghost) and lands in the stand-in frame: the
 * block goes back then. With the runtime destroyed first, the callback comes
 * canceled and finds the frame dead the other way. */
TEST(plain_wait_ghost_ends_at_its_callback) {
    for (int kind = 0; kind < 2; kind++) {
        for (int destroy = 0; destroy < 2; destroy++) {
            host h;
            h.frame_all();
            probe p;
            task<> t = kind == 0 ? sleeper<0>(&p) : sleeper<1>(&p);
            h.frame_all();
            t.cancel();
            CHECK(t.done());
            CHECK(t.state() == TaskState::Canceled);
            CHECK_EQ(p.dtors, 1);
            t.reset();
            onity::coro_stats st = h.stats();
            CHECK_EQ(st.live_frames, 0u);
            CHECK_EQ(st.ghost_waits, 1u);
            CHECK_EQ(st.live_blocks, 1u);
            if (destroy)
                h.destroy();
            else
                h.frames(2);
            st = h.stats();
            CHECK_EQ(st.ghost_waits, 0u);
            CHECK_EQ(st.live_blocks, 0u);
            CHECK_EQ(p.dtors, 1);
            CHECK_EQ(t20::misuse.count, 0);
        }
    }
}

/* wait_token follows the cancel word however the owner's request and the
 * coroutine's guards (another thread) interleave. A cell alone (no runtime,
 * never started): nothing but the word and the token is touched. */
TEST(wait_token_follows_concurrent_requests_and_guards) {
    const int rounds = t20::small ? 50 : 2000;
    const uint64_t token = 0x0000000300000401ull;
    for (int r = 0; r < rounds; r++) {
        detail::cell c;
        c.token = token;
        c.wait_token.store(token);
        std::atomic<bool> go{false};
        std::thread worker([&] {
            while (!go.load()) {
            }
            for (int i = 0; i < 20; i++) {
                cancel_guard g(&c);
                cancel_guard g2(&c);
            }
        });
        go.store(true);
        for (int i = 0; i < r % 7; i++) std::this_thread::yield();
        detail::request_cancel(&c);
        worker.join();
        CHECK_EQ(c.cancel_word.load(), detail::cancel_requested_bit);
        CHECK_EQ(c.wait_token.load(), detail::cancel_due_token);
    }
    // Inside a guard: 0; after it with no request: the token again.
    detail::cell c;
    c.token = token;
    c.wait_token.store(token);
    {
        cancel_guard g(&c);
        CHECK_EQ(c.wait_token.load(), 0u);
    }
    CHECK_EQ(c.wait_token.load(), token);
}

/* The same with a frame from the heap (larger than the largest pool class):
 * the stand-in goes into the heap block, which goes back to the heap at the
 * ghost's callback, or at the runtime's destruction (valgrind and ASan
 * builds: no leak, no use after free). */
TEST(plain_wait_ghost_of_an_oversize_frame) {
    for (int kind = 0; kind < 2; kind++) {
        for (int destroy = 0; destroy < 2; destroy++) {
            host h;
            h.frame_all();
            probe p;
            task<> t = kind == 0 ? big_sleeper<0>(&p) : big_sleeper<1>(&p);
            h.frame_all();
            CHECK_EQ(h.stats().oversize.live, 1u);
            t.cancel();
            CHECK(t.state() == TaskState::Canceled);
            t.reset();
            onity::coro_stats st = h.stats();
            CHECK_EQ(st.live_frames, 0u);
            CHECK_EQ(st.ghost_waits, 1u);
            CHECK_EQ(st.oversize.live, 1u);
            if (destroy)
                h.destroy();
            else
                h.frames(2);
            st = h.stats();
            CHECK_EQ(st.ghost_waits, 0u);
            CHECK_EQ(st.live_blocks, 0u);
            CHECK_EQ(st.oversize.live, 0u);
            CHECK_EQ(st.oversize.returns, 1u);
            CHECK_EQ(p.dtors, 1);
            CHECK_EQ(t20::misuse.count, 0);
        }
    }
}
