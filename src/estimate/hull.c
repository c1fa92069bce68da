/* hull.c - the convex hull estimator (Duda et al. 1987; Jabbarifar, Dagenais et
 * al.): the exact minimum and maximum lines that separate the one-way constraints
 * of a pair of clocks, kept up to date in amortized constant time per message.
 *
 * Geometry (see estimator.h for the plane). The clocks relate as y = a x + b. Every
 * ABOVE point must lie on or above that line, every BELOW point on or below it, so
 * the feasible lines F are those separating the two sets. Only the lower hull of
 * the ABOVE points and the upper hull of the BELOW points matter. Over all pairs of
 * an ABOVE point i and a BELOW point j,
 *
 *     a_min = max { slope(i, j) : x_i < x_j },   a_max = min { slope(j, i) : x_j < x_i }
 *
 * and F is not empty exactly when a_min <= a_max (and no ABOVE point lies under a
 * BELOW point of the same x). The lines of slope a_min and a_max are Duda's
 * minimum and maximum lines; each passes through one point of each set.
 *
 * Incremental update. Samples come in order of x, so a new ABOVE point p is the
 * rightmost: it can only lower a_max, to the tangent from p to the upper hull of
 * the BELOW points, and it can do so only when it lies under the current maximum
 * line (above it, every slope to p is >= a_max). Checking that is one cross
 * product; the tangent, when needed, a binary search. The hulls are Andrew's
 * monotone chain, amortized O(1) per point; a hull is needed only for a tangent
 * (one point in a hundred or fewer) and at the end, so it holds its new points back
 * and takes them in at once, in a loop that does nothing else. A new BELOW point is
 * the mirror image.
 * When the new extreme would pass the other one, the hulls cross: no line fits all
 * samples, and add_sample answers TSYNC__SPLIT without changing anything. So it
 * does when the new extreme would leave 1 +- max_drift: then no clock within the
 * assumed drift fits the samples either (a message faster than the minimum
 * latency, a clock step, a drift beyond --max-drift, corrupt times), and taking the
 * data's slope instead let one receive time 10^15 ns early make a piece of slope
 * 3e11 (seen from the other clock 3e-12, a drift of -100 %) that no map can invert.
 *
 * All turns and slope comparisons are exact: cross products of 64-bit coordinate
 * differences in 128-bit integers (coordinates must differ by less than 2^62
 * ticks, 146 years in nanoseconds; a hull whose coordinates all lie within +-2^62
 * subtracts them without checking for overflow). Only the results (slopes, values)
 * become long double, relative to the pair's origin.
 *
 * Estimate and bound. Where the data leave the slope open (one direction only, or
 * no crossing pair yet), it is limited to 1 +- max_drift. The estimate is the
 * mean of the two extreme lines, as Trace Compass reports it: it lies in F (F is
 * convex and both lines are in it), so every constraint holds for it, and unlike
 * Duda's angle bisector (LTTV's choice) it does not depend on the scale of the
 * axes. With slopes this close to 1 the two differ by far less than a tick. The
 * bound at time x is exact: the largest and smallest values a x + b over all of F,
 *
 *     hi(x) = max over a in [a_lo, a_hi] of  min_i (y_i + a (x - x_i))  (lower hull)
 *     lo(x) = min over a in [a_lo, a_hi] of  max_j (y_j + a (x - x_j))  (upper hull)
 *
 * The inner function is concave (convex) in a and peaks at the slope of the hull
 * edge over x, so each is evaluated at three slopes. Note that the two extreme
 * lines alone do not bound F near their crossing point; hi and lo do, everywhere.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimator.h"
#include "util/vec.h"

__extension__ typedef __int128 i128;

/* One hull: vertices in order of x, strictly increasing; and the points not yet
 * taken into it (see add_point). */
struct chain {
    size_t n, cap;
    struct tsync__pt *v;
    size_t n_new;
    struct tsync__pt *fresh;        /* NEW_MAX points */
};

/* Points a hull holds back before it takes them in (a few kilobytes). */
#define NEW_MAX 1024

/* The two sides, indexed by the kind of their points (TSYNC__ABOVE, TSYNC__BELOW):
 * the ABOVE points make the lower hull and move the maximum line, the BELOW points
 * the upper hull and the minimum line. */
struct hull {
    struct tsync__est_params p;
    struct chain chain[2];           /* lower hull of the ABOVE points, upper of the BELOW */
    struct tsync__pt last[2];        /* each hull's last vertex, also with points held back */
    tsync_time first_x[2];           /* each side's first x */
    int has[2];                      /* the maximum line, the minimum line */
    struct tsync__pt left[2], right[2]; /* maximum line: BELOW point left, ABOVE point
                                         * right; minimum line: ABOVE left, BELOW right */
    int64_t dx[2], dy[2];            /* right - left, while the hull is not wide */
    int settled;                     /* hull_settled's answer, kept as the lines change */
    int wide;                        /* a coordinate at 2^62 or beyond */
    tsync_time x_first, x_last;
    uint64_t n[2];                   /* ABOVE and BELOW points */
};

