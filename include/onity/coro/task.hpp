/*
 * onity/coro/task.hpp: onity::task<T> (the coroutine type), its promise,
 * awaiting a task<T> and task_result<T> (what try_await returns). Part of
 * onity/coro.hpp; include that.
 */
#ifndef ONITY_CORO_TASK_HPP
#define ONITY_CORO_TASK_HPP

#include <cstring>
#include <optional>

#include "sched.hpp"

namespace onity {

template <class T = void>
class task;

/* ---- task_result: an outcome you inspect instead of propagating --------- */

/* What `co_await try_await(x)` gives: the state, the error code (FAULTED), the
 * value (SUCCEEDED, non-void) and, for combinators, an index (the winner of
 * when_any / race, the first failure of when_all; UINT32_MAX otherwise). */
class task_result_base {
  public:
    task_result_base(TaskState s, int32_t e, uint32_t index) noexcept : state_(s), error_(e), index_(index) {}
    TaskState state() const noexcept { return state_; }
    int32_t error() const noexcept { return error_; }
    uint32_t index() const noexcept { return index_; }
    bool succeeded() const noexcept { return state_ == TaskState::Succeeded; }
    bool faulted() const noexcept { return state_ == TaskState::Faulted; }
    bool canceled() const noexcept { return state_ == TaskState::Canceled; }

  private:
    TaskState state_;
    int32_t error_;
    uint32_t index_;
};

template <class T>
class task_result : public task_result_base {
  public:
    task_result(TaskState s, int32_t e, uint32_t index = UINT32_MAX) noexcept : task_result_base(s, e, index) {}
    template <class U>
    task_result(std::in_place_t, U &&v, uint32_t index = UINT32_MAX)
        : task_result_base(TaskState::Succeeded, 0, index), value_(std::forward<U>(v)) {}
    bool has_value() const noexcept { return value_.has_value(); }
    /* The value; only when has_value() (misuse otherwise: reported, then abort). */
    T &value() & noexcept { return checked(), *value_; }
    T &&value() && noexcept { return checked(), std::move(*value_); }

  private:
    void checked() const noexcept {
        if (!value_) {
            detail::report_misuse(Status::TaskPending, "task_result::value() without a value");
            detail::fatal("task_result::value() without a value");
        }
    }
    std::optional<T> value_;
};

template <>
class task_result<void> : public task_result_base {
  public:
    task_result(TaskState s, int32_t e, uint32_t index = UINT32_MAX) noexcept : task_result_base(s, e, index) {}
};

namespace detail {

/* T that fits a native task's 64-bit result (what task<T>::native needs);
 * void does (no sizeof(void): the primary template never sees it). */
template <class T>
struct native_value : std::bool_constant<std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(uint64_t)> {};
template <>
struct native_value<void> : std::true_type {};
template <class T>
inline constexpr bool native_value_v = native_value<T>::value;

template <class T>
uint64_t to_native(const T &v) noexcept {
    if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
        return static_cast<uint64_t>(v);
    } else if constexpr (std::is_pointer_v<T>) {
        return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(v));
    } else {
        uint64_t out = 0;
        std::memcpy(&out, &v, sizeof(T));
        return out;
    }
}

struct promise_base;
template <class T>
struct task_access;

template <class P>
cell *cell_of(std::coroutine_handle<P> h) noexcept {
    static_assert(std::is_base_of_v<promise_base, P>,
                  "Onity awaiters can only be awaited inside an onity::task coroutine");
    // The cell sits right before the frame (attach_handle checked that when
    // the coroutine started): an address computation, not a load.
    return static_cast<cell *>(h.address()) - 1;
}

struct initial_awaiter {
    cell *c;
    bool await_ready() const noexcept { return c->owner != nullptr; }
    void await_suspend(std::coroutine_handle<>) const noexcept {
        // No runtime: the body never runs; the frame stays for the task<>.
        c->wait = wait_initial;
        c->state = ONITY_TASK_STATE_FAULTED;
        c->error = status_error(Status::InvalidRuntime);
        report_misuse(Status::InvalidRuntime,
                      "starting a coroutine on a thread without a current runtime (create an onity::coro_runtime "
                      "on the runtime's owner thread first)");
    }
    void await_resume() const noexcept {}
};

struct final_awaiter {
    cell *c;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) const noexcept {
        core *k = c->owner;
        if (k && !k->on_owner()) {
            // Finished on another thread: the completion runs on the owner.
            push_to_owner(k, c, q_complete);
            return;
        }
        complete_at_final(c);
    }
    void await_resume() const noexcept {}
};

