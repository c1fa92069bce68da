/* pcap.c - packet captures (pcap, pcapng) as a trace: one capture file per host.
 *
 * A trace is a set of captures (TSYNC_CAP_FILE_SET), each file one location named
 * by its path as given, on the node named by its host: the clock domain of a host
 * is its captures'. Every packet is one event at its capture timestamp in integer
 * nanoseconds (libpcap converts pcapng's if_tsresol and adds if_tsoffset; classic
 * microsecond pcap is scaled by 1000). Each IPv4 or IPv6 TCP segment and UDP
 * datagram also gives a record with its pairing key (match/packets.c), so that the
 * same packet seen in two captures becomes a message. Link types: Ethernet (with
 * VLAN tags), Linux cooked SLL and SLL2, raw IP.
 *
 * A packet stamped earlier than the one before it (capture queues of several CPUs)
 * is taken at the time before it, as the trace model needs, with a warning; written
 * back, it keeps its own distance to that time. A capture cut short inside its last
 * packet (a killed tcpdump) is read up to that packet, with a warning; a corrupt
 * record elsewhere, an unsupported link type or a file that is no capture fail,
 * naming the file and the packet. Written back, each capture keeps its packets,
 * their order and its link type, with corrected timestamps: a pcap capture as
 * nanosecond pcap (pcap_dump), a pcapng capture as pcapng (io/pcapng_write.h, which
 * also merges all captures into OUTDIR/merged.pcapng).
 */
#define _DEFAULT_SOURCE /* u_char and u_int, which pcap.h uses */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pcap/pcap.h>

#include "io/format.h"
#include "io/pcapng_write.h"
#include "util/ctx.h"
#include "util/fs.h"
#include "util/outdir.h"
#include "util/str.h"
#include "util/vec.h"

/* Times are kept from a base 2^59 ns (18 years) before the first packet of the
 * first capture: the stages handle +-2^60 ticks, which epoch nanoseconds exceed, and
 * no capture's clock is that far behind. */
#define BASE_MARGIN ((tsync_time)1 << 59)

/* The stdio buffer of a capture read or written: large reads and writes. */
#define IO_BUF ((size_t)256 << 10)

/* How many payload bytes of a UDP datagram its key hashes. */
#define UDP_HASHED 32

struct capture {
    char *path, *host;
    pcap_t *p;
    char *buf;        /* p's read buffer */
    int link;
    uint32_t node;
};

/* An address seen as a packet's source or destination; IPv4 as ::ffff:a.b.c.d. */
struct addr_slot {
    unsigned char a[16];
    uint32_t id;      /* + 1; 0: empty */
};

struct pcap_state {
    struct capture *cap;
    size_t n;
    tsync_time base;  /* nanoseconds since 1970 at time 0 of the trace */
    tsync_ctx *ctx;
    struct addr_slot *addr;
    size_t mask, n_addr;
};

static const unsigned char PCAP_US[4] = { 0xd4, 0xc3, 0xb2, 0xa1 }, PCAP_NS[4] = { 0x4d, 0x3c, 0xb2, 0xa1 },
                           PCAPNG[4] = { 0x0a, 0x0d, 0x0d, 0x0a };

static int pcap_probe(const unsigned char *head, size_t n)
{
    unsigned char swapped[4];
    if (n < 4)
        return 0;
    for (int i = 0; i < 4; i++)
        swapped[i] = head[3 - i];
    return memcmp(head, PCAPNG, 4) == 0 || memcmp(head, PCAP_US, 4) == 0 ||
           memcmp(head, PCAP_NS, 4) == 0 || memcmp(swapped, PCAP_US, 4) == 0 ||
           memcmp(swapped, PCAP_NS, 4) == 0;
}

static int link_supported(int link)
{
    return link == DLT_EN10MB || link == DLT_LINUX_SLL || link == DLT_LINUX_SLL2 ||
           link == DLT_RAW || link == DLT_IPV4 || link == DLT_IPV6;
}

