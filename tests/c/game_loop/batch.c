/*
 * batch.c: the scenarios of the game_loop program on batches (records of
 * every kind, rejected records, resumptions per timing, destruction) and on
 * the statistics and the live task list.
 */
#include "game_loop.h"

/* ---- batches ---------------------------------------------------------------- */

typedef struct {
    int count;
    uint64_t frame;
    uint32_t timing;
    uint32_t state;
    uint32_t status;
} BatchRec;

static BatchRec B[64];
static int g_batch_order[64];
static int g_batch_norder;

/* Processes the batch's new resumptions, the way a host does after a call:
 * entries [resumed_consumed, resumed_count), then marks them consumed. */
static void take_resumptions(OnityBatch *b, uint32_t timing) {
    uint32_t i;
    CHECK(b->resumed_consumed <= b->resumed_count);
    for (i = b->resumed_consumed; i < b->resumed_count; i++) {
        const OnityResume *r = &b->resumed[i];
        CHECK(r->id > 0 && r->id < 64);
        if (r->id == 0 || r->id >= 64) continue;
        B[r->id].count++;
        B[r->id].frame = L.frame;
        B[r->id].timing = timing;
        B[r->id].state = r->state;
        B[r->id].status = r->status;
        if (g_batch_norder < 64) g_batch_order[g_batch_norder++] = (int)r->id;
    }
    b->resumed_consumed = b->resumed_count;
}

static void batch_add(OnityBatch *b, uint64_t id, uint8_t kind, uint8_t timing, uint64_t arg, uint8_t clock,
                      uint64_t token) {
    OnityBatchRecord *r;
    CHECK(b->submit_count < b->submit_capacity);
    if (b->submit_count >= b->submit_capacity) return;
    r = &b->submit[b->submit_count++];
    memset(r, 0, sizeof *r);
    r->id = id;
    r->kind = kind;
    r->timing = timing;
    r->arg = arg;
    r->clock = clock;
    r->token = token;
}

static void batch_frame(OnityBatch *b) {
    uint32_t t;
    begin_std_frame();
    for (t = 0; t < ONITY_TIMING_COUNT; t++) {
        L.timing = t;
        L.in_tick = 1;
        OK(onity_batch_tick(L.rt, b, t));
        L.in_tick = 0;
        take_resumptions(b, t);
    }
}

static void expect_batch(int line, int id, uint64_t frame, uint32_t timing, uint32_t state, uint32_t status) {
    const BatchRec *r = &B[id];
    if (r->count != 1 || r->frame != frame || r->timing != timing || r->state != state || r->status != status) {
        fprintf(stderr,
                "%s:%d: batch record %d: reported %d times, last at frame %llu timing %u state %u status %u; "
                "expected once at frame %llu timing %u state %u status %u\n",
                __FILE__, line, id, r->count, (unsigned long long)r->frame, (unsigned)r->timing,
                (unsigned)r->state, (unsigned)r->status, (unsigned long long)frame, (unsigned)timing,
                (unsigned)state, (unsigned)status);
        g_failures++;
    }
}
#define EXPECT_BATCH(id, frame, timing, state, status) expect_batch(__LINE__, id, frame, timing, state, status)

