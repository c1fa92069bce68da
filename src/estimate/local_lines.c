/* local_lines.c - local minimax lines: the offset of a pair too sparse for windowed
 * minima, followed by the line that violates the one-way constraints of its K
 * nearest messages each way least, K chosen by cross-validation.
 *
 * Windowed minimum delays (window.c) need 16 messages each way within seconds. A
 * pair that exchanges a message a minute, or in bursts minutes apart, has none, and
 * its hull pieces are a few messages each: one-sided, or with their slope open,
 * their lines and the curves bent between them were milliseconds off where the
 * clocks wander (200 messages over an hour: 0.09 to 2.8 ms). Here, at every sample
 * (or every n / LINES_MAX-th), the K ABOVE and K BELOW samples nearest in time give
 * the line that passes them with the largest margin, or violates them least where
 * none passes all (Chebyshev's line: the narrowest vertical strip between the lower
 * hull of the ABOVE points and the upper hull of the BELOW ones); its value there is
 * the middle of that strip. With the delays' minimum the same both ways, the middle
 * is the clock's offset give or take the fastest message's excess of each direction;
 * the line's length is what bends it off the clock. Where the K nearest lie all on
 * one side of the others in time, the slope is open; K doubles until it is not.
 *
 * K. Short lines follow the clock's bends, long ones average the delays' excess away;
 * the data say which serves better. A sample left out of its own line leaves a slack
 * (its constraint's distance from the line): its delay's excess over the minimum,
 * plus the line's error with one sign or the other. The excess does not depend on K,
 * so the K whose left-out slacks vary least, over both directions, errs least
 * (leave-one-out cross-validation, on up to CV_MAX samples each way); of the K whose
 * scores lie within half a standard error of the least, the longest: where the clock
 * is straight, every K from a few on scores alike, and the longest averages most.
 * Over 12 seeds of pairs with 200 and 1000 messages in an hour, the largest error fell
 * from 0.04-3.5 ms to 3.1-103 us, below LTTV's hull on the same messages in all 24.
 *
 * Points. With a handful of messages in an hour every line that fixes a slope spans
 * most of it, and a wandering clock leaves it by hundreds of microseconds. Each
 * message then says more by itself: the offset at its time is its constraint less
 * the delay's excess over the assumed minimum (delta, the same both ways as the
 * strip's middle assumes, from how the directions alternate: point_delta). The
 * curve passes these points, the lines giving only their slopes, where the points
 * score better than the lines under the same cross-validation (a left-out sample
 * against the straight line between its neighbours' points). Over 24 seeds of ten
 * messages in an hour (class k of bench_accuracy) the largest error fell from
 * 69-1684 us to 13-96 us, below LTTV's hull on 23; with 200 or 1000 messages the
 * lines score better and stay.
 *
 * Where the lines do not serve: a line whose strip would turn past max_drift says
 * nothing of the slope (a handful of collectives at almost one time) and is left
 * out, one whose strip is too wide for its length gives its value but not its slope
 * (LOOSE_SLOPE); and where most messages of one direction wait (late receives,
 * collectives: against a rough curve of K = WAITS_K, the median slack more than
 * WAITS times that of the prompt quarter), the fastest of a few is not near the
 * minimum delay: the pair keeps its pieces, whose hulls find the prompt few among
 * hundreds.
 *
 * The curve is a set of windows (estimator.h) marked `local`: segment.c holds it
 * inside the pieces' ranges widened by the wander margin, so it never leaves the
 * band the bounds promise, and takes the bounds from the pieces.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimator.h"
#include "util/vec.h"

#define LINES_MAX 4096   /* points of the curve at most */
#define CV_MAX 128       /* samples left out each way, at most */
#define BISECTIONS 48    /* of the slope interval: 2 max_drift / 2^48, 1e-17 */
#define K_FIRST 4        /* the shortest line: 4 samples each way, */
#define K_GROWTH 3 / 2   /* ... then half as many again, up to every sample */
#define K_MAX 1024       /* ... or this many: a line costs its length */
/* A line's slope counts where its strip, spread over the line's length, is at most
 * this (the hull's BEND_SLOPE): beyond the samples the curve goes on along it.
 * Else the line's value stands but not its slope, and beyond the samples the curve
 * follows the chord to a point far enough to fix one (end_slope), or takes no drift
 * the data do not fix (a line through a busy second's few messages,
 * 200 ppm off, would be 100 us off after a sleep of half a second). */