/* Opens one capture for reading with nanosecond stamps, through a FILE with a
 * buffer of IO_BUF bytes (*buf, freed by close_capture): libpcap reads each packet
 * with two freads, which stdio's default buffer turns into a read(2) every 4 KiB.
 * Fails naming the file. */
static int open_capture(pcap_t **out, char **buf, const char *path, tsync_ctx *ctx)
{
    char err[PCAP_ERRBUF_SIZE] = "";
    FILE *f = fopen(path, "rb");
    int link, e = f ? 0 : errno;
    pcap_t *p = NULL;
    *buf = NULL;
    if (!f)
        snprintf(err, sizeof(err), "%s: %s", path, strerror(e));
    else if (!(*buf = malloc(IO_BUF)))
        snprintf(err, sizeof(err), "%s", strerror(ENOMEM));
    else if (setvbuf(f, *buf, _IOFBF, IO_BUF) == 0)
        p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!p) {
        if (f)
            fclose(f);
        free(*buf);
        *buf = NULL;
        return tsync__fail(ctx, !f && e == ENOENT ? TSYNC_EIO : TSYNC_EFORMAT,
                           "%s: not a readable packet capture: %s", path, err);
    }
    link = pcap_datalink(p);
    if (!link_supported(link)) {
        const char *name = pcap_datalink_val_to_name(link);
        pcap_close(p);
        free(*buf);
        *buf = NULL;
        return tsync__fail(ctx, TSYNC_EUNSUPPORTED, "%s: link type %d (%s) is not supported "
                           "(tracesync reads Ethernet, Linux cooked SLL and SLL2, and raw IP)",
                           path, link, name ? name : "unknown");
    }
    *out = p;
    return TSYNC_OK;
}

/* Closes a capture open_capture opened (p may be NULL). */
static void close_capture(pcap_t *p, char *buf)
{
    if (p)
        pcap_close(p);   /* closes the FILE, which used buf */
    free(buf);
}

static void pcap_close_reader(void *r)
{
    struct pcap_state *st = r;
    if (!st)
        return;
    for (size_t i = 0; i < st->n; i++) {
        close_capture(st->cap[i].p, st->cap[i].buf);
        free(st->cap[i].path);
        free(st->cap[i].host);
    }
    free(st->cap);
    free(st->addr);
    free(st);
}

/* A packet's time in nanoseconds since 1970 (captures are opened with nanosecond
 * precision): 0, or -1 when its header's seconds or fraction are out of range (a
 * corrupt record: 10^13 s would overflow 64 bits of nanoseconds). */
#define STAMP_MAX_S 9000000000LL   /* the year 2255: within 2^63 ns */
static int stamp(const struct pcap_pkthdr *h, tsync_time *out)
{
    if (h->ts.tv_sec < -STAMP_MAX_S || h->ts.tv_sec > STAMP_MAX_S || h->ts.tv_usec < 0 ||
        h->ts.tv_usec >= 1000000000)
        return -1;
    *out = (tsync_time)h->ts.tv_sec * 1000000000 + (tsync_time)h->ts.tv_usec;
    return 0;
}

/* The base of the trace's times: from the first packet of `path` (0 for none). */
static int time_base(tsync_time *base, const char *path, tsync_ctx *ctx)
{
    struct pcap_pkthdr *h;
    const unsigned char *data;
    pcap_t *p;
    char *buf;
    int rc = open_capture(&p, &buf, path, ctx);
    if (rc)
        return rc;
    tsync_time first;
    *base = 0;
    if (pcap_next_ex(p, &h, &data) == 1 && stamp(h, &first) == 0 && first > BASE_MARGIN)
        *base = (first - BASE_MARGIN) / 1000000000 * 1000000000;
    close_capture(p, buf);
    return TSYNC_OK;
}

