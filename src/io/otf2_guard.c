/* otf2_guard.c - cheap checks that keep malformed files away from libotf2.
 *
 * libotf2 trusts the sizes and counts it reads: an anchor file that claims 2^31
 * properties makes it allocate 32 GiB before it notices that the file ends, and a
 * failed open leaks what it had allocated. Where a check costs no more than reading
 * the small file once, we do it first and name the file in the error.
 *
 * Anchor file layout (libotf2 3.x, OTF2_AnchorFile_Load): file type byte, endianness
 * byte (0x42 little, 0x23 big), "OTF2\0", anchor format byte, 38 bytes (trace
 * format, version, two 8-byte chunk sizes, substrate, compression, 8-byte location
 * and definition counts), three NUL-terminated strings (machine, creator,
 * description); from anchor format 2 on, a 4-byte property count, that many pairs
 * of NUL-terminated strings and an 8-byte trace id; from format 3 on, two 4-byte
 * counts (snapshots, thumbnails); format 3 then has an end-of-file byte (0x02).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/otf2_guard.h"
#include "util/ctx.h"

#define ANCHOR_MAX (16u << 20) /* far above any real anchor (a few hundred bytes) */
#define FIXED_END 46           /* 2 header bytes, "OTF2\0", format byte, 38 bytes */
#define OTF2_ANCHOR_FORMAT_KNOWN 3 /* libotf2 3.x writes and checks the end of format 3 */
#define END_OF_FILE 0x02           /* OTF2_BUFFER_END_OF_FILE */

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
    if (n < FIXED_END || (d[1] != 0x42 && d[1] != 0x23) || memcmp(d + 2, "OTF2", 5) != 0)
        return tsync__fail(ctx, TSYNC_EFORMAT, "%s: not an OTF2 anchor file (no OTF2 header)", path);
    big = d[1] == 0x23;
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
