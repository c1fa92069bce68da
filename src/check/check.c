/* check.c - the clock condition metrics of seed 002: reversed messages, violations
 * of Eq. 2, displacement of reversed messages and the worst location pairs, for
 * point-to-point messages and for the logical messages of collectives.
 *
 * Collectives are mapped onto send/receive pairs as in section 4.1 of the seed:
 * a member's begin event is a logical send, a member's end event a logical
 * receive, and an instance contributes S x R pairs. S x R grows with the square
 * of the communicator size (a million pairs per MPI_Allreduce on 1024 ranks), so
 * the pairs are counted, not visited: per instance the send times are sorted once,
 * and each receive counts its reversed and violating sends with binary searches
 * and sums their displacement with prefix sums. Only MPI_Scan and MPI_Exscan,
 * whose pairs are no Cartesian product, are visited pair by pair.
 *
 * The worst pairs need per-pair numbers, which counting cannot give. They are
 * found in two passes. The first records for each receive only its k latest
 * violating senders: if a pair is missed at the receive where its displacement is
 * largest, k other pairs rank before it there, so it is not among the k worst, and
 * every pair that is has its maximum recorded exactly. The second pass counts the
 * logical violations of the k chosen pairs exactly, one look at each instance.
 */
#include <stdlib.h>
#include <string.h>

#include "tracesync/check.h"
#include "latency/latency.h"
#include "match/match.h"
#include "trace/trace.h"
#include "util/ctx.h"
#include "util/units.h"
#include "util/vec.h"

/* A message's two times sit in arrays of tens of megabytes, each read a cache
 * miss: the times of the message this many ahead are fetched meanwhile (10^7
 * events, 1.2 M messages: 0.087 -> 0.052 s a check). */
#define PREFETCH_AHEAD 16

/* Counts of one kind of message, in ticks. */
struct acc {
    uint64_t messages, reversed, violations;
    double disp_sum;   /* sum of t_send - t_recv over reversed messages, ticks */
    int64_t disp_max;  /* max of t_send - t_recv over reversed messages; 0 if none */
};

/* A location pair in the worst-pair table. */
#define PAIR_EMPTY UINT64_MAX /* no key: locations are < UINT32_MAX */
struct pair_ent {
    uint64_t key;       /* send_loc << 32 | recv_loc */
    uint64_t p2p_viol;  /* point-to-point violations (exact) */
    uint64_t coll_viol; /* logical violations (exact after the second pass) */
    int64_t max_d;      /* max t_send - t_recv over violating messages, ticks */
};

struct pair_tab {
    struct pair_ent *e;
    size_t cap, n;      /* cap is 0 or a power of two */
};

/* A logical send of a collective instance. */
struct snd {
    tsync_time t;
    uint32_t node;
    tsync_loc loc;
};

struct check {
    const struct tsync_trace *t;
    tsync_time *const *time;      /* timeline->time */
    struct tsync__latency lat;
    unsigned k;                   /* worst pairs wanted */
    struct acc p2p, coll;
    struct pair_tab pairs;
    /* Scratch: an instance's sends in three orders, by time, by (node, time) and
     * by (location, time), with prefix sums of (t - base) of the first and last. */
    struct snd *by_time, *by_node, *by_loc;
    double *pre_time, *pre_loc;
    size_t cap_time, cap_node, cap_loc, cap_pt, cap_pl;
    tsync_ctx *ctx;
};

/* a - b, saturated: raw times come from files and may be anything. */
static int64_t sat_sub(int64_t a, int64_t b)
{
    if (b < 0 && a > INT64_MAX + b)
        return INT64_MAX;
    if (b > 0 && a < INT64_MIN + b)
        return INT64_MIN;
    return a - b;
}

static int64_t mu_of(const struct check *c, uint32_t node_a, uint32_t node_b)
{
    return tsync__latency_mu(&c->lat, node_a, node_b);
}

/* ---- worst-pair table: open addressing, linear probing ------------------------ */

static size_t pair_slot(const struct pair_tab *p, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (p->cap - 1);
    while (p->e[i].key != PAIR_EMPTY && p->e[i].key != key)
        i = (i + 1) & (p->cap - 1);
    return i;
}

