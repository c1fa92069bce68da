/* deviation.c - how much a correction changed the lengths of local intervals
 * (seed 002, section 6.2 and Table 4): the event position (from a location's
 * first event to each later event) and the event distance (between adjacent
 * events), each compared between a reference and a modified timeline.
 *
 * For an interval of reference length t whose length changed by dt, the relative
 * deviation is |dt| / |t|. Reported: the weighted average sum |dt| / sum |t| (the
 * seed weights long intervals more, as they matter more to an analysis), the
 * maximum, the largest |dt| in seconds, and for each threshold of Table 4 the
 * share of intervals above it and their share of the total reference length.
 * A location's first event starts its intervals, so a location with n events has
 * n - 1 intervals of each kind.
 */
#include <math.h>
#include <string.h>

#include "metrics/deviation_acc.h"
#include "tracesync/metrics.h"
#include "trace/trace.h"
#include "util/ctx.h"

const double tsync_deviation_threshold[TSYNC_DEVIATION_THRESHOLDS] = {
    0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0
};

void tsync__dev_finish(tsync_deviation *d, const struct tsync_dev_acc *a,
                       const struct tsync_trace *t)
{
    memset(d, 0, sizeof(*d));
    d->intervals = a->n;
    d->avg = a->sum_t > 0 ? a->sum_dt / a->sum_t : (a->sum_dt > 0 ? INFINITY : 0.0);
    d->max = a->max;
    d->max_abs_s = a->max_dt / (double)t->timer_resolution;
    for (int k = 0; k < TSYNC_DEVIATION_THRESHOLDS; k++) {
        d->share_intervals[k] = a->n ? (double)a->above[k] / (double)a->n : 0.0;
        d->share_time[k] = a->sum_t > 0 ? a->above_t[k] / a->sum_t : 0.0;
    }
}

void tsync__dev_merge(struct tsync_dev_acc *a, const struct tsync_dev_acc *b)
{
    a->n += b->n;
    a->sum_t += b->sum_t;
    a->sum_dt += b->sum_dt;
    a->max = b->max > a->max ? b->max : a->max;
    a->max_dt = b->max_dt > a->max_dt ? b->max_dt : a->max_dt;
    for (int k = 0; k < TSYNC_DEVIATION_THRESHOLDS; k++) {
        a->above[k] += b->above[k];
        a->above_t[k] += b->above_t[k];
    }
}

int tsync_deviation_compute(tsync_deviation *position, tsync_deviation *distance,
                            const tsync_trace *t, const tsync_timeline *ref,
                            const tsync_timeline *mod, tsync_ctx *ctx)
{
    struct tsync_dev_acc pos, dist;
    if (!t || !ref || !mod || ref->n_locations != t->n_locations ||
        mod->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL, "deviation: the timelines do not belong to the "
                           "trace%s%s", t ? " " : "", t ? t->path : "");
    if (t->timer_resolution == 0)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: deviation: timer resolution is 0", t->path);
    memset(&pos, 0, sizeof(pos));
    memset(&dist, 0, sizeof(dist));
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        const tsync_time *a = ref->time[l], *b = mod->time[l];
        struct tsync_dev_acc lp, ld;
        memset(&lp, 0, sizeof(lp));
        memset(&ld, 0, sizeof(ld));
        for (uint64_t j = 1; j < t->locations[l].n_events; j++) {
            tsync__dev_add(&lp, a[0], a[j], b[0], b[j]);
            tsync__dev_add(&ld, a[j - 1], a[j], b[j - 1], b[j]);
        }
        tsync__dev_merge(&pos, &lp);
        tsync__dev_merge(&dist, &ld);
    }
    if (position)
        tsync__dev_finish(position, &pos, t);
    if (distance)
        tsync__dev_finish(distance, &dist, t);
    return TSYNC_OK;
}