#define LOOSE_SLOPE 5e-7L

/* One set of samples, sorted by x, and the one left out (SIZE_MAX: none). */
struct side {
    const struct tsync__pt *v;
    size_t n, skip;
};

/* What a line is fitted over: the samples [lo, hi) of each side. */
struct span {
    size_t lo[2], hi[2];
};

/* A sample relative to the line's point: x - x0, and the offset y - x - ref. */
struct rel {
    long double x, d;
};

/* The hulls a line is fitted to, room for them kept between the lines. */
struct hulls {
    struct rel *v[2];
    size_t n[2], cap[2];
};

/* The first index whose x is >= x. */
static size_t lower_index(const struct side *s, tsync_time x)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].x < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The k samples of s nearest x0 (the one left out does not count), as the index
 * range [*lo, *hi); all of them when s has fewer. */
static void nearest(const struct side *s, tsync_time x0, size_t k, size_t *lo, size_t *hi)
{
    size_t r = lower_index(s, x0), l = r, got = 0;
    while (got < k && (l > 0 || r < s->n)) {
        size_t i;
        if (r < s->n && (l == 0 || s->v[r].x - x0 <= x0 - s->v[l - 1].x))
            i = r++;
        else
            i = --l;
        got += i != s->skip;
    }
    *lo = l;
    *hi = r;
}

/* Whether the samples of the span fix the slope both ways: an ABOVE sample before a
 * BELOW one, and a BELOW one before an ABOVE one. */
static int slope_fixed(const struct side *s, const struct span *sp)
{
    const struct tsync__pt *a = s[0].v, *b = s[1].v;
    if (sp->lo[0] == sp->hi[0] || sp->lo[1] == sp->hi[1])
        return 0;
    return a[sp->lo[0]].x < b[sp->hi[1] - 1].x && b[sp->lo[1]].x < a[sp->hi[0] - 1].x;
}

/* The k samples of each side nearest x0, grown until they fix the slope; 0 when
 * even all of them do not. */
static int span_at(const struct side *s, tsync_time x0, size_t k, struct span *sp)
{
    for (;;) {
        int all = 1;
        for (int j = 0; j < 2; j++) {
            nearest(&s[j], x0, k, &sp->lo[j], &sp->hi[j]);
            all &= sp->lo[j] == 0 && sp->hi[j] == s[j].n;
        }
        if (slope_fixed(s, sp))
            return 1;
        if (all)
            return 0;
        k *= 2;
    }
}

/* (a - o) x (b - o): > 0 when b lies left of the direction o -> a. */
static long double cross(struct rel o, struct rel a, struct rel b)
{
    return (a.x - o.x) * (b.d - o.d) - (a.d - o.d) * (b.x - o.x);
}

/* The lower hull of the span's ABOVE samples (side 0; the line passes below them)
 * or the upper hull of its BELOW ones (side 1), relative to x0 and ref, into h. 0 or
 * TSYNC_ENOMEM. */
static int span_hull(const struct side *s, const struct span *sp, int side, tsync_time x0,
                     long double ref, struct hulls *h)
{
    const struct side *c = &s[side];
    long double sign = side ? -1 : 1;
    size_t m = 0;
    if (tsync__reserve((void **)&h->v[side], &h->cap[side], sp->hi[side] - sp->lo[side] + 1,
                       sizeof(struct rel)))
        return TSYNC_ENOMEM;
    for (size_t i = sp->lo[side]; i < sp->hi[side]; i++) {
        struct rel p, *v = h->v[side];
        if (i == c->skip)
            continue;
        p.x = (long double)(c->v[i].x - x0);
        p.d = (long double)c->v[i].y - (long double)c->v[i].x - ref;
        if (m && p.x == v[m - 1].x) {
            if (sign * (p.d - v[m - 1].d) >= 0)
                continue;
            m--;
        }
        while (m >= 2 && sign * cross(v[m - 2], v[m - 1], p) <= 0)
            m--;
        v[m++] = p;
    }
    h->n[side] = m;
    return 0;
}

