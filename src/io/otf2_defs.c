/* otf2_defs.c - the OTF2 reader's definitions pass (libotf2): the global
 * definitions into the sink.
 *
 * The global definitions give the clock properties, the locations, the system tree
 * (which node each location runs on), and the communicators with their groups (how
 * ranks in a communicator map to locations). They are kept as read until the events
 * pass (otf2_events.c) is done with them: it reads every location's own definitions
 * (ClockOffset records) and events.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "io/otf2_guard.h"
#include "io/otf2_io.h"
#include "io/otf2_read.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/vec.h"

/* ---- definitions ------------------------------------------------------- */

#define PUSH_DEF(st, arr, value)                                                         \
    do {                                                                                 \
        if (TSYNC_PUSH((st)->arr, (st)->n_##arr, (st)->cap_##arr, value)) {              \
            (st)->failed = 1;                                                            \
            tsync__oom((st)->sink->ctx);                                                       \
            return OTF2_CALLBACK_INTERRUPT;                                              \
        }                                                                                \
    } while (0)

static OTF2_CallbackCode on_clock(void *ud, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime)
{
    struct tsync_otf2_read *st = ud;
    tsync__sink_clock(st->sink, resolution, offset, length, realtime);
    st->have_clock = resolution != 0;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    struct tsync_otf2_read *st = ud;
    struct tsync_otf2_string d = { self, strdup(s ? s : "") };
    if (!d.s) {
        st->failed = 1;
        tsync__oom(st->sink->ctx);
        return OTF2_CALLBACK_INTERRUPT;
    }
    PUSH_DEF(st, strings, d);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_stn(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    struct tsync_otf2_read *st = ud;
    struct tsync_otf2_stn d = { self, name, cls, parent };
    PUSH_DEF(st, stns, d);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_lgroup(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                   OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef stn,
                                   OTF2_LocationGroupRef creator)
{
    struct tsync_otf2_read *st = ud;
    struct tsync_otf2_lgroup d = { self, name, type, stn };
    (void)creator;
    PUSH_DEF(st, lgroups, d);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t n_events,
                                     OTF2_LocationGroupRef lgroup)
{
    struct tsync_otf2_read *st = ud;
    struct tsync_otf2_location d = { self, name, n_events, lgroup };
    (void)type;
    PUSH_DEF(st, locs, d);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm paradigm,
                                  OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    struct tsync_otf2_read *st = ud;
    struct tsync_otf2_group d = { self, type, paradigm, n, NULL };
    (void)name;
    (void)flags;
    if (n) {
        d.members = malloc(n * sizeof(*d.members));
        if (!d.members) {
            st->failed = 1;
            tsync__oom(st->sink->ctx);
            return OTF2_CALLBACK_INTERRUPT;
        }
        memcpy(d.members, members, n * sizeof(*d.members));
    }
    if (TSYNC_PUSH(st->groups, st->n_groups, st->cap_groups, d)) {
        free(d.members);
        st->failed = 1;
        tsync__oom(st->sink->ctx);
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                 OTF2_CommRef parent, OTF2_CommFlag flags)
{
    struct tsync_otf2_read *st = ud;
    struct tsync_otf2_comm d = { self, name, group };
    (void)parent;
    (void)flags;
    PUSH_DEF(st, comms, d);
    return OTF2_CALLBACK_SUCCESS;
}

static const char *string_of(const struct tsync_otf2_read *st, uint64_t ref)
{
    for (size_t i = 0; i < st->n_strings; i++)
        if (st->strings[i].ref == ref)
            return st->strings[i].s;
    return NULL;
}

static const struct tsync_otf2_stn *stn_of(const struct tsync_otf2_read *st, uint64_t ref)
{
    for (size_t i = 0; i < st->n_stns; i++)
        if (st->stns[i].ref == ref)
            return &st->stns[i];
    return NULL;
}

static const struct tsync_otf2_lgroup *lgroup_of(const struct tsync_otf2_read *st, uint64_t ref)
{
    for (size_t i = 0; i < st->n_lgroups; i++)
        if (st->lgroups[i].ref == ref)
            return &st->lgroups[i];
    return NULL;
}

/* A group by reference and type: some writers (EZTrace) reuse a reference for two
 * groups of different types, so the type disambiguates. */
static const struct tsync_otf2_group *group_of(const struct tsync_otf2_read *st, uint64_t ref, uint32_t type)
{
    for (size_t i = 0; i < st->n_groups; i++)
        if (st->groups[i].ref == ref && st->groups[i].type == type)
            return &st->groups[i];
    return NULL;
}

/* The node a system tree node belongs to: the nearest ancestor of class "node",
 * else the node itself (a tree without classes). */
static uint64_t node_stn(const struct tsync_otf2_read *st, uint64_t ref)
{
    uint64_t cur = ref;
    for (size_t depth = 0; depth < st->n_stns; depth++) {
        const struct tsync_otf2_stn *s = stn_of(st, cur);
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

/* Nodes and locations from the definitions: a location's node is the nearest
 * system tree node of class "node" above its location group. */
static int emit_locations(struct tsync_otf2_read *st)
{
    struct tsync_sink *sink = st->sink;
    uint64_t *node_refs = calloc(st->n_locs ? st->n_locs : 1, sizeof(*node_refs));
    uint32_t n_nodes = 0;
    int rc = TSYNC_OK;

    if (!node_refs)
        return tsync__oom(sink->ctx);
    for (size_t i = 0; i < st->n_locs && rc == TSYNC_OK; i++) {
        const struct tsync_otf2_lgroup *g = lgroup_of(st, st->locs[i].lgroup);
        uint64_t nref = g ? node_stn(st, g->stn) : OTF2_UNDEFINED_SYSTEM_TREE_NODE;
        const char *name = string_of(st, st->locs[i].name);
        uint32_t n;
        for (n = 0; n < n_nodes; n++)
            if (node_refs[n] == nref)
                break;
        if (n == n_nodes) {
            const struct tsync_otf2_stn *s = stn_of(st, nref);
            const char *node = s ? string_of(st, s->name) : NULL;
            node_refs[n_nodes++] = nref;
            if ((rc = tsync__sink_node(sink, node ? node : "unknown node", &n)))
                break;
        }
        rc = tsync__sink_location(sink, st->locs[i].ref, name ? name : "location", n);
    }
    free(node_refs);
    return rc;
}

/* World ranks and communicators. OTF2 (as Score-P writes it): the COMM_LOCATIONS
 * group lists the location of each world rank; a communicator's COMM_GROUP lists
 * its members as world ranks. Without COMM_LOCATIONS, ranks follow the order of
 * the process location groups. */
static int emit_comms(struct tsync_otf2_read *st)
{
    struct tsync_sink *sink = st->sink;
    const struct tsync_otf2_group *world = NULL;
    uint32_t *ranks = NULL;
    int rc = TSYNC_OK;

    for (size_t i = 0; i < st->n_groups && !world; i++)
        if (st->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
            st->groups[i].paradigm == OTF2_PARADIGM_MPI)
            world = &st->groups[i];
    if (world) {
        for (uint32_t r = 0; r < world->n && rc == TSYNC_OK; r++) {
            tsync_loc loc;
            if (tsync_trace_find_location(sink->t, world->members[r], &loc)) {
                loc = TSYNC_NONE;
                tsync__warn(sink->ctx, "%s: rank %u is location %llu, which is not defined",
                            st->path, r, (unsigned long long)world->members[r]);
            }
            rc = tsync__sink_rank(sink, loc);
        }
    } else {
        for (size_t g = 0; g < st->n_lgroups && rc == TSYNC_OK; g++) {
            if (st->lgroups[g].type != OTF2_LOCATION_GROUP_TYPE_PROCESS)
                continue;
            for (size_t i = 0; i < st->n_locs; i++) {
                if (st->locs[i].lgroup == st->lgroups[g].ref) {
                    rc = tsync__sink_rank(sink, (tsync_loc)i);
                    break;
                }
            }
        }
    }

    for (size_t c = 0; c < st->n_comms && rc == TSYNC_OK; c++) {
        const struct tsync_otf2_group *g = group_of(st, st->comms[c].group, OTF2_GROUP_TYPE_COMM_GROUP);
        const char *name = string_of(st, st->comms[c].name);
        uint64_t ref = st->comms[c].ref;
        name = name ? name : "communicator";
        if (g) {
            uint32_t *p = realloc(ranks, (g->n ? g->n : 1) * sizeof(*ranks));
            if (!p) {
                rc = tsync__oom(sink->ctx);
                break;
            }
            ranks = p;
            for (uint32_t r = 0; r < g->n; r++)
                ranks[r] = g->members[r] < sink->t->n_ranks ? (uint32_t)g->members[r] : TSYNC_NONE;
            rc = tsync__sink_comm(sink, ref, name, g->n, ranks);
        } else if (group_of(st, st->comms[c].group, OTF2_GROUP_TYPE_COMM_SELF)) {
            rc = tsync__sink_comm(sink, ref, name, 1, NULL); /* MPI_COMM_SELF: rank 0 is the caller */
        } else {
            tsync__warn(sink->ctx, "%s: communicator %llu (%s) has no member group; "
                        "its ranks are taken as world ranks", st->path, (unsigned long long)ref, name);
            rc = tsync__sink_comm(sink, ref, name, 0, NULL);
        }
    }
    free(ranks);
    return rc;
}

/* The global definition file next to the anchor ("dir/name.def"), checked before
 * libotf2 reads it; a missing one is libotf2's to report. */
static int guard_global_defs(struct tsync_otf2_read *st)
{
    tsync_ctx *ctx = st->sink->ctx;
    char *dir = NULL, *name = NULL, *def = NULL;
    struct stat sb;
    int rc = tsync__otf2_split_anchor(st->path, &dir, &name, ctx);
    if (!rc && !(def = tsync__strfmt("%s/%s.def", dir, name)))
        rc = tsync__oom(ctx);
    if (!rc && stat(def, &sb) == 0)
        rc = tsync__otf2_guard_file(def, TSYNC_OTF2_GLOBAL_DEFS, st->chunk_def, ctx);
    free(dir);
    free(name);
    free(def);
    return rc;
}

static int read_global_defs(struct tsync_otf2_read *st, OTF2_Reader *reader)
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
        return tsync__fail(st->sink->ctx, TSYNC_EFORMAT, "%s: cannot read the global definitions "
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
        return tsync_ctx_error_code(st->sink->ctx);
    if (e != OTF2_SUCCESS)
        return tsync__fail(st->sink->ctx, TSYNC_EFORMAT, "%s: global definitions are corrupt after %llu "
                           "records: %s", st->path, (unsigned long long)n, OTF2_Error_GetName(e));
    if (!st->have_clock)
        return tsync__fail(st->sink->ctx, TSYNC_EFORMAT, "%s: no ClockProperties definition "
                           "(timer resolution unknown)", st->path);
    return TSYNC_OK;
}


int tsync__otf2_read_definitions(void *r, struct tsync_sink *sink)
{
    struct tsync_otf2_read *st = r;
    int rc;
    st->sink = sink;
    if (!(rc = read_global_defs(st, st->reader)) && !(rc = emit_locations(st)))
        rc = emit_comms(st);
    return rc;
}

void tsync__otf2_read_defs_free(struct tsync_otf2_read *st)
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
