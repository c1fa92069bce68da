/* test_workers.c - one function on several threads (util/workers.c) and the
 * context's thread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <cmocka.h>

#include "util/ctx.h"
#include "util/workers.h"

#define MAX 16

struct run {
    _Atomic int calls[MAX];
    pthread_t caller, thread[MAX];
};

static void work(void *arg, unsigned w)
{
    struct run *r = arg;
    assert_true(w < MAX);
    r->thread[w] = pthread_self();
    atomic_fetch_add(&r->calls[w], 1);
}

/* Every worker runs once, worker 0 on the calling thread; returns only when all
 * are done. */
static void test_each_once(void **state)
{
    static const unsigned counts[] = { 0, 1, 2, 7, MAX };
    (void)state;
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        struct run r = { 0 };
        unsigned n = counts[k];
        r.caller = pthread_self();
        tsync__run_workers(n, work, &r);
        for (unsigned w = 0; w < MAX; w++)
            assert_int_equal(atomic_load(&r.calls[w]), w < n);
        if (n)
            assert_true(pthread_equal(r.thread[0], r.caller));
    }
}

/* 1 by default; 0 means one per processor; NULL (no context) means 1. */
static void test_ctx_threads(void **state)
{
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__threads(ctx), 1);
    tsync_ctx_set_threads(ctx, 5);
    assert_int_equal(tsync__threads(ctx), 5);
    tsync_ctx_set_threads(ctx, 0);
    assert_true(tsync__threads(ctx) >= 1);
    assert_int_equal(tsync__threads(NULL), 1);
    tsync_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_once),
        cmocka_unit_test(test_ctx_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
