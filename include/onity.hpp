/*
 * onity.hpp: a small header-only C++ wrapper over onity.h (C++11 or later).
 *
 * Error style: NO exceptions. Every fallible call returns an
 * `onity::Result<T>` (or `onity::Result<void>`) carrying either a value or
 * the `onity::Status` the C function returned:
 *
 *     onity::Result<onity::Task> t = rt.next_frame(onity::Timing::Update);
 *     if (!t) { std::fprintf(stderr, "%s\n", t.message()); return; }
 *     onity::Task task = t.value();
 *
 * `unwrap()` returns the value or, on error, prints the status text to
 * stderr and calls std::abort(). The wrapper throws nothing of its own, so
 * it works with -fno-exceptions, as many engines build. Two calls allocate
 * with std::vector, and std::bad_alloc is the only exception they can let
 * through (with -fno-exceptions an allocation failure aborts): `when_any` /
 * `when_all` over more than 32 inputs (up to ONITY_MAX_COMBINATOR_INPUTS),
 * and `when_all_results`.
 *
 * Ownership and lifetimes:
 * - `onity::Runtime` owns an `OnityRuntime*` and destroys it in its
 *   destructor (or earlier with `destroy()`, which reports the status). The
 *   C rules apply: destroy on the owner thread and never from a continuation
 *   during a tick; the destructor cannot report a failure, so it then leaks
 *   the runtime instead (call `destroy()` to see the status). Move-only.
 * - `onity::RuntimeRef` (`Runtime::borrow(raw)`) has every operation of
 *   Runtime over a runtime it does not own (another plugin's, the C#
 *   binding's): copyable, destroys nothing. An lvalue Runtime converts to
 *   it (a copy), but a Runtime is not a RuntimeRef: take views by value or
 *   const reference; a `RuntimeRef &` / `RuntimeRef *` cannot designate an
 *   owner, nor can a view be made of a temporary or expiring owner (all
 *   refused at compile time: no view assigned over an owner, no owner
 *   deleted through a view pointer). Views stay valid when the owner is
 *   moved and dangle once it destroys the runtime.
 * - `onity::CancelSource` owns a cancellation source and destroys it in its
 *   destructor. It must not outlive its runtime, and must be destroyed on the
 *   owner thread. Move-only. Its `token()` is passed to waits and combinators.
 *   A cancel stays in effect after the source is destroyed: waits and
 *   combinators holding the token still observe it (onity.h).
 * - `onity::Task` is a plain handle value, NOT an RAII owner: a task is
 *   consumed exactly once, by whoever the C API says (the host, a
 *   continuation, or a WhenAny/WhenAll that took it as input), so tying it
 *   to a C++ scope would fight those rules.
 *
 * Callbacks are the C ones (`OnityCallback` + `void *user`). The template
 * overloads taking `F &fn` call `fn(onity::Task, onity::TaskState)` through a
 * trampoline: `fn` must stay alive until it has been called and must not
 * throw (the trampoline is noexcept, so an exception terminates).
 *
 * Threads: only what onity.h documents as "any thread" may be called from
 * other threads: Runtime::set_result / set_error / cancel / state and
 * CancelSource::cancel / is_canceled. Everything else is owner-thread only.
 *
 * Everything here is inline or a template: include it from as many
 * translation units as you like.
 */
#ifndef ONITY_HPP
#define ONITY_HPP

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <utility>
#include <vector>

#include "onity.h"

