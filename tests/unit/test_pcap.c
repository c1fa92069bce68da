/* test_pcap.c - packet captures as a trace (io/pcap.c): the shipped pair of real
 * captures, every link type and both IP versions, and bad input with its errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tmpfile.h"
#include "trace/trace.h"
#include "tracesync/pipeline.h"

#define EPOCH 1700000000ll   /* seconds of the synthetic captures' first packet */

static char warned[1024];

static void keep_warning(enum tsync_log_level level, const char *msg, void *payload)
{
    (void)level;
    (void)payload;
    size_t at = strlen(warned);   /* every warning, one a line */
    snprintf(warned + at, sizeof(warned) - at, "%s\n", msg);
}

static char *data_path(const char *name)
{
    const char *d = getenv("TSYNC_TEST_DATA");
    return tsync__strfmt("%s/captures/%s", d ? d : "tests/data", name);
}

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }

/* A nanosecond pcap of link type `link` with n frames frame[i] (len[i] bytes) at
 * EPOCH + time[i] ns; returns its path. */
static char *write_pcap(const char *name, uint32_t link, const unsigned char *const *frame,
                        const size_t *len, const long long *time, size_t n)
{
    char *path = tmp_write("pcap", name, "");
    unsigned char h[24] = { 0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0 };
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    put32(h + 16, 65535);
    put32(h + 20, link);
    fwrite(h, 1, 24, f);
    for (size_t i = 0; i < n; i++) {
        unsigned char r[16];
        put32(r, (uint32_t)(EPOCH + time[i] / 1000000000));
        put32(r + 4, (uint32_t)(time[i] % 1000000000));
        put32(r + 8, (uint32_t)len[i]);
        put32(r + 12, (uint32_t)len[i]);
        fwrite(r, 1, 16, f);
        fwrite(frame[i], 1, len[i], f);
    }
    fclose(f);
    return path;
}

/* An IPv6 TCP segment (no payload) from ::1:x to ::1:y with the flags given. */
static size_t tcp6(unsigned char *p, int from_x, uint8_t flags)
{
    memset(p, 0, 60);
    p[0] = 0x60;
    p[5] = 20;      /* payload length */
    p[6] = 6;       /* TCP */
    p[7] = 64;
    p[8] = 0x20, p[23] = from_x ? 1 : 2;     /* 2000::1 or 2000::2 */
    p[24] = 0x20, p[39] = from_x ? 2 : 1;
    p[40] = from_x ? 0x10 : 0x20;            /* ports 4096 and 8192 */
    p[42] = from_x ? 0x20 : 0x10;
    p[47] = from_x ? 7 : 9;                  /* sequence */
    p[51] = from_x ? 9 : 8;                  /* acknowledgement */
    p[52] = 5 << 4;
    p[53] = flags;
    return 60;
}

/* A frame of link type `link` around an IPv6 packet of n bytes at ip. */
static size_t frame(unsigned char *f, uint32_t link, const unsigned char *ip, size_t n)
{
    size_t h = 0;
    memset(f, 0, 24);
    switch (link) {
    case 1:   /* Ethernet with a VLAN tag */
        f[12] = 0x81, f[16] = 0x86, f[17] = 0xdd, h = 18;
        break;
    case 113: /* SLL */
        f[14] = 0x86, f[15] = 0xdd, h = 16;
        break;
    case 276: /* SLL2 */
        f[0] = 0x86, f[1] = 0xdd, h = 20;
        break;
    default:  /* raw IP */
        break;
    }
    memcpy(f + h, ip, n);
    return h + n;
}

/* The same exchange (x: SYN at 0, y: SYN-ACK at 30 us) seen by x in one link type
 * and by y in another, y's clock 5 s ahead and each direction 10 us on the wire. */
