/* otf2_write.c - writes a corrected OTF2 archive: the input, record by record, with
 * new timestamps (libotf2).
 *
 * The input archive is read a second time and every record is passed to a libotf2
 * writer through the generated copy callbacks (otf2_records.c): all global and local
 * definitions in their order, all events of every location in their order, each
 * event with its timestamp from the timeline. When timestamps changed, two records
 * change: ClockProperties gets the new time range, and ClockOffset records are
 * dropped, because the timeline already accounts for what they measured (the report
 * keeps them). Mapping tables are copied as they are and events are copied unmapped,
 * so ids stay what they were.
 *
 * Locations are copied by as many threads as the context allows, each taking the
 * next location not yet taken, with a reader and a writer of that location's own:
 * every location's files are written by one thread, record by record as above, so
 * the archive is the same whatever the number of threads. An error is the one of
 * the first location that failed, as if they had been copied in order.
 *
 * The archive is written into a fresh temporary directory inside OUTDIR
 * (util/outdir.h), synced to disk and moved into place only when complete, so that
 * no reader ever sees half an archive. libotf2 reports a failed write while it
 * closes a file only to its error callback; the callback's errors are watched.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "io/otf2_read.h"
#include "io/otf2_io.h"
#include "io/otf2_records.h"
#include "trace/trace.h"
#include "util/ctx.h"
#include "util/fs.h"
#include "util/outdir.h"
#include "util/str.h"
#include "util/workers.h"

struct write_state {
    const struct tsync_trace *t;
    const struct tsync_timeline *tl;
    const struct tsync__otf2_part *part; /* one process's part of the archive, or NULL */
    tsync_ctx *ctx;
    OTF2_Archive *archive;
    OTF2_Reader *reader;
    OTF2_EvtReaderCallbacks *ecb;
    OTF2_DefReaderCallbacks *dcb;
    tsync_time t_min, t_max;
    int changed;              /* some timestamp differs from the raw one */
    _Atomic tsync_loc next;   /* the next location to copy */
    _Atomic tsync_loc stop;   /* the first location that failed */
    _Atomic tsync_loc done;   /* locations copied, for progress */
    unsigned long watch;      /* libotf2's errors since the start */
};

/* What copies definitions: the generated copy callbacks get &def as their user
 * data; the callbacks that replace records find the rest from it. Also one
 * copying thread's state (a context of its own: contexts are not shared). */
struct def_sink {
    struct tsync_otf2_def_copy def;
    struct write_state *w;
    tsync_ctx *ctx;
    int rc;                   /* the thread's first error, at location `failed` */
    tsync_loc failed;
};

#define SINK_OF(def_ptr) ((struct def_sink *)((char *)(def_ptr) - offsetof(struct def_sink, def)))

/* ClockProperties: same resolution and real-time anchor, the new time range. When
 * no timestamp changed, the record stays as it was (even if its writer got the
 * range wrong), so that an unchanged trace is copied exactly. */
static OTF2_CallbackCode write_clock(void *ud, uint64_t resolution, uint64_t offset, uint64_t length,
                                     uint64_t realtime)
{
    struct write_state *w = SINK_OF(ud)->w;
    if (w->changed) {
        offset = (uint64_t)w->t_min;
        length = (uint64_t)(w->t_max - w->t_min);
    }
    return tsync__otf2_def_status(ud, OTF2_GlobalDefWriter_WriteClockProperties(
        (OTF2_GlobalDefWriter *)SINK_OF(ud)->def.writer, resolution, offset, length, realtime));
}

/* ClockOffset records are dropped from a corrected trace: its timestamps already
 * account for them, and a reader that applied them again would undo the work. */
static OTF2_CallbackCode copy_clock_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    struct def_sink *d = SINK_OF(ud);
    if (!d->w->changed)
        return tsync__otf2_def_status(&d->def, OTF2_DefWriter_WriteClockOffset(
            (OTF2_DefWriter *)d->def.writer, time, offset, sd));
    return OTF2_CALLBACK_SUCCESS;
}

/* A libotf2 error of location l, or of the archive as a whole (l NULL). */
static int fail_otf2(const struct write_state *w, tsync_ctx *ctx, const struct tsync_location *l,
                     const char *what, OTF2_ErrorCode e)
{
    const char *first = tsync__otf2_watch_first_here(w->watch);
    char why[600];
    /* The thread's first error libotf2 reported says what happened ("...: No space
     * left on device"); the code returned at the end is often a consequence. */
    if (first)
        snprintf(why, sizeof(why), "%s", first);
    else
        snprintf(why, sizeof(why), "%s (%s)", OTF2_Error_GetName(e), tsync__otf2_last_error());
    if (l)
        return tsync__fail(ctx, TSYNC_EIO, "%s: location %llu (%s): writing the corrected "
                           "archive: %s: %s", w->t->path, (unsigned long long)l->ref,
                           l->name, what, why);
    return tsync__fail(ctx, TSYNC_EIO, "%s: writing the corrected archive: %s: %s",
                       w->t->path, what, why);
}

