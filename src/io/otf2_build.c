/* otf2_build.c - writes a new OTF2 archive from scratch, event by event (libotf2).
 *
 * Open creates the archive and one event writer and one local definition writer
 * per rank. Each event call goes straight to its rank's event writer; the builder
 * only counts events, tracks the smallest and largest time and remembers region
 * names, so its own memory does not depend on the number of events.
 *
 * The archive's memory and flush behaviour is tsync__otf2_archive_setup's (otf2_io.c):
 * bounded chunks per event writer, flushed to the file when full, of the smallest
 * size that survives a failed write (tsync__otf2_write_chunk_evt).
 *
 * Close writes the global definitions, now that the event counts and the time range
 * are known, in Score-P's shape:
 *
 *   ClockProperties, Paradigm MPI,
 *   SystemTreeNode 0 "machine" (class "machine"), 1+i for node i (class "node"),
 *   LocationGroup r "MPI Rank r" (PROCESS, under its node), Location per rank,
 *   Region per name used by enter/leave, in order of first use,
 *   Group 0 COMM_LOCATIONS (location of each world rank),
 *   Group 1 COMM_GROUP of MPI_COMM_WORLD, Group 2+k for extra communicator k,
 *   Comm 0 MPI_COMM_WORLD, then the extra communicators by id.
 *
 * Strings get consecutive references as they are needed, each just before the
 * record that first uses it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "io/otf2_build.h"
#include "io/otf2_io.h"
#include "util/ctx.h"
#include "util/fs.h"
#include "util/str.h"
#include "util/vec.h"

#define CHUNK_DEF (4 * 1024 * 1024) /* bytes per definition chunk */

struct rank_state {
    uint64_t location;      /* OTF2 LocationRef */
    uint32_t node;          /* index into nodes */
    OTF2_EvtWriter *evt;
    OTF2_DefWriter *def;    /* local definitions: ClockOffset */
    uint64_t n_events;
};

struct comm_state {
    uint32_t id;            /* OTF2 CommRef */
    uint32_t size;
    uint32_t *members;      /* world ranks */
};

struct tsync_otf2_builder {
    tsync_ctx *ctx;
    char *anchor;           /* as given, for messages */
    OTF2_Archive *archive;
    int rc;                 /* first error, sticky */
    unsigned long watch;    /* libotf2's errors since the archive was opened */

    uint64_t resolution;
    bool rank_names;
    uint32_t n_nodes;
    char **nodes;
    uint32_t n_ranks;
    struct rank_state *ranks;
    uint32_t n_comms;
    struct comm_state *comms; /* sorted by id */

    char **regions;         /* names; RegionRef = index */
    size_t n_regions, cap_regions;
    size_t last_region;     /* where the last lookup hit */

    bool have_time;
    uint64_t t_min, t_max;

    /* while writing the global definitions */
    OTF2_GlobalDefWriter *gdw;
    OTF2_StringRef n_strings;
};

/* ---- libotf2 callbacks ------------------------------------------------- */


/* ---- errors ------------------------------------------------------------ */

/* Records the first error and returns the sticky one. */
static int fail_otf2(struct tsync_otf2_builder *b, const char *what, OTF2_ErrorCode e)
{
    const char *detail = tsync__otf2_last_error(), *first = tsync__otf2_watch_first_here(b->watch);
    if (b->rc != TSYNC_OK)
        return b->rc;
    /* The first error libotf2 reported says what happened ("<file>: No space left on
     * device"); the code returned at the end is often a consequence of it. */
    if (first)
        b->rc = tsync__fail(b->ctx, TSYNC_EIO, "%s: %s: %s", b->anchor, what, first);
    else
        b->rc = tsync__fail(b->ctx, TSYNC_EIO, "%s: %s: %s%s%s%s", b->anchor, what,
                            OTF2_Error_GetName(e), *detail ? " (" : "", detail, *detail ? ")" : "");
    return b->rc;
}

