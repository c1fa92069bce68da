/* eval.c - scores corrected timestamps against the truth (eval.h): per-event error
 * after removing the median, its maximum, 99th percentile and mean per location and
 * overall; reversed messages and violations (tsync_check_run); changed event order;
 * deviation of local intervals (tsync_deviation_compute, seed 002 Table 4).
 *
 * Errors are exact until the last step: corrected x R_truth - true x R_corrected is
 * an exact 128-bit integer, divided by R_corrected x R_truth into seconds once.
 * Memory: one double per event (the errors), selected in place for the median and
 * the percentiles (quickselect, expected linear time), plus one timeline of the
 * truth on the corrected trace for the deviation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "tracesync/eval.h"
#include "util/ctx.h"

__extension__ typedef __int128 i128;

/* ---- selection ---------------------------------------------------------------- */

static void swap(double *a, double *b)
{
    double x = *a;
    *a = *b;
    *b = x;
}

/* Puts the k-th smallest of v[0, n) at v[k] (smaller before, larger after) and
 * returns it: Wirth's selection (Hoare's partition around v[k]). */
static double select_kth(double *v, size_t n, size_t k)
{
    int64_t lo = 0, hi = (int64_t)n - 1, kk = (int64_t)k;
    while (lo < hi) {
        double x = v[kk];
        int64_t i = lo, j = hi;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                swap(&v[i], &v[j]);
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk)
            lo = i;
        if (kk < i)
            hi = j;
    }
    return v[k];
}

/* The 99th percentile by nearest rank: the ceil(0.99 n)-th smallest. */
static double p99(double *v, size_t n)
{
    size_t rank = (size_t)ceil(0.99 * (double)n);
    return n ? select_kth(v, n, rank ? rank - 1 : 0) : 0.0;
}

/* ---- correspondence ----------------------------------------------------------- */

/* map[t] = the corrected trace's location for truth location t. Locations first,
 * then event counts, so that the message names the most basic difference. */
static int match_locations(tsync_loc *map, const tsync_trace *c, const tsync_trace *t,
                           tsync_ctx *ctx)
{
    for (tsync_loc i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        if (tsync_trace_find_location(c, l->ref, &map[i]))
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: location %llu (%s) of the truth %s is not "
                               "in the corrected trace", c->path, (unsigned long long)l->ref,
                               l->name, t->path);
    }
    for (tsync_loc i = 0; i < c->n_locations; i++) {
        tsync_loc x;
        if (tsync_trace_find_location(t, c->locations[i].ref, &x))
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: location %llu (%s) is not in the truth %s",
                               c->path, (unsigned long long)c->locations[i].ref,
                               c->locations[i].name, t->path);
    }
    if (c->n_locations != t->n_locations) /* the same ids, one of them twice */
        return tsync__fail(ctx, TSYNC_EINVAL, "%s has %u locations, the truth %s has %u", c->path,
                           c->n_locations, t->path, t->n_locations);
    for (tsync_loc i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        if (c->locations[map[i]].n_events != l->n_events)
            return tsync__fail(ctx, TSYNC_EINVAL, "location %llu (%s): %llu events in the "
                               "corrected trace %s, %llu in the truth %s: events must correspond "
                               "one to one", (unsigned long long)l->ref, l->name,
                               (unsigned long long)c->locations[map[i]].n_events, c->path,
                               (unsigned long long)l->n_events, t->path);
    }
    return TSYNC_OK;
}

/* A message as (send location, send event, receive location, receive event) in the
 * truth's location numbering, for comparing the matching of the two traces. */
struct msg_key { uint64_t a, b; };

