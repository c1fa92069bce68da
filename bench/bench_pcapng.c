/* bench_pcapng.c - speed of the pcapng writer (io/pcapng_write.c) and of the merge
 * (io/pcapng_merge.c), against the floor: libpcap's pcap_dump writing the same
 * packets as a classic nanosecond pcap file.
 *
 * Usage: bench_pcapng [PACKETS] [DIR]   (default 1000000 packets in ./bench-pcapng)
 * Packets of mixed sizes, as in TCP traffic: 40 % of 66 bytes (acknowledgements),
 * 30 % of 1514 (full segments), 30 % from 60 to 1514 bytes, made before the clock
 * starts. Every run ends with the file on disk (fsync): the writer's close syncs its
 * output before moving it into place, and the floor is synced too.
 * Prints: stage=... fmt=... packets=N seconds=S packets/s=R MB/s=M bytes/packet=B
 * (MB/s of the file written, bytes/packet of the file). Each file is removed after
 * its run.
 */
#define _DEFAULT_SOURCE /* u_char and u_int, which pcap.h uses */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "io/pcapng_write.h"
#include "util/fs.h"
#include "util/str.h"

#define T0 1700000000000000000ll
#define INPUTS 4 /* merged captures */

static uint8_t frame[1514];
static uint16_t *lens;

static void make_packets(uint64_t n)
{
    uint64_t x = 88172645463325252ull;
    if (!(lens = malloc(n * sizeof(*lens)))) {
        fprintf(stderr, "bench_pcapng: out of memory\n");
        exit(2);
    }
    for (size_t k = 0; k < sizeof(frame); k++)
        frame[k] = (uint8_t)(k * 31 + 7);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t r;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        r = (uint32_t)(x % 100);
        lens[i] = r < 40 ? 66 : r < 70 ? 1514 : (uint16_t)(60 + (x >> 32) % 1455);
    }
}

static void report(const char *stage, const char *fmt, uint64_t n, double s, const char *path)
{
    struct stat sb;
    double bytes = stat(path, &sb) == 0 ? (double)sb.st_size : 0;
    printf("stage=%-10s fmt=%-6s packets=%llu seconds=%.3f packets/s=%.3g MB/s=%.0f "
           "bytes/packet=%.1f\n",
           stage, fmt, (unsigned long long)n, s, (double)n / s, bytes / s / 1e6, bytes / (double)n);
    fflush(stdout);
    unlink(path); /* the next run does not pay for this one's pages */
}

/* The writer alone: one interface, packet after packet. */
static void bench_write(uint64_t n, const char *dir, tsync_ctx *ctx)
{
    struct tsync__pcapng_writer *w;
    char *path = tsync__path_join(dir, "write.pcapng");
    uint32_t id;
    double t0 = bench_now();
    if (tsync__pcapng_open(&w, dir, "write.pcapng", ctx) ||
        tsync__pcapng_add_interface(w, 1, 65535, "eth0", "bench", &id))
        bench_fail("bench_pcapng", ctx, "write");
    for (uint64_t i = 0; i < n; i++)
        if (tsync__pcapng_write_packet(w, id, T0 + 1000 * (int64_t)i, frame, lens[i], lens[i]))
            bench_fail("bench_pcapng", ctx, "write");
    if (tsync__pcapng_close(w))
        bench_fail("bench_pcapng", ctx, "write");
    report("write", "pcapng", n, bench_now() - t0, path);
    free(path);
}

/* A merge input: every INPUTS-th packet of the whole, from `next` on. */
struct input {
    uint64_t next, n;
};

static int input_next(void *payload, struct tsync__pcapng_packet *p, tsync_ctx *ctx)
{
    struct input *in = payload;
    (void)ctx;
    if (in->next >= in->n)
        return 0;
    p->time_ns = T0 + 1000 * (int64_t)in->next;
    p->data = frame;
    p->caplen = p->origlen = lens[in->next];
    in->next += INPUTS;
    return 1;
}

/* The merge of INPUTS captures that interleave packet by packet. */
static void bench_merge(uint64_t n, const char *dir, tsync_ctx *ctx)
{
    static const char *const hosts[INPUTS] = { "h0", "h1", "h2", "h3" };
    struct tsync__pcapng_input in[INPUTS];
    struct input st[INPUTS];
    char *path = tsync__path_join(dir, TSYNC__PCAPNG_MERGED);
    double t0;
    for (int i = 0; i < INPUTS; i++) {
        st[i] = (struct input){ (uint64_t)i, n };
        in[i] = (struct tsync__pcapng_input){ 1, 65535, hosts[i], NULL, input_next, &st[i] };
    }
    t0 = bench_now();
    if (tsync__pcapng_merge(dir, in, INPUTS, NULL, ctx))
        bench_fail("bench_pcapng", ctx, "merge");
    report("merge", "pcapng", n, bench_now() - t0, path);
    free(path);
}

/* The floor: libpcap's pcap_dump, nanosecond pcap, synced like the writer's file. */
static void bench_floor(uint64_t n, const char *dir)
{
    char *path = tsync__path_join(dir, "floor.pcap");
    pcap_t *p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
                                                     PCAP_TSTAMP_PRECISION_NANO);
    pcap_dumper_t *d;
    double t0 = bench_now();
    if (!p || !path || !(d = pcap_dump_open(p, path))) {
        fprintf(stderr, "bench_pcapng: %s: %s\n", path, p ? pcap_geterr(p) : "pcap_open_dead");
        exit(2);
    }
    for (uint64_t i = 0; i < n; i++) {
        int64_t t = T0 + 1000 * (int64_t)i;
        struct pcap_pkthdr h;
        h.ts.tv_sec = (time_t)(t / 1000000000);
        h.ts.tv_usec = (suseconds_t)(t % 1000000000); /* nanoseconds in a nano pcap */
        h.caplen = h.len = lens[i];
        pcap_dump((u_char *)d, &h, frame);
    }
    if (pcap_dump_flush(d) || fsync(fileno(pcap_dump_file(d)))) {
        fprintf(stderr, "bench_pcapng: %s: cannot write\n", path);
        exit(2);
    }
    pcap_dump_close(d);
    report("pcap_dump", "pcap", n, bench_now() - t0, path);
    pcap_close(p);
    free(path);
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    const char *dir = argc > 2 ? argv[2] : "bench-pcapng";
    tsync_ctx *ctx;
    if (n == 0 || tsync_ctx_new(&ctx)) {
        fprintf(stderr, "usage: bench_pcapng [PACKETS] [DIR]\n");
        return 2;
    }
    make_packets(n);
    if (tsync__mkdirs(dir, ctx))
        bench_fail("bench_pcapng", ctx, dir);
    bench_floor(n, dir);
    bench_write(n, dir, ctx);
    bench_merge(n, dir, ctx);
    tsync__remove_tree(dir);
    tsync_ctx_free(ctx);
    free(lens);
    return 0;
}