static int fail_oom(struct tsync_otf2_builder *b)
{
    if (b->rc == TSYNC_OK)
        b->rc = tsync__oom(b->ctx);
    return b->rc;
}

/* ---- open -------------------------------------------------------------- */

static int check_layout(const struct tsync_otf2_build_layout *l, tsync_ctx *ctx)
{
    const char *a = l->anchor ? l->anchor : "(null)";
    if (!l->anchor || !*l->anchor)
        return tsync__fail(ctx, TSYNC_EINVAL, "OTF2 builder: no anchor path");
    if (l->timer_resolution == 0)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: timer resolution must be > 0", a);
    if (l->n_ranks == 0)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: no ranks", a);
    if (l->n_nodes == 0 || !l->nodes || !l->rank_node)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: no nodes", a);
    for (uint32_t n = 0; n < l->n_nodes; n++)
        if (!l->nodes[n])
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: node %u has no name", a, n);
    for (uint32_t r = 0; r < l->n_ranks; r++) {
        if (l->rank_node[r] >= l->n_nodes)
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: rank %u is on node %u, but there are %u nodes",
                               a, r, l->rank_node[r], l->n_nodes);
        /* Quadratic, but layouts are small next to the events. */
        for (uint32_t q = 0; l->rank_location && q < r; q++)
            if (l->rank_location[q] == l->rank_location[r])
                return tsync__fail(ctx, TSYNC_EINVAL, "%s: ranks %u and %u have the same location "
                                   "id %llu", a, q, r, (unsigned long long)l->rank_location[r]);
        if (l->rank_location && l->rank_location[r] == OTF2_UNDEFINED_LOCATION)
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: rank %u: location id is OTF2's undefined", a, r);
    }
    for (uint32_t k = 0; k < l->n_comms; k++) {
        const struct tsync_otf2_build_comm *c = &l->comms[k];
        if (c->id == 0 || c->id == OTF2_UNDEFINED_COMM)
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: communicator id %u is reserved (0 is "
                               "MPI_COMM_WORLD)", a, c->id);
        if (c->size == 0 || !c->members)
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: communicator %u has no members", a, c->id);
        for (uint32_t j = 0; j < k; j++)
            if (l->comms[j].id == c->id)
                return tsync__fail(ctx, TSYNC_EINVAL, "%s: communicator %u defined twice", a, c->id);
        for (uint32_t m = 0; m < c->size; m++) {
            if (c->members[m] >= l->n_ranks)
                return tsync__fail(ctx, TSYNC_EINVAL, "%s: communicator %u: member %u is world rank "
                                   "%u, but there are %u ranks", a, c->id, m, c->members[m], l->n_ranks);
            for (uint32_t q = 0; q < m; q++)
                if (c->members[q] == c->members[m])
                    return tsync__fail(ctx, TSYNC_EINVAL, "%s: communicator %u: world rank %u is "
                                       "a member twice", a, c->id, c->members[m]);
        }
    }
    return TSYNC_OK;
}

static int cmp_comm(const void *x, const void *y)
{
    const struct comm_state *a = x, *b = y;
    return (a->id > b->id) - (a->id < b->id);
}

