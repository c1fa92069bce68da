/* test_graph.c - the graph of clock domains (src/graph): reference selection on
 * small graphs, shortest paths, composition over three hops with bounds adding up,
 * disconnected graphs with one reference each, the global least-squares
 * solution on a loop whose inconsistency cancels, and maps inverted beyond their ends. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "tracesync/estimate.h"

#include "est_fixture.h"

/* A graph of n domains with the given weighted edges (seconds). */
static void make_graph(struct tsync__graph *g, uint32_t n, const uint32_t (*e)[2],
                       const double *w, size_t ne)
{
    assert_int_equal(tsync__graph_init(g, n, NULL), 0);
    for (size_t i = 0; i < ne; i++) {
        size_t idx;
        assert_int_equal(tsync__graph_edge(g, e[i][0], e[i][1], &idx), 0);
        g->e[idx].weight = w[i];
        g->e[idx].kind = TSYNC_BOUND_BOUNDED;
    }
    assert_int_equal(tsync__graph_link(g), 0);
}

static uint32_t only_reference(const uint32_t (*e)[2], const double *w, size_t ne, uint32_t n)
{
    struct tsync__graph g;
    uint32_t ref;
    make_graph(&g, n, e, w, ne);
    assert_int_equal(g.n_comp, 1);
    assert_int_equal(tsync__choose_references(&g, TSYNC__NONE, TSYNC__NONE, &ref), 0);
    tsync__graph_free(&g);
    return ref;
}

static void test_reference_selection(void **state)
{
    static const uint32_t star[][2] = { { 1, 0 }, { 0, 2 }, { 3, 0 }, { 0, 4 } };
    static const uint32_t path[][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 4 } };
    static const double ones[] = { 1, 1, 1, 1 }, skew[] = { 1, 1, 1, 10 };
    static const double heavy_left[] = { 10, 1, 1, 1 };
    (void)state;
    assert_int_equal(only_reference(star, ones, 4, 5), 0);      /* the centre */
    assert_int_equal(only_reference(path, ones, 4, 5), 2);      /* the middle */
    /* Positions 0 1 2 3 13: the weighted median is domain 2 (sum 15; 1 and 3: 16). */
    assert_int_equal(only_reference(path, skew, 4, 5), 2);
    /* Positions 0 10 11 12 13: domain 2 (sum 11 + 1 + 0 + 1 + 2 = 15). */
    assert_int_equal(only_reference(path, heavy_left, 4, 5), 2);
}

/* Beyond 1024 domains only the best connected are tried: a star of 1500 around
 * domain 700, whose leaves also form a chain, still finds its centre. */
static void test_reference_large(void **state)
{
    enum { N = 1500, CENTRE = 700 };
    static uint32_t e[2 * N][2];
    static double w[2 * N];
    size_t ne = 0;
    (void)state;
    for (uint32_t d = 0; d < N; d++) {
        if (d != CENTRE) {
            e[ne][0] = CENTRE;
            e[ne][1] = d;
            w[ne++] = 1;
        }
        if (d + 1 < N && d != CENTRE && d + 1 != CENTRE) {
            e[ne][0] = d;
            e[ne][1] = d + 1;
            w[ne++] = 3;
        }
    }
    assert_int_equal(only_reference((const uint32_t(*)[2])e, w, ne, N), CENTRE);
}

static void test_shortest_paths(void **state)
{
    static const uint32_t tri[][2] = { { 0, 1 }, { 1, 2 }, { 0, 2 } };
    static const double w[] = { 1, 1, 5 };
    struct tsync__graph g;
    double dist[3];
    uint32_t parent[3], order[3], n_order;
    (void)state;
    make_graph(&g, 3, tri, w, 3);
    assert_int_equal(tsync__shortest_paths(&g, 0, dist, parent, order, &n_order), 0);
    assert_int_equal(n_order, 3);
    assert_int_equal(order[0], 0);
    assert_true(dist[2] == 2);                   /* through 1, not the direct 5 */
    assert_int_equal(g.e[parent[2]].lo, 1);
    assert_int_equal(g.e[parent[2]].hi, 2);
    assert_int_equal(parent[0], TSYNC__NONE);
    tsync__graph_free(&g);
}

