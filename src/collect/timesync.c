/* timesync.c - clock synchronization sessions (seed 000): at MPI_Init, at
 * MPI_Finalize and on tracesync_timesync(), the master (world rank 0) exchanges
 * one message with each child in turn, round after round, until
 * TRACESYNC_SYNC_MAX_MESSAGES exchanges per child or TRACESYNC_SYNC_MAX_DURATION;
 * the child keeps its send and receive stamps with the master's.
 *
 * Every exchange is recorded as events, MpiSend and MpiRecv on the communicator
 * "tracesync timesync" (a duplicate of MPI_COMM_WORLD) inside the region
 * tracesync_timesync: the child's send and receive stamps and the master's send
 * stamp are the exchange, so readers that know messages get every raw sample.
 * Each session also becomes a ClockOffset record (write.c). The global stamps
 * use the regression line over every kept exchange with the start and end
 * sessions only, the monotone C1 spline through the sessions' condensed pairs
 * (timemap/spline.h) with mid-run ones (seed 000).
 *
 * TRACESYNC_SYNCED_HOST: only the first rank of each host exchanges; the others
 * take its session (all ticks count from the run's first start, so a shared clock
 * gives shared ticks). TRACESYNC_SYNCED_CLUSTER: nobody exchanges; every offset
 * is 0. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect_mpi.h"
#include "timemap/spline.h"

#define TAG_SYNC 0x7473
#define TSC_START_MARGIN_NS (UINT64_C(10) * TSC_TICKS_PER_S)

struct tsc_session *tsc_sessions;
size_t tsc_n_sessions;
char (*tsc_hosts)[64];

static MPI_Comm sync_comm = MPI_COMM_NULL;
static int *leader;                 /* per world rank: first rank of its host */
static double *pt_local, *pt_master; /* every kept exchange of this rank */
static size_t n_pts, cap_pts;
static double *knots;               /* the spline's x, y and slopes (3 x sessions) */
static uint64_t wall_first, wall_last, tick_first, tick_last; /* master */

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * TSC_TICKS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint64_t now_tick(void)
{
    uint64_t truth;
    uint64_t ns = tsc_clock_now(&tsc.clock, &truth);
    return ns > tsc.clock.origin_ns ? ns - tsc.clock.origin_ns : 0;
}

