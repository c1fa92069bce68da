/* test_estimator_registry.c - the table of estimators (src/estimate/registry.c): the
 * built-ins by name and id, the range check of the options, and a toy estimator
 * registered from this test ("offset-only": a constant offset, the median of the
 * samples' y - x) that the estimate stage runs and both reports describe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "estimate/estimator.h"
#include "tracesync/estimate.h"

#include "est_fixture.h"

static const uint32_t TWO_NODES[] = { 0, 1 };

/* ---- the toy estimator: y = x + median(y - x) ------------------------------------------ */

struct toy {
    tsync_time x0, y0, x_first, x_last;
    size_t n, cap;
    int64_t *d;              /* y - x of every sample */
    int above, below;
};

static int toy_init(void **state, const struct tsync__est_params *p)
{
    struct toy *t = calloc(1, sizeof(*t));
    if (!t)
        return TSYNC_ENOMEM;
    t->x0 = p->x0;
    t->y0 = p->y0;
    *state = t;
    return 0;
}

static int toy_add(void *state, const struct tsync__sample *s)
{
    struct toy *t = state;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        int64_t *d = realloc(t->d, cap * sizeof(*d));
        if (!d)
            return TSYNC_ENOMEM;
        t->d = d;
        t->cap = cap;
    }
    if (!t->n)
        t->x_first = s->x;
    t->x_last = s->x;
    t->d[t->n++] = s->y - s->x;
    t->above |= s->kind == TSYNC__ABOVE;
    t->below |= s->kind == TSYNC__BELOW;
    return 0;
}

static int toy_settled(const void *state)
{
    (void)state;
    return 0;
}

static int i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* The range: the estimate give or take half the spread of the offsets. */
static void toy_range(const struct tsync__piece *p, tsync_time x, long double *lo, long double *hi)
{
    long double v = tsync__piece_eval(p, x);
    *lo = v - (long double)p->error;
    *hi = v + (long double)p->error;
}

static int toy_finish(void *state, struct tsync__pieces *out)
{
    struct toy *t = state;
    struct tsync__piece pc;
    if (!t->n)
        return 0;
    qsort(t->d, t->n, sizeof(*t->d), i64_cmp);
    memset(&pc, 0, sizeof(pc));
    pc.x_first = t->x_first;
    pc.x_last = t->x_last;
    pc.x0 = t->x0;
    pc.y0 = t->y0;
    pc.a = 1;
    pc.b = (long double)(t->d[t->n / 2] - (t->y0 - t->x0));
    pc.kind = t->above && t->below ? TSYNC_BOUND_BOUNDED : TSYNC_BOUND_FALLBACK;
    pc.samples = t->n;
    pc.error = (double)(t->d[t->n - 1] - t->d[0]) / 2 + 1;
    pc.range = toy_range;
    return tsync__pieces_push(out, &pc);
}

static void toy_stats(const void *state, struct tsync__est_stats *st)
{
    st->samples += ((const struct toy *)state)->n;
}

static void toy_fini(void *state)
{
    struct toy *t = state;
    if (t)
        free(t->d);
    free(t);
}

static const struct tsync__estimator offset_only = {
    "offset-only", "median of the offsets; bounds half their spread",
    "constant offset: the median of the samples' offsets", "half the spread of the offsets",
    0, 0, toy_init, toy_add, toy_settled, toy_finish, toy_stats, toy_fini, NULL
};

/* ---- tests ---------------------------------------------------------------------------- */

static void test_builtins(void **state)
{
    static const char *const names[] = { "hull", "regression", "none" };
    enum tsync_estimator id;
    (void)state;
    assert_true(tsync_estimator_count() >= 3);
    for (unsigned i = 0; i < 3; i++) {
        assert_string_equal(tsync_estimator_name((enum tsync_estimator)i), names[i]);
        assert_int_equal(tsync_estimator_parse(names[i], &id), 0);
        assert_int_equal(id, i);
    }
    assert_null(tsync_estimator_name((enum tsync_estimator)tsync_estimator_count()));
    assert_null(tsync__estimator_for(TSYNC_ESTIMATOR_NONE));
    assert_ptr_equal(tsync__estimator_for(TSYNC_ESTIMATOR_HULL), &tsync__hull_estimator);
    assert_int_equal(tsync__estimator_register(&tsync__hull_estimator, &id), TSYNC_EINVAL);
}

/* Two domains 2 ms apart, messages both ways with delays of 1 to 9 us. */
static tsync_trace *two_domains(void)
{
    struct fx *f = fx_new(2, TWO_NODES, 0);
    for (int i = 0; i < 200; i++) {
        tsync_time at = 1000000 + (tsync_time)i * 50000, delay = 1000 + (i * 37) % 8000;
        if (i % 2)
            fx_msg(f, 0, at, 1, at + 2000000 + delay);
        else
            fx_msg(f, 1, at + 2000000, 0, at + delay);
    }
    return fx_done(f);
}

static void test_toy_estimator(void **state)
{
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    enum tsync_estimator id, parsed;
    const tsync_estimate_domain *d;
    tsync_estimate *e;
    tsync_ctx *ctx;
    tsync_trace *t = two_domains();
    char *json, *buf = NULL;
    size_t len = 0;
    FILE *out;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    /* Unknown until registered: the options' range check says so. */
    o.estimator = (enum tsync_estimator)tsync_estimator_count();
    assert_int_equal(tsync_estimate_run(&e, t, &o, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "unknown estimator"));
    assert_int_equal(tsync_estimator_parse("offset-only", &parsed), TSYNC_EINVAL);

    assert_int_equal(tsync__estimator_register(&offset_only, &id), 0);
    assert_int_equal(id, o.estimator);
    assert_int_equal(tsync__estimator_register(&offset_only, &parsed), TSYNC_EINVAL);
    assert_int_equal(tsync_estimator_parse("offset-only", &parsed), 0);
    assert_int_equal(parsed, id);
    assert_string_equal(tsync_estimator_name(id), "offset-only");

    assert_int_equal(tsync_estimate_run(&e, t, &o, ctx), 0);
    assert_string_equal(tsync_estimate_estimator_name(e), "offset-only");
    d = tsync_estimate_get_domain(e, 1);
    /* n1's clock reads 2 ms ahead: y - x is 2 ms plus the delay less the minimum
     * latency (n0 -> n1) or minus it (n1 -> n0), the same delays both ways, so the
     * median is 2 ms to a microsecond, and n1's map moves it back by that. */
    assert_true(fabs(d->offset_s + 2e-3) < 1e-6);
    assert_int_equal(d->kind, TSYNC_BOUND_BOUNDED);
    assert_int_equal(d->pieces, 1);
    assert_int_equal(d->samples, 200);
    assert_true(d->bound_s > 4e-6 && d->bound_s < 10e-6); /* half the spread, 2 x 8 us */
    assert_int_equal(tsync_estimate_get_edge(e, 0)->samples, 200);

    assert_non_null(json = tsync_estimate_json(e, t, ctx));
    assert_non_null(strstr(json, "\"estimator\": \"offset-only\""));
    assert_non_null(strstr(json, "\"estimate\": \"constant offset: the median of the samples' "
                                 "offsets\""));
    assert_non_null(strstr(json, "\"bound\": \"half the spread of the offsets\""));
    free(json);
    assert_non_null(out = open_memstream(&buf, &len));
    tsync_estimate_print(e, t, out);
    fclose(out);
    assert_non_null(strstr(buf, "  estimator   offset-only: median of the offsets; bounds half "
                                "their spread ("));
    free(buf);
    tsync_estimate_free(e);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins),
        cmocka_unit_test(test_toy_estimator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
