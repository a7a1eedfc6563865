// enum_check.hpp: the enums of onity.hpp against those of include/onity.h
// (cbindgen's output of the Rust definitions in src/ffi, their one source;
// tests/header.rs fails when the header is stale).
//
// Each `matches` switches over a C enum with one case per enumerator and no
// default. The C++ tests build with -Wall -Werror, so an enumerator added to
// the header and missing here fails to compile (-Wswitch); each case names the
// onity.hpp enumerator it must equal, so one missing there fails to compile
// too, and a different value fails the static_asserts (C++14 and later) and
// `enum_check::failures()` (every standard; main.cpp checks it).
#ifndef ONITY_TESTS_ENUM_CHECK_HPP
#define ONITY_TESTS_ENUM_CHECK_HPP

#include "onity.hpp"

#if __cplusplus >= 201402L
#define ENUM_CHECK_CONSTEXPR constexpr
#else
#define ENUM_CHECK_CONSTEXPR inline
#endif

#define ENUM_CHECK_CASE(hpp, c) \
    case c:                     \
        return static_cast<uint32_t>(hpp) == static_cast<uint32_t>(c)

namespace enum_check {

ENUM_CHECK_CONSTEXPR bool matches(OnityStatus v) {
    switch (v) {
        ENUM_CHECK_CASE(onity::Status::Ok, ONITY_STATUS_OK);
        ENUM_CHECK_CASE(onity::Status::NullPointer, ONITY_STATUS_NULL_POINTER);
        ENUM_CHECK_CASE(onity::Status::InvalidHandle, ONITY_STATUS_INVALID_HANDLE);
        ENUM_CHECK_CASE(onity::Status::StaleHandle, ONITY_STATUS_STALE_HANDLE);
        ENUM_CHECK_CASE(onity::Status::ForeignHandle, ONITY_STATUS_FOREIGN_HANDLE);
        ENUM_CHECK_CASE(onity::Status::WrongThread, ONITY_STATUS_WRONG_THREAD);
        ENUM_CHECK_CASE(onity::Status::InvalidArgument, ONITY_STATUS_INVALID_ARGUMENT);
        ENUM_CHECK_CASE(onity::Status::CountOutOfRange, ONITY_STATUS_COUNT_OUT_OF_RANGE);
        ENUM_CHECK_CASE(onity::Status::DuplicateInput, ONITY_STATUS_DUPLICATE_INPUT);
        ENUM_CHECK_CASE(onity::Status::TaskPending, ONITY_STATUS_TASK_PENDING);
        ENUM_CHECK_CASE(onity::Status::AlreadyCompleted, ONITY_STATUS_ALREADY_COMPLETED);
        ENUM_CHECK_CASE(onity::Status::AlreadyAwaited, ONITY_STATUS_ALREADY_AWAITED);
        ENUM_CHECK_CASE(onity::Status::SizeMismatch, ONITY_STATUS_SIZE_MISMATCH);
        ENUM_CHECK_CASE(onity::Status::Reentrant, ONITY_STATUS_REENTRANT);
        ENUM_CHECK_CASE(onity::Status::FrameOrder, ONITY_STATUS_FRAME_ORDER);
        ENUM_CHECK_CASE(onity::Status::Panic, ONITY_STATUS_PANIC);
        ENUM_CHECK_CASE(onity::Status::Exhausted, ONITY_STATUS_EXHAUSTED);
        ENUM_CHECK_CASE(onity::Status::InvalidRuntime, ONITY_STATUS_INVALID_RUNTIME);
        ENUM_CHECK_CASE(onity::Status::InvalidAlignment, ONITY_STATUS_INVALID_ALIGNMENT);
        ENUM_CHECK_CASE(onity::Status::OutOfMemory, ONITY_STATUS_OUT_OF_MEMORY);
    }
    return true;  // not an enumerator
}

ENUM_CHECK_CONSTEXPR bool matches(OnityTiming v) {
    switch (v) {
        ENUM_CHECK_CASE(onity::Timing::Initialization, ONITY_TIMING_INITIALIZATION);
        ENUM_CHECK_CASE(onity::Timing::LastInitialization, ONITY_TIMING_LAST_INITIALIZATION);
        ENUM_CHECK_CASE(onity::Timing::EarlyUpdate, ONITY_TIMING_EARLY_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::LastEarlyUpdate, ONITY_TIMING_LAST_EARLY_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::FixedUpdate, ONITY_TIMING_FIXED_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::LastFixedUpdate, ONITY_TIMING_LAST_FIXED_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::PreUpdate, ONITY_TIMING_PRE_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::LastPreUpdate, ONITY_TIMING_LAST_PRE_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::Update, ONITY_TIMING_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::LastUpdate, ONITY_TIMING_LAST_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::PreLateUpdate, ONITY_TIMING_PRE_LATE_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::LastPreLateUpdate, ONITY_TIMING_LAST_PRE_LATE_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::PostLateUpdate, ONITY_TIMING_POST_LATE_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::LastPostLateUpdate, ONITY_TIMING_LAST_POST_LATE_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::TimeUpdate, ONITY_TIMING_TIME_UPDATE);
        ENUM_CHECK_CASE(onity::Timing::LastTimeUpdate, ONITY_TIMING_LAST_TIME_UPDATE);
    }
    return true;
}

ENUM_CHECK_CONSTEXPR bool matches(OnityClock v) {
    switch (v) {
        ENUM_CHECK_CASE(onity::Clock::Scaled, ONITY_CLOCK_SCALED);
        ENUM_CHECK_CASE(onity::Clock::Unscaled, ONITY_CLOCK_UNSCALED);
        ENUM_CHECK_CASE(onity::Clock::Realtime, ONITY_CLOCK_REALTIME);
    }
    return true;
}

ENUM_CHECK_CONSTEXPR bool matches(OnityTaskState v) {
    switch (v) {
        ENUM_CHECK_CASE(onity::TaskState::Pending, ONITY_TASK_STATE_PENDING);
        ENUM_CHECK_CASE(onity::TaskState::Succeeded, ONITY_TASK_STATE_SUCCEEDED);
        ENUM_CHECK_CASE(onity::TaskState::Faulted, ONITY_TASK_STATE_FAULTED);
        ENUM_CHECK_CASE(onity::TaskState::Canceled, ONITY_TASK_STATE_CANCELED);
    }
    return true;
}

// Every value below 256 (the header's enumerators are small) matches.
template <typename E>
ENUM_CHECK_CONSTEXPR bool all_match() {
    for (uint32_t v = 0; v < 256; ++v) {
        if (!matches(static_cast<E>(v))) return false;
    }
    return true;
}

#if __cplusplus >= 201402L
static_assert(all_match<OnityStatus>(), "onity::Status differs from OnityStatus (include/onity.h)");
static_assert(all_match<OnityTiming>(), "onity::Timing differs from OnityTiming (include/onity.h)");
static_assert(all_match<OnityClock>(), "onity::Clock differs from OnityClock (include/onity.h)");
static_assert(all_match<OnityTaskState>(), "onity::TaskState differs from OnityTaskState (include/onity.h)");
#endif

// The enums that differ from the header (0 when none), for C++11 builds too.
inline int failures() {
    return !all_match<OnityStatus>() + !all_match<OnityTiming>() + !all_match<OnityClock>() +
           !all_match<OnityTaskState>();
}

}  // namespace enum_check

#undef ENUM_CHECK_CASE
#undef ENUM_CHECK_CONSTEXPR

#endif  // ONITY_TESTS_ENUM_CHECK_HPP