namespace onity {

static_assert(ONITY_ABI_VERSION >> 16 == 1, "onity.hpp was written for major ABI version 1");

/* ---- status and enums --------------------------------------------------- */

enum class Status : uint32_t {
    Ok = ONITY_STATUS_OK,
    NullPointer = ONITY_STATUS_NULL_POINTER,
    InvalidHandle = ONITY_STATUS_INVALID_HANDLE,
    StaleHandle = ONITY_STATUS_STALE_HANDLE,
    ForeignHandle = ONITY_STATUS_FOREIGN_HANDLE,
    WrongThread = ONITY_STATUS_WRONG_THREAD,
    InvalidArgument = ONITY_STATUS_INVALID_ARGUMENT,
    CountOutOfRange = ONITY_STATUS_COUNT_OUT_OF_RANGE,
    DuplicateInput = ONITY_STATUS_DUPLICATE_INPUT,
    TaskPending = ONITY_STATUS_TASK_PENDING,
    AlreadyCompleted = ONITY_STATUS_ALREADY_COMPLETED,
    AlreadyAwaited = ONITY_STATUS_ALREADY_AWAITED,
    SizeMismatch = ONITY_STATUS_SIZE_MISMATCH,
    Reentrant = ONITY_STATUS_REENTRANT,
    FrameOrder = ONITY_STATUS_FRAME_ORDER,
    Panic = ONITY_STATUS_PANIC,
    Exhausted = ONITY_STATUS_EXHAUSTED,
    InvalidRuntime = ONITY_STATUS_INVALID_RUNTIME,
    InvalidAlignment = ONITY_STATUS_INVALID_ALIGNMENT,
    OutOfMemory = ONITY_STATUS_OUT_OF_MEMORY,
};

enum class Timing : uint32_t {
    Initialization = ONITY_TIMING_INITIALIZATION,
    LastInitialization = ONITY_TIMING_LAST_INITIALIZATION,
    EarlyUpdate = ONITY_TIMING_EARLY_UPDATE,
    LastEarlyUpdate = ONITY_TIMING_LAST_EARLY_UPDATE,
    FixedUpdate = ONITY_TIMING_FIXED_UPDATE,
    LastFixedUpdate = ONITY_TIMING_LAST_FIXED_UPDATE,
    PreUpdate = ONITY_TIMING_PRE_UPDATE,
    LastPreUpdate = ONITY_TIMING_LAST_PRE_UPDATE,
    Update = ONITY_TIMING_UPDATE,
    LastUpdate = ONITY_TIMING_LAST_UPDATE,
    PreLateUpdate = ONITY_TIMING_PRE_LATE_UPDATE,
    LastPreLateUpdate = ONITY_TIMING_LAST_PRE_LATE_UPDATE,
    PostLateUpdate = ONITY_TIMING_POST_LATE_UPDATE,
    LastPostLateUpdate = ONITY_TIMING_LAST_POST_LATE_UPDATE,
    TimeUpdate = ONITY_TIMING_TIME_UPDATE,
    LastTimeUpdate = ONITY_TIMING_LAST_TIME_UPDATE,
};

enum class Clock : uint32_t {
    Scaled = ONITY_CLOCK_SCALED,
    Unscaled = ONITY_CLOCK_UNSCALED,
    Realtime = ONITY_CLOCK_REALTIME,
};

enum class TaskState : uint32_t {
    Pending = ONITY_TASK_STATE_PENDING,
    Succeeded = ONITY_TASK_STATE_SUCCEEDED,
    Faulted = ONITY_TASK_STATE_FAULTED,
    Canceled = ONITY_TASK_STATE_CANCELED,
};

/* A static English description of a status (never null). */
inline const char *status_text(Status s) noexcept { return onity_status_text(static_cast<uint32_t>(s)); }

/* "Update", ... ("invalid" for values out of range). */
inline const char *timing_name(Timing t) noexcept { return onity_timing_name(static_cast<uint32_t>(t)); }

/* True when the loaded library implements the ABI this header was compiled
 * against (same major, library minor at least the header's). */
inline bool abi_compatible() noexcept {
    const uint32_t lib = onity_abi_version();
    return (lib >> 16) == (ONITY_ABI_VERSION >> 16) && (lib & 0xFFFFu) >= (ONITY_ABI_VERSION & 0xFFFFu);
}

/* ---- Result --------------------------------------------------------------- */

namespace detail {
[[noreturn]] inline void unwrap_failed(Status s) noexcept {
    std::fprintf(stderr, "onity: unwrap() of an error result: %s (status %u)\n", status_text(s),
                 static_cast<unsigned>(s));
    std::abort();
}
}  // namespace detail

/* A value of type T, or the Status of a failed call. T must be default
 * constructible (it is unspecified when the result is an error). */
template <typename T>
class Result {
  public:
    Result(T value) : value_(std::move(value)), status_(Status::Ok) {}  // NOLINT: implicit on purpose
    Result(Status status) : value_(), status_(status) {}                 // NOLINT

