/* write.c - the archives, written at MPI_Finalize through libotf2.
 *
 * Every process writes its own location's events and ClockOffset records; rank 0
 * writes the global definitions. Like Score-P, the processes share one archive
 * through libotf2's MPI collective callbacks (OTF2_MPI_Collectives.h, on PMPI):
 * libotf2 makes the directories once and each process writes its own files, so
 * there is no merge step and no process holds another's events. (The project's
 * archive builder, src/io/otf2_build.c, writes every rank from one process and
 * does not fit.)
 *
 *   traces.otf2  local stamps (seed 001: 51-bit ticks of 1 ns since the process
 *                started, 13-bit event counter; timer resolution 2^13 per ns) and
 *                one ClockOffset per synchronization session (global = local +
 *                offset, Score-P's convention): what tracesync sync reads.
 *   global.otf2  global stamps (seed 001, TRACESYNC_GLOBAL=on): the master's clock
 *                by the sessions' correction (seed 000: the regression line, or the
 *                C1 spline with mid-run sessions), scaled to the master's wall clock,
 *                in ticks of 1/2 ns so that distinct local ticks stay distinct, the
 *                event counter kept.
 *   truth.otf2   test mode only: the true (undistorted) time of every event.
 * The three have the same definitions and events in the same order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>
#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>

#include "collect/collect_mpi.h"

const char *const tsc_region_names[TSC_N_REGIONS] = {
#define TSC_REGION_NAME(id, name, role) name,
    TSC_REGIONS(TSC_REGION_NAME)
#undef TSC_REGION_NAME
};
static const OTF2_RegionRole region_roles[TSC_N_REGIONS] = {
#define TSC_REGION_ROLE(id, name, role) role,
    TSC_REGIONS(TSC_REGION_ROLE)
#undef TSC_REGION_ROLE
};

enum stamps { STAMPS_LOCAL, STAMPS_GLOBAL, STAMPS_TRUTH };

/* What rank 0 needs for the global definitions, gathered once. */
struct run_info {
    uint64_t *events;          /* per rank */
    uint32_t *comm_words;      /* every owned communicator: id, parent, size, members */
    int n_comm_words;
    uint32_t *comm_ids;        /* every rank: the created communicators' ids, ascending */
    int n_comm_ids;
};

/* Created communicators are written with dense CommRefs 2, 3, ... in the order of
 * their ids (OTF2 readers want definitions in order), mapped here at write time. */
static uint32_t dense_comm(const struct run_info *info, uint32_t id)
{
    if (id == TSC_COMM_WORLD || id == TSC_COMM_TIMESYNC || id == OTF2_UNDEFINED_COMM)
        return id;
    int lo = 0, hi = info->n_comm_ids;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (info->comm_ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < info->n_comm_ids && info->comm_ids[lo] == id ? 2 + (uint32_t)lo : OTF2_UNDEFINED_COMM;
}

struct evt_ctx {
    OTF2_EvtWriter *w;
    const struct run_info *info;
    enum stamps kind;
    const struct tsc_global_map *map;
    uint64_t truth_origin;
    uint64_t first, last;
    OTF2_ErrorCode err;
};

static uint64_t time_of(const struct evt_ctx *c, const struct tsc_rec *r)
{
    switch (c->kind) {
    case STAMPS_GLOBAL:
        return tsc_global_stamp(c->map, r->stamp);
    case STAMPS_TRUTH:
        return ((r->truth - c->truth_origin) << TSC_EVENT_BITS) | (r->stamp & TSC_COUNTER_MASK);
    default:
        return r->stamp;
    }
}

static int write_event(const struct tsc_rec *r, void *payload)
{
    struct evt_ctx *c = payload;
    OTF2_EvtWriter *w = c->w;
    uint64_t t = time_of(c, r);
    uint32_t comm = dense_comm(c->info, r->comm);
    OTF2_ErrorCode e;
    switch ((enum tsc_kind)r->kind) {
    case TSC_ENTER: e = OTF2_EvtWriter_Enter(w, NULL, t, r->region); break;
    case TSC_LEAVE: e = OTF2_EvtWriter_Leave(w, NULL, t, r->region); break;
    case TSC_SEND: e = OTF2_EvtWriter_MpiSend(w, NULL, t, r->peer, comm, r->tag, r->a); break;
    case TSC_ISEND: e = OTF2_EvtWriter_MpiIsend(w, NULL, t, r->peer, comm, r->tag, r->a, r->b); break;
    case TSC_ISEND_COMPLETE: e = OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, r->b); break;
    case TSC_IRECV_REQUEST: e = OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, r->b); break;
    case TSC_IRECV: e = OTF2_EvtWriter_MpiIrecv(w, NULL, t, r->peer, comm, r->tag, r->a, r->b); break;
    case TSC_RECV: e = OTF2_EvtWriter_MpiRecv(w, NULL, t, r->peer, comm, r->tag, r->a); break;
    case TSC_COLL_BEGIN: e = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t); break;
    case TSC_COLL_END:
        e = OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, r->op, comm, r->peer, r->a, r->b);
        break;
    case TSC_REQUEST_CANCELLED: e = OTF2_EvtWriter_MpiRequestCancelled(w, NULL, t, r->b); break;
    default: e = OTF2_ERROR_INVALID_DATA; break;
    }
    if (c->first == UINT64_MAX)
        c->first = t;
    c->last = t;
    if (e != OTF2_SUCCESS) {
        c->err = e;
        return -1;
    }
    return 0;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
    (void)ud, (void)ft, (void)loc, (void)cb, (void)final;
    return OTF2_FLUSH;
}
/* No post-flush callback: libotf2 would add a BufferFlush event at every flush. */
static OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush, .otf2_post_flush = NULL };

