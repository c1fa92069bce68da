/* radix.h - sorting records by a 64-bit key in place: a most-significant-digit radix
 * sort, for the arrays of a record per packet or per message that qsort spent
 * seconds on. */
#ifndef TSYNC_UTIL_RADIX_H
#define TSYNC_UTIL_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* Records of at most this many bytes. */
#define TSYNC__RADIX_MAX_SIZE 64

/* A record's key; arg is the caller's. */
typedef uint64_t (*tsync__radix_key_fn)(const void *rec, const void *arg);

/* Sorts the n records of `size` bytes (at most TSYNC__RADIX_MAX_SIZE) at base into
 * the order of cmp, which must order by key(rec, arg) first and tell any two
 * records apart (a total order: the result is then the only sorted one, whatever
 * the order before). In place: no memory beyond a few KiB of stack. O(n) digit
 * passes for keys that spread, O(n log n) for runs of equal keys (qsort with cmp).
 * Cannot fail. */
void tsync__radix_sort(void *base, size_t n, size_t size, tsync__radix_key_fn key,
                       const void *arg, int (*cmp)(const void *, const void *));

#endif
