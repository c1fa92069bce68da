/* parts.c - the estimate of a trace that several processes hold in parts (the MPI
 * replay, seed 002 section 5; tsync__estimate_run_part): the serial stages of
 * estimate.c on every process, with what they need of the others carried by the
 * caller's transport (estimate_api.h).
 *
 * Samples. Each process collects, with the serial collector (samples.c), the
 * samples of the messages its locations receive (the sends' times come with the
 * trace, t->send_time), of the collective instances it matched (src/replay/ keeps
 * them whole, with their members' times: t->whole, freed once collected) and, on
 * process 0, of the ClockOffset records (every process holds them all). A message
 * and its answer (seed 003's exchanges) are paired on the process of the pair's
 * lower location, to which every process sends the hops of its messages; the
 * records' uncertainty needs the 10th percentile of every exchange's margin, found
 * by bisection over the processes' counts. Every sample carries its key, its place
 * among its pair's samples of its kind in the serial collector's order, and goes to
 * the process of its pair (the pair's index among all pairs, sorted as the graph
 * sorts them, modulo the processes), which puts them in that order: each pair's
 * samples are the serial ones, in the serial order, and so is everything fitted
 * from them.
 *
 * Pairs and graph. Each process fits its pairs (pairs.c) and sends process 0 their
 * kinds, weights and counts. Process 0 alone runs the graph's stages (references,
 * shortest-path trees, composition, busy periods, the global least squares,
 * shifts, the result): what they need of a pair's fit (the pair's function over a
 * range from either end, its bound over a period, its anchors) it asks of
 * the pair's process, which answers from its fit (the transport's ask and serve).
 * The domains' maps then go to every process.
 */
#include <stdlib.h>
#include <string.h>

#include "estimate/run.h"
#include "util/ctx.h"
#include "util/vec.h"

int tsync__parts_agree(const struct tsync__est_transport *tr, int rc, tsync_ctx *ctx)
{
    int64_t failed = rc != 0;
    int e = tr->reduce(tr->arg, &failed, 1, 0);
    if (e)
        return rc ? rc : tsync__fail(ctx, e, "estimate: a reduction over the processes failed");
    if (failed && rc == 0)
        rc = tsync__fail(ctx, TSYNC_EIO, "%s", TSYNC_OTHERS_FAILED);
    return rc;
}

/* Reduction of v[0, n) over the processes, its failure reported. */
static int reduce(struct tsync__run *r, int64_t *v, size_t n, int sum)
{
    int rc = r->tr->reduce(r->tr->arg, v, (int)n, sum);
    return rc ? tsync__fail(r->ctx, rc, "estimate: a reduction over the processes failed") : 0;
}

/* exchange's, its failure reported. */
static int exchange(struct tsync__run *r, const void *v, size_t size, const uint32_t *dest, size_t n,
                    void **in, size_t *n_in)
{
    int rc = r->tr->exchange(r->tr->arg, v, size, dest, n, in, n_in);
    if (rc == TSYNC_ENOMEM)
        return tsync__oom(r->ctx);
    return rc ? tsync__fail(r->ctx, rc, "estimate: an exchange between the processes failed") : 0;
}

/* ---- samples --------------------------------------------------------------------------- */

/* The hops of every process, those of the pairs of locations whose lower one is
 * held here in place of *hops. */
static int route_hops(struct tsync__run *r, struct tsync__hop **hops, size_t *n)
{
    uint32_t *dest = malloc((*n ? *n : 1) * sizeof(*dest));
    void *in = NULL;
    size_t n_in = 0;
    int rc = dest ? 0 : tsync__oom(r->ctx);
    for (size_t i = 0; rc == 0 && i < *n; i++)
        dest[i] = tsync__location_holder((*hops)[i].a, r->t->n_locations, r->tr->n_ranks);
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0 &&
        (rc = exchange(r, *hops, sizeof(**hops), dest, *n, &in, &n_in)) == 0) {
        free(*hops);
        *hops = in;
        *n = n_in;
    }
    free(dest);
    return rc;
}

