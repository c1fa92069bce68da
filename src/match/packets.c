/* packets.c - the same packet seen in two captures, as a message (seed 003, section 7).
 *
 * Each TCP segment's key covers its addresses, ports, sequence and acknowledgement
 * numbers, flags and payload length; a UDP datagram's its addresses, ports, length
 * and first payload bytes (io/pcap.c hashes them into 64 bits: two different packets
 * of a million share a key with probability below 1e-7). A key seen exactly once in
 * exactly two captures of different hosts is one packet on its way from one to the
 * other. A key seen twice in one capture (a retransmission, a duplicate, the packet
 * on two interfaces) or in more than two captures is ambiguous: which copy is which
 * is unknown, so it is left out and counted. A key seen in one capture only went to
 * or came from a host that was not captured; one seen in two captures of one host
 * says nothing about clocks: both are skipped.
 *
 * Which capture sent a paired packet is decided from the data, without trusting
 * either clock: for two captures P and Q and the packets between addresses X and Y
 * that both saw, P's stamp minus Q's stamp is the offset of the clocks minus the
 * packet's delay when P sent it, and plus its delay when Q sent it. So the direction
 * whose median difference is the smaller is the one P sent: X belongs to P's host
 * and Y to Q's. Each such pair of directions votes, with its number of packets, and
 * an address belongs to the capture with the most votes. A packet from an address
 * that belongs to neither of its two captures (traffic one way only, between
 * addresses no two-way traffic placed) is left out and counted. The message goes
 * from the source's capture to the other; the estimators then take every message
 * as a one-way constraint and each segment with the one that answers it as an
 * exchange (estimate/samples.c), and check counts the messages received before
 * they were sent, as for any trace.
 *
 * Speed: the records are sorted by key in place (util/radix.h), every paired key's
 * flow (its captures and addresses) is found in a hash table, and each flow's
 * differences, the messages (by send event) and the arrivals (by receive event) are
 * radix-sorted the same way: O(n) passes, no qsort over all packets.
 *
 * Memory: the reader's 32-byte record per TCP or UDP packet while matching, 8 bytes
 * per paired packet (its difference) during the vote, then 24 bytes per message
 * (trace/trace.h); no copy of the records.
 */
#include <stdlib.h>
#include <string.h>

#include "match/match.h"
#include "util/ctx.h"
#include "util/radix.h"
#include "util/str.h"
#include "util/vec.h"

/* The packets from address src to dst that captures p < q both saw: their count,
 * their differences (P's stamp minus Q's) in d[first, first + n), the median. */
struct flow {
    tsync_loc p, q;
    uint32_t src, dst;
    size_t n, first, filled;
    int64_t median;
};

/* The flows, and a hash table of their indices + 1 (0: empty). */
struct flows {
    struct flow *f;
    size_t n, cap;
    uint32_t *slot;
    size_t mask;
};

struct vote {
    uint32_t addr;
    tsync_loc loc;
    uint64_t weight;
};

static int rec_cmp(const void *pa, const void *pb)
{
    const struct tsync_packet_rec *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->loc != b->loc)
        return a->loc < b->loc ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static uint64_t rec_key(const void *r, const void *arg)
{
    (void)arg;
    return ((const struct tsync_packet_rec *)r)->key;
}

#define CMP_FIELD(a, b, f) if ((a)->f != (b)->f) return (a)->f < (b)->f ? -1 : 1

static int vote_cmp(const void *pa, const void *pb)
{
    const struct vote *a = pa, *b = pb;
    CMP_FIELD(a, b, addr);
    CMP_FIELD(a, b, loc);
    return 0;
}

static int message_cmp(const void *pa, const void *pb)
{
    const struct tsync_message *a = pa, *b = pb;
    CMP_FIELD(a, b, send_loc);
    CMP_FIELD(a, b, send_idx);
    return 0;
}

/* A message's send event numbered across the locations: arg holds each location's
 * first number. */
static uint64_t message_key(const void *m, const void *arg)
{
    const struct tsync_message *x = m;
    return ((const uint64_t *)arg)[x->send_loc] + x->send_idx;
}

static size_t flow_hash(tsync_loc p, tsync_loc q, uint32_t src, uint32_t dst)
{
    uint64_t h = ((uint64_t)p << 32 | q) * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)src << 32 | dst) * 0xc2b2ae3d27d4eb4full;
    return (size_t)(h ^ h >> 29);
}

