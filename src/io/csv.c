/* csv.c - a CSV of messages as a trace: for users whose events come from elsewhere.
 *
 * The file has the header `send_location,send_time_ns,recv_location,recv_time_ns`
 * and one message per line: where it was sent and when (on the sender's clock, in
 * integer nanoseconds), where it was received and when (on the receiver's clock).
 * Location names are any text without commas. Every location is its own node and,
 * unless a domain file groups them, its own clock domain (named as the location;
 * location ids are 0, 1, ... in order of first appearance). Each location's events
 * are its sends and receives in time order (equal times keep the file's order).
 *
 * Written back, the file keeps its lines in their order with corrected times.
 * Recognized by its header line; read whole at open, then emitted into the sink:
 * each row is a message with both its ends (match/ends.c pairs them by row). For
 * the estimate alone (open_lists) the rows go to message lists instead, 16 bytes
 * a message and the extents of each 64 (half a byte a message), and no events are
 * made. Lines are parsed in place: a regular file's
 * mapped a few MiB at a time, the rest (a pipe's, a file's last MiBs) in a buffer.
 * A row in the common form (names seen in the row before, or any without NUL;
 * times of up to 18 digits; "\n" or "\r\n" at its end) is read in one pass, its
 * digits eight at a time; any other line goes the general way, which finds its
 * fields first and reads other times as strtoll does, and says what is wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/format.h"
#include "util/ctx.h"
#include "util/digits.h"
#include "util/fs.h"
#include "util/outdir.h"
#include "util/str.h"
#include "util/vec.h"

#define CSV_TIME_MAX (1ll << 62)
#define READ_CHUNK (1u << 20)  /* bytes read at a time, still in the cache when parsed;
                                * a longer line grows the buffer */
#define SLACK 32               /* zero bytes after the data: whole words are read */
#define MAP_CHUNK (4u << 20)   /* bytes of a file mapped at a time (a multiple of pages) */
#define MAP_MARGIN 128         /* bytes past its end a row in the common form reads, and more */
#define KNOWN_MAX 15           /* longest name compared as two words */
#define PAIR_CACHE 64          /* (sender, receiver) -> list, direct-mapped */

static const char HEADER[] = "send_location,send_time_ns,recv_location,recv_time_ns";

/* One end of a message, before it is placed in its location's time order. */
struct csv_event {
    tsync_time time;
    uint64_t tag;  /* row * 2 + (1 for the receive) */
};

struct csv_loc {
    char *name;
    size_t len;
    struct csv_event *ev;
    size_t n, cap;
};

/* A location of the rows before: its name and comma as two words and the masks of
 * their bytes (len 0 when the name is longer than KNOWN_MAX). */
struct known {
    uint32_t loc;
    uint32_t len;
    uint64_t w[2], m[2];
};

struct csv_state {
    char *path;
    tsync_ctx *ctx;
    struct csv_loc *locs;
    size_t n_locs, cap_locs;
    uint32_t *slot;       /* name hash table: location index + 1, 0 = empty */
    size_t mask;
    uint64_t rows;        /* read as ends (their tags): not counted for lists */
    struct known recent[2]; /* the locations of the row before: most rows name them again */
    int lists;            /* opened by open_lists: rows go to message lists, not ends */
    struct tsync_message_list *list;
    size_t n_lists, cap_lists;
    uint32_t *list_slot;  /* (send, receive) hash table: list index + 1, 0 = empty */
    size_t list_mask;
    struct {
        tsync_loc s, r;
        uint32_t list;    /* index + 1, 0 = empty */
    } pairs[PAIR_CACHE];
};

static uint64_t name_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static uint64_t pair_hash(tsync_loc a, tsync_loc b)
{
    return (((uint64_t)a << 32) | b) * 0x9e3779b97f4a7c15ull >> 17;
}

/* A hash table of `size` slots (a power of two) for the n entries 0 .. n-1, entry
 * i at the first free slot from hash(i): 0, or -1 when out of memory. */
static int rehash(uint32_t **slot, size_t *mask, size_t n, uint64_t (*hash)(const void *, size_t),
                  const void *arg)
{
    size_t size = (*mask + 1) * 2;
    uint32_t *v = calloc(size, sizeof(*v));
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t k = hash(arg, i) & (size - 1);
        while (v[k])
            k = (k + 1) & (size - 1);
        v[k] = (uint32_t)i + 1;
    }
    free(*slot);
    *slot = v;
    *mask = size - 1;
    return 0;
}

