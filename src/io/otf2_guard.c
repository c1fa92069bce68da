/* otf2_guard.c - cheap checks that keep malformed files away from libotf2.
 *
 * libotf2 trusts the sizes and counts it reads: an anchor file that claims 2^31
 * properties makes it allocate 32 GiB before it notices that the file ends, a local
 * definition file of 56 bytes whose mapping table claims 2^35 ids 256 GiB, and a
 * failed open leaks what it had allocated. Where a check costs no more than reading
 * the small file once (or a few bytes of a large one), we do it first and name the
 * file in the error.
 *
 * Anchor file layout (libotf2 3.x, OTF2_AnchorFile_Load): chunk header byte (0x03),
 * endianness byte (0x42 little, 0x23 big), "OTF2\0", anchor format byte, 38 bytes
 * (trace format, version, two 8-byte chunk sizes, substrate, compression, 8-byte
 * location and definition counts), three NUL-terminated strings (machine, creator,
 * description); from anchor format 2 on, a 4-byte property count, that many pairs
 * of NUL-terminated strings and an 8-byte trace id; from format 3 on, two 4-byte
 * counts (snapshots, thumbnails); format 3 then has an end-of-file byte (0x02).
 *
 * Definition and event files (libotf2 3.x, OTF2_Buffer.c) are chunks of the
 * anchor's chunk size, the last one cut where its data end. Each chunk begins with
 * an 18-byte header: 0x03, the endianness byte, the numbers of its first and last
 * event (8 bytes each). Records follow: a type byte, then the record's length (one
 * byte, or 0xff and 8 bytes) and its data; event files also have timestamps (0x05
 * and 8 bytes). In a definition file a type byte 0x00 ends the chunk and 0x02 the
 * file; 0x01 (end of buffer, which libotf2's writer puts after the end of the file)
 * is no end to its definition readers: they read it as a record of unknown type,
 * length and all, and go on. A local mapping table (type 5) holds a mapping type byte and an id
 * map: its number of ids (compressed: a byte n, then n bytes), a mode byte, the ids,
 * each at least one byte. A group (type 18, global or local) holds its reference,
 * name (compressed), a type byte, its number of members (compressed), the members.
 * Of the events, only ProgramBegin (type 83: name, number of arguments, arguments,
 * all compressed) has an array whose count is more than a byte: 2^32 - 1 arguments
 * in a 72-byte event file make libotf2 ask for 16 GiB.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/otf2_guard.h"
#include "util/ctx.h"

#define ANCHOR_MAX (16u << 20) /* far above any real anchor (a few hundred bytes) */
#define FIXED_END 46           /* 2 header bytes, "OTF2\0", format byte, 38 bytes */
#define OTF2_ANCHOR_FORMAT_KNOWN 3 /* libotf2 3.x writes and checks the end of format 3 */
#define END_OF_CHUNK 0x00          /* OTF2_BUFFER_END_OF_CHUNK */
#define END_OF_FILE 0x02           /* OTF2_BUFFER_END_OF_FILE */
#define CHUNK_HEADER 0x03          /* OTF2_BUFFER_CHUNK_HEADER */
#define CHUNK_HEADER_SIZE 18
#define LITTLE 0x42                /* OTF2_LITTLE_ENDIAN */
#define BIG 0x23                   /* OTF2_BIG_ENDIAN */
#define LOCAL_MAPPING_TABLE 5      /* OTF2_LOCAL_DEF_MAPPING_TABLE */
#define DEF_GROUP 18               /* OTF2_GLOBAL_DEF_GROUP, OTF2_LOCAL_DEF_GROUP */
#define EVENT_TIMESTAMP 0x05       /* OTF2_BUFFER_TIMESTAMP, then 8 bytes */
#define EVENT_PROGRAM_BEGIN 83     /* OTF2_EVENT_PROGRAM_BEGIN */

static uint64_t read_uint(const unsigned char *p, unsigned n, int big)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
    return v;
}

/* Skips a NUL-terminated string at *pos; 0 when the file ends first. */
static int skip_string(const unsigned char *d, size_t n, size_t *pos)
{
    const unsigned char *nul = *pos < n ? memchr(d + *pos, 0, n - *pos) : NULL;
    if (!nul)
        return 0;
    *pos = (size_t)(nul - d) + 1;
    return 1;
}

static int corrupt(const char *path, const char *what, tsync_ctx *ctx)
{
    return tsync__fail(ctx, TSYNC_EFORMAT, "%s: corrupt OTF2 anchor file: %s", path, what);
}

/* Walks the anchor as OTF2_AnchorFile_Load does; every refusal of libotf2 there
 * would leak the archive it had allocated. */
