/* common.h - basic types, error codes and the context every libtracesync call takes.
 *
 * Timestamps are integers in the ticks of the clock that took them (tsync_time);
 * seconds appear only where a person reads them. Every call that can fail returns
 * 0 or a negative TSYNC_E* code and leaves the detail (file, location, event) in
 * its tsync_ctx. The library never prints and never exits.
 */
#ifndef TRACESYNC_COMMON_H
#define TRACESYNC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TSYNC_API __attribute__((visibility("default")))
#else
#define TSYNC_API
#endif

/** A timestamp in clock ticks (see tsync_trace_timer_resolution). */
typedef int64_t tsync_time;

/** Error codes: 0 is success, every failure is negative. */
enum {
    TSYNC_OK = 0,
    TSYNC_EINVAL = -1,        /* bad argument or option */
    TSYNC_ENOMEM = -2,        /* out of memory */
    TSYNC_EIO = -3,           /* a file could not be read or written */
    TSYNC_EFORMAT = -4,       /* a file is not what it claims or is corrupt */
    TSYNC_EUNSUPPORTED = -5,  /* valid input this version does not handle */
    TSYNC_EINCONSISTENT = -6  /* the data contradict themselves (e.g. time going back) */
};

/** A short name for an error code ("format error"). Never NULL. */
TSYNC_API const char *tsync_strerror(int code);

/** The library's version, e.g. "0.1.0". */
TSYNC_API const char *tsync_version(void);

/** Severity of a message passed to the log callback. */
enum tsync_log_level { TSYNC_LOG_WARNING = 1, TSYNC_LOG_INFO = 2 };

typedef void (*tsync_log_fn)(enum tsync_log_level level, const char *message, void *payload);
/** Progress of a long step: `done` of `total` units (total 0 when unknown). */
typedef void (*tsync_progress_fn)(const char *what, uint64_t done, uint64_t total, void *payload);

/** Holds the last error's detail and the caller's callbacks. Not thread-safe. */
typedef struct tsync_ctx tsync_ctx;

/** Makes a context. Returns TSYNC_ENOMEM on failure, *out untouched. */
TSYNC_API int tsync_ctx_new(tsync_ctx **out);
/** Frees a context; NULL is fine. */
TSYNC_API void tsync_ctx_free(tsync_ctx *ctx);
/** The last error: code and message naming file, location and event. "" if none. */
TSYNC_API int tsync_ctx_error_code(const tsync_ctx *ctx);
TSYNC_API const char *tsync_ctx_error(const tsync_ctx *ctx);
/** Receives warnings (unmatched messages, doubtful definitions); default: dropped. */
TSYNC_API void tsync_ctx_set_log(tsync_ctx *ctx, tsync_log_fn fn, void *payload);
/** Receives progress of long steps; default: none. */
TSYNC_API void tsync_ctx_set_progress(tsync_ctx *ctx, tsync_progress_fn fn, void *payload);
/** How many threads a call may use: reading and writing OTF2 split the locations
 *  among them (the result does not depend on the number). 0: one per processor;
 *  default 1. Callbacks are still called from the calling thread only. */
TSYNC_API void tsync_ctx_set_threads(tsync_ctx *ctx, unsigned threads);

/** Reads a duration as people write it: a finite number with an optional unit ns, us,
 *  ms, s, min or h ("1.5us", "20 ms"; "2" is 2 s). Returns 0, or TSYNC_EINVAL when the
 *  text is not one. */
TSYNC_API int tsync_parse_seconds(const char *text, double *seconds);

/** Outputs are written into OUTDIR/.tracesync-<pid>@<host>-XXXXXX and moved into
 *  place when complete. This removes the temporary directories of the writes under
 *  way, e.g. from a SIGINT or SIGTERM handler before the process ends: it is
 *  async-signal-safe. A run killed without it leaves its directory; the next write
 *  into the same OUTDIR removes it (and warns) once that process is gone. */
TSYNC_API void tsync_remove_temporary_outputs(void);

/** Makes the outputs of the following writes (tsync_trace_write, tsync_sync_run,
 *  tsync_write_text_output, ...) wait, complete, in their temporary directories
 *  until tsync_ctx_commit_outputs moves all of them into place together: a report
 *  that cannot be written leaves no corrected trace behind. Returns 0, or
 *  TSYNC_ENOMEM (TSYNC_EINVAL for a NULL ctx). */
TSYNC_API int tsync_ctx_hold_outputs(tsync_ctx *ctx);
/** Moves every held output into place (each replacing an earlier one of its name)
 *  and stops holding. Returns 0, or TSYNC_EIO with none of them in place and the
 *  earlier outputs as they were. */
TSYNC_API int tsync_ctx_commit_outputs(tsync_ctx *ctx);
/** Removes the held outputs unwritten and stops holding (tsync_ctx_free does too). */
TSYNC_API void tsync_ctx_drop_outputs(tsync_ctx *ctx);
/** Before the work: makes the directory of the file `path` (like OUTDIR) and checks
 *  that the file can be written there. Returns 0, or TSYNC_EIO with the reason
 *  alone in the context (the directory that cannot be made, or why the file cannot
 *  be), or TSYNC_ENOMEM. */
TSYNC_API int tsync_prepare_output(const char *path, tsync_ctx *ctx);
/** Writes `text` to the file `path` as an output: through a temporary directory
 *  beside it, in place at once or held with the others. Returns 0, or TSYNC_EIO
 *  naming the file and the reason, with nothing written. */
TSYNC_API int tsync_write_text_output(const char *path, const char *text, tsync_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
