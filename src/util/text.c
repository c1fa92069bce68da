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

/* "00" .. "99". */
static const char PAIRS[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                               "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                               "8081828384858687888990919293949596979899";

char *tsync__i64_text(char *end, int64_t v)
{
    char *p = end;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    while (u >= 100) {          /* two digits at a time */
        p -= 2;
        memcpy(p, PAIRS + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10) {
        p -= 2;
        memcpy(p, PAIRS + 2 * u, 2);
    } else {
        *--p = (char)('0' + u);
    }
    if (v < 0)
        *--p = '-';
    return p;
}

void tsync__text_i64(struct tsync__text *t, int64_t v)
{
    char b[TSYNC__I64_CHARS], *p = tsync__i64_text(b + sizeof(b), v);
    tsync__text_putn(t, p, (size_t)(b + sizeof(b) - p));
}

void tsync__text_free(struct tsync__text *t)
{
    free(t->s);
    memset(t, 0, sizeof(*t));
}
