/* shift.c - the constant added to every map of a component so that no corrected
 * time is negative.
 */
#include <math.h>
#include <stdlib.h>

#include "estimate/run.h"

/* OTF2 cannot store negative times. When a component's maps would put an event
 * before 0 (a reference that started its clock after the others, as EZTrace's
 * ranks do), every map of the component moves by the same constant so that its
 * earliest event keeps the earliest raw time: times stay comparable within the
 * component, and the reference's map becomes that constant. */
int tsync__est_shift_components(struct tsync__run *r)
{
    tsync_estimate *e = r->e;
    tsync_time *low = malloc((e->n_comp ? e->n_comp : 1) * 2 * sizeof(*low)), *raw;
    if (!low)
        return TSYNC_ENOMEM;
    raw = low + e->n_comp;
    for (uint32_t c = 0; c < e->n_comp; c++)
        low[c] = raw[c] = INT64_MAX;
    for (uint32_t d = 0; d < e->n_domains; d++) {
        uint32_t c = r->g.comp[d];
        tsync_time at;
        if (r->ev_first[d] > r->ev_last[d] || !r->maps[d].n)
            continue;
        at = (tsync_time)llroundl(tsync__pwl_eval(&r->maps[d], (long double)r->ev_first[d]));
        low[c] = at < low[c] ? at : low[c];
        raw[c] = r->ev_first[d] < raw[c] ? r->ev_first[d] : raw[c];
    }
    for (uint32_t c = 0; c < e->n_comp; c++)
        e->comp_shift[c] = low[c] < 0 && raw[c] >= 0 ? raw[c] - low[c] : 0;
    for (uint32_t d = 0; d < e->n_domains; d++)
        for (size_t i = 0; i < r->maps[d].n; i++)
            r->maps[d].y[i] += e->comp_shift[r->g.comp[d]];
    free(low);
    return 0;
}
