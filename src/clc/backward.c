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
 *
 * Only the sends inside amortization intervals need limits, and intervals are
 * usually a small part of the trace. So the intervals are found first, on the times
 * after forward amortization (each widened by the sum of its location's jumps: an
 * earlier amortization can move an event by at most that much into a later
 * interval) and marked in a bitmap, then one pass over the messages picks the sends
 * in them and takes
 * their limits, and the collective instances with a send in them get theirs; all
 * from the times after forward amortization, before anything moves. In a replay
 * (clc.h) the times of receives held by other processes come from them first, the
 * backward replay of seed 002, section 5.3, in one exchange.
 */
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"
#include "util/ctx.h"
#include "util/vec.h"

__extension__ typedef __int128 i128;

/* A point of the hull, relative to t_l: x = t - t_l, y = allowed move. */
struct pt { int64_t x, y; };

/* An event range [b, e) of one location. */
struct range { uint64_t b, e; };

struct bwd {
    struct clc *c;
    struct clc_jump *jumps;   /* by location, each location's in event order */
    size_t *jfirst;           /* n_locations + 1 offsets into jumps */
    struct range *ranges;     /* the widened intervals, merged, by location */
    size_t *rfirst, n_ranges, cap_ranges;
    uint64_t **marked;        /* per location with ranges: a bit per event in them */
    struct clc_list cand;     /* point-to-point sends in them; id = message */
    int64_t *cand_lim;        /* their limits */
    struct pt *hull;
    size_t cap_hull;
};

/* Start t_l of the amortization interval of a jump dt at event r of a location with
 * times cur (where r_b = cur[r] - dt); returns 0 when there is no interval. */
static int interval(const struct clc *c, const int64_t *cur, uint64_t r, int64_t dt, int64_t *tl)
{
    int64_t rb = cur[r] - dt;
    double span = (double)dt / c->max_slope;
    if (r == 0)
        return 0;
    *tl = span >= (double)(rb - cur[0]) ? cur[0] : rb - (int64_t)span;
    return *tl < rb;
}

/* First index in [0, r) whose time is after t (cur is sorted there). The answer
 * is usually a few events before r (an interval is 1 / max_slope jumps long), so
 * the search gallops back from r before it bisects: O(log distance), and its reads
 * stay near r instead of jumping across the location. */
