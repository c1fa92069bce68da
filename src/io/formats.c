/* formats.c - which reader and writer a trace needs, by its file name:
 * ".otf2" is an OTF2 anchor file, ".csv" a CSV of messages. Also the open options
 * every reader shares: the rule for clock domains, and the domain file. */
#include <string.h>

#include "io/formats.h"
#include "util/ctx.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

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

int tsync__trace_open_unmatched(tsync_trace **out, struct tsync_match_input *match,
                                const char *path, const tsync_open_opts *opts, tsync_ctx *ctx)
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
    if (ends_with(path, ".csv"))
        rc = tsync__csv_open(out, path, dfp, ctx); /* matched as it is read */
    else
        rc = tsync__otf2_open(out, match, path,
                              rule == TSYNC_DOMAIN_AUTO ? TSYNC_DOMAIN_NODE : rule, dfp, ctx);
    tsync__domain_file_free(dfp);
    return rc;
}

int tsync__trace_match(tsync_trace *t, struct tsync_match_input *match, tsync_ctx *ctx)
{
    int rc = TSYNC_OK;
    if (match->n_sends || match->n_recvs)
        rc = tsync__match_p2p(t, match, ctx);
    if (rc == TSYNC_OK && match->n_colls)
        rc = tsync__match_collectives(t, match, ctx);
    tsync__match_input_free(match);
    return rc;
}

int tsync_trace_open(tsync_trace **out, const char *path, const tsync_open_opts *opts, tsync_ctx *ctx)
{
    struct tsync_match_input match;
    enum tsync_domain_rule rule;
    const char *file;
    double split_s;
    tsync_trace *t;
    int rc = tsync__trace_open_unmatched(&t, &match, path, opts, ctx);
    if (rc == TSYNC_OK) {
        domain_opts(opts, &rule, &file, &split_s, NULL);   /* checked above */
        /* Only the node rule by default is split: a rule or file given is kept. */
        if ((rc = tsync__trace_match(t, &match, ctx)) == TSYNC_OK && rule == TSYNC_DOMAIN_AUTO &&
            t->domain_rule == TSYNC_DOMAIN_NODE)
            rc = tsync__split_domains(t, (int64_t)(split_s * (double)t->timer_resolution), ctx);
        if (rc)
            tsync_trace_free(t);
    }
    if (rc == TSYNC_OK)
        *out = t;
    return rc;
}

int tsync_trace_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx)
{
    if (tl->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: the timeline does not belong to this trace",
                           t->path);
    if (t->format == TSYNC_FORMAT_CSV)
        return tsync__csv_write(t, tl, outdir, ctx);
    return tsync__otf2_write(t, tl, outdir, ctx);
}
