/* envelope.c - the one-way constraints as a bound that holds point by point.
 *
 * A piece's range (hull.c, regress.c) holds for a clock that is linear over the
 * piece; segment.c widens it by a margin for a drift that wanders by at most w per
 * tick, which over a piece of length L is w L^2 / 8: over an hour of dense
 * messages at 0.01 ppm/s, milliseconds, where the messages themselves keep the
 * clock within tens of microseconds at every moment. The constraints say so
 * directly. If the curve y(x) passes at or below ABOVE points (x_a, Y_a) and
 * (x_b, Y_b) with x_a <= x <= x_b, and |y''| <= w, then y + w/2 (x - x_a)(x - x_b)
 * is convex, so
 *
 *     y(x) <= Y_a + (Y_b - Y_a) (x - x_a) / (x_b - x_a) + w/2 (x - x_a)(x_b - x)
 *
 * and the same below BELOW points, mirrored. This holds for any two constraints
 * that bracket x, with no assumption about lines or pieces; it needs only the
 * minimum latencies and max_wander that every bound of the estimate already rests
 * on. The knots kept are one constraint of every KNOT_EVERY, the tightest of its
 * group against the piece's line (any subset gives a valid bound; the tightest
 * ones a close one), plus the first and last: one point in KNOT_EVERY; a side of
 * at most KNOT_ALL constraints keeps them all.
 *
 * The joined function is held inside the envelope at each of its points
 * (tsync__envelope_at, from segment.c): a curve that the wander margin lets stray
 * from a long piece's range must still pass each message the way it went.
 *
 * envelope_bound then bounds the error of a joined function f segment by segment:
 * f, the upper envelope and the lower one are piecewise linear, so the largest
 * distance from f to either envelope lies at a breakpoint of f or at a knot, plus
 * the largest bulge w/8 (x_b - x_a)^2 of the knot intervals the segment meets.
 * Before a side's first knot and after its last, the side goes on along the
 * steepest line that max_drift allows (reach_at).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimator.h"
#include "graph/graph.h"
#include "util/vec.h"

#define KNOT_EVERY 16
#define KNOT_ALL 4096   /* points a side kept whole */

void tsync__envelope_free(struct tsync__envelope *env)
{
    free(env->up.v);
    free(env->lo.v);
    memset(env, 0, sizeof(*env));
}

/* The piece of ps that holds x (the nearest in time), looked for from *k on. */
static void piece_of(const struct tsync__pieces *ps, size_t *k, tsync_time x)
{
    while (*k + 1 < ps->n && x > ps->v[*k].x_last && x >= ps->v[*k + 1].x_first)
        (*k)++;
}

/* y - the line of piece pc at p. */
static long double off_line(const struct tsync__piece *pc, const struct tsync__pt *p)
{
    return (long double)(p->y - pc->y0) - pc->b - pc->a * (long double)(p->x - pc->x0);
}

/* The first of p[0, m) (0 < m <= KNOT_EVERY, in order of x) where sign (y - the
 * line of pc) is greatest, as off_line computes it in long double. Found in double
 * first, relative to the group's first point g (the line's offset drops out):
 * d = sign ((y - y_g) - a (x - x_g)), off by 2^-52 of |y - y_g| + 2 |a| (x - x_g)
 * at most, while the long double values are off by 2^-62 of their magnitudes
 * (|y - y0| + |b| + |a| |x - x0|) at most. A point whose d is more than twice the
 * sum, 2^-48 of the largest, below the greatest cannot be it; the others, almost
 * always one, are computed as off_line does. */