/* The index of the flow (p, q, src, dst) + 1, 0 if there is none. */
static uint32_t flow_find(const struct flows *fl, tsync_loc p, tsync_loc q, uint32_t src,
                          uint32_t dst)
{
    for (size_t k = flow_hash(p, q, src, dst) & fl->mask; fl->slot[k]; k = (k + 1) & fl->mask) {
        const struct flow *f = &fl->f[fl->slot[k] - 1];
        if (f->p == p && f->q == q && f->src == src && f->dst == dst)
            return fl->slot[k];
    }
    return 0;
}

/* The index of the flow (p, q, src, dst) + 1, added if new; 0 when out of memory. */
static uint32_t flow_of(struct flows *fl, tsync_loc p, tsync_loc q, uint32_t src, uint32_t dst)
{
    struct flow f = { p, q, src, dst, 0, 0, 0, 0 };
    uint32_t id = flow_find(fl, p, q, src, dst);
    size_t k;
    if (id)
        return id;
    if (fl->n >= UINT32_MAX - 1 || TSYNC_PUSH(fl->f, fl->n, fl->cap, f))
        return 0;
    if (2 * fl->n > fl->mask + 1) {   /* grow the table to keep it at most half full */
        size_t size = (fl->mask + 1) * 2;
        uint32_t *slot = calloc(size, sizeof(*slot));
        if (!slot)
            return 0;
        free(fl->slot);
        fl->slot = slot;
        fl->mask = size - 1;
        for (size_t i = 0; i + 1 < fl->n; i++) {
            const struct flow *g = &fl->f[i];
            for (k = flow_hash(g->p, g->q, g->src, g->dst) & fl->mask; slot[k];)
                k = (k + 1) & fl->mask;
            slot[k] = (uint32_t)(i + 1);
        }
    }
    for (k = flow_hash(p, q, src, dst) & fl->mask; fl->slot[k];)
        k = (k + 1) & fl->mask;
    fl->slot[k] = (uint32_t)fl->n;
    return (uint32_t)fl->n;
}

/* A difference as an unsigned key of the same order, for the radix sort. */
static uint64_t diff_key(const void *v, const void *arg)
{
    (void)arg;
    return (uint64_t)*(const int64_t *)v ^ (uint64_t)1 << 63;
}

static int diff_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The stats of captures p < q, added if new; NULL when out of memory. */
static struct tsync__packet_pairing *stats_of(struct tsync__packet_pairing **st, size_t *n,
                                              size_t *cap, tsync_loc p, tsync_loc q)
{
    struct tsync__packet_pairing s = { p, q, 0, 0, 0, 0, 0, -1, -1 };
    for (size_t i = 0; i < *n; i++)
        if ((*st)[i].p == p && (*st)[i].q == q)
            return &(*st)[i];
    return TSYNC_PUSH(*st, *n, *cap, s) ? NULL : &(*st)[*n - 1];
}

static int stats_cmp(const void *pa, const void *pb)
{
    const struct tsync__packet_pairing *a = pa, *b = pb;
    CMP_FIELD(a, b, p);
    CMP_FIELD(a, b, q);
    return 0;
}

/* The votes of every two-way traffic: per flow, its median difference against that
 * of its reverse direction, once per pair of directions. */
static int cast_votes(const struct flows *fl, struct vote **votes, size_t *n_votes)
{
    size_t cap = 0;
    for (size_t i = 0; i < fl->n; i++) {
        const struct flow *f = &fl->f[i], *r;
        uint32_t rev = f->src < f->dst ? flow_find(fl, f->p, f->q, f->dst, f->src) : 0;
        int p_sends;
        if (!rev)
            continue;
        r = &fl->f[rev - 1];
        p_sends = f->median < r->median;
        struct vote a = { f->src, p_sends ? f->p : f->q, f->n + r->n };
        struct vote b = { f->dst, p_sends ? f->q : f->p, f->n + r->n };
        if (TSYNC_PUSH(*votes, *n_votes, cap, a) || TSYNC_PUSH(*votes, *n_votes, cap, b))
            return TSYNC_ENOMEM;
    }
    return TSYNC_OK;
}

/* owner[addr]: the capture an address belongs to by the votes, TSYNC_NONE if none. */
static void count_votes(struct vote *v, size_t n, tsync_loc *owner)
{
    if (n > 1)
        qsort(v, n, sizeof(*v), vote_cmp);
    for (size_t i = 0; i < n;) {
        uint64_t best = 0;
        size_t j = i;
        while (j < n && v[j].addr == v[i].addr) {
            size_t k = j;
            uint64_t w = 0;
            while (k < n && v[k].addr == v[j].addr && v[k].loc == v[j].loc)
                w += v[k++].weight;
            if (w > best) {
                best = w;
                owner[v[i].addr] = v[j].loc;
            }
            j = k;
        }
        i = j;
    }
}

