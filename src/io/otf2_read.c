/* otf2_read.c - reads an OTF2 archive into the trace model (libotf2).
 *
 * Two steps. The global definitions give the clock properties, the locations, the
 * system tree (which node each location runs on), and the communicators with their
 * groups (how ranks in a communicator map to locations). Then every location's own
 * definitions (ClockOffset records) and events are read with a per-location reader,
 * with libotf2's clock offset correction switched off so that the model keeps the
 * raw timestamps, by as many threads as the context allows (see "events" below).
 * Each event gets 8 bytes of time and 1 byte of kind; MPI events also leave a
 * record for matching (match/).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "io/formats.h"
#include "io/otf2_guard.h"
#include "io/otf2_io.h"
#include "io/otf2_records.h"
#include "match/match.h"
#include "trace/trace.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/vec.h"
#include "util/workers.h"

/* Definitions as read, looked up by reference after the global pass. */
struct def_string { uint64_t ref; char *s; };
struct def_stn { uint64_t ref; uint64_t name, cls, parent; };
struct def_lgroup { uint64_t ref; uint64_t name; uint32_t type; uint64_t stn; };
struct def_location { uint64_t ref; uint64_t name; uint64_t n_events; uint64_t lgroup; };
struct def_group { uint64_t ref; uint32_t type; uint32_t paradigm; uint32_t n; uint64_t *members; };
struct def_comm { uint64_t ref; uint64_t name; uint64_t group; };

struct pending_irecv { uint64_t request; uint64_t idx; };

struct read_state {
    tsync_ctx *ctx;
    struct tsync_trace *t;
    const char *path;
    int failed;                 /* an error was recorded in ctx */
    int have_clock;
    uint64_t chunk_evt, chunk_def; /* the anchor's chunk sizes */

    struct def_string *strings; size_t n_strings, cap_strings;
    struct def_stn *stns; size_t n_stns, cap_stns;
    struct def_lgroup *lgroups; size_t n_lgroups, cap_lgroups;
    struct def_location *locs; size_t n_locs, cap_locs;
    struct def_group *groups; size_t n_groups, cap_groups;
    struct def_comm *comms; size_t n_comms, cap_comms;
};

/* ---- definitions ------------------------------------------------------- */

