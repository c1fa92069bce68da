/* test_replay.c - the controlled logical clock as a replay (src/clc/replay.c and the
 * replay paths of forward.c, backward.c, gamma.c, clc.c) without MPI: N threads
 * play N processes, each holding its block of locations, and talk through an
 * in-memory transport (a barrier around shared outboxes). On every trace and every
 * N (one, fewer than the locations, as many, more; each process holding only its
 * own members of the collective instances, coll_split.h) each location's LC' and the
 * stage's counts are tsync_clc_run's, to the bit: point-to-point messages,
 * each collective class, a cycle of messages (the forced location is agreed),
 * several passes of the gamma controller, ClockOffset pre-synchronization. A failure
 * on one process fails them all, with its own error where it happened. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clc/clc.h"
#include "coll_split.h"
#include "thread_world.h"
#include "tracegen.h"

#define MAXP 8

/* One process: its trace (the shared one with its own `held`), its result. */
struct proc {
    struct thread_world *w;
    unsigned rank;
    struct tsync_trace t;
    const tsync_clc_opts *opts;
    tsync_timeline *tl;
    tsync_clc_result *r;
    int rc;
    char error[512];
};

static int fx_exchange(void *arg, const struct clc_msg *msg, const uint32_t *dest, size_t n,
                       struct clc_msg **in, size_t *n_in)
{
    struct proc *p = arg;
    void *got;
    int rc = thread_exchange(p->w, p->rank, msg, sizeof(*msg), dest, n, &got, n_in);
    *in = got;
    return rc;
}

static int fx_reduce(void *arg, int64_t *v, int n, int sum)
{
    struct proc *p = arg;
    return thread_reduce(p->w, p->rank, v, n, sum);
}

static void *process(void *arg)
{
    struct proc *p = arg;
    struct tsync__clc_transport tr = { p->rank, p->w->n, fx_exchange, fx_reduce, p };
    tsync_ctx *ctx = NULL;
    if (tsync_ctx_new(&ctx) || tsync_timeline_new(&p->tl, &p->t, ctx)) {
        p->rc = TSYNC_ENOMEM;
    } else {
        p->rc = tsync__clc_run_replay(&p->r, &p->t, p->tl, p->opts, &tr, ctx);
        snprintf(p->error, sizeof(p->error), "%s", p->rc ? tsync_ctx_error(ctx) : "");
    }
    tsync_ctx_free(ctx);
    return NULL;
}

/* Runs the replay of t's raw times on n processes; p[] gets each one's result. */
static void replay(const tsync_trace *t, const tsync_clc_opts *o, unsigned n, struct proc *p,
                   struct thread_world *w)
{
    pthread_t th[MAXP];
    memset(w, 0, sizeof(*w));
    w->n = n;
    assert_int_equal(pthread_barrier_init(&w->bar, NULL, n), 0);
    for (unsigned k = 0; k < n; k++) {
        memset(&p[k], 0, sizeof(p[k]));
        p[k].w = w;
        p[k].rank = k;
        p[k].t = *t;
        p[k].opts = o;
        p[k].t.held = calloc(t->n_locations, 1);
        for (tsync_loc l = 0; l < t->n_locations; l++)
            p[k].t.held[l] = tsync__location_holder(l, t->n_locations, n) == k;
        cs_split(&p[k].t, t, k, n);
        assert_int_equal(pthread_create(&th[k], NULL, process, &p[k]), 0);
    }
    for (unsigned k = 0; k < n; k++)
        pthread_join(th[k], NULL);
    pthread_barrier_destroy(&w->bar);
}

static void procs_free(struct proc *p, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        free(p[k].t.held);
        cs_free(&p[k].t);
        tsync_timeline_free(p[k].tl);
        tsync_clc_result_free(p[k].r);
    }
}

/* The replay on 1 .. max processes gives tsync_clc_run's times and counts; returns
 * the serial result (so that a case can say what it exercised). */
static tsync_clc_result same_as_serial(const char *spec, const tsync_clc_opts *o, unsigned max)
{
    tsync_trace *t = tg_parse(spec);
    tsync_timeline *tl = NULL;
    tsync_clc_result *r = NULL;
    tsync_ctx *ctx = NULL;
    struct proc p[MAXP];
    struct thread_world w;
    tsync_clc_result res;

    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
    assert_int_equal(tsync_clc_run(&r, t, tl, o, ctx), 0);
    for (unsigned n = 1; n <= max; n++) {
        replay(t, o, n, p, &w);
        for (unsigned k = 0; k < n; k++) {
            assert_int_equal(p[k].rc, 0);
            assert_int_equal(p[k].r->passes, r->passes);
            assert_int_equal(p[k].r->receives, r->receives);
            assert_int_equal(p[k].r->corrected_p2p, r->corrected_p2p);
            assert_int_equal(p[k].r->corrected_collective, r->corrected_collective);
            assert_int_equal(p[k].r->ignored, r->ignored);
            assert_int_equal(p[k].r->amortized_events, r->amortized_events);
            assert_int_equal(p[k].r->limited_jumps, r->limited_jumps);
            assert_int_equal(p[k].r->moved_events, r->moved_events);
            assert_int_equal(p[k].r->presync_locations, r->presync_locations);
            assert_int_equal(p[k].r->offset_records, r->offset_records);
            assert_true(p[k].r->max_jump_s == r->max_jump_s);
            assert_true(p[k].r->error == r->error);
            for (tsync_loc l = 0; l < t->n_locations; l++)
                if (p[k].t.held[l])
                    assert_memory_equal(p[k].tl->time[l], tl->time[l],
                                        t->locations[l].n_events * sizeof(tsync_time));
        }
        procs_free(p, n);
    }
    res = *r;
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
    return res;
}

