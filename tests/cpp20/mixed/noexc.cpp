// noexc.cpp: the -fno-exceptions half of the mixed-mode program (see exc.cpp).
#include "shared.hpp"

using namespace onity;

task<std::string> noexc_make(const char *s) {
    co_await next_frame();
    co_return std::string(s);
}

const std::string *noexc_result(task<std::string> &t) { return t.result(); }

task<std::string> noexc_await(task<std::string> t) {
    std::string v = co_await std::move(t);
    co_return v + "+";
}

task<payload> noexc_payload(int n) {
    co_await next_frame();
    co_return payload{std::string(static_cast<std::size_t>(n), 'x'), n};
}
