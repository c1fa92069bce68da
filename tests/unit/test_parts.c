/* test_parts.c - the estimate of a trace held in parts (src/estimate/parts.c and the
 * part paths of samples.c, pairs.c and estimate.c) without MPI: N threads play N
 * processes, each holding its block of locations, and talk through an in-memory
 * transport (a barrier around shared outboxes; a mailbox per process for process
 * 0's questions). On simulated runs (several nodes, ClockOffset records, every
 * collective class, mid-run sessions, a clock per rank, idle gaps between busy
 * periods), with each estimator and the global least squares, and on every N (one,
 * fewer than the locations, as many, more; each process collecting the samples of
 * the collective instances it would match, coll_split.h), every process's maps are
 * those of tsync_estimate_run, to the bit, and process 0 warns as it does. A failure
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

#include "estimate/estimate_api.h"
#include "tracesync/sim.h"
#include "util/fs.h"

#include "coll_split.h"
#include "est_fixture.h"
#include "thread_world.h"

#define MAXP 10

/* What the threads share: the exchanges and reductions, and process 0's questions. */
struct world {
    struct thread_world tw;
    void *bcast;
    size_t n_bcast;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int asked[MAXP], answered[MAXP], done, done_rc;
    const void *q;                /* process 0's question, and the answer */
    size_t n_q, n_a;
    void *a;
};

/* One process: its trace (the shared one with its own `held`), its maps. */
struct proc {
    struct world *w;
    unsigned rank;
    struct tsync_trace t;
    const tsync_estimate_opts *opts;
    tsync_map_set *maps;
    int rc;
    char error[512];
    struct fx_warnings warnings;
};

static int w_exchange(void *arg, const void *v, size_t size, const uint32_t *dest, size_t n,
                      void **in, size_t *n_in)
{
    struct proc *p = arg;
    return thread_exchange(&p->w->tw, p->rank, v, size, dest, n, in, n_in);
}

static int w_reduce(void *arg, int64_t *v, int n, int sum)
{
    struct proc *p = arg;
    return thread_reduce(&p->w->tw, p->rank, v, n, sum);
}

static int w_broadcast(void *arg, void **buf, size_t *n)
{
    struct proc *p = arg;
    struct world *w = p->w;
    if (p->rank == 0) {
        w->bcast = *buf;
        w->n_bcast = *n;
    }
    pthread_barrier_wait(&w->tw.bar);
    if (p->rank != 0) {
        free(*buf);
        *buf = malloc(w->n_bcast ? w->n_bcast : 1);
        assert_non_null(*buf);
        memcpy(*buf, w->bcast, w->n_bcast);
        *n = w->n_bcast;
    }
    pthread_barrier_wait(&w->tw.bar);
    return TSYNC_OK;
}

static int w_ask(void *arg, uint32_t to, const void *q, size_t n, void **a, size_t *n_a)
{
    struct world *w = ((struct proc *)arg)->w;
    assert_true(to > 0 && to < w->tw.n);
    pthread_mutex_lock(&w->mu);
    w->q = q;
    w->n_q = n;
    w->asked[to] = 1;
    pthread_cond_broadcast(&w->cv);
    while (!w->answered[to])
        pthread_cond_wait(&w->cv, &w->mu);
    w->answered[to] = 0;
    *a = w->a ? w->a : malloc(1);
    *n_a = w->n_a;
    pthread_mutex_unlock(&w->mu);
    return TSYNC_OK;
}

static int w_serve(void *arg, int (*answer)(void *ctx, const void *q, size_t n, void **a,
                                             size_t *n_a),
                    void *ctx)
{
    struct proc *p = arg;
    struct world *w = p->w;
    int rc;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        void *a = NULL;
        size_t n_a = 0;
        while (!w->asked[p->rank] && !w->done)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->asked[p->rank])
            break;
        w->asked[p->rank] = 0;
        if (answer(ctx, w->q, w->n_q, &a, &n_a))
            n_a = 0;
        w->a = a;
        w->n_a = n_a;
        w->answered[p->rank] = 1;
        pthread_cond_broadcast(&w->cv);
    }
    rc = w->done_rc;
    pthread_mutex_unlock(&w->mu);
    return rc;
}

