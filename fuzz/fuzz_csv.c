/* fuzz_csv.c - libFuzzer target: the whole pipeline on any CSV of messages
 * (read, match, estimate, CLC, check, write the corrected CSV to a temporary
 * directory, which is removed). */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *scratch = fuzz_scratch("csv");
    char in[128], out[128];
    snprintf(in, sizeof(in), "%s/messages.csv", scratch);
    snprintf(out, sizeof(out), "%s/out", scratch);
    fuzz_write_file(in, data, size);
    fuzz_sync(in, out);
    return 0;
}
