/*
 * onity/coro/runtime.hpp: coro_runtime (attaches the layer to a runtime and
 * makes it the thread's current one), coro_stats, current_runtime() and the
 * misuse / unobserved handlers. Part of onity/coro.hpp; include that.
 */
#ifndef ONITY_CORO_RUNTIME_HPP
#define ONITY_CORO_RUNTIME_HPP

#include "sched.hpp"

namespace onity {

/* ---- coro_runtime and statistics ------------------------------------------ */

/* The coroutine layer's counters for one runtime (coro_runtime::stats), with
 * the runtime's own snapshot beside them (`runtime`: onity_runtime_stats,
 * taken in the same call), so one call reports every pool a coroutine uses:
 * its frame block here, its native waits and tasks there. The frame pool
 * lives in the header's code, not in the library, so the runtime's
 * OnityStats (the C ABI, which C# reads too) does not list it. The
 * frame pool is per runtime, like the runtime's own pools: frames are only
 * allocated, destroyed and returned on its owner thread (a coroutine that
 * finishes on a worker is completed on the owner), so it needs no lock and no
 * atomic operation. Each class is an OnityPoolStats: capacity = blocks in
 * chunks, cold_allocations = chunk allocations; the oversize entry counts
 * frames larger than the largest class (each one a global operator new:
 * cold_allocations = rents, discards = returns). */
struct coro_stats {
    static constexpr uint32_t class_count = detail::frame_pool::class_count;
    uint64_t class_block_bytes[class_count] = {};
    OnityPoolStats classes[class_count] = {};
    OnityPoolStats oversize = {};
    /* Coroutines whose frame exists (running or suspended, or finished and
     * kept for a task<> that holds them). */
    uint64_t live_frames = 0;
    /* Blocks not back in the pool: live frames, finished coroutines whose
     * task<> still holds the outcome, coroutines canceled while a native
     * wait was pending (until the runtime calls it back). */
    uint64_t live_blocks = 0;
    /* Of those, native waits of coroutines already finished. */
    uint64_t ghost_waits = 0;
    uint64_t started = 0, succeeded = 0, faulted = 0, canceled = 0;
    /* The runtime is still alive (not destroyed). */
    bool runtime_alive = false;
    /* The runtime's statistics (every native pool, the waits per kind),
     * when `has_runtime` (alive, and asked on its owner thread). */
    Stats runtime;
    bool has_runtime = false;

    /* All classes and the oversize class summed (capacity, idle, live, rents,
     * returns, cold allocations, discards; high_water is the largest of
     * any). */
    OnityPoolStats total() const noexcept {
        OnityPoolStats t = oversize;
        for (const OnityPoolStats &s : classes) {
            t.capacity += s.capacity;
            t.idle += s.idle;
            t.live += s.live;
            t.high_water = t.high_water > s.high_water ? t.high_water : s.high_water;
            t.rents += s.rents;
            t.returns += s.returns;
            t.cold_allocations += s.cold_allocations;
            t.discards += s.discards;
        }
        return t;
    }
};

/*
 * Attaches the coroutine layer to a runtime and makes it the calling thread's
 * current one: coroutines started on this thread take their frames from its
 * pool and await on its runtime (bound at the start: a coroutine keeps its
 * runtime even if another becomes current). Owner thread only. Not an owner
 * of the runtime: destroy the runtime as usual (every suspended coroutine
 * then finishes canceled). The layer's state outlives this object while
 * coroutines or their task<>s still exist, and until the runtime is destroyed
 * if any did at detach. One manual task of the runtime stays live while
 * attached (the bell that wakes the owner for switch_to_owner()).
 */
class coro_runtime {
  public:
    coro_runtime() noexcept = default;
    coro_runtime(coro_runtime &&o) noexcept : k_(std::exchange(o.k_, nullptr)) {}
    coro_runtime &operator=(coro_runtime &&o) noexcept {
        if (this != &o) {
            detach();
            k_ = std::exchange(o.k_, nullptr);
        }
        return *this;
    }
    coro_runtime(const coro_runtime &) = delete;
    coro_runtime &operator=(const coro_runtime &) = delete;
    ~coro_runtime() { detach(); }