    bool ok() const noexcept { return status_ == Status::Ok; }
    explicit operator bool() const noexcept { return ok(); }
    Status status() const noexcept { return status_; }
    const char *message() const noexcept { return status_text(status_); }

    /* The value; only meaningful when ok(). */
    T &value() & noexcept { return value_; }
    const T &value() const & noexcept { return value_; }
    T &&value() && noexcept { return std::move(value_); }

    /* The value, or abort() with the status text on error. */
    T unwrap() && noexcept {
        if (!ok()) detail::unwrap_failed(status_);
        return std::move(value_);
    }
    T unwrap() const & {
        if (!ok()) detail::unwrap_failed(status_);
        return value_;
    }

    /* The value, or `fallback` on error. */
    T value_or(T fallback) const & { return ok() ? value_ : fallback; }

  private:
    T value_;
    Status status_;
};

/* The Status of a call without output. */
template <>
class Result<void> {
  public:
    Result(Status status = Status::Ok) noexcept : status_(status) {}  // NOLINT

    bool ok() const noexcept { return status_ == Status::Ok; }
    explicit operator bool() const noexcept { return ok(); }
    Status status() const noexcept { return status_; }
    const char *message() const noexcept { return status_text(status_); }
    /* abort() with the status text on error. */
    void unwrap() const noexcept {
        if (!ok()) detail::unwrap_failed(status_);
    }

  private:
    Status status_;
};

namespace detail {
inline Status to_status(OnityStatus s) noexcept { return static_cast<Status>(static_cast<uint32_t>(s)); }
inline Result<void> check(OnityStatus s) noexcept { return Result<void>(to_status(s)); }
}  // namespace detail

/* ---- value types ------------------------------------------------------------ */

/* A task handle (a plain value; see the ownership notes at the top). */
class Task {
  public:
    Task() noexcept : handle_(0) {}
    explicit Task(uint64_t handle) noexcept : handle_(handle) {}
    uint64_t handle() const noexcept { return handle_; }
    /* Not the null handle. Says nothing about whether the task is live. */
    bool valid() const noexcept { return handle_ != 0; }
    friend bool operator==(Task a, Task b) noexcept { return a.handle_ == b.handle_; }
    friend bool operator!=(Task a, Task b) noexcept { return a.handle_ != b.handle_; }

  private:
    uint64_t handle_;
};

/* A cancellation token: the handle of a CancelSource, or none. */
class Token {
  public:
    Token() noexcept : handle_(0) {}
    explicit Token(uint64_t handle) noexcept : handle_(handle) {}
    static Token none() noexcept { return Token(); }
    uint64_t handle() const noexcept { return handle_; }

  private:
    uint64_t handle_;
};

/* What a consumed task produced. */
class Outcome {
  public:
    Outcome() noexcept : raw_() { raw_.state = ONITY_TASK_STATE_PENDING; raw_.index = UINT32_MAX; }
    explicit Outcome(const OnityOutcome &raw) noexcept : raw_(raw) {}
    TaskState state() const noexcept { return static_cast<TaskState>(raw_.state); }
    bool succeeded() const noexcept { return state() == TaskState::Succeeded; }
    bool faulted() const noexcept { return state() == TaskState::Faulted; }
    bool canceled() const noexcept { return state() == TaskState::Canceled; }
    /* Result payload (Succeeded). */
    uint64_t value() const noexcept { return raw_.value; }
    /* Error code (Faulted). */
    int32_t error() const noexcept { return raw_.error; }
    /* WhenAny winner / WhenAll first failure; UINT32_MAX otherwise. */
    uint32_t index() const noexcept { return raw_.index; }
    bool has_index() const noexcept { return raw_.index != UINT32_MAX; }
    const OnityOutcome &raw() const noexcept { return raw_; }

