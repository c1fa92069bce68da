/* text.h - text that grows as it is written: JSON documents too large to build as
 * trees first (a maps file of 10^5 points per map).
 *
 * A failed allocation marks the text (bad) and later writes do nothing, so that a
 * writer checks once at the end.
 */
#ifndef TSYNC_UTIL_TEXT_H
#define TSYNC_UTIL_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct tsync__text {
    char *s;        /* NUL-terminated once anything is written; malloc'ed */
    size_t n, cap;
    int bad;        /* out of memory: s holds what came before */
};

/* Appends s[0, n). */
void tsync__text_putn(struct tsync__text *t, const char *s, size_t n);
/* Appends the string s. */
void tsync__text_put(struct tsync__text *t, const char *s);
/* Appends v in decimal, as printf's %lld writes it. */
void tsync__text_i64(struct tsync__text *t, int64_t v);
/* Frees the text; t is empty afterwards. */
void tsync__text_free(struct tsync__text *t);

#endif
