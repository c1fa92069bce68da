/* pairings.c - per pair of packet captures, the paired packets received before they
 * were sent, for the sync report (trace.h, struct tsync__packet_pairing): the
 * check's reversed messages (t_recv < t_send) counted per pair of captures, and all
 * pairs, where the check lists only the worst location pairs by violations. */
#include "check/pairings.h"
#include "match/match.h"

void tsync__check_pairings(struct tsync_trace *t, const tsync_timeline *tl, int after)
{
    struct tsync__packet_pairing *last = NULL;
    for (size_t i = 0; i < t->n_pairings; i++)
        *(after ? &t->pairings[i].reversed_after : &t->pairings[i].reversed_before) = 0;
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        tsync_loc lo = m->send_loc < m->recv_loc ? m->send_loc : m->recv_loc;
        tsync_loc hi = m->send_loc < m->recv_loc ? m->recv_loc : m->send_loc;
        if (!last || last->p != lo || last->q != hi)
            last = tsync__packet_pairing_of(t, lo, hi);
        if (last && tl->time[m->recv_loc][m->recv_idx] < tl->time[m->send_loc][m->send_idx])
            ++*(after ? &last->reversed_after : &last->reversed_before);
    }
}