static int pcap_open_set(void **out, const char *const *paths, const char *const *hosts, size_t n,
                         tsync_ctx *ctx)
{
    struct pcap_state *st = calloc(1, sizeof(*st));
    int rc = TSYNC_OK;
    if (!st || !(st->cap = calloc(n ? n : 1, sizeof(*st->cap))) ||
        !(st->addr = calloc(64, sizeof(*st->addr)))) {
        pcap_close_reader(st);
        return tsync__oom(ctx);
    }
    st->ctx = ctx;
    st->mask = 63;
    st->n = n;
    for (size_t i = 0; i < n && rc == TSYNC_OK; i++) {
        struct capture *c = &st->cap[i];
        if (!(c->path = strdup(paths[i])) || !(c->host = strdup(hosts[i])))
            rc = tsync__oom(ctx);
        else if (!(rc = open_capture(&c->p, &c->buf, paths[i], ctx)))
            c->link = pcap_datalink(c->p);
    }
    if (rc == TSYNC_OK && n)
        rc = time_base(&st->base, paths[0], ctx);
    if (rc) {
        pcap_close_reader(st);
        return rc;
    }
    *out = st;
    return TSYNC_OK;
}

/* Nanoseconds; a node per host (the first capture of a host makes it), a location
 * per capture. */
static int pcap_definitions(void *r, struct tsync_sink *sink)
{
    struct pcap_state *st = r;
    int rc = TSYNC_OK;
    tsync__sink_clock(sink, 1000000000, (uint64_t)st->base, 0, 0);
    for (size_t i = 0; i < st->n && rc == TSYNC_OK; i++) {
        struct capture *c = &st->cap[i];
        size_t k = 0;
        while (k < i && strcmp(st->cap[k].host, c->host) != 0)
            k++;
        if (k < i)
            c->node = st->cap[k].node;
        else
            rc = tsync__sink_node(sink, c->host, &c->node);
        if (rc == TSYNC_OK)
            rc = tsync__sink_location(sink, i, c->path, c->node);
    }
    return rc;
}

#define HASH_SEED 14695981039346656037ull

/* Hashes n bytes into h eight at a time (a multiply and a shift per word, each a
 * bijection of the word: two inputs that differ in one word never meet there). */
