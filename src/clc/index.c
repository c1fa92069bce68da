/* index.c - per-location lists of the events the controlled logical clock must
 * look at (receives, sends, collective members), sorted by event index.
 *
 * The trace lists messages by channel and collective members by instance, not in
 * a location's event order, and the forward and backward passes walk each
 * location in order. A list is sorted in O(n) with a least-significant-digit
 * radix sort: 11-bit digits of the event index (passes whose digit is the same
 * everywhere are skipped), then one stable counting pass by location, which also
 * yields each location's range.
 */
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"

#define DIGIT_BITS 11
#define BUCKETS (1u << DIGIT_BITS)

int tsync__clc_list_init(struct clc_list *l, const struct tsync_trace *t, size_t cap, int with_val)
{
    size_t n = cap ? cap : 1;
    memset(l, 0, sizeof(*l));
    if (with_val && !(l->val = malloc(n * sizeof(*l->val))))
        return -1;
    l->first = calloc((size_t)t->n_locations + 1, sizeof(*l->first));
    l->idx = malloc(n * sizeof(*l->idx));
    l->id = malloc(n * sizeof(*l->id));
    l->loc = malloc(n * sizeof(*l->loc));
    l->cap = cap;
    if (!l->first || !l->idx || !l->id || !l->loc) {
        tsync__clc_list_free(l);
        return -1;
    }
    return 0;
}

void tsync__clc_list_add(struct clc_list *l, tsync_loc loc, uint64_t idx, uint32_t id,
                         uint64_t val)
{
    if (l->val)
        l->val[l->n] = val;
    l->idx[l->n] = idx;
    l->id[l->n] = id;
    l->loc[l->n] = loc;
    l->n++;
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

int tsync__clc_list_finish(struct clc_list *l, const struct tsync_trace *t)
{
    size_t n = l->n, count[BUCKETS + 1], *next, m = n ? n : 1;
    struct cols a = { l->idx, l->val, l->id, l->loc }, b, swap;
    uint64_t max = 0;

    b.idx = malloc(m * sizeof(*b.idx));
    b.val = l->val ? malloc(m * sizeof(*b.val)) : NULL;
    b.id = malloc(m * sizeof(*b.id));
    b.loc = malloc(m * sizeof(*b.loc));
    next = malloc(((size_t)t->n_locations + 1) * sizeof(*next));
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
    /* Then by location, stably; the counts become the locations' ranges. */
    memset(l->first, 0, ((size_t)t->n_locations + 1) * sizeof(*l->first));
    for (size_t i = 0; i < n; i++)
        l->first[a.loc[i] + 1]++;
    for (uint32_t k = 0; k < t->n_locations; k++)
        l->first[k + 1] += l->first[k];
    memcpy(next, l->first, ((size_t)t->n_locations + 1) * sizeof(*next));
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

void tsync__clc_list_free(struct clc_list *l)
{
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
