// foreign_exception.cpp: built with -fno-exceptions, a C++ exception still
// reaches the runtime (std::vector::at throws from libstdc++, which is built
// with exceptions) out of a coroutine's body (argument "resume") or an until
// predicate ("predicate"). The process must abort with the runtime's message
// naming the cause (tests/cpp20.rs, exception_in_a_no_exceptions_build_aborts
// _clearly), not with Rust's "cannot catch foreign exceptions".
#include <cstdio>
#include <cstring>
#include <vector>

#include "onity/coro.hpp"

using namespace onity;

namespace {
std::vector<int> empty;
int sink = 0;

task<> throws_when_resumed() {
    co_await next_frame();
    sink = empty.at(3);  // throws std::out_of_range
}
task<> throws_in_predicate() {
    co_await until([] { return empty.at(3) == 0; });
}
}  // namespace

int main(int argc, char **argv) {
    const bool predicate = argc > 1 && std::strcmp(argv[1], "predicate") == 0;
    Runtime rt = Runtime::create().unwrap();
    coro_runtime co = coro_runtime::attach(rt).unwrap();
    task<> t = predicate ? throws_in_predicate() : throws_when_resumed();
    for (uint64_t f = 1; f <= 3; f++) {
        rt.begin_frame(f, 1.0 / 60, 1.0 / 60, static_cast<double>(f) / 60).unwrap();
        rt.tick_all().unwrap();
    }
    std::printf("not reached (sink %d)\n", sink);
    return 0;
}
