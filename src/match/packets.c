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
 * Memory: the reader's 32-byte record per TCP or UDP packet while matching, then
 * 24 bytes per message (trace/trace.h); 32 more bytes per paired packet during the
 * vote.
 */
#include <stdlib.h>
#include <string.h>

#include "match/match.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/vec.h"

/* A packet seen in captures p < q: its records there, its addresses, and P's stamp
 * minus Q's. */
struct seen_twice {
    tsync_loc p, q;
    uint32_t src, dst;
    int64_t d;
    size_t rp, rq;
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

#define CMP_FIELD(a, b, f) if ((a)->f != (b)->f) return (a)->f < (b)->f ? -1 : 1

static int seen_cmp(const void *pa, const void *pb)
{
    const struct seen_twice *a = pa, *b = pb;
    CMP_FIELD(a, b, p);
    CMP_FIELD(a, b, q);
    CMP_FIELD(a, b, src);
    CMP_FIELD(a, b, dst);
    CMP_FIELD(a, b, d);
    return 0;
}

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

/* The stats of captures p < q, added if new; NULL when out of memory. */
static struct tsync__packet_pairing *stats_of(struct tsync__packet_pairing **st, size_t *n,
                                              size_t *cap, tsync_loc p, tsync_loc q)
{
    struct tsync__packet_pairing s = { p, q, 0, 0, 0, 0 };
    for (size_t i = 0; i < *n; i++)
        if ((*st)[i].p == p && (*st)[i].q == q)
            return &(*st)[i];
    return TSYNC_PUSH(*st, *n, *cap, s) ? NULL : &(*st)[*n - 1];
}

/* The group of s[0, n) of the same captures and addresses as s[i]: its end. */
static size_t group_end(const struct seen_twice *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && s[j].p == s[i].p && s[j].q == s[i].q && s[j].src == s[i].src &&
           s[j].dst == s[i].dst)
        j++;
    return j;
}

/* The votes of every two-way traffic: per group of `s` (sorted), the median
 * difference against that of its reverse direction. */
static int cast_votes(const struct seen_twice *s, size_t n, struct vote **votes, size_t *n_votes)
{
    size_t cap = 0;
    for (size_t i = 0; i < n;) {
        size_t j = group_end(s, n, i), r = j, re;
        struct seen_twice key = s[i];
        /* The reverse direction's group: it sorts after this one only when dst > src,
         * so each pair of directions votes once. */
        key.src = s[i].dst;
        key.dst = s[i].src;
        key.d = INT64_MIN;
        if (s[i].src < s[i].dst) {
            while (r < n && seen_cmp(&s[r], &key) < 0)
                r++;
            if (r < n && s[r].p == key.p && s[r].q == key.q && s[r].src == key.src &&
                s[r].dst == key.dst) {
                int p_sends = s[i + (j - i) / 2].d < s[r + ((re = group_end(s, n, r)) - r) / 2].d;
                uint64_t w = (j - i) + (re - r);
                struct vote a = { s[i].src, p_sends ? s[i].p : s[i].q, w };
                struct vote b = { s[i].dst, p_sends ? s[i].q : s[i].p, w };
                if (TSYNC_PUSH(*votes, *n_votes, cap, a) || TSYNC_PUSH(*votes, *n_votes, cap, b))
                    return TSYNC_ENOMEM;
            }
        }
        i = j;
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
 * of different hosts into *twice; the others counted. */
static int sort_out(const struct tsync_trace *t, const struct tsync_match_input *in,
                    struct seen_twice **twice, size_t *n_twice, struct tsync__packet_pairing **st,
                    size_t *n_st, size_t *cap_st, uint64_t *once, uint64_t *same_host,
                    uint64_t *ambiguous)
{
    const struct tsync_packet_rec *r = in->packets;
    size_t cap = 0;
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
        } else {
            const struct tsync_location *P = &t->locations[r[i].loc], *Q = &t->locations[r[i + 1].loc];
            struct seen_twice s = { r[i].loc, r[i + 1].loc, r[i].src, r[i].dst,
                                    P->time[r[i].idx] - Q->time[r[i + 1].idx], i, i + 1 };
            if (TSYNC_PUSH(*twice, *n_twice, cap, s))
                return TSYNC_ENOMEM;
        }
    }
    return TSYNC_OK;
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
                    "ambiguous key%s left out, %llu packet%s of undecided direction",
                    t->locations[s->p].name, t->locations[s->q].name,
                    (unsigned long long)s->paired, tsync__plural(s->paired, "s"),
                    (unsigned long long)s->p_to_q, (unsigned long long)(s->paired - s->p_to_q),
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

int tsync__match_packets(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx)
{
    struct seen_twice *twice = NULL;
    struct tsync__packet_pairing *st = NULL;
    struct vote *votes = NULL;
    tsync_loc *owner = NULL;
    size_t n_twice = 0, n_st = 0, cap_st = 0, n_votes = 0, cap_msg = t->n_messages, first;
    uint64_t once = 0, same_host = 0, ambiguous = 0;
    uint32_t n_addr = 0;
    int rc;

    qsort(in->packets, in->n_packets, sizeof(*in->packets), rec_cmp);
    for (size_t i = 0; i < in->n_packets; i++) {
        if (in->packets[i].src >= n_addr)
            n_addr = in->packets[i].src + 1;
        if (in->packets[i].dst >= n_addr)
            n_addr = in->packets[i].dst + 1;
    }
    if ((rc = sort_out(t, in, &twice, &n_twice, &st, &n_st, &cap_st, &once, &same_host,
                       &ambiguous)))
        goto out;
    if (n_twice > 1)
        qsort(twice, n_twice, sizeof(*twice), seen_cmp);
    if ((rc = cast_votes(twice, n_twice, &votes, &n_votes)) ||
        !(owner = malloc((n_addr ? n_addr : 1) * sizeof(*owner))) ||
        tsync__reserve((void **)&t->messages, &cap_msg, t->n_messages + n_twice,
                       sizeof(*t->messages))) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    for (uint32_t a = 0; a < n_addr; a++)
        owner[a] = TSYNC_NONE;
    count_votes(votes, n_votes, owner);
    first = t->n_messages;
    for (size_t i = 0; i < n_twice; i++) {
        const struct seen_twice *s = &twice[i];
        const struct tsync_packet_rec *a = &in->packets[s->rp], *b = &in->packets[s->rq];
        struct tsync__packet_pairing *ps = stats_of(&st, &n_st, &cap_st, s->p, s->q);
        if (!ps) {
            rc = TSYNC_ENOMEM;
            goto out;
        }
        if (owner[s->src] == s->p || owner[s->src] == s->q) {
            int p_sends = owner[s->src] == s->p;
            struct tsync_message m = { p_sends ? a->loc : b->loc, p_sends ? b->loc : a->loc,
                                       p_sends ? a->idx : b->idx, p_sends ? b->idx : a->idx };
            t->messages[t->n_messages++] = m;
            ps->paired++;
            ps->p_to_q += (uint64_t)p_sends;
        } else {
            ps->undecided++;
        }
    }
    if (t->n_messages - first > 1)
        qsort(t->messages + first, t->n_messages - first, sizeof(*t->messages), message_cmp);
    report(t, st, n_st, once, same_host, ambiguous, ctx);
    free(t->pairings);
    t->pairings = st;   /* for the sync report */
    t->n_pairings = n_st;
    st = NULL;
out:
    free(twice);
    free(st);
    free(votes);
    free(owner);
    return rc ? tsync__oom(ctx) : TSYNC_OK;
}
