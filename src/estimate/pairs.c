/* pairs.c - every pair of domains fitted by the estimator once, with the lower
 * domain's clock as x: the cuts a sparse pair needs, its weight in the graph (its
 * error over both domains' events), its function for the composition in the
 * direction a path needs (from hi's side the inverse of lo's), its anchors for the
 * global least squares.
 */
#include <math.h>
#include <stdlib.h>

#include "estimate/run.h"
#include "util/ctx.h"
#include "util/vec.h"

/* The first sample of a pair: its origin for the geometry. */
static void origin(const struct tsync__pair_samples *s, struct tsync__est_params *p)
{
    p->x0 = p->y0 = 0;
    if (s->n_above) {
        p->x0 = s->above[0].x;
        p->y0 = s->above[0].y;
    } else if (s->n_below) {
        p->x0 = s->below[0].x;
        p->y0 = s->below[0].y;
    } else if (s->n_exch) {
        p->x0 = s->exch[0].x;
        p->y0 = s->exch[0].y;
    }
}

/* Sparse data. The cuts at gaps longer than max_gap and at max_segment are made
 * for dense data, where each stretch fixes its own line. A pair with a handful of
 * messages, or with sleeps between a message and its answer, is cut by them into
 * pieces that see one direction each (a fallback without a two-sided bound, where
 * the run as a whole has messages both ways) or that leave their slope open:
 * ten messages over an hour made ten one-sided pieces. Such a pair is fitted again
 * without the gap rule, and if a one-sided piece remains, without the length rule
 * too: over the whole run, split only where the hulls cross. Busy periods then
 * only choose paths (compose_period weighs the pair over each period). */
enum { CUTS_ALL, CUTS_NO_GAP, CUTS_NONE };
#define SPARSE_PER_PIECE 8  /* samples a piece, on average, below which cuts are too fine */

static void pair_params(const struct tsync__run *r, const struct tsync__pair_samples *s,
                        uint8_t cuts, struct tsync__est_params *p)
{
    *p = r->params;
    origin(s, p);
    if (cuts >= CUTS_NO_GAP)
        p->max_gap = 0;
    if (cuts >= CUTS_NONE)
        p->max_segment = 0;
}

/* Whether a piece leaves its slope open to the drift assumed where the data do
 * not fix it (a measured offset alone, a message and its answer): its range widens
 * by max_drift or more per tick beyond its last sample (the hull's by a_hi - a_lo,
 * the regression's by three standard errors of its drift). */
static int slope_open(const struct tsync__piece *pc, double max_drift, int64_t step)
{
    long double lo0, hi0, lo1, hi1;
    pc->range(pc, pc->x_last, &lo0, &hi0);
    pc->range(pc, pc->x_last + step, &lo1, &hi1);
    if (!isfinite(hi1 - lo1))
        return 1;
    return ((hi1 - lo1) - (hi0 - lo0)) / (long double)step >= (long double)max_drift;
}

/* Whether a fit of a pair with samples both ways has the trouble above: a one-sided
 * piece (fallback), or more samples in pieces that leave their slope open than in
 * pieces whose data fix it (the Init and Finalize phases' few samples beside a
 * main phase's thousands do not count; a ping-pong with sleeps between its
 * iterations does). */
static int cut_too_fine(const struct tsync__run *r, const struct tsync__pair_fit *f,
                        const struct tsync__pair_samples *s, int *one_sided)
{
    uint64_t fixed = 0, open = 0, all = 0;
    int64_t second = (int64_t)r->t->timer_resolution;
    *one_sided = 0;
    if (f->pieces.n < 2 || !((s->n_above && s->n_below) || s->n_exch))
        return 0;
    for (size_t k = 0; k < f->pieces.n; k++) {
        const struct tsync__piece *pc = &f->pieces.v[k];
        all += pc->samples;
        if (pc->kind != TSYNC_BOUND_BOUNDED)
            *one_sided = 1;
        else if (slope_open(pc, r->params.max_drift, second))
            open += pc->samples;
        else
            fixed += pc->samples;
    }
    /* Only where the cuts left a handful of samples a piece: a one-sided main phase
     * of hundreds of messages between measured offsets is data, not a cut too fine,
     * and joined across the sleeps around it its piece would widen by the wander. */
    if (all / f->pieces.n >= SPARSE_PER_PIECE)
        return *one_sided = 0;
    return *one_sided || open > fixed;
}

