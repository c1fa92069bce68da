/* tsync_mkfixture.c - builds an OTF2 archive from a small text script, so that tests
 * can write their own inputs.
 *
 *   tsync_mkfixture SCRIPT OUT_ANCHOR        e.g. tsync_mkfixture basic.tsf out/traces.otf2
 *
 * Exit status: 0 success; 1 the script cannot be read or the archive cannot be
 * written (e.g. OUT_ANCHOR's archive exists already: remove it first); 2 usage
 * error or a bad script line, reported on stderr as "SCRIPT:LINE: what is wrong".
 *
 * Script format. `#` starts a comment, blank lines are ignored, fields are separated
 * by blanks, all numbers are decimal integers (times in ticks) unless noted. First
 * the layout, then the events:
 *
 *   resolution TICKS          ticks per second (default 1000000000)
 *   node NAME RANK...         a node and the world ranks on it; the ranks of all
 *                             node lines must be 0..N-1, each exactly once
 *   locations LOC...          optional: OTF2 location id of rank 0, 1, ... (default
 *                             the rank), e.g. EZTrace's 0 536870911 1073741822
 *   comm ID RANK...           optional extra communicator: OTF2 comm id (not 0,
 *                             which is MPI_COMM_WORLD) and its members as world
 *                             ranks, in order of their rank in the communicator
 *   location_names rank       optional: name locations "Rank N" instead of
 *                             "Master thread"
 *
 * Events, one per line, as `RANK TIME EVENT ARGS` (RANK is the world rank, COMM an
 * OTF2 comm id, PEER a rank in that communicator, REQ a request id):
 *
 *   R T enter NAME                        Enter region NAME (e.g. MPI_Send)
 *   R T leave NAME                        Leave region NAME
 *   R T send COMM PEER TAG LEN            MpiSend
 *   R T isend COMM PEER TAG LEN REQ       MpiIsend
 *   R T isend_complete REQ                MpiIsendComplete
 *   R T irecv_request REQ                 MpiIrecvRequest
 *   R T recv COMM PEER TAG LEN            MpiRecv
 *   R T irecv COMM PEER TAG LEN REQ       MpiIrecv
 *   R T coll_begin                        MpiCollectiveBegin
 *   R T coll_end OP COMM ROOT SENT RECV   MpiCollectiveEnd; OP is barrier, bcast,
 *                                         gather, gatherv, scatter, scatterv,
 *                                         allgather, allgatherv, alltoall,
 *                                         alltoallv, alltoallw, allreduce, reduce,
 *                                         reduce_scatter, reduce_scatter_block,
 *                                         scan or exscan; ROOT a number or `-`
 *   R T offset OFFSET STDDEV              ClockOffset of R's clock measured at T:
 *                                         global = local + OFFSET (signed);
 *                                         STDDEV a decimal number
 *
 * Events of different ranks may come in any order, and messages may arrive before
 * they were sent. The events of one rank must not go back in time (offsets aside):
 * OTF2 cannot store that, so it is a bad line here.
 *
 * The script is read twice: first checked as a whole, then written, so that a bad
 * line leaves no half-written archive behind.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "io/otf2_build.h"
#include "util/ctx.h"
#include "util/vec.h"

#define MAX_FIELDS 16
#define MAX_RANKS 10000000u
#define NO_NODE UINT32_MAX

struct comm_line {
    uint32_t id;
    uint32_t size;
    uint32_t *members;
    unsigned line;
};

struct script {
    const char *path;
    unsigned line;

    /* layout */
    uint64_t resolution;
    bool rank_names;
    char **nodes;
    size_t n_nodes, cap_nodes;
    uint32_t *rank_node;        /* NO_NODE where a rank is not placed yet */
    size_t n_ranks, cap_ranks;  /* n_ranks = largest rank listed + 1 */
    uint64_t *locations;
    size_t n_locations, cap_locations;
    unsigned locations_line;
    struct comm_line *comms;
    size_t n_comms, cap_comms;

    /* events */
    bool in_events;             /* an event line has been seen */
    struct tsync_otf2_builder *b; /* NULL while checking (first pass) */
    tsync_ctx *ctx;
    uint64_t *last_time;        /* per rank, to refuse time going back */
    bool *has_event;
};