static void pair_of_links(uint32_t link_x, uint32_t link_y)
{
    unsigned char ip[2][60], fx[2][90], fy[2][90];
    const unsigned char *px[2] = { fx[0], fx[1] }, *py[2] = { fy[0], fy[1] };
    size_t lx[2], ly[2];
    long long tx[2] = { 0, 40000 }, ty[2] = { 5000010000ll, 5000030000ll };
    char *paths[2];
    const char *more[1];
    tsync_open_opts o = TSYNC_OPEN_OPTS_INIT;
    tsync_trace *t;
    tsync_ctx *ctx;
    tcp6(ip[0], 1, 0x02);
    tcp6(ip[1], 0, 0x12);
    for (int i = 0; i < 2; i++) {
        lx[i] = frame(fx[i], link_x, ip[i], 60);
        ly[i] = frame(fy[i], link_y, ip[i], 60);
    }
    paths[0] = write_pcap("x.pcap", link_x, px, lx, tx, 2);
    paths[1] = write_pcap("y.pcap", link_y, py, ly, ty, 2);
    more[0] = paths[1];
    o.files = more;
    o.n_files = 1;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_trace_open(&t, paths[0], &o, ctx), 0);
    assert_string_equal(t->nodes[0].name, "x");
    assert_string_equal(t->nodes[1].name, "y");
    assert_int_equal(t->n_messages, 2);
    /* The SYN from x to y, the SYN-ACK from y to x. */
    assert_int_equal(t->messages[0].send_loc, 0);
    assert_int_equal(t->messages[0].send_idx, 0);
    assert_int_equal(t->messages[1].send_loc, 1);
    assert_int_equal(t->messages[1].recv_idx, 1);
    assert_int_equal(t->locations[1].time[0] - t->locations[0].time[0], 5000010000ll);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
    free(paths[0]);
    free(paths[1]);
}

static void test_link_types(void **state)
{
    (void)state;
    pair_of_links(1, 113);     /* Ethernet (VLAN) and SLL */
    pair_of_links(276, 101);   /* SLL2 and raw IP (LINKTYPE_RAW) */
}

/* The link types of a pcapng file's interfaces, in order (as this machine writes). */
static size_t pcapng_links(const char *path, uint16_t *link, size_t max)
{
    unsigned char b[4096];
    size_t n = 0, len, at = 0;
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    len = fread(b, 1, sizeof(b), f);
    fclose(f);
    while (at + 12 <= len && n < max) {
        uint32_t type, size;
        memcpy(&type, b + at, 4);
        memcpy(&size, b + at + 4, 4);
        if (type == 1)
            memcpy(&link[n++], b + at + 8, 2);
        at += size;
    }
    return n;
}

/* sync through the library, nobody holding the outputs: both captures and
 * merged.pcapng land, the merged interfaces with the files' link types (raw IP as
 * LINKTYPE_RAW 101, not libpcap's DLT_RAW), and the pairing kept for the report. */
static void test_sync_writes(void **state)
{
    unsigned char ip[2][60], fx[2][90], fy[2][90];
    const unsigned char *px[2] = { fx[0], fx[1] }, *py[2] = { fy[0], fy[1] };
    size_t lx[2], ly[2];
    long long tx[2] = { 0, 40000 }, ty[2] = { 5000010000ll, 5000030000ll };
    char *paths[2], out[512], *merged;
    const char *more[1];
    uint16_t link[4];
    tsync_open_opts o = TSYNC_OPEN_OPTS_INIT;
    tsync_pipeline_opts po = TSYNC_PIPELINE_OPTS_INIT;
    tsync_pipeline_result *r;
    tsync_ctx *ctx;
    (void)state;
    tcp6(ip[0], 1, 0x02);
    tcp6(ip[1], 0, 0x12);
    for (int i = 0; i < 2; i++) {
        lx[i] = frame(fx[i], 276, ip[i], 60);
        ly[i] = frame(fy[i], 101, ip[i], 60);
    }
    paths[0] = write_pcap("x.pcap", 276, px, lx, tx, 2);
    paths[1] = write_pcap("y.pcap", 101, py, ly, ty, 2);
    more[0] = paths[1];
    o.files = more;
    o.n_files = 1;
    tmp_fresh_dir("pcap", "synced", out, sizeof(out));
    po.stages = TSYNC_STAGES_SYNC;
    po.open = &o;
    po.outdir = out;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_pipeline_run(&r, paths[0], &po, ctx), 0);
    assert_int_equal(tmp_entries(out), 3);   /* x.pcap, y.pcap, merged.pcapng */
    merged = tsync__strfmt("%s/merged.pcapng", out);
    assert_int_equal(pcapng_links(merged, link, 4), 2);
    assert_int_equal(link[0], 276);
    assert_int_equal(link[1], 101);
    assert_int_equal(r->trace->n_pairings, 1);
    assert_int_equal(r->trace->pairings[0].paired, 2);
    assert_int_equal(r->trace->pairings[0].p_to_q, 1);
    tsync_pipeline_result_free(r);
    tsync_ctx_free(ctx);
    free(merged);
    free(paths[0]);
    free(paths[1]);
}

