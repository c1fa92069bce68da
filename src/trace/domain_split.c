/* domain_split.c - clock domains that the trace's own messages contradict, split into
 * the groups of locations the messages support (the default grouping,
 * TSYNC_DOMAIN_AUTO).
 *
 * By default all locations of a node share one clock. With one clock a message cannot
 * arrive before it was sent; where messages between two locations of one domain do,
 * by more than `limit` (10 minimum latencies: far more than a shared clock read on two
 * cores can differ), those locations do not share a clock. EZTrace's ranks, for one,
 * each start their clock at their own time, tens of milliseconds apart.
 *
 * Such a domain is split. Two of its locations stay together when messages go both
 * ways between them and none contradicts one clock: messages in one direction only
 * bound the offset on one side, and a clock 30 ms ahead looks the same as a shared one
 * to them. Groups are joined pair by pair, the pairs with the most messages first,
 * and never so that a group holds two locations whose messages contradict each other
 * (union-find with that constraint). A location left alone gets a domain of its own,
 * named as by TSYNC_DOMAIN_LOCATION; a group of several is named after the domain and
 * its number ("node3.1"). Domains the messages do not contradict are kept as they are.
 *
 * The logical messages of collectives count as messages (seed 002, section 4.1:
 * a sending member's begin to a receiving member's end; scans left out): a trace of
 * collectives only, its ranks each on a clock of its own, was otherwise kept one
 * domain per node, its maps 17 ms off and 41 % of its events outside their bounds.
 *
 * On the processes of the MPI replay each counts the messages its locations
 * receive (the sends' times come with the trace) and the instances it matched
 * whole (t->whole), and the counts are reduced over them, so that every process
 * decides what one process would; every reduction comes before the steps that only
 * this process takes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/units.h"

/* More locations in one contradicted domain than this are split one per location:
 * the pairwise table would grow with the square. */
#define MAX_PAIRWISE 256

/* Messages inside each domain: how many, how many contradict one clock, the worst. */
struct inside {
    uint64_t messages, contradicting;
    int64_t max_reversal;
};

/* Messages from location a to location b of one domain. */
struct pair_stat {
    uint32_t n;
    uint8_t contradicts;
};

struct cand {
    uint32_t a, b, n;
};

static int cand_cmp(const void *pa, const void *pb)
{
    const struct cand *x = pa, *y = pb;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return x->b < y->b ? -1 : x->b > y->b;
}