  private:
    OnityOutcome raw_;
};

/* Runtime configuration, filled with the defaults. */
class Config {
  public:
    Config() noexcept : raw_() { onity_runtime_config_init(&raw_, (uint32_t)sizeof raw_); }
    Config &task_capacity(uint32_t v) noexcept { raw_.task_capacity = v; return *this; }
    Config &cancel_capacity(uint32_t v) noexcept { raw_.cancel_capacity = v; return *this; }
    Config &wait_capacity(uint32_t v) noexcept { raw_.wait_capacity = v; return *this; }
    Config &combinator16_capacity(uint32_t v) noexcept { raw_.combinator16_capacity = v; return *this; }
    Config &combinator32_capacity(uint32_t v) noexcept { raw_.combinator32_capacity = v; return *this; }
    const OnityRuntimeConfig &raw() const noexcept { return raw_; }
    OnityRuntimeConfig &raw() noexcept { return raw_; }

  private:
    OnityRuntimeConfig raw_;
};

/* A statistics snapshot (see OnityStats). */
class Stats {
  public:
    Stats() noexcept : raw_() { raw_.size = static_cast<uint32_t>(sizeof raw_); }
    const OnityPoolStats &pool(uint32_t p) const noexcept { return raw_.pools[p < ONITY_POOL_COUNT ? p : 0]; }
    const OnityWaitStats &waits(uint32_t kind) const noexcept {
        return raw_.waits[kind < ONITY_WAIT_KIND_COUNT ? kind : 0];
    }
    uint64_t live_tasks() const noexcept { return raw_.live_tasks; }
    uint64_t completed_unconsumed() const noexcept { return raw_.completed_unconsumed; }
    uint64_t cross_thread_queued() const noexcept { return raw_.cross_thread_queued; }
    uint64_t frame() const noexcept { return raw_.frame; }
    const OnityStats &raw() const noexcept { return raw_; }
    OnityStats &raw() noexcept { return raw_; }

  private:
    OnityStats raw_;
};

namespace detail {
template <typename F>
void trampoline(void *user, uint64_t task, uint32_t state) noexcept {
    (*static_cast<F *>(user))(Task(task), static_cast<TaskState>(state));
}
/* The `user` pointer of a functor (F may be const: trampoline<F> restores it). */
template <typename F>
void *user_of(F &fn) noexcept {
    return const_cast<void *>(static_cast<const void *>(&fn));
}

/* Copies task handles into a contiguous uint64_t array (on the stack for up
 * to 32 inputs). */
class Handles {
  public:
    Handles(const Task *tasks, std::size_t count) : count_(count) {
        uint64_t *dst = small_;
        if (count > static_cast<std::size_t>(kSmall)) {
            big_.resize(count);
            dst = big_.data();
        }
        for (std::size_t i = 0; i < count; i++) dst[i] = tasks[i].handle();
        data_ = dst;
    }
    Handles(const Handles &) = delete;
    Handles &operator=(const Handles &) = delete;
    const uint64_t *data() const noexcept { return data_; }
    /* Counts that do not fit uint32_t are passed as UINT32_MAX, which the C
     * API rejects with COUNT_OUT_OF_RANGE. */
    uint32_t count() const noexcept {
        return count_ > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(count_);
    }