static uint64_t hash_bytes(uint64_t h, const unsigned char *p, size_t n)
{
    uint64_t w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    if (n) {
        w = (uint64_t)n << 56;   /* the tail's length, then its bytes */
        memcpy(&w, p, n);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

/* The last step of a key: every bit of h reaches the top bits, which the pairing's
 * sort looks at first (MurmurHash3's fmix64). */
static uint64_t hash_final(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ h >> 33;
}

/* The id of an address, added if new; UINT32_MAX when out of memory. */
static uint32_t addr_id(struct pcap_state *st, const unsigned char a[16])
{
    size_t k;
    if (2 * (st->n_addr + 1) > st->mask + 1) {
        size_t size = (st->mask + 1) * 2;
        struct addr_slot *slot = calloc(size, sizeof(*slot));
        if (!slot)
            return UINT32_MAX;
        for (size_t i = 0; i <= st->mask; i++) {
            if (!st->addr[i].id)
                continue;
            for (k = hash_bytes(HASH_SEED, st->addr[i].a, 16) & (size - 1); slot[k].id;)
                k = (k + 1) & (size - 1);
            slot[k] = st->addr[i];
        }
        free(st->addr);
        st->addr = slot;
        st->mask = size - 1;
    }
    for (k = hash_bytes(HASH_SEED, a, 16) & st->mask; st->addr[k].id; k = (k + 1) & st->mask)
        if (memcmp(st->addr[k].a, a, 16) == 0)
            return st->addr[k].id - 1;
    memcpy(st->addr[k].a, a, 16);
    st->addr[k].id = (uint32_t)++st->n_addr;
    return st->addr[k].id - 1;
}

static uint32_t be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }

/* The IP packet inside a frame of link type `link`: its offset, or -1 for a frame
 * without IPv4 or IPv6. */
static long ip_offset(int link, const unsigned char *f, size_t n)
{
    size_t off, type_at;
    uint32_t type;
    switch (link) {
    case DLT_RAW: case DLT_IPV4: case DLT_IPV6:
        return 0;
    case DLT_LINUX_SLL: type_at = 14; off = 16; break;
    case DLT_LINUX_SLL2: type_at = 0; off = 20; break;
    default: type_at = 12; off = 14; break;   /* Ethernet */
    }
    if (n < off)
        return -1;
    type = be16(f + type_at);
    while (link == DLT_EN10MB && (type == 0x8100 || type == 0x88a8) && n >= off + 4) {
        type = be16(f + off + 2);   /* a VLAN tag: its TCI, then the inner type */
        off += 4;
    }
    return type == 0x0800 || type == 0x86dd ? (long)off : -1;
}

/* The pairing key of an IP packet (seed 003, section 7), its source and destination:
 * 1, or 0 for a packet that is not an unfragmented TCP segment or UDP datagram whose
 * headers (and, for UDP, hashed bytes) were captured. */
static int packet_key(const unsigned char *ip, size_t n, uint64_t *key, unsigned char src[16],
                      unsigned char dst[16])
{
    static const unsigned char v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
    const unsigned char *l4;
    size_t hl, avail;
    uint32_t proto, len;   /* len: the transport header and payload, by the IP header */
    uint64_t h = HASH_SEED;
    if (n < 20)
        return 0;
    if (ip[0] >> 4 == 4) {
        hl = (size_t)(ip[0] & 15) * 4;
        if (hl < 20 || n < hl || (be16(ip + 6) & 0x3fff) || be16(ip + 2) < hl)
            return 0;   /* a fragment, or a bad header */
        proto = ip[9];
        len = be16(ip + 2) - (uint32_t)hl;
        memcpy(src, v4mapped, 12);
        memcpy(src + 12, ip + 12, 4);
        memcpy(dst, v4mapped, 12);
        memcpy(dst + 12, ip + 16, 4);
    } else if (ip[0] >> 4 == 6 && n >= 40) {
        hl = 40;
        proto = ip[6];
        len = be16(ip + 4);
        memcpy(src, ip + 8, 16);
        memcpy(dst, ip + 24, 16);
        /* Hop-by-hop, routing and destination options before the transport. */
        while ((proto == 0 || proto == 43 || proto == 60) && n >= hl + 8) {
            size_t ext = ((size_t)ip[hl + 1] + 1) * 8;
            if (len < ext)
                return 0;
            proto = ip[hl];
            hl += ext;
            len -= (uint32_t)ext;
        }
    } else {
        return 0;
    }
    l4 = ip + hl;
    avail = n > hl ? n - hl : 0;
    h = hash_bytes(h, src, 16);
    h = hash_bytes(h, dst, 16);
    if (proto == 6 && avail >= 20 && len >= (uint32_t)(l4[12] >> 4) * 4) {
        unsigned char k[16];
        uint32_t payload = len - (uint32_t)(l4[12] >> 4) * 4;
        memcpy(k, l4, 12);                 /* ports, sequence and acknowledgement numbers */
        k[12] = l4[13];                    /* flags */
        k[13] = (unsigned char)(payload >> 16);
        k[14] = (unsigned char)(payload >> 8);
        k[15] = (unsigned char)payload;    /* below 2^16: IP lengths have 16 bits */
        *key = hash_final(hash_bytes(h ^ 6, k, 16));
        return 1;
    }
    if (proto == 17 && avail >= 8 && len >= 8) {
        unsigned char k[8 + UDP_HASHED];
        size_t hashed = len - 8 < UDP_HASHED ? len - 8 : UDP_HASHED;
        if (avail < 8 + hashed)
            return 0;   /* the bytes the key needs were not captured */
        memcpy(k, l4, 6);                  /* ports and length */
        memcpy(k + 6, l4 + 8, hashed);
        *key = hash_final(hash_bytes(h ^ 17, k, 6 + hashed));
        return 1;
    }
    return 0;
}

/* Whether libpcap's error is the end of the file inside a packet. */
static int cut_short(const char *err)
{
    return strstr(err, "truncated") != NULL;
}

/* One capture's packets: an event each, a pairing record for TCP and UDP. */
static int read_capture(struct pcap_state *st, tsync_loc loc, struct tsync_sink *sink)
{
    struct capture *c = &st->cap[loc];
    struct pcap_pkthdr *h;
    const unsigned char *data;
    uint64_t n = 0, early = 0, keyed = 0;
    tsync_time last = INT64_MIN;
    int got, rc = tsync__sink_begin_location(sink, loc, 0);
    while (rc == TSYNC_OK && (got = pcap_next_ex(c->p, &h, &data)) == 1) {
        tsync_time time;
        unsigned char src[16], dst[16];
        uint64_t key;
        long ip;
        n++;
        if (stamp(h, &time))
            return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: packet %llu: time stamp out of "
                               "range (%lld s, %lld in its fraction field): a corrupt record",
                               c->path, (unsigned long long)n, (long long)h->ts.tv_sec,
                               (long long)h->ts.tv_usec);
        time -= st->base;
        if (time < last) {
            early++;
            time = last;
        }
        last = time;
        if ((rc = tsync__sink_event(sink, time, TSYNC_EV_OTHER)))
            break;
        ip = ip_offset(c->link, data, h->caplen);
        if (ip >= 0 && packet_key(data + ip, h->caplen - (size_t)ip, &key, src, dst)) {
            uint32_t s = addr_id(st, src), d = addr_id(st, dst);
            if (s == UINT32_MAX || d == UINT32_MAX)
                rc = tsync__oom(st->ctx);
            else
                rc = tsync__sink_packet(sink, key, s, d);
            keyed++;
        }
    }
    if (rc == TSYNC_OK && got == -1) {
        const char *err = pcap_geterr(c->p);
        if (!cut_short(err))
            return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: packet %llu: %s", c->path,
                               (unsigned long long)n + 1, err);
        tsync__warn(st->ctx, "%s: packet %llu is cut short by the end of the file (%s); the %llu "
                    "packets before it are read", c->path, (unsigned long long)n + 1, err,
                    (unsigned long long)n);
    }
    if (rc == TSYNC_OK && n == 0)
        return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: the capture has no packets", c->path);
    if (rc == TSYNC_OK && keyed == 0)
        tsync__warn(st->ctx, "%s: none of its %llu packets is a TCP segment or UDP datagram over "
                    "IPv4 or IPv6: nothing to pair", c->path, (unsigned long long)n);
    if (early)
        tsync__warn(st->ctx, "%s: %llu packet%s stamped earlier than the packet before; taken at "
                    "that packet's time", c->path, (unsigned long long)early,
                    tsync__plural(early, "s"));
    return rc;
}