struct promise_base {
    cell *cell_;
    std::exception_ptr exception_;  // in every mode: one layout for all translation units

    promise_base() noexcept : cell_(take_cell()) {}
    /* The coroutine's parameters: the first onity::Token among them becomes
     * the coroutine's cancellation token, even an empty one (no token: a
     * later Token parameter is an ordinary value). */
    template <class... A>
    explicit promise_base(A &...args) noexcept : cell_(take_cell()) {
        (void)((scan(args)) || ...);
    }
    promise_base(const promise_base &) = delete;
    promise_base &operator=(const promise_base &) = delete;

    static void *operator new(std::size_t n) { return alloc_frame(n); }
    static void operator delete(void *p) noexcept { free_frame(p); }
    /* Compilers that pass an over-aligned frame's alignment (C++23, P2014):
     * up to frame_align as every frame; more is refused. */
    static void *operator new(std::size_t n, std::align_val_t a) {
        if (static_cast<std::size_t>(a) > frame_align) fatal("a coroutine frame aligned to more than 128 bytes");
        return alloc_frame(n);
    }
    static void operator delete(void *p, std::align_val_t) noexcept { free_frame(p); }

    initial_awaiter initial_suspend() const noexcept { return {cell_}; }
    final_awaiter final_suspend() const noexcept { return {cell_}; }
    /* The same in every mode (never called in a coroutine built without
     * exceptions: nothing can throw into it). */
    void unhandled_exception() noexcept {
        exception_ = std::current_exception();
        cell_->has_exception = true;
        cell_->body_state = ONITY_TASK_STATE_FAULTED;
        cell_->error = error_exception;
    }

  protected:
    void attach_handle(std::coroutine_handle<> self) noexcept {
        if (std::coroutine_handle<>::from_address(cell_ + 1) != self)
            fatal("the coroutine frame does not start where onity allocated it (unsupported compiler)");
        cell_->refs++;
        cell_->handle_held = true;
    }

  private:
    static cell *take_cell() noexcept {
        cell *&slot = new_cell();
        cell *c = slot;
        slot = nullptr;
        if (!c || c->magic != cell_magic)
            fatal("a coroutine frame was not allocated through onity's pool (allocation elided?)");
        return c;
    }
    template <class A>
    bool scan(A &a) noexcept {
        if constexpr (std::is_same_v<std::remove_cv_t<A>, Token>) {
            cell_->token = a.handle();
            cell_->wait_token.store(a.handle(), std::memory_order_relaxed);  // nothing else sees the cell yet
            return true;
        } else {
            (void)a;
            return false;
        }
    }
};

template <class T>
struct promise final : promise_base {
    using promise_base::promise_base;
    ~promise() {
        if (has_) ptr()->~T();
    }
    task<T> get_return_object() noexcept;
    template <class U = T>
    void return_value(U &&v) noexcept(std::is_nothrow_constructible_v<T, U &&>) {
        ::new (static_cast<void *>(buf_)) T(std::forward<U>(v));
        has_ = true;
        cell_->body_state = ONITY_TASK_STATE_SUCCEEDED;
        if constexpr (native_value_v<T>) cell_->value = to_native(*ptr());
    }
    T *ptr() noexcept { return std::launder(reinterpret_cast<T *>(buf_)); }
    bool has_value() const noexcept { return has_; }

  private:
    alignas(T) unsigned char buf_[sizeof(T)];
    bool has_ = false;
};

template <>
struct promise<void> final : promise_base {
    using promise_base::promise_base;
    task<void> get_return_object() noexcept;
    void return_void() noexcept { cell_->body_state = ONITY_TASK_STATE_SUCCEEDED; }
};

template <class T>
promise<T> &promise_of(cell *c) noexcept {
    return std::coroutine_handle<promise<T>>::from_address(c + 1).promise();
}

/* A task<> lets go of its coroutine (owner thread). A coroutine still running
 * goes on detached; a finished one's frame is destroyed. `unread` (forget,
 * reset, destructor): a fault nobody looked at (outcome_read) goes to the
 * unobserved handler (one started without a runtime was reported as misuse
 * instead). */
inline void release_handle(cell *c, bool unread = false) noexcept {
    if (c->owner && !c->owner->on_owner()) {
        report_misuse(Status::WrongThread, "destroying an onity::task off the owner thread (the coroutine is leaked)");
        return;
    }
    if (unread && c->owner && !c->outcome_read) report_unobserved(c);
    c->handle_held = false;
    if (c->frame_alive && (c->wait == wait_final || c->wait == wait_initial)) frame_of(c).destroy();
    unref(c);
}