/* Coordinates below this in magnitude differ by less than 2^63: in 64 bits. */
#define NARROW ((int64_t)1 << 62)

#if defined(__GNUC__)
#define COLD __attribute__((noinline, cold))
#else
#define COLD
#endif

/* a d - b c for the differences a = a1 - a0, ... exactly. Where each difference
 * fits in 64 bits (always, for coordinates within +-2^62) the products are single
 * 64 x 64 -> 128-bit multiplications; the subtractions in 128 bits otherwise. */
static i128 det(tsync_time a1, tsync_time a0, tsync_time d1, tsync_time d0, tsync_time b1,
                tsync_time b0, tsync_time c1, tsync_time c0)
{
    int64_t a, b, c, d;
    if (__builtin_sub_overflow(a1, a0, &a) || __builtin_sub_overflow(d1, d0, &d) ||
        __builtin_sub_overflow(b1, b0, &b) || __builtin_sub_overflow(c1, c0, &c))
        return ((i128)a1 - a0) * ((i128)d1 - d0) - ((i128)b1 - b0) * ((i128)c1 - c0);
    return (i128)a * d - (i128)b * c;
}

/* (a - o) x (b - o): > 0 when b lies left of the direction o -> a. */
static i128 cross(struct tsync__pt o, struct tsync__pt a, struct tsync__pt b)
{
    return det(a.x, o.x, b.y, o.y, a.y, o.y, b.x, o.x);
}

/* cross() for coordinates all below NARROW in magnitude. */
static i128 cross_narrow(struct tsync__pt o, struct tsync__pt a, struct tsync__pt b)
{
    return (i128)(a.x - o.x) * (b.y - o.y) - (i128)(a.y - o.y) * (b.x - o.x);
}

/* Whether cross product t turns the way side's hull keeps (strictly): left on the
 * lower hull (side 0), right on the upper (side 1). */
static int turns(i128 t, int side)
{
    return ((t > 0) ^ side) & (t != 0);
}

/* slope(p1 -> q1) > slope(p2 -> q2), both with q.x > p.x. */
static int slope_gt(struct tsync__pt p1, struct tsync__pt q1, struct tsync__pt p2,
                    struct tsync__pt q2)
{
    return det(q1.y, p1.y, q2.x, p2.x, q2.y, p2.y, q1.x, p1.x) > 0;
}

/* a - b, exactly: a and b are exact long doubles (a 64-bit significand), and so
 * is their difference, below 2^64 in magnitude; where it leaves 64-bit integers,
 * without the slow conversion of a 128-bit one. */
static long double diff(tsync_time a, tsync_time b)
{
    return (long double)a - (long double)b;
}

static long double slope(struct tsync__pt p, struct tsync__pt q)
{
    return diff(q.y, p.y) / diff(q.x, p.x);
}

/* Appends points p[0, k) to side's hull v[0, n), which has room for them, in order;
 * its new length. A point with the x of the last vertex replaces it when it is
 * lower (higher), and is dropped otherwise. Inlined for each side and width, so
 * that the loop tests the turn alone. */
static inline size_t chain_add(struct tsync__pt *v, size_t n, const struct tsync__pt *p, size_t k,
                               int side, int narrow)
{
    for (size_t i = 0; i < k; i++) {
        if (n && v[n - 1].x == p[i].x) {
            if (side ? p[i].y <= v[n - 1].y : p[i].y >= v[n - 1].y)
                continue;
            n--;
        }
        /* Keep strict left turns on the lower hull, strict right turns on the upper. */
        while (n >= 2 && !turns(narrow ? cross_narrow(v[n - 2], v[n - 1], p[i])
                                       : cross(v[n - 2], v[n - 1], p[i]), side))
            n--;
        v[n++] = p[i];
    }
    return n;
}

/* Drops from p[0, k) (k <= NEW_MAX) points that are no vertex of the hull: those
 * strictly between two others in x and on or beyond their chord (above it for the
 * lower hull, side 0; below for the upper). Found on the points sheared to
 * w = y - x, which keeps a point above a chord above it: a point whose w is no
 * lower (side 0; no higher, side 1) than the lowest w before it and the lowest
 * after it lies on or above the chord of those two. What remains are the record
 * lows from the left and from the right, a few of a noisy hundred, so that the
 * chain's loop, whose turns are a coin toss, sees few. The x of the neighbours on
 * either side must differ from a point's, which keeps the two records strictly
 * before and after it. Up to the last record from the left (the first lowest
 * point) every point is a record from the right, and past it none is one from the
 * left: one pass from the left over all (which finds it), one from the right back
 * to it. The points kept, in order, are moved to the end, p[k - the new count, k). */
