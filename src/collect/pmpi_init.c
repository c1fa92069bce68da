/* pmpi_init.c - the collector's life: MPI_Init and MPI_Init_thread start it
 * (settings, clock, buffer, output directory, the first synchronization session),
 * MPI_Finalize ends it (the last session, the archives), tracesync_timesync() adds
 * sessions in between (pmpi_fortran.c binds it for Fortran). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collect/collect_mpi.h"
#include "tracesync/collect_core.h"
#include "tracesync/collect.h"

/* The output directory: TRACESYNC_DIR (not one that holds an archive: libotf2
 * would fail), else tracesync-PROGRAM (with .1, .2, ... when taken), chosen and
 * made by rank 0. */
static int choose_dir(void)
{
    char dir[sizeof tsc.cfg.dir] = { 0 };
    int ok = 1;
    if (tsc.rank == 0) {
        const char *taken = NULL;
        if (tsc.cfg.dir[0]) {
            snprintf(dir, sizeof dir, "%s", tsc.cfg.dir);
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                ok = 0;
            else if ((taken = tsc_launch_archive_in(dir)))
                ok = 0;
        } else {
            char prog[64] = "program";
            FILE *f = fopen("/proc/self/comm", "r");
            if (f) {
                if (fgets(prog, sizeof prog, f))
                    prog[strcspn(prog, "\n")] = 0;
                fclose(f);
            }
            if (tsc_launch_fresh_dir(prog, dir, sizeof dir) != 0)
                ok = 0;
        }
        if (taken)
            tsc_warn("%s already holds an archive (%s/%s); nothing is recorded", dir, dir, taken);
        else if (!ok)
            tsc_warn("cannot make the directory %s: %s; nothing is recorded", dir, strerror(errno));
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    PMPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    memcpy(tsc.cfg.dir, dir, sizeof dir);
    return ok ? 0 : -1;
}

/* After PMPI_Init; t0 the true time when MPI_Init was entered, cfg_rc and bad
 * tsc_config_read's result. */
static void start(enum tsc_region region, uint64_t t0, int cfg_rc, const char *bad)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &tsc.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &tsc.size);
    if (cfg_rc != 0 && tsc.rank == 0)
        tsc_warn("%s=%s is not understood; its default is used", bad, getenv(bad));
    const struct tsc_test_clock *distort =
        tsc.cfg.n_test_clocks ? &tsc.cfg.test_clocks[(uint32_t)tsc.rank % tsc.cfg.n_test_clocks] : NULL;
    tsc_clock_init(&tsc.clock, tsc.cfg.timer, distort, t0);
    uint64_t bytes = tsc.cfg.mem_blocksize * tsc.cfg.mem_maxblocks;
    tsc.cap_buf = bytes / sizeof(struct tsc_rec) > 16 ? bytes / sizeof(struct tsc_rec) : 16;
    tsc.buf = malloc(tsc.cap_buf * sizeof *tsc.buf);
    int ok = tsc.buf != NULL;
    /* Touched now: a first touch while recording costs more than the event. Through
     * a volatile pointer, one store a page: compilers turn malloc + memset(0) into
     * calloc, which leaves fresh pages untouched. */
    for (size_t i = 0; ok && i < tsc.cap_buf * sizeof *tsc.buf; i += 4096)
        ((volatile char *)tsc.buf)[i] = 0;
    if (!ok)
        tsc_warn("cannot allocate %llu bytes of buffer", (unsigned long long)bytes);
    int all_ok;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok || choose_dir() != 0) {
        tsc_records_free();
        return;
    }
    /* MPI_Init's Enter at t0, tick 0; tsc_timesync_init moves it to the run's origin */
    tsc_record_at(TSC_ENTER, tsc.clock.origin_ns, t0)->region = (uint16_t)region;
    if (tsc_timesync_init() != 0) {
        tsc_warn("out of memory: nothing is recorded");
        tsc_records_free();
        return;
    }
    tsc.active = true;
    if (tsc_timesync_session() != 0)
        tsc_warn("out of memory in the first clock synchronization session");
    tsc_leave(region);
}

int MPI_Init(int *argc, char ***argv)
{
    const char *bad;
    int cfg_rc = tsc_config_read(&tsc.cfg, &bad);
    uint64_t t0 = tsc_clock_read(tsc.cfg.timer);
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        start(TSC_R_INIT, t0, cfg_rc, bad);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    const char *bad;
    int cfg_rc = tsc_config_read(&tsc.cfg, &bad);
    uint64_t t0 = tsc_clock_read(tsc.cfg.timer);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        start(TSC_R_INIT_THREAD, t0, cfg_rc, bad);
    return rc;
}

int tracesync_timesync(void)
{
    if (!tsc.active)
        return -1;
    return tsc_timesync_session();
}

int MPI_Finalize(void)
{
    if (tsc.active) {
        tsc_enter(TSC_R_FINALIZE);
        if (tsc_timesync_session() != 0)
            tsc_warn("out of memory in the last clock synchronization session");
        tsc_leave(TSC_R_FINALIZE);
        tsc.active = false;
        tsc_write_archives();
        tsc_records_free();
        tsc_comms_free();
        tsc_timesync_free();
    }
    return PMPI_Finalize();
}