#define PUSH_DEF(st, arr, value)                                                         \
    do {                                                                                 \
        if (TSYNC_PUSH((st)->arr, (st)->n_##arr, (st)->cap_##arr, value)) {              \
            (st)->failed = 1;                                                            \
            tsync__oom((st)->ctx);                                                       \
            return OTF2_CALLBACK_INTERRUPT;                                              \
        }                                                                                \
    } while (0)

static OTF2_CallbackCode on_clock(void *ud, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime)
{
    struct read_state *st = ud;
    st->t->timer_resolution = resolution;
    st->t->global_offset = offset;
    st->t->trace_length = length;
    st->t->realtime = realtime;
    st->have_clock = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    struct read_state *st = ud;
    struct def_string d = { self, strdup(s ? s : "") };
    if (!d.s) {
        st->failed = 1;
        tsync__oom(st->ctx);
        return OTF2_CALLBACK_INTERRUPT;
    }
    PUSH_DEF(st, strings, d);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_stn(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    struct read_state *st = ud;
    struct def_stn d = { self, name, cls, parent };
    PUSH_DEF(st, stns, d);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_lgroup(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                   OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef stn,
                                   OTF2_LocationGroupRef creator)
{
    struct read_state *st = ud;
    struct def_lgroup d = { self, name, type, stn };
    (void)creator;
    PUSH_DEF(st, lgroups, d);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t n_events,
                                     OTF2_LocationGroupRef lgroup)
{
    struct read_state *st = ud;
    struct def_location d = { self, name, n_events, lgroup };
    (void)type;
    PUSH_DEF(st, locs, d);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm paradigm,
                                  OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    struct read_state *st = ud;
    struct def_group d = { self, type, paradigm, n, NULL };
    (void)name;
    (void)flags;
    if (n) {
        d.members = malloc(n * sizeof(*d.members));
        if (!d.members) {
            st->failed = 1;
            tsync__oom(st->ctx);
            return OTF2_CALLBACK_INTERRUPT;
        }
        memcpy(d.members, members, n * sizeof(*d.members));
    }
    if (TSYNC_PUSH(st->groups, st->n_groups, st->cap_groups, d)) {
        free(d.members);
        st->failed = 1;
        tsync__oom(st->ctx);
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                 OTF2_CommRef parent, OTF2_CommFlag flags)
{
    struct read_state *st = ud;
    struct def_comm d = { self, name, group };
    (void)parent;
    (void)flags;
    PUSH_DEF(st, comms, d);
    return OTF2_CALLBACK_SUCCESS;
}

static const char *string_of(const struct read_state *st, uint64_t ref)
{
    for (size_t i = 0; i < st->n_strings; i++)
        if (st->strings[i].ref == ref)
            return st->strings[i].s;
    return NULL;
}

static const struct def_stn *stn_of(const struct read_state *st, uint64_t ref)
{
    for (size_t i = 0; i < st->n_stns; i++)
        if (st->stns[i].ref == ref)
            return &st->stns[i];
    return NULL;
}

static const struct def_lgroup *lgroup_of(const struct read_state *st, uint64_t ref)
{
    for (size_t i = 0; i < st->n_lgroups; i++)
        if (st->lgroups[i].ref == ref)
            return &st->lgroups[i];
    return NULL;
}

/* A group by reference and type: some writers (EZTrace) reuse a reference for two
 * groups of different types, so the type disambiguates. */
static const struct def_group *group_of(const struct read_state *st, uint64_t ref, uint32_t type)
{
    for (size_t i = 0; i < st->n_groups; i++)
        if (st->groups[i].ref == ref && st->groups[i].type == type)
            return &st->groups[i];
    return NULL;
}

/* The node a system tree node belongs to: the nearest ancestor of class "node",
 * else the node itself (a tree without classes). */
static uint64_t node_stn(const struct read_state *st, uint64_t ref)
{
    uint64_t cur = ref;
    for (size_t depth = 0; depth < st->n_stns; depth++) {
        const struct def_stn *s = stn_of(st, cur);
        const char *cls;
        if (!s)
            break;
        cls = string_of(st, s->cls);
        if (cls && strcasecmp(cls, "node") == 0)
            return cur;
        if (s->parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE)
            break;
        cur = s->parent;
    }
    return ref;
}

static char *dup_or(const char *s, const char *fallback)
{
    return strdup(s ? s : fallback);
}

/* Nodes, locations and clock domains from the definitions. */
static int build_locations(struct read_state *st, enum tsync_domain_rule rule)
{
    struct tsync_trace *t = st->t;
    uint64_t *node_refs = NULL;
    int rc = TSYNC_ENOMEM;

    t->n_locations = (uint32_t)st->n_locs;
    t->locations = calloc(st->n_locs ? st->n_locs : 1, sizeof(*t->locations));
    node_refs = calloc(st->n_locs ? st->n_locs : 1, sizeof(*node_refs));
    t->nodes = calloc(st->n_locs ? st->n_locs : 1, sizeof(*t->nodes));
    if (!t->locations || !node_refs || !t->nodes)
        goto out;
    for (size_t i = 0; i < st->n_locs; i++) {
        struct tsync_location *l = &t->locations[i];
        const struct def_lgroup *g = lgroup_of(st, st->locs[i].lgroup);
        uint64_t nref = g ? node_stn(st, g->stn) : OTF2_UNDEFINED_SYSTEM_TREE_NODE;
        uint32_t n;
        l->ref = st->locs[i].ref;
        l->rank = TSYNC_NONE;
        l->name = dup_or(string_of(st, st->locs[i].name), "location");
        if (!l->name)
            goto out;
        for (n = 0; n < t->n_nodes; n++)
            if (node_refs[n] == nref)
                break;
        if (n == t->n_nodes) {
            const struct def_stn *s = stn_of(st, nref);
            node_refs[n] = nref;
            t->nodes[n].name = dup_or(s ? string_of(st, s->name) : NULL, "unknown node");
            if (!t->nodes[n].name)
                goto out;
            t->n_nodes++;
        }
        l->node = n;
    }

    t->domain_rule = rule;
    t->n_domains = rule == TSYNC_DOMAIN_NODE ? t->n_nodes : t->n_locations;
    t->domains = calloc(t->n_domains ? t->n_domains : 1, sizeof(*t->domains));
    if (!t->domains)
        goto out;
    if (rule == TSYNC_DOMAIN_NODE) {
        for (uint32_t n = 0; n < t->n_nodes; n++) {
            t->domains[n].node = n;
            if (!(t->domains[n].name = strdup(t->nodes[n].name)))
                goto out;
        }
        for (uint32_t i = 0; i < t->n_locations; i++)
            t->locations[i].domain = t->locations[i].node;
    } else { /* by location; a domain file regroups them later */
        for (uint32_t i = 0; i < t->n_locations; i++) {
            t->domains[i].node = t->locations[i].node;
            if (!(t->domains[i].name = tsync__own_domain_name(t, i)))
                goto out;
            t->locations[i].domain = i;
        }
    }
    rc = TSYNC_OK;
out:
    free(node_refs);
    if (rc)
        tsync__oom(st->ctx);
    return rc;
}

/* World ranks and communicators. OTF2 (as Score-P writes it): the COMM_LOCATIONS
 * group lists the location of each world rank; a communicator's COMM_GROUP lists
 * its members as world ranks. Without COMM_LOCATIONS, ranks follow the order of
 * the process location groups. */
static int build_comms(struct read_state *st)
{
    struct tsync_trace *t = st->t;
    const struct def_group *world = NULL;

    for (size_t i = 0; i < st->n_groups && !world; i++)
        if (st->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
            st->groups[i].paradigm == OTF2_PARADIGM_MPI)
            world = &st->groups[i];
    if (world) {
        t->n_ranks = world->n;
        t->rank_loc = malloc((world->n ? world->n : 1) * sizeof(*t->rank_loc));
        if (!t->rank_loc)
            return tsync__oom(st->ctx);
        for (uint32_t r = 0; r < world->n; r++) {
            tsync_loc loc;
            if (tsync_trace_find_location(t, world->members[r], &loc)) {
                t->rank_loc[r] = TSYNC_NONE;
                tsync__warn(st->ctx, "%s: rank %u is location %llu, which is not defined", st->path,
                            r, (unsigned long long)world->members[r]);
                continue;
            }
            t->rank_loc[r] = loc;
            t->locations[loc].rank = r;
        }
    } else {
        t->rank_loc = malloc((st->n_lgroups ? st->n_lgroups : 1) * sizeof(*t->rank_loc));
        if (!t->rank_loc)
            return tsync__oom(st->ctx);
        for (size_t g = 0; g < st->n_lgroups; g++) {
            if (st->lgroups[g].type != OTF2_LOCATION_GROUP_TYPE_PROCESS)
                continue;
            for (size_t i = 0; i < st->n_locs; i++) {
                if (st->locs[i].lgroup == st->lgroups[g].ref) {
                    t->locations[i].rank = t->n_ranks;
                    t->rank_loc[t->n_ranks++] = (tsync_loc)i;
                    break;
                }
            }
        }
    }

    t->comms = calloc(st->n_comms ? st->n_comms : 1, sizeof(*t->comms));
    if (!t->comms)
        return tsync__oom(st->ctx);
    for (size_t c = 0; c < st->n_comms; c++) {
        struct tsync_comm *cm = &t->comms[t->n_comms];
        const struct def_group *g = group_of(st, st->comms[c].group, OTF2_GROUP_TYPE_COMM_GROUP);
        cm->ref = st->comms[c].ref;
        cm->name = dup_or(string_of(st, st->comms[c].name), "communicator");
        if (!cm->name)
            return tsync__oom(st->ctx);
        t->n_comms++;
        if (g) {
            cm->size = g->n;
            cm->world_rank = malloc((g->n ? g->n : 1) * sizeof(*cm->world_rank));
            if (!cm->world_rank)
                return tsync__oom(st->ctx);
            for (uint32_t r = 0; r < g->n; r++)
                cm->world_rank[r] = g->members[r] < t->n_ranks ? (uint32_t)g->members[r] : TSYNC_NONE;
        } else if (group_of(st, st->comms[c].group, OTF2_GROUP_TYPE_COMM_SELF)) {
            cm->size = 1; /* MPI_COMM_SELF: rank 0 is the calling process */
        } else {
            tsync__warn(st->ctx, "%s: communicator %llu (%s) has no member group; "
                        "its ranks are taken as world ranks", st->path,
                        (unsigned long long)cm->ref, cm->name);
        }
    }
    return TSYNC_OK;
}

/* The global definition file next to the anchor ("dir/name.def"), checked before
 * libotf2 reads it; a missing one is libotf2's to report. */
static int guard_global_defs(struct read_state *st)
{
    char *dir = NULL, *name = NULL, *def = NULL;
    struct stat sb;
    int rc = tsync__otf2_split_anchor(st->path, &dir, &name, st->ctx);
    if (!rc && !(def = tsync__strfmt("%s/%s.def", dir, name)))
        rc = tsync__oom(st->ctx);
    if (!rc && stat(def, &sb) == 0)
        rc = tsync__otf2_guard_file(def, TSYNC_OTF2_GLOBAL_DEFS, st->chunk_def, st->ctx);
    free(dir);
    free(name);
    free(def);
    return rc;
}

static int read_global_defs(struct read_state *st, OTF2_Reader *reader)
{
    OTF2_GlobalDefReader *gdr;
    OTF2_GlobalDefReaderCallbacks *cb;
    uint64_t n = 0;
    OTF2_ErrorCode e;
    int rc;
    if ((rc = guard_global_defs(st)))
        return rc;
    gdr = OTF2_Reader_GetGlobalDefReader(reader);
    cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !cb) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: cannot read the global definitions "
                           "(is the .def file next to the anchor file?)", st->path);
    }
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_stn);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, cb, st);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    e = OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &n);
    if (st->failed)
        return tsync_ctx_error_code(st->ctx);
    if (e != OTF2_SUCCESS)
        return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: global definitions are corrupt after %llu "
                           "records: %s", st->path, (unsigned long long)n, OTF2_Error_GetName(e));
    if (!st->have_clock || st->t->timer_resolution == 0)
        return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: no ClockProperties definition "
                           "(timer resolution unknown)", st->path);
    return TSYNC_OK;
}