static int w_done(void *arg, int rc)
{
    struct world *w = ((struct proc *)arg)->w;
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    w->done_rc = rc;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

static void *process(void *arg)
{
    struct proc *p = arg;
    struct tsync__est_transport tr = { p->rank, p->w->tw.n, w_exchange, w_reduce, w_broadcast,
                                       w_ask, w_serve, w_done, p };
    tsync_ctx *ctx = NULL;
    if (tsync_ctx_new(&ctx)) {
        p->rc = TSYNC_ENOMEM;
        return NULL;
    }
    tsync_ctx_set_log(ctx, fx_collect, &p->warnings);
    p->rc = tsync__estimate_run_part(&p->maps, &p->t, p->opts, &tr, ctx);
    snprintf(p->error, sizeof(p->error), "%s", p->rc ? tsync_ctx_error(ctx) : "");
    tsync_ctx_free(ctx);
    return NULL;
}

/* The estimate of t on n processes, each holding its block of t's locations, with
 * the send times of the messages they receive; p[] gets each one's result. */
static void run_parts(const tsync_trace *t, const tsync_estimate_opts *o, unsigned n,
                      struct proc *p, struct world *w)
{
    pthread_t th[MAXP];
    tsync_time *send = malloc((t->n_messages ? t->n_messages : 1) * sizeof(*send));
    assert_non_null(send);
    for (size_t i = 0; i < t->n_messages; i++)
        send[i] = t->locations[t->messages[i].send_loc].time[t->messages[i].send_idx];
    memset(w, 0, sizeof(*w));
    w->tw.n = n;
    assert_int_equal(pthread_barrier_init(&w->tw.bar, NULL, n), 0);
    assert_int_equal(pthread_mutex_init(&w->mu, NULL), 0);
    assert_int_equal(pthread_cond_init(&w->cv, NULL), 0);
    for (unsigned k = 0; k < n; k++) {
        memset(&p[k], 0, sizeof(p[k]));
        p[k].w = w;
        p[k].rank = k;
        p[k].t = *t;
        p[k].opts = o;
        p[k].t.send_time = send;
        p[k].t.held = calloc(t->n_locations, 1);
        assert_non_null(p[k].t.held);
        for (tsync_loc l = 0; l < t->n_locations; l++)
            p[k].t.held[l] = tsync__location_holder(l, t->n_locations, n) == k;
        p[k].t.whole = cs_whole(t, k, n);
    }
    for (unsigned k = 0; k < n; k++)
        assert_int_equal(pthread_create(&th[k], NULL, process, &p[k]), 0);
    for (unsigned k = 0; k < n; k++)
        pthread_join(th[k], NULL);
    pthread_barrier_destroy(&w->tw.bar);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(send);
}

static void procs_free(struct proc *p, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        free(p[k].t.held);
        tsync__coll_whole_free(p[k].t.whole);
        tsync_map_set_free(p[k].maps);
    }
}

/* Whether two maps are the same, to the bit (both NULL too). */
static void same_map(const tsync_time_map *a, const tsync_time_map *b)
{
    size_t n;
    assert_true((a == NULL) == (b == NULL));
    if (!a)
        return;
    n = tsync_time_map_point_count(a);
    assert_int_equal(tsync_time_map_kind(a), tsync_time_map_kind(b));
    assert_int_equal(n, tsync_time_map_point_count(b));
    assert_int_equal(tsync_time_map_offset(a), tsync_time_map_offset(b));
    assert_memory_equal(tsync_time_map_local(a), tsync_time_map_local(b), n * sizeof(tsync_time));
    assert_memory_equal(tsync_time_map_global(a), tsync_time_map_global(b), n * sizeof(tsync_time));
    assert_true((tsync_time_map_bounds(a) == NULL) == (tsync_time_map_bounds(b) == NULL));
    if (tsync_time_map_bounds(a))
        assert_memory_equal(tsync_time_map_bounds(a), tsync_time_map_bounds(b), n * sizeof(int64_t));
}

/* A simulated run of scenario `name` (seed 3) with `set` (KEY=VALUE;... or NULL),
 * read with clock domains by `rule`. */
