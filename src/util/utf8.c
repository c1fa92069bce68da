/* utf8.c - names from trace files as JSON strings, whatever their bytes. */
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* The length of the valid sequence at s (> 0), or minus the length of its maximal
 * invalid subpart (< 0), after Unicode table 3-7 (no overlongs, no surrogates, no
 * code point above U+10FFFF). s is not at its terminating NUL. */
static int sequence(const unsigned char *s)
{
    unsigned char lo = 0x80, hi = 0xBF;
    int n;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        n = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        n = 3;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        n = 4;
    else
        return -1;
    if (s[0] == 0xE0)
        lo = 0xA0;
    else if (s[0] == 0xED)
        hi = 0x9F;
    else if (s[0] == 0xF0)
        lo = 0x90;
    else if (s[0] == 0xF4)
        hi = 0x8F;
    for (int i = 1; i < n; i++, lo = 0x80, hi = 0xBF)
        if (s[i] < lo || s[i] > hi) /* also stops at the NUL */
            return -i;
    return n;
}

char *tsync__utf8_repair(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = 0;
    char *out, *o;
    for (int k; *p; p += k < 0 ? -k : k) {
        k = sequence(p);
        len += k < 0 ? sizeof(REPLACEMENT) - 1 : (size_t)k;
    }
    if (!(out = o = malloc(len + 1)))
        return NULL;
    for (p = (const unsigned char *)s; *p;) {
        int k = sequence(p);
        if (k < 0) {
            memcpy(o, REPLACEMENT, sizeof(REPLACEMENT) - 1);
            o += sizeof(REPLACEMENT) - 1;
            p += -k;
        } else {
            memcpy(o, p, (size_t)k);
            o += k;
            p += k;
        }
    }
    *o = '\0';
    return out;
}

int tsync__utf8_repaired_eq(const char *raw, const char *text)
{
    const unsigned char *p = (const unsigned char *)raw;
    size_t at = 0;
    while (*p) {
        int k = sequence(p);
        const char *piece = k < 0 ? REPLACEMENT : (const char *)p;
        size_t n = k < 0 ? sizeof(REPLACEMENT) - 1 : (size_t)k;
        if (strncmp(text + at, piece, n) != 0)
            return 0;
        at += n;
        p += k < 0 ? -k : k;
    }
    return text[at] == '\0';
}

json_t *tsync__json_text(const char *s)
{
    char *r;
    json_t *j;
    if (!s)
        s = "";
    if (!(r = tsync__utf8_repair(s)))
        return NULL;
    j = json_string(r);
    free(r);
    return j;
}
