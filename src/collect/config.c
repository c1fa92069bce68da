/* config.c - the collector's settings from TRACESYNC_* environment variables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracesync/collect_core.h"
#include "util/units.h"

static int parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "true"))
        *out = true;
    else if (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "false"))
        *out = false;
    else
        return -1;
    return 0;
}

static int parse_u64(const char *v, uint64_t *out)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || *v == '-')
        return -1;
    if (*end == 'k' || *end == 'K')
        x <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        x <<= 20, end++;
    if ((*end == 'B' || *end == 'b') && end[1] == 0)
        end++;
    if (*end)
        return -1;
    *out = x;
    return 0;
}

int tsc_config_test_clocks(const char *text, struct tsc_test_clock *out, uint32_t max)
{
    uint32_t n = 0;
    const char *p = text;
    while (*p) {
        char item[128];
        size_t len = strcspn(p, ";");
        if (len == 0 || len >= sizeof item || n == max)
            return -1;
        memcpy(item, p, len);
        item[len] = 0;
        p += len + (p[len] == ';');
        struct tsc_test_clock c = { 0, 0, 0, 0 };
        char *f[4] = { 0 }, *save = NULL;
        int nf = 0;
        for (char *tok = strtok_r(item, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
            if (nf < 4)
                f[nf++] = tok;
            else
                return -1;
        char *end;
        if (nf != 2 && nf != 4)
            return -1;
        if (tsync__parse_seconds(f[0], &c.offset_s) != 0)
            return -1;
        c.skew_ppm = strtod(f[1], &end);
        if (end == f[1] || *end)
            return -1;
        if (nf == 4) {
            c.wander_ppm = strtod(f[2], &end);
            if (end == f[2] || *end || tsync__parse_seconds(f[3], &c.period_s) != 0 || c.period_s <= 0)
                return -1;
        }
        /* A clock must never run backwards: rate 1 + skew + wander > 0. */
        if (c.skew_ppm - (c.wander_ppm < 0 ? -c.wander_ppm : c.wander_ppm) <= -1e6)
            return -1;
        out[n++] = c;
    }
    return (int)n;
}

int tsc_config_read(struct tsc_config *cfg, const char **bad)
{
    const char *v;
    int rc = 0;
    *bad = NULL;
    memset(cfg, 0, sizeof *cfg);
    cfg->timer = CLOCK_MONOTONIC;
    cfg->sync_max_messages = 100;
    cfg->sync_max_duration_s = 60.0;
    cfg->mem_blocksize = 64 << 10;
    cfg->mem_maxblocks = 16;
    cfg->global = true;
    cfg->verbose = 1;
    v = getenv("TMPDIR");
    snprintf(cfg->flush_prefix, sizeof cfg->flush_prefix, "%s", v && *v ? v : "/tmp");

#define BAD(name)            \
    do {                     \
        if (!*bad)           \
            *bad = name;     \
        rc = -1;             \
    } while (0)
    if ((v = getenv("TRACESYNC_DIR")) && *v)
        snprintf(cfg->dir, sizeof cfg->dir, "%s", v);
    if ((v = getenv("TRACESYNC_TIMER")) && *v) {
        if (!strcmp(v, "monotonic"))
            cfg->timer = CLOCK_MONOTONIC;
        else if (!strcmp(v, "monotonic_raw"))
            cfg->timer = CLOCK_MONOTONIC_RAW;
        else if (!strcmp(v, "realtime"))
            cfg->timer = CLOCK_REALTIME;
        else
            BAD("TRACESYNC_TIMER");
    }
    uint64_t u;
    if ((v = getenv("TRACESYNC_SYNC_MAX_MESSAGES")) && *v) {
        if (parse_u64(v, &u) == 0 && u <= 1000000)
            cfg->sync_max_messages = (uint32_t)u;
        else
            BAD("TRACESYNC_SYNC_MAX_MESSAGES");
    }
    if ((v = getenv("TRACESYNC_SYNC_MAX_DURATION")) && *v) {
        if (tsync__parse_seconds(v, &cfg->sync_max_duration_s) != 0) {
            cfg->sync_max_duration_s = 60.0;
            BAD("TRACESYNC_SYNC_MAX_DURATION");
        }
    }
    if ((v = getenv("TRACESYNC_SYNCED_HOST")) && *v && parse_bool(v, &cfg->synced_host) != 0)
        BAD("TRACESYNC_SYNCED_HOST");
    if ((v = getenv("TRACESYNC_SYNCED_CLUSTER")) && *v && parse_bool(v, &cfg->synced_cluster) != 0)
        BAD("TRACESYNC_SYNCED_CLUSTER");
    if ((v = getenv("TRACESYNC_GLOBAL")) && *v && parse_bool(v, &cfg->global) != 0)
        BAD("TRACESYNC_GLOBAL");
    if ((v = getenv("TRACESYNC_MEM_BLOCKSIZE")) && *v) {
        if (parse_u64(v, &u) == 0 && u >= 1024)
            cfg->mem_blocksize = u;
        else
            BAD("TRACESYNC_MEM_BLOCKSIZE");
    }
    if ((v = getenv("TRACESYNC_MEM_MAXBLOCKS")) && *v) {
        if (parse_u64(v, &u) == 0 && u >= 1)
            cfg->mem_maxblocks = u;
        else
            BAD("TRACESYNC_MEM_MAXBLOCKS");
    }
    if ((v = getenv("TRACESYNC_FLUSH_PREFIX")) && *v)
        snprintf(cfg->flush_prefix, sizeof cfg->flush_prefix, "%s", v);
    if ((v = getenv("TRACESYNC_VERBOSE")) && *v) {
        if (parse_u64(v, &u) == 0 && u <= 10)
            cfg->verbose = (int)u;
        else
            BAD("TRACESYNC_VERBOSE");
    }
    if ((v = getenv("TRACESYNC_TEST_CLOCKS")) && *v) {
        int n = tsc_config_test_clocks(v, cfg->test_clocks, TSC_MAX_TEST_CLOCKS);
        if (n < 0)
            BAD("TRACESYNC_TEST_CLOCKS");
        else
            cfg->n_test_clocks = (uint32_t)n;
    }
#undef BAD
    return rc;
}
