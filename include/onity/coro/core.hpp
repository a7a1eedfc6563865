/*
 * onity/coro/core.hpp: the machinery under onity::task (part of onity/coro.hpp;
 * include that). The per-runtime state (`detail::core`: frame pool, counters,
 * the cross-thread inbox), the per-coroutine cell that sits in front of every
 * frame, and the few primitives every awaiter uses (finish a coroutine at an
 * await, complete it at its end, request its cancellation). Owner thread
 * unless a comment says otherwise.
 */
#ifndef ONITY_CORO_CORE_HPP
#define ONITY_CORO_CORE_HPP

#if !defined(__cpp_impl_coroutine) || __cplusplus < 202002L
#error "onity/coro.hpp needs C++20 coroutines (-std=c++20)"
#endif

#include <atomic>
#include <bit>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>
#include <type_traits>
#include <utility>

#include "../../onity.hpp"

/* Exceptions on or off changes no type's layout and no inline function of the
 * layer but until's predicate check (a program may mix translation units
 * built both ways, as engines mix modules): std::exception_ptr is there
 * either way. */
#include <exception>
#if defined(__cpp_exceptions)
#define ONITY_CORO_EXCEPTIONS 1
#else
#define ONITY_CORO_EXCEPTIONS 0
#endif

/* Pooled blocks are poisoned while free, so a use after a coroutine's block
 * went back to the pool is caught: under AddressSanitizer always, under
 * valgrind when ONITY_CORO_VALGRIND is defined (needs valgrind/memcheck.h). */
#if defined(__SANITIZE_ADDRESS__)
#define ONITY_CORO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ONITY_CORO_ASAN 1
#endif
#endif
#if defined(ONITY_CORO_ASAN)
#include <sanitizer/asan_interface.h>
#define ONITY_CORO_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ONITY_CORO_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#elif defined(ONITY_CORO_VALGRIND) && __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define ONITY_CORO_POISON(p, n) VALGRIND_MAKE_MEM_NOACCESS((p), (n))
#define ONITY_CORO_UNPOISON(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#else
#define ONITY_CORO_POISON(p, n) ((void)(p), (void)(n))
#define ONITY_CORO_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* The hot path (a frame wait's await_suspend) is forced inline into the
 * coroutine's body. */
#if defined(__GNUC__) || defined(__clang__)
#define ONITY_CORO_HOT __attribute__((always_inline))
#else
#define ONITY_CORO_HOT
#endif