static uint32_t find(uint32_t *up, uint32_t x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

/* Whether any process failed (failed: this one); alone, whether it did. */
static int any_failed(const struct tsync__reducer *red, int failed)
{
    int64_t f = failed;
    if (red && red->reduce(red->arg, &f, 1, 0))
        return 1;
    return f != 0;
}

/* v[0, n) reduced over the processes (sum, or the maximum); alone, as it is. 0, or
 * -1 when the reduction failed. */
static int reduce(const struct tsync__reducer *red, int64_t *v, size_t n, int sum)
{
    return red && red->reduce(red->arg, v, (int)n, sum) ? -1 : 0;
}

/* What a message inside one domain is seen with: from location s to r, its
 * reversal (send time minus receive time), and whether it is a collective's logical
 * message. */
typedef void (*inside_fn)(void *arg, tsync_loc s, tsync_loc r, int64_t reversal, int logical);

/* The collective instances this process counts (those it holds whole in the replay,
 * alone all of them): their number, *co and their members *mem. */
static size_t held_instances(const struct tsync_trace *t, const struct tsync_collective **co,
                             const struct tsync_coll_member **mem)
{
    const struct tsync_coll_whole *w = t->whole;
    *co = w ? w->collectives : t->collectives;
    *mem = w ? w->members : t->members;
    return w ? w->n_collectives : t->held ? 0 : t->n_collectives;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* visit for every message between two locations of one domain that this process
 * counts: the point-to-point ones its locations receive, and the logical messages
 * of the collective instances it holds whole (alone: all of them), each sender
 * against the receivers of its domain only (an instance of 1024 ranks on nodes of
 * 64 has 64 x 64 such pairs a node, not 1024 x 1024). scratch: room for the
 * largest instance's members. */
static void each_inside(const struct tsync_trace *t, uint64_t *scratch, inside_fn visit, void *arg)
{
    const struct tsync_location *L = t->locations;
    const struct tsync_collective *co;
    const struct tsync_coll_member *mem;
    size_t nc = held_instances(t, &co, &mem);
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (L[m->send_loc].domain == L[m->recv_loc].domain && m->send_loc != m->recv_loc &&
            tsync__held(t, m->recv_loc))
            visit(arg, m->send_loc, m->recv_loc,
                  tsync__message_send_time(t, i) - L[m->recv_loc].time[m->recv_idx], 0);
    }
    for (size_t q = 0; q < nc; q++) {
        const struct tsync_coll_member *m = mem + co[q].first_member;
        uint32_t n = co[q].n_members, k = 0;
        if (co[q].cls == TSYNC_COLL_SCAN || co[q].cls == TSYNC_COLL_EXSCAN)
            continue;
        for (uint32_t i = 0; i < n; i++)    /* the members that receive, by domain */
            if (m[i].recvs)
                scratch[k++] = (uint64_t)L[m[i].loc].domain << 32 | i;
        qsort(scratch, k, sizeof(*scratch), u64_cmp);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t d = L[m[i].loc].domain;
            uint32_t lo = 0, hi = k;
            if (!m[i].sends)
                continue;
            while (lo < hi) {           /* the first receiver of i's domain */
                uint32_t mid = lo + (hi - lo) / 2;
                if (scratch[mid] >> 32 < d)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (uint32_t j = lo; j < k && scratch[j] >> 32 == d; j++) {
                uint32_t r = (uint32_t)scratch[j];
                if (m[r].loc != m[i].loc)
                    visit(arg, m[i].loc, m[r].loc,
                          tsync__member_time(t, t->whole, &co[q], i, 0) -
                              tsync__member_time(t, t->whole, &co[q], r, 1), 1);
            }
        }
    }
}

/* Room for the members of the largest collective instance each_inside reads. */
static uint64_t *inside_scratch(const struct tsync_trace *t)
{
    const struct tsync_collective *co;
    const struct tsync_coll_member *mem;
    size_t nc = held_instances(t, &co, &mem);
    uint32_t most = 1;
    for (size_t q = 0; q < nc; q++)
        most = co[q].n_members > most ? co[q].n_members : most;
    return malloc(most * sizeof(uint64_t));
}

/* pair_stats' counts of one domain. */
struct pairs_of {
    const struct tsync_trace *t;
    uint32_t d, k;
    const uint32_t *pos;
    int64_t limit;
    struct pair_stat *ps;
};

/* A logical message contradicts a shared clock as a message does, but one that does
 * not says little: a collective's begin and end are as far apart as its members
 * waited, and clocks as far apart pass (two ranks of the recorded EZTrace sample were
 * joined so, and 7 % of its events lay outside their bounds). Only messages join. */
static void add_pair(void *arg, tsync_loc s, tsync_loc r, int64_t reversal, int logical)
{
    struct pairs_of *pa = arg;
    struct pair_stat *p;
    if (pa->t->locations[s].domain != pa->d)
        return;
    p = &pa->ps[(size_t)pa->pos[s] * pa->k + pa->pos[r]];
    p->n += !logical;
    if (reversal > pa->limit)
        p->contradicts = 1;
}

/* The pairwise counts of domain d's k locations (pos[]: a location's place among
 * them) over every process: ps[a k + b] the messages from a to b and whether one
 * contradicts a shared clock. 0, TSYNC_ENOMEM here, or 1: another process failed. */
static int pair_stats(const struct tsync_trace *t, uint32_t d, uint32_t k, const uint32_t *pos,
                      int64_t limit, const struct tsync__reducer *red, uint64_t *scratch,
                      struct pair_stat *ps)
{
    int64_t *v = red ? calloc((size_t)k * k * 2, sizeof(*v)) : NULL;
    int rc = 0;
    if (any_failed(red, red && !v)) {
        rc = red && !v ? TSYNC_ENOMEM : 1;
        goto out;
    }
    {
        struct pairs_of pa = { t, d, k, pos, limit, ps };
        each_inside(t, scratch, add_pair, &pa);
    }
    if (red) {
        for (size_t j = 0; j < (size_t)k * k; j++) {
            v[j] = ps[j].n;
            v[(size_t)k * k + j] = ps[j].contradicts;
        }
        if (reduce(red, v, (size_t)k * k, 1) || reduce(red, v + (size_t)k * k, (size_t)k * k, 0)) {
            rc = 1;
            goto out;
        }
        for (size_t j = 0; j < (size_t)k * k; j++) {
            ps[j].n = (uint32_t)v[j];
            ps[j].contradicts = (uint8_t)v[(size_t)k * k + j];
        }
    }
out:
    free(v);
    return rc;
}

/* Whether groups ra and rb hold two locations whose messages contradict. */
static int groups_conflict(const struct pair_stat *ps, uint32_t *up, uint32_t k, uint32_t ra,
                           uint32_t rb)
{
    for (uint32_t x = 0; x < k; x++) {
        uint32_t gx = find(up, x);
        if (gx != ra && gx != rb)
            continue;
        for (uint32_t y = 0; y < k; y++)
            if (find(up, y) == (gx == ra ? rb : ra) &&
                (ps[x * k + y].contradicts || ps[y * k + x].contradicts))
                return 1;
    }
    return 0;
}

/* The groups of the k locations of domain d (pos[]: a location's place among them): group[i] in 0 .. *n_groups-1, in
 * order of each group's first location. 0, TSYNC_ENOMEM here, or 1: another
 * process failed. */
static int group_locations(const struct tsync_trace *t, uint32_t d, uint32_t k,
                           const uint32_t *pos, int64_t limit, const struct tsync__reducer *red,
                           uint64_t *scratch, uint32_t *group, uint32_t *n_groups)
{
    struct pair_stat *ps = NULL;
    struct cand *c = NULL;
    uint32_t *up = malloc(k * sizeof(*up)), *id = malloc(k * sizeof(*id)), nc = 0;
    int rc, pairwise = k <= MAX_PAIRWISE, failed;
    if (pairwise) {
        ps = calloc((size_t)k * k, sizeof(*ps));
        c = malloc(((size_t)k * (k - 1) / 2 + 1) * sizeof(*c));
    }
    failed = !up || !id || (pairwise && (!ps || !c));
    if (any_failed(red, failed)) {
        rc = failed ? TSYNC_ENOMEM : 1;
        goto out;
    }
    for (uint32_t i = 0; i < k; i++)
        up[i] = i;
    if (pairwise) {
        if ((rc = pair_stats(t, d, k, pos, limit, red, scratch, ps)))
            goto out;
        for (uint32_t a = 0; a < k; a++)
            for (uint32_t b = a + 1; b < k; b++) {
                const struct pair_stat *ab = &ps[a * k + b], *ba = &ps[b * k + a];
                if (ab->n && ba->n && !ab->contradicts && !ba->contradicts)
                    c[nc++] = (struct cand){ a, b, ab->n + ba->n };
            }
        qsort(c, nc, sizeof(*c), cand_cmp);
        for (uint32_t i = 0; i < nc; i++) {
            uint32_t ra = find(up, c[i].a), rb = find(up, c[i].b);
            if (ra != rb && !groups_conflict(ps, up, k, ra, rb))
                up[rb] = ra;
        }
    }
    *n_groups = 0;
    for (uint32_t i = 0; i < k; i++)
        id[i] = UINT32_MAX;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t root = find(up, i);
        if (id[root] == UINT32_MAX)
            id[root] = (*n_groups)++;
        group[i] = id[root];
    }
    rc = 0;
out:
    free(ps);
    free(c);
    free(up);
    free(id);
    return rc;
}

