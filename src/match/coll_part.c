/* coll_part.c - collective instances held in parts by the processes of the MPI
 * replay (src/replay/): a process holds of an instance only the members of its own
 * locations, with the instance's index in the whole trace, how many of its other
 * members send, and the sets of processes that hold its receiving and its sending
 * members, where the controlled logical clock's values for the instance go
 * (seed 002, section 5 and Table 2: forward, each sending member's time to the
 * receiving members' processes, which keep the maximum; backward, the receiving
 * members' times to the sending members' processes, which keep the minimum).
 *
 * A set is a list of runs of consecutive processes: the processes hold blocks of
 * consecutive locations, so that the holders of a communicator's ranks are mostly
 * consecutive (MPI_COMM_WORLD's are one run). A process stores each set once,
 * however many instances name it: its memory grows with its own members and the
 * distinct sets, not with the sizes of the instances.
 */
#include <stdlib.h>
#include <string.h>

#include "match/match.h"
#include "util/vec.h"

void tsync__coll_routes_free(struct tsync__coll_routes *r)
{
    free(r->held);
    free(r->inst);
    free(r->runs);
    free(r->held_to);
    free(r->inst_to);
    free(r->runs_to);
    free(r->pairs);
    free(r->procs);
    memset(r, 0, sizeof(*r));
}

static int by_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The roles of the members whose processes make set 0 and set 1. */
static const uint32_t set_role[2] = { TSYNC_COLL_RECVS, TSYNC_COLL_SENDS };

int tsync__coll_route(struct tsync__coll_routes *r, const struct tsync_trace *t, uint64_t id,
                      const struct tsync_collective *co, const struct tsync_coll_member *m,
                      uint32_t n_ranks)
{
    uint32_t n = co->n_members, senders = 0, holders = 0, nr[2] = { 0, 0 };
    struct tsync__held_instance h;
    size_t more;
    uint64_t *pairs;
    uint32_t *procs;

    if (tsync__reserve((void **)&r->pairs, &r->cap_pairs, n, sizeof(*r->pairs)) ||
        tsync__reserve((void **)&r->procs, &r->cap_procs, 4 * (size_t)n, sizeof(*r->procs)))
        return TSYNC_ENOMEM;
    pairs = r->pairs;
    procs = r->procs;
    /* The members by the process that holds them, each process's in rank order. */
    for (uint32_t i = 0; i < n; i++) {
        pairs[i] = (uint64_t)tsync__location_holder(m[i].loc, t->n_locations, n_ranks) << 32 | i;
        senders += (tsync__coll_role(co, &m[i]) & TSYNC_COLL_SENDS) != 0;
    }
    qsort(pairs, n, sizeof(*pairs), by_u64);
    /* The processes of the receiving members as runs, then those of the sending ones. */
    for (int k = 0; k < 2; k++) {
        uint32_t *v = procs + 2 * (size_t)n * k;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t p = (uint32_t)(pairs[i] >> 32);
            if (!(tsync__coll_role(co, &m[(uint32_t)pairs[i]]) & set_role[k]))
                continue;
            if (nr[k] && v[2 * nr[k] - 1] + 1 >= p) {
                v[2 * nr[k] - 1] = p;
            } else {
                v[2 * nr[k]] = v[2 * nr[k] + 1] = p;
                nr[k]++;
            }
        }
    }
    memset(&h, 0, sizeof(h));
    h.id = id;
    h.comm = co->comm;
    h.op = co->op;
    h.root = co->root;
    h.cls = co->cls;
    h.senders = senders;
    for (int k = 0; k < 2; k++) {
        h.runs[k][0] = nr[k] ? procs[2 * (size_t)n * k] : 1;
        h.runs[k][1] = nr[k] ? procs[2 * (size_t)n * k + 1] : 0;
    }
    for (uint32_t i = 0; i < n; i++)
        holders += i == 0 || pairs[i] >> 32 != pairs[i - 1] >> 32;
    more = r->n_runs + (size_t)holders * ((nr[0] ? nr[0] - 1 : 0) + (nr[1] ? nr[1] - 1 : 0));
    if (tsync__reserve((void **)&r->held, &r->cap_held, r->n_held + n, sizeof(*r->held)) ||
        tsync__reserve((void **)&r->held_to, &r->cap_held_to, r->n_held + n, sizeof(*r->held_to)) ||
        tsync__reserve((void **)&r->inst, &r->cap_inst, r->n_inst + holders, sizeof(*r->inst)) ||
        tsync__reserve((void **)&r->inst_to, &r->cap_inst_to, r->n_inst + holders,
                       sizeof(*r->inst_to)) ||
        tsync__reserve((void **)&r->runs, &r->cap_runs, more, sizeof(*r->runs)) ||
        tsync__reserve((void **)&r->runs_to, &r->cap_runs_to, more, sizeof(*r->runs_to)))
        return TSYNC_ENOMEM;
    /* To each process its members, the header and the runs after the first. */
    for (uint32_t a = 0, b; a < n; a = b) {
        int p = (int)(pairs[a] >> 32);
        for (b = a; b < n && (int)(pairs[b] >> 32) == p; b++) {
            uint32_t i = (uint32_t)pairs[b];
            r->held[r->n_held] = (struct tsync__held_member){ id, m[i], i };
            r->held_to[r->n_held++] = p;
        }
        r->inst[r->n_inst] = h;
        r->inst_to[r->n_inst++] = p;
        for (uint32_t k = 0; k < 2; k++)
            for (uint32_t j = 1; j < nr[k]; j++) {
                const uint32_t *v = procs + 2 * (size_t)n * k + 2 * j;
                r->runs[r->n_runs] = (struct tsync__proc_run){ id, k, v[0], v[1] };
                r->runs_to[r->n_runs++] = p;
            }
    }
    return TSYNC_OK;
}

