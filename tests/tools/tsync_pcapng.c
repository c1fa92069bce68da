/* tsync_pcapng.c - writes OUTDIR/merged.pcapng from three made-up captures through
 * the merge (io/pcapng_merge.c), so that tests can read it with other tools.
 *
 *   tsync_pcapng OUTDIR PACKETS      e.g. tsync_pcapng out 1000
 *
 * The captures: host alpha (Ethernet, snaplen 262144), beta (raw IP, 65535) and
 * gamma (Linux SLL, snaplen 96, so that long packets are cut), PACKETS packets each,
 * of 1 to 1514 bytes, times 0 to 1500 ns apart on a 500 ns grid
 * (alpha's and gamma's the same, so that they share some times, beta's 250 ns off), each
 * capture in time order. Each packet's bytes are its host's number, then its index
 * in the capture (32 bits), then bytes of a counter.
 *
 * Prints every packet as `SECONDS.NANOSECONDS<TAB>HOST<TAB>LENGTH<TAB>CAPTURED`
 * (tshark's frame.time_epoch, frame.interface_name, frame.len, frame.cap_len), all
 * of alpha's, then beta's, then gamma's: a stable sort on the time gives the merged
 * file's order. Exit status 0, 1 when the file cannot be written (the error on
 * stderr), 2 usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/pcapng_write.h"
#include "tracesync/common.h"

struct capture {
    const char *host;
    uint16_t linktype;
    uint32_t snaplen;
    uint32_t host_no, n, done;
    uint64_t rng;
    int64_t time_ns;
    uint8_t data[1514];
};

static uint32_t draw(struct capture *c, uint32_t below)
{
    c->rng = c->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(c->rng >> 33) % below;
}

/* The next packet; when `print`, its line too. */
static int next_packet(struct capture *c, struct tsync__pcapng_packet *p, int print)
{
    uint32_t len;
    if (c->done == c->n)
        return 0;
    c->time_ns += 500 * (int64_t)draw(c, 4); /* 0 to 1500 ns later: some equal */
    len = 1 + draw(c, 1514);
    c->data[0] = (uint8_t)c->host_no;
    for (uint32_t k = 1; k < len; k++)
        c->data[k] = (uint8_t)(k < 5 ? c->done >> (8 * (k - 1)) : k + c->done);
    p->time_ns = c->time_ns;
    p->data = c->data;
    p->origlen = len;
    p->caplen = len < c->snaplen ? len : c->snaplen;
    if (print)
        printf("%lld.%09lld\t%s\t%u\t%u\n", (long long)(p->time_ns / 1000000000),
               (long long)(p->time_ns % 1000000000), c->host, p->origlen, p->caplen);
    c->done++;
    return 1;
}

static int next(void *payload, struct tsync__pcapng_packet *p, tsync_ctx *ctx)
{
    (void)ctx;
    return next_packet(payload, p, 0);
}

static void init(struct capture c[3], uint32_t n)
{
    static const struct { const char *host; uint16_t linktype; uint32_t snaplen; } kinds[3] = {
        { "alpha", 1, 262144 }, { "beta", 101, 65535 }, { "gamma", 113, 96 }
    };
    for (uint32_t i = 0; i < 3; i++) {
        memset(&c[i], 0, sizeof(c[i]));
        c[i].host = kinds[i].host;
        c[i].linktype = kinds[i].linktype;
        c[i].snaplen = kinds[i].snaplen;
        c[i].host_no = i;
        c[i].n = n;
        c[i].rng = 1000 + i;
        /* alpha and gamma on one grid (equal times), beta between */
        c[i].time_ns = 1700000000123456789ll + (i == 1 ? 250 : 0);
    }
}

int main(int argc, char **argv)
{
    struct capture c[3];
    struct tsync__pcapng_input in[3];
    struct tsync__pcapng_packet p;
    tsync_ctx *ctx;
    char *end;
    unsigned long n;
    int rc;
    if (argc != 3 || (n = strtoul(argv[2], &end, 10)) > UINT32_MAX || *end) {
        fprintf(stderr, "usage: tsync_pcapng OUTDIR PACKETS\n");
        return 2;
    }
    init(c, (uint32_t)n); /* the expected lines, from a first pass */
    for (int i = 0; i < 3; i++)
        while (next_packet(&c[i], &p, 1))
            ;
    init(c, (uint32_t)n);
    for (int i = 0; i < 3; i++)
        in[i] = (struct tsync__pcapng_input){ c[i].linktype, c[i].snaplen, c[i].host,
                                              NULL, next, &c[i] };
    in[1].description = "beta: raw IP, times corrected";
    if (tsync_ctx_new(&ctx))
        return 1;
    rc = tsync__pcapng_merge(argv[1], in, 3, NULL, ctx);
    if (rc)
        fprintf(stderr, "%s\n", tsync_ctx_error(ctx));
    tsync_ctx_free(ctx);
    return rc ? 1 : 0;
}
