/* samples.c - the samples of every pair of clock domains: one-way constraints from
 * each message and from the logical messages of collectives, exchange samples
 * (seed 003, Eq. 3) from each message and its answer, and ClockOffset records as
 * measured samples.
 *
 * A pair {lo, hi} (lo < hi) is seen on the plane x = lo's clock, y = hi's clock
 * (estimator.h). With mu the minimum latency of the message (intra-node when both
 * locations are on one node, as in check):
 *
 *   lo -> hi, sent at s (lo's clock), received at r (hi's)    ABOVE (s, r - mu)
 *   hi -> lo, sent at s (hi's clock), received at r (lo's)    BELOW (r - mu, s)
 *
 * Exchanges are formed per pair of locations, as a ping-pong: a message i -> j
 * received at T2 and the next message j -> i that j sends at T3 >= T2, before it
 * receives anything else from i. Each message serves at most once as a ping and
 * once as an answer, and only with both receives prompt (see is_prompt). The sample is the middle of the round trip on both clocks,
 * ((T1 + T4) / 2 on i's, (T2 + T3) / 2 on j's), which is Eq. 3's offset at that
 * time, and its error margin E_ij = ((T4 - T1) - (T3 - T2)) / 2.
 *
 * A ClockOffset record (OTF2; Score-P measures it against rank 0) says that at
 * local time T the master's clock read T + offset, give or take an uncertainty
 * err: the line passes within err of that point. For the hull that is two one-way
 * constraints, (T, T + offset + err) and (T, T + offset - err); for the regression
 * an exchange with margin err. A measured offset is never taken as exact: on a
 * noisy network a ping-pong's offset is microseconds off, and an exact point would
 * pull the map off and make the bound a false promise. err comes from the round
 * trips the trace itself shows, or 3 recorded standard deviations where that is
 * more (Score-P records 0; a collector's deviation is the spread of one session's
 * exchanges, which says nothing of a delay asymmetry they share). A ping-pong's offset is off by half the difference of its two
 * one-way delays, at most half its round trip less the minimum latency. Half the
 * round trip of an exchange of the trace (seed 003's E_ij, Eq. 3) includes waiting
 * in late-posted receives in most of them; the fastest tenth show the network
 * itself: h, the 10th percentile of the half round trips. err = 2 h - mu =
 * mu + 2 (h - mu), twice the delay beyond the minimum latency that the fastest
 * tenth show, covers a ping-pong somewhat slower than those (on the noisy networks
 * where ping-pong offsets are microseconds off, err is several microseconds). It is
 * at least one inter-node minimum latency. A trace without exchanges (collectives
 * only) shows round trips in its N-to-N instances instead: between the master's
 * domain M and another B, (end_M - begin_M + end_B - begin_B) / 2 with the latest
 * begin and the earliest end of each (E_ij of the exchange M -> B -> M whose answer
 * left before the question arrived). Most of them wait for a late member (their
 * tenth percentile was 1.4 ms on bench_accuracy's (g), which left the records
 * unused and MPI_Init 230 us off); the fastest, whose members arrived together, is
 * a round trip and the collective's own steps, and h is that one. Without it a
 * record is off by as much as its delays' asymmetry, which no one-way constraint
 * shows: with 2 us per node, a collectives-only trace's maps were 1.04 to 1.19 us
 * off at MPI_Init where their bounds said 0.68 to 1.03 us (e2e test_bounds.sh).
 *
 * That err is a guess from other exchanges, not the record's own round trip: a
 * ping-pong whose every exchange met a delayed message (Score-P keeps the fastest of
 * a few) is off by up to half the delay. Records of one domain measured close
 * together (less than a minimum segment apart, where no piece split separates them)
 * show it: two records a and b contradict each other when their offsets differ by
 * more than err_a + err_b + max_drift |t_a - t_b|, so that no line of an assumed
 * drift passes both, and then one of them is off by more than its err. Which one
 * the trace does not say (the hull would take a drift beyond max_drift through both
 * and print a bound that holds for neither). So each is widened to cover the other:
 * err_a = |o_a - o_b| + max_drift |t_a - t_b| + err_b (and b alike), which holds
 * when either of them is within its own err.
 *
 * Each edge counts what its samples came from: the program's messages, the logical
 * messages of collectives, the messages of a tracer's synchronization sessions
 * (trace->session_messages) and ClockOffset records.
 *
 * Messages inside one domain give no sample: they check the grouping. With one
 * clock, a receive cannot come before its send; EZTrace's ranks of one node, each
 * with its own clock origin, arrive up to tens of milliseconds "early".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/samples.h"
#include "match/match.h"
#include "util/vec.h"

#define CONTRADICTION_FACTOR 10   /* x the larger minimum latency: no shared clock */

void tsync__pair_samples_free(struct tsync__pair_samples *s)
{
    free(s->above);
    free(s->below);
    free(s->exch);
    free(s->rec);
    memset(s, 0, sizeof(*s));
}

void tsync__pair_free(void *pair)
{
    struct tsync__pair *p = pair;
    if (!p)
        return;
    tsync__pair_samples_free(&p->s);
    tsync__pair_fit_free(&p->fit);
    free(p);
}

/* ---- sorting ------------------------------------------------------------------------ */

static int pt_cmp(const void *pa, const void *pb)
{
    const struct tsync__pt *a = pa, *b = pb;
    return a->x < b->x ? -1 : a->x > b->x;
}

static int sample_cmp(const void *pa, const void *pb)
{
    const struct tsync__sample *a = pa, *b = pb;
    return a->x < b->x ? -1 : a->x > b->x;
}

#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)
#define NEARLY_SORTED 8   /* moves an element, on average, that insertion sort may make */

