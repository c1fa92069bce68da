/* pcapng_write.c - a pcapng writer (section header, interface description and
 * enhanced packet blocks), all-or-nothing through util/outdir.
 *
 * Blocks are assembled in the writer's own buffer and handed to an unbuffered FILE
 * in large writes: one memcpy per packet, one write(2) per BUF_SIZE bytes, and the
 * disk starts on them every few megabytes (tsync__write_back). The first
 * write that fails is kept; every later call returns it, and close removes the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/pcapng_write.h"
#include "tracesync/version.h"
#include "util/fs.h"
#include "util/outdir.h"
#include "util/str.h"

#define BUF_SIZE (1u << 20)

/* Block types, option codes (pcapng specification, section 4 and 3.5). */
#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du
#define OPT_ENDOFOPT 0
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME 2
#define OPT_IF_DESCRIPTION 3
#define OPT_IF_TSRESOL 9
#define EPB_FIXED 28 /* type, length, interface, time high and low, two lengths */
#define PAD4(n) (((n) + 3) & ~(size_t)3)

struct iface {
    uint32_t snaplen;
};

struct tsync__pcapng_writer {
    FILE *f;
    char *tmpdir, *outdir, *name, *final;
    tsync_ctx *ctx;
    uint8_t *buf;
    size_t used;
    size_t unsynced; /* bytes written since the last tsync__write_back */
    struct iface *ifaces;
    uint32_t n_ifaces;
    uint64_t packets;
    int rc;  /* the first error, sticky */
    int err; /* errno of the write that failed */
};

static inline uint8_t *put16(uint8_t *p, uint16_t v)
{
    memcpy(p, &v, 2);
    return p + 2;
}

static inline uint8_t *put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
    return p + 4;
}

/* One option: code, length, value padded to 32 bits with zeros. */
static uint8_t *put_option(uint8_t *p, uint16_t code, const void *value, size_t len)
{
    p = put16(p, code);
    p = put16(p, (uint16_t)len);
    memcpy(p, value, len);
    memset(p + len, 0, PAD4(len) - len);
    return p + PAD4(len);
}

static int write_failed(struct tsync__pcapng_writer *w)
{
    return tsync__fail(w->ctx, TSYNC_EIO, "%s: cannot write: %s; nothing was written", w->final,
                       strerror(w->err));
}

/* Writes n bytes to the file: 0, or the sticky TSYNC_EIO with the reason. */
static int file_write(struct tsync__pcapng_writer *w, const void *src, size_t n)
{
    errno = 0;
    if (fwrite(src, 1, n, w->f) == n)
        return TSYNC_OK;
    w->err = errno ? errno : EIO;
    w->rc = TSYNC_EIO;
    return write_failed(w);
}

/* Hands the buffer to the file. */
static int flush_buf(struct tsync__pcapng_writer *w)
{
    size_t n = w->used;
    int rc;
    w->used = 0;
    if (!n || (rc = file_write(w, w->buf, n)))
        return n ? rc : TSYNC_OK;
    if ((w->unsynced += n) >= TSYNC__WRITE_BACK) {
        tsync__write_back(w->f);
        w->unsynced = 0;
    }
    return TSYNC_OK;
}

/* Appends n bytes through the buffer; more than it holds go to the file directly. */
static int emit(struct tsync__pcapng_writer *w, const void *src, size_t n)
{
    if (w->used + n > BUF_SIZE) {
        if (flush_buf(w))
            return w->rc;
        if (n > BUF_SIZE)
            return file_write(w, src, n);
    }
    memcpy(w->buf + w->used, src, n);
    w->used += n;
    return TSYNC_OK;
}

/* One block: type, total length, the body (padded to 32 bits by the caller), the
 * total length again. */
static int put_block(struct tsync__pcapng_writer *w, uint32_t type, const uint8_t *body,
                     size_t body_len)
{
    uint32_t total = (uint32_t)(body_len + 12);
    uint8_t head[8];
    int rc;
    put32(put32(head, type), total);
    if ((rc = emit(w, head, 8)) || (rc = emit(w, body, body_len)))
        return rc;
    return emit(w, &total, 4);
}

static void writer_free(struct tsync__pcapng_writer *w)
{
    free(w->outdir);
    free(w->name);
    free(w->final);
    free(w->buf);
    free(w->ifaces);
    free(w);
}

static int write_shb(struct tsync__pcapng_writer *w)
{
    static const char appl[] = "tracesync " TSYNC_VERSION;
    uint8_t body[16 + 4 + PAD4(sizeof(appl) - 1) + 4], *p = body;
    p = put32(p, BYTE_ORDER_MAGIC);
    p = put16(p, 1); /* version 1.0 */
    p = put16(p, 0);
    memset(p, 0xff, 8); /* section length: not given */
    p = put_option(p + 8, OPT_SHB_USERAPPL, appl, sizeof(appl) - 1);
    put32(p, OPT_ENDOFOPT); /* code 0, length 0 */
    return put_block(w, BT_SHB, body, sizeof(body));
}

int tsync__pcapng_open(struct tsync__pcapng_writer **out, const char *outdir, const char *name,
                       tsync_ctx *ctx)
{
    struct tsync__pcapng_writer *w = calloc(1, sizeof(*w));
    int rc;
    *out = NULL;
    if (!w || !(w->outdir = strdup(outdir)) || !(w->name = strdup(name)) ||
        !(w->final = tsync__path_join(outdir, name)) || !(w->buf = malloc(BUF_SIZE))) {
        if (w)
            writer_free(w);
        return tsync__oom(ctx);
    }
    w->ctx = ctx;
    if ((rc = tsync__outdir_begin(&w->tmpdir, outdir, ctx)) ||
        (rc = tsync__outdir_create_file(&w->f, w->tmpdir, name, w->final, ctx))) {
        tsync__outdir_end(w->tmpdir);
        writer_free(w);
        return rc;
    }
    setvbuf(w->f, NULL, _IONBF, 0); /* the writer buffers */
    write_shb(w);                   /* into the buffer: cannot fail */
    *out = w;
    return TSYNC_OK;
}

