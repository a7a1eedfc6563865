/*
 * onity/coro/waits.hpp: the awaitables over the runtime's waits (next_frame,
 * yield, delay_frame, delay, until, while_), over native task handles (a raw
 * handle, onity_when_any / onity_when_all) and switch_to_owner() (what a
 * coroutine asks about itself is in this_coroutine.hpp). Part of
 * onity/coro.hpp; include that.
 *
 * Each frame wait is one C call whose callback resumes the coroutine; until
 * / while_ make one per run of their timing. DelayFrame, Delay and until /
 * while_ use the retirable form (onity_*_then_id): a coroutine finished while
 * one is pending retires it (onity_wait_retire), so nothing stays queued for
 * it. Yield and NextFrame use onity_*_then (one C call less per await): a
 * coroutine finished there leaves a ghost wait (coro_stats::ghost_waits)
 * that ends within two runs of its timing (its callback lands in the
 * finished frame's stand-in, core.hpp's ghost_frame). Their callback gets
 * the frame itself and resumes it in one jump; the plain forms (no
 * arguments) also skip the cancel-word check before the call: a pending
 * cancellation has made the token they pass one the call rejects
 * (cancel_due_token), and the failure path finishes the coroutine canceled
 * there. Await them inside an onity::task coroutine only.
 */
#ifndef ONITY_CORO_WAITS_HPP
#define ONITY_CORO_WAITS_HPP

#include <chrono>
#include <initializer_list>
#include <span>

#include "task.hpp"

