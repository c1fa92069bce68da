/* collective.c - MPI collective calls grouped into operation instances.
 *
 * MPI requires every member of a communicator to call its collectives in the same
 * order, so the k-th MpiCollectiveEnd of every member of a communicator belongs to
 * the k-th instance. Each member's role in the instance (does it send data, does it
 * receive data) follows the operation's class and the recorded sizes (seed 002,
 * section 4.1: members with zero data are left out of S or R).
 */
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "match/match.h"
#include "util/ctx.h"
#include "util/vec.h"

unsigned tsync__coll_role(const struct tsync_collective *co, const struct tsync_coll_member *m)
{
    int root_known = co->root != TSYNC_NONE, is_root = m->comm_rank == co->root;
    unsigned s = m->sends ? TSYNC_COLL_SENDS : 0, r = m->recvs ? TSYNC_COLL_RECVS : 0;
    switch (co->cls) {
    case TSYNC_COLL_ONE_TO_N:
        return (root_known ? (is_root ? TSYNC_COLL_SENDS : 0) : s) | r;
    case TSYNC_COLL_N_TO_ONE:
        return s | (root_known ? (is_root ? TSYNC_COLL_RECVS : 0) : r);
    case TSYNC_COLL_N_TO_N:
    case TSYNC_COLL_SCAN:
    case TSYNC_COLL_EXSCAN:
        return s | r;
    default:
        return 0;
    }
}

int tsync__scan_flows(const struct tsync_collective *co, uint32_t k, uint32_t i)
{
    return co->cls == TSYNC_COLL_SCAN ? k <= i : k < i;
}

int tsync__coll_rec_cmp(const void *pa, const void *pb)
{
    const struct tsync_coll_rec *a = pa, *b = pb;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->loc != b->loc)
        return a->loc < b->loc ? -1 : 1;
    return a->end_idx < b->end_idx ? -1 : a->end_idx > b->end_idx;
}

/* Rank of a location in a communicator, or TSYNC_NONE. */
static uint32_t comm_rank_of(const struct tsync_trace *t, const struct tsync_comm *c, tsync_loc loc)
{
    uint32_t world = t->locations[loc].rank;
    if (!c->world_rank)
        return c->size == 1 ? 0 : world;
    for (uint32_t r = 0; r < c->size; r++)
        if (c->world_rank[r] == world)
            return r;
    return TSYNC_NONE;
}

static int ranked_cmp(const void *pa, const void *pb)
{
    const struct tsync__ranked_rec *a = pa, *b = pb;
    return a->comm_rank < b->comm_rank ? -1 : a->comm_rank > b->comm_rank;
}

/* Sets who sends and who receives. Sizes decide where the tracer recorded them;
 * a tracer that records no sizes at all (every size zero) gets the class's roles. */
static void set_roles(struct tsync_collective *c, struct tsync_coll_member *m,
                      const struct tsync_coll_rec *const *recs)
{
    int sized = 0;
    for (uint32_t i = 0; i < c->n_members; i++)
        sized |= recs[i]->sent || recs[i]->received;
    for (uint32_t i = 0; i < c->n_members; i++) {
        int is_root = m[i].comm_rank == c->root;
        int sends = sized ? recs[i]->sent > 0 : 1;
        int recvs = sized ? recs[i]->received > 0 : 1;
        if (c->op == OTF2_COLLECTIVE_OP_BARRIER)
            sends = recvs = 1;
        switch (c->cls) {
        case TSYNC_COLL_ONE_TO_N:
            m[i].sends = (uint8_t)is_root;
            m[i].recvs = (uint8_t)recvs;
            break;
        case TSYNC_COLL_N_TO_ONE:
            m[i].sends = (uint8_t)sends;
            m[i].recvs = (uint8_t)is_root;
            break;
        case TSYNC_COLL_NONE:
            m[i].sends = m[i].recvs = 0;
            break;
        default:
            m[i].sends = (uint8_t)sends;
            m[i].recvs = (uint8_t)recvs;
            break;
        }
    }
}