static uint64_t loc_hash(const void *arg, size_t i)
{
    const struct csv_loc *l = &((const struct csv_state *)arg)->locs[i];
    return name_hash(l->name, l->len);
}

static uint64_t list_hash(const void *arg, size_t i)
{
    const struct tsync_message_list *m = &((const struct csv_state *)arg)->list[i];
    return pair_hash(m->send_loc, m->recv_loc);
}

/* The index of the location called name[0, len), added if new; -1 when out of
 * memory. */
static long location_of(struct csv_state *st, const char *name, size_t len)
{
    size_t k;
    struct csv_loc l = { 0 };
    if (2 * (st->n_locs + 1) > st->mask + 1 && rehash(&st->slot, &st->mask, st->n_locs, loc_hash, st))
        return -1;
    for (k = name_hash(name, len) & st->mask; st->slot[k]; k = (k + 1) & st->mask) {
        const struct csv_loc *c = &st->locs[st->slot[k] - 1];
        if (c->len == len && memcmp(c->name, name, len) == 0)
            return (long)st->slot[k] - 1;
    }
    l.len = len;
    if (!(l.name = strndup(name, len)) || TSYNC_PUSH(st->locs, st->n_locs, st->cap_locs, l)) {
        free(l.name);
        return -1;
    }
    st->slot[k] = (uint32_t)st->n_locs;
    return (long)st->n_locs - 1;
}

/* Known entry k for location l. */
static void know(struct known *k, const struct csv_loc *c, uint32_t l)
{
    unsigned char b[16] = { 0 }, m[16] = { 0 };
    memset(k, 0, sizeof(*k));
    k->loc = l;
    if (c->len > KNOWN_MAX)
        return;
    k->len = (uint32_t)c->len;
    memcpy(b, c->name, c->len);
    b[c->len] = ',';
    memset(m, 0xFF, c->len + 1);
    memcpy(k->w, b, sizeof(k->w));
    memcpy(k->m, m, sizeof(k->m));
}

/* location_of, trying the row before's two locations first. */
static long recent_location(struct csv_state *st, const char *name, size_t len)
{
    long l;
    for (int k = 0; k < 2 && st->n_locs; k++) {
        const struct csv_loc *c = &st->locs[st->recent[k].loc];
        if (c->len == len && memcmp(c->name, name, len) == 0)
            return st->recent[k].loc;
    }
    if ((l = location_of(st, name, len)) >= 0) {
        st->recent[1] = st->recent[0];
        know(&st->recent[0], &st->locs[l], (uint32_t)l);
    }
    return l;
}

/* The list of the messages from location s to r, added if new; NULL when out of
 * memory. */
static struct tsync_message_list *list_of(struct csv_state *st, tsync_loc s, tsync_loc r)
{
    size_t k;
    struct tsync_message_list m = { s, r, 0, 0, NULL, NULL };
    if (2 * (st->n_lists + 1) > st->list_mask + 1 &&
        rehash(&st->list_slot, &st->list_mask, st->n_lists, list_hash, st))
        return NULL;
    for (k = pair_hash(s, r) & st->list_mask; st->list_slot[k]; k = (k + 1) & st->list_mask) {
        struct tsync_message_list *c = &st->list[st->list_slot[k] - 1];
        if (c->send_loc == s && c->recv_loc == r)
            return c;
    }
    if (TSYNC_PUSH(st->list, st->n_lists, st->cap_lists, m))
        return NULL;
    st->list_slot[k] = (uint32_t)st->n_lists;
    return &st->list[st->n_lists - 1];
}

/* A time field as strtoll reads it (leading blanks, a sign), NUL-terminated. */
static int parse_time(const struct csv_state *st, uint64_t line, const char *field, const char *what,
                      tsync_time *out)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(field, &end, 10);
    if (end == field || *end || errno)
        return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line %llu: %s \"%s\" is not a whole "
                           "number of nanoseconds", st->path, (unsigned long long)line, what, field);
    /* Within +-2^62 ns (146 years) the difference of any two times fits in int64,
     * which estimation and the CLC subtract without further checks. */
    if (v > CSV_TIME_MAX || v < -CSV_TIME_MAX)
        return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line %llu: %s %lld is beyond +-2^62 ns",
                           st->path, (unsigned long long)line, what, v);
    *out = v;
    return TSYNC_OK;
}