static int pair_grow(struct pair_tab *p)
{
    struct pair_tab q;
    q.cap = p->cap ? p->cap * 2 : 64;
    q.n = p->n;
    if (q.cap > SIZE_MAX / sizeof(*q.e) || !(q.e = malloc(q.cap * sizeof(*q.e))))
        return -1;
    for (size_t i = 0; i < q.cap; i++)
        q.e[i].key = PAIR_EMPTY;
    for (size_t i = 0; i < p->cap; i++)
        if (p->e[i].key != PAIR_EMPTY)
            q.e[pair_slot(&q, p->e[i].key)] = p->e[i];
    free(p->e);
    *p = q;
    return 0;
}

/* Records one violating message of a pair: counted if point-to-point, only its
 * displacement if logical (first pass). Returns 0 or -1 when out of memory. */
static int pair_note(struct pair_tab *p, tsync_loc s, tsync_loc r, int64_t d, int p2p)
{
    uint64_t key = (uint64_t)s << 32 | r;
    struct pair_ent *e;
    if ((p->n + 1) * 2 > p->cap && pair_grow(p))
        return -1;
    e = &p->e[pair_slot(p, key)];
    if (e->key == PAIR_EMPTY) {
        e->key = key;
        e->p2p_viol = e->coll_viol = 0;
        e->max_d = d;
        p->n++;
    } else if (d > e->max_d) {
        e->max_d = d;
    }
    if (p2p)
        e->p2p_viol++;
    return 0;
}

/* Largest displacement first; ties by sender, then receiver location. */
static int pair_cmp(const void *pa, const void *pb)
{
    const struct pair_ent *a = pa, *b = pb;
    if (a->max_d != b->max_d)
        return a->max_d > b->max_d ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* ---- one message ---------------------------------------------------------------- */

/* Counts one send/receive pair (Eq. 2, seed 002) and notes it for the worst pairs.
 * `note` is 0 for logical messages whose pairs are found otherwise. */
static int eval_pair(struct check *c, struct acc *a, tsync_loc s, tsync_loc r, tsync_time ts,
                     tsync_time tr, int p2p, int note)
{
    int64_t d = sat_sub(ts, tr);                        /* displacement, ticks */
    int64_t mu = mu_of(c, c->t->locations[s].node, c->t->locations[r].node);
    a->messages++;
    if (d > 0) {                                        /* reversed: t_recv < t_send */
        a->reversed++;
        a->disp_sum += (double)d;
        if (d > a->disp_max)
            a->disp_max = d;
    }
    if (sat_sub(tr, ts) < mu) {                         /* t_recv < t_send + mu */
        a->violations++;
        if (note && c->k && pair_note(&c->pairs, s, r, d, p2p))
            return tsync__oom(c->ctx);
    }
    return TSYNC_OK;
}

/* ---- collectives ---------------------------------------------------------------- */

static int in_S(const struct tsync_collective *co, const struct tsync_coll_member *m)
{
    return (tsync__coll_role(co, m) & TSYNC_COLL_SENDS) != 0;
}

static int in_R(const struct tsync_collective *co, const struct tsync_coll_member *m)
{
    return (tsync__coll_role(co, m) & TSYNC_COLL_RECVS) != 0;
}

/* By time; equal times by location descending, so that the worst-pair walk, which
 * goes from the end, meets them in the order pair_cmp ranks them. */
static int time_cmp(const void *pa, const void *pb)
{
    const struct snd *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->loc > b->loc ? -1 : a->loc < b->loc;
}

static int node_cmp(const void *pa, const void *pb)
{
    const struct snd *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

static int loc_cmp(const void *pa, const void *pb)
{
    const struct snd *a = pa, *b = pb;
    if (a->loc != b->loc)
        return a->loc < b->loc ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* First index in v[lo, hi), sorted by time, whose time is > x (hi if none). */
static size_t first_after(const struct snd *v, size_t lo, size_t hi, tsync_time x)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].t > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Bounds [*b, *e) of the run of `node` in by_node[0, n), or with `by_loc` set, of
 * the run of location `key` in by_loc[0, n). */
static void find_run(const struct snd *v, size_t n, uint32_t key, int by_loc, size_t *b,
                     size_t *e)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first with key >= key */
        size_t mid = lo + (hi - lo) / 2;
        if ((by_loc ? v[mid].loc : v[mid].node) < key) lo = mid + 1; else hi = mid;
    }
    *b = lo;
    hi = n;
    while (lo < hi) { /* first with key > key */
        size_t mid = lo + (hi - lo) / 2;
        if ((by_loc ? v[mid].loc : v[mid].node) <= key) lo = mid + 1; else hi = mid;
    }
    *e = lo;
}