static int i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Of every process's margins v[0, n) together, sorted, the one at index total / 10
 * (samples.c's fastest tenth): *have = 0 when there are none. Bisection on the
 * value, each step one reduction of the counts at or below it. */
static int tenth(struct tsync__run *r, int64_t *v, size_t n, int *have, int64_t *out)
{
    int64_t c[3], lo, hi, k;
    int rc;
    qsort(v, n, sizeof(*v), i64_cmp);
    c[0] = (int64_t)n;
    c[1] = n ? -v[0] : INT64_MIN;   /* the least, negated, and the largest: maxima */
    c[2] = n ? v[n - 1] : INT64_MIN;
    if ((rc = reduce(r, c, 1, 1)) || (rc = reduce(r, c + 1, 2, 0)))
        return rc;
    *have = c[0] > 0;
    if (!*have)
        return 0;
    k = c[0] / 10;              /* the value with more than k at or below it, the least */
    lo = -c[1];
    hi = c[2];
    while (lo < hi) {
        int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2), at = 0;
        size_t a = 0, b = n;
        while (a < b) {         /* how many of v are <= mid */
            size_t m = a + (b - a) / 2;
            if (v[m] <= mid)
                a = m + 1;
            else
                b = m;
        }
        at = (int64_t)a;
        if ((rc = reduce(r, &at, 1, 1)))
            return rc;
        if (at > k)
            hi = mid;
        else
            lo = mid + 1;
    }
    *out = lo;
    return 0;
}

/* The least of every process's v[0, n) (have = 0: none has any). */
static int least(struct tsync__run *r, const int64_t *v, size_t n, int *have, int64_t *out)
{
    int64_t c[2] = { (int64_t)n, INT64_MIN };   /* the count, and the least negated */
    int rc;
    for (size_t i = 0; i < n; i++)
        c[1] = -v[i] > c[1] ? -v[i] : c[1];
    if ((rc = reduce(r, c, 1, 1)) || (rc = reduce(r, c + 1, 1, 0)))
        return rc;
    *have = c[0] > 0;
    *out = -c[1];
    return 0;
}

static int keyed_cmp(const void *pa, const void *pb)
{
    const struct tsync__keyed *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    if (a->s.kind != b->s.kind)
        return a->s.kind < b->s.kind ? -1 : 1;
    if (a->key[0] != b->key[0])
        return a->key[0] < b->key[0] ? -1 : 1;
    return a->key[1] < b->key[1] ? -1 : a->key[1] > b->key[1];
}

/* A pair as (lo, hi), for the list of every process's pairs. */
struct pair_id {
    uint32_t lo, hi;
};

static int pair_id_cmp(const void *pa, const void *pb)
{
    const struct pair_id *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* Every process's pairs (local's edges) into r->g, in the graph's order (by lo, then
 * hi): the same on every process; each with a pair made for it where it is held,
 * and on process 0. */
static int all_pairs(struct tsync__run *r, const struct tsync__graph *local)
{
    struct pair_id *v = malloc((local->n_edges ? local->n_edges : 1) * sizeof(*v)), *all = NULL;
    uint32_t *dest = calloc(local->n_edges ? local->n_edges : 1, sizeof(*dest));
    size_t n = 0, bytes;
    void *got = NULL;
    int rc = v && dest ? 0 : tsync__oom(r->ctx);
    for (size_t i = 0; rc == 0 && i < local->n_edges; i++)
        v[i] = (struct pair_id){ local->e[i].lo, local->e[i].hi };
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0)
        rc = exchange(r, v, sizeof(*v), dest, local->n_edges, &got, &n);
    free(v);
    free(dest);
    all = got;
    if (rc == 0 && r->tr->rank == 0) {   /* sorted, each once */
        size_t k = 0;
        qsort(all, n, sizeof(*all), pair_id_cmp);
        for (size_t i = 0; i < n; i++)
            if (k == 0 || pair_id_cmp(&all[i], &all[k - 1]) != 0)
                all[k++] = all[i];
        n = k;
    }
    bytes = n * sizeof(*all);
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0 &&
        (rc = r->tr->broadcast(r->tr->arg, &got, &bytes)) != 0)
        rc = tsync__fail(r->ctx, rc, "estimate: a broadcast to the processes failed");
    all = got;
    n = bytes / sizeof(*all);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t at;
        if (tsync__graph_edge(&r->g, all[i].lo, all[i].hi, &at) ||
            ((r->tr->rank == 0 || !tsync__parts_remote(r, at)) &&
             !(r->g.e[at].pair = calloc(1, sizeof(struct tsync__pair)))))
            rc = tsync__oom(r->ctx);
    }
    free(got);
    return tsync__parts_agree(r->tr, rc, r->ctx);
}