static void test_components(void **state)
{
    static const uint32_t e[][2] = { { 0, 1 }, { 2, 3 }, { 3, 4 } };
    static const double w[] = { 1, 1, 1 };
    struct tsync__graph g;
    uint32_t ref[3];
    (void)state;
    make_graph(&g, 6, e, w, 3);                  /* domain 5 has no edge */
    assert_int_equal(g.n_comp, 3);
    assert_int_equal(g.comp[0], g.comp[1]);
    assert_int_equal(g.comp[2], g.comp[4]);
    assert_int_not_equal(g.comp[0], g.comp[2]);
    assert_int_equal(tsync__choose_references(&g, 4, TSYNC__NONE, ref), 0);
    assert_int_equal(ref[g.comp[4]], 4);         /* as given */
    assert_int_equal(ref[g.comp[5]], 5);         /* alone */
    assert_true(ref[g.comp[0]] == 0 || ref[g.comp[0]] == 1);
    /* A preferred domain (the trace's time base) is its component's reference unless
     * one is given there; components without either choose as before. */
    assert_int_equal(tsync__choose_references(&g, TSYNC__NONE, 2, ref), 0);
    assert_int_equal(ref[g.comp[2]], 2);         /* not the centre 3 of 2 - 3 - 4 ... */
    assert_int_equal(ref[g.comp[5]], 5);
    assert_int_equal(tsync__choose_references(&g, TSYNC__NONE, TSYNC__NONE, ref), 0);
    assert_int_equal(ref[g.comp[2]], 3);
    assert_int_equal(tsync__choose_references(&g, 4, 2, ref), 0);
    assert_int_equal(ref[g.comp[2]], 4);         /* ... unless one is given there */
    assert_int_equal(tsync__choose_references(&g, 0, 2, ref), 0);
    assert_int_equal(ref[g.comp[0]], 0);
    assert_int_equal(ref[g.comp[2]], 2);
    tsync__graph_free(&g);
}

/* An offset function over [0, 1000] with a constant bound. */
static void shift(struct tsync__pwl *f, tsync_time from, int64_t offset, double bound)
{
    assert_int_equal(tsync__pwl_identity(f, from, from + 1000), 0);
    for (size_t i = 0; i < f->n; i++) {
        f->y[i] += offset;
        f->bound[i] = bound;
    }
}

/* Seed 003, Eq. 10: offsets add along a path, and so do the bounds. */
static void test_compose_three_hops(void **state)
{
    struct tsync__pwl g0, h1, h2, h3, m1, m2, m3;
    (void)state;
    shift(&g0, 5000, 0, 0);          /* the reference, over its times */
    shift(&h1, 4000, 1000, 7);       /* domain 1 -> 0: +1000, bound 7 */
    shift(&h2, 3900, 100, 11);       /* domain 2 -> 1 */
    shift(&h3, 3000, 900, 13);       /* domain 3 -> 2 */
    assert_int_equal(tsync__pwl_compose(&m1, &g0, &h1), 0);
    assert_int_equal(tsync__pwl_compose(&m2, &m1, &h2), 0);
    assert_int_equal(tsync__pwl_compose(&m3, &m2, &h3), 0);
    assert_int_equal(m3.x[0], 3000);
    assert_int_equal(m3.y[0], 5000);
    /* One tick of rounding per hop. */
    assert_true(m3.bound[0] == 7 + 11 + 13 + 3);
    assert_true(tsync__pwl_eval(&m3, 3500) == 5500);
    tsync__pwl_free(&g0);
    tsync__pwl_free(&h1);
    tsync__pwl_free(&h2);
    tsync__pwl_free(&h3);
    tsync__pwl_free(&m1);
    tsync__pwl_free(&m2);
    tsync__pwl_free(&m3);
}

/* ---- through tsync_estimate_run ------------------------------------------------------ */

/* Ping-pongs between locations a and b whose clocks read true + off[a] and
 * true + off[b], with the given one-way delays, every `step` ns. */