static int key_cmp(const void *x, const void *y)
{
    const struct msg_key *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* Keys of the messages of `tr`; inv maps tr's locations to the truth's (NULL: same). */
static struct msg_key *message_keys(const tsync_trace *tr, const tsync_loc *inv)
{
    struct msg_key *k = malloc((tr->n_messages ? tr->n_messages : 1) * sizeof(*k));
    for (size_t i = 0; k && i < tr->n_messages; i++) {
        const struct tsync_message *m = &tr->messages[i];
        uint64_t s = inv ? inv[m->send_loc] : m->send_loc, r = inv ? inv[m->recv_loc] : m->recv_loc;
        k[i].a = s << 40 | m->send_idx;
        k[i].b = r << 40 | m->recv_idx;
    }
    if (k)
        qsort(k, tr->n_messages, sizeof(*k), key_cmp);
    return k;
}

/* Did any location's events change kind, or messages their partners? */
static int order_check(tsync_eval_report *r, const tsync_trace *c, const tsync_trace *t,
                       const tsync_loc *map, tsync_ctx *ctx)
{
    tsync_loc *inv = malloc((c->n_locations ? c->n_locations : 1) * sizeof(*inv));
    struct msg_key *kc = NULL, *kt = NULL;
    int rc = TSYNC_OK;
    if (!inv)
        return tsync__oom(ctx);
    for (tsync_loc i = 0; i < t->n_locations; i++) {
        const struct tsync_location *a = &c->locations[map[i]], *b = &t->locations[i];
        inv[map[i]] = i;
        for (uint64_t k = 0; k < b->n_events && !r->order_changed; k++)
            if (a->kind[k] != b->kind[k]) {
                r->order_changed = 1;
                r->order_location = b->ref;
                r->order_event = k;
            }
    }
    if (!r->order_changed) {
        kc = message_keys(c, inv);
        kt = message_keys(t, NULL);
        if (!kc || !kt) {
            rc = tsync__oom(ctx);
        } else if (c->n_messages != t->n_messages ||
                   memcmp(kc, kt, t->n_messages * sizeof(*kt)) != 0) {
            size_t i = 0;
            while (i < t->n_messages && i < c->n_messages && kc[i].a == kt[i].a && kc[i].b == kt[i].b)
                i++;
            r->order_changed = 1;
            /* The first send whose partner differs. */
            if (i < t->n_messages) {
                r->order_location = t->locations[kt[i].a >> 40].ref;
                r->order_event = kt[i].a & ((1ull << 40) - 1);
            }
        }
    }
    free(kc);
    free(kt);
    free(inv);
    return rc;
}

/* ---- errors --------------------------------------------------------------------- */

/* corrected - true = (c x a - t x b) / lcm, with a = R_t / g, b = R_c / g, g their
 * greatest common divisor and lcm = R_c R_t / g: an exact integer numerator over
 * the coarsest common tick (the plain tick difference when the resolutions agree). */
struct scale {
    i128 a, b;
    double lcm;
};

static struct scale scale_of(uint64_t rc, uint64_t rt)
{
    uint64_t x = rc, y = rt;
    struct scale s;
    while (y) {
        uint64_t z = x % y;
        x = y;
        y = z;
    }
    s.a = (i128)(rt / x);
    s.b = (i128)(rc / x);
    s.lcm = (double)rc * (double)(rt / x);
    return s;
}

/* Runs `body` with `num`, the numerator of corrected - true, for every event in the
 * truth's location order (uses t, ct, map and sc of the caller). */
#define FOR_EACH_ERROR(num, body)                                                        \
    for (tsync_loc i_ = 0; i_ < t->n_locations; i_++) {                                  \
        const tsync_time *a_ = ct[map[i_]], *b_ = t->locations[i_].time;                 \
        for (uint64_t k_ = 0; k_ < t->locations[i_].n_events; k_++) {                    \
            i128 num = (i128)a_[k_] * sc.a - (i128)b_[k_] * sc.b;                        \
            body;                                                                        \
        }                                                                                \
    }

static int errors(tsync_eval_report *r, tsync_time *const *ct, const tsync_trace *c,
                  const tsync_trace *t, const tsync_loc *map, tsync_ctx *ctx)
{
    struct scale sc = scale_of(c->timer_resolution, t->timer_resolution);
    size_t n = 0, total = (size_t)r->events;
    double *err = malloc((total ? total : 1) * sizeof(*err)), sum_all = 0;
    i128 median = 0;
    int found = 0;
    if (!err)
        return tsync__oom(ctx);
    FOR_EACH_ERROR(num, err[n++] = (double)num / sc.lcm);
    /* The lower median is one event's error: find that event's exact numerator, so
     * that removing it is exact too. */
    r->offset_s = total ? select_kth(err, total, (total - 1) / 2) : 0.0;
    FOR_EACH_ERROR(num, if (!found && (double)num / sc.lcm == r->offset_s) {
        median = num;
        found = 1;
    });
    n = 0;
    FOR_EACH_ERROR(num, err[n++] = fabs((double)(num - median) / sc.lcm));
    n = 0;
    for (tsync_loc i = 0; i < t->n_locations; i++) {
        tsync_eval_location *pl = &r->per_location[i];
        size_t m = (size_t)t->locations[i].n_events;
        double sum = 0, max = 0;
        for (size_t k = 0; k < m; k++) {
            sum += err[n + k];
            if (err[n + k] > max)
                max = err[n + k];
        }
        pl->loc = i;
        pl->events = m;
        pl->max_abs_error_s = max;
        pl->mean_abs_error_s = m ? sum / (double)m : 0.0;
        pl->p99_abs_error_s = p99(err + n, m);
        if (max > r->max_abs_error_s)
            r->max_abs_error_s = max;
        sum_all += sum;
        n += m;
    }
    r->mean_abs_error_s = total ? sum_all / (double)total : 0.0;
    r->p99_abs_error_s = p99(err, total);
    free(err);
    return TSYNC_OK;
}

/* ---- deviation ------------------------------------------------------------------ */

/* Truth times in the corrected trace's ticks, rounded to nearest. */
static tsync_time rescale(tsync_time t, uint64_t from, uint64_t to)
{
    i128 num = (i128)t * (i128)to, half = (i128)(from / 2);
    if (from == to)
        return t;
    return (tsync_time)(num >= 0 ? (num + half) / (i128)from : -((-num + half) / (i128)from));
}

static int deviation(tsync_eval_report *r, const tsync_trace *c, const tsync_timeline *times,
                     const tsync_trace *t, const tsync_loc *map, tsync_ctx *ctx)
{
    tsync_timeline *truth = NULL;
    int rc = tsync_timeline_new(&truth, c, ctx);
    if (rc)
        return rc;
    for (tsync_loc i = 0; i < t->n_locations; i++) {
        tsync_time *dst = tsync_timeline_times(truth, map[i]);
        const tsync_time *src = t->locations[i].time;
        for (uint64_t k = 0; k < t->locations[i].n_events; k++)
            dst[k] = rescale(src[k], t->timer_resolution, c->timer_resolution);
    }
    rc = tsync_deviation_compute(&r->position, &r->distance, c, truth, times, ctx);
    tsync_timeline_free(truth);
    return rc;
}

/* ---- the report ----------------------------------------------------------------- */

int tsync_eval_run(tsync_eval_report **out, const tsync_trace *corrected,
                   const tsync_timeline *times, const tsync_trace *truth,
                   const tsync_eval_opts *opts, tsync_ctx *ctx)
{
    tsync_eval_opts defaults = TSYNC_EVAL_OPTS_INIT;
    tsync_eval_report *r = NULL;
    tsync_timeline *own = NULL;
    tsync_check_report *check = NULL;
    tsync_loc *map = NULL;
    int rc;

    if (!out || !corrected || !truth)
        return tsync__fail(ctx, TSYNC_EINVAL, "eval: no trace given");
    if (!opts)
        opts = &defaults;
    if (opts->version != TSYNC_EVAL_OPTS_VERSION)
        return tsync__fail(ctx, TSYNC_EINVAL, "eval: options version %u, expected %u (initialize "
                           "with TSYNC_EVAL_OPTS_INIT)", opts->version, TSYNC_EVAL_OPTS_VERSION);
    if (times && times->n_locations != corrected->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: eval: the timeline belongs to another trace",
                           corrected->path);
    if (!(r = calloc(1, sizeof(*r))) ||
        !(map = malloc((truth->n_locations ? truth->n_locations : 1) * sizeof(*map))) ||
        !(r->per_location = calloc(truth->n_locations ? truth->n_locations : 1,
                                   sizeof(*r->per_location)))) {
        rc = tsync__oom(ctx);
        goto out;
    }
    if ((rc = match_locations(map, corrected, truth, ctx)))
        goto out;
    if (!times) {
        if ((rc = tsync_timeline_new(&own, corrected, ctx)))
            goto out;
        times = own;
    }
    r->locations = truth->n_locations;
    r->events = tsync_trace_event_count(truth);
    r->corrected_resolution = corrected->timer_resolution;
    r->truth_resolution = truth->timer_resolution;
    if ((rc = errors(r, times->time, corrected, truth, map, ctx)) ||
        (rc = order_check(r, corrected, truth, map, ctx)) ||
        (rc = deviation(r, corrected, times, truth, map, ctx)) ||
        (rc = tsync_check_run(&check, corrected, times, &opts->check, ctx)))
        goto out;
    r->messages = check->messages;
    r->logical_messages = check->logical_messages;
    r->reversed = check->reversed;
    r->violations = check->violations;
    r->latency_intra_s = check->latency_intra_s;
    r->latency_inter_s = check->latency_inter_s;
out:
    tsync_check_report_free(check);
    tsync_timeline_free(own);
    free(map);
    if (rc) {
        tsync_eval_report_free(r);
        return rc;
    }
    *out = r;
    return TSYNC_OK;
}

void tsync_eval_report_free(tsync_eval_report *r)
{
    if (!r)
        return;
    free(r->per_location);
    free(r);
}