/* ---- events ------------------------------------------------------------
 *
 * Locations are read by one or more workers (tsync__threads), each a contiguous
 * range of locations in order. What a worker adds besides its locations' events
 * (matching records, ClockOffset records, counts, warnings) stays with it until
 * every worker is done, and is then appended in location order: the trace is the
 * same whatever the number of workers and however they were scheduled. Worker 0
 * runs on the calling thread with the caller's context; the others record errors
 * and warnings in contexts of their own.
 */

struct evt_state {
    struct tsync_trace *t;
    const char *path;
    tsync_ctx *ctx;
    OTF2_Reader *reader;
    OTF2_EvtReaderCallbacks *ecb;
    OTF2_DefReaderCallbacks *dcb;
    const struct def_location *defs; /* the location definitions (event count hints) */
    uint64_t chunk_evt, chunk_def;   /* the anchor's chunk sizes */
    tsync_loc first, end;            /* this worker's locations */
    _Atomic tsync_loc *stop;         /* the first location that failed, shared */
    _Atomic uint64_t *events_read;   /* by every worker, for progress */
    uint64_t events_hint;            /* the definitions' total, for progress */
    uint64_t unreported;             /* read by this worker, not yet in events_read */
    int failed;                      /* an error was recorded in ctx */
    int rc;                          /* this worker's result */

