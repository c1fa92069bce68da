/* estimator.h (internal) - the contract of the pairwise clock estimators: samples
 * in, linear pieces with a range of possible values out.
 *
 * A pair of clock domains is estimated on one plane: x is the first domain's
 * clock, y the second's, both in ticks, and the estimators look for the line
 * y = a x + b that relates them (a = 1 + drift). Samples are points of that plane:
 *
 *   ABOVE     a one-way constraint the line passes at or below: a message from the
 *             first domain to the second, (send, receive - mu)
 *   BELOW     a one-way constraint the line passes at or above: a message from the
 *             second domain to the first, (receive - mu, send)
 *   EXCHANGE  a point on the line give or take `err` ticks: a message and the
 *             answer that follows it (seed 003, Eq. 3), or a measured offset
 *             (ClockOffset record)
 *
 * A pair is estimated once, with its lower domain's clock as x; seen from the
 * other domain (x and y swapped, ABOVE and BELOW exchanged) its function is the
 * inverse (tsync__pwl_invert).
 *
 * An estimator is a table of functions, as LTTV's sync modules are, with what the
 * reports say of it and what samples it needs; one line of the registry
 * (registry.c) makes it known to every command. The segment
 * driver (segment.c) feeds it one piece's samples in order of x; add_sample may
 * answer TSYNC__SPLIT: this sample contradicts every line through the samples so
 * far (the hulls cross), and the estimator is unchanged. finish turns what it
 * holds into one or more pieces (the regression splits at finish, the hull never
 * does). Each piece owns the data its `range` needs.
 */
#ifndef TSYNC_ESTIMATE_ESTIMATOR_H
#define TSYNC_ESTIMATE_ESTIMATOR_H

#include <stddef.h>
#include <stdint.h>

#include "timemap/pwl.h"
#include "trace/trace.h"
#include "tracesync/estimate.h"

/* add_sample's answer when the sample does not fit a line with the others. */
#define TSYNC__SPLIT 1

enum tsync__sample_kind {
    TSYNC__ABOVE = 0,
    TSYNC__BELOW = 1,
    TSYNC__EXCHANGE = 2,
    TSYNC__RECORD = 3       /* a ClockOffset record as itself (struct tsync__pair_samples) */
};

/* One sample: a point, its kind, and for exchanges the error margin in ticks
 * (seed 003's E_ij for message exchanges; for measured offsets, see samples.c). */
struct tsync__sample {
    tsync_time x, y;
    int64_t err;
    uint8_t kind;      /* enum tsync__sample_kind */
    uint8_t measured;  /* an exchange from a ClockOffset record, not from messages */
};

/* What an estimator is told about the piece it estimates. */
struct tsync__est_params {
    tsync_time x0, y0;    /* the pair's origin: geometry is done relative to it */
    double max_drift;     /* |a - 1| assumed at most this where the data leave a open */
    int segment;          /* may finish split (regression) */
    int64_t min_segment;  /* shortest piece, ticks of x */
    int64_t max_gap;      /* longest gap between samples inside a piece, ticks of x (0: any) */
    int64_t max_segment;  /* longest piece with samples both ways, ticks of x (0: any) */
    double wander;        /* largest change of the drift per tick of x (max_wander) */
    int64_t window;       /* longest window of windowed minimum delays, ticks of x */
    size_t windows_max;   /* a pair's windows: at most about so many (0: any) */
    int64_t slack;        /* how far the tightest window's fastest samples may lie above
                           * the minimum latency, ticks (window.c, hold_in_bands) */
    int64_t record_reach; /* ClockOffset records at most so far apart make a curve
                           * (record_curve.c), ticks of x (0: never) */
};

/* One linear piece: the estimate y = y0 + b + a (x - x0) over the samples'
 * x range [x_first, x_last], and, through `range`, every value y(x) the data allow
 * at any x (for the hull, exactly; for the regression, a confidence band), relative
 * to y0; -INFINITY / +INFINITY where the data bound one side only. */
