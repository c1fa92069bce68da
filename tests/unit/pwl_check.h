/* pwl_check.h - a joined pair function (timemap/pwl.h) against the truth, for the
 * estimation tests. */
#ifndef TSYNC_TEST_PWL_CHECK_H
#define TSYNC_TEST_PWL_CHECK_H

#include <math.h>

#include "timemap/pwl.h"

/* Every true value within the function's bound at x in [from, to] every `step`;
 * the function monotone. Returns the largest |error|. */
static inline long double check_inside(const struct tsync__pwl *w, long double (*truth)(long double),
                                       tsync_time from, tsync_time to, tsync_time step)
{
    long double worst = 0;
    for (size_t i = 1; i < w->n; i++)
        assert_true(w->y[i] >= w->y[i - 1]);
    for (tsync_time x = from; x <= to; x += step) {
        long double err = fabsl(tsync__pwl_eval(w, (long double)x) - truth((long double)x));
        if (!(err <= tsync__pwl_bound(w, (long double)x)))
            fail_msg("at %lld: error %.0Lf outside the bound %.0f", (long long)x, err,
                     tsync__pwl_bound(w, (long double)x));
        worst = err > worst ? err : worst;
    }
    return worst;
}

#endif
