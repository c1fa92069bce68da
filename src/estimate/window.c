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
 * the two. A window closes once it holds WINDOW_SAMPLES samples each way (or at
 * max_width with at least WINDOW_SAMPLES_MIN each way; with fewer it gives
 * nothing). Delayed messages only widen a window's band, one way; when all of a
 * window's messages one way were delayed (a receiver held up by the system for a
 * few milliseconds receives them all late), its middle is off by half the delay:
 * a window whose band is wider than WIDE times the pair's median is left out. The
 * middles are then smoothed by a straight line through each window and SMOOTH
 * neighbours on either side (the minima are noisy by the excess of the fastest
 * message each way); segment.c joins them, never outside the band it promises.
 */
#include <stdlib.h>
#include <string.h>

#include "estimate/estimator.h"
#include "util/vec.h"

#define WINDOW_SAMPLES 16      /* each way: the fastest of 16 is close to the minimum */
#define WINDOW_SAMPLES_MIN 16  /* each way, in a window cut at its longest */
#define SMOOTH 2               /* neighbours on each side in the smoothing line */
#define WIDE 1.5L              /* x the median band: a window of delayed messages */

/* A window being filled. */
struct acc {
    tsync_time first, last;
    uint64_t n_above, n_below;
    long double hi, lo;        /* min over ABOVE, max over BELOW of y - a (x - first) */
    long double a;
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
    return TSYNC_PUSH(w->v, w->n, *cap, win) ? TSYNC_ENOMEM : 0;
}

static int width_cmp(const void *pa, const void *pb)
{
    long double a = *(const long double *)pa, b = *(const long double *)pb;
    return a < b ? -1 : a > b;
}

/* Leaves out the windows whose band is wider than WIDE times the median. */
static int drop_wide(struct tsync__windows *w)
{
    long double *width = malloc((w->n ? w->n : 1) * sizeof(*width)), limit;
    size_t kept = 0;
    if (!width)
        return TSYNC_ENOMEM;
    for (size_t i = 0; i < w->n; i++)
        width[i] = w->v[i].width;
    qsort(width, w->n, sizeof(*width), width_cmp);
    limit = w->n ? WIDE * width[w->n / 2] : 0;
    for (size_t i = 0; i < w->n; i++)
        if (w->v[i].width <= limit)
            w->v[kept++] = w->v[i];
    w->n = kept;
    free(width);
    return 0;
}

/* Replaces every window's value by that of the straight line fitted through it and
 * its SMOOTH neighbours on each side (least squares, relative to the window). */
static int smooth(struct tsync__windows *w)
{
    long double *y = malloc((w->n ? w->n : 1) * sizeof(*y));
    if (!y)
        return TSYNC_ENOMEM;
    for (size_t i = 0; i < w->n; i++) {
        size_t from = i > SMOOTH ? i - SMOOTH : 0, to = i + SMOOTH < w->n ? i + SMOOTH : w->n - 1;
        long double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, d;
        for (size_t j = from; j <= to; j++) {
            long double dx = (long double)(w->v[j].x - w->v[i].x), dy = w->v[j].y - w->v[i].y;
            n += 1;
            sx += dx;
            sy += dy;
            sxx += dx * dx;
            sxy += dx * dy;
        }
        d = n * sxx - sx * sx;
        /* The fitted line's value at the window (dx = 0): its intercept. */
        y[i] = w->v[i].y + (d > 0 ? (sy * sxx - sx * sxy) / d : sy / n);
    }
    for (size_t i = 0; i < w->n; i++)
        w->v[i].y = y[i];
    free(y);
    return 0;
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

int tsync__windows_build(struct tsync__windows *w, const struct tsync__pair_samples *s,
                         const struct tsync__pieces *ps, int64_t max_width)
{
    size_t ia = 0, ib = 0, cap = 0, k = 0, slope_of = SIZE_MAX;
    long double slope = 0;        /* detrend_slope of piece slope_of */
    struct acc a;
    int open = 0, rc;
    memset(w, 0, sizeof(*w));
    w->max_width = max_width;
    if (!ps->n)
        return 0;
    memset(&a, 0, sizeof(a));
    while (ia < s->n_above || ib < s->n_below) {
        int above = ib == s->n_below || (ia < s->n_above && s->above[ia].x <= s->below[ib].x);
        struct tsync__pt p = above ? s->above[ia++] : s->below[ib++];
        long double v;
        if (open && (p.x - a.first > max_width ||
                     (k + 1 < ps->n && p.x >= ps->v[k + 1].x_first))) {
            if (a.n_above >= WINDOW_SAMPLES_MIN && a.n_below >= WINDOW_SAMPLES_MIN &&
                (rc = close_window(w, &a, &cap)))
                goto fail;
            open = 0;
        }
        if (!open) {
            k = piece_at(ps, k, p.x);
            memset(&a, 0, sizeof(a));
            a.first = p.x;
            if (slope_of != k) {
                slope = detrend_slope(ps, k);
                slope_of = k;
            }
            a.a = slope;
            open = 1;
        }
        a.last = p.x;
        v = (long double)(p.y - a.first) - a.a * (long double)(p.x - a.first);
        if (above) {
            a.hi = a.n_above++ == 0 || v < a.hi ? v : a.hi;
        } else {
            a.lo = a.n_below++ == 0 || v > a.lo ? v : a.lo;
        }
        if (a.n_above >= WINDOW_SAMPLES && a.n_below >= WINDOW_SAMPLES) {
            if ((rc = close_window(w, &a, &cap)))
                goto fail;
            open = 0;
        }
    }
    if (open && a.n_above >= WINDOW_SAMPLES_MIN && a.n_below >= WINDOW_SAMPLES_MIN &&
        (rc = close_window(w, &a, &cap)))
        goto fail;
    if ((rc = drop_wide(w)) || (rc = smooth(w)))
        goto fail;
    return 0;
fail:
    tsync__windows_free(w);
    return rc;
}

void tsync__windows_free(struct tsync__windows *w)
{
    free(w->v);
    memset(w, 0, sizeof(*w));
}