static int pcap_events(void *r, struct tsync_sink *sink)
{
    struct pcap_state *st = r;
    int rc = TSYNC_OK;
    for (size_t i = 0; i < st->n && rc == TSYNC_OK; i++)
        rc = read_capture(st, (tsync_loc)i, sink);
    return rc;
}

/* A single file: its host is its file name without the suffix. */
static int pcap_open_one(void **out, const char *path, tsync_ctx *ctx)
{
    char *host = tsync__default_host(path);
    int rc;
    if (!host)
        return tsync__oom(ctx);
    rc = pcap_open_set(out, &path, (const char *const *)&host, 1, ctx);
    free(host);
    return rc;
}

/* ---- writing ---- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A capture read again, each packet with its corrected time, and written back as it
 * is read: the merge into merged.pcapng (pcapng_merge.c) asks each capture for its
 * packets in turn, and each packet it gets also goes to the capture's own output.
 * One pass over the captures writes all the outputs. */
struct replay {
    const struct tsync_trace *t;
    const tsync_timeline *tl;
    tsync_loc loc;
    pcap_t *in;
    char *buf;        /* in's read buffer */
    uint64_t k;
    tsync_time last;  /* the time the packet before was read at */
    /* The output: a pcapng capture through the project's writer, a pcap capture as
     * nanosecond pcap through pcap_dump into a FILE with buffer wbuf. */
    struct tsync__pcapng_writer *w;
    uint32_t iface;
    pcap_t *dead;
    pcap_dumper_t *d;
    char *wbuf;
    size_t unsynced;  /* bytes dumped since the last tsync__write_back */
    char *final;      /* the output's path in OUTDIR, for errors */
};

