/* backward.c - backward amortization (seed 002, section 3.2 and Fig. 2, with the
 * collective limits of section 4.2): smooths each jump dt that forward
 * amortization made at a receive r by moving the events before r forward.
 *
 * Let r_b = LC'(r) - dt be where r would be without its jump and t_l = r_b -
 * dt / max_slope the start of the amortization interval (not before the
 * location's first event). An event at time t in (t_l, r_b] moves to t + g(t),
 * where without limits g is the ramp from (t_l, 0) to (r_b, dt). A send s in the
 * interval may move by a_s = U_s - t_s at most, U_s being the time of its receive
 * after forward amortization minus mu (for a collective send, the minimum over its
 * receives), so that no new violation appears. g is the lower convex hull of the
 * points (t_l, 0), (t_s, a_s) and (r_b, dt): the largest convex function below all
 * of them, piecewise linear with bends at the binding sends, flatter before them
 * and steeper after (the dotted line of Fig. 2). It is >= 0, non-decreasing (so
 * t + g(t) keeps the order and never shrinks an interval) and never above the
 * ramp. This is Scalasca's recursion (the send with the steepest slope to the
 * right end, again from there) done as one monotone chain.
 *
 * g is evaluated exactly in 128-bit integers and rounded down, so a send ends at
 * or before its limit to the tick. The jumps of a location are amortized one after
 * the other, earliest first, each on the times the previous ones left; receives
 * inside an interval move like internal events (moving a receive forward cannot
 * violate the clock condition).
 */
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"
#include "util/ctx.h"
#include "util/vec.h"

__extension__ typedef __int128 i128;

/* A point of the hull, relative to t_l: x = t - t_l, y = allowed move. */
struct pt { int64_t x, y; };

struct bwd {
    struct clc *c;
    struct pt *hull;
    size_t cap_hull;
};

/* Limits of all sends, from the times after forward amortization: per message
 * U = LC'(receive) - mu, per sending collective member the minimum over its
 * receives (collective.c). Also the per-location list of point-to-point sends. */
static int limits(struct clc *c)
{
    const struct tsync_trace *t = c->t;
    c->limit = malloc((t->n_messages ? t->n_messages : 1) * sizeof(*c->limit));
    if (!c->limit || tsync__clc_list_init(&c->sends, t, t->n_messages))
        return tsync__oom(c->ctx);
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        c->limit[i] = c->out[m->recv_loc][m->recv_idx] -
                      clc_mu(&c->lat, t->locations[m->send_loc].node, t->locations[m->recv_loc].node);
        tsync__clc_list_add(&c->sends, m->send_loc, m->send_idx, (uint32_t)i);
    }
    if (tsync__clc_list_finish(&c->sends, t))
        return tsync__oom(c->ctx);
    c->memory += t->n_messages * (sizeof(*c->limit) + sizeof(uint64_t) + sizeof(uint32_t));
    for (size_t q = 0; q < t->n_collectives; q++)
        tsync__clc_coll_bounds(c, q, 1);
    return TSYNC_OK;
}

/* (b - a) x (p - a) > 0: p lies strictly above the line through a and b. */
static int left_turn(const struct pt *a, const struct pt *b, const struct pt *p)
{
    i128 cross = (i128)(b->x - a->x) * (p->y - a->y) - (i128)(b->y - a->y) * (p->x - a->x);
    return cross > 0;
}

/* Appends p to the lower hull (points come with non-decreasing x). */
static void hull_push(struct pt *h, size_t *n, struct pt p)
{
    if (*n && h[*n - 1].x == p.x) {      /* same time: the lower one counts */
        if (h[*n - 1].y <= p.y)
            return;
        (*n)--;
    }
    while (*n >= 2 && !left_turn(&h[*n - 2], &h[*n - 1], &p))
        (*n)--;
    h[(*n)++] = p;
}

/* The next send of location l in [*ps, *pm) order: point-to-point list cursor *ps,
 * member list cursor *pm; both stop before event r. Returns 0 when there is none,
 * else 1 with its event index and limit. */
static int next_send(const struct clc *c, tsync_loc l, uint64_t r, size_t *ps, size_t *pm,
                     uint64_t *idx, int64_t *lim)
{
    size_t se = c->sends.first[l + 1], me = c->membs.first[l + 1];
    while (*pm < me && c->membs.idx[*pm] < r && !(c->role[c->membs.id[*pm]] & CLC_SEND))
        (*pm)++;
    int has_s = *ps < se && c->sends.idx[*ps] < r;
    int has_m = *pm < me && c->membs.idx[*pm] < r;
    if (!has_s && !has_m)
        return 0;
    if (has_s && (!has_m || c->sends.idx[*ps] <= c->membs.idx[*pm])) {
        *idx = c->sends.idx[*ps];
        *lim = c->limit[c->sends.id[*ps]];
        (*ps)++;
    } else {
        *idx = c->membs.idx[*pm];
        *lim = c->bound[c->membs.id[*pm]];
        (*pm)++;
    }
    return 1;
}