static inline size_t thin(struct tsync__pt *p, size_t k, int side)
{
    uint16_t kept[NEW_MAX];         /* from the left: where the points kept lie */
    size_t n = 0, n_low = 0, low = 0, m = k;
    int64_t best, w;
    tsync_time next_x;
    if (k < 3)
        return k;
    /* The first point and the last are kept; the first is a record. */
    best = p[0].y - p[0].x;
    kept[n++] = 0;
    n_low = n;
    for (size_t i = 1; i < k; i++) {
        int record;
        w = p[i].y - p[i].x;
        record = side ? w > best : w < best;
        if (record || p[i - 1].x == p[i].x || i + 1 == k || p[i].x == p[i + 1].x)
            kept[n++] = (uint16_t)i;
        if (record) {
            best = w;
            low = i;
            n_low = n;
        }
    }
    /* From the right back to the lowest, writing the points kept from the end:
     * never past one not yet read, nor as far as the lowest. */
    if (low + 1 < k) {
        best = p[k - 1].y - p[k - 1].x;
        next_x = p[k - 1].x;
        m--;
        for (size_t i = k - 1; i-- > low + 1;) {
            struct tsync__pt q = p[i];
            w = q.y - q.x;
            if (!(p[i - 1].x < q.x && q.x < next_x && (side ? w <= best : w >= best)))
                p[--m] = q;
            best = side ? (w > best ? w : best) : (w < best ? w : best);
            next_x = q.x;
        }
    }
    /* Then the points kept up to the lowest, the last first: each written after
     * the ones before it lie. */
    while (n_low)
        p[--m] = p[kept[--n_low]];
    return k - m;
}

/* Takes the points held back into side's hull (Andrew's monotone chain). */
static int take_in(struct chain *c, int side, int wide)
{
    size_t k = c->n_new;
    struct tsync__pt *p = c->fresh;
    if (!k)
        return 0;
    if (!wide) {
        size_t kept = side ? thin(p, k, 1) : thin(p, k, 0);
        p += k - kept;
        k = kept;
    }
    if (c->n + k > c->cap && tsync__reserve((void **)&c->v, &c->cap, c->n + k, sizeof(*c->v)))
        return TSYNC_ENOMEM;
    c->n = side ? wide ? chain_add(c->v, c->n, p, k, 1, 0)
                       : chain_add(c->v, c->n, p, k, 1, 1)
         : wide ? chain_add(c->v, c->n, p, k, 0, 0)
                : chain_add(c->v, c->n, p, k, 0, 1);
    c->n_new = 0;
    return 0;
}

/* The vertex of v[0, m) touched by the tangent from p, which lies right of all:
 * on an upper hull (sign 1) the one with the smallest slope to p, the first whose
 * next edge is no steeper than its line to p; on a lower hull (sign -1) the one
 * with the largest slope, the first whose next edge is no flatter. */
