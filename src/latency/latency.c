/* latency.c - the minimum message latency mu of a pair of nodes (latency.h): the
 * latency file, and the lookup of a pair (the seed's implementation uses one value
 * within a node and one between nodes; the file gives a pair its own).
 *
 * File format, one pair per line, both directions:
 *     # comment
 *     node0 node1 2.5us
 *     node0 node0 0.4us        (within node0)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency/latency.h"
#include "trace/trace.h"
#include "util/units.h"
#include "util/ctx.h"
#include "util/vec.h"

static int pair_cmp(const void *pa, const void *pb)
{
    const struct tsync__latency_pair *a = pa, *b = pb;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return a->to < b->to ? -1 : a->to > b->to;
}

static int node_index(const struct tsync_trace *t, const char *name, uint32_t *out)
{
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        if (t->nodes[i].name && strcmp(t->nodes[i].name, name) == 0) {
            *out = i;
            return 0;
        }
    }
    return -1;
}

/* "2.5us" -> seconds; -1 when malformed. */
static double parse_seconds(const char *s)
{
    static const struct { const char *unit; double scale; } units[] = {
        { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1.0 }
    };
    char *end;
    double v;
    if (!((*s >= '0' && *s <= '9') || *s == '.'))
        return -1;
    v = strtod(s, &end);
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
        if (end != s && strcmp(end, units[u].unit) == 0 && isfinite(v))
            return v * units[u].scale;
    return -1;
}

/* One non-comment line: "A B LATENCY". Adds both directions. */
static int parse_line(struct tsync__latency *lat, size_t *cap, const struct tsync_trace *t,
                      char *line, const char *path, unsigned lineno, double max_ticks,
                      tsync_ctx *ctx)
{
    char *save = NULL, *f[4];
    int nf = 0;
    uint32_t a, b;
    int64_t mu;
    for (char *tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (nf == 4)
            break;
        f[nf++] = tok;
    }
    if (nf == 0)
        return TSYNC_OK;
    if (nf != 3)
        return tsync__fail(ctx, TSYNC_EFORMAT, "%s:%u: expected NODE_A NODE_B LATENCY "
                           "(e.g. node0 node1 2.5us)", path, lineno);
    if (node_index(t, f[0], &a) || node_index(t, f[1], &b))
        return tsync__fail(ctx, TSYNC_EINVAL, "%s:%u: node \"%s\" is not in the trace %s", path,
                           lineno, node_index(t, f[0], &a) ? f[0] : f[1], t->path);
    if (tsync__seconds_to_ticks(parse_seconds(f[2]), t->timer_resolution, max_ticks, &mu))
        return tsync__fail(ctx, TSYNC_EFORMAT, "%s:%u: \"%s\" is not a latency (a number >= 0 "
                           "with a unit ns, us, ms or s)", path, lineno, f[2]);
    for (int dir = 0; dir < (a == b ? 1 : 2); dir++) {
        struct tsync__latency_pair p = { dir ? b : a, dir ? a : b, mu };
        if (TSYNC_PUSH(lat->pairs, lat->n, *cap, p))
            return tsync__oom(ctx);
    }
    return TSYNC_OK;
}

static int read_file(struct tsync__latency *lat, const struct tsync_trace *t, const char *path,
                     double max_ticks, tsync_ctx *ctx)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t len = 0, cap = 0;
    unsigned lineno = 0;
    int rc = TSYNC_OK;
    if (!f)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
    while (rc == TSYNC_OK && getline(&line, &len, f) != -1) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        rc = parse_line(lat, &cap, t, line, path, ++lineno, max_ticks, ctx);
    }
    if (rc == TSYNC_OK && ferror(f))
        rc = tsync__fail(ctx, TSYNC_EIO, "%s: read error", path);
    free(line);
    fclose(f);
    if (rc)
        return rc;
    if (lat->n)
        qsort(lat->pairs, lat->n, sizeof(*lat->pairs), pair_cmp);
    for (size_t i = 1; i < lat->n; i++)
        if (lat->pairs[i].from == lat->pairs[i - 1].from && lat->pairs[i].to == lat->pairs[i - 1].to)
            return tsync__fail(ctx, TSYNC_EFORMAT, "%s: the pair %s %s is given twice", path,
                               t->nodes[lat->pairs[i].from].name, t->nodes[lat->pairs[i].to].name);
    return TSYNC_OK;
}

int tsync__latency_init(struct tsync__latency *lat, const struct tsync_trace *t, double intra_s,
                        double inter_s, const char *file, double max_ticks, const char *stage,
                        tsync_ctx *ctx)
{
    int bad_intra = tsync__seconds_to_ticks(intra_s, t->timer_resolution, max_ticks, &lat->intra);
    int rc = TSYNC_OK;
    lat->n = 0;
    lat->pairs = NULL;
    if (bad_intra || tsync__seconds_to_ticks(inter_s, t->timer_resolution, max_ticks, &lat->inter))
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: %s-node minimum latency %g s is not a usable "
                           "latency", stage, bad_intra ? "intra" : "inter",
                           bad_intra ? intra_s : inter_s);
    if (file && (rc = read_file(lat, t, file, max_ticks, ctx)))
        tsync__latency_free(lat);
    lat->max = lat->intra > lat->inter ? lat->intra : lat->inter;
    for (size_t i = 0; i < lat->n; i++)
        if (lat->pairs[i].mu > lat->max)
            lat->max = lat->pairs[i].mu;
    return rc;
}

void tsync__latency_free(struct tsync__latency *lat)
{
    free(lat->pairs);
    lat->pairs = NULL;
    lat->n = 0;
}

int64_t tsync__latency_lookup(const struct tsync__latency *lat, uint32_t from, uint32_t to)
{
    size_t lo = 0, hi = lat->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct tsync__latency_pair *p = &lat->pairs[mid];
        if (p->from == from && p->to == to)
            return p->mu;
        if (p->from < from || (p->from == from && p->to < to))
            lo = mid + 1;
        else
            hi = mid;
    }
    return from == to ? lat->intra : lat->inter;
}
