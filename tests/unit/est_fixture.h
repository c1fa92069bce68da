/* est_fixture.h - traces for the estimation tests, built from messages given in
 * any order: events are sorted per location when the trace is finished, and the
 * messages point at them. Locations are "L<i>" with id i and world rank i; with
 * per_location each is its own clock domain "L<i>", otherwise the domain is its
 * node "n<k>". Ticks are nanoseconds.
 *
 *     struct fx *f = fx_new(4, nodes, 0);
 *     fx_msg(f, 0, 1000, 2, 22100);          location 0 sends at 1000, 2 receives at 22100
 *     fx_offset(f, 2, 20000, -20000, 150);   a ClockOffset of location 2
 *     tsync_trace *t = fx_done(f);
 */
#ifndef TSYNC_TEST_EST_FIXTURE_H
#define TSYNC_TEST_EST_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "trace/trace.h"
#include "tracesync/estimate.h"
#include "tracesync/timemap.h"

struct fx_ev {
    tsync_time t;
    uint64_t seq;        /* order of addition: ties keep it */
    size_t msg;          /* message index, or SIZE_MAX */
    uint8_t recv;
};

struct fx {
    tsync_trace *t;
    struct fx_ev **ev;
    size_t *n, *cap;
    size_t n_msg;
    uint64_t seq;
};

static inline struct fx *fx_new(uint32_t n_loc, const uint32_t *node_of, int per_location)
{
    struct fx *f = calloc(1, sizeof(*f));
    tsync_trace *t = tsync__trace_alloc("fx.otf2");
    uint32_t nn = 0;
    assert_true(f && t);
    for (uint32_t i = 0; i < n_loc; i++)
        nn = node_of[i] + 1 > nn ? node_of[i] + 1 : nn;
    t->timer_resolution = 1000000000;
    t->domain_rule = per_location ? TSYNC_DOMAIN_LOCATION : TSYNC_DOMAIN_NODE;
    t->n_locations = t->n_ranks = n_loc;
    t->n_nodes = nn;
    t->n_domains = per_location ? n_loc : nn;
    t->locations = calloc(n_loc, sizeof(*t->locations));
    t->nodes = calloc(nn, sizeof(*t->nodes));
    t->domains = calloc(t->n_domains, sizeof(*t->domains));
    t->rank_loc = calloc(n_loc, sizeof(*t->rank_loc));
    f->ev = calloc(n_loc, sizeof(*f->ev));
    f->n = calloc(n_loc, sizeof(*f->n));
    f->cap = calloc(n_loc, sizeof(*f->cap));
    assert_true(t->locations && t->nodes && t->domains && t->rank_loc && f->ev && f->n && f->cap);
    for (uint32_t k = 0; k < nn; k++) {
        char name[32];
        snprintf(name, sizeof(name), "n%u", k);
        t->nodes[k].name = strdup(name);
    }
    for (uint32_t i = 0; i < n_loc; i++) {
        char name[32];
        struct tsync_location *l = &t->locations[i];
        snprintf(name, sizeof(name), "L%u", i);
        l->name = strdup(name);
        l->ref = i;
        l->rank = i;
        l->node = node_of[i];
        l->domain = per_location ? i : node_of[i];
        t->rank_loc[i] = i;
    }
    for (uint32_t d = 0; d < t->n_domains; d++) {
        t->domains[d].node = per_location ? node_of[d] : d;
        t->domains[d].name = strdup(per_location ? t->locations[d].name : t->nodes[d].name);
    }
    f->t = t;
    return f;
}

static inline void fx_push(struct fx *f, tsync_loc loc, tsync_time t, size_t msg, uint8_t recv)
{
    if (f->n[loc] == f->cap[loc]) {
        f->cap[loc] = f->cap[loc] ? 2 * f->cap[loc] : 16;
        f->ev[loc] = realloc(f->ev[loc], f->cap[loc] * sizeof(**f->ev));
        assert_non_null(f->ev[loc]);
    }
    f->ev[loc][f->n[loc]++] = (struct fx_ev){ t, f->seq++, msg, recv };
}

/* An event that is no message. */
static inline void fx_event(struct fx *f, tsync_loc loc, tsync_time t)
{
    fx_push(f, loc, t, SIZE_MAX, 0);
}

static inline void fx_msg(struct fx *f, tsync_loc s, tsync_time ts, tsync_loc r, tsync_time tr)
{
    fx_push(f, s, ts, f->n_msg, 0);
    fx_push(f, r, tr, f->n_msg, 1);
    f->n_msg++;
}

