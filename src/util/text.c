/* text.c - text that grows as it is written (see text.h). */
#include <stdlib.h>
#include <string.h>

#include "util/text.h"
#include "util/vec.h"

void tsync__text_putn(struct tsync__text *t, const char *s, size_t n)
{
    if (t->bad)
        return;
    if (tsync__reserve((void **)&t->s, &t->cap, t->n + n + 1, 1)) {
        t->bad = 1;
        return;
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

/* u in decimal just before p, two digits at a time; where it begins. */
static char *pairs_text(char *p, uint64_t u)
{
    while (u >= 100) {
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
    return p;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The eight digits of n < 10^8 written just before p, leading zeros too; their
 * values 0 to 9, one a byte, the first in the lowest. Its two halves of four
 * digits, their pairs, the pairs' digits, each step on all lanes of the word at
 * once (x / 100 as x * 10486 >> 20, exact for x < 10^4; x / 10 as x * 103 >> 10,
 * exact for x < 10^2). */
static uint64_t put_eight(char *p, uint64_t n)
{
    uint64_t x = n / 10000 | n % 10000 << 32, t, c;
    t = x * 10486 >> 20 & 0x0000007F0000007Full;
    x = t | (x - 100 * t) << 16;
    t = x * 103 >> 10 & 0x000F000F000F000Full;
    x = t | (x - 10 * t) << 8;
    c = x | 0x3030303030303030ull;
    memcpy(p - 8, &c, sizeof(c));
    return x;
}
#endif

char *tsync__i64_text(char *end, int64_t v)
{
    char *p = end;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Up to 16 digits eight at a time (the highest eight with their leading zeros,
     * which are then skipped: within 16 bytes of end); more two at a time. */
    if (u >= 100000000 && u < 10000000000000000ull) {
        uint64_t hi = u / 100000000;
        put_eight(p, u - hi * 100000000);
        p -= 8;
        u = hi;
    }
    if (u < 100000000) {
        uint64_t x = put_eight(p, u);
        p -= u ? 8 - (unsigned)__builtin_ctzll(x) / 8 : 1;
    } else {
        p = pairs_text(p, u);
    }
#else
    p = pairs_text(p, u);
#endif
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
