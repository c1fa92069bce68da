/* otf2_events.c - the OTF2 reader's events pass (libotf2): every location's own
 * definitions (ClockOffset records) and events into the sink.
 *
 * Each location is read with a per-location reader, with libotf2's clock offset
 * correction switched off so that the model keeps the raw timestamps. Every event
 * goes to the sink with its kind; MPI events also leave a record for the match stage
 * (a send, a receive with the sender and tag that matched, a collective member).
 *
 * Locations are read by one or more workers (tsync__threads), each a contiguous
 * range of locations in order, each into a part of the sink of its own. The parts
 * (records, ClockOffset records, counts) and the warnings of a worker stay with it
 * until every worker is done, and are then joined in location order: the trace is
 * the same whatever the number of workers and however they were scheduled. Worker 0
 * runs on the calling thread with the caller's context; the others record errors
 * and warnings in contexts of their own.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "io/otf2_guard.h"
#include "io/otf2_io.h"
#include "io/otf2_read.h"
#include "io/otf2_records.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/vec.h"
#include "util/workers.h"

struct pending_irecv { uint64_t request; uint64_t idx; };

struct evt_state {
    struct tsync_sink part;          /* what this worker's locations add, in their order */
    const struct tsync_trace *t;
    const char *path;
    tsync_ctx *ctx;
    OTF2_Reader *reader;
    OTF2_EvtReaderCallbacks *ecb;
    OTF2_DefReaderCallbacks *dcb;
    const struct tsync_otf2_location *defs; /* the location definitions (event count hints) */
    uint64_t chunk_evt, chunk_def;   /* the anchor's chunk sizes */
    tsync_loc first, end;            /* this worker's locations */
    _Atomic tsync_loc *stop;         /* the first location that failed, shared */
    _Atomic uint64_t *events_read;   /* by every worker, for progress */
    uint64_t events_hint;            /* the definitions' total, for progress */
    uint64_t unreported;             /* read by this worker, not yet in events_read */
    int failed;                      /* an error was recorded in ctx */
    int rc;                          /* this worker's result */

    /* The location being read (part.cur). */
    uint64_t coll_begin;        /* index of the open MpiCollectiveBegin, or UINT64_MAX */
    struct pending_irecv *irecvs; size_t n_irecvs, cap_irecvs;

    char **warnings; size_t n_warnings, cap_warnings; /* with a context of its own */
};

/* A sink call failed (its error is in the context): stop reading. */
static OTF2_CallbackCode evt_failed(struct evt_state *es)
{
    es->failed = 1;
    return OTF2_CALLBACK_INTERRUPT;
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
    if (time > (OTF2_TimeStamp)INT64_MAX) {
        const struct tsync_location *l = &es->t->locations[es->part.cur];
        es->failed = 1;
        tsync__fail(es->ctx, TSYNC_EFORMAT, "%s: location %llu (%s): event %llu: timestamp %llu "
                    "is out of range", es->path, (unsigned long long)l->ref, l->name,
                    (unsigned long long)l->n_events, (unsigned long long)time);
        return -1;
    }
    if (tsync__sink_event(&es->part, (tsync_time)time, kind)) {
        es->failed = 1;
        return -1;
    }
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
        return rank == 0 ? es->part.cur : TSYNC_NONE;
    }
    return world < t->n_ranks ? t->rank_loc[world] : TSYNC_NONE;
}