int tsc_timesync_init(void)
{
    int n = tsc.size;
    tsc_hosts = calloc((size_t)n, sizeof *tsc_hosts);
    leader = malloc((size_t)n * sizeof *leader);
    uint64_t *origins = malloc((size_t)n * sizeof *origins);
    if (!tsc_hosts || !leader || !origins) {
        free(origins);
        return -1;
    }
    char me[64] = { 0 };
    gethostname(me, sizeof me - 1);
    PMPI_Allgather(me, 64, MPI_CHAR, tsc_hosts, 64, MPI_CHAR, MPI_COMM_WORLD);
    PMPI_Allgather(&tsc.clock.origin_ns, 1, MPI_UINT64_T, origins, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    /* Ticks count from the start of the run (seed 001): TSC_START_MARGIN before the
     * earliest process's start, so that processes that share a clock share their
     * ticks, and a ClockOffset correction never makes a time negative for a process
     * that started up to the margin before the master. The records so far
     * (MPI_Init's Enter) move with the origin. */
    uint64_t base = origins[0];
    for (int r = 1; r < n; r++)
        base = origins[r] < base ? origins[r] : base;
    base = base > TSC_START_MARGIN_NS ? base - TSC_START_MARGIN_NS : 0;
    uint64_t shift = tsc.clock.origin_ns - base;
    for (size_t i = 0; i < tsc.n_buf; i++)
        tsc.buf[i].stamp += shift << TSC_EVENT_BITS;
    tsc.clock.last_tick += shift;
    tsc.clock.origin_ns = base;
    tsc.first_stamp = tsc.buf[0].stamp;
    free(origins);
    for (int r = 0; r < n; r++) {
        leader[r] = r;
        for (int q = 0; q < r; q++)
            if (!strcmp(tsc_hosts[q], tsc_hosts[r])) {
                leader[r] = q;
                break;
            }
    }
    return PMPI_Comm_dup(MPI_COMM_WORLD, &sync_comm) == MPI_SUCCESS ? 0 : -1;
}

/* No exchange at all: SYNCED_CLUSTER, or sessions switched off (0 messages or a
 * duration <= 0, as in ITC); clocks are then taken as synchronized. */
static bool none_exchange(void)
{
    return tsc.cfg.synced_cluster || tsc.cfg.sync_max_messages == 0 || tsc.cfg.sync_max_duration_s <= 0;
}

static bool exchanges(int r)
{
    if (r == 0 || none_exchange())
        return false;
    return !tsc.cfg.synced_host || leader[r] == r;
}

static int push_session(const struct tsc_session *s)
{
    struct tsc_session *p = realloc(tsc_sessions, (tsc_n_sessions + 1) * sizeof *p);
    if (!p)
        return -1;
    tsc_sessions = p;
    tsc_sessions[tsc_n_sessions++] = *s;
    return 0;
}

static int push_point(double local, double master)
{
    if (n_pts == cap_pts) {
        size_t cap = cap_pts ? 2 * cap_pts : 256;
        double *l = realloc(pt_local, cap * sizeof *l);
        if (l)
            pt_local = l;
        double *m = l ? realloc(pt_master, cap * sizeof *m) : NULL;
        if (!m)
            return -1;
        pt_master = m, cap_pts = cap;
    }
    pt_local[n_pts] = local, pt_master[n_pts++] = master;
    return 0;
}

/* The ping is one uint64_t, the reply two: the master's stamp and "last". */
static struct tsc_rec *record_msg(enum tsc_kind kind, int peer, uint64_t bytes)
{
    struct tsc_rec *r = tsc_record(kind);
    r->comm = TSC_COMM_TIMESYNC;
    r->peer = (uint32_t)peer;
    r->tag = TAG_SYNC;
    r->a = bytes;
    return r;
}

/* The master's side: rounds over the children. */
static void run_master(void)
{
    uint64_t start = now_tick();
    uint64_t limit = (uint64_t)(tsc.cfg.sync_max_duration_s * 1e9);
    bool any = false;
    for (int r = 1; r < tsc.size; r++)
        any |= exchanges(r);
    for (uint32_t round = 0; any; round++) {
        uint64_t last = round + 1 >= tsc.cfg.sync_max_messages || now_tick() - start >= limit;
        for (int c = 1; c < tsc.size; c++) {
            if (!exchanges(c))
                continue;
            uint64_t ping, reply[2];
            PMPI_Recv(&ping, 1, MPI_UINT64_T, c, TAG_SYNC, sync_comm, MPI_STATUS_IGNORE);
            record_msg(TSC_RECV, c, sizeof ping);
            reply[0] = tsc_stamp_tick(record_msg(TSC_SEND, c, sizeof reply)->stamp);
            reply[1] = last;
            PMPI_Send(reply, 2, MPI_UINT64_T, c, TAG_SYNC, sync_comm);
        }
        if (last)
            break;
    }
}

/* A child's side: ping, the master's stamp back, until the master says last. */
static int run_child(struct tsc_session *s)
{
    struct tsc_exchange *x = NULL;
    size_t n = 0, cap = 0;
    uint64_t reply[2] = { 0, 0 };
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 128;
            struct tsc_exchange *p = realloc(x, cap * sizeof *p);
            if (!p) {
                free(x);
                return -1; /* the master waits: cannot happen short of memory */
            }
            x = p;
        }
        uint64_t ping = n;
        x[n].t_send = tsc_stamp_tick(record_msg(TSC_SEND, 0, sizeof ping)->stamp);
        PMPI_Send(&ping, 1, MPI_UINT64_T, 0, TAG_SYNC, sync_comm);
        PMPI_Recv(reply, 2, MPI_UINT64_T, 0, TAG_SYNC, sync_comm, MPI_STATUS_IGNORE);
        x[n].t_recv = tsc_stamp_tick(record_msg(TSC_RECV, 0, sizeof reply)->stamp);
        x[n].t_master = reply[0];
        n++;
    } while (!reply[1]);
    bool *keep = malloc(n * sizeof *keep);
    int rc = keep ? tsc_session_reduce(x, n, keep, s) : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (keep[i])
            rc = push_point((double)x[i].t_send + (double)(x[i].t_recv - x[i].t_send) / 2, (double)x[i].t_master);
    free(keep);
    free(x);
    return rc;
}

