/* text.c - text that grows as it is written (see text.h). */
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

void tsync__text_putn(struct tsync__text *t, const char *s, size_t n)
{
    if (t->bad)
        return;
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        char *p;
        while (cap < t->n + n + 1)
            cap *= 2;
        if (!(p = realloc(t->s, cap))) {
            t->bad = 1;
            return;
        }
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
}

void tsync__text_put(struct tsync__text *t, const char *s)
{
    tsync__text_putn(t, s, strlen(s));
}

void tsync__text_i64(struct tsync__text *t, int64_t v)
{
    char b[24], *p = b + sizeof(b);
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    tsync__text_putn(t, p, (size_t)(b + sizeof(b) - p));
}

void tsync__text_free(struct tsync__text *t)
{
    free(t->s);
    memset(t, 0, sizeof(*t));
}