    /* The location being read. */
    tsync_loc cur;
    size_t cap_events;
    uint64_t coll_begin;        /* index of the open MpiCollectiveBegin, or UINT64_MAX */
    struct pending_irecv *irecvs; size_t n_irecvs, cap_irecvs;

    /* What the worker's locations add, in their order. */
    struct tsync_match_input match;
    struct tsync_clock_offset *offsets; size_t n_offsets, cap_offsets;
    uint64_t unmatched_sends, unmatched_recvs;
    char **warnings; size_t n_warnings, cap_warnings; /* with a context of its own */
};

static OTF2_CallbackCode evt_oom(struct evt_state *es)
{
    es->failed = 1;
    tsync__oom(es->ctx);
    return OTF2_CALLBACK_INTERRUPT;
}

/* Room for one more event in both arrays of the location. */
static int grow_events(struct evt_state *es, struct tsync_location *l)
{
    size_t cap = es->cap_events;
    if (tsync__reserve((void **)&l->time, &cap, l->n_events + 1, sizeof(*l->time)) ||
        tsync__reserve((void **)&l->kind, &es->cap_events, l->n_events + 1, sizeof(*l->kind))) {
        evt_oom(es);
        return -1;
    }
    return 0;
}

/* Progress counts the events of every location and worker together, so that it
 * never starts again; only worker 0, on the caller's thread, has a callback. The
 * definitions' total is shown while it holds. */
static void report_read(struct evt_state *es)
{
    uint64_t done = atomic_fetch_add(es->events_read, es->unreported) + es->unreported;
    es->unreported = 0;
    tsync__progress(es->ctx, "reading events", done, done <= es->events_hint ? es->events_hint : 0);
}

static int push_event(struct evt_state *es, OTF2_TimeStamp time, uint8_t kind)
{
    struct tsync_location *l = &es->t->locations[es->cur];
    tsync_time tt = (tsync_time)time;
    if (time > (OTF2_TimeStamp)INT64_MAX) {
        es->failed = 1;
        tsync__fail(es->ctx, TSYNC_EFORMAT, "%s: location %llu (%s): event %llu: timestamp %llu "
                    "is out of range", es->path, (unsigned long long)l->ref, l->name,
                    (unsigned long long)l->n_events, (unsigned long long)time);
        return -1;
    }
    if (l->n_events && tt < l->time[l->n_events - 1]) {
        es->failed = 1;
        tsync__fail(es->ctx, TSYNC_EINCONSISTENT,
                    "%s: location %llu (%s): event %llu at %lld ticks is earlier than event %llu "
                    "at %lld ticks; a location's timestamps must not go backward",
                    es->path, (unsigned long long)l->ref, l->name, (unsigned long long)l->n_events,
                    (long long)tt, (unsigned long long)(l->n_events - 1),
                    (long long)l->time[l->n_events - 1]);
        return -1;
    }
    if (l->n_events == es->cap_events && grow_events(es, l))
        return -1;
    l->time[l->n_events] = tt;
    l->kind[l->n_events] = kind;
    l->n_events++;
    if (++es->unreported == 1u << 16)
        report_read(es);
    return 0;
}