namespace onity {

/* Error code of a coroutine that an exception escaped (the outcome is FAULTED
 * with this code; awaiting the task in C++ rethrows the exception). */
inline constexpr int32_t error_exception = -1000;

/* Error code of a coroutine finished faulted by a misused await: the negated
 * status (-5 = WRONG_THREAD, -3 = STALE_HANDLE, ...). User codes should be
 * positive. */
constexpr int32_t status_error(Status s) noexcept { return -static_cast<int32_t>(s); }

/* Called on misuse (no runtime, wrong thread, awaiting twice, a stale handle,
 * ...) with the status and what was attempted. The default prints one line to
 * stderr and, unless NDEBUG is defined, aborts. Any thread may call it. */
using misuse_handler = void (*)(Status status, const char *what) noexcept;
/* Called when a coroutine nobody observes (forgotten, its task<> destroyed,
 * not bound to a native task) finishes faulted, or when a task<> holding a
 * faulted coroutine whose state() / error() nobody read lets go of it
 * (forget(), reset(), destructor). Owner thread. */
using unobserved_handler = void (*)(TaskState state, int32_t error) noexcept;

namespace detail {

inline std::atomic<misuse_handler> g_misuse{nullptr};
inline std::atomic<unobserved_handler> g_unobserved{nullptr};

inline void report_misuse(Status s, const char *what) noexcept {
    misuse_handler h = g_misuse.load(std::memory_order_acquire);
    if (h) {
        h(s, what);
        return;
    }
    std::fprintf(stderr, "onity coroutines: %s: %s (status %u)\n", what, status_text(s), static_cast<unsigned>(s));
#ifndef NDEBUG
    std::abort();
#endif
}

[[noreturn]] inline void fatal(const char *what) noexcept {
    std::fprintf(stderr, "onity coroutines: fatal: %s\n", what);
    std::abort();
}

struct core;
struct cell;

/* Told when a coroutine finishes (owner thread); resumes or finishes the
 * awaiting coroutine through proceed(). `target` and `index` are what the
 * awaiter registered. */
using cont_fn = void (*)(void *target, cell *child, uint32_t index) noexcept;

/* Where a coroutine is suspended (cell::wait). */
enum : uint8_t {
    wait_none = 0,  // running, or suspended in an awaiter that is not Onity's
    wait_native,    // a native callback with user = the cell is pending
    wait_nested,    // awaiting task<>s (cell::awaiting is a `nested`)
    wait_queued,    // in the owner's inbox
    wait_final,     // finished, frame kept for the task<> that holds it
    wait_initial,   // never started (no runtime): frame kept for the task<>
    wait_frame,     // a retirable native callback wait (user = the cell, id = cell::wait_id)
};
/* Suspended in a native callback wait (either kind). */
inline bool in_native_wait(uint8_t wait) noexcept { return wait == wait_native || wait == wait_frame; }

/* Inbox requests (cell::qmode). */
enum : uint8_t { q_resume = 1, q_complete, q_fault, q_cancel };

inline constexpr uint8_t class_oversize = 0xFE;  // from global operator new, counted
inline constexpr uint8_t class_heap = 0xFF;      // no runtime at the start: global operator new
inline constexpr uint32_t cell_magic = 0x4F4E4359u;

/* Base of the awaiters that wait for other coroutines: a cancellation of the
 * awaiting coroutine is forwarded to them. */
struct nested {
    void (*cancel_fn)(nested *self) noexcept = nullptr;
};

/* The per-coroutine record, in front of the frame in the same block. It
 * outlives the frame while anything still refers to it (`refs`: the frame,
 * the task<> handle, a pending native callback, temporary pins), so a
 * coroutine finished at an await can be destroyed at once while its outcome
 * stays readable and a late native callback finds a valid record.
 *
 * Threads: everything is the owner thread's except what a coroutine running
 * on another thread writes: `body_state`, `value` and `error` when its body
 * ends, its guards (`cancel_word`, `wait_token`), and the inbox fields
 * (published by the inbox's release / acquire); `cancel_word` and
 * `wait_token` are atomic because the owner reads and writes them meanwhile
 * (a cancel request). The owner alone sets
 * `state`, so it never sees a coroutine finished before its completion runs
 * on the owner. */
struct alignas(128) cell {
    /* The first cache line holds what an await and its callback touch
     * (wait_id, owner, wait_token, cancel_word, wait, frame_alive), the
     * second the rest. */
    /* wait_frame: the native wait's id; its slot (onity_*_then_id) is the
     * cell itself, which the callback gets as `user`. First member. */
    uint64_t wait_id = 0;
    core *owner = nullptr;  // null: started without a runtime
    /* What its waits carry: `token`, 0 inside a guard, cancel_due_token
     * when a cancellation is pending (sync_wait_token). */
    std::atomic<uint64_t> wait_token{0};
    void *awaiting = nullptr;
    std::atomic<uint32_t> cancel_word{0};  // cancel_requested_bit | live cancel_guards
    uint32_t refs = 1;
    uint8_t wait = wait_none;
    bool frame_alive = true;
    uint8_t state = ONITY_TASK_STATE_PENDING;       // the outcome, set on the owner at completion
    uint8_t body_state = ONITY_TASK_STATE_PENDING;  // how the body ended (co_return, exception)
    uint8_t cls = class_heap;
    uint8_t qmode = 0;
    uint8_t step = 0;  // queued step (step_*), 0: not queued
    uint8_t step_state = 0;
    bool handle_held = false;
    bool has_exception = false;
    bool outcome_read = false;  // awaited, propagated, or its state / error read through its task<>
    int32_t error = 0;
    cont_fn cont = nullptr;
    void *cont_target = nullptr;
    uint64_t token = 0;   // the coroutine's cancellation token (0: none)
    uint64_t bridge = 0;  // a native task completed with the outcome
    uint64_t value = 0;   // the result as 64 bits (for the bridge)
    std::atomic<cell *> qnext{nullptr};
    cell *step_next = nullptr;  // the thread's step queue (see proceed)
    int32_t step_error = 0;
    uint32_t cont_index = 0;
    uint32_t magic = cell_magic;
};
/* The frame starts right after its cell, so every frame is aligned to
 * frame_align: C++20 compilers call the promise's operator new(size_t) whatever
 * the frame's alignment (SIMD or cache-line locals kept across a suspension),
 * so the layer gives every frame the most any common local needs. */
inline constexpr std::size_t frame_align = 128;
static_assert(alignof(cell) == frame_align && sizeof(cell) == frame_align, "a frame starts frame_align-aligned after its cell");
static_assert(offsetof(cell, wait_id) == 0, "a cell is its wait's slot");
static_assert(offsetof(cell, frame_alive) < 64 && offsetof(cell, cancel_word) < 64, "an await's fields share the first cache line");
inline constexpr std::align_val_t frame_align_val{frame_align};

inline constexpr uint32_t cancel_requested_bit = 1u << 31;

inline bool cancel_requested(const cell *c) noexcept {
    return (c->cancel_word.load(std::memory_order_relaxed) & cancel_requested_bit) != 0;
}
inline uint32_t guards(const cell *c) noexcept {
    return c->cancel_word.load(std::memory_order_relaxed) & ~cancel_requested_bit;
}
/* Requested and no guard alive: the next await finishes the coroutine. */
inline bool cancel_pending(const cell *c) noexcept {
    return c->cancel_word.load(std::memory_order_relaxed) == cancel_requested_bit;
}

/* cell::wait_token while a cancellation is pending: a token handle the C API
 * rejects at once in every runtime, whatever its tag: an even generation
 * and kind 3 are never issued (src/core/handle.rs pins both; the C++ tests
 * check that onity_yield_then and onity_next_frame_then return
 * INVALID_HANDLE for it). Not the runtime's own canceled-token mark
 * (u64::MAX). The plain waits (yield(), next_frame()) pass wait_token without
 * reading the cancel word first: their C call fails, and the failure path
 * finds the cancellation. */
inline constexpr uint64_t cancel_due_token = 0xFFFF'FFFE'FFFF'FFFFull;

/* Makes wait_token follow cancel_word and token; called after every change
 * of cancel_word. The owner (cancel requests) and the coroutine's thread
 * (guards) may change cancel_word at once: each writer re-reads the word
 * after its store and stores again if it moved, so the last store is of
 * the last word. */
inline void sync_wait_token(cell *c) noexcept {
    for (;;) {
        const uint32_t w = c->cancel_word.load();
        c->wait_token.store(w == cancel_requested_bit ? cancel_due_token : (w & ~cancel_requested_bit) ? 0 : c->token);
        if (c->cancel_word.load() == w) return;
    }
}

inline std::coroutine_handle<> frame_of(cell *c) noexcept { return std::coroutine_handle<>::from_address(c + 1); }

/* ---- frame pool ------------------------------------------------------------ */

/* Size classes of 128 << k bytes (cell included), k < 8; blocks come in
 * chunks of max(4, 32 KiB / block) from global operator new (frame_align-
 * aligned) and are never returned before the pool dies. Larger frames use
 * global operator new and are counted as the oversize class. Owner thread. */
class frame_pool {
  public:
    static constexpr uint32_t class_count = 8;
    static constexpr std::size_t smallest_block = 128;
    static constexpr std::size_t largest_block = smallest_block << (class_count - 1);
    static constexpr std::size_t block_bytes(uint32_t k) noexcept { return smallest_block << k; }