/* The edge of r->g of pair (lo, hi), which all_pairs made in order. */
static size_t edge_index(const struct tsync__run *r, uint32_t lo, uint32_t hi)
{
    size_t a = 0, b = r->g.n_edges;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        const struct tsync__edge *e = &r->g.e[m];
        if (e->lo < lo || (e->lo == lo && e->hi < hi))
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* The pairs' sources summed over the processes (local: this process's). */
static int sources(struct tsync__run *r, const struct tsync__graph *local)
{
    size_t n = r->g.n_edges;
    int64_t *v = calloc(n ? 4 * n : 1, sizeof(*v));
    int rc = v ? 0 : tsync__oom(r->ctx);
    for (size_t i = 0; rc == 0 && i < local->n_edges; i++) {
        const tsync_estimate_sources *s = &tsync__pair_of(&local->e[i])->from;
        size_t at = edge_index(r, local->e[i].lo, local->e[i].hi);
        v[4 * at] = (int64_t)s->messages;
        v[4 * at + 1] = (int64_t)s->collectives;
        v[4 * at + 2] = (int64_t)s->sessions;
        v[4 * at + 3] = (int64_t)s->offsets;
    }
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0 && (rc = reduce(r, v, 4 * n, 1)) == 0)
        for (size_t i = 0; i < n; i++) {
            tsync_estimate_sources *s;
            if (!r->g.e[i].pair)
                continue;
            s = &tsync__pair_of(&r->g.e[i])->from;
            s->messages = (uint64_t)v[4 * i];
            s->collectives = (uint64_t)v[4 * i + 1];
            s->sessions = (uint64_t)v[4 * i + 2];
            s->offsets = (uint64_t)v[4 * i + 3];
        }
    free(v);
    return rc;
}

/* The messages inside domains counted over the processes, the worst that of the
 * first message (in the whole trace's order) reversed the most. */
static int intra(struct tsync__run *r, const struct tsync__intra *mine)
{
    struct tsync__intra *in = &r->intra;
    int64_t sum[3] = { (int64_t)mine->messages, (int64_t)mine->reversed,
                       (int64_t)mine->contradicting };
    int64_t worst = mine->max_reversal, first, dom;
    int rc;
    if ((rc = reduce(r, sum, 3, 1)) || (rc = reduce(r, &worst, 1, 0)))
        return rc;
    *in = *mine;
    in->messages = (uint64_t)sum[0];
    in->reversed = (uint64_t)sum[1];
    in->contradicting = (uint64_t)sum[2];
    in->max_reversal = worst;
    if (worst <= 0)
        return 0;
    first = mine->max_reversal == worst ? -(int64_t)mine->worst_message : INT64_MIN;
    if ((rc = reduce(r, &first, 1, 0)))
        return rc;
    dom = mine->max_reversal == worst && -(int64_t)mine->worst_message == first
              ? (int64_t)mine->worst_domain : -1;
    if ((rc = reduce(r, &dom, 1, 0)))
        return rc;
    in->worst_domain = (uint32_t)dom;
    in->worst_message = (uint64_t)-first;
    return 0;
}

/* The samples sent here by every process into the pairs held here, each kind in
 * the serial order, then sorted as the serial collector sorts them. */
static int place(struct tsync__run *r, struct tsync__keyed *v, size_t n)
{
    int rc = 0;
    qsort(v, n, sizeof(*v), keyed_cmp);
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct tsync__pair_samples *s = &tsync__pair_of(&r->g.e[edge_index(r, v[i].lo, v[i].hi)])->s;
        struct tsync__pt p = { v[i].s.x, v[i].s.y };
        if (v[i].s.kind == TSYNC__ABOVE)
            rc = TSYNC_PUSH(s->above, s->n_above, s->cap_above, p);
        else if (v[i].s.kind == TSYNC__BELOW)
            rc = TSYNC_PUSH(s->below, s->n_below, s->cap_below, p);
        else if (v[i].s.kind == TSYNC__RECORD)
            rc = TSYNC_PUSH(s->rec, s->n_rec, s->cap_rec, v[i].s);
        else
            rc = TSYNC_PUSH(s->exch, s->n_exch, s->cap_exch, v[i].s);
    }
    for (size_t i = 0; i < r->g.n_edges && rc == 0; i++)
        if (!tsync__parts_remote(r, i))
            rc = tsync__pair_samples_sort(&tsync__pair_of(&r->g.e[i])->s);
    return rc ? tsync__oom(r->ctx) : 0;
}

