/* segment.c - segmentation: runs a pairwise estimator over a pair's samples,
 * starts a new piece where the linear model fails, and joins the pieces into one
 * continuous, monotone function with a bound at every point.
 *
 * Where to split. Clock drift changes with temperature (seed 004); over a long
 * enough interval no line fits the samples. The hull says so exactly: a sample
 * that no line through the others can pass (the hulls cross) ends the piece, and
 * the next piece starts with it. That is the data's own segmentation, never a
 * silent fallback. A piece is not ended by a sample less than min_segment after
 * its first one: such a sample is dropped and counted (faster than the minimum
 * latency, or a clock that jumped), and the caller warns. A sample later than that
 * starts a new piece even when the piece so far is a single point (a measured
 * offset at MPI_Init, 10 minutes before the next message): time enough has passed
 * for the drift to change. Nor does a piece span a gap without samples longer than
 * max_gap: over it the clocks' drift may change unseen, and a line that happens to
 * fit the samples on both sides says nothing about them in between. The regression splits where its
 * residuals say a line fails (regress.c).
 *
 * Joining. Each piece's estimate holds over its samples, [x_first, x_last]; across
 * the gap to the next piece a straight line joins the two estimates, so the map has
 * no jump; the first and last piece extend to the ends of the range asked for.
 * Where the drift changes, consecutive hull pieces bend into one smooth curve (see
 * struct bend): their lines alone are off by a h^2 / 4 in every piece. Inside a
 * band too wide for any sample to split a piece, the map follows the windowed
 * minimum delays of both directions instead (window.c, struct wspan). A
 * joint that would go backward (the next piece starting lower than the previous one
 * ends) is raised to keep the map monotone; its bound accounts for that.
 *
 * Bounds. The true value at a point lies in the range of the piece whose samples
 * are there (the sample that split belongs to the piece it starts); where two
 * pieces have samples at the same time, in that of one of them. The bound of a point is the
 * farthest the value there can be from the map under either. Every range is convex
 * (hull: the upper end convex, the lower concave; regression: a hyperbola), so the
 * bound between two points is at most the straight line between their bounds,
 * which is what maps.md's per-point bounds mean.
 *
 * Wander. A piece's range holds for a clock that is linear over the piece. Real
 * drift wanders (seed 004: temperature, 150 Hz per degree on 350 MHz, 0.4 ppm per
 * degree; the daily cycle, 0.7 ppm; 0.1 to 1 ppm over tens of minutes), so every
 * bound carries a margin for a drift that changes by at most w per unit of time
 * (max_wander): over a piece of length L such a clock stays within d = w L^2 / 16
 * of a line (the best line through a curve of curvature w), a line that passes the
 * samples moved by d, so within the range widened by 2 d in value and 2 d / L in
 * slope; at a distance t beyond the samples it leaves that line by its slope's
 * difference at the end, w L / 2, times t, plus w t^2 / 2. The margin is
 *
 *     w (L^2 / 8 + 5 L t / 8 + t^2 / 2),
 *
 * convex in t, so that the straight line between two points' bounds still covers
 * it. MPI_Init 10 minutes before the main phase is thus bounded by milliseconds,
 * not by the microseconds that the main phase's messages alone would suggest.
 * Across a gap between two pieces the map is drawn at BEND_STEPS points, each with
 * the larger bound of the two pieces, so that the bound grows into the gap.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimator.h"
#include "graph/graph.h"
#include "util/vec.h"

int tsync__pieces_push(struct tsync__pieces *l, struct tsync__piece *p)
{
    if (TSYNC_PUSH(l->v, l->n, l->cap, *p)) {
        free(p->data);
        return TSYNC_ENOMEM;
    }
    return 0;
}

void tsync__pieces_free(struct tsync__pieces *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].data);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

long double tsync__piece_eval(const struct tsync__piece *p, tsync_time x)
{
    return p->b + p->a * (long double)(x - p->x0);
}

long double tsync__piece_bound_at(const struct tsync__piece *p, tsync_time x, long double value)
{
    long double lo, hi;
    p->range(p, x, &lo, &hi);
    if (!isfinite(lo) || !isfinite(hi))
        return INFINITY;
    return hi - value > value - lo ? hi - value : value - lo;
}

/* ---- the driver ------------------------------------------------------------------- */

/* The three sorted sample lists, read in order of x. */
struct merge {
    const struct tsync__pair_samples *s;
    size_t ia, ib, ie;
};

/* The next sample in order of x; 0 when none is left. Which one-way constraint
 * comes next is chosen without a branch: a coin toss where both directions are
 * busy. */
static int next_sample(struct merge *m, struct tsync__sample *out)
{
    static const struct tsync__pt none = { INT64_MAX, 0 };
    const struct tsync__pair_samples *s = m->s;
    int has_a = m->ia < s->n_above, has_b = m->ib < s->n_below, below;
    const struct tsync__pt *pa = has_a ? &s->above[m->ia] : &none;
    const struct tsync__pt *pb = has_b ? &s->below[m->ib] : &none;
    tsync_time xa = pa->x, xb = pb->x, ya = pa->y, yb = pb->y;
    if (m->ie < s->n_exch && s->exch[m->ie].x <= xa && s->exch[m->ie].x <= xb) {
        *out = s->exch[m->ie++];
        return 1;
    }
    if (!has_a && !has_b)
        return 0;
    below = !has_a || (has_b && xb < xa);
    memset(out, 0, sizeof(*out));
    out->x = below ? xb : xa;
    out->y = below ? yb : ya;
    out->kind = (uint8_t)below;     /* TSYNC__ABOVE 0, TSYNC__BELOW 1 */
    m->ia += !below;
    m->ib += below;
    return 1;
}

/* The one-way constraints that come next and only add to what the estimator holds,
 * all at once (est->add_run), under the rules of the loop of tsync__fit_pair: a
 * piece goes on at least until a sample past max_gap or, once settled, past
 * max_segment, and an exchange sample comes first where it is due. */
static int add_run(struct merge *m, const struct tsync__estimator *est, void *state,
                   const struct tsync__est_params *params, tsync_time first, tsync_time *last)
{
    const struct tsync__pair_samples *s = m->s;
    struct tsync__run_limits lim;
    int rc;
    lim.before = m->ie < s->n_exch ? s->exch[m->ie].x : INT64_MAX;
    lim.first = first;
    lim.last = *last;
    lim.max_gap = params->segment ? params->max_gap : 0;
    lim.max_segment = params->segment && params->max_segment > 0 && est->settled(state)
                          ? params->max_segment : 0;
    rc = est->add_run(state, s, &m->ia, &m->ib, &lim);
    *last = lim.last;
    return rc;
}