static void pingpong(struct fx *f, tsync_loc a, tsync_loc b, const int64_t *off, int n,
                     tsync_time start, tsync_time step, int64_t ab, int64_t ba)
{
    for (int k = 0; k < n; k++) {
        tsync_time t = start + k * step;
        fx_msg(f, a, t + off[a], b, t + ab + off[b]);
        fx_msg(f, b, t + ab + 500 + off[b], a, t + ab + 500 + ba + off[a]);
    }
}

/* map(x) - x, the offset a domain's map applies at x. */
static int64_t offset_at(const tsync_estimate *e, uint32_t d, tsync_time x)
{
    return tsync_time_map_eval(tsync_estimate_get_domain(e, d)->map, x) - x;
}

/* A chain of four domains, messages only between neighbours: composed over three
 * hops from the reference n0, bounds growing along the path, the truth inside. */
static void test_chain_of_four(void **state)
{
    static const uint32_t nodes[] = { 0, 1, 2, 3 };
    static const int64_t off[] = { 0, 25000, -40000, 7000 };
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    struct fx *f = fx_new(4, nodes, 0);
    const tsync_estimate_domain *d3;
    tsync_estimate *e;
    tsync_trace *t;
    const char *why;
    uint32_t auto_ref;
    double prev = 0;
    (void)state;
    for (tsync_loc a = 0; a < 3; a++)
        pingpong(f, a, a + 1, off, 40, 1000000 + a * 7000, 2500000, 1500 + 100 * a, 1800);
    t = fx_done(f);
    o.reference = "n0";
    e = fx_estimate(t, &o, NULL);
    assert_int_equal(tsync_estimate_component_count(e), 1);
    assert_int_equal(tsync_estimate_component_reference(e, 0), 0);
    d3 = tsync_estimate_get_domain(e, 3);
    assert_int_equal(d3->path_length, 3);
    for (uint32_t k = 0; k < 4; k++)
        assert_int_equal(d3->path[k], k);
    for (uint32_t d = 1; d < 4; d++) {
        const tsync_estimate_domain *dom = tsync_estimate_get_domain(e, d);
        tsync_time x = 50000000 + off[d];
        double b = fx_map_bound(dom->map, x);
        assert_int_equal(dom->kind, TSYNC_BOUND_BOUNDED);
        assert_true(b > prev);                    /* each hop adds its error */
        prev = b;
        if (!(llabs(offset_at(e, d, x) + off[d]) <= b + 1))
            fail_msg("domain %u: offset %lld, truth %lld, bound %.1f", d,
                     (long long)offset_at(e, d, x), (long long)-off[d], b);
    }
    tsync_estimate_free(e);
    /* By default the trace's time base: MPI rank 0 (no ClockOffset records). */
    e = fx_estimate(t, NULL, NULL);
    assert_int_equal(tsync_estimate_component_reference(e, 0), 0);
    assert_string_equal(tsync_estimate_reference_rule(e, 0, &why), "rank0");
    assert_string_equal(why, "MPI rank 0");
    assert_null(tsync_estimate_reference_rule(e, 1, NULL));
    tsync_estimate_free(e);
    /* --reference auto: the middle of a chain of four, domain 1 or 2 ... */
    o = (tsync_estimate_opts)TSYNC_ESTIMATE_OPTS_INIT;
    o.reference_rule = TSYNC_REFERENCE_AUTO;
    e = fx_estimate(t, &o, NULL);
    auto_ref = tsync_estimate_component_reference(e, 0);
    assert_true(auto_ref == 1 || auto_ref == 2);
    assert_string_equal(tsync_estimate_reference_rule(e, 0, &why), "auto");
    assert_string_equal(why, "smallest sum of shortest-path errors");
    tsync_estimate_free(e);
    /* ... as options of version 1 (before the rule existed) chose it. */
    o.version = 1;
    e = fx_estimate(t, &o, NULL);
    assert_int_equal(tsync_estimate_component_reference(e, 0), auto_ref);
    tsync_estimate_free(e);
    tsync_trace_free(t);
}

/* The trace's time base (seed 000): the location whose ClockOffset records say 0,
 * which the other locations' offsets refer to; else MPI rank 0. */
