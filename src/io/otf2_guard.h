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

/* The files of an archive besides its anchor. */
enum tsync__otf2_file { TSYNC_OTF2_GLOBAL_DEFS, TSYNC_OTF2_LOCAL_DEFS, TSYNC_OTF2_EVENTS };

/* Checks a definition or event file at `path`, of chunks of `chunk` bytes (the
 * anchor's, checked by tsync__otf2_guard_anchor), before libotf2 reads it: that it
 * is not empty, every chunk begins with a chunk header of one endianness, every
 * record ends inside its chunk, and the number of items of a local mapping table, a
 * group or a ProgramBegin event fits in its record. One pass over the file, by chunks.
 * Returns 0, or TSYNC_EFORMAT / TSYNC_EIO naming the file and the byte. */
int tsync__otf2_guard_file(const char *path, enum tsync__otf2_file kind, uint64_t chunk,
                           tsync_ctx *ctx);

#endif