/* Fits edge ei's pair with the cuts it needs. */
static int fit_with_cuts(struct tsync__run *r, size_t ei)
{
    struct tsync__pair *pair = tsync__pair_of(&r->g.e[ei]);
    struct tsync__pair_fit *fit = &pair->fit;
    struct tsync__est_params p;
    int rc, one_sided;
    for (;;) {
        pair_params(r, &pair->s, r->cuts[ei], &p);
        if ((rc = tsync__fit_pair(fit, r->est, &p, &pair->s)))
            return rc;
        if (r->cuts[ei] == CUTS_NONE || !cut_too_fine(r, fit, &pair->s, &one_sided))
            return 0;
        if (r->cuts[ei] == CUTS_NO_GAP && !one_sided)
            return 0;
        tsync__pair_fit_free(fit);
        r->cuts[ei]++;
    }
}

/* Where x (lo's clock) reads when hi's clock reads y, by the nearest piece. */
static tsync_time piece_inverse(const struct tsync__piece *p, tsync_time y)
{
    return p->x0 + (tsync_time)llroundl(((long double)(y - p->y0) - p->b) / p->a);
}

/* How many times the windows' scatter about their curve a pair that follows them
 * counts as off (path costs, below). */
#define PATH_SIGMAS 3

/* A pair costs a path its error: the largest, over its function between from and
 * to, of its bound, or where its curve follows windowed minima of the clocks
 * (window.c) what the windows say of the curve when that is less: PATH_SIGMAS
 * times their scatter about it, and before the first and after the last window
 * that plus what the bound grows by from there. Bounds alone do not see how closely
 * windows follow a clock: where the hulls leave bands of tens of microseconds (true
 * latencies 4 us above the assumed ones) the paths took the fewest pairs, through
 * pairs whose pieces alone were 20 us off where windowed ones were under 1 us
 * (class c of bench_accuracy). Of local curves, only that of ClockOffset records,
 * whose scatter is known. Bounds stay as they are; this only weighs. */
double tsync__est_pair_error_over(const struct tsync__pair_fit *fit, tsync_time from,
                                  tsync_time to)
{
    const struct tsync__windows *w = &fit->windows;
    int follows = w->n >= 2 && (!w->local || w->scatter > 0);
    double edge[2] = { 0, 0 }, worst = 0;
    struct tsync__pwl f;
    if (tsync__pwl_from_fit(&f, fit, from, to))
        return -1;
    for (int s = 0; follows && s < 2; s++) {
        tsync_time x = s ? w->v[w->n - 1].x : w->v[0].x;
        edge[s] = tsync__fit_bound_at(fit, x, tsync__pwl_eval(&fit->joined, (long double)x));
    }
    for (size_t i = 0; i < f.n; i++) {
        double cost = f.bound[i];
        if (follows) {
            double curve = PATH_SIGMAS * (double)w->scatter;
            if (f.x[i] < w->v[0].x && f.bound[i] > edge[0])
                curve += f.bound[i] - edge[0];
            else if (f.x[i] > w->v[w->n - 1].x && f.bound[i] > edge[1])
                curve += f.bound[i] - edge[1];
            cost = curve < cost ? curve : cost;
        }
        worst = cost > worst ? cost : worst;
    }
    tsync__pwl_free(&f);
    return worst;
}

/* The largest bound of a pair's function over the events of both its domains:
 * what the pair can cost a path, not only where its samples are. A pair whose
 * messages all fall in a 4-second main phase is no better than its extrapolation
 * to the MPI_Init events 10 minutes earlier. */
