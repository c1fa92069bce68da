/* regress.c - the regression estimator of seed 003 (Jabbarifar et al.): drift and
 * offset by linear least squares over exchange samples (Eqs. 2 to 8), with the 90 %
 * confidence interval that drops delayed exchanges (section 12) and segmentation
 * where one line does not hold (section 13).
 *
 * Samples. Each exchange (a message and the answer that follows it, samples.c)
 * gives the offset D = (T2 - T1 + T3 - T4) / 2 of Eq. 3 at the middle of the round
 * trip, and the error margin E_ij = (round trip - time spent at the far end) / 2;
 * measured offsets (ClockOffset records) are samples of the same kind. Only
 * prompt exchanges are formed (samples.c): the model has no receive that waits for
 * its call. The one-way constraints are kept as the band the line may not leave
 * (below), and with no exchange at all they are the whole estimate: the hull over
 * them.
 *
 * The fit. Eqs. 4 and 5 are computed around the mean time (the same line, without
 * the cancellation of sum(T)^2 against n sum(T^2) at tick magnitudes). The seed
 * prints the two error formulas with their labels swapped: Eq. 7, given for the
 * drift, E_r sqrt(sum T^2 / (n sum T^2 - (sum T)^2)), is the standard error of the
 * intercept D(0), and Eq. 8, given for D(0), E_r sqrt(n / (n sum T^2 - (sum T)^2)),
 * the standard error of the slope (it alone has the unit of a drift). We use each
 * for what it measures.
 *
 * Bound. Statistical, not guaranteed: at time T, E_r + 3 sqrt(E_r^2 / n + E_X^2
 * (T - mean)^2), three standard errors of the fitted line (E_X the drift's) plus
 * the scatter of one sample. Exchanges close together in time leave the drift
 * open; a fitted drift beyond max_drift is limited to it, with E_X at least
 * max_drift. The pair's error on the graph is E_r (seed 003, section 10).
 *
 * Segmentation, when on: a piece is halved at its middle time when the line over
 * the whole has a residual more than twice that of either half, each half keeping
 * at least min_segment and MIN_PIECE samples; the halves are split again the same
 * way. A drift that changes (temperature, seed 004) bends the offsets, and a line
 * through a bend shows it in E_r long before the halves do; a linear clock stays
 * one line however long (the segment driver's longest piece is for the hull).
 *
 * The band. Least squares go where the samples pull, the one-way constraints say
 * where the line can be: each piece's slope is kept within the hull's extreme
 * slopes over the same stretch and its offset within what the constraints allow
 * for that slope (clamp_to_band).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimator.h"
#include "util/vec.h"

#define Z_ONE_SIDED_90 1.2816L  /* P(Z <= z) = 0.90 */
#define BAND_SIGMAS 3.0L
#define SPLIT_RATIO 2.0L
#define MIN_PIECE 8

struct regress {
    struct tsync__est_params p;
    size_t n, cap;
    struct tsync__sample *v;       /* exchanges, in order of x */
    struct tsync__pair_samples way; /* one-way constraints, in order of x: the band */
    uint64_t dropped, hull_rejected;
};