/* The time field f[0, n): digits with an optional minus, at most 18 of them (below
 * 2^62), read here; anything else by parse_time. f[n] may be overwritten. */
static int field_time(const struct csv_state *st, uint64_t line, char *f, size_t n,
                      const char *what, tsync_time *out)
{
    size_t i = n && f[0] == '-';
    int64_t v = 0;
    if (i < n && n - i <= 18) {
        for (; i + 8 <= n; i += 8) {
            uint64_t e;
            if (tsync__digits8(f + i, &e) < 8)
                break;
            v = v * 100000000 + (int64_t)e;
        }
        for (; i < n; i++) {
            unsigned d = (unsigned)(unsigned char)f[i] - '0';
            if (d > 9)
                break;
            v = v * 10 + d;
        }
        if (i == n) {
            *out = f[0] == '-' ? -v : v;
            return TSYNC_OK;
        }
    }
    f[n] = '\0';
    return parse_time(st, line, f, what, out);
}

static int add_end(struct csv_state *st, long loc, tsync_time time, uint64_t tag)
{
    struct csv_event e = { time, tag };
    if (TSYNC_PUSH(st->locs[loc].ev, st->locs[loc].n, st->locs[loc].cap, e))
        return tsync__oom(st->ctx);
    return TSYNC_OK;
}

#if defined(__GNUC__)
#define COLD __attribute__((noinline, cold))
#else
#define COLD
#endif

/* A message from ls to lr appended to its list when that list is not the one the
 * cache holds for the pair or is full: found or made, grown. */
static COLD int put_new(struct csv_state *st, long ls, long lr, tsync_time ts, tsync_time tr)
{
    unsigned k = ((unsigned)ls * 31 + (unsigned)lr) % PAIR_CACHE;
    struct tsync_message_list *m = list_of(st, (tsync_loc)ls, (tsync_loc)lr);
    if (!m || (m->n == m->cap && tsync__reserve((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v))))
        return tsync__oom(st->ctx);
    st->pairs[k].s = (tsync_loc)ls;
    st->pairs[k].r = (tsync_loc)lr;
    st->pairs[k].list = (uint32_t)(m - st->list) + 1;
    m->v[m->n].x = ts;
    m->v[m->n++].y = tr;
    return TSYNC_OK;
}

/* The message of a row: both ends, or with `lists` (st->lists, a constant where
 * inlined) a message of the list from ls to lr. Small enough to be inlined where
 * most rows come (fast_row): the list from the cache of pairs, with room; anything
 * else in put_new. st->rows counts the rows of ends only. */
static inline int put_row(struct csv_state *st, long ls, long lr, tsync_time ts, tsync_time tr,
                          int lists)
{
    int rc = TSYNC_OK;
    if (lists) {
        unsigned k = ((unsigned)ls * 31 + (unsigned)lr) % PAIR_CACHE;
        uint32_t i = st->pairs[k].list;
        if (i && st->pairs[k].s == (tsync_loc)ls && st->pairs[k].r == (tsync_loc)lr &&
            st->list[i - 1].n < st->list[i - 1].cap) {
            struct tsync_message_list *m = &st->list[i - 1];
            m->v[m->n].x = ts;
            m->v[m->n++].y = tr;
        } else if ((rc = put_new(st, ls, lr, ts, tr))) {
            return rc;
        }
    } else if (!(rc = add_end(st, ls, ts, st->rows * 2))) {
        rc = add_end(st, lr, tr, st->rows * 2 + 1);
        st->rows++;
    }
    return rc;
}