/* Reports a bad line and exits with 2: a test tool may stop on the first error. */
static void bad(const struct script *s, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static void bad(const struct script *s, unsigned line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%u: ", s->path, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static void oom(void)
{
    fprintf(stderr, "tsync_mkfixture: out of memory\n");
    exit(1);
}

/* ---- numbers ----------------------------------------------------------- */

static uint64_t get_u64(const struct script *s, const char *tok, const char *what)
{
    char *end;
    unsigned long long v;
    if (*tok < '0' || *tok > '9')
        bad(s, s->line, "%s: '%s' is not a non-negative integer", what, tok);
    errno = 0;
    v = strtoull(tok, &end, 10);
    if (*end)
        bad(s, s->line, "%s: '%s' is not a non-negative integer", what, tok);
    if (errno == ERANGE)
        bad(s, s->line, "%s: %s is too large", what, tok);
    return (uint64_t)v;
}

static uint32_t get_u32(const struct script *s, const char *tok, const char *what)
{
    uint64_t v = get_u64(s, tok, what);
    if (v > UINT32_MAX)
        bad(s, s->line, "%s: %s is too large (at most %u)", what, tok, UINT32_MAX);
    return (uint32_t)v;
}

static int64_t get_i64(const struct script *s, const char *tok, const char *what)
{
    char *end;
    long long v;
    if (!((*tok >= '0' && *tok <= '9') || ((*tok == '-' || *tok == '+') && tok[1] >= '0' && tok[1] <= '9')))
        bad(s, s->line, "%s: '%s' is not an integer", what, tok);
    errno = 0;
    v = strtoll(tok, &end, 10);
    if (*end)
        bad(s, s->line, "%s: '%s' is not an integer", what, tok);
    if (errno == ERANGE)
        bad(s, s->line, "%s: %s is out of range", what, tok);
    return (int64_t)v;
}

static double get_double(const struct script *s, const char *tok, const char *what)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(tok, &end);
    if (end == tok || *end || errno == ERANGE || !isfinite(v))
        bad(s, s->line, "%s: '%s' is not a finite number", what, tok);
    return v;
}

/* ---- layout ------------------------------------------------------------ */

static const struct { const char *name; OTF2_CollectiveOp op; } ops[] = {
    { "barrier", OTF2_COLLECTIVE_OP_BARRIER },
    { "bcast", OTF2_COLLECTIVE_OP_BCAST },
    { "gather", OTF2_COLLECTIVE_OP_GATHER },
    { "gatherv", OTF2_COLLECTIVE_OP_GATHERV },
    { "scatter", OTF2_COLLECTIVE_OP_SCATTER },
    { "scatterv", OTF2_COLLECTIVE_OP_SCATTERV },
    { "allgather", OTF2_COLLECTIVE_OP_ALLGATHER },
    { "allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV },
    { "alltoall", OTF2_COLLECTIVE_OP_ALLTOALL },
    { "alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV },
    { "alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW },
    { "allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE },
    { "reduce", OTF2_COLLECTIVE_OP_REDUCE },
    { "reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER },
    { "reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK },
    { "scan", OTF2_COLLECTIVE_OP_SCAN },
    { "exscan", OTF2_COLLECTIVE_OP_EXSCAN },
};

static void layout_line(struct script *s, char **f, int n)
{
    if (s->in_events)
        bad(s, s->line, "'%s' must come before the first event", f[0]);

    if (strcmp(f[0], "resolution") == 0) {
        if (n != 2)
            bad(s, s->line, "usage: resolution TICKS_PER_SECOND");
        if ((s->resolution = get_u64(s, f[1], "resolution")) == 0)
            bad(s, s->line, "resolution must be > 0");
    } else if (strcmp(f[0], "node") == 0) {
        char *name;
        if (n < 3)
            bad(s, s->line, "usage: node NAME RANK...");
        if (s->n_nodes >= UINT32_MAX - 1)
            bad(s, s->line, "too many nodes");
        for (size_t i = 0; i < s->n_nodes; i++)
            if (strcmp(s->nodes[i], f[1]) == 0)
                bad(s, s->line, "node '%s' is listed twice", f[1]);
        if (!(name = strdup(f[1])) || TSYNC_PUSH(s->nodes, s->n_nodes, s->cap_nodes, name))
            oom();
        for (int i = 2; i < n; i++) {
            uint32_t r = get_u32(s, f[i], "rank");
            if (r >= MAX_RANKS)
                bad(s, s->line, "rank %u: at most %u ranks", r, MAX_RANKS);
            while (s->n_ranks <= r)
                if (TSYNC_PUSH(s->rank_node, s->n_ranks, s->cap_ranks, NO_NODE))
                    oom();
            if (s->rank_node[r] != NO_NODE)
                bad(s, s->line, "rank %u is already on node '%s'", r, s->nodes[s->rank_node[r]]);
            s->rank_node[r] = (uint32_t)(s->n_nodes - 1);
        }
    } else if (strcmp(f[0], "locations") == 0) {
        if (n < 2)
            bad(s, s->line, "usage: locations LOCATION_OF_RANK_0 LOCATION_OF_RANK_1 ...");
        if (s->locations_line)
            bad(s, s->line, "locations given twice (first on line %u)", s->locations_line);
        s->locations_line = s->line;
        for (int i = 1; i < n; i++) {
            uint64_t l = get_u64(s, f[i], "location id");
            if (l == OTF2_UNDEFINED_LOCATION)
                bad(s, s->line, "location id %s is OTF2's 'undefined'", f[i]);
            for (size_t q = 0; q < s->n_locations; q++)
                if (s->locations[q] == l)
                    bad(s, s->line, "location id %s is given to ranks %zu and %d", f[i], q, i - 1);
            if (TSYNC_PUSH(s->locations, s->n_locations, s->cap_locations, l))
                oom();
        }
    } else if (strcmp(f[0], "comm") == 0) {
        struct comm_line c = { 0, 0, NULL, s->line };
        if (n < 3)
            bad(s, s->line, "usage: comm ID RANK...");
        c.id = get_u32(s, f[1], "comm id");
        if (c.id == 0 || c.id == OTF2_UNDEFINED_COMM)
            bad(s, s->line, "comm id %u is reserved (0 is MPI_COMM_WORLD)", c.id);
        for (size_t k = 0; k < s->n_comms; k++)
            if (s->comms[k].id == c.id)
                bad(s, s->line, "comm %u is already defined on line %u", c.id, s->comms[k].line);
        c.size = (uint32_t)(n - 2);
        if (!(c.members = malloc(c.size * sizeof(*c.members))))
            oom();
        for (int i = 2; i < n; i++) {
            c.members[i - 2] = get_u32(s, f[i], "member rank");
            for (int q = 2; q < i; q++)
                if (c.members[q - 2] == c.members[i - 2])
                    bad(s, s->line, "rank %u is a member twice", c.members[i - 2]);
        }
        if (TSYNC_PUSH(s->comms, s->n_comms, s->cap_comms, c))
            oom();
    } else if (strcmp(f[0], "location_names") == 0) {
        if (n != 2 || (strcmp(f[1], "rank") != 0 && strcmp(f[1], "master") != 0))
            bad(s, s->line, "usage: location_names rank|master");
        s->rank_names = strcmp(f[1], "rank") == 0;
    } else {
        bad(s, s->line, "unknown directive '%s' (expected resolution, node, locations, comm, "
            "location_names, or an event line 'RANK TIME EVENT ...')", f[0]);
    }
}

/* The layout is complete: check it as a whole. */
static void check_layout(struct script *s)
{
    if (s->n_nodes == 0)
        bad(s, s->line, "no 'node' line before the first event");
    for (size_t r = 0; r < s->n_ranks; r++)
        if (s->rank_node[r] == NO_NODE)
            bad(s, s->line, "rank %zu is on no node (the node lines must place ranks 0..%zu)", r,
                s->n_ranks - 1);
    if (s->locations_line && s->n_locations != s->n_ranks)
        bad(s, s->locations_line, "%zu location ids for %zu ranks", s->n_locations, s->n_ranks);
    for (size_t k = 0; k < s->n_comms; k++)
        for (uint32_t m = 0; m < s->comms[k].size; m++)
            if (s->comms[k].members[m] >= s->n_ranks)
                bad(s, s->comms[k].line, "rank %u does not exist (%zu ranks)", s->comms[k].members[m],
                    s->n_ranks);
    if (!(s->last_time = calloc(s->n_ranks, sizeof(*s->last_time))) ||
        !(s->has_event = calloc(s->n_ranks, sizeof(*s->has_event))))
        oom();
}

/* Creates the archive. */
static void open_archive(struct script *s, const char *anchor)
{
    struct tsync_otf2_build_comm *comms = NULL;
    struct tsync_otf2_build_layout l;
    int rc;

    if (s->n_comms && !(comms = calloc(s->n_comms, sizeof(*comms))))
        oom();
    for (size_t k = 0; k < s->n_comms; k++) {
        comms[k].id = s->comms[k].id;
        comms[k].size = s->comms[k].size;
        comms[k].members = s->comms[k].members;
    }
    memset(&l, 0, sizeof(l));
    l.anchor = anchor;
    l.timer_resolution = s->resolution;
    l.n_nodes = (uint32_t)s->n_nodes;
    l.nodes = (const char *const *)s->nodes;
    l.n_ranks = (uint32_t)s->n_ranks;
    l.rank_node = s->rank_node;
    l.rank_location = s->locations_line ? s->locations : NULL;
    l.n_comms = (uint32_t)s->n_comms;
    l.comms = comms;
    l.rank_names = s->rank_names;
    rc = tsync__otf2_build_open(&s->b, &l, s->ctx);
    free(comms);
    if (rc) {
        fprintf(stderr, "tsync_mkfixture: %s\n", tsync_ctx_error(s->ctx));
        exit(rc == TSYNC_EINVAL ? 2 : 1);
    }
}

/* ---- events ------------------------------------------------------------ */

static void need(const struct script *s, int n, int want, const char *usage)
{
    if (n != want)
        bad(s, s->line, "usage: RANK TIME %s", usage);
}

static void event_line(struct script *s, char **f, int n)
{
    uint32_t r, comm = 0, peer = 0, tag = 0, root = 0;
    uint64_t t, len = 0, req = 0, sent = 0, received = 0;
    int64_t offset = 0;
    double stddev = 0;
    size_t op = 0;
    const char *ev;
    int rc = TSYNC_OK;

    /* Check everything first; write only in the second pass (s->b set). */
    if (n < 3)
        bad(s, s->line, "usage: RANK TIME EVENT [ARGS]");
    r = get_u32(s, f[0], "rank");
    t = get_u64(s, f[1], "time");
    ev = f[2];
    if (r >= s->n_ranks)
        bad(s, s->line, "rank %u does not exist (%zu ranks)", r, s->n_ranks);

    if (strcmp(ev, "offset") == 0) {
        need(s, n, 5, "offset OFFSET STDDEV");
        offset = get_i64(s, f[3], "offset");
        stddev = get_double(s, f[4], "stddev");
        if (s->b)
            rc = tsync__otf2_build_clock_offset(s->b, r, t, offset, stddev);
        goto done; /* a definition, not an event: no order to keep */
    }

    if (s->has_event[r] && t < s->last_time[r])
        bad(s, s->line, "rank %u: time %llu is before the rank's previous event at %llu; "
            "OTF2 cannot store a rank's events out of order", r, (unsigned long long)t,
            (unsigned long long)s->last_time[r]);
    s->has_event[r] = true;
    s->last_time[r] = t;

    if (strcmp(ev, "enter") == 0 || strcmp(ev, "leave") == 0) {
        need(s, n, 4, strcmp(ev, "enter") == 0 ? "enter REGION" : "leave REGION");
        if (s->b)
            rc = strcmp(ev, "enter") == 0 ? tsync__otf2_build_enter(s->b, r, t, f[3])
                                          : tsync__otf2_build_leave(s->b, r, t, f[3]);
    } else if (strcmp(ev, "send") == 0 || strcmp(ev, "recv") == 0) {
        need(s, n, 7, strcmp(ev, "send") == 0 ? "send COMM PEER TAG LEN" : "recv COMM PEER TAG LEN");
        comm = get_u32(s, f[3], "comm");
        peer = get_u32(s, f[4], "peer");
        tag = get_u32(s, f[5], "tag");
        len = get_u64(s, f[6], "length");
        if (s->b)
            rc = strcmp(ev, "send") == 0 ? tsync__otf2_build_send(s->b, r, t, comm, peer, tag, len)
                                         : tsync__otf2_build_recv(s->b, r, t, comm, peer, tag, len);
    } else if (strcmp(ev, "isend") == 0 || strcmp(ev, "irecv") == 0) {
        need(s, n, 8, strcmp(ev, "isend") == 0 ? "isend COMM PEER TAG LEN REQ"
                                               : "irecv COMM PEER TAG LEN REQ");
        comm = get_u32(s, f[3], "comm");
        peer = get_u32(s, f[4], "peer");
        tag = get_u32(s, f[5], "tag");
        len = get_u64(s, f[6], "length");
        req = get_u64(s, f[7], "request");
        if (s->b)
            rc = strcmp(ev, "isend") == 0
                     ? tsync__otf2_build_isend(s->b, r, t, comm, peer, tag, len, req)
                     : tsync__otf2_build_irecv(s->b, r, t, comm, peer, tag, len, req);
    } else if (strcmp(ev, "isend_complete") == 0 || strcmp(ev, "irecv_request") == 0) {
        need(s, n, 4, strcmp(ev, "isend_complete") == 0 ? "isend_complete REQ" : "irecv_request REQ");
        req = get_u64(s, f[3], "request");
        if (s->b)
            rc = strcmp(ev, "isend_complete") == 0
                     ? tsync__otf2_build_isend_complete(s->b, r, t, req)
                     : tsync__otf2_build_irecv_request(s->b, r, t, req);
    } else if (strcmp(ev, "coll_begin") == 0) {
        need(s, n, 3, "coll_begin");
        if (s->b)
            rc = tsync__otf2_build_coll_begin(s->b, r, t);
    } else if (strcmp(ev, "coll_end") == 0) {
        need(s, n, 8, "coll_end OP COMM ROOT SENT RECEIVED");
        for (op = 0; op < sizeof(ops) / sizeof(ops[0]); op++)
            if (strcmp(f[3], ops[op].name) == 0)
                break;
        if (op == sizeof(ops) / sizeof(ops[0]))
            bad(s, s->line, "unknown collective '%s' (barrier, bcast, gather, gatherv, scatter, "
                "scatterv, allgather, allgatherv, alltoall, alltoallv, alltoallw, allreduce, "
                "reduce, reduce_scatter, reduce_scatter_block, scan, exscan)", f[3]);
        comm = get_u32(s, f[4], "comm");
        root = strcmp(f[5], "-") == 0 ? OTF2_UNDEFINED_UINT32 : get_u32(s, f[5], "root");
        sent = get_u64(s, f[6], "bytes sent");
        received = get_u64(s, f[7], "bytes received");
        if (s->b)
            rc = tsync__otf2_build_coll_end(s->b, r, t, ops[op].op, comm, root, sent, received);
    } else {
        bad(s, s->line, "unknown event '%s' (enter, leave, send, isend, isend_complete, "
            "irecv_request, recv, irecv, coll_begin, coll_end, offset)", ev);
    }
done:
    if (rc) {
        fprintf(stderr, "%s:%u: %s\n", s->path, s->line, tsync_ctx_error(s->ctx));
        exit(rc == TSYNC_EINVAL ? 2 : 1);
    }
}

/* Splits line into blank-separated fields, dropping a `#` comment. */
static int split(const struct script *s, char *line, char **f)
{
    int n = 0;
    char *p = strchr(line, '#');
    if (p)
        *p = '\0';
    for (p = strtok(line, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
        if (n == MAX_FIELDS)
            bad(s, s->line, "more than %d fields", MAX_FIELDS);
        f[n++] = p;
    }
    return n;
}

/* One pass over the script: the first (s->b NULL) reads the layout and checks
 * every line, the second writes the events. */
static void pass(struct script *s, FILE *in)
{
    char *line = NULL, *f[MAX_FIELDS];
    size_t cap = 0;

    s->line = 0;
    s->in_events = false;
    if (s->has_event)
        memset(s->has_event, 0, s->n_ranks * sizeof(*s->has_event));
    while (getline(&line, &cap, in) != -1) {
        int n;
        s->line++;
        if ((n = split(s, line, f)) == 0)
            continue;
        if (f[0][0] >= '0' && f[0][0] <= '9') {
            if (!s->in_events && !s->b)
                check_layout(s);
            s->in_events = true;
            event_line(s, f, n);
        } else if (!s->b) {
            layout_line(s, f, n);
        }
    }
    free(line);
    if (ferror(in)) {
        fprintf(stderr, "tsync_mkfixture: %s: %s\n", s->path, strerror(errno));
        exit(1);
    }
    if (!s->in_events && !s->b)
        check_layout(s); /* a layout without events is an archive too */
}

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    struct script s;
    FILE *in;

    if (argc != 3) {
        fprintf(stderr, "usage: tsync_mkfixture SCRIPT OUT_ANCHOR   (e.g. out/traces.otf2)\n");
        return 2;
    }
    memset(&s, 0, sizeof(s));
    s.path = argv[1];
    s.resolution = 1000000000;
    if (!(in = fopen(s.path, "r"))) {
        fprintf(stderr, "tsync_mkfixture: %s: %s\n", s.path, strerror(errno));
        return 1;
    }
    if (tsync_ctx_new(&s.ctx))
        oom();
    pass(&s, in);
    open_archive(&s, argv[2]);
    rewind(in);
    pass(&s, in);
    fclose(in);
    if (tsync__otf2_build_close(s.b)) {
        fprintf(stderr, "tsync_mkfixture: %s\n", tsync_ctx_error(s.ctx));
        return 1;
    }

    for (size_t i = 0; i < s.n_nodes; i++)
        free(s.nodes[i]);
    free(s.nodes);
    free(s.rank_node);
    free(s.locations);
    for (size_t k = 0; k < s.n_comms; k++)
        free(s.comms[k].members);
    free(s.comms);
    free(s.last_time);
    free(s.has_event);
    tsync_ctx_free(s.ctx);
    return 0;
}
