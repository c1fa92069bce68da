/* global_lsq.c - all domains at once: a weighted least-squares correction of the
 * path maps over every estimated pair, so that where the graph has loops (more
 * pairs than a spanning tree) their inconsistencies cancel instead of piling up
 * along one path. Beyond seed 003, which uses the best path only.
 *
 * Formulation. After composition every domain d has a map m_d onto its reference.
 * Each bounded edge e = {lo, hi} with estimate f_e (lo's clock to hi's) should
 * satisfy m_lo(x) = m_hi(f_e(x)); at the ends of each of its pieces, x_k, it misses
 * by r_ek = m_lo(x_k) - m_hi(f_e(x_k)) reference ticks. We look for corrections
 * that are lines in reference time,
 *
 *     c_d(u) = delta_d + eps_d (u - T) / S,      c_ref = 0
 *
 * (T the middle and S the half-span of the component's reference times, so both
 * unknowns are in ticks), minimizing
 *
 *     sum over e, k of  w_ek (r_ek + c_lo(u_ek) - c_hi(u_ek))^2,   w_ek = 1 / h_e(x_k)^2
 *
 * with u_ek = m_lo(x_k) and h_e(x) half the width of the pair's range at x. Each
 * edge also gives equations at the ends of lo's events, where its range is wide
 * when its samples leave the drift open: that keeps the corrections' slopes within
 * what every pair allows. The estimate gives these points as each edge's anchors
 * (x_k, f_e(x_k), h_e(x_k)), see estimate/pairs.c. On a tree every residual can
 * be made zero, which changes nothing but rounding; on a loop the least-squares
 * solution spreads the loop's mismatch over its edges by their errors. The normal
 * equations are a weighted graph Laplacian with two unknowns per domain, solved by
 * conjugate gradients with a Jacobi preconditioner (plus a tiny ridge, so that a
 * domain reached only by fallback edges keeps its path map).
 *
 * Bounds: the path maps' bounds hold for them; a corrected map differs by |c_d|,
 * so its bound grows by that much. The correction improves the estimate, not the
 * guarantee.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "util/vec.h"

#define RIDGE 1e-9
#define TOLERANCE 1e-12

/* One equation: sum_i coef[i] z[var[i]] = -r, weight w; var TSYNC__NONE for a
 * reference's (fixed) unknown. */
struct row {
    uint32_t var[4];
    double coef[4];
    double r, w;
};

struct system {
    size_t n_rows, cap;
    struct row *rows;
    size_t m;                   /* unknowns: 2 per domain, reference ones unused */
};

