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
 * each row is a message with both its ends (match/ends.c pairs them by row).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/format.h"
#include "util/ctx.h"
#include "util/fs.h"
#include "util/outdir.h"
#include "util/str.h"
#include "util/vec.h"

#define CSV_TIME_MAX (1ll << 62)

static const char HEADER[] = "send_location,send_time_ns,recv_location,recv_time_ns";

/* One end of a message, before it is placed in its location's time order. */
struct csv_event {
    tsync_time time;
    uint64_t tag;  /* row * 2 + (1 for the receive) */
};

struct csv_loc {
    char *name;
    struct csv_event *ev;
    size_t n, cap;
};

struct csv_state {
    char *path;
    tsync_ctx *ctx;
    struct csv_loc *locs;
    size_t n_locs, cap_locs;
    uint32_t *slot;       /* name hash table: location index + 1, 0 = empty */
    size_t mask;
    uint64_t rows;
};

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Doubles the name table and puts every location back. */
static int rehash(struct csv_state *st)
{
    size_t size = (st->mask + 1) * 2;
    uint32_t *slot = calloc(size, sizeof(*slot));
    if (!slot)
        return -1;
    for (size_t i = 0; i < st->n_locs; i++) {
        size_t k = name_hash(st->locs[i].name) & (size - 1);
        while (slot[k])
            k = (k + 1) & (size - 1);
        slot[k] = (uint32_t)i + 1;
    }
    free(st->slot);
    st->slot = slot;
    st->mask = size - 1;
    return 0;
}

/* The index of the location called `name`, added if new; -1 when out of memory. */
static long location_of(struct csv_state *st, const char *name)
{
    size_t k;
    struct csv_loc l = { 0 };
    if (2 * (st->n_locs + 1) > st->mask + 1 && rehash(st))
        return -1;
    for (k = name_hash(name) & st->mask; st->slot[k]; k = (k + 1) & st->mask)
        if (strcmp(st->locs[st->slot[k] - 1].name, name) == 0)
            return (long)st->slot[k] - 1;
    if (!(l.name = strdup(name)) || TSYNC_PUSH(st->locs, st->n_locs, st->cap_locs, l)) {
        free(l.name);
        return -1;
    }
    st->slot[k] = (uint32_t)st->n_locs;
    return (long)st->n_locs - 1;
}

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

/* Splits a line into exactly four fields (in place). */
static int split4(char *line, char **f)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p; p++) {
        if (*p == ',') {
            if (n == 4)
                return -1;
            *p = '\0';
            f[n++] = p + 1;
        }
    }
    return n == 4 ? 0 : -1;
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}

static int add_end(struct csv_state *st, const char *name, tsync_time time, uint64_t tag)
{
    long loc = location_of(st, name);
    struct csv_event e = { time, tag };
    if (loc < 0 || TSYNC_PUSH(st->locs[loc].ev, st->locs[loc].n, st->locs[loc].cap, e))
        return tsync__oom(st->ctx);
    return TSYNC_OK;
}

static int read_rows(struct csv_state *st, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    uint64_t lineno = 0;
    ssize_t len;
    int rc = TSYNC_OK;
    while (rc == TSYNC_OK && (len = getline(&line, &cap, f)) >= 0) {
        char *fld[4];
        tsync_time ts = 0, tr = 0;
        lineno++;
        if (strlen(line) != (size_t)len) { /* the rest of the line would be lost unseen */
            rc = tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line %llu: contains a NUL byte (not "
                             "a text CSV)", st->path, (unsigned long long)lineno);
            break;
        }
        chomp(line);
        if (lineno == 1) {
            if (strcmp(line, HEADER) != 0)
                rc = tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line 1: expected the header \"%s\"",
                                 st->path, HEADER);
            continue;
        }
        if (!*line)
            continue;
        if (split4(line, fld))
            rc = tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line %llu: expected 4 fields (%s)",
                             st->path, (unsigned long long)lineno, HEADER);
        else if (!*fld[0] || !*fld[2])
            rc = tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: line %llu: a location name is empty",
                             st->path, (unsigned long long)lineno);
        else if (!(rc = parse_time(st, lineno, fld[1], "send_time_ns", &ts)) &&
                 !(rc = parse_time(st, lineno, fld[3], "recv_time_ns", &tr)) &&
                 !(rc = add_end(st, fld[0], ts, st->rows * 2)))
            rc = add_end(st, fld[2], tr, st->rows * 2 + 1);
        st->rows++;
    }
    if (rc == TSYNC_OK && ferror(f))
        rc = tsync__fail(st->ctx, TSYNC_EIO, "%s: %s", st->path, strerror(errno));
    if (rc == TSYNC_OK && lineno == 0)
        rc = tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: the file is empty (expected the header \"%s\")",
                         st->path, HEADER);
    if (rc == TSYNC_OK && st->rows == 0)
        rc = tsync__fail(st->ctx, TSYNC_EFORMAT, "%s: no messages after the header (empty trace)",
                         st->path);
    free(line);
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
    free(st->path);
    free(st);
}

/* Reads every row: the whole file is checked before anything else is done. */
static int csv_open(void **out, const char *path, tsync_ctx *ctx)
{
    struct csv_state *st = calloc(1, sizeof(*st));
    FILE *f;
    int rc;
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return tsync__oom(ctx);
    }
    st->ctx = ctx;
    st->mask = 15;
    if (!(f = fopen(path, "r"))) {
        rc = tsync__fail(ctx, TSYNC_EIO, "%s: %s (give a CSV with the header %s)", path,
                         strerror(errno), HEADER);
        csv_close(st);
        return rc;
    }
    if (!(st->slot = calloc(st->mask + 1, sizeof(*st->slot))))
        rc = tsync__oom(ctx);
    else
        rc = read_rows(st, f);
    fclose(f);
    if (rc) {
        csv_close(st);
        return rc;
    }
    *out = st;
    return TSYNC_OK;
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

/* Each location's sends and receives in time order, each an end of its row. */
static int csv_events(void *r, struct tsync_sink *sink)
{
    struct csv_state *st = r;
    int rc = TSYNC_OK;
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
    if ((rc = tsync__mkdirs(outdir, ctx)))
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
    .caps = TSYNC_CAP_MESSAGES,
    .shape = TSYNC_FORMAT_CSV,
    .probe = csv_probe,
    .open = csv_open,
    .definitions = csv_definitions,
    .events = csv_events,
    .close = csv_close,
    .write = csv_write,
};
