/* window.c - windowed minimum delays: a pair's offset followed window by window,
 * for clocks that bend inside a wide feasible band.
 *
 * Where the true minimum latency is well above the assumed one, the hull's band is
 * wide (twice the difference) and a clock whose drift wanders can bend inside it
 * for a whole main phase without any sample contradicting a line: one piece, and
 * its line is off by the bend (a parabola of microseconds over a minute). The
 * messages still follow the clock: in a short window, the smallest delay seen each
 * way is the minimum latency plus the offset one way and minus it the other, so the
 * offset is half the difference of the two directions' minimum delays (seed 003's
 * exchange, Eq. 3, with the fastest message of each direction instead of one
 * round trip; seed 004, section 7: most packets take close to the minimal time).
 *
 * On the pair's plane (estimator.h), with a the slope of the piece the window lies
 * in: the line passes at or below every ABOVE point and at or above every BELOW
 * point, so at the window's centre c
 *
 *     max_j (y_j - a (x_j - c))  <=  Y(c)  <=  min_i (y_i - a (x_i - c))
 *
 * up to the slope's error over the window, and the window's value is the middle of
 * the two. A window closes once it holds WINDOW_SAMPLES samples each way and spans
 * the pair's span over windows_max at least (or at max_width with at least `least`
 * each way, TSYNC__WINDOW_LEAST or, for a pair whose messages wait too often for
 * its local lines, TSYNC__WINDOW_FEWEST; with fewer it gives nothing). Delayed
 * messages only widen a window's band, one way; when all of a window's messages
 * one way were delayed (a receiver held up by the system for a few milliseconds
 * receives them all late), its middle is off by half the delay: a window whose
 * band is wider than WIDE times the pair's median is left out. The middles are
 * then smoothed by a line or a parabola through each window and its h neighbours
 * on either side, near the ends its 2h nearest (the minima are noisy by the excess
 * of the fastest message each way), across the hull's pieces:
 * the clock goes on where a piece ends, and a line that stops there bends its ends
 * off. How far to smooth, and with which degree, is the data's to say: a clock that
 * bends wants a short span, a straight one a long span that averages the noise
 * away, and a line through five windows of a clock whose drift swings by a ppm in
 * twenty minutes is off by its bend (a chord of 50 s: 1.4 us, where each window is
 * 0.2 us off), which a parabola follows. h and the degree are those, among
 * SMOOTH_MIN, 2 SMOOTH_MIN, ... SMOOTH_MAX and 1 or 2, whose curves predict each
 * window from its neighbours best (least squares, leaving the window out: the
 * cross-validation of LOESS, local regression of degree 1 or 2). The smoothed
 * curve is then moved onto the edge that the fastest messages draw about it
 * (refine_edges), which averages their noise away faster than the middles do.
 * segment.c joins the middles, never outside the band it promises.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimator.h"
#include "util/select.h"
#include "util/vec.h"

#define WINDOW_SAMPLES 16      /* each way: the fastest of 16 is close to the minimum */
#define SMOOTH_MIN 2           /* neighbours on each side in the smoothing curve, */
#define SMOOTH_MAX 1024        /* ... at least and at most */
#define WIDE 1.5L              /* x the median band: a window of delayed messages */
#define SPARSE 2.0L            /* x the longest window: the median gap between windows */
#define STRETCH 3              /* a pair's longest window, at most x the one asked for */
#define STRETCHED_MIN 64       /* longer windows: at least so many, or none */

/* A window being filled. */
struct acc {
    tsync_time first, last;
    uint64_t n_above, n_below;
    long double hi, lo;        /* min over ABOVE, max over BELOW of y - a (x - first) */
    long double a;
    const struct tsync__pt *above, *below;  /* the samples of hi and lo */
};

/* The piece whose samples hold x, or the one before it. */
static size_t piece_at(const struct tsync__pieces *ps, size_t k, tsync_time x)
{
    while (k + 1 < ps->n && ps->v[k + 1].x_first <= x)
        k++;
    return k;
}

