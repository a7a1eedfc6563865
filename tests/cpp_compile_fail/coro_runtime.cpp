// std: c++20
// coro_runtime::attach misuses that must not compile (tests/cpp_compile_fail.rs;
// see runtime_ref.cpp for the format).
#include <utility>

#include "onity/coro.hpp"

void uses(onity::Runtime &owner, onity::RuntimeRef view) {
    // Correct uses: an owner (lvalue), a view, a raw pointer.
    auto a = onity::coro_runtime::attach(owner);
    auto b = onity::coro_runtime::attach(view);
    auto c = onity::coro_runtime::attach(owner.raw());
    (void)a;
    (void)b;
    (void)c;
#if CASE == 1
    auto t = onity::coro_runtime::attach(onity::Runtime::create().unwrap());  // ERROR 1: a temporary owner
    (void)t;
#elif CASE == 2
    auto t = onity::coro_runtime::attach(std::move(owner));  // ERROR 2: an expiring owner
    (void)t;
#elif CASE == 3
    const onity::Runtime &k = owner;
    auto t = onity::coro_runtime::attach(std::move(k));  // ERROR 3: a const expiring owner
    (void)t;
#endif
}