/* ---- a process's part ------------------------------------------------------------------- */

/* The distinct sets of processes, each stored once (trace->proc_sets), found again
 * through a hash table of their offsets. */
struct interner {
    uint32_t *sets;
    size_t n, cap;
    uint32_t *slot;          /* offsets, UINT32_MAX where free */
    size_t n_slots, used;
};

/* FNV-1a over a set as stored: its count, then its runs. */
static uint64_t set_hash(const uint32_t *s)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < 1 + 2 * (size_t)s[0]; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

/* The slot of set s in the table: where it is, or the free one where it would go. */
static size_t slot_of(const struct interner *in, const uint32_t *s)
{
    size_t k = (size_t)set_hash(s) & (in->n_slots - 1);
    while (in->slot[k] != UINT32_MAX &&
           (in->sets[in->slot[k]] != s[0] ||
            memcmp(in->sets + in->slot[k] + 1, s + 1, 2 * (size_t)s[0] * sizeof(*s)) != 0))
        k = (k + 1) & (in->n_slots - 1);
    return k;
}

/* The offset of set s (as stored: a count, then the runs), stored if new. 0 or
 * TSYNC_ENOMEM. */
static int intern(struct interner *in, const uint32_t *s, uint32_t *off)
{
    size_t k, len = 1 + 2 * (size_t)s[0];
    if (2 * (in->used + 1) > in->n_slots) {  /* grow, at most half full */
        size_t old_n = in->n_slots;
        uint32_t *old = in->slot;
        in->n_slots = old_n ? 2 * old_n : 64;
        if (!(in->slot = malloc(in->n_slots * sizeof(*in->slot)))) {
            in->slot = old;
            in->n_slots = old_n;
            return TSYNC_ENOMEM;
        }
        memset(in->slot, 0xff, in->n_slots * sizeof(*in->slot));
        for (size_t i = 0; i < old_n; i++)
            if (old[i] != UINT32_MAX)
                in->slot[slot_of(in, in->sets + old[i])] = old[i];
        free(old);
    }
    k = slot_of(in, s);
    if (in->slot[k] == UINT32_MAX) {
        if (tsync__reserve((void **)&in->sets, &in->cap, in->n + len, sizeof(*in->sets)))
            return TSYNC_ENOMEM;
        memcpy(in->sets + in->n, s, len * sizeof(*s));
        in->slot[k] = (uint32_t)in->n;
        in->n += len;
        in->used++;
    }
    *off = in->slot[k];
    return TSYNC_OK;
}