/* The keys of in->packets (sorted): each packet seen once in each of two captures
 * of different hosts gets its flow (+ 1) in its first record; the others counted. */
static int sort_out(const struct tsync_trace *t, struct tsync_match_input *in, struct flows *fl,
                    struct tsync__packet_pairing **st, size_t *n_st, size_t *cap_st,
                    uint64_t *once, uint64_t *same_host, uint64_t *ambiguous)
{
    struct tsync_packet_rec *r = in->packets;
    for (size_t i = 0, j; i < in->n_packets; i = j) {
        size_t locs = 1, repeats = 0;
        for (j = i + 1; j < in->n_packets && r[j].key == r[i].key; j++) {
            if (r[j].loc == r[j - 1].loc)
                repeats++;
            else
                locs++;
        }
        if (locs == 1 && !repeats) {
            ++*once;
        } else if (locs == 2 && t->locations[r[i].loc].node == t->locations[r[j - 1].loc].node) {
            ++*same_host;
        } else if (locs != 2 || repeats) {
            struct tsync__packet_pairing *ps =
                locs == 2 ? stats_of(st, n_st, cap_st, r[i].loc, r[j - 1].loc) : NULL;
            if (locs == 2 && !ps)
                return TSYNC_ENOMEM;
            if (ps)
                ps->ambiguous++;
            else
                ++*ambiguous;
        } else if (!(r[i].flow = flow_of(fl, r[i].loc, r[i + 1].loc, r[i].src, r[i].dst))) {
            return TSYNC_ENOMEM;
        } else {
            fl->f[r[i].flow - 1].n++;
        }
    }
    return TSYNC_OK;
}

/* Each flow's median difference; d holds n_paired values. */
static void flow_medians(const struct tsync_trace *t, const struct tsync_match_input *in,
                         struct flows *fl, int64_t *d)
{
    const struct tsync_packet_rec *r = in->packets;
    size_t at = 0;
    for (size_t f = 0; f < fl->n; f++) {
        fl->f[f].first = at;
        at += fl->f[f].n;
    }
    for (size_t i = 0; i < in->n_packets; i++) {
        if (r[i].flow) {
            struct flow *f = &fl->f[r[i].flow - 1];
            d[f->first + f->filled++] = t->locations[r[i].loc].time[r[i].idx] -
                                        t->locations[r[i + 1].loc].time[r[i + 1].idx];
        }
    }
    for (size_t f = 0; f < fl->n; f++) {
        int64_t *v = d + fl->f[f].first;
        tsync__radix_sort(v, fl->f[f].n, sizeof(*v), diff_key, NULL, diff_cmp);
        fl->f[f].median = v[fl->f[f].n / 2];
    }
}

static void report(const struct tsync_trace *t, const struct tsync__packet_pairing *st,
                   size_t n_st, uint64_t once, uint64_t same_host, uint64_t ambiguous, tsync_ctx *ctx)
{
    uint64_t paired = 0;
    for (size_t i = 0; i < n_st; i++)
        paired += st[i].paired;
    for (size_t i = 0; i < n_st; i++) {
        const struct tsync__packet_pairing *s = &st[i];
        tsync__warn(ctx, "%s and %s: %llu packet%s paired (%llu one way, %llu the other), %llu "
                    "exchange%s, %llu ambiguous key%s left out, %llu packet%s of undecided "
                    "direction", t->locations[s->p].name, t->locations[s->q].name,
                    (unsigned long long)s->paired, tsync__plural(s->paired, "s"),
                    (unsigned long long)s->p_to_q, (unsigned long long)(s->paired - s->p_to_q),
                    (unsigned long long)s->exchanges, tsync__plural(s->exchanges, "s"),
                    (unsigned long long)s->ambiguous, tsync__plural(s->ambiguous, "s"),
                    (unsigned long long)s->undecided, tsync__plural(s->undecided, "s"));
    }
    if (!paired && t->n_nodes > 1)
        tsync__warn(ctx, "%s: no packet was seen in two captures of different hosts: the captures "
                    "share no traffic, and their clocks cannot be related", t->path);
    if (once || same_host || ambiguous)
        tsync__warn(ctx, "%s: %llu TCP/UDP packet%s seen in one capture only (hosts not "
                    "captured), %llu between captures of one host, %llu more ambiguous key%s (seen "
                    "twice in one capture, or in more than two)", t->path, (unsigned long long)once,
                    tsync__plural(once, "s"), (unsigned long long)same_host,
                    (unsigned long long)ambiguous, tsync__plural(ambiguous, "s"));
}