/* The least d - alpha x over the lower hull (side 0), or the greatest over the upper
 * one (side 1), and the x where it is reached. */
static long double extreme(const struct hulls *h, int side, long double alpha, long double *at)
{
    long double best = side ? -INFINITY : INFINITY;
    for (size_t i = 0; i < h->n[side]; i++) {
        long double v = h->v[side][i].d - alpha * h->v[side][i].x;
        if (side ? v > best : v < best) {
            best = v;
            *at = h->v[side][i].x;
        }
    }
    return best;
}

/* Chebyshev's line over the span at x0: the middle of its strip (offset y - x
 * relative to ref), its slope (the drift) and the strip's width (negative where
 * the samples overlap). Only the hulls' vertices bound the strip; its width's
 * subgradient in the drift is x_above - x_below of the two that do: bisection on
 * its sign. 0 or TSYNC_ENOMEM. */
static int chebyshev(const struct side *s, const struct span *sp, tsync_time x0, long double ref,
                     double max_drift, struct hulls *h, long double *mid, long double *drift,
                     long double *width)
{
    long double lo = -(long double)max_drift, hi = (long double)max_drift, alpha = 0, up, dn;
    long double at_up = 0, at_dn = 0;
    if (span_hull(s, sp, 0, x0, ref, h) || span_hull(s, sp, 1, x0, ref, h))
        return TSYNC_ENOMEM;
    for (int i = 0; i < BISECTIONS; i++) {
        alpha = lo + (hi - lo) / 2;
        extreme(h, 0, alpha, &at_up);
        extreme(h, 1, alpha, &at_dn);
        if (at_up > at_dn)
            hi = alpha;       /* the strip narrows toward smaller drifts */
        else if (at_up < at_dn)
            lo = alpha;
        else
            break;
    }
    up = extreme(h, 0, alpha, &at_up);
    dn = extreme(h, 1, alpha, &at_dn);
    *mid = (up + dn) / 2;
    *drift = alpha;
    *width = up - dn;
    return 0;
}

static int ld_cmp(const void *pa, const void *pb)
{
    long double a = *(const long double *)pa, b = *(const long double *)pb;
    return a < b ? -1 : a > b;
}

/* The spread of slacks v[0, n) (sorted in place): their variance, and from
 * TRIM_FROM slacks on that of the smaller half, the prompt messages', where a
 * line's error shows without the waits of late receives and collectives
 * (milliseconds) that drown it. 0 for n < 2. */
#define TRIM_FROM 64
static long double spread(long double *v, size_t n)
{
    long double mean = 0, sq = 0;
    if (n < 2)
        return 0;
    if (n >= TRIM_FROM) {
        qsort(v, n, sizeof(*v), ld_cmp);
        n /= 2;
    }
    for (size_t i = 0; i < n; i++)
        mean += v[i];
    mean /= (long double)n;
    for (size_t i = 0; i < n; i++)
        sq += (v[i] - mean) * (v[i] - mean);
    return sq / (long double)n;
}

/* The left-out slacks' variance for K = k over both sides (*score; INFINITY when
 * fewer than two samples each way have a line without themselves). `slack` holds
 * CV_MAX values. 0 or TSYNC_ENOMEM. */
static int cv_score(struct side *s, size_t k, long double ref, double max_drift,
                    struct hulls *h, long double *slack, long double *score)
{
    *score = 0;
    for (int j = 0; j < 2; j++) {
        size_t step = s[j].n > CV_MAX ? s[j].n / CV_MAX : 1, m = 0;
        for (size_t i = 0; i < s[j].n && m < CV_MAX; i += step) {
            struct span sp;
            long double mid, drift, width, d;
            s[j].skip = i;
            if (!span_at(s, s[j].v[i].x, k, &sp))
                continue;
            if (chebyshev(s, &sp, s[j].v[i].x, ref, max_drift, h, &mid, &drift, &width)) {
                s[j].skip = SIZE_MAX;
                return TSYNC_ENOMEM;
            }
            d = (long double)s[j].v[i].y - (long double)s[j].v[i].x - ref;
            slack[m++] = j ? mid - d : d - mid;
        }
        s[j].skip = SIZE_MAX;
        if (m < 2) {
            *score = INFINITY;
            return 0;
        }
        *score += spread(slack, m);
    }
    return 0;
}