/* The same in every mode (only a coroutine built with exceptions can have
 * one; a coroutine built without them must not await it). */
template <class T>
void rethrow_if_exception(cell *c) {
    if (c->has_exception && c->frame_alive) {
        std::exception_ptr e = promise_of<T>(c).exception_;
        if (e) std::rethrow_exception(e);
    }
}

/* A failure the awaiting coroutine propagates by finishing the same way
 * (exceptions are rethrown in await_resume instead). */
inline bool propagates(const cell *child) noexcept {
    return child->state != ONITY_TASK_STATE_SUCCEEDED && !child->has_exception;
}

/* The continuation of a coroutine awaiting something that finished: resume
 * it, or finish it (a propagated failure, or a cancellation requested while
 * it waited), as a step (see proceed). */
inline void resume_or_finish(cell *p, bool fail, uint8_t state, int32_t error) noexcept {
    p->wait = wait_none;
    if (fail)
        proceed(p, step_finish, state, error);
    else if (cancel_pending(p) || token_canceled(p))
        proceed(p, step_finish, ONITY_TASK_STATE_CANCELED, 0);
    else
        proceed(p, step_resume, 0, 0);
}

template <class T>
T take_value(cell *c) {
    if constexpr (!std::is_void_v<T>) return std::move(*promise_of<T>(c).ptr());
}

/* co_await on a task<T>: propagating (Try = false: returns T, failures finish
 * the awaiting coroutine the same way, exceptions are rethrown) or not (Try:
 * returns task_result<T>). */
template <class T, bool Try>
struct task_awaiter : nested {
    // The awaited coroutine's handle once the await suspends (taken from *t,
    // which may move or die meanwhile), or from the start for
    // try_await(task&&) (the awaiter may outlive the expression).
    task<T> owned;
    task<T> *t;
    cell *parent = nullptr;

    explicit task_awaiter(task<T> *tt) noexcept : t(tt) { cancel_fn = &cancel_child; }
    explicit task_awaiter(task<T> &&tt) noexcept : owned(std::move(tt)), t(&owned) { cancel_fn = &cancel_child; }
    task_awaiter(const task_awaiter &) = delete;
    task_awaiter &operator=(const task_awaiter &) = delete;
    ~task_awaiter() {
        cell *c = t->c_;
        if (c && c->cont_target == this) c->cont = nullptr;
    }

    // Always through await_suspend, which goes on at once (returns false) when
    // the task is complete: a cancellation is seen there too.
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) noexcept {
        cell *p = cell_of(h);
        if (!on_owner(p)) {
            report_misuse(Status::WrongThread, "awaiting an onity::task off the owner thread");
            if constexpr (Try) {
                failed_ = Status::WrongThread;
                return false;
            } else {
                return end_here(p, ONITY_TASK_STATE_FAULTED, status_error(Status::WrongThread));
            }
        }
        cell *c = t->c_;
        if (c && !t->awaited_ && !on_owner(c)) {
            // Its completion would resume this coroutine on that thread.
            report_misuse(Status::WrongThread, "awaiting an onity::task of a runtime another thread owns");
            if constexpr (Try) {
                failed_ = Status::WrongThread;
                return false;
            } else {
                finish(p, ONITY_TASK_STATE_FAULTED, status_error(Status::WrongThread));
                return true;
            }
        }
        if (c == p) {
            // It would wait for itself forever (beyond cancel() and the
            // runtime's destruction).
            report_misuse(Status::InvalidArgument, "a coroutine awaiting its own onity::task");
            if constexpr (Try) {
                failed_ = Status::InvalidArgument;
                return false;
            } else {
                finish(p, ONITY_TASK_STATE_FAULTED, status_error(Status::InvalidArgument));
                return true;
            }
        }
        if (!c || t->awaited_ || c->cont) {
            const Status s = (t->awaited_ || (c && c->cont)) ? Status::AlreadyAwaited : Status::InvalidHandle;
            report_misuse(s, c ? "awaiting an onity::task twice" : "awaiting an empty onity::task");
            if constexpr (Try) {
                failed_ = s;
                return false;
            } else {
                finish(p, ONITY_TASK_STATE_FAULTED, status_error(s));
                return true;
            }
        }
        if (cancel_pending(p) || token_canceled(p)) {
            finish(p, ONITY_TASK_STATE_CANCELED, 0);
            return true;
        }
        if (c->state != ONITY_TASK_STATE_PENDING) {
            if (Try || !propagates(c)) return false;  // complete: await_resume takes it
            c->outcome_read = true;                   // observed: it propagates
            finish(p, c->state, c->error);            // a failure to propagate
            return true;
        }
        if (t != &owned) {
            owned = std::move(*t);
            t->awaited_ = true;
            t = &owned;
        }
        parent = p;
        c->cont = &on_done;
        c->cont_target = this;
        p->awaiting = static_cast<nested *>(this);
        p->wait = wait_nested;
        return true;
    }
    auto await_resume() {
        if constexpr (Try) {
            if (failed_ != Status::Ok) return task_result<T>(TaskState::Faulted, status_error(failed_));
        }
        cell *c = t->c_;
        t->awaited_ = true;
        t->c_ = nullptr;
        struct releaser {
            cell *c;
            ~releaser() { release_handle(c); }
        } rel{c};
        if constexpr (Try) {
            if (c->state != ONITY_TASK_STATE_SUCCEEDED)
                return task_result<T>(static_cast<TaskState>(c->state), c->error);
            if constexpr (std::is_void_v<T>)
                return task_result<T>(TaskState::Succeeded, 0);
            else
                return task_result<T>(std::in_place, take_value<T>(c));
        } else {
            rethrow_if_exception<T>(c);
            return take_value<T>(c);
        }
    }

  private:
    static void on_done(void *target, cell *child, uint32_t) noexcept {
        task_awaiter *a = static_cast<task_awaiter *>(target);
        resume_or_finish(a->parent, !Try && propagates(child), child->state, child->error);
    }
    static void cancel_child(nested *self) noexcept {
        request_cancel(static_cast<task_awaiter *>(self)->t->c_);
    }
    Status failed_ = Status::Ok;
};

}  // namespace detail

