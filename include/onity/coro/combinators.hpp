/*
 * onity/coro/combinators.hpp: when_any, when_all and race over task<T>s
 * (variadic, taking the tasks; or over a span / vector of them, which stay the
 * caller's). They follow the C rules of onity_when_any / onity_when_all
 * without a C call: when_any completes like the first input to complete
 * (ties among inputs already complete at the await go to the lowest index),
 * the others run on; when_all completes when every input has, with the first
 * failure in completion order (inputs already complete count in array
 * order); race is when_any that then cancels the others (they finish
 * canceled before the awaiting coroutine resumes, when suspended in Onity
 * waits). A cancellation of the awaiting coroutine is passed to every input.
 * Part of onity/coro.hpp; include that.
 */
#ifndef ONITY_CORO_COMBINATORS_HPP
#define ONITY_CORO_COMBINATORS_HPP

#include <tuple>
#include <variant>
#include <vector>

#include "waits.hpp"

namespace onity {
namespace detail {

template <class T>
using slot_t = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

template <class T>
slot_t<T> take_slot(cell *c) {
    if constexpr (std::is_void_v<T>) {
        (void)c;
        return std::monostate{};
    } else {
        return take_value<T>(c);
    }
}

/* The algorithm, over D::size() inputs whose cells D::kid(i) gives. */
template <class D, bool Any, bool Race, bool Try>
struct combo : nested {
    cell *parent = nullptr;
    uint32_t remaining = 0;
    uint32_t pick = UINT32_MAX;  // Any: the winner; all: the first failure
    Status failed_ = Status::Ok;
    bool canceling = false;

    combo() noexcept { cancel_fn = &cancel_all; }
    combo(const combo &) = delete;
    combo &operator=(const combo &) = delete;

    D &self() noexcept { return static_cast<D &>(*this); }
    const D &self() const noexcept { return static_cast<const D &>(*this); }

    bool await_ready() const noexcept { return false; }

    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        cell *p = cell_of(h);
        const uint32_t n = self().size();
        Status bad = !on_owner(p) ? Status::WrongThread : n == 0 ? Status::CountOutOfRange : Status::Ok;
        for (uint32_t i = 0; i < n && bad == Status::Ok; i++) {
            cell *k = self().kid(i);
            if (!k)
                bad = Status::InvalidHandle;
            else if (k->owner != p->owner && !on_owner(k))  // same core as p: checked above
                bad = Status::WrongThread;  // its completion would resume the awaiting coroutine there
            else if (k == p)
                bad = Status::InvalidArgument;  // the awaiting coroutine itself: it would wait forever
            else if (k->cont)
                bad = Status::AlreadyAwaited;
        }
        if (bad != Status::Ok) {
            report_misuse(bad, "when_any / when_all / race over an empty, awaited, moved-from, other thread's or own task (or none)");
            if constexpr (Try) {
                failed_ = bad;
                return false;
            } else {
                return end_here(p, ONITY_TASK_STATE_FAULTED, status_error(bad));
            }
        }
        if (cancel_pending(p) || token_canceled(p)) {
            finish(p, ONITY_TASK_STATE_CANCELED, 0);
            return true;
        }
        // Inputs complete already: the lowest index wins (Any); counted in
        // array order (all).
        remaining = n;
        for (uint32_t i = 0; i < n; i++) {
            cell *k = self().kid(i);
            if (k->state == ONITY_TASK_STATE_PENDING) continue;
            if constexpr (Any) {
                pick = i;
                break;
            } else {
                remaining--;
                if (pick == UINT32_MAX && k->state != ONITY_TASK_STATE_SUCCEEDED) pick = i;
            }
        }
        const bool complete = Any ? pick != UINT32_MAX : remaining == 0;
        if (complete) {
            observe_done();
            if constexpr (Race) cancel_losers();
            if (!Try && pick != UINT32_MAX && propagates(self().kid(pick))) {
                cell *k = self().kid(pick);
                finish(p, k->state, k->error);
                return true;
            }
            return false;
        }
        for (uint32_t i = 0; i < n; i++) {
            cell *k = self().kid(i);
            if (k->state != ONITY_TASK_STATE_PENDING) continue;
            k->cont = &on_kid;
            k->cont_target = this;
            k->cont_index = i;
        }
        parent = p;
        p->awaiting = static_cast<nested *>(this);
        p->wait = wait_nested;
        return true;
    }

