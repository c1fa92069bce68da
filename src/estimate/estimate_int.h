/* estimate_int.h (internal) - what a tsync_estimate holds, for estimate.c (the
 * run), estimate_json.c (the maps file) and report/report_estimate.c (the summary). */
#ifndef TSYNC_ESTIMATE_ESTIMATE_INT_H
#define TSYNC_ESTIMATE_ESTIMATE_INT_H

#include <jansson.h>

#include "tracesync/estimate.h"

/* How a component's reference was chosen (tsync_estimate_reference_rule). */
enum tsync__ref_how { TSYNC__REF_AUTO, TSYNC__REF_GIVEN, TSYNC__REF_MASTER, TSYNC__REF_RANK0 };

struct tsync_estimate {
    tsync_estimate_opts opts;        /* as given, without the reference's name */
    int reference_given;             /* opts->reference named the reference */
    uint64_t resolution;             /* ticks per second of the trace */
    uint32_t latency_pairs;          /* (node, node) pairs of the latency file, 0: none */
    tsync_map_set *maps;
    uint32_t n_domains;
    tsync_estimate_domain *dom;
    char **names;                    /* owned copies of the domain names */
    uint32_t *paths;                 /* storage of every dom[].path */
    size_t n_edges;
    tsync_estimate_edge *edges;
    uint32_t n_comp;
    uint32_t *comp_ref;
    int64_t *comp_shift;             /* ticks added to every map of a component */
    uint8_t *comp_how;               /* enum tsync__ref_how, per component */
    char *base_why;                  /* the time base in words ("MPI rank 0, ..."), or NULL */
    const char *auto_why;            /* why a component without it got the automatic rule */
    tsync_estimate_grouping grouping;
    char *reason;
    uint64_t rejected;               /* over all edges */
    size_t periods;                  /* busy periods, each with its own shortest paths */
    double period_gap_s;             /* the idle time that parts them */
};

/* What samples came from, for people: "messages 28 + sessions 120 + offsets 9",
 * "-" when nothing (report/report_estimate.c). Returns buf. */
const char *tsync__estimate_sources_text(const tsync_estimate_sources *s, char *buf, size_t n);

/* The reference of every component and how it was chosen, for people:
 * "n0 (MPI rank 0, the ClockOffset master), location 5 (...)" (report/report_estimate.c). */
void tsync__estimate_print_references(const tsync_estimate *e, FILE *out);

/* The document tsync_estimate_json writes, as data, every number as the text shows
 * it: for reports that embed it (estimate_json.c). NULL, with the context saying
 * why, on failure. */
json_t *tsync__estimate_to_json(const tsync_estimate *e, const tsync_trace *t, tsync_ctx *ctx);

#endif