static void test_time_base(void **state)
{
    static const uint32_t nodes[] = { 0, 1, 2, 3 };
    static const int64_t off[] = { 0, 25000, -40000, 7000 };
    struct fx *f = fx_new(4, nodes, 0);
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    tsync_estimate *e;
    tsync_trace *t;
    const char *why;
    uint32_t loc;
    int by_offsets;
    (void)state;
    for (tsync_loc a = 0; a < 3; a++)
        pingpong(f, a, a + 1, off, 40, 1000000 + a * 7000, 2500000, 1500 + 100 * a, 1800);
    t = fx_done(f);
    assert_int_equal(tsync__time_base_location(t, &loc, &by_offsets), 0);
    assert_int_equal(loc, 0);                       /* rank 0, no records */
    assert_int_equal(by_offsets, 0);
    /* Score-P: rank 0 records 0, the workers their offset to it. */
    t->offsets = calloc(4, sizeof(*t->offsets));
    assert_non_null(t->offsets);
    t->n_offsets = 4;
    for (tsync_loc l = 0; l < 4; l++)
        t->offsets[l] =
            (struct tsync_clock_offset){ l, 1000000, -off[l], 0 };
    assert_int_equal(tsync__time_base_location(t, &loc, &by_offsets), 0);
    assert_int_equal(loc, 0);
    assert_int_equal(by_offsets, 1);
    e = fx_estimate(t, NULL, NULL);
    assert_int_equal(tsync_estimate_component_reference(e, 0), 0);
    assert_string_equal(tsync_estimate_reference_rule(e, 0, &why), "master");
    assert_string_equal(why, "MPI rank 0, the ClockOffset master");
    tsync_estimate_free(e);
    /* Offsets measured against location 2: it is the master, not rank 0. */
    for (tsync_loc l = 0; l < 4; l++)
        t->offsets[l].offset = off[2] - off[l];
    assert_int_equal(tsync__time_base_location(t, &loc, &by_offsets), 0);
    assert_int_equal(loc, 2);
    assert_int_equal(by_offsets, 1);
    o.use_clock_offsets = 0;       /* the samples assume rank 0's clock (samples.c) */
    e = fx_estimate(t, &o, NULL);
    assert_int_equal(tsync_estimate_component_reference(e, 0), 2);
    assert_string_equal(tsync_estimate_reference_rule(e, 0, &why), "master");
    assert_string_equal(why, "the ClockOffset master, L2");
    tsync_estimate_free(e);
    /* Two locations record 0 and rank 0 does not: no master; rank 0 by convention. */
    t->offsets[3].offset = 0;
    assert_int_equal(tsync__time_base_location(t, &loc, &by_offsets), 0);
    assert_int_equal(loc, 0);
    assert_int_equal(by_offsets, 0);
    /* A domain given by name wins. */
    o.reference = "n3";
    e = fx_estimate(t, &o, NULL);
    assert_int_equal(tsync_estimate_component_reference(e, 0), 3);
    assert_string_equal(tsync_estimate_reference_rule(e, 0, &why), "given");
    tsync_estimate_free(e);
    tsync_trace_free(t);
}

static void test_disconnected(void **state)
{
    static const uint32_t nodes[] = { 0, 1, 2, 3 };
    static const int64_t off[] = { 0, 5000, 90000, 91000 };
    struct fx *f = fx_new(4, nodes, 0);
    struct fx_warnings w = { 0, "" };
    tsync_estimate *e;
    tsync_trace *t;
    const char *why;
    (void)state;
    pingpong(f, 0, 1, off, 10, 0, 1000000, 2000, 2000);
    pingpong(f, 2, 3, off, 10, 0, 1000000, 2000, 2000);
    t = fx_done(f);
    e = fx_estimate(t, NULL, &w);
    assert_int_equal(tsync_estimate_component_count(e), 2);
    assert_int_equal(tsync_estimate_component_reference(e, 0), 0);
    assert_int_equal(tsync_estimate_component_reference(e, 1), 2);
    assert_int_equal(tsync_estimate_get_domain(e, 3)->reference, 2);
    /* Rank 0 is the reference of its group; the other group has none: the automatic
     * rule there, and the report says why. */
    assert_string_equal(tsync_estimate_reference_rule(e, 0, &why), "rank0");
    assert_string_equal(tsync_estimate_reference_rule(e, 1, &why), "auto");
    assert_non_null(strstr(why, "MPI rank 0 is not in this group"));
    assert_int_equal(tsync_estimate_get_domain(e, 2)->kind, TSYNC_BOUND_EXACT);
    assert_true(llabs(offset_at(e, 3, 5000000) + 1000) <= 50);
    assert_true(w.n >= 1);
    assert_non_null(strstr(w.all, "unrelated"));
    tsync_estimate_free(e);
    tsync_trace_free(t);
}

