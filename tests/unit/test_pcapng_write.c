/* test_pcapng_write.c - the pcapng writer and the merge (io/pcapng_write.c,
 * io/pcapng_merge.c): files read back with libpcap, and block by block.
 *
 * libpcap (1.10) reads only pcapng sections whose interfaces share one link type and
 * snaplen: files read back with it have such interfaces only. Files with several link
 * types are checked here block by block, and read with tshark in
 * tests/e2e/test_pcapng_tshark.sh.
 */
#define _DEFAULT_SOURCE /* u_char and u_int, which pcap.h uses */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <pcap/pcap.h>

#include "io/pcapng_write.h"
#include "tmpfile.h"
#include "tracesync/common.h"
#include "tracesync/version.h"

#define ETHERNET 1
#define RAW 101
#define SLL 113
#define T0 1700000000123456789ll

/* A packet of n bytes whose contents tell who it is: seed, then a counter. */
static void fill(uint8_t *buf, uint32_t n, uint8_t seed)
{
    for (uint32_t k = 0; k < n; k++)
        buf[k] = (uint8_t)(seed + 7 * k);
}

static char *fresh(const char *name)
{
    char dir[4096];
    tmp_fresh_dir("pcapng", name, dir, sizeof(dir));
    return strdup(dir);
}

static char *merged_path(const char *dir)
{
    return tsync__path_join(dir, TSYNC__PCAPNG_MERGED);
}

/* Reads one packet with libpcap and checks it against what was written. */
static void expect_packet(pcap_t *p, int64_t time_ns, const uint8_t *data, uint32_t caplen,
                          uint32_t origlen)
{
    struct pcap_pkthdr *h;
    const u_char *got;
    if (pcap_next_ex(p, &h, &got) != 1)
        fail_msg("pcap_next_ex: %s", pcap_geterr(p));
    assert_int_equal(h->ts.tv_sec, time_ns / 1000000000);
    assert_int_equal(h->ts.tv_usec, time_ns % 1000000000); /* nanoseconds here */
    assert_int_equal(h->caplen, caplen);
    assert_int_equal(h->len, origlen);
    assert_memory_equal(got, data, caplen);
}

static pcap_t *open_nano(const char *path)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!p)
        fail_msg("%s: %s", path, err);
    return p;
}

/* Odd lengths (padding), cut packets (captured 64 bytes of longer ones), times
 * across the 32-bit boundary of the low word, two interfaces: libpcap reads back every byte, length and nanosecond. */
static void test_read_back_libpcap(void **state)
{
    static const uint32_t len[] = { 1, 2, 3, 5, 13, 60, 61, 63, 64, 65, 1514, 4 };
    static const int64_t times[] = { T0, T0, T0 + 1, 0xffffffffll, 0x100000000ll, 1, 0, T0 + 999999999,
                                     T0 + 1000000000, 4000000000000000000ll, T0 + 5, T0 + 6 };
    char *dir = fresh("libpcap"), *path = merged_path(dir);
    struct tsync__pcapng_writer *w;
    uint8_t buf[1514];
    uint32_t id0, id1;
    tsync_ctx *ctx;
    pcap_t *p;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__pcapng_open(&w, dir, TSYNC__PCAPNG_MERGED, ctx), 0);
    assert_int_equal(tsync__pcapng_add_interface(w, ETHERNET, 65535, "eth0", "host a", &id0), 0);
    assert_int_equal(tsync__pcapng_add_interface(w, ETHERNET, 65535, "eth1", NULL, &id1), 0);
    assert_int_equal(id0, 0);
    assert_int_equal(id1, 1);
    for (size_t i = 0; i < sizeof(len) / sizeof(len[0]); i++) {
        int cut = i % 2 && len[i] > 64;
        fill(buf, len[i], (uint8_t)i);
        assert_int_equal(tsync__pcapng_write_packet(w, cut ? id1 : id0, times[i], buf,
                                                    cut ? 64 : len[i], len[i]),
                         0);
    }
    assert_int_equal(tsync__pcapng_packets(w), 12);
    /* Not in place before the close. */
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(tsync__pcapng_close(w), 0);

    p = open_nano(path);
    assert_int_equal(pcap_datalink(p), DLT_EN10MB);
    for (size_t i = 0; i < sizeof(len) / sizeof(len[0]); i++) {
        int cut = i % 2 && len[i] > 64;
        fill(buf, len[i], (uint8_t)i);
        expect_packet(p, times[i], buf, cut ? 64 : len[i], len[i]);
    }
    {
        struct pcap_pkthdr *h;
        const u_char *d;
        assert_int_equal(pcap_next_ex(p, &h, &d), PCAP_ERROR_BREAK); /* the end, no error */
    }
    pcap_close(p);
    tsync_ctx_free(ctx);
    free(path);
    free(dir);
}

