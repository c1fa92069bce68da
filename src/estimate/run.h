/* run.h (internal) - what tsync_estimate_run holds between its stages, and the
 * stages, one concern a file; estimate.c runs them in order:
 *
 *   options.c     the options checked and turned into ticks
 *   samples.c     the samples of every pair of domains (the graph's edges)
 *   pairs.c       every pair fitted; its weight, function and anchors
 *   references.c  the reference of each component, shortest-path trees
 *   graph/        composition along the trees, global least squares
 *   periods.c     busy periods, each with its own trees
 *   shift.c       no corrected time negative
 *   result.c      the result the getters read, the warnings
 *   parts.c       the same stages on several processes that hold the trace in parts
 */
#ifndef TSYNC_ESTIMATE_RUN_H
#define TSYNC_ESTIMATE_RUN_H

#include "estimate/estimate_api.h"
#include "estimate/estimate_int.h"
#include "estimate/estimator.h"
#include "estimate/samples.h"
#include "graph/graph.h"

/* Everything the run holds until the result is built. */
struct tsync__run {
    const struct tsync_trace *t;
    tsync_estimate *e;
    tsync_ctx *ctx;
    const struct tsync__estimator *est;
    struct tsync__est_params params;
    struct tsync__graph g;
    struct tsync__intra intra;
    uint32_t forced;                  /* the reference asked for, or TSYNC__NONE */
    uint32_t base;                    /* the domain of the trace's time base, or TSYNC__NONE */
    uint8_t base_how;                 /* TSYNC__REF_MASTER or TSYNC__REF_RANK0 */
    uint32_t *parent_edge, *parent, *order;
    uint8_t *cuts;                    /* per edge: the cuts its fit makes (CUTS_...) */
    uint8_t *fallback;                /* per domain: a path of some period has a FALLBACK edge */
    tsync_time *ev_first, *ev_last;
    struct tsync__spans spans;        /* every location's busy intervals (max_gap > 0) */
    struct tsync_message_list *lists; /* taken from a trace read as message lists */
    size_t n_lists;
    struct tsync_coll_whole *whole;   /* taken from a trace held in parts (parts.c) */
    struct tsync__pwl *maps;
    const struct tsync__est_transport *tr;  /* the processes holding the pairs (parts.c);
                                             * NULL: every pair is here */
};


/* Checks the options against the trace and fills r->params, r->forced and so. 0
 * or TSYNC_EINVAL with the error in r->ctx. */
int tsync__est_check_opts(struct tsync__run *r, const tsync_estimate_opts *o,
                          struct tsync__sample_opts *so);
/* The domain of the trace's time base (r->base, r->base_how) under the reference
 * rule, and why in words (r->e). 0 or TSYNC_ENOMEM (reported). */
int tsync__est_time_base(struct tsync__run *r, const tsync_estimate_opts *o);

/* Fits every edge's pair held here with the lower domain's clock as x, once (the
 * other direction is its inverse), frees its samples, and weighs the edge (its
 * kind, weight and pair->sum). 0 or TSYNC_ENOMEM. */
int tsync__est_fit_edges(struct tsync__run *r);
/* What a path through a pair costs over [from, to] of its lo's clock: its
 * function's largest bound there, less where its curve follows windowed minima
 * (pairs.c); -1 when out of memory. */
double tsync__est_pair_error_over(const struct tsync__pair_fit *fit, tsync_time from,
                                  tsync_time to);

/* What the graph's stages ask of a pair, from the process that holds it (parts.c)
 * or here; each returns 0 or a negative TSYNC_E* code:
 *   up_pwl      the tree's pair functions (tsync__pair_fn; ctx is the run): d's
 *               toward its parent, with the bounds the open slopes and the envelope
 *               allow (from hi's side, lo's function inverted)
 *   errors_over the cost of every edge (tsync__est_pair_error_over) over
 *               [lo[d], hi[d]] of its lo domain d's clock: w[] of r->g.n_edges
 *               (edges without pieces left as they are)
 *   anchors     of every bounded edge with pieces (tsync__est_anchored) for the
 *               global least squares (an[] of r->g.n_edges): the ends of its
 *               pieces, and those of both domains' events where the pair
 *               extrapolates to them; the caller frees every an[i].v */
int tsync__est_up_pwl(void *ctx, uint32_t d, tsync_time *from, tsync_time *to,
                      struct tsync__pwl *out);