/* Finishes the current piece into fit->pieces and frees the estimator. */
static int close_piece(struct tsync__pair_fit *fit, const struct tsync__estimator *est,
                       void **state)
{
    int rc = est->finish(*state, &fit->pieces);
    est->stats(*state, &fit->stats);
    est->fini(*state);
    *state = NULL;
    return rc;
}

static int join_pieces(struct tsync__pair_fit *fit);

int tsync__fit_pair(struct tsync__pair_fit *fit, const struct tsync__estimator *est,
                    const struct tsync__est_params *params, const struct tsync__pair_samples *s)
{
    struct merge m = { s, 0, 0, 0 };
    struct tsync__sample smp;
    void *state = NULL;
    tsync_time first = 0, last = 0;
    int rc, any = 0;

    memset(fit, 0, sizeof(*fit));
    fit->wander = params->wander;
    fit->max_drift = params->max_drift;
    if ((rc = est->init(&state, params)))
        return rc;
    for (;;) {
        if (any && est->add_run && (rc = add_run(&m, est, state, params, first, &last)))
            goto fail;
        if (!next_sample(&m, &smp))
            break;
        if (any && params->segment &&
            ((params->max_gap > 0 && smp.x - last > params->max_gap) ||
             (params->max_segment > 0 && smp.x - first > params->max_segment && est->settled(state)))) {
            /* Nothing seen for longer than max_gap, or a settled piece at its
             * longest: a new piece. */
            if ((rc = close_piece(fit, est, &state)) || (rc = est->init(&state, params)))
                goto fail;
            if (params->max_gap > 0 && smp.x - last > params->max_gap)
                fit->gaps++;
            any = 0;
        }
        rc = est->add_sample(state, &smp);
        if (rc == TSYNC__SPLIT) {
            if (!params->segment || smp.x - first < params->min_segment) {
                fit->rejected++;
                continue;
            }
            /* The hulls cross: this sample starts a new piece. */
            if ((rc = close_piece(fit, est, &state)) || (rc = est->init(&state, params)))
                goto fail;
            fit->splits++;
            any = 0;
            rc = est->add_sample(state, &smp);  /* a fresh piece takes any sample */
        }
        if (rc < 0)
            goto fail;
        if (!any)
            first = smp.x;
        last = smp.x;
        any = 1;
    }
    if ((rc = close_piece(fit, est, &state)))
        goto fail;
    /* A guaranteed estimator's pieces (the hull's) follow the windowed minima where the
     * clocks bend; a pair too sparse for windows follows its ClockOffset records where
     * they come every few tens of seconds, else its local minimax lines, whatever the
     * estimator: the regression's pieces of a few messages each were milliseconds off
     * at their ends (class n of bench_accuracy: 1.5 ms, 13 us so). */
    if (params->window > 0) {
        if ((rc = tsync__windows_build(&fit->windows, s, &fit->pieces, params,
                                       TSYNC__WINDOW_LEAST)))
            goto fail;
        if (fit->windows.n && !est->guaranteed) {
            tsync__windows_free(&fit->windows);     /* the regression keeps its lines */
        } else if (!fit->windows.n) {
            tsync__windows_free(&fit->windows);   /* windows left out may hold room */
            if ((rc = tsync__record_curve(&fit->windows, s, params->record_reach,
                                          params->min_segment)) ||
                (!fit->windows.n && (rc = tsync__local_lines(&fit->windows, s, params))))
                goto fail;
            if (!fit->windows.n && est->guaranteed &&
                (rc = tsync__windows_build(&fit->windows, s, &fit->pieces, params,
                                           TSYNC__WINDOW_FEWEST)))
                goto fail;
        }
    }
    /* The constraints bound every point directly where they bracket it; not where
     * some contradicted a piece (a latency or a clock the assumptions miss). */
    fit->guaranteed = est->guaranteed;
    if (!fit->rejected &&
        (rc = tsync__envelope_build(&fit->envelope, s, &fit->pieces, params->max_drift)))
        goto fail;
    if ((rc = join_pieces(fit)))
        goto fail;
    return 0;
fail:
    if (state)
        est->fini(state);
    tsync__pair_fit_free(fit);
    return rc;
}

void tsync__pair_fit_free(struct tsync__pair_fit *fit)
{
    tsync__pwl_free(&fit->joined);
    tsync__pieces_free(&fit->pieces);
    tsync__windows_free(&fit->windows);
    tsync__envelope_free(&fit->envelope);
}

/* ---- joining pieces ------------------------------------------------------------------- */

/* How far a clock whose drift changes by at most w per tick can be from piece p's
 * range at x (see the top). */
static long double wander_margin(const struct tsync__piece *p, tsync_time x, double w)
{
    long double len = (long double)(p->x_last - p->x_first);
    long double t = x < p->x_first ? (long double)(p->x_first - x)
                  : x > p->x_last ? (long double)(x - p->x_last) : 0;
    return (long double)w * (len * len / 8 + 5 * len * t / 8 + t * t / 2);
}

/* Half of piece p's range at x. */
static long double half_range(const struct tsync__piece *p, tsync_time x)
{
    long double lo, hi;
    p->range(p, x, &lo, &hi);
    return (hi - lo) / 2;
}

/* y (absolute ticks) held inside piece p's range at x widened by m. */
static long double held_in_range(const struct tsync__piece *p, tsync_time x, long double y,
                                 long double m)
{
    long double lo, hi;
    p->range(p, x, &lo, &hi);
    y -= (long double)p->y0;
    y = y < lo - m ? lo - m : y > hi + m ? hi + m : y;
    return y + (long double)p->y0;
}

/* The largest bound the pieces [k0, k1] allow for `value` (absolute ticks) at x. */
static double joint_bound(const struct tsync__pair_fit *fit, size_t k0, size_t k1, tsync_time x,
                          long double value)
{
    long double b = 0;
    for (size_t k = k0; k <= k1; k++) {
        const struct tsync__piece *p = &fit->pieces.v[k];
        long double bk = tsync__piece_bound_at(p, x, value - (long double)p->y0) +
                         wander_margin(p, x, fit->wander);
        if (bk > b)
            b = bk;
    }
    return (double)b;
}

/* The piece whose samples hold x, or the one nearest in time (pieces not empty),
 * looked for from piece k on: the answer for a time at or before x (it only moves
 * on with x), or 0. */
