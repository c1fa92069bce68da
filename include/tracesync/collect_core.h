/* collect_core.h - the MPI-free core of libtracesync-collect, for the collector and
 * for `tracesync record` (static, built where MPI is found; not installed):
 *   - the collector's settings, from TRACESYNC_* environment variables, with Intel
 *     Trace Collector's defaults where seed 000 names the option;
 *   - running a command under the collector: where libtracesync-collect.so is, the
 *     output directory, and the command line and environment that give every MPI
 *     process the preload and the TRACESYNC_* settings.
 */
#ifndef TRACESYNC_COLLECT_CORE_H
#define TRACESYNC_COLLECT_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---- settings ---------------------------------------------------------------- */

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

/* ---- launching ------------------------------------------------------------- */

#define TSC_COLLECT_LIB_NAME "libtracesync-collect.so"

/* Finds the collector for the tracesync executable at `self`: the file that
 * TRACESYNC_COLLECT_LIB names when it is set (nothing else then); else next to
 * `self` in the build tree (DIR/src/collect/); else installed (DIR/../LIBDIR, then
 * the configured LIBDIR). Returns 0 with the path in `out`, or -1 with the places
 * tried (", " between them) in `out`. */
int tsc_launch_find_collector(const char *self, char *out, size_t size);

/* 1 when `cmd` (a command's first word) is Open MPI's launcher: mpirun, mpiexec
 * and orterun resolve to orterun (prterun in Open MPI 5). */
int tsc_launch_is_openmpi(const char *cmd);

/* The program a command runs, for naming the output directory: for a launcher
 * (mpirun, mpiexec, orterun, prterun, srun) the first later word that names an
 * executable file (a path, or found in PATH), else the first word; the base name,
 * pointing into argv; "program" when none fits. */
const char *tsc_launch_program(int argc, char *const *argv);

/* Makes a fresh directory "tracesync-PROGRAM" (".1", ".2", ... when taken) in the
 * current directory; its name in `dir`. Returns 0, or -1 with errno set. */
int tsc_launch_fresh_dir(const char *program, char *dir, size_t size);

/* The archive a directory already holds ("traces", "global" or "truth", which the
 * collector would have to make anew), or NULL. */
const char *tsc_launch_archive_in(const char *dir);

/* A command prepared to run under the collector. */
struct tsc_launch {
    char **argv, **envp;  /* NULL-terminated */
    size_t argc, envc;
};

/* Prepares `cmd` (argc words) to run with the collector `preload` and the
 * TRACESYNC_* variables of the current environment (TRACESYNC_COLLECT_LIB
 * excepted); argc >= 1. Open MPI's launcher forwards only the variables named with -x (to
 * remote nodes): it gets "-x LD_PRELOAD=... -x TRACESYNC_..." after its name and
 * keeps its own environment, so that the preload reaches the MPI processes only.
 * Any other command (a singleton MPI program, MPICH's mpiexec, srun: they pass the
 * whole environment on) runs unchanged with LD_PRELOAD set in its environment. An
 * LD_PRELOAD already set stays first (a sanitizer's runtime must). Returns 0, or
 * -1 when out of memory. */
int tsc_launch_prepare(struct tsc_launch *l, int argc, char *const *cmd, const char *preload);
void tsc_launch_free(struct tsc_launch *l);

#endif