/* Insertion sort, stable, in place, while it moves at most `budget` elements: most
 * samples come nearly in order (a receive's time among the sends around it), and
 * then it needs neither time nor the copy a radix sort makes. Returns 0 when v is
 * sorted, -1 when it gave up: v is then still in the order it came in, but for
 * a sorted prefix whose equal x kept their order, so that a stable sort of it is
 * that of the input. */
static int sort_nearly(struct tsync__pt *v, size_t n, size_t budget)
{
    for (size_t i = 1; i < n; i++) {
        struct tsync__pt p;
        size_t j = i;
        if (v[i - 1].x <= v[i].x)
            continue;           /* in place already, as most are: nothing to store */
        p = v[i];
        while (j > 0 && v[j - 1].x > p.x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = p;
        if (i - j > budget)
            return -1;
        budget -= i - j;
    }
    return 0;
}

/* Whether v[0, n) is in order of x, as the samples of a capture mostly come: four
 * comparisons at a time, with one branch. */
static int in_order(const struct tsync__pt *v, size_t n)
{
    size_t i = 1;
    for (; i + 4 <= n; i += 4)
        if ((v[i - 1].x > v[i].x) | (v[i].x > v[i + 1].x) | (v[i + 1].x > v[i + 2].x) |
            (v[i + 2].x > v[i + 3].x))
            return 0;
    for (; i < n; i++)
        if (v[i - 1].x > v[i].x)
            return 0;
    return 1;
}

int tsync__sort_points(struct tsync__pt *v, size_t n)
{
    struct tsync__pt *tmp, *src = v, *dst;
    size_t *count;
    tsync_time lo = n ? v[0].x : 0, hi = lo;
    uint64_t span;

    if (in_order(v, n))
        return 0;
    if (n < 4096) {
        qsort(v, n, sizeof(*v), pt_cmp);  /* equal x need no order */
        return 0;
    }
    /* Sorted or nearly (one pass either way), else a stable sort of the order the
     * insertion sort left: the same. */
    if (sort_nearly(v, n, NEARLY_SORTED * n) == 0)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].x < lo)
            lo = v[i].x;
        if (v[i].x > hi)
            hi = v[i].x;
    }
    /* LSD radix sort on x - lo, only over the digits the keys use. */
    tmp = malloc(n * sizeof(*tmp));
    count = malloc(RADIX * sizeof(*count));
    if (!tmp || !count) {
        free(tmp);
        free(count);
        return TSYNC_ENOMEM;
    }
    dst = tmp;
    span = (uint64_t)hi - (uint64_t)lo;
    for (unsigned shift = 0; shift < 64 && (span >> shift) != 0; shift += RADIX_BITS) {
        size_t sum = 0;
        memset(count, 0, RADIX * sizeof(*count));
        for (size_t i = 0; i < n; i++)
            count[(((uint64_t)src[i].x - (uint64_t)lo) >> shift) & (RADIX - 1)]++;
        for (size_t d = 0; d < RADIX; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(((uint64_t)src[i].x - (uint64_t)lo) >> shift) & (RADIX - 1)]++] = src[i];
        src = dst;
        dst = dst == tmp ? v : tmp;
    }
    if (src != v)
        memcpy(v, src, n * sizeof(*v));
    free(tmp);
    free(count);
    return 0;
}

int tsync__pair_samples_sort(struct tsync__pair_samples *s)
{
    if (tsync__sort_points(s->above, s->n_above) || tsync__sort_points(s->below, s->n_below))
        return TSYNC_ENOMEM;
    if (s->n_exch > 1)
        qsort(s->exch, s->n_exch, sizeof(*s->exch), sample_cmp);
    if (s->n_rec > 1)
        qsort(s->rec, s->n_rec, sizeof(*s->rec), sample_cmp);
    return 0;
}

/* ---- collecting ---------------------------------------------------------------------- */

struct collector {
    struct tsync__graph *g;
    const struct tsync_trace *t;
    const struct tsync__sample_opts *o;
    uint32_t last_a, last_b;     /* the pair of the last sample, and its edge */
    size_t last_edge;
    int64_t *margins;            /* when set, exchanges only give their E_ij here */
    size_t n_margins;
    int64_t unknown_err;         /* err of a ClockOffset record with stddev 0, ticks */
    int64_t trip_err;            /* what the trace's round trips say, ticks (0: none) */
    struct tsync__intra *intra;
    struct tsync__sample_part *part;  /* one process's part (parts.c), else NULL */
    uint64_t key, sub;           /* the source's key, and its samples so far (part) */
    const struct tsync_coll_member *members; /* of the instances collected */
    uint32_t master;             /* the records' master's domain (TSYNC__NONE: no records) */
    int64_t *trips;              /* E of N-to-N instances between master and another */
    size_t n_trips, cap_trips;
};

/* The sources of samples, in the order of their keys (struct tsync__keyed). */
enum { KEY_MESSAGE = 1, KEY_COLLECTIVE, KEY_OFFSET, KEY_EXCHANGE };

/* The key of source i of a kind above. */
static uint64_t source_key(unsigned kind, uint64_t i)
{
    return (uint64_t)kind << 59 | i;
}

/* The pair of domains a != b, its edge made if new, remembering the last one asked
 * for. */
static int edge_of(struct collector *c, uint32_t a, uint32_t b, struct tsync__pair **e)
{
    if (a != c->last_a || b != c->last_b) {
        struct tsync__edge *edge;
        int rc = tsync__graph_edge(c->g, a, b, &c->last_edge);
        if (rc)
            return rc;
        edge = &c->g->e[c->last_edge];
        if (!edge->pair && !(edge->pair = calloc(1, sizeof(struct tsync__pair))))
            return TSYNC_ENOMEM;
        c->last_a = a;
        c->last_b = b;
    }
    *e = tsync__pair_of(&c->g->e[c->last_edge]);
    return 0;
}

