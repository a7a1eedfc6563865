// The compiler's own cost of a C++20 await (scripts/bench-cpp20.sh, BENCHMARKS.md): coroutines
// awaiting a trivial queue (no runtime) against a C callback re-arming itself on the same queue.
#include <coroutine>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
typedef void (*cb_t)(void *);
struct item { cb_t fn; void *user; };
static std::vector<item> cur, nxt;
__attribute__((noinline)) void schedule(cb_t fn, void *user) { nxt.push_back({fn, user}); }
__attribute__((noinline)) void run() { cur.swap(nxt); nxt.clear(); for (auto &i : cur) i.fn(i.user); cur.clear(); }
static long counter;
static void c_cb(void *u) { ++counter; schedule(c_cb, u); }
struct task { struct promise_type {
    task get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() {} void unhandled_exception() { std::abort(); } }; };
static void resume_cb(void *p) { std::coroutine_handle<>::from_address(p).resume(); }
struct next_frame { bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { schedule(resume_cb, h.address()); }
    void await_resume() const noexcept {} };
task loop() { for (;;) { co_await next_frame{}; ++counter; } }
int main(int argc, char **argv) {
    int frames = atoi(argv[2]); bool coro = !strcmp(argv[1], "coro");
    cur.reserve(8192); nxt.reserve(8192);
    for (int i = 0; i < 4096; i++) { if (coro) loop(); else schedule(c_cb, nullptr); }
    for (int f = 0; f < frames; f++) run();
    printf("%ld\n", counter);
}
