/* select.h - the k-th smallest of an array without sorting it. */
#ifndef TSYNC_UTIL_SELECT_H
#define TSYNC_UTIL_SELECT_H

#include <stddef.h>

/* The value that sorting v[0, n) into ascending order would put at index k (k < n;
 * values that compare equal are alike), in time linear in n on average; v is
 * reordered. NaNs, which order nothing, send it to qsort as sorting them would.
 * Cannot fail. */
long double tsync__select_ld(long double *v, size_t n, size_t k);

#endif