/* Whether most messages of one direction wait (late receives, collectives): their
 * median slack against the curve more than WAITS times the slack of the prompt
 * quarter, both above the fastest. Then the fastest of a few messages is not near
 * the minimum delay, and the hull over a piece's hundreds finds it better (a
 * message a second each way between nodes of one rank, collectives among them:
 * 3.9 against 70 us). */
#define WAITS 10
#define WAITS_MIN 16
#define WAITS_K 16        /* the rough curve the waits are judged on */
static int waits(const struct side *s, const struct tsync__windows *w)
{
    for (int j = 0; j < 2; j++) {
        size_t step = s[j].n > CV_MAX ? s[j].n / CV_MAX : 1, m = 0;
        long double v[CV_MAX];
        for (size_t i = 0; i < s[j].n && m < CV_MAX; i += step) {
            long double d = (long double)s[j].v[i].y - tsync__curve_at(w->v, w->n, s[j].v[i].x);
            v[m++] = j ? -d : d;
        }
        if (m < WAITS_MIN)
            continue;       /* too few to tell waits from the delays' spread */
        qsort(v, m, sizeof(*v), ld_cmp);
        if (v[m / 2] - v[0] > WAITS * (v[m / 4] - v[0]) + 1)
            return 1;
    }
    return 0;
}

/* The K chosen by cross-validation (*k): the longest line whose score is within
 * the scores' own noise of the least (one standard error, about 1/sqrt(m) of a
 * variance of m slacks): where the clock is straight every K from a few on scores
 * alike, and the longest averages most. 0 or TSYNC_ENOMEM. */
static int choose_k(struct side *s, long double ref, double max_drift, struct hulls *h, size_t *k,
                    long double *k_score)
{
    long double best = INFINITY, *score, *slack = malloc(CV_MAX * sizeof(*slack));
    size_t most = s[0].n > s[1].n ? s[0].n : s[1].n, n_k = 0, kk = K_FIRST;
    size_t held = (s[0].n < CV_MAX ? s[0].n : CV_MAX) + (s[1].n < CV_MAX ? s[1].n : CV_MAX);
    int rc = TSYNC_ENOMEM;
    for (size_t m = K_FIRST; m < most && m < K_MAX; m = m * K_GROWTH)
        n_k++;
    score = malloc((n_k + 1) * sizeof(*score));
    if (!slack || !score)
        goto out;
    for (size_t i = 0; i <= n_k; i++, kk = kk * K_GROWTH) {
        if (cv_score(s, kk, ref, max_drift, h, slack, &score[i]))
            goto out;
        best = score[i] < best ? score[i] : best;
    }
    *k = K_FIRST;
    *k_score = INFINITY;
    kk = K_FIRST;
    for (size_t i = 0; i <= n_k; i++, kk = kk * K_GROWTH)
        if (score[i] <= best * (1 + 0.5L / sqrtl((long double)held))) {
            *k = kk;
            *k_score = score[i];
        }
    rc = 0;
out:
    free(slack);
    free(score);
    return rc;
}

/* How long the span's samples last, ticks. */
static tsync_time span_length(const struct side *s, const struct span *sp)
{
    tsync_time first = s[0].v[sp->lo[0]].x < s[1].v[sp->lo[1]].x ? s[0].v[sp->lo[0]].x
                                                                  : s[1].v[sp->lo[1]].x;
    tsync_time last = s[0].v[sp->hi[0] - 1].x > s[1].v[sp->hi[1] - 1].x ? s[0].v[sp->hi[0] - 1].x
                                                                        : s[1].v[sp->hi[1] - 1].x;
    return last - first;
}

/* The slope beyond the curve's end e (0: first, 1: last point) where the end's own
 * line leaves it loose: the chord to the nearest point far enough for the two
 * strips, spread over the distance, to fix it as LOOSE_SLOPE asks of a line; else
 * none (1). Slope 0 there was tens of microseconds off a second past the end of a
 * pair whose clocks differ by 30 ppm, where its sparse lines are loose at its ends. */