/* Sample s of the last pair (c->last_a, c->last_b) into the part's samples, keyed. */
static int keep(struct collector *c, const struct tsync__sample *s)
{
    struct tsync__sample_part *p = c->part;
    struct tsync__keyed k = { { c->key, c->sub++ },
                              c->last_a < c->last_b ? c->last_a : c->last_b,
                              c->last_a < c->last_b ? c->last_b : c->last_a, *s };
    return TSYNC_PUSH(p->out, p->n_out, p->cap_out, k) ? TSYNC_ENOMEM : 0;
}

/* A one-way constraint (kind ABOVE or BELOW) of pair e. */
static int push_pt(struct collector *c, struct tsync__pair *e, uint8_t kind, tsync_time x,
                   tsync_time y)
{
    struct tsync__pt p = { x, y };
    if (c->part) {
        struct tsync__sample k = { x, y, 0, kind, 0 };
        return keep(c, &k);
    }
    if (kind == TSYNC__ABOVE)
        return TSYNC_PUSH(e->s.above, e->s.n_above, e->s.cap_above, p) ? TSYNC_ENOMEM : 0;
    return TSYNC_PUSH(e->s.below, e->s.n_below, e->s.cap_below, p) ? TSYNC_ENOMEM : 0;
}

/* An exchange sample (kind EXCHANGE) or a record (RECORD) of pair e. */
static int push_exchange(struct collector *c, struct tsync__pair *e, const struct tsync__sample *s)
{
    if (c->part)
        return keep(c, s);
    if (s->kind == TSYNC__RECORD)
        return TSYNC_PUSH(e->s.rec, e->s.n_rec, e->s.cap_rec, *s) ? TSYNC_ENOMEM : 0;
    return TSYNC_PUSH(e->s.exch, e->s.n_exch, e->s.cap_exch, *s) ? TSYNC_ENOMEM : 0;
}

static int64_t mu_between(const struct collector *c, tsync_loc a, tsync_loc b)
{
    const struct tsync_location *L = c->t->locations;
    return tsync__latency_mu(&c->o->lat, L[a].node, L[b].node);
}

/* What a message is, for the edge's sources (tsync_estimate_sources). */
enum from { FROM_MESSAGE, FROM_COLLECTIVE, FROM_SESSION };

/* A message, point-to-point or logical, from domain ds (sent at ts) to domain
 * dr != ds (received at tr): its one-way constraint. */
static int add_constraint(struct collector *c, uint32_t ds, uint32_t dr, tsync_time ts,
                          tsync_time tr, int64_t mu, enum from from)
{
    struct tsync__pair *e;
    int rc;
    if ((rc = edge_of(c, ds, dr, &e)))
        return rc;
    e->from.messages += from == FROM_MESSAGE;
    e->from.collectives += from == FROM_COLLECTIVE;
    e->from.sessions += from == FROM_SESSION;
    if (ds < dr)
        return push_pt(c, e, TSYNC__ABOVE, ts, tr - mu);
    return push_pt(c, e, TSYNC__BELOW, tr - mu, ts);
}

/* A message inside domain d, sent at ts and received at tr: a check of d (id: the
 * message's index in the whole trace). */
static void check_domain(const struct collector *c, uint32_t d, tsync_time ts, tsync_time tr,
                         uint64_t id, struct tsync__intra *intra)
{
    intra->messages++;
    if (ts > tr) {
        intra->reversed++;
        if (ts - tr > CONTRADICTION_FACTOR * c->o->lat.max)
            intra->contradicting++;
        if (ts - tr > intra->max_reversal) {
            intra->max_reversal = ts - tr;
            intra->worst_domain = d;
            intra->worst_message = id;
        }
    }
}

/* The index of message i in the whole trace. */
static uint64_t message_id(const struct tsync_trace *t, size_t i)
{
    return t->message_ids ? t->message_ids[i] : i;
}

/* Message i (of a synchronization session or not): a one-way constraint, or a check
 * of its domain. */
static int add_message(struct collector *c, size_t i, int session)
{
    const struct tsync_location *L = c->t->locations;
    const struct tsync_message *m = &c->t->messages[i];
    uint32_t ds = L[m->send_loc].domain, dr = L[m->recv_loc].domain;
    tsync_time ts = tsync__message_send_time(c->t, i), tr = L[m->recv_loc].time[m->recv_idx];
    int64_t mu = mu_between(c, m->send_loc, m->recv_loc);

    uint64_t id = message_id(c->t, i);

    c->key = source_key(KEY_MESSAGE, id);
    c->sub = 0;
    if (ds == dr) {
        check_domain(c, ds, ts, tr, id, c->intra);
        return 0;
    }
    return add_constraint(c, ds, dr, ts, tr, mu, session ? FROM_SESSION : FROM_MESSAGE);
}

/* The messages this process receives (all of them, serially). */
static int collect_messages(struct collector *c)
{
    const struct tsync_trace *t = c->t;
    for (size_t i = 0, s = 0; i < t->n_messages; i++) {
        int session = s < t->n_session_messages && t->session_messages[s] == i, rc;
        s += session;
        if (tsync__held(t, t->messages[i].recv_loc) && (rc = add_message(c, i, session)))
            return rc;
    }
    return 0;
}

/* The messages of list m as add_message makes them, the constraints in place in
 * its array, which the edge takes when it has none of their kind yet (else they
 * are appended; m keeps its array to be freed). */