/* The keyed samples to the processes of their pairs, placed there. */
static int route_samples(struct tsync__run *r, struct tsync__sample_part *part)
{
    uint32_t *dest = malloc((part->n_out ? part->n_out : 1) * sizeof(*dest));
    struct tsync__keyed *in = NULL;
    size_t n_in = 0;
    int rc = dest ? 0 : tsync__oom(r->ctx);
    for (size_t i = 0; rc == 0 && i < part->n_out; i++)
        dest[i] = (uint32_t)(edge_index(r, part->out[i].lo, part->out[i].hi) % r->tr->n_ranks);
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0)
        rc = exchange(r, part->out, sizeof(*part->out), dest, part->n_out, (void **)&in, &n_in);
    free(dest);
    free(part->out);
    part->out = NULL;
    part->n_out = part->cap_out = 0;
    if (rc == 0)
        rc = place(r, in, n_in);
    free(in);
    return tsync__parts_agree(r->tr, rc, r->ctx);
}

int tsync__parts_collect(struct tsync__run *r, const struct tsync__sample_opts *so)
{
    struct tsync__sample_part part = { r->tr->rank, r->tr->n_ranks, r->whole, NULL, 0, 0 };
    struct tsync__collector *c = NULL;
    struct tsync__graph local;
    struct tsync__intra mine;
    struct tsync__hop *hops = NULL;
    int64_t *margins = NULL, half_rtt = 0;
    size_t n_hops = 0, n_margins = 0;
    int rc, have = 0;

    rc = tsync__graph_init(&local, r->t->n_domains, tsync__pair_free) ||
                 tsync__part_collector_new(&c, &local, r->t, so, &mine, &part) ||
                 tsync__collect_part_messages(c, &hops, &n_hops)
             ? tsync__oom(r->ctx) : 0;
    tsync__coll_whole_free(r->whole);   /* collected */
    r->whole = NULL;
    part.whole = NULL;
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0 &&
        (rc = route_hops(r, &hops, &n_hops)) == 0) {
        rc = tsync__collect_part_exchanges(c, hops, n_hops, &margins, &n_margins) ? tsync__oom(r->ctx)
                                                                                   : 0;
        if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0 &&
            tsync__samples_use_offsets(r->t, so) &&
            (rc = tenth(r, margins, n_margins, &have, &half_rtt)) == 0 && !have) {
            free(margins);    /* none anywhere: the collectives' fastest round trip */
            tsync__collect_part_trips(c, &margins, &n_margins);
            rc = least(r, margins, n_margins, &have, &half_rtt);
        }
        if (rc == 0)
            rc = tsync__parts_agree(r->tr, tsync__collect_part_offsets(c, have, half_rtt)
                                               ? tsync__oom(r->ctx) : 0, r->ctx);
    }
    free(hops);
    free(margins);
    tsync__part_collector_free(c);
    if (rc == 0 && (rc = all_pairs(r, &local)) == 0 && (rc = sources(r, &local)) == 0 &&
        (rc = intra(r, &mine)) == 0)
        rc = route_samples(r, &part);
    free(part.out);
    tsync__graph_free(&local);
    return rc;
}

int tsync__parts_ranges(struct tsync__run *r)
{
    uint32_t nd = r->t->n_domains;
    int64_t *v = malloc((nd ? 2 * nd : 1) * sizeof(*v));
    int rc = v ? 0 : tsync__oom(r->ctx);
    for (uint32_t d = 0; rc == 0 && d < nd; d++) {
        v[d] = -r->ev_first[d];   /* INT64_MAX (no events) negates exactly */
        v[nd + d] = r->ev_last[d];
    }
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0 && (rc = reduce(r, v, 2 * nd, 0)) == 0)
        for (uint32_t d = 0; d < nd; d++) {
            r->ev_first[d] = -v[d];
            r->ev_last[d] = v[nd + d];
        }
    free(v);
    return rc;
}

/* ---- pairs to process 0 ---------------------------------------------------------------- */

/* What process 0 learns of a pair fitted elsewhere. */
struct fitted {
    uint64_t ei;
    double weight;
    int32_t kind;
    struct tsync__fit_sum sum;
};