/* The stats of each pair of captures from its flows: packets paired each way, or
 * undecided where neither capture owns the source; *n_paired: all paired. */
static int flow_stats(const struct flows *fl, const tsync_loc *owner,
                      struct tsync__packet_pairing **st, size_t *n_st, size_t *cap_st,
                      size_t *n_paired)
{
    *n_paired = 0;
    for (size_t i = 0; i < fl->n; i++) {
        const struct flow *f = &fl->f[i];
        struct tsync__packet_pairing *ps = stats_of(st, n_st, cap_st, f->p, f->q);
        if (!ps)
            return TSYNC_ENOMEM;
        if (owner[f->src] == f->p || owner[f->src] == f->q) {
            ps->paired += f->n;
            ps->p_to_q += owner[f->src] == f->p ? f->n : 0;
            *n_paired += f->n;
        } else {
            ps->undecided += f->n;
        }
    }
    return TSYNC_OK;
}

/* A message per paired packet whose source a capture owns, from that capture to the
 * other, appended to t->messages (room made) and sorted by send event (number:
 * each location's first event numbered across the locations). */
static void emit_messages(struct tsync_trace *t, const struct tsync_match_input *in,
                          const struct flows *fl, const tsync_loc *owner, const uint64_t *number)
{
    const struct tsync_packet_rec *r = in->packets;
    size_t first = t->n_messages;
    for (size_t i = 0; i < in->n_packets; i++) {
        const struct flow *f = r[i].flow ? &fl->f[r[i].flow - 1] : NULL;
        if (f && (owner[f->src] == f->p || owner[f->src] == f->q)) {
            const struct tsync_packet_rec *a = &r[i], *b = &r[i + 1];
            int p_sends = owner[f->src] == f->p;
            struct tsync_message m = { p_sends ? a->loc : b->loc, p_sends ? b->loc : a->loc,
                                       p_sends ? a->idx : b->idx, p_sends ? b->idx : a->idx };
            t->messages[t->n_messages++] = m;
        }
    }
    if (t->n_messages > first)     /* no messages: t->messages may be NULL */
        tsync__radix_sort(t->messages + first, t->n_messages - first, sizeof(*t->messages),
                          message_key, number, message_cmp);
}

/* A message's receive event, numbered across the locations, for sorting by it. */
struct arrival {
    uint64_t key;
    size_t m;
};

static uint64_t arrival_key(const void *a, const void *arg)
{
    (void)arg;
    return ((const struct arrival *)a)->key;
}

