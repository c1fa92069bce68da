/* otf2_io.c - anchor paths and libotf2 error messages, shared by reader and writer. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/OTF2_Pthread_Locks.h>

#include "io/otf2_io.h"
#include "util/vec.h"
#include "util/ctx.h"

/* Per thread: readers and writers may fail on several threads at once. */
static _Thread_local char last_error[512];

/* Every error libotf2 reports, counted, and the first one after the latest
 * tsync__otf2_watch_begin: libotf2 reports some failures only here (a write that
 * fails while it closes a file returns success to its caller). */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long watch_count, watch_mark;
static char watch_first[600];
/* The first error on this thread since the watch's mark: what a thread that
 * writes some locations reports, whatever other threads met. */
static _Thread_local char thread_first[600];
static _Thread_local unsigned long thread_mark = (unsigned long)-1;

OTF2_ErrorCode tsync__otf2_quiet_errors(void *ud, const char *file, uint64_t line,
                                        const char *function, OTF2_ErrorCode code,
                                        const char *fmt, va_list va)
{
    const char *msg = last_error;
    (void)ud, (void)file, (void)line, (void)function;
    vsnprintf(last_error, sizeof(last_error), fmt ? fmt : "", va);
    if (strncmp(msg, "POSIX: ", 7) == 0)  /* "POSIX: <file>": the file is what matters */
        msg += 7;
    pthread_mutex_lock(&watch_lock);
    if (thread_mark != watch_mark) {
        snprintf(thread_first, sizeof(thread_first), "%s%s%s", msg, *msg ? ": " : "",
                 OTF2_Error_GetDescription(code));
        thread_mark = watch_mark;
    }
    if (watch_count++ == watch_mark)
        snprintf(watch_first, sizeof(watch_first), "%s", thread_first);
    pthread_mutex_unlock(&watch_lock);
    return code;
}

const char *tsync__otf2_last_error(void) { return last_error; }

unsigned long tsync__otf2_watch_begin(void)
{
    unsigned long mark;
    pthread_mutex_lock(&watch_lock);
    mark = watch_mark = watch_count;
    watch_first[0] = '\0';
    pthread_mutex_unlock(&watch_lock);
    return mark;
}

int tsync__otf2_watch_failed(unsigned long mark, char *buf, size_t size)
{
    int failed;
    pthread_mutex_lock(&watch_lock);
    failed = watch_count != mark;
    if (failed)
        snprintf(buf, size, "%s", watch_mark == mark && watch_first[0] ? watch_first
                                  : "libotf2 reported an error");
    pthread_mutex_unlock(&watch_lock);
    return failed;
}

OTF2_ErrorCode tsync__otf2_reader_threads(OTF2_Reader *reader)
{
    return OTF2_Pthread_Reader_SetLockingCallbacks(reader, NULL);
}

OTF2_ErrorCode tsync__otf2_archive_threads(OTF2_Archive *archive)
{
    return OTF2_Pthread_Archive_SetLockingCallbacks(archive, NULL);
}

int tsync__otf2_check_anchor(const char *path, tsync_ctx *ctx)
{
    struct stat sb;
    size_t n = strlen(path);
    if (stat(path, &sb) != 0)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s (give the OTF2 anchor file, e.g. "
                           "run/traces.otf2)", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: is a directory; give the OTF2 anchor file "
                           "inside it (the .otf2 file)", path);
    if (n < 5 || strcmp(path + n - 5, ".otf2") != 0)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: not an OTF2 anchor file (its name must end "
                           "in .otf2)", path);
    if (access(path, R_OK) != 0)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
    return TSYNC_OK;
}

int tsync__otf2_split_anchor(const char *path, char **dir, char **name, tsync_ctx *ctx)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t blen = strlen(base);
    if (blen > 5 && strcmp(base + blen - 5, ".otf2") == 0)
        blen -= 5;
    *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    *name = strndup(base, blen);
    if (!*dir || !*name) {
        free(*dir);
        free(*name);
        *dir = *name = NULL;
        return tsync__oom(ctx);
    }
    return TSYNC_OK;
}