OTF2_CallbackCode tsync__otf2_record_event(void *ud, OTF2_LocationRef location, OTF2_TimeStamp time,
                                           uint64_t position)
{
    (void)location;
    (void)position;
    return push_event(ud, time, TSYNC_EV_OTHER) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static uint32_t comm_index(const struct tsync_trace *t, OTF2_CommRef ref)
{
    for (uint32_t c = 0; c < t->n_comms; c++)
        if (t->comms[c].ref == ref)
            return c;
    return TSYNC_NONE;
}

/* The location of rank `rank` of communicator `comm`, or TSYNC_NONE. */
static tsync_loc peer_location(const struct evt_state *es, uint32_t comm, uint32_t rank)
{
    const struct tsync_trace *t = es->t;
    uint32_t world = rank;
    if (comm != TSYNC_NONE && t->comms[comm].world_rank) {
        if (rank >= t->comms[comm].size)
            return TSYNC_NONE;
        world = t->comms[comm].world_rank[rank];
    } else if (comm != TSYNC_NONE && t->comms[comm].size == 1) {
        return rank == 0 ? es->cur : TSYNC_NONE;
    }
    return world < t->n_ranks ? t->rank_loc[world] : TSYNC_NONE;
}

static OTF2_CallbackCode p2p(struct evt_state *es, OTF2_TimeStamp time, int is_send, uint32_t peer,
                             OTF2_CommRef comm_ref, uint32_t tag, uint64_t order_or_max)
{
    struct tsync_location *l = &es->t->locations[es->cur];
    uint32_t comm = comm_index(es->t, comm_ref);
    tsync_loc other = peer_location(es, comm, peer);
    struct tsync_p2p_rec r;
    int err;
    if (push_event(es, time, is_send ? TSYNC_EV_SEND : TSYNC_EV_RECV))
        return OTF2_CALLBACK_INTERRUPT;
    if (other == TSYNC_NONE) {
        if (is_send)
            es->unmatched_sends++;
        else
            es->unmatched_recvs++;
        tsync__warn(es->ctx, "%s: location %llu (%s): event %llu: %s rank %u of communicator %llu "
                    "is not a known location; the message is left unmatched", es->path,
                    (unsigned long long)l->ref, l->name, (unsigned long long)(l->n_events - 1),
                    is_send ? "receiver" : "sender", peer, (unsigned long long)comm_ref);
        return OTF2_CALLBACK_SUCCESS;
    }
    r.comm = comm;
    r.sender = is_send ? es->cur : other;
    r.receiver = is_send ? other : es->cur;
    r.tag = tag;
    r.idx = l->n_events - 1;
    r.order = order_or_max == UINT64_MAX ? r.idx : order_or_max;
    if (is_send)
        err = TSYNC_PUSH(es->match.sends, es->match.n_sends, es->match.cap_sends, r);
    else
        err = TSYNC_PUSH(es->match.recvs, es->match.n_recvs, es->match.cap_recvs, r);
    return err ? evt_oom(es) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_send(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                 OTF2_AttributeList *a, uint32_t receiver, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)a, (void)len;
    return p2p(ud, time, 1, receiver, comm, tag, UINT64_MAX);
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                  OTF2_AttributeList *a, uint32_t receiver, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t request)
{
    (void)loc, (void)pos, (void)a, (void)len, (void)request;
    return p2p(ud, time, 1, receiver, comm, tag, UINT64_MAX);
}

static OTF2_CallbackCode on_isend_complete(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
                                           void *ud, OTF2_AttributeList *a, uint64_t request)
{
    (void)loc, (void)pos, (void)a, (void)request;
    return push_event(ud, time, TSYNC_EV_SEND_DONE) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
                                          void *ud, OTF2_AttributeList *a, uint64_t request)
{
    struct evt_state *es = ud;
    struct pending_irecv p;
    (void)loc, (void)pos, (void)a;
    if (push_event(es, time, TSYNC_EV_RECV_POST))
        return OTF2_CALLBACK_INTERRUPT;
    p.request = request;
    p.idx = es->t->locations[es->cur].n_events - 1;
    if (TSYNC_PUSH(es->irecvs, es->n_irecvs, es->cap_irecvs, p))
        return evt_oom(es);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_recv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                 OTF2_AttributeList *a, uint32_t sender, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)a, (void)len;
    return p2p(ud, time, 0, sender, comm, tag, UINT64_MAX);
}

/* A non-blocking receive matches in the order it was posted (its MpiIrecvRequest),
 * not in the order it completed. */
static OTF2_CallbackCode on_irecv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                  OTF2_AttributeList *a, uint32_t sender, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t request)
{
    struct evt_state *es = ud;
    uint64_t order = UINT64_MAX;
    (void)loc, (void)pos, (void)a, (void)len;
    for (size_t i = 0; i < es->n_irecvs; i++) {
        if (es->irecvs[i].request == request) {
            order = es->irecvs[i].idx;
            es->irecvs[i] = es->irecvs[--es->n_irecvs];
            break;
        }
    }
    return p2p(es, time, 0, sender, comm, tag, order);
}