struct tsync__piece {
    tsync_time x_first, x_last;
    tsync_time x0, y0;
    long double a, b;
    enum tsync_bound_kind kind;     /* BOUNDED or FALLBACK */
    uint64_t samples;               /* samples the piece rests on */
    double error;                   /* the pair error this piece gives the graph, ticks */
    int open;                       /* the data leave the slope open (max_drift limits it) */
    void (*range)(const struct tsync__piece *p, tsync_time x, long double *lo, long double *hi);
    void *data;                     /* owned, freed with the piece */
};

/* A growing list of pieces, in order of x. */
struct tsync__pieces {
    size_t n, cap;
    struct tsync__piece *v;
};

/* Counts an estimator keeps; they add up over a pair's pieces. */
struct tsync__est_stats {
    uint64_t samples;       /* taken */
    uint64_t dropped;       /* left out by the estimator itself (90 % interval) */
    uint64_t hull_points;   /* vertices on the hulls (hull) */
};

struct tsync__pair_samples;

/* Where a run of tsync__estimator.add_run stops: before a one-way constraint at x
 * with x >= before (an exchange sample comes first), x - last > max_gap (max_gap >
 * 0) or x - first > max_segment (max_segment > 0); last follows the samples taken. */
struct tsync__run_limits {
    tsync_time before, first, last;
    int64_t max_gap, max_segment;
};

/* Samples an estimator needs beyond the one-way constraints (tsync__estimator.needs). */
#define TSYNC__NEEDS_EXCHANGES 1u   /* exchange samples: a message and its answer */

struct tsync__estimator {
    const char *name;          /* --estimator NAME */
    const char *summary;       /* the text report's words after the name (NULL: none) */
    const char *estimate;      /* the JSON report's "estimate": how it estimates */
    const char *bound;         /* the JSON report's "bound": what its bounds promise */
    unsigned needs;            /* TSYNC__NEEDS_... */
    int guaranteed;            /* its ranges are guaranteed, not statistical: the windowed
                                * minima and the envelope may tighten them */
    /* The functions below are NULL for "none", which estimates nothing. */
    /* A fresh estimator for one piece; 0 or TSYNC_ENOMEM. */
    int (*init)(void **state, const struct tsync__est_params *p);
    /* 0 taken, TSYNC__SPLIT (state unchanged) or TSYNC_ENOMEM. Samples come in
     * order of x. */
    int (*add_sample)(void *state, const struct tsync__sample *s);
    /* Whether the samples so far fix the line by themselves (for the hull: both
     * extreme slopes come from the data, not from max_drift): a piece may end
     * at its longest only then. */
    int (*settled)(const void *state);
    /* Appends the pieces for what was added (none when nothing was); 0 or TSYNC_ENOMEM. */
    int (*finish)(void *state, struct tsync__pieces *out);
    void (*stats)(const void *state, struct tsync__est_stats *st);
    void (*fini)(void *state);
    /* Optional (NULL: add_sample alone). add_sample over the one-way constraints
     * that come next in order of x, s->above from *ia and s->below from *ib (both
     * advanced), without a call each, for as long as each only adds to what the
     * state holds: it stops before one that may move the estimate, split or change
     * settled (add_sample takes that one), and at lim's limits. 0 or TSYNC_ENOMEM. */
    int (*add_run)(void *state, const struct tsync__pair_samples *s, size_t *ia, size_t *ib,
                   struct tsync__run_limits *lim);
};

extern const struct tsync__estimator tsync__hull_estimator;
extern const struct tsync__estimator tsync__regress_estimator;

/* ---- the registry (registry.c) ------------------------------------------------------ */

/* The estimator of id `which` (the built-ins' ids are enum tsync_estimator's
 * values), or NULL when no estimator has that id. */
const struct tsync__estimator *tsync__estimator_get(enum tsync_estimator which);
/* The estimator of id `which` if it estimates (has functions); NULL for "none" and
 * for unknown ids. */
const struct tsync__estimator *tsync__estimator_for(enum tsync_estimator which);
/* Adds an estimator after the built-ins (not thread-safe: before any run); *id
 * gets its id. est is borrowed and must outlive every run. 0, or TSYNC_EINVAL when
 * its name is taken, it has no functions, or the registry is full. */
