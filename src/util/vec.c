/* vec.c - growing arrays (see vec.h). */
#include <stdint.h>
#include <stdlib.h>

#include "util/vec.h"

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
