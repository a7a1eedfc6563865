// cancel.cpp: cancellation at every await kind (the coroutine's token, an
// await's own token, task<>::cancel, this_coroutine::*), the guard, and
// destroying the runtime with coroutines suspended everywhere.
#include "check.hpp"

using namespace onity;
using t20::host;
using t20::point;

namespace {

host *g = nullptr;

struct probe {
    int dtors = 0;
    int after = 0;
    point ended;
};
struct loud {
    probe *p;
    ~loud() {
        p->dtors++;
        if (g) p->ended = g->now();
    }
};

enum await_kind {
    a_yield,
    a_next,
    a_delay_frame,
    a_delay_scaled,
    a_delay_unscaled,
    a_delay_realtime,
    a_until,
    a_while,
    a_handle,
    a_native_any,
    a_native_all,
    a_child,
    a_when_any,
    a_when_all,
    a_race,
    a_span_any,
    kind_count
};

task<> sleeper(Token tok) {
    for (;;) co_await next_frame(Timing::Update, tok);
}

/* Suspends in the await of `kind`; `tok` is the coroutine's token, `own` the
 * await's (frame waits and handle awaits). `raw` is a pending manual task
 * for the handle kinds (two more for the combinators). */
task<> victim(Token tok, int kind, probe *p, Token own, Task raw, Task raw2, Task raw3) {
    loud l{p};
    switch (kind) {
        case a_yield:
            for (;;) co_await yield(Timing::LastUpdate, own);
        case a_next:
            for (;;) co_await next_frame(Timing::LastUpdate, own);
        case a_delay_frame: co_await delay_frame(100, Timing::LastUpdate, own); break;
        case a_delay_scaled: co_await delay(100.0, Clock::Scaled, Timing::LastUpdate, own); break;
        case a_delay_unscaled: co_await delay(100.0, Clock::Unscaled, Timing::LastUpdate, own); break;
        case a_delay_realtime: co_await delay(100.0, Clock::Realtime, Timing::LastUpdate, own); break;
        case a_until: co_await until([] { return false; }, Timing::LastUpdate, own); break;
        case a_while: co_await while_([] { return true; }, Timing::LastUpdate, own); break;
        case a_handle: co_await await_task(raw, own); break;
        case a_native_any: {
            const Task in[] = {raw, raw2, raw3};
            co_await when_any(std::span<const Task>(in), own);
            break;
        }
        case a_native_all: {
            const Task in[] = {raw, raw2, raw3};
            co_await when_all(std::span<const Task>(in), {}, own);
            break;
        }
        case a_child: co_await sleeper(tok); break;
        case a_when_any: co_await when_any(sleeper(tok), sleeper(tok)); break;
        case a_when_all: co_await when_all(sleeper(tok), sleeper(tok)); break;
        case a_race: co_await race(sleeper(tok), sleeper(tok)); break;
        default: {
            std::vector<task<>> v;
            v.push_back(sleeper(tok));
            v.push_back(sleeper(tok));
            co_await when_any(v);
            break;
        }
    }
    p->after++;
}

bool is_handle_kind(int k) { return k == a_handle || k == a_native_any || k == a_native_all; }
bool takes_own_token(int k) { return k <= a_native_all; }

/* Where a canceled token ends the wait (C rules): frame waits at the next run
 * of their timing (LastUpdate here), combinators and handle awaits at the
 * owner's next tick (any timing), nested coroutines where their own
 * (Update) wait ends. */
uint32_t end_timing(int k) {
    if (is_handle_kind(k)) return ONITY_TIMING_INITIALIZATION;
    if (k >= a_child) return ONITY_TIMING_UPDATE;
    return ONITY_TIMING_LAST_UPDATE;
}

struct handles {
    uint64_t t[3] = {0, 0, 0};
    explicit handles(OnityRuntime *rt) {
        for (uint64_t &h : t) onity_task_create(rt, &h);
    }
};

}  // namespace