static int close_window(struct tsync__windows *w, const struct acc *a, size_t *cap)
{
    struct tsync__window win;
    /* The middle of the band, moved to the centre along the piece's slope. */
    win.x = a->first + (a->last - a->first) / 2;
    win.y = (long double)a->first + (a->hi + a->lo) / 2 + a->a * (long double)(win.x - a->first);
    win.a = a->a;
    win.width = a->hi - a->lo;
    win.above = *a->above;
    win.below = *a->below;
    return TSYNC_PUSH(w->v, w->n, *cap, win) ? TSYNC_ENOMEM : 0;
}

/* The median of n values (n > 0) that value(w, i) gives; 0 or TSYNC_ENOMEM. */
static int median(const struct tsync__windows *w, size_t n,
                  long double (*value)(const struct tsync__windows *, size_t), long double *out)
{
    long double *v = malloc(n * sizeof(*v));
    if (!v)
        return TSYNC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = value(w, i);
    *out = tsync__select_ld(v, n, n / 2);
    free(v);
    return 0;
}

static long double gap_after(const struct tsync__windows *w, size_t i)
{
    return (long double)(w->v[i + 1].x - w->v[i].x);
}

static long double width_of(const struct tsync__windows *w, size_t i)
{
    return w->v[i].width;
}

/* Gives up a pair's windows when the typical gap between them is longer than
 * SPARSE windows: where messages come in bursts minutes apart, a line through a few
 * windows cuts across the clock's bends, tens of microseconds off (16 nodes of one
 * rank over half an hour), and the hull's pieces do better. */
static int drop_sparse(struct tsync__windows *w)
{
    long double gap;
    if (w->n < 2)
        return 0;
    if (median(w, w->n - 1, gap_after, &gap))
        return TSYNC_ENOMEM;
    if (gap > SPARSE * (long double)w->max_width)
        w->n = 0;
    return 0;
}

/* Leaves out the windows whose band is wider than WIDE times the median. */
static int drop_wide(struct tsync__windows *w)
{
    long double limit;
    size_t kept = 0;
    if (!w->n)
        return 0;
    if (median(w, w->n, width_of, &limit))
        return TSYNC_ENOMEM;
    limit *= WIDE;
    for (size_t i = 0; i < w->n; i++)
        if (w->v[i].width <= limit)
            w->v[kept++] = w->v[i];
    w->n = kept;
    return 0;
}

/* Sums over windows for local least squares, x in 10^9 ticks from the first window
 * and y from the line through the first window along its slope (so that the sums
 * keep their precision over hours and drifts of 1000 ppm). */
struct sums {
    long double n, x, xx, x3, x4, y, xy, xxy;
};

/* A window's x and y as the sums take them. */
struct point {
    long double x, y;
};

/* The sums over windows 0 .. k - 1 but their count, which is k: the spans' sums are
 * differences of two of them. */
struct prefix {
    long double x, xx, x3, x4, y, xy, xxy;
};

/* A parabola's sums, centred at x0 from the sums about 0, lose the digits of x0^4
 * to cancellation: kept to spans at least this part of the distance from the
 * first window (x0 / 1000: 10^-7 of the terms' size left, where a span of 30 ms an
 * hour in has none). A clock does not bend measurably over a shorter span. */
#define PARABOLA_SPAN 1e-3L

/* The value at x of the least-squares line of s, and its slope (*b, per 10^9 ticks: 0
 * where x is all alike and the value is the mean). */
static long double line_at(const struct sums *s, long double x, long double *b)
{
    long double d = s->n * s->xx - s->x * s->x;
    if (s->n < 1)
        return *b = 0;
    *b = d > 1e-12L * s->n * s->xx ? (s->n * s->xy - s->x * s->y) / d : 0;
    return (s->y - *b * s->x) / s->n + *b * x;
}

/* The value at x0 of the least-squares parabola of s (y = c0 + c1 u + c2 u^2, u =
 * x - x0: the normal equations by Cramer's rule), and its slope there (*b); the
 * line's where three points do not fix a parabola. */