    frame_pool() noexcept = default;
    frame_pool(const frame_pool &) = delete;
    frame_pool &operator=(const frame_pool &) = delete;
    ~frame_pool() {
        while (chunks_) {
            chunk *next = chunks_->next;
            ONITY_CORO_UNPOISON(chunks_, chunks_->bytes);
            ::operator delete(static_cast<void *>(chunks_), frame_align_val);
            chunks_ = next;
        }
    }

    void *rent(std::size_t bytes, uint8_t &cls) {
        if (bytes > largest_block) {
            OnityPoolStats &s = st_[class_count];
            s.rents++;
            s.cold_allocations++;
            bump_live(s);
            cls = class_oversize;
            return ::operator new(bytes, frame_align_val);
        }
        const uint32_t k = class_for(bytes);
        if (!free_[k]) grow(k);
        node *n = free_[k];
        free_[k] = n->next;
        ONITY_CORO_UNPOISON(n, block_bytes(k));
        OnityPoolStats &s = st_[k];
        s.rents++;
        s.idle--;
        bump_live(s);
        cls = static_cast<uint8_t>(k);
        return n;
    }

    void give_back(void *p, uint8_t cls) noexcept {
        if (cls == class_oversize) {
            OnityPoolStats &s = st_[class_count];
            s.returns++;
            s.discards++;
            s.live--;
            ::operator delete(p, frame_align_val);
            return;
        }
        node *n = static_cast<node *>(p);
        n->next = free_[cls];
        free_[cls] = n;
        ONITY_CORO_POISON(reinterpret_cast<char *>(p) + sizeof(node), block_bytes(cls) - sizeof(node));
        OnityPoolStats &s = st_[cls];
        s.returns++;
        s.idle++;
        s.live--;
    }

