// shared.hpp: what the two translation units of the mixed-mode program
// (exc.cpp with exceptions, noexc.cpp with -fno-exceptions) hand each other:
// task<>s of either side, awaited, read and destroyed on the other. (An
// exception cannot pass through a coroutine built without exceptions: such
// a coroutine must not await one that throws.)
#ifndef ONITY_CPP20_MIXED_SHARED_HPP
#define ONITY_CPP20_MIXED_SHARED_HPP

#include <string>

#include "onity/coro.hpp"

// noexc.cpp
onity::task<std::string> noexc_make(const char *s);  // a frame later
const std::string *noexc_result(onity::task<std::string> &t);
onity::task<std::string> noexc_await(onity::task<std::string> t);  // awaits t, appends "+"

// The one type both sides instantiate the same templates with.
struct payload {
    std::string text;
    int n = 0;
};
onity::task<payload> noexc_payload(int n);

#endif