/* The file's blocks, for checks below the reader: read whole. */
struct file {
    uint8_t *b;
    size_t n, pos;
};

static struct file load(const char *path)
{
    struct file f = { NULL, 0, 0 };
    FILE *in = fopen(path, "rb");
    struct stat sb;
    assert_non_null(in);
    assert_int_equal(fstat(fileno(in), &sb), 0);
    f.n = (size_t)sb.st_size;
    assert_non_null(f.b = malloc(f.n + 1));
    assert_int_equal(fread(f.b, 1, f.n, in), f.n);
    fclose(in);
    return f;
}

static uint32_t u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint16_t u16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* The next block: checks its lengths (both the same, a multiple of 4, inside the
 * file) and returns its body, *type and *len (the body's length). */
static const uint8_t *next_block(struct file *f, uint32_t *type, uint32_t *len)
{
    uint32_t total;
    const uint8_t *b = f->b + f->pos;
    assert_true(f->pos + 12 <= f->n);
    *type = u32(b);
    total = u32(b + 4);
    assert_int_equal(total % 4, 0);
    assert_true(total >= 12 && f->pos + total <= f->n);
    assert_int_equal(u32(b + total - 4), total);
    f->pos += total;
    *len = total - 12;
    return b + 8;
}

/* Options from p to the end of the body: each code's value checked against want
 * (NULL: absent), padding zero, opt_endofopt last. */
static void expect_options(const uint8_t *p, const uint8_t *end, const char *want[16])
{
    int seen[16] = { 0 };
    for (;;) {
        uint16_t code, len;
        assert_true(p + 4 <= end);
        code = u16(p), len = u16(p + 2);
        p += 4;
        if (code == 0) {
            assert_int_equal(len, 0);
            break;
        }
        assert_true(code < 16 && want[code]);
        assert_int_equal(len, strlen(want[code]));
        assert_memory_equal(p, want[code], len);
        for (uint32_t k = len; k % 4; k++)
            assert_int_equal(p[k], 0);
        p += (len + 3u) & ~3u;
        seen[code] = 1;
    }
    assert_ptr_equal(p, end);
    for (int c = 0; c < 16; c++)
        assert_int_equal(seen[c], want[c] != NULL);
}

/* Three link types and a packet larger than the writer's buffer, block by block:
 * the section header (this machine's byte order), the interfaces with their
 * options, the packets with time high and low, lengths and zero padding. */
static void test_blocks(void **state)
{
    static const uint16_t linktype[3] = { ETHERNET, RAW, SLL };
    static const char nanoseconds[] = "\x09";
    static const uint32_t len[] = { 1, 7, 1514, 61, (3u << 19) + 3, 2 };
    char *dir = fresh("blocks"), *path = merged_path(dir);
    const char *names[3] = { "alpha", "beta", "gamma" }, *desc[3] = { "host alpha", NULL, "g" };
    struct tsync__pcapng_writer *w;
    uint8_t *buf = malloc(len[4]);
    const uint8_t *b;
    struct file f;
    uint32_t type, n, id;
    tsync_ctx *ctx;
    (void)state;
    assert_non_null(buf);
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__pcapng_open(&w, dir, TSYNC__PCAPNG_MERGED, ctx), 0);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(tsync__pcapng_add_interface(w, linktype[i], i == 0 ? 0 : 1514, names[i],
                                                     desc[i], &id),
                         0);
        assert_int_equal(id, i);
    }
    for (uint32_t i = 0; i < 6; i++) {
        fill(buf, len[i], (uint8_t)(i + 1));
        assert_int_equal(tsync__pcapng_write_packet(w, i % 3 == 1 && len[i] < 1514 ? 1 : 0,
                                                    T0 + i, buf, len[i], len[i] + i),
                         0);
    }
    assert_int_equal(tsync__pcapng_close(w), 0);

    f = load(path);
    b = next_block(&f, &type, &n);
    assert_int_equal(type, 0x0A0D0D0A);
    assert_int_equal(u32(b), 0x1A2B3C4D); /* read in this machine's order */
    assert_int_equal(u16(b + 4), 1);
    assert_int_equal(u16(b + 6), 0);
    assert_int_equal(u32(b + 8), 0xffffffff); /* section length -1: not given */
    assert_int_equal(u32(b + 12), 0xffffffff);
    expect_options(b + 16, b + n,
                   (const char *[16]){ [4] = "tracesync " TSYNC_VERSION });
    for (uint32_t i = 0; i < 3; i++) {
        b = next_block(&f, &type, &n);
        assert_int_equal(type, 1);
        assert_int_equal(u16(b), linktype[i]);
        assert_int_equal(u16(b + 2), 0);
        assert_int_equal(u32(b + 4), i == 0 ? 0 : 1514);
        expect_options(b + 8, b + n,
                       (const char *[16]){ [2] = names[i], [3] = desc[i], [9] = nanoseconds });
    }
    for (uint32_t i = 0; i < 6; i++) {
        uint64_t t = (uint64_t)(T0 + i);
        b = next_block(&f, &type, &n);
        assert_int_equal(type, 6);
        assert_int_equal(u32(b), i % 3 == 1 && len[i] < 1514 ? 1 : 0);
        assert_int_equal(u32(b + 4), (uint32_t)(t >> 32));
        assert_int_equal(u32(b + 8), (uint32_t)t);
        assert_int_equal(u32(b + 12), len[i]);
        assert_int_equal(u32(b + 16), len[i] + i);
        assert_int_equal(n, 20 + ((len[i] + 3) & ~3u)); /* no options */
        fill(buf, len[i], (uint8_t)(i + 1));
        assert_memory_equal(b + 20, buf, len[i]);
        for (uint32_t k = len[i]; k % 4; k++)
            assert_int_equal(b[20 + k], 0);
    }
    assert_int_equal(f.pos, f.n);
    free(f.b);
    free(buf);
    tsync_ctx_free(ctx);
    free(path);
    free(dir);
}