static int held_cmp(const void *pa, const void *pb)
{
    const struct tsync__held_member *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int inst_cmp(const void *pa, const void *pb)
{
    uint64_t a = ((const struct tsync__held_instance *)pa)->id;
    uint64_t b = ((const struct tsync__held_instance *)pb)->id;
    return a < b ? -1 : a > b;
}

static int run_cmp(const void *pa, const void *pb)
{
    const struct tsync__proc_run *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    if (a->set != b->set)
        return a->set < b->set ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* Set k of instance h as stored in s (room for 1 + 2 x (1 + runs)): its first run,
 * then runs[*j ...] of it, which *j moves past. */
static void set_of(const struct tsync__held_instance *h, uint32_t k,
                   const struct tsync__proc_run *runs, size_t n_runs, size_t *j, uint32_t *s)
{
    s[0] = 0;
    if (h->runs[k][0] <= h->runs[k][1]) {
        s[1] = h->runs[k][0];
        s[2] = h->runs[k][1];
        s[0] = 1;
    }
    for (; *j < n_runs && runs[*j].id == h->id && runs[*j].set == k; (*j)++) {
        s[1 + 2 * s[0]] = runs[*j].first;
        s[2 + 2 * s[0]] = runs[*j].last;
        s[0]++;
    }
}

int tsync__coll_part_build(struct tsync_trace *t, struct tsync__held_member *held, size_t n_held,
                           struct tsync__held_instance *inst, size_t n_inst,
                           struct tsync__proc_run *runs, size_t n_runs)
{
    struct interner in;
    uint32_t *s = malloc((3 + 2 * n_runs) * sizeof(*s));
    size_t j = 0;
    int rc = TSYNC_ENOMEM;

    memset(&in, 0, sizeof(in));
    if (n_held)
        qsort(held, n_held, sizeof(*held), held_cmp);
    if (n_inst)
        qsort(inst, n_inst, sizeof(*inst), inst_cmp);
    if (n_runs)
        qsort(runs, n_runs, sizeof(*runs), run_cmp);
    t->collectives = malloc((n_inst ? n_inst : 1) * sizeof(*t->collectives));
    t->members = malloc((n_held ? n_held : 1) * sizeof(*t->members));
    t->coll_ids = malloc((n_inst ? n_inst : 1) * sizeof(*t->coll_ids));
    t->coll_parts = malloc((n_inst ? n_inst : 1) * sizeof(*t->coll_parts));
    if (!s || !t->collectives || !t->members || !t->coll_ids || !t->coll_parts)
        goto out;
    t->n_collectives = t->n_members = 0;
    /* One header per instance, its members after each other. */
    for (size_t q = 0, a = 0; q < n_inst; q++) {
        const struct tsync__held_instance *h = &inst[q];
        struct tsync_collective *co = &t->collectives[q];
        struct tsync_coll_part *p = &t->coll_parts[q];
        uint32_t senders = 0;
        memset(co, 0, sizeof(*co));
        co->comm = h->comm;
        co->op = h->op;
        co->root = h->root;
        co->cls = h->cls;
        co->first_member = t->n_members;
        for (; a < n_held && held[a].id == h->id; a++) {
            t->members[t->n_members++] = held[a].m;
            senders += (tsync__coll_role(co, &held[a].m) & TSYNC_COLL_SENDS) != 0;
        }
        co->n_members = (uint32_t)(t->n_members - co->first_member);
        t->coll_ids[q] = h->id;
        p->senders = h->senders - senders;
        while (j < n_runs && runs[j].id < h->id)
            j++;
        set_of(h, 0, runs, n_runs, &j, s);
        if (intern(&in, s, &p->to_recvs))
            goto out;
        set_of(h, 1, runs, n_runs, &j, s);
        if (intern(&in, s, &p->to_sends))
            goto out;
        t->n_collectives++;
    }
    rc = TSYNC_OK;
out:
    free(s);
    free(in.slot);
    if (rc) {
        free(in.sets);
        free(t->collectives);
        free(t->members);
        free(t->coll_ids);
        free(t->coll_parts);
        t->collectives = NULL;
        t->members = NULL;
        t->coll_ids = NULL;
        t->coll_parts = NULL;
        t->n_collectives = t->n_members = 0;
        return rc;
    }
    t->proc_sets = in.sets;
    return TSYNC_OK;
}
