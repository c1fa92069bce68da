/* config.h (internal) - the collector's settings, from TRACESYNC_* environment
 * variables, with Intel Trace Collector's defaults where seed 000 names the option. */
#ifndef TSYNC_COLLECT_CONFIG_H
#define TSYNC_COLLECT_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define TSC_MAX_TEST_CLOCKS 64

/* A distorted clock of the test mode: local = true + offset + skew x t + the
 * integral of a sinusoidal frequency wander, t = true time since the run began. */
struct tsc_test_clock {
    double offset_s, skew_ppm, wander_ppm, period_s;
};

struct tsc_config {
    char dir[400];                 /* TRACESYNC_DIR: the archives' directory */
    clockid_t timer;               /* TRACESYNC_TIMER: monotonic | monotonic_raw | realtime */
    uint32_t sync_max_messages;    /* TRACESYNC_SYNC_MAX_MESSAGES, ITC: 100 */
    double sync_max_duration_s;    /* TRACESYNC_SYNC_MAX_DURATION, ITC: 1 minute */
    bool synced_host;              /* TRACESYNC_SYNCED_HOST, ITC: no */
    bool synced_cluster;           /* TRACESYNC_SYNCED_CLUSTER, ITC: no */
    uint64_t mem_blocksize;        /* TRACESYNC_MEM_BLOCKSIZE, ITC: 64 KiB */
    uint64_t mem_maxblocks;        /* TRACESYNC_MEM_MAXBLOCKS, 16 (ITC: 4096, see README) */
    char flush_prefix[256];        /* TRACESYNC_FLUSH_PREFIX, ITC: $TMPDIR or /tmp */
    bool global;                   /* TRACESYNC_GLOBAL: also write global.otf2 (on) */
    int verbose;                   /* TRACESYNC_VERBOSE, ITC: 1 */
    uint32_t n_test_clocks;        /* TRACESYNC_TEST_CLOCKS: test mode when > 0 */
    struct tsc_test_clock test_clocks[TSC_MAX_TEST_CLOCKS];
};

/* Reads the environment into cfg. A value that does not parse is named in *bad
 * (the variable's name) and its default kept; returns 0, or -1 after the first bad
 * value (the others are still read). Never fails otherwise. */
int tsc_config_read(struct tsc_config *cfg, const char **bad);

/* Parses TRACESYNC_TEST_CLOCKS: clocks separated by ';', each
 * "OFFSET,SKEW_PPM[,WANDER_PPM,PERIOD]" (OFFSET and PERIOD durations, "5ms");
 * rank r takes clock r modulo the count. Returns the count, or -1 on bad text. */
int tsc_config_test_clocks(const char *text, struct tsc_test_clock *out, uint32_t max);

#endif