TEST(token_cancels_every_await_kind) {
    for (int mode = 0; mode < 2; mode++) {  // 0: the coroutine's token, 1: the await's own
        for (int k = 0; k < kind_count; k++) {
            if (mode == 1 && !takes_own_token(k)) continue;
            host h;
            g = &h;
            h.frame_all();
            CancelSource src = h.rt.create_cancel_source().unwrap();
            handles hs(h.raw());
            probe p;
            const Token coro_tok = mode == 0 ? src.token() : Token();
            const Token own = mode == 1 ? src.token() : Token();
            task<> t = victim(coro_tok, k, &p, own, Task(hs.t[0]), Task(hs.t[1]), Task(hs.t[2]));
            h.frame_all();
            CHECK(!t.done());
            h.begin();
            CHECK(src.cancel().ok());
            h.tick_all();
            CHECK(t.done());
            CHECK(t.state() == TaskState::Canceled);
            CHECK_EQ(p.dtors, 1);
            CHECK_EQ(p.after, 0);
            CHECK_EQ(p.ended.frame, 3u);
            CHECK_EQ(p.ended.timing, end_timing(k));
            // The handles the combinators own are consumed when they complete.
            for (uint64_t x : hs.t) onity_task_set_result(h.raw(), x, 1);
            h.frame_all();
            t.reset();
            onity::coro_stats st = h.stats();
            CHECK_EQ(st.live_frames, 0u);
            CHECK_EQ(st.ghost_waits, 0u);
            CHECK_EQ(t20::misuse.count, 0);
            // Left: the layer's bell and the manual handles nobody took (the
            // combinators, and a_handle's WhenAny of one, consumed theirs).
            const uint64_t left = 1 + (k == a_handle ? 2 : is_handle_kind(k) ? 0 : 3);
            CHECK_EQ(h.live_native_tasks(), left);
            g = nullptr;
        }
    }
}

TEST(cancel_finishes_a_suspended_coroutine_at_once) {
    for (int k = 0; k < kind_count; k++) {
        host h;
        g = &h;
        h.frame_all();
        handles hs(h.raw());
        probe p;
        task<> t = victim(Token(), k, &p, Token(), Task(hs.t[0]), Task(hs.t[1]), Task(hs.t[2]));
        h.frame_all();
        CHECK(!t.done());
        const onity::coro_stats before = h.stats();
        CHECK(before.has_runtime);
        t.cancel();
        CHECK(t.done());
        CHECK(t.state() == TaskState::Canceled);
        CHECK_EQ(p.dtors, 1);
        CHECK_EQ(p.after, 0);
        t.cancel();  // again: no effect
        t.reset();
        onity::coro_stats st = h.stats();
        CHECK_EQ(st.live_frames, 0u);
        // DelayFrame and Delay (far waits here) and until / while_ are
        // retired: no block is kept, and a far wait's record leaves the
        // runtime at once (until's Yield leaves at its timing's next run).
        // Another wait still pending in the runtime keeps its block until it
        // calls back (the victim's own, or its children's): Yield and
        // NextFrame within two runs of their timing, a handle when completed.
        const bool retired = k >= a_delay_frame && k <= a_delay_realtime;
        const bool no_ghost = retired || k == a_until || k == a_while;
        const uint64_t ghosts = no_ghost ? 0 : k <= a_native_all ? 1 : k == a_child ? 1 : 2;
        CHECK_EQ(st.ghost_waits, ghosts);
        const OnityPoolStats &r0 = before.runtime.pool(ONITY_POOL_WAIT_RECORDS);
        const OnityPoolStats &r1 = st.runtime.pool(ONITY_POOL_WAIT_RECORDS);
        CHECK_EQ(r1.live, r0.live - (retired ? 1 : 0));
        CHECK_EQ(r1.idle, r0.idle + (retired ? 1 : 0));
        for (uint64_t x : hs.t) onity_task_set_result(h.raw(), x, 1);
        h.frames(2);
        CHECK_EQ(h.stats().ghost_waits, 0u);
        if (retired) {
            const uint32_t kind = k == a_delay_frame ? ONITY_WAIT_KIND_DELAY_FRAME : ONITY_WAIT_KIND_DELAY;
            CHECK_EQ(h.stats().runtime.waits(kind).canceled, 1u);
        }
        h.destroy();
        st = h.stats();
        CHECK_EQ(st.ghost_waits, 0u);
        CHECK_EQ(st.live_blocks, 0u);
        CHECK_EQ(t20::misuse.count, 0);
        g = nullptr;
    }
}

