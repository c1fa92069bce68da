/* sessions.h (internal) - seed 000's offset measurement, the arithmetic part:
 * reducing one session of ping-pong exchanges and fitting the linear correction
 * over all sessions. MPI-free; timesync.c runs the exchanges. */
#ifndef TSYNC_COLLECT_SESSIONS_H
#define TSYNC_COLLECT_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One exchange as the child sees it: its send and receive ticks, and the master's
 * tick in the reply. */
struct tsc_exchange {
    uint64_t t_send, t_master, t_recv;
};

/* One session condensed: the mean (local, master) pair of the kept exchanges. */
struct tsc_session {
    double local, master;   /* ticks */
    double offset;          /* master - local at the pair (ticks) */
    double stddev;          /* of the offset: the kept exchanges' spread and their
                               delay asymmetry, see tsc_session_reduce (ticks) */
    uint32_t n, kept;       /* exchanges, kept after dropping the slowest */
};

/* Ticks (1 ns) of round trip beyond twice the fastest that an exchange may take
 * and still be kept: the timer's and the scheduler's jitter on an idle machine. */
#define TSC_RTT_SLACK 1000

/* Reduces n exchanges (seed 000): drops the 10 % (rounded down) with the highest
 * round trip t_recv - t_send, and also every exchange whose round trip exceeds
 * twice the session's fastest plus TSC_RTT_SLACK; assumes equal delays both ways
 * (the master's stamp meets the mean of send and receive), and condenses the rest
 * into one pair.
 *
 * Why more than seed 000's 10 %: an exchange's offset is off by half the
 * difference of its two one-way delays, at most half its round trip. On a machine
 * loaded by other processes, a process is descheduled between its stamp and its
 * message in many exchanges, not a tenth of them: their round trips stretch to
 * milliseconds, and the mean of the fastest 90 % was seen a millisecond off. The
 * kept ones are each within about the fastest round trip of the truth. On an idle
 * machine the round trips are alike and this drops nothing more.
 * The standard deviation is that of the offset, not only of the kept exchanges'
 * spread: each exchange's asymmetry, uniform within half its round trip, adds its
 * rtt^2 / 12. On a loaded machine every kept exchange can meet the same delay one
 * way (a reply held up by the scheduler for milliseconds); their offsets then agree
 * with one another and are all off by up to half the round trip: a spread of 89 us
 * was seen on a record 1.9 ms off, with round trips of 4 ms.
 * keep[i] says which were kept (may be NULL). Returns 0, or -1 when n is 0. */
int tsc_session_reduce(const struct tsc_exchange *x, size_t n, bool *keep, struct tsc_session *out);

/* Least squares master = a x local + b over n (local, master) points (seed 000:
 * linear regression of all samples). One point, or points at one local time,
 * give a = 1 through their mean. Returns 0, or -1 when n is 0. */
int tsc_fit_line(const double *local, const double *master, size_t n, double *a, double *b);

#endif
