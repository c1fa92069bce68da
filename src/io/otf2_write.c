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
 * The archive is written into a fresh temporary directory inside OUTDIR and moved
 * into place only when complete, so that no reader ever sees half an archive.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "io/formats.h"
#include "io/otf2_io.h"
#include "io/otf2_records.h"
#include "trace/trace.h"
#include "util/ctx.h"
#include "util/fs.h"
#include "util/str.h"

/* The generated copy callbacks get &def as their user data; the callbacks that
 * replace records find the whole state from it. */
struct write_state {
    struct tsync_otf2_def_copy def;
    const struct tsync_trace *t;
    const struct tsync_timeline *tl;
    tsync_ctx *ctx;
    OTF2_Archive *archive;
    tsync_time t_min, t_max;
    int changed;              /* some timestamp differs from the raw one */
    uint64_t dropped_offsets;
};

#define STATE_OF(def_ptr) ((struct write_state *)((char *)(def_ptr) - offsetof(struct write_state, def)))

/* ClockProperties: same resolution and real-time anchor, the new time range. When
 * no timestamp changed, the record stays as it was (even if its writer got the
 * range wrong), so that an unchanged trace is copied exactly. */
static OTF2_CallbackCode write_clock(void *ud, uint64_t resolution, uint64_t offset, uint64_t length,
                                     uint64_t realtime)
{
    struct write_state *w = STATE_OF(ud);
    if (w->changed) {
        offset = (uint64_t)w->t_min;
        length = (uint64_t)(w->t_max - w->t_min);
    }
    return tsync__otf2_def_status(&w->def, OTF2_GlobalDefWriter_WriteClockProperties(
        (OTF2_GlobalDefWriter *)w->def.writer, resolution, offset, length, realtime));
}

/* ClockOffset records are dropped from a corrected trace: its timestamps already
 * account for them, and a reader that applied them again would undo the work. */
static OTF2_CallbackCode copy_clock_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    struct write_state *w = STATE_OF(ud);
    if (!w->changed)
        return tsync__otf2_def_status(&w->def, OTF2_DefWriter_WriteClockOffset(
            (OTF2_DefWriter *)w->def.writer, time, offset, sd));
    w->dropped_offsets++;
    return OTF2_CALLBACK_SUCCESS;
}

static int fail_otf2(struct write_state *w, const char *what, OTF2_ErrorCode e)
{
    return tsync__fail(w->ctx, TSYNC_EIO, "%s: writing the corrected archive: %s: %s (%s)",
                       w->t->path, what, OTF2_Error_GetName(e), tsync__otf2_last_error());
}

static int copy_global_defs(struct write_state *w, OTF2_Reader *reader)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    uint64_t n = 0;
    OTF2_ErrorCode e;
    if (!cb)
        return tsync__oom(w->ctx);
    w->def.writer = OTF2_Archive_GetGlobalDefWriter(w->archive);
    w->def.error = OTF2_SUCCESS;
    if (!gdr || !w->def.writer) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return tsync__fail(w->ctx, TSYNC_EIO, "%s: cannot copy the global definitions", w->t->path);
    }
    tsync__otf2_copy_global_defs(cb);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, write_clock);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, cb, &w->def);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    e = OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &n);
    if (w->def.error != OTF2_SUCCESS)
        return fail_otf2(w, "global definitions", w->def.error);
    if (e != OTF2_SUCCESS)
        return tsync__fail(w->ctx, TSYNC_EFORMAT, "%s: global definitions changed or became "
                           "unreadable while copying: %s", w->t->path, OTF2_Error_GetName(e));
    return TSYNC_OK;
}

