// count_new.hpp: replaces global operator new / delete with malloc / free
// and counts every allocation in g_allocs. Include it in exactly one
// translation unit of a program (tests/cpp20/alloc.cpp,
// benches/cpp/coro_bench.cpp): the replacements are program-wide.
#ifndef ONITY_CPP20_COUNT_NEW_HPP
#define ONITY_CPP20_COUNT_NEW_HPP

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

// The replaced operators pair malloc with free (GCC cannot see that through nothrow new).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

static std::atomic<uint64_t> g_allocs{0};
void *operator new(std::size_t n) {
    g_allocs.fetch_add(1, std::memory_order_relaxed);
    if (void *p = std::malloc(n ? n : 1)) return p;
    std::abort();
}
void *operator new[](std::size_t n) { return operator new(n); }
void *operator new(std::size_t n, const std::nothrow_t &) noexcept {
    g_allocs.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(n ? n : 1);
}
void *operator new[](std::size_t n, const std::nothrow_t &t) noexcept { return operator new(n, t); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }

#endif