namespace onity {

/* The winner of when_any / race: its index and, for a non-void T, its value. */
template <class T>
struct any_result {
    uint32_t index;
    T value;
};
template <>
struct any_result<void> {
    uint32_t index;
};

namespace detail {

/* A C call of an await failed (nothing was registered). Returns what
 * await_suspend returns: false = go on now with the failure in `st` / `err`
 * (Try), true = the coroutine was finished or handed to the owner. */
template <bool Try>
bool await_failed(cell *c, OnityStatus s, const char *what, uint8_t &st, int32_t &err) noexcept {
    core *k = c->owner;
    if (!k->on_owner()) {
        // Another thread (whatever the runtime says, or if it is gone): the
        // coroutine is finished on the owner, never here.
        s = ONITY_STATUS_WRONG_THREAD;
    } else if (s == ONITY_STATUS_REENTRANT || !k->rt) {
        // The runtime is being (or was) destroyed: the wait ends canceled, as
        // the waits the destruction cancels.
        if constexpr (Try) {
            st = ONITY_TASK_STATE_CANCELED;
            err = 0;
            return false;
        } else {
            finish(c, ONITY_TASK_STATE_CANCELED, 0);
            return true;
        }
    }
    report_misuse(static_cast<Status>(s), what);
    if constexpr (Try) {
        st = ONITY_TASK_STATE_FAULTED;
        err = status_error(static_cast<Status>(s));
        return false;
    } else {
        // WRONG_THREAD: on another thread, the coroutine is finished on the owner.
        return end_here(c, ONITY_TASK_STATE_FAULTED, status_error(static_cast<Status>(s)));
    }
}

/* The token a wait carries: none inside a cancel_guard, else the await's own
 * or the coroutine's. */
ONITY_CORO_HOT inline uint64_t effective_token(const cell *c, uint64_t own) noexcept {
    if (own == 0) return c->wait_token.load(std::memory_order_relaxed);
    return guards(c) ? 0 : own;
}

template <bool Try>
struct wait_outcome {
    uint8_t state_ = ONITY_TASK_STATE_SUCCEEDED;
    int32_t error_ = 0;
    task_result<void> await_resume() const noexcept {
        return task_result<void>(static_cast<TaskState>(state_), error_);
    }
};
template <>
struct wait_outcome<false> {
    void await_resume() const noexcept {}
};
/* await_failed's out-parameters when there is no outcome to keep. */
struct no_outcome {
    uint8_t state_ = 0;
    int32_t error_ = 0;
    void await_resume() const noexcept {}
};

enum : uint8_t { fw_yield, fw_next_frame, fw_delay_frame, fw_delay };

/* The arguments of each kind (next_frame and yield need none). */
template <uint8_t Kind>
struct wait_args {};
template <>
struct wait_args<fw_delay_frame> {
    uint32_t frames = 0;
};
template <>
struct wait_args<fw_delay> {
    double seconds = 0;
    uint32_t clock = 0;
};

/* Where a wait runs and its own token; Plain (next_frame() and yield()
 * without arguments): Update, no token of its own, nothing stored in the
 * coroutine's frame. */
template <bool Plain>
struct wait_where {
    uint64_t token = 0;
    uint32_t timing = 0;
};
template <>
struct wait_where<true> {
    static constexpr uint64_t token = 0;
    static constexpr uint32_t timing = ONITY_TIMING_UPDATE;
};

template <uint8_t Kind, bool Try, bool Plain = false>
struct frame_wait : wait_outcome<Try>, wait_args<Kind>, wait_where<Plain> {
    /* DelayFrame and Delay (which may wait long) are retired when the
     * coroutine finishes at them; Yield and NextFrame end within two runs
     * of their timing and leave a ghost until then (one C call less). */
    static constexpr bool retirable = Kind == fw_delay_frame || Kind == fw_delay;
    bool await_ready() const noexcept { return false; }
    template <class P>
    ONITY_CORO_HOT bool await_suspend(std::coroutine_handle<P> h) noexcept {
        cell *c = cell_of(h);
        // Plain: a pending cancellation makes the call fail (cancel_due_token,
        // see failed_plain).
        if (!(Plain && !Try) && cancel_pending(c)) [[unlikely]]
            return canceled_here(c);
        OnityRuntime *rt = c->owner->rt;
        const uint64_t tok = effective_token(c, this->token);
        const uint32_t timing = this->timing;
        // The callback runs in a later tick of the owner (never inside the call), and
        // the call fails on other threads: the cell is written after it, on the owner only.
        OnityStatus s;
        if constexpr (Kind == fw_yield)
            s = onity_yield_then(rt, timing, tok, &on_done, h.address());
        else if constexpr (Kind == fw_next_frame)
            s = onity_next_frame_then(rt, timing, tok, &on_done, h.address());
        else if constexpr (Kind == fw_delay_frame)
            s = onity_delay_frame_then_id(rt, this->frames, timing, tok, &on_done, &c->wait_id);
        else
            s = onity_delay_then_id(rt, this->seconds, this->clock, timing, tok, &on_done, &c->wait_id);
        if (s == ONITY_STATUS_OK) [[likely]] {
            if constexpr (Try) c->awaiting = this;
            c->wait = retirable ? wait_frame : wait_native;
            return true;
        }
        if constexpr (Try)
            return failed(c, s);
        else
            return failed_plain(h.address(), s);
    }
    /* Out of line: the hot path stays small (Plain: nothing kept across the call). */
    [[gnu::noinline]] bool failed(cell *c, OnityStatus s) noexcept {
        return await_failed<Try>(c, s, "a frame wait (onity_*_then_id)", this->state_, this->error_);
    }
    [[gnu::noinline]] static bool canceled_here(cell *c) noexcept {
        return end_here(c, ONITY_TASK_STATE_CANCELED, 0);
    }
    [[gnu::noinline]] static bool failed_plain(void *frame, OnityStatus s) noexcept {
        cell *c = static_cast<cell *>(frame) - 1;
        if (cancel_pending(c)) return end_here(c, ONITY_TASK_STATE_CANCELED, 0);
        no_outcome o;
        return await_failed<false>(c, s, "a frame wait (onity_*_then_id)", o.state_, o.error_);
    }

    /* `user`: the cell (retirable), else the frame. A retirable wait that
     * succeeds belongs to a live frame: a coroutine finished while it was
     * pending retired it (retire_wait), or, past the runtime's bell, left a
     * ghost that completes canceled. A Yield / NextFrame that succeeds may
     * be a ghost's: its resume lands in ghost_resume (ghost_frame; where
     * ONITY_CORO_GHOST_FRAME is 0, i.e. other compilers and Clang on 32-bit
     * x86, it checks frame_alive). Not noexcept (nothing in it throws: a
     * coroutine's resume never does, its promise catches), so that the
     * resume is a tail jump. */
    static void on_done(void *user, uint64_t, uint32_t state) {
        cell *c = retirable ? static_cast<cell *>(user) : static_cast<cell *>(user) - 1;
        if (state == ONITY_TASK_STATE_SUCCEEDED && (retirable || ONITY_CORO_GHOST_FRAME || c->frame_alive)) [[likely]] {
            c->wait = wait_none;
            if constexpr (retirable)
                frame_of(c).resume();
            else
                std::coroutine_handle<>::from_address(user).resume();
            return;
        }
        on_other(c);
    }
    [[gnu::noinline]] static void on_other(cell *c) noexcept {
        if (!c->frame_alive) {
            ghost_done(c);
            return;
        }
        c->wait = wait_none;
        if constexpr (Try) {
            static_cast<frame_wait *>(c->awaiting)->state_ = ONITY_TASK_STATE_CANCELED;
            frame_of(c).resume();
        } else {
            finish(c, ONITY_TASK_STATE_CANCELED, 0);
        }
    }
};

/* until / while_: a Yield of the timing per run, the predicate checked in
 * its callback; the coroutine is resumed only when it holds. */
template <class F, bool Try>
struct until_wait : std::conditional_t<Try, wait_outcome<true>, no_outcome> {
    F pred;
    uint64_t token = 0;
    uint32_t timing = 0;
    bool want = true;
    uint64_t tok_ = 0;