void tsync__coll_instance(const struct tsync_trace *t, uint32_t comm, uint64_t k, size_t nl,
                          const struct tsync_coll_rec **recs, uint32_t nm,
                          struct tsync__ranked_rec *ranked, struct tsync_collective *c,
                          struct tsync_coll_member *m, tsync_ctx *ctx)
{
    uint64_t first = c->first_member;
    if (nm != nl || (t->comms[comm].size && nm != t->comms[comm].size && k == 0))
        tsync__warn(ctx, "%s: communicator %llu (%s): collective call %llu has %u of %u "
                    "members recorded", t->path, (unsigned long long)t->comms[comm].ref,
                    t->comms[comm].name, (unsigned long long)k, nm,
                    t->comms[comm].size ? t->comms[comm].size : (uint32_t)nl);
    memset(c, 0, sizeof(*c));
    c->comm = comm;
    c->op = recs[0]->op;
    c->root = recs[0]->root;
    c->cls = (uint8_t)tsync__coll_class(c->op);
    c->n_members = nm;
    c->first_member = first;
    for (uint32_t i = 1; i < nm; i++) {
        if (recs[i]->op != c->op) {
            tsync__warn(ctx, "%s: communicator %llu: collective call %llu: location %llu "
                        "records operation %u where others record %u", t->path,
                        (unsigned long long)t->comms[comm].ref, (unsigned long long)k,
                        (unsigned long long)t->locations[recs[i]->loc].ref, recs[i]->op, c->op);
            break;
        }
    }
    if ((c->cls == TSYNC_COLL_ONE_TO_N || c->cls == TSYNC_COLL_N_TO_ONE) && c->root == TSYNC_NONE)
        c->cls = TSYNC_COLL_N_TO_N; /* no root recorded: every member may depend on all */
    for (uint32_t i = 0; i < nm; i++) {
        uint32_t cr = comm_rank_of(t, &t->comms[comm], recs[i]->loc);
        ranked[i].comm_rank = cr == TSYNC_NONE ? i : cr;
        ranked[i].rec = recs[i];
    }
    qsort(ranked, nm, sizeof(*ranked), ranked_cmp);
    for (uint32_t i = 0; i < nm; i++) {
        m[i].loc = ranked[i].rec->loc;
        m[i].comm_rank = ranked[i].comm_rank;
        m[i].begin_idx = ranked[i].rec->begin_idx;
        m[i].end_idx = ranked[i].rec->end_idx;
        recs[i] = ranked[i].rec;
    }
    set_roles(c, m, recs);
}

int tsync__match_collectives(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx)
{
    struct tsync_coll_rec *r = in->colls;
    size_t n = in->n_colls, cap_c = 0, cap_m = 0;
    const struct tsync_coll_rec **recs = NULL;
    struct tsync__ranked_rec *ranked = NULL;
    size_t *pos = NULL, *end = NULL;
    int rc = TSYNC_OK;

    if (n)
        qsort(r, n, sizeof(*r), tsync__coll_rec_cmp);
    for (size_t a = 0; a < n;) {
        /* Records of one communicator: [a, b); per location runs [pos[k], end[k]). */
        size_t b = a, nl = 0;
        uint32_t comm = r[a].comm;
        while (b < n && r[b].comm == comm)
            b++;
        free(pos), free(end), free(recs), free(ranked);
        pos = malloc((b - a) * sizeof(*pos));
        end = malloc((b - a) * sizeof(*end));
        recs = malloc((b - a) * sizeof(*recs));
        ranked = malloc((b - a) * sizeof(*ranked));
        if (!pos || !end || !recs || !ranked) {
            rc = tsync__oom(ctx);
            goto out;
        }
        for (size_t i = a; i < b; nl++) {
            pos[nl] = i;
            while (i < b && r[i].loc == r[pos[nl]].loc)
                i++;
            end[nl] = i;
        }
        for (uint64_t k = 0;; k++) {
            struct tsync_collective c;
            uint32_t nm = 0;
            for (size_t l = 0; l < nl; l++)
                if (pos[l] + k < end[l])
                    recs[nm++] = &r[pos[l] + k];
            if (nm == 0)
                break;
            c.first_member = t->n_members;
            if (tsync__reserve((void **)&t->members, &cap_m, t->n_members + nm, sizeof(*t->members)) ||
                TSYNC_PUSH(t->collectives, t->n_collectives, cap_c, c)) {
                rc = tsync__oom(ctx);
                goto out;
            }
            tsync__coll_instance(t, comm, k, nl, recs, nm, ranked,
                                 &t->collectives[t->n_collectives - 1], &t->members[t->n_members],
                                 ctx);
            t->n_members += nm;
        }
        a = b;
    }
out:
    free(pos);
    free(end);
    free(recs);
    free(ranked);
    return rc;
}