/* Copies the layout into b. */
static int copy_layout(struct tsync_otf2_builder *b, const struct tsync_otf2_build_layout *l)
{
    b->resolution = l->timer_resolution;
    b->rank_names = l->rank_names;
    if (!(b->anchor = strdup(l->anchor)))
        return TSYNC_ENOMEM;
    if (!(b->nodes = calloc(l->n_nodes, sizeof(*b->nodes))))
        return TSYNC_ENOMEM;
    b->n_nodes = l->n_nodes;
    for (uint32_t n = 0; n < l->n_nodes; n++)
        if (!(b->nodes[n] = strdup(l->nodes[n])))
            return TSYNC_ENOMEM;
    if (!(b->ranks = calloc(l->n_ranks, sizeof(*b->ranks))))
        return TSYNC_ENOMEM;
    b->n_ranks = l->n_ranks;
    for (uint32_t r = 0; r < l->n_ranks; r++) {
        b->ranks[r].location = l->rank_location ? l->rank_location[r] : r;
        b->ranks[r].node = l->rank_node[r];
    }
    if (l->n_comms) {
        if (!(b->comms = calloc(l->n_comms, sizeof(*b->comms))))
            return TSYNC_ENOMEM;
        b->n_comms = l->n_comms;
        for (uint32_t k = 0; k < l->n_comms; k++) {
            struct comm_state *c = &b->comms[k];
            c->id = l->comms[k].id;
            c->size = l->comms[k].size;
            if (!(c->members = malloc(c->size * sizeof(*c->members))))
                return TSYNC_ENOMEM;
            memcpy(c->members, l->comms[k].members, c->size * sizeof(*c->members));
        }
        qsort(b->comms, b->n_comms, sizeof(*b->comms), cmp_comm);
    }
    return TSYNC_OK;
}

/* libotf2 will not write into an existing archive directory; say so clearly. */
static int refuse_existing(const char *anchor, const char *dir, const char *name, tsync_ctx *ctx)
{
    static const char *const parts[] = { "", ".otf2", ".def" };
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        struct stat sb;
        char *p = tsync__strfmt("%s/%s%s", dir, name, parts[i]);
        int exists;
        if (!p)
            return tsync__oom(ctx);
        exists = stat(p, &sb) == 0;
        free(p);
        if (exists)
            return tsync__fail(ctx, TSYNC_EIO, "%s: an OTF2 archive of that name exists already "
                               "(%s/%s%s); remove it first", anchor, dir, name, parts[i]);
    }
    return TSYNC_OK;
}

static void free_builder(struct tsync_otf2_builder *b)
{
    if (!b)
        return;
    free(b->anchor);
    for (uint32_t n = 0; b->nodes && n < b->n_nodes; n++)
        free(b->nodes[n]);
    free(b->nodes);
    free(b->ranks);
    for (uint32_t k = 0; b->comms && k < b->n_comms; k++)
        free(b->comms[k].members);
    free(b->comms);
    for (size_t i = 0; i < b->n_regions; i++)
        free(b->regions[i]);
    free(b->regions);
    free(b);
}

int tsync__otf2_build_open(struct tsync_otf2_builder **out, const struct tsync_otf2_build_layout *layout,
                           tsync_ctx *ctx)
{
    struct tsync_otf2_builder *b;
    char *dir = NULL, *name = NULL;
    OTF2_ErrorCode e;
    int rc;

    *out = NULL;
    if ((rc = check_layout(layout, ctx)))
        return rc;
    if (!(b = calloc(1, sizeof(*b))))
        return tsync__oom(ctx);
    b->ctx = ctx;
    if (copy_layout(b, layout) != TSYNC_OK) {
        free_builder(b);
        return tsync__oom(ctx);
    }
    if ((rc = tsync__otf2_split_anchor(b->anchor, &dir, &name, ctx)) ||
        (rc = refuse_existing(b->anchor, dir, name, ctx)) || (rc = tsync__mkdirs(dir, ctx)))
        goto fail;

    OTF2_Error_RegisterCallback(tsync__otf2_quiet_errors, NULL);
    b->watch = tsync__otf2_watch_begin();
    b->archive = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE,
                                   tsync__otf2_write_chunk_evt(OTF2_CHUNK_SIZE_MIN), CHUNK_DEF,
                                   OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!b->archive) {
        rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot create the archive: %s", b->anchor,
                         tsync__otf2_last_error());
        goto fail;
    }
    if ((e = tsync__otf2_archive_setup(b->archive)) != OTF2_SUCCESS ||
        (e = OTF2_Archive_SetCreator(b->archive, "tracesync OTF2 builder")) != OTF2_SUCCESS) {
        rc = fail_otf2(b, "setting up the archive", e);
        goto fail;
    }
    if ((e = OTF2_Archive_OpenEvtFiles(b->archive)) != OTF2_SUCCESS ||
        (e = OTF2_Archive_OpenDefFiles(b->archive)) != OTF2_SUCCESS) {
        rc = fail_otf2(b, "opening the event and definition files", e);
        goto fail;
    }
    for (uint32_t r = 0; r < b->n_ranks; r++) {
        struct rank_state *s = &b->ranks[r];
        if (!(s->evt = OTF2_Archive_GetEvtWriter(b->archive, s->location)) ||
            !(s->def = OTF2_Archive_GetDefWriter(b->archive, s->location))) {
            rc = tsync__fail(ctx, TSYNC_EIO, "%s: rank %u: cannot make the writers of location "
                             "%llu: %s", b->anchor, r, (unsigned long long)s->location,
                             tsync__otf2_last_error());
            goto fail;
        }
    }
    free(dir);
    free(name);
    *out = b;
    return TSYNC_OK;