static size_t piece_holding_from(const struct tsync__pair_fit *fit, size_t k, tsync_time x)
{
    const struct tsync__piece *v = fit->pieces.v;
    while (k + 1 < fit->pieces.n && x > v[k].x_last &&
           (x >= v[k + 1].x_first || v[k + 1].x_first - x < x - v[k].x_last))
        k++;
    return k;
}

static size_t piece_holding(const struct tsync__pair_fit *fit, tsync_time x)
{
    return piece_holding_from(fit, 0, x);
}

double tsync__fit_bound_at(const struct tsync__pair_fit *fit, tsync_time x, long double value)
{
    if (!fit->pieces.n)
        return INFINITY;
    return joint_bound(fit, piece_holding(fit, x), piece_holding(fit, x), x, value);
}

/* ---- bounds of the maps --------------------------------------------------------------- */

/* A fit and the piece holding the middle of the last segment asked for (the
 * segments come in order of x). */
struct holding {
    const struct tsync__pair_fit *fit;
    size_t k;
};

/* Over f's segment k where a piece whose slope the data leave open holds (at
 * either end or in the middle), or where a one-sided piece left no bound: the range
 * of the nearest piece whose data fix theirs, extrapolated with the wander margin,
 * which holds there too (convex in x: its larger end covers the segment). */
static long double open_segment_bound(void *ctx, const struct tsync__pwl *f, size_t k)
{
    struct holding *at = ctx;
    const struct tsync__pair_fit *fit = at->fit;
    const struct tsync__piece *v = fit->pieces.v;
    tsync_time mid = f->x[k] + (f->x[k + 1] - f->x[k]) / 2;
    size_t h, j = SIZE_MAX;
    long double b = 0;
    if (!fit->pieces.n)
        return INFINITY;
    h = at->k = piece_holding_from(fit, at->k, mid);
    if (!v[h].open && isfinite(f->bound[k]) && isfinite(f->bound[k + 1]))
        return INFINITY;
    for (size_t i = 0; i < fit->pieces.n; i++)
        if (!v[i].open && v[i].kind == TSYNC_BOUND_BOUNDED &&
            (j == SIZE_MAX || llabs(i < h ? mid - v[i].x_last : v[i].x_first - mid) <
                                  llabs(j < h ? mid - v[j].x_last : v[j].x_first - mid)))
            j = i;
    if (j == SIZE_MAX)
        return INFINITY;
    for (int end = 0; end < 2; end++) {
        tsync_time x = f->x[k + end];
        long double bx = tsync__piece_bound_at(&v[j], x, (long double)(f->y[k + end] - v[j].y0)) +
                         wander_margin(&v[j], x, fit->wander);
        b = bx > b ? bx : b;
    }
    return b;
}

int tsync__pwl_open_bounds(const struct tsync__pair_fit *fit, struct tsync__pwl *f)
{
    struct holding at = { fit, 0 };
    return tsync__pwl_lower(f, open_segment_bound, &at);
}

/* A function being drawn from a fit. */
struct drawing {
    struct tsync__pwl *f;
    const struct tsync__pair_fit *fit;
    struct tsync__envelope_cursor at;   /* the points come in order of x */
};

/* Appends the point (x, value) with the bound of pieces [k0, k1], value held inside
 * the envelope of the constraints where they bracket x: the wander margin that lets
 * a curve leave a long piece's range by milliseconds does not let it pass a message
 * there (a sparse pair's local lines reversed half its messages before). */
static void add_point(struct drawing *d, size_t k0, size_t k1, tsync_time x, long double value)
{
    long double lo, hi;
    if (tsync__envelope_at(&d->fit->envelope, &d->at, x, d->fit->wander, &lo, &hi))
        value = value < lo ? ceill(lo) : value > hi ? floorl(hi) : value;
    if (tsync__pwl_push(d->f, x, (tsync_time)llroundl(value)))
        d->f->bound[d->f->n - 1] = joint_bound(d->fit, k0, k1, x, (long double)d->f->y[d->f->n - 1]);
}

/* ---- following the drift's change across pieces -------------------------------------- */

/* Sub-intervals a piece is drawn with when its clock bends: over 40 s of 1 ppm
 * thermal wander (period 20 min) a chord of 5 s is off by under 20 ns. */
#define BEND_STEPS 8

/* How a piece's estimate bends toward its neighbours'. Under a changing drift the
 * line of a piece is the best line through a curve (the hulls hold the curve in a
 * band), so its slope is the curve's at the piece's centre, but at the centre it
 * lies above a curve that bends up by a h^2 / 4 (a the curvature, h the half
 * length). The slope between two settled neighbours' centres is taken linear (the
 * curvature from their slopes); each piece becomes the integral of that slope,
 * placed where the line is the best line through it; between two centres the two
 * curves are blended linearly, so the function is continuous. At the ends of a run
 * of settled pieces the slope goes on changing as it did, for as far as it was
 * measured (the distance between the last two centres), then stays: that is what
 * carries a map from the main phase back to the MPI_Init events before a sleep. A
 * piece whose slope the data do not fix to BEND_SLOPE (a few samples
 * after a split, at the end of a phase) does not bend its neighbours; it takes
 * their curve instead of its own loose line where that curve lies inside its
 * range at every drawn point (a line whose slope is open by ppm is microseconds
 * off after a second), and keeps its line where the curve does not, unless the
 * data leave its slope open altogether (a message each way minutes apart: its line
 * is flat whatever the clocks do): then it takes the curve held inside its range. */
struct bend {
    long double c;            /* centre of the piece's samples */
    long double at_c;         /* value of the curve at c, absolute ticks */
    long double m_l, m_r;     /* curvature left and right of c (0: straight) */
    long double lim_l, lim_r; /* how far from c it holds on each side */
    int link_l, link_r;       /* blended with the neighbour on that side */
    int settled;              /* the piece's own samples fix its slope */
    int borrow;               /* loose: takes its settled neighbours' curve (1), held
                               * inside its range when its own slope is open (2) */
    tsync_time narrow_x;      /* a loose piece's drawn point of narrowest range, */
    long double narrow_y;     /* ... the middle of its range there (absolute ticks) */
    long double narrow_r;     /* ... and half of it */
};

/* A piece's slope counts as fixed when its extreme lines differ by at most this:
 * the curvature between two centres 30 s apart is then good to 2e-8 per second
 * at worst, and far better in the middle of the range, where the estimate lies.
 * Tighter (0.1 ppm, where a piece may end at max_segment) leaves out the long
 * pieces that grew past max_segment under a bending clock, which need it most. */
#define BEND_SLOPE 5e-7L