/* Counts the pairs (s, r) for all s in the instance's sends (sorted three ways,
 * with prefix sums) but those on r's own location. With the inter-node latency b and
 * intra-node latency a, s violates when t_s > t_r - mu(s, r), so
 *   violations = #all(t > t_r - b) - #node(t > t_r - b) + #node(t > t_r - a)
 *                - #own(t > t_r - a)
 * and reversed = #all(t > t_r) - #own(t > t_r). Each # is one binary search. With
 * a latency file mu depends on the pair of nodes: one # per sending node. */
static int eval_receive(struct check *c, size_t ns, tsync_time base, const struct snd *r)
{
    const struct snd *A = c->by_time, *N = c->by_node, *B = c->by_loc;
    const double *PA = c->pre_time, *PB = c->pre_loc;
    int64_t a = c->lat.intra, b = c->lat.inter;
    tsync_time tr = r->t;
    size_t nb, ne, lb, le, ia, ib;
    uint64_t rev, viol;
    double rel = (double)sat_sub(tr, base);

    find_run(N, ns, r->node, 0, &nb, &ne);
    find_run(B, ns, r->loc, 1, &lb, &le);
    c->coll.messages += ns - (le - lb);

    /* Reversed and their displacement: sends after t_r. */
    ia = first_after(A, 0, ns, tr);
    ib = first_after(B, lb, le, tr);
    rev = (uint64_t)((ns - ia) - (le - ib));
    c->coll.reversed += rev;
    c->coll.disp_sum += ((PA[ns] - PA[ia]) - (double)(ns - ia) * rel) -
                        ((PB[le] - PB[ib]) - (double)(le - ib) * rel);

    /* Violations (Eq. 2): inter-node threshold for all, intra-node for the node; with
     * a latency file, each sending node's own threshold. */
    if (c->lat.n) {
        viol = 0;
        for (size_t gb = 0, gb2, ge; gb < ns; gb = ge) {
            find_run(N, ns, N[gb].node, 0, &gb2, &ge);
            viol += (uint64_t)(ge - first_after(N, gb, ge, sat_sub(tr, mu_of(c, N[gb].node,
                                                                              r->node))));
        }
    } else {
        viol = (uint64_t)(ns - first_after(A, 0, ns, sat_sub(tr, b)));
        viol -= (uint64_t)(ne - first_after(N, nb, ne, sat_sub(tr, b)));
        viol += (uint64_t)(ne - first_after(N, nb, ne, sat_sub(tr, a)));
    }
    viol -= (uint64_t)(le - first_after(B, lb, le, sat_sub(tr, mu_of(c, r->node, r->node))));
    c->coll.violations += viol;

    /* Largest displacement: the latest send from another location. */
    for (size_t j = ns; j-- > 0;) {
        if (A[j].loc == r->loc)
            continue;
        if (A[j].t > tr && sat_sub(A[j].t, tr) > c->coll.disp_max)
            c->coll.disp_max = sat_sub(A[j].t, tr);
        break;
    }

    /* Worst-pair candidates: the k latest violating sends. A send at or before
     * t_r - (the largest mu) violates with no latency, which ends the walk; what it
     * skips are sends within the spread of the latencies of that limit, usually none. */
    if (c->k && viol) {
        tsync_time lim = sat_sub(tr, c->lat.max);
        unsigned got = 0;
        for (size_t j = ns; j-- > 0 && A[j].t > lim && got < c->k;) {
            if (A[j].loc == r->loc || A[j].t <= sat_sub(tr, mu_of(c, A[j].node, r->node)))
                continue;
            if (pair_note(&c->pairs, A[j].loc, r->loc, sat_sub(A[j].t, tr), 0))
                return tsync__oom(c->ctx);
            got++;
        }
    }
    return TSYNC_OK;
}

/* Scan and exscan: rank i receives from ranks 0..i (0..i-1), no product S x R, so
 * the pairs are visited one by one: O(N^2) per instance. That is acceptable here:
 * scans are rare in applications (none in the seed's SMG2000 runs) and even a scan
 * over 1024 ranks is half a million comparisons. */
static int check_scan(struct check *c, const struct tsync_collective *co,
                      const struct tsync_coll_member *m)
{
    for (uint32_t i = 0; i < co->n_members; i++) {
        if (!in_R(co, &m[i]))
            continue;
        for (uint32_t k = 0; k < co->n_members; k++) {
            int rc;
            if (!in_S(co, &m[k]) || m[k].loc == m[i].loc ||
                !tsync__scan_flows(co, m[k].comm_rank, m[i].comm_rank))
                continue;
            rc = eval_pair(c, &c->coll, m[k].loc, m[i].loc, c->time[m[k].loc][m[k].begin_idx],
                           c->time[m[i].loc][m[i].end_idx], 0, 1);
            if (rc)
                return rc;
        }
    }
    return TSYNC_OK;
}