static long double parabola_at(const struct sums *s, long double x0, long double *b)
{
    long double n = s->n, x1 = x0, x2 = x0 * x0, x3 = x2 * x0, x4 = x2 * x2;
    long double m1 = s->x - n * x1;
    long double m2 = s->xx - 2 * x1 * s->x + n * x2;
    long double m3 = s->x3 - 3 * x1 * s->xx + 3 * x2 * s->x - n * x3;
    long double m4 = s->x4 - 4 * x1 * s->x3 + 6 * x2 * s->xx - 4 * x3 * s->x + n * x4;
    long double t0 = s->y, t1 = s->xy - x1 * s->y, t2 = s->xxy - 2 * x1 * s->xy + x2 * s->y;
    long double det = n * (m2 * m4 - m3 * m3) - m1 * (m1 * m4 - m3 * m2) +
                      m2 * (m1 * m3 - m2 * m2);
    if (n < 3 || !(det > 1e-9L * n * m2 * m4))
        return line_at(s, x0, b);
    *b = (n * (t1 * m4 - m3 * t2) - t0 * (m1 * m4 - m3 * m2) + m2 * (m1 * t2 - t1 * m2)) / det;
    return (t0 * (m2 * m4 - m3 * m3) - m1 * (t1 * m4 - m3 * t2) + m2 * (t1 * m3 - m2 * t2)) / det;
}

/* The windows of i's span among n: h on either side of i, and near an end the 2h + 1
 * nearest all the same (LOWESS's k nearest neighbours): a span cut at the end
 * averaged half as many windows where the line's value is noisiest, at its end (four
 * times the variance of its middle). Over the LAN pairs of bench_accuracy's (j)
 * classes the largest errors, at the first and last seconds, fell from 1.9-3.3 us
 * to 1.1-2.2 us. */
static void span(size_t n, size_t i, size_t h, size_t *from, size_t *to)
{
    *from = i > h ? i - h : 0;
    if (n > 2 * h && *from > n - 1 - 2 * h)
        *from = n - 1 - 2 * h;
    *to = *from + 2 * h < n - 1 ? *from + 2 * h : n - 1;
}

/* Whether a parabola is drawn through windows from..to around window i. */
static int parabola_spans(const struct point *own, size_t from, size_t to, size_t i)
{
    return to - from >= 2 && own[to].x - own[from].x >= PARABOLA_SPAN * fabsl(own[i].x);
}

/* The sums over windows from..to, with window i or without it (leave = 1). */
static void sums_of(const struct prefix *prefix, const struct point *own, size_t from, size_t to,
                    size_t i, int leave, struct sums *s)
{
    const struct prefix *hi = &prefix[to + 1], *lo = &prefix[from];
    const struct point *me = &own[i];
    s->n = (long double)(to + 1 - from);
    s->x = hi->x - lo->x;
    s->xx = hi->xx - lo->xx;
    s->x3 = hi->x3 - lo->x3;
    s->x4 = hi->x4 - lo->x4;
    s->y = hi->y - lo->y;
    s->xy = hi->xy - lo->xy;
    s->xxy = hi->xxy - lo->xxy;
    if (leave) {
        long double xx = me->x * me->x;
        s->n -= 1;
        s->x -= me->x;
        s->xx -= xx;
        s->x3 -= xx * me->x;
        s->x4 -= xx * xx;
        s->y -= me->y;
        s->xy -= me->x * me->y;
        s->xxy -= xx * me->y;
    }
}

/* The span and degree whose curves, each window left out of its own, predict the
 * windows best; judged on CV_WINDOWS of them at most, evenly spread (a pair of 10^6
 * messages has 30 000 windows, and the score of a span settles long before: the
 * smoothing cost 130 x 10^6 instructions on every window, 20 x 10^6 so). */
#define CV_WINDOWS 4096
static size_t best_span(const struct prefix *prefix, const struct point *own, size_t n,
                        int *degree)
{
    long double best = -1;
    size_t best_h = SMOOTH_MIN, stride = n / CV_WINDOWS + 1;
    *degree = 1;
    for (size_t h = SMOOTH_MIN; h <= SMOOTH_MAX; h *= 2) {
        long double cv[2] = { 0, 0 };
        size_t from, to, longest = 0;
        for (size_t i = 0; i < n; i += stride) {
            span(n, i, h, &from, &to);
            if (to - from >= 3) { /* three others at least draw a parabola */
                long double b, e1, e2;
                struct sums s;
                /* The same sums for both degrees. */
                sums_of(prefix, own, from, to, i, 1, &s);
                e1 = e2 = own[i].y - line_at(&s, own[i].x, &b);
                if (parabola_spans(own, from, to, i))
                    e2 = own[i].y - parabola_at(&s, own[i].x, &b);
                cv[0] += e1 * e1;
                cv[1] += e2 * e2;
            }
            longest = to - from > longest ? to - from : longest;
        }
        for (int d = 1; d <= 2; d++)
            if (best < 0 || cv[d - 1] < best)
                best = cv[d - 1], best_h = h, *degree = d;
        if (longest < 2 * h) /* no span grows any more */
            break;
    }
    return best_h;
}