/* y = A z, A = sum w a a^T (+ ridge on the diagonal). */
static void apply(const struct system *s, const double *ridge, const double *z, double *y)
{
    for (size_t i = 0; i < s->m; i++)
        y[i] = ridge[i] * z[i];
    for (size_t k = 0; k < s->n_rows; k++) {
        const struct row *r = &s->rows[k];
        double dot = 0;
        for (int i = 0; i < 4; i++)
            if (r->var[i] != TSYNC__NONE)
                dot += r->coef[i] * z[r->var[i]];
        for (int i = 0; i < 4; i++)
            if (r->var[i] != TSYNC__NONE)
                y[r->var[i]] += r->w * r->coef[i] * dot;
    }
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Solves the normal equations by preconditioned conjugate gradients into z. */
static int solve(const struct system *s, double *z)
{
    size_t m = s->m;
    double *w = calloc(7 * (m ? m : 1), sizeof(double));
    double *b, *res, *p, *q, *pre, *ridge, rz, bnorm, maxdiag = 0;
    if (!w)
        return TSYNC_ENOMEM;
    b = w + m;
    res = b + m;
    p = res + m;
    q = p + m;
    pre = q + m;
    ridge = pre + m;
    for (size_t k = 0; k < s->n_rows; k++) {
        const struct row *r = &s->rows[k];
        for (int i = 0; i < 4; i++)
            if (r->var[i] != TSYNC__NONE) {
                b[r->var[i]] -= r->w * r->coef[i] * r->r;
                pre[r->var[i]] += r->w * r->coef[i] * r->coef[i];
            }
    }
    for (size_t i = 0; i < m; i++)
        if (pre[i] > maxdiag)
            maxdiag = pre[i];
    for (size_t i = 0; i < m; i++) {
        ridge[i] = RIDGE * (maxdiag > 0 ? maxdiag : 1);
        pre[i] = 1 / (pre[i] + ridge[i]);
        z[i] = 0;
        res[i] = b[i];
        p[i] = pre[i] * res[i];
    }
    rz = 0;
    for (size_t i = 0; i < m; i++)
        rz += res[i] * p[i];
    bnorm = sqrt(dot(b, b, m));
    for (size_t it = 0; it < 10 * m + 10 && sqrt(dot(res, res, m)) > TOLERANCE * bnorm; it++) {
        double alpha, rz_new = 0;
        apply(s, ridge, p, q);
        alpha = rz / dot(p, q, m);
        for (size_t i = 0; i < m; i++) {
            z[i] += alpha * p[i];
            res[i] -= alpha * q[i];
            rz_new += res[i] * pre[i] * res[i];
        }
        for (size_t i = 0; i < m; i++)
            p[i] = pre[i] * res[i] + (rz_new / rz) * p[i];
        rz = rz_new;
    }
    free(w);
    return 0;
}

/* Middle and half-span of each component's reference times. */
static void spans(const struct tsync__pwl *maps, const struct tsync__graph *g, double *mid,
                  double *half)
{
    for (uint32_t c = 0; c < g->n_comp; c++) {
        mid[c] = INFINITY;      /* min, then middle */
        half[c] = -INFINITY;    /* max, then half-span */
    }
    for (uint32_t d = 0; d < g->n_domains; d++) {
        const struct tsync__pwl *f = &maps[d];
        uint32_t c = g->comp[d];
        if (!f->n)
            continue;
        if ((double)f->y[0] < mid[c])
            mid[c] = (double)f->y[0];
        if ((double)f->y[f->n - 1] > half[c])
            half[c] = (double)f->y[f->n - 1];
    }
    for (uint32_t c = 0; c < g->n_comp; c++) {
        double lo = mid[c], hi = half[c];
        mid[c] = isfinite(lo) ? lo / 2 + hi / 2 : 0;
        half[c] = isfinite(lo) && hi - lo > 2 ? (hi - lo) / 2 : 1;
    }
}

/* The unknown of domain d (0: delta, 1: eps), or TSYNC__NONE for a reference. */
static uint32_t var(uint32_t d, int which, const struct tsync__graph *g, const uint32_t *comp_ref)
{
    return comp_ref[g->comp[d]] == d ? TSYNC__NONE : 2 * d + (uint32_t)which;
}

/* The equations of edge e, one per anchor, weighted by the width of the pair's
 * range there: far from the samples the drift's uncertainty widens it. The rows
 * of one edge come from one estimate, not from independent samples: together they
 * weigh as two (an offset and a drift), whatever their number. */
static int edge_rows(struct system *s, const struct tsync__edge *e,
                     const struct tsync__anchors *an, const struct tsync__pwl *maps,
                     const struct tsync__graph *g, const uint32_t *comp_ref, const double *mid,
                     const double *half)
{
    uint32_t c = g->comp[e->lo];
    size_t row0 = s->n_rows;
    for (size_t k = 0; k < an->n; k++) {
        const struct tsync__anchor *a = &an->v[k];
        double w = (double)a->half, sc;
        long double u = tsync__pwl_eval(&maps[e->lo], (long double)a->x);
        w = w > 1 ? 1 / (w * w) : 1;
        sc = (double)((u - (long double)mid[c]) / (long double)half[c]);
        {
            struct row r = { { var(e->lo, 0, g, comp_ref), var(e->lo, 1, g, comp_ref),
                               var(e->hi, 0, g, comp_ref), var(e->hi, 1, g, comp_ref) },
                             { 1, sc, -1, -sc },
                             (double)(u - tsync__pwl_eval(&maps[e->hi], a->y)), w };
            if (TSYNC_PUSH(s->rows, s->n_rows, s->cap, r))
                return TSYNC_ENOMEM;
        }
    }
    for (size_t k = row0; k < s->n_rows; k++)
        s->rows[k].w *= 2.0 / (double)(s->n_rows - row0);
    return 0;
}

int tsync__global_lsq(struct tsync__pwl *maps, const struct tsync__graph *g,
                      const uint32_t *comp_ref, const struct tsync__anchors *anchors)
{
    struct system s;
    size_t nc = g->n_comp ? g->n_comp : 1;
    double *z = NULL, *mid = malloc(nc * sizeof(*mid)), *half = malloc(nc * sizeof(*half));
    int rc = 0;

    memset(&s, 0, sizeof(s));
    s.m = 2 * (size_t)g->n_domains;
    if (!mid || !half || !(z = calloc(s.m ? s.m : 1, sizeof(*z)))) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    spans(maps, g, mid, half);
    for (size_t i = 0; i < g->n_edges; i++) {
        const struct tsync__edge *e = &g->e[i];
        if (e->kind != TSYNC_BOUND_BOUNDED || !maps[e->lo].n || !maps[e->hi].n ||
            !anchors[i].n)
            continue;
        if ((rc = edge_rows(&s, e, &anchors[i], maps, g, comp_ref, mid, half)))
            goto out;
    }
    if ((rc = solve(&s, z)))
        goto out;
    for (uint32_t d = 0; d < g->n_domains; d++) {
        struct tsync__pwl *f = &maps[d];
        uint32_t c = g->comp[d];
        if (comp_ref[c] == d)
            continue;
        for (size_t i = 0; i < f->n; i++) {
            double corr = z[2 * d] + z[2 * d + 1] * (((double)f->y[i] - mid[c]) / half[c]);
            tsync_time y = f->y[i] + (tsync_time)llround(corr);
            if (i && y < f->y[i - 1])
                y = f->y[i - 1];
            f->bound[i] += fabs(corr) + 1;
            f->y[i] = y;
        }
    }
out:
    free(s.rows);
    free(z);
    free(mid);
    free(half);
    return rc;
}