static size_t tightest(const struct tsync__pt *p, size_t m, const struct tsync__piece *pc,
                       int sign)
{
    double a = (double)pc->a, d[KNOT_EVERY], top = -INFINITY, span, size;
    long double bv = 0;
    size_t best = m;
    for (size_t i = 0; i < m; i++) {
        d[i] = (double)(sign > 0 ? p[i].y - p[0].y : p[0].y - p[i].y) -
               sign * a * (double)(p[i].x - p[0].x);
        top = d[i] > top ? d[i] : top;     /* NaNs (a line that is none) stay candidates */
    }
    /* |y - y_g| is at most |d| + |a| span for a point within the margin of top. */
    span = fabs(a) * (double)(p[m - 1].x - p[0].x);
    size = fabs(top) + 4 * span + fabs((double)(p[0].y - pc->y0)) + fabs((double)pc->b) +
           fabs(a) * fabs((double)(p[0].x - pc->x0)) + 1;
    for (size_t i = 0; i < m; i++) {
        long double v;
        if (d[i] < top - 0x1p-48 * size)
            continue;
        v = sign * off_line(pc, &p[i]);
        if (best == m || v > bv) {
            bv = v;
            best = i;
        }
    }
    return best;
}

/* Keeps the first, the last, and of every KNOT_EVERY points the tightest (the
 * lowest above the line for ABOVE, sign -1; the highest for BELOW, sign +1); up to
 * KNOT_ALL points, every one: a sparse pair's curve is held at each message. */
static int pick_knots(struct tsync__knots *out, const struct tsync__pt *pts, size_t n,
                      const struct tsync__pieces *ps, int sign)
{
    size_t k = 0, cap = n <= KNOT_ALL ? n : n / KNOT_EVERY + 3;
    if (n < 2)
        return 0;
    if (!(out->v = tsync__alloc_array(cap, sizeof(*out->v))))
        return TSYNC_ENOMEM;
    if (n <= KNOT_ALL) {
        memcpy(out->v, pts, n * sizeof(*pts));
        out->n = n;
        return 0;
    }
    out->v[out->n++] = pts[0];
    for (size_t g = 1; g + 1 < n; g += KNOT_EVERY) {
        size_t end = g + KNOT_EVERY < n - 1 ? g + KNOT_EVERY : n - 1, best = g, kg;
        piece_of(ps, &k, pts[g].x);
        kg = k;
        /* The piece moves on with x only: one piece for the group when its last
         * point is still in the first's. */
        piece_of(ps, &k, pts[end - 1].x);
        if (k == kg) {
            best = g + tightest(pts + g, end - g, &ps->v[k], sign);
        } else {
            long double bv = sign * off_line(&ps->v[kg], &pts[g]);
            for (size_t i = g + 1, j = kg; i < end; i++) {
                long double v;
                piece_of(ps, &j, pts[i].x);
                v = sign * off_line(&ps->v[j], &pts[i]);
                if (v > bv) {
                    bv = v;
                    best = i;
                }
            }
        }
        out->v[out->n++] = pts[best];
    }
    out->v[out->n++] = pts[n - 1];
    return 0;
}

/* Leaves out the knots that another knot's constraint, carried to them along the
 * steepest line max_drift allows, already passes (upper: kv's points bound y from
 * above, else from below): y <= Y_q + (1 + d)(x - x_q) after an ABOVE knot q and
 * y <= Y_q - (1 - d)(x_q - x) before it. The chord between the knots either side
 * of a collective's constraint that waited 30 us took the wait into the bound of
 * the points near it; a ClockOffset record 1.5 ms away holds them within 2 us. */
static void drop_dominated(struct tsync__knots *kv, int upper, double max_drift)
{
    long double sign = upper ? 1 : -1, d = (long double)max_drift;
    long double after = upper ? 1 + d : 1 - d, before = upper ? 1 - d : 1 + d;
    long double best = INFINITY;
    unsigned char *out;
    size_t n = 0;
    if (kv->n < 3 || !(out = calloc(kv->n, 1)))
        return;                    /* any subset is valid; without memory, all */
    /* sign (y - slope x): the smaller, the tighter on kv's side. */
    for (size_t i = 0; i < kv->n; i++) {
        long double key = sign * ((long double)kv->v[i].y - after * (long double)kv->v[i].x);
        out[i] = key > best;
        best = key < best ? key : best;
    }
    best = INFINITY;
    for (size_t i = kv->n; i-- > 0;) {
        long double key = sign * ((long double)kv->v[i].y - before * (long double)kv->v[i].x);
        out[i] |= key > best;
        best = key < best ? key : best;
    }
    for (size_t i = 0; i < kv->n; i++)
        if (!out[i])
            kv->v[n++] = kv->v[i];
    kv->n = n;
    free(out);
}