/* Amortizes the jump dt at event r of location l (Fig. 2). */
static int amortize(struct bwd *b, tsync_loc l, uint64_t r, int64_t dt)
{
    struct clc *c = b->c;
    int64_t *cur = c->out[l];
    int64_t rb = cur[r] - dt, tl, run;
    double span = (double)dt / c->max_slope;
    size_t w, lo = 0, hi = r, nh = 0, k = 0, ps, pm;
    uint64_t idx;
    int64_t lim;

    if (r == 0)
        return TSYNC_OK;
    tl = span >= (double)(rb - cur[0]) ? cur[0] : rb - (int64_t)span;
    if (tl >= rb)
        return TSYNC_OK;
    while (lo < hi) {                    /* first event after t_l; cur is sorted */
        size_t mid = lo + (hi - lo) / 2;
        if (cur[mid] > tl)
            hi = mid;
        else
            lo = mid + 1;
    }
    w = lo;
    if (w == r)
        return TSYNC_OK;
    run = rb - tl;

    /* The hull: (t_l, 0), the sends below the ramp, (r_b, dt). */
    if (tsync__reserve((void **)&b->hull, &b->cap_hull, 2, sizeof(*b->hull)))
        return tsync__oom(c->ctx);
    b->hull[nh++] = (struct pt){ 0, 0 };
    ps = tsync__clc_list_seek(&c->sends, l, w);
    pm = tsync__clc_list_seek(&c->membs, l, w);
    while (next_send(c, l, r, &ps, &pm, &idx, &lim)) {
        struct pt p;
        if (lim == INT64_MAX)
            continue;                    /* a collective send nobody receives */
        p.x = cur[idx] - tl;
        p.y = lim - cur[idx];
        if (p.y < 0)
            p.y = 0;                     /* already beyond its limit (a cycle): stays */
        if ((i128)p.y * run >= (i128)dt * p.x)
            continue;                    /* on or above the ramp: cannot bind */
        if (tsync__reserve((void **)&b->hull, &b->cap_hull, nh + 2, sizeof(*b->hull)))
            return tsync__oom(c->ctx);
        hull_push(b->hull, &nh, p);
    }
    hull_push(b->hull, &nh, (struct pt){ run, dt });
    if (nh > 2)
        c->limited++;

    for (size_t e = w; e < r; e++) {
        int64_t x = cur[e] - tl, g;
        const struct pt *p, *q;
        while (k + 2 < nh && x > b->hull[k + 1].x)
            k++;
        p = &b->hull[k];
        q = &b->hull[k + 1];
        g = p->y + (int64_t)((i128)(q->y - p->y) * (x - p->x) / (q->x - p->x));
        if (g > 0) {
            cur[e] += g;
            c->amortized++;
        }
    }
    return TSYNC_OK;
}

int tsync__clc_backward(struct clc *c)
{
    const struct tsync_trace *t = c->t;
    struct clc_jump *by_loc = NULL;
    size_t *first = NULL;
    struct bwd b;
    int rc;

    c->amortized = c->limited = 0;
    if (c->n_jumps == 0)
        return TSYNC_OK;
    memset(&b, 0, sizeof(b));
    b.c = c;
    if ((rc = limits(c)))
        return rc;
    /* The jumps by location (stable: each location's are in event order). */
    by_loc = malloc(c->n_jumps * sizeof(*by_loc));
    first = calloc((size_t)t->n_locations + 1, sizeof(*first));
    if (!by_loc || !first) {
        rc = tsync__oom(c->ctx);
        goto out;
    }
    for (size_t i = 0; i < c->n_jumps; i++)
        first[c->jumps[i].loc + 1]++;
    for (uint32_t l = 0; l < t->n_locations; l++)
        first[l + 1] += first[l];
    for (size_t i = 0; i < c->n_jumps; i++)
        by_loc[first[c->jumps[i].loc]++] = c->jumps[i];
    for (size_t i = 0; i < c->n_jumps; i++)
        if ((rc = amortize(&b, by_loc[i].loc, by_loc[i].idx, by_loc[i].dt)))
            goto out;
out:
    free(by_loc);
    free(first);
    free(b.hull);
    return rc;
}
