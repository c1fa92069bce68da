/* pairings.h - per pair of packet captures, the paired packets received before they
 * were sent (pairings.c), for the sync report. */
#ifndef TSYNC_CHECK_PAIRINGS_H
#define TSYNC_CHECK_PAIRINGS_H

#include "trace/trace.h"

/* Sets each of t->pairings' reversed_before (after 0) or reversed_after (after 1):
 * its messages with the receive before the send in tl. Cannot fail. */
void tsync__check_pairings(struct tsync_trace *t, const tsync_timeline *tl, int after);

#endif
