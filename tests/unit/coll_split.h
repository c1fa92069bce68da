/* coll_split.h - a trace's collective instances as a process of the MPI replay holds
 * them, for the tests that play the processes with threads (src/replay/distribute.c
 * does the same over MPI): its own members, from what tsync__coll_route makes of
 * every instance for it (cs_split); the instances whose samples it collects, whole
 * with their members' times (cs_whole). Include after cmocka.h. */
#ifndef TSYNC_TEST_COLL_SPLIT_H
#define TSYNC_TEST_COLL_SPLIT_H

#include <stdlib.h>
#include <string.h>

#include "match/match.h"

/* part (a copy of t) gets the collective instances as process p of n holds them. */
static inline void cs_split(struct tsync_trace *part, const struct tsync_trace *t, uint32_t p,
                            uint32_t n)
{
    struct tsync__coll_routes r;
    struct tsync__held_member *held;
    struct tsync__held_instance *inst;
    struct tsync__proc_run *runs;
    size_t nh = 0, ni = 0, nr = 0;
    memset(&r, 0, sizeof(r));
    for (size_t q = 0; q < t->n_collectives; q++)
        assert_int_equal(tsync__coll_route(&r, t, q, &t->collectives[q],
                                           &t->members[t->collectives[q].first_member], n), 0);
    held = malloc((r.n_held + 1) * sizeof(*held));
    inst = malloc((r.n_inst + 1) * sizeof(*inst));
    runs = malloc((r.n_runs + 1) * sizeof(*runs));
    assert_true(held && inst && runs);
    /* In an order the exchange does not promise. */
    for (size_t i = r.n_held; i-- > 0;)
        if (r.held_to[i] == (int)p)
            held[nh++] = r.held[i];
    for (size_t i = r.n_inst; i-- > 0;)
        if (r.inst_to[i] == (int)p)
            inst[ni++] = r.inst[i];
    for (size_t i = r.n_runs; i-- > 0;)
        if (r.runs_to[i] == (int)p)
            runs[nr++] = r.runs[i];
    tsync__coll_routes_free(&r);
    part->collectives = NULL;
    part->members = NULL;
    assert_int_equal(tsync__coll_part_build(part, held, nh, inst, ni, runs, nr), 0);
    free(held);
    free(inst);
    free(runs);
}

static inline void cs_free(struct tsync_trace *part)
{
    free(part->collectives);
    free(part->members);
    free(part->coll_ids);
    free(part->coll_parts);
    free(part->proc_sets);
}

/* The instances q of t with q % n == p, whole, with their members' times. */
static inline struct tsync_coll_whole *cs_whole(const struct tsync_trace *t, uint32_t p, uint32_t n)
{
    struct tsync_coll_whole *w = calloc(1, sizeof(*w));
    assert_non_null(w);
    w->collectives = malloc((t->n_collectives + 1) * sizeof(*w->collectives));
    w->ids = malloc((t->n_collectives + 1) * sizeof(*w->ids));
    w->members = malloc((t->n_members + 1) * sizeof(*w->members));
    w->times = malloc((2 * t->n_members + 1) * sizeof(*w->times));
    assert_true(w->collectives && w->ids && w->members && w->times);
    for (size_t q = p; q < t->n_collectives; q += n) {
        struct tsync_collective *co = &w->collectives[w->n_collectives];
        *co = t->collectives[q];
        co->first_member = w->n_members;
        w->ids[w->n_collectives++] = q;
        for (uint32_t i = 0; i < co->n_members; i++) {
            const struct tsync_coll_member *m = &t->members[t->collectives[q].first_member + i];
            w->members[w->n_members] = *m;
            w->times[2 * w->n_members] = t->locations[m->loc].time[m->begin_idx];
            w->times[2 * w->n_members++ + 1] = t->locations[m->loc].time[m->end_idx];
        }
    }
    return w;
}

#endif