static int check_instance(struct check *c, const struct tsync_collective *co)
{
    const struct tsync_coll_member *m = &c->t->members[co->first_member];
    const struct tsync_location *L = c->t->locations;
    size_t ns = 0;
    tsync_time base;

    if (co->cls == TSYNC_COLL_NONE)
        return TSYNC_OK;
    if (co->cls == TSYNC_COLL_SCAN || co->cls == TSYNC_COLL_EXSCAN)
        return check_scan(c, co, m);

    if (tsync__reserve((void **)&c->by_time, &c->cap_time, co->n_members, sizeof(struct snd)) ||
        tsync__reserve((void **)&c->by_node, &c->cap_node, co->n_members, sizeof(struct snd)) ||
        tsync__reserve((void **)&c->by_loc, &c->cap_loc, co->n_members, sizeof(struct snd)) ||
        tsync__reserve((void **)&c->pre_time, &c->cap_pt, (size_t)co->n_members + 1,
                       sizeof(double)) ||
        tsync__reserve((void **)&c->pre_loc, &c->cap_pl, (size_t)co->n_members + 1,
                       sizeof(double)))
        return tsync__oom(c->ctx);
    for (uint32_t i = 0; i < co->n_members; i++) {
        if (!in_S(co, &m[i]))
            continue;
        c->by_time[ns].t = c->time[m[i].loc][m[i].begin_idx];
        c->by_time[ns].node = L[m[i].loc].node;
        c->by_time[ns].loc = m[i].loc;
        ns++;
    }
    if (ns == 0)
        return TSYNC_OK;
    memcpy(c->by_node, c->by_time, ns * sizeof(struct snd));
    memcpy(c->by_loc, c->by_time, ns * sizeof(struct snd));
    qsort(c->by_time, ns, sizeof(struct snd), time_cmp);
    qsort(c->by_node, ns, sizeof(struct snd), node_cmp);
    qsort(c->by_loc, ns, sizeof(struct snd), loc_cmp);

    /* Prefix sums relative to the earliest send keep the doubles small (exact). */
    base = c->by_time[0].t;
    c->pre_time[0] = c->pre_loc[0] = 0;
    for (size_t j = 0; j < ns; j++) {
        c->pre_time[j + 1] = c->pre_time[j] + (double)sat_sub(c->by_time[j].t, base);
        c->pre_loc[j + 1] = c->pre_loc[j] + (double)sat_sub(c->by_loc[j].t, base);
    }

    for (uint32_t i = 0; i < co->n_members; i++) {
        struct snd r;
        int rc;
        if (!in_R(co, &m[i]))
            continue;
        r.t = c->time[m[i].loc][m[i].end_idx];
        r.node = L[m[i].loc].node;
        r.loc = m[i].loc;
        if ((rc = eval_receive(c, ns, base, &r)))
            return rc;
    }
    return TSYNC_OK;
}

/* Second pass for the worst pairs: the exact logical violations (and largest
 * displacement) of the n chosen pairs, O(members x n) per instance. */
