/* otf2_io.h - what the OTF2 reader and writer share: anchor paths and libotf2 errors. */
#ifndef TSYNC_IO_OTF2_IO_H
#define TSYNC_IO_OTF2_IO_H

#include <stdarg.h>
#include <otf2/otf2.h>
#include "tracesync/common.h"

/* Checks that `path` names an existing, readable OTF2 anchor file ("x/traces.otf2").
 * Returns 0, or TSYNC_EIO / TSYNC_EINVAL with a message saying what to do. */
int tsync__otf2_check_anchor(const char *path, tsync_ctx *ctx);

/* Splits an anchor path into its directory and the archive name without ".otf2".
 * Both are malloc'ed. Returns 0 or TSYNC_ENOMEM. */
int tsync__otf2_split_anchor(const char *path, char **dir, char **name, tsync_ctx *ctx);

/* libotf2's error callback: keeps libotf2 from printing to stderr and remembers
 * its last message on this thread, which tsync__otf2_last_error returns. libotf2
 * has one error callback per process. */
OTF2_ErrorCode tsync__otf2_quiet_errors(void *ud, const char *file, uint64_t line,
                                        const char *function, OTF2_ErrorCode code,
                                        const char *fmt, va_list va);
const char *tsync__otf2_last_error(void);

/* libotf2 reports some failures only to the error callback, e.g. a write that
 * fails (ENOSPC, EFBIG) while it closes a file: watch_begin marks the start of a
 * write, watch_failed says whether libotf2 reported any error since `mark` and puts
 * the first one into buf ("<file>: No space left on device"). Process-wide: two
 * archives written at once share their errors. */
unsigned long tsync__otf2_watch_begin(void);
int tsync__otf2_watch_failed(unsigned long mark, char *buf, size_t size);
/* The first error libotf2 reported on this thread since `mark`, or NULL. */
const char *tsync__otf2_watch_first_here(unsigned long mark);

/* Lets several threads use one reader or archive, each with readers or writers of
 * its own locations (libotf2's Pthread locks). Call once, before the threads
 * start. Returns libotf2's error code. */
OTF2_ErrorCode tsync__otf2_reader_threads(OTF2_Reader *reader);
OTF2_ErrorCode tsync__otf2_archive_threads(OTF2_Archive *archive);

/* The event chunk size to open an archive for writing with, for one of `chunk`
 * bytes: at least libotf2's file write buffer (4 MiB), which libotf2 cannot use
 * again after a write of it failed (see otf2_io.c). */
uint64_t tsync__otf2_write_chunk_evt(uint64_t chunk);

/* Sets up a new archive for writing: bounded memory per event writer, flushes to
 * the files without BufferFlush records, serial collectives. */
OTF2_ErrorCode tsync__otf2_archive_setup(OTF2_Archive *archive);
/* The same without the collectives, for a caller that sets its own. */
OTF2_ErrorCode tsync__otf2_archive_callbacks(OTF2_Archive *archive);

#endif