static int replay_open(struct replay *r, const struct tsync_trace *t, const tsync_timeline *tl,
                       tsync_loc loc, tsync_ctx *ctx)
{
    *r = (struct replay){ .t = t, .tl = tl, .loc = loc, .last = INT64_MIN };
    return open_capture(&r->in, &r->buf, t->locations[loc].name, ctx);
}

static void replay_free(struct replay *r)
{
    tsync__pcapng_discard(r->w);
    if (r->d)
        pcap_dump_close(r->d);   /* closes the FILE, which used wbuf */
    if (r->dead)
        pcap_close(r->dead);
    close_capture(r->in, r->buf);
    free(r->wbuf);
    free(r->final);
}

/* The next packet and its corrected time in nanoseconds since 1970 (a packet read
 * at the time before it keeps its own distance to that time; none before 1970):
 * 1, 0 after the location's last event, or TSYNC_EIO for a capture that changed. */
static int replay_next(struct replay *r, struct pcap_pkthdr **h, const unsigned char **data,
                       tsync_time *now, tsync_ctx *ctx)
{
    const struct tsync_location *l = &r->t->locations[r->loc];
    tsync_time orig, time, offset = (tsync_time)r->t->global_offset;
    if (r->k == l->n_events)
        return 0;
    if (pcap_next_ex(r->in, h, data) != 1 || stamp(*h, &orig))
        return tsync__fail(ctx, TSYNC_EIO, "%s: changed while it was synchronized: %llu packets "
                           "read again of %llu", l->name, (unsigned long long)r->k,
                           (unsigned long long)l->n_events);
    orig -= offset;
    time = orig < r->last ? r->last : orig;   /* as read */
    r->last = time;
    *now = r->tl->time[r->loc][r->k++] - (time - orig) + offset;
    if (*now < 0)
        *now = 0;
    return 1;
}

static int is_pcapng(const char *path)
{
    unsigned char head[4];
    FILE *f = fopen(path, "rb");
    int ng = f && fread(head, 1, 4, f) == 4 && memcmp(head, PCAPNG, 4) == 0;
    if (f)
        fclose(f);
    return ng;
}

/* The file-format link type of libpcap's DLT (they differ for raw IP only, among
 * the supported ones). */
static uint16_t linktype(int dlt)
{
    return dlt == DLT_RAW ? 101 : (uint16_t)dlt;
}

/* The output of r's capture, OUTDIR/name: a pcapng capture as pcapng through the
 * project's writer, a pcap capture as nanosecond pcap into tmpdir/name. */
static int output_open(struct replay *r, const char *outdir, const char *tmpdir, const char *name,
                       tsync_ctx *ctx)
{
    const struct tsync_location *l = &r->t->locations[r->loc];
    char *to;
    FILE *f;
    int rc;
    if (is_pcapng(l->name))
        return (rc = tsync__pcapng_open(&r->w, outdir, name, ctx))
                   ? rc
                   : tsync__pcapng_add_interface(r->w, linktype(pcap_datalink(r->in)),
                                                 (uint32_t)pcap_snapshot(r->in),
                                                 r->t->nodes[l->node].name, NULL, &r->iface);
    if (!(to = tsync__path_join(tmpdir, name)) || !(r->wbuf = malloc(IO_BUF)) ||
        !(r->dead = pcap_open_dead_with_tstamp_precision(pcap_datalink(r->in),
                                                         pcap_snapshot(r->in),
                                                         PCAP_TSTAMP_PRECISION_NANO))) {
        free(to);
        return tsync__oom(ctx);
    }
    f = fopen(to, "wb");
    free(to);
    if (!f)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", r->final, strerror(errno));
    setvbuf(f, r->wbuf, _IOFBF, IO_BUF);
    if (!(r->d = pcap_dump_fopen(r->dead, f))) {
        fclose(f);
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", r->final, pcap_geterr(r->dead));
    }
    return TSYNC_OK;
}