static OTF2_CallbackCode on_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
                                       void *ud, OTF2_AttributeList *a)
{
    struct evt_state *es = ud;
    (void)loc, (void)pos, (void)a;
    if (push_event(es, time, TSYNC_EV_COLL_BEGIN))
        return OTF2_CALLBACK_INTERRUPT;
    es->coll_begin = es->t->locations[es->cur].n_events - 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
                                     void *ud, OTF2_AttributeList *a, OTF2_CollectiveOp op,
                                     OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    struct evt_state *es = ud;
    struct tsync_coll_rec r;
    (void)loc, (void)pos, (void)a;
    if (push_event(es, time, TSYNC_EV_COLL_END))
        return OTF2_CALLBACK_INTERRUPT;
    r.comm = comm_index(es->t, comm);
    r.loc = es->cur;
    r.op = op;
    r.root = root == OTF2_UNDEFINED_UINT32 ? TSYNC_NONE : root;
    r.end_idx = es->t->locations[es->cur].n_events - 1;
    r.begin_idx = es->coll_begin == UINT64_MAX ? r.end_idx : es->coll_begin;
    r.sent = sent;
    r.received = received;
    es->coll_begin = UINT64_MAX;
    if (r.comm == TSYNC_NONE) {
        tsync__warn(es->ctx, "%s: location %llu: event %llu: collective on undefined communicator "
                    "%llu is ignored", es->path, (unsigned long long)es->t->locations[es->cur].ref,
                    (unsigned long long)r.end_idx, (unsigned long long)comm);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (TSYNC_PUSH(es->match.colls, es->match.n_colls, es->match.cap_colls, r))
        return evt_oom(es);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    struct evt_state *es = ud;
    struct tsync_clock_offset o = { es->cur, (tsync_time)time, offset, sd };
    if (TSYNC_PUSH(es->offsets, es->n_offsets, es->cap_offsets, o))
        return evt_oom(es);
    return OTF2_CALLBACK_SUCCESS;
}

/* The file of location `ref` in the archive of `anchor`: "dir/name/<ref>.<ext>". */
static char *location_file(const char *anchor, uint64_t ref, const char *ext)
{
    char *dir = NULL, *name = NULL, *p = NULL;
    if (tsync__otf2_split_anchor(anchor, &dir, &name, NULL) == TSYNC_OK)
        p = tsync__strfmt("%s/%s/%llu.%s", dir, name, (unsigned long long)ref, ext);
    free(dir);
    free(name);
    return p;
}

/* A location without its local definition file (or with an empty one) reads as one
 * without local definitions; its ClockOffset records, if it had any, are lost. The
 * location's files that are there are checked before libotf2 reads them (a missing
 * event file is libotf2's to report). */
static int guard_location_files(struct evt_state *es, const struct tsync_location *l)
{
    char *def = location_file(es->path, l->ref, "def"), *evt = location_file(es->path, l->ref, "evt");
    struct stat sb;
    int rc = TSYNC_OK;
    if (!def || !evt)
        rc = tsync__oom(es->ctx);
    else if (stat(def, &sb) != 0 || sb.st_size == 0)
        tsync__warn(es->ctx, "%s: %s: location %llu (%s) is read without local definitions "
                    "(ClockOffset records it had are lost)", def,
                    stat(def, &sb) != 0 ? "missing" : "empty", (unsigned long long)l->ref, l->name);
    else
        rc = tsync__otf2_guard_file(def, TSYNC_OTF2_LOCAL_DEFS, es->chunk_def, es->ctx);
    if (!rc && stat(evt, &sb) == 0)
        rc = tsync__otf2_guard_file(evt, TSYNC_OTF2_EVENTS, es->chunk_evt, es->ctx);
    free(def);
    free(evt);
    return rc;
}

static int read_location(struct evt_state *es, tsync_loc loc)
{
    struct tsync_location *l = &es->t->locations[loc];
    OTF2_Reader *reader = es->reader;
    OTF2_DefReader *dr;
    OTF2_EvtReader *er;
    uint64_t n = 0;
    OTF2_ErrorCode e;
    int rc;
    size_t hint = es->defs[loc].n_events;

    es->cur = loc;
    es->coll_begin = UINT64_MAX;
    es->n_irecvs = 0;
    /* The definition's event count is a hint only: some writers get it wrong. */
    es->cap_events = 0;
    if (hint > 0 && hint < ((size_t)1 << 26)) {
        if (!(l->time = tsync__alloc_array(hint, sizeof(*l->time))) ||
            !(l->kind = tsync__alloc_array(hint, sizeof(*l->kind))))
            return tsync__oom(es->ctx);
        es->cap_events = hint;
    }

    if ((rc = guard_location_files(es, l)))
        return rc;
    dr = OTF2_Reader_GetDefReader(reader, l->ref);
    if (dr) {
        OTF2_Reader_RegisterDefCallbacks(reader, dr, es->dcb, es);
        e = OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &n);
        OTF2_Reader_CloseDefReader(reader, dr);
        if (es->failed)
            return tsync_ctx_error_code(es->ctx);
        if (e != OTF2_SUCCESS)
            return tsync__fail(es->ctx, TSYNC_EFORMAT, "%s: location %llu (%s): local definitions "
                               "are corrupt after %llu records: %s", es->path,
                               (unsigned long long)l->ref, l->name, (unsigned long long)n,
                               OTF2_Error_GetName(e));
    }
    er = OTF2_Reader_GetEvtReader(reader, l->ref);
    if (!er) {
        char *evt = location_file(es->path, l->ref, "evt");
        int rc = tsync__fail(es->ctx, TSYNC_EFORMAT, "%s: location %llu (%s): cannot open its "
                             "events (%s)", es->path, (unsigned long long)l->ref, l->name,
                             evt ? evt : "out of memory");
        free(evt);
        return rc;
    }
    OTF2_EvtReader_ApplyClockOffsets(er, false); /* keep raw times; offsets are data */
    OTF2_Reader_RegisterEvtCallbacks(reader, er, es->ecb, es);
    n = 0;
    e = OTF2_Reader_ReadAllLocalEvents(reader, er, &n);
    OTF2_Reader_CloseEvtReader(reader, er);
    if (es->failed)
        return tsync_ctx_error_code(es->ctx);
    if (e != OTF2_SUCCESS)
        return tsync__fail(es->ctx, TSYNC_EFORMAT, "%s: location %llu (%s): event %llu: the event "
                           "file is truncated or corrupt: %s", es->path, (unsigned long long)l->ref,
                           l->name, (unsigned long long)l->n_events, OTF2_Error_GetName(e));
    return TSYNC_OK;
}