static int piece_settled(const struct tsync__piece *p)
{
    long double a_lo, b_lo, a_hi, b_hi;
    return p->x_last > p->x_first && tsync__hull_lines(p, &a_lo, &b_lo, &a_hi, &b_hi) == 0 &&
           a_hi - a_lo <= BEND_SLOPE;
}

/* The curve of the slope a + m u, u from 0 to d, with u held at +-lim beyond. */
static long double bent(long double a, long double m, long double lim, long double d)
{
    long double u = d > lim ? lim : d < -lim ? -lim : d;
    return a * d + m * (u * d - u * u / 2);
}

/* Piece k's curve at x. */
static long double bend_curve(const struct bend *bd, const struct tsync__piece *v, size_t k,
                              long double x)
{
    long double d = x - bd[k].c;
    return bd[k].at_c + (d > 0 ? bent(v[k].a, bd[k].m_r, bd[k].lim_r, d)
                               : bent(v[k].a, bd[k].m_l, bd[k].lim_l, d));
}

static void bends_init(struct bend *bd, const struct tsync__piece *v, size_t np)
{
    memset(bd, 0, np * sizeof(*bd));
    for (size_t k = 0; k < np; k++) {
        bd[k].c = ((long double)v[k].x_first + (long double)v[k].x_last) / 2;
        bd[k].settled = piece_settled(&v[k]);
        bd[k].narrow_r = INFINITY;     /* none drawn yet (borrows_init) */
    }
    for (size_t k = 0; k + 1 < np; k++)
        if (bd[k].settled && bd[k + 1].settled) {
            bd[k].m_r = bd[k + 1].m_l = (v[k + 1].a - v[k].a) / (bd[k + 1].c - bd[k].c);
            bd[k].lim_r = bd[k + 1].lim_l = bd[k + 1].c - bd[k].c;
            bd[k].link_r = bd[k + 1].link_l = 1;
        }
    for (size_t k = 0; k < np; k++) {
        struct bend *b = &bd[k];
        long double h_l = b->c - (long double)v[k].x_first;
        long double h_r = (long double)v[k].x_last - b->c;
        long double e_l, e_r;
        if (b->link_r && !b->link_l) {
            b->m_l = b->m_r;
            b->lim_l = b->lim_r;
        } else if (b->link_l && !b->link_r) {
            b->m_r = b->m_l;
            b->lim_r = b->lim_l;
        }
        /* The curve minus the line over [c - h_l, c + h_r] is 0 at c and largest at
         * the ends; the line is the best line through the curve when that
         * difference's extremes are opposite. */
        b->at_c = 0;
        e_l = bend_curve(bd, v, k, b->c - h_l) + v[k].a * h_l;
        e_r = bend_curve(bd, v, k, b->c + h_r) - v[k].a * h_r;
        b->at_c = (long double)v[k].y0 + v[k].b + v[k].a * (b->c - (long double)v[k].x0) -
                  (fmaxl(0, fmaxl(e_l, e_r)) + fminl(0, fminl(e_l, e_r))) / 2;
    }
}

/* The joined estimate at x, inside or next to piece k. */
static long double bend_eval(const struct bend *bd, const struct tsync__piece *v, size_t np,
                             size_t k, long double x)
{
    size_t j;
    long double w;
    if (x >= bd[k].c && k + 1 < np && bd[k].link_r)
        j = k;
    else if (x < bd[k].c && k > 0 && bd[k].link_l)
        j = k - 1;
    else
        return bend_curve(bd, v, k, x);
    w = (x - bd[j].c) / (bd[j + 1].c - bd[j].c);
    return (1 - w) * bend_curve(bd, v, j, x) + w * bend_curve(bd, v, j + 1, x);
}

/* The mean of a and b weighted by 1/ua^2 and 1/ub^2 (how far each can be off, both
 * positive and finite), written so that neither overflows. */
static long double weighed(long double a, long double ua, long double b, long double ub)
{
    long double w = ub * ub / (ua * ua + ub * ub);
    return w * a + (1 - w) * b;
}

/* Half the spread of the slopes a piece's data leave open (0 where the estimator
 * draws no extreme lines). */
static long double slope_spread(const struct tsync__piece *p)
{
    long double a_lo, b_lo, a_hi, b_hi;
    return tsync__hull_lines(p, &a_lo, &b_lo, &a_hi, &b_hi) == 0 ? (a_hi - a_lo) / 2 : 0;
}

/* The line at x from the end of loose piece k's settled neighbour `near` (the
 * value of its curve there) to k's narrowest drawn point (the middle of its range),
 * *c, and how far it can be off, *uc: the two points' half ranges carried along the
 * line, and the bend a drift changing by `wander` gives it between them. Where the
 * ClockOffset records of sessions every 30 s fall one into each of two pieces, the
 * neighbour's curve carried on with its end slope (its mean over minutes) left the
 * clock by 5 us between them, where the records' chord stays within a microsecond.
 * 0 where the points coincide. */
static int chord(const struct bend *bd, const struct tsync__piece *v, size_t k, size_t near,
                 long double x, double wander, long double *c, long double *uc)
{
    tsync_time xa = near < k ? v[near].x_last : v[near].x_first, xb = bd[k].narrow_x;
    long double ya = bend_curve(bd, v, near, (long double)xa), ra = half_range(&v[near], xa);
    long double s;
    if (xb == xa || !isfinite(bd[k].narrow_r) || !isfinite(ra))
        return 0;
    s = (x - (long double)xa) / ((long double)xb - (long double)xa);
    *c = ya + (bd[k].narrow_y - ya) * s;
    *uc = fabsl(1 - s) * ra + fabsl(s) * bd[k].narrow_r +
          (long double)wander / 2 * fabsl(x - (long double)xa) * fabsl(x - (long double)xb);
    return 1;
}

/* A loose piece's value at x from its settled neighbours' curves, blended between
 * their centres when it has two, and with its own line by how far each can be off:
 * the curve by as much as a drift changing by `wander` per tick takes the clock away
 * from the nearest neighbour's range over the distance t to its samples (the
 * wander margin of the bounds: a line through a long piece has its mean slope, not
 * the clock's at its end), and as the slope that neighbour leaves open carries it
 * (half its spread times t), the line by half the piece's range at x. Next to its
 * neighbours a loose piece takes their curve; minutes away, where its own samples
 * are ClockOffset records measured at MPI_Finalize after a sleep, it takes its own
 * line through them. The curve is first weighed with the chord from the
 * neighbour's end to the piece's narrowest point (chord), which holds the map to a
 * ClockOffset record the piece holds as the neighbour's own samples hold its end. */