static int check_anchor_bytes(const char *path, const unsigned char *d, size_t n, tsync_ctx *ctx)
{
    size_t pos = FIXED_END;
    unsigned format;
    int big;
    uint64_t chunk_evt, chunk_def, props;
    if (n < FIXED_END || (d[1] != LITTLE && d[1] != BIG) || memcmp(d + 2, "OTF2", 5) != 0)
        return tsync__fail(ctx, TSYNC_EFORMAT, "%s: not an OTF2 anchor file (no OTF2 header)", path);
    if (d[0] != CHUNK_HEADER)
        return corrupt(path, "it does not begin with a chunk header", ctx);
    big = d[1] == BIG;
    format = d[7];
    chunk_evt = read_uint(d + 12, 8, big);
    chunk_def = read_uint(d + 20, 8, big);
    if (format == 0 || format > OTF2_ANCHOR_FORMAT_KNOWN)
        return tsync__fail(ctx, TSYNC_EFORMAT, "%s: OTF2 anchor format %u, this reader knows "
                           "1 to %u", path, format, OTF2_ANCHOR_FORMAT_KNOWN);
    if (chunk_evt < OTF2_CHUNK_SIZE_MIN || chunk_evt > OTF2_CHUNK_SIZE_MAX ||
        chunk_def < OTF2_CHUNK_SIZE_MIN || chunk_def > OTF2_CHUNK_SIZE_MAX)
        return tsync__fail(ctx, TSYNC_EFORMAT, "%s: corrupt OTF2 anchor file: chunk sizes %llu "
                           "and %llu bytes, OTF2 allows %llu to %llu", path,
                           (unsigned long long)chunk_evt, (unsigned long long)chunk_def,
                           (unsigned long long)OTF2_CHUNK_SIZE_MIN,
                           (unsigned long long)OTF2_CHUNK_SIZE_MAX);
    if (d[28] < OTF2_SUBSTRATE_POSIX || d[28] > OTF2_SUBSTRATE_NONE)
        return corrupt(path, "unknown file substrate", ctx);
    if (d[29] != OTF2_COMPRESSION_NONE && d[29] != 2 /* zlib, deprecated */)
        return corrupt(path, "unknown compression", ctx);
    for (int i = 0; i < 3; i++)
        if (!skip_string(d, n, &pos))
            return corrupt(path, "it ends inside its header strings", ctx);
    if (format > 1) {
        /* Each property is two strings of at least their NUL byte. */
        props = pos + 4 <= n ? read_uint(d + pos, 4, big) : UINT64_MAX;
        if (props > (n - pos) / 2)
            return tsync__fail(ctx, TSYNC_EFORMAT, "%s: corrupt OTF2 anchor file: it claims "
                               "%llu properties in %zu bytes", path,
                               (unsigned long long)props, n);
        pos += 4;
        for (uint64_t i = 0; i < 2 * props; i++)
            if (!skip_string(d, n, &pos))
                return corrupt(path, "it ends inside its properties", ctx);
        pos += 8; /* trace id */
    }
    if (format > 2)
        pos += 8; /* numbers of snapshots and thumbnails */
    if (pos > n || (format == OTF2_ANCHOR_FORMAT_KNOWN && (pos == n || d[pos] != END_OF_FILE)))
        return corrupt(path, "it ends early or does not end where its header does", ctx);
    return TSYNC_OK;
}

int tsync__otf2_guard_anchor(const char *path, tsync_ctx *ctx)
{
    FILE *f = fopen(path, "rb");
    unsigned char *d;
    size_t n;
    int rc;
    if (!f)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
    if (!(d = malloc(ANCHOR_MAX))) {
        fclose(f);
        return tsync__oom(ctx);
    }
    n = fread(d, 1, ANCHOR_MAX, f);
    if (ferror(f))
        rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot read: %s", path, strerror(errno));
    else if (n == ANCHOR_MAX)
        rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: not an OTF2 anchor file (%u MiB or more; "
                         "anchors are a few hundred bytes)", path, ANCHOR_MAX >> 20);
    else
        rc = check_anchor_bytes(path, d, n, ctx);
    free(d);
    fclose(f);
    return rc;
}

/* ---- definition and event files ---------------------------------------- */

static const char *const kind_name[] = { "global definition", "local definition", "event" };

static int corrupt_file(const char *path, enum tsync__otf2_file kind, tsync_ctx *ctx,
                        const char *fmt, ...) TSYNC_PRINTF(4, 5);
static int corrupt_file(const char *path, enum tsync__otf2_file kind, tsync_ctx *ctx,
                        const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return tsync__fail(ctx, TSYNC_EFORMAT, "%s: corrupt OTF2 %s file: %s", path, kind_name[kind], what);
}

/* A compressed integer at *pos of rec[0..len): a byte n, then n bytes (0xff: the
 * undefined value, as large as can be). 0 when it does not fit or n is not valid. */
static int compressed(const unsigned char *rec, uint64_t len, uint64_t *pos, int big, uint64_t *v)
{
    unsigned n = *pos < len ? rec[*pos] : 9;
    if (n == 0xff) {
        *v = UINT64_MAX;
        *pos += 1;
        return 1;
    }
    if (n > 8 || *pos + 1 + n > len)
        return 0;
    *v = read_uint(rec + *pos + 1, n, big);
    *pos += 1 + n;
    return 1;
}

/* Records whose array libotf2 allocates by the count it reads (mapping table: type
 * byte, then the id map's count; group: self, name, a type byte, then the count;
 * ProgramBegin: name, then the count) against the record: every item takes a byte
 * at least. */
