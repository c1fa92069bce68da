/* test_collect_config.c - the collector's TRACESYNC_* settings (collect/config.c). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tracesync/collect_core.h"

static const char *const vars[] = { "TRACESYNC_DIR", "TRACESYNC_TIMER", "TRACESYNC_SYNC_MAX_MESSAGES",
                                    "TRACESYNC_SYNC_MAX_DURATION", "TRACESYNC_SYNCED_HOST",
                                    "TRACESYNC_SYNCED_CLUSTER", "TRACESYNC_MEM_BLOCKSIZE",
                                    "TRACESYNC_MEM_MAXBLOCKS", "TRACESYNC_FLUSH_PREFIX", "TRACESYNC_GLOBAL",
                                    "TRACESYNC_VERBOSE", "TRACESYNC_TEST_CLOCKS", "TMPDIR" };

static int clear(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    return 0;
}

/* Intel Trace Collector's defaults. */
static void test_defaults(void **state)
{
    (void)state;
    struct tsc_config c;
    const char *bad;
    assert_int_equal(tsc_config_read(&c, &bad), 0);
    assert_null(bad);
    assert_int_equal(c.sync_max_messages, 100);
    assert_true(c.sync_max_duration_s == 60.0);
    assert_false(c.synced_host);
    assert_false(c.synced_cluster);
    assert_int_equal(c.mem_blocksize, 65536);
    assert_int_equal(c.mem_maxblocks, 16);
    assert_string_equal(c.flush_prefix, "/tmp");
    assert_true(c.global);
    assert_int_equal(c.verbose, 1);
    assert_int_equal(c.n_test_clocks, 0);
    assert_string_equal(c.dir, "");
    assert_int_equal(c.timer, CLOCK_MONOTONIC);
}

static void test_values(void **state)
{
    (void)state;
    setenv("TRACESYNC_SYNC_MAX_MESSAGES", "20", 1);
    setenv("TRACESYNC_SYNC_MAX_DURATION", "500ms", 1);
    setenv("TRACESYNC_SYNCED_HOST", "yes", 1);
    setenv("TRACESYNC_MEM_BLOCKSIZE", "1M", 1);
    setenv("TRACESYNC_GLOBAL", "off", 1);
    setenv("TRACESYNC_TIMER", "realtime", 1);
    setenv("TRACESYNC_DIR", "run/x", 1);
    struct tsc_config c;
    const char *bad;
    assert_int_equal(tsc_config_read(&c, &bad), 0);
    assert_int_equal(c.sync_max_messages, 20);
    assert_true(c.sync_max_duration_s == 0.5);
    assert_true(c.synced_host);
    assert_int_equal(c.mem_blocksize, 1 << 20);
    assert_false(c.global);
    assert_int_equal(c.timer, CLOCK_REALTIME);
    assert_string_equal(c.dir, "run/x");
}

/* A value that does not parse is named; its default stays. */
static void test_bad_value(void **state)
{
    (void)state;
    setenv("TRACESYNC_SYNC_MAX_MESSAGES", "many", 1);
    setenv("TRACESYNC_SYNCED_CLUSTER", "perhaps", 1);
    struct tsc_config c;
    const char *bad;
    assert_int_equal(tsc_config_read(&c, &bad), -1);
    assert_string_equal(bad, "TRACESYNC_SYNC_MAX_MESSAGES");
    assert_int_equal(c.sync_max_messages, 100);
    assert_false(c.synced_cluster);
}

static void test_test_clocks(void **state)
{
    (void)state;
    struct tsc_test_clock t[4];
    assert_int_equal(tsc_config_test_clocks("0,0;5ms,20;-2ms,-15,1,60s", t, 4), 3);
    assert_true(t[1].offset_s == 5e-3 && t[1].skew_ppm == 20 && t[1].period_s == 0);
    assert_true(t[2].offset_s == -2e-3 && t[2].skew_ppm == -15 && t[2].wander_ppm == 1 && t[2].period_s == 60);
    assert_int_equal(tsc_config_test_clocks("5ms", t, 4), -1);          /* no skew */
    assert_int_equal(tsc_config_test_clocks("5ms,x", t, 4), -1);
    assert_int_equal(tsc_config_test_clocks("5ms,1,1", t, 4), -1);      /* wander without period */
    assert_int_equal(tsc_config_test_clocks("0,-2000000", t, 4), -1);   /* runs backwards */
    assert_int_equal(tsc_config_test_clocks("0,0;0,0", t, 1), -1);      /* too many */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_defaults, clear),
        cmocka_unit_test_setup(test_values, clear),
        cmocka_unit_test_setup(test_bad_value, clear),
        cmocka_unit_test_setup(test_test_clocks, clear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