  private:
    enum { kSmall = 32 };
    uint64_t small_[kSmall];
    std::vector<uint64_t> big_;
    const uint64_t *data_;
    std::size_t count_;
};
}  // namespace detail

/* ---- CancelSource ------------------------------------------------------------ */

class CancelSource {
  public:
    CancelSource() noexcept : runtime_(nullptr), handle_(0) {}
    /* Adopts an existing source handle of `runtime`. */
    CancelSource(OnityRuntime *runtime, uint64_t handle) noexcept : runtime_(runtime), handle_(handle) {}
    ~CancelSource() { reset(); }
    CancelSource(CancelSource &&o) noexcept : runtime_(o.runtime_), handle_(o.handle_) {
        o.runtime_ = nullptr;
        o.handle_ = 0;
    }
    CancelSource &operator=(CancelSource &&o) noexcept {
        if (this != &o) {
            reset();
            runtime_ = o.runtime_;
            handle_ = o.handle_;
            o.runtime_ = nullptr;
            o.handle_ = 0;
        }
        return *this;
    }
    CancelSource(const CancelSource &) = delete;
    CancelSource &operator=(const CancelSource &) = delete;

    explicit operator bool() const noexcept { return handle_ != 0; }
    Token token() const noexcept { return Token(handle_); }
    uint64_t handle() const noexcept { return handle_; }

    /* Any thread. Canceling twice is fine. */
    Result<void> cancel() const noexcept { return detail::check(onity_cancel_source_cancel(runtime_, handle_)); }
    /* Any thread. */
    Result<bool> is_canceled() const noexcept {
        uint32_t c = 0;
        OnityStatus s = onity_cancel_source_is_canceled(runtime_, handle_, &c);
        if (s != ONITY_STATUS_OK) return detail::to_status(s);
        return c != 0;
    }
    /* Destroys the source now and reports the status (owner thread). */
    Result<void> destroy() noexcept {
        if (handle_ == 0) return Status::Ok;
        Result<void> r = detail::check(onity_cancel_source_destroy(runtime_, handle_));
        if (r) {
            runtime_ = nullptr;
            handle_ = 0;
        }
        return r;
    }
    /* Destroys the source, ignoring errors. */
    void reset() noexcept {
        if (handle_ != 0) onity_cancel_source_destroy(runtime_, handle_);
        runtime_ = nullptr;
        handle_ = 0;
    }
    /* Gives up ownership; returns the handle. */
    uint64_t release() noexcept {
        uint64_t h = handle_;
        runtime_ = nullptr;
        handle_ = 0;
        return h;
    }

  private:
    OnityRuntime *runtime_;
    uint64_t handle_;
};

/* ---- RuntimeRef / Runtime -------------------------------------------------------- */

class Runtime;

namespace detail {
/* Every operation of Runtime and RuntimeRef, over a pointer it neither owns
 * nor borrows: the two classes add ownership. It is not a type of its own
 * (construction, copy, assignment and destruction are protected), so an
 * owner cannot be viewed, assigned over, copied or deleted through it. */
class runtime_ops {
  public:
    OnityRuntime *raw() const noexcept { return raw_; }
    explicit operator bool() const noexcept { return raw_ != nullptr; }

    /* ---- frames ---- */

    Result<void> begin_frame(uint64_t frame, double delta_time, double unscaled_delta_time,
                             double realtime) noexcept {
        OnityFrameInfo fi = OnityFrameInfo();
        fi.size = static_cast<uint32_t>(sizeof fi);
        fi.frame = frame;
        fi.delta_time = delta_time;
        fi.unscaled_delta_time = unscaled_delta_time;
        fi.realtime = realtime;
        return detail::check(onity_runtime_frame_begin(raw_, &fi));
    }
    Result<void> tick(Timing t) noexcept { return detail::check(onity_runtime_tick(raw_, static_cast<uint32_t>(t))); }
    /* Ticks the 16 timings in order; stops at the first error. */
    Result<void> tick_all() noexcept {
        for (uint32_t t = 0; t < ONITY_TIMING_COUNT; t++) {
            OnityStatus s = onity_runtime_tick(raw_, t);
            if (s != ONITY_STATUS_OK) return detail::to_status(s);
        }
        return Status::Ok;
    }
    Result<void> drain() noexcept { return detail::check(onity_runtime_drain(raw_)); }
    Result<Stats> stats() const noexcept {
        Stats st;
        OnityStatus s = onity_runtime_stats(raw_, &st.raw());
        if (s != ONITY_STATUS_OK) return detail::to_status(s);
        return st;
    }
    Result<uint32_t> live_task_count() const noexcept {
        uint32_t n = 0;
        OnityStatus s = onity_runtime_live_tasks(raw_, nullptr, 0, &n);
        if (s != ONITY_STATUS_OK) return detail::to_status(s);
        return n;
    }