/* Ends r's output: the last writes checked, a pcapng output finished into OUTDIR
 * (or held), a pcap output flushed into tmpdir. Returns 0 or TSYNC_EIO. */
static int output_close(struct replay *r, tsync_ctx *ctx)
{
    int rc = TSYNC_OK;
    if (r->w) {
        rc = tsync__pcapng_close(r->w);
        r->w = NULL;
    } else if (pcap_dump_flush(r->d) || ferror(pcap_dump_file(r->d))) {
        rc = tsync__fail(ctx, TSYNC_EIO, "%s: %s", r->final, strerror(errno));
    }
    return rc;
}

/* A merge input's next packet (pcapng_merge.c): the capture's, corrected, written to
 * the capture's output on the way; after the last one, the output is ended, so that
 * a capture's failed write is reported before merged.pcapng's. */
static int merge_next(void *payload, struct tsync__pcapng_packet *p, tsync_ctx *ctx)
{
    struct replay *r = payload;
    struct pcap_pkthdr *h = NULL;
    const unsigned char *data = NULL;
    tsync_time now = 0;
    int rc, got = replay_next(r, &h, &data, &now, ctx);
    if (got == 0)
        return output_close(r, ctx);   /* the capture's last packet is out */
    if (got != 1)
        return got;
    if (r->w) {
        if ((rc = tsync__pcapng_write_packet(r->w, r->iface, now, data, h->caplen, h->len)))
            return rc;
    } else {
        struct pcap_pkthdr out = *h;
        out.ts.tv_sec = (time_t)(now / 1000000000);
        out.ts.tv_usec = (suseconds_t)(now % 1000000000);
        pcap_dump((unsigned char *)r->d, &out, data);   /* errors: at output_close */
        if ((r->unsynced += 16 + h->caplen) >= TSYNC__WRITE_BACK) {
            tsync__write_back(pcap_dump_file(r->d));
            r->unsynced = 0;
        }
    }
    *p = (struct tsync__pcapng_packet){ now, data, h->caplen, h->len };
    return 1;
}

/* Whether location `loc`'s host has other captures too. */
static int shares_host(const struct tsync_trace *t, tsync_loc loc)
{
    for (uint32_t i = 0; i < t->n_locations; i++)
        if (i != loc && t->locations[i].node == t->locations[loc].node)
            return 1;
    return 0;
}

/* OUTDIR/merged.pcapng: every capture's packets in corrected time order, an
 * interface per capture (a host's captures may differ in link type) named by its
 * host, described by its file name where the host has several; each capture's own
 * output on the way. */
static int merge(const struct tsync_trace *t, struct replay *r, const char *outdir,
                 tsync_ctx *ctx)
{
    struct tsync__pcapng_input *in = calloc(t->n_locations, sizeof(*in));
    int rc;
    if (!in)
        return tsync__oom(ctx);
    for (uint32_t i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        in[i] = (struct tsync__pcapng_input){
            .linktype = linktype(pcap_datalink(r[i].in)),
            .snaplen = (uint32_t)pcap_snapshot(r[i].in),
            .host = t->nodes[l->node].name,
            .description = shares_host(t, i) ? base_name(l->name) : NULL,
            .next = merge_next,
            .payload = &r[i],
        };
    }
    rc = tsync__pcapng_merge(outdir, in, t->n_locations, NULL, ctx);
    free(in);
    return rc;
}