/* The shipped pair: 280 packets each, all paired, every segment received after it
 * was sent (both ends stamped by one clock), the hosts named by the files. */
static void test_shipped(void **state)
{
    char *server = data_path("server.pcap"), *client = data_path("client.pcap");
    const char *more[] = { client }, *names[] = { "client.pcap=laptop" };
    tsync_open_opts o = TSYNC_OPEN_OPTS_INIT;
    tsync_trace *t;
    tsync_ctx *ctx;
    (void)state;
    o.files = more;
    o.n_files = 1;
    o.names = names;
    o.n_names = 1;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_trace_open(&t, server, &o, ctx), 0);
    assert_int_equal(t->n_locations, 2);
    assert_string_equal(t->locations[1].name, client);
    assert_string_equal(t->domains[0].name, "server");
    assert_string_equal(t->domains[1].name, "laptop");
    assert_int_equal(t->timer_resolution, 1000000000);
    assert_int_equal(t->locations[0].n_events, 280);
    assert_int_equal(t->locations[1].n_events, 280);
    /* The first packet as tcpdump stamped it, to the nanosecond. */
    assert_int_equal(t->locations[0].time[0] + (tsync_time)t->global_offset, 1795626913926612994ll);
    assert_int_equal(t->n_messages, 280);
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        assert_true(t->locations[m->recv_loc].time[m->recv_idx] >
                    t->locations[m->send_loc].time[m->send_idx]);
    }
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
    free(server);
    free(client);
}

/* Cut inside its last packet: read up to it with a warning. A corrupt length, an
 * unsupported link type: errors naming the file (and the packet). */
static void test_bad_input(void **state)
{
    char *client = data_path("client.pcap"), *cut = tmp_write("pcap", "cut.pcap", "");
    static const unsigned char wifi[30];
    const unsigned char *frames[] = { wifi };
    size_t len[] = { sizeof(wifi) };
    long long time[] = { 0 };
    char *other = write_pcap("wifi.pcap", 105, frames, len, time, 1), *buf = malloc(50000);
    FILE *f = fopen(client, "rb");
    tsync_trace *t;
    tsync_ctx *ctx;
    (void)state;
    assert_non_null(f);
    assert_int_equal(fread(buf, 1, 50000, f), 50000);
    fclose(f);
    f = fopen(cut, "wb");
    fwrite(buf, 1, 50000, f);
    fclose(f);
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tsync_ctx_set_log(ctx, keep_warning, NULL);
    assert_int_equal(tsync_trace_open(&t, cut, NULL, ctx), 0);
    assert_int_equal(t->locations[0].n_events, 159);
    assert_non_null(strstr(warned, "cut.pcap: packet 160 is cut short by the end of the file"));
    tsync_trace_free(t);
    tsync_ctx_free(ctx);

    expect_trace_error(other, TSYNC_EUNSUPPORTED, "wifi.pcap: link type 105 (IEEE802_11) is not supported");
    put32((unsigned char *)buf + 32, 0x7fffffff);   /* the first record's length */
    f = fopen(cut, "wb");
    fwrite(buf, 1, 50000, f);
    fclose(f);
    expect_trace_error(cut, TSYNC_EFORMAT, "cut.pcap: packet 1: invalid packet capture length");
    free(buf);
    free(client);
    free(cut);
    free(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped),
        cmocka_unit_test(test_link_types),
        cmocka_unit_test(test_sync_writes),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