long double tsync__window_bridge(const struct tsync__window *l, const struct tsync__window *r,
                                 long double x)
{
    long double dx = (long double)(r->x - l->x), t = (x - (long double)l->x) / dx;
    long double t2 = t * t, t3 = t2 * t;
    return l->y + (3 * t2 - 2 * t3) * (r->y - l->y) +
           dx * ((t3 - 2 * t2 + t) * l->a + (t3 - t2) * r->a);
}

/* ---- the fastest messages' edge about the smoothed curve -------------------------- */

/* The smoothing averages the windows' middles, each off by half the difference of
 * its two fastest messages' excess delays (0.9 us for the fastest of 16 of an
 * exponential excess of 20 us), and its error falls as the root of the windows it
 * averages. The fastest messages themselves lie along an edge: about the smoothed
 * curve, the ABOVE ones at or above the curve's error plus the latency the
 * assumption leaves, the BELOW ones at or below its error less it. The line below
 * every ABOVE point with the largest sum over them is the edge of their lower hull
 * over their mean x (the linear program that estimates a boundary, whose error
 * falls as 1/n where the excess has a floor, seed 004 section 7: most packets take
 * close to the minimal time), its mirror over the BELOW points the other; their
 * middle is the curve's error. Taken over REFINE_PART of the smoothing's span on
 * each side (its 2k + 1 nearest windows near an end), where the error is close to
 * a line; at every REFINE_STEP-th of those windows, joined linearly between. */
#define REFINE_PART 3
#define REFINE_STEP 4

/* A sample about the curve: x from the window it corrects, y its residual. */
struct edge_pt {
    double x, y;
};

/* The curve of the smoothed windows at x, inside window i's range: the cubic that
 * meets its neighbour's value and slope (a chord of windows 15 s apart strays
 * hundreds of nanoseconds from a bending clock), along its slope beyond the ends. */
static long double curve_near(const struct tsync__windows *w, size_t i, tsync_time x)
{
    const struct tsync__window *v = w->v;
    if (x < v[i].x && i > 0 && v[i - 1].x < v[i].x)
        return tsync__window_bridge(&v[i - 1], &v[i], (long double)x);
    if (x > v[i].x && i + 1 < w->n && v[i + 1].x > v[i].x)
        return tsync__window_bridge(&v[i], &v[i + 1], (long double)x);
    return v[i].y + v[i].a * (long double)(x - v[i].x);
}

/* Each window's fastest ABOVE and BELOW sample about the curve as it stands: x from
 * the first window, y the residual. */
static void residuals(const struct tsync__windows *w, struct edge_pt *above,
                      struct edge_pt *below)
{
    for (size_t i = 0; i < w->n; i++) {
        const struct tsync__window *v = &w->v[i];
        above[i].x = (double)(v->above.x - w->v[0].x);
        above[i].y = (double)((long double)v->above.y - curve_near(w, i, v->above.x));
        below[i].x = (double)(v->below.x - w->v[0].x);
        below[i].y = (double)((long double)v->below.y - curve_near(w, i, v->below.x));
    }
}

/* The edge of p[0, n) (lower, sign 1; upper, sign -1) over their mean x: its value
 * at x0. hull: room for n. */
static double edge_at(const struct edge_pt *p, size_t n, int sign, double x0,
                      struct edge_pt *hull)
{
    size_t m = 0, k = 0;
    double mean = 0, dx, a;
    for (size_t i = 0; i < n; i++) {
        struct edge_pt q = { p[i].x, sign * p[i].y };
        mean += q.x;
        while (m >= 2 && (hull[m - 1].x - hull[m - 2].x) * (q.y - hull[m - 2].y) -
                                 (hull[m - 1].y - hull[m - 2].y) * (q.x - hull[m - 2].x) <= 0)
            m--;
        hull[m++] = q;
    }
    mean /= (double)n;
    while (k + 2 < m && hull[k + 1].x < mean)
        k++;
    dx = m > 1 ? hull[k + 1].x - hull[k].x : 0;
    a = dx > 0 ? (hull[k + 1].y - hull[k].y) / dx : 0;
    return sign * (hull[k].y + a * (x0 - hull[k].x));
}

