/*
 * onity/coro/sched.hpp: how the layer moves coroutines on (part of
 * onity/coro.hpp; include that): steps (chains of coroutines resumed,
 * finished or canceled without recursion), requesting a cancellation, and the
 * owner's inbox with its bell (coroutines handed over from other threads).
 * Owner thread unless a comment says otherwise.
 */
#ifndef ONITY_CORO_SCHED_HPP
#define ONITY_CORO_SCHED_HPP

#include "core.hpp"

namespace onity {
namespace detail {

/* ---- steps: chains of coroutines without recursion -------------------------
 * A coroutine's completion resumes or finishes the coroutine awaiting it, and
 * that one's completion the next; a cancellation is passed down to what a
 * coroutine awaits. Along a chain of N coroutines awaiting each other that
 * would nest N deep on the stack (10,000 levels overflow a 1 MiB stack).
 * proceed() runs a step at once up to max_nesting steps deep on the thread
 * and queues deeper ones (FIFO) for the outermost step, which runs them
 * before it returns: the stack stays bounded, and whoever called into the
 * layer (a tick, cancel(), a native completion) finds everything done when
 * its call returns. Owner thread; one queue per thread, reached through a
 * volatile function pointer like the current runtime (see this_thread()). */
inline constexpr uint32_t max_nesting = 16;
enum : uint8_t { step_resume = 1, step_finish, step_cancel };
struct step_queue {
    uint32_t depth = 0;
    cell *head = nullptr;
    cell *tail = nullptr;
};
inline thread_local step_queue tls_steps;
inline step_queue &tls_steps_slot() noexcept { return tls_steps; }
inline step_queue &(*volatile g_steps_slot)() noexcept = &tls_steps_slot;

inline void perform(cell *c, uint8_t step, uint8_t state, int32_t error) noexcept {
    if (step == step_cancel) {
        cancel_now(c);
    } else if (c->frame_alive && c->state == ONITY_TASK_STATE_PENDING && c->wait == wait_none) {
        if (step == step_resume)
            frame_of(c).resume();
        else
            finish(c, state, error);
    }
}

inline void run_steps(step_queue &q) noexcept {
    q.depth++;
    while (cell *c = q.head) {
        q.head = c->step_next;
        if (!q.head) q.tail = nullptr;
        const uint8_t step = c->step;
        c->step = 0;
        perform(c, step, c->step_state, c->step_error);
        unref(c);  // the queue's pin
    }
    q.depth--;
}

/* Resumes `c` (step_resume), finishes it with state / error (step_finish)
 * or acts on its cancellation (step_cancel): now, or queued when the thread
 * is max_nesting steps deep. A queued cell is pinned; a step that arrives
 * while its cancellation is queued replaces that (it sees the request). */
inline void proceed(cell *c, uint8_t step, uint8_t state, int32_t error) noexcept {
    step_queue &q = g_steps_slot();
    if (q.depth >= max_nesting) {
        if (c->step) {
            if (step == step_cancel) return;
        } else {
            c->refs++;
            c->step_next = nullptr;
            if (q.tail)
                q.tail->step_next = c;
            else
                q.head = c;
            q.tail = c;
        }
        c->step = step;
        c->step_state = state;
        c->step_error = error;
        return;
    }
    q.depth++;
    perform(c, step, state, error);
    if (--q.depth == 0 && q.head) run_steps(q);
}

/* Requests the cancellation of a coroutine (owner thread): it finishes
 * canceled now if suspended in a native wait, the request is passed on to the
 * coroutines it awaits, and otherwise (running, in a foreign awaiter, queued
 * for the owner, inside a cancel_guard) it finishes at its next Onity await.
 * No effect once it has finished. */
inline void request_cancel(cell *c) noexcept {
    if (!c || c->state != ONITY_TASK_STATE_PENDING) return;
    if (c->cancel_word.fetch_or(cancel_requested_bit) != 0) return;  // guarded, or again
    sync_wait_token(c);
    if (in_native_wait(c->wait))
        finish(c, ONITY_TASK_STATE_CANCELED, 0);  // at once, at any depth (what it wakes is a step)
    else if (c->wait == wait_nested)
        proceed(c, step_cancel, 0, 0);  // passed down a chain: a step per level
}

/* The coroutine's token is canceled (outside guards). One C call, made only
 * by awaits that have no native wait to carry the token (task<>s and the
 * combinators over them), when they suspend and when they resume. */
inline bool token_canceled(const cell *c) noexcept {
    const uint64_t w = c->wait_token.load(std::memory_order_relaxed);
    if (w == cancel_due_token) return true;
    if (!w || !c->owner || !c->owner->rt) return false;
    uint32_t v = 0;
    return onity_cancel_source_is_canceled(c->owner->rt, c->token, &v) == ONITY_STATUS_OK && v != 0;
}

/* On the thread that owns the coroutine's runtime (true without one). */
inline bool on_owner(const cell *c) noexcept { return !c->owner || c->owner->on_owner(); }

/* ---- the owner's inbox (any thread) -------------------------------------- */

/* Queues `c` for the owner and rings the bell (a manual task whose
 * continuation drains the inbox at the owner's next tick or drain). After
 * this, the caller must not touch `c`. Once the runtime is gone (no bell,
 * for good) the owner drains the inbox when the layer detaches, and may free
 * `k` then: nothing here touches `k` after the push in that case. */
inline void push_to_owner(core *k, cell *c, uint8_t mode) noexcept {
    c->qmode = mode;
    const bool ring = k->bell.load(std::memory_order_acquire) != 0;
    cell *head = k->inbox.load(std::memory_order_relaxed);
    do {
        c->qnext.store(head, std::memory_order_relaxed);
    } while (!k->inbox.compare_exchange_weak(head, c, std::memory_order_release, std::memory_order_relaxed));
    if (!ring) return;
    if (!k->rung.exchange(true, std::memory_order_acq_rel)) {
        const uint64_t b = k->bell.load(std::memory_order_acquire);
        if (b) onity_task_set_result(k->rt_any, b, 0);
    }
}

inline void drain_inbox(core *k, bool closing) noexcept {
    cell *list = k->inbox.exchange(nullptr, std::memory_order_acquire);
    cell *fifo = nullptr;
    while (list) {
        cell *next = list->qnext.load(std::memory_order_relaxed);
        list->qnext.store(fifo, std::memory_order_relaxed);
        fifo = list;
        list = next;
    }
    while (fifo) {
        cell *c = fifo;
        fifo = c->qnext.load(std::memory_order_relaxed);
        const uint8_t mode = c->qmode;
        c->qmode = 0;
        if (mode == q_complete) {
            complete_at_final(c);
        } else if (mode == q_fault) {
            c->wait = wait_none;
            finish(c, ONITY_TASK_STATE_FAULTED, c->error);
        } else if (mode == q_cancel) {
            c->wait = wait_none;
            finish(c, ONITY_TASK_STATE_CANCELED, 0);
        } else {
            c->wait = wait_none;
            if (closing || cancel_pending(c))
                finish(c, ONITY_TASK_STATE_CANCELED, 0);
            else
                frame_of(c).resume();
        }
    }
}

/* Ends a coroutine at an await, for good: finished here on the owner, or
 * handed to the owner from another thread. Returns true (what await_suspend
 * returns then). */
inline bool end_here(cell *c, uint8_t state, int32_t error) noexcept {
    if (on_owner(c)) {
        finish(c, state, error);
        return true;
    }
    c->error = error;
    push_to_owner(c->owner, c, state == ONITY_TASK_STATE_CANCELED ? q_cancel : q_fault);
    return true;
}

inline OnityStatus arm_bell(core *k) noexcept {
    uint64_t b = 0;
    OnityStatus s = onity_task_create(k->rt, &b);
    if (s != ONITY_STATUS_OK) return s;
    s = onity_task_on_complete(k->rt, b, &on_bell, k);
    if (s != ONITY_STATUS_OK) {
        onity_task_cancel(k->rt, b);
        onity_task_consume(k->rt, b, nullptr);
        return s;
    }
    k->bell.store(b, std::memory_order_release);
    return ONITY_STATUS_OK;
}

/* The bell's continuation (owner thread): re-arms it, then runs the inbox.
 * Canceled, or rung while the runtime is being destroyed (it cannot be
 * re-armed then), means the runtime is going away (or the layer detached):
 * what is queued finishes canceled and the runtime is forgotten. */
inline void on_bell(void *user, uint64_t task, uint32_t state) noexcept {
    core *k = static_cast<core *>(user);
    onity_task_consume(k->rt, task, nullptr);
    const OnityStatus s = state == ONITY_TASK_STATE_SUCCEEDED ? arm_bell(k) : ONITY_STATUS_REENTRANT;
    if (s == ONITY_STATUS_OK) {
        k->rung.store(false, std::memory_order_release);
        drain_inbox(k, false);
        return;
    }
    // No bell any more: workers stop ringing (rung stays set).
    k->bell.store(0, std::memory_order_release);
    k->rung.store(true, std::memory_order_release);
    if (s != ONITY_STATUS_REENTRANT) {
        report_misuse(static_cast<Status>(s), "re-arming the coroutines' cross-thread bell (switch_to_owner stops)");
        drain_inbox(k, false);
        return;
    }
    drain_inbox(k, true);
    k->closed = true;
    k->rt = nullptr;
    maybe_retire(k);  // last
}

}  // namespace detail
}  // namespace onity

#endif /* ONITY_CORO_SCHED_HPP */
