/* vec.h - growing arrays: the one reallocation policy of the library. */
#ifndef TSYNC_UTIL_VEC_H
#define TSYNC_UTIL_VEC_H

#include <stddef.h>

/* Makes room for `need` elements of `size` bytes in *items (capacity *cap),
 * doubling. Returns 0, or -1 when out of memory with *items and *cap unchanged. */
int tsync__reserve(void **items, size_t *cap, size_t need, size_t size);

/* Appends one element: TSYNC_PUSH(ctx-free) style helper for typed arrays.
 * Evaluates to 0 or -1 (out of memory). */
#define TSYNC_PUSH(arr, n, cap, value)                                                  \
    (tsync__reserve((void **)&(arr), &(cap), (n) + 1, sizeof(*(arr))) ? -1               \
                                                                       : ((arr)[(n)++] = (value), 0))

#endif