  protected:
    /* Clears the continuation of every input but `keep` that still points
     * here. */
    void unlink(uint32_t keep) noexcept {
        const uint32_t n = self().size();
        for (uint32_t i = 0; i < n; i++) {
            if (i == keep) continue;
            cell *k = self().kid(i);
            if (k && k->cont_target == this && k->cont) k->cont = nullptr;
        }
    }
    void cancel_losers() noexcept {
        const uint32_t n = self().size();
        for (uint32_t i = 0; i < n; i++)
            if (i != pick) request_cancel(self().kid(i));
    }
    /* The outcomes of the inputs complete when it completes are the
     * combinator's to report (not the unobserved handler's). */
    void observe_done() noexcept {
        const uint32_t n = self().size();
        for (uint32_t i = 0; i < n; i++) {
            cell *k = self().kid(i);
            if (k && k->state != ONITY_TASK_STATE_PENDING) k->outcome_read = true;
        }
    }
    /* Last use of the combinator (the awaiting coroutine may be gone after). */
    void settle() noexcept {
        observe_done();
        cell *k = pick != UINT32_MAX ? self().kid(pick) : nullptr;
        const bool fail = !Try && k && propagates(k);
        resume_or_finish(parent, fail, k ? k->state : 0, k ? k->error : 0);
    }

  private:
    static void on_kid(void *target, cell *child, uint32_t i) noexcept {
        combo *a = static_cast<combo *>(target);
        if constexpr (Any) {
            if (a->pick != UINT32_MAX) return;
            a->pick = i;
            a->unlink(i);
            if constexpr (Race) a->cancel_losers();
        } else {
            a->remaining--;
            if (a->pick == UINT32_MAX && child->state != ONITY_TASK_STATE_SUCCEEDED) a->pick = i;
            if (a->remaining != 0) return;
        }
        if (a->canceling) return;  // cancel_all settles after its loop
        a->settle();
    }
    static void cancel_all(nested *self) noexcept {
        combo *a = static_cast<combo *>(self);
        a->canceling = true;
        const uint32_t n = a->self().size();
        for (uint32_t i = 0; i < n; i++) request_cancel(a->self().kid(i));
        a->canceling = false;
        const bool complete = Any ? a->pick != UINT32_MAX : a->remaining == 0;
        if (!complete) return;  // inputs still running or their cancellation queued: settled when they finish
        a->settle();
    }
};

/* Variadic: owns the tasks. */
template <bool Any, bool Race, bool Try, class... Ts>
struct tuple_combo : combo<tuple_combo<Any, Race, Try, Ts...>, Any, Race, Try> {
    static constexpr uint32_t N = sizeof...(Ts);
    std::tuple<task<Ts>...> tasks;
    cell *cells[N];

    explicit tuple_combo(std::tuple<task<Ts>...> &&t) noexcept : tasks(std::move(t)) { fill(std::index_sequence_for<Ts...>{}); }
    ~tuple_combo() { this->unlink(UINT32_MAX); }
    /* Hands the tasks over (try_await); this one no longer refers to them. */
    std::tuple<task<Ts>...> take_tasks() noexcept {
        for (cell *&c : cells) c = nullptr;
        return std::move(tasks);
    }
    uint32_t size() const noexcept { return N; }
    cell *kid(uint32_t i) const noexcept { return cells[i]; }