/* A triangle whose three pairs are each biased by +600 ns in the same direction
 * around the loop (slow one way, fast the other): the path method leaves 600 ns
 * on each domain, the global solution cancels the loop's 1800 ns mismatch. */
static void test_global_lsq_loop(void **state)
{
    static const uint32_t nodes[] = { 0, 1, 2 };
    static const int64_t off[] = { 0, 0, 0 };
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    struct fx *f = fx_new(3, nodes, 0);
    tsync_estimate *path, *global;
    tsync_trace *t;
    (void)state;
    /* lo -> hi takes 2200 ns, hi -> lo 1000 ns (= the minimum): each pair's offset
     * is anywhere in [0, 1200], estimated 600. Around the loop A -> B -> C -> A. */
    pingpong(f, 0, 1, off, 30, 0, 3000000, 2200, 1000);
    pingpong(f, 1, 2, off, 30, 1000, 3000000, 2200, 1000);
    pingpong(f, 2, 0, off, 30, 2000, 3000000, 2200, 1000);
    t = fx_done(f);
    path = fx_estimate(t, &o, NULL);
    o.global_lsq = 1;
    global = fx_estimate(t, &o, NULL);
    assert_int_equal(tsync_estimate_component_reference(path, 0), 0);
    for (uint32_t d = 1; d < 3; d++) {
        int64_t p = offset_at(path, d, 40000000), g = offset_at(global, d, 40000000);
        double bound = fx_map_bound(tsync_estimate_get_domain(global, d)->map, 40000000);
        if (!(llabs(p) >= 590 && llabs(p) <= 610 && llabs(g) <= 10))
            fail_msg("domain %u: path %lld ns, global %lld ns (truth 0)", d, (long long)p,
                     (long long)g);
        assert_true(llabs(g) <= bound);
    }
    tsync_estimate_free(path);
    tsync_estimate_free(global);
    tsync_trace_free(t);
}

/* The inverse of a map beyond its ends: along the end segment where that is a
 * clock's rate; where it is a clock step (a raised joint, slope 1e-6 here), at the
 * same rate, not 10^6 times the distance (which had put times at 2^63). */
static void test_inverse_beyond_step(void **state)
{
    struct tsync__pwl f;
    (void)state;
    assert_int_equal(tsync__pwl_alloc(&f, 3), 0);
    tsync__pwl_push(&f, 0, 1000);
    tsync__pwl_push(&f, 1000000, 1001);          /* a step: 10^6 ticks of x in 1 of y */
    tsync__pwl_push(&f, 1002000, 2001);          /* slope 1/2: a rate, at the limit */
    assert_int_equal(tsync__pwl_inverse(&f, 500), -500);
    assert_int_equal(tsync__pwl_inverse(&f, 1001), 1000000);
    assert_int_equal(tsync__pwl_inverse(&f, 1501), 1001000);
    assert_int_equal(tsync__pwl_inverse(&f, 3001), 1004000);
    tsync__pwl_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_selection),
        cmocka_unit_test(test_reference_large),
        cmocka_unit_test(test_shortest_paths),
        cmocka_unit_test(test_components),
        cmocka_unit_test(test_compose_three_hops),
        cmocka_unit_test(test_chain_of_four),
        cmocka_unit_test(test_time_base),
        cmocka_unit_test(test_disconnected),
        cmocka_unit_test(test_global_lsq_loop),
        cmocka_unit_test(test_inverse_beyond_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