/* One row, line[0, len) without its end: both ends, or a message of a list. */
static int add_row(struct csv_state *st, uint64_t lineno, char *line, size_t len)
{
    char *end = line + len, *c1, *c2, *c3;
    tsync_time ts, tr;
    long ls, lr;
    int rc;
    if (!(c1 = memchr(line, ',', len)) || !(c2 = memchr(c1 + 1, ',', (size_t)(end - c1 - 1))) ||
        !(c3 = memchr(c2 + 1, ',', (size_t)(end - c2 - 1))) ||
        memchr(c3 + 1, ',', (size_t)(end - c3 - 1)))
        return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line %llu: expected 4 fields (%s)",
                           st->path, (unsigned long long)lineno, HEADER);
    if (c1 == line || c3 == c2 + 1)
        return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line %llu: a location name is empty",
                           st->path, (unsigned long long)lineno);
    if ((rc = field_time(st, lineno, c1 + 1, (size_t)(c2 - c1 - 1), "send_time_ns", &ts)) ||
        (rc = field_time(st, lineno, c3 + 1, (size_t)(end - c3 - 1), "recv_time_ns", &tr)))
        return rc;
    if ((ls = recent_location(st, line, (size_t)(c1 - line))) < 0 ||
        (lr = recent_location(st, c2 + 1, (size_t)(c3 - c2 - 1))) < 0)
        return tsync__oom(st->ctx);
    return put_row(st, ls, lr, ts, tr, st->lists);
}

/* One line, line[0, len) without its newline; nul: it holds a NUL byte. */
static int add_line(struct csv_state *st, uint64_t lineno, char *line, size_t len, int nul)
{
    if (nul) /* the rest of the line would be lost unseen */
        return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line %llu: contains a NUL byte (not "
                           "a text CSV)", st->path, (unsigned long long)lineno);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
        len--;
    if (lineno == 1) {
        if (len != sizeof(HEADER) - 1 || memcmp(line, HEADER, len) != 0)
            return tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line 1: expected the header \"%s\"",
                               st->path, HEADER);
        return TSYNC_OK;
    }
    return len ? add_row(st, lineno, line, len) : TSYNC_OK;
}

/* ---- rows in the common form ------------------------------------------------------ */

/* Whether the bytes x begin with known k's name and comma: a word at a time, the
 * second only for a name of 8 bytes or more. The pattern holds no zero byte, the
 * slack after the data only zeros. */
static inline int is_known(const struct known *k, const uint64_t *x)
{
    return k->len && !((x[0] ^ k->w[0]) & k->m[0]) && (k->len < 8 || !((x[1] ^ k->w[1]) & k->m[1]));
}

/* The location name at p, before end: its length up to the comma, and its location
 * when it is one of the row before's (else -1). 0 when the name is empty or holds a
 * NUL or a line end, or when no comma follows before end: add_line says why. */
static inline size_t scan_name(const struct csv_state *st, const char *p, const char *end,
                               long *loc)
{
    const struct known *c = NULL;
    uint64_t x[2];
    const char *q;
    memcpy(x, p, sizeof(x));
    /* Which of the two a row names is a coin toss: the first that matches, in the
     * fewest instructions. */
    if (is_known(&st->recent[0], x))
        c = &st->recent[0];
    else if (is_known(&st->recent[1], x))
        c = &st->recent[1];
    if (c) {
        *loc = c->loc;
        return c->len;
    }
    *loc = -1;
    for (q = p; q < end && *q != ','; q++)
        if (*q == '\n' || *q == '\0')
            return 0;
    return q < end ? (size_t)(q - p) : 0;
}

static const uint64_t POW10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                   100000000 };

/* 1 to 18 digits at f: their count, and in *v the number they make; 0 when there
 * are none or more. f[0, 24) must be readable. */
static inline size_t scan_digits(const char *f, uint64_t *v)
{
    uint64_t a, b, c;
    unsigned k = tsync__digits8(f, &a);
    if (k < 8) {
        *v = a;
        return k;
    }
    if ((k = tsync__digits8(f + 8, &b)) < 8) {
        *v = a * POW10[k] + b;
        return 8 + k;
    }
    if ((k = tsync__digits8(f + 16, &c)) <= 2) {
        *v = (a * POW10[8] + b) * POW10[k] + c;
        return 16 + k;
    }
    return 0;
}

/* A time at f as field_time reads it (an optional minus and 1 to 18 digits, so
 * within +-2^62): its length up to the first byte that is no digit; 0 when it is
 * not of that form. f[0, 25) must be readable. A minus, which times seldom have,
 * is a branch of its own. */
static inline size_t scan_time(const char *f, tsync_time *out)
{
    uint64_t v;
    size_t n;
    if (f[0] == '-') {
        n = scan_digits(f + 1, &v);
        *out = -(tsync_time)v;
        return n ? n + 1 : 0;
    }
    n = scan_digits(f, &v);
    *out = (tsync_time)v;
    return n;
}