static int span_cmp(const void *pa, const void *pb)
{
    const struct tsync__span *a = pa, *b = pb;
    if (a->loc != b->loc)
        return a->loc < b->loc ? -1 : 1;
    return a->from < b->from ? -1 : a->from > b->from;
}

int tsync__parts_gather(struct tsync__run *r)
{
    size_t n = 0, n_in = 0, n_sp = 0;
    struct fitted *v = malloc((r->g.n_edges ? r->g.n_edges : 1) * sizeof(*v)), *in = NULL;
    uint32_t *dest = calloc(r->g.n_edges + r->spans.n + 1, sizeof(*dest));
    struct tsync__span *sp = NULL;
    int rc = v && dest ? 0 : tsync__oom(r->ctx);
    for (size_t i = 0; rc == 0 && i < r->g.n_edges; i++)
        if (!tsync__parts_remote(r, i) && r->tr->rank != 0) {
            const struct tsync__edge *e = &r->g.e[i];
            memset(&v[n], 0, sizeof(v[n]));
            v[n].ei = i;
            v[n].weight = e->weight;
            v[n].kind = e->kind;
            v[n++].sum = tsync__pair_of(e)->sum;
        }
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0 &&
        (rc = exchange(r, v, sizeof(*v), dest, n, (void **)&in, &n_in)) == 0)
        for (size_t i = 0; i < n_in; i++) {
            struct tsync__edge *e = &r->g.e[in[i].ei];
            e->weight = in[i].weight;
            e->kind = (enum tsync_bound_kind)in[i].kind;
            tsync__pair_of(e)->sum = in[i].sum;
        }
    free(v);
    free(in);
    /* The busy intervals of every location, in location order as the serial run
     * makes them. */
    if (rc == 0 && (rc = exchange(r, r->spans.v, sizeof(*r->spans.v), dest, r->spans.n,
                                  (void **)&sp, &n_sp)) == 0) {
        tsync__spans_free(&r->spans);
        if (r->tr->rank == 0) {
            qsort(sp, n_sp, sizeof(*sp), span_cmp);
            r->spans.v = sp;
            r->spans.n = r->spans.cap = n_sp;
            sp = NULL;
        }
    }
    free(sp);
    free(dest);
    return tsync__parts_agree(r->tr, rc, r->ctx);
}

/* ---- process 0's questions -------------------------------------------------------------- */

/* What process 0 asks: of one pair (pwl), or of every pair the process holds
 * (errors: the domains' ranges follow the question; anchors). */
enum { ASK_PWL, ASK_ERRORS, ASK_ANCHORS };

struct question {
    uint32_t what, d;
    uint64_t ei;
    tsync_time from, to;
};

/* Bytes being written (a question, an answer): for an answer, an rc first. */
struct answer {
    char *p;
    size_t n, cap;
    int failed;
};

static void put(struct answer *a, const void *v, size_t n)
{
    if (!a->failed && tsync__reserve((void **)&a->p, &a->cap, a->n + n, 1) == 0) {
        memcpy(a->p + a->n, v, n);
        a->n += n;
    } else {
        a->failed = 1;
    }
}

/* Bytes being read. */
struct reading {
    const char *p, *end;
};

static int get(struct reading *rd, void *v, size_t n)
{
    if ((size_t)(rd->end - rd->p) < n)
        return -1;
    memcpy(v, rd->p, n);
    rd->p += n;
    return 0;
}

/* A process answering process 0's questions: its run, and its own failure. */
struct server {
    struct tsync__run *r;
    int rc;
};

/* The bounds over the ranges that follow question q (ASK_ERRORS) of every pair
 * held here with pieces, in the order of the edges. */
static int answer_errors(struct tsync__run *r, struct reading *rd, struct answer *a)
{
    size_t nd = r->g.n_domains, ne = r->g.n_edges;
    tsync_time *lo = malloc((nd ? 2 * nd : 1) * sizeof(*lo));
    double *w = malloc((ne ? ne : 1) * sizeof(*w));
    int rc = lo && w ? 0 : TSYNC_ENOMEM;
    if (rc == 0 && get(rd, lo, 2 * nd * sizeof(*lo)))
        rc = TSYNC_EINVAL;
    if (rc == 0)
        rc = tsync__est_errors_held(r, lo, lo + nd, w);
    for (size_t i = 0; rc == 0 && i < ne; i++)
        if (!tsync__parts_remote(r, i) && tsync__pair_of(&r->g.e[i])->sum.pieces)
            put(a, &w[i], sizeof(w[i]));
    free(lo);
    free(w);
    return rc;
}