static size_t tangent(const struct tsync__pt *v, size_t m, struct tsync__pt p, int sign)
{
    size_t lo = 0, hi = m - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sign * cross(v[mid], v[mid + 1], p) >= 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* A piece may end at its longest once the data fix its slope to within this
 * (0.1 ppm: 1 us over 10 s); until then it grows. */
#define SETTLED_SLOPE 1e-7L

/* The extreme line of side through p, which lies beyond the current one: through p
 * and the tangent vertex of the other set's hull, *j (without its last vertex when
 * that has p's x). 0, TSYNC__SPLIT when no line passes all points with it, or
 * TSYNC_ENOMEM. */
static COLD int new_extreme(struct hull *h, struct tsync__pt p, int side, int same_x,
                            struct tsync__pt *j)
{
    int other = !side, sign = 1 - 2 * side;
    struct chain *theirs = &h->chain[other];
    if (take_in(theirs, other, h->wide))
        return TSYNC_ENOMEM;
    *j = theirs->v[tangent(theirs->v, theirs->n - same_x, p, sign)];
    /* a_min would exceed a_max: the hulls cross. */
    if (h->has[other] && (side ? slope_gt(*j, p, h->left[other], h->right[other])
                               : slope_gt(h->left[other], h->right[other], *j, p)))
        return TSYNC__SPLIT;
    /* a_max below 1 - max_drift, or a_min above 1 + max_drift. */
    if (sign * (slope(*j, p) - 1) < -(long double)h->p.max_drift)
        return TSYNC__SPLIT;
    return 0;
}

/* Side's extreme line from j to p. */
static COLD void set_extreme(struct hull *h, int side, struct tsync__pt j, struct tsync__pt p)
{
    h->has[side] = 1;
    h->left[side] = j;
    h->right[side] = p;
    h->dx[side] = h->wide ? 0 : p.x - j.x;
    h->dy[side] = h->wide ? 0 : p.y - j.y;
    h->settled = h->has[0] && h->has[1] &&
                 slope(h->left[0], h->right[0]) - slope(h->left[1], h->right[1]) <= SETTLED_SLOPE;
}

/* beyond() for a hull that is not wide, side's line from l with right - left
 * (dx, dy): the cross product's two terms compared, a < b turns right, a > b left. */
static inline int beyond_narrow(int64_t dx, int64_t dy, struct tsync__pt l, struct tsync__pt p,
                                int side)
{
    i128 a = (i128)dx * (p.y - l.y), b = (i128)dy * (p.x - l.x);
    return ((a > b) & side) | ((a < b) & !side);
}

/* Whether p lies beyond side's extreme line: under the maximum line, over the
 * minimum line. */
static inline int beyond(const struct hull *h, int side, struct tsync__pt p)
{
    if (h->wide)
        return turns(cross(h->left[side], h->right[side], p), !side);
    return beyond_narrow(h->dx[side], h->dy[side], h->left[side], p, side);
}

/* A new point p of side, rightmost so far, when the other side has points and p
 * may change side's extreme line: it has none yet, p lies beyond it, or the other
 * side's last point has p's x. 0 (the line moved to pass p, or p changes nothing),
 * TSYNC__SPLIT (no line passes p with the others; nothing changed) or
 * TSYNC_ENOMEM. */
static COLD int extreme_with(struct hull *h, struct tsync__pt p, int side, int same_x)
{
    int other = !side, sign = 1 - 2 * side, rc;
    struct tsync__pt j;
    if (same_x && sign * (p.y - h->last[other].y) < 0)
        return TSYNC__SPLIT;            /* beyond a point of the other set at the same time */
    /* None of the other hull's vertices lies left of p when all its points have p's x. */
    if (h->first_x[other] == p.x || (h->has[side] && !beyond(h, side, p)))
        return 0;
    if ((rc = new_extreme(h, p, side, same_x, &j)))
        return rc;
    set_extreme(h, side, j, p);
    return 0;
}

/* Whether coordinate c is NARROW or more in magnitude. */
static inline int wide_coord(tsync_time c)
{
    return (uint64_t)c + (uint64_t)(NARROW - 1) > (uint64_t)(2 * (NARROW - 1));
}

/* Whether a coordinate of p is NARROW or more in magnitude. */
static inline int outside(struct tsync__pt p)
{
    return wide_coord(p.x) || wide_coord(p.y);
}

/* Whether p of side, rightmost so far, may change side's extreme line: the other
 * side has points, and side has no line yet, p lies beyond it, or the other side's
 * last point has p's x. */
static inline int may_move(const struct hull *h, struct tsync__pt p, int side)
{
    int other = !side;
    return h->n[other] && (h->last[other].x == p.x || !h->has[side] || beyond(h, side, p));
}

/* p of side taken: held back for its hull, which has room. */
static inline void keep(struct hull *h, struct tsync__pt p, int side)
{
    struct chain *mine = &h->chain[side];
    mine->fresh[mine->n_new++] = p;
    /* Its last vertex before the hull takes p in. */
    if (!h->n[side] || h->last[side].x != p.x)
        h->last[side] = p;
    else if (side ? p.y > h->last[side].y : p.y < h->last[side].y)
        h->last[side].y = p.y;
    if (!h->n[side]++)
        h->first_x[side] = p.x;
    if (h->n[0] + h->n[1] == 1)
        h->x_first = p.x;
    h->x_last = p.x;
}

/* A new point, rightmost so far: an ABOVE point (side 0) may lower the maximum
 * line, a BELOW point (side 1) raise the minimum line; the two cases are mirror
 * images. The new extreme is computed only when p lies beyond the current one: for
 * one point in a hundred or fewer. Until then a hull is not needed, and it holds
 * its new points back to take them in at once: the work of most points is the
 * test against the line. */
static int add_point(struct hull *h, struct tsync__pt p, int side)
{
    struct chain *mine = &h->chain[side];
    int rc;
    if (mine->n_new == NEW_MAX && take_in(mine, side, h->wide))
        return TSYNC_ENOMEM;
    /* Wide for good once a coordinate is (only the arithmetic changes, not what
     * it finds: also for a point that splits). */
    h->wide |= outside(p);
    if (may_move(h, p, side) && (rc = extreme_with(h, p, side, h->last[!side].x == p.x)))
        return rc;
    keep(h, p, side);
    return 0;
}

static int hull_init(void **state, const struct tsync__est_params *p)
{
    struct hull *h = calloc(1, sizeof(*h));
    if (!h || !(h->chain[0].fresh = malloc(2 * NEW_MAX * sizeof(struct tsync__pt)))) {
        free(h);
        return TSYNC_ENOMEM;
    }
    h->chain[1].fresh = h->chain[0].fresh + NEW_MAX;
    h->p = *p;
    *state = h;
    return 0;
}

static int hull_add(void *state, const struct tsync__sample *s)
{
    struct tsync__pt pt = { s->x, s->y };
    if (s->kind == TSYNC__EXCHANGE)
        return 0;                       /* the hull works on one-way constraints only */
    return add_point(state, pt, s->kind == TSYNC__BELOW);
}

/* ---- runs of points that only join their hulls, a side at a time ------------------- */

/* ABOVE points scanned at a time in keep_blocks: what the BELOW points cut off is
 * scanned again. */
#define BLOCK 32

/* How many of side's points p[0, k), from x > prev on, only join side's hull as
 * things stand when the other side's points come in between: each before x `end`
 * and within max_gap (gap) of the one before it on its side (so within it on both),
 * not wide, not beyond side's line, and with room among the points held back.
 * They are written there but not counted (see commit). The hull is not wide, and
 * both lines are set: then a point that has the x of the other side's last, which
 * may_move lets through to extreme_with, is kept there as well when it is not
 * beyond its line (that point lies on the line's other side, and so on the far
 * side of this one). Side's line is held in registers: a store of a point could
 * change it, for all the compiler knows. */
static inline size_t scan_side(const struct hull *h, const struct tsync__pt *p, size_t k,
                               tsync_time end, tsync_time prev, int64_t gap, int side)
{
    const struct chain *mine = &h->chain[side];
    struct tsync__pt *fresh = mine->fresh + mine->n_new, l = h->left[side];
    int64_t dx = h->dx[side], dy = h->dy[side];
    size_t i;
    int gaps;
    if (k > NEW_MAX - mine->n_new)
        k = NEW_MAX - mine->n_new;
    if (!k)
        return 0;
    /* x from prev, a narrow point's, to below end: narrow once end is NARROW at most. */
    end = end < NARROW ? end : NARROW;
    /* No two points scanned lie farther apart than the last that may be from prev:
     * within gap, the loop need not ask (a loop of its own). */
    gaps = (p[k - 1].x < end ? p[k - 1].x : end - 1) - prev > gap;
    for (i = 0; i < k; i++) {
        struct tsync__pt q = p[i];
        if (q.x >= end || (gaps && q.x - prev > gap) || wide_coord(q.y) ||
            beyond_narrow(dx, dy, l, q, side))
            break;
        fresh[i] = q;
        prev = q.x;
    }
    return i;
}

/* keep() for side's first c points scanned, p[0, c) (c > 0): counted, and side's
 * last vertex is the last of them, lowest (highest) of those at its x. */
static void commit(struct hull *h, const struct tsync__pt *p, size_t c, int side)
{
    size_t i = c - 1;
    struct tsync__pt l = p[i];
    for (;; i--) {
        tsync_time y = i ? p[i - 1].y : h->last[side].y;
        if ((i ? p[i - 1].x : h->last[side].x) != l.x)
            break;
        l.y = side ? (y > l.y ? y : l.y) : (y < l.y ? y : l.y);
        if (!i)
            break;
    }
    h->chain[side].n_new += c;
    h->n[side] += c;
    h->last[side] = l;
}

/* The points from *ia and *ib on that only join their hulls, as add_point would
 * take them in order of x, but each side's in one loop: the two sides meet only
 * where a point moves a line, and the other side's points in between only join
 * theirs (see scan_side for the points at equal x). In rounds: up to BLOCK ABOVE points, up to
 * the first that may not join; the BELOW points before the next ABOVE point (at
 * equal x the ABOVE point comes first), up to the first that may not; and of the
 * ABOVE points those before that one. The hull is not wide, and both lines are set
 * (so both sides have points). Both indices advanced, lim->last kept. */
static void keep_blocks(struct hull *h, const struct tsync__pair_samples *s, size_t *ia,
                        size_t *ib, struct tsync__run_limits *lim)
{
    size_t a = *ia, b = *ib, ka, kb, ca, block;
    tsync_time end = lim->before, seg, xa, xb;
    int64_t gap = lim->max_gap > 0 ? lim->max_gap : INT64_MAX;
    /* A settled piece ends after first + max_segment. */
    if (lim->max_segment > 0 && !__builtin_add_overflow(lim->first, lim->max_segment, &seg) &&
        seg < end)
        end = seg + 1;
    do {
        block = s->n_above - a < BLOCK ? s->n_above - a : BLOCK;
        ka = scan_side(h, s->above + a, block, end, lim->last, gap, 0);
        xa = a + ka < s->n_above ? s->above[a + ka].x : INT64_MAX;
        kb = scan_side(h, s->below + b, s->n_below - b, xa < end ? xa : end, lim->last, gap, 1);
        xb = b + kb < s->n_below ? s->below[b + kb].x : INT64_MAX;
        for (ca = ka; ca && s->above[a + ca - 1].x > xb; ca--)
            ;
        if (ca)
            commit(h, s->above + a, ca, 0);
        if (kb)
            commit(h, s->below + b, kb, 1);
        if (ca || kb) {
            tsync_time la = ca ? s->above[a + ca - 1].x : INT64_MIN;
            tsync_time lb = kb ? s->below[b + kb - 1].x : INT64_MIN;
            lim->last = h->x_last = la > lb ? la : lb;
        }
        a += ca;
        b += kb;
        /* On while the ABOVE points ended only at BLOCK and the BELOW points not
         * before the next of them. */
    } while (ka == BLOCK && xb >= xa);
    *ia = a;
    *ib = b;
}

/* add_point over the points that only join a hull (see add_run in estimator.h):
 * the next point in order of x, which side it is chosen without a branch, then
 * once both lines are set, keep_blocks. */
static int hull_add_run(void *state, const struct tsync__pair_samples *s, size_t *ia, size_t *ib,
                        struct tsync__run_limits *lim)
{
    static const struct tsync__pt none = { INT64_MAX, 0 };
    struct hull *h = state;
    size_t a = *ia, b = *ib;
    int rc = 0;
    while (a < s->n_above || b < s->n_below) {
        const struct tsync__pt *pa = a < s->n_above ? &s->above[a] : &none;
        const struct tsync__pt *pb = b < s->n_below ? &s->below[b] : &none;
        int side = a == s->n_above || (b < s->n_below && pb->x < pa->x);
        struct tsync__pt p = side ? *pb : *pa;
        struct chain *mine = &h->chain[side];
        if (p.x >= lim->before || (lim->max_gap > 0 && p.x - lim->last > lim->max_gap) ||
            (lim->max_segment > 0 && p.x - lim->first > lim->max_segment))
            break;
        if (mine->n_new == NEW_MAX && (rc = take_in(mine, side, h->wide)))
            break;
        h->wide |= outside(p);
        if (may_move(h, p, side))
            break;
        keep(h, p, side);
        a += !side;
        b += side;
        lim->last = p.x;
        if (!h->wide && h->has[0] && h->has[1])
            keep_blocks(h, s, &a, &b, lim);
    }
    *ia = a;
    *ib = b;
    return rc;
}

/* ---- the finished piece: estimate and exact range ---------------------------------- */

/* One hull of a finished piece: its vertices, the slopes of its edges (slope[i]
 * from vertex i to i + 1, as slope() gives them) and the vertex where the envelope
 * is extreme for each end of the slope interval: the ranges ask for those at every
 * point of a map. */
struct side {
    size_t n;
    struct tsync__pt *v;
    long double *slope;
    long double *dy;          /* y_i - y0 of each vertex, as diff() gives it */
    size_t at_lo, at_hi;
    size_t edge;              /* the edge found last (a map asks along x) */
    long double a_last;       /* the slope asked for last, and its extreme vertex */
    size_t at_last;
};

/* What a hull piece keeps for its range: both hulls and the slope interval; and the
 * last range asked for (a map asks for a point's range for its value and again for
 * its bound). */
struct hull_range {
    long double a_lo, a_hi;
    struct side lower, upper;         /* their arrays in this allocation */
    int asked;
    tsync_time last_x;
    long double last_lo, last_hi;
};

/* Vertices on each side of the one the slopes point to that envelope still
 * compares: where an edge's slope is within rounding of a, the two values are
 * nearly equal and the arithmetic decides, as it would over every vertex. */
#define ENVELOPE_NEAR 2

/* The vertex where y_i - a x_i is least on a lower hull (sign 1; its edges' slopes
 * increase) or greatest on an upper hull (sign -1; they decrease): the first whose
 * next edge's slope reaches a; 0 on a hull short enough for envelope to compare
 * every vertex. */
static size_t extreme_vertex(const struct side *h, long double a, int sign)
{
    size_t lo = 0, hi = h->n - 1;
    if (h->n <= 2 * ENVELOPE_NEAR + 1)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sign > 0 ? h->slope[mid] >= a : h->slope[mid] <= a)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* min_i (y_i + a (X - x_i)) over the lower hull (sign 1), or max_j over the upper
 * hull (sign -1), relative to the origin, with k = extreme_vertex(h, a, sign).
 * Convex in i: only the vertices around the one the edges' slopes point to are
 * compared (a hull of 10^7 samples has thousands of vertices, and the maps ask
 * for ranges at every window). */
static long double envelope(const struct side *h, size_t k, long double a, tsync_time x, int sign)
{
    long double best = sign > 0 ? INFINITY : -INFINITY;
    size_t n = h->n;
    size_t from = k > ENVELOPE_NEAR ? k - ENVELOPE_NEAR : 0;
    size_t to = n > 2 * ENVELOPE_NEAR + 1 && k + ENVELOPE_NEAR + 1 < n ? k + ENVELOPE_NEAR + 1 : n;
    for (size_t i = from; i < to; i++) {
        long double val = h->dy[i] + a * diff(x, h->v[i].x);
        if (sign > 0 ? val < best : val > best)
            best = val;
    }
    return best;
}

static long double clampl(long double a, long double lo, long double hi)
{
    return a < lo ? lo : a > hi ? hi : a;
}

/* The slope of the hull edge over x, clamped to [a_lo, a_hi]; outside the hull the
 * end of the interval that the envelope's slope points to (`out_left`, `out_right`). */
static long double edge_slope(struct side *h, tsync_time x, const struct hull_range *r,
                              long double out_left, long double out_right)
{
    const struct tsync__pt *v = h->v;
    size_t n = h->n, lo = 0, hi = n;
    if (x < v[0].x)
        return out_left;
    if (x >= v[n - 1].x)
        return n >= 2 && x == v[n - 1].x ? clampl(h->slope[n - 2], r->a_lo, r->a_hi) : out_right;
    /* The last vertex with x_k <= x: the edge of the last call, or searched. */
    if (v[h->edge].x <= x && x < v[h->edge + 1].x) {
        lo = h->edge;
    } else {
        while (lo + 1 < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (v[mid].x <= x)
                lo = mid;
            else
                hi = mid;
        }
        h->edge = lo;
    }
    return clampl(h->slope[lo], r->a_lo, r->a_hi);
}

/* The largest (sign 1, lower hull) or smallest (sign -1, upper hull) envelope over
 * the slope interval at x: concave (convex) in a, so at its ends or at the slope
 * of the hull edge over x. */
static long double side_extreme(struct side *h, const struct hull_range *r, tsync_time x, int sign)
{
    long double a = sign > 0 ? edge_slope(h, x, r, r->a_lo, r->a_hi)
                             : edge_slope(h, x, r, r->a_hi, r->a_lo);
    long double c[3];
    if (a != h->a_last) {               /* the same slope has the same extreme vertex */
        h->a_last = a;
        h->at_last = extreme_vertex(h, a, sign);
    }
    c[0] = envelope(h, h->at_lo, r->a_lo, x, sign);
    c[1] = envelope(h, h->at_hi, r->a_hi, x, sign);
    c[2] = envelope(h, h->at_last, a, x, sign);
    long double best = sign > 0 ? -INFINITY : INFINITY;
    for (int k = 0; k < 3; k++)
        if (sign > 0 ? c[k] > best : c[k] < best)
            best = c[k];
    return best;
}

static void hull_range(const struct tsync__piece *pc, tsync_time x, long double *lo,
                       long double *hi)
{
    struct hull_range *r = pc->data;
    if (!r->asked || r->last_x != x) {
        /* Concave in a: rises while the touching vertex is left of x. */
        r->last_hi = r->lower.n ? side_extreme(&r->lower, r, x, 1) : INFINITY;
        r->last_lo = r->upper.n ? side_extreme(&r->upper, r, x, -1) : -INFINITY;
        r->last_x = x;
        r->asked = 1;
    }
    *lo = r->last_lo;
    *hi = r->last_hi;
}

/* The middle of the feasible offsets for slope a (relative to the origin): both
 * hulls give b in [L(a), U(a)], with U(a) = min_i (y_i - a x_i) and L(a) the max over
 * the upper hull; one side only gives that side. */
static long double mid_offset(const struct hull_range *r, const struct tsync__piece *pc,
                              long double a)
{
    long double u = INFINITY, l = -INFINITY;
    if (r->lower.n)
        u = envelope(&r->lower, extreme_vertex(&r->lower, a, 1), a, pc->x0, 1);
    if (r->upper.n)
        l = envelope(&r->upper, extreme_vertex(&r->upper, a, -1), a, pc->x0, -1);
    if (!r->lower.n)
        return l;
    if (!r->upper.n)
        return u;
    return (u + l) / 2;
}

int tsync__hull_lines(const struct tsync__piece *p, long double *a_lo, long double *b_lo,
                      long double *a_hi, long double *b_hi)
{
    const struct hull_range *r = p->data;
    if (p->range != hull_range)
        return -1;
    *a_lo = r->a_lo;
    *a_hi = r->a_hi;
    *b_lo = mid_offset(r, p, r->a_lo);
    *b_hi = mid_offset(r, p, r->a_hi);
    return 0;
}

/* Side h of range r from chain c, y relative to y0: its slopes at `slopes`, its
 * vertices' y - y0 at `dy`, its vertices at `v`. */
static void side_init(struct side *h, const struct chain *c, long double *slopes, long double *dy,
                      struct tsync__pt *v, const struct hull_range *r, tsync_time y0, int sign)
{
    h->n = c->n;
    h->v = v;
    h->slope = slopes;
    h->dy = dy;
    if (c->n)
        memcpy(h->v, c->v, c->n * sizeof(*h->v));
    for (size_t i = 0; i + 1 < c->n; i++)
        h->slope[i] = slope(h->v[i], h->v[i + 1]);
    for (size_t i = 0; i < c->n; i++)
        h->dy[i] = diff(h->v[i].y, y0);
    h->at_lo = c->n ? extreme_vertex(h, r->a_lo, sign) : 0;
    h->at_hi = c->n ? extreme_vertex(h, r->a_hi, sign) : 0;
    h->edge = 0;
    h->a_last = r->a_lo;
    h->at_last = h->at_lo;
}

static int hull_finish(void *state, struct tsync__pieces *out)
{
    struct hull *h = state;
    struct tsync__piece pc;
    struct hull_range *r;
    struct tsync__pt *v;
    long double *slopes, *dy;
    size_t n;
    long double a_min = h->has[1] ? slope(h->left[1], h->right[1]) : -INFINITY;
    long double a_max = h->has[0] ? slope(h->left[0], h->right[0]) : INFINITY;
    long double lo0, hi0, lo1, hi1;

    if (h->n[0] + h->n[1] == 0)
        return 0;
    if (take_in(&h->chain[0], 0, h->wide) || take_in(&h->chain[1], 1, h->wide))
        return TSYNC_ENOMEM;
    /* The slopes and the vertices' y after the struct (whose size their alignment
     * divides), then the vertices. */
    n = h->chain[0].n + h->chain[1].n;
    r = malloc(sizeof(*r) + n * (2 * sizeof(long double) + sizeof(struct tsync__pt)));
    if (!r)
        return TSYNC_ENOMEM;
    slopes = (long double *)(r + 1);
    dy = slopes + n;
    v = (struct tsync__pt *)(dy + n);

    /* The slope interval: the data's, within 1 +- max_drift where they leave it open
     * or are looser (add_point keeps a_min <= 1 + max_drift and a_max >= 1 -
     * max_drift, so the interval is never empty). */
    r->asked = 0;
    r->a_lo = a_min > 1 - h->p.max_drift ? a_min : 1 - h->p.max_drift;
    r->a_hi = a_max < 1 + h->p.max_drift ? a_max : 1 + h->p.max_drift;
    side_init(&r->lower, &h->chain[0], slopes, dy, v, r, h->p.y0, 1);
    side_init(&r->upper, &h->chain[1], slopes + h->chain[0].n, dy + h->chain[0].n,
              v + h->chain[0].n, r, h->p.y0, -1);

    memset(&pc, 0, sizeof(pc));
    pc.x_first = h->x_first;
    pc.x_last = h->x_last;
    pc.x0 = h->p.x0;
    pc.y0 = h->p.y0;
    pc.samples = h->n[0] + h->n[1];
    pc.range = hull_range;
    pc.data = r;
    if (r->lower.n && r->upper.n && h->has[1] && h->has[0]) {
        /* Mean of the extreme lines: (a_lo, mid b) and (a_hi, mid b). */
        pc.kind = TSYNC_BOUND_BOUNDED;
        pc.a = (r->a_lo + r->a_hi) / 2;
        pc.b = (mid_offset(r, &pc, r->a_lo) + mid_offset(r, &pc, r->a_hi)) / 2;
        /* Hull width is convex in x: largest at the ends of the samples. */
        hull_range(&pc, pc.x_first, &lo0, &hi0);
        hull_range(&pc, pc.x_last, &lo1, &hi1);
        pc.error = (double)(hi0 - lo0 > hi1 - lo1 ? hi0 - lo0 : hi1 - lo1);
    } else if (r->lower.n && r->upper.n) {
        /* Both directions, but one extreme line is the max_drift limit, not data (one
         * exchange, or messages too close in time): the mean would be half that
         * arbitrary drift, 500 ppm by default. No drift the data do not ask for. */
        pc.kind = TSYNC_BOUND_BOUNDED;
        pc.open = 1;
        pc.a = clampl(1, r->a_lo, r->a_hi);
        pc.b = mid_offset(r, &pc, pc.a);
        hull_range(&pc, pc.x_first, &lo0, &hi0);
        hull_range(&pc, pc.x_last, &lo1, &hi1);
        pc.error = (double)(hi0 - lo0 > hi1 - lo1 ? hi0 - lo0 : hi1 - lo1);
    } else {
        /* One direction only: no drift, the tightest constraint on the line. */
        pc.kind = TSYNC_BOUND_FALLBACK;
        pc.open = 1;
        pc.a = clampl(1, r->a_lo, r->a_hi);
        pc.b = mid_offset(r, &pc, pc.a);
        pc.error = INFINITY;
    }
    return tsync__pieces_push(out, &pc);
}

static void hull_stats(const void *state, struct tsync__est_stats *st)
{
    const struct hull *h = state;
    st->samples += h->n[0] + h->n[1];
    st->hull_points += h->chain[0].n + h->chain[1].n;
}


static int hull_settled(const void *state)
{
    const struct hull *h = state;
    return h->settled;
}

static void hull_fini(void *state)
{
    struct hull *h = state;
    if (!h)
        return;
    free(h->chain[0].v);
    free(h->chain[1].v);
    free(h->chain[0].fresh);
    free(h);
}

const struct tsync__estimator tsync__hull_estimator = {
    "hull", "mean of the extreme separating lines; bounds guaranteed",
    "mean of the minimum and maximum separating lines",
    "guaranteed (drift changing by at most max_wander per second, minimum latencies, max_drift)",
    0, 1, hull_init, hull_add, hull_settled, hull_finish, hull_stats, hull_fini, hull_add_run
};