    /* Class k < class_count, or class_count for the oversize class. */
    const OnityPoolStats &stats(uint32_t k) const noexcept { return st_[k <= class_count ? k : class_count]; }

  private:
    struct node {
        node *next;
    };
    struct alignas(frame_align) chunk {  // blocks follow, each frame_align-aligned
        chunk *next;
        std::size_t bytes;
    };

    static uint32_t class_for(std::size_t bytes) noexcept {
        return bytes <= smallest_block ? 0u
                                       : static_cast<uint32_t>(std::bit_width((bytes - 1) / smallest_block));
    }
    static void bump_live(OnityPoolStats &s) noexcept {
        if (++s.live > s.high_water) s.high_water = s.live;
    }
    void grow(uint32_t k) {
        const std::size_t block = block_bytes(k);
        std::size_t n = 32768 / block;
        if (n < 4) n = 4;
        const std::size_t bytes = sizeof(chunk) + n * block;
        char *mem = static_cast<char *>(::operator new(bytes, frame_align_val));
        chunk *ch = ::new (mem) chunk{chunks_, bytes};
        chunks_ = ch;
        char *first = mem + sizeof(chunk);
        for (std::size_t i = n; i-- > 0;) {
            node *b = reinterpret_cast<node *>(first + i * block);
            b->next = free_[k];
            free_[k] = b;
            ONITY_CORO_POISON(first + i * block + sizeof(node), block - sizeof(node));
        }
        OnityPoolStats &s = st_[k];
        s.capacity += n;
        s.idle += n;
        s.cold_allocations++;
    }