/* The row at p (line 2 or later) when it is in the common form (see the top), added:
 * the length of its line with the line end in *len; *len = 0 leaves the line to
 * add_line. p < end, and SLACK zero bytes follow end. */
static inline int fast_row(struct csv_state *st, const char *p, const char *end, size_t *len,
                           int lists)
{
    const char *q = p, *name_s, *name_r;
    size_t ns, nr, k;
    tsync_time ts, tr;
    long ls, lr;
    *len = 0;
    /* Every step starts before end and reads at most 25 bytes: within the slack. */
    if (!(ns = scan_name(st, q, end, &ls)))
        return TSYNC_OK;
    name_s = q;
    q += ns + 1;
    if (!(k = scan_time(q, &ts)) || q[k] != ',')
        return TSYNC_OK;
    q += k + 1;
    if (!(nr = scan_name(st, q, end, &lr)))
        return TSYNC_OK;
    name_r = q;
    q += nr + 1;
    if (!(k = scan_time(q, &tr)))
        return TSYNC_OK;
    q += k;
    if (q[0] == '\n')
        q += 1;
    else if (q[0] == '\r' && q[1] == '\n' && q + 1 < end)
        q += 2;
    else
        return TSYNC_OK;
    if (q > end)
        return TSYNC_OK;
    if ((ls < 0 && (ls = recent_location(st, name_s, ns)) < 0) ||
        (lr < 0 && (lr = recent_location(st, name_r, nr)) < 0))
        return tsync__oom(st->ctx);
    *len = (size_t)(q - p);
    return put_row(st, ls, lr, ts, tr, lists);
}

/* Every whole line of [*p, end), and at the end of the file (eof) the last one
 * without its newline; *p is left at the first byte not read. Inlined for lists
 * (st->lists) and ends apart: the rows need not ask which. */
static inline int parse_rows(struct csv_state *st, char **p, char *end, int eof, uint64_t *lineno,
                             int lists)
{
    char *q = *p, *nl;
    uint64_t line = *lineno;    /* in a register, not stored at every row */
    int rc = TSYNC_OK;
    while (rc == TSYNC_OK && q < end) {
        size_t n = 0;
        /* Past the header, the rows in the common form one after the other. */
        if (line) {
            while ((rc = fast_row(st, q, end, &n, lists)) == TSYNC_OK && n) {
                line++;
                if ((q += n) >= end)
                    break;
            }
            if (rc || q >= end)
                break;
        }
        if (!(nl = memchr(q, '\n', (size_t)(end - q)))) {
            if (!eof)
                break;
            nl = end;
        }
        rc = add_line(st, ++line, q, (size_t)(nl - q), memchr(q, '\0', (size_t)(nl - q)) != NULL);
        q = nl < end ? nl + 1 : end;
    }
    *lineno = line;
    *p = q;
    return rc;
}

static int parse_lines(struct csv_state *st, char **p, char *end, int eof, uint64_t *lineno)
{
    return st->lists ? parse_rows(st, p, end, eof, lineno, 1)
                     : parse_rows(st, p, end, eof, lineno, 0);
}

/* Gives each list room for its share of a file of `size` bytes, `parsed` of them
 * read: its messages so far as many times over as the file is longer, and a
 * quarter more, at once (huge pages, tsync__alloc_array). Doubling to that size
 * copied each list into a new array at every step, 2 MiB and more (vec.h), and the
 * kernel cleared each array's pages: 400 MB for the 160 MB of lists of 10^7
 * messages. A list that outgrows its share doubles as before. 0, or -1 when out of
 * memory. */
static int presize_lists(struct csv_state *st, off_t parsed, off_t size)
{
    for (size_t i = 0; i < st->n_lists; i++) {
        struct tsync_message_list *m = &st->list[i];
        double share = (double)m->n * ((double)size / (double)parsed) * 1.25;
        struct tsync__pt *v;
        if (share <= (double)m->cap || share >= (double)(SIZE_MAX / 2 / sizeof(*v)))
            continue;
        if (!(v = tsync__alloc_array((size_t)share, sizeof(*v))))
            return -1;
        memcpy(v, m->v, m->n * sizeof(*v));
        free(m->v);
        m->v = v;
        m->cap = (size_t)share;
    }
    return 0;
}