/* The curve's error at window i from the edges over its k nearest on either side,
 * in ticks of y. */
static double edge_error(const struct tsync__windows *w, const struct edge_pt *above,
                         const struct edge_pt *below, size_t i, size_t k, struct edge_pt *hull)
{
    size_t from, to;
    double x0 = (double)(w->v[i].x - w->v[0].x);
    span(w->n, i, k, &from, &to);
    return (edge_at(above + from, to + 1 - from, 1, x0, hull) +
            edge_at(below + from, to + 1 - from, -1, x0, hull)) / 2;
}

/* A window's two fastest samples bound the offset at its time (seed 003's exchange
 * with both bounds): the middle of its band is off by half the difference of their
 * excess delays over the minimum latency, so by at most half their sum, which is the
 * window's half band less the latency the assumption leaves out. That latency is
 * the pair's smallest half band, the tightest window's (less `slack`: its samples'
 * own excess, and the curve's bend between them, which the residuals about the
 * refined curve mostly remove). The refined curve is held, at each window, inside
 * the bands of it and its two neighbours shrunk so: where the curve's ends tilt, a
 * window whose fastest messages both came promptly holds it (the LAN mesh of
 * bench_accuracy, seed 1: 1.37 us -> 857 ns at its first seconds). Where the
 * latency varies the tightest window gives the least, and every band stays wider
 * than the truth needs; where the bands of neighbours do not meet, nothing moves. */
static void hold_in_bands(struct tsync__windows *w, struct edge_pt *above, struct edge_pt *below,
                          double slack)
{
    size_t n = w->n;
    double latency = INFINITY;
    residuals(w, above, below);
    for (size_t i = 0; i < n; i++)
        latency = fmin(latency, (above[i].y - below[i].y) / 2);
    latency -= slack;
    /* The residuals stay as read: a window's move changes none of its neighbours'. */
    for (size_t i = 0; i < n; i++) {
        double lo = -INFINITY, hi = INFINITY;
        for (size_t j = i ? i - 1 : 0; j < n && j <= i + 1; j++) {
            lo = fmax(lo, latency - above[j].y);  /* the curve's error at least */
            hi = fmin(hi, -below[j].y - latency); /* ... and at most */
        }
        if (lo <= hi)
            w->v[i].y -= lo > 0 ? lo : hi < 0 ? hi : 0;
    }
}

/* Moves each smoothed window by the middle of the two edges about the curve over
 * the windows within h / REFINE_PART + 1 of it, and its slope by the move's: an
 * edge's own slope rests on the two points it joins, far noisier than its value. */
static int refine_edges(struct tsync__windows *w, size_t h, double slack)
{
    size_t n = w->n, k = h / REFINE_PART + 1, step = k / REFINE_STEP + 1;
    struct edge_pt *above, *below, *hull;
    double dy0, dy1;
    long double slope = 0;
    int rc = TSYNC_ENOMEM;
    if (n < 2)
        return 0;
    above = tsync__alloc_array(n, sizeof(*above));
    below = tsync__alloc_array(n, sizeof(*below));
    hull = malloc((2 * k + 2) * sizeof(*hull));
    if (!above || !below || !hull)
        goto out;
    residuals(w, above, below);    /* read before any window moves */
    dy0 = edge_error(w, above, below, 0, k, hull);
    for (size_t e = 0, f; e < n - 1; e = f, dy0 = dy1) {
        long double span_x;
        f = e + step < n - 1 ? e + step : n - 1;
        dy1 = edge_error(w, above, below, f, k, hull);
        span_x = (long double)(w->v[f].x - w->v[e].x);
        slope = span_x > 0 ? (dy1 - dy0) / span_x : 0;
        for (size_t i = e; i < f; i++) {
            w->v[i].y += dy0 + slope * (long double)(w->v[i].x - w->v[e].x);
            w->v[i].a += slope;
        }
    }
    w->v[n - 1].y += dy0;
    w->v[n - 1].a += slope;
    hold_in_bands(w, above, below, slack);
    rc = 0;
out:
    free(above);
    free(below);
    free(hull);
    return rc;
}