    template <class G>
    until_wait(G &&g, uint64_t tk, uint32_t t, bool w) : pred(std::forward<G>(g)), token(tk), timing(t), want(w) {}

    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        cell *c = cell_of(h);
        if (cancel_pending(c)) return end_here(c, ONITY_TASK_STATE_CANCELED, 0);
        tok_ = effective_token(c, token);
        const OnityStatus s = onity_yield_then_id(c->owner->rt, timing, tok_, &on_run, &c->wait_id);
        if (s == ONITY_STATUS_OK) {
            c->awaiting = this;
            c->wait = wait_frame;
            return true;
        }
        return await_failed<Try>(c, s, "until / while_ (onity_yield_then_id)", this->state_, this->error_);
    }

  private:
    static void end(cell *c, uint8_t state, int32_t error) noexcept {
        if constexpr (Try) {
            until_wait *a = static_cast<until_wait *>(c->awaiting);
            a->state_ = state;
            a->error_ = error;
            frame_of(c).resume();
        } else {
            finish(c, state, error);
        }
    }
    static void on_run(void *user, uint64_t, uint32_t state) noexcept {
        cell *c = static_cast<cell *>(user);
        if (!c->frame_alive) {
            ghost_done(c);
            return;
        }
        c->wait = wait_none;
        if (state != ONITY_TASK_STATE_SUCCEEDED) return end(c, ONITY_TASK_STATE_CANCELED, 0);
        until_wait *a = static_cast<until_wait *>(c->awaiting);
        bool met;
#if ONITY_CORO_EXCEPTIONS
        try {
            met = static_cast<bool>(a->pred()) == a->want;
        } catch (...) {
            return end(c, ONITY_TASK_STATE_FAULTED, error_exception);  // the exception object is dropped
        }
#else
        met = static_cast<bool>(a->pred()) == a->want;
#endif
        if (cancel_pending(c)) {
            // Canceled by the predicate (its own coroutine, or one awaiting
            // it): as a cancel() during the wait.
            finish(c, ONITY_TASK_STATE_CANCELED, 0);
            return;
        }
        if (met) {
            frame_of(c).resume();
            return;
        }
        const OnityStatus s = onity_yield_then_id(c->owner->rt, a->timing, a->tok_, &on_run, &c->wait_id);
        if (s == ONITY_STATUS_OK) {
            c->wait = wait_frame;
            return;
        }
        if (s == ONITY_STATUS_REENTRANT || !c->owner->rt) return end(c, ONITY_TASK_STATE_CANCELED, 0);
        report_misuse(static_cast<Status>(s), "until / while_ (onity_yield_then_id)");
        end(c, ONITY_TASK_STATE_FAULTED, status_error(static_cast<Status>(s)));
    }
};

enum : uint8_t { hw_single, hw_any, hw_all };

/* Awaiting a native task handle (its one continuation; it is consumed), or
 * the output of onity_when_any / onity_when_all over handles. */
template <uint8_t Mode, bool Try, std::size_t N = 0>
struct handle_wait {
    uint64_t task = 0;
    uint64_t token = 0;
    const Task *inputs = nullptr;  // N == 0: the caller's handles
    std::size_t count = 0;
    uint64_t list[N ? N : 1] = {};    // N > 0: the handles, held here
    OnityOutcome *results = nullptr;  // hw_all: per-input outcomes (size() of them)
    OnityOutcome out{};
    bool registering = false;
    bool inline_done = false;

    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        cell *c = cell_of(h);
        if (cancel_pending(c)) return end_here(c, ONITY_TASK_STATE_CANCELED, 0);
        uint8_t st = 0;
        int32_t err = 0;
        if (!on_owner(c)) {
            const bool suspended = await_failed<Try>(c, ONITY_STATUS_WRONG_THREAD, "awaiting a native task handle", st, err);
            if (!suspended) fail_out(st, err);
            return suspended;
        }
        OnityRuntime *rt = c->owner->rt;
        const uint64_t tok = effective_token(c, token);
        uint64_t w = task;
        OnityStatus s = ONITY_STATUS_OK;
        if constexpr (Mode == hw_single) {
            // A token needs a combinator: a WhenAny of one carries it.
            if (tok) s = onity_when_any(rt, &task, 1, tok, &w);
        } else if constexpr (N > 0) {
            if constexpr (Mode == hw_any)
                s = onity_when_any(rt, list, static_cast<uint32_t>(N), tok, &w);
            else
                s = onity_when_all(rt, list, static_cast<uint32_t>(N), tok, &w);
        } else {
            // The caller's Tasks as the C API reads them (a Task is its
            // handle): no copy, so no allocation however many there are.
            static_assert(sizeof(Task) == sizeof(uint64_t) && std::is_standard_layout_v<Task>);
            static const uint64_t none = 0;
            const uint64_t *in = count ? reinterpret_cast<const uint64_t *>(inputs) : &none;
            const uint32_t n = count > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(count);  // C: COUNT_OUT_OF_RANGE
            if constexpr (Mode == hw_any)
                s = onity_when_any(rt, in, n, tok, &w);
            else
                s = onity_when_all(rt, in, n, tok, &w);
        }
        if (s == ONITY_STATUS_OK) {
            c->awaiting = this;
            c->wait = wait_native;
            registering = true;
            s = onity_task_on_complete(rt, w, &on_done, c);
            registering = false;
            if (s == ONITY_STATUS_OK) {
                if (!inline_done) return true;
                // Already complete: the callback ran inside the call above.
                if (Try || out.state == ONITY_TASK_STATE_SUCCEEDED) return false;
                finish(c, static_cast<uint8_t>(out.state), out.error);
                return true;
            }
            c->wait = wait_none;
            if (w != task) {  // our combinator: nobody else can consume it
                onity_task_cancel(rt, w);
                onity_task_consume(rt, w, nullptr);
            }
        }
        const bool suspended = await_failed<Try>(c, s, "awaiting a native task handle", st, err);
        if (!suspended) fail_out(st, err);
        return suspended;
    }
    void fail_out(uint8_t st, int32_t err) noexcept {
        out = OnityOutcome();
        out.state = st;
        out.error = err;
        out.index = UINT32_MAX;
    }