void tsync__regress_fit(struct tsync__regress_fit *f, const struct tsync__sample *v, size_t n,
                        tsync_time x0, tsync_time y0)
{
    long double st = 0, sd = 0, std = 0, t2 = 0, res = 0, maxerr = 0;
    memset(f, 0, sizeof(*f));
    f->n = n;
    for (size_t k = 0; k < n; k++) {
        long double t = (long double)(v[k].x - x0);
        st += t;
        sd += (long double)(v[k].y - y0) - t;
        if ((long double)v[k].err > maxerr)
            maxerr = (long double)v[k].err;
    }
    f->t_mean = st / (long double)n;
    sd /= (long double)n;           /* mean D */
    for (size_t k = 0; k < n; k++) {
        long double t = (long double)(v[k].x - x0), dt = t - f->t_mean;
        long double d = (long double)(v[k].y - y0) - t;
        f->stt += dt * dt;
        std += dt * (d - sd);
        t2 += t * t;
    }
    if (f->stt > 0)
        f->drift = std / f->stt;                     /* Eq. 4 */
    f->offset = sd - f->drift * f->t_mean;           /* Eq. 5 */
    for (size_t k = 0; k < n; k++) {
        long double t = (long double)(v[k].x - x0);
        long double r = (long double)(v[k].y - y0) - t - (f->drift * t + f->offset);
        res += r * r;
    }
    f->er = n >= 3 ? sqrtl(res / (long double)(n - 2)) : maxerr;       /* Eq. 6 */
    if (f->stt > 0) {
        /* n sum T^2 - (sum T)^2 = n stt */
        f->err_drift = f->er / sqrtl(f->stt);                           /* Eq. 8 */
        f->err_offset = f->er * sqrtl(t2 / ((long double)n * f->stt));  /* Eq. 7 */
    } else {
        f->err_offset = f->er / sqrtl((long double)n);
    }
}

size_t tsync__regress_drop_delayed(struct tsync__sample *v, size_t n)
{
    long double sum = 0, sum2 = 0, mean, sd, limit;
    size_t m = 0, kept = 0;
    for (size_t k = 0; k < n; k++) {
        if (v[k].measured)
            continue;
        sum += (long double)v[k].err;
        m++;
    }
    if (m < 3)
        return n;
    mean = sum / (long double)m;
    for (size_t k = 0; k < n; k++)
        if (!v[k].measured)
            sum2 += ((long double)v[k].err - mean) * ((long double)v[k].err - mean);
    sd = sqrtl(sum2 / (long double)(m - 1));
    limit = mean + Z_ONE_SIDED_90 * sd;
    for (size_t k = 0; k < n; k++)
        if (v[k].measured || (long double)v[k].err <= limit)
            v[kept++] = v[k];
    return kept;
}

/* ---- pieces ---------------------------------------------------------------------- */

static void band_range(const struct tsync__piece *pc, tsync_time x, long double *lo,
                       long double *hi)
{
    const struct tsync__regress_fit *f = pc->data;
    long double t = (long double)(x - pc->x0), dt = t - f->t_mean;
    long double band = f->er + BAND_SIGMAS * sqrtl(f->er * f->er / (long double)f->n +
                                                    f->err_drift * f->err_drift * dt * dt);
    long double est = pc->b + pc->a * t;
    if (band < 1)
        band = 1;                   /* a perfect fit still has its ticks */
    *lo = est - band;
    *hi = est + band;
}

/* Fits v[lo, hi) into one piece. */
static int push_fit(struct regress *r, size_t lo, size_t hi, struct tsync__pieces *out)
{
    struct tsync__piece pc;
    struct tsync__regress_fit *f = malloc(sizeof(*f));
    if (!f)
        return TSYNC_ENOMEM;
    tsync__regress_fit(f, r->v + lo, hi - lo, r->p.x0, r->p.y0);
    memset(&pc, 0, sizeof(pc));
    pc.x_first = r->v[lo].x;
    pc.x_last = r->v[hi - 1].x;
    pc.x0 = r->p.x0;
    pc.y0 = r->p.y0;
    /* Samples close together in time say little about the drift: beyond max_drift
     * (or with all samples at one time) the drift is limited to it and counted as
     * that uncertain, the line kept through the samples' centre. */
    if (f->stt == 0 || fabsl(f->drift) > (long double)r->p.max_drift) {
        long double d = f->stt == 0 ? 0 : f->drift > 0 ? r->p.max_drift : -r->p.max_drift;
        f->offset += (f->drift - d) * f->t_mean;
        f->drift = d;
        if (f->err_drift < (long double)r->p.max_drift)
            f->err_drift = r->p.max_drift;
    }
    pc.a = 1 + f->drift;
    pc.b = f->offset;
    pc.kind = TSYNC_BOUND_BOUNDED;
    pc.samples = hi - lo;
    pc.error = (double)f->er;
    pc.range = band_range;
    pc.data = f;
    return tsync__pieces_push(out, &pc);
}