int tsync__envelope_build(struct tsync__envelope *env, const struct tsync__pair_samples *s,
                          const struct tsync__pieces *ps, double max_drift)
{
    int rc;
    memset(env, 0, sizeof(*env));
    if (!ps->n)
        return 0;
    if ((rc = pick_knots(&env->up, s->above, s->n_above, ps, -1)) ||
        (rc = pick_knots(&env->lo, s->below, s->n_below, ps, +1))) {
        tsync__envelope_free(env);
        return rc;
    }
    drop_dominated(&env->up, 1, max_drift);
    drop_dominated(&env->lo, 0, max_drift);
    return 0;
}

/* fmaxl(a, b) without the call, NaNs as fmaxl takes them (the other value). */
static long double larger(long double a, long double b)
{
    return a >= b || isnan(b) ? a : b;
}

/* The bulge of knot interval i: the most a curve with |y''| <= w leaves its chord. */
static long double bulge_of(const struct tsync__knots *kv, size_t i, double w)
{
    long double len;
    if (i + 1 >= kv->n)
        return 0;
    len = (long double)(kv->v[i + 1].x - kv->v[i].x);
    return (long double)w / 8 * len * len;
}

/* The envelope of knots kv at x, cursor *i moved to the interval that brackets x
 * (kv[*i].x <= x <= kv[*i+1].x); 0 when none does. */
static int knots_at(const struct tsync__knots *kv, size_t *i, tsync_time x, long double *y)
{
    const struct tsync__pt *a, *b;
    if (kv->n < 2 || x < kv->v[0].x || x > kv->v[kv->n - 1].x)
        return 0;
    while (*i + 2 < kv->n && kv->v[*i + 1].x < x)
        (*i)++;
    a = &kv->v[*i];
    b = &kv->v[*i + 1];
    *y = b->x == a->x ? (long double)(a->y < b->y ? a->y : b->y)
                      : (long double)a->y + (long double)(b->y - a->y) *
                                                (long double)(x - a->x) /
                                                (long double)(b->x - a->x);
    return 1;
}

/* The envelope of knots kv at x with its exact bulge w/2 (x - x_a)(x_b - x) toward
 * side (+1 above the chord, -1 below; at a knot's own x the tightest knot there);
 * 0 where kv does not bracket x. knots_at moves the cursor on from *at; asked
 * before it, the interval is found by bisection first. */
static int side_at(const struct tsync__knots *kv, size_t *at, tsync_time x, double w, int side,
                   long double *y)
{
    const struct tsync__pt *a, *b;
    if (kv->n >= 2 && (*at + 1 >= kv->n || x < kv->v[*at].x)) {
        size_t lo = 0, hi = kv->n - 1;
        while (lo + 1 < hi) {          /* kv[lo].x < x (or lo = 0), x <= kv[hi].x */
            size_t mid = lo + (hi - lo) / 2;
            if (kv->v[mid].x < x)
                lo = mid;
            else
                hi = mid;
        }
        *at = lo;
    }
    if (!knots_at(kv, at, x, y))
        return 0;
    a = &kv->v[*at];
    b = a + 1;
    if (x == a->x || x == b->x) {
        /* At knots: the tightest of those at x, exact (no chord's rounding). */
        const struct tsync__pt *p = x == a->x ? a : b, *end = kv->v + kv->n;
        for (*y = (long double)p->y; p < end && p->x == x; p++)
            *y = side > 0 ? fminl(*y, (long double)p->y) : fmaxl(*y, (long double)p->y);
    } else {
        *y += side * (long double)w / 2 * (long double)(x - a->x) * (long double)(b->x - x);
    }
    return 1;
}

int tsync__envelope_at(const struct tsync__envelope *env, struct tsync__envelope_cursor *at,
                       tsync_time x, double w, long double *lo, long double *hi)
{
    if (!side_at(&env->up, &at->up, x, w, +1, hi))
        *hi = INFINITY;
    if (!side_at(&env->lo, &at->lo, x, w, -1, lo))
        *lo = -INFINITY;
    return *lo <= *hi;
}

