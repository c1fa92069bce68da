/* index.c - per-location lists of the events the controlled logical clock must
 * look at (receives, sends, collective members), sorted by event index.
 *
 * The trace lists messages by channel and collective members by instance, not in
 * a location's event order, and the forward and backward passes walk each
 * location in order. A list is built in two passes over its entries, with no
 * sort: the first marks each entry's event in a bitmap of its location (a bit
 * per event) and counts the entries of each location; the bitmaps then get a
 * running count of set bits per 64-bit word, and the second pass puts each
 * entry straight into its slot: its location's first slot plus the number of
 * entries before it on the location (its rank, one popcount). That is the
 * order of a stable sort by (location, index) when no event has two entries.
 * When one has (a receive matched twice, in a hand-made trace), the list falls
 * back to collecting the entries and sorting them in O(n): a least-significant-
 * digit radix sort on 11-bit digits of the event index (passes whose digit is
 * the same everywhere are skipped), then one stable counting pass by location.
 */
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"

#define DIGIT_BITS 11
#define BUCKETS (1u << DIGIT_BITS)

static void free_bits(struct clc_list *l, uint32_t n_locations)
{
    for (uint32_t k = 0; l->bits && k < n_locations; k++)
        free(l->bits[k]);
    for (uint32_t k = 0; l->rank && k < n_locations; k++)
        free(l->rank[k]);
    free(l->bits);
    free(l->rank);
    l->bits = NULL;
    l->rank = NULL;
}

int tsync__clc_list_init(struct clc_list *l, const struct tsync_trace *t, size_t cap, int with_val)
{
    size_t n = cap ? cap : 1, nl = (size_t)t->n_locations ? t->n_locations : 1;
    memset(l, 0, sizeof(*l));
    l->t = t;
    l->n_locations = t->n_locations;
    if (with_val && !(l->val = malloc(n * sizeof(*l->val))))
        return -1;
    l->first = calloc((size_t)t->n_locations + 1, sizeof(*l->first));
    l->idx = malloc(n * sizeof(*l->idx));
    l->id = malloc(n * sizeof(*l->id));
    l->bits = calloc(nl, sizeof(*l->bits));
    l->rank = calloc(nl, sizeof(*l->rank));
    l->cap = cap;
    if (!l->first || !l->idx || !l->id || !l->bits || !l->rank) {
        tsync__clc_list_free(l);
        return -1;
    }
    return 0;
}

void tsync__clc_list_mark(struct clc_list *l, tsync_loc loc, uint64_t idx)
{
    uint64_t *w, bit = (uint64_t)1 << (idx % 64);
    l->first[loc + 1]++;
    l->n++;
    if (l->dup)
        return;
    if (!l->bits[loc]) {
        /* A location's bitmap on its first entry: untouched pages cost nothing. */
        size_t words = (size_t)(l->t->locations[loc].n_events / 64 + 1);
        if (!(l->bits[loc] = calloc(words, sizeof(uint64_t)))) {
            l->oom = 1;
            l->dup = 1;
            return;
        }
    }
    w = &l->bits[loc][idx / 64];
    if (*w & bit)
        l->dup = 1;
    *w |= bit;
}

/* Set bits in a word (no popcount instruction in the base x86-64 set). */
static inline uint32_t pop64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

int tsync__clc_list_ready(struct clc_list *l)
{
    uint32_t nl = l->n_locations;
    for (uint32_t k = 0; k < nl; k++)
        l->first[k + 1] += l->first[k];
    if (l->oom)
        return -1;
    if (l->dup) {
        /* Collect, then sort in finish. */
        free_bits(l, nl);
        if (!(l->loc = malloc((l->n ? l->n : 1) * sizeof(*l->loc))))
            return -1;
        l->n = 0;
        return 0;
    }
    for (uint32_t k = 0; k < nl; k++) {
        size_t words;
        uint32_t run = 0;
        if (!l->bits[k])
            continue;
        words = (size_t)(l->t->locations[k].n_events / 64 + 1);
        if (!(l->rank[k] = malloc(words * sizeof(*l->rank[k]))))
            return -1;
        for (size_t w = 0; w < words; w++) {
            l->rank[k][w] = run;
            run += pop64(l->bits[k][w]);
        }
    }
    return 0;
}

