/* epochs.c - the busy periods of a trace on the reference's time axis.
 *
 * Score-P measures offsets at MPI_Init and MPI_Finalize; seed 002's runs sleep 10
 * minutes after the one and before the other; applications idle between phases.
 * The pair that relates two clocks best during the main phase (hundreds of messages)
 * is rarely the one that does at MPI_Init (a measured offset, and no message), so
 * each busy period gets its own shortest paths (estimate.c). A busy period is a
 * maximal interval of reference time in which no location is idle for longer than
 * the maximum gap of a piece; it is found on the maps of a first estimate, which
 * are good to far better than such a gap.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "trace/trace.h"
#include "util/vec.h"

/* Beyond its ends a map is inverted along its end segment, unless that segment is
 * flatter than 1/MAX_RATE or steeper than MAX_RATE: no clock runs at such a rate
 * against another (max_drift < 0.5); it is a clock step (a joint raised to keep the
 * map monotone where a clock jumped: a fuzzed CSV's map ran 10^15 ns of its clock
 * in 3 us of the reference's), and extrapolating it put times at -2^63. There, as
 * where no data tell the drift, both clocks run at the same rate. */
#define MAX_RATE 2.0L

tsync_time tsync__pwl_inverse(const struct tsync__pwl *f, tsync_time y)
{
    size_t lo = 0, hi;
    long double s;
    if (f->n == 0)
        return y;
    if (f->n == 1)
        return f->x[0] + (y - f->y[0]);
    if (y < f->y[0] || y > f->y[f->n - 1]) {
        size_t k = y < f->y[0] ? 0 : f->n - 2;
        long double dx = (long double)f->x[k + 1] - f->x[k];
        long double dy = (long double)f->y[k + 1] - f->y[k];
        if (!(dy * MAX_RATE >= dx && dx * MAX_RATE >= dy)) {
            k = y < f->y[0] ? 0 : f->n - 1;
            return (tsync_time)llroundl((long double)f->x[k] + ((long double)y - f->y[k]));
        }
    }
    hi = f->n - 1;
    while (lo + 1 < hi) {               /* the last segment whose start is <= y */
        size_t mid = lo + (hi - lo) / 2;
        if (f->y[mid] <= y)
            lo = mid;
        else
            hi = mid;
    }
    if (f->y[lo + 1] == f->y[lo])
        return f->x[lo];
    s = (long double)(f->x[lo + 1] - f->x[lo]) / (long double)(f->y[lo + 1] - f->y[lo]);
    return f->x[lo] + (tsync_time)llroundl(s * (long double)(y - f->y[lo]));
}

/* A busy interval of one location, in reference time. */
struct span {
    tsync_time from, to;
    uint64_t events;
};

static int span_cmp(const void *pa, const void *pb)
{
    const struct span *a = pa, *b = pb;
    return a->from < b->from ? -1 : a->from > b->from;
}

static tsync_time to_reference(const struct tsync__pwl *m, tsync_time x)
{
    return m->n ? (tsync_time)llroundl(tsync__pwl_eval(m, (long double)x)) : x;
}

int tsync__find_epochs(struct tsync__epochs *ep, const struct tsync_trace *t,
                       const struct tsync__pwl *maps, int64_t max_gap)
{
    struct span *v = NULL;
    size_t n = 0, cap = 0;
    int rc = TSYNC_ENOMEM;

    memset(ep, 0, sizeof(*ep));
    /* Each location's busy intervals in its own clock, carried to the reference. */
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        const struct tsync_location *loc = &t->locations[l];
        const struct tsync__pwl *m = &maps[loc->domain];
        uint64_t start = 0;
        for (uint64_t i = 1; i <= loc->n_events; i++) {
            struct span s;
            if (i < loc->n_events && loc->time[i] - loc->time[i - 1] <= max_gap)
                continue;
            s.from = to_reference(m, loc->time[start]);
            s.to = to_reference(m, loc->time[i - 1]);
            s.to = s.to > s.from ? s.to : s.from;
            s.events = i - start;
            if (TSYNC_PUSH(v, n, cap, s))
                goto out;
            start = i;
        }
    }
    qsort(v, n, sizeof(*v), span_cmp);
    for (size_t i = 0; i < n; i++) {
        struct tsync__epoch *last = ep->n ? &ep->v[ep->n - 1] : NULL;
        struct tsync__epoch e = { v[i].from, v[i].to, v[i].events };
        if (last && v[i].from - last->to <= max_gap) {
            last->to = v[i].to > last->to ? v[i].to : last->to;
            last->events += v[i].events;
        } else if (TSYNC_PUSH(ep->v, ep->n, ep->cap, e)) {
            goto out;
        }
    }
    rc = 0;
out:
    free(v);
    if (rc)
        tsync__epochs_free(ep);
    return rc;
}

void tsync__epochs_free(struct tsync__epochs *ep)
{
    free(ep->v);
    memset(ep, 0, sizeof(*ep));
}