/* The rows of a regular file from its start, mapped MAP_CHUNK bytes at a time and
 * parsed in place: the kernel copies nothing (its copy into the buffer of
 * read_rows took a fifth of the reading). A row in the common form reads at most
 * MAP_MARGIN bytes past the end it is given, so each chunk is parsed up to that
 * margin before its end; a line that a chunk cannot hold, the last chunk, and the
 * whole file where it cannot be mapped (a pipe, a device) are left to read_rows.
 * A file cut short by another program while it is mapped raises SIGBUS.
 * *at: the offset of the first byte not parsed. Fails as parse_lines does. */
static int map_rows(struct csv_state *st, int fd, uint64_t *lineno, off_t *at)
{
    long page = sysconf(_SC_PAGESIZE);
    struct stat sb;
    int rc = TSYNC_OK;
    *at = 0;
    if (page <= 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode))
        return TSYNC_OK;
    while (rc == TSYNC_OK && sb.st_size - *at > (off_t)MAP_CHUNK) {
        off_t from = *at - *at % page;      /* mappings begin on a page */
        char *map = mmap(NULL, MAP_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, from);
        char *start, *p;
        if (map == MAP_FAILED)
            break;
        /* Writable, and private: the general way writes a NUL after a field. */
        start = p = map + (*at - from);
        rc = parse_lines(st, &p, map + MAP_CHUNK - MAP_MARGIN, 0, lineno);
        munmap(map, MAP_CHUNK);
        if (p == start)
            break;
        if (*at == 0 && st->lists && rc == TSYNC_OK && presize_lists(st, p - start, sb.st_size))
            rc = tsync__oom(st->ctx);
        *at += p - start;
    }
    return rc;
}

/* Reads the file in large chunks, line by line, with no allocation per line: those
 * map_rows maps, then the rest through a buffer. */
static int read_rows(struct csv_state *st, int fd)
{
    size_t cap = READ_CHUNK, have = 0;
    char *buf = NULL, *nb; /* the slack also ends the last field with a NUL */
    uint64_t lineno = 0;
    int rc, eof = 0;
    off_t at;
    if ((rc = map_rows(st, fd, &lineno, &at)))
        return rc;
    if (at && lseek(fd, at, SEEK_SET) != at)
        return tsync__fail(st->ctx, TSYNC_EIO, "%s: %s", st->path, strerror(errno));
    if (!(buf = malloc(cap + SLACK)))
        return tsync__oom(st->ctx);
    while (rc == TSYNC_OK && !eof) {
        ssize_t got;
        char *p, *end;
        if (have == cap) {              /* a line longer than the buffer */
            if (!(nb = realloc(buf, 2 * cap + SLACK))) {
                rc = tsync__oom(st->ctx);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        got = read(fd, buf + have, cap - have);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = tsync__fail(st->ctx, TSYNC_EIO, "%s: %s", st->path, strerror(errno));
            break;
        }
        eof = got == 0;
        have += (size_t)got;
        memset(buf + have, 0, SLACK);
        p = buf;
        end = buf + have;
        rc = parse_lines(st, &p, end, eof, &lineno);
        have = (size_t)(end - p);
        memmove(buf, p, have);
    }
    free(buf);
    if (rc == TSYNC_OK && lineno == 0)
        rc = tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: the file is empty (expected the header \"%s\")",
                         st->path, HEADER);
    if (rc == TSYNC_OK && (st->lists ? st->n_lists : st->rows) == 0)
        rc = tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: no messages after the header (empty trace)",
                         st->path);
    return rc;
}

static int event_cmp(const void *pa, const void *pb)
{
    const struct csv_event *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return a->tag < b->tag ? -1 : a->tag > b->tag;
}

static int csv_probe(const unsigned char *head, size_t n)
{
    size_t k = sizeof(HEADER) - 1;
    return n >= k && memcmp(head, HEADER, k) == 0 &&
           (n == k || head[k] == '\n' || head[k] == '\r' || head[k] == ' ');
}

static void csv_close(void *r)
{
    struct csv_state *st = r;
    if (!st)
        return;
    for (size_t i = 0; i < st->n_locs; i++) {
        free(st->locs[i].name);
        free(st->locs[i].ev);
    }
    free(st->locs);
    free(st->slot);
    tsync__message_lists_free(st->list, st->n_lists);
    free(st->list_slot);
    free(st->path);
    free(st);
}