fail:
    if (b->archive)
        OTF2_Archive_Close(b->archive);
    free_builder(b);
    free(dir);
    free(name);
    return rc;
}

/* ---- events ------------------------------------------------------------ */

/* The writer state of `rank`, or NULL (error recorded) when the builder has failed
 * before or the rank does not exist. */
static struct rank_state *rank_of(struct tsync_otf2_builder *b, uint32_t rank)
{
    if (b->rc != TSYNC_OK)
        return NULL;
    if (rank >= b->n_ranks) {
        b->rc = tsync__fail(b->ctx, TSYNC_EINVAL, "%s: rank %u does not exist (%u ranks)",
                            b->anchor, rank, b->n_ranks);
        return NULL;
    }
    return &b->ranks[rank];
}

/* Bookkeeping after a libotf2 event call. */
static int wrote(struct tsync_otf2_builder *b, struct rank_state *s, uint64_t time,
                 OTF2_ErrorCode e, const char *what)
{
    if (e != OTF2_SUCCESS) {
        char buf[96];
        snprintf(buf, sizeof(buf), "rank %u: writing %s", (unsigned)(s - b->ranks), what);
        return fail_otf2(b, buf, e);
    }
    s->n_events++;
    if (!b->have_time || time < b->t_min)
        b->t_min = time;
    if (!b->have_time || time > b->t_max)
        b->t_max = time;
    b->have_time = true;
    return TSYNC_OK;
}

/* The RegionRef of `name`, made on first use; OTF2_UNDEFINED_REGION on failure. */
static OTF2_RegionRef region_of(struct tsync_otf2_builder *b, const char *name)
{
    char *copy;
    if (!name) {
        b->rc = tsync__fail(b->ctx, TSYNC_EINVAL, "%s: region without a name", b->anchor);
        return OTF2_UNDEFINED_REGION;
    }
    /* Enter and leave come in pairs: the last hit is the likely one. */
    if (b->last_region < b->n_regions && strcmp(b->regions[b->last_region], name) == 0)
        return (OTF2_RegionRef)b->last_region;
    for (size_t i = 0; i < b->n_regions; i++)
        if (strcmp(b->regions[i], name) == 0)
            return (OTF2_RegionRef)(b->last_region = i);
    if (b->n_regions >= OTF2_UNDEFINED_REGION) {
        b->rc = tsync__fail(b->ctx, TSYNC_EINVAL, "%s: too many regions", b->anchor);
        return OTF2_UNDEFINED_REGION;
    }
    if (!(copy = strdup(name))) {
        fail_oom(b);
        return OTF2_UNDEFINED_REGION;
    }
    if (TSYNC_PUSH(b->regions, b->n_regions, b->cap_regions, copy)) {
        free(copy);
        fail_oom(b);
        return OTF2_UNDEFINED_REGION;
    }
    return (OTF2_RegionRef)(b->last_region = b->n_regions - 1);
}