static int check_counts(const char *path, enum tsync__otf2_file kind, unsigned type,
                        const unsigned char *rec, uint64_t len, int big, uint64_t at, tsync_ctx *ctx)
{
    uint64_t pos = 0, count = UINT64_MAX, skip;
    const char *what, *items;
    int ok;
    if (kind == TSYNC_OTF2_LOCAL_DEFS && type == LOCAL_MAPPING_TABLE) {
        what = "mapping table", items = "ids";
        pos = 1;
        ok = compressed(rec, len, &pos, big, &count);
    } else if (kind != TSYNC_OTF2_EVENTS && type == DEF_GROUP) {
        what = "group", items = "members";
        ok = compressed(rec, len, &pos, big, &skip) && compressed(rec, len, &pos, big, &skip) &&
             ++pos <= len && compressed(rec, len, &pos, big, &count);
    } else if (kind == TSYNC_OTF2_EVENTS && type == EVENT_PROGRAM_BEGIN) {
        what = "ProgramBegin event", items = "arguments";
        ok = compressed(rec, len, &pos, big, &skip) && compressed(rec, len, &pos, big, &count);
    } else
        return TSYNC_OK;
    if (ok && count == UINT64_MAX) /* libotf2 reads 0xff as 2^32 - 1 items */
        return corrupt_file(path, kind, ctx, "the %s at byte %llu gives an undefined number "
                            "of %s (0xff)", what, (unsigned long long)at, items);
    if (!ok || count > len - pos)
        return corrupt_file(path, kind, ctx, "the %s at byte %llu claims %llu %s in a record of "
                            "%llu bytes", what, (unsigned long long)at,
                            (unsigned long long)count, items, (unsigned long long)len);
    return TSYNC_OK;
}

/* The records of one chunk, d[0..n) with its header. */
static int check_chunk(const char *path, enum tsync__otf2_file kind, const unsigned char *d,
                       size_t n, uint64_t offset, tsync_ctx *ctx)
{
    int big = d[1] == BIG, rc;
    for (size_t pos = CHUNK_HEADER_SIZE; pos < n;) {
        size_t at = pos;
        unsigned type = d[pos++];
        uint64_t len;
        if (type == END_OF_CHUNK || type == END_OF_FILE)
            return TSYNC_OK;
        if (kind == TSYNC_OTF2_EVENTS && type == EVENT_TIMESTAMP) {
            if (n - pos < 8)
                return corrupt_file(path, kind, ctx, "the timestamp at byte %llu is cut by the "
                                    "end of its chunk", (unsigned long long)(offset + at));
            pos += 8;
            continue;
        }
        len = pos < n ? d[pos++] : UINT64_MAX;
        if (len == 0xff)
            len = pos + 8 <= n ? (pos += 8, read_uint(d + pos - 8, 8, big)) : UINT64_MAX;
        if (len > n - pos)
            return corrupt_file(path, kind, ctx, "the record at byte %llu is longer than the "
                                "%zu bytes left in its chunk", (unsigned long long)(offset + at),
                                n - pos);
        if ((rc = check_counts(path, kind, type, d + pos, len, big, offset + at, ctx)))
            return rc;
        pos += len;
    }
    return TSYNC_OK;
}

int tsync__otf2_guard_file(const char *path, enum tsync__otf2_file kind, uint64_t chunk, tsync_ctx *ctx)
{
    FILE *f = fopen(path, "rb");
    unsigned char *d = NULL;
    struct stat sb;
    int rc = TSYNC_OK, endian = -1;
    if (!f)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
    if (fstat(fileno(f), &sb) != 0) {
        rc = tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (sb.st_size == 0) {
        rc = corrupt_file(path, kind, ctx, "it is empty");
        goto out;
    }
    if (!(d = malloc(chunk))) {
        rc = tsync__oom(ctx);
        goto out;
    }
    for (uint64_t off = 0; off < (uint64_t)sb.st_size && rc == TSYNC_OK; off += chunk) {
        uint64_t left = (uint64_t)sb.st_size - off;
        size_t want = left < chunk ? left : chunk;
        size_t got;
        if (fseeko(f, (off_t)off, SEEK_SET) != 0) {
            rc = tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
            break;
        }
        got = fread(d, 1, want, f);
        if (ferror(f))
            rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot read: %s", path, strerror(errno));
        else if (got < CHUNK_HEADER_SIZE)
            rc = corrupt_file(path, kind, ctx, "its chunk at byte %llu ends inside its header",
                              (unsigned long long)off);
        else if (d[0] != CHUNK_HEADER || (d[1] != LITTLE && d[1] != BIG) ||
                 (endian >= 0 && d[1] != endian))
            rc = corrupt_file(path, kind, ctx, "no chunk header at byte %llu (chunks of %llu "
                              "bytes)", (unsigned long long)off, (unsigned long long)chunk);
        else {
            endian = d[1];
            rc = check_chunk(path, kind, d, got, off, ctx);
        }
    }
out:
    free(d);
    fclose(f);
    return rc;
}