static int add_list(struct collector *c, struct tsync_message_list *m)
{
    const struct tsync_location *L = c->t->locations;
    uint32_t ds = L[m->send_loc].domain, dr = L[m->recv_loc].domain;
    int64_t mu = mu_between(c, m->send_loc, m->recv_loc);
    struct tsync__pair *e;
    struct tsync__pt **v;
    size_t *n, *cap;
    int rc;

    if (ds == dr) {
        for (size_t k = 0; k < m->n; k++)
            check_domain(c, ds, m->v[k].x, m->v[k].y, 0, c->intra);
        return 0;
    }
    if ((rc = edge_of(c, ds, dr, &e)))
        return rc;
    e->from.messages += m->n;
    if (ds < dr) {              /* ABOVE (send, receive - mu) */
        for (size_t k = 0; k < m->n; k++)
            m->v[k].y -= mu;
        v = &e->s.above, n = &e->s.n_above, cap = &e->s.cap_above;
    } else {                    /* BELOW (receive - mu, send) */
        for (size_t k = 0; k < m->n; k++) {
            tsync_time ts = m->v[k].x;
            m->v[k].x = m->v[k].y - mu;
            m->v[k].y = ts;
        }
        v = &e->s.below, n = &e->s.n_below, cap = &e->s.cap_below;
    }
    if (*n == 0) {
        free(*v);
        *v = m->v;
        *n = m->n;
        *cap = m->cap;
        m->v = NULL;
        m->n = m->cap = 0;
        return 0;
    }
    if (tsync__reserve((void **)v, cap, *n + m->n, sizeof(**v)))
        return TSYNC_ENOMEM;
    memcpy(*v + *n, m->v, m->n * sizeof(**v));
    *n += m->n;
    return 0;
}

/* One ClockOffset record with uncertainty err: two one-way constraints (and an
 * exchange) around the measured point. */
static int add_offset(struct collector *c, const struct tsync_clock_offset *r, uint32_t master,
                      int64_t err)
{
    uint32_t d = c->t->locations[r->loc].domain;
    tsync_time global = r->time + r->offset, x, y;
    struct tsync__pair *e;
    struct tsync__sample rec;
    int rc;
    if ((rc = edge_of(c, d, master, &e)))
        return rc;
    x = d < master ? r->time : global;
    y = d < master ? global : r->time;
    e->from.offsets++;
    rec = (struct tsync__sample){ x, y, err, TSYNC__RECORD, 1 };
    if ((rc = push_pt(c, e, TSYNC__ABOVE, x, y + err)) ||
        (rc = push_pt(c, e, TSYNC__BELOW, x, y - err)) || (rc = push_exchange(c, e, &rec)))
        return rc;
    if (c->o->exchanges) {
        struct tsync__sample s = { x, y, err, TSYNC__EXCHANGE, 1 };
        return push_exchange(c, e, &s);
    }
    return 0;
}

/* ---- collectives ------------------------------------------------------------------------ */

/* The logical messages of one collective instance (seed 002, section 4.1; roles
 * by tsync__coll_role) seen per domain: every logical message from domain A to
 * domain B says f_AB(begin) + mu <= end, and f is monotone, so of all of them only
 * the latest begin in A against the earliest end in B binds. One pass over the
 * members finds both per domain; the instance then gives one constraint per
 * ordered pair of domains with a send and a receive, whatever the number of
 * members (an N-to-N instance of 64 ranks on 16 nodes: 240, not 4032). The
 * latency is that of the two locations chosen, as the CLC's collective bound
 * (clc/collective.c) uses it. Scan and exscan deliver only upward in comm rank:
 * the members are visited rank by rank, each receive against the latest send so
 * far of every other domain (O(members x domains) per instance; scans are rare). */
struct coll_ends {
    uint64_t epoch, *s_stamp, *r_stamp;
    tsync_time *s_time, *r_time;
    tsync_loc *s_loc, *r_loc;
    uint32_t *s_dom, *r_dom;     /* the domains with a send (a receive) so far */
    uint32_t n_s, n_r;
};

static void coll_ends_free(struct coll_ends *ce)
{
    free(ce->s_stamp);
    free(ce->r_stamp);
    free(ce->s_time);
    free(ce->r_time);
    free(ce->s_loc);
    free(ce->r_loc);
    free(ce->s_dom);
    free(ce->r_dom);
}

static int coll_ends_init(struct coll_ends *ce, uint32_t n_domains)
{
    size_t n = n_domains ? n_domains : 1;
    memset(ce, 0, sizeof(*ce));
    ce->s_stamp = calloc(n, sizeof(*ce->s_stamp));
    ce->r_stamp = calloc(n, sizeof(*ce->r_stamp));
    ce->s_time = malloc(n * sizeof(*ce->s_time));
    ce->r_time = malloc(n * sizeof(*ce->r_time));
    ce->s_loc = malloc(n * sizeof(*ce->s_loc));
    ce->r_loc = malloc(n * sizeof(*ce->r_loc));
    ce->s_dom = malloc(n * sizeof(*ce->s_dom));
    ce->r_dom = malloc(n * sizeof(*ce->r_dom));
    if (!ce->s_stamp || !ce->r_stamp || !ce->s_time || !ce->r_time || !ce->s_loc || !ce->r_loc ||
        !ce->s_dom || !ce->r_dom) {
        coll_ends_free(ce);
        return TSYNC_ENOMEM;
    }
    return 0;
}

/* Notes a logical send (latest = 1: the latest per domain counts) or receive (the
 * earliest) of location loc at t. */
static void coll_note(struct coll_ends *ce, int send, uint32_t d, tsync_loc loc, tsync_time t)
{
    uint64_t *stamp = send ? ce->s_stamp : ce->r_stamp;
    tsync_time *time = send ? ce->s_time : ce->r_time;
    tsync_loc *where = send ? ce->s_loc : ce->r_loc;
    if (stamp[d] != ce->epoch) {
        stamp[d] = ce->epoch;
        if (send)
            ce->s_dom[ce->n_s++] = d;
        else
            ce->r_dom[ce->n_r++] = d;
    } else if (send ? t <= time[d] : t >= time[d]) {
        return;
    }
    time[d] = t;
    where[d] = loc;
}