static int copy_global_defs(struct write_state *w)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(w->reader);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    struct def_sink d = { { NULL, OTF2_SUCCESS }, w, w->ctx, TSYNC_OK, 0 };
    uint64_t n = 0;
    OTF2_ErrorCode e;
    if (!cb)
        return tsync__oom(w->ctx);
    d.def.writer = OTF2_Archive_GetGlobalDefWriter(w->archive);
    if (!gdr || !d.def.writer) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return tsync__fail(w->ctx, TSYNC_EIO, "%s: cannot copy the global definitions", w->t->path);
    }
    tsync__otf2_copy_global_defs(cb);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, write_clock);
    OTF2_Reader_RegisterGlobalDefCallbacks(w->reader, gdr, cb, &d.def);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    e = OTF2_Reader_ReadAllGlobalDefinitions(w->reader, gdr, &n);
    if (d.def.error != OTF2_SUCCESS)
        return fail_otf2(w, w->ctx, NULL, "global definitions", d.def.error);
    if (e != OTF2_SUCCESS)
        return tsync__fail(w->ctx, TSYNC_EFORMAT, "%s: global definitions changed or became "
                           "unreadable while copying: %s", w->t->path, OTF2_Error_GetName(e));
    return TSYNC_OK;
}

/* Copies location i with the thread's sink d; errors go to d->ctx. */
static int copy_location(struct def_sink *d, tsync_loc i)
{
    struct write_state *w = d->w;
    const struct tsync_location *l = &w->t->locations[i];
    OTF2_Reader *reader = w->reader;
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(reader, l->ref);
    OTF2_EvtReader *er;
    struct tsync_otf2_evt_copy c;
    uint64_t n = 0;
    OTF2_ErrorCode e;

    if (dr) {
        d->def.writer = OTF2_Archive_GetDefWriter(w->archive, l->ref);
        d->def.error = OTF2_SUCCESS;
        OTF2_Reader_RegisterDefCallbacks(reader, dr, w->dcb, &d->def);
        e = OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &n);
        OTF2_Reader_CloseDefReader(reader, dr);
        if (d->def.error != OTF2_SUCCESS)
            return fail_otf2(w, d->ctx, l, "local definitions", d->def.error);
        if (e != OTF2_SUCCESS)
            return tsync__fail(d->ctx, TSYNC_EFORMAT, "%s: location %llu: local definitions became "
                               "unreadable while copying: %s", w->t->path,
                               (unsigned long long)l->ref, OTF2_Error_GetName(e));
    }

    memset(&c, 0, sizeof(c));
    c.writer = OTF2_Archive_GetEvtWriter(w->archive, l->ref);
    c.time = w->tl->time[i];
    c.n_events = l->n_events;
    er = OTF2_Reader_GetEvtReader(reader, l->ref);
    if (!c.writer || !er)
        return tsync__fail(d->ctx, TSYNC_EIO, "%s: location %llu: cannot copy its events",
                           w->t->path, (unsigned long long)l->ref);
    OTF2_EvtReader_ApplyClockOffsets(er, false);
    OTF2_EvtReader_ApplyMappingTables(er, false);
    OTF2_Reader_RegisterEvtCallbacks(reader, er, w->ecb, &c);
    e = OTF2_Reader_ReadAllLocalEvents(reader, er, &n);
    OTF2_Reader_CloseEvtReader(reader, er);
    if (c.error != OTF2_SUCCESS)
        return fail_otf2(w, d->ctx, l, "events", c.error);
    if (e != OTF2_SUCCESS || c.overrun || c.next != c.n_events)
        return tsync__fail(d->ctx, TSYNC_EFORMAT, "%s: location %llu: the events changed while "
                           "copying (%llu copied, %llu expected)", w->t->path,
                           (unsigned long long)l->ref, (unsigned long long)c.next,
                           (unsigned long long)c.n_events);
    e = OTF2_Archive_CloseEvtWriter(w->archive, c.writer);
    if (e != OTF2_SUCCESS)
        return fail_otf2(w, d->ctx, l, "closing an event writer", e);
    return TSYNC_OK;
}

