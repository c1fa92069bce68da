/* eval.c - scores corrected timestamps against the truth (eval.h): per-event error
 * after removing the median, its maximum, 99th percentile and mean per location and
 * overall; the same relative to the time axis, after removing the common-mode error
 * c(t) of the whole axis (why and how: eval.h, and "the common-mode error" below);
 * reversed messages and violations (tsync_check_run); changed event order;
 * deviation of local intervals (tsync_deviation_compute, seed 002 Table 4).
 *
 * Errors are exact until the last step: corrected x R_truth - true x R_corrected is
 * an exact 128-bit integer, divided by R_corrected x R_truth into seconds once.
 * Memory: one double per event (the errors, then the values grouped by bin for c),
 * selected in place for the medians and the percentiles (quickselect, expected
 * linear time); the bins of c (at most TSYNC_EVAL_MAX_BINS); one timeline of the
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

/* Runs `body` with `num`, the numerator of corrected - true, and `when`, the true
 * time in ticks of the truth, for every event in the truth's location order (uses
 * t, ct, map and sc of the caller). */
#define FOR_EACH_ERROR(num, when, body)                                                  \
    for (tsync_loc i_ = 0; i_ < t->n_locations; i_++) {                                  \
        const tsync_time *a_ = ct[map[i_]], *b_ = t->locations[i_].time;                 \
        for (uint64_t k_ = 0; k_ < t->locations[i_].n_events; k_++) {                    \
            i128 num = (i128)a_[k_] * sc.a - (i128)b_[k_] * sc.b;                        \
            tsync_time when = b_[k_];                                                    \
            (void)num;                                                                   \
            (void)when;                                                                  \
            body;                                                                        \
        }                                                                                \
    }

/* The statistics of |e| (in the truth's location order in abs_err, which is
 * reordered) into the report: the errors after the constant, or (relative) after
 * the common-mode error of the time axis. */
static void summarize(tsync_eval_report *r, const tsync_trace *t, double *abs_err, int relative)
{
    size_t n = 0, total = (size_t)r->events;
    double sum_all = 0, max_all = 0, mean_all, p99_all;
    for (tsync_loc i = 0; i < t->n_locations; i++) {
        tsync_eval_location *pl = &r->per_location[i];
        size_t m = (size_t)t->locations[i].n_events;
        double sum = 0, max = 0, mean, p;
        for (size_t k = 0; k < m; k++) {
            sum += abs_err[n + k];
            if (abs_err[n + k] > max)
                max = abs_err[n + k];
        }
        mean = m ? sum / (double)m : 0.0;
        p = p99(abs_err + n, m);
        pl->loc = i;
        pl->events = m;
        if (relative) {
            pl->relative_max_abs_error_s = max;
            pl->relative_p99_abs_error_s = p;
            pl->relative_mean_abs_error_s = mean;
        } else {
            pl->max_abs_error_s = max;
            pl->p99_abs_error_s = p;
            pl->mean_abs_error_s = mean;
        }
        if (max > max_all)
            max_all = max;
        sum_all += sum;
        n += m;
    }
    mean_all = total ? sum_all / (double)total : 0.0;
    p99_all = p99(abs_err, total);
    if (relative) {
        r->relative_max_abs_error_s = max_all;
        r->relative_p99_abs_error_s = p99_all;
        r->relative_mean_abs_error_s = mean_all;
    } else {
        r->max_abs_error_s = max_all;
        r->p99_abs_error_s = p99_all;
        r->mean_abs_error_s = mean_all;
    }
}

/* ---- the common-mode error of the time axis --------------------------------------- */

/* c(t), the error that all locations share at true time t (eval.h), estimated from
 * the errors g = corrected - true - offset of all events.
 *
 * Bins. True time is cut into bins of `width` ticks of the truth, aligned to
 * multiples of the width (so that a bin does not depend on where the trace starts);
 * the width is the option rounded to whole ticks, widened when the true time range
 * would need more than TSYNC_EVAL_MAX_BINS bins. Each bin that holds events gives
 * one point of c: at the median true time of its events (not the bin's center: a
 * bin that is only partly filled, at the end of a sleep, say, would otherwise put
 * the median error of its events at a time where they are not, and 10 ppm of skew
 * makes that 1 us per 0.1 s of displacement), the median error of its events.
 *
 * Refinement. Within a 1 s bin the reference clock's skew alone moves the error by
 * some 10 us, more than the differences between locations that are to be measured.
 * The median of a bin then mixes the two: with three locations, one of them 5 us off,
 * it lands 5/3 us from the common curve, not on it. So after the first points the
 * medians are taken again of the residuals g - c(t), which no longer contain the
 * trend, and added to the points, until no point moves by more than REFINE_TICKS
 * ticks of the truth, at most REFINEMENTS passes. Most of the mixing goes in the
 * first pass; where a point's line is continued beyond it (the ends of the run, the
 * edges of a gap) each pass removes about two thirds of what is left.
 *
 * Between points. c is linear between the points of adjacent bins. Where the next
 * point on an event's side lies across empty bins (a sleep of ten minutes, over
 * which the temperature wander bends the axis) or there is none (the first and last
 * bin), the line of the adjacent points on the other side is continued instead, for
 * at most about one bin; holding c constant there would cost skew x half a bin
 * (5 us at 10 ppm and 1 s). Only where neither neighbor is adjacent is the segment
 * across the gap used; a lone point is held constant.
 *
 * Memory: per bin two offsets and a point index, per point its bin, time and value
 * (under 45 MB at the cap of 10^6 bins); the events' values are grouped by bin in
 * the caller's buffer of one double per event, one pass over the events per step. */
