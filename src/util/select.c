/* select.c - the k-th smallest of an array (Hoare's FIND): partition around a pivot,
 * go on in the part that holds index k. The median of three as the pivot; a range
 * that keeps failing to shrink (inputs made against the pivot rule) is sorted. For
 * the medians of 10^5 windows, where sorting them took as long as fitting them.
 */
#include <math.h>
#include <stdlib.h>

#include "util/select.h"

#define SMALL 16 /* ranges this short are insertion-sorted */

static int ld_cmp(const void *pa, const void *pb)
{
    long double a = *(const long double *)pa, b = *(const long double *)pb;
    return a < b ? -1 : a > b;
}

static void swap(long double *a, long double *b)
{
    long double t = *a;
    *a = *b;
    *b = t;
}

long double tsync__select_ld(long double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1, rounds = 0;
    for (size_t i = 0; i < n; i++)
        if (isnan(v[i])) {
            qsort(v, n, sizeof(*v), ld_cmp);
            return v[k];
        }
    while (hi - lo >= SMALL) {
        size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
        long double pivot;
        if (++rounds > 64) {
            qsort(v + lo, hi - lo + 1, sizeof(*v), ld_cmp);
            return v[k];
        }
        /* v[lo] <= v[mid] <= v[hi]: both ends stop the scans below. */
        if (v[mid] < v[lo])
            swap(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap(&v[hi], &v[lo]);
        if (v[hi] < v[mid])
            swap(&v[hi], &v[mid]);
        pivot = v[mid];
        /* Hoare's partition: v[lo, j] <= pivot <= v[i, hi] afterwards, j < i. */
        for (;;) {
            while (v[i] < pivot)
                i++;
            while (pivot < v[j])
                j--;
            if (i >= j)
                break;
            swap(&v[i++], &v[j--]);
        }
        if (i == j) {         /* v[i] is the pivot, in its place */
            if (k == i)
                return v[i];
            i++, j--;
        }
        if (k <= j)
            hi = j;
        else
            lo = i;
    }
    for (size_t a = lo + 1; a <= hi; a++)
        for (size_t b = a; b > lo && v[b] < v[b - 1]; b--)
            swap(&v[b], &v[b - 1]);
    return v[k];
}