static long double end_slope(const struct tsync__windows *w, int e)
{
    const struct tsync__window *a = &w->v[e ? w->n - 1 : 0];
    for (size_t i = 1; i < w->n; i++) {
        const struct tsync__window *b = &w->v[e ? w->n - 1 - i : i];
        long double dx = (long double)(b->x - a->x);
        if (fabsl(a->width) + fabsl(b->width) <= LOOSE_SLOPE * fabsl(dx))
            return (b->y - a->y) / dx;
    }
    return 1;
}

/* The samples of both sides in order of x. */
struct merged {
    const struct side *s;
    size_t i[2];
};

/* The next sample (*x, its offset *d relative to ref, *side 0: ABOVE, 1: BELOW); 0
 * when none is left. */
static int next_merged(struct merged *m, long double ref, tsync_time *x, long double *d, int *side)
{
    const struct side *s = m->s;
    int j;
    if (m->i[0] == s[0].n && m->i[1] == s[1].n)
        return 0;
    j = m->i[0] == s[0].n || (m->i[1] < s[1].n && s[1].v[m->i[1]].x < s[0].v[m->i[0]].x);
    *x = s[j].v[m->i[j]].x;
    *d = (long double)s[j].v[m->i[j]].y - (long double)*x - ref;
    *side = j;
    m->i[j]++;
    return 1;
}

/* ---- points: a pair too sparse for lines ---------------------------------------- */

/* Three consecutive samples of the merged order. */
struct triple {
    struct merged m;
    long double ref;
    tsync_time x[3];
    long double d[3];
    int side[3];
    int n;
};

/* The next three consecutive samples into t; 0 when none are left. */
static int next_triple(struct triple *t)
{
    if (t->n == 3) {
        for (int i = 0; i < 2; i++) {
            t->x[i] = t->x[i + 1];
            t->d[i] = t->d[i + 1];
            t->side[i] = t->side[i + 1];
        }
        t->n = 2;
    }
    for (; t->n < 3; t->n++)
        if (!next_merged(&t->m, t->ref, &t->x[t->n], &t->d[t->n], &t->side[t->n]))
            return 0;
    return 1;
}

/* A sample's sign: its point lies delta below an ABOVE constraint, above a BELOW one. */
#define SIGN(side) ((side) ? -1.0L : 1.0L)

/* The delays' excess over the assumed minimum that the points take: read as each
 * constraint less delta (ABOVE) or plus delta (BELOW), the offsets zigzag where the
 * directions alternate unless delta is right; the delta whose slopes between
 * consecutive samples change least (least squares; at least 0). */
static long double point_delta(const struct side *s, long double ref)
{
    struct triple t = { { s, { 0, 0 } }, ref, { 0 }, { 0 }, { 0 }, 0 };
    long double ab = 0, bb = 0;
    while (next_triple(&t)) {
        long double h0 = (long double)(t.x[1] - t.x[0]), h1 = (long double)(t.x[2] - t.x[1]);
        if (h0 > 0 && h1 > 0) {
            long double a = (t.d[2] - t.d[1]) / h1 - (t.d[1] - t.d[0]) / h0;
            long double b = (SIGN(t.side[2]) - SIGN(t.side[1])) / h1 -
                            (SIGN(t.side[1]) - SIGN(t.side[0])) / h0;
            ab += a * b;
            bb += b * b;
        }
    }
    return bb > 0 && ab > 0 ? ab / bb : 0;
}

/* The points' score as choose_k scores lines: the variance, each side, of a left-out
 * sample's slack against the straight line between its two neighbours' points. */
static long double points_score(const struct side *s, long double ref, long double delta)
{
    struct triple t = { { s, { 0, 0 } }, ref, { 0 }, { 0 }, { 0 }, 0 };
    size_t step = (s[0].n + s[1].n) / (2 * CV_MAX) + 1, seen = 0, got[2] = { 0, 0 };
    long double slack[2][2 * CV_MAX], score = 0;
    while (next_triple(&t)) {
        long double p0 = t.d[0] - SIGN(t.side[0]) * delta, p2 = t.d[2] - SIGN(t.side[2]) * delta;
        long double at;
        int j = t.side[1];
        if (t.x[2] == t.x[0] || seen++ % step || got[j] == 2 * CV_MAX)
            continue;
        at = p0 + (p2 - p0) * (long double)(t.x[1] - t.x[0]) / (long double)(t.x[2] - t.x[0]);
        slack[j][got[j]++] = SIGN(j) * (t.d[1] - at);
    }
    for (int j = 0; j < 2; j++) {
        if (got[j] < 2)
            return INFINITY;
        score += spread(slack[j], got[j]);
    }
    return score;
}