    auto await_resume() {
        if constexpr (Any) {
            using R = any_result_t;
            if constexpr (Try) {
                if (this->failed_ != Status::Ok) return task_result<R>(TaskState::Faulted, status_error(this->failed_));
                cell *w = cells[this->pick];
                if (w->state != ONITY_TASK_STATE_SUCCEEDED)
                    return task_result<R>(static_cast<TaskState>(w->state), w->error, this->pick);
                return task_result<R>(std::in_place, winner(std::index_sequence_for<Ts...>{}), this->pick);
            } else {
                rethrow_any(cells[this->pick], std::index_sequence_for<Ts...>{});
                return winner(std::index_sequence_for<Ts...>{});
            }
        } else {
            using R = std::tuple<slot_t<Ts>...>;
            if constexpr (Try) {
                if (this->failed_ != Status::Ok) return task_result<R>(TaskState::Faulted, status_error(this->failed_));
                if (this->pick != UINT32_MAX) {
                    cell *f = cells[this->pick];
                    return task_result<R>(static_cast<TaskState>(f->state), f->error, this->pick);
                }
                return task_result<R>(std::in_place, all_values(std::index_sequence_for<Ts...>{}));
            } else {
                if (this->pick != UINT32_MAX) rethrow_any(cells[this->pick], std::index_sequence_for<Ts...>{});
                return all_values(std::index_sequence_for<Ts...>{});
            }
        }
    }

  private:
    static constexpr bool same = (std::is_same_v<std::tuple_element_t<0, std::tuple<Ts...>>, Ts> && ...);
    using first_t = std::tuple_element_t<0, std::tuple<Ts...>>;
    using value_t = std::conditional_t<same, first_t, std::variant<slot_t<Ts>...>>;
    using any_result_t = any_result<value_t>;

    template <std::size_t... I>
    void fill(std::index_sequence<I...>) noexcept {
        ((cells[I] = task_access<Ts>::get(std::get<I>(tasks))), ...);
    }
    template <std::size_t... I>
    any_result_t winner(std::index_sequence<I...>) {
        const uint32_t w = this->pick;
        if constexpr (same && std::is_void_v<first_t>) {
            return any_result_t{w};
        } else if constexpr (same) {
            std::optional<first_t> v;
            (void)((w == I ? (v.emplace(take_value<first_t>(cells[I])), true) : false) || ...);
            return any_result_t{w, std::move(*v)};
        } else {
            std::optional<value_t> v;
            (void)((w == I ? (v.emplace(std::in_place_index<I>, take_slot<Ts>(cells[I])), true) : false) || ...);
            return any_result_t{w, std::move(*v)};
        }
    }
    template <std::size_t... I>
    void rethrow_any(cell *c, std::index_sequence<I...>) {
        (void)((cells[I] == c ? (rethrow_if_exception<Ts>(c), true) : false) || ...);
    }
    template <std::size_t... I>
    std::tuple<slot_t<Ts>...> all_values(std::index_sequence<I...>) {
        return std::tuple<slot_t<Ts>...>(take_slot<Ts>(cells[I])...);
    }
};

/* Over a span: the tasks stay the caller's (when_any / race consume the
 * winner's; when_all leaves every result in its task: read them with
 * task<T>::result()). */
template <bool Any, bool Race, bool Try, class T>
struct span_combo : combo<span_combo<Any, Race, Try, T>, Any, Race, Try> {
    std::span<task<T>> tasks;

    explicit span_combo(std::span<task<T>> t) noexcept : tasks(t) {}
    ~span_combo() { this->unlink(UINT32_MAX); }
    uint32_t size() const noexcept {
        return tasks.size() > UINT32_MAX ? 0u : static_cast<uint32_t>(tasks.size());
    }
    cell *kid(uint32_t i) const noexcept { return task_access<T>::get(tasks[i]); }

    auto await_resume() {
        if constexpr (Any) {
            using R = any_result<T>;
            if constexpr (Try) {
                if (this->failed_ != Status::Ok) return task_result<R>(TaskState::Faulted, status_error(this->failed_));
                cell *w = kid(this->pick);
                if (w->state != ONITY_TASK_STATE_SUCCEEDED)
                    return task_result<R>(static_cast<TaskState>(w->state), w->error, this->pick);
                return task_result<R>(std::in_place, take_winner(), this->pick);
            } else {
                rethrow_if_exception<T>(kid(this->pick));
                return take_winner();
            }
        } else {
            if constexpr (Try) {
                if (this->failed_ != Status::Ok)
                    return task_result<void>(TaskState::Faulted, status_error(this->failed_));
                if (this->pick != UINT32_MAX) {
                    cell *f = kid(this->pick);
                    return task_result<void>(static_cast<TaskState>(f->state), f->error, this->pick);
                }
                return task_result<void>(TaskState::Succeeded, 0);
            } else {
                if (this->pick != UINT32_MAX) rethrow_if_exception<T>(kid(this->pick));
            }
        }
    }