int tsync__pcapng_add_interface(struct tsync__pcapng_writer *w, uint16_t linktype,
                                uint32_t snaplen, const char *name, const char *description,
                                uint32_t *id)
{
    static const uint8_t nanoseconds = 9;
    size_t nl = strlen(name), dl = description ? strlen(description) : 0, size;
    struct iface *grown;
    uint8_t *body, *p;
    int rc;
    if (w->rc)
        return w->rc;
    if (nl > UINT16_MAX || dl > UINT16_MAX)
        return tsync__fail(w->ctx, TSYNC_EINVAL, "%s: interface %s: a name or description "
                           "longer than 65535 bytes", w->final, name);
    if (!(grown = realloc(w->ifaces, (w->n_ifaces + 1) * sizeof(*grown))))
        return tsync__oom(w->ctx);
    w->ifaces = grown;
    size = 8 + 4 + PAD4(nl) + (description ? 4 + PAD4(dl) : 0) + 4 + 4 + 4;
    if (!(body = malloc(size)))
        return tsync__oom(w->ctx);
    p = put16(body, linktype);
    p = put16(p, 0);
    p = put32(p, snaplen);
    p = put_option(p, OPT_IF_NAME, name, nl);
    if (description)
        p = put_option(p, OPT_IF_DESCRIPTION, description, dl);
    p = put_option(p, OPT_IF_TSRESOL, &nanoseconds, 1);
    put32(p, OPT_ENDOFOPT);
    rc = put_block(w, BT_IDB, body, size);
    free(body);
    if (rc)
        return rc;
    grown[w->n_ifaces].snaplen = snaplen;
    *id = w->n_ifaces++;
    return TSYNC_OK;
}

/* A packet larger than the buffer: its block written in three pieces. */
static int write_large(struct tsync__pcapng_writer *w, uint32_t iface, uint64_t t,
                       const uint8_t *data, uint32_t caplen, uint32_t origlen)
{
    size_t padded = PAD4(caplen);
    uint32_t total = (uint32_t)(EPB_FIXED + padded + 4);
    uint8_t head[EPB_FIXED], tail[8] = { 0 };
    int rc;
    put32(put32(put32(put32(put32(put32(put32(head, BT_EPB), total), iface), (uint32_t)(t >> 32)),
                      (uint32_t)t), caplen), origlen);
    put32(tail + (padded - caplen), total);
    if ((rc = emit(w, head, EPB_FIXED)) || (rc = emit(w, data, caplen)) ||
        (rc = emit(w, tail, padded - caplen + 4)))
        return rc;
    w->packets++;
    return TSYNC_OK;
}

int tsync__pcapng_write_packet(struct tsync__pcapng_writer *w, uint32_t iface, int64_t time_ns,
                               const uint8_t *data, uint32_t caplen, uint32_t origlen)
{
    size_t padded = PAD4(caplen), total = EPB_FIXED + padded + 4;
    uint64_t t = (uint64_t)time_ns;
    uint8_t *p;
    if (w->rc)
        return w->rc;
    if (iface >= w->n_ifaces || time_ns < 0 || caplen > origlen ||
        (w->ifaces[iface].snaplen && caplen > w->ifaces[iface].snaplen))
        return tsync__fail(w->ctx, TSYNC_EINVAL, "%s: packet %llu: %s", w->final,
                           (unsigned long long)w->packets + 1,
                           iface >= w->n_ifaces ? "no such interface"
                           : time_ns < 0        ? "a time before 1970"
                           : caplen > origlen   ? "captured length over the packet's length"
                                                : "captured length over the interface's snaplen");
    if (total > UINT32_MAX)
        return tsync__fail(w->ctx, TSYNC_EINVAL, "%s: packet %llu: too large", w->final,
                           (unsigned long long)w->packets + 1);
    if (total > BUF_SIZE) /* a jumbo packet: in pieces */
        return write_large(w, iface, t, data, caplen, origlen);
    if (w->used + total > BUF_SIZE && flush_buf(w))
        return w->rc;
    p = w->buf + w->used;
    p = put32(p, BT_EPB);
    p = put32(p, (uint32_t)total);
    p = put32(p, iface);
    p = put32(p, (uint32_t)(t >> 32));
    p = put32(p, (uint32_t)t);
    p = put32(p, caplen);
    p = put32(p, origlen);
    memcpy(p, data, caplen);
    memset(p + caplen, 0, padded - caplen);
    put32(p + padded, (uint32_t)total);
    w->used += total;
    w->packets++;
    return TSYNC_OK;
}

uint64_t tsync__pcapng_packets(const struct tsync__pcapng_writer *w)
{
    return w->packets;
}

void tsync__pcapng_discard(struct tsync__pcapng_writer *w)
{
    if (!w)
        return;
    fclose(w->f);
    tsync__outdir_end(w->tmpdir);
    writer_free(w);
}

int tsync__pcapng_close(struct tsync__pcapng_writer *w)
{
    int rc;
    if (!w)
        return TSYNC_OK;
    if (w->rc || flush_buf(w)) {
        rc = write_failed(w); /* again: the caller may have recorded others since */
        tsync__pcapng_discard(w);
        return rc;
    }
    rc = tsync__outdir_finish_file(w->f, w->tmpdir, w->outdir, w->name, w->final, w->ctx);
    writer_free(w);
    return rc;
}