static tsync_trace *simulated(const char *name, uint32_t ranks, uint32_t nodes, const char *set,
                              enum tsync_domain_rule rule)
{
    tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
    tsync_open_opts open = TSYNC_OPEN_OPTS_INIT;
    tsync_sim_result r;
    tsync_trace *t = NULL;
    tsync_ctx *ctx = NULL;
    const char *tmp = getenv("TSYNC_TEST_TMP");
    char dir[512], path[600], kv[256];

    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tsync_ctx_set_log(ctx, NULL, NULL);
    assert_int_equal(tsync_sim_scenario(&o, name, ctx), 0);
    o.seed = 3;
    o.ranks = ranks;
    o.nodes = nodes;
    o.app.events = 3000;
    snprintf(kv, sizeof(kv), "%s", set ? set : "");
    for (char *s = strtok(kv, ";"); s; s = strtok(NULL, ";")) {
        char *eq = strchr(s, '=');
        assert_non_null(eq);
        *eq = '\0';
        assert_int_equal(tsync_sim_set(&o, s, eq + 1, ctx), 0);
    }
    snprintf(dir, sizeof(dir), "%s/parts/%s", tmp && *tmp ? tmp : "/tmp/tsync-test", name);
    tsync__remove_tree(dir);
    if (tsync_sim_run(&r, &o, dir, ctx))
        fail_msg("tsync_sim_run: %s", tsync_ctx_error(ctx));
    snprintf(path, sizeof(path), "%s/trace.otf2", dir);
    open.domains = rule;
    if (tsync_trace_open(&t, path, &open, ctx))
        fail_msg("%s: %s", path, tsync_ctx_error(ctx));
    tsync_ctx_free(ctx);
    tsync__remove_tree(dir);
    return t;
}

/* What a case exercised: of the serial estimate. */
struct exercised {
    uint32_t domains, bounded;
    size_t periods;
    tsync_estimate_sources sources;   /* of the domains' paths, summed */
};

/* On 1 .. max processes and on `more` (more than the locations), every process's
 * maps are tsync_estimate_run's, process 0 warns as it does (t is freed). */
static struct exercised same_as_serial(tsync_trace *t, const tsync_estimate_opts *o, unsigned max,
                                       unsigned more)
{
    struct fx_warnings serial_warnings;
    struct exercised x;
    tsync_estimate *e;
    struct proc p[MAXP];
    struct world w;

    memset(&serial_warnings, 0, sizeof(serial_warnings));
    memset(&x, 0, sizeof(x));
    e = fx_estimate(t, o, &serial_warnings);
    x.domains = tsync_estimate_domain_count(e);
    x.periods = tsync_estimate_period_count(e);
    for (uint32_t d = 0; d < x.domains; d++) {
        const tsync_estimate_domain *dom = tsync_estimate_get_domain(e, d);
        x.bounded += dom->kind == TSYNC_BOUND_BOUNDED;
        x.sources.messages += dom->sources.messages;
        x.sources.collectives += dom->sources.collectives;
        x.sources.sessions += dom->sources.sessions;
        x.sources.offsets += dom->sources.offsets;
    }
    for (unsigned n = 1; n <= more; n = n == max ? more : n + 1) {
        run_parts(t, o, n, p, &w);
        for (unsigned k = 0; k < n; k++) {
            if (p[k].rc)
                fail_msg("%u processes, process %u: %s", n, k, p[k].error);
            for (tsync_loc l = 0; l < t->n_locations; l++)
                same_map(tsync_map_set_get(tsync_estimate_maps(e), l),
                         tsync_map_set_get(p[k].maps, l));
        }
        assert_string_equal(p[0].warnings.all, serial_warnings.all);
        procs_free(p, n);
    }
    tsync_estimate_free(e);
    tsync_trace_free(t);
    return x;
}

/* Several nodes with ClockOffset records and every collective class, each
 * estimator, the global least squares. */
static void test_nodes(void **state)
{
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    struct exercised x;
    (void)state;
    x = same_as_serial(simulated("smoke", 8, 4, "app.collectives=all;app.collective_every=2",
                                 TSYNC_DOMAIN_NODE), &o, 5, 9);
    assert_int_equal(x.domains, 4);
    assert_int_equal(x.bounded, 3);
    assert_true(x.sources.collectives > 0 && x.sources.offsets > 0);
    o.estimator = TSYNC_ESTIMATOR_REGRESSION;
    x = same_as_serial(simulated("smoke", 6, 3, NULL, TSYNC_DOMAIN_NODE), &o, 3, 7);
    assert_int_equal(x.domains, 3);
    o.estimator = TSYNC_ESTIMATOR_HULL;
    o.global_lsq = 1;
    assert_int_equal(same_as_serial(simulated("smoke", 6, 3, NULL, TSYNC_DOMAIN_NODE), &o, 3,
                                    7).bounded, 2);
}