    /* ---- tasks ---- */

    Result<Task> create_task() noexcept {
        uint64_t h = 0;
        OnityStatus s = onity_task_create(raw_, &h);
        return task_out(s, h);
    }
    Result<void> set_result(Task t, uint64_t value) const noexcept {
        return detail::check(onity_task_set_result(raw_, t.handle(), value));
    }
    Result<void> set_error(Task t, int32_t error) const noexcept {
        return detail::check(onity_task_set_error(raw_, t.handle(), error));
    }
    Result<void> cancel(Task t) const noexcept { return detail::check(onity_task_cancel(raw_, t.handle())); }
    Result<TaskState> state(Task t) const noexcept {
        uint32_t st = 0;
        OnityStatus s = onity_task_state(raw_, t.handle(), &st);
        if (s != ONITY_STATUS_OK) return detail::to_status(s);
        return static_cast<TaskState>(st);
    }
    Result<Outcome> consume(Task t) noexcept {
        OnityOutcome o = OnityOutcome();
        OnityStatus s = onity_task_consume(raw_, t.handle(), &o);
        if (s != ONITY_STATUS_OK) return detail::to_status(s);
        return Outcome(o);
    }
    Result<void> on_complete(Task t, OnityCallback callback, void *user) noexcept {
        return detail::check(onity_task_on_complete(raw_, t.handle(), callback, user));
    }
    /* `fn(Task, TaskState)`; `fn` must outlive the call. */
    template <typename F>
    Result<void> on_complete(Task t, F &fn) noexcept {
        return on_complete(t, &detail::trampoline<F>, detail::user_of(fn));
    }

    /* ---- waits (task form) ---- */

    Result<Task> yield(Timing t, Token token = Token()) noexcept {
        uint64_t h = 0;
        OnityStatus s = onity_yield(raw_, static_cast<uint32_t>(t), token.handle(), &h);
        return task_out(s, h);
    }
    Result<Task> next_frame(Timing t, Token token = Token()) noexcept {
        uint64_t h = 0;
        OnityStatus s = onity_next_frame(raw_, static_cast<uint32_t>(t), token.handle(), &h);
        return task_out(s, h);
    }
    Result<Task> delay_frame(uint32_t frames, Timing t, Token token = Token()) noexcept {
        uint64_t h = 0;
        OnityStatus s = onity_delay_frame(raw_, frames, static_cast<uint32_t>(t), token.handle(), &h);
        return task_out(s, h);
    }
    Result<Task> delay(double seconds, Clock clock, Timing t, Token token = Token()) noexcept {
        uint64_t h = 0;
        OnityStatus s = onity_delay(raw_, seconds, static_cast<uint32_t>(clock), static_cast<uint32_t>(t),
                                    token.handle(), &h);
        return task_out(s, h);
    }

    /* ---- waits (callback form: nothing to consume; task is 0) ---- */