static int copy_location(struct write_state *w, OTF2_Reader *reader, OTF2_EvtReaderCallbacks *ecb,
                         OTF2_DefReaderCallbacks *dcb, tsync_loc i)
{
    const struct tsync_location *l = &w->t->locations[i];
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(reader, l->ref);
    OTF2_EvtReader *er;
    struct tsync_otf2_evt_copy c;
    uint64_t n = 0;
    OTF2_ErrorCode e;

    if (dr) {
        w->def.writer = OTF2_Archive_GetDefWriter(w->archive, l->ref);
        w->def.error = OTF2_SUCCESS;
        OTF2_Reader_RegisterDefCallbacks(reader, dr, dcb, &w->def);
        e = OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &n);
        OTF2_Reader_CloseDefReader(reader, dr);
        if (w->def.error != OTF2_SUCCESS)
            return fail_otf2(w, "local definitions", w->def.error);
        if (e != OTF2_SUCCESS)
            return tsync__fail(w->ctx, TSYNC_EFORMAT, "%s: location %llu: local definitions became "
                               "unreadable while copying: %s", w->t->path,
                               (unsigned long long)l->ref, OTF2_Error_GetName(e));
    }

    memset(&c, 0, sizeof(c));
    c.writer = OTF2_Archive_GetEvtWriter(w->archive, l->ref);
    c.time = w->tl->time[i];
    c.n_events = l->n_events;
    er = OTF2_Reader_GetEvtReader(reader, l->ref);
    if (!c.writer || !er)
        return tsync__fail(w->ctx, TSYNC_EIO, "%s: location %llu: cannot copy its events",
                           w->t->path, (unsigned long long)l->ref);
    OTF2_EvtReader_ApplyClockOffsets(er, false);
    OTF2_EvtReader_ApplyMappingTables(er, false);
    OTF2_Reader_RegisterEvtCallbacks(reader, er, ecb, &c);
    e = OTF2_Reader_ReadAllLocalEvents(reader, er, &n);
    OTF2_Reader_CloseEvtReader(reader, er);
    if (c.error != OTF2_SUCCESS)
        return fail_otf2(w, "events", c.error);
    if (e != OTF2_SUCCESS || c.overrun || c.next != c.n_events)
        return tsync__fail(w->ctx, TSYNC_EFORMAT, "%s: location %llu: the events changed while "
                           "copying (%llu copied, %llu expected)", w->t->path,
                           (unsigned long long)l->ref, (unsigned long long)c.next,
                           (unsigned long long)c.n_events);
    e = OTF2_Archive_CloseEvtWriter(w->archive, c.writer);
    if (e != OTF2_SUCCESS)
        return fail_otf2(w, "closing an event writer", e);
    tsync__progress(w->ctx, "writing locations", i + 1, w->t->n_locations);
    return TSYNC_OK;
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
    OTF2_Reader *reader = OTF2_Reader_Open(w->t->path);
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_DefReaderCallbacks *dcb = OTF2_DefReaderCallbacks_New();
    uint64_t chunk_evt = 1024 * 1024, chunk_def = 4 * 1024 * 1024;
    OTF2_ErrorCode e;
    int rc = TSYNC_OK;

    if (!reader || !ecb || !dcb) {
        rc = reader ? tsync__oom(w->ctx)
                    : tsync__fail(w->ctx, TSYNC_EIO, "%s: cannot reopen the input", w->t->path);
        goto out;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    OTF2_Reader_GetChunkSize(reader, &chunk_evt, &chunk_def);
    w->archive = OTF2_Archive_Open(tmpdir, name, OTF2_FILEMODE_WRITE, chunk_evt, chunk_def,
                                   OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!w->archive) {
        rc = tsync__fail(w->ctx, TSYNC_EIO, "%s: cannot create an archive (%s)", tmpdir,
                         tsync__otf2_last_error());
        goto out;
    }
    if ((e = tsync__otf2_archive_setup(w->archive)) != OTF2_SUCCESS) {
        rc = fail_otf2(w, "setting up the archive", e);
        goto out;
    }
    copy_properties(w, reader);

    tsync__otf2_copy_events(ecb);
    tsync__otf2_copy_local_defs(dcb);
    OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, copy_clock_offset);

    for (uint32_t i = 0; i < w->t->n_locations; i++)
        OTF2_Reader_SelectLocation(reader, w->t->locations[i].ref);
    if (OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS ||
        OTF2_Reader_OpenEvtFiles(reader) != OTF2_SUCCESS ||
        OTF2_Archive_OpenDefFiles(w->archive) != OTF2_SUCCESS ||
        OTF2_Archive_OpenEvtFiles(w->archive) != OTF2_SUCCESS) {
        rc = tsync__fail(w->ctx, TSYNC_EIO, "%s: cannot open event and definition files",
                         w->t->path);
        goto out;
    }
    for (uint32_t i = 0; i < w->t->n_locations && rc == TSYNC_OK; i++)
        rc = copy_location(w, reader, ecb, dcb, i);
    OTF2_Reader_CloseEvtFiles(reader);
    OTF2_Reader_CloseDefFiles(reader);
    if (rc)
        goto out;
    if ((e = OTF2_Archive_CloseEvtFiles(w->archive)) != OTF2_SUCCESS ||
        (e = OTF2_Archive_CloseDefFiles(w->archive)) != OTF2_SUCCESS) {
        rc = fail_otf2(w, "closing files", e);
        goto out;
    }
    rc = copy_global_defs(w, reader);
