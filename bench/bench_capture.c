/* bench_capture.c - `tracesync sync` on two packet captures of PACKETS packets a host,
 * against the floor: mergecap (wireshark-common) merging the same two files by their
 * timestamps, without clock correction. `tracesync check` (read, pair, check) and
 * `tracesync estimate` (read, pair, estimate) on the same files show what the
 * stages before the write take.
 *
 * Usage: bench_capture TRACESYNC [PACKETS] [DIR] [SNAPLEN]
 *        (default 1000000 packets a host in ./bench-capture, snaplen 128)
 * The captures hold one TCP transfer between two hosts seen from both ends, Ethernet,
 * nanosecond pcap: 1448-byte segments one way (1514-byte frames), each answered by an
 * acknowledgement (66 bytes), one packet every 5 us, 2 to 3 us on the wire; every
 * packet is in both captures, and all pair. The client's clock runs 2.5 s ahead and
 * 40 ppm fast. Frames are cut at SNAPLEN bytes, as `tcpdump -s SNAPLEN` does.
 * Each command runs as a child process; its wall time, CPU time (user and system)
 * and peak resident memory (wait4's ru_maxrss) give:
 *   stage=STAGE packets=N seconds=S cpu_seconds=C packets/s=R peak_MB=M bytes/packet=B
 * with N both captures' packets, R over the wall time and B the peak memory over N.
 * sync writes three files (both captures and merged.pcapng) and syncs them to disk
 * before moving them into place; mergecap writes one and does not sync.
 */
#define _DEFAULT_SOURCE /* u_char and u_int (pcap.h), wait4 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define T0 1700000000000000000ll
#define SPACING 5000     /* ns between packets */
#define OFFSET 2500000000.0
#define SKEW 40e-6

/* One frame of the transfer: packet i (even: segment i/2 from the server, odd: the
 * client's acknowledgement of it) into f; returns its length on the wire. */
static uint32_t make_frame(uint8_t *f, uint64_t i)
{
    static const uint8_t mac_s[6] = { 2, 0, 0, 0, 0, 1 }, mac_c[6] = { 2, 0, 0, 0, 0, 2 };
    uint64_t j = i / 2;
    int data = i % 2 == 0;
    uint32_t payload = data ? 1448 : 0, ip_len = 40 + payload;
    uint32_t seq = data ? (uint32_t)(1 + j * 1448) : 1;
    uint32_t ack = data ? 1 : (uint32_t)(1 + (j + 1) * 1448);
    uint8_t *ip = f + 14, *tcp = ip + 20;
    memcpy(f, data ? mac_c : mac_s, 6);
    memcpy(f + 6, data ? mac_s : mac_c, 6);
    f[12] = 0x08, f[13] = 0x00;
    memset(ip, 0, 20);
    ip[0] = 0x45, ip[2] = (uint8_t)(ip_len >> 8), ip[3] = (uint8_t)ip_len, ip[6] = 0x40;
    ip[8] = 64, ip[9] = 6;
    ip[12] = 10, ip[15] = data ? 1 : 2;   /* 10.0.0.1 the server, 10.0.0.2 the client */
    ip[16] = 10, ip[19] = data ? 2 : 1;
    memset(tcp, 0, 20);
    tcp[0] = data ? 0 : 0x9c, tcp[1] = data ? 80 : 0x40;   /* ports 80 and 40000 */
    tcp[2] = data ? 0x9c : 0, tcp[3] = data ? 0x40 : 80;
    for (int k = 0; k < 4; k++) {
        tcp[4 + k] = (uint8_t)(seq >> (24 - 8 * k));
        tcp[8 + k] = (uint8_t)(ack >> (24 - 8 * k));
    }
    tcp[12] = 0x50, tcp[13] = data ? 0x18 : 0x10, tcp[14] = 0xff, tcp[15] = 0xff;
    for (uint32_t k = 0; k < payload && 54 + k < 1514; k++)
        tcp[20 + k] = (uint8_t)(j + k);
    return 14 + ip_len;
}

/* The capture of one host: the server (clock = truth) or the client. */
static void make_capture(const char *path, int client, uint64_t n, uint32_t snaplen)
{
    static uint8_t f[1514];
    pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)snaplen,
                                                        PCAP_TSTAMP_PRECISION_NANO);
    pcap_dumper_t *d = dead ? pcap_dump_open(dead, path) : NULL;
    uint64_t x = 88172645463325252ull;
    if (!d) {
        fprintf(stderr, "bench_capture: %s: %s\n", path, dead ? pcap_geterr(dead) : "no memory");
        exit(2);
    }
    for (uint64_t i = 0; i < n; i++) {
        struct pcap_pkthdr h;
        int sent_here = (i % 2 == 1) == client;
        double t = (double)(i * SPACING), local;
        long long stamp;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (!sent_here)
            t += 2000 + (double)(x % 1000);   /* on the wire */
        local = client ? t + OFFSET + SKEW * t : t;
        stamp = T0 + (long long)local;
        h.len = make_frame(f, i);
        h.caplen = h.len < snaplen ? h.len : snaplen;
        h.ts.tv_sec = (time_t)(stamp / 1000000000);
        h.ts.tv_usec = (suseconds_t)(stamp % 1000000000);
        pcap_dump((u_char *)d, &h, f);
    }
    pcap_dump_close(d);
    pcap_close(dead);
}

/* Runs argv as a child; prints its line. */
static void run(const char *stage, char *const *argv, uint64_t packets)
{
    struct rusage ru;
    int status;
    double start = bench_now(), s, cpu;
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))   /* the summaries */
            _exit(127);
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) > 1) {
        fprintf(stderr, "bench_capture: %s failed\n", argv[0]);
        exit(2);
    }
    s = bench_now() - start;
    cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
          1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    printf("stage=%-9s packets=%llu seconds=%.3f cpu_seconds=%.3f packets/s=%.3g peak_MB=%.1f "
           "bytes/packet=%.1f\n", stage, (unsigned long long)packets, s, cpu, (double)packets / s,
           ru.ru_maxrss / 1024.0, ru.ru_maxrss * 1024.0 / (double)packets);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
    const char *dir = argc > 3 ? argv[3] : "bench-capture";
    uint32_t snaplen = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 128;
    char server[4096], client[4096], out[4096], merged[4096];
    if (argc < 2 || n < 2 || snaplen < 54) {
        fprintf(stderr, "usage: bench_capture TRACESYNC [PACKETS] [DIR] [SNAPLEN >= 54]\n");
        return 2;
    }
    mkdir(dir, 0777);
    snprintf(server, sizeof(server), "%s/server.pcap", dir);
    snprintf(client, sizeof(client), "%s/client.pcap", dir);
    snprintf(out, sizeof(out), "%s/out", dir);
    snprintf(merged, sizeof(merged), "%s/mergecap.pcapng", dir);
    make_capture(server, 0, n, snaplen);
    make_capture(client, 1, n, snaplen);
    {
        char *check[] = { argv[1], "check", "-q", server, client, NULL };
        char *estimate[] = { argv[1], "estimate", "-q", server, client, NULL };
        char *sync[] = { argv[1], "sync", "-q", server, client, "-o", out, NULL };
        char *mergecap[] = { "mergecap", "-w", merged, server, client, NULL };
        run("check", check, 2 * n);
        run("estimate", estimate, 2 * n);
        run("sync", sync, 2 * n);
        run("mergecap", mergecap, 2 * n);
    }
    return 0;
}
