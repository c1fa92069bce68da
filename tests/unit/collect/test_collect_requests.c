/* test_collect_requests.c - the collector's pending requests by handle value,
 * several per value (collect/requests.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "collect/requests.h"

static struct tsc_request req(uint64_t id)
{
    return (struct tsc_request){ id, (uint32_t)(id * 3), id % 2 == 1 };
}

static void assert_take(struct tsc_requests *t, uint64_t h, uint64_t id)
{
    struct tsc_request r;
    assert_true(tsc_requests_take(t, h, &r));
    assert_int_equal(r.id, id);
    assert_int_equal(r.comm, id * 3);
    assert_int_equal(r.recv, id % 2 == 1);
}

/* Open MPI's shared handle: requests of one value come out oldest first, between
 * others of their own values; an emptied value is gone, and comes back. */
static void test_shared_handle_in_posting_order(void **state)
{
    (void)state;
    struct tsc_requests t = { 0 };
    struct tsc_request r = req(99);
    assert_false(tsc_requests_take(&t, 7, &r));
    assert_int_equal(r.id, 99);
    assert_int_equal(tsc_requests_add(&t, 0xE, req(0)), 0);
    assert_int_equal(tsc_requests_add(&t, 0xA, req(1)), 0);
    assert_int_equal(tsc_requests_add(&t, 0xE, req(2)), 0);
    assert_int_equal(tsc_requests_add(&t, 0xE, req(3)), 0);
    assert_take(&t, 0xE, 0);
    assert_take(&t, 0xA, 1);
    assert_false(tsc_requests_take(&t, 0xA, &r));
    assert_int_equal(tsc_requests_add(&t, 0xE, req(4)), 0);
    assert_take(&t, 0xE, 2);
    assert_take(&t, 0xE, 3);
    assert_take(&t, 0xE, 4);
    assert_false(tsc_requests_take(&t, 0xE, &r));
    assert_int_equal(tsc_requests_add(&t, 0xE, req(5)), 0);
    assert_take(&t, 0xE, 5);
    tsc_requests_free(&t);
    assert_false(tsc_requests_take(&t, 0xE, &r));
    tsc_requests_free(&t);
}

/* Random adds and takes on few values, against a model: per value a queue. The
 * table grows and shifts slots back on removal; every value keeps its order. */
#define VALUES 300
#define OPS 200000
#define RING 2048 /* more than the requests ever pending */
static void test_against_model(void **state)
{
    (void)state;
    unsigned seed = 15;
    printf("seed %u\n", seed);
    srand(seed);
    static uint64_t queue[VALUES][RING];
    static size_t head[VALUES], tail[VALUES];
    struct tsc_requests t = { 0 };
    uint64_t id = 0;
    size_t pending = 0, most = 0;
    for (int op = 0; op < OPS; op++) {
        size_t v = (size_t)rand() % VALUES;
        /* values: a few large handles and small ones, all sharing low bits */
        uint64_t h = v < 10 ? UINT64_C(0x7f0000000000) + 64 * v : 4096 * v;
        bool add = pending < 2000 && rand() % 100 < (op < OPS / 2 ? 60 : 40);
        if (add) {
            assert_int_equal(tsc_requests_add(&t, h, req(id)), 0);
            queue[v][tail[v]++ % RING] = id++;
            pending++;
        } else if (head[v] < tail[v]) {
            assert_take(&t, h, queue[v][head[v]++ % RING]);
            pending--;
        } else {
            struct tsc_request r;
            assert_false(tsc_requests_take(&t, h, &r));
        }
        most = pending > most ? pending : most;
    }
    assert_true(most >= 1000);
    for (size_t v = 0; v < VALUES; v++) {
        uint64_t h = v < 10 ? UINT64_C(0x7f0000000000) + 64 * v : 4096 * v;
        while (head[v] < tail[v])
            assert_take(&t, h, queue[v][head[v]++ % RING]);
        struct tsc_request r;
        assert_false(tsc_requests_take(&t, h, &r));
    }
    assert_int_equal(t.n_slots, 0);
    tsc_requests_free(&t);
}

/* Thousands of requests on one value (a burst of small Isends) hold one slot. */
static void test_burst_on_one_value(void **state)
{
    (void)state;
    struct tsc_requests t = { 0 };
    for (uint64_t i = 0; i < 5000; i++)
        assert_int_equal(tsc_requests_add(&t, 0xE, req(i)), 0);
    assert_int_equal(t.n_slots, 1);
    for (uint64_t i = 0; i < 5000; i++)
        assert_take(&t, 0xE, i);
    assert_int_equal(t.n_slots, 0);
    tsc_requests_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_handle_in_posting_order),
        cmocka_unit_test(test_against_model),
        cmocka_unit_test(test_burst_on_one_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