namespace {
task<> guarded(Token /* the coroutine's token */, probe *p, int *resumed) {
    loud l{p};
    {
        cancel_guard gd = co_await this_coroutine::defer_cancellation();
        co_await next_frame(Timing::Update);
        ++*resumed;
        CHECK(co_await this_coroutine::canceled());
        co_await next_frame(Timing::Update);
        ++*resumed;
        co_await this_coroutine::finish_if_canceled();  // guarded: goes on
        ++*resumed;
    }
    co_await next_frame(Timing::Update);  // finishes canceled here
    p->after++;
}
}  // namespace

TEST(guard_defers_cancellation) {
    for (int how = 0; how < 2; how++) {  // 0: task::cancel, 1: the token
        host h;
        g = &h;
        CancelSource src = h.rt.create_cancel_source().unwrap();
        probe p;
        int resumed = 0;
        task<> t = guarded(how == 1 ? src.token() : Token(), &p, &resumed);
        if (how == 0)
            t.cancel();
        else
            src.cancel().unwrap();
        CHECK(!t.done());
        h.frame_all();
        CHECK_EQ(resumed, 1);
        h.frame_all();
        CHECK_EQ(resumed, 3);
        if (how == 0) {
            CHECK(t.done());  // at the first await after the guard
            CHECK_EQ(p.ended.frame, 2u);
        } else {
            CHECK(!t.done());  // that await carries the canceled token: ends at its next run
            h.frame_all();
            CHECK(t.done());
            CHECK_EQ(p.ended.frame, 3u);
        }
        CHECK(t.state() == TaskState::Canceled);
        CHECK_EQ(p.after, 0);
        CHECK_EQ(p.dtors, 1);
        g = nullptr;
    }
}

namespace {
task<int> self_checks(Token tok, int *stage) {
    *stage = 1;
    CHECK(!(co_await this_coroutine::canceled()));
    CHECK_EQ((co_await this_coroutine::token()).handle(), tok.handle());
    co_await this_coroutine::finish_if_canceled();
    *stage = 2;
    co_await next_frame();
    *stage = 3;
    for (int i = 0; i < 1000; i++) {  // busy work without a wait
        if (i == 500) co_await this_coroutine::finish_if_canceled();
        *stage = 4;
    }
    co_return 5;
}
task<> self_cancel(int *stage) {
    *stage = 1;
    co_await this_coroutine::cancel();
    *stage = 2;
}
task<int> self_fail(int *stage) {
    *stage = 1;
    co_await this_coroutine::fail(42);
    *stage = 2;
    co_return 0;
}
task<> awaits_child(task<int> c, int *stage) {
    *stage = 10;
    int v = co_await std::move(c);
    *stage = 11 + v;
}
}  // namespace

TEST(this_coroutine_checks) {
    host h;
    g = &h;
    CancelSource src = h.rt.create_cancel_source().unwrap();
    int stage = 0;
    task<int> t = self_checks(src.token(), &stage);
    CHECK_EQ(stage, 2);
    src.cancel().unwrap();
    // The token's next_frame ends at the next Update run; canceled there.
    h.frame_all();
    CHECK(t.done() && t.state() == TaskState::Canceled);
    CHECK_EQ(stage, 2);

    int s2 = 0;
    task<> c = self_cancel(&s2);
    CHECK(c.done() && c.state() == TaskState::Canceled);
    CHECK_EQ(s2, 1);

    int s3 = 0, s4 = 0;
    task<int> f = self_fail(&s3);
    CHECK(f.done() && f.state() == TaskState::Faulted && f.error() == 42);
    task<> parent = awaits_child(std::move(f), &s4);
    CHECK(parent.done() && parent.state() == TaskState::Faulted && parent.error() == 42);  // propagated
    CHECK_EQ(s4, 10);

    int s5 = 0, s6 = 0;
    task<int> slow = self_fail(&s5);
    CHECK_EQ(slow.error(), 42);
    task<> p2 = awaits_child(std::move(slow), &s6);
    CHECK_EQ(p2.error(), 42);
    CHECK_EQ(t20::unobserved_faults, 0);
    g = nullptr;
}

namespace {
/* Two Token parameters: the first is the coroutine's token, empty or not;
 * the second is an ordinary value. */
task<> two_tokens(Token /* the coroutine's */, Token other, uint64_t *seen, int *frames) {
    *seen = (co_await this_coroutine::token()).handle();
    CHECK(other.handle() != 0);
    for (;;) {
        co_await next_frame();
        ++*frames;
    }
}
}  // namespace

