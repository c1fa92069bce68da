/* vec.c - growing arrays (see vec.h). */
#define _DEFAULT_SOURCE /* madvise */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/vec.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20) /* below, an array has no whole huge page to gain */

/* Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with huge
 * pages. Only advice: where transparent huge pages are off, or on another system,
 * nothing changes. */
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
    if (bytes >= HUGE_MIN && e > a)
        madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

void *tsync__alloc_array(size_t n, size_t size)
{
    void *p;
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX / size || !(p = malloc(n * size)))
        return NULL;
    advise_huge(p, n * size);
    return p;
}

int tsync__reserve(void **items, size_t *cap, size_t need, size_t size)
{
    size_t ncap;
    void *p;
    if (need <= *cap)
        return 0;
    ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / size)
        return -1;
    p = realloc(*items, ncap * size);
    if (!p)
        return -1;
    *items = p;
    *cap = ncap;
    return 0;
}
