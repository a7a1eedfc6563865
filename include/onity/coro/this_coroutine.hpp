/*
 * onity/coro/this_coroutine.hpp: what a coroutine asks about itself without
 * suspending (this_coroutine::canceled, finish_if_canceled, cancel, fail,
 * token) and cancel_guard, which defers its cancellation through a critical
 * section. Part of onity/coro.hpp; include that.
 */
#ifndef ONITY_CORO_THIS_COROUTINE_HPP
#define ONITY_CORO_THIS_COROUTINE_HPP

#include "waits.hpp"

namespace onity {
namespace detail {

/* Awaiters that look at the coroutine without suspending it. */
template <class F>
struct peek {
    F f;
    using R = decltype(std::declval<F &>()(static_cast<cell *>(nullptr), std::declval<bool &>()));
    R result{};
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        bool finished = false;
        R r = f(cell_of(h), finished);
        if (finished) return true;  // the frame (and this awaiter) is gone
        result = std::move(r);
        return false;
    }
    R await_resume() noexcept { return std::move(result); }
};
template <class F>
peek<F> make_peek(F f) noexcept {
    return peek<F>{std::move(f)};
}

inline bool is_canceled(cell *c) noexcept {
    if (cancel_requested(c)) return true;
    if (!c->token || !c->owner || !c->owner->rt) return false;
    uint32_t v = 0;
    return onity_cancel_source_is_canceled(c->owner->rt, c->token, &v) == ONITY_STATUS_OK && v != 0;
}

}  // namespace detail

/* ---- the running coroutine ----------------------------------------------------- */

/* While one lives, cancellation of its coroutine is deferred: waits carry no
 * token, cancel() only records the request, and the coroutine finishes
 * canceled at its first Onity await after the last guard is gone. Only as a
 * local of the coroutine that made it (co_await
 * this_coroutine::defer_cancellation()). A runtime being destroyed still
 * ends the coroutine's waits canceled. */
class cancel_guard {
  public:
    cancel_guard() noexcept = default;
    explicit cancel_guard(detail::cell *c) noexcept : c_(c) {
        if (c_) {
            c_->cancel_word.fetch_add(1);
            detail::sync_wait_token(c_);
        }
    }
    cancel_guard(cancel_guard &&o) noexcept : c_(std::exchange(o.c_, nullptr)) {}
    cancel_guard &operator=(cancel_guard &&o) noexcept {
        if (this != &o) {
            release();
            c_ = std::exchange(o.c_, nullptr);
        }
        return *this;
    }
    cancel_guard(const cancel_guard &) = delete;
    cancel_guard &operator=(const cancel_guard &) = delete;
    ~cancel_guard() { release(); }
    void release() noexcept {
        if (!c_) return;
        detail::cell *c = std::exchange(c_, nullptr);
        c->cancel_word.fetch_sub(1);
        detail::sync_wait_token(c);
    }

  private:
    detail::cell *c_ = nullptr;
};

namespace this_coroutine {

/* co_await: whether cancellation was requested (task<>::cancel, or the
 * coroutine's token canceled: one onity_cancel_source_is_canceled call); sees
 * through guards. Never suspends. */
inline auto canceled() noexcept {
    return detail::make_peek([](detail::cell *c, bool &) noexcept { return detail::is_canceled(c); });
}
/* co_await: finishes the coroutine canceled here if it was canceled (and no
 * guard is alive); else goes on at once. */
inline auto finish_if_canceled() noexcept {
    return detail::make_peek([](detail::cell *c, bool &finished) noexcept {
        if (detail::guards(c) == 0 && detail::is_canceled(c))
            finished = detail::end_here(c, ONITY_TASK_STATE_CANCELED, 0);
        return 0;
    });
}
/* co_await: a cancel_guard for the coroutine. */
inline auto defer_cancellation() noexcept {
    return detail::make_peek([](detail::cell *c, bool &) noexcept { return cancel_guard(c); });
}
/* co_await: the coroutine's token (the first onity::Token parameter). */
inline auto token() noexcept {
    return detail::make_peek([](detail::cell *c, bool &) noexcept { return Token(c->token); });
}
/* co_await: finishes the coroutine canceled here (with a guard alive: records
 * the request and goes on, as cancel() does). */
inline auto cancel() noexcept {
    return detail::make_peek([](detail::cell *c, bool &finished) noexcept {
        if (detail::guards(c) != 0) {
            c->cancel_word.fetch_or(detail::cancel_requested_bit);
            detail::sync_wait_token(c);
        } else {
            finished = detail::end_here(c, ONITY_TASK_STATE_CANCELED, 0);
        }
        return 0;
    });
}
/* co_await: finishes the coroutine faulted with `error` here (the outcome's
 * error code; destructors run, no exception involved). */
inline auto fail(int32_t error) noexcept {
    return detail::make_peek([error](detail::cell *c, bool &finished) noexcept {
        finished = detail::end_here(c, ONITY_TASK_STATE_FAULTED, error);
        return 0;
    });
}

}  // namespace this_coroutine
}  // namespace onity

#endif /* ONITY_CORO_THIS_COROUTINE_HPP */