int tsync__otf2_build_enter(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                            const char *region)
{
    struct rank_state *s = rank_of(b, rank);
    OTF2_RegionRef ref;
    if (!s || (ref = region_of(b, region)) == OTF2_UNDEFINED_REGION)
        return b->rc;
    return wrote(b, s, time, OTF2_EvtWriter_Enter(s->evt, NULL, time, ref), "Enter");
}

int tsync__otf2_build_leave(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                            const char *region)
{
    struct rank_state *s = rank_of(b, rank);
    OTF2_RegionRef ref;
    if (!s || (ref = region_of(b, region)) == OTF2_UNDEFINED_REGION)
        return b->rc;
    return wrote(b, s, time, OTF2_EvtWriter_Leave(s->evt, NULL, time, ref), "Leave");
}

int tsync__otf2_build_send(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time, uint32_t comm,
                           uint32_t peer, uint32_t tag, uint64_t len)
{
    struct rank_state *s = rank_of(b, rank);
    if (!s)
        return b->rc;
    return wrote(b, s, time, OTF2_EvtWriter_MpiSend(s->evt, NULL, time, peer, comm, tag, len),
                 "MpiSend");
}

int tsync__otf2_build_isend(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time, uint32_t comm,
                            uint32_t peer, uint32_t tag, uint64_t len, uint64_t request)
{
    struct rank_state *s = rank_of(b, rank);
    if (!s)
        return b->rc;
    return wrote(b, s, time,
                 OTF2_EvtWriter_MpiIsend(s->evt, NULL, time, peer, comm, tag, len, request),
                 "MpiIsend");
}

int tsync__otf2_build_isend_complete(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                                     uint64_t request)
{
    struct rank_state *s = rank_of(b, rank);
    if (!s)
        return b->rc;
    return wrote(b, s, time, OTF2_EvtWriter_MpiIsendComplete(s->evt, NULL, time, request),
                 "MpiIsendComplete");
}

int tsync__otf2_build_irecv_request(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                                    uint64_t request)
{
    struct rank_state *s = rank_of(b, rank);
    if (!s)
        return b->rc;
    return wrote(b, s, time, OTF2_EvtWriter_MpiIrecvRequest(s->evt, NULL, time, request),
                 "MpiIrecvRequest");
}

int tsync__otf2_build_recv(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time, uint32_t comm,
                           uint32_t peer, uint32_t tag, uint64_t len)
{
    struct rank_state *s = rank_of(b, rank);
    if (!s)
        return b->rc;
    return wrote(b, s, time, OTF2_EvtWriter_MpiRecv(s->evt, NULL, time, peer, comm, tag, len),
                 "MpiRecv");
}

int tsync__otf2_build_irecv(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time, uint32_t comm,
                            uint32_t peer, uint32_t tag, uint64_t len, uint64_t request)
{
    struct rank_state *s = rank_of(b, rank);
    if (!s)
        return b->rc;
    return wrote(b, s, time,
                 OTF2_EvtWriter_MpiIrecv(s->evt, NULL, time, peer, comm, tag, len, request),
                 "MpiIrecv");
}

int tsync__otf2_build_coll_begin(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time)
{
    struct rank_state *s = rank_of(b, rank);
    if (!s)
        return b->rc;
    return wrote(b, s, time, OTF2_EvtWriter_MpiCollectiveBegin(s->evt, NULL, time),
                 "MpiCollectiveBegin");
}

int tsync__otf2_build_coll_end(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                               OTF2_CollectiveOp op, uint32_t comm, uint32_t root, uint64_t sent,
                               uint64_t received)
{
    struct rank_state *s = rank_of(b, rank);
    if (!s)
        return b->rc;
    return wrote(b, s, time,
                 OTF2_EvtWriter_MpiCollectiveEnd(s->evt, NULL, time, op, comm, root, sent, received),
                 "MpiCollectiveEnd");
}