/* The new domains of domain `d` (its k locations locs[], groups group[]) appended to
 * dom[*nd ...]; every location's new domain in new_dom[]. 0 or TSYNC_ENOMEM. */
static int add_parts(struct tsync_trace *t, uint32_t d, const tsync_loc *locs, uint32_t k,
                     const uint32_t *group, uint32_t n_groups, struct tsync_domain *dom,
                     uint32_t *nd, uint32_t *new_dom, tsync_domain_split *sp)
{
    uint32_t first = *nd, multi = 0;
    uint32_t *parts = malloc(n_groups * sizeof(*parts));
    if (!parts)
        return TSYNC_ENOMEM;
    for (uint32_t g = 0; g < n_groups; g++) {
        uint32_t members = 0, one = 0;
        for (uint32_t i = 0; i < k; i++)
            if (group[i] == g) {
                members++;
                one = i;
            }
        dom[*nd].node = t->domains[d].node;
        dom[*nd].name = members == 1 ? tsync__own_domain_name(t, locs[one])
                                     : tsync__strfmt("%s.%u", t->domains[d].name, ++multi);
        parts[g] = *nd;
        if (!dom[(*nd)++].name) {
            free(parts);
            return TSYNC_ENOMEM;
        }
    }
    for (uint32_t i = 0; i < k; i++)
        new_dom[locs[i]] = first + group[i];
    sp->n_parts = n_groups;
    sp->parts = parts;
    return 0;
}

