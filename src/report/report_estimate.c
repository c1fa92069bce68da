/* report_estimate.c - an estimate as a short summary for people: how it was made,
 * the grouping and why, the references, and one line per clock domain with its map,
 * bound, samples, pieces, what its path's samples came from and path.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "estimate/estimate_int.h"
#include "estimate/estimator.h"
#include "trace/trace.h"
#include "util/units.h"
#include "util/str.h"

/* Longest text of tsync__estimate_sources_text: four labels and 20-digit counts. */
#define SOURCES_TEXT 128

const char *tsync__estimate_sources_text(const tsync_estimate_sources *s, char *buf, size_t n)
{
    const char *label[4] = { "messages", "collectives", "sessions", "offsets" };
    uint64_t count[4] = { s->messages, s->collectives, s->sessions, s->offsets };
    size_t k = 0;
    snprintf(buf, n, "-");
    for (int i = 0; i < 4; i++)
        if (count[i] && k < n)
            k += (size_t)snprintf(buf + k, n - k, "%s%s %llu", k ? " + " : "", label[i],
                                  (unsigned long long)count[i]);
    return buf;
}

static void print_domain(const tsync_estimate *e, uint32_t d, int w, int wf, FILE *out)
{
    const tsync_estimate_domain *dom = &e->dom[d];
    char off[32], bnd[40], drift[32], smp[24], from[SOURCES_TEXT];
    if (dom->kind == TSYNC_BOUND_ABSENT) {
        fprintf(out, "  %-*s %-9s %-12s %-12s %-12s %-8s %-6s %-*s %s\n", w, dom->name, "absent",
                "-", "-", "-", "-", "-", wf, "-", "(no messages with other domains: time kept)");
        return;
    }
    tsync__fmt_seconds_signed(off, sizeof(off), dom->offset_s);
    snprintf(drift, sizeof(drift), "%+.3g ppm", dom->drift * 1e6);
    if (dom->kind == TSYNC_BOUND_EXACT) {
        snprintf(bnd, sizeof(bnd), "0");
    } else if (isfinite(dom->bound_s)) {
        bnd[0] = '+';
        bnd[1] = '-';
        tsync__fmt_seconds(bnd + 2, sizeof(bnd) - 2, dom->bound_s);
    } else {
        snprintf(bnd, sizeof(bnd), "one-sided");
    }
    snprintf(smp, sizeof(smp), "%llu", (unsigned long long)dom->samples);
    fprintf(out, "  %-*s %-9s %-12s %-12s %-12s %-8s %-6u %-*s ", w, dom->name,
            tsync_bound_kind_name(dom->kind), off, drift, bnd, dom->path_length ? smp : "-",
            dom->pieces, wf, tsync__estimate_sources_text(&dom->sources, from, sizeof(from)));
    for (uint32_t k = 0; k <= dom->path_length; k++)
        fprintf(out, "%s%s", k ? " > " : "", e->names[dom->path[k]]);
    fprintf(out, "\n");
}

/* Most references listed by name; a trace of many unrelated groups gets "...". */
#define MAX_LISTED 8

void tsync__estimate_print_references(const tsync_estimate *e, FILE *out)
{
    for (uint32_t c = 0; c < e->n_comp && c < MAX_LISTED; c++) {
        const char *why;
        tsync_estimate_reference_rule(e, c, &why);
        fprintf(out, "%s%s (%s)", c ? ", " : "", e->names[e->comp_ref[c]], why);
    }
    if (e->n_comp > MAX_LISTED)
        fprintf(out, ", ... (%u in all)", e->n_comp);
}

void tsync_estimate_print(const tsync_estimate *e, const tsync_trace *t, FILE *out)
{
    const tsync_estimate_grouping *g;
    const struct tsync__estimator *est;
    char a[32], b[32];
    int w = 6, wf = 4;
    if (!e || !t || !out)
        return;
    g = &e->grouping;
    est = tsync__estimator_get(e->opts.estimator);
    fprintf(out, "estimate: %s\n", t->path);
    fprintf(out, "  estimator   %s", tsync_estimate_estimator_name(e));
    if (est->summary)
        fprintf(out, ": %s", est->summary);
    fprintf(out, " (minimum latency %s within a node, %s between nodes",
            tsync__fmt_seconds(a, sizeof(a), e->opts.latency_intra_s),
            tsync__fmt_seconds(b, sizeof(b), e->opts.latency_inter_s));
    if (e->latency_pairs)
        fprintf(out, ", %u node pair%s from a file", e->latency_pairs,
                tsync__plural(e->latency_pairs, "s"));
    fprintf(out, "; drift <= %g ppm where open, changing by <= %g ppm/s)\n",
            e->opts.max_drift * 1e6, e->opts.max_wander * 1e6);
    fprintf(out, "  grouping    %s: %s\n", g->rule, g->reason);
    if (g->contradicting)
        fprintf(out, "              try --domains location\n");
    fprintf(out, "  references  ");
    tsync__estimate_print_references(e, out);
    fprintf(out, "\n");
    for (uint32_t c = 0; c < e->n_comp; c++)
        if (e->comp_shift[c])
            fprintf(out, "              times of %s's group shifted by %s so that none is "
                    "negative\n", e->names[e->comp_ref[c]],
                    tsync__fmt_seconds_signed(a, sizeof(a), (double)e->comp_shift[c] / (double)e->resolution));
    if (e->periods > 1)
        fprintf(out, "  periods     %zu busy periods, more than %s apart: each has its own paths "
                "(shown: the busiest)\n", e->periods,
                tsync__fmt_seconds(a, sizeof(a), e->period_gap_s));
    if (e->n_comp > 1)
        fprintf(out, "              %u unrelated groups of domains: their times cannot be "
                "compared\n", e->n_comp);
    if (e->rejected)
        fprintf(out, "  dropped     %llu sample%s contradicting linear clocks within a "
                "minimum segment\n", (unsigned long long)e->rejected, tsync__plural(e->rejected, "s"));
    for (uint32_t d = 0; d < e->n_domains; d++) {
        char from[SOURCES_TEXT];
        if ((int)strlen(e->names[d]) > w)
            w = (int)strlen(e->names[d]);
        if ((int)strlen(tsync__estimate_sources_text(&e->dom[d].sources, from, sizeof(from))) > wf)
            wf = (int)strlen(from);
    }
    fprintf(out, "  %-*s %-9s %-12s %-12s %-12s %-8s %-6s %-*s %s\n", w, "domain", "kind", "offset",
            "drift", "bound", "samples", "pieces", wf, "from", "path");
    for (uint32_t d = 0; d < e->n_domains; d++)
        print_domain(e, d, w, wf, out);
}
