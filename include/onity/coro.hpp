/*
 * onity/coro.hpp: C++20 coroutines on the Onity runtime (header-only, over
 * onity.h / onity.hpp). Needs -std=c++20; works with and without exceptions,
 * also mixed in one program (a coroutine built without exceptions must not
 * await one that throws; an until / while_ predicate type shared by both
 * kinds of translation units must not throw).
 *
 *     onity::coro_runtime co = onity::coro_runtime::attach(rt.raw()).unwrap();
 *
 *     onity::task<int> enemy(onity::Token life) {      // the Token parameter is the coroutine's token
 *         co_await onity::next_frame();                 // Update of the next frame
 *         co_await onity::delay(1.5);                   // scaled clock, Update
 *         co_await onity::until([&] { return hp <= 0; });
 *         co_return 7;
 *     }
 *     enemy(src.token()).forget();                      // or co_await it, or .native() for C / C#
 *
 * What it is
 * - onity::task<T> / task<>: the coroutine type. Eager (runs to its first
 *   suspension at the call), awaitable once, forget(), cancel(), and
 *   native() / complete_into() to hand its outcome to a native task handle
 *   (C code, onity_when_any / _when_all, the C# binding). Its outcome is the
 *   runtime's: Succeeded (value), Faulted (error code) or Canceled.
 * - Awaitables (each maps to the C wait of the same name, frame for frame):
 *   next_frame, yield, delay_frame, delay (3 clocks), until / while_ (checked
 *   at each run of the timing, from the next one on, without resuming the
 *   coroutine), a native task handle (co_await onity::Task), when_any /
 *   when_all (task<>s: variadic or a span / vector; native handles:
 *   onity_when_any / _when_all), race, switch_to_owner, this_coroutine::*.
 *   try_await(x) gives a task_result (state, error, value, index) instead of
 *   propagating a failure.
 *
 * Failures propagate without exceptions: when an awaited task<> or handle
 * faults or is canceled, the awaiting coroutine finishes the same way at that
 * await (its locals are destroyed; nothing after the await runs). With
 * exceptions enabled, an exception escaping a coroutine faults it with
 * error_exception and is rethrown where it is awaited.
 *
 * Cancellation
 * - The token is the runtime's cancel source (onity::CancelSource::token()):
 *   the coroutine's (its first onity::Token parameter, even an empty one;
 *   it may be unnamed) or an await's own (next_frame(t, tok), ...; it
 *   replaces the coroutine's for that await). A canceled token ends the pending wait as the C rules say
 *   (at the next run of its timing; awaits of handles: at the owner's next
 *   tick or drain) and the coroutine finishes canceled there. Awaits of
 *   task<>s and of combinators over them check the token (one C call) when
 *   they start (also of one already complete) and when what they await
 *   completes.
 * - task<>::cancel() finishes a coroutine suspended in a runtime wait at once,
 *   is passed on to the task<>s it awaits, and otherwise takes effect at the
 *   coroutine's next Onity await. Its pending wait: delay_frame, delay,
 *   until / while_ are retired (onity_wait_retire: a far wait's record leaves
 *   the runtime at once, a near one at its timing's next run, and no block is
 *   kept); yield and next_frame, and awaits of a native handle, stay in the
 *   runtime and keep the coroutine's pool block until they would have ended
 *   (two runs of the timing at most; a handle: until it completes);
 *   coro_stats::ghost_waits counts those.
 * - this_coroutine::canceled() (bool), finish_if_canceled(), cancel(),
 *   fail(code), token(), defer_cancellation() (a cancel_guard: cancellation
 *   waits until the last guard is gone; waits made under a guard carry no
 *   token).
 * - Destroying the runtime finishes every suspended coroutine canceled, runs
 *   each continuation once, and returns every frame (valgrind-checked); a
 *   coroutine started afterwards ends canceled at its first wait; one that a
 *   worker thread hands over afterwards (a misused await there, or its end)
 *   is finished when the coro_runtime detaches.
 *
 * Threads and lifetimes
 * - coro_runtime::attach(rt) on the runtime's owner thread makes it that
 *   thread's current runtime; a coroutine binds to the current one when it
 *   starts (its frame comes from that runtime's pool) and keeps it. A thread
 *   driving two runtimes makes each current around its ticks
 *   (coro_runtime::scope, which restores the previous one, or none if that
 *   was detached meanwhile).
 *   Coroutines are started, awaited, canceled and destroyed on the owner
 *   thread; their waits resume them there. A coroutine resumed on another
 *   thread (by your own awaiter) may only co_await switch_to_owner() there;
 *   if it finishes there, its completion is handed to the owner.
 * - A task<> is a move-only handle; destroying it lets the coroutine run on
 *   detached. Combinators taking task<>s by value own them; those taking a
 *   span leave them to you (keep the span alive while awaiting).
 * - Native handles follow the C rules: awaiting one consumes it.
 * - A chain of coroutines awaiting each other completes, fails and is
 *   canceled without a stack frame per level: at most 16 continuations nest
 *   on a thread, the rest run in order from the outermost before it returns
 *   (starting a chain recursively still nests, as any recursive function).
 * - Awaiters referring to locals (until's predicate) run while the coroutine
 *   is suspended, in the runtime's tick.
 * - Awaitables are meant to be awaited in the expression that makes them
 *   (`co_await next_frame()`); the span forms refer to the caller's tasks.
 * - A coroutine body may change threads at a co_await: the layer reads the
 *   thread id and its thread_local state through opaque calls, since
 *   compilers may reuse a thread id or thread_local address from before a
 *   suspension (do the same in coroutines that hop threads).
 *
 * Misuse (starting without a current runtime, an await off the owner thread,
 * awaiting a task<> of a runtime another thread owns, awaiting a task<> twice
 * or from its own coroutine, an empty, stale, foreign or busy handle, bad
 * arguments, destroying or canceling a task<> off the owner thread) calls the
 * misuse handler (set_misuse_handler; default: print, and abort unless
 * NDEBUG), and the coroutine finishes faulted with status_error(status) at
 * that await (try_await returns that outcome instead), never undefined
 * behaviour. What stays the caller's, as in C: the runtime pointer is valid
 * until onity_runtime_destroy returns, other threads stop completing its
 * tasks (and switching to it) before that, and a coroutine frame is not
 * destroyed by hand (coroutine_handle::destroy) behind the layer's back.
 *
 * Costs: one C call per frame wait (the callback form), none per resume; a
 * frame from the runtime's pool (no heap allocation after warm-up); no
 * std::function anywhere. coro_runtime::stats() reports the frame pool (per
 * size class, and oversize frames) with the runtime's own OnityStats taken
 * in the same call (coro_stats::runtime). Every frame is 128-byte aligned (locals up to
 * alignas(128) may live across a co_await; C++20 compilers do not tell
 * operator new a frame's alignment, so more than that is not supported).
 */
#ifndef ONITY_CORO_HPP
#define ONITY_CORO_HPP

#include "coro/core.hpp"
#include "coro/sched.hpp"
#include "coro/task.hpp"
#include "coro/runtime.hpp"
#include "coro/waits.hpp"
#include "coro/this_coroutine.hpp"
#include "coro/combinators.hpp"

#endif /* ONITY_CORO_HPP */