/* Each capture under its file name in outdir and merged.pcapng beside them: all or
 * none (held as one commit unless ctx holds the outputs already). */
static int pcap_write(const struct tsync_trace *t, const tsync_timeline *tl, const char *outdir,
                      tsync_ctx *ctx)
{
    const char **names = calloc(t->n_locations, sizeof(*names));
    struct replay *r = calloc(t->n_locations, sizeof(*r));
    struct tsync__held **held = tsync__ctx_held(ctx);
    int own = held && !*held;
    char *tmpdir = NULL;
    uint32_t opened = 0;
    int rc = TSYNC_OK;
    if (!names || !r) {
        free(names);
        free(r);
        return tsync__oom(ctx);
    }
    for (uint32_t i = 0; i < t->n_locations && rc == TSYNC_OK; i++) {
        names[i] = base_name(t->locations[i].name);
        if (strcmp(names[i], TSYNC__PCAPNG_MERGED) == 0)
            rc = tsync__fail(ctx, TSYNC_EINVAL, "%s: its file name is that of the merged "
                             "capture, %s/%s: rename it", t->locations[i].name, outdir,
                             TSYNC__PCAPNG_MERGED);
        for (uint32_t j = 0; j < i && rc == TSYNC_OK; j++)
            if (strcmp(names[i], names[j]) == 0)
                rc = tsync__fail(ctx, TSYNC_EINVAL, "%s and %s have the same file name: both "
                                 "would be written to %s/%s", t->locations[j].name,
                                 t->locations[i].name, outdir, names[i]);
    }
    if (rc || (rc = tsync__outdir_make(outdir, ctx)) || (own && (rc = tsync_ctx_hold_outputs(ctx))) ||
        (rc = tsync__outdir_begin(&tmpdir, outdir, ctx)))
        goto out;
    for (; opened < t->n_locations && rc == TSYNC_OK; opened++) {
        struct replay *x = &r[opened];
        struct stat in_sb, out_sb;
        if ((rc = replay_open(x, t, tl, opened, ctx)))
            break;   /* nothing of x to free */
        if (!(x->final = tsync__path_join(outdir, names[opened])))
            rc = tsync__oom(ctx);
        else if (stat(t->locations[opened].name, &in_sb) == 0 && stat(x->final, &out_sb) == 0 &&
                 in_sb.st_dev == out_sb.st_dev && in_sb.st_ino == out_sb.st_ino)
            rc = tsync__fail(ctx, TSYNC_EINVAL, "%s: the output would overwrite the input; "
                             "choose another -o", x->final);
        else
            rc = output_open(x, outdir, tmpdir, names[opened], ctx);
    }
    if (rc == TSYNC_OK)
        rc = merge(t, r, outdir, ctx);   /* which also ends each capture's output */
    if (rc == TSYNC_OK) {
        rc = tsync__outdir_finish(tmpdir, outdir, names, t->n_locations, ctx);
        tmpdir = NULL;
    }
out:
    while (opened-- > 0)
        replay_free(&r[opened]);
    tsync__outdir_end(tmpdir);
    if (own && rc == TSYNC_OK)
        rc = tsync_ctx_commit_outputs(ctx);
    else if (own)
        tsync_ctx_drop_outputs(ctx);
    free(r);
    free(names);
    return rc;
}

const struct tsync__format tsync__pcap_format = {
    .name = "pcap",
    .what = "packet captures (pcap, pcapng)",
    .suffix = ".pcap",
    .caps = TSYNC_CAP_MESSAGES | TSYNC_CAP_NODES | TSYNC_CAP_FILE_SET,
    .shape = TSYNC_FORMAT_CSV,
    .probe = pcap_probe,
    .open = pcap_open_one,
    .open_set = pcap_open_set,
    .definitions = pcap_definitions,
    .events = pcap_events,
    .close = pcap_close_reader,
    .write = pcap_write,
};