    node *free_[class_count] = {};
    chunk *chunks_ = nullptr;
    OnityPoolStats st_[class_count + 1] = {};
};

/* ---- the per-runtime state ---------------------------------------------- */

void on_bell(void *user, uint64_t task, uint32_t state) noexcept;

/* The calling thread's id and current-runtime slot, read through volatile
 * function pointers: a coroutine body can move between threads at a
 * co_await, and compilers may reuse a thread id (pthread_self is a `const`
 * function) or a thread_local's address computed before a suspension after
 * it (clang does). An opaque call per use cannot be reused. */
inline std::thread::id thread_id_now() noexcept { return std::this_thread::get_id(); }
inline std::thread::id (*volatile g_thread_id)() noexcept = &thread_id_now;
inline std::thread::id this_thread() noexcept { return g_thread_id(); }

/* One per attached runtime. Lives until its coro_runtime is gone, the
 * runtime is closed for it (destroyed, or the bell canceled at detach), and
 * every block is back. */
struct core {
    OnityRuntime *rt;            // null once the runtime is destroyed
    OnityRuntime *const rt_any;  // what workers ring the bell with
    const std::thread::id owner;
    frame_pool pool;
    uint64_t live_blocks = 0;
    uint64_t live_frames = 0;
    uint64_t ghosts = 0;
    uint64_t started = 0, succeeded = 0, faulted = 0, canceled = 0;
    std::atomic<cell *> inbox{nullptr};
    std::atomic<bool> rung{false};
    std::atomic<uint64_t> bell{0};
    bool attached = true;
    bool closed = false;
    core *prev_current = nullptr;  // current before attach made this one current (pinned)
    uint32_t pins = 0;             // scopes and attachments that may make it current again