static uint64_t first_after(const int64_t *cur, uint64_t r, int64_t t)
{
    uint64_t lo = 0, hi = r, step = 1;
    while (step < r && cur[r - step] > t) {   /* cur[r - step] > t: answer <= r - step */
        hi = r - step;
        step *= 2;
    }
    if (step < r)
        lo = r - step + 1;                    /* cur[r - step] <= t */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (cur[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The widened intervals of every location, merged. */
static int find_ranges(struct bwd *b)
{
    struct clc *c = b->c;
    const struct tsync_trace *t = c->t;
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        const int64_t *cur = c->out[l];
        int64_t widen = 0, tl;
        size_t start = b->n_ranges;
        b->rfirst[l] = start;
        for (size_t i = b->jfirst[l]; i < b->jfirst[l + 1]; i++)
            widen = widen > INT64_MAX - b->jumps[i].dt ? INT64_MAX : widen + b->jumps[i].dt;
        for (size_t i = b->jfirst[l]; i < b->jfirst[l + 1]; i++) {
            const struct clc_jump *j = &b->jumps[i];
            struct range rg;
            if (!interval(c, cur, j->idx, j->dt, &tl))
                continue;
            rg.b = first_after(cur, j->idx, tl < INT64_MIN + widen ? INT64_MIN : tl - widen);
            rg.e = j->idx;
            while (b->n_ranges > start && rg.b <= b->ranges[b->n_ranges - 1].e) {
                if (b->ranges[b->n_ranges - 1].b < rg.b)
                    rg.b = b->ranges[b->n_ranges - 1].b;
                b->n_ranges--;
            }
            if (TSYNC_PUSH(b->ranges, b->n_ranges, b->cap_ranges, rg))
                return tsync__oom(c->ctx);
        }
    }
    b->rfirst[t->n_locations] = b->n_ranges;
    return TSYNC_OK;
}

/* A bit per event of each location with intervals, set inside them: membership
 * in O(1) for the pass over all messages. */
static int mark_ranges(struct bwd *b)
{
    const struct tsync_trace *t = b->c->t;
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        uint64_t *bits;
        if (b->rfirst[l] == b->rfirst[l + 1])
            continue;
        bits = calloc((size_t)(t->locations[l].n_events / 64 + 1), sizeof(*bits));
        if (!bits)
            return tsync__oom(b->c->ctx);
        b->marked[l] = bits;
        for (size_t k = b->rfirst[l]; k < b->rfirst[l + 1]; k++)
            for (uint64_t j = b->ranges[k].b; j < b->ranges[k].e; j++)
                bits[j / 64] |= (uint64_t)1 << (j % 64);
        b->c->memory += (size_t)(t->locations[l].n_events / 8);
    }
    return TSYNC_OK;
}

static int in_ranges(const struct bwd *b, tsync_loc l, uint64_t idx)
{
    return b->marked[l] && (b->marked[l][idx / 64] >> (idx % 64) & 1);
}

/* Limits of the sends in the intervals, from the times after forward amortization:
 * a point-to-point send's is LC'(receive) - mu; a collective send's the minimum over
 * its receives (collective.c), for the instances with a send in an interval. */
static int limits(struct bwd *b)
{
    struct clc *c = b->c;
    const struct tsync_trace *t = c->t;
    uint8_t *todo = NULL;
    uint32_t *ids = NULL;
    size_t n_ids = 0, cap_ids = 0;
    int rc;

    if ((rc = mark_ranges(b)))
        return rc;
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (in_ranges(b, m->send_loc, m->send_idx) &&
            TSYNC_PUSH(ids, n_ids, cap_ids, (uint32_t)i)) {
            rc = tsync__oom(c->ctx);
            goto out;
        }
    }
    if (tsync__clc_list_init(&b->cand, t, n_ids, 0) ||
        !(todo = calloc(t->n_collectives ? t->n_collectives : 1, 1))) {
        rc = tsync__oom(c->ctx);
        goto out;
    }
    for (size_t k = 0; k < n_ids; k++)
        tsync__clc_list_mark(&b->cand, t->messages[ids[k]].send_loc, t->messages[ids[k]].send_idx);
    if (tsync__clc_list_ready(&b->cand)) {
        rc = tsync__oom(c->ctx);
        goto out;
    }
    for (size_t k = 0; k < n_ids; k++)
        tsync__clc_list_put(&b->cand, t->messages[ids[k]].send_loc, t->messages[ids[k]].send_idx,
                            ids[k], 0);
    if (tsync__clc_list_finish(&b->cand) ||
        !(b->cand_lim = malloc((b->cand.n ? b->cand.n : 1) * sizeof(*b->cand_lim)))) {
        rc = tsync__oom(c->ctx);
        goto out;
    }
    for (size_t k = 0; k < b->cand.n; k++) {
        const struct tsync_message *m = &t->messages[b->cand.id[k]];
        b->cand_lim[k] = (clc_held(c, m->recv_loc) ? c->out[m->recv_loc][m->recv_idx]
                                                   : c->recv_lc[b->cand.id[k]]) -
                         tsync__latency_mu(&c->lat, t->locations[m->send_loc].node,
                                t->locations[m->recv_loc].node);
    }
    for (size_t k = 0; k < c->membs.n; k++) {
        uint32_t mm = c->membs.id[k];
        if ((c->role[mm] & CLC_SEND) && in_ranges(b, t->members[mm].loc, c->membs.idx[k]))
            todo[c->inst[mm]] = 1;
    }
    for (size_t q = 0; q < t->n_collectives; q++)
        if (todo[q])
            tsync__clc_coll_bounds(c, q, 1);
    c->memory += b->cand.n * (sizeof(uint64_t) + sizeof(uint32_t) + sizeof(*b->cand_lim)) +
                 b->n_ranges * sizeof(*b->ranges);
out:
    free(ids);
    free(todo);
    return rc;
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

/* The next send of location l before event r: point-to-point candidate cursor *ps,
 * member list cursor *pm. Returns 0 when there is none, else 1 with its event index
 * and limit. */
static int next_send(const struct bwd *b, tsync_loc l, uint64_t r, size_t *ps, size_t *pm,
                     uint64_t *idx, int64_t *lim)
{
    const struct clc *c = b->c;
    size_t se = b->cand.first[l + 1], me = c->membs.first[l + 1];
    int has_s, has_m;
    while (*pm < me && c->membs.idx[*pm] < r && !(c->role[c->membs.id[*pm]] & CLC_SEND))
        (*pm)++;
    has_s = *ps < se && b->cand.idx[*ps] < r;
    has_m = *pm < me && c->membs.idx[*pm] < r;
    if (!has_s && !has_m)
        return 0;
    if (has_s && (!has_m || b->cand.idx[*ps] <= c->membs.idx[*pm])) {
        *idx = b->cand.idx[*ps];
        *lim = b->cand_lim[*ps];
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
    size_t w, nh = 0, k = 0, ps, pm;
    uint64_t idx;
    int64_t lim;

    if (!interval(c, cur, r, dt, &tl))
        return TSYNC_OK;
    w = first_after(cur, r, tl);
    if (w == r)
        return TSYNC_OK;
    run = rb - tl;

    /* The hull: (t_l, 0), the sends below the ramp, (r_b, dt). */
    if (tsync__reserve((void **)&b->hull, &b->cap_hull, 2, sizeof(*b->hull)))
        return tsync__oom(c->ctx);
    b->hull[nh++] = (struct pt){ 0, 0 };
    ps = tsync__clc_list_seek(&b->cand, l, w);
    pm = tsync__clc_list_seek(&c->membs, l, w);
    while (next_send(b, l, r, &ps, &pm, &idx, &lim)) {
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
    size_t nl = (size_t)t->n_locations + 1, *next = NULL;
    struct bwd b;
    int rc;

    c->amortized = c->limited = 0;
    if (c->tr) {                /* the replay: the limits of sends held here, first */
        int64_t any = c->n_jumps > 0;
        if ((rc = c->tr->reduce(c->tr->arg, &any, 1, 0)) ||
            (any && (rc = tsync__clc_replay_backward(c))))
            return rc;
    }
    if (c->n_jumps == 0)
        return TSYNC_OK;
    memset(&b, 0, sizeof(b));
    b.c = c;
    /* The jumps by location (stable: each location's are in event order). */
    b.jumps = malloc(c->n_jumps * sizeof(*b.jumps));
    b.jfirst = calloc(nl, sizeof(*b.jfirst));
    b.rfirst = malloc(nl * sizeof(*b.rfirst));
    b.marked = calloc(nl, sizeof(*b.marked));
    next = malloc(nl * sizeof(*next));
    if (!b.jumps || !b.jfirst || !b.rfirst || !b.marked || !next) {
        rc = tsync__oom(c->ctx);
        goto out;
    }
    for (size_t i = 0; i < c->n_jumps; i++)
        b.jfirst[c->jumps[i].loc + 1]++;
    for (uint32_t l = 0; l < t->n_locations; l++)
        b.jfirst[l + 1] += b.jfirst[l];
    memcpy(next, b.jfirst, nl * sizeof(*next));
    for (size_t i = 0; i < c->n_jumps; i++)
        b.jumps[next[c->jumps[i].loc]++] = c->jumps[i];
    if ((rc = find_ranges(&b)) || (rc = limits(&b)))
        goto out;
    for (size_t i = 0; i < c->n_jumps; i++)
        if ((rc = amortize(&b, b.jumps[i].loc, b.jumps[i].idx, b.jumps[i].dt)))
            goto out;
out:
    free(next);
    free(b.jumps);
    free(b.jfirst);
    free(b.rfirst);
    free(b.ranges);
    for (uint32_t l = 0; b.marked && l < t->n_locations; l++)
        free(b.marked[l]);
    free(b.marked);
    tsync__clc_list_free(&b.cand);
    free(b.cand_lim);
    free(b.hull);
    return rc;
}