/* Bad packets are refused, naming the file and the packet, and leave the file
 * as it was: the good packets around them are read back. */
static void test_bad_packets(void **state)
{
    char *dir = fresh("bad"), *path = merged_path(dir);
    struct tsync__pcapng_writer *w;
    uint8_t buf[100];
    uint32_t id;
    tsync_ctx *ctx;
    pcap_t *p;
    (void)state;
    fill(buf, sizeof(buf), 3);
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__pcapng_open(&w, dir, TSYNC__PCAPNG_MERGED, ctx), 0);
    assert_int_equal(tsync__pcapng_add_interface(w, ETHERNET, 50, "eth0", NULL, &id), 0);
    assert_int_equal(tsync__pcapng_write_packet(w, 0, T0, buf, 10, 10), 0);
    assert_int_equal(tsync__pcapng_write_packet(w, 1, T0, buf, 10, 10), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "merged.pcapng: packet 2: no such interface"));
    assert_int_equal(tsync__pcapng_write_packet(w, 0, -1, buf, 10, 10), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "packet 2: a time before 1970"));
    assert_int_equal(tsync__pcapng_write_packet(w, 0, T0, buf, 11, 10), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "packet 2: captured length over the packet's"));
    assert_int_equal(tsync__pcapng_write_packet(w, 0, T0, buf, 51, 60), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "packet 2: captured length over the interface's snaplen"));
    assert_int_equal(tsync__pcapng_write_packet(w, 0, T0 + 1, buf, 50, 100), 0);
    assert_int_equal(tsync__pcapng_close(w), 0);
    p = open_nano(path);
    expect_packet(p, T0, buf, 10, 10);
    expect_packet(p, T0 + 1, buf, 50, 100);
    pcap_close(p);
    tsync_ctx_free(ctx);
    free(path);
    free(dir);
}

/* Discarded: nothing is left; held and committed: in place only at the commit. */
static void test_nothing_or_all(void **state)
{
    char *dir = fresh("held"), *path = merged_path(dir);
    struct tsync__pcapng_writer *w;
    uint32_t id;
    tsync_ctx *ctx;
    pcap_t *p;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__pcapng_open(&w, dir, TSYNC__PCAPNG_MERGED, ctx), 0);
    assert_int_equal(tsync__pcapng_add_interface(w, ETHERNET, 0, "eth0", NULL, &id), 0);
    assert_int_equal(tsync__pcapng_write_packet(w, 0, T0, (const uint8_t *)"abc", 3, 3), 0);
    tsync__pcapng_discard(w);
    assert_int_equal(tmp_entries(dir), 0); /* no file, no temporary directory */

    assert_int_equal(tsync_ctx_hold_outputs(ctx), 0);
    assert_int_equal(tsync__pcapng_open(&w, dir, TSYNC__PCAPNG_MERGED, ctx), 0);
    assert_int_equal(tsync__pcapng_add_interface(w, ETHERNET, 0, "eth0", NULL, &id), 0);
    assert_int_equal(tsync__pcapng_write_packet(w, 0, T0, (const uint8_t *)"abc", 3, 3), 0);
    assert_int_equal(tsync__pcapng_close(w), 0);
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(tsync_ctx_commit_outputs(ctx), 0);
    p = open_nano(path);
    expect_packet(p, T0, (const uint8_t *)"abc", 3, 3);
    pcap_close(p);
    tsync_ctx_free(ctx);
    free(path);
    free(dir);
}