static int arrival_cmp(const void *pa, const void *pb)
{
    const struct arrival *a = pa, *b = pb;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* Seed 003's exchanges of each pair of captures, counted as estimate/samples.c forms
 * them for the regression (every receive of a capture is prompt): on the answering
 * capture's clock, a packet that arrives from the other and the next packet it
 * sends back before another arrives from there, with the answer received after the
 * first was sent. The messages from t->messages[first] on are sorted by send event,
 * so each capture's answers are in order; its arrivals are sorted here. */
static int count_exchanges(struct tsync_trace *t, size_t first, const uint64_t *number)
{
    const struct tsync_message *m = t->messages;
    size_t n = t->n_messages - first, a = first, b = 0, nl = t->n_locations ? t->n_locations : 1;
    struct arrival *in = tsync__alloc_array(n, sizeof(*in));
    size_t *pending = malloc(nl * sizeof(*pending));
    uint64_t *count = calloc(nl, sizeof(*count));
    int rc = in && pending && count ? TSYNC_OK : TSYNC_ENOMEM;
    for (size_t i = 0; rc == TSYNC_OK && i < n; i++)
        in[i] = (struct arrival){ number[m[first + i].recv_loc] + m[first + i].recv_idx, first + i };
    if (rc == TSYNC_OK)
        tsync__radix_sort(in, n, sizeof(*in), arrival_key, NULL, arrival_cmp);
    for (tsync_loc j = 0; rc == TSYNC_OK && j < t->n_locations; j++) {
        const tsync_time *tj = t->locations[j].time;
        size_t a_end = a, b_end = b;
        while (a_end < t->n_messages && m[a_end].send_loc == j)
            a_end++;
        while (b_end < n && m[in[b_end].m].recv_loc == j)
            b_end++;
        for (tsync_loc i = 0; i < t->n_locations; i++)
            pending[i] = SIZE_MAX;
        while (a < a_end || b < b_end) {
            if (b < b_end && (a == a_end || tj[m[in[b].m].recv_idx] <= tj[m[a].send_idx])) {
                pending[m[in[b].m].send_loc] = in[b].m;   /* a ping arrives (first on ties) */
                b++;
            } else {
                const struct tsync_message *y = &m[a++];
                size_t x = pending[y->recv_loc];
                const tsync_time *ti = t->locations[y->recv_loc].time;
                if (x != SIZE_MAX && ti[y->recv_idx] >= ti[m[x].send_idx])
                    count[y->recv_loc]++;
                pending[y->recv_loc] = SIZE_MAX;
            }
        }
        for (tsync_loc i = 0; i < t->n_locations; i++) {
            struct tsync__packet_pairing *ps = count[i] ? tsync__packet_pairing_of(t, i, j) : NULL;
            if (ps)
                ps->exchanges += count[i];
            count[i] = 0;
        }
    }
    free(in);
    free(pending);
    free(count);
    return rc;
}

struct tsync__packet_pairing *tsync__packet_pairing_of(struct tsync_trace *t, tsync_loc a,
                                                       tsync_loc b)
{
    struct tsync__packet_pairing key = { a < b ? a : b, a < b ? b : a, 0, 0, 0, 0, 0, 0, 0 };
    return bsearch(&key, t->pairings, t->n_pairings, sizeof(key), stats_cmp);
}

int tsync__match_packets(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx)
{
    struct flows fl = { NULL, 0, 0, calloc(64, sizeof(uint32_t)), 63 };
    struct tsync__packet_pairing *st = NULL;
    struct vote *votes = NULL;
    tsync_loc *owner = NULL;
    int64_t *d = NULL;
    size_t n_st = 0, cap_st = 0, n_votes = 0, cap_msg = t->n_messages, n_twice = 0, n_paired, first;
    uint64_t *number = NULL;
    uint64_t once = 0, same_host = 0, ambiguous = 0;
    uint32_t n_addr = 0;
    int rc;

    if (!fl.slot) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    tsync__radix_sort(in->packets, in->n_packets, sizeof(*in->packets), rec_key, NULL, rec_cmp);
    for (size_t i = 0; i < in->n_packets; i++) {
        if (in->packets[i].src >= n_addr)
            n_addr = in->packets[i].src + 1;
        if (in->packets[i].dst >= n_addr)
            n_addr = in->packets[i].dst + 1;
    }
    if ((rc = sort_out(t, in, &fl, &st, &n_st, &cap_st, &once, &same_host, &ambiguous)))
        goto out;
    for (size_t f = 0; f < fl.n; f++)
        n_twice += fl.f[f].n;
    if (!(d = tsync__alloc_array(n_twice, sizeof(*d)))) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    flow_medians(t, in, &fl, d);
    free(d);
    d = NULL;
    if ((rc = cast_votes(&fl, &votes, &n_votes)) ||
        !(owner = malloc((n_addr ? n_addr : 1) * sizeof(*owner)))) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    for (uint32_t a = 0; a < n_addr; a++)
        owner[a] = TSYNC_NONE;
    count_votes(votes, n_votes, owner);
    if ((rc = flow_stats(&fl, owner, &st, &n_st, &cap_st, &n_paired)) ||
        tsync__reserve((void **)&t->messages, &cap_msg, t->n_messages + n_paired,
                       sizeof(*t->messages)) ||
        !(number = malloc(((size_t)t->n_locations + 1) * sizeof(*number)))) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    number[0] = 0;
    for (tsync_loc l = 0; l < t->n_locations; l++)
        number[l + 1] = number[l] + t->locations[l].n_events;
    first = t->n_messages;
    emit_messages(t, in, &fl, owner, number);
    free(in->packets);   /* done with: the exchanges need the messages only */
    in->packets = NULL;
    in->n_packets = in->cap_packets = 0;
    if (n_st > 1)
        qsort(st, n_st, sizeof(*st), stats_cmp);
    free(t->pairings);
    t->pairings = st;   /* for the sync report */
    t->n_pairings = n_st;
    st = NULL;
    if ((rc = count_exchanges(t, first, number)))
        goto out;
    report(t, t->pairings, t->n_pairings, once, same_host, ambiguous, ctx);
out:
    free(fl.f);
    free(fl.slot);
    free(number);
    free(d);
    free(st);
    free(votes);
    free(owner);
    return rc ? tsync__oom(ctx) : TSYNC_OK;
}