/* The curve of K = k into w: a line at every step-th sample of the merged order, at
 * most `most` of them and a few a line's length (long lines change slowly); with
 * `delta` finite, at every sample its point (the constraint less delta), the line
 * there giving its slope. 0 or TSYNC_ENOMEM (w empty). */
static int draw(struct tsync__windows *w, const struct side *s, size_t k, size_t most,
                long double ref, double max_drift, long double delta, struct hulls *h)
{
    size_t n = s[0].n + s[1].n, cap = 0, seen = 0;
    size_t step = n > most ? (n + most - 1) / most : 1;
    struct merged m = { s, { 0, 0 } };
    tsync_time last = 0, x;
    int loose[2] = { 0, 0 };   /* the first and the last line's slope */
    int side;
    long double d;
    step = isfinite(delta) ? 1 : k / 8 > step ? k / 8 : step;
    memset(w, 0, sizeof(*w));
    while (next_merged(&m, ref, &x, &d, &side)) {
        struct tsync__window win;
        long double mid, drift, width;
        struct span sp;
        if ((seen++ % step && seen < n) || (w->n && x == last) || !span_at(s, x, k, &sp))
            continue;
        if (chebyshev(s, &sp, x, ref, max_drift, h, &mid, &drift, &width))
            goto fail;
        if (fabsl(drift) >= (long double)max_drift * (1 - 1e-6L))
            continue;   /* the strip would turn past any clock's drift: no line here */
        win.x = last = x;
        win.y = (long double)x + ref + (isfinite(delta) ? d - SIGN(side) * delta : mid);
        loose[1] = fabsl(width) > LOOSE_SLOPE * (long double)span_length(s, &sp);
        win.a = 1 + (loose[1] ? 0 : drift);
        win.width = width;
        if (TSYNC_PUSH(w->v, w->n, cap, win))
            goto fail;
        if (w->n == 1)
            loose[0] = loose[1];
    }
    for (int e = 0; e < 2; e++)
        if (w->n && loose[e])
            w->v[e ? w->n - 1 : 0].a = end_slope(w, e);
    return 0;
fail:
    tsync__windows_free(w);
    return TSYNC_ENOMEM;
}

int tsync__local_lines(struct tsync__windows *w, const struct tsync__pair_samples *ps,
                       const struct tsync__est_params *p)
{
    struct side s[2] = { { ps->above, ps->n_above, SIZE_MAX }, { ps->below, ps->n_below, SIZE_MAX } };
    struct hulls h;
    long double ref, score, delta;
    size_t k;
    int rc = 0;
    memset(w, 0, sizeof(*w));
    memset(&h, 0, sizeof(h));
    if (!ps->n_above || !ps->n_below)
        return 0;
    ref = (long double)ps->above[0].y - (long double)ps->above[0].x;
    /* A rough curve first, to see whether the messages wait: then nothing more. */
    if ((rc = draw(w, s, WAITS_K, CV_MAX, ref, p->max_drift, NAN, &h)))
        goto out;
    if (!w->n || waits(s, w)) {
        tsync__windows_free(w);
        goto out;
    }
    tsync__windows_free(w);
    if ((rc = choose_k(s, ref, p->max_drift, &h, &k, &score)))
        goto out;
    delta = s[0].n + s[1].n <= LINES_MAX ? point_delta(s, ref) : NAN;
    if (isfinite(delta) && !(points_score(s, ref, delta) < score))
        delta = NAN;
    if ((rc = draw(w, s, k, LINES_MAX, ref, p->max_drift, delta, &h)))
        goto out;
    w->local = w->n > 0;
out:
    free(h.v[0]);
    free(h.v[1]);
    return rc;
}