TEST(first_token_parameter_is_the_coroutines_even_empty) {
    host h;
    g = &h;
    CancelSource a = h.rt.create_cancel_source().unwrap(), b = h.rt.create_cancel_source().unwrap();
    uint64_t seen_empty = 1, seen_a = 0;
    int frames_empty = 0, frames_a = 0;
    task<> empty_first = two_tokens(Token(), b.token(), &seen_empty, &frames_empty);
    task<> a_first = two_tokens(a.token(), b.token(), &seen_a, &frames_a);
    CHECK_EQ(seen_empty, 0u);
    CHECK_EQ(seen_a, a.token().handle());
    b.cancel().unwrap();  // neither coroutine's token
    h.frames(3);
    CHECK(!empty_first.done() && !a_first.done());
    CHECK_EQ(frames_empty, 3);
    CHECK_EQ(frames_a, 3);
    a.cancel().unwrap();
    h.frames(2);
    CHECK(!empty_first.done());
    CHECK(a_first.done() && a_first.state() == TaskState::Canceled);
    empty_first.cancel();
    CHECK(empty_first.done() && empty_first.state() == TaskState::Canceled);
    CHECK_EQ(t20::misuse.count, 0);
    g = nullptr;
}

namespace {
int g_parent_conts = 0;
task<> parent_of(task<> child, probe *p) {
    loud l{p};
    task_result<void> r = co_await try_await(std::move(child));
    CHECK(r.canceled());
    g_parent_conts++;
}
task<int> held_victim(probe *p) {
    loud l{p};
    co_await delay(1000.0);
    co_return 1;
}
}  // namespace

/* Destroying the runtime with coroutines suspended in every kind of await:
 * each finishes canceled, every continuation runs once, every frame comes
 * back, and a coroutine started afterwards ends canceled at its first wait. */
TEST(runtime_destroy_with_suspended_coroutines) {
    host h;
    g = &h;
    h.frame_all();
    CancelSource src = h.rt.create_cancel_source().unwrap();
    std::vector<probe> probes(kind_count * 3);
    std::vector<task<>> parents;
    std::vector<handles> hs;
    hs.reserve(kind_count * 3);
    for (int k = 0; k < kind_count; k++) {
        for (int j = 0; j < 3; j++) {
            hs.emplace_back(h.raw());
            probe *p = &probes[k * 3 + j];
            task<> v = victim(j == 1 ? src.token() : Token(), k, p, Token(), Task(hs.back().t[0]),
                              Task(hs.back().t[1]), Task(hs.back().t[2]));
            if (j == 0)
                parents.push_back(parent_of(std::move(v), p));  // awaited by a parent
            else if (j == 1)
                v.forget();  // detached
            else
                parents.push_back(std::move(v));  // held, not awaited
        }
    }
    probe hp;
    task<int> held = held_victim(&hp);
    h.frames(2);
    CHECK(h.stats().live_frames > static_cast<uint64_t>(kind_count * 3));
    g_parent_conts = 0;
    src.reset();  // a source must not outlive its runtime (its token stays valid for the waits)
    h.destroy();
    for (int k = 0; k < kind_count; k++) {
        CHECK_EQ(probes[k * 3 + 0].dtors, 2);  // the victim and its parent
        CHECK_EQ(probes[k * 3 + 1].dtors, 1);
        CHECK_EQ(probes[k * 3 + 2].dtors, 1);
        for (int j = 0; j < 3; j++) CHECK_EQ(probes[k * 3 + j].after, 0);
    }
    CHECK_EQ(g_parent_conts, kind_count);
    for (task<> &t : parents) CHECK(t.done());
    CHECK(held.done() && held.state() == TaskState::Canceled);
    CHECK(held.result() == nullptr);
    onity::coro_stats st = h.stats();
    CHECK(!st.runtime_alive);
    CHECK_EQ(st.ghost_waits, 0u);
    // Canceled coroutines are destroyed at once; the parents that resumed and
    // returned keep their frames for the task<>s that hold them.
    CHECK_EQ(st.live_frames, static_cast<uint64_t>(kind_count));
    parents.clear();
    held.reset();
    st = h.stats();
    CHECK_EQ(st.live_blocks, 0u);
    // After the runtime: a coroutine's first wait ends it canceled (no misuse).
    probe late;
    task<> t = victim(Token(), a_next, &late, Token(), Task(), Task(), Task());
    CHECK(t.done() && t.state() == TaskState::Canceled);
    CHECK_EQ(late.dtors, 1);
    CHECK_EQ(t20::misuse.count, 0);
    t.reset();
    CHECK_EQ(h.stats().live_blocks, 0u);
    g = nullptr;
}