int tsync__estimator_register(const struct tsync__estimator *est, enum tsync_estimator *id);

/* Appends a piece (taken: on failure its data is freed). 0 or TSYNC_ENOMEM. */
int tsync__pieces_push(struct tsync__pieces *l, struct tsync__piece *p);
/* Frees every piece's data and the list. */
void tsync__pieces_free(struct tsync__pieces *l);

/* The extreme lines of a hull piece: slopes a_lo <= a_hi (Duda's minimum and
 * maximum lines, limited to 1 +- max_drift where the data leave them open) and
 * their offsets at the origin (the middle of the feasible offsets for that slope
 * when a limit, not the data, sets it). The estimate is their mean. 0, or -1 for
 * a piece of another estimator. */
int tsync__hull_lines(const struct tsync__piece *p, long double *a_lo, long double *b_lo,
                      long double *a_hi, long double *b_hi);

/* Seed 003, Eqs. 2 to 8, over exchange samples: offsets D = y - x against times
 * T = x, both relative to the origin (x0, y0), so that D(T) = drift T + offset. */
struct tsync__regress_fit {
    size_t n;
    long double drift;       /* X_ij, Eq. 4 */
    long double offset;      /* D_ij(0), Eq. 5, at T = 0 (x = x0) */
    long double er;          /* residual standard deviation E_r, Eq. 6 */
    long double err_drift;   /* standard error of the drift */
    long double err_offset;  /* standard error of D_ij(0) */
    long double t_mean;      /* mean of T */
    long double stt;         /* sum of (T - t_mean)^2 */
};
/* Fits v[0, n) (n >= 1). With fewer than 3 samples E_r is the largest error margin
 * of the samples, and one sample (or all at one time) gives drift 0. */
void tsync__regress_fit(struct tsync__regress_fit *f, const struct tsync__sample *v, size_t n,
                        tsync_time x0, tsync_time y0);
/* The 90 % confidence interval of seed 003, section 12: drops exchanges whose error
 * margin E_ij lies above mean + 1.2816 standard deviations (the delayed ones, one
 * sided), keeps measured samples. Compacts v in place; returns how many are kept. */
size_t tsync__regress_drop_delayed(struct tsync__sample *v, size_t n);

/* Error of an estimate against a piece's range at x: the larger distance from
 * `value` (relative to y0) to the ends of the range; INFINITY if one is open. */
long double tsync__piece_bound_at(const struct tsync__piece *p, tsync_time x, long double value);

/* Value of the piece's estimate at x, relative to its y0. */
long double tsync__piece_eval(const struct tsync__piece *p, tsync_time x);

/* ---- the segment driver (segment.c) ------------------------------------------------- */

/* A pair's samples in order of x, merged from the three sorted kinds; and its
 * ClockOffset records (kind RECORD, also among the others as the constraints
 * they make), which no estimator reads: the curve of a pair with nothing else to
 * follow (record_curve.c). */
struct tsync__pair_samples {
    size_t n_above, n_below, n_exch, n_rec;
    size_t cap_above, cap_below, cap_exch, cap_rec;
    struct tsync__pt *above, *below;
    struct tsync__sample *exch, *rec;
};

/* The x range of a pair's one-way samples of either kind (*first > *last when it
 * has none). */
static inline void tsync__pair_samples_span(const struct tsync__pair_samples *s,
                                            tsync_time *first, tsync_time *last)
{
    *first = INT64_MAX;
    *last = INT64_MIN;
    if (s->n_above) {
        *first = s->above[0].x;
        *last = s->above[s->n_above - 1].x;
    }
    if (s->n_below) {
        *first = s->below[0].x < *first ? s->below[0].x : *first;
        *last = s->below[s->n_below - 1].x > *last ? s->below[s->n_below - 1].x : *last;
    }
}

/* Windowed minimum delays (window.c): at x, the value y the fastest messages of
 * both directions around x put the pair's curve at, smoothed; in order of x. */