/* A merge input over arrays: packet k is (times[k], its own bytes). */
struct arrays {
    const int64_t *times;
    size_t n, next;
    uint8_t seed, buf[256];
    int fail_at; /* > 0: the fail_at-th call fails */
    int calls;
};

static uint8_t arrays_len(const struct arrays *a, size_t k)
{
    return (uint8_t)(13 + k % 5 + a->seed);
}

static int arrays_next(void *payload, struct tsync__pcapng_packet *p, tsync_ctx *ctx)
{
    struct arrays *a = payload;
    if (++a->calls == a->fail_at)
        return tsync__fail(ctx, TSYNC_EFORMAT, "input %u: corrupt", a->seed);
    if (a->next == a->n)
        return 0;
    p->time_ns = a->times[a->next];
    p->caplen = p->origlen = arrays_len(a, a->next);
    fill(a->buf, p->caplen, (uint8_t)(a->seed * 16 + a->next));
    p->data = a->buf;
    a->next++;
    return 1;
}

/* Three inputs, one empty: packets in time order, equal times in input order, each
 * input in its own order; an input that steps back keeps its order, counted. */
static void test_merge_order(void **state)
{
    static const int64_t t0[] = { T0 + 10, T0 + 20, T0 + 20, T0 + 30, T0 + 50 };
    static const int64_t t1[] = { T0 + 5, T0 + 20, T0 + 30, T0 + 31 };
    static const int64_t t3[] = { T0 + 20, T0 + 60, T0 + 40 }; /* steps back */
    struct arrays a[4] = { { t0, 5, 0, 0, { 0 }, 0, 0 }, { t1, 4, 0, 1, { 0 }, 0, 0 },
                           { NULL, 0, 0, 2, { 0 }, 0, 0 }, { t3, 3, 0, 3, { 0 }, 0, 0 } };
    /* expected: (input, index) in merged order */
    static const int want[][2] = { { 1, 0 }, { 0, 0 }, { 0, 1 }, { 0, 2 }, { 1, 1 }, { 3, 0 },
                                   { 0, 3 }, { 1, 2 }, { 1, 3 }, { 0, 4 }, { 3, 1 }, { 3, 2 } };
    struct tsync__pcapng_input in[4];
    struct tsync__pcapng_merge_stats st;
    char *dir = fresh("merge"), *path = merged_path(dir);
    struct file before, after;
    tsync_ctx *ctx;
    pcap_t *p;
    (void)state;
    for (int i = 0; i < 4; i++)
        in[i] = (struct tsync__pcapng_input){ ETHERNET, 0, "h", NULL, arrays_next, &a[i] };
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__pcapng_merge(dir, in, 4, &st, ctx), 0);
    assert_int_equal(st.packets, 12);
    assert_int_equal(st.out_of_order, 1);
    p = open_nano(path);
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        struct arrays *x = &a[want[k][0]];
        size_t idx = (size_t)want[k][1];
        uint8_t buf[256];
        fill(buf, arrays_len(x, idx), (uint8_t)(x->seed * 16 + idx));
        expect_packet(p, x->times[idx], buf, arrays_len(x, idx), arrays_len(x, idx));
    }
    pcap_close(p);

    /* An input that fails stops the merge with its error: nothing in place, the
     * earlier merged file as it was. */
    before = load(path);
    for (int i = 0; i < 4; i++)
        a[i].next = 0, a[i].calls = 0;
    a[1].fail_at = 3;
    assert_int_equal(tsync__pcapng_merge(dir, in, 4, NULL, ctx), TSYNC_EFORMAT);
    assert_string_equal(tsync_ctx_error(ctx), "input 1: corrupt");
    after = load(path);
    assert_int_equal(after.n, before.n);
    assert_memory_equal(after.b, before.b, before.n);
    free(before.b);
    free(after.b);
    assert_int_equal(tmp_entries(dir), 1); /* and no temporary directory */
    tsync_ctx_free(ctx);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_back_libpcap),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_bad_packets),
        cmocka_unit_test(test_nothing_or_all),
        cmocka_unit_test(test_merge_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
