/* fs.h - directories: the library's one mkdir -p and rm -r, and fsync. */
#ifndef TSYNC_UTIL_FS_H
#define TSYNC_UTIL_FS_H

#include <stdio.h>

#include "util/ctx.h"

/* Makes `path` and its missing parents, like mkdir -p. Returns 0 or TSYNC_EIO
 * (naming the directory that could not be made) or TSYNC_ENOMEM. */
int tsync__mkdirs(const char *path, tsync_ctx *ctx);

/* Removes a file or a directory tree, like rm -r; best effort, for the library's
 * own temporary output only. Symbolic links are removed, not followed. Uses only
 * async-signal-safe calls: signal handlers may call it. */
void tsync__remove_tree(const char *path);

/* fsync of every file and directory below `path` (and of `path`), or of the one
 * directory: data reach the disk, or the error (ENOSPC, EIO) is reported naming the
 * file. Returns 0, TSYNC_EIO or TSYNC_ENOMEM. */
int tsync__fsync_tree(const char *path, tsync_ctx *ctx);
int tsync__fsync_dir(const char *path, tsync_ctx *ctx);

/* Starts writing to disk what the file of f holds so far (not what f still buffers),
 * without waiting for it (Linux's sync_file_range; elsewhere nothing): the disk then
 * works while the program computes, and the fsync that makes a large output durable
 * has little left to wait for. Writers call it every TSYNC__WRITE_BACK bytes. Cannot
 * fail: an error shows at the fsync. */
void tsync__write_back(FILE *f);
#define TSYNC__WRITE_BACK ((size_t)8 << 20)

#endif