out:
    if (w->archive) {
        e = OTF2_Archive_Close(w->archive);
        if (rc == TSYNC_OK && e != OTF2_SUCCESS)
            rc = fail_otf2(w, "closing the archive", e);
        w->archive = NULL;
    }
    if (reader)
        OTF2_Reader_Close(reader);
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_DefReaderCallbacks_Delete(dcb);
    return rc;
}

/* Moves tmpdir/name{.otf2,.def,/} to outdir, the anchor last: an old archive of
 * the same name is replaced only once the new one is complete. */
static int move_into_place(const char *tmpdir, const char *outdir, const char *name, tsync_ctx *ctx)
{
    static const char *const parts[] = { "", ".def", ".otf2" };
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        char *from = NULL, *to = NULL, *old = NULL;
        int rc = TSYNC_OK;
        from = tsync__strfmt("%s/%s%s", tmpdir, name, parts[i]);
        to = tsync__strfmt("%s/%s%s", outdir, name, parts[i]);
        old = tsync__strfmt("%s/old%s", tmpdir, parts[i]);
        if (!from || !to || !old) {
            rc = tsync__oom(ctx);
        } else if (access(from, F_OK) == 0) {
            if (access(to, F_OK) == 0 && rename(to, old) != 0)
                rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot replace: %s", to, strerror(errno));
            else if (rename(from, to) != 0)
                rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot move the output into place: %s", to,
                                 strerror(errno));
        }
        free(from), free(to), free(old);
        if (rc)
            return rc;
    }
    return TSYNC_OK;
}

/* Refuses to write over the input itself. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int tsync__otf2_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx)
{
    struct write_state w;
    char *indir = NULL, *name = NULL, *tmpdir = NULL;
    int rc;

    memset(&w, 0, sizeof(w));
    w.t = t;
    w.tl = tl;
    w.ctx = ctx;
    w.t_min = INT64_MAX;
    w.t_max = INT64_MIN;
    for (uint32_t i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        for (uint64_t k = 0; k < l->n_events; k++) {
            tsync_time x = tl->time[i][k];
            if (x < 0)
                return tsync__fail(ctx, TSYNC_EINVAL, "%s: location %llu: event %llu: corrected "
                                   "time %lld ticks is negative and cannot be stored in OTF2 (add "
                                   "a constant to every map so that times stay positive)",
                                   t->path, (unsigned long long)l->ref, (unsigned long long)k,
                                   (long long)x);
            w.changed |= x != l->time[k];
            if (x < w.t_min)
                w.t_min = x;
            if (x > w.t_max)
                w.t_max = x;
        }
    }
    if ((rc = tsync__otf2_split_anchor(t->path, &indir, &name, ctx)))
        return rc;
    if ((rc = tsync__mkdirs(outdir, ctx)))
        goto out;
    if (same_file(indir, outdir)) {
        rc = tsync__fail(ctx, TSYNC_EINVAL, "%s: the output directory is the input's; choose "
                         "another -o so that the input stays untouched", outdir);
        goto out;
    }
    tmpdir = tsync__strfmt("%s/.tracesync-XXXXXX", outdir);
    if (!tmpdir || !mkdtemp(tmpdir)) {
        rc = tmpdir ? tsync__fail(ctx, TSYNC_EIO, "%s: cannot create a temporary directory: %s",
                                  outdir, strerror(errno))
                    : tsync__oom(ctx);
        goto out;
    }
    OTF2_Error_RegisterCallback(tsync__otf2_quiet_errors, NULL);
    rc = copy_archive(&w, tmpdir, name);
    if (rc == TSYNC_OK)
        rc = move_into_place(tmpdir, outdir, name, ctx);
out:
    if (tmpdir)
        tsync__remove_tree(tmpdir);
    free(tmpdir);
    free(indir);
    free(name);
    return rc;
}
