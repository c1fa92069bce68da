/* epochs.c - the busy periods of a trace on the reference's time axis.
 *
 * Score-P measures offsets at MPI_Init and MPI_Finalize; seed 002's runs sleep 10
 * minutes after the one and before the other; applications idle between phases.
 * The pair that relates two clocks best during the main phase (hundreds of messages)
 * is rarely the one that does at MPI_Init (a measured offset, and no message), so
 * each busy period gets its own shortest paths (estimate/periods.c). A busy period is a
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

void tsync__spans_free(struct tsync__spans *sp)
{
    free(sp->v);
    memset(sp, 0, sizeof(*sp));
}

/* The spans of location l whose times are time[0, n), in order. */
static int spans_of_times(struct tsync__spans *sp, tsync_loc l, const tsync_time *time, uint64_t n,
                          int64_t max_gap)
{
    uint64_t start = 0;
    for (uint64_t i = 1; i <= n; i++) {
        struct tsync__span s = { l, time[start], time[i - 1], i - start };
        if (i < n && time[i] - time[i - 1] <= max_gap)
            continue;
        if (TSYNC_PUSH(sp->v, sp->n, sp->cap, s))
            return TSYNC_ENOMEM;
        start = i;
    }
    return 0;
}

int tsync__spans_of_events(struct tsync__spans *sp, const struct tsync_trace *t, int64_t max_gap)
{
    memset(sp, 0, sizeof(*sp));
    for (tsync_loc l = 0; l < t->n_locations; l++)
        if (tsync__held(t, l) &&
            spans_of_times(sp, l, t->locations[l].time, t->locations[l].n_events, max_gap)) {
            tsync__spans_free(sp);
            return TSYNC_ENOMEM;
        }
    return 0;
}

/* ---- from message lists --------------------------------------------------------------- */

/* The times of a location that fall in [first + k g, first + (k + 1) g): any two of
 * them are less than g apart, so that only the earliest and latest matter. */
struct bucket {
    tsync_time min, max;
    uint64_t events;
};

#define SPARSE_BUCKETS 8 /* events a bucket at least, on average: else sort the times */

static int i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* A location with fewer events than buckets of its extent: its times sorted. */
static int sparse_spans(struct tsync__spans *sp, const struct tsync_trace *t, tsync_loc l,
                        const struct tsync_message_list *lists, size_t n, int64_t max_gap)
{
    tsync_time *v = malloc((t->extents[l].events ? t->extents[l].events : 1) * sizeof(*v));
    uint64_t k = 0;
    int rc;
    if (!v)
        return TSYNC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (lists[i].send_loc != l && lists[i].recv_loc != l)
            continue;
        for (size_t j = 0; j < lists[i].n; j++) {
            if (lists[i].send_loc == l)
                v[k++] = lists[i].v[j].x;
            if (lists[i].recv_loc == l)
                v[k++] = lists[i].v[j].y;
        }
    }
    qsort(v, k, sizeof(*v), i64_cmp);
    rc = spans_of_times(sp, l, v, k, max_gap);
    free(v);
    return rc;
}

/* The times of one stream that fall in one bucket, in a row: summed here (in
 * registers, where a bucket in memory is loaded and stored for each time), then
 * added to their bucket at once. */
struct run {
    uint64_t k, at;        /* the bucket's index and its first offset */
    tsync_time min, max;
    uint64_t events;
};

static void run_flush(struct bucket *b, const struct run *r)
{
    if (!r->events)
        return;
    b += r->k;
    if (!b->events || r->min < b->min)
        b->min = r->min;
    if (!b->events || r->max > b->max)
        b->max = r->max;
    b->events += r->events;
}

/* The run flushed to the buckets b and one of bucket k opened. */
static void run_open(struct bucket *b, struct run *r, uint64_t k, uint64_t g)
{
    run_flush(b, r);
    r->k = k;
    r->at = k * g;
    r->events = 0;
    r->min = INT64_MAX;
    r->max = INT64_MIN;
}

/* n times from lo to hi at offsets dlo and dhi = x - first (the offsets of one
 * stream mostly rise) to the location's buckets b, when they fall in one bucket:
 * the run's, or a run of that bucket opened. 0 (nothing added) when they span two
 * buckets; a single time (n = 1) is always added. */
static inline int run_add(struct bucket *b, struct run *r, uint64_t dlo, uint64_t dhi, uint64_t g,
                          tsync_time lo, tsync_time hi, uint64_t n)
{
    if (dlo - r->at >= g || dhi - r->at >= g) {   /* also below r->at, where it wraps */
        if (dlo / g != dhi / g)
            return 0;
        run_open(b, r, dlo / g, g);
    }
    r->min = lo < r->min ? lo : r->min;
    r->max = hi > r->max ? hi : r->max;
    r->events += n;
    return 1;
}

/* One end of messages v[0, n) (their receives where recv, else their sends), whose
 * times lie from lo to hi, to the buckets b of its location, whose first time is
 * `first`: at once where they fall in one bucket, else one by one. */
static inline void block_add(struct bucket *b, struct run *r, tsync_time first, uint64_t g,
                             tsync_time lo, tsync_time hi, const struct tsync__pt *v, size_t n,
                             int recv)
{
    if (run_add(b, r, (uint64_t)(lo - first), (uint64_t)(hi - first), g, lo, hi, n))
        return;
    for (size_t j = 0; j < n; j++) {
        tsync_time x = recv ? v[j].y : v[j].x;
        run_add(b, r, (uint64_t)(x - first), (uint64_t)(x - first), g, x, x, 1);
    }
}