/* One copying thread: takes locations in increasing order until none is left or
 * one before the next has failed. Only thread 0, the caller's, reports progress. */
static void copy_worker(void *arg, unsigned k)
{
    struct def_sink *d = (struct def_sink *)arg + k;
    struct write_state *w = d->w;
    for (;;) {
        tsync_loc i = atomic_fetch_add(&w->next, 1), stop = atomic_load(&w->stop);
        if (i >= w->t->n_locations || i > stop)
            return;
        if (w->t->held && !w->t->held[i])
            continue;       /* another process's part */
        if ((d->rc = copy_location(d, i))) {
            d->failed = i;
            while (i < stop && !atomic_compare_exchange_weak(&w->stop, &stop, i))
                ;
            return;
        }
        i = atomic_fetch_add(&w->done, 1) + 1;
        if (k == 0 && i < w->t->n_locations)
            tsync__progress(w->ctx, "writing locations", i, w->t->n_locations);
    }
}

/* Copies every location's definitions and events on n threads. */
static int copy_locations(struct write_state *w, unsigned n)
{
    struct def_sink *d = calloc(n, sizeof(*d));
    const struct def_sink *first = NULL;
    int rc = TSYNC_OK;
    if (!d)
        return tsync__oom(w->ctx);
    for (unsigned k = 0; k < n; k++) {
        d[k].w = w;
        if (tsync_ctx_new(&d[k].ctx)) {
            n = k;
            break;
        }
    }
    if (n == 0) {
        free(d);
        return tsync__oom(w->ctx);
    }
    atomic_store(&w->next, 0);
    atomic_store(&w->done, 0);
    atomic_store(&w->stop, w->t->n_locations);
    tsync__run_workers(n, copy_worker, d);
    for (unsigned k = 0; k < n; k++) {
        if (d[k].rc && (!first || d[k].failed < first->failed))
            first = &d[k];
    }
    if (first)
        rc = tsync__fail(w->ctx, first->rc, "%s", tsync_ctx_error(first->ctx));
    else /* the other threads may have copied the last ones */
        tsync__progress(w->ctx, "writing locations", w->t->n_locations, w->t->n_locations);
    for (unsigned k = 0; k < n; k++)
        tsync_ctx_free(d[k].ctx);
    free(d);
    return rc;
}

/* Copies the archive's descriptive properties (machine, creator, description, ...). */
static int copy_properties(struct write_state *w, OTF2_Reader *reader)
{
    char *s = NULL;
    uint32_t n = 0;
    char **names = NULL;
    if (OTF2_Reader_GetMachineName(reader, &s) == OTF2_SUCCESS && s)
        OTF2_Archive_SetMachineName(w->archive, s);
    free(s), s = NULL;
    if (OTF2_Reader_GetCreator(reader, &s) == OTF2_SUCCESS && s)
        OTF2_Archive_SetCreator(w->archive, s);
    free(s), s = NULL;
    if (OTF2_Reader_GetDescription(reader, &s) == OTF2_SUCCESS && s)
        OTF2_Archive_SetDescription(w->archive, s);
    free(s), s = NULL;
    if (OTF2_Reader_GetPropertyNames(reader, &n, &names) == OTF2_SUCCESS) {
        for (uint32_t i = 0; i < n; i++) {
            if (OTF2_Reader_GetProperty(reader, names[i], &s) == OTF2_SUCCESS && s)
                OTF2_Archive_SetProperty(w->archive, names[i], s, true);
            free(s), s = NULL;
        }
        free(names);
    }
    return TSYNC_OK;
}

