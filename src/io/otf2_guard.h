/* otf2_guard.h - cheap checks of OTF2 files before libotf2 reads them. */
#ifndef TSYNC_IO_OTF2_GUARD_H
#define TSYNC_IO_OTF2_GUARD_H

#include <otf2/otf2.h>
#include "tracesync/common.h"

/* Reads the anchor file at `path` once and checks what libotf2 would trust: the
 * header, the chunk sizes (OTF2_CHUNK_SIZE_MIN..MAX), that its strings end inside
 * the file, and its property count against the file's size. Returns 0, or
 * TSYNC_EFORMAT / TSYNC_EIO naming the file. */
int tsync__otf2_guard_anchor(const char *path, tsync_ctx *ctx);

#endif