int tsync__otf2_build_clock_offset(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                                   int64_t offset, double stddev)
{
    struct rank_state *s = rank_of(b, rank);
    OTF2_ErrorCode e;
    if (!s)
        return b->rc;
    e = OTF2_DefWriter_WriteClockOffset(s->def, time, offset, stddev);
    if (e != OTF2_SUCCESS) {
        char buf[96];
        snprintf(buf, sizeof(buf), "rank %u: writing ClockOffset", rank);
        return fail_otf2(b, buf, e);
    }
    return TSYNC_OK;
}

uint64_t tsync__otf2_build_count(const struct tsync_otf2_builder *b, uint32_t rank)
{
    return b && rank < b->n_ranks ? b->ranks[rank].n_events : 0;
}

/* ---- global definitions ------------------------------------------------ */

/* Writes a String definition; *ref is its reference. */
static int def_string(struct tsync_otf2_builder *b, const char *s, OTF2_StringRef *ref)
{
    OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteString(b->gdw, b->n_strings, s);
    if (e != OTF2_SUCCESS)
        return fail_otf2(b, "writing a String definition", e);
    *ref = b->n_strings++;
    return TSYNC_OK;
}

/* Same, for a formatted string. */
static int def_stringf(struct tsync_otf2_builder *b, OTF2_StringRef *ref, const char *fmt, ...)
    TSYNC_PRINTF(3, 4);
static int def_stringf(struct tsync_otf2_builder *b, OTF2_StringRef *ref, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return def_string(b, buf, ref);
}