static long double residual(const struct regress *r, size_t lo, size_t hi)
{
    struct tsync__regress_fit f;
    tsync__regress_fit(&f, r->v + lo, hi - lo, r->p.x0, r->p.y0);
    return f.er;
}

/* Emits v[lo, hi) as one piece, or as two halves split further, when the line
 * over the whole fails and the halves hold. */
static int emit(struct regress *r, size_t lo, size_t hi, struct tsync__pieces *out)
{
    if (r->p.segment && hi - lo >= 2 * MIN_PIECE) {
        tsync_time mid = r->v[lo].x + (r->v[hi - 1].x - r->v[lo].x) / 2;
        size_t m = lo;
        while (m < hi && r->v[m].x <= mid)
            m++;
        if (m - lo >= MIN_PIECE && hi - m >= MIN_PIECE &&
            r->v[m - 1].x - r->v[lo].x >= r->p.min_segment &&
            r->v[hi - 1].x - r->v[m].x >= r->p.min_segment) {
            long double whole = residual(r, lo, hi), left = residual(r, lo, m);
            long double right = residual(r, m, hi);
            if (whole > SPLIT_RATIO * (left > right ? left : right)) {
                int rc = emit(r, lo, m, out);
                return rc ? rc : emit(r, m, hi, out);
            }
        }
    }
    return push_fit(r, lo, hi, out);
}

/* The largest and smallest offsets b (relative to the origin) that a line of slope
 * a may have between the one-way constraints with from <= x < to: b <= y - a x
 * above, b >= y - a x below. */
static void offsets_allowed(const struct regress *r, long double a, tsync_time from,
                            tsync_time to, long double *b_min, long double *b_max)
{
    *b_min = -INFINITY;
    *b_max = INFINITY;
    for (size_t k = 0; k < r->way.n_above; k++) {
        const struct tsync__pt *w = &r->way.above[k];
        long double b = (long double)(w->y - r->p.y0) - a * (long double)(w->x - r->p.x0);
        if (w->x >= from && w->x < to && b < *b_max)
            *b_max = b;
    }
    for (size_t k = 0; k < r->way.n_below; k++) {
        const struct tsync__pt *w = &r->way.below[k];
        long double b = (long double)(w->y - r->p.y0) - a * (long double)(w->x - r->p.x0);
        if (w->x >= from && w->x < to && b > *b_min)
            *b_min = b;
    }
}

/* Keeps piece pc's line inside the band of hull piece h, whose one-way constraints
 * lie in [from, to): a slope outside the hull's [a_lo, a_hi] is brought to the
 * nearest end, turning about the samples' mean time, and the offset into the
 * interval that slope allows. A fit pulled out of the band by samples that are
 * not prompt after all, or by delays one way longer than the other, cannot leave
 * what the messages guarantee. */
static void clamp_to_band(const struct regress *r, struct tsync__piece *pc,
                          const struct tsync__piece *h, tsync_time from, tsync_time to)
{
    struct tsync__regress_fit *f = pc->data;
    long double a_lo, b_lo, a_hi, b_hi, a = pc->a, b_min, b_max;
    if (h->kind != TSYNC_BOUND_BOUNDED || tsync__hull_lines(h, &a_lo, &b_lo, &a_hi, &b_hi))
        return;
    a = a < a_lo ? a_lo : a > a_hi ? a_hi : a;
    pc->b += (pc->a - a) * f->t_mean;
    pc->a = a;
    offsets_allowed(r, a, from, to, &b_min, &b_max);
    if (b_min <= b_max)
        pc->b = pc->b < b_min ? b_min : pc->b > b_max ? b_max : pc->b;
    f->drift = pc->a - 1;
    f->offset = pc->b;
}

/* The pieces. The hull over the one-way constraints says where one line cannot
 * hold (the hulls cross, segment.c): the regression's stretches end there too, so
 * a linear clock is one stretch however long, and a bending one is cut where the
 * messages show it. In each stretch the exchanges are fitted (and halved where
 * their residuals say so) inside the hull's band; a stretch with fewer than
 * MIN_PIECE exchanges is the hull piece itself. */
