/* pcapng_write.h - writing pcapng files (libpcap reads pcapng but cannot write it):
 * the writer (pcapng_write.c) and the merge of several captures into one file
 * (pcapng_merge.c), for `tracesync sync` on network captures.
 *
 * A file is one section: a Section Header Block, an Interface Description Block per
 * interface (link type, snaplen, if_name, if_description, if_tsresol 9: nanosecond
 * timestamps) and an Enhanced Packet Block per packet, all in this machine's byte
 * order (the byte-order magic of the Section Header Block says which). It is written
 * into OUTDIR's temporary directory (util/outdir.h) and moved into place by
 * tsync__pcapng_close only when every write succeeded: all of it or nothing.
 *
 * Link types are the LINKTYPE_* values of the pcap and pcapng specifications (1
 * Ethernet, 101 raw IP, 113 Linux SLL, 276 SLL2), which pcap_datalink()'s DLT_*
 * values are not everywhere: DLT_RAW is 12 or 14, LINKTYPE_RAW is 101.
 */
#ifndef TSYNC_IO_PCAPNG_WRITE_H
#define TSYNC_IO_PCAPNG_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "util/ctx.h"

/* The merged capture's name in OUTDIR (tsync__pcapng_merge). */
#define TSYNC__PCAPNG_MERGED "merged.pcapng"

struct tsync__pcapng_writer;

/* Starts OUTDIR/name: makes OUTDIR if needed and writes the Section Header Block
 * into a file of OUTDIR's temporary directory. Errors name OUTDIR/name. Returns 0
 * with *w the caller's (tsync__pcapng_close or tsync__pcapng_discard end it; ctx
 * must live until then: errors of later calls go there), or
 * TSYNC_EIO / TSYNC_ENOMEM with *w NULL and nothing left in OUTDIR. */
int tsync__pcapng_open(struct tsync__pcapng_writer **w, const char *outdir, const char *name,
                       tsync_ctx *ctx);

/* Adds an interface: its link type, snaplen (0: no limit) and if_name;
 * if_description is written when description is not NULL. Interfaces may be added
 * between packets too. *id (for tsync__pcapng_write_packet) counts 0, 1, ... in
 * order. Returns 0, TSYNC_EINVAL (a name or description longer than 65535 bytes),
 * TSYNC_EIO (a write failed) or TSYNC_ENOMEM. */
int tsync__pcapng_add_interface(struct tsync__pcapng_writer *w, uint16_t linktype,
                                uint32_t snaplen, const char *name, const char *description,
                                uint32_t *id);

/* Writes one packet of interface `iface` at time_ns (nanoseconds since the epoch):
 * caplen bytes of data, of a packet originally origlen bytes long. Returns 0, or
 * TSYNC_EINVAL naming the file and the packet (number from 1) for an unknown
 * interface, a time before the epoch, caplen over origlen or over the interface's
 * snaplen, with the file as it was (the packet left out); TSYNC_EIO when a write
 * failed (File too large, No space left on device): every later call returns it
 * again, and close removes the file. */
int tsync__pcapng_write_packet(struct tsync__pcapng_writer *w, uint32_t iface, int64_t time_ns,
                               const uint8_t *data, uint32_t caplen, uint32_t origlen);

/* Packets written so far. */
uint64_t tsync__pcapng_packets(const struct tsync__pcapng_writer *w);

/* Ends the file and frees w: the last writes, the flush and the close are checked,
 * and only then is the file moved to OUTDIR/name (replacing an earlier one), or held
 * with the other outputs while ctx holds outputs (tsync_ctx_hold_outputs). Returns
 * 0, or TSYNC_EIO with nothing left in OUTDIR: the first write that failed, in this
 * call or an earlier one ("OUTDIR/name: cannot write: REASON; nothing was
 * written"), or the move into place that failed. NULL is a no-op. */
int tsync__pcapng_close(struct tsync__pcapng_writer *w);

/* Ends the file unfinished and frees w: nothing is left in OUTDIR. NULL is a no-op.
 * Cannot fail. */
void tsync__pcapng_discard(struct tsync__pcapng_writer *w);

/* --- The merge (pcapng_merge.c) ------------------------------------------------- */

/* One packet of a merge input, with its corrected time. */
struct tsync__pcapng_packet {
    int64_t time_ns;     /* nanoseconds since the epoch, on the reference clock */
    const uint8_t *data; /* caplen bytes, valid until this input's next call of next */
    uint32_t caplen, origlen;
};

/* One input of a merge: one capture's interface, one host; an interface of the
 * merged file. The merge never looks at how the reader keeps its packets: it asks
 * each input for its next packet, one at a time, and holds one pending packet per
 * input (so `data` must stay valid while other inputs are asked). */
struct tsync__pcapng_input {
    uint16_t linktype;       /* LINKTYPE_* of the capture */
    uint32_t snaplen;        /* of the capture, 0 for no limit */
    const char *host;        /* the interface's if_name: the host's name */
    const char *description; /* if_description, or NULL for the host's name */
    /* Sets *p to the input's next packet, in the capture's order, and returns 1;
     * returns 0 after the last one, or a negative TSYNC_E* with the detail in ctx
     * (the merge then stops and writes nothing). */
    int (*next)(void *payload, struct tsync__pcapng_packet *p, tsync_ctx *ctx);
    void *payload;
};

/* What a merge wrote. */
struct tsync__pcapng_merge_stats {
    uint64_t packets;
    /* Packets written with a time earlier than the packet before them: none when every
     * input is in time order; an input that steps back keeps its own order. */
    uint64_t out_of_order;
};

/* Writes OUTDIR/merged.pcapng (TSYNC__PCAPNG_MERGED): interface i is input i, and the
 * packets of all inputs are interleaved in time order by a k-way merge of the
 * inputs' streams, each expected in time order already; equal times go in input
 * order (input 0 first), and each input's packets keep their order. stats may be
 * NULL. Returns 0, or the first error (an input's, or the writer's: TSYNC_EINVAL,
 * TSYNC_EIO, TSYNC_ENOMEM) with nothing left in OUTDIR. */
int tsync__pcapng_merge(const char *outdir, const struct tsync__pcapng_input *in, size_t n,
                        struct tsync__pcapng_merge_stats *stats, tsync_ctx *ctx);

#endif