/* The global definitions (rank 0), in Score-P's shape. */
struct strings {
    OTF2_GlobalDefWriter *g;
    uint32_t next;
};
static OTF2_StringRef str(struct strings *s, const char *text)
{
    OTF2_GlobalDefWriter_WriteString(s->g, s->next, text);
    return s->next++;
}

static OTF2_ErrorCode write_global_defs(OTF2_Archive *ar, enum stamps kind, const struct run_info *info,
                                        uint64_t t_min, uint64_t t_max)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!g)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    struct strings s = { g, 0 };
    uint64_t per_tick = kind == STAMPS_GLOBAL ? TSC_GLOBAL_TICKS_PER_TICK : 1;
    OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteClockProperties(
        g, (TSC_TICKS_PER_S * per_tick) << TSC_EVENT_BITS, t_min, t_max >= t_min ? t_max - t_min + 1 : 0,
        OTF2_UNDEFINED_TIMESTAMP);
    int n = tsc.size;
    OTF2_StringRef machine = str(&s, "machine");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_StringRef node_class = str(&s, "node");
    uint32_t *node_of = malloc((size_t)n * sizeof *node_of);
    uint64_t *members = malloc((size_t)n * sizeof *members);
    if (!node_of || !members) {
        free(node_of), free(members);
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    uint32_t n_nodes = 0;
    for (int r = 0; r < n; r++) {
        int q = 0;
        while (q < r && strcmp(tsc_hosts[q], tsc_hosts[r]))
            q++;
        if (q == r) {
            node_of[r] = ++n_nodes;
            OTF2_GlobalDefWriter_WriteSystemTreeNode(g, n_nodes, str(&s, tsc_hosts[r]), node_class, 0);
        } else {
            node_of[r] = node_of[q];
        }
    }
    for (int r = 0; r < n; r++) {
        char name[32];
        snprintf(name, sizeof name, "MPI Rank %d", r);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, str(&s, name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                node_of[r], OTF2_UNDEFINED_LOCATION_GROUP);
    }
    OTF2_StringRef thread = str(&s, "Master thread");
    for (int r = 0; r < n; r++)
        OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)r, thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                           info->events[r], (uint32_t)r);
    OTF2_StringRef empty = str(&s, "");
    for (int i = 0; i < TSC_N_REGIONS; i++) {
        OTF2_StringRef name = str(&s, tsc_region_names[i]);
        OTF2_GlobalDefWriter_WriteRegion(g, (uint32_t)i, name, name, empty, region_roles[i],
                                         i == TSC_R_TIMESYNC ? OTF2_PARADIGM_MEASUREMENT_SYSTEM : OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
    for (int r = 0; r < n; r++)
        members[r] = (uint64_t)r;
    OTF2_GlobalDefWriter_WriteGroup(g, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)n, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)n, members);
    OTF2_GlobalDefWriter_WriteComm(g, TSC_COMM_WORLD, str(&s, "MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(g, TSC_COMM_TIMESYNC, str(&s, "tracesync timesync"), 1, TSC_COMM_WORLD,
                                   OTF2_COMM_FLAG_NONE);
    uint32_t group = 2;
    for (int k = 0; k + 3 <= info->n_comm_words; group++) {
        const uint32_t *c = &info->comm_words[k];
        uint32_t size = c[2];
        uint64_t *m = malloc((size ? size : 1) * sizeof *m);
        if (!m) {
            e = OTF2_ERROR_MEM_ALLOC_FAILED;
            break;
        }
        for (uint32_t i = 0; i < size; i++)
            m[i] = c[3 + i];
        char name[48];
        snprintf(name, sizeof name, "MPI communicator %u", dense_comm(info, c[0]));
        OTF2_GlobalDefWriter_WriteGroup(g, group, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, size, m);
        OTF2_GlobalDefWriter_WriteComm(g, dense_comm(info, c[0]), str(&s, name), group, dense_comm(info, c[1]),
                                       OTF2_COMM_FLAG_NONE);
        free(m);
        k += 3 + (int)size;
    }
    free(node_of), free(members);
    return e;
}

