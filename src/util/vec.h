/* vec.h - growing arrays: the one reallocation policy of the library; and large
 * arrays of known size.
 *
 * Arrays of a value per event or per message run to hundreds of megabytes. Those
 * of 2 MiB and more, made by tsync__alloc_array or grown that large, are backed by
 * huge pages where the kernel allows it (Linux's transparent huge pages, madvise):
 * one page fault and one TLB entry for 2 MiB instead of 512 of each, which the
 * random accesses of matching, the clc and the checks feel as much as the
 * allocation does (a 4 KiB page's fault costs about 3 us on a virtual machine; a
 * huge page's, 0.15 ms). Such an array starts on a huge page; the part of its end
 * that fills no whole one stays in 4 KiB pages, and of the room a grown array has
 * not used yet at most one huge page is touched. It is copied when it grows, not
 * moved by realloc: the advice splits its mapping, which realloc then cannot grow
 * or move either. */
#ifndef TSYNC_UTIL_VEC_H
#define TSYNC_UTIL_VEC_H

#include <stddef.h>

/* Makes room for `need` elements of `size` bytes in *items (capacity *cap),
 * doubling; *items must be malloc'ed (or NULL) and comes back so. Returns 0, or -1
 * when out of memory with *items and *cap unchanged. */
int tsync__reserve(void **items, size_t *cap, size_t need, size_t size);

/* malloc of n elements of `size` bytes (at least one), NULL on overflow or when out
 * of memory; for the large arrays that are not grown. Freed with free(), or grown by
 * tsync__reserve. */
void *tsync__alloc_array(size_t n, size_t size);

/* Appends one element: TSYNC_PUSH(ctx-free) style helper for typed arrays.
 * Evaluates to 0 or -1 (out of memory). */
#define TSYNC_PUSH(arr, n, cap, value)                                                  \
    (tsync__reserve((void **)&(arr), &(cap), (n) + 1, sizeof(*(arr))) ? -1               \
                                                                       : ((arr)[(n)++] = (value), 0))

#endif