int tsync__est_errors_over(struct tsync__run *r, const tsync_time *lo, const tsync_time *hi,
                           double *w);
int tsync__est_anchors(struct tsync__run *r, struct tsync__anchors *an);
int tsync__est_anchored(const struct tsync__run *r, size_t ei);
/* The same, of the pairs held here (the owner's answers, parts.c): up_pwl's
 * function of d toward the other end of edge ei, errors_over's of every edge held
 * here, anchors of edge ei. */
int tsync__est_pwl_held(const struct tsync__run *r, uint32_t d, uint32_t ei, tsync_time *from,
                        tsync_time *to, struct tsync__pwl *out);
int tsync__est_errors_held(const struct tsync__run *r, const tsync_time *lo, const tsync_time *hi,
                           double *w);
int tsync__est_anchors_held(const struct tsync__run *r, size_t ei, struct tsync__anchors *an);

/* ---- parts.c: the pairs held by several processes -------------------------------------- */

/* Whether another process holds edge ei's pair: its index modulo the processes. */
static inline int tsync__parts_remote(const struct tsync__run *r, size_t ei)
{
    return r->tr && ei % r->tr->n_ranks != r->tr->rank;
}
/* rc agreed with every process's: the first failure anywhere fails every process
 * (rc kept where it failed; the others get TSYNC_OTHERS_FAILED). */
int tsync__parts_agree(const struct tsync__est_transport *tr, int rc, tsync_ctx *ctx);
/* The samples of every pair held here (r->g gets every process's pairs, with their
 * sources summed, r->intra the messages inside domains of all). */
int tsync__parts_collect(struct tsync__run *r, const struct tsync__sample_opts *so);
/* r->ev_first and r->ev_last over every process's events. */
int tsync__parts_ranges(struct tsync__run *r);
/* Process 0 gets the kind, weight and summary of every pair fitted elsewhere, and
 * every location's busy intervals. */
int tsync__parts_gather(struct tsync__run *r);
/* Every process but 0: answers its questions until it is done; its result. */
int tsync__parts_serve(struct tsync__run *r);
/* *out: process 0's maps (r->e's, taken there) on every process. */
int tsync__parts_maps(tsync_map_set **out, struct tsync__run *r);
/* The questions above, asked of the process that holds edge ei's pair; those of
 * every edge (errors, anchors) of every other process, one question each, for
 * the edges held elsewhere. */
int tsync__parts_ask_pwl(struct tsync__run *r, uint32_t d, uint32_t ei, tsync_time *from,
                         tsync_time *to, struct tsync__pwl *out);
int tsync__parts_ask_errors(struct tsync__run *r, const tsync_time *lo, const tsync_time *hi,
                            double *w);
int tsync__parts_ask_anchors(struct tsync__run *r, struct tsync__anchors *an);

/* Shortest-path trees from the references under the edges' current weights: each
 * domain's parent, edge and pair function toward its parent. 0 or TSYNC_ENOMEM. */
int tsync__est_build_tree(struct tsync__run *r, const uint32_t *comp_ref);
/* The maps of every domain along the current trees, over [lo[d], hi[d]] of d's
 * clock at least, into maps[]. 0 or TSYNC_ENOMEM. */
int tsync__est_compose(struct tsync__run *r, const tsync_time *lo, const tsync_time *hi,
                       struct tsync__pwl *maps);

/* The idle time that separates two busy periods: half the longest gap a piece spans
 * (max_gap). A sleep of max_gap between MPI_Init and the main phase, which a
 * location whose clock runs slow reads as a little less, is one; across it the
 * bounds of a pair with a ClockOffset record grow by the record's open slope (8.8
 * ms over 10 s), and weighed over one period with the main phase they made every
 * such pair alike and the paths a matter of chance. */
int64_t tsync__est_period_gap(const struct tsync__run *r);

/* Replaces r->maps by the busy periods' own maps where the trace has several. 0 or
 * TSYNC_ENOMEM. */
int tsync__est_compose_periods(struct tsync__run *r, const uint32_t *comp_ref);
/* Each component's shift (r->e->comp_shift), added to its maps. 0 or TSYNC_ENOMEM. */
int tsync__est_shift_components(struct tsync__run *r);

/* The result: domains, edges, grouping. 0, or TSYNC_ENOMEM (reported). */
int tsync__est_fill_result(struct tsync__run *r);
/* Warnings about the result: unrelated groups, rejected samples, one-sided pairs. */
void tsync__est_warn(const struct tsync__run *r);

#endif