static double pair_error(const struct tsync__run *r, const struct tsync__edge *e)
{
    const struct tsync__pieces *ps = &tsync__pair_of(e)->fit.pieces;
    tsync_time from = INT64_MAX, to = INT64_MIN;
    if (r->ev_first[e->lo] <= r->ev_last[e->lo]) {
        from = r->ev_first[e->lo];
        to = r->ev_last[e->lo];
    }
    if (r->ev_first[e->hi] <= r->ev_last[e->hi]) {
        tsync_time a = piece_inverse(&ps->v[0], r->ev_first[e->hi]);
        tsync_time b = piece_inverse(&ps->v[ps->n - 1], r->ev_last[e->hi]);
        from = a < from ? a : from;
        to = b > to ? b : to;
    }
    if (from > to)
        from = to = ps->v[0].x_first;
    return tsync__est_pair_error_over(&tsync__pair_of(e)->fit, from, to);
}

/* What the graph's stages read of fit. */
static struct tsync__fit_sum fit_sum(const struct tsync__pair_fit *fit)
{
    struct tsync__fit_sum s = { fit->stats.samples, fit->stats.dropped, fit->rejected,
                                (uint32_t)fit->pieces.n };
    return s;
}

/* Estimates every pair held here with the lower domain's clock as x; its weight is
 * its error over both domains' events. */
int tsync__est_fit_edges(struct tsync__run *r)
{
    for (size_t i = 0; i < r->g.n_edges; i++) {
        struct tsync__edge *e = &r->g.e[i];
        struct tsync__pair *pair = tsync__pair_of(e);
        double worst = 0;
        int rc;
        if (tsync__parts_remote(r, i))
            continue;
        rc = fit_with_cuts(r, i);
        /* The fit holds all the pair says from here on (a pair of 10^7 messages
         * holds 160 MB of samples). */
        tsync__pair_samples_free(&pair->s);
        if (rc)
            return rc;
        pair->sum = fit_sum(&pair->fit);
        /* One-sided pieces among two-sided ones (a last message that crossed the
         * hulls) take their bound from their neighbours (tsync__pwl_open_bounds): the
         * pair is a fallback only where every piece sees one direction. */
        e->kind = TSYNC_BOUND_FALLBACK;
        for (size_t k = 0; k < pair->fit.pieces.n; k++) {
            const struct tsync__piece *pc = &pair->fit.pieces.v[k];
            if (pc->kind != TSYNC_BOUND_BOUNDED)
                continue;
            e->kind = TSYNC_BOUND_BOUNDED;
            if (pc->error > worst)
                worst = pc->error;
        }
        if (e->kind == TSYNC_BOUND_BOUNDED && pair->fit.pieces.n) {
            double over = pair_error(r, e);
            if (over < 0)
                return TSYNC_ENOMEM;
            worst = over > worst ? over : worst;
        }
        e->weight = e->kind == TSYNC_BOUND_BOUNDED ? worst / (double)r->t->timer_resolution
                                                   : INFINITY;
        if ((i & 0xff) == 0)
            tsync__progress(r->ctx, "estimate pairs", i, r->g.n_edges);
    }
    return 0;
}

/* The pair's function with lo's clock as x over [from, to] of it, with the bounds
 * the open slopes and the envelope allow. */
static int lo_function(const struct tsync__pair_fit *fit, tsync_time from, tsync_time to,
                       struct tsync__pwl *out)
{
    int rc = tsync__pwl_from_fit(out, fit, from, to);
    if (rc)
        return rc;
    if ((rc = tsync__pwl_open_bounds(fit, out)) || (rc = tsync__envelope_bound(fit, out)))
        tsync__pwl_free(out);
    return rc;
}

/* Times lie within +-2^62 ticks; so do the lo times looked for. */
#define TIME_REACH 0x1p62L

/* x moved by m ticks toward side (-1 earlier, 1 later), within +-2^62. */
static tsync_time moved(tsync_time x, long double m, int side)
{
    long double v = (long double)x + side * m;
    return (tsync_time)(v < -TIME_REACH ? -TIME_REACH : v > TIME_REACH ? TIME_REACH : v);
}

/* Where lo's clock reads when hi's reads y, by the line of the first piece that
 * reaches y at its last sample (the last one beyond them), moved toward side by
 * twice the pair's bound there and a tick: lo's function lies within that bound
 * of the line. */