static inline void fx_offset(struct fx *f, tsync_loc loc, tsync_time time, int64_t offset,
                             double stddev)
{
    tsync_trace *t = f->t;
    t->offsets = realloc(t->offsets, (t->n_offsets + 1) * sizeof(*t->offsets));
    assert_non_null(t->offsets);
    t->offsets[t->n_offsets++] = (struct tsync_clock_offset){ loc, time, offset, stddev };
}

static inline int fx_ev_cmp(const void *pa, const void *pb)
{
    const struct fx_ev *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The trace; the builder is freed. */
static inline tsync_trace *fx_done(struct fx *f)
{
    tsync_trace *t = f->t;
    t->messages = calloc(f->n_msg ? f->n_msg : 1, sizeof(*t->messages));
    assert_non_null(t->messages);
    t->n_messages = f->n_msg;
    for (tsync_loc loc = 0; loc < t->n_locations; loc++) {
        struct tsync_location *l = &t->locations[loc];
        if (f->n[loc] == 0)                 /* every location gets at least one event */
            fx_event(f, loc, 0);
        qsort(f->ev[loc], f->n[loc], sizeof(**f->ev), fx_ev_cmp);
        l->n_events = f->n[loc];
        l->time = malloc(l->n_events * sizeof(*l->time));
        l->kind = malloc(l->n_events);
        assert_true(l->time && l->kind);
        for (size_t i = 0; i < f->n[loc]; i++) {
            const struct fx_ev *e = &f->ev[loc][i];
            l->time[i] = e->t;
            l->kind[i] = e->msg == SIZE_MAX ? TSYNC_EV_OTHER : e->recv ? TSYNC_EV_RECV : TSYNC_EV_SEND;
            if (e->msg == SIZE_MAX)
                continue;
            if (e->recv) {
                t->messages[e->msg].recv_loc = loc;
                t->messages[e->msg].recv_idx = i;
            } else {
                t->messages[e->msg].send_loc = loc;
                t->messages[e->msg].send_idx = i;
            }
        }
        free(f->ev[loc]);
    }
    free(f->ev);
    free(f->n);
    free(f->cap);
    free(f);
    return t;
}

/* The seed of a random test: TSYNC_TEST_SEED, or the time; printed to repeat it. */
static inline unsigned fx_seed(const char *test)
{
    const char *env = getenv("TSYNC_TEST_SEED");
    unsigned seed = env ? (unsigned)atoi(env) : (unsigned)time(NULL);
    printf("%s: seed %u (TSYNC_TEST_SEED to repeat)\n", test, seed);
    srand(seed);
    return seed;
}

/* Warnings of the context's log, all of them. */
struct fx_warnings {
    int n;
    char all[4096];
};

static inline void fx_collect(enum tsync_log_level level, const char *msg, void *payload)
{
    struct fx_warnings *w = payload;
    size_t len = strlen(w->all);
    (void)level;
    w->n++;
    snprintf(w->all + len, sizeof(w->all) - len, "%s\n", msg);
}

/* tsync_estimate_run, failing the test with the context's error; warnings into w
 * (may be NULL). */
static inline tsync_estimate *fx_estimate(const tsync_trace *t, const tsync_estimate_opts *o,
                                          struct fx_warnings *w)
{
    tsync_estimate *e = NULL;
    tsync_ctx *ctx;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    if (w)
        tsync_ctx_set_log(ctx, fx_collect, w);
    if (tsync_estimate_run(&e, t, o, ctx))
        fail_msg("tsync_estimate_run: %s", tsync_ctx_error(ctx));
    tsync_ctx_free(ctx);
    return e;
}

/* The bound a map gives at x: its per-point bounds joined linearly. */
static inline double fx_map_bound(const tsync_time_map *m, tsync_time x)
{
    size_t n = tsync_time_map_point_count(m), k = 0;
    const tsync_time *lx = tsync_time_map_local(m);
    const int64_t *b = tsync_time_map_bounds(m);
    if (!b)
        return INFINITY;
    if (n == 1 || x <= lx[0])
        return (double)b[0];
    if (x >= lx[n - 1])
        return (double)b[n - 1];
    while (lx[k + 1] < x)
        k++;
    return (double)b[k] + (double)(b[k + 1] - b[k]) * (double)(x - lx[k]) /
                              (double)(lx[k + 1] - lx[k]);
}

#endif
