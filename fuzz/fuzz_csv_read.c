/* fuzz_csv_read.c - libFuzzer target: the CSV-of-messages reader on any bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tracesync/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    FILE *f;
    tsync_trace *trace = NULL;
    if (!path[0])
        snprintf(path, sizeof(path), "/tmp/tsync-fuzz-%d.csv", (int)getpid());
    if (!(f = fopen(path, "wb")))
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    if (tsync_trace_open(&trace, path, NULL, NULL) == 0)
        tsync_trace_free(trace);
    return 0;
}