    auto await_resume() const noexcept {
        if constexpr (Try)
            return Outcome(out);
        else if constexpr (Mode == hw_single)
            return out.value;
        else if constexpr (Mode == hw_any)
            return any_result<uint64_t>{out.index, out.value};
    }

    std::size_t size() const noexcept { return N > 0 ? N : count; }

  private:
    static void on_done(void *user, uint64_t t, uint32_t state) noexcept {
        cell *c = static_cast<cell *>(user);
        OnityRuntime *rt = c->owner ? c->owner->rt : nullptr;
        if (!c->frame_alive) {
            onity_task_consume(rt, t, nullptr);
            ghost_done(c);
            return;
        }
        handle_wait *a = static_cast<handle_wait *>(c->awaiting);
        if constexpr (Mode == hw_all) {
            if (a->results) onity_when_all_results(rt, t, a->results, static_cast<uint32_t>(a->size()));
        }
        if (onity_task_consume(rt, t, &a->out) != ONITY_STATUS_OK) {
            a->out = OnityOutcome();
            a->out.state = state;
            a->out.index = UINT32_MAX;
        }
        c->wait = wait_none;
        if (a->registering) {
            a->inline_done = true;
            return;
        }
        if (Try || a->out.state == ONITY_TASK_STATE_SUCCEEDED)
            frame_of(c).resume();
        else
            finish(c, static_cast<uint8_t>(a->out.state), a->out.error);
    }
};