/* Reads every row (into ends, or with `lists` into message lists): the whole file
 * is checked before anything else is done. */
static int open_rows(void **out, const char *path, int lists, tsync_ctx *ctx)
{
    struct csv_state *st = calloc(1, sizeof(*st));
    int fd, rc;
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return tsync__oom(ctx);
    }
    st->ctx = ctx;
    st->lists = lists;
    st->mask = st->list_mask = 15;
    if ((fd = open(path, O_RDONLY)) < 0) {
        rc = tsync__fail(ctx, TSYNC_EIO, "%s: %s (give a CSV with the header %s)", path,
                         strerror(errno), HEADER);
        csv_close(st);
        return rc;
    }
    if (!(st->slot = calloc(st->mask + 1, sizeof(*st->slot))) ||
        !(st->list_slot = calloc(st->list_mask + 1, sizeof(*st->list_slot))))
        rc = tsync__oom(ctx);
    else
        rc = read_rows(st, fd);
    close(fd);
    if (rc) {
        csv_close(st);
        return rc;
    }
    *out = st;
    return TSYNC_OK;
}

static int csv_open(void **out, const char *path, tsync_ctx *ctx)
{
    return open_rows(out, path, 0, ctx);
}

static int csv_open_lists(void **out, const char *path, tsync_ctx *ctx)
{
    return open_rows(out, path, 1, ctx);
}

/* Nanosecond ticks; every location its own node, named as the location. */
static int csv_definitions(void *r, struct tsync_sink *sink)
{
    struct csv_state *st = r;
    int rc = TSYNC_OK;
    tsync__sink_clock(sink, 1000000000, 0, 0, 0);
    for (uint32_t i = 0; i < st->n_locs && rc == TSYNC_OK; i++) {
        uint32_t node;
        if (!(rc = tsync__sink_node(sink, st->locs[i].name, &node)))
            rc = tsync__sink_location(sink, i, st->locs[i].name, node);
    }
    return rc;
}

/* The extents of list m's blocks, and with them the extents x of its two ends:
 * each end's earliest and latest time in a loop without branches, once the rows are
 * read (13 instructions a message, where updating both ends' extents row by row
 * took 24). 0, or -1 when out of memory. */
static int add_extents(struct tsync_extent *x, struct tsync_message_list *m)
{
    struct tsync_extent *s = &x[m->send_loc], *r = &x[m->recv_loc];
    tsync_time slo = INT64_MAX, shi = INT64_MIN, rlo = INT64_MAX, rhi = INT64_MIN;
    size_t nb = (m->n + TSYNC__LIST_BLOCK - 1) / TSYNC__LIST_BLOCK;
    if (!(m->blocks = tsync__alloc_array(nb, sizeof(*m->blocks))))
        return -1;
    for (size_t b = 0; b < nb; b++) {
        size_t j1 = m->n - b * TSYNC__LIST_BLOCK < TSYNC__LIST_BLOCK ? m->n
                                                                     : (b + 1) * TSYNC__LIST_BLOCK;
        const struct tsync__pt *v = m->v;
        size_t j0 = b * TSYNC__LIST_BLOCK, j = j0 + 1;
        struct tsync__list_block k = { v[j0].x, v[j1 - 1].x, v[j0].y, v[j1 - 1].y };
        /* Both ends' times mostly come in order (a capture's): then the block's
         * first and last are its extents, found two messages at a time with one
         * branch; else each message is compared. */
        for (; j + 2 <= j1; j += 2)
            if ((v[j - 1].x > v[j].x) | (v[j].x > v[j + 1].x) | (v[j - 1].y > v[j].y) |
                (v[j].y > v[j + 1].y))
                break;
        if (j + 2 <= j1 || (j < j1 && (v[j - 1].x > v[j].x || v[j - 1].y > v[j].y)))
            for (j = j0; j < j1; j++) {
                k.x_lo = v[j].x < k.x_lo ? v[j].x : k.x_lo;
                k.x_hi = v[j].x > k.x_hi ? v[j].x : k.x_hi;
                k.y_lo = v[j].y < k.y_lo ? v[j].y : k.y_lo;
                k.y_hi = v[j].y > k.y_hi ? v[j].y : k.y_hi;
            }
        m->blocks[b] = k;
        slo = k.x_lo < slo ? k.x_lo : slo;
        shi = k.x_hi > shi ? k.x_hi : shi;
        rlo = k.y_lo < rlo ? k.y_lo : rlo;
        rhi = k.y_hi > rhi ? k.y_hi : rhi;
    }
    /* One after the other: a list may go from a location to itself. */
    s->first = slo < s->first ? slo : s->first;
    s->last = shi > s->last ? shi : s->last;
    s->events += m->n;
    r->first = rlo < r->first ? rlo : r->first;
    r->last = rhi > r->last ? rhi : r->last;
    r->events += m->n;
    return 0;
}