/* Region role as Score-P would give it, from the MPI function name. */
static OTF2_RegionRole region_role(const char *name)
{
    static const struct { const char *name; OTF2_RegionRole role; } roles[] = {
        { "MPI_Barrier", OTF2_REGION_ROLE_BARRIER },
        { "MPI_Ibarrier", OTF2_REGION_ROLE_BARRIER },
        { "MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL },
        { "MPI_Scatter", OTF2_REGION_ROLE_COLL_ONE2ALL },
        { "MPI_Scatterv", OTF2_REGION_ROLE_COLL_ONE2ALL },
        { "MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE },
        { "MPI_Gather", OTF2_REGION_ROLE_COLL_ALL2ONE },
        { "MPI_Gatherv", OTF2_REGION_ROLE_COLL_ALL2ONE },
        { "MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "MPI_Allgather", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "MPI_Allgatherv", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "MPI_Alltoall", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "MPI_Alltoallv", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "MPI_Alltoallw", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "MPI_Reduce_scatter", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "MPI_Reduce_scatter_block", OTF2_REGION_ROLE_COLL_ALL2ALL },
        { "MPI_Scan", OTF2_REGION_ROLE_COLL_OTHER },
        { "MPI_Exscan", OTF2_REGION_ROLE_COLL_OTHER },
    };
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
        if (strcmp(name, roles[i].name) == 0)
            return roles[i].role;
    if (strncmp(name, "MPI_", 4) == 0 &&
        (strstr(name, "send") || strstr(name, "Send") || strstr(name, "recv") ||
         strstr(name, "Recv") || strncmp(name, "MPI_Wait", 8) == 0 || strncmp(name, "MPI_Test", 8) == 0))
        return OTF2_REGION_ROLE_POINT2POINT;
    return OTF2_REGION_ROLE_FUNCTION;
}

static int write_group(struct tsync_otf2_builder *b, OTF2_GroupRef ref, OTF2_StringRef name,
                       OTF2_GroupType type, uint32_t n, const uint64_t *members)
{
    OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteGroup(b->gdw, ref, name, type, OTF2_PARADIGM_MPI,
                                                       OTF2_GROUP_FLAG_NONE, n, members);
    return e == OTF2_SUCCESS ? TSYNC_OK : fail_otf2(b, "writing a Group definition", e);
}

static int write_global_defs(struct tsync_otf2_builder *b)
{
    OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(b->archive);
    /* Initialized for the compiler: a failed def_string returns before any use. */
    OTF2_StringRef s_empty = OTF2_UNDEFINED_STRING, s_mpi = OTF2_UNDEFINED_STRING;
    OTF2_StringRef s_machine = OTF2_UNDEFINED_STRING, s_node = OTF2_UNDEFINED_STRING;
    OTF2_StringRef s_name = OTF2_UNDEFINED_STRING, s_master = OTF2_UNDEFINED_STRING;
    uint64_t *members = NULL;
    OTF2_ErrorCode e;
    int rc;

    if (!w)
        return fail_otf2(b, "getting the global definition writer", OTF2_ERROR_INVALID);
    b->gdw = w;
    b->n_strings = 0;

    e = OTF2_GlobalDefWriter_WriteClockProperties(w, b->resolution, b->have_time ? b->t_min : 0,
                                                  b->have_time ? b->t_max - b->t_min : 0,
                                                  OTF2_UNDEFINED_TIMESTAMP);
    if (e != OTF2_SUCCESS)
        return fail_otf2(b, "writing ClockProperties", e);

    if ((rc = def_string(b, "", &s_empty)) || (rc = def_string(b, "MPI", &s_mpi)))
        return rc;
    if ((e = OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, s_mpi,
                                                OTF2_PARADIGM_CLASS_PROCESS)) != OTF2_SUCCESS)
        return fail_otf2(b, "writing the Paradigm definition", e);

    /* System tree: 0 is the machine, 1+n node n. */
    if ((rc = def_string(b, "machine", &s_machine)) || (rc = def_string(b, "node", &s_node)))
        return rc;
    if ((e = OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, s_machine, s_machine,
                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE)) != OTF2_SUCCESS)
        return fail_otf2(b, "writing a SystemTreeNode definition", e);
    for (uint32_t n = 0; n < b->n_nodes; n++) {
        if ((rc = def_string(b, b->nodes[n], &s_name)))
            return rc;
        if ((e = OTF2_GlobalDefWriter_WriteSystemTreeNode(w, n + 1, s_name, s_node, 0)) != OTF2_SUCCESS)
            return fail_otf2(b, "writing a SystemTreeNode definition", e);
    }

    /* One process (location group) and one thread (location) per rank. */
    if (!b->rank_names && (rc = def_string(b, "Master thread", &s_master)))
        return rc;
    for (uint32_t r = 0; r < b->n_ranks; r++) {
        const struct rank_state *s = &b->ranks[r];
        OTF2_StringRef s_loc = s_master;
        if ((rc = def_stringf(b, &s_name, "MPI Rank %u", r)))
            return rc;
        if ((e = OTF2_GlobalDefWriter_WriteLocationGroup(w, r, s_name, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                         s->node + 1, OTF2_UNDEFINED_LOCATION_GROUP))
            != OTF2_SUCCESS)
            return fail_otf2(b, "writing a LocationGroup definition", e);
        if (b->rank_names && (rc = def_stringf(b, &s_loc, "Rank %u", r)))
            return rc;
        if ((e = OTF2_GlobalDefWriter_WriteLocation(w, s->location, s_loc, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                    s->n_events, r)) != OTF2_SUCCESS)
            return fail_otf2(b, "writing a Location definition", e);
    }

    for (size_t i = 0; i < b->n_regions; i++) {
        const char *name = b->regions[i];
        bool mpi = strncmp(name, "MPI_", 4) == 0;
        if ((rc = def_string(b, name, &s_name)))
            return rc;
        if ((e = OTF2_GlobalDefWriter_WriteRegion(w, (OTF2_RegionRef)i, s_name, s_name, s_empty,
                                                  region_role(name),
                                                  mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                                  OTF2_REGION_FLAG_NONE, s_empty, 0, 0)) != OTF2_SUCCESS)
            return fail_otf2(b, "writing a Region definition", e);
    }

    /* Groups and communicators. */
    if (!(members = malloc(b->n_ranks * sizeof(*members))))
        return fail_oom(b);
    for (uint32_t r = 0; r < b->n_ranks; r++)
        members[r] = b->ranks[r].location;
    if ((rc = write_group(b, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, b->n_ranks, members)))
        goto out;
    for (uint32_t r = 0; r < b->n_ranks; r++)
        members[r] = r;
    if ((rc = write_group(b, 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP, b->n_ranks, members)))
        goto out;
    for (uint32_t k = 0; k < b->n_comms; k++) {
        const struct comm_state *c = &b->comms[k];
        for (uint32_t m = 0; m < c->size; m++)
            members[m] = c->members[m]; /* size <= n_ranks: members are distinct ranks */
        if ((rc = write_group(b, 2 + k, s_empty, OTF2_GROUP_TYPE_COMM_GROUP, c->size, members)))
            goto out;
    }
    if ((rc = def_string(b, "MPI_COMM_WORLD", &s_name)))
        goto out;
    if ((e = OTF2_GlobalDefWriter_WriteComm(w, 0, s_name, 1, OTF2_UNDEFINED_COMM,
                                            OTF2_COMM_FLAG_NONE)) != OTF2_SUCCESS) {
        rc = fail_otf2(b, "writing a Comm definition", e);
        goto out;
    }
    for (uint32_t k = 0; k < b->n_comms; k++) {
        if ((rc = def_stringf(b, &s_name, "Comm %u", b->comms[k].id)))
            goto out;
        if ((e = OTF2_GlobalDefWriter_WriteComm(w, b->comms[k].id, s_name, 2 + k, 0,
                                                OTF2_COMM_FLAG_NONE)) != OTF2_SUCCESS) {
            rc = fail_otf2(b, "writing a Comm definition", e);
            goto out;
        }
    }
out:
    free(members);
    return rc;
}

/* ---- close ------------------------------------------------------------- */

int tsync__otf2_build_close(struct tsync_otf2_builder *b)
{
    OTF2_ErrorCode e;
    int rc;

    if (!b)
        return TSYNC_OK;
    /* Event and local definition writers: closing flushes them to their files. */
    for (uint32_t r = 0; r < b->n_ranks; r++) {
        struct rank_state *s = &b->ranks[r];
        if (s->evt && (e = OTF2_Archive_CloseEvtWriter(b->archive, s->evt)) != OTF2_SUCCESS)
            fail_otf2(b, "closing an event writer", e);
        if (s->def && (e = OTF2_Archive_CloseDefWriter(b->archive, s->def)) != OTF2_SUCCESS)
            fail_otf2(b, "closing a local definition writer", e);
        s->evt = NULL;
        s->def = NULL;
    }
    if ((e = OTF2_Archive_CloseEvtFiles(b->archive)) != OTF2_SUCCESS)
        fail_otf2(b, "closing the event files", e);
    if ((e = OTF2_Archive_CloseDefFiles(b->archive)) != OTF2_SUCCESS)
        fail_otf2(b, "closing the local definition files", e);
    /* An archive that failed gets no global definitions: readers refuse it. */
    if (b->rc == TSYNC_OK)
        write_global_defs(b);
    if ((e = OTF2_Archive_Close(b->archive)) != OTF2_SUCCESS)
        fail_otf2(b, "closing the archive", e);
    /* libotf2 returns success from some writes that failed, but reports them. */
    if (b->rc == TSYNC_OK && tsync__otf2_watch_failed(b->watch, NULL, 0))
        fail_otf2(b, "writing", OTF2_ERROR_INVALID);
    rc = b->rc;
    free_builder(b);
    return rc;
}

void tsync__otf2_build_abandon(struct tsync_otf2_builder *b)
{
    /* A sticky error keeps every later failure out of the ctx (fail_otf2). */
    if (b && b->rc == TSYNC_OK)
        b->rc = TSYNC_EIO;
    tsync__otf2_build_close(b);
}