/* f with points added at xa and xb where they fall inside a segment, so that
 * segments end where both sides' knots begin and end (the value and the bound
 * interpolated, the value rounded to a tick): a first event a millisecond before
 * the first message would otherwise share a segment of minutes, and its bound,
 * with the first messages. */
static int split_at(struct tsync__pwl *f, tsync_time xa, tsync_time xb)
{
    struct tsync__pwl g;
    size_t inside = 0;
    for (size_t i = 1; i < f->n; i++)
        inside += (xa > f->x[i - 1] && xa < f->x[i]) + (xb > f->x[i - 1] && xb < f->x[i]);
    if (!inside)
        return 0;
    if (tsync__pwl_alloc(&g, f->n + 2))
        return TSYNC_ENOMEM;
    for (size_t i = 0; i < f->n; i++) {
        tsync_time cut[2] = { xa, xb };
        for (int c = 0; c < 2; c++)
            if (i > 0 && cut[c] > f->x[i - 1] && cut[c] < f->x[i] &&
                tsync__pwl_push(&g, cut[c], (tsync_time)llroundl(tsync__pwl_eval(f, (long double)cut[c]))))
                g.bound[g.n - 1] = ceil(f->bound[i - 1] + (f->bound[i] - f->bound[i - 1]) *
                                                             (double)(cut[c] - f->x[i - 1]) /
                                                             (double)(f->x[i] - f->x[i - 1]));
        if (tsync__pwl_push(&g, f->x[i], f->y[i]))
            g.bound[g.n - 1] = f->bound[i];
    }
    tsync__pwl_free(f);
    *f = g;
    return 0;
}

/* The envelope of knots kv at x as knots_at finds it, and beyond its first and last
 * knots the steepest line away from them that a drift of at most max_drift allows
 * (the limit every open slope takes): upper (side +1) y <= Y_0 - (1 - D)(x_0 - x)
 * before the first, y <= Y_n + (1 + D)(x - x_n) after the last; the lower mirrored.
 * A dense trace's first and last events lie a message's gap beyond one side's
 * knots, and the pieces' bound there, with its wander margin over the whole piece,
 * was milliseconds where the messages allow tens of microseconds. */
static void reach_at(const struct tsync__knots *kv, size_t *i, tsync_time x, int side,
                     double max_drift, long double *y)
{
    const struct tsync__pt *first = &kv->v[0], *last = &kv->v[kv->n - 1];
    long double d = (long double)max_drift * side;
    if (knots_at(kv, i, x, y))
        return;
    if (x < first->x) {
        *y = (long double)first->y - (1 - d) * (long double)(first->x - x);
    } else {
        *i = kv->n - 2;
        *y = (long double)last->y + (1 + d) * (long double)(x - last->x);
    }
}

/* What cursor_bound needs between segments: the envelope, its knot cursors (left
 * at the segment's start), and the envelopes at the segment's end, which is the
 * next one's start (found there once). */
struct cursor {
    const struct tsync__pair_fit *fit;
    size_t iu, il;
    size_t at;              /* the point of f the end below is of (SIZE_MAX: none) */
    int ok;
    long double u, l;
    size_t eu, el;
};

/* The envelopes u and l at f's point j (reach_at), the knot cursors moved there
 * from *cu and *cl: 0 where they contradict each other. */
static int ends_at(const struct tsync__pair_fit *fit, const struct tsync__pwl *f, size_t j,
                   size_t *cu, size_t *cl, long double *u, long double *l)
{
    const struct tsync__envelope *env = &fit->envelope;
    reach_at(&env->up, cu, f->x[j], +1, fit->max_drift, u);
    reach_at(&env->lo, cl, f->x[j], -1, fit->max_drift, l);
    return !(*u + bulge_of(&env->up, *cu, fit->wander) < *l - bulge_of(&env->lo, *cl, fit->wander));
}