static int gather_info(struct run_info *info)
{
    int n = tsc.size, words = 0;
    for (size_t i = 0; i < tsc_n_comm_defs; i++)
        words += 3 + (int)tsc_comm_defs[i].size;
    uint32_t *mine = malloc(((size_t)words + 1) * sizeof *mine);
    int *counts = tsc.rank == 0 ? malloc((size_t)n * sizeof *counts) : NULL;
    int *displs = tsc.rank == 0 ? malloc((size_t)n * sizeof *displs) : NULL;
    info->events = tsc.rank == 0 ? malloc((size_t)n * sizeof *info->events) : NULL;
    int ok = mine && (tsc.rank != 0 || (counts && displs && info->events)), all_ok;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        free(mine), free(counts), free(displs);
        return -1;
    }
    int k = 0;
    for (size_t i = 0; i < tsc_n_comm_defs; i++) {
        const struct tsc_comm_def *d = &tsc_comm_defs[i];
        mine[k++] = d->id, mine[k++] = d->parent, mine[k++] = d->size;
        for (uint32_t j = 0; j < d->size; j++)
            mine[k++] = d->members[j];
    }
    PMPI_Gather(&tsc.n_events, 1, MPI_UINT64_T, info->events, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    PMPI_Gather(&words, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (tsc.rank == 0) {
        info->n_comm_words = 0;
        for (int r = 0; r < n; r++)
            displs[r] = info->n_comm_words, info->n_comm_words += counts[r];
        info->comm_words = malloc(((size_t)info->n_comm_words + 1) * sizeof *info->comm_words);
    }
    /* rank 0 out of memory here: it receives nothing and defines no communicator */
    int room = tsc.rank != 0 || info->comm_words;
    PMPI_Bcast(&room, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (room)
        PMPI_Gatherv(mine, words, MPI_UINT32_T, info->comm_words, counts, displs, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    else
        info->n_comm_words = 0;
    free(mine), free(counts), free(displs);
    /* the ids, for every rank to map its events' */
    if (tsc.rank == 0)
        for (int k = 0; k + 3 <= info->n_comm_words; k += 3 + (int)info->comm_words[k + 2])
            info->n_comm_ids++;
    PMPI_Bcast(&info->n_comm_ids, 1, MPI_INT, 0, MPI_COMM_WORLD);
    info->comm_ids = malloc(((size_t)info->n_comm_ids + 1) * sizeof *info->comm_ids);
    ok = info->comm_ids != NULL;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok)
        return -1;
    if (tsc.rank == 0) {
        int i = 0;
        for (int k = 0; k + 3 <= info->n_comm_words; k += 3 + (int)info->comm_words[k + 2])
            info->comm_ids[i++] = info->comm_words[k];
        /* gathered by creator rank, each creator's in its own order: ascending */
    }
    PMPI_Bcast(info->comm_ids, info->n_comm_ids, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    return 0;
}

static int write_archive(const char *name, enum stamps kind, const struct tsc_global_map *map,
                         uint64_t truth_origin, const struct run_info *info)
{
    OTF2_Archive *ar = OTF2_Archive_Open(tsc.cfg.dir, name, OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        return -1; /* same on every rank: the directory is shared */
    OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL);
    OTF2_MPI_Archive_SetCollectiveCallbacks(ar, MPI_COMM_WORLD, MPI_COMM_NULL);
    OTF2_Archive_SetCreator(ar, "tracesync-collect " TSYNC_COLLECT_VERSION);
    char bits[8], ticks[32];
    snprintf(bits, sizeof bits, "%d", TSC_EVENT_BITS);
    snprintf(ticks, sizeof ticks, "%d", kind == STAMPS_GLOBAL ? TSC_GLOBAL_TICKS_PER_TICK : 1);
    OTF2_Archive_SetProperty(ar, "TRACESYNC::EVENT_BITS", bits, false);
    OTF2_Archive_SetProperty(ar, "TRACESYNC::CLOCK_PERIOD_NS", "1", false);
    OTF2_Archive_SetProperty(ar, "TRACESYNC::TICKS_PER_CLOCK_PERIOD", ticks, false);
    OTF2_Archive_SetProperty(ar, "TRACESYNC::STAMPS",
                             kind == STAMPS_GLOBAL ? "global" : kind == STAMPS_TRUTH ? "truth" : "local", false);

    struct evt_ctx c = { .info = info, .kind = kind, .map = map, .truth_origin = truth_origin, .first = UINT64_MAX,
                         .err = OTF2_SUCCESS };
    OTF2_ErrorCode e = OTF2_Archive_OpenEvtFiles(ar);
    if (e == OTF2_SUCCESS && !(c.w = OTF2_Archive_GetEvtWriter(ar, (uint64_t)tsc.rank)))
        e = OTF2_ERROR_MEM_ALLOC_FAILED;
    if (e == OTF2_SUCCESS && tsc_records_each(write_event, &c) != 0)
        e = c.err != OTF2_SUCCESS ? c.err : OTF2_ERROR_FILE_INTERACTION;
    if (c.w)
        OTF2_Archive_CloseEvtWriter(ar, c.w);
    OTF2_Archive_CloseEvtFiles(ar);

    OTF2_Archive_OpenDefFiles(ar);
    OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(ar, (uint64_t)tsc.rank);
    for (size_t i = 0; d && kind == STAMPS_LOCAL && i < tsc_n_sessions; i++) {
        /* Score-P's ClockOffset: global = local + offset at the session's time */
        const struct tsc_session *s = &tsc_sessions[i];
        double unit = (double)(1u << TSC_EVENT_BITS);
        OTF2_DefWriter_WriteClockOffset(d, (uint64_t)llround(s->local * unit), llround(s->offset * unit),
                                        s->stddev * unit);
    }
    if (d)
        OTF2_Archive_CloseDefWriter(ar, d);
    OTF2_Archive_CloseDefFiles(ar);

    uint64_t t_min = c.first, t_max = c.last == 0 && c.first == UINT64_MAX ? 0 : c.last, g_min = 0, g_max = 0;
    PMPI_Reduce(&t_min, &g_min, 1, MPI_UINT64_T, MPI_MIN, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&t_max, &g_max, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    if (tsc.rank == 0 && write_global_defs(ar, kind, info, g_min == UINT64_MAX ? 0 : g_min, g_max) != OTF2_SUCCESS)
        e = OTF2_ERROR_MEM_ALLOC_FAILED;
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS && e == OTF2_SUCCESS)
        e = OTF2_ERROR_FILE_INTERACTION;
    if (e != OTF2_SUCCESS)
        tsc_warn("writing %s/%s.otf2: %s", tsc.cfg.dir, name, OTF2_Error_GetDescription(e));
    int ok = e == OTF2_SUCCESS, all_ok;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all_ok ? 0 : -1;
}

int tsc_write_archives(void)
{
    struct run_info info = { 0 };
    struct tsc_global_map map;
    tsc_timesync_global_map(&map);
    /* global ticks start at the run's first event */
    double first = floor(tsc_global_tick(&map, (double)tsc_stamp_tick(tsc.first_stamp))), origin;
    PMPI_Allreduce(&first, &origin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    map.origin = origin;
    uint64_t truth_origin;
    PMPI_Allreduce(&tsc.clock.true_origin_ns, &truth_origin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);

    int rc = gather_info(&info);
    if (rc == 0)
        rc = write_archive("traces", STAMPS_LOCAL, &map, truth_origin, &info);
    if (rc == 0 && tsc.cfg.global)
        rc = write_archive("global", STAMPS_GLOBAL, &map, truth_origin, &info);
    if (rc == 0 && tsc.clock.test)
        rc = write_archive("truth", STAMPS_TRUTH, &map, truth_origin, &info);

    uint64_t total = 0, flushes = 0, overflows = 0;
    uint32_t same = 0;
    PMPI_Reduce(&tsc.n_events, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&tsc.n_flushes, &flushes, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&tsc.clock.overflows, &overflows, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&tsc.clock.max_counter, &same, 1, MPI_UINT32_T, MPI_MAX, 0, MPI_COMM_WORLD);
    if (tsc.rank == 0 && rc == 0 && tsc.cfg.verbose > 0)
        fprintf(stderr, "tracesync-collect: wrote %s/traces.otf2%s%s: %llu events on %d ranks, %llu flushes\n",
                tsc.cfg.dir, tsc.cfg.global ? " and global.otf2" : "", tsc.clock.test ? " and truth.otf2" : "",
                (unsigned long long)total, tsc.size, (unsigned long long)flushes);
    if (tsc.rank == 0 && tsc.cfg.verbose > 2) /* seed 001 */
        fprintf(stderr, "tracesync-collect: at most %u events on one clock tick, %llu counter overflows\n",
                same + 1, (unsigned long long)overflows);
    free(info.events), free(info.comm_words), free(info.comm_ids);
    return rc;
}