/* What was split and why, one warning per domain. */
static void warn_split(const struct tsync_trace *t, const tsync_domain_split *sp, tsync_ctx *ctx)
{
    char parts[256], a[32], b[32];
    size_t len = 0;
    for (uint32_t i = 0; i < sp->n_parts && len < sizeof(parts) - 64; i++)
        len += (size_t)snprintf(parts + len, sizeof(parts) - len, "%s\"%s\"", i ? ", " : "",
                                t->domains[sp->parts[i]].name);
    tsync__warn(ctx, "%s: clock domain \"%s\" split into %u (%s%s): %llu of %llu messages "
                "(collectives' logical ones too) between its locations arrive before they were sent, up to %s, more than %s: "
                "they do not share one clock", t->path, sp->name,
                sp->n_parts, parts, len >= sizeof(parts) - 64 ? ", ..." : "",
                (unsigned long long)sp->contradicting, (unsigned long long)sp->messages,
                tsync__fmt_seconds(a, sizeof(a), sp->max_reversal_s),
                tsync__fmt_seconds(b, sizeof(b), sp->limit_s));
}

/* The failure rc of a step (1: another process's), reported. */
static int split_failed(int rc, tsync_ctx *ctx)
{
    return rc == 1 ? tsync__fail(ctx, TSYNC_EIO, "%s", TSYNC_OTHERS_FAILED) : tsync__oom(ctx);
}

/* count_inside's counts. */
struct count_of {
    const struct tsync_trace *t;
    int64_t limit;
    struct inside *in;
};

static void add_count(void *arg, tsync_loc s, tsync_loc r, int64_t reversal, int logical)
{
    struct count_of *co = arg;
    uint32_t d = co->t->locations[s].domain;
    struct inside *in = &co->in[d];
    (void)r;
    (void)logical;
    if (d >= co->t->n_domains)
        return;
    in->messages++;
    if (reversal > co->limit)
        in->contradicting++;
    if (reversal > in->max_reversal)
        in->max_reversal = reversal;
}

/* The messages inside each domain over every process (in[]: this process's on
 * entry). 0, TSYNC_ENOMEM here, or 1: another process failed. */
static int count_inside(const struct tsync_trace *t, int64_t limit, const struct tsync__reducer *red,
                        uint64_t *scratch, struct inside *in)
{
    uint32_t nd = t->n_domains;
    int64_t *v = red ? malloc((nd ? 3 * nd : 1) * sizeof(*v)) : NULL;
    int rc = 0;
    if (any_failed(red, red && !v))
        return red && !v ? TSYNC_ENOMEM : 1;
    {
        struct count_of co = { t, limit, in };
        each_inside(t, scratch, add_count, &co);
    }
    if (red) {
        for (uint32_t d = 0; d < nd; d++) {
            v[d] = (int64_t)in[d].messages;
            v[nd + d] = (int64_t)in[d].contradicting;
            v[2 * nd + d] = in[d].max_reversal;
        }
        if (reduce(red, v, 2 * (size_t)nd, 1) || reduce(red, v + 2 * nd, nd, 0))
            rc = 1;
        for (uint32_t d = 0; rc == 0 && d < nd; d++) {
            in[d].messages = (uint64_t)v[d];
            in[d].contradicting = (uint64_t)v[nd + d];
            in[d].max_reversal = v[2 * nd + d];
        }
    }
    free(v);
    return rc;
}