void test_batch(void) {
    OnityBatch *b = NULL, *b2 = NULL;
    uint64_t cs, m, m2, seconds_bits, f;
    const double quarter = 0.25;
    OnityStats s0, s1;
    uint32_t t;
    int i;

    OK(onity_batch_create(L.rt, 8, &b));
    CHECK(b != NULL);
    if (!b) return;
    CHECK_EQ_U64(b->size, sizeof *b);
    CHECK_EQ_U64(b->submit_capacity, 8);
    CHECK(b->submit != NULL);
    CHECK_EQ_U64(b->submit_count, 0);
    CHECK_EQ_U64(b->resumed_count, 0);
    memcpy(&seconds_bits, &quarter, sizeof seconds_bits);

    begin_std_frame();
    f = L.frame;
    cs = source();
    m = manual();
    batch_add(b, 1, ONITY_WAIT_KIND_YIELD, ONITY_TIMING_UPDATE, 0, 0, 0);
    batch_add(b, 2, ONITY_WAIT_KIND_NEXT_FRAME, ONITY_TIMING_UPDATE, 0, 0, 0);
    batch_add(b, 3, ONITY_WAIT_KIND_DELAY_FRAME, ONITY_TIMING_UPDATE, 2, 0, 0);
    batch_add(b, 4, ONITY_WAIT_KIND_DELAY, ONITY_TIMING_UPDATE, seconds_bits, ONITY_CLOCK_SCALED, 0);
    batch_add(b, 5, ONITY_BATCH_TASK, 0, m, 0, 0);
    batch_add(b, 6, ONITY_WAIT_KIND_YIELD, 16, 0, 0, 0);                      /* bad timing: rejected */
    batch_add(b, 7, ONITY_WAIT_KIND_DELAY_FRAME, ONITY_TIMING_UPDATE, 100, 0, cs); /* canceled below */
    batch_add(b, 8, ONITY_WAIT_KIND_YIELD, ONITY_TIMING_EARLY_UPDATE, 0, 0, 0);
    CHECK_EQ_U64(b->submit_count, 8);
    OK(onity_batch_flush(L.rt, b)); /* full: file now */
    CHECK_EQ_U64(b->submit_count, 0);
    take_resumptions(b, HOST);
    EXPECT_BATCH(6, f, HOST, ONITY_TASK_STATE_FAULTED, ONITY_STATUS_INVALID_ARGUMENT);
    /* written after the flush: filed by the next batch call */
    batch_add(b, 9, ONITY_WAIT_KIND_YIELD, ONITY_TIMING_UPDATE, 0, 0, 0);
    batch_add(b, 10, ONITY_BATCH_TASK, 0, m, 0, 0); /* m already awaited by record 5 */
    batch_add(b, 11, ONITY_WAIT_KIND_DELAY, ONITY_TIMING_UPDATE, 0, 7, 0); /* bad clock */

    for (t = 0; t < ONITY_TIMING_COUNT; t++) {
        if (t == ONITY_TIMING_UPDATE) OK(onity_cancel_source_cancel(L.rt, cs));
        L.timing = t;
        L.in_tick = 1;
        OK(onity_batch_tick(L.rt, b, t));
        L.in_tick = 0;
        take_resumptions(b, t);
        if (t == ONITY_TIMING_PRE_UPDATE) {
            for (i = 1; i <= 11; i++)
                if (i != 6 && i != 8 && i != 10 && i != 11) CHECK_EQ_U64(B[i].count, 0);
            OK(onity_task_set_result(L.rt, m, 55)); /* on the owner: reported at once */
            take_resumptions(b, HOST);
            EXPECT_BATCH(5, f, HOST, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
            CHECK_EQ_U64(consume(m).value, 55); /* the host consumes BATCH_TASK tasks */
        }
    }
    EXPECT_BATCH(10, f, ONITY_TIMING_INITIALIZATION, ONITY_TASK_STATE_FAULTED, ONITY_STATUS_ALREADY_AWAITED);
    EXPECT_BATCH(11, f, ONITY_TIMING_INITIALIZATION, ONITY_TASK_STATE_FAULTED, ONITY_STATUS_INVALID_ARGUMENT);
    EXPECT_BATCH(8, f, ONITY_TIMING_EARLY_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    EXPECT_BATCH(1, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    EXPECT_BATCH(7, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_CANCELED, ONITY_STATUS_OK);
    EXPECT_BATCH(9, f, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    {
        /* scheduling order within Update: 1 and 7 (flush), then 9 */
        int k, pos1 = -1, pos7 = -1, pos9 = -1;
        for (k = 0; k < g_batch_norder; k++) {
            if (g_batch_order[k] == 1) pos1 = k;
            if (g_batch_order[k] == 7) pos7 = k;
            if (g_batch_order[k] == 9) pos9 = k;
        }
        CHECK(pos1 >= 0 && pos1 < pos7 && pos7 < pos9);
    }
    CHECK_EQ_U64(B[2].count, 0);

    batch_frame(b); /* f+1 */
    EXPECT_BATCH(2, f + 1, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    CHECK_EQ_U64(B[3].count, 0);
    CHECK_EQ_U64(B[4].count, 0);
    batch_frame(b); /* f+2: DelayFrame(2) and 2 x 0.125 scaled seconds */
    EXPECT_BATCH(3, f + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    EXPECT_BATCH(4, f + 2, ONITY_TIMING_UPDATE, ONITY_TASK_STATE_SUCCEEDED, ONITY_STATUS_OK);
    for (i = 1; i <= 11; i++) CHECK_EQ_U64(B[i].count, 1);

    /* Destroying a batch cancels what it filed, reported nowhere; a task it
     * was awaiting is left to the host. */
    OK(onity_batch_create(L.rt, 4, &b2));
    m2 = manual();
    batch_add(b2, 20, ONITY_WAIT_KIND_DELAY_FRAME, ONITY_TIMING_UPDATE, 1000, 0, 0);
    batch_add(b2, 21, ONITY_WAIT_KIND_NEXT_FRAME, ONITY_TIMING_LAST_UPDATE, 0, 0, 0);
    batch_add(b2, 22, ONITY_BATCH_TASK, 0, m2, 0, 0);
    OK(onity_batch_flush(L.rt, b2));
    s0 = stats();
    OK(onity_batch_destroy(L.rt, b2));
    s1 = stats();
    CHECK_EQ_U64(s1.waits[ONITY_WAIT_KIND_DELAY_FRAME].pending + 1, s0.waits[ONITY_WAIT_KIND_DELAY_FRAME].pending);
    CHECK_EQ_U64(s1.waits[ONITY_WAIT_KIND_DELAY_FRAME].canceled, s0.waits[ONITY_WAIT_KIND_DELAY_FRAME].canceled + 1);
    CHECK_EQ_U64(s1.waits[ONITY_WAIT_KIND_NEXT_FRAME].pending + 1, s0.waits[ONITY_WAIT_KIND_NEXT_FRAME].pending);
    CHECK_STATUS(onity_batch_flush(L.rt, b2), ONITY_STATUS_INVALID_HANDLE); /* gone */
    OK(onity_task_set_result(L.rt, m2, 2));
    CHECK_EQ_U64(consume(m2).value, 2);
    batch_frame(b);
    for (i = 20; i <= 22; i++) CHECK_EQ_U64(B[i].count, 0);

    OK(onity_cancel_source_destroy(L.rt, cs));
    OK(onity_batch_destroy(L.rt, b));
}

/* Statistics and the live task list agree with what the test holds. */
void test_live_tasks(void) {
    uint64_t t[5], list[16];
    uint32_t n = 0, i, j, found;
    uint32_t before = live_count();
    OnityStats s;
    for (i = 0; i < 5; i++) t[i] = manual();
    CHECK_EQ_U64(live_count(), before + 5);
    s = stats();
    CHECK_EQ_U64(s.live_tasks, before + 5);
    CHECK_EQ_U64(s.pools[ONITY_POOL_TASKS].live, before + 5);
    OK(onity_runtime_live_tasks(L.rt, list, 16, &n));
    CHECK_EQ_U64(n, before + 5);
    for (i = 0; i < 5; i++) {
        found = 0;
        for (j = 0; j < n && j < 16; j++) found += list[j] == t[i];
        CHECK_EQ_U64(found, 1);
    }
    /* capacity smaller than the count: the count is still the total */
    OK(onity_runtime_live_tasks(L.rt, list, 2, &n));
    CHECK_EQ_U64(n, before + 5);
    for (i = 0; i < 5; i++) OK(onity_task_set_result(L.rt, t[i], i));
    CHECK_EQ_U64(stats().completed_unconsumed, 5);
    for (i = 0; i < 5; i++) CHECK_EQ_U64(consume(t[i]).value, i);
    CHECK_EQ_U64(live_count(), before);

    /* A burst past the configured task_capacity (64): each rent of a
     * never-used slot beyond it is a cold allocation; reused slots are not.
     * The pool's `capacity` is the number of slots allocated, in chunks of
     * 1024, at least the configured capacity. */
    {
        uint64_t burst[100];
        OnityStats s0 = stats(), s1, s2;
        const OnityPoolStats *tp;
        for (i = 0; i < 100; i++) burst[i] = manual();
        s1 = stats();
        tp = &s1.pools[ONITY_POOL_TASKS];
        CHECK(tp->high_water >= before + 100);
        CHECK(tp->high_water > 64);
        CHECK_EQ_U64(tp->cold_allocations, tp->high_water - 64);
        CHECK(tp->cold_allocations > s0.pools[ONITY_POOL_TASKS].cold_allocations);
        CHECK(tp->capacity >= 64 && tp->capacity % 1024 == 0);
        CHECK(tp->live + tp->idle <= tp->capacity);
        for (i = 0; i < 100; i++) OK(onity_task_cancel(L.rt, burst[i]));
        for (i = 0; i < 100; i++) consume(burst[i]);
        for (i = 0; i < 100; i++) burst[i] = manual(); /* reuses slots: no new cold allocation */
        s2 = stats();
        CHECK_EQ_U64(s2.pools[ONITY_POOL_TASKS].cold_allocations, s1.pools[ONITY_POOL_TASKS].cold_allocations);
        for (i = 0; i < 100; i++) OK(onity_task_set_result(L.rt, burst[i], i));
        for (i = 0; i < 100; i++) CHECK_EQ_U64(consume(burst[i]).value, i);
    }
}
