/* sessions.c - seed 000's clock offset arithmetic: one session's exchanges reduced
 * to a (local, master) pair with the slowest dropped, and the linear regression
 * over every kept exchange of the run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/sessions.h"

struct rtt_index {
    uint64_t rtt;
    size_t i;
};

static int by_rtt(const void *pa, const void *pb)
{
    const struct rtt_index *a = pa, *b = pb;
    if (a->rtt != b->rtt)
        return a->rtt < b->rtt ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

int tsc_session_reduce(const struct tsc_exchange *x, size_t n, bool *keep, struct tsc_session *out)
{
    if (n == 0)
        return -1;
    struct rtt_index *r = malloc(n * sizeof *r);
    if (!r)
        return -1;
    for (size_t i = 0; i < n; i++)
        r[i] = (struct rtt_index){ x[i].t_recv - x[i].t_send, i };
    qsort(r, n, sizeof *r, by_rtt);
    size_t kept = n - n / 10; /* the 10 % highest round trips are ignored (seed 000) */
    /* and so are those that waited somewhere: beyond twice the fastest (plus the
     * slack), see sessions.h */
    while (kept > 1 && r[kept - 1].rtt > 2 * r[0].rtt + TSC_RTT_SLACK)
        kept--;
    if (keep)
        memset(keep, 0, n * sizeof *keep);
    double sum_l = 0, sum_m = 0, sum_o = 0, sum_oo = 0, sum_rr = 0;
    for (size_t k = 0; k < kept; k++) {
        const struct tsc_exchange *e = &x[r[k].i];
        /* equal delays both ways: the master stamped the middle of the exchange */
        double mid = (double)e->t_send + (double)(e->t_recv - e->t_send) / 2;
        double off = (double)e->t_master - mid;
        sum_l += mid;
        sum_m += (double)e->t_master;
        sum_o += off;
        sum_oo += off * off;
        sum_rr += (double)r[k].rtt * (double)r[k].rtt;
        if (keep)
            keep[r[k].i] = true;
    }
    free(r);
    double mo = sum_o / (double)kept;
    double var = sum_oo / (double)kept - mo * mo;
    /* each offset is off by half the difference of its two delays, anywhere within
     * half its round trip: uniform there, variance rtt^2 / 12. Exchanges delayed the
     * same way (a loaded machine) share it, and their spread does not show it. */
    var = (var > 0 ? var : 0) + sum_rr / (double)kept / 12;
    *out = (struct tsc_session){ .local = sum_l / (double)kept, .master = sum_m / (double)kept,
                                 .offset = mo, .stddev = sqrt(var),
                                 .n = (uint32_t)n, .kept = (uint32_t)kept };
    return 0;
}

int tsc_fit_line(const double *local, const double *master, size_t n, double *a, double *b)
{
    if (n == 0)
        return -1;
    /* centred sums: ticks are large, their spread small */
    double ml = 0, mm = 0;
    for (size_t i = 0; i < n; i++)
        ml += local[i], mm += master[i];
    ml /= (double)n;
    mm /= (double)n;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (local[i] - ml) * (local[i] - ml);
        sxy += (local[i] - ml) * (master[i] - mm);
    }
    *a = sxx > 0 ? sxy / sxx : 1.0;
    *b = mm - *a * ml;
    return 0;
}