/* The begin (end = 0) or end time of member i of instance co. */
static tsync_time member_time(const struct collector *c, const struct tsync_collective *co,
                              uint32_t i, int end)
{
    return tsync__member_time(c->t, c->part ? c->part->whole : NULL, co, i, end);
}

/* Members [b, e) of an instance that send, noted. */
static void coll_note_sends(struct collector *c, struct coll_ends *ce,
                            const struct tsync_collective *co, uint32_t b, uint32_t e)
{
    const struct tsync_location *L = c->t->locations;
    const struct tsync_coll_member *m = &c->members[co->first_member];
    for (uint32_t i = b; i < e; i++)
        if (tsync__coll_role(co, &m[i]) & TSYNC_COLL_SENDS)
            coll_note(ce, 1, L[m[i].loc].domain, m[i].loc, member_time(c, co, i, 0));
}

/* The receive of location loc at tr against the latest send of every other domain
 * noted so far. */
static int coll_receive(struct collector *c, const struct coll_ends *ce, tsync_loc loc,
                        tsync_time tr)
{
    uint32_t dr = c->t->locations[loc].domain;
    for (uint32_t k = 0; k < ce->n_s; k++) {
        uint32_t ds = ce->s_dom[k];
        int rc;
        if (ds != dr && (rc = add_constraint(c, ds, dr, ce->s_time[ds], tr,
                                             mu_between(c, ce->s_loc[ds], loc), FROM_COLLECTIVE)))
            return rc;
    }
    return 0;
}

/* The round trips of an N-to-N instance between the records' master's domain and
 * each other domain with a send and a receive in it (see the top). */
static int note_trips(struct collector *c, const struct coll_ends *ce)
{
    uint32_t m = c->master;
    if (m == TSYNC__NONE || ce->s_stamp[m] != ce->epoch || ce->r_stamp[m] != ce->epoch)
        return 0;
    for (uint32_t k = 0; k < ce->n_r; k++) {
        uint32_t b = ce->r_dom[k];
        int64_t e;
        if (b == m || ce->s_stamp[b] != ce->epoch)
            continue;
        e = ((ce->r_time[m] - ce->s_time[m]) + (ce->r_time[b] - ce->s_time[b])) / 2;
        if (TSYNC_PUSH(c->trips, c->n_trips, c->cap_trips, e > 0 ? e : 0))
            return TSYNC_ENOMEM;
    }
    return 0;
}

static int add_collective(struct collector *c, struct coll_ends *ce,
                          const struct tsync_collective *co)
{
    const struct tsync_location *L = c->t->locations;
    const struct tsync_coll_member *m = &c->members[co->first_member];
    uint32_t n = co->n_members;
    int rc;
    ce->epoch++;
    ce->n_s = ce->n_r = 0;
    if (co->cls == TSYNC_COLL_SCAN || co->cls == TSYNC_COLL_EXSCAN) {
        for (uint32_t b = 0, e; b < n; b = e) {    /* runs of one comm rank, upward */
            for (e = b + 1; e < n && m[e].comm_rank == m[b].comm_rank; e++)
                ;
            if (co->cls == TSYNC_COLL_SCAN)         /* scan delivers to its own rank */
                coll_note_sends(c, ce, co, b, e);
            for (uint32_t i = b; i < e; i++)
                if ((tsync__coll_role(co, &m[i]) & TSYNC_COLL_RECVS) &&
                    (rc = coll_receive(c, ce, m[i].loc, member_time(c, co, i, 1))))
                    return rc;
            if (co->cls == TSYNC_COLL_EXSCAN)
                coll_note_sends(c, ce, co, b, e);
        }
        return 0;
    }
    coll_note_sends(c, ce, co, 0, n);
    for (uint32_t i = 0; i < n; i++)
        if (tsync__coll_role(co, &m[i]) & TSYNC_COLL_RECVS)
            coll_note(ce, 0, L[m[i].loc].domain, m[i].loc, member_time(c, co, i, 1));
    for (uint32_t k = 0; k < ce->n_r; k++) {
        uint32_t dr = ce->r_dom[k];
        if ((rc = coll_receive(c, ce, ce->r_loc[dr], ce->r_time[dr])))
            return rc;
    }
    return co->cls == TSYNC_COLL_N_TO_N ? note_trips(c, ce) : 0;
}

/* The instances of this process's part (all of them, serially). */
static int collect_collectives(struct collector *c)
{
    const struct tsync_coll_whole *w = c->part ? c->part->whole : NULL;
    const struct tsync_collective *co = w ? w->collectives : c->t->collectives;
    size_t n = w ? w->n_collectives : c->part ? 0 : c->t->n_collectives;
    struct coll_ends ce;
    int rc = 0;
    if (n == 0)
        return 0;
    if (coll_ends_init(&ce, c->t->n_domains))
        return TSYNC_ENOMEM;
    c->members = w ? w->members : c->t->members;
    for (size_t q = 0; q < n && rc == 0; q++) {
        c->key = source_key(KEY_COLLECTIVE, w ? w->ids[q] : q);
        c->sub = 0;
        rc = add_collective(c, &ce, &co[q]);
    }
    coll_ends_free(&ce);
    return rc;
}

/* ---- exchanges -------------------------------------------------------------------------- */