/* Replaces every window's value by that of the curve fitted through it and its h
 * neighbours on each side, h and the degree chosen by cross-validation, and
 * its slope by the curve's where it has two windows or more: the curve's slope
 * there, which carries it beyond its first and last windows (a piece's own slope is
 * its average over minutes, a wandering clock's slope at its end is not); w->scatter
 * is the windows' RMS about the curve. */
static int smooth(struct tsync__windows *w, double slack)
{
    size_t n = w->n, h, from, to;
    struct point *own;
    struct prefix *prefix;
    long double a0, y0, squares = 0;
    int degree, rc = TSYNC_ENOMEM;
    if (n < 2)
        return 0;
    /* 144 bytes a window (3 MB for 10^6 messages): in huge pages where large. */
    own = tsync__alloc_array(n, sizeof(*own));
    prefix = tsync__alloc_array(n + 1, sizeof(*prefix));
    if (!own || !prefix)
        goto out;
    memset(&prefix[0], 0, sizeof(prefix[0]));
    a0 = w->v[0].a;
    y0 = w->v[0].y;
    for (size_t i = 0; i < n; i++) {
        long double dx = (long double)(w->v[i].x - w->v[0].x);
        struct point *p = &own[i];
        long double xx;
        p->x = dx / 1e9L;
        p->y = w->v[i].y - y0 - a0 * dx;
        xx = p->x * p->x;
        prefix[i + 1].x = prefix[i].x + p->x;
        prefix[i + 1].xx = prefix[i].xx + xx;
        prefix[i + 1].x3 = prefix[i].x3 + xx * p->x;
        prefix[i + 1].x4 = prefix[i].x4 + xx * xx;
        prefix[i + 1].y = prefix[i].y + p->y;
        prefix[i + 1].xy = prefix[i].xy + p->x * p->y;
        prefix[i + 1].xxy = prefix[i].xxy + xx * p->y;
    }
    h = best_span(prefix, own, n, &degree);
    /* The fitted curves read the sums alone: each window takes its own at once. */
    for (size_t i = 0; i < n; i++) {
        long double b, y;
        struct sums s;
        span(n, i, h, &from, &to);
        sums_of(prefix, own, from, to, i, 0, &s);
        y = degree == 2 && parabola_spans(own, from, to, i) ? parabola_at(&s, own[i].x, &b)
                                                            : line_at(&s, own[i].x, &b);
        squares += (own[i].y - y) * (own[i].y - y);
        w->v[i].y = y + y0 + a0 * (long double)(w->v[i].x - w->v[0].x);
        if (to > from && !isnan(b))
            w->v[i].a = a0 + b / 1e9L;
    }
    w->scatter = sqrtl(squares / (long double)n);
    rc = refine_edges(w, h, slack);
out:
    free(own);
    free(prefix);
    return rc;
}

/* A piece's slope is good enough to detrend windows when its extreme lines differ
 * by at most this: 1 ppm is 50 ns over a window of 100 ms. */
#define DETREND_SLOPE 1e-6L

/* The slope of piece k, or of the nearest piece whose slope the data fix (a loose
 * piece's mean of the extreme lines can be hundreds of ppm off). */
static long double detrend_slope(const struct tsync__pieces *ps, size_t k)
{
    for (size_t d = 0; d < ps->n; d++) {
        for (int side = -1; side <= 1; side += 2) {
            long double a_lo, b_lo, a_hi, b_hi;
            size_t j = side < 0 ? k - d : k + d;
            if ((side < 0 && d > k) || j >= ps->n)
                continue;
            if (tsync__hull_lines(&ps->v[j], &a_lo, &b_lo, &a_hi, &b_hi) == 0 &&
                a_hi - a_lo <= DETREND_SLOPE)
                return (a_lo + a_hi) / 2;
        }
    }
    return ps->v[k].a;
}

/* The ticks of x from a pair's first sample to its last, of either kind (both
 * kinds have samples). */
static long double pair_span(const struct tsync__pair_samples *s)
{
    tsync_time first, last;
    tsync__pair_samples_span(s, &first, &last);
    return (long double)last - (long double)first;
}

/* How long a window may grow: long enough for a pair's typical rate of messages to
 * fill it twice over (WINDOW_SAMPLES each way), from `width` up to STRETCH times it.
 * A pair that exchanges a message a second each way gets windows of 15 s, where 5 s
 * would cut every window short and leave the pair none; a busy pair keeps short
 * windows, which bend less with the clock. */
