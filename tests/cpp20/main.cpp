// main.cpp: runs every TEST of the C++20 coroutine program (the other .cpp
// files of tests/cpp20 except alloc.cpp, each including onity/coro.hpp: the
// header in several translation units). Arguments: --small (valgrind sizes;
// also ONITY_TEST_SMALL=1) or --full (the stress test's full 1,000 frames),
// then optional test-name filters. Prints a final "OK" when every check
// passed.
#include <cstdlib>

#include "check.hpp"

int main(int argc, char **argv) {
    std::vector<const char *> filters;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--small") == 0)
            t20::small = true;
        else if (std::strcmp(argv[i], "--full") == 0)
            t20::full = true;
        else
            filters.push_back(argv[i]);
    }
    if (const char *e = std::getenv("ONITY_TEST_SMALL"); e && std::strcmp(e, "1") == 0) t20::small = true;
    onity::set_misuse_handler(&t20::record_misuse);
    onity::set_unobserved_handler(&t20::record_unobserved);

    int ran = 0;
    for (const t20::test_case &tc : t20::registry()) {
        bool selected = filters.empty();
        for (const char *f : filters) selected = selected || std::strstr(tc.name, f) != nullptr;
        if (!selected) continue;
        const int before = t20::failures;
        t20::misuse = t20::misuse_log();
        t20::unobserved_faults = 0;
        tc.fn();
        ran++;
        std::printf("%s %s\n", t20::failures == before ? "ok  " : "FAIL", tc.name);
        std::fflush(stdout);
    }
    std::printf("%d tests, %d failed checks\n", ran, t20::failures);
    if (ran == 0 || t20::failures != 0) return 1;
    std::printf("OK\n");
    return 0;
}
