/* est_params.h - the estimator's parameters as `tracesync estimate` sets them by
 * default, in ns, for the estimation tests that drive the segment driver
 * (tsync__fit_pair) directly. */
#ifndef TSYNC_TEST_EST_PARAMS_H
#define TSYNC_TEST_EST_PARAMS_H

#include <string.h>

#include "estimate/estimator.h"

static inline struct tsync__est_params est_defaults(void)
{
    struct tsync__est_params p;
    memset(&p, 0, sizeof(p));
    p.max_drift = 1e-3;
    p.segment = 1;
    p.min_segment = 1000000000LL;
    p.max_gap = 10 * 1000000000LL;
    p.max_segment = 30 * 1000000000LL;
    p.wander = 1e-8 / 1e9;
    p.window = 5 * 1000000000LL;
    p.slack = 100;
    return p;
}

#endif
