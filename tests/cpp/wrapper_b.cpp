// wrapper_b.cpp: the second translation unit including onity.hpp (see
// wrapper_a.cpp). Cancellation through the RAII CancelSource, plus the
// functor trampoline.
#include "onity.hpp"

#include <cstdio>
#include <cstring>

#define B_CHECK(cond)                                                              \
    do {                                                                           \
        if (!(cond)) {                                                             \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                            \
        }                                                                          \
    } while (0)

const char *wrapper_a_timing_name(onity::Timing t);

namespace {
struct CancelCounter {
    int calls = 0;
    onity::TaskState last = onity::TaskState::Pending;
    void operator()(onity::Task task, onity::TaskState state) {
        calls++;
        last = state;
        (void)task;
    }
};
}  // namespace

// Waits holding a token complete canceled at the next run of their timing;
// the CancelSource is destroyed when it goes out of scope. `frame` is the
// caller's frame counter. Returns the number of failed checks.
int wrapper_b_cancel(onity::RuntimeRef rt, uint64_t &frame) {
    int failures = 0;
    CancelCounter counter;
    onity::Task waiting;
    uint64_t handle = 0;
    {
        onity::CancelSource src = rt.create_cancel_source().unwrap();
        B_CHECK(static_cast<bool>(src));
        B_CHECK(src.is_canceled().unwrap() == false);
        B_CHECK(rt.delay_frame_then(1000, onity::Timing::Update, src.token(), counter).ok());
        waiting = rt.delay(1e6, onity::Clock::Realtime, onity::Timing::LastUpdate, src.token()).unwrap();

        onity::CancelSource moved(std::move(src));  // ownership moves, the handle stays
        B_CHECK(!src);
        B_CHECK(static_cast<bool>(moved));
        handle = moved.handle();
        B_CHECK(moved.cancel().ok());
        B_CHECK(moved.cancel().ok());  // twice is fine
        B_CHECK(moved.is_canceled().unwrap() == true);
        B_CHECK(counter.calls == 0);  // not before the next run of Update

        ++frame;
        B_CHECK(rt.begin_frame(frame, 0.02, 0.02, static_cast<double>(frame) * 0.02).ok());
        B_CHECK(rt.tick_all().ok());
        B_CHECK(counter.calls == 1);
        B_CHECK(counter.last == onity::TaskState::Canceled);
    }  // the source is destroyed here
    uint32_t canceled = 0;
    B_CHECK(onity_cancel_source_is_canceled(rt.raw(), handle, &canceled) == ONITY_STATUS_STALE_HANDLE);

    // Cancel, then let the source go out of scope before anything observed
    // the cancel: the wait still completes canceled (onity.h,
    // onity_cancel_source_destroy).
    CancelCounter late;
    {
        onity::CancelSource src = rt.create_cancel_source().unwrap();
        B_CHECK(rt.delay_frame_then(1000, onity::Timing::Update, src.token(), late).ok());
        B_CHECK(src.cancel().ok());
    }
    B_CHECK(late.calls == 0);
    ++frame;
    B_CHECK(rt.begin_frame(frame, 0.02, 0.02, static_cast<double>(frame) * 0.02).ok());
    B_CHECK(rt.tick_all().ok());
    B_CHECK(late.calls == 1);
    B_CHECK(late.last == onity::TaskState::Canceled);

    onity::Result<onity::Outcome> o = rt.consume(waiting);
    B_CHECK(o.ok() && o.value().canceled() && !o.value().has_index());
    B_CHECK(std::strcmp(wrapper_a_timing_name(onity::Timing::LastUpdate), "LastUpdate") == 0);
    return failures;
}
