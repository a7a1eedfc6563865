// main.cpp: a small game loop through onity.hpp. Linked with wrapper_a.cpp
// and wrapper_b.cpp, which include the same header (ODR check).
//
// Exit status 0 and a final "OK" line on success.
#include "onity.hpp"
#include "enum_check.hpp"

#include <cstdio>
#include <cstring>
#include <utility>

int wrapper_a_when_any(onity::RuntimeRef rt);
int wrapper_b_cancel(onity::RuntimeRef rt, uint64_t &frame);

static int failures = 0;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                            \
        }                                                                          \
    } while (0)

namespace {

uint64_t g_frame = 0;

struct Record {
    int calls;
    uint64_t frame;
    uint32_t state;
};

// A plain C-style callback for a callback wait.
void on_wait(void *user, uint64_t task, uint32_t state) {
    Record *r = static_cast<Record *>(user);
    r->calls++;
    r->frame = g_frame;
    r->state = state;
    CHECK(task == 0);  // callback waits have no task
}

// A functor called through the wrapper's trampoline; consumes its task.
struct Consumer {
    onity::RuntimeRef *rt;
    int calls;
    uint64_t frame;
    onity::Outcome outcome;
    void operator()(onity::Task task, onity::TaskState state) {
        calls++;
        frame = g_frame;
        outcome = rt->consume(task).unwrap();
        CHECK(outcome.state() == state);
    }
};

bool run_frame(onity::RuntimeRef &rt) {
    ++g_frame;
    return rt.begin_frame(g_frame, 1.0 / 60, 1.0 / 60, static_cast<double>(g_frame) / 60).ok() &&
           rt.tick_all().ok();
}

}  // namespace

// Every operation of the wrapper over `rt`, owned or borrowed (a fresh
// runtime: frames count from 1). The two other translation units take a
// RuntimeRef too.
static void exercise(onity::RuntimeRef rt) {
    g_frame = 0;
    // A const callable is accepted (it did not compile), and every C status has an enum value.
    {
        int hits = 0;
        const auto count = [&hits](onity::Task, onity::TaskState) { hits++; };
        onity::Task t = rt.create_task().unwrap();
        CHECK(rt.on_complete(t, count).ok());
        CHECK(rt.set_result(t, 1).ok());
        CHECK(hits == 1);
        CHECK(rt.consume(t).ok());
        CHECK(static_cast<uint32_t>(onity::Status::OutOfMemory) == ONITY_STATUS_OUT_OF_MEMORY);
    }

    // Frame 1: NextFrame(Update) does not resume in the frame it was made in.
    ++g_frame;
    CHECK(rt.begin_frame(g_frame, 1.0 / 60, 1.0 / 60, 0.0).ok());
    onity::Task nf = rt.next_frame(onity::Timing::Update).unwrap();
    Record yielded = {0, 0, 0};
    Record delayed = {0, 0, 0};
    CHECK(rt.yield_then(onity::Timing::Update, onity::Token::none(), &on_wait, &yielded).ok());
    CHECK(rt.delay_frame_then(2, onity::Timing::Update, onity::Token(), &on_wait, &delayed).ok());
    Consumer consumer = {&rt, 0, 0, onity::Outcome()};
    onity::Task d = rt.delay(2.0 / 60 - 1e-9, onity::Clock::Scaled, onity::Timing::PreLateUpdate).unwrap();
    CHECK(rt.on_complete(d, consumer).ok());
    CHECK(rt.on_complete(d, consumer).status() == onity::Status::AlreadyAwaited);
    CHECK(rt.tick_all().ok());
    CHECK(yielded.calls == 1 && yielded.frame == 1 && yielded.state == ONITY_TASK_STATE_SUCCEEDED);
    CHECK(rt.state(nf).unwrap() == onity::TaskState::Pending);
    CHECK(rt.consume(nf).status() == onity::Status::TaskPending);

    // Frame 2: NextFrame resumes.
    CHECK(run_frame(rt));
    CHECK(rt.state(nf).unwrap() == onity::TaskState::Succeeded);
    onity::Outcome o = rt.consume(nf).unwrap();
    CHECK(o.succeeded() && !o.has_index());
    CHECK(delayed.calls == 0);
    CHECK(consumer.calls == 0);

    // Frame 3: DelayFrame(2) and the 2-frame Delay resume.
    CHECK(run_frame(rt));
    CHECK(delayed.calls == 1 && delayed.frame == 3);
    CHECK(consumer.calls == 1 && consumer.frame == 3 && consumer.outcome.succeeded());

    // WhenAny (in wrapper_a.cpp) and cancellation (in wrapper_b.cpp).
    failures += wrapper_a_when_any(rt);
    failures += wrapper_b_cancel(rt, g_frame);

    // WhenAll with per-input results.
    {
        onity::Task a = rt.create_task().unwrap();
        onity::Task y = rt.yield(onity::Timing::LastPostLateUpdate).unwrap();
        onity::Task all = rt.when_all({a, y}).unwrap();
        CHECK(rt.set_result(a, 5).ok());
        CHECK(rt.when_all_results(all, 2).status() == onity::Status::TaskPending);
        CHECK(run_frame(rt));
        onity::Result<std::vector<onity::Outcome> > res = rt.when_all_results(all, 2);
        CHECK(res.ok() && res.value().size() == 2);
        if (res.ok() && res.value().size() == 2) {
            CHECK(res.value()[0].succeeded() && res.value()[0].value() == 5);
            CHECK(res.value()[1].succeeded());
        }
        CHECK(rt.when_all_results(all, 3).status() == onity::Status::CountOutOfRange);
        onity::Outcome ao = rt.consume(all).unwrap();
        CHECK(ao.succeeded() && ao.value() == 2);
    }

    // Errors as values.
    CHECK(rt.consume(onity::Task()).status() == onity::Status::InvalidHandle);
    CHECK(rt.tick(static_cast<onity::Timing>(16)).status() == onity::Status::InvalidArgument);
    CHECK(rt.begin_frame(g_frame, 0.0, 0.0, 0.0).status() == onity::Status::FrameOrder);
    CHECK(rt.delay(-1.0, onity::Clock::Scaled, onity::Timing::Update).status() ==
          onity::Status::InvalidArgument);
    CHECK(rt.state(onity::Task(12345)).value_or(onity::TaskState::Faulted) == onity::TaskState::Faulted);

}