static int copy_archive(struct write_state *w, const char *tmpdir, const char *name)
{
    uint64_t chunk_evt = 1024 * 1024, chunk_def = 4 * 1024 * 1024;
    unsigned threads = tsync__threads(w->ctx);
    OTF2_ErrorCode e;
    int rc = TSYNC_OK;

    if (threads > w->t->n_locations || w->part)
        threads = w->part || !w->t->n_locations ? 1 : w->t->n_locations;
    w->reader = OTF2_Reader_Open(w->t->path);
    w->ecb = OTF2_EvtReaderCallbacks_New();
    w->dcb = OTF2_DefReaderCallbacks_New();
    if (!w->reader || !w->ecb || !w->dcb) {
        rc = w->reader ? tsync__oom(w->ctx)
                       : tsync__fail(w->ctx, TSYNC_EIO, "%s: cannot reopen the input", w->t->path);
        goto out;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(w->reader);
    OTF2_Reader_GetChunkSize(w->reader, &chunk_evt, &chunk_def);
    w->archive = OTF2_Archive_Open(tmpdir, name, OTF2_FILEMODE_WRITE,
                                   tsync__otf2_write_chunk_evt(chunk_evt), chunk_def,
                                   OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!w->archive) {
        rc = tsync__fail(w->ctx, TSYNC_EIO, "%s: cannot create an archive (%s)", tmpdir,
                         tsync__otf2_last_error());
        goto out;
    }
    if ((e = w->part ? tsync__otf2_archive_callbacks(w->archive)
                     : tsync__otf2_archive_setup(w->archive)) != OTF2_SUCCESS ||
        (w->part && (e = w->part->collectives(w->archive, w->part->arg)) != OTF2_SUCCESS) ||
        (threads > 1 && ((e = tsync__otf2_reader_threads(w->reader)) != OTF2_SUCCESS ||
                         (e = tsync__otf2_archive_threads(w->archive)) != OTF2_SUCCESS))) {
        rc = fail_otf2(w, w->ctx, NULL, "setting up the archive", e);
        goto out;
    }
    copy_properties(w, w->reader);

    tsync__otf2_copy_events(w->ecb);
    tsync__otf2_copy_local_defs(w->dcb);
    OTF2_DefReaderCallbacks_SetClockOffsetCallback(w->dcb, copy_clock_offset);

    for (uint32_t i = 0; i < w->t->n_locations; i++)
        if (!w->t->held || w->t->held[i])
            OTF2_Reader_SelectLocation(w->reader, w->t->locations[i].ref);
    if (OTF2_Reader_OpenDefFiles(w->reader) != OTF2_SUCCESS ||
        OTF2_Reader_OpenEvtFiles(w->reader) != OTF2_SUCCESS ||
        OTF2_Archive_OpenDefFiles(w->archive) != OTF2_SUCCESS ||
        OTF2_Archive_OpenEvtFiles(w->archive) != OTF2_SUCCESS) {
        rc = tsync__fail(w->ctx, TSYNC_EIO, "%s: cannot open event and definition files",
                         w->t->path);
        goto out;
    }
    rc = copy_locations(w, threads);
    OTF2_Reader_CloseEvtFiles(w->reader);
    OTF2_Reader_CloseDefFiles(w->reader);
    /* Closed also after a failure: with a part, every process closes together. */
    if ((e = OTF2_Archive_CloseEvtFiles(w->archive)) == OTF2_SUCCESS)
        e = OTF2_Archive_CloseDefFiles(w->archive);
    if (rc)
        goto out;
    if (e != OTF2_SUCCESS) {
        rc = fail_otf2(w, w->ctx, NULL, "closing files", e);
        goto out;
    }
    if (!w->part || w->part->root)
        rc = copy_global_defs(w);
out:
    if (w->archive) {
        e = OTF2_Archive_Close(w->archive);
        if (rc == TSYNC_OK && e != OTF2_SUCCESS)
            rc = fail_otf2(w, w->ctx, NULL, "closing the archive", e);
        w->archive = NULL;
    }
    if (w->reader)
        OTF2_Reader_Close(w->reader);
    OTF2_EvtReaderCallbacks_Delete(w->ecb);
    OTF2_DefReaderCallbacks_Delete(w->dcb);
    return rc;
}

/* Refuses to write over the input itself. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The timeline's range and whether it differs from the raw times, in a loop
 * without branches (10^7 events take milliseconds); fails on the first negative
 * time, which OTF2 cannot store. */
static int scan_times(struct write_state *w)
{
    const struct tsync_trace *t = w->t;
    w->t_min = INT64_MAX;
    w->t_max = INT64_MIN;
    for (uint32_t i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        const tsync_time *x = w->tl->time[i];
        tsync_time lo = INT64_MAX, hi = INT64_MIN;
        uint64_t diff = 0, n = t->held && !t->held[i] ? 0 : l->n_events;
        for (uint64_t k = 0; k < n; k++) {
            lo = x[k] < lo ? x[k] : lo;
            hi = x[k] > hi ? x[k] : hi;
            diff |= (uint64_t)(x[k] ^ l->time[k]);
        }
        if (lo < 0) {
            uint64_t k = 0;
            while (x[k] >= 0)
                k++;
            return tsync__fail(w->ctx, TSYNC_EINVAL, "%s: location %llu: event %llu: corrected "
                               "time %lld ticks is negative and cannot be stored in OTF2 (add "
                               "a constant to every map so that times stay positive)",
                               t->path, (unsigned long long)l->ref, (unsigned long long)k,
                               (long long)x[k]);
        }
        w->changed |= diff != 0;
        w->t_min = lo < w->t_min ? lo : w->t_min;
        w->t_max = hi > w->t_max ? hi : w->t_max;
    }
    return TSYNC_OK;
}

/* copy_archive, with libotf2's errors watched (some it reports only there). */
static int copy_watched(struct write_state *w, const char *tmpdir, const char *name)
{
    char why[600];
    int rc;
    OTF2_Error_RegisterCallback(tsync__otf2_quiet_errors, NULL);
    w->watch = tsync__otf2_watch_begin();
    rc = copy_archive(w, tmpdir, name);
    if (rc == TSYNC_OK && tsync__otf2_watch_failed(w->watch, why, sizeof(why)))
        rc = tsync__fail(w->ctx, TSYNC_EIO, "%s/%s.otf2: cannot write the corrected archive: %s",
                         tmpdir, name, why);
    return rc;
}

int tsync__otf2_scan_times(const tsync_trace *t, const tsync_timeline *tl, tsync_time *t_min,
                           tsync_time *t_max, int *changed, tsync_ctx *ctx)
{
    struct write_state w;
    int rc;
    memset(&w, 0, sizeof(w));
    w.t = t;
    w.tl = tl;
    w.ctx = ctx;
    rc = scan_times(&w);
    *t_min = w.t_min;
    *t_max = w.t_max;
    *changed = w.changed;
    return rc;
}

int tsync__otf2_write_part(const tsync_trace *t, const tsync_timeline *tl,
                           const struct tsync__otf2_part *part, tsync_ctx *ctx)
{
    struct write_state w;
    char *indir = NULL, *name = NULL;
    int rc;

    memset(&w, 0, sizeof(w));
    w.t = t;
    w.tl = tl;
    w.part = part;
    w.ctx = ctx;
    w.t_min = part->t_min;
    w.t_max = part->t_max;
    w.changed = part->changed;
    if ((rc = tsync__otf2_split_anchor(t->path, &indir, &name, ctx)))
        return rc;
    rc = copy_watched(&w, part->tmpdir, name);
    free(indir);
    free(name);
    return rc;
}

int tsync__otf2_out_begin(char **tmpdir, char **name, const tsync_trace *t, const char *outdir,
                          tsync_ctx *ctx)
{
    char *indir = NULL;
    int rc;
    *tmpdir = *name = NULL;
    if ((rc = tsync__otf2_split_anchor(t->path, &indir, name, ctx)))
        return rc;
    if ((rc = tsync__outdir_make(outdir, ctx)) == TSYNC_OK && same_file(indir, outdir))
        rc = tsync__fail(ctx, TSYNC_EINVAL, "%s: the output directory is the input's; choose "
                         "another -o so that the input stays untouched", outdir);
    if (rc == TSYNC_OK)
        rc = tsync__outdir_begin(tmpdir, outdir, ctx);
    free(indir);
    if (rc) {
        free(*name);
        *name = NULL;
    }
    return rc;
}

int tsync__otf2_out_finish(int rc, char *tmpdir, char *name, const char *outdir, tsync_ctx *ctx)
{
    rc = tsync__outdir_failed(rc, tmpdir, ctx);
    if (rc == TSYNC_OK) {
        /* The directory before its anchor: an archive is complete when its anchor appears. */
        char *parts[3] = { tsync__strfmt("%s", name), tsync__strfmt("%s.def", name),
                           tsync__strfmt("%s.otf2", name) };
        if (!parts[0] || !parts[1] || !parts[2])
            rc = tsync__oom(ctx);
        else
            rc = tsync__outdir_finish(tmpdir, outdir, (const char *const *)parts, 3, ctx);
        if (parts[0] && parts[1] && parts[2])
            tmpdir = NULL;
        free(parts[0]), free(parts[1]), free(parts[2]);
    }
    tsync__outdir_end(tmpdir);
    free(name);
    return rc;
}

int tsync__otf2_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx)
{
    struct write_state w;
    char *name = NULL, *tmpdir = NULL;
    int rc;

    memset(&w, 0, sizeof(w));
    w.t = t;
    w.tl = tl;
    w.ctx = ctx;
    if ((rc = scan_times(&w)) || (rc = tsync__otf2_out_begin(&tmpdir, &name, t, outdir, ctx)))
        return rc;
    rc = copy_watched(&w, tmpdir, name);
    return tsync__otf2_out_finish(rc, tmpdir, name, outdir, ctx);
}
