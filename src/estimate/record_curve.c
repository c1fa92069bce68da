/* record_curve.c - the ClockOffset records of a pair as its curve, where they come
 * every few tens of seconds and nothing else follows the clocks.
 *
 * A tracer that measures the offsets to its master every 30 s (a session of
 * ping-pongs, seed 000) leaves records a few hundred nanoseconds off the true
 * offset, far closer than the uncertainty a record enters the hull with (twice the
 * delay beyond the minimum latency that the trace's fastest exchanges show:
 * several microseconds). Score-P's linear interpolation between them follows a
 * clock whose drift wanders to within a microsecond; the hull's pieces, lines over
 * a few records and a dozen collectives each, were off by 2 to 5 us where the
 * collectives wait too often for windowed minima or local lines (16 nodes of one
 * rank, temperature-driven clocks: 3.9 to 6.1 us against the interpolation's 0.6
 * to 0.8). Here the records, merged where they lie closer than `near` (the records
 * of a node's ranks at one session), are the points of a curve joined linearly
 * between them, each with the slope of the chord across its neighbours: windows
 * marked local, which segment.c holds inside the pieces' ranges widened by the
 * wander margin and whose bounds it takes from the pieces. The bounds do not
 * change; only where the map runs inside them.
 *
 * Scatter, for the paths' costs (pairs.c): half the RMS of each record about the
 * chord of its two neighbours. That chord spans twice the gaps the curve's own
 * chords span: where the clocks bend it leaves them by four times as much as the
 * curve does, where the records' noise dominates by sqrt(3) times; half lies between.
 * Counted whole, it sent a rank through a pair of messages 1.1 us off, where its own
 * records stay within 0.8 us (16 nodes of one rank, sessions every 30 s, seed 22).
 *
 * Only where the records lie at most `reach` apart from the pair's first sample to
 * its last: records at MPI_Init and MPI_Finalize minutes around a main phase say
 * nothing of the clocks' bends in between, which the pieces follow.
 */
#include <math.h>
#include <stdlib.h>

#include "estimate/estimator.h"
#include "util/vec.h"

/* The records from i on that lie within `near` of record i, merged: their mean
 * point, the widest uncertainty. Returns the index after them. */
static size_t merged(const struct tsync__sample *v, size_t n, size_t i, int64_t near,
                     struct tsync__window *out)
{
    long double sx = 0, sy = 0, width = 0;
    size_t j = i;
    for (; j < n && v[j].x - v[i].x <= near; j++) {
        sx += (long double)(v[j].x - v[i].x);
        sy += (long double)(v[j].y - v[i].y);
        width = 2 * (long double)v[j].err > width ? 2 * (long double)v[j].err : width;
    }
    out->x = v[i].x + (tsync_time)(sx / (long double)(j - i));
    out->y = (long double)v[i].y + sy / (long double)(j - i);
    out->width = width;
    return j;
}

int tsync__record_curve(struct tsync__windows *w, const struct tsync__pair_samples *s,
                        int64_t reach, int64_t near)
{
    struct tsync__window *v;
    tsync_time first, last;
    long double sq = 0;
    size_t n = 0, cap = 0;
    int rc = 0;

    w->n = 0;
    w->v = NULL;
    tsync__pair_samples_span(s, &first, &last);
    if (reach <= 0 || s->n_rec < 2 || first > last || s->rec[0].x - first > reach ||
        last - s->rec[s->n_rec - 1].x > reach)
        return 0;
    for (size_t i = 0; i < s->n_rec;) {
        struct tsync__window win = { 0 };
        i = merged(s->rec, s->n_rec, i, near, &win);
        if (n && win.x - w->v[n - 1].x > reach)
            goto none;
        if (TSYNC_PUSH(w->v, n, cap, win)) {
            rc = TSYNC_ENOMEM;
            goto none;
        }
    }
    if (n < 2)
        goto none;
    /* Each point's slope: the chord across its neighbours (at the ends, to the
     * one neighbour), which the curve goes on with beyond the first and last. */
    v = w->v;
    for (size_t i = 0; i < n; i++) {
        size_t l = i ? i - 1 : 0, r = i + 1 < n ? i + 1 : n - 1;
        v[i].a = (v[r].y - v[l].y) / (long double)(v[r].x - v[l].x);
        if (i != l && i != r) {
            long double off = v[i].y - v[l].y - v[i].a * (long double)(v[i].x - v[l].x);
            sq += off * off;
        }
    }
    w->scatter = n > 2 ? sqrtl(sq / (long double)(n - 2)) / 2 : 0;   /* see the top */
    w->n = n;
    w->local = 1;
    return 0;
none:
    free(w->v);
    w->v = NULL;
    return rc;
}