    Result<void> yield_then(Timing t, Token token, OnityCallback callback, void *user) noexcept {
        return detail::check(onity_yield_then(raw_, static_cast<uint32_t>(t), token.handle(), callback, user));
    }
    Result<void> next_frame_then(Timing t, Token token, OnityCallback callback, void *user) noexcept {
        return detail::check(onity_next_frame_then(raw_, static_cast<uint32_t>(t), token.handle(), callback, user));
    }
    Result<void> delay_frame_then(uint32_t frames, Timing t, Token token, OnityCallback callback,
                                  void *user) noexcept {
        return detail::check(
            onity_delay_frame_then(raw_, frames, static_cast<uint32_t>(t), token.handle(), callback, user));
    }
    Result<void> delay_then(double seconds, Clock clock, Timing t, Token token, OnityCallback callback,
                            void *user) noexcept {
        return detail::check(onity_delay_then(raw_, seconds, static_cast<uint32_t>(clock),
                                              static_cast<uint32_t>(t), token.handle(), callback, user));
    }
    template <typename F>
    Result<void> yield_then(Timing t, Token token, F &fn) noexcept {
        return yield_then(t, token, &detail::trampoline<F>, detail::user_of(fn));
    }
    template <typename F>
    Result<void> next_frame_then(Timing t, Token token, F &fn) noexcept {
        return next_frame_then(t, token, &detail::trampoline<F>, detail::user_of(fn));
    }
    template <typename F>
    Result<void> delay_frame_then(uint32_t frames, Timing t, Token token, F &fn) noexcept {
        return delay_frame_then(frames, t, token, &detail::trampoline<F>, detail::user_of(fn));
    }
    template <typename F>
    Result<void> delay_then(double seconds, Clock clock, Timing t, Token token, F &fn) noexcept {
        return delay_then(seconds, clock, t, token, &detail::trampoline<F>, detail::user_of(fn));
    }

    /* ---- combinators (they take ownership of their inputs) ---- */

    Result<Task> when_any(const Task *tasks, std::size_t count, Token token = Token()) {
        detail::Handles in(tasks, count);
        uint64_t h = 0;
        OnityStatus s = onity_when_any(raw_, in.data(), in.count(), token.handle(), &h);
        return task_out(s, h);
    }
    Result<Task> when_any(std::initializer_list<Task> tasks, Token token = Token()) {
        return when_any(tasks.begin(), tasks.size(), token);
    }
    Result<Task> when_all(const Task *tasks, std::size_t count, Token token = Token()) {
        detail::Handles in(tasks, count);
        uint64_t h = 0;
        OnityStatus s = onity_when_all(raw_, in.data(), in.count(), token.handle(), &h);
        return task_out(s, h);
    }
    Result<Task> when_all(std::initializer_list<Task> tasks, Token token = Token()) {
        return when_all(tasks.begin(), tasks.size(), token);
    }
    /* Per-input outcomes of a completed WhenAll (call before consuming it). */
    Result<std::vector<Outcome> > when_all_results(Task t, uint32_t count) const {
        std::vector<OnityOutcome> raw(count == 0 ? 1 : count);
        OnityStatus s = onity_when_all_results(raw_, t.handle(), raw.data(), count);
        if (s != ONITY_STATUS_OK) return detail::to_status(s);
        std::vector<Outcome> out;
        out.reserve(count);
        for (uint32_t i = 0; i < count; i++) out.push_back(Outcome(raw[i]));
        return out;
    }

    /* ---- cancellation ---- */

    Result<CancelSource> create_cancel_source() noexcept {
        uint64_t h = 0;
        OnityStatus s = onity_cancel_source_create(raw_, &h);
        if (s != ONITY_STATUS_OK) return detail::to_status(s);
        return CancelSource(raw_, h);
    }

  protected:
    runtime_ops() noexcept : raw_(nullptr) {}
    explicit runtime_ops(OnityRuntime *raw) noexcept : raw_(raw) {}
    runtime_ops(const runtime_ops &) = default;
    runtime_ops &operator=(const runtime_ops &) = default;
    ~runtime_ops() = default;

    static Result<Task> task_out(OnityStatus s, uint64_t h) noexcept {
        if (s != ONITY_STATUS_OK) return detail::to_status(s);
        return Task(h);
    }