int tsync__split_domains(struct tsync_trace *t, int64_t limit, const struct tsync__reducer *red,
                         tsync_ctx *ctx)
{
    uint32_t nd_old = t->n_domains, nd = 0, *pos = NULL, *count = NULL, *group = NULL,
             *n_groups = NULL, *new_dom = NULL;
    struct inside *in = calloc(nd_old ? nd_old : 1, sizeof(*in));
    uint64_t *scratch = inside_scratch(t);
    struct tsync_domain *dom = NULL;
    tsync_loc *locs = NULL;
    size_t n_split = 0;
    int rc;

    if (any_failed(red, !in || !scratch)) {
        rc = in && scratch ? 1 : TSYNC_ENOMEM;
        free(in);
        free(scratch);
        return split_failed(rc, ctx);
    }
    t->domain_rule = TSYNC_DOMAIN_AUTO;
    if ((rc = count_inside(t, limit, red, scratch, in))) {
        free(in);
        free(scratch);
        return split_failed(rc, ctx);
    }
    for (uint32_t d = 0; d < nd_old; d++)
        n_split += in[d].contradicting > 0;
    if (!n_split) {
        free(in);
        free(scratch);
        return 0;
    }
    pos = malloc(t->n_locations * sizeof(*pos));
    count = calloc(nd_old, sizeof(*count));
    group = malloc(t->n_locations * sizeof(*group));
    n_groups = malloc(nd_old * sizeof(*n_groups));
    new_dom = malloc(t->n_locations * sizeof(*new_dom));
    locs = malloc(t->n_locations * sizeof(*locs));
    dom = calloc((size_t)nd_old + t->n_locations, sizeof(*dom));
    t->splits = calloc(n_split, sizeof(*t->splits));
    rc = !pos || !count || !group || !n_groups || !new_dom || !locs || !dom || !t->splits;
    if (any_failed(red, rc)) {
        rc = rc ? TSYNC_ENOMEM : 1;
        goto out;
    }
    for (tsync_loc i = 0; i < t->n_locations; i++)
        if (t->locations[i].domain < nd_old)
            pos[i] = count[t->locations[i].domain]++;
    /* The groups of every contradicted domain (by location: group[locs[i]]) first:
     * their counts are reduced over the processes. */
    for (uint32_t d = 0; d < nd_old && rc == 0; d++) {
        uint32_t k = 0;
        n_groups[d] = 1;
        if (!in[d].contradicting)
            continue;
        for (tsync_loc i = 0; i < t->n_locations; i++)
            if (t->locations[i].domain == d)
                locs[k++] = i;
        /* new_dom is filled only below: here it holds the domain's groups */
        if ((rc = group_locations(t, d, k, pos, limit, red, scratch, new_dom, &n_groups[d])) == 0)
            for (uint32_t i = 0; i < k; i++)
                group[locs[i]] = new_dom[i];
    }
    if (rc)
        goto out;
    for (uint32_t d = 0; d < nd_old; d++) {
        uint32_t k = 0, first = nd;
        tsync_domain_split *sp = &t->splits[t->n_splits];
        if (n_groups[d] < 2) {           /* kept as it is */
            dom[nd] = t->domains[d];
            t->domains[d].name = NULL;
            for (tsync_loc i = 0; i < t->n_locations; i++)
                if (t->locations[i].domain == d)
                    new_dom[i] = first;
            nd++;
            continue;
        }
        for (tsync_loc i = 0; i < t->n_locations; i++)   /* pos: no longer needed */
            if (t->locations[i].domain == d) {
                pos[k] = group[i];
                locs[k++] = i;
            }
        if ((rc = add_parts(t, d, locs, k, pos, n_groups[d], dom, &nd, new_dom, sp)))
            goto out;
        sp->name = t->domains[d].name;   /* taken */
        t->domains[d].name = NULL;
        sp->messages = in[d].messages;
        sp->contradicting = in[d].contradicting;
        sp->max_reversal_s = tsync__seconds(t, in[d].max_reversal);
        sp->limit_s = tsync__seconds(t, limit);
        t->n_splits++;
    }
    for (tsync_loc i = 0; i < t->n_locations; i++)
        if (t->locations[i].domain < nd_old)
            t->locations[i].domain = new_dom[i];
    for (uint32_t d = 0; d < nd_old; d++)
        free(t->domains[d].name);
    free(t->domains);
    t->domains = dom;
    t->n_domains = nd;
    dom = NULL;
    for (size_t i = 0; i < t->n_splits; i++)
        warn_split(t, &t->splits[i], ctx);
    rc = 0;
out:
    if (dom)
        for (uint32_t d = 0; d < nd; d++)
            free(dom[d].name);
    free(dom);
    free(in);
    free(scratch);
    free(pos);
    free(count);
    free(group);
    free(n_groups);
    free(new_dom);
    free(locs);
    return rc ? split_failed(rc, ctx) : 0;
}