/* How far knot p lies beyond f's segment k on its side (sign +1 above, -1 below). */
static long double knot_from(const struct tsync__pt *p, int sign, const struct tsync__pwl *f,
                             size_t k)
{
    return sign * ((long double)p->y - tsync__pwl_eval_from(f, k, (long double)p->x));
}

/* How far f's segment k lies from the knots of side kv inside it (sign +1 the upper
 * side, -1 the lower): those after cursor a up to b, which lie at or after f's
 * point k, and the side's first and last where the segment reaches beyond them
 * (reach_at's lines bend there). *bulge: raised to the largest of the knot
 * intervals a to b. */
static long double knots_inside(const struct tsync__knots *kv, size_t a, size_t b, int sign,
                                const struct tsync__pwl *f, size_t k, double w, long double *bulge)
{
    long double worst = -INFINITY;
    for (size_t i = a; i <= b; i++) {
        *bulge = larger(*bulge, bulge_of(kv, i, w));
        if (i > a)
            worst = larger(worst, knot_from(&kv->v[i], sign, f, k));
    }
    for (int end = 0; end < 2; end++) {
        const struct tsync__pt *p = &kv->v[end ? kv->n - 1 : 0];
        if (p->x > f->x[k] && p->x < f->x[k + 1])
            worst = larger(worst, knot_from(p, sign, f, k));
    }
    return worst;
}

/* The largest distance from f to the envelopes over f's segment k (plus the
 * bulges), or INFINITY where they do not bracket it or contradict each other;
 * ctx: the struct cursor, for the segments in order. */
static long double cursor_bound(void *ctx, const struct tsync__pwl *f, size_t k)
{
    struct cursor *c = ctx;
    const struct tsync__envelope *env = &c->fit->envelope;
    double w = c->fit->wander;
    long double worst = 0, bulge = 0, u, l;
    int ok;
    if (c->at == k) {
        ok = c->ok;
        u = c->u;
        l = c->l;
        c->iu = c->eu;
        c->il = c->el;
    } else {
        ok = ends_at(c->fit, f, k, &c->iu, &c->il, &u, &l);
    }
    if (!ok)
        return INFINITY;
    worst = larger(worst, larger(u - (long double)f->y[k], (long double)f->y[k] - l));
    /* Its end, from its start. */
    c->eu = c->iu;
    c->el = c->il;
    c->ok = ends_at(c->fit, f, k + 1, &c->eu, &c->el, &c->u, &c->l);
    c->at = k + 1;
    if (!c->ok)
        return INFINITY;
    worst = larger(worst,
                   larger(c->u - (long double)f->y[k + 1], (long double)f->y[k + 1] - c->l));
    worst = larger(worst, knots_inside(&env->up, c->iu, c->eu, +1, f, k, w, &bulge));
    worst = larger(worst, knots_inside(&env->lo, c->il, c->el, -1, f, k, w, &bulge));
    return worst + bulge;
}

int tsync__envelope_bound(const struct tsync__pair_fit *fit, struct tsync__pwl *f)
{
    const struct tsync__envelope *env = &fit->envelope;
    struct cursor c = { fit, 0, 0, SIZE_MAX, 0, 0, 0, 0, 0 };
    tsync_time xa, xb;
    if (f->n < 2 || env->up.n < 2 || env->lo.n < 2)
        return 0;
    xa = env->up.v[0].x > env->lo.v[0].x ? env->up.v[0].x : env->lo.v[0].x;
    xb = env->up.v[env->up.n - 1].x < env->lo.v[env->lo.n - 1].x ? env->up.v[env->up.n - 1].x
                                                                    : env->lo.v[env->lo.n - 1].x;
    if (xa >= xb)
        return 0;
    if (split_at(f, xa, xb))
        return TSYNC_ENOMEM;
    /* A guaranteed estimator's bound comes down to the envelope where that is
     * tighter; a statistical one (the regression's) goes up to it where it is not,
     * so that wherever the constraints bracket a point its bound is a promise. */
    if (fit->guaranteed)
        return tsync__pwl_lower(f, cursor_bound, &c);
    tsync__pwl_raise(f, cursor_bound, &c);
    return 0;
}