static int count_chosen(struct check *c, struct pair_ent *pe, size_t n)
{
    const struct tsync_trace *t = c->t;
    uint32_t *si = malloc((n ? n : 1) * sizeof(*si)), *ri = malloc((n ? n : 1) * sizeof(*ri));
    if (!si || !ri) {
        free(si), free(ri);
        return tsync__oom(c->ctx);
    }
    for (size_t j = 0; j < n; j++)
        pe[j].coll_viol = 0;
    for (size_t q = 0; q < t->n_collectives; q++) {
        const struct tsync_collective *co = &t->collectives[q];
        const struct tsync_coll_member *m = &t->members[co->first_member];
        if (co->cls == TSYNC_COLL_NONE)
            continue;
        for (size_t j = 0; j < n; j++)
            si[j] = ri[j] = TSYNC_NONE;
        for (uint32_t i = 0; i < co->n_members; i++) {
            for (size_t j = 0; j < n; j++) {
                if (m[i].loc == (tsync_loc)(pe[j].key >> 32) && in_S(co, &m[i]))
                    si[j] = i;
                if (m[i].loc == (tsync_loc)pe[j].key && in_R(co, &m[i]))
                    ri[j] = i;
            }
        }
        for (size_t j = 0; j < n; j++) {
            const struct tsync_coll_member *s, *r;
            tsync_time ts, tr;
            if (si[j] == TSYNC_NONE || ri[j] == TSYNC_NONE || si[j] == ri[j])
                continue; /* (a point-to-point self message makes a pair s -> s) */
            s = &m[si[j]];
            r = &m[ri[j]];
            if ((co->cls == TSYNC_COLL_SCAN || co->cls == TSYNC_COLL_EXSCAN) &&
                !tsync__scan_flows(co, s->comm_rank, r->comm_rank))
                continue;
            ts = c->time[s->loc][s->begin_idx];
            tr = c->time[r->loc][r->end_idx];
            if (sat_sub(tr, ts) < mu_of(c, t->locations[s->loc].node, t->locations[r->loc].node)) {
                pe[j].coll_viol++;
                if (sat_sub(ts, tr) > pe[j].max_d)
                    pe[j].max_d = sat_sub(ts, tr);
            }
        }
    }
    free(si);
    free(ri);
    return TSYNC_OK;
}

/* Picks the k pairs with the largest displacement into r->worst_pairs. */
static int pick_worst(struct check *c, tsync_check_report *r)
{
    struct pair_tab *p = &c->pairs;
    size_t n = 0, k;
    int rc;
    for (size_t i = 0; i < p->cap; i++) /* compact: the table is done with hashing */
        if (p->e[i].key != PAIR_EMPTY)
            p->e[n++] = p->e[i];
    if (n == 0)
        return TSYNC_OK;
    qsort(p->e, n, sizeof(*p->e), pair_cmp);
    k = n < c->k ? n : c->k;
    if ((rc = count_chosen(c, p->e, k)))
        return rc;
    qsort(p->e, k, sizeof(*p->e), pair_cmp); /* exact maxima may reorder ties */
    r->worst_pairs = calloc(k, sizeof(*r->worst_pairs));
    if (!r->worst_pairs)
        return tsync__oom(c->ctx);
    for (size_t j = 0; j < k; j++) {
        tsync_check_pair *w = &r->worst_pairs[j];
        w->send_loc = (tsync_loc)(p->e[j].key >> 32);
        w->recv_loc = (tsync_loc)p->e[j].key;
        w->violations = p->e[j].p2p_viol + p->e[j].coll_viol;
        w->displacement_max_s = tsync__seconds(c->t, p->e[j].max_d);
    }
    r->n_worst_pairs = (uint32_t)k;
    return TSYNC_OK;
}

/* ---- validation and options ------------------------------------------------------- */

static int bad_index(const struct tsync_trace *t, tsync_loc loc, uint64_t idx)
{
    return loc >= t->n_locations || idx >= t->locations[loc].n_events;
}

/* The trace's messages and collectives point at events that exist. */
static int validate(const struct tsync_trace *t, const struct tsync_timeline *tl, tsync_ctx *ctx)
{
    if (!tl || tl->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: check: the timeline has %u locations, the "
                           "trace %u", t->path, tl ? tl->n_locations : 0, t->n_locations);
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (bad_index(t, m->send_loc, m->send_idx) || bad_index(t, m->recv_loc, m->recv_idx))
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: check: message %zu refers to an event "
                               "that does not exist", t->path, i);
    }
    for (size_t q = 0; q < t->n_collectives; q++) {
        const struct tsync_collective *co = &t->collectives[q];
        if (co->first_member > t->n_members || co->n_members > t->n_members - co->first_member)
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: check: collective %zu has members out "
                               "of range", t->path, q);
        for (uint32_t i = 0; i < co->n_members; i++) {
            const struct tsync_coll_member *m = &t->members[co->first_member + i];
            if (bad_index(t, m->loc, m->begin_idx) || bad_index(t, m->loc, m->end_idx))
                return tsync__fail(ctx, TSYNC_EINVAL, "%s: check: collective %zu member %u "
                                   "refers to an event that does not exist", t->path, q, i);
        }
    }
    return TSYNC_OK;
}

static void finish(tsync_check_counts *out, const struct acc *a, const struct tsync_trace *t)
{
    out->messages = a->messages;
    out->reversed = a->reversed;
    out->violations = a->violations;
    out->displacement_avg_s = a->reversed ? a->disp_sum / (double)a->reversed /
                                                (double)t->timer_resolution : 0.0;
    out->displacement_max_s = a->reversed ? tsync__seconds(t, a->disp_max) : 0.0;
}