struct owner_switch {
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        cell *c = cell_of(h);
        core *k = c->owner;
        if (k->on_owner()) return false;
        if (!k->bell.load(std::memory_order_acquire)) {
            report_misuse(Status::InvalidRuntime, "switch_to_owner after the runtime was destroyed (stays here)");
            return false;
        }
        push_to_owner(k, c, q_resume);  // the owner sees it as running until it drains it
        return true;
    }
    void await_resume() const noexcept {}
};

}  // namespace detail

/* ---- frame waits -------------------------------------------------------------
 * Each completes exactly when the C wait of the same name does (README's
 * semantics table), resuming the coroutine from the runtime's tick. With a
 * token (the await's own, else the coroutine's; none inside a cancel_guard), a
 * cancel ends the wait at the next run of its timing and the coroutine
 * finishes canceled there. try_await(wait) returns a task_result<void>
 * instead. next_frame() and yield() without arguments are the Update wait
 * with no token of its own (and keep nothing in the coroutine's frame). */

inline detail::frame_wait<detail::fw_yield, false, true> yield() noexcept { return {}; }
inline detail::frame_wait<detail::fw_yield, false> yield(Timing t, Token tok = Token()) noexcept {
    detail::frame_wait<detail::fw_yield, false> w;
    w.timing = static_cast<uint32_t>(t);
    w.token = tok.handle();
    return w;
}
inline detail::frame_wait<detail::fw_next_frame, false, true> next_frame() noexcept { return {}; }
inline detail::frame_wait<detail::fw_next_frame, false> next_frame(Timing t, Token tok = Token()) noexcept {
    detail::frame_wait<detail::fw_next_frame, false> w;
    w.timing = static_cast<uint32_t>(t);
    w.token = tok.handle();
    return w;
}
inline detail::frame_wait<detail::fw_delay_frame, false> delay_frame(uint32_t frames, Timing t = Timing::Update,
                                                                     Token tok = Token()) noexcept {
    detail::frame_wait<detail::fw_delay_frame, false> w;
    w.frames = frames;
    w.timing = static_cast<uint32_t>(t);
    w.token = tok.handle();
    return w;
}
inline detail::frame_wait<detail::fw_delay, false> delay(double seconds, Clock clock = Clock::Scaled,
                                                         Timing t = Timing::Update, Token tok = Token()) noexcept {
    detail::frame_wait<detail::fw_delay, false> w;
    w.seconds = seconds;
    w.clock = static_cast<uint32_t>(clock);
    w.timing = static_cast<uint32_t>(t);
    w.token = tok.handle();
    return w;
}
template <class Rep, class Period>
detail::frame_wait<detail::fw_delay, false> delay(std::chrono::duration<Rep, Period> d, Clock clock = Clock::Scaled,
                                                  Timing t = Timing::Update, Token tok = Token()) noexcept {
    return delay(std::chrono::duration<double>(d).count(), clock, t, tok);
}

/* Resumes at the first run of `t`, from the next one on, at which `pred()`
 * returns true (until) / false (while_). `pred` runs on the owner thread in
 * the runtime's tick, with the coroutine suspended (it may read its locals);
 * it must not throw (if it does, the coroutine finishes faulted with
 * error_exception). */
template <class F>
detail::until_wait<std::decay_t<F>, false> until(F &&pred, Timing t = Timing::Update, Token tok = Token()) {
    return {std::forward<F>(pred), tok.handle(), static_cast<uint32_t>(t), true};
}
template <class F>
detail::until_wait<std::decay_t<F>, false> while_(F &&pred, Timing t = Timing::Update, Token tok = Token()) {
    return {std::forward<F>(pred), tok.handle(), static_cast<uint32_t>(t), false};
}

/* ---- native task handles ------------------------------------------------------
 * `co_await task_handle` takes the handle's one continuation, consumes it and
 * gives its value (a fault or cancel finishes the coroutine the same way);
 * with the coroutine's token it goes through a WhenAny of one (the await then
 * ends canceled at the owner's next tick after a cancel, and the WhenAny
 * consumes the task when it completes). The handle may be completed by C
 * code, another thread or the C# binding. */

inline detail::handle_wait<detail::hw_single, false> operator co_await(Task t) noexcept {
    detail::handle_wait<detail::hw_single, false> w;
    w.task = t.handle();
    return w;
}
/* The same with a token of this await. */
inline detail::handle_wait<detail::hw_single, false> await_task(Task t, Token tok = Token()) noexcept {
    detail::handle_wait<detail::hw_single, false> w;
    w.task = t.handle();
    w.token = tok.handle();
    return w;
}