    OnityRuntime *raw_;
};
}  // namespace detail

/* A runtime's operations over a pointer it does not own: copyable, destroys
 * nothing. Runtime::borrow(raw) (or RuntimeRef(raw)) wraps a runtime
 * another plugin or the C# binding created; an lvalue owning Runtime
 * converts to it (a copy of the pointer), so functions taking a RuntimeRef
 * (by value or const reference) take both. The owner keeps the runtime alive
 * while any RuntimeRef to it is used; moving the owner does not invalidate
 * its views (they hold the runtime, not the Runtime), destroying the runtime
 * does (later calls return InvalidRuntime, onity.h).
 *
 * A Runtime is NOT a RuntimeRef (no common public base): a `RuntimeRef &` or
 * `RuntimeRef *` cannot designate an owner, so no view can be assigned over
 * an owner (which would then destroy a runtime it does not own) and no owner
 * is deleted through a view pointer. Refused at compile time, with a view of
 * a temporary or expiring owner (tests/cpp_compile_fail). */
class RuntimeRef : public detail::runtime_ops {
  public:
    RuntimeRef() noexcept {}
    /* Borrows `raw` (may be null: every call then returns NullPointer). */
    explicit RuntimeRef(OnityRuntime *raw) noexcept : runtime_ops(raw) {}
    /* A view of an owner (implicit: a Runtime passes where a RuntimeRef is
     * taken). Defined after Runtime. */
    RuntimeRef(const Runtime &owner) noexcept;  // NOLINT: implicit on purpose
    /* Not from a temporary or expiring owner: it destroys the runtime at the
     * end of the statement (or when moved from), leaving the view dangling. */
    RuntimeRef(const Runtime &&) = delete;
    RuntimeRef &operator=(const Runtime &&) = delete;
    RuntimeRef(const RuntimeRef &) = default;
    RuntimeRef &operator=(const RuntimeRef &) = default;
};

/* Owns its runtime: destroys it in its destructor (see the top of this
 * file). Move-only; every operation is RuntimeRef's (the shared
 * detail::runtime_ops), but it is not a RuntimeRef: see RuntimeRef. */
class Runtime : public detail::runtime_ops {
  public:
    Runtime() noexcept {}
    /* Adopts a runtime created with onity_runtime_create (destroys it). To
     * use one you do not own, borrow it instead. */
    explicit Runtime(OnityRuntime *raw) noexcept : runtime_ops(raw) {}
    ~Runtime() { reset(); }
    Runtime(Runtime &&o) noexcept : runtime_ops(o.raw_) { o.raw_ = nullptr; }
    Runtime &operator=(Runtime &&o) noexcept {
        if (this != &o) {
            reset();
            raw_ = o.raw_;
            o.raw_ = nullptr;
        }
        return *this;
    }
    Runtime(const Runtime &) = delete;
    Runtime &operator=(const Runtime &) = delete;

    /* A runtime owned by the calling thread, with the default or a given config. */
    static Result<Runtime> create() noexcept { return create_raw(nullptr); }
    static Result<Runtime> create(const Config &config) noexcept { return create_raw(&config.raw()); }
    /* A non-owning view of a runtime someone else created and destroys. */
    static RuntimeRef borrow(OnityRuntime *raw) noexcept { return RuntimeRef(raw); }

    /* Destroys the runtime now and reports the status; on error it stays owned. */
    Result<void> destroy() noexcept {
        if (!raw_) return Status::Ok;
        Result<void> r = detail::check(onity_runtime_destroy(raw_));
        if (r) raw_ = nullptr;
        return r;
    }
    /* Destroys the runtime; if that fails (wrong thread, inside a tick) the
     * runtime is leaked rather than left half-owned. */
    void reset() noexcept {
        if (raw_) onity_runtime_destroy(raw_);
        raw_ = nullptr;
    }
    /* Gives up ownership. */
    OnityRuntime *release() noexcept {
        OnityRuntime *r = raw_;
        raw_ = nullptr;
        return r;
    }

  private:
    static Result<Runtime> create_raw(const OnityRuntimeConfig *config) noexcept {
        OnityRuntime *r = nullptr;
        OnityStatus s = onity_runtime_create(config, &r);
        if (s != ONITY_STATUS_OK) return detail::to_status(s);
        return Runtime(r);
    }
};

inline RuntimeRef::RuntimeRef(const Runtime &owner) noexcept : runtime_ops(owner.raw()) {}

}  // namespace onity

#endif /* ONITY_HPP */
