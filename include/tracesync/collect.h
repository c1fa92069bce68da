/* collect.h - the public call of libtracesync-collect, the MPI collector.
 *
 * The collector records an MPI program (linked with -ltracesync-collect, or
 * LD_PRELOAD into an unchanged one) and writes an OTF2 archive at MPI_Finalize,
 * with clock synchronization sessions at MPI_Init and MPI_Finalize (seed 000).
 * A program whose run is long enough for clocks to wander can add sessions. */
#ifndef TRACESYNC_COLLECT_H
#define TRACESYNC_COLLECT_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TRACESYNC_COLLECT_API __attribute__((visibility("default")))
#else
#define TRACESYNC_COLLECT_API
#endif

/* One clock synchronization session now (Intel Trace Collector's VT_timesync).
 * Collective over MPI_COMM_WORLD: every process must call it, or it blocks; not
 * for dynamically spawned processes. Returns 0, or -1 when the collector is not
 * recording (before MPI_Init, after MPI_Finalize) or out of memory.
 * Fortran: CALL TRACESYNC_TIMESYNC(IERR). */
TRACESYNC_COLLECT_API int tracesync_timesync(void);

#ifdef __cplusplus
}
#endif

#endif