static long double borrowed(const struct bend *bd, const struct tsync__piece *v, size_t np,
                            size_t k, long double x, double wander)
{
    int l = k > 0 && bd[k - 1].settled, r = k + 1 < np && bd[k + 1].settled;
    long double w, curve, t, m, u, c, uc;
    size_t near;
    if (!l || !r) {
        near = l ? k - 1 : k + 1;
        curve = bend_curve(bd, v, near, x);
        t = l ? x - (long double)v[k - 1].x_last : (long double)v[k + 1].x_first - x;
    } else {
        long double to_l = x - (long double)v[k - 1].x_last;
        long double to_r = (long double)v[k + 1].x_first - x;
        w = (x - bd[k - 1].c) / (bd[k + 1].c - bd[k - 1].c);
        curve = (1 - w) * bend_curve(bd, v, k - 1, x) + w * bend_curve(bd, v, k + 1, x);
        near = to_l <= to_r ? k - 1 : k + 1;
        t = to_l <= to_r ? to_l : to_r;
    }
    m = wander_margin(&v[near], (tsync_time)llroundl(x), wander) + slope_spread(&v[near]) * t;
    u = half_range(&v[k], (tsync_time)llroundl(x));
    if (!(m > 0))
        return curve;
    if (chord(bd, v, k, near, x, wander, &c, &uc) && uc > 0) {
        curve = weighed(curve, m, c, uc);
        m = m * uc / sqrtl(m * m + uc * uc);   /* the two weighed: 1/m^2 + 1/uc^2 */
    }
    if (!(u > 0) || !isfinite(u))
        return curve;
    return weighed(curve, m, bend_curve(bd, v, k, x), u);
}

/* The x of piece k's i-th drawn point of `steps`. */
/* i n-ths of d, rounded toward zero as d * i / n is, without its overflow: a piece
 * or a gap between two may span up to 2^63 ticks (times within +-2^62). */
static tsync_time part_of(tsync_time d, int i, int n)
{
    return d / n * i + d % n * i / n;
}

static tsync_time step_x(const struct tsync__piece *p, int i, int steps)
{
    return p->x_first + part_of(p->x_last - p->x_first, i, steps);
}

/* Marks the loose pieces whose settled neighbours' curve lies in their range. */
static void borrows_init(struct bend *bd, const struct tsync__piece *v, size_t np, double wander)
{
    for (size_t k = 0; k < np; k++) {
        if (bd[k].settled || !((k > 0 && bd[k - 1].settled) || (k + 1 < np && bd[k + 1].settled)))
            continue;
        bd[k].borrow = 1;
        for (int i = 0; i <= BEND_STEPS; i++) {
            tsync_time x = step_x(&v[k], i, BEND_STEPS);
            long double lo, hi;
            v[k].range(&v[k], x, &lo, &hi);
            if ((hi - lo) / 2 < bd[k].narrow_r) {
                bd[k].narrow_x = x;
                bd[k].narrow_y = (long double)v[k].y0 + (lo + hi) / 2;
                bd[k].narrow_r = (hi - lo) / 2;
            }
        }
        for (int i = 0; i <= BEND_STEPS && bd[k].borrow == 1; i++) {
            tsync_time x = step_x(&v[k], i, BEND_STEPS);
            long double y = borrowed(bd, v, np, k, (long double)x, wander) - (long double)v[k].y0,
                        lo, hi;
            v[k].range(&v[k], x, &lo, &hi);
            bd[k].borrow = y >= lo && y <= hi ? 1 : v[k].open ? 2 : 0;
        }
    }
}

/* ---- following the windowed minima inside a piece ---------------------------------- */

/* Pieces follow the windows when the windows span at least this many times their
 * longest width: a line through a clock whose drift changes by 0.01 ppm/s is off by
 * w L^2 / 16, 25 ns over 20 s, less than the noise of the windows' minima, and more
 * over a minute (2.5 us over 70 s). */
#define WINDOWED_SPAN 4

/* The windows (window.c) whose centres lie among a hull piece's samples, when the
 * windows span long enough for the clocks to bend. */
struct wspan {
    size_t first, n;
};

static void wspans_init(struct wspan *ws, const struct tsync__pair_fit *fit)
{
    const struct tsync__windows *w = &fit->windows;
    const struct tsync__piece *v = fit->pieces.v;
    long double a_lo, b_lo, a_hi, b_hi;
    size_t i = 0, j;
    int bends = w->n && w->v[w->n - 1].x - w->v[0].x >= WINDOWED_SPAN * w->max_width;
    for (size_t k = 0; k < fit->pieces.n; k++) {
        while (i < w->n && w->v[i].x < v[k].x_first)
            i++;
        for (j = i; j < w->n && w->v[j].x <= v[k].x_last; j++)
            ;
        ws[k].first = i;
        ws[k].n = bends && j - i >= 1 && v[k].kind == TSYNC_BOUND_BOUNDED &&
                          tsync__hull_lines(&v[k], &a_lo, &b_lo, &a_hi, &b_hi) == 0
                      ? j - i
                      : 0;
        i = j;
    }
}

long double tsync__curve_at(const struct tsync__window *w, size_t n, tsync_time x)
{
    size_t lo, hi, step = 1;
    if (x <= w[0].x || x >= w[n - 1].x) {
        const struct tsync__window *e = x <= w[0].x ? &w[0] : &w[n - 1];
        return e->y + e->a * (long double)(x - e->x);
    }
    /* The windows that bracket x searched from where x would lie if they were
     * evenly spread, as they nearly are, by steps doubling away from there: a
     * bisection from the middle missed the cache at most of its 18 steps in the
     * 17 MB of windows of 10^7 messages. */
    lo = (size_t)((double)(x - w[0].x) / (double)(w[n - 1].x - w[0].x) * (double)(n - 1));
    if (w[lo].x <= x) {
        for (; lo + step < n - 1 && w[lo + step].x <= x; step *= 2)
            lo += step;
        hi = lo + step < n - 1 ? lo + step : n - 1;
    } else {
        for (hi = lo; step < hi && w[hi - step].x > x; step *= 2)
            hi -= step;
        lo = step < hi ? hi - step : 0;
    }
    while (lo + 1 < hi) {           /* w[lo].x <= x < w[hi].x */
        size_t mid = lo + (hi - lo) / 2;
        if (w[mid].x <= x)
            lo = mid;
        else
            hi = mid;
    }
    return w[lo].y + (w[hi].y - w[lo].y) * (long double)(x - w[lo].x) /
                         (long double)(w[hi].x - w[lo].x);
}

/* A curve's value y at x held inside the range of piece p widened by the wander
 * margin: the band the bound promises, which a bending clock may fill (the range
 * of lines alone is narrower than the hulls' band around a curve). */