void tsync__clc_list_put(struct clc_list *l, tsync_loc loc, uint64_t idx, uint32_t id, uint64_t val)
{
    size_t slot;
    if (l->loc) {                    /* the fallback: collect */
        slot = l->n++;
        l->loc[slot] = loc;
    } else {
        uint64_t below = ((uint64_t)1 << (idx % 64)) - 1;
        slot = l->first[loc] + l->rank[loc][idx / 64] + pop64(l->bits[loc][idx / 64] & below);
    }
    if (l->val)
        l->val[slot] = val;
    l->idx[slot] = idx;
    l->id[slot] = id;
}

/* The arrays of a list's entries: the list's own, or the scratch they move to. */
struct cols {
    uint64_t *idx, *val;
    uint32_t *id;
    tsync_loc *loc;
};

/* Moves entry i of a to slot j of b. */
static void move(const struct cols *a, size_t i, const struct cols *b, size_t j)
{
    b->idx[j] = a->idx[i];
    b->id[j] = a->id[i];
    b->loc[j] = a->loc[i];
    if (a->val)
        b->val[j] = a->val[i];
}

static void free_cols(struct cols *c)
{
    free(c->idx);
    free(c->val);
    free(c->id);
    free(c->loc);
}

/* The fallback: sorts the collected entries by (location, index), stably. */
static int radix_sort(struct clc_list *l)
{
    size_t n = l->n, count[BUCKETS + 1], *next, m = n ? n : 1;
    struct cols a = { l->idx, l->val, l->id, l->loc }, b, swap;
    uint64_t max = 0;

    b.idx = malloc(m * sizeof(*b.idx));
    b.val = l->val ? malloc(m * sizeof(*b.val)) : NULL;
    b.id = malloc(m * sizeof(*b.id));
    b.loc = malloc(m * sizeof(*b.loc));
    next = malloc(((size_t)l->n_locations + 1) * sizeof(*next));
    if (!b.idx || (l->val && !b.val) || !b.id || !b.loc || !next) {
        free_cols(&b);
        free(next);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (a.idx[i] > max)
            max = a.idx[i];
    /* Event index, least significant digit first. */
    for (unsigned shift = 0; shift < 64 && (max >> shift); shift += DIGIT_BITS) {
        int trivial = 0;
        memset(count, 0, sizeof(count));
        for (size_t i = 0; i < n; i++)
            count[((a.idx[i] >> shift) & (BUCKETS - 1)) + 1]++;
        for (size_t k = 1; k <= BUCKETS; k++) {
            trivial |= count[k] == n;
            count[k] += count[k - 1];
        }
        if (trivial)
            continue;
        for (size_t i = 0; i < n; i++)
            move(&a, i, &b, count[(a.idx[i] >> shift) & (BUCKETS - 1)]++);
        swap = a, a = b, b = swap;
    }
    /* Then by location, stably, into the ranges `first` already holds. */
    memcpy(next, l->first, ((size_t)l->n_locations + 1) * sizeof(*next));
    for (size_t i = 0; i < n; i++)
        move(&a, i, &b, next[a.loc[i]]++);
    free(next);
    free_cols(&a);
    free(b.loc);
    l->idx = b.idx;
    l->val = b.val;
    l->id = b.id;
    l->loc = NULL;
    return 0;
}

int tsync__clc_list_finish(struct clc_list *l)
{
    int rc = 0;
    if (l->loc)
        rc = radix_sort(l);
    free_bits(l, l->n_locations);
    return rc;
}

void tsync__clc_list_free(struct clc_list *l)
{
    free_bits(l, l->n_locations);
    free(l->first);
    free(l->val);
    free(l->idx);
    free(l->id);
    free(l->loc);
    memset(l, 0, sizeof(*l));
}

size_t tsync__clc_list_seek(const struct clc_list *l, tsync_loc loc, uint64_t idx)
{
    size_t lo = l->first[loc], hi = l->first[loc + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->idx[mid] < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
