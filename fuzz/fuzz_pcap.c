/* fuzz_pcap.c - libFuzzer target: the whole pipeline on two packet captures (pcap or
 * pcapng, read through libpcap), paired, synchronized and written to a temporary
 * directory, which is removed. The input is the first capture's length (4 bytes,
 * little-endian, taken modulo the rest), the first capture, then the second. */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *scratch = fuzz_scratch("pcap");
    tsync_sync_opts opts = TSYNC_SYNC_OPTS_INIT;
    char a[128], b[128], out[128];
    const char *more[1] = { b };
    size_t first;
    if (size < 4)
        return 0;
    first = (size_t)(data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24) % (size - 3);
    snprintf(a, sizeof(a), "%s/a.pcap", scratch);
    snprintf(b, sizeof(b), "%s/b.pcap", scratch);
    snprintf(out, sizeof(out), "%s/out", scratch);
    fuzz_write_file(a, data + 4, first);
    fuzz_write_file(b, data + 4 + first, size - 4 - first);
    opts.open.files = more;
    opts.open.n_files = 1;
    fuzz_sync_opts(a, out, &opts);
    return 0;
}
