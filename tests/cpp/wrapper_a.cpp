// wrapper_a.cpp: one of two translation units that include onity.hpp and are
// linked into the same program (with main.cpp), proving the header has no
// ODR / multiple-definition problems. It uses the same inline functions and
// template instantiations as wrapper_b.cpp (Result<Task>, Result<void>,
// Runtime methods, status_text, ...).
#include "onity.hpp"

#include <cstdio>

#define A_CHECK(cond)                                                              \
    do {                                                                           \
        if (!(cond)) {                                                             \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                            \
        }                                                                          \
    } while (0)

// WhenAny over three manual tasks: the second one wins. Returns the number
// of failed checks.
int wrapper_a_when_any(onity::RuntimeRef rt) {
    int failures = 0;
    onity::Task a = rt.create_task().unwrap();
    onity::Task b = rt.create_task().unwrap();
    onity::Task c = rt.create_task().unwrap();

    // Errors come back as values, never as exceptions.
    onity::Result<onity::Task> dup = rt.when_any({a, b, a});
    A_CHECK(!dup);
    A_CHECK(dup.status() == onity::Status::DuplicateInput);
    A_CHECK(dup.message() != nullptr && dup.message()[0] != '\0');
    A_CHECK(!rt.when_any(nullptr, 0));
    A_CHECK(rt.when_any(nullptr, 0).status() == onity::Status::CountOutOfRange);

    const onity::Task inputs[3] = {a, b, c};
    onity::Result<onity::Task> any = rt.when_any(inputs, 3);
    A_CHECK(any.ok());
    onity::Task out = any.value();
    A_CHECK(rt.state(out).unwrap() == onity::TaskState::Pending);
    A_CHECK(rt.set_result(b, 42).ok());
    A_CHECK(rt.state(out).unwrap() == onity::TaskState::Succeeded);
    // An input now belongs to the WhenAny, which consumes it.
    A_CHECK(rt.consume(a).status() == onity::Status::AlreadyAwaited);
    onity::Outcome o = rt.consume(out).unwrap();
    A_CHECK(o.succeeded());
    A_CHECK(o.value() == 42);
    A_CHECK(o.index() == 1);
    A_CHECK(o.has_index());
    A_CHECK(rt.consume(out).status() == onity::Status::StaleHandle);
    // The losers are consumed by the WhenAny when they complete.
    A_CHECK(rt.set_error(a, 7).ok());
    A_CHECK(rt.cancel(c).ok());
    A_CHECK(rt.state(c).status() == onity::Status::StaleHandle);
    return failures;
}

// The name of a timing, through the wrapper (also used by wrapper_b.cpp).
const char *wrapper_a_timing_name(onity::Timing t) { return onity::timing_name(t); }
