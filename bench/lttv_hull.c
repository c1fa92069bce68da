/* lttv_hull.c - LTTV's convex hull synchronization of two traces (lttv/sync,
 * event_analysis_chull.c), written again for the accuracy bench, so that tracesync is
 * compared with it on the same messages.
 *
 * The plane: x the first trace's clock, y the second's. A message from the first to
 * the second is the point (send, receive), which the line y = drift x + offset
 * passes below; a message back is the point (receive, send), which it passes above.
 * No latency is assumed. From the lower hull of the first set and the upper hull of
 * the second, the minimum and maximum separating lines (Haddad's search; here over
 * every pair of vertices) give, where both exist, Duda's estimate: their interior
 * bisector, by Haddad's formula (LTTV's calculateFactorsMiddle). Where no line
 * separates the hulls (they cross), LTTV's fallback after Ashton: of the lines through
 * a vertex of each hull, the one whose vertical distances to the vertices on the
 * wrong side add up least. Where one extreme line is missing (messages that leave the
 * drift open), LTTV gives no factors ("incomplete").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lttv_hull.h"

static int by_x(const void *a, const void *b)
{
    const struct tsync__pt *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x ? 1 : (p->y > q->y) - (p->y < q->y);
}

__extension__ typedef __int128 i128;

/* (a - o) x (b - o), exact: > 0 when b lies left of the direction o -> a. */
static i128 cross(struct tsync__pt o, struct tsync__pt a, struct tsync__pt b)
{
    return ((i128)a.x - o.x) * ((i128)b.y - o.y) - ((i128)a.y - o.y) * ((i128)b.x - o.x);
}

/* The lower (sign 1) or upper (sign -1) hull of v[0, n), sorted by x, in place;
 * returns the number of vertices. */
static size_t half_hull(struct tsync__pt *v, size_t n, int sign)
{
    size_t h = 0;
    qsort(v, n, sizeof(*v), by_x);
    for (size_t i = 0; i < n; i++) {
        while (h >= 2 && sign * cross(v[h - 2], v[h - 1], v[i]) <= 0)
            h--;
        v[h++] = v[i];
    }
    return h;
}

/* The line through p and q (p.x != q.x). */
static void line(struct tsync__pt p, struct tsync__pt q, long double *drift, long double *offset)
{
    *drift = ((long double)q.y - p.y) / ((long double)q.x - p.x);
    *offset = (long double)p.y - *drift * (long double)p.x;
}

/* Whether the line through p and q (p.x != q.x) passes at or below every `below`
 * point and at or above every `above` point: exact turns, as LTTV's jointCmp. */
static int separates(struct tsync__pt p, struct tsync__pt q, const struct tsync__pt *below,
                     size_t nb, const struct tsync__pt *above, size_t na)
{
    struct tsync__pt l = p.x < q.x ? p : q, r = p.x < q.x ? q : p;
    for (size_t i = 0; i < nb; i++)
        if (cross(l, r, below[i]) < 0)
            return 0;
    for (size_t i = 0; i < na; i++)
        if (cross(l, r, above[i]) > 0)
            return 0;
    return 1;
}

/* The vertical distances of the `below` points under the line and of the `above`
 * points over it, added up (Ashton's error). */
static long double violation(long double drift, long double offset, const struct tsync__pt *below,
                             size_t nb, const struct tsync__pt *above, size_t na)
{
    long double sum = 0;
    for (size_t i = 0; i < nb; i++) {
        long double d = drift * (long double)below[i].x + offset - (long double)below[i].y;
        sum += d > 0 ? d : 0;
    }
    for (size_t i = 0; i < na; i++) {
        long double d = (long double)above[i].y - drift * (long double)above[i].x - offset;
        sum += d > 0 ? d : 0;
    }
    return sum;
}

enum lttv_kind lttv_hull_factors(const struct tsync__pt *first_to_second, size_t n1,
                                 const struct tsync__pt *second_to_first, size_t n2,
                                 long double *drift, long double *offset)
{
    struct tsync__pt *lo = malloc((n1 + 1) * sizeof(*lo)), *up = malloc((n2 + 1) * sizeof(*up));
    long double amin = INFINITY, amax = -INFINITY, bmin = 0, bmax = 0, best = INFINITY;
    enum lttv_kind kind = LTTV_INCOMPLETE;
    size_t nl, nu;
    if (!lo || !up || !n1 || !n2)
        goto out;
    memcpy(lo, first_to_second, n1 * sizeof(*lo));
    memcpy(up, second_to_first, n2 * sizeof(*up));
    nl = half_hull(lo, n1, 1);    /* the line passes below these */
    nu = half_hull(up, n2, -1);   /* ... and above these */
    /* The steepest line needs a point it passes above left of one it passes below,
     * the flattest the converse; else the drift is open on one side. */
    if (up[0].x >= lo[nl - 1].x || lo[0].x >= up[nu - 1].x)
        goto out;
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < nu; j++) {
            long double a, b;
            if (lo[i].x == up[j].x || !separates(lo[i], up[j], lo, nl, up, nu))
                continue;
            line(lo[i], up[j], &a, &b);
            if (a < amin) {
                amin = a;
                bmin = b;
            }
            if (a > amax) {
                amax = a;
                bmax = b;
            }
        }
    if (amin < amax) {
        /* Haddad's bisector of the minimum line (amin, bmin) and the maximum one. */
        long double bhat = (amax * amin - 1 + sqrtl(1 + amax * amax * amin * amin + amax * amax +
                                                     amin * amin)) / (amax + amin);
        *drift = bhat;
        *offset = bmin - (bmin - bmax) / 2 * (bhat * bhat + 1) / (1 + bhat * amax);
        kind = LTTV_MIDDLE;
        goto out;
    }
    if (amin == amax) {
        *drift = amin;
        *offset = bmin;
        kind = LTTV_EXACT;
        goto out;
    }
    /* The hulls cross: Ashton's fallback. */
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < nu; j++) {
            long double a, b, v;
            if (lo[i].x == up[j].x)
                continue;
            line(lo[i], up[j], &a, &b);
            if ((v = violation(a, b, lo, nl, up, nu)) < best) {
                best = v;
                *drift = a;
                *offset = b;
                kind = LTTV_FALLBACK;
            }
        }
out:
    free(lo);
    free(up);
    return kind;
}

const char *lttv_kind_name(enum lttv_kind k)
{
    static const char *const names[] = { "exact", "middle", "fallback", "incomplete" };
    return names[k];
}
