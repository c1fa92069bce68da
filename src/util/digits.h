/* digits.h - decimal digits read eight bytes at a time: the bytes of a 64-bit word
 * as eight lanes (SWAR), for the parsers of large text files of numbers.
 *
 * Little-endian machines read a word at once; elsewhere the same results come a
 * byte at a time.
 */
#ifndef TSYNC_UTIL_DIGITS_H
#define TSYNC_UTIL_DIGITS_H

#include <stdint.h>
#include <string.h>

/* The number that eight digit values make, one a byte (0 to 9), the first digit in
 * the lowest byte. */
static inline uint64_t tsync__digits_value8(uint64_t x)
{
    x = x * 10 + (x >> 8);      /* pairs of digits in every other byte */
    return (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
            (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
}

/* How many of the eight bytes at p are decimal digits before the first that is
 * not (0 to 8), and in *v the number they make. p[0, 8) must be readable; the
 * bytes after the first that is not a digit do not matter. Cannot fail. */
static inline unsigned tsync__digits8(const char *p, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x, non;
    unsigned n;
    memcpy(&x, p, sizeof(x));
    x ^= 0x3030303030303030ull;    /* '0' .. '9' -> 0 .. 9, anything else above 9 */
    /* A lane above 9 has its high nibble set, or sets it adding 6; a carry out of
     * a lane only reaches lanes after it. */
    non = (x | (x + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull;
    n = non ? (unsigned)__builtin_ctzll(non) / 8 : 8;
    /* The digits to the top lanes, zeros (leading zeros) below. */
    *v = n ? tsync__digits_value8(x << (8 * (8 - n))) : 0;
    return n;
#else
    unsigned n = 0;
    *v = 0;
    while (n < 8 && (unsigned char)(p[n] - '0') <= 9)
        *v = *v * 10 + (uint64_t)(p[n++] - '0');
    return n;
#endif
}

#endif
