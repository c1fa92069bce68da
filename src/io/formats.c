/* formats.c - reading a trace, the same steps for every format: the registry picks
 * the reader by the file's content (io/registry.c), the reader emits definitions
 * into a sink, the clock domains are formed (by rule, or from the domain file), the
 * reader emits the events, and the match stage (match/) pairs the records. Also the
 * open options every reader shares, and the writer a trace goes back through. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/format.h"
#include "io/formats.h"
#include "util/ctx.h"

/* The rule and the domain file of `opts` (NULL: the defaults), checked. */
static int domain_opts(const tsync_open_opts *opts, enum tsync_domain_rule *rule,
                       const char **file, double *split_s, tsync_ctx *ctx)
{
    static const tsync_open_opts defaults = TSYNC_OPEN_OPTS_INIT;
    *rule = TSYNC_DOMAIN_NODE;        /* without options: by node, nothing split */
    *file = NULL;
    *split_s = defaults.split_reversal_s;
    if (!opts)
        return TSYNC_OK;
    /* Version 1 options end before domain_file. */
    if (opts->version == 0 || opts->version > TSYNC_OPEN_OPTS_VERSION)
        return tsync__fail(ctx, TSYNC_EINVAL, "open options: version %u, expected 1 to %u "
                           "(initialize with TSYNC_OPEN_OPTS_INIT)", opts->version,
                           TSYNC_OPEN_OPTS_VERSION);
    *rule = opts->domains;
    *file = opts->version >= 2 ? opts->domain_file : NULL;
    if (opts->version >= 3)
        *split_s = opts->split_reversal_s;
    if ((unsigned)*rule > TSYNC_DOMAIN_AUTO)
        return tsync__fail(ctx, TSYNC_EINVAL, "open options: unknown clock domain rule %d",
                           (int)*rule);
    if (*rule == TSYNC_DOMAIN_AUTO && !(*split_s >= 0 && *split_s < 1e6))
        return tsync__fail(ctx, TSYNC_EINVAL, "open options: split limit %g s is out of range",
                           *split_s);
    if ((*rule == TSYNC_DOMAIN_FILE) != (*file != NULL))
        return tsync__fail(ctx, TSYNC_EINVAL, "open options: %s", *file
                           ? "a domain file is given, but the rule is not TSYNC_DOMAIN_FILE"
                           : "TSYNC_DOMAIN_FILE without a domain file");
    return TSYNC_OK;
}

char *tsync__default_host(const char *path)
{
    const char *base = strrchr(path, '/'), *dot;
    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    return strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

/* Whether "FILE=HOST" names the file at `path` (FILE as given, or its file name). */
static int names_file(const char *name, const char *path)
{
    const char *eq = strrchr(name, '='), *base = strrchr(path, '/');
    size_t k = eq ? (size_t)(eq - name) : 0;
    base = base ? base + 1 : path;
    return eq && ((strlen(path) == k && strncmp(name, path, k) == 0) ||
                  (strlen(base) == k && strncmp(name, base, k) == 0));
}

/* Opens a set of files (`path` and the options' files, all of format `fmt`), each
 * on the host a name gives it or its default host. */
static int open_set(void **reader, const struct tsync__format *fmt, const char *path,
                    const tsync_open_opts *opts, tsync_ctx *ctx)
{
    int v4 = opts && opts->version >= 4;
    size_t n = 1 + (v4 && opts->files ? opts->n_files : 0), n_names = v4 && opts->names ? opts->n_names : 0;
    const char **paths = calloc(n, sizeof(*paths));
    char **hosts = calloc(n, sizeof(*hosts));
    int rc = TSYNC_OK;
    if (!paths || !hosts) {
        rc = tsync__oom(ctx);
        goto out;
    }
    for (size_t i = 0; i < n && rc == TSYNC_OK; i++) {
        const struct tsync__format *f;
        paths[i] = i ? opts->files[i - 1] : path;
        if (i && (rc = tsync__format_for(&f, paths[i], ctx)) == TSYNC_OK && f != fmt)
            rc = tsync__fail(ctx, TSYNC_EINVAL, "%s is %s, %s is %s: only files of one format "
                             "that reads sets of files make one trace", path, fmt->what,
                             paths[i], f->what);
        for (size_t k = 0; k < n_names && rc == TSYNC_OK && !hosts[i]; k++)
            if (names_file(opts->names[k], paths[i]) && !(hosts[i] = strdup(strrchr(opts->names[k], '=') + 1)))
                rc = tsync__oom(ctx);
        if (rc == TSYNC_OK && !hosts[i] && !(hosts[i] = tsync__default_host(paths[i])))
            rc = tsync__oom(ctx);
    }
    for (size_t k = 0; k < n_names && rc == TSYNC_OK; k++) {
        size_t i = 0;
        while (i < n && !names_file(opts->names[k], paths[i]))
            i++;
        if (i == n || !strrchr(opts->names[k], '=')[1])
            rc = tsync__fail(ctx, TSYNC_EINVAL, "name \"%s\": expected FILE=HOST with FILE one "
                             "of the inputs", opts->names[k]);
    }
    if (rc == TSYNC_OK)
        rc = fmt->open_set(reader, paths, (const char *const *)hosts, n, ctx);
out:
    for (size_t i = 0; hosts && i < n; i++)
        free(hosts[i]);
    free(hosts);
    free(paths);
    return rc;
}

/* The reader of the trace at `path` (with the options' files, a set). */
static int open_reader(void **reader, const struct tsync__format **fmt, const char *path,
                       const tsync_open_opts *opts, int lists, tsync_ctx *ctx)
{
    int rc = tsync__format_for(fmt, path, ctx);
    if (rc)
        return rc;
    if ((*fmt)->caps & TSYNC_CAP_FILE_SET)
        return open_set(reader, *fmt, path, opts, ctx);
    if (opts && opts->version >= 4 && opts->n_files)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: %s is a trace of its own, not one of a set "
                           "of files", path, (*fmt)->what);
    if (lists && (*fmt)->open_lists)
        return (*fmt)->open_lists(reader, path, ctx);
    return (*fmt)->open(reader, path, ctx);
}

