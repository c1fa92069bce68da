/* gamma.c - the controller of the control variable gamma (seed 002, sections 3.1
 * and 5.2): the error of a forward pass, the gamma of the next pass, and whether
 * a pass was worth its smaller gamma.
 *
 * gamma < 1 makes LC' run slower than C after a jump, so that corrections fade
 * instead of piling up from receive to receive ("avalanche effect": LC' faster
 * than the fastest clock). The controller watches that symptom, as Scalasca
 * does: the correction still present at each location's last event, relative to
 * the length of the run. The seed asks for gamma < 1 - epsilon in the first pass
 * and a smaller gamma in every further pass; ours multiplies 1 - gamma by ten
 * (0.99999, 0.9999, 0.999, 0.99, 0.9), then gamma by 0.9.
 */
#include "clc/clc.h"

int tsync__clc_error(const struct clc *c, double *error)
{
    const struct tsync_trace *t = c->t;
    int64_t first = INT64_MAX, last = INT64_MIN, lead = 0;
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        uint64_t n = t->locations[l].n_events;
        if (n == 0 || !clc_held(c, l))
            continue;
        if (c->in[l][0] < first)
            first = c->in[l][0];
        if (c->in[l][n - 1] > last)
            last = c->in[l][n - 1];
        if (c->out[l][n - 1] - c->in[l][n - 1] > lead)
            lead = c->out[l][n - 1] - c->in[l][n - 1];
    }
    if (c->tr) {            /* the same three over every process: one decision everywhere */
        int64_t v[3] = { first == INT64_MAX ? INT64_MIN : -first, last, lead };
        int rc = c->tr->reduce(c->tr->arg, v, 3, 0);
        if (rc)
            return rc;
        first = v[0] == INT64_MIN ? INT64_MAX : -v[0];
        last = v[1];
        lead = v[2];
    }
    *error = lead == 0 ? 0.0 : (double)lead / (double)(last > first ? last - first : 1);
    return 0;
}

double tsync__clc_next_gamma(double gamma)
{
    double tenfold = 1.0 - 10.0 * (1.0 - gamma), shrink = 0.9 * gamma;
    return tenfold > shrink ? tenfold : shrink;
}

int tsync__clc_improved(double before, double now)
{
    return now < 0.9 * before;
}