static tsync_time lo_time_near(const struct tsync__pair_fit *fit, tsync_time y, int side)
{
    const struct tsync__pieces *ps = &fit->pieces;
    size_t k = 0;
    tsync_time x;
    double b;
    while (k + 1 < ps->n &&
           (long double)ps->v[k].y0 + tsync__piece_eval(&ps->v[k], ps->v[k].x_last) < (long double)y)
        k++;
    x = piece_inverse(&ps->v[k], y);
    b = tsync__fit_bound_at(fit, x, (long double)y);
    return moved(x, isfinite(b) ? 2 * (long double)b + 1 : 1, side);
}

/* Attempts at reaching a range of hi's clock with lo's function, each moving its
 * end twice as far as the one before, before the inverse's end is left unbounded. */
#define REACH_TRIES 16

/* The pair's function with hi's clock as x over [*from, *to] of it (*from > *to:
 * over the pair's samples, which it then sets): lo's function over the lo times
 * where hi's clock reads from and to, inverted (tsync__pwl_invert: a bound b of
 * hi's clock is one of b / (1 - max_drift) of lo's, the least rate a clock runs at
 * against another). Those lo times come from the pieces' lines, widened until lo's
 * function reaches from and to. */
static int hi_function(const struct tsync__run *r, const struct tsync__pair_fit *fit,
                       tsync_time *from, tsync_time *to, struct tsync__pwl *out)
{
    const struct tsync__pieces *ps = &fit->pieces;
    int whole = *from > *to, rc;
    tsync_time xa = whole ? ps->v[0].x_first : lo_time_near(fit, *from, -1);
    tsync_time xb = whole ? ps->v[ps->n - 1].x_last : lo_time_near(fit, *to, 1);
    struct tsync__pwl f;
    xb = xb > xa ? xb : xa;
    for (int k = 0;; k++) {
        if ((rc = lo_function(fit, xa, xb, &f)))
            return rc;
        if (whole) {
            *from = f.y[0];
            *to = f.y[f.n - 1];
        }
        if ((f.y[0] <= *from && f.y[f.n - 1] >= *to) || k == REACH_TRIES)
            break;
        /* lo's function runs at about hi's rate: the shortfall twice over, and
         * twice that at each attempt. */
        if (f.y[0] > *from)
            xa = moved(xa, ldexpl(2 * ((long double)f.y[0] - *from) + 1, k), -1);
        if (f.y[f.n - 1] < *to)
            xb = moved(xb, ldexpl(2 * ((long double)*to - f.y[f.n - 1]) + 1, k), 1);
        tsync__pwl_free(&f);
    }
    rc = tsync__pwl_invert(out, &f, *from, *to, 1 - (long double)r->params.max_drift);
    tsync__pwl_free(&f);
    return rc;
}

int tsync__est_pwl_held(const struct tsync__run *r, uint32_t d, uint32_t ei, tsync_time *from,
                        tsync_time *to, struct tsync__pwl *out)
{
    const struct tsync__edge *e = &r->g.e[ei];
    const struct tsync__pair_fit *fit = &tsync__pair_of(e)->fit;
    if (fit->pieces.n == 0)
        return 0;
    if (d != e->lo)
        return hi_function(r, fit, from, to, out);
    if (*from > *to) {
        *from = fit->pieces.v[0].x_first;
        *to = fit->pieces.v[fit->pieces.n - 1].x_last;
    }
    return lo_function(fit, *from, *to, out);
}

int tsync__est_up_pwl(void *ctx, uint32_t d, tsync_time *from, tsync_time *to,
                      struct tsync__pwl *out)
{
    struct tsync__run *r = ctx;
    uint32_t ei = r->parent_edge[d];
    if (tsync__parts_remote(r, ei))
        return tsync__parts_ask_pwl(r, d, ei, from, to, out);
    return tsync__est_pwl_held(r, d, ei, from, to, out);
}

int tsync__est_errors_held(const struct tsync__run *r, const tsync_time *lo, const tsync_time *hi,
                           double *w)
{
    for (size_t i = 0; i < r->g.n_edges; i++) {
        const struct tsync__edge *e = &r->g.e[i];
        if (tsync__parts_remote(r, i) || !tsync__pair_of(e)->sum.pieces)
            continue;
        if ((w[i] = tsync__est_pair_error_over(&tsync__pair_of(e)->fit, lo[e->lo], hi[e->lo])) < 0)
            return TSYNC_ENOMEM;
    }
    return 0;
}

