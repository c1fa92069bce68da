/* tsync_distort_pcap.c - rewrites a capture's timestamps by a known clock model, for
 * tests that synchronize it against its original: t' = t + offset + skew (t - t0)
 * + wander sin(2 pi (t - t0) / period), t0 its first packet's time. The packets,
 * their order and the link type stay; the output is nanosecond pcap.
 *
 * usage: tsync_distort_pcap IN OUT OFFSET_NS SKEW_PPM [WANDER_NS PERIOD_S]
 */
#define _DEFAULT_SOURCE /* u_char and u_int, which pcap.h uses */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <pcap/pcap.h>

int main(int argc, char **argv)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *in, *dead;
    pcap_dumper_t *d;
    struct pcap_pkthdr *h;
    const unsigned char *data;
    double offset, skew, wander = 0, period = 1;
    long long t0 = -1;
    if (argc != 5 && argc != 7) {
        fprintf(stderr, "usage: tsync_distort_pcap IN OUT OFFSET_NS SKEW_PPM [WANDER_NS PERIOD_S]\n");
        return 2;
    }
    offset = atof(argv[3]);
    skew = atof(argv[4]) * 1e-6;
    if (argc == 7) {
        wander = atof(argv[5]);
        period = atof(argv[6]);
    }
    if (!(in = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, err))) {
        fprintf(stderr, "tsync_distort_pcap: %s\n", err);
        return 2;
    }
    dead = pcap_open_dead_with_tstamp_precision(pcap_datalink(in), pcap_snapshot(in),
                                                PCAP_TSTAMP_PRECISION_NANO);
    if (!dead || !(d = pcap_dump_open(dead, argv[2]))) {
        fprintf(stderr, "tsync_distort_pcap: %s: cannot write\n", argv[2]);
        return 2;
    }
    while (pcap_next_ex(in, &h, &data) == 1) {
        long long t = (long long)h->ts.tv_sec * 1000000000 + h->ts.tv_usec, u;
        struct pcap_pkthdr out = *h;
        if (t0 < 0)
            t0 = t;
        u = t + llround(offset + skew * (double)(t - t0) +
                        wander * sin(2 * M_PI * (double)(t - t0) * 1e-9 / period));
        out.ts.tv_sec = (time_t)(u / 1000000000);
        out.ts.tv_usec = (suseconds_t)(u % 1000000000);
        pcap_dump((unsigned char *)d, &out, data);
    }
    pcap_dump_close(d);
    pcap_close(dead);
    pcap_close(in);
    return 0;
}
