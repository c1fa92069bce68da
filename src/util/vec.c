/* vec.c - growing arrays (see vec.h). */
#define _DEFAULT_SOURCE /* madvise */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/vec.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define HUGE_MIN ((size_t)2 << 20) /* smaller arrays stay in 4 KiB pages */

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
    size_t bytes;
    void *p;
    if (n == 0)
        n = 1;
    if (n > (SIZE_MAX - HUGE_PAGE) / size) /* room to round up */
        return NULL;
    bytes = n * size;
    if (bytes < HUGE_MIN)
        return malloc(bytes);
    /* On a huge page: malloc's 16 bytes past a page lost the first 2 MiB (a quarter
     * of 8). The size rounded up as aligned_alloc wants it; its last part, less
     * than a huge page, stays in 4 KiB pages. */
    if ((p = aligned_alloc(HUGE_PAGE, (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1))))
        advise_huge(p, bytes);
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
    if (ncap * size >= HUGE_MIN) {
        /* Moved to an array of huge pages: advice on the array realloc gave would
         * split its mapping, so that the next realloc copies it anyway, into pages
         * faulted 4 KiB at a time. */
        if (!(p = tsync__alloc_array(ncap, size)))
            return -1;
        if (*cap)
            memcpy(p, *items, *cap * size);
        free(*items);
    } else if (!(p = realloc(*items, ncap * size))) {
        return -1;
    }
    *items = p;
    *cap = ncap;
    return 0;
}