/* Each location's sends and receives in time order, each an end of its row; or
 * the message lists. */
static int csv_events(void *r, struct tsync_sink *sink)
{
    struct csv_state *st = r;
    int rc = TSYNC_OK;
    if (st->lists) {            /* the sink takes them, with the extents */
        struct tsync_extent *x = malloc((st->n_locs ? st->n_locs : 1) * sizeof(*x));
        for (size_t i = 0; x && i < st->n_locs; i++)
            x[i] = (struct tsync_extent){ INT64_MAX, INT64_MIN, 0 };
        for (size_t i = 0; x && i < st->n_lists; i++)
            if (add_extents(x, &st->list[i])) {
                free(x);
                x = NULL;
            }
        rc = tsync__sink_message_lists(sink, st->list, st->n_lists, x);
        st->list = NULL;
        st->n_lists = 0;
        return rc;
    }
    for (uint32_t i = 0; i < st->n_locs && rc == TSYNC_OK; i++) {
        struct csv_loc *cl = &st->locs[i];
        qsort(cl->ev, cl->n, sizeof(*cl->ev), event_cmp);
        rc = tsync__sink_begin_location(sink, i, cl->n);
        for (uint64_t k = 0; k < cl->n && rc == TSYNC_OK; k++) {
            int is_recv = (int)(cl->ev[k].tag & 1);
            if (!(rc = tsync__sink_event(sink, cl->ev[k].time,
                                         is_recv ? TSYNC_EV_RECV : TSYNC_EV_SEND)))
                rc = tsync__sink_end(sink, cl->ev[k].tag / 2, is_recv);
        }
    }
    return rc;
}

static int csv_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx)
{
    const char *base = strrchr(t->path, '/');
    char *final = NULL, *tmpdir = NULL;
    struct stat in_sb, out_sb;
    FILE *f = NULL;
    int rc;

    base = base ? base + 1 : t->path;
    if ((rc = tsync__outdir_make(outdir, ctx)))
        return rc;
    if (!(final = tsync__path_join(outdir, base))) {
        rc = tsync__oom(ctx);
        goto out;
    }
    if (stat(t->path, &in_sb) == 0 && stat(final, &out_sb) == 0 && in_sb.st_dev == out_sb.st_dev &&
        in_sb.st_ino == out_sb.st_ino) {
        rc = tsync__fail(ctx, TSYNC_EINVAL, "%s: the output would overwrite the input; choose "
                         "another -o", final);
        goto out;
    }
    if ((rc = tsync__outdir_begin(&tmpdir, outdir, ctx)) ||
        (rc = tsync__outdir_create_file(&f, tmpdir, base, final, ctx)))
        goto out;
    fprintf(f, "%s\n", HEADER);
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        fprintf(f, "%s,%lld,%s,%lld\n", t->locations[m->send_loc].name,
                (long long)tl->time[m->send_loc][m->send_idx], t->locations[m->recv_loc].name,
                (long long)tl->time[m->recv_loc][m->recv_idx]);
    }
    rc = tsync__outdir_finish_file(f, tmpdir, outdir, base, final, ctx);
    tmpdir = NULL;
out:
    tsync__outdir_end(tmpdir);
    free(final);
    return rc;
}

const struct tsync__format tsync__csv_format = {
    .name = "csv",
    .what = "a CSV of messages",
    .suffix = ".csv",
    .caps = TSYNC_CAP_MESSAGES | TSYNC_CAP_MESSAGE_LISTS,
    .shape = TSYNC_FORMAT_CSV,
    .probe = csv_probe,
    .open = csv_open,
    .open_lists = csv_open_lists,
    .definitions = csv_definitions,
    .events = csv_events,
    .close = csv_close,
    .write = csv_write,
};