/* A worker's warnings, kept until the workers before it have passed theirs on. */
static void keep_warning(enum tsync_log_level level, const char *message, void *payload)
{
    struct evt_state *es = payload;
    char *s = strdup(message);
    (void)level;
    if (!s || TSYNC_PUSH(es->warnings, es->n_warnings, es->cap_warnings, s))
        free(s); /* a warning lost for want of memory; the reading goes on */
}

/* Reads the worker's locations in order; stops at its first error, or before a
 * location after one that failed elsewhere. */
static void read_worker(void *arg, unsigned w)
{
    struct evt_state *es = (struct evt_state *)arg + w;
    for (tsync_loc i = es->first; i < es->end && es->rc == TSYNC_OK && i < *es->stop; i++) {
        tsync_loc stop = *es->stop;
        if ((es->rc = read_location(es, i)))
            while (i < stop && !atomic_compare_exchange_weak(es->stop, &stop, i))
                ;
    }
}

/* Splits the locations into n contiguous ranges of about as many events each
 * (by the definitions' counts; every location counts at least one). */
static void split_locations(struct evt_state *es, unsigned n, const struct read_state *st)
{
    uint64_t total = 0, sum = 0;
    tsync_loc i = 0;
    for (size_t k = 0; k < st->n_locs; k++)
        total += st->locs[k].n_events + 1;
    for (unsigned w = 0; w < n; w++) {
        es[w].first = i;
        if (w + 1 == n) {
            i = (tsync_loc)st->n_locs;
        } else {
            double share = (double)total * (w + 1) / n;
            while (i < st->n_locs && (double)sum < share && st->n_locs - i > n - 1 - w)
                sum += st->locs[i++].n_events + 1;
        }
        es[w].end = i;
    }
}

/* Appends src[0..n) to *dst (*n_dst elements, capacity *cap); frees src. */
static int append(void **dst, size_t *n_dst, size_t *cap, void *src, size_t n, size_t size)
{
    int rc = 0;
    if (n && !(rc = tsync__reserve(dst, cap, *n_dst + n, size))) {
        memcpy((char *)*dst + *n_dst * size, src, n * size);
        *n_dst += n;
    }
    free(src);
    return rc;
}

#define APPEND(dst, n_dst, cap, src, n)                                                      \
    append((void **)&(dst), &(n_dst), &(cap), (src), (n), sizeof(*(dst)))

/* Worker w's results into worker 0's (warnings passed on, the rest appended);
 * returns 0 or TSYNC_ENOMEM. */
static int merge_worker(struct evt_state *es, unsigned w)
{
    struct evt_state *to = &es[0], *from = &es[w];
    int rc = 0;
    for (size_t k = 0; k < from->n_warnings; k++)
        tsync__warn(to->ctx, "%s", from->warnings[k]);
    rc |= APPEND(to->match.sends, to->match.n_sends, to->match.cap_sends, from->match.sends,
                 from->match.n_sends);
    rc |= APPEND(to->match.recvs, to->match.n_recvs, to->match.cap_recvs, from->match.recvs,
                 from->match.n_recvs);
    rc |= APPEND(to->match.colls, to->match.n_colls, to->match.cap_colls, from->match.colls,
                 from->match.n_colls);
    rc |= APPEND(to->offsets, to->n_offsets, to->cap_offsets, from->offsets, from->n_offsets);
    memset(&from->match, 0, sizeof(from->match));
    from->offsets = NULL;
    to->unmatched_sends += from->unmatched_sends;
    to->unmatched_recvs += from->unmatched_recvs;
    return rc ? tsync__oom(to->ctx) : TSYNC_OK;
}

static void worker_free(struct evt_state *es)
{
    for (size_t k = 0; k < es->n_warnings; k++)
        free(es->warnings[k]);
    free(es->warnings);
    free(es->irecvs);
    free(es->offsets);
    tsync__match_input_free(&es->match);
}

/* Reads every location's definitions and events; on success *match holds the
 * matching records of all locations in location order. */
