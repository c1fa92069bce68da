/* compose.c - maps composed along shortest paths: a domain's map onto its
 * reference is its parent's map after the pair's function (seed 003, Eq. 10:
 * D_13(t) = D_12(t) + D_23(t)), and the errors add up along the path, as the seed's
 * E_r does (the composition of two functions and its bound: timemap/pwl.c).
 *
 * Ranges. A map must cover every time it is asked for: its domain's events, and
 * every time its children's pair functions land on. The ranges are found from the
 * leaves up before the maps are composed from the references down.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

/* ---- a forest of paths ----------------------------------------------------------------- */

int tsync__compose_tree(struct tsync__pwl *maps, const struct tsync__tree *t)
{
    size_t n = t->n ? t->n : 1;
    tsync_time *lo = malloc(n * sizeof(*lo)), *hi = malloc(n * sizeof(*hi));
    struct tsync__pwl *up = calloc(n, sizeof(*up));
    int rc = 0;

    memset(maps, 0, t->n * sizeof(*maps));
    if (!lo || !hi || !up) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    for (uint32_t d = 0; d < t->n; d++) {
        lo[d] = t->ev_first[d];
        hi[d] = t->ev_last[d];
    }
    /* Leaves up: each pair function over its child's range, which widens the
     * parent's by where it lands. */
    for (uint32_t i = t->n; i-- > 0;) {
        uint32_t d = t->order[i], p = t->parent[d];
        tsync_time a, b;
        if (p == TSYNC__NONE)
            continue;
        /* Without events, over the samples' own span. */
        if ((rc = t->up(t->up_ctx, d, &lo[d], &hi[d], &up[d])))
            goto out;
        if (!up[d].n)
            continue;
        a = (tsync_time)floorl(tsync__pwl_eval(&up[d], (long double)lo[d])) - 1;
        b = (tsync_time)ceill(tsync__pwl_eval(&up[d], (long double)hi[d])) + 1;
        if (lo[p] > hi[p]) {
            lo[p] = a;
            hi[p] = b;
        } else {
            lo[p] = a < lo[p] ? a : lo[p];
            hi[p] = b > hi[p] ? b : hi[p];
        }
    }
    /* References down. */
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t d = t->order[i], p = t->parent[d];
        if (p == TSYNC__NONE || up[d].n == 0)
            rc = tsync__pwl_identity(&maps[d], lo[d] <= hi[d] ? lo[d] : 0,
                                     lo[d] <= hi[d] ? hi[d] : 0);
        else
            rc = tsync__pwl_compose(&maps[d], &maps[p], &up[d]);
        if (rc)
            goto out;
    }
out:
    if (up)
        for (uint32_t d = 0; d < t->n; d++)
            tsync__pwl_free(&up[d]);
    free(up);
    free(lo);
    free(hi);
    if (rc)
        for (uint32_t d = 0; d < t->n; d++)
            tsync__pwl_free(&maps[d]);
    return rc;
}