/* The anchors of every pair held here that has them (tsync__est_anchored), in the
 * order of the edges: a count and the anchors each. */
static int answer_anchors(struct tsync__run *r, struct answer *a)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < r->g.n_edges; i++) {
        struct tsync__anchors an = { 0, 0, NULL };
        uint64_t k;
        if (tsync__parts_remote(r, i) || !tsync__est_anchored(r, i))
            continue;
        rc = tsync__est_anchors_held(r, i, &an);
        k = an.n;
        put(a, &k, sizeof(k));
        put(a, an.v, an.n * sizeof(*an.v));
        free(an.v);
    }
    return rc;
}

/* The answer to question qv (n bytes) of the process that holds its pairs (the
 * transport's serve): an rc, then the values; on failure the rc alone (the error
 * in this process's context). */
static int answer(void *ctx, const void *qv, size_t n, void **out, size_t *n_out)
{
    struct server *sv = ctx;
    struct tsync__run *r = sv->r;
    struct reading rd = { qv, (const char *)qv + n };
    struct question q;
    struct answer a = { NULL, 0, 0, 0 };
    int64_t rc = 0;
    if (get(&rd, &q, sizeof(q)))
        return TSYNC_EINVAL;
    put(&a, &rc, sizeof(rc));
    if (q.what == ASK_PWL) {
        struct tsync__pwl f = { 0, NULL, NULL, NULL };
        if ((rc = tsync__est_pwl_held(r, q.d, (uint32_t)q.ei, &q.from, &q.to, &f)) == 0) {
            uint64_t k = f.n;
            put(&a, &q.from, sizeof(q.from));
            put(&a, &q.to, sizeof(q.to));
            put(&a, &k, sizeof(k));
            put(&a, f.x, f.n * sizeof(*f.x));
            put(&a, f.y, f.n * sizeof(*f.y));
            put(&a, f.bound, f.n * sizeof(*f.bound));
        }
        tsync__pwl_free(&f);
    } else if (q.what == ASK_ERRORS) {
        rc = answer_errors(r, &rd, &a);
    } else {
        rc = answer_anchors(r, &a);
    }
    if (rc || a.failed) {
        rc = rc ? rc : TSYNC_ENOMEM;
        sv->rc = tsync__oom(r->ctx);      /* what the stages fail with */
        a.n = 0;
        a.failed = 0;
        put(&a, &rc, sizeof(rc));
        if (a.failed) {
            free(a.p);
            return TSYNC_ENOMEM;
        }
    }
    *out = a.p;
    *n_out = a.n;
    return 0;
}

/* Process 0's question q (n bytes) to process `to`: *rd its answer's values (free
 * *buf), or the failure, reported. */
static int ask(struct tsync__run *r, uint32_t to, const void *q, size_t n, void **buf,
               struct reading *rd)
{
    size_t n_a = 0;
    int64_t rc = 0;
    int e = r->tr->ask(r->tr->arg, to, q, n, buf, &n_a);
    if (e)
        return tsync__fail(r->ctx, e, "estimate: asking another process failed");
    rd->p = *buf;
    rd->end = rd->p + n_a;
    if (get(rd, &rc, sizeof(rc)) || rc)
        return tsync__fail(r->ctx, TSYNC_EIO, "%s", TSYNC_OTHERS_FAILED);
    return 0;
}

/* A truncated answer. */
static int short_answer(struct tsync__run *r)
{
    return tsync__fail(r->ctx, TSYNC_EIO, "estimate: another process answered short");
}

/* The process that holds edge ei's pair. */
static uint32_t owner(const struct tsync__run *r, size_t ei)
{
    return (uint32_t)(ei % r->tr->n_ranks);
}