/* ---- retired waits: DelayFrame / Delay leave the runtime with their coroutine ---- */

namespace {

task<> delayed(probe *p, uint32_t frames) {
    loud l{p};
    co_await delay_frame(frames);
    p->after++;
}
/* Cancels `victim` after its own DelayFrame(frames) (in Update). */
task<> canceler(task<> *victim, int *ran, uint32_t frames) {
    co_await delay_frame(frames);
    ++*ran;
    victim->cancel();
}
/* Cancels `victim` when destroyed (the runtime's destruction finishes the
 * coroutine holding it). */
struct cancels_on_exit {
    task<> *victim;
    ~cancels_on_exit() { victim->cancel(); }
};
task<> holder(task<> *victim) {
    cancels_on_exit c{victim};
    for (;;) co_await next_frame();
}

uint64_t live_wait_records(const host &h) {
    return h.stats().runtime.pool(ONITY_POOL_WAIT_RECORDS).live;
}

}  // namespace

/* A coroutine canceled inside the run that holds its wait: a DelayFrame(1)
 * due in that run (a near wait, in the run's own records) and a DelayFrame(3)
 * due in it (a far wait the run holds). Neither resumes, no block is kept,
 * each wait is counted canceled. */
TEST(canceled_inside_the_run_that_holds_its_wait) {
    for (uint32_t frames : {1u, 3u}) {
        host h;
        g = &h;
        h.frame_all();
        probe p;
        int ran = 0;
        task<> victim;
        task<> c = canceler(&victim, &ran, frames);  // scheduled first: runs first in the same run
        victim = delayed(&p, frames);
        CHECK_EQ(live_wait_records(h), 2u);
        h.frames(static_cast<int>(frames));
        CHECK_EQ(ran, 1);
        CHECK(c.done());
        CHECK(victim.done());
        CHECK(victim.state() == TaskState::Canceled);
        CHECK_EQ(p.dtors, 1);
        CHECK_EQ(p.after, 0);
        const onity::coro_stats st = h.stats();
        CHECK_EQ(st.ghost_waits, 0u);
        CHECK_EQ(st.runtime.waits(ONITY_WAIT_KIND_DELAY_FRAME).completed, 1u);
        CHECK_EQ(st.runtime.waits(ONITY_WAIT_KIND_DELAY_FRAME).canceled, 1u);
        CHECK_EQ(live_wait_records(h), 0u);
        CHECK_EQ(t20::misuse.count, 0);
        g = nullptr;
    }
}

/* Destroying the runtime with a coroutine whose destruction cancels another
 * one suspended in a far DelayFrame: the second is retired during the
 * destruction (or already canceled by it); both finish canceled once. */
TEST(runtime_destroy_retires_waits_of_coroutines_it_cancels) {
    for (int order = 0; order < 2; order++) {
        host h;
        g = &h;
        h.frame_all();
        probe p;
        task<> victim;
        task<> hold;
        if (order == 0) {
            hold = holder(&victim);
            victim = delayed(&p, 100);
        } else {
            victim = delayed(&p, 100);
            hold = holder(&victim);
        }
        h.frames(2);
        CHECK_EQ(live_wait_records(h), 2u);
        h.destroy();
        CHECK(victim.done() && hold.done());
        CHECK(victim.state() == TaskState::Canceled);
        CHECK(hold.state() == TaskState::Canceled);
        CHECK_EQ(p.dtors, 1);
        CHECK_EQ(p.after, 0);
        victim.reset();
        hold.reset();
        onity::coro_stats st = h.stats();
        CHECK_EQ(st.ghost_waits, 0u);
        CHECK_EQ(st.live_blocks, 0u);
        CHECK_EQ(t20::misuse.count, 0);
        g = nullptr;
    }
}