/* ---- public ------------------------------------------------------------------------ */

int tsync_check_run(tsync_check_report **out, const tsync_trace *t, const tsync_timeline *tl,
                    const tsync_check_opts *opts, tsync_ctx *ctx)
{
    static const tsync_check_opts defaults = TSYNC_CHECK_OPTS_INIT;
    struct check c;
    tsync_check_report *r = NULL;
    uint64_t done = 0, total;
    int rc;

    if (!out || !t)
        return tsync__fail(ctx, TSYNC_EINVAL, "check: no trace");
    if (!opts)
        opts = &defaults;
    if (opts->version == 0 || opts->version > TSYNC_CHECK_OPTS_VERSION)
        return tsync__fail(ctx, TSYNC_EINVAL, "check: options of unknown version %u "
                           "(use TSYNC_CHECK_OPTS_INIT)", opts->version);
    if (t->timer_resolution == 0)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: check: timer resolution is 0", t->path);
    memset(&c, 0, sizeof(c));
    c.t = t;
    c.ctx = ctx;
    c.k = opts->worst_pairs;
    if ((rc = validate(t, tl, ctx)) ||
        (rc = tsync__latency_init(&c.lat, t, opts->latency_intra_s, opts->latency_inter_s,
                                  opts->version >= 2 ? opts->latency_file : NULL, 9.0e18,
                                  "check", ctx)))
        return rc;
    c.time = tl->time;

    total = t->n_messages + t->n_collectives;
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (i + PREFETCH_AHEAD < t->n_messages) {
            const struct tsync_message *f = m + PREFETCH_AHEAD;
            __builtin_prefetch(&c.time[f->send_loc][f->send_idx]);
            __builtin_prefetch(&c.time[f->recv_loc][f->recv_idx]);
        }
        rc = eval_pair(&c, &c.p2p, m->send_loc, m->recv_loc, c.time[m->send_loc][m->send_idx],
                       c.time[m->recv_loc][m->recv_idx], 1, 1);
        if (rc)
            goto out;
        if ((++done & 0xffff) == 0)
            tsync__progress(ctx, "checking messages", done, total);
    }
    for (size_t q = 0; q < t->n_collectives; q++) {
        if ((rc = check_instance(&c, &t->collectives[q])))
            goto out;
        if ((++done & 0xfff) == 0)
            tsync__progress(ctx, "checking messages", done, total);
    }

    if (!(r = calloc(1, sizeof(*r)))) {
        rc = tsync__oom(ctx);
        goto out;
    }
    if (c.k && (rc = pick_worst(&c, r)))
        goto out;
    r->locations = t->n_locations;
    r->domains = t->n_domains;
    finish(&r->p2p, &c.p2p, t);
    finish(&r->collective, &c.coll, t);
    r->messages = r->p2p.messages;
    r->logical_messages = r->collective.messages;
    r->reversed = c.p2p.reversed + c.coll.reversed;
    r->violations = c.p2p.violations + c.coll.violations;
    if (r->reversed) {
        r->displacement_avg_s = (c.p2p.disp_sum + c.coll.disp_sum) / (double)r->reversed /
                                (double)t->timer_resolution;
        r->displacement_max_s = tsync__seconds(t, c.p2p.disp_max > c.coll.disp_max ?
                                                      c.p2p.disp_max : c.coll.disp_max);
    }
    r->unmatched_sends = t->unmatched_sends;
    r->unmatched_recvs = t->unmatched_recvs;
    r->latency_intra_s = opts->latency_intra_s;
    r->latency_inter_s = opts->latency_inter_s;
    r->latency_intra_ticks = c.lat.intra;
    r->latency_inter_ticks = c.lat.inter;
    r->latency_pairs = (uint32_t)c.lat.n;
    r->timer_resolution = t->timer_resolution;
    tsync__progress(ctx, "checking messages", total, total);
    *out = r;
    r = NULL;
out:
    tsync_check_report_free(r);
    free(c.pairs.e);
    free(c.by_time);
    free(c.by_node);
    free(c.by_loc);
    free(c.pre_time);
    free(c.pre_loc);
    tsync__latency_free(&c.lat);
    return rc;
}

void tsync_check_report_free(tsync_check_report *r)
{
    if (!r)
        return;
    free(r->worst_pairs);
    free(r);
}

int tsync_check_report_consistent(const tsync_check_report *r)
{
    return r && r->violations == 0;
}