int tsync__parts_ask_pwl(struct tsync__run *r, uint32_t d, uint32_t ei, tsync_time *from,
                         tsync_time *to, struct tsync__pwl *out)
{
    struct question q = { ASK_PWL, d, ei, *from, *to };
    struct reading rd = { NULL, NULL };
    void *buf = NULL;
    uint64_t k = 0;
    int rc = ask(r, owner(r, ei), &q, sizeof(q), &buf, &rd);
    if (rc == 0 && (get(&rd, from, sizeof(*from)) || get(&rd, to, sizeof(*to)) ||
                    get(&rd, &k, sizeof(k)) ||
                    (uint64_t)(rd.end - rd.p) != k * (2 * sizeof(tsync_time) + sizeof(double))))
        rc = short_answer(r);
    if (rc == 0 && k && tsync__pwl_alloc(out, (size_t)k))
        rc = tsync__oom(r->ctx);
    if (rc == 0 && k) {
        out->n = (size_t)k;
        get(&rd, out->x, out->n * sizeof(*out->x));
        get(&rd, out->y, out->n * sizeof(*out->y));
        get(&rd, out->bound, out->n * sizeof(*out->bound));
    }
    free(buf);
    return rc;
}

int tsync__parts_ask_errors(struct tsync__run *r, const tsync_time *lo, const tsync_time *hi,
                            double *w)
{
    struct question q = { ASK_ERRORS, 0, 0, 0, 0 };
    struct answer qa = { NULL, 0, 0, 0 };
    size_t nd = r->g.n_domains;
    int rc = 0;
    put(&qa, &q, sizeof(q));
    put(&qa, lo, nd * sizeof(*lo));
    put(&qa, hi, nd * sizeof(*hi));
    if (qa.failed)
        rc = tsync__oom(r->ctx);
    for (uint32_t p = 1; rc == 0 && p < r->tr->n_ranks && p < r->g.n_edges; p++) {
        struct reading rd = { NULL, NULL };
        void *buf = NULL;
        if ((rc = ask(r, p, qa.p, qa.n, &buf, &rd)) == 0)
            for (size_t i = p; rc == 0 && i < r->g.n_edges; i += r->tr->n_ranks)
                if (tsync__pair_of(&r->g.e[i])->sum.pieces && get(&rd, &w[i], sizeof(w[i])))
                    rc = short_answer(r);
        free(buf);
    }
    free(qa.p);
    return rc;
}

int tsync__parts_ask_anchors(struct tsync__run *r, struct tsync__anchors *an)
{
    struct question q = { ASK_ANCHORS, 0, 0, 0, 0 };
    int rc = 0;
    for (uint32_t p = 1; rc == 0 && p < r->tr->n_ranks && p < r->g.n_edges; p++) {
        struct reading rd = { NULL, NULL };
        void *buf = NULL;
        if ((rc = ask(r, p, &q, sizeof(q), &buf, &rd)) == 0)
            for (size_t i = p; rc == 0 && i < r->g.n_edges; i += r->tr->n_ranks) {
                uint64_t k;
                if (!tsync__est_anchored(r, i))
                    continue;
                if (get(&rd, &k, sizeof(k)) || (uint64_t)(rd.end - rd.p) < k * sizeof(*an[i].v))
                    rc = short_answer(r);
                else if (k && !(an[i].v = malloc((size_t)k * sizeof(*an[i].v))))
                    rc = tsync__oom(r->ctx);
                else if (k) {
                    an[i].n = an[i].cap = (size_t)k;
                    get(&rd, an[i].v, an[i].n * sizeof(*an[i].v));
                }
            }
        free(buf);
    }
    return rc;
}

int tsync__parts_serve(struct tsync__run *r)
{
    struct server sv = { r, 0 };
    int rc = r->tr->serve(r->tr->arg, answer, &sv);
    if (sv.rc)                  /* this process's own failure, in its context */
        return sv.rc;
    if (rc)
        rc = tsync__fail(r->ctx, rc == TSYNC_ENOMEM ? TSYNC_EIO : rc, "%s", TSYNC_OTHERS_FAILED);
    return rc;
}

/* ---- the maps to every process --------------------------------------------------------- */

/* One domain's map as process 0 sends it: its kind (-1: none), and its points
 * (the estimate makes offset maps, with one, and maps of points: result.c). */
struct map_head {
    int32_t kind;
    int32_t has_bounds;
    int64_t offset;
    uint64_t n;
};