/* mu = 10 ticks, gamma 0.5 (the fraction of a tick carried from interval to
 * interval matters), one pass, amortization intervals of 4 x the jump. */
static tsync_clc_opts exact_opts(void)
{
    tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
    o.latency_intra_s = 10e-9;
    o.latency_inter_s = 10e-9;
    o.gamma = 0.5;
    o.max_passes = 1;
    o.max_slope = 0.25;
    return o;
}

/* Messages across locations and nodes, some received before they were sent. */
static void test_p2p(void **state)
{
    tsync_clc_opts o = exact_opts();
    (void)state;
    assert_true(same_as_serial("L0@a: 0 100:s:a 200:r:b 300:s:c 400;"
                               "L1@a: 0 50:r:a 150:s:b 250:s:d 380:r:e;"
                               "L2@b: 0 120:r:c 130:s:e 500;"
                               "L3@b: 10 20:r:d 600", &o, 5).corrected_p2p > 0);
}

/* Every collective class, with point-to-point messages in between. */
static void test_collectives(void **state)
{
    static const char *const cls[] = { "bcast 1", "reduce 2", "allreduce -", "scan -",
                                       "exscan -" };
    tsync_clc_opts o = exact_opts();
    (void)state;
    for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
        char spec[512];
        snprintf(spec, sizeof(spec),
                 "coll c %s; coll d allreduce -;"
                 "L0@a: 0 100:b:c 180:e:c 200:s:m 300:b:d 320:e:d 400;"
                 "L1@a: 0 40:b:c 150:e:c 190:r:m 260:b:d 350:e:d;"
                 "L2@b: 0 160:b:c 170:e:c 310:b:d 330:e:d 340:s:n;"
                 "L3@c: 0 20:b:c 60:e:c 250:b:d 290:e:d 300:r:n 700", cls[i]);
        assert_true(same_as_serial(spec, &o, 5).corrected_collective > 0);
    }
}

/* Instances of some locations only (on some processes only), scan and exscan among
 * them in another order of ranks than of processes for none. */
static void test_sub_collectives(void **state)
{
    tsync_clc_opts o = exact_opts();
    (void)state;
    assert_int_equal(same_as_serial("coll f scan -; coll g exscan -; coll h reduce 0;"
                                    "L0@a: 0 50:b:g 60:e:g 100;"
                                    "L1@a: 0 30:b:f 35:e:f 200:b:h 210:e:h;"
                                    "L2@b: 0 70:b:g 72:e:g 205:b:h 206:e:h;"
                                    "L3@c: 0 20:b:f 25:e:f 74:b:g 76:e:g", &o, 5)
                         .corrected_collective, 3);
}

/* A cycle through a collective: L1 begins it only after a message that L0 sends
 * after its end. L0, the lowest location waiting, goes on with the sends final so
 * far (L2's, held by another process from 2 processes on), on every process count. */
static void test_collective_cycle(void **state)
{
    tsync_clc_opts o = exact_opts();
    (void)state;
    assert_int_equal(same_as_serial("coll c allreduce -;"
                                    "L0@a: 0 10:b:c 20:e:c 30:s:m 40;"
                                    "L1@b: 0 10:r:m 20:b:c 30:e:c;"
                                    "L2@c: 0 30:b:c 35:e:c", &o, 4).ignored, 1);
}

/* L0 and L1 each receive before sending to the other: the lowest location waiting
 * goes on without its send, on every process count. */
static void test_cycle(void **state)
{
    tsync_clc_opts o = exact_opts();
    (void)state;
    assert_int_equal(same_as_serial("L0@a: 0 10:r:x 20:s:y 30:r:z 40:s:w;"
                                    "L1@b: 0 10:r:y 20:s:x 30;"
                                    "L2@c: 0 100:s:z 110:r:w", &o, 4).ignored, 1);
}

/* The defaults: the gamma controller over several passes, ClockOffset
 * pre-synchronization of some locations. */
static void test_passes_presync(void **state)
{
    tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
    tsync_clc_result r;
    (void)state;
    o.latency_intra_s = o.latency_inter_s = 10e-9;
    r = same_as_serial("off 1 0 -500; off 1 10000 -400; off 2 0 300;"
                       "L0@a: 0 1000:s:a 2000:r:b 3000:s:c 9000 20000;"
                       "L1@b: 500 1100:r:a 1200:s:b 2500 4000:r:c 20000;"
                       "L2@c: 0 100 5000 20000", &o, 4);
    assert_int_equal(r.presync_locations, 2);
    assert_true(r.passes > 1 && r.corrected_p2p > 0);
}

/* A time beyond the clc's range on location 2 (process 1 of 2): every process
 * fails; process 1 says why, naming the event, process 0 that another failed. */
static void test_failure(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 0 100:s:a; L1@a: 0 50:r:a; L2@b: 0 10; L3@b: 0");
    struct proc p[MAXP];
    struct thread_world w;
    (void)state;
    t->locations[2].time[1] = (int64_t)1 << 61;
    replay(t, NULL, 2, p, &w);
    assert_int_equal(p[0].rc, TSYNC_EIO);
    assert_string_equal(p[0].error, TSYNC_OTHERS_FAILED);
    assert_int_equal(p[1].rc, TSYNC_EUNSUPPORTED);
    assert_non_null(strstr(p[1].error, "event 1"));
    procs_free(p, 2);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p2p),
        cmocka_unit_test(test_collectives),
        cmocka_unit_test(test_sub_collectives),
        cmocka_unit_test(test_collective_cycle),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_passes_presync),
        cmocka_unit_test(test_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
