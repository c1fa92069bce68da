/* pcapng_merge.c - several captures, with corrected times, into one pcapng file in
 * time order: a k-way merge over the inputs' streams (a binary min-heap holding one
 * pending packet per input), one interface per input.
 */
#include <stdlib.h>

#include "io/pcapng_write.h"

/* The heap orders by time, then input index: equal times go in input order, and
 * an input's packets, one in the heap at a time, keep theirs. */
struct pending {
    int64_t time_ns;
    size_t input;
};

static int before(const struct pending *a, const struct pending *b)
{
    return a->time_ns < b->time_ns || (a->time_ns == b->time_ns && a->input < b->input);
}

static void sift_down(struct pending *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        struct pending t;
        if (l < n && before(&h[l], &h[m]))
            m = l;
        if (l + 1 < n && before(&h[l + 1], &h[m]))
            m = l + 1;
        if (m == i)
            return;
        t = h[i], h[i] = h[m], h[m] = t;
        i = m;
    }
}

/* Writes the packets of all inputs, smallest (time, input) first. */
static int merge_packets(struct tsync__pcapng_writer *w, const struct tsync__pcapng_input *in,
                         size_t n, const uint32_t *iface, struct tsync__pcapng_packet *pk,
                         struct tsync__pcapng_merge_stats *st, tsync_ctx *ctx)
{
    struct pending *h = malloc((n ? n : 1) * sizeof(*h));
    size_t hn = 0;
    int64_t last = INT64_MIN;
    int rc = TSYNC_OK;
    if (!h)
        return tsync__oom(ctx);
    for (size_t i = 0; i < n && rc == TSYNC_OK; i++) {
        if ((rc = in[i].next(in[i].payload, &pk[i], ctx)) == 1) {
            h[hn].time_ns = pk[i].time_ns;
            h[hn++].input = i;
            rc = TSYNC_OK;
        }
    }
    for (size_t i = hn / 2; i-- > 0;)
        sift_down(h, hn, i);
    while (hn && rc == TSYNC_OK) {
        size_t i = h[0].input;
        const struct tsync__pcapng_packet *p = &pk[i];
        st->out_of_order += p->time_ns < last;
        last = p->time_ns;
        if ((rc = tsync__pcapng_write_packet(w, iface[i], p->time_ns, p->data, p->caplen,
                                             p->origlen)))
            break;
        st->packets++;
        if ((rc = in[i].next(in[i].payload, &pk[i], ctx)) == 1) {
            h[0].time_ns = pk[i].time_ns;
            rc = TSYNC_OK;
        } else if (rc == 0) {
            h[0] = h[--hn];
        }
        sift_down(h, hn, 0);
    }
    free(h);
    return rc;
}

int tsync__pcapng_merge(const char *outdir, const struct tsync__pcapng_input *in, size_t n,
                        struct tsync__pcapng_merge_stats *stats, tsync_ctx *ctx)
{
    struct tsync__pcapng_merge_stats st = { 0, 0 };
    struct tsync__pcapng_writer *w = NULL;
    struct tsync__pcapng_packet *pk = calloc(n ? n : 1, sizeof(*pk));
    uint32_t *iface = calloc(n ? n : 1, sizeof(*iface));
    int rc;
    if (!pk || !iface) {
        rc = tsync__oom(ctx);
        goto out;
    }
    if ((rc = tsync__pcapng_open(&w, outdir, TSYNC__PCAPNG_MERGED, ctx)))
        goto out;
    for (size_t i = 0; i < n && rc == TSYNC_OK; i++)
        rc = tsync__pcapng_add_interface(w, in[i].linktype, in[i].snaplen, in[i].host,
                                         in[i].description ? in[i].description : in[i].host,
                                         &iface[i]);
    if (rc == TSYNC_OK)
        rc = merge_packets(w, in, n, iface, pk, &st, ctx);
    if (rc == TSYNC_OK) {
        rc = tsync__pcapng_close(w);
        w = NULL;
    }
out:
    tsync__pcapng_discard(w);
    if (rc == TSYNC_OK && stats)
        *stats = st;
    free(pk);
    free(iface);
    return rc;
}