int tsc_timesync_session(void)
{
    struct tsc_session s = { 0 };
    int rc = 0;
    tsc_enter(TSC_R_TIMESYNC);
    if (tsc.rank == 0) {
        run_master();
        uint64_t t = now_tick();
        s = (struct tsc_session){ .local = (double)t, .master = (double)t };
        if (!tick_first && !wall_first)
            wall_first = wall_ns(), tick_first = t;
        else
            wall_last = wall_ns(), tick_last = t;
    } else if (exchanges(tsc.rank)) {
        rc = run_child(&s);
    }
    /* Ranks that do not exchange share a clock with their host's first rank (or,
     * SYNCED_CLUSTER, with the master), and so their ticks: its session is theirs. */
    double shared[3] = { s.local, s.master, s.stddev };
    bool host = tsc.cfg.synced_host && !none_exchange();
    if (host && leader[tsc.rank] == tsc.rank) {
        for (int r = tsc.rank + 1; r < tsc.size; r++)
            if (leader[r] == tsc.rank)
                PMPI_Send(shared, 3, MPI_DOUBLE, r, TAG_SYNC, sync_comm);
    } else if (host && tsc.rank != 0) {
        PMPI_Recv(shared, 3, MPI_DOUBLE, leader[tsc.rank], TAG_SYNC, sync_comm, MPI_STATUS_IGNORE);
    }
    if (tsc.rank != 0 && !exchanges(tsc.rank)) {
        double local = none_exchange() ? (double)now_tick() : shared[0];
        double master = none_exchange() ? local : shared[1];
        s = (struct tsc_session){ .local = local, .master = master, .offset = master - local,
                                  .stddev = shared[2], .n = 0, .kept = 0 };
        rc = push_point(s.local, s.master);
    }
    if (rc == 0)
        rc = push_session(&s);
    tsc_leave(TSC_R_TIMESYNC);
    return rc;
}

void tsc_timesync_global_map(struct tsc_global_map *m)
{
    double scale = 1.0;
    if (tsc.rank == 0 && tick_last > tick_first && wall_last > wall_first)
        scale = (double)(wall_last - wall_first) / (double)(tick_last - tick_first);
    PMPI_Bcast(&scale, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *m = (struct tsc_global_map){ .a = 1.0, .b = 0.0, .scale = scale, .origin = 0 };
    if (tsc.rank == 0)
        return;
    /* Seed 000: start and end sessions give a line by regression over all samples;
     * with one session only its offset. */
    if (tsc_n_sessions >= 2 && n_pts > 0)
        tsc_fit_line(pt_local, pt_master, n_pts, &m->a, &m->b);
    else if (tsc_n_sessions == 1)
        m->b = tsc_sessions[0].offset;
    /* With mid-run sessions, the constrained C1 spline through every session's
     * condensed pair; sessions that contradict a usable slope keep the line. */
    size_t n = tsc_n_sessions;
    if (n > 2 && (knots = malloc(3 * n * sizeof *knots))) {
        double *x = knots, *y = knots + n, *d = knots + 2 * n;
        for (size_t i = 0; i < n; i++)
            x[i] = tsc_sessions[i].local, y[i] = tsc_sessions[i].master;
        if (tsync__spline_slopes(x, y, n, tsc_global_min_slope(m), d) == 0)
            m->n = n, m->x = x, m->y = y, m->d = d;
        else
            tsc_warn("the %zu synchronization sessions do not give a usable clock correction "
                     "(slope below %g between two of them); the regression line instead", n,
                     tsc_global_min_slope(m));
    }
    if (!tsc_global_map_check(m)) {
        tsc_warn("clock correction with slope %g is not usable; offset only", m->a);
        *m = (struct tsc_global_map){ .a = 1.0, .b = tsc_n_sessions ? tsc_sessions[tsc_n_sessions - 1].offset : 0,
                                      .scale = m->scale };
    }
}

void tsc_timesync_free(void)
{
    if (sync_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&sync_comm);
    free(tsc_sessions), free(tsc_hosts), free(leader), free(pt_local), free(pt_master), free(knots);
    tsc_sessions = NULL, tsc_hosts = NULL, leader = NULL, pt_local = pt_master = knots = NULL;
    tsc_n_sessions = n_pts = cap_pts = 0;
}
