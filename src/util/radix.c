/* radix.c - in-place most-significant-digit radix sort ("American flag sort",
 * McIlroy, Bostic and McIlroy, Engineering Radix Sort, 1993).
 *
 * Each pass counts the records per value of one 8-bit digit of the key, from the
 * top, and moves every record into its digit's range by swaps (each swap puts one
 * record in place for good); each range then goes on with the next digit. Ranges
 * of a few dozen records are finished by insertion sort with the caller's
 * comparison, which also orders records of equal keys; a larger range whose keys
 * have no digit left is all one key, and goes to qsort. The first digit is the one
 * that holds the highest set bit of the largest key, so that small keys (event
 * numbers) take no passes over digits that are zero everywhere.
 */
#include <stdlib.h>
#include <string.h>

#include "util/radix.h"

#define DIGIT_BITS 8
#define DIGITS (1u << DIGIT_BITS)
#define SMALL 32 /* ranges this short are insertion-sorted */
#define PREFETCH 8 /* records ahead in a digit's range */
#if defined(__GNUC__)
#define PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#else
#define PREFETCH_WRITE(p) ((void)(p))
#endif

struct job {
    size_t size;
    tsync__radix_key_fn key;
    const void *arg;
    int (*cmp)(const void *, const void *);
};

/* memcpy of a record: a word at a time where its size is a multiple of 8 bytes (as
 * most are), which the compiler keeps inline, where a memcpy of a size it does not
 * know is a call. */
static void copy(unsigned char *to, const unsigned char *from, size_t size)
{
    if (size % 8 == 0) {
        for (size_t i = 0; i < size; i += 8) {
            uint64_t x;
            memcpy(&x, from + i, 8);
            memcpy(to + i, &x, 8);
        }
        return;
    }
    memcpy(to, from, size);
}

static void swap(unsigned char *a, unsigned char *b, size_t size)
{
    unsigned char t[TSYNC__RADIX_MAX_SIZE];
    copy(t, a, size);
    copy(a, b, size);
    copy(b, t, size);
}

/* Insertion sort, comparing the keys first: cmp only for records of one key. */
static void insertion_sort(unsigned char *b, size_t n, const struct job *j)
{
    unsigned char t[TSYNC__RADIX_MAX_SIZE];
    size_t size = j->size;
    for (size_t i = 1; i < n; i++) {
        uint64_t key = j->key(b + i * size, j->arg), other;
        size_t k = i;
        while (k > 0 && ((other = j->key(b + (k - 1) * size, j->arg)) > key ||
                         (other == key && j->cmp(b + (k - 1) * size, b + i * size) > 0)))
            k--;
        if (k == i)
            continue;
        copy(t, b + i * size, size);
        memmove(b + (k + 1) * size, b + k * size, (i - k) * size);
        copy(b + k * size, t, size);
    }
}

/* Sorts b[0, n), whose keys agree above bit shift + DIGIT_BITS (shift < 0: on all
 * bits). */
static void sort_range(unsigned char *b, size_t n, int shift, const struct job *j)
{
    size_t count[DIGITS], next[DIGITS], end[DIGITS], size = j->size;
    for (; shift >= 0; shift -= DIGIT_BITS) {
        size_t at = 0, used = 0;
        if (n <= SMALL) {
            insertion_sort(b, n, j);
            return;
        }
        memset(count, 0, sizeof(count));
        for (size_t i = 0; i < n; i++)
            count[(j->key(b + i * size, j->arg) >> shift) & (DIGITS - 1)]++;
        for (unsigned d = 0; d < DIGITS; d++) {
            next[d] = at;
            at += count[d];
            end[d] = at;
            used += count[d] != 0;
        }
        if (used == 1)
            continue;   /* one value of this digit everywhere: the next digit */
        for (unsigned d = 0; d < DIGITS; d++) {
            while (next[d] < end[d]) {
                unsigned char *x = b + next[d] * size;
                unsigned dx = (unsigned)((j->key(x, j->arg) >> shift) & (DIGITS - 1));
                if (dx == d) {
                    next[d]++;
                } else {
                    swap(x, b + next[dx]++ * size, size);
                    /* Each digit's range fills from its start, a stream per digit: too
                     * many for the hardware to prefetch, so the line a few records on
                     * is asked for now, and the next swap into this digit hits cache. */
                    if (next[dx] + PREFETCH < end[dx])
                        PREFETCH_WRITE(b + (next[dx] + PREFETCH) * size);
                }
            }
        }
        for (unsigned d = 0; d < DIGITS; d++)
            if (count[d] > 1)
                sort_range(b + (end[d] - count[d]) * size, count[d], shift - DIGIT_BITS, j);
        return;
    }
    if (n <= SMALL)
        insertion_sort(b, n, j);
    else
        qsort(b, n, size, j->cmp);   /* one key: cmp alone orders them */
}

void tsync__radix_sort(void *base, size_t n, size_t size, tsync__radix_key_fn key,
                       const void *arg, int (*cmp)(const void *, const void *))
{
    struct job j = { size, key, arg, cmp };
    uint64_t max = 0;
    int top = 0;
    if (n < 2)
        return;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key((unsigned char *)base + i * size, arg);
        if (k > max)
            max = k;
    }
    while (top + DIGIT_BITS < 64 && (max >> (top + DIGIT_BITS)) != 0)
        top += DIGIT_BITS;
    sort_range(base, n, max ? top : -1, &j);
}