/* Process 0's maps, one per domain, as made by result.c. */
static void write_maps(struct answer *a, const tsync_estimate *e)
{
    for (uint32_t d = 0; d < e->n_domains; d++) {
        const tsync_time_map *m = e->dom[d].map;
        struct map_head h = { -1, 0, 0, 0 };
        if (m) {
            h.kind = (int32_t)tsync_time_map_kind(m);
            h.has_bounds = tsync_time_map_bounds(m) != NULL;
            h.offset = tsync_time_map_offset(m);
            h.n = tsync_time_map_point_count(m);
        }
        put(a, &h, sizeof(h));
        if (m && h.kind == TSYNC_MAP_POINTS) {
            put(a, tsync_time_map_local(m), h.n * sizeof(tsync_time));
            put(a, tsync_time_map_global(m), h.n * sizeof(tsync_time));
        }
        if (m && h.has_bounds)
            put(a, tsync_time_map_bounds(m), h.n * sizeof(int64_t));
    }
}

/* The maps process 0 wrote into maps[] (one per domain, NULL where none). 0 or a
 * negative TSYNC_E* code (maps[] freed). */
static int read_maps(tsync_time_map **maps, uint32_t n_domains, struct reading *rd, tsync_ctx *ctx)
{
    int rc = 0;
    for (uint32_t d = 0; rc == 0 && d < n_domains; d++) {
        struct map_head h;
        const char *x, *y = NULL, *b = NULL;
        size_t points;
        if (get(rd, &h, sizeof(h)))
            return tsync__fail(ctx, TSYNC_EIO, "estimate: the maps came short");
        points = h.kind == TSYNC_MAP_POINTS ? 2 * h.n * sizeof(tsync_time) : 0;
        x = rd->p;
        if (points)
            y = x + h.n * sizeof(tsync_time);
        if (h.has_bounds)
            b = x + points;
        rd->p += points + (h.has_bounds ? h.n * sizeof(int64_t) : 0);
        if (h.kind < 0)
            continue;
        rc = h.kind == TSYNC_MAP_POINTS
                 ? tsync_time_map_new_points(&maps[d], (const tsync_time *)x,
                                             (const tsync_time *)y, (size_t)h.n, ctx)
                 : tsync_time_map_new_offset(&maps[d], h.offset, ctx);
        if (rc == 0 && b)
            rc = tsync_time_map_set_bounds(maps[d], (const int64_t *)b, (size_t)h.n, ctx);
    }
    for (uint32_t d = 0; rc && d < n_domains; d++) {
        tsync_time_map_free(maps[d]);
        maps[d] = NULL;
    }
    return rc;
}

int tsync__parts_maps(tsync_map_set **out, struct tsync__run *r)
{
    const struct tsync_trace *t = r->t;
    const tsync_estimate *e = r->e;
    struct answer a = { NULL, 0, 0, 0 };
    tsync_time_map **maps = NULL;
    int rc = 0;

    if (r->tr->rank == 0) {
        write_maps(&a, e);
        rc = a.failed ? tsync__oom(r->ctx) : 0;
    }
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx)) == 0 &&
        (rc = r->tr->broadcast(r->tr->arg, (void **)&a.p, &a.n)) != 0)
        rc = tsync__fail(r->ctx, rc, "estimate: a broadcast to the processes failed");
    if (rc == 0 && r->tr->rank == 0) {
        *out = e->maps;
        r->e->maps = NULL;
    } else if (rc == 0 && (rc = tsync_map_set_new_empty(out, t, r->ctx)) == 0) {
        struct reading rd = { a.p, a.p + a.n };
        if (!(maps = calloc(t->n_domains ? t->n_domains : 1, sizeof(*maps))))
            rc = tsync__oom(r->ctx);
        else if ((rc = read_maps(maps, t->n_domains, &rd, r->ctx)) == 0) {
            /* Each domain's map shared by its locations, as result.c does. */
            for (tsync_loc l = 0; l < t->n_locations; l++) {
                uint32_t d = t->locations[l].domain;
                if (d < t->n_domains && maps[d])
                    tsync_map_set_assign(*out, l, maps[d], r->ctx);
            }
            for (uint32_t d = 0; d < t->n_domains; d++)
                if (!e->dom[d].locations)
                    tsync_time_map_free(maps[d]);
        }
    }
    free(maps);
    free(a.p);
    if ((rc = tsync__parts_agree(r->tr, rc, r->ctx))) {
        tsync_map_set_free(*out);
        *out = NULL;
    }
    return rc;
}
