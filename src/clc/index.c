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

int tsync__clc_list_init(struct clc_list *l, const struct tsync_trace *t, size_t cap)
{
    size_t n = cap ? cap : 1;
    memset(l, 0, sizeof(*l));
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

void tsync__clc_list_add(struct clc_list *l, tsync_loc loc, uint64_t idx, uint32_t id)
{
    l->idx[l->n] = idx;
    l->id[l->n] = id;
    l->loc[l->n] = loc;
    l->n++;
}

/* Copies entry i of (idx, id, loc) to slot j of (idx2, id2, loc2). */
static void move(const struct clc_list *l, size_t i, uint64_t *idx2, uint32_t *id2,
                 tsync_loc *loc2, size_t j)
{
    idx2[j] = l->idx[i];
    id2[j] = l->id[i];
    loc2[j] = l->loc[i];
}

int tsync__clc_list_finish(struct clc_list *l, const struct tsync_trace *t)
{
    size_t n = l->n, count[BUCKETS + 1], *next;
    uint64_t *idx2 = malloc((n ? n : 1) * sizeof(*idx2)), max = 0, *swap_idx;
    uint32_t *id2 = malloc((n ? n : 1) * sizeof(*id2)), *swap_id;
    tsync_loc *loc2 = malloc((n ? n : 1) * sizeof(*loc2)), *swap_loc;

    if (!idx2 || !id2 || !loc2) {
        free(idx2), free(id2), free(loc2);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (l->idx[i] > max)
            max = l->idx[i];
    /* Event index, least significant digit first. */
    for (unsigned shift = 0; shift < 64 && (max >> shift); shift += DIGIT_BITS) {
        int trivial = 0;
        memset(count, 0, sizeof(count));
        for (size_t i = 0; i < n; i++)
            count[((l->idx[i] >> shift) & (BUCKETS - 1)) + 1]++;
        for (size_t b = 1; b <= BUCKETS; b++) {
            trivial |= count[b] == n;
            count[b] += count[b - 1];
        }
        if (trivial)
            continue;
        for (size_t i = 0; i < n; i++)
            move(l, i, idx2, id2, loc2, count[(l->idx[i] >> shift) & (BUCKETS - 1)]++);
        swap_idx = l->idx, l->idx = idx2, idx2 = swap_idx;
        swap_id = l->id, l->id = id2, id2 = swap_id;
        swap_loc = l->loc, l->loc = loc2, loc2 = swap_loc;
    }
    /* Then by location, stably; the counts become the locations' ranges. */
    next = malloc(((size_t)t->n_locations + 1) * sizeof(*next));
    if (!next) {
        free(idx2), free(id2), free(loc2);
        return -1;
    }
    memset(l->first, 0, ((size_t)t->n_locations + 1) * sizeof(*l->first));
    for (size_t i = 0; i < n; i++)
        l->first[l->loc[i] + 1]++;
    for (uint32_t k = 0; k < t->n_locations; k++)
        l->first[k + 1] += l->first[k];
    memcpy(next, l->first, ((size_t)t->n_locations + 1) * sizeof(*next));
    for (size_t i = 0; i < n; i++)
        move(l, i, idx2, id2, loc2, next[l->loc[i]]++);
    free(next);
    free(l->idx);
    free(l->id);
    free(l->loc);
    free(loc2);
    l->idx = idx2;
    l->id = id2;
    l->loc = NULL;
    return 0;
}

void tsync__clc_list_free(struct clc_list *l)
{
    free(l->first);
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