/* ---- task<T> -------------------------------------------------------------- */

/*
 * The coroutine return type. Eager: the body runs at the call up to its first
 * suspension. The task<> is a handle (move-only) to the coroutine's outcome:
 * co_await it once (the await takes the coroutine: the task<> is empty from
 * then on, and may move or die meanwhile; cancel the awaiting coroutine to
 * cancel both), forget() it, turn it into a native task handle with
 * native(), or let it go out of scope (the coroutine runs on, detached; same
 * as forget()). Owner thread only.
 *
 * Outcome: the runtime's (TaskState): Succeeded with the co_returned value,
 * Faulted with an error code (this_coroutine::fail(code), a misused await:
 * status_error(status), an escaped exception: error_exception), or Canceled.
 */
template <class T>
class [[nodiscard]] task {
    static_assert(!std::is_reference_v<T>, "task<T&> is not supported; return a pointer");

  public:
    using promise_type = detail::promise<T>;
    using value_type = T;

    task() noexcept = default;
    task(task &&o) noexcept : c_(std::exchange(o.c_, nullptr)), awaited_(o.awaited_) {}
    task &operator=(task &&o) noexcept {
        if (this != &o) {
            reset();
            c_ = std::exchange(o.c_, nullptr);
            awaited_ = o.awaited_;
        }
        return *this;
    }
    task(const task &) = delete;
    task &operator=(const task &) = delete;
    ~task() { reset(); }

    /* Holds a coroutine (not moved-from, awaited, forgotten or bridged). */
    bool valid() const noexcept { return c_ != nullptr; }
    explicit operator bool() const noexcept { return valid(); }
    bool done() const noexcept { return c_ && c_->state != ONITY_TASK_STATE_PENDING; }
    /* Pending for an empty task. Reading state() or error() of a finished
     * task observes its outcome (see forget()). */
    TaskState state() const noexcept {
        if (!c_) return TaskState::Pending;
        if (done()) c_->outcome_read = true;
        return static_cast<TaskState>(c_->state);
    }
    int32_t error() const noexcept {
        if (!done()) return 0;
        c_->outcome_read = true;
        return c_->error;
    }
    /* The value of a succeeded task (nullptr otherwise), until it is awaited
     * or destroyed. */
    template <class U = T, class = std::enable_if_t<!std::is_void_v<U>>>
    U *result() noexcept {
        if (!c_ || c_->state != ONITY_TASK_STATE_SUCCEEDED || !c_->frame_alive) return nullptr;
        auto &p = detail::promise_of<T>(c_);
        return p.has_value() ? p.ptr() : nullptr;
    }