int main() {
    CHECK(onity::abi_compatible());
    CHECK(enum_check::failures() == 0);  // onity.hpp's enums equal onity.h's
    CHECK(std::strcmp(onity::status_text(onity::Status::Ok), "unknown status") != 0);
    CHECK(std::strcmp(onity::timing_name(onity::Timing::Update), "Update") == 0);

    onity::Result<onity::Runtime> created = onity::Runtime::create(onity::Config().task_capacity(128));
    CHECK(created.ok());
    onity::Runtime rt = std::move(created).unwrap();
    CHECK(static_cast<bool>(rt));

    // An empty (moved-from or default) runtime reports errors, not crashes.
    onity::Runtime empty;
    CHECK(empty.tick(onity::Timing::Update).status() == onity::Status::NullPointer);
    CHECK(!empty.create_task());
    CHECK(empty.destroy().ok());  // nothing to destroy

    exercise(rt);  // an owning Runtime passes as a RuntimeRef (a view of it)
    const uint64_t owned_frames = g_frame;

    // A runtime someone else created (another plugin, C#): borrowed, every
    // wrapper works through it, and no RuntimeRef destroys it.
    {
        OnityRuntime *raw = nullptr;
        CHECK(onity_runtime_create(nullptr, &raw) == ONITY_STATUS_OK);
        {
            onity::RuntimeRef ref = onity::Runtime::borrow(raw);
            onity::RuntimeRef copy = ref;
            CHECK(copy.raw() == raw && static_cast<bool>(copy));
            exercise(copy);
            onity::CancelSource src = ref.create_cancel_source().unwrap();
            CHECK(src.cancel().ok());
        }  // the copies and the source are gone; the runtime is not
        onity::RuntimeRef again(raw);
        CHECK(again.live_task_count().unwrap() == 0);
        CHECK(again.stats().unwrap().frame() == g_frame);
        CHECK(onity_runtime_destroy(raw) == ONITY_STATUS_OK);  // its owner destroys it, once
        onity::RuntimeRef none;
        CHECK(none.tick(onity::Timing::Update).status() == onity::Status::NullPointer);
    }

    // Ownership moves; nothing is left behind. A view of the owner follows
    // the runtime, not the Runtime object: valid after the move, refused
    // (InvalidRuntime) once the new owner destroyed the runtime.
    const onity::RuntimeRef view = rt;
    onity::Runtime moved = std::move(rt);
    CHECK(!rt);
    CHECK(view.raw() == moved.raw());
    CHECK(view.stats().unwrap().frame() == owned_frames);
    onity::Stats st = moved.stats().unwrap();
    CHECK(st.live_tasks() == 0);
    CHECK(st.completed_unconsumed() == 0);
    CHECK(st.cross_thread_queued() == 0);
    CHECK(st.frame() == owned_frames);
    CHECK(st.pool(ONITY_POOL_TASKS).rents == st.pool(ONITY_POOL_TASKS).returns);
    CHECK(moved.live_task_count().unwrap() == 0);
    CHECK(moved.destroy().ok());
    CHECK(!moved);
    CHECK(view.stats().status() == onity::Status::InvalidRuntime);

    if (failures) {
        std::fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    std::printf("OK\n");
    return 0;
}