static int regress_finish(void *state, struct tsync__pieces *out)
{
    struct regress *r = state;
    struct tsync__est_params p = r->p;
    struct tsync__pair_fit hull;
    size_t kept, e = 0;
    int rc = 0;
    if (r->n + r->way.n_above + r->way.n_below == 0)
        return 0;
    kept = tsync__regress_drop_delayed(r->v, r->n);
    r->dropped += r->n - kept;
    r->n = kept;
    p.max_segment = 0;                    /* only where a line fails */
    if ((rc = tsync__fit_pair(&hull, &tsync__hull_estimator, &p, &r->way)))
        return rc;
    r->hull_rejected += hull.rejected;
    if (hull.pieces.n == 0)               /* exchanges only: one stretch */
        rc = emit(r, 0, r->n, out);
    for (size_t k = 0; rc == 0 && k < hull.pieces.n; k++) {
        struct tsync__piece *h = &hull.pieces.v[k];
        tsync_time from = k == 0 ? INT64_MIN : h->x_first;
        tsync_time to = k + 1 < hull.pieces.n ? hull.pieces.v[k + 1].x_first : INT64_MAX;
        size_t b = e, first = out->n;
        while (e < r->n && r->v[e].x < to)
            e++;
        if (e - b < MIN_PIECE) {          /* too few exchanges to fit: the hull's piece */
            rc = tsync__pieces_push(out, h);
            h->data = NULL;
            continue;
        }
        if ((rc = emit(r, b, e, out)))
            break;
        for (size_t j = first; j < out->n; j++)
            clamp_to_band(r, &out->v[j], h, from, to);
    }
    tsync__pair_fit_free(&hull);
    return rc;
}

static int regress_init(void **state, const struct tsync__est_params *p)
{
    struct regress *r = calloc(1, sizeof(*r));
    if (!r)
        return TSYNC_ENOMEM;
    r->p = *p;
    *state = r;
    return 0;
}

static int regress_add(void *state, const struct tsync__sample *s)
{
    struct regress *r = state;
    struct tsync__pt pt = { s->x, s->y };
    struct tsync__pair_samples *w = &r->way;
    if (s->kind == TSYNC__ABOVE)
        return TSYNC_PUSH(w->above, w->n_above, w->cap_above, pt) ? TSYNC_ENOMEM : 0;
    if (s->kind == TSYNC__BELOW)
        return TSYNC_PUSH(w->below, w->n_below, w->cap_below, pt) ? TSYNC_ENOMEM : 0;
    return TSYNC_PUSH(r->v, r->n, r->cap, *s) ? TSYNC_ENOMEM : 0;
}

static void regress_stats(const void *state, struct tsync__est_stats *st)
{
    const struct regress *r = state;
    st->samples += r->n ? r->n : r->way.n_above + r->way.n_below;
    st->dropped += r->hull_rejected;
    st->dropped += r->dropped;
}

static void regress_fini(void *state)
{
    struct regress *r = state;
    if (!r)
        return;
    free(r->v);
    free(r->way.above);
    free(r->way.below);
    free(r);
}

/* The regression ends its pieces itself, where the residuals say a line fails
 * (emit): a piece never ends at the longest length, so a linear clock is one line. */
static int regress_settled(const void *state)
{
    (void)state;
    return 0;
}

const struct tsync__estimator tsync__regress_estimator = {
    "regression", "least squares over exchanges (seed 003); bounds statistical, "
    "guaranteed where one-way constraints bracket",
    "least squares over exchanges (seed 003, Eqs. 2-8)",
    "statistical (E_r plus 3 standard errors of the fitted line), raised to what the "
    "one-way constraints guarantee where they bracket the point", TSYNC__NEEDS_EXCHANGES, 0,
    regress_init, regress_add, regress_settled, regress_finish, regress_stats,
    regress_fini, NULL
};