int tsync__spans_of_lists(struct tsync__spans *sp, const struct tsync_trace *t,
                          const struct tsync_message_list *lists, size_t n, int64_t max_gap)
{
    size_t *base = calloc(t->n_locations + 1, sizeof(*base)), total = 0;
    struct bucket *b = NULL;
    int rc = TSYNC_ENOMEM;
    memset(sp, 0, sizeof(*sp));
    if (!base)
        return rc;
    /* Dense locations get (last - first) / max_gap + 1 buckets from base[l]. */
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        const struct tsync_extent *x = &t->extents[l];
        uint64_t nb = x->events ? (uint64_t)(x->last - x->first) / (uint64_t)max_gap + 1 : 0;
        base[l] = total;
        if (nb && nb <= x->events / SPARSE_BUCKETS)
            total += nb;
    }
    base[t->n_locations] = total;
    if (!(b = calloc(total ? total : 1, sizeof(*b))))
        goto out;
    for (size_t i = 0; i < n; i++) {
        const struct tsync_message_list *m = &lists[i];
        tsync_loc s = m->send_loc, r = m->recv_loc;
        tsync_time fs = t->extents[s].first, fr = t->extents[r].first;
        int ds = base[s + 1] > base[s], dr = base[r + 1] > base[r];
        uint64_t g = (uint64_t)max_gap;
        struct run rs = { 0, 0, INT64_MAX, INT64_MIN, 0 }, rr = rs;
        /* A block of messages at a time by its extents (the reader's), and its times
         * one by one only where they span two buckets (a block in 40 for buckets of
         * 10 s and 280 messages a second). */
        for (size_t j0 = 0; j0 < m->n; j0 += TSYNC__LIST_BLOCK) {
            const struct tsync__list_block *k = &m->blocks[j0 / TSYNC__LIST_BLOCK];
            size_t j1 = m->n - j0 < TSYNC__LIST_BLOCK ? m->n : j0 + TSYNC__LIST_BLOCK;
            if (ds)
                block_add(b + base[s], &rs, fs, g, k->x_lo, k->x_hi, m->v + j0, j1 - j0, 0);
            if (dr)
                block_add(b + base[r], &rr, fr, g, k->y_lo, k->y_hi, m->v + j0, j1 - j0, 1);
        }
        if (ds)
            run_flush(b + base[s], &rs);
        if (dr)
            run_flush(b + base[r], &rr);
    }
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        struct tsync__span cur = { l, 0, 0, 0 };
        if (t->extents[l].events && base[l + 1] == base[l]) {
            if (sparse_spans(sp, t, l, lists, n, max_gap))
                goto out;
            continue;
        }
        for (size_t k = base[l]; k < base[l + 1]; k++) {
            if (!b[k].events)
                continue;
            if (cur.events && b[k].min - cur.to > max_gap) {
                if (TSYNC_PUSH(sp->v, sp->n, sp->cap, cur))
                    goto out;
                cur.events = 0;
            }
            if (!cur.events)
                cur.from = b[k].min;
            cur.to = b[k].max;
            cur.events += b[k].events;
        }
        if (cur.events && TSYNC_PUSH(sp->v, sp->n, sp->cap, cur))
            goto out;
    }
    rc = 0;
out:
    free(base);
    free(b);
    if (rc)
        tsync__spans_free(sp);
    return rc;
}

/* ---- on the reference's axis ------------------------------------------------------------ */

int tsync__find_epochs(struct tsync__epochs *ep, const struct tsync__spans *sp,
                       const struct tsync_trace *t, const struct tsync__pwl *maps, int64_t max_gap)
{
    struct span *v = malloc((sp->n ? sp->n : 1) * sizeof(*v));
    size_t n = sp->n;

    memset(ep, 0, sizeof(*ep));
    if (!v)
        return TSYNC_ENOMEM;
    /* Each location's busy intervals in its own clock, carried to the reference. */
    for (size_t i = 0; i < n; i++) {
        const struct tsync__pwl *m = &maps[t->locations[sp->v[i].loc].domain];
        v[i].from = to_reference(m, sp->v[i].from);
        v[i].to = to_reference(m, sp->v[i].to);
        v[i].to = v[i].to > v[i].from ? v[i].to : v[i].from;
        v[i].events = sp->v[i].events;
    }
    qsort(v, n, sizeof(*v), span_cmp);
    for (size_t i = 0; i < n; i++) {
        struct tsync__epoch *last = ep->n ? &ep->v[ep->n - 1] : NULL;
        struct tsync__epoch e = { v[i].from, v[i].to, v[i].events };
        if (last && v[i].from - last->to <= max_gap) {
            last->to = v[i].to > last->to ? v[i].to : last->to;
            last->events += v[i].events;
        } else if (TSYNC_PUSH(ep->v, ep->n, ep->cap, e)) {
            free(v);
            tsync__epochs_free(ep);
            return TSYNC_ENOMEM;
        }
    }
    free(v);
    return 0;
}

void tsync__epochs_free(struct tsync__epochs *ep)
{
    free(ep->v);
    memset(ep, 0, sizeof(*ep));
}
