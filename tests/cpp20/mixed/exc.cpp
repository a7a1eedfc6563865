// exc.cpp: a program of two translation units built in different modes
// (this one with exceptions, noexc.cpp with -fno-exceptions), as engines mix
// modules: coroutines of one side awaited, read and destroyed by the other.
// The layer's types and inline functions must mean the same in both.
#include <cstdio>
#include <cstring>

#include "shared.hpp"

using namespace onity;

namespace {
int failures = 0;
#define MCHECK(c)                                                                   \
    do {                                                                            \
        if (!(c)) {                                                                 \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            failures++;                                                             \
        }                                                                           \
    } while (0)

task<std::string> exc_make(const char *s) {
    co_await next_frame();
    co_return std::string(s);
}
task<std::string> exc_throws() {
    co_await next_frame();
    throw 42;
}
task<> exc_catches(task<std::string> t, int *caught) {
    try {
        (void)co_await std::move(t);
    } catch (int e) {
        *caught = e;
    }
}
task<payload> exc_payload_plus(task<payload> t) {
    payload p = co_await std::move(t);
    p.n++;
    co_return p;
}
}  // namespace

int main() {
    Runtime rt = Runtime::create().unwrap();
    coro_runtime co = coro_runtime::attach(rt).unwrap();
    uint64_t f = 0;
    auto frame = [&] {
        f++;
        rt.begin_frame(f, 1.0 / 60, 1.0 / 60, double(f) / 60).unwrap();
        rt.tick_all().unwrap();
    };
    {
        task<std::string> a = noexc_make("made without exceptions");  // read here
        task<std::string> b = exc_make("made with exceptions");       // read there
        task<std::string> c = noexc_await(exc_make("awaited there"));
        int caught = 0;
        task<> d = exc_catches(exc_throws(), &caught);  // the other side instantiates the same await
        task<payload> e = exc_payload_plus(noexc_payload(300));
        frame();
        frame();
        MCHECK(a.result() && *a.result() == "made without exceptions");
        MCHECK(noexc_result(b) && *noexc_result(b) == "made with exceptions");
        MCHECK(c.result() && *c.result() == "awaited there+");
        MCHECK(d.done() && caught == 42);
        MCHECK(e.result() && e.result()->n == 301 && e.result()->text.size() == 300);
    }
    MCHECK(co.stats().live_blocks == 0);
    co.detach();
    rt.destroy().unwrap();
    if (failures) return 1;
    std::printf("OK\n");
    return 0;
}