/* ---- writing: memory and flushes ---------------------------------------
 *
 * libotf2 keeps every chunk of a writer in memory until the writer is closed, up
 * to 128 MiB per writer, unless told otherwise. Our allocator hands an event
 * writer chunks up to EVT_BYTES (at least one): when they are full, libotf2 flushes
 * them to the file and starts again. The flush callbacks always say "flush"; there
 * is no post-flush callback, because with one libotf2 writes a BufferFlush event
 * into the stream at every flush, which would be an event that was not in the input.
 *
 * Event chunks are at least STAGING bytes, libotf2's file write buffer
 * (OTF2_FILE_BUFFER_SIZE in its OTF2_File.c, 3.x). libotf2 collects writes smaller
 * than that buffer in it and writes the buffer out when it fills; when that write
 * fails (a full disk, a file size limit), it frees the buffer but keeps the pointer
 * and its fill, and the next write to the file, or closing it, uses the freed
 * memory: a crash or a double free. A write of a whole buffer's size or more goes
 * to the file directly. With chunks that large, only the end of an event file (its
 * last, partial chunk) and a definition file (written in one piece) pass through
 * the buffer, once, when the file is closed: a failure there is reported, and the
 * file is not touched again.
 */
#define STAGING (4u << 20)
#define EVT_BYTES STAGING

uint64_t tsync__otf2_write_chunk_evt(uint64_t chunk)
{
    return chunk < STAGING ? STAGING : chunk;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud, (void)ft, (void)loc, (void)cd, (void)final;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };

/* The chunks libotf2 got for one buffer (its perBufferData). */
struct chunk_set {
    size_t n, cap;
    void **chunk;
};

/* Hands out a chunk; NULL makes libotf2 flush the buffer to its file and free its
 * chunks. Only event buffers are limited; definitions are few. */
static void *mem_allocate(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer,
                          uint64_t size)
{
    struct chunk_set *cs = *per_buffer;
    void *p;
    (void)ud, (void)loc;
    if (!cs) {
        if (!(cs = calloc(1, sizeof(*cs))))
            return NULL;
        *per_buffer = cs;
    }
    if (ft == OTF2_FILETYPE_EVENTS && cs->n > 0 && (cs->n + 1) * size > EVT_BYTES)
        return NULL;
    if (tsync__reserve((void **)&cs->chunk, &cs->cap, cs->n + 1, sizeof(*cs->chunk)) ||
        !(p = malloc(size)))
        return NULL;
    cs->chunk[cs->n++] = p;
    return p;
}

static void mem_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer, bool final)
{
    struct chunk_set *cs = *per_buffer;
    (void)ud, (void)ft, (void)loc;
    if (!cs)
        return;
    for (size_t i = 0; i < cs->n; i++)
        free(cs->chunk[i]);
    cs->n = 0;
    if (final) {
        free(cs->chunk);
        free(cs);
        *per_buffer = NULL;
    }
}

static const OTF2_MemoryCallbacks memory_callbacks = { mem_allocate, mem_free_all };

OTF2_ErrorCode tsync__otf2_archive_callbacks(OTF2_Archive *archive)
{
    OTF2_ErrorCode e;
    if ((e = OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL)) != OTF2_SUCCESS)
        return e;
    return OTF2_Archive_SetMemoryCallbacks(archive, &memory_callbacks, NULL);
}

OTF2_ErrorCode tsync__otf2_archive_setup(OTF2_Archive *archive)
{
    OTF2_ErrorCode e;
    if ((e = tsync__otf2_archive_callbacks(archive)) != OTF2_SUCCESS)
        return e;
    return OTF2_Archive_SetSerialCollectiveCallbacks(archive);
}

const char *tsync__otf2_watch_first_here(unsigned long mark)
{
    return thread_mark == mark ? thread_first : NULL;
}