    explicit core(OnityRuntime *r) noexcept : rt(r), rt_any(r), owner(this_thread()) {}
    bool on_owner() const noexcept { return this_thread() == owner; }
};

/* The thread's current runtime state (set by coro_runtime), and the cell of
 * the frame just allocated (handed from the promise's operator new to its
 * constructor). */
inline thread_local core *tls_current = nullptr;
inline thread_local cell *tls_new_cell = nullptr;
inline core *&tls_current_slot() noexcept { return tls_current; }
inline cell *&tls_new_cell_slot() noexcept { return tls_new_cell; }
inline core *&(*volatile g_current_slot)() noexcept = &tls_current_slot;
inline cell *&(*volatile g_new_cell_slot)() noexcept = &tls_new_cell_slot;
/* The calling thread's current runtime state (see this_thread()). */
inline core *&current_core() noexcept { return g_current_slot(); }
inline cell *&new_cell() noexcept { return g_new_cell_slot(); }

inline void maybe_retire(core *k) noexcept {
    if (!k->attached && k->closed && k->live_blocks == 0 && k->pins == 0) delete k;
}
inline void pin(core *k) noexcept {
    if (k) k->pins++;
}
inline void unpin(core *k) noexcept {
    if (k && --k->pins == 0) maybe_retire(k);
}
/* What becomes current again when a scope ends or a runtime detaches: not a
 * detached one (no runtime, then). */
inline core *restorable(core *k) noexcept { return k && k->attached ? k : nullptr; }

inline void *alloc_frame(std::size_t n) {
    core *k = current_core();
    const std::size_t bytes = sizeof(cell) + n;
    uint8_t cls = class_heap;
    void *block = k ? k->pool.rent(bytes, cls) : ::operator new(bytes, frame_align_val);
    cell *c = ::new (block) cell();
    c->owner = k;
    c->cls = cls;
    if (k) {
        k->live_blocks++;
        k->live_frames++;
        k->started++;
    }
    new_cell() = c;
    return c + 1;
}

/* Drops one reference; the last returns the block (and may retire the core:
 * nothing may touch the core after this). */
inline void unref(cell *c) noexcept {
    if (--c->refs != 0) return;
    core *k = c->owner;
    if (!k) {
        ::operator delete(static_cast<void *>(c), frame_align_val);
        return;
    }
    k->pool.give_back(c, c->cls);
    k->live_blocks--;
    maybe_retire(k);
}

/* The promise's operator delete: the frame is gone, the cell may stay. */
inline void free_frame(void *p) noexcept {
    cell *c = static_cast<cell *>(p) - 1;
    c->frame_alive = false;
    if (c->owner) c->owner->live_frames--;
    unref(c);
}

/* A native callback for a coroutine finished while it was pending. */
inline void ghost_done(cell *c) noexcept {
    c->wait = wait_none;
    if (c->owner) c->owner->ghosts--;
    unref(c);
}

/* The frame of a coroutine finished while a plain wait (yield / next_frame:
 * user = the frame) is pending is given a stand-in: its first word is what
 * resume() calls with the frame's address under GCC and Clang (their
 * coroutine frame layout, the one their std::noop_coroutine() frame uses),
 * so that wait's callback resumes "the frame" without first asking whether
 * it is alive, and lands in ghost_resume. finish() writes the stand-in
 * whatever the compiler, so translation units that disagree on
 * ONITY_CORO_GHOST_FRAME still mix; the macro only says whether the
 * callback skips the alive check (1) or asks (0).
 *
 * g++ calls the first word with the C calling convention on every target.
 * Clang calls it with LLVM's fastcc, which passes one pointer as the C
 * convention does on x86-64, AArch64 and 32-bit Arm only: on 32-bit x86
 * it passes it in ECX, where ghost_resume (a C++ function) does not look,
 * so every other Clang target asks. Pointer authentication (arm64e) signs
 * the frame's resume word, which a plain stand-in is not: it asks too.
 * Defining ONITY_CORO_GHOST_FRAME 0 before including the layer keeps the
 * check anywhere.
 * (ghost-frame gate: tests/cpp20.rs preprocesses this block per target.) */
#ifndef ONITY_CORO_GHOST_FRAME
#if defined(__clang__)
#if defined(__has_feature)
#if __has_feature(ptrauth_calls)
#define ONITY_CORO_GHOST_PTRAUTH 1
#endif
#endif
#if (defined(__x86_64__) || defined(__aarch64__) || defined(__arm__)) && !defined(ONITY_CORO_GHOST_PTRAUTH)
#define ONITY_CORO_GHOST_FRAME 1
#else
#define ONITY_CORO_GHOST_FRAME 0
#endif
#elif defined(__GNUC__)
#define ONITY_CORO_GHOST_FRAME 1
#else
#define ONITY_CORO_GHOST_FRAME 0
#endif
#endif
/* (end of the ghost-frame gate) */
inline void ghost_resume(void *frame) noexcept { ghost_done(static_cast<cell *>(frame) - 1); }
inline void ghost_destroy(void *) noexcept { fatal("destroy() of a finished coroutine's frame"); }
struct ghost_frame {
    void (*resume)(void *) noexcept;
    void (*destroy)(void *) noexcept;
};

inline void count_outcome(cell *c) noexcept {
    core *k = c->owner;
    if (!k) return;
    if (c->state == ONITY_TASK_STATE_SUCCEEDED)
        k->succeeded++;
    else if (c->state == ONITY_TASK_STATE_FAULTED)
        k->faulted++;
    else
        k->canceled++;
}

/* Completes the bound native task, if any, with the outcome. */
inline void publish(cell *c) noexcept {
    const uint64_t b = c->bridge;
    if (!b) return;
    c->bridge = 0;
    OnityRuntime *rt = c->owner ? c->owner->rt : nullptr;
    if (!rt) return;  // destroyed: the runtime canceled it
    OnityStatus s;
    if (c->state == ONITY_TASK_STATE_SUCCEEDED)
        s = onity_task_set_result(rt, b, c->value);
    else if (c->state == ONITY_TASK_STATE_FAULTED)
        s = onity_task_set_error(rt, b, c->error);
    else
        s = onity_task_cancel(rt, b);
    // ALREADY_COMPLETED: canceled by the runtime's destruction, or completed
    // by someone else first (the first completion wins, as in C);
    // STALE_HANDLE: that, and consumed since by its holder (the handle was
    // live when it was bound).
    if (s != ONITY_STATUS_OK && s != ONITY_STATUS_ALREADY_COMPLETED && s != ONITY_STATUS_STALE_HANDLE)
        report_misuse(static_cast<Status>(s), "completing the native task bound to a coroutine");
}

/* A fault nobody will look at goes to the unobserved handler. */
inline void report_unobserved(const cell *c) noexcept {
    if (c->state != ONITY_TASK_STATE_FAULTED) return;
    if (unobserved_handler h = g_unobserved.load(std::memory_order_acquire))
        h(static_cast<TaskState>(c->state), c->error);
}

/* Tells whoever waits for `c` (its continuation) that it finished, or the
 * unobserved handler when nobody will ever look. */
inline void notify(cell *c, bool observed) noexcept {
    if (cont_fn f = c->cont) {
        c->cont = nullptr;
        f(c->cont_target, c, c->cont_index);
        return;
    }
    if (!observed) report_unobserved(c);
}

/* A coroutine leaves its retirable wait (it is finished there): the runtime
 * drops the wait without calling it back (wait_none). With the runtime gone
 * or being destroyed past its bell (no `rt`), the wait stays as a ghost
 * (wait_native): every wait then completes canceled, which the callbacks
 * check before they touch the frame. Any other failure breaks that rule, so
 * it is fatal. */
inline void retire_wait(cell *c) noexcept {
    OnityRuntime *rt = c->owner ? c->owner->rt : nullptr;
    if (!rt) {
        c->wait = wait_native;
        return;
    }
    const OnityStatus s = onity_wait_retire(rt, &c->wait_id);
    if (s != ONITY_STATUS_OK) {
        report_misuse(static_cast<Status>(s), "retiring a canceled coroutine's wait (onity_wait_retire)");
        fatal("a coroutine's pending wait could not be retired");
    }
    c->wait = wait_none;
}

/* Finishes a coroutine suspended at an await with `state` (CANCELED, or
 * FAULTED with `error`) without resuming it: its frame is destroyed now
 * (destructors of its locals run), then its bound native task and its
 * continuation are told. Owner thread. Legal inside the coroutine's own
 * await_suspend as long as that returns void or true afterwards. */
inline void finish(cell *c, uint8_t state, int32_t error) noexcept {
    c->state = state;
    c->error = error;
    count_outcome(c);
    c->refs++;  // pin: the cell outlives everything below
    if (c->wait == wait_frame) retire_wait(c);
    const bool ghost = c->wait == wait_native;
    if (ghost) {
        c->refs++;  // the pending native callback will find a dead frame
        if (c->owner) c->owner->ghosts++;
    } else {
        c->wait = wait_none;
    }
    const bool observed = c->handle_held || c->bridge != 0;
    frame_of(c).destroy();
    if (ghost) ::new (static_cast<void *>(c + 1)) ghost_frame{&ghost_resume, &ghost_destroy};  // every mode: see ghost_frame
    publish(c);
    notify(c, observed);
    unref(c);
}

/* Completes a coroutine that reached its final suspend point (owner thread):
 * bound native task, continuation; the frame is destroyed now if no task<>
 * holds it, else when that task<> lets go. */
inline void complete_at_final(cell *c) noexcept {
    c->state = c->body_state;
    c->wait = wait_final;
    count_outcome(c);
    c->refs++;
    const bool observed = c->handle_held || c->bridge != 0;
    publish(c);
    notify(c, observed);
    if (!c->handle_held && c->frame_alive) frame_of(c).destroy();
    unref(c);
}

/* Acts on a cancellation request: finishes the coroutine if it is suspended
 * in a native wait, passes the request on to what it awaits if it awaits
 * task<>s. Nothing if it finished or a guard is alive meanwhile. */
inline void cancel_now(cell *c) noexcept {
    if (c->state != ONITY_TASK_STATE_PENDING || !cancel_pending(c)) return;
    if (in_native_wait(c->wait)) {
        finish(c, ONITY_TASK_STATE_CANCELED, 0);
    } else if (c->wait == wait_nested) {
        nested *n = static_cast<nested *>(c->awaiting);
        if (n->cancel_fn) n->cancel_fn(n);
    }
}

}  // namespace detail
}  // namespace onity

#endif /* ONITY_CORO_CORE_HPP */
