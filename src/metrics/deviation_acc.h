/* deviation_acc.h (internal) - the sums behind Table 4 of seed 002, one interval
 * at a time, for tsync_deviation_compute and for stages that compute the
 * deviation inside a pass of their own over the two timelines (the clc).
 *
 * For an interval of reference length t whose length changed by dt, the relative
 * deviation is |dt| / |t|. Accumulated: the count, sum |t| and sum |dt| (the
 * weighted average sum |dt| / sum |t|), the maximum, the largest |dt|, and for
 * each threshold of Table 4 the intervals above it and their reference length.
 * The sums are doubles added in the order the intervals come, a location at a time
 * (tsync__dev_merge), so the same intervals give the same result to the bit,
 * whoever adds them and on how many threads.
 */
#ifndef TSYNC_METRICS_DEVIATION_ACC_H
#define TSYNC_METRICS_DEVIATION_ACC_H

#include <math.h>
#include <stdint.h>

#include "tracesync/metrics.h"
#include "trace/trace.h"

struct tsync_dev_acc {
    uint64_t n;
    double sum_t, sum_dt, max, max_dt;
    uint64_t above[TSYNC_DEVIATION_THRESHOLDS];
    double above_t[TSYNC_DEVIATION_THRESHOLDS];
};

/* An interval that changed: dt > 0. */
static inline void tsync__dev_changed(struct tsync_dev_acc *a, double len, double dt)
{
    double dev;
    a->sum_dt += dt;
    if (dt > a->max_dt)
        a->max_dt = dt;
    dev = len > 0 ? dt / len : INFINITY;
    if (dev > a->max)
        a->max = dev;
    for (int k = 0; k < TSYNC_DEVIATION_THRESHOLDS; k++) {
        if (!(dev > tsync_deviation_threshold[k]))
            break;                    /* thresholds increase */
        a->above[k]++;
        a->above_t[k] += len;
    }
}

/* The interval from reference time ri to rj, modified mi to mj: lengths exact in
 * 64 bits unless times lie far beyond any real trace (then in double). */
static inline void tsync__dev_add(struct tsync_dev_acc *a, int64_t ri, int64_t rj, int64_t mi,
                                  int64_t mj)
{
    int64_t t, t2, d;
    double len, dt;
    if (__builtin_sub_overflow(rj, ri, &t) || __builtin_sub_overflow(mj, mi, &t2) ||
        __builtin_sub_overflow(t2, t, &d)) {
        len = fabs((double)rj - (double)ri);
        dt = fabs(((double)mj - (double)mi) - ((double)rj - (double)ri));
    } else {
        len = fabs((double)t);
        dt = fabs((double)d);
    }
    a->n++;
    a->sum_t += len;
    /* Unchanged: adds 0 to sum_dt (no change) and is above no threshold, not even 0. */
    if (dt != 0)
        tsync__dev_changed(a, len, dt);
}

/* Adds the intervals accumulated in b to a. Sums of a location each, merged in
 * location order, are the same numbers whichever thread accumulated them. */
void tsync__dev_merge(struct tsync_dev_acc *a, const struct tsync_dev_acc *b);

/* The result of the intervals accumulated in a. */
void tsync__dev_finish(tsync_deviation *d, const struct tsync_dev_acc *a,
                       const struct tsync_trace *t);

#endif