static long double held_curve(const struct tsync__pair_fit *fit, const struct tsync__piece *p,
                              tsync_time x, long double y)
{
    return held_in_range(p, x, y, wander_margin(p, x, fit->wander));
}

/* The windows' curve at x inside piece k's windows, held inside its range. */
static long double window_value(const struct tsync__pair_fit *fit, const struct wspan *ws,
                                size_t k, tsync_time x)
{
    return held_curve(fit, &fit->pieces.v[k], x,
                      tsync__curve_at(fit->windows.v + ws[k].first, ws[k].n, x));
}

/* What the joined estimate reads from. */
struct join {
    const struct tsync__pair_fit *fit;
    struct bend *bd;
    struct wspan *ws;
};

/* The bent pieces' estimate at x, inside or next to piece k. */
static long double bent_value(const struct join *j, size_t k, long double x)
{
    const struct tsync__piece *v = j->fit->pieces.v;
    size_t np = j->fit->pieces.n;
    long double y;
    if (!j->bd[k].borrow)
        return bend_eval(j->bd, v, np, k, x);
    y = borrowed(j->bd, v, np, k, x, j->fit->wander);
    return j->bd[k].borrow == 2 ? held_in_range(&v[k], (tsync_time)llroundl(x), y, 0) : y;
}

/* Where piece k and the next both follow windows, the two windows the curve
 * bridges their boundary with: k's last (*l) and the next's first (*r). 1, or 0
 * where there are none. */
static int bridge(const struct join *j, size_t k, const struct tsync__window **l,
                  const struct tsync__window **r)
{
    const struct wspan *ws = j->ws;
    if (k + 1 >= j->fit->pieces.n || !ws[k].n || !ws[k + 1].n ||
        ws[k + 1].first != ws[k].first + ws[k].n)
        return 0;
    *l = &j->fit->windows.v[ws[k].first + ws[k].n - 1];
    *r = *l + 1;
    return 1;
}

/* The last window of the piece before k (*l) and the first of the piece after (*r)
 * where those pieces' curves follow windows (NULL where not), for a loose piece k:
 * 1 where it has either. */
static int window_neighbours(const struct join *j, size_t k, const struct tsync__window **l,
                             const struct tsync__window **r)
{
    const struct wspan *ws = j->ws;
    if (j->bd[k].settled)
        return 0;
    *l = k > 0 && ws[k - 1].n ? &j->fit->windows.v[ws[k - 1].first + ws[k - 1].n - 1] : NULL;
    *r = k + 1 < j->fit->pieces.n && ws[k + 1].n ? &j->fit->windows.v[ws[k + 1].first] : NULL;
    return *l || *r;
}

/* A piece without windows: its bent line, or for a loose piece next to pieces
 * whose curves follow windows, their curve carried on (along the end window's
 * slope, bridged where both sides have one), held inside the piece's range widened
 * by the wander margin, and weighed against the bent line by how far each can be
 * off: the carried curve by the windows' scatter plus w t^2 / 2 at t from the
 * window (a drift changing by w per tick leaves its tangent by that), the bent
 * line by half the piece's range. The bent line is the long piece's mean slope
 * bent by its neighbours, a ppm off at its end where the clock bends: a piece of
 * four messages a split left behind a main phase ran 2 us off within 0.4 s (class
 * c of bench_accuracy, seed 3). */
static long double loose_value(const struct join *j, size_t k, long double x)
{
    const struct tsync__piece *p = &j->fit->pieces.v[k];
    const struct tsync__window *l, *r, *e;
    long double y, t, m, u;
    if (!window_neighbours(j, k, &l, &r))
        return bent_value(j, k, x);
    if (l && r) {
        y = tsync__window_bridge(l, r, x);
        t = fminl(x - (long double)l->x, (long double)r->x - x);
    } else {
        e = l ? l : r;
        y = e->y + e->a * (x - (long double)e->x);
        t = fabsl(x - (long double)e->x);
    }
    y = held_curve(j->fit, p, (tsync_time)llroundl(x), y);
    m = j->fit->windows.scatter + (long double)j->fit->wander * t * t / 2;
    u = half_range(p, (tsync_time)llroundl(x));
    if (!(m > 0) || !(u > 0) || !isfinite(u))
        return y;
    return weighed(y, m, bent_value(j, k, x), u);
}

/* The joined estimate at x, inside or next to piece k: among a piece's samples the
 * windows' curve where it has windows (bridged to a neighbour's beyond its first and
 * last), else the bent pieces (or the windows' curve carried on: loose_value);
 * beyond them the bent pieces, moved to meet the windows' curve at the piece's end. */
static long double piece_value(const struct join *j, size_t k, long double x)
{
    const struct tsync__piece *p = &j->fit->pieces.v[k];
    const struct tsync__window *l, *r;
    tsync_time edge;
    if (!j->ws[k].n)
        return loose_value(j, k, x);
    if (x >= (long double)p->x_first && x <= (long double)p->x_last) {
        if ((bridge(j, k, &l, &r) && x > (long double)l->x) ||
            (k && bridge(j, k - 1, &l, &r) && x < (long double)r->x))
            return held_curve(j->fit, p, (tsync_time)llroundl(x), tsync__window_bridge(l, r, x));
        return window_value(j->fit, j->ws, k, (tsync_time)llroundl(x));
    }
    edge = x < (long double)p->x_first ? p->x_first : p->x_last;
    return bent_value(j, k, x) + window_value(j->fit, j->ws, k, edge) -
           bent_value(j, k, (long double)edge);
}

/* The joined estimate at x in the gap without samples after piece k, where no curve
 * links it to the next: each side's estimate carried on to x, weighed by how far it
 * can be off there (half its range and the wander margin; weights 1/u^2). A piece
 * the data leave loose (a few messages one way before a sleep: a range of
 * milliseconds) gives way to a ClockOffset record on the other side; the straight
 * line between the two ends carried its error across the gap (72 ms off 10 s on,
 * still 5.7 us 0.8 ms before the record). */
static long double gap_value(const struct join *j, size_t k, tsync_time x)
{
    long double y[2], u[2];
    for (int s = 0; s < 2; s++) {
        const struct tsync__piece *p = &j->fit->pieces.v[k + s];
        y[s] = piece_value(j, k + s, (long double)x);
        u[s] = half_range(p, x) + wander_margin(p, x, j->fit->wander);
    }
    if (!(u[0] < INFINITY) || !(u[1] < INFINITY))
        return u[0] < INFINITY ? y[0] : u[1] < INFINITY ? y[1] : (y[0] + y[1]) / 2;
    if (!(u[0] > 0) || !(u[1] > 0))
        return u[0] > 0 ? y[1] : y[0];
    return weighed(y[0], u[0], y[1], u[1]);
}