struct tsync__window {
    tsync_time x;
    long double y;            /* absolute ticks of y */
    long double a;            /* the curve's slope there (the slope the window was
                               * detrended by, until smoothed) */
    long double width;        /* of the band its fastest messages leave, ticks */
    struct tsync__pt above, below; /* its tightest sample of each kind (the fastest
                               * message each way), which refine_edges reads */
};
struct tsync__windows {
    size_t n;
    struct tsync__window *v;
    int64_t max_width;        /* longest window, ticks of x */
    long double scatter;      /* RMS of the windows about their smoothed curve, ticks
                               * of y: how closely the curve follows the clock (of
                               * ClockOffset records, half that of each about its
                               * neighbours' chord; of local lines, 0: not known) */
    int local;                /* local minimax lines (local_lines.c) or ClockOffset
                               * records (record_curve.c): the curve of the
                               * whole pair, across its pieces */
};

/* The one-way constraints kept as a point-by-point bound (envelope.c): a subset
 * of the ABOVE points (up) and of the BELOW points (lo), each in order of x. */
struct tsync__knots {
    size_t n;
    struct tsync__pt *v;
};
struct tsync__envelope {
    struct tsync__knots up, lo;
};

/* Result of estimating one pair in one direction. */
struct tsync__pair_fit {
    struct tsync__pieces pieces;
    struct tsync__est_stats stats;
    uint64_t rejected;      /* samples contradicting a piece shorter than min_segment */
    uint64_t splits;        /* pieces started because the hulls crossed */
    uint64_t gaps;          /* pieces started after a gap longer than max_gap */
    double wander;          /* params->wander: how a bound grows away from the samples */
    double max_drift;       /* params->max_drift: how it grows beyond the last of them */
    struct tsync__windows windows;  /* the hull's pieces follow them where they bend */
    struct tsync__envelope envelope;
    int guaranteed;         /* the pieces' ranges are guaranteed (hull), not statistical */
    struct tsync__pwl joined;       /* the pieces joined over their samples, drawn once:
                                     * tsync__pwl_from_fit extends and cuts it */
};

/* Runs `est` over the samples (each kind sorted by x), splitting where add_sample
 * says the linear model fails and the piece is at least min_segment long (segment
 * on), dropping the sample otherwise. 0 or TSYNC_ENOMEM (fit freed). */
int tsync__fit_pair(struct tsync__pair_fit *fit, const struct tsync__estimator *est,
                    const struct tsync__est_params *params, const struct tsync__pair_samples *s);
void tsync__pair_fit_free(struct tsync__pair_fit *fit);

/* Samples each way a window cut short needs: the fastest of 16 is close to the
 * minimum; where a pair's messages wait too often for its local lines (MPI traces
 * with late receives and collectives), 8 a window follow the clock better than
 * the hull's pieces (16 nodes of one rank over half an hour: 4.8 -> 2.9 us). */
#define TSYNC__WINDOW_LEAST 16
#define TSYNC__WINDOW_FEWEST 8

/* The windows of a pair's one-way samples (each kind sorted by x), each detrended
 * by the slope of the piece of ps it starts in, a window at most `width` long (up to
 * three times that for a pair that has no windows of that length) and holding
 * `least` samples each way at least. None where they lie far apart. 0 or
 * TSYNC_ENOMEM (w empty). */
int tsync__windows_build(struct tsync__windows *w, const struct tsync__pair_samples *s,
                         const struct tsync__pieces *ps, const struct tsync__est_params *p,
                         size_t least);
void tsync__windows_free(struct tsync__windows *w);

/* The curve of windows w[0, n) (n > 0) at x: joined linearly between their centres,
 * along the slope of the end window beyond them (a loose piece's own slope can be
 * far off). Absolute ticks of y. */
long double tsync__curve_at(const struct tsync__window *w, size_t n, tsync_time x);

/* The cubic between windows l and r that meets both with their values and slopes
 * (Hermite's), at x. A piece's windows carried on past the last one along its
 * slope to the piece's end were off by the clock's bend: 2.7 us over 30 s of a
 * drift changing by 0.006 ppm/s (class c of bench_accuracy). */