/* onity_when_any / onity_when_all over native handles (their C rules; they own
 * the inputs from the await on), with the coroutine's token: when_any(a, b,
 * ...) gives any_result<uint64_t> (the winner's index and value), when_all(a,
 * b, ...) nothing. The span forms take an await's own token and, for
 * when_all, an optional span of one OnityOutcome per input that receives
 * every input's outcome (onity_when_all_results); `tasks` must stay valid
 * until the await starts. */
template <class... Ts>
    requires(std::is_same_v<Ts, Task> && ...)
detail::handle_wait<detail::hw_any, false, 1 + sizeof...(Ts)> when_any(Task first, Ts... rest) noexcept {
    detail::handle_wait<detail::hw_any, false, 1 + sizeof...(Ts)> w;
    const Task all[] = {first, rest...};
    for (std::size_t i = 0; i < 1 + sizeof...(Ts); i++) w.list[i] = all[i].handle();
    return w;
}
template <class... Ts>
    requires(std::is_same_v<Ts, Task> && ...)
detail::handle_wait<detail::hw_all, false, 1 + sizeof...(Ts)> when_all(Task first, Ts... rest) noexcept {
    detail::handle_wait<detail::hw_all, false, 1 + sizeof...(Ts)> w;
    const Task all[] = {first, rest...};
    for (std::size_t i = 0; i < 1 + sizeof...(Ts); i++) w.list[i] = all[i].handle();
    return w;
}
inline detail::handle_wait<detail::hw_any, false> when_any(std::span<const Task> tasks,
                                                            Token tok = Token()) noexcept {
    detail::handle_wait<detail::hw_any, false> w;
    w.inputs = tasks.data();
    w.count = tasks.size();
    w.token = tok.handle();
    return w;
}
inline detail::handle_wait<detail::hw_all, false> when_all(std::span<const Task> tasks,
                                                            std::span<OnityOutcome> results = {},
                                                            Token tok = Token()) noexcept {
    detail::handle_wait<detail::hw_all, false> w;
    w.inputs = tasks.data();
    w.count = tasks.size();
    w.results = results.size() == tasks.size() ? results.data() : nullptr;
    w.token = tok.handle();
    return w;
}

/* ---- try_await: inspect instead of propagate ---------------------------------- */

template <uint8_t K, bool P>
detail::frame_wait<K, true, P> try_await(const detail::frame_wait<K, false, P> &w) noexcept {
    detail::frame_wait<K, true, P> t;
    static_cast<detail::wait_args<K> &>(t) = w;
    if constexpr (!P) {
        t.token = w.token;
        t.timing = w.timing;
    }
    return t;
}
template <class F>
detail::until_wait<F, true> try_await(detail::until_wait<F, false> &&w) {
    return {std::move(w.pred), w.token, w.timing, w.want};
}
template <uint8_t M, std::size_t N>
detail::handle_wait<M, true, N> try_await(const detail::handle_wait<M, false, N> &w) noexcept {
    detail::handle_wait<M, true, N> t;
    t.task = w.task;
    t.token = w.token;
    t.inputs = w.inputs;
    t.count = w.count;
    for (std::size_t i = 0; i < (N ? N : 1); i++) t.list[i] = w.list[i];
    t.results = w.results;
    return t;
}
/* A native handle: gives its Outcome (value, error, state, index). */
inline detail::handle_wait<detail::hw_single, true> try_await(Task t, Token tok = Token()) noexcept {
    detail::handle_wait<detail::hw_single, true> w;
    w.task = t.handle();
    w.token = tok.handle();
    return w;
}
template <class T>
detail::task_awaiter<T, true> try_await(task<T> &t) noexcept {
    return detail::task_awaiter<T, true>(&t);
}
template <class T>
detail::task_awaiter<T, true> try_await(task<T> &&t) noexcept {
    return detail::task_awaiter<T, true>(std::move(t));
}

/* ---- threads ------------------------------------------------------------------- */

/* For a coroutine resumed on another thread (by a job system, say): moves it
 * to its runtime's owner thread, resumed at the owner's next tick (any
 * timing) or drain, like a continuation completed elsewhere. No suspension
 * when already there. While on another thread a coroutine may not use any
 * other Onity await (WRONG_THREAD: it then finishes faulted on the owner),
 * nor destroy task<>s. */
inline detail::owner_switch switch_to_owner() noexcept { return {}; }

}  // namespace onity

#endif /* ONITY_CORO_WAITS_HPP */