/* Adds the points of the bridge from window l to r strictly between x0 and x1, on
 * piece k. */
static void add_bridge(struct drawing *d, const struct join *j, size_t k,
                       const struct tsync__window *l, const struct tsync__window *r,
                       tsync_time x0, tsync_time x1)
{
    for (int i = 1; i < BEND_STEPS; i++) {
        tsync_time x = l->x + part_of(r->x - l->x, i, BEND_STEPS);
        if (x > x0 && x < x1)
            add_point(d, k, k, x, piece_value(j, k, (long double)x));
    }
}

static int time_cmp(const void *a, const void *b)
{
    tsync_time x = *(const tsync_time *)a, y = *(const tsync_time *)b;
    return x < y ? -1 : x > y;
}

/* A sparse pair's local lines (local_lines.c) joined over the whole pair, from
 * min(from, first sample) to max(to, last sample): the curve at its own points, the
 * pieces' ends and BEND_STEPS points across each gap between pieces, held inside
 * the range of the piece nearest in time; the bound of a point among a piece's
 * samples is that piece's, in a gap the larger of its two neighbours'. */
static int join_local(struct tsync__pwl *out, const struct tsync__pair_fit *fit, tsync_time from,
                      tsync_time to)
{
    const struct tsync__window *w = fit->windows.v;
    const struct tsync__piece *v = fit->pieces.v;
    size_t nw = fit->windows.n, np = fit->pieces.n, nx = 0, k = 0;
    tsync_time *xs = malloc((nw + (BEND_STEPS + 1) * np + 2) * sizeof(*xs));
    struct drawing d = { out, fit, { 0, 0 } };
    if (!xs || tsync__pwl_alloc(out, nw + (BEND_STEPS + 1) * np + 2)) {
        free(xs);
        return TSYNC_ENOMEM;
    }
    for (size_t i = 0; i < nw; i++)
        xs[nx++] = w[i].x;
    for (size_t j = 0; j < np; j++) {
        xs[nx++] = v[j].x_first;
        for (int i = 1; j + 1 < np && i < BEND_STEPS; i++)
            xs[nx++] = v[j].x_last + part_of(v[j + 1].x_first - v[j].x_last, i, BEND_STEPS);
        xs[nx++] = v[j].x_last;
    }
    xs[nx++] = from < v[0].x_first ? from : v[0].x_first;
    xs[nx++] = to > v[np - 1].x_last ? to : v[np - 1].x_last;
    qsort(xs, nx, sizeof(*xs), time_cmp);
    for (size_t i = 0; i < nx; i++) {
        tsync_time x = xs[i];
        size_t k1;
        while (k + 1 < np && v[k + 1].x_first <= x)
            k++;
        /* Among piece k's samples (or before the first), else in the gap after it. */
        k1 = x > v[k].x_last && k + 1 < np ? k + 1 : k;
        add_point(&d, k, k1, x,
                  held_curve(fit, &v[piece_holding(fit, x)], x, tsync__curve_at(w, nw, x)));
    }
    free(xs);
    return 0;
}

/* How fit's pieces bend and follow their windows (bends_init, borrows_init,
 * wspans_init). 0 or TSYNC_ENOMEM. */
static int join_init(struct join *j, const struct tsync__pair_fit *fit)
{
    const struct tsync__piece *v = fit->pieces.v;
    size_t np = fit->pieces.n;
    j->fit = fit;
    j->bd = malloc(np * sizeof(*j->bd));
    j->ws = malloc(np * sizeof(*j->ws));
    if (!j->bd || !j->ws) {
        free(j->bd);
        free(j->ws);
        return TSYNC_ENOMEM;
    }
    bends_init(j->bd, v, np);
    borrows_init(j->bd, v, np, fit->wander);
    wspans_init(j->ws, fit);
    return 0;
}

static void join_free(struct join *j)
{
    free(j->bd);
    free(j->ws);
}

/* Every piece joined, from min(from, first sample) to max(to, last sample). */
static int join_all(struct tsync__pwl *out, const struct tsync__pair_fit *fit, tsync_time from,
                    tsync_time to)
{
    const struct tsync__piece *v = fit->pieces.v;
    size_t np = fit->pieces.n;
    struct join j;
    struct drawing d = { out, fit, { 0, 0 } };
    const struct bend *bd;
    const struct wspan *ws;
    if (join_init(&j, fit))
        return TSYNC_ENOMEM;
    if (tsync__pwl_alloc(out, 2 * BEND_STEPS * np + 2 * np + fit->windows.n + 2)) {
        join_free(&j);
        return TSYNC_ENOMEM;
    }
    bd = j.bd;
    ws = j.ws;
    if (from < v[0].x_first)
        add_point(&d, 0, 0, from, piece_value(&j, 0, (long double)from));
    for (size_t k = 0; k < np; k++) {
        /* At its samples a piece holds; where two pieces meet at one time, either. */
        int prev = k && v[k - 1].x_last == v[k].x_first;
        int next = k + 1 < np && v[k + 1].x_first == v[k].x_last;
        const struct tsync__window *wl, *wr;
        int steps = bd[k].link_l || bd[k].link_r || bd[k].borrow ||
                            (!ws[k].n && window_neighbours(&j, k, &wl, &wr)) ? BEND_STEPS : 1;
        if (ws[k].n) {
            /* The piece's ends, its windows' centres and the bridges to its
             * neighbours' windows. */
            const struct tsync__window *l, *r, *w = fit->windows.v + ws[k].first;
            add_point(&d, prev ? k - 1 : k, k, v[k].x_first,
                      piece_value(&j, k, (long double)v[k].x_first));
            if (k && bridge(&j, k - 1, &l, &r))
                add_bridge(&d, &j, k, l, r, v[k].x_first, w[0].x);
            for (size_t i = 0; i < ws[k].n; i++)
                add_point(&d, k, k, w[i].x, piece_value(&j, k, (long double)w[i].x));
            if (bridge(&j, k, &l, &r))
                add_bridge(&d, &j, k, l, r, w[ws[k].n - 1].x, v[k].x_last);
            add_point(&d, k, next ? k + 1 : k, v[k].x_last,
                      piece_value(&j, k, (long double)v[k].x_last));
        } else {
            for (int i = 0; i <= steps; i++) {
                tsync_time x = step_x(&v[k], i, steps);
                add_point(&d, i == 0 && prev ? k - 1 : k, i == steps && next ? k + 1 : k,
                          x, piece_value(&j, k, (long double)x));
            }
        }
        /* Across a gap without samples, to a settled neighbour the blended curve,
         * else the straight line between the two pieces' ends; its bound is that of
         * either piece, grown with the distance. */
        for (int i = 1; k + 1 < np && i < BEND_STEPS; i++) {
            tsync_time x = v[k].x_last + part_of(v[k + 1].x_first - v[k].x_last, i, BEND_STEPS);
            const struct tsync__window *l, *r;
            long double y;
            if (bd[k].link_r && !ws[k].n && !ws[k + 1].n) {
                y = piece_value(&j, k, (long double)x);
            } else if (bridge(&j, k, &l, &r)) {
                size_t near = x - v[k].x_last <= v[k + 1].x_first - x ? k : k + 1;
                y = held_curve(fit, &v[near], x, tsync__window_bridge(l, r, (long double)x));
            } else {
                y = gap_value(&j, k, x);
            }
            add_point(&d, k, k + 1, x, y);
        }
    }
    if (to > v[np - 1].x_last)
        add_point(&d, np - 1, np - 1, to, piece_value(&j, np - 1, (long double)to));
    join_free(&j);
    return 0;
}