/* Prompt receives. Seed 003's exchanges come from packets stamped as they arrive;
 * an MPI receive is recorded when its call hands the message over: at the arrival
 * only when the call was already waiting for it. A receive posted late records
 * when its call found the message, and the exchange's round trip grows by the
 * wait, which the model does not have. The receive's record follows the event
 * before it on its location (the Enter of MPI_Recv or MPI_Wait..., or the previous
 * completion in one MPI_Waitall) by the call's own cost when the message was
 * there, and later when the call had to wait. So a receive counts as prompt when
 * that step exceeds the shortest such step of any receive on its location (the
 * call's cost) by more than the message's minimum latency: the call waited, and
 * the message came while it did. A CSV's times are the messages' own, as seed
 * 003's packets: every receive is prompt. step[] holds, per location, that
 * shortest step (INT64_MAX: no receive after another event). */
static int recv_steps(const struct tsync_trace *t, int64_t **out)
{
    int64_t *step = malloc((t->n_locations ? t->n_locations : 1) * sizeof(*step));
    if (!step)
        return TSYNC_ENOMEM;
    for (tsync_loc l = 0; l < t->n_locations; l++)
        step[l] = INT64_MAX;
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        const tsync_time *time = t->locations[m->recv_loc].time;
        if (tsync__held(t, m->recv_loc) && m->recv_idx > 0 &&
            time[m->recv_idx] - time[m->recv_idx - 1] < step[m->recv_loc])
            step[m->recv_loc] = time[m->recv_idx] - time[m->recv_idx - 1];
    }
    *out = step;
    return 0;
}

static int is_prompt(const struct collector *c, const int64_t *step, const struct tsync_message *m)
{
    const tsync_time *time = c->t->locations[m->recv_loc].time;
    if (c->t->format == TSYNC_FORMAT_CSV)
        return 1;
    return m->recv_idx > 0 && step[m->recv_loc] != INT64_MAX &&
           time[m->recv_idx] - time[m->recv_idx - 1] - step[m->recv_loc] >
               mu_between(c, m->send_loc, m->recv_loc);
}

static int hop_cmp(const void *pa, const void *pb)
{
    const struct tsync__hop *x = pa, *y = pb;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* An event on the answering location: a ping arriving, or an answer leaving. */
struct beat {
    tsync_time t;
    uint8_t is_ping;
    const struct tsync__hop *h;
};

static int beat_cmp(const void *pa, const void *pb)
{
    const struct beat *x = pa, *y = pb;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (int)y->is_ping - (int)x->is_ping;   /* a ping arrives before its answer leaves */
}

/* The exchange of ping p (i -> j) and answer q (j -> i); i is location `pinger`. */
static int add_exchange(struct collector *c, tsync_loc pinger, const struct tsync__hop *p,
                        const struct tsync__hop *q)
{
    const struct tsync_location *L = c->t->locations;
    tsync_time t1 = p->send, t2 = p->recv, t3 = q->send, t4 = q->recv;
    uint32_t di = L[pinger].domain, dj = L[pinger == p->a ? p->b : p->a].domain;
    struct tsync__sample s;
    struct tsync__pair *e;
    int rc;
    if (t4 < t1 || t3 < t2)
        return 0;
    if (c->margins) {
        c->margins[c->n_margins++] = ((t4 - t1) - (t3 - t2)) / 2;   /* E_ij */
        return 0;
    }
    tsync_time mi = t1 + (t4 - t1) / 2, mj = t2 + (t3 - t2) / 2;
    if ((rc = edge_of(c, di, dj, &e)))
        return rc;
    s.x = di < dj ? mi : mj;
    s.y = di < dj ? mj : mi;
    s.err = ((t4 - t1) - (t3 - t2)) / 2;                    /* E_ij */
    s.kind = TSYNC__EXCHANGE;
    s.measured = 0;
    return push_exchange(c, e, &s);
}

/* Pings from `pinger` answered by the other location of the group h[0, n). */
static int pair_up(struct collector *c, const struct tsync__hop *h, size_t n, tsync_loc pinger,
                   struct beat *beats)
{
    const struct tsync__hop *pending = NULL;
    size_t nb = 0;
    for (size_t k = 0; k < n; k++) {
        int from_pinger = (h[k].a_to_b != 0) == (h[k].a == pinger);
        beats[nb].h = &h[k];
        beats[nb].is_ping = (uint8_t)from_pinger;
        beats[nb].t = from_pinger ? h[k].recv : h[k].send;  /* both on the answerer's clock */
        nb++;
    }
    qsort(beats, nb, sizeof(*beats), beat_cmp);
    for (size_t k = 0; k < nb; k++) {
        if (beats[k].is_ping) {
            pending = beats[k].h->prompt ? beats[k].h : NULL;
        } else if (pending) {
            int rc = beats[k].h->prompt ? add_exchange(c, pinger, pending, beats[k].h) : 0;
            if (rc)
                return rc;
            pending = NULL;
        }
    }
    return 0;
}

/* The hops of the messages this process receives (all, serially) between two
 * domains, in message order: *out (malloc'ed), *n_out of them. */
static int build_hops(struct collector *c, struct tsync__hop **out, size_t *n_out)
{
    const struct tsync_trace *t = c->t;
    const struct tsync_location *L = t->locations;
    struct tsync__hop *hops = malloc((t->n_messages ? t->n_messages : 1) * sizeof(*hops));
    int64_t *step = NULL;
    size_t n = 0;
    if (!hops || recv_steps(t, &step)) {
        free(hops);
        return TSYNC_ENOMEM;
    }
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (!tsync__held(t, m->recv_loc) || L[m->send_loc].domain == L[m->recv_loc].domain)
            continue;
        hops[n].a = m->send_loc < m->recv_loc ? m->send_loc : m->recv_loc;
        hops[n].b = m->send_loc < m->recv_loc ? m->recv_loc : m->send_loc;
        hops[n].a_to_b = m->send_loc < m->recv_loc;
        hops[n].send = tsync__message_send_time(t, i);
        hops[n].recv = L[m->recv_loc].time[m->recv_idx];
        hops[n].prompt = (uint8_t)is_prompt(c, step, m);
        hops[n].id = message_id(t, i);
        n++;
    }
    free(step);
    *out = hops;
    *n_out = n;
    return 0;
}