    /* Errors: NullPointer, InvalidRuntime, WrongThread (not the owner),
     * Reentrant (being destroyed), Exhausted, OutOfMemory. */
    static Result<coro_runtime> attach(OnityRuntime *rt) noexcept {
        if (!rt) return Status::NullPointer;
        detail::core *k = new (std::nothrow) detail::core(rt);
        if (!k) return Status::OutOfMemory;
        uint64_t b = 0;
        OnityStatus s = onity_task_create(rt, &b);
        if (s == ONITY_STATUS_OK) s = onity_task_on_complete(rt, b, &detail::on_bell, k);
        if (s != ONITY_STATUS_OK) {
            if (b) {
                onity_task_cancel(rt, b);
                onity_task_consume(rt, b, nullptr);
            }
            delete k;
            return detail::to_status(s);
        }
        k->bell.store(b, std::memory_order_release);
        k->prev_current = detail::current_core();
        detail::pin(k->prev_current);
        detail::current_core() = k;
        coro_runtime r;
        r.k_ = k;
        return r;
    }
    /* An owning onity::Runtime or a borrowed RuntimeRef (another plugin's
     * runtime, C#'s NativeRuntime): the layer never destroys it. */
    static Result<coro_runtime> attach(const RuntimeRef &rt) noexcept { return attach(rt.raw()); }
    /* Not a temporary owner: it destroys the runtime at the end of the
     * statement, leaving the layer on a freed runtime. */
    static Result<coro_runtime> attach(const Runtime &&) = delete;

    explicit operator bool() const noexcept { return k_ != nullptr; }
    /* The runtime (null once destroyed). */
    OnityRuntime *raw() const noexcept { return k_ ? k_->rt : nullptr; }
    bool runtime_alive() const noexcept { return k_ && k_->rt; }
    bool is_current() const noexcept { return k_ && detail::current_core() == k_; }

    /* Makes this the calling thread's current runtime (owner thread); a
     * scope restores the previous one. */
    class scope {
      public:
        explicit scope(const coro_runtime &r) noexcept : prev_(detail::current_core()), set_(r.k_) {
            if (set_ && !set_->on_owner()) {
                detail::report_misuse(Status::WrongThread, "coro_runtime::scope off the runtime's owner thread");
                active_ = false;
                return;
            }
            // Both stay alive while the scope is open, even if detached meanwhile.
            detail::pin(prev_);
            detail::pin(set_);
            detail::current_core() = set_;
        }
        ~scope() {
            if (!active_) return;
            detail::current_core() = detail::restorable(prev_);
            detail::unpin(set_);
            detail::unpin(prev_);
        }
        scope(const scope &) = delete;
        scope &operator=(const scope &) = delete;

      private:
        detail::core *prev_;
        detail::core *set_;
        bool active_ = true;
    };

    coro_stats stats() const noexcept {
        coro_stats st;
        if (!k_) return st;
        for (uint32_t i = 0; i < coro_stats::class_count; i++) {
            st.class_block_bytes[i] = detail::frame_pool::block_bytes(i);
            st.classes[i] = k_->pool.stats(i);
        }
        st.oversize = k_->pool.stats(coro_stats::class_count);
        st.live_frames = k_->live_frames;
        st.live_blocks = k_->live_blocks;
        st.ghost_waits = k_->ghosts;
        st.started = k_->started;
        st.succeeded = k_->succeeded;
        st.faulted = k_->faulted;
        st.canceled = k_->canceled;
        st.runtime_alive = k_->rt != nullptr;
        st.has_runtime = st.runtime_alive && onity_runtime_stats(k_->rt, &st.runtime.raw()) == ONITY_STATUS_OK;
        return st;
    }

    /* Detaches now (as the destructor). Owner thread. */
    void detach() noexcept {
        detail::core *k = std::exchange(k_, nullptr);
        if (!k) return;
        if (!k->on_owner()) {
            detail::report_misuse(Status::WrongThread, "detaching a coro_runtime off the owner thread (leaked)");
            return;
        }
        detail::core *prev = std::exchange(k->prev_current, nullptr);
        if (detail::current_core() == k) detail::current_core() = detail::restorable(prev);
        detail::unpin(prev);
        k->attached = false;
        const uint64_t b = k->bell.load(std::memory_order_acquire);
        if (!k->closed && k->live_blocks == 0 && b) {
            // Nothing left to wake: cancel the bell; its continuation (run
            // now) closes and frees the state. Last use of k.
            onity_task_cancel(k->rt, b);
            return;
        }
        // Runtime gone: coroutines handed over by other threads since (a
        // misused await, or one finishing there) are finished here.
        if (k->closed) {
            detail::pin(k);  // the drain may return the last block
            detail::drain_inbox(k, true);
            detail::unpin(k);  // last use of k
            return;
        }
        detail::maybe_retire(k);
    }

  private:
    detail::core *k_ = nullptr;
};

/* The calling thread's current runtime (null if none, or destroyed). */
inline OnityRuntime *current_runtime() noexcept {
    detail::core *k = detail::current_core();
    return k ? k->rt : nullptr;
}

inline misuse_handler set_misuse_handler(misuse_handler h) noexcept {
    return detail::g_misuse.exchange(h, std::memory_order_acq_rel);
}
inline unobserved_handler set_unobserved_handler(unobserved_handler h) noexcept {
    return detail::g_unobserved.exchange(h, std::memory_order_acq_rel);
}

}  // namespace onity

#endif /* ONITY_CORO_RUNTIME_HPP */