static int64_t window_width(const struct tsync__pair_samples *s, int64_t width)
{
    size_t fewer = s->n_above < s->n_below ? s->n_above : s->n_below;
    long double fill;
    if (!fewer)
        return width;
    fill = 2 * WINDOW_SAMPLES * pair_span(s) / (long double)fewer;
    return fill <= width ? width : fill >= STRETCH * width ? STRETCH * width : (int64_t)fill;
}

/* How short a full window may be: the pair's span over windows_max (options.c). */
static int64_t shortest_width(const struct tsync__pair_samples *s, size_t windows_max)
{
    if (!s->n_above || !s->n_below || !windows_max)
        return 0;
    return (int64_t)(pair_span(s) / (long double)windows_max);
}

/* y - a (x - first) of p, relative to first (f, first as a long double: the
 * differences of the exact long doubles are those of the integers, converted). */
static long double detrended(const struct tsync__pt *p, long double f, long double a)
{
    return ((long double)p->y - f) - a * ((long double)p->x - f);
}

/* The lowest (sign 1) or highest (sign -1) detrended value over pts[from, from + n)
 * (0 when n is 0). The sample that has it is found in doubles, faster than long
 * doubles' compare and move (build_at a fifth faster): y - first - a (x - first) is
 * (y - x) - (a - 1)(x - first), the first term exact in integers, the second small;
 * then that sample's value as before. Two samples whose values lie within a
 * double's rounding (10^-8 ticks) of each other may be taken one for the other. */
static long double extreme(const struct tsync__pt *pts, size_t from, size_t n, tsync_time first,
                           long double a, int sign, const struct tsync__pt **at)
{
    double e, s = sign, b = (double)(a - 1);
    size_t k = 0;
    *at = NULL;
    if (!n)
        return 0;                       /* pts NULL when a kind has none */
    pts += from;
    e = s * ((double)(pts[0].y - pts[0].x) - b * (double)(pts[0].x - first));
    for (size_t i = 1; i < n; i++) {
        double v = s * ((double)(pts[i].y - pts[i].x) - b * (double)(pts[i].x - first));
        k = v < e ? i : k;
        e = v < e ? v : e;
    }
    *at = &pts[k];
    return detrended(&pts[k], (long double)first, a);
}

/* The window that opens at above[ia] or below[ib], whichever comes first (at x
 * first, in piece k): in order of x it takes the samples of both kinds until it
 * holds WINDOW_SAMPLES of each (then `full`) and reaches min_width, but none more
 * than max_width after first or in the next piece. How many of each it takes: *na,
 * *nb. Found from the times alone, so that each kind's values are then read in a
 * loop of their own, not in the coin toss of which kind comes next. */
static int window_end(const struct tsync__pair_samples *s, size_t ia, size_t ib, tsync_time first,
                      const struct tsync__pieces *ps, size_t k, int64_t min_width,
                      int64_t max_width, size_t *na, size_t *nb)
{
    const struct tsync__pt *A = s->above, *B = s->below;
    size_t ea = ia, eb = ib;
#define BEYOND(x) ((x) - first > max_width || (k + 1 < ps->n && (x) >= ps->v[k + 1].x_first))
    if (ia + WINDOW_SAMPLES <= s->n_above && ib + WINDOW_SAMPLES <= s->n_below &&
        !BEYOND(A[ia + WINDOW_SAMPLES - 1].x) && !BEYOND(B[ib + WINDOW_SAMPLES - 1].x)) {
        /* Full at the later of the two last samples it needs; an ABOVE sample comes
         * before a BELOW one of the same time. */
        tsync_time xa = A[ia + WINDOW_SAMPLES - 1].x, xb = B[ib + WINDOW_SAMPLES - 1].x;
        if (xa > xb) {
            for (ea = ia + WINDOW_SAMPLES; eb < s->n_below && B[eb].x < xa; eb++)
                ;
        } else {
            for (eb = ib + WINDOW_SAMPLES; ea < s->n_above && A[ea].x <= xb; ea++)
                ;
        }
        /* Then every sample before min_width, of both kinds. */
        while (ea < s->n_above && A[ea].x - first < min_width && !BEYOND(A[ea].x))
            ea++;
        while (eb < s->n_below && B[eb].x - first < min_width && !BEYOND(B[eb].x))
            eb++;
    } else {
        while (ea < s->n_above && !BEYOND(A[ea].x))
            ea++;
        while (eb < s->n_below && !BEYOND(B[eb].x))
            eb++;
    }
#undef BEYOND
    *na = ea - ia;
    *nb = eb - ib;
    return ea - ia >= WINDOW_SAMPLES && eb - ib >= WINDOW_SAMPLES;
}