int tsync_trace_is_file_set(const char *path)
{
    const struct tsync__format *fmt;
    return tsync__format_for(&fmt, path, NULL) == TSYNC_OK && (fmt->caps & TSYNC_CAP_FILE_SET);
}

/* The reader's steps into a new trace; on failure the trace is freed. */
static int read_trace(tsync_trace **out, struct tsync_match_input *match, const char *path,
                      const tsync_open_opts *opts, enum tsync_domain_rule rule,
                      const struct tsync__domain_file *df, const uint32_t *part, int lists,
                      tsync_ctx *ctx)
{
    const struct tsync__format *fmt;
    struct tsync_sink sink;
    struct tsync_trace *t;
    void *reader = NULL;
    int rc;

    if ((rc = open_reader(&reader, &fmt, path, opts, lists, ctx)))
        return rc;
    if (!(t = tsync__trace_alloc(path))) {
        fmt->close(reader);
        return tsync__oom(ctx);
    }
    t->io = fmt;
    t->format = fmt->shape;
    tsync__sink_init(&sink, t, ctx);
    /* Without nodes every location has a clock of its own; a domain file starts
     * from that too, and the default rule from the nodes. */
    if (!(fmt->caps & TSYNC_CAP_NODES) || rule == TSYNC_DOMAIN_FILE)
        rule = TSYNC_DOMAIN_LOCATION;
    else if (rule == TSYNC_DOMAIN_AUTO)
        rule = TSYNC_DOMAIN_NODE;
    if ((rc = fmt->definitions(reader, &sink)))
        goto out;
    if (t->n_locations == 0) {
        rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: the trace defines no locations (empty trace)", path);
        goto out;
    }
    if (part) {         /* process part[0] of part[1] reads its own locations only */
        if (!(t->held = calloc(t->n_locations, 1))) {
            rc = tsync__oom(ctx);
            goto out;
        }
        for (tsync_loc l = 0; l < t->n_locations; l++)
            t->held[l] = tsync__location_holder(l, t->n_locations, part[1]) == part[0];
    }
    if ((rc = tsync__sink_domains(&sink, rule)) || (df && (rc = tsync__domain_file_apply(t, df, ctx))) ||
        (rc = fmt->events(reader, &sink)))
        goto out;
    if (!part && tsync_trace_event_count(t) == 0)
        rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: the trace has no events (empty trace)", path);
out:
    fmt->close(reader);
    if (rc == TSYNC_OK) {
        tsync__sink_finish(&sink, match);
        *out = t;
    } else {
        tsync_trace_free(t);
    }
    tsync__sink_free(&sink);
    return rc;
}

/* tsync__trace_open_unmatched, with message lists where the format gives them, of
 * the part `part` names (NULL: all). */
static int open_unmatched(tsync_trace **out, struct tsync_match_input *match, const char *path,
                          const tsync_open_opts *opts, int lists, const uint32_t *part,
                          tsync_ctx *ctx)
{
    struct tsync__domain_file df, *dfp = NULL;
    enum tsync_domain_rule rule;
    const char *file;
    double split_s;
    int rc;
    memset(match, 0, sizeof(*match));
    tsync__clear(ctx);
    if ((rc = domain_opts(opts, &rule, &file, &split_s, ctx)))
        return rc;
    /* The domain file first: its mistakes show before a long read of the trace. */
    if (file) {
        if ((rc = tsync__domain_file_read(&df, file, ctx)))
            return rc;
        dfp = &df;
    }
    rc = read_trace(out, match, path, opts, rule, dfp, part, lists, ctx);
    tsync__domain_file_free(dfp);
    return rc;
}