/* The exchanges of hops, all of those of each pair of locations they have: sorted
 * by pair, each pair's in message order, and paired up from both ends. */
static int pair_hops(struct collector *c, struct tsync__hop *hops, size_t n)
{
    struct beat *beats = malloc((n ? n : 1) * sizeof(*beats));
    int rc = 0;
    if (!beats)
        return TSYNC_ENOMEM;
    qsort(hops, n, sizeof(*hops), hop_cmp);
    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i;
        while (j < n && hops[j].a == hops[i].a && hops[j].b == hops[i].b)
            j++;
        c->key = source_key(KEY_EXCHANGE, (uint64_t)hops[i].a * c->t->n_locations + hops[i].b);
        c->sub = 0;
        if ((rc = pair_up(c, hops + i, j - i, hops[i].a, beats)) == 0)
            rc = pair_up(c, hops + i, j - i, hops[i].b, beats);
        i = j;
    }
    free(beats);
    return rc;
}

static int collect_exchanges(struct collector *c)
{
    struct tsync__hop *hops;
    size_t n;
    int rc = build_hops(c, &hops, &n);
    if (rc == 0)
        rc = pair_hops(c, hops, n);
    free(hops);
    return rc;
}

static int i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The error margins E_ij of the exchanges of hops (as pair_hops pairs them), into
 * *margins (malloc'ed, *n_margins of them). */
static int exchange_margins(struct collector *c, struct tsync__hop *hops, size_t n,
                            int64_t **margins, size_t *n_margins)
{
    int rc;
    if (!(c->margins = malloc((n ? n : 1) * sizeof(*c->margins))))
        return TSYNC_ENOMEM;
    c->n_margins = 0;
    rc = pair_hops(c, hops, n);
    *margins = c->margins;
    *n_margins = c->n_margins;
    c->margins = NULL;
    if (rc) {
        free(*margins);
        *margins = NULL;
    }
    return rc;
}

/* The uncertainty of a ClockOffset record (see the top): 2 h - mu with h the 10th
 * percentile of the exchanges' half round trips (trip_err); with stddev 0, at least
 * one minimum latency; a recorded deviation only widens trip_err (it measures the
 * spread of the exchanges a session kept, not how far their delays were from equal
 * both ways). half_rtt: h. */
static void set_trip_err(struct collector *c, int64_t half_rtt)
{
    c->trip_err = 2 * half_rtt - c->o->lat.inter;
    if (c->trip_err > c->unknown_err)
        c->unknown_err = c->trip_err;
}

/* set_trip_err from every exchange of the trace (the fastest tenth's), else from
 * the fastest round trip of its N-to-N collectives (see the top). */
static int unknown_offset_error(struct collector *c)
{
    struct tsync__hop *hops;
    int64_t *margins = NULL;
    size_t n, n_margins = 0;
    int rc = build_hops(c, &hops, &n);
    if (rc == 0 && (rc = exchange_margins(c, hops, n, &margins, &n_margins)) == 0) {
        if (n_margins) {
            qsort(margins, n_margins, sizeof(*margins), i64_cmp);
            set_trip_err(c, margins[n_margins / 10]);
        } else if (c->n_trips) {
            int64_t least = c->trips[0];
            for (size_t i = 1; i < c->n_trips; i++)
                least = c->trips[i] < least ? c->trips[i] : least;
            set_trip_err(c, least);
        }
    }
    free(margins);
    free(hops);
    return rc;
}

/* The uncertainty of record r taken alone (see the top), ticks. */
static int64_t record_error(const struct collector *c, const struct tsync_clock_offset *r)
{
    int64_t err = r->stddev <= 0                          ? c->unknown_err
                  : 3 * r->stddev > (double)c->trip_err ? (int64_t)ceil(3 * r->stddev)
                                                        : c->trip_err;
    return err < 1 ? 1 : err;
}

/* A record of a domain other than the master's, for the check against its
 * neighbours. */
struct record {
    uint32_t domain;
    tsync_time time;
    size_t i;
};

static int record_cmp(const void *pa, const void *pb)
{
    const struct record *a = pa, *b = pb;
    if (a->domain != b->domain)
        return a->domain < b->domain ? -1 : 1;
    return a->time < b->time ? -1 : a->time > b->time;
}

/* err[i] of every record (records of the master's domain or of no location: 0):
 * its own uncertainty, widened where another record of its domain contradicts it
 * (see the top). */
static int record_errors(const struct collector *c, uint32_t master, int64_t *err)
{
    const struct tsync_trace *t = c->t;
    size_t n = t->n_offsets, m = 0;
    struct record *v = malloc((n ? n : 1) * sizeof(*v));
    int64_t *own = malloc((n ? n : 1) * sizeof(*own));
    if (!v || !own) {
        free(v);
        free(own);
        return TSYNC_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const struct tsync_clock_offset *r = &t->offsets[i];
        err[i] = own[i] = 0;
        if (r->loc >= t->n_locations || t->locations[r->loc].domain == master)
            continue;
        err[i] = own[i] = record_error(c, r);
        v[m++] = (struct record){ t->locations[r->loc].domain, r->time, i };
    }
    qsort(v, m, sizeof(*v), record_cmp);
    for (size_t k = 0; k < m; k++)
        for (size_t j = k + 1; j < m && v[j].domain == v[k].domain &&
                               v[j].time - v[k].time <= c->o->session; j++) {
            size_t a = v[k].i, b = v[j].i;
            int64_t apart = llabs(t->offsets[a].offset - t->offsets[b].offset);
            int64_t drift = (int64_t)ceil(c->o->max_drift * (double)(v[j].time - v[k].time));
            if (apart - drift <= own[a] + own[b])
                continue;       /* a line of drift <= max_drift passes both */
            if (apart + drift + own[b] > err[a])
                err[a] = apart + drift + own[b];
            if (apart + drift + own[a] > err[b])
                err[b] = apart + drift + own[a];
        }
    free(v);
    free(own);
    return 0;
}

/* The samples of every ClockOffset record, once the uncertainty is known. */
static int add_offsets(struct collector *c)
{
    const struct tsync_trace *t = c->t;
    uint32_t master = t->locations[t->rank_loc[0]].domain;
    int64_t *err = malloc((t->n_offsets ? t->n_offsets : 1) * sizeof(*err));
    int rc;
    if (!err)
        return TSYNC_ENOMEM;
    if ((rc = record_errors(c, master, err)) == 0)
        for (size_t i = 0; i < t->n_offsets && rc == 0; i++)
            if (err[i]) {
                c->key = source_key(KEY_OFFSET, i);
                c->sub = 0;
                rc = add_offset(c, &t->offsets[i], master, err[i]);
            }
    free(err);
    return rc;
}

int tsync__samples_use_offsets(const struct tsync_trace *t, const struct tsync__sample_opts *o)
{
    return o->offsets && t->n_offsets && t->n_ranks > 0 && t->rank_loc &&
           t->rank_loc[0] < t->n_locations;
}

/* A collector of the whole trace (part NULL) or of one process's part. */
static void collector_init(struct collector *c, struct tsync__graph *g, const struct tsync_trace *t,
                           const struct tsync__sample_opts *o, struct tsync__intra *intra,
                           struct tsync__sample_part *part)
{
    memset(c, 0, sizeof(*c));
    c->g = g;
    c->t = t;
    c->o = o;
    c->last_a = c->last_b = TSYNC__NONE;
    c->unknown_err = o->lat.inter;
    c->master = tsync__samples_use_offsets(t, o) ? t->locations[t->rank_loc[0]].domain : TSYNC__NONE;
    c->intra = intra;
    c->part = part;
    memset(intra, 0, sizeof(*intra));
}

int tsync__collect_samples(struct tsync__graph *g, const struct tsync_trace *t,
                           struct tsync_message_list *lists, size_t n_lists,
                           const struct tsync__sample_opts *o, struct tsync__intra *intra)
{
    struct collector c;
    int rc = 0;
    collector_init(&c, g, t, o, intra, NULL);
    for (size_t i = 0; i < n_lists; i++) {   /* each freed as soon as it is made samples */
        if (rc == 0)
            rc = add_list(&c, &lists[i]);
        free(lists[i].v);
        free(lists[i].blocks);
        lists[i].v = NULL;
        lists[i].blocks = NULL;
    }
    free(lists);
    if (rc || (rc = collect_messages(&c)) || (rc = collect_collectives(&c)))
        return rc;
    if (tsync__samples_use_offsets(t, o) && (rc = unknown_offset_error(&c)) == 0)
        rc = add_offsets(&c);
    free(c.trips);
    if (rc)
        return rc;
    if (o->exchanges && (rc = collect_exchanges(&c)))
        return rc;
    for (size_t i = 0; i < g->n_edges; i++)
        if ((rc = tsync__pair_samples_sort(&tsync__pair_of(&g->e[i])->s)))
            return rc;
    return 0;
}

/* ---- a trace held in parts ---------------------------------------------------------------- */

struct tsync__collector {
    struct collector c;
};

int tsync__part_collector_new(struct tsync__collector **out, struct tsync__graph *g,
                              const struct tsync_trace *t, const struct tsync__sample_opts *o,
                              struct tsync__intra *intra, struct tsync__sample_part *part)
{
    if (!(*out = malloc(sizeof(**out))))
        return TSYNC_ENOMEM;
    collector_init(&(*out)->c, g, t, o, intra, part);
    return 0;
}

void tsync__part_collector_free(struct tsync__collector *c)
{
    if (c)
        free(c->c.trips);
    free(c);
}

int tsync__collect_part_messages(struct tsync__collector *pc, struct tsync__hop **hops, size_t *n)
{
    struct collector *c = &pc->c;
    int rc;
    *hops = NULL;
    *n = 0;
    if ((rc = collect_messages(c)) || (rc = collect_collectives(c)))
        return rc;
    if (c->o->exchanges || tsync__samples_use_offsets(c->t, c->o))
        return build_hops(c, hops, n);
    return 0;
}

int tsync__collect_part_exchanges(struct tsync__collector *pc, struct tsync__hop *hops, size_t n,
                                  int64_t **margins, size_t *n_margins)
{
    struct collector *c = &pc->c;
    int rc = 0;
    *margins = NULL;
    *n_margins = 0;
    if (tsync__samples_use_offsets(c->t, c->o))
        rc = exchange_margins(c, hops, n, margins, n_margins);
    if (rc == 0 && c->o->exchanges)
        rc = pair_hops(c, hops, n);
    return rc;
}

void tsync__collect_part_trips(struct tsync__collector *pc, int64_t **trips, size_t *n)
{
    *trips = pc->c.trips;
    *n = pc->c.n_trips;
    pc->c.trips = NULL;
    pc->c.n_trips = pc->c.cap_trips = 0;
}

int tsync__collect_part_offsets(struct tsync__collector *pc, int have, int64_t half_rtt)
{
    struct collector *c = &pc->c;
    if (!tsync__samples_use_offsets(c->t, c->o))
        return 0;
    if (have)
        set_trip_err(c, half_rtt);
    return c->part->rank == 0 ? add_offsets(c) : 0;
}