static OTF2_CallbackCode p2p(struct evt_state *es, OTF2_TimeStamp time, int is_send, uint32_t peer,
                             OTF2_CommRef comm_ref, uint32_t tag, uint64_t order_or_max)
{
    const struct tsync_location *l = &es->t->locations[es->part.cur];
    uint32_t comm = comm_index(es->t, comm_ref);
    tsync_loc other = peer_location(es, comm, peer);
    struct tsync_p2p_rec r;
    int err;
    if (push_event(es, time, is_send ? TSYNC_EV_SEND : TSYNC_EV_RECV))
        return OTF2_CALLBACK_INTERRUPT;
    if (other == TSYNC_NONE) {
        tsync__sink_unmatched(&es->part, is_send);
        tsync__warn(es->ctx, "%s: location %llu (%s): event %llu: %s rank %u of communicator %llu "
                    "is not a known location; the message is left unmatched", es->path,
                    (unsigned long long)l->ref, l->name, (unsigned long long)(l->n_events - 1),
                    is_send ? "receiver" : "sender", peer, (unsigned long long)comm_ref);
        return OTF2_CALLBACK_SUCCESS;
    }
    r.comm = comm;
    r.sender = is_send ? es->part.cur : other;
    r.receiver = is_send ? other : es->part.cur;
    r.tag = tag;
    r.idx = l->n_events - 1;
    r.order = order_or_max == UINT64_MAX ? r.idx : order_or_max;
    err = is_send ? tsync__sink_send(&es->part, &r) : tsync__sink_recv(&es->part, &r);
    return err ? evt_failed(es) : OTF2_CALLBACK_SUCCESS;
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
    p.idx = tsync__sink_last(&es->part);
    if (TSYNC_PUSH(es->irecvs, es->n_irecvs, es->cap_irecvs, p)) {
        tsync__oom(es->ctx);
        return evt_failed(es);
    }
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
    es->coll_begin = tsync__sink_last(&es->part);
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
    r.loc = es->part.cur;
    r.op = op;
    r.root = root == OTF2_UNDEFINED_UINT32 ? TSYNC_NONE : root;
    r.end_idx = tsync__sink_last(&es->part);
    r.begin_idx = es->coll_begin == UINT64_MAX ? r.end_idx : es->coll_begin;
    r.sent = sent;
    r.received = received;
    es->coll_begin = UINT64_MAX;
    if (r.comm == TSYNC_NONE) {
        tsync__warn(es->ctx, "%s: location %llu: event %llu: collective on undefined communicator "
                    "%llu is ignored", es->path, (unsigned long long)es->t->locations[es->part.cur].ref,
                    (unsigned long long)r.end_idx, (unsigned long long)comm);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (tsync__sink_collective(&es->part, &r))
        return evt_failed(es);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    struct evt_state *es = ud;
    if (tsync__sink_offset(&es->part, es->part.cur, (tsync_time)time, offset, sd))
        return evt_failed(es);
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
    const struct tsync_location *l = &es->t->locations[loc];
    OTF2_Reader *reader = es->reader;
    OTF2_DefReader *dr;
    OTF2_EvtReader *er;
    uint64_t n = 0;
    OTF2_ErrorCode e;
    int rc;

    es->coll_begin = UINT64_MAX;
    es->n_irecvs = 0;
    /* The definition's event count is a hint only: some writers get it wrong. */
    if ((rc = tsync__sink_begin_location(&es->part, loc, es->defs[loc].n_events)))
        return rc;

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
        rc = tsync__fail(es->ctx, TSYNC_EFORMAT, "%s: location %llu (%s): cannot open its "
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
        if (es->t->held && !es->t->held[i])
            continue;       /* another process reads it */
        if ((es->rc = read_location(es, i)))
            while (i < stop && !atomic_compare_exchange_weak(es->stop, &stop, i))
                ;
    }
}

/* Splits the locations into n contiguous ranges of about as many events each
 * (by the definitions' counts; every location counts at least one). */
static void split_locations(struct evt_state *es, unsigned n, const struct tsync_otf2_read *st)
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

/* Worker w's results into the sink (warnings passed on, the rest joined); returns
 * 0 or TSYNC_ENOMEM. */
static int merge_worker(struct tsync_sink *sink, struct evt_state *es, unsigned w)
{
    for (size_t k = 0; k < es[w].n_warnings; k++)
        tsync__warn(sink->ctx, "%s", es[w].warnings[k]);
    return tsync__sink_join(sink, &es[w].part);
}

static void worker_free(struct evt_state *es)
{
    for (size_t k = 0; k < es->n_warnings; k++)
        free(es->warnings[k]);
    free(es->warnings);
    free(es->irecvs);
    tsync__sink_free(&es->part);
}

/* Reads every location's definitions and events into the sink, in location order. */
int tsync__otf2_read_events(void *r, struct tsync_sink *sink)
{
    struct tsync_otf2_read *st = r;
    OTF2_Reader *reader = st->reader;
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_DefReaderCallbacks *dcb = OTF2_DefReaderCallbacks_New();
    unsigned n = tsync__threads(sink->ctx), w;
    _Atomic tsync_loc stop = sink->t->n_locations;
    _Atomic uint64_t events_read = 0;
    uint64_t hint = 0;
    struct evt_state *es;
    int rc = TSYNC_OK;

    if (n > sink->t->n_locations)
        n = sink->t->n_locations;
    es = calloc(n, sizeof(*es));
    if (!ecb || !dcb || !es) {
        rc = tsync__oom(sink->ctx);
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
    for (uint32_t i = 0; i < sink->t->n_locations; i++)
        if (!sink->t->held || sink->t->held[i])
            OTF2_Reader_SelectLocation(reader, sink->t->locations[i].ref);
    if (OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS ||
        OTF2_Reader_OpenEvtFiles(reader) != OTF2_SUCCESS) {
        rc = tsync__fail(sink->ctx, TSYNC_EIO, "%s: cannot open the event files", st->path);
        goto out;
    }
    split_locations(es, n, st);
    for (size_t k = 0; k < st->n_locs; k++)
        hint += st->locs[k].n_events;
    for (w = 0; w < n; w++) {
        es[w].t = sink->t;
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
        es[w].ctx = sink->ctx;
        if (w && tsync_ctx_new(&es[w].ctx)) {
            es[w].ctx = NULL;
            n = w; /* fewer workers: the last takes the rest */
            es[n - 1].end = sink->t->n_locations;
            break;
        }
        tsync__sink_part(&es[w].part, sink, es[w].ctx);
        if (w)
            tsync_ctx_set_log(es[w].ctx, keep_warning, &es[w]);
    }
    tsync__run_workers(n, read_worker, es);
    OTF2_Reader_CloseDefFiles(reader);
    OTF2_Reader_CloseEvtFiles(reader);

    /* As if read one after the other: results up to the first failure. */
    rc = es[0].rc;
    if (rc == TSYNC_OK)
        rc = merge_worker(sink, es, 0);
    for (w = 1; w < n && rc == TSYNC_OK; w++) {
        rc = merge_worker(sink, es, w);
        if (rc == TSYNC_OK && es[w].rc)
            rc = tsync__fail(sink->ctx, es[w].rc, "%s", tsync_ctx_error(es[w].ctx));
    }
    if (rc == TSYNC_OK) {
        uint64_t all = 0;
        for (uint32_t i = 0; i < sink->t->n_locations; i++)
            all += sink->t->locations[i].n_events;
        if (all)
            tsync__progress(sink->ctx, "reading events", all, all);
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