#define REFINEMENTS 16
#define REFINE_TICKS 1e-3

struct axis {
    tsync_time origin;          /* first tick of bin 0, a multiple of width */
    int64_t width;              /* ticks of the truth per bin */
    double resolution;          /* ticks per second of the truth */
    size_t n_bins;
    size_t *start;              /* bin b's values: buf[start[b], start[b + 1]) */
    size_t *fill;               /* cursors while placing values */
    uint32_t *point;            /* bin -> its point (bins with events only) */
    size_t n_points;
    size_t *bin;                /* point -> its bin */
    double *x;                  /* point -> median true time, s after origin */
    double *y;                  /* point -> common-mode error there, s */
};

static void axis_free(struct axis *ax)
{
    free(ax->start);
    free(ax->fill);
    free(ax->point);
    free(ax->bin);
    free(ax->x);
    free(ax->y);
}

/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static size_t bin_of(const struct axis *ax, tsync_time when)
{
    return (size_t)(((uint64_t)when - (uint64_t)ax->origin) / (uint64_t)ax->width);
}

static double seconds_of(const struct axis *ax, tsync_time when)
{
    return (double)((uint64_t)when - (uint64_t)ax->origin) / ax->resolution;
}

/* The median of v[0, n), n > 0, averaging the two middle values when n is even. */
static double median(double *v, size_t n)
{
    double hi = select_kth(v, n, n / 2), lo;
    if (n % 2)
        return hi;
    lo = v[0]; /* the largest of the lower half, which select_kth left before n/2 */
    for (size_t i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return lo + (hi - lo) / 2;
}

/* c at `u` seconds after the origin, for an event in point j's bin. */
static double common_at(const struct axis *ax, size_t j, double u)
{
    int has_l = j > 0, has_r = j + 1 < ax->n_points;
    int adj_l = has_l && ax->bin[j] - ax->bin[j - 1] == 1;
    int adj_r = has_r && ax->bin[j + 1] - ax->bin[j] == 1;
    int use_left;
    size_t a;
    if (!has_l && !has_r)
        return ax->y[j];
    /* The segment on u's side if adjacent, else the other side's if adjacent, else
     * whichever exists, the one on u's side first. */
    if (u < ax->x[j])
        use_left = adj_l || (!adj_r && has_l);
    else
        use_left = !adj_r && (adj_l || !has_r);
    a = use_left ? j - 1 : j;
    return ax->y[a] + (ax->y[a + 1] - ax->y[a]) * (u - ax->x[a]) / (ax->x[a + 1] - ax->x[a]);
}

/* Bins over [tmin, tmax] of the truth, and the number of events of each. */
static int axis_init(struct axis *ax, const tsync_trace *t, double bin_s, tsync_ctx *ctx)
{
    tsync_time tmin = INT64_MAX, tmax = INT64_MIN;
    uint64_t range;
    double w = bin_s * (double)t->timer_resolution;
    size_t k = 0;
    memset(ax, 0, sizeof(*ax));
    for (tsync_loc i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        if (l->n_events) { /* times are non-decreasing per location */
            tmin = l->time[0] < tmin ? l->time[0] : tmin;
            tmax = l->time[l->n_events - 1] > tmax ? l->time[l->n_events - 1] : tmax;
        }
    }
    if (tmin > tmax)
        tmin = tmax = 0;
    range = (uint64_t)tmax - (uint64_t)tmin;
    ax->resolution = (double)t->timer_resolution;
    ax->width = w < 1 ? 1 : w > 4e18 ? (int64_t)4e18 : (int64_t)llround(w);
    /* floor(tmax / w) - floor(tmin / w) + 1 <= range / w + 2 bins. */
    if (range / (uint64_t)ax->width + 2 > TSYNC_EVAL_MAX_BINS)
        ax->width = (int64_t)(range / (TSYNC_EVAL_MAX_BINS - 2) + 1);
    ax->origin = floor_div(tmin, ax->width) * ax->width;
    ax->n_bins = bin_of(ax, tmax) + 1;
    if (!(ax->start = calloc(ax->n_bins + 1, sizeof(*ax->start))) ||
        !(ax->fill = malloc(ax->n_bins * sizeof(*ax->fill))) ||
        !(ax->point = malloc(ax->n_bins * sizeof(*ax->point))))
        return tsync__oom(ctx);
    for (tsync_loc i = 0; i < t->n_locations; i++)
        for (uint64_t e = 0; e < t->locations[i].n_events; e++)
            ax->start[bin_of(ax, t->locations[i].time[e]) + 1]++;
    for (size_t b = 0; b < ax->n_bins; b++)
        ax->n_points += ax->start[b + 1] != 0;
    if (!(ax->bin = malloc((ax->n_points ? ax->n_points : 1) * sizeof(*ax->bin))) ||
        !(ax->x = malloc((ax->n_points ? ax->n_points : 1) * sizeof(*ax->x))) ||
        !(ax->y = calloc(ax->n_points ? ax->n_points : 1, sizeof(*ax->y))))
        return tsync__oom(ctx);
    for (size_t b = 0; b < ax->n_bins; b++) {
        if (ax->start[b + 1]) {
            ax->point[b] = (uint32_t)k;
            ax->bin[k++] = b;
        }
        ax->start[b + 1] += ax->start[b];
    }
    return TSYNC_OK;
}

/* Sets every point's value (or, with `add`, adds to it) to the median of its bin's
 * values, grouped by the caller into buf. Returns the largest |median|. */
static double axis_medians(struct axis *ax, double *buf, int add, double *out)
{
    double largest = 0;
    for (size_t j = 0; j < ax->n_points; j++) {
        size_t b = ax->bin[j];
        double m = median(buf + ax->start[b], ax->start[b + 1] - ax->start[b]);
        out[j] = add ? out[j] + m : m;
        if (fabs(m) > largest)
            largest = fabs(m);
    }
    return largest;
}

#define PLACE(value) (buf[ax.fill[bin_of(&ax, when)]++] = (value))
#define COMMON() common_at(&ax, ax.point[bin_of(&ax, when)], seconds_of(&ax, when))

/* ---- errors, both kinds ------------------------------------------------------------ */

static int errors(tsync_eval_report *r, tsync_time *const *ct, const tsync_trace *c,
                  const tsync_trace *t, const tsync_loc *map, double bin_s, tsync_ctx *ctx)
{
    struct scale sc = scale_of(c->timer_resolution, t->timer_resolution);
    size_t n = 0, total = (size_t)r->events;
    double *buf = malloc((total ? total : 1) * sizeof(*buf));
    struct axis ax;
    i128 offset = 0;
    int found = 0, rc;
    if (!buf)
        return tsync__oom(ctx);

    /* After one constant. The lower median is one event's error: find that event's
     * exact numerator, so that removing it is exact too. */
    FOR_EACH_ERROR(num, when, buf[n++] = (double)num / sc.lcm);
    r->offset_s = total ? select_kth(buf, total, (total - 1) / 2) : 0.0;
    FOR_EACH_ERROR(num, when, if (!found && (double)num / sc.lcm == r->offset_s) {
        offset = num;
        found = 1;
    });
    n = 0;
    FOR_EACH_ERROR(num, when, buf[n++] = fabs((double)(num - offset) / sc.lcm));
    summarize(r, t, buf, 0);

    /* Relative to the time axis: the points of c, then |g - c(true)|. */
    if ((rc = axis_init(&ax, t, bin_s, ctx)))
        goto out;
    r->relative_bin_s = (double)ax.width / ax.resolution;
    memcpy(ax.fill, ax.start, ax.n_bins * sizeof(*ax.fill));
    FOR_EACH_ERROR(num, when, PLACE(seconds_of(&ax, when)));
    axis_medians(&ax, buf, 0, ax.x);
    for (int pass = 0; pass <= REFINEMENTS; pass++) {
        double moved;
        memcpy(ax.fill, ax.start, ax.n_bins * sizeof(*ax.fill));
        FOR_EACH_ERROR(num, when, {
            double g = (double)(num - offset) / sc.lcm;
            PLACE(pass ? g - COMMON() : g);
        });
        moved = axis_medians(&ax, buf, pass > 0, ax.y);
        if (pass && moved <= REFINE_TICKS / ax.resolution)
            break;
    }
    n = 0;
    FOR_EACH_ERROR(num, when, buf[n++] = fabs((double)(num - offset) / sc.lcm - COMMON()));
    summarize(r, t, buf, 1);
out:
    axis_free(&ax);
    free(buf);
    return rc;
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
    double bin_s;
    int rc;

    if (!out || !corrected || !truth)
        return tsync__fail(ctx, TSYNC_EINVAL, "eval: no trace given");
    if (!opts)
        opts = &defaults;
    /* Version 1 options end before bin_s. */
    if (opts->version != TSYNC_EVAL_OPTS_VERSION && opts->version != 1)
        return tsync__fail(ctx, TSYNC_EINVAL, "eval: options version %u, expected %u (initialize "
                           "with TSYNC_EVAL_OPTS_INIT)", opts->version, TSYNC_EVAL_OPTS_VERSION);
    bin_s = opts->version >= 2 ? opts->bin_s : 1.0;
    if (!(bin_s > 0) || !isfinite(bin_s))
        return tsync__fail(ctx, TSYNC_EINVAL, "eval: bin of %g s for the time axis, expected a "
                           "positive number of seconds", bin_s);
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
    if ((rc = errors(r, times->time, corrected, truth, map, bin_s, ctx)) ||
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
