/* outdir.h - outputs written into a temporary directory inside OUTDIR and moved
 * into place only when complete: all of them or none. */
#ifndef TSYNC_UTIL_OUTDIR_H
#define TSYNC_UTIL_OUTDIR_H

#include <stddef.h>
#include <stdio.h>
#include "util/ctx.h"

/* Makes OUTDIR like mkdir -p, remembering that this process made it where it did
 * (a run that fails or is killed removes it where it stays empty). 0 or TSYNC_EIO. */
int tsync__outdir_make(const char *outdir, tsync_ctx *ctx);

/* Makes OUTDIR (tsync__outdir_make) and OUTDIR/.tracesync-<pid>@<host>-XXXXXX in it, and
 * remembers it for tsync_remove_temporary_outputs. First removes, with a warning,
 * the temporary directories that runs on this host left when they were killed
 * (their process is gone). *tmpdir is malloc'ed. Returns 0, TSYNC_EIO or
 * TSYNC_ENOMEM. */
int tsync__outdir_begin(char **tmpdir, const char *outdir, tsync_ctx *ctx);

/* Takes tmpdir, whose parts names[i] go to OUTDIR/names[i] in order (give anchors
 * last), each replacing an earlier output of that name; parts missing in tmpdir are
 * skipped. While ctx holds outputs (tsync_ctx_hold_outputs) they wait for
 * tsync_ctx_commit_outputs; else they move now: tmpdir is synced to disk (files and
 * directories), the parts moved and OUTDIR synced. On failure the parts already
 * moved go back: OUTDIR is as it was. Either way tmpdir is removed in the end.
 * Returns 0, TSYNC_EIO or TSYNC_ENOMEM. */
int tsync__outdir_finish(char *tmpdir, const char *outdir, const char *const *names, size_t n,
                         tsync_ctx *ctx);

/* A one-file output: creates tmpdir/name (its mode follows the umask like every
 * output), then closes it and finishes it into OUTDIR/name (tsync__outdir_finish,
 * which takes tmpdir). Errors name the file as `final`, its path in OUTDIR: a
 * write, the flush or the close that failed is TSYNC_EIO. */
int tsync__outdir_create_file(FILE **f, const char *tmpdir, const char *name, const char *final,
                              tsync_ctx *ctx);
int tsync__outdir_finish_file(FILE *f, char *tmpdir, const char *outdir, const char *name,
                              const char *final, tsync_ctx *ctx);

/* For a run that failed (rc < 0) while writing into tmpdir: the error in ctx names
 * the files as they would have been in OUTDIR (tmpdir is removed; libotf2 names
 * the files it wrote there) and says that nothing was written. Returns rc. */
int tsync__outdir_failed(int rc, const char *tmpdir, tsync_ctx *ctx);

/* Removes tmpdir (with earlier outputs that commit replaced) and frees it. */
void tsync__outdir_end(char *tmpdir);

#endif