long double tsync__window_bridge(const struct tsync__window *l, const struct tsync__window *r,
                                 long double x);

/* The local minimax lines of a pair's one-way samples (each kind sorted by x), for a
 * pair without windows: at up to 4096 samples, the value and slope of the line that
 * violates the constraints of the nearest samples least (K each way, K chosen by
 * cross-validation), as windows marked local; none without samples both ways or
 * where most messages of one direction wait. 0 or TSYNC_ENOMEM (w empty). */
int tsync__local_lines(struct tsync__windows *w, const struct tsync__pair_samples *s,
                       const struct tsync__est_params *p);

/* The curve of a pair's ClockOffset records (s->rec, sorted by x; those within
 * `near` of each other merged), as windows marked local, where they lie at most
 * `reach` apart from the pair's first sample to its last; else none. 0 or
 * TSYNC_ENOMEM (w empty). */
int tsync__record_curve(struct tsync__windows *w, const struct tsync__pair_samples *s,
                        int64_t reach, int64_t near);

/* The envelope of a pair's one-way samples (each kind sorted by x) for the pieces
 * ps fitted to them, without the constraints that others imply under max_drift.
 * 0 or TSYNC_ENOMEM (env empty). */
int tsync__envelope_build(struct tsync__envelope *env, const struct tsync__pair_samples *s,
                          const struct tsync__pieces *ps, double max_drift);
void tsync__envelope_free(struct tsync__envelope *env);
/* Where tsync__envelope_at looked last on each side: asked in order of x, it moves
 * on from there (zeroed to start). */
struct tsync__envelope_cursor {
    size_t up, lo;
};
/* The range [*lo, *hi] (absolute ticks of y) that every curve passing the
 * envelope's knots with |y''| <= w keeps at x: each side where its knots bracket x,
 * else infinite. 1, or 0 where the two sides contradict each other there. */
int tsync__envelope_at(const struct tsync__envelope *env, struct tsync__envelope_cursor *at,
                       tsync_time x, double w, long double *lo, long double *hi);

/* Joins a fit's pieces into one continuous, monotone function over [from, to]:
 * each piece's estimate over its samples, straight lines across the gaps between
 * pieces, the first and last piece extended to the ends. The bound at each point
 * is the farthest value the adjacent pieces' ranges allow there, so that linear
 * interpolation of the bounds covers the whole segment (the ranges are convex).
 * 0 or TSYNC_ENOMEM. */
int tsync__pwl_from_fit(struct tsync__pwl *out, const struct tsync__pair_fit *fit, tsync_time from,
                        tsync_time to);

/* The bound at x for `value` (absolute ticks of y) under the piece that holds at x,
 * or outside every piece's samples the one nearest in time, with the wander margin:
 * how far from `value` the function of tsync__pwl_from_fit may lie there. INFINITY
 * without pieces or where that piece is one-sided. */
double tsync__fit_bound_at(const struct tsync__pair_fit *fit, tsync_time x, long double value);

/* Lowers the bounds of f, a pair function from tsync__pwl_from_fit, where a piece
 * leaves its slope open: the nearest piece with a fixed slope, extrapolated with the
 * wander margin, holds there too. Like the envelope, for the maps' bounds only. */
int tsync__pwl_open_bounds(const struct tsync__pair_fit *fit, struct tsync__pwl *f);

/* Lowers the bounds of f, a pair function from tsync__pwl_from_fit, to the fit's
 * envelope's where that is smaller over a whole segment, where the pieces' bounds
 * are guaranteed; where they are statistical (the regression's), raises them to the
 * envelope's where that is larger, so that a bound is a promise wherever the
 * constraints bracket the point; beyond a side's first and last constraint, that
 * side goes on as steeply as max_drift allows. The pairs' weights in the graph stay
 * those of their pieces: the envelope is for the bounds of the maps. f gets a point
 * where both sides' constraints begin and end. 0 or TSYNC_ENOMEM. */
int tsync__envelope_bound(const struct tsync__pair_fit *fit, struct tsync__pwl *f);

#endif