static int read_events(struct read_state *st, OTF2_Reader *reader, struct tsync_match_input *match)
{
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_DefReaderCallbacks *dcb = OTF2_DefReaderCallbacks_New();
    unsigned n = tsync__threads(st->ctx), w;
    _Atomic tsync_loc stop = st->t->n_locations;
    _Atomic uint64_t events_read = 0;
    uint64_t hint = 0;
    struct evt_state *es;
    int rc = TSYNC_OK;

    if (n > st->t->n_locations)
        n = st->t->n_locations;
    es = calloc(n, sizeof(*es));
    if (!ecb || !dcb || !es) {
        rc = tsync__oom(st->ctx);
        goto out;
    }
    tsync__otf2_record_events(ecb);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, on_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, on_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, on_coll_end);
    OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, on_clock_offset);

    if (n > 1 && tsync__otf2_reader_threads(reader) != OTF2_SUCCESS)
        n = 1;
    for (uint32_t i = 0; i < st->t->n_locations; i++)
        OTF2_Reader_SelectLocation(reader, st->t->locations[i].ref);
    if (OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS ||
        OTF2_Reader_OpenEvtFiles(reader) != OTF2_SUCCESS) {
        rc = tsync__fail(st->ctx, TSYNC_EIO, "%s: cannot open the event files", st->path);
        goto out;
    }
    split_locations(es, n, st);
    for (size_t k = 0; k < st->n_locs; k++)
        hint += st->locs[k].n_events;
    for (w = 0; w < n; w++) {
        es[w].t = st->t;
        es[w].path = st->path;
        es[w].reader = reader;
        es[w].ecb = ecb;
        es[w].dcb = dcb;
        es[w].defs = st->locs;
        es[w].chunk_evt = st->chunk_evt;
        es[w].chunk_def = st->chunk_def;
        es[w].stop = &stop;
        es[w].events_read = &events_read;
        es[w].events_hint = hint;
        es[w].ctx = st->ctx;
        if (w && tsync_ctx_new(&es[w].ctx)) {
            es[w].ctx = NULL;
            n = w; /* fewer workers: the last takes the rest */
            es[n - 1].end = st->t->n_locations;
            break;
        }
        if (w)
            tsync_ctx_set_log(es[w].ctx, keep_warning, &es[w]);
    }
    tsync__run_workers(n, read_worker, es);
    OTF2_Reader_CloseDefFiles(reader);
    OTF2_Reader_CloseEvtFiles(reader);

    /* As if read one after the other: results up to the first failure. */
    rc = es[0].rc;
    for (w = 1; w < n && rc == TSYNC_OK; w++) {
        rc = merge_worker(es, w);
        if (rc == TSYNC_OK && es[w].rc)
            rc = tsync__fail(st->ctx, es[w].rc, "%s", tsync_ctx_error(es[w].ctx));
    }
    if (rc == TSYNC_OK) {
        uint64_t all = 0;
        for (uint32_t i = 0; i < st->t->n_locations; i++)
            all += st->t->locations[i].n_events;
        if (all)
            tsync__progress(st->ctx, "reading events", all, all);
        *match = es[0].match;
        memset(&es[0].match, 0, sizeof(es[0].match));
        st->t->offsets = es[0].offsets;
        st->t->n_offsets = es[0].n_offsets;
        es[0].offsets = NULL;
        st->t->unmatched_sends += es[0].unmatched_sends;
        st->t->unmatched_recvs += es[0].unmatched_recvs;
    }
out:
    for (w = 0; es && w < n; w++) {
        worker_free(&es[w]);
        if (w)
            tsync_ctx_free(es[w].ctx);
    }
    free(es);
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_DefReaderCallbacks_Delete(dcb);
    return rc;
}

static void state_free(struct read_state *st)
{
    for (size_t i = 0; i < st->n_strings; i++)
        free(st->strings[i].s);
    for (size_t i = 0; i < st->n_groups; i++)
        free(st->groups[i].members);
    free(st->strings);
    free(st->stns);
    free(st->lgroups);
    free(st->locs);
    free(st->groups);
    free(st->comms);
}

int tsync__otf2_open(tsync_trace **out, struct tsync_match_input *match, const char *path,
                     enum tsync_domain_rule rule, const struct tsync__domain_file *df, tsync_ctx *ctx)
{
    struct read_state st;
    OTF2_Reader *reader = NULL;
    int rc;

    memset(&st, 0, sizeof(st));
    memset(match, 0, sizeof(*match));
    st.ctx = ctx;
    st.path = path;
    rc = tsync__otf2_check_anchor(path, ctx);
    if (!rc)
        rc = tsync__otf2_guard_anchor(path, ctx);
    if (rc)
        return rc;
    st.t = tsync__trace_alloc(path);
    if (!st.t)
        return tsync__oom(ctx);
    OTF2_Error_RegisterCallback(tsync__otf2_quiet_errors, NULL);
    reader = OTF2_Reader_Open(path);
    if (!reader) {
        rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: not a readable OTF2 anchor file", path);
        goto out;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    OTF2_Reader_GetChunkSize(reader, &st.chunk_evt, &st.chunk_def);
    if ((rc = read_global_defs(&st, reader)) || (rc = build_locations(&st, rule)) ||
        (rc = build_comms(&st)))
        goto out;
    if (st.t->n_locations == 0) {
        rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: the trace defines no locations (empty trace)", path);
        goto out;
    }
    if (df && (rc = tsync__domain_file_apply(st.t, df, ctx)))
        goto out;
    if ((rc = read_events(&st, reader, match)))
        goto out;
    if (tsync_trace_event_count(st.t) == 0)
        rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: the trace has no events (empty trace)", path);
out:
    if (reader)
        OTF2_Reader_Close(reader);
    state_free(&st);
    if (rc) {
        tsync__match_input_free(match);
        tsync_trace_free(st.t);
        return rc;
    }
    *out = st.t;
    return TSYNC_OK;
}