  private:
    any_result<T> take_winner() {
        const uint32_t w = this->pick;
        cell *c = kid(w);
        struct dropper {
            task<T> &t;
            ~dropper() { task_access<T>::drop(t); }
        } d{tasks[w]};
        if constexpr (std::is_void_v<T>) {
            (void)c;
            return any_result<T>{w};
        } else {
            return any_result<T>{w, take_value<T>(c)};
        }
    }
};

}  // namespace detail

/* co_await when_any(a(), b(), ...): any_result<T> (all the same T) or
 * any_result<std::variant<...>> (std::monostate for void), index = the winner;
 * its failure finishes the awaiting coroutine the same way. The others run on,
 * detached (cancel them yourself, or use race). */
template <class T0, class... Ts>
detail::tuple_combo<true, false, false, T0, Ts...> when_any(task<T0> &&t0, task<Ts> &&...ts) noexcept {
    return detail::tuple_combo<true, false, false, T0, Ts...>(std::tuple<task<T0>, task<Ts>...>(std::move(t0), std::move(ts)...));
}
/* As when_any, then cancels the others. */
template <class T0, class... Ts>
detail::tuple_combo<true, true, false, T0, Ts...> race(task<T0> &&t0, task<Ts> &&...ts) noexcept {
    return detail::tuple_combo<true, true, false, T0, Ts...>(std::tuple<task<T0>, task<Ts>...>(std::move(t0), std::move(ts)...));
}
/* co_await when_all(a(), b(), ...): std::tuple of the values (std::monostate
 * for void); the first failure (completion order) finishes the awaiting
 * coroutine the same way, once all are done. */
template <class T0, class... Ts>
detail::tuple_combo<false, false, false, T0, Ts...> when_all(task<T0> &&t0, task<Ts> &&...ts) noexcept {
    return detail::tuple_combo<false, false, false, T0, Ts...>(std::tuple<task<T0>, task<Ts>...>(std::move(t0), std::move(ts)...));
}

/* Over a span or vector of task<T> (which must outlive the await): when_any /
 * race give any_result<T> and consume the winner's task; when_all gives
 * nothing, the values stay in the tasks. */
template <class T>
detail::span_combo<true, false, false, T> when_any(std::span<task<T>> ts) noexcept {
    return detail::span_combo<true, false, false, T>(ts);
}
template <class T, class A>
detail::span_combo<true, false, false, T> when_any(std::vector<task<T>, A> &ts) noexcept {
    return detail::span_combo<true, false, false, T>(std::span<task<T>>(ts));
}
template <class T>
detail::span_combo<true, true, false, T> race(std::span<task<T>> ts) noexcept {
    return detail::span_combo<true, true, false, T>(ts);
}
template <class T, class A>
detail::span_combo<true, true, false, T> race(std::vector<task<T>, A> &ts) noexcept {
    return detail::span_combo<true, true, false, T>(std::span<task<T>>(ts));
}
template <class T>
detail::span_combo<false, false, false, T> when_all(std::span<task<T>> ts) noexcept {
    return detail::span_combo<false, false, false, T>(ts);
}
template <class T, class A>
detail::span_combo<false, false, false, T> when_all(std::vector<task<T>, A> &ts) noexcept {
    return detail::span_combo<false, false, false, T>(std::span<task<T>>(ts));
}

/* try_await over a combinator: task_result<R> with index() = the winner
 * (when_any, race) or the first failure (when_all). */
template <bool Any, bool Race, class... Ts>
detail::tuple_combo<Any, Race, true, Ts...> try_await(detail::tuple_combo<Any, Race, false, Ts...> &&c) noexcept {
    return detail::tuple_combo<Any, Race, true, Ts...>(c.take_tasks());
}
template <bool Any, bool Race, class T>
detail::span_combo<Any, Race, true, T> try_await(detail::span_combo<Any, Race, false, T> &&c) noexcept {
    return detail::span_combo<Any, Race, true, T>(c.tasks);
}

}  // namespace onity

#endif /* ONITY_CORO_COMBINATORS_HPP */