int tsync__est_errors_over(struct tsync__run *r, const tsync_time *lo, const tsync_time *hi,
                           double *w)
{
    int rc = tsync__est_errors_held(r, lo, hi, w);
    if (rc == 0 && r->tr)
        rc = tsync__parts_ask_errors(r, lo, hi, w);
    return rc;
}

/* ---- anchors of the global least squares ------------------------------------------------ */

/* The piece of a fit that holds at x: the one covering it, else the nearest. */
static const struct tsync__piece *piece_at(const struct tsync__pair_fit *fit, tsync_time x)
{
    size_t k = 0;
    while (k + 1 < fit->pieces.n && fit->pieces.v[k].x_last < x &&
           fit->pieces.v[k + 1].x_first <= x)
        k++;
    if (k + 1 < fit->pieces.n && fit->pieces.v[k].x_last < x &&
        x - fit->pieces.v[k].x_last > fit->pieces.v[k + 1].x_first - x)
        k++;
    return &fit->pieces.v[k];
}

/* The anchor of a fit at x (lo's clock), where the pair's range there is finite:
 * far from the samples the drift's uncertainty widens it. */
static int anchor(struct tsync__anchors *an, const struct tsync__pair_fit *fit, tsync_time x)
{
    const struct tsync__piece *p = piece_at(fit, x);
    struct tsync__anchor a;
    long double lo, hi;
    p->range(p, x, &lo, &hi);
    if (!isfinite(lo) || !isfinite(hi))
        return 0;
    a.x = x;
    a.y = (long double)p->y0 + tsync__piece_eval(p, x);
    a.half = (hi - lo) / 2;
    return TSYNC_PUSH(an->v, an->n, an->cap, a) ? TSYNC_ENOMEM : 0;
}

/* The anchors of a bounded edge: at the ends of each piece, and at the ends of both
 * domains' events (in lo's clock), where the maps are used, but only where the
 * pair extrapolates to them: near the samples the ends add nothing. */
int tsync__est_anchors_held(const struct tsync__run *r, size_t ei, struct tsync__anchors *an)
{
    const struct tsync__edge *e = &r->g.e[ei];
    const struct tsync__pair_fit *fit = &tsync__pair_of(e)->fit;
    const struct tsync__pieces *ps = &fit->pieces;
    tsync_time first = ps->v[0].x_first, last = ps->v[ps->n - 1].x_last, ends[4], margin;
    int rc = 0, n = 0;
    for (size_t k = 0; k < ps->n && rc == 0; k++) {
        const struct tsync__piece *p = &ps->v[k];
        rc = anchor(an, fit, p->x_first);
        if (rc == 0 && p->x_last > p->x_first)
            rc = anchor(an, fit, p->x_last);
    }
    if (r->ev_first[e->lo] <= r->ev_last[e->lo]) {
        ends[n++] = r->ev_first[e->lo];
        ends[n++] = r->ev_last[e->lo];
    }
    if (r->ev_first[e->hi] <= r->ev_last[e->hi]) {
        ends[n++] = piece_inverse(&ps->v[0], r->ev_first[e->hi]);
        ends[n++] = piece_inverse(&ps->v[ps->n - 1], r->ev_last[e->hi]);
    }
    margin = (last - first) / 4 + 1;
    for (int k = 0; k < n && rc == 0; k++)
        if (ends[k] < first - margin || ends[k] > last + margin)
            rc = anchor(an, fit, ends[k]);
    return rc;
}

int tsync__est_anchored(const struct tsync__run *r, size_t ei)
{
    const struct tsync__edge *e = &r->g.e[ei];
    return e->kind == TSYNC_BOUND_BOUNDED && tsync__pair_of(e)->sum.pieces;
}

int tsync__est_anchors(struct tsync__run *r, struct tsync__anchors *an)
{
    for (size_t i = 0; i < r->g.n_edges; i++) {
        int rc;
        if (!tsync__parts_remote(r, i) && tsync__est_anchored(r, i) &&
            (rc = tsync__est_anchors_held(r, i, &an[i])))
            return rc;
    }
    return r->tr ? tsync__parts_ask_anchors(r, an) : 0;
}