int tsync__trace_open_part(tsync_trace **out, struct tsync_match_input *match, const char *path,
                           const tsync_open_opts *opts, uint32_t rank, uint32_t n_ranks,
                           tsync_ctx *ctx)
{
    const uint32_t part[2] = { rank, n_ranks };
    return open_unmatched(out, match, path, opts, 0, part, ctx);
}

int tsync__trace_open_unmatched(tsync_trace **out, struct tsync_match_input *match,
                                const char *path, const tsync_open_opts *opts, tsync_ctx *ctx)
{
    return open_unmatched(out, match, path, opts, 0, NULL, ctx);
}

int tsync__trace_split(tsync_trace *t, const tsync_open_opts *opts, const struct tsync__reducer *red,
                       tsync_ctx *ctx)
{
    enum tsync_domain_rule rule;
    const char *file;
    double split_s;
    domain_opts(opts, &rule, &file, &split_s, NULL);   /* checked when it was read */
    /* Only the node rule by default is split: a rule or file given is kept. */
    if (rule == TSYNC_DOMAIN_AUTO && t->domain_rule == TSYNC_DOMAIN_NODE)
        return tsync__split_domains(t, (int64_t)(split_s * (double)t->timer_resolution), red, ctx);
    return TSYNC_OK;
}

/* tsync_trace_open, with message lists where the format gives them. */
static int open_trace(tsync_trace **out, const char *path, const tsync_open_opts *opts, int lists,
                      tsync_ctx *ctx)
{
    struct tsync_match_input match;
    tsync_trace *t;
    int rc = open_unmatched(&t, &match, path, opts, lists, NULL, ctx);
    if (rc == TSYNC_OK) {
        if ((rc = tsync__trace_match(t, &match, ctx)) == TSYNC_OK)
            rc = tsync__trace_split(t, opts, NULL, ctx);
        if (rc)
            tsync_trace_free(t);
    }
    if (rc == TSYNC_OK)
        *out = t;
    return rc;
}

int tsync_trace_open(tsync_trace **out, const char *path, const tsync_open_opts *opts, tsync_ctx *ctx)
{
    return open_trace(out, path, opts, 0, ctx);
}

int tsync__trace_open_lists(tsync_trace **out, const char *path, const tsync_open_opts *opts,
                            tsync_ctx *ctx)
{
    return open_trace(out, path, opts, 1, ctx);
}

int tsync_trace_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx)
{
    int rc;
    if (tl->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: the timeline does not belong to this trace",
                           t->path);
    if (!t->io)
        return tsync__fail(ctx, TSYNC_EUNSUPPORTED, "%s: traces in this format are read, not "
                           "written", t->path);
    if ((rc = tsync__format_require(t->io, t->path, "write", 0, 1, ctx)))
        return rc;
    return t->io->write(t, tl, outdir, ctx);
}

/* The capabilities in words: "messages or collectives". */
static void caps_words(char *buf, size_t size, unsigned caps)
{
    static const struct { unsigned cap; const char *word; } words[] = {
        { TSYNC_CAP_MESSAGES, "messages" }, { TSYNC_CAP_COLLECTIVES, "collectives" },
        { TSYNC_CAP_OFFSETS, "clock offsets" }, { TSYNC_CAP_NODES, "nodes" }
    };
    size_t len = 0, n = 0, k = 0;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        n += (caps & words[i].cap) != 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]) && len < size; i++)
        if (caps & words[i].cap)
            len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                    !k++ ? "" : k == n ? " or " : ", ", words[i].word);
}

int tsync__format_require(const struct tsync__format *fmt, const char *path, const char *stage,
                          unsigned any_of, int write, tsync_ctx *ctx)
{
    char need[128];
    if (write && !fmt->write)
        return tsync__fail(ctx, TSYNC_EUNSUPPORTED, "%s: traces in %s are read, not written",
                           path, fmt->name);
    if (any_of && !(fmt->caps & any_of)) {
        caps_words(need, sizeof(need), any_of);
        return tsync__fail(ctx, TSYNC_EUNSUPPORTED, "%s: %s needs %s; %s (%s) holds %s", path,
                           stage, need, fmt->what, fmt->name,
                           (any_of & (any_of - 1)) ? "none of them" : "none");
    }
    return TSYNC_OK;
}