    /* Lets the coroutine run on without anyone awaiting it (UniTask's
     * Forget). A fault then goes to the unobserved handler: when it happens,
     * or now if the coroutine already faulted and nobody read its state() /
     * error(). The destructor and reset() do the same. */
    void forget() noexcept { reset(); }

    /* Requests cancellation: the coroutine finishes canceled at once if it is
     * suspended in an Onity wait, else at its next Onity await (after its
     * cancel_guards); the request is passed on to task<>s it awaits. */
    void cancel() noexcept {
        if (!c_) return;
        if (c_->owner && !c_->owner->on_owner()) {
            detail::report_misuse(Status::WrongThread, "onity::task::cancel off the owner thread (ignored)");
            return;
        }
        detail::request_cancel(c_);
    }

    /* A native task handle that completes with this coroutine's outcome (its
     * value as 64 bits), for C code, onity_when_any / _when_all or the C#
     * binding. Consumes this task<>. The handle is the caller's to consume;
     * completing or canceling (and consuming) it first drops the coroutine's
     * outcome (the coroutine runs on: cancel it yourself).
     * Errors: InvalidHandle (empty), AlreadyAwaited, InvalidRuntime (no or
     * destroyed runtime), and onity_task_create's. */
    Result<Task> native() && noexcept {
        static_assert(detail::native_value_v<T>, "native(): T must fit 64 bits (trivially copyable, <= 8 bytes)");
        Status s = bridge_check();
        if (s != Status::Ok) return s;
        uint64_t m = 0;
        const OnityStatus cs = onity_task_create(c_->owner->rt, &m);
        if (cs != ONITY_STATUS_OK) return detail::to_status(cs);
        bind(m);
        return Task(m);
    }
    /* Completes `target`, a pending manual task made elsewhere (by C code, or
     * by the C# binding's CreateNativeCompletionSource), with this coroutine's
     * outcome when it finishes. Consumes this task<>. Errors as native(),
     * plus the handle errors of onity_task_state and AlreadyCompleted. */
    Result<void> complete_into(Task target) && noexcept {
        static_assert(detail::native_value_v<T>, "complete_into(): T must fit 64 bits");
        Status s = bridge_check();
        if (s != Status::Ok) return s;
        uint32_t st = 0;
        const OnityStatus cs = onity_task_state(c_->owner->rt, target.handle(), &st);
        if (cs != ONITY_STATUS_OK) return detail::to_status(cs);
        if (st != ONITY_TASK_STATE_PENDING) return Status::AlreadyCompleted;
        bind(target.handle());
        return Status::Ok;
    }

    detail::task_awaiter<T, false> operator co_await() & noexcept { return detail::task_awaiter<T, false>(this); }
    detail::task_awaiter<T, false> operator co_await() && noexcept { return detail::task_awaiter<T, false>(this); }

    /* Lets go of the coroutine (as the destructor). */
    void reset() noexcept {
        if (c_) detail::release_handle(std::exchange(c_, nullptr), !awaited_);
    }

  private:
    friend struct detail::promise<T>;
    template <class, bool>
    friend struct detail::task_awaiter;
    template <class>
    friend struct detail::task_access;
    explicit task(detail::cell *c) noexcept : c_(c) {}

    Status bridge_check() const noexcept {
        if (!c_) return Status::InvalidHandle;
        if (c_->cont) return Status::AlreadyAwaited;
        if (!c_->owner || !c_->owner->rt) return Status::InvalidRuntime;
        if (!c_->owner->on_owner()) return Status::WrongThread;
        return Status::Ok;
    }
    void bind(uint64_t m) noexcept {
        detail::cell *c = std::exchange(c_, nullptr);
        c->bridge = m;
        if (c->state != ONITY_TASK_STATE_PENDING) detail::publish(c);
        detail::release_handle(c);
    }

    detail::cell *c_ = nullptr;
    bool awaited_ = false;
};

namespace detail {
template <class T>
task<T> promise<T>::get_return_object() noexcept {
    attach_handle(std::coroutine_handle<promise>::from_promise(*this));
    return task<T>(cell_);
}
inline task<void> promise<void>::get_return_object() noexcept {
    attach_handle(std::coroutine_handle<promise>::from_promise(*this));
    return task<void>(cell_);
}

/* What the combinators need of a task<> (its cell). */
template <class T>
struct task_access {
    static cell *get(const task<T> &t) noexcept { return t.awaited_ ? nullptr : t.c_; }
    static void drop(task<T> &t) noexcept {
        t.awaited_ = true;
        t.reset();
    }
};
}  // namespace detail

}  // namespace onity

#endif /* ONITY_CORO_TASK_HPP */