/* Messages of synchronization sessions (on the collector's communicator: here
 * every seventh), a clock per rank each its own domain, busy periods between idle
 * gaps. */
static void test_sessions_locations_periods(void **state)
{
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    tsync_trace *t = simulated("smoke", 4, 2, NULL, TSYNC_DOMAIN_NODE);
    struct exercised x;
    (void)state;
    t->session_messages = malloc((t->n_messages / 7 + 1) * sizeof(*t->session_messages));
    assert_non_null(t->session_messages);
    for (size_t i = 0; i < t->n_messages; i += 7)
        t->session_messages[t->n_session_messages++] = i;
    x = same_as_serial(t, &o, 4, 5);
    assert_true(x.sources.sessions > 0 && x.sources.offsets > 0);
    assert_int_equal(same_as_serial(simulated("smoke", 6, 2, "clock_per_rank=on",
                                              TSYNC_DOMAIN_LOCATION), &o, 3, 7).domains, 6);
    assert_true(same_as_serial(simulated("sleeps", 4, 2, "app.sleep_before_s=20;"
                                         "app.sleep_after_s=20", TSYNC_DOMAIN_NODE),
                               &o, 2, 5).periods > 1);
}

/* A message of process 1's that names an event its trace does not have: every
 * process fails; process 1 says why, the others that another failed. */
static void test_failure(void **state)
{
    tsync_trace *t = simulated("smoke", 4, 2, NULL, TSYNC_DOMAIN_NODE);
    struct tsync_message *bad = malloc(t->n_messages * sizeof(*bad));
    struct proc p[MAXP];
    struct world w;
    pthread_t th[2];
    (void)state;
    assert_non_null(bad);
    memcpy(bad, t->messages, t->n_messages * sizeof(*bad));
    bad[0].recv_idx = t->locations[bad[0].recv_loc].n_events;
    run_parts(t, NULL, 2, p, &w);        /* first as it is: both succeed */
    assert_int_equal(p[0].rc, 0);
    assert_int_equal(p[1].rc, 0);
    procs_free(p, 2);
    /* Then process 1 with the bad message (the threads started by hand). */
    memset(&w, 0, sizeof(w));
    w.tw.n = 2;
    assert_int_equal(pthread_barrier_init(&w.tw.bar, NULL, 2), 0);
    assert_int_equal(pthread_mutex_init(&w.mu, NULL), 0);
    assert_int_equal(pthread_cond_init(&w.cv, NULL), 0);
    for (unsigned k = 0; k < 2; k++) {
        memset(&p[k], 0, sizeof(p[k]));
        p[k].w = &w;
        p[k].rank = k;
        p[k].t = *t;
        p[k].t.held = calloc(t->n_locations, 1);
        p[k].t.send_time = calloc(t->n_messages, sizeof(tsync_time));
        assert_true(p[k].t.held && p[k].t.send_time);
        for (tsync_loc l = 0; l < t->n_locations; l++)
            p[k].t.held[l] = tsync__location_holder(l, t->n_locations, 2) == k;
        p[k].t.whole = cs_whole(t, k, 2);
    }
    p[1].t.messages = bad;
    for (unsigned k = 0; k < 2; k++)
        assert_int_equal(pthread_create(&th[k], NULL, process, &p[k]), 0);
    for (unsigned k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    assert_int_equal(p[0].rc, TSYNC_EIO);
    assert_non_null(strstr(p[0].error, "another process of the replay failed"));
    assert_int_equal(p[1].rc, TSYNC_EINVAL);
    assert_non_null(strstr(p[1].error, "refers to an event that does not exist"));
    for (unsigned k = 0; k < 2; k++)
        free(p[k].t.send_time);
    procs_free(p, 2);
    pthread_barrier_destroy(&w.tw.bar);
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv);
    free(bad);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nodes),
        cmocka_unit_test(test_sessions_locations_periods),
        cmocka_unit_test(test_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