/* The windows at least min_width (where full) and at most max_width long, without
 * the wide ones; none where they lie far apart. */
static int build_at(struct tsync__windows *w, const struct tsync__pair_samples *s,
                    const struct tsync__pieces *ps, int64_t min_width, int64_t max_width,
                    size_t least)
{
    size_t ia = 0, ib = 0, cap = 0, k = 0, slope_of = SIZE_MAX, na, nb;
    long double slope = 0;        /* detrend_slope of piece slope_of */
    struct acc a;
    int rc;
    memset(w, 0, sizeof(*w));
    w->max_width = max_width;
    /* Room for every window at once (each holds WINDOW_SAMPLES or _MIN samples of
     * each kind at least): growing by doubling copied the windows of 10^7 samples
     * twice over. */
    cap = (s->n_above < s->n_below ? s->n_above : s->n_below) /
          (WINDOW_SAMPLES < least ? WINDOW_SAMPLES : least) + 1;
    if (!(w->v = malloc(cap * sizeof(*w->v))))
        return TSYNC_ENOMEM;
    while (ia < s->n_above || ib < s->n_below) {
        int full;
        memset(&a, 0, sizeof(a));
        a.first = ib == s->n_below || (ia < s->n_above && s->above[ia].x <= s->below[ib].x)
                      ? s->above[ia].x : s->below[ib].x;
        k = piece_at(ps, k, a.first);
        if (slope_of != k) {
            slope = detrend_slope(ps, k);
            slope_of = k;
        }
        a.a = slope;
        full = window_end(s, ia, ib, a.first, ps, k, min_width, max_width, &na, &nb);
        a.n_above = na;
        a.n_below = nb;
        a.hi = extreme(s->above, ia, na, a.first, a.a, 1, &a.above);
        a.lo = extreme(s->below, ib, nb, a.first, a.a, -1, &a.below);
        a.last = !nb || (na && s->above[ia + na - 1].x > s->below[ib + nb - 1].x)
                     ? s->above[ia + na - 1].x : s->below[ib + nb - 1].x;
        ia += na;
        ib += nb;
        /* A window cut short (at max_width, at the next piece, at the end) counts
         * with `least` each way. */
        if ((full || (a.n_above >= least && a.n_below >= least)) &&
            (rc = close_window(w, &a, &cap)))
            goto fail;
    }
    if ((rc = drop_wide(w)) || (rc = drop_sparse(w)))
        goto fail;
    return 0;
fail:
    tsync__windows_free(w);
    return rc;
}

int tsync__windows_build(struct tsync__windows *w, const struct tsync__pair_samples *s,
                         const struct tsync__pieces *ps, const struct tsync__est_params *p,
                         size_t least)
{
    int64_t width = p->window, longer = window_width(s, width);
    int64_t shortest = shortest_width(s, p->windows_max);
    int rc;
    memset(w, 0, sizeof(*w));
    if (!ps->n)
        return 0;
    /* Longer windows only for a pair that has none of the width asked for: where
     * short ones fill, they bend less with the clock (collectives only: 0.62 us with
     * 5 s, 0.93 us with 15 s). */
    rc = build_at(w, s, ps, shortest, width, least);
    if (rc == 0 && !w->n && longer > width) {
        tsync__windows_free(w);
        rc = build_at(w, s, ps, shortest, longer, least);
        if (rc == 0 && w->n < STRETCHED_MIN) /* too few to tell a bend from noise */
            w->n = 0;
    }
    if (rc == 0)
        rc = smooth(w, (double)p->slack);
    if (rc)
        tsync__windows_free(w);
    return rc;
}

void tsync__windows_free(struct tsync__windows *w)
{
    free(w->v);
    memset(w, 0, sizeof(*w));
}