/* The pieces joined from min(from, first sample) to max(to, last sample). */
static int join(struct tsync__pwl *out, const struct tsync__pair_fit *fit, tsync_time from,
                tsync_time to)
{
    return fit->windows.local ? join_local(out, fit, from, to) : join_all(out, fit, from, to);
}

static int join_pieces(struct tsync__pair_fit *fit)
{
    const struct tsync__pieces *ps = &fit->pieces;
    memset(&fit->joined, 0, sizeof(fit->joined));
    return ps->n ? join(&fit->joined, fit, ps->v[0].x_first, ps->v[ps->n - 1].x_last) : 0;
}

/* The joined estimate at x beyond the samples (before the first piece k = 0, after
 * the last k = np - 1), as join draws it there. An end piece that takes no
 * neighbour's curve goes on along the line to the next piece, as the joined map runs
 * between them (Score-P extrapolates its records so), where that line's slope is
 * better fixed than the piece's own: the ClockOffset records of one session 0.2 ms
 * long leave its slope open by thousands of ppm, and with sessions every 30 s but
 * none at MPI_Init, MPI_Init was 365 us off along the piece's own line (the middle
 * of the drifts max_drift allows), 2 us off along the records' line. */
static long double end_value(const struct join *j, size_t k, tsync_time x)
{
    const struct tsync__pair_fit *fit = j->fit;
    const struct tsync__piece *v = fit->pieces.v;
    size_t np = fit->pieces.n, n = k ? k - 1 : 1;
    if (fit->windows.local)
        return held_curve(fit, &fit->pieces.v[piece_holding(fit, x)], x,
                          tsync__curve_at(fit->windows.v, fit->windows.n, x));
    if (np > 1 && !j->bd[k].settled && !j->bd[k].borrow) {
        tsync_time at = k ? v[k].x_last : v[k].x_first, to = k ? v[n].x_last : v[n].x_first;
        long double apart = fabsl((long double)to - (long double)at);
        if (apart > 0 && (half_range(&v[k], at) + half_range(&v[n], to)) / apart <
                             slope_spread(&v[k])) {
            long double y = piece_value(j, k, (long double)at);
            return y + (piece_value(j, n, (long double)to) - y) / ((long double)to - at) *
                           ((long double)x - at);
        }
    }
    return piece_value(j, k, (long double)x);
}

/* join's function over [from, to], from the pieces' joined function (fit->joined)
 * and a point at each end beyond the samples; drawn whole where the point before
 * the samples lies above them (it would raise their values). 0 or TSYNC_ENOMEM. */
static int extend(struct tsync__pwl *all, const struct tsync__pair_fit *fit, tsync_time from,
                  tsync_time to)
{
    const struct tsync__pwl *core = &fit->joined;
    const struct tsync__piece *v = fit->pieces.v;
    size_t np = fit->pieces.n;
    int before = from < v[0].x_first, after = to > v[np - 1].x_last;
    struct join j;
    struct drawing d = { all, fit, { 0, 0 } };
    if ((before || after) && join_init(&j, fit))
        return TSYNC_ENOMEM;
    if (tsync__pwl_alloc(all, core->n + 2)) {
        if (before || after)
            join_free(&j);
        return TSYNC_ENOMEM;
    }
    if (before)
        add_point(&d, 0, 0, from, end_value(&j, 0, from));
    if (before && core->n && all->y[0] > core->y[0]) {
        join_free(&j);
        tsync__pwl_free(all);
        return join(all, fit, from, to);
    }
    for (size_t i = 0; i < core->n; i++)
        if (tsync__pwl_push(all, core->x[i], core->y[i]))
            all->bound[all->n - 1] = core->bound[i];
    if (after)
        add_point(&d, np - 1, np - 1, to, end_value(&j, np - 1, to));
    if (before || after)
        join_free(&j);
    return 0;
}

/* Appends the point of `all` at x, with the bound of the piece holding there. */
static void add_end(struct tsync__pwl *out, const struct tsync__pwl *all,
                    const struct tsync__pair_fit *fit, tsync_time x)
{
    long double y = tsync__pwl_eval(all, (long double)x);
    if (tsync__pwl_push(out, x, (tsync_time)llroundl(y)))
        out->bound[out->n - 1] = tsync__fit_bound_at(fit, x, (long double)out->y[out->n - 1]);
}

int tsync__pwl_from_fit(struct tsync__pwl *out, const struct tsync__pair_fit *fit, tsync_time from,
                        tsync_time to)
{
    struct tsync__pwl all;
    memset(out, 0, sizeof(*out));
    if (fit->pieces.n == 0)
        return 0;
    if (extend(&all, fit, from, to))
        return TSYNC_ENOMEM;
    if (tsync__pwl_alloc(out, all.n + 2)) {
        tsync__pwl_free(&all);
        return TSYNC_ENOMEM;
    }
    /* Only [from, to]: pieces elsewhere (one-sided in another phase) do not matter
     * here. The ends take the bound of the piece that holds there. */
    add_end(out, &all, fit, from);
    for (size_t i = 0; i < all.n; i++)
        if (all.x[i] > from && all.x[i] < to && tsync__pwl_push(out, all.x[i], all.y[i]))
            out->bound[out->n - 1] = all.bound[i];
    add_end(out, &all, fit, to);
    tsync__pwl_free(&all);
    return 0;
}
