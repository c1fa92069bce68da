/* registry.c - the table of pairwise estimators: the one place that lists them.
 * Parsing --estimator, the range check of the options, the reports' descriptions,
 * the CLI's help and the benchmarks read it; an estimator is one file (its struct
 * tsync__estimator) plus one line here. An estimator's id is its index: the first three are the
 * values of enum tsync_estimator.
 */
#include <string.h>

#include "estimate/estimator.h"

/* No estimation: every domain keeps its time. */
static const struct tsync__estimator none_estimator = {
    "none", NULL, "none: every domain keeps its time", "none", 0, 0,
    NULL, NULL, NULL, NULL, NULL, NULL, NULL
};

static const struct tsync__estimator *const builtin[] = {
    &tsync__hull_estimator,      /* TSYNC_ESTIMATOR_HULL, the default */
    &tsync__regress_estimator,   /* TSYNC_ESTIMATOR_REGRESSION */
    &none_estimator,             /* TSYNC_ESTIMATOR_NONE */
};
#define N_BUILTIN (sizeof(builtin) / sizeof(builtin[0]))

/* Estimators added by tsync__estimator_register (a test's toy estimator). */
#define MAX_ADDED 8
static const struct tsync__estimator *added[MAX_ADDED];
static size_t n_added;

const struct tsync__estimator *tsync__estimator_get(enum tsync_estimator which)
{
    size_t i = (size_t)(unsigned)which;
    return i < N_BUILTIN ? builtin[i] : i - N_BUILTIN < n_added ? added[i - N_BUILTIN] : NULL;
}

const struct tsync__estimator *tsync__estimator_for(enum tsync_estimator which)
{
    const struct tsync__estimator *est = tsync__estimator_get(which);
    return est && est->init ? est : NULL;
}

int tsync__estimator_register(const struct tsync__estimator *est, enum tsync_estimator *id)
{
    enum tsync_estimator k;
    if (!est || !est->name || !est->init || n_added == MAX_ADDED ||
        tsync_estimator_parse(est->name, &k) == 0)
        return TSYNC_EINVAL;
    added[n_added++] = est;
    *id = (enum tsync_estimator)(N_BUILTIN + n_added - 1);
    return 0;
}

unsigned tsync_estimator_count(void)
{
    return (unsigned)(N_BUILTIN + n_added);
}

const char *tsync_estimator_name(enum tsync_estimator which)
{
    const struct tsync__estimator *est = tsync__estimator_get(which);
    return est ? est->name : NULL;
}

const char *tsync_estimator_summary(enum tsync_estimator which)
{
    const struct tsync__estimator *est = tsync__estimator_get(which);
    return est ? est->summary : NULL;
}

int tsync_estimator_parse(const char *name, enum tsync_estimator *out)
{
    for (unsigned i = 0; name && i < tsync_estimator_count(); i++)
        if (strcmp(name, tsync__estimator_get((enum tsync_estimator)i)->name) == 0) {
            *out = (enum tsync_estimator)i;
            return 0;
        }
    return TSYNC_EINVAL;
}
