/* outdir.h - outputs written into a temporary directory inside OUTDIR and moved
 * into place only when complete: all of them or none. */
#ifndef TSYNC_UTIL_OUTDIR_H
#define TSYNC_UTIL_OUTDIR_H

#include <stddef.h>
#include "util/ctx.h"

/* Makes OUTDIR (like mkdir -p) and OUTDIR/.tracesync-<pid>@<host>-XXXXXX in it, and
 * remembers it for tsync_remove_temporary_outputs. First removes, with a warning,
 * the temporary directories that runs on this host left when they were killed
 * (their process is gone). *tmpdir is malloc'ed. Returns 0, TSYNC_EIO or
 * TSYNC_ENOMEM. */
int tsync__outdir_begin(char **tmpdir, const char *outdir, tsync_ctx *ctx);

/* Syncs tmpdir to disk (files and directories), then moves tmpdir/names[i] to
 * OUTDIR/names[i] in order (give anchors last), each replacing an earlier output
 * of that name, and syncs OUTDIR. Parts missing in tmpdir are skipped. On failure,
 * the parts already moved are moved back: OUTDIR is as it was. */
int tsync__outdir_commit(const char *tmpdir, const char *outdir, const char *const *names,
                         size_t n, tsync_ctx *ctx);

/* Removes tmpdir (with earlier outputs that commit replaced) and frees it. */
void tsync__outdir_end(char *tmpdir);

#endif
