/* sim.h - the simulator: virtual MPI runs on realistic clocks and networks, written
 * twice, as the local clocks read them and as they truly happened.
 *
 * tsync_sim_run writes into one directory
 *
 *     trace.otf2     every event stamped by its node's local clock (integer ticks)
 *     truth.otf2     the same events in the same order, stamped with true time
 *     scenario.json  every parameter used, and what each clock was drawn to be
 *
 * With format csv (messages between hosts, seed 003) the two are trace.csv and
 * truth.csv instead: the same rows (send_location,send_time_ns,recv_location,
 * recv_time_ns) with local and with true times; every link of hosts.topology
 * carries hosts.messages messages each way.
 *
 * Both archives have the same definitions (nodes, locations with the same ids,
 * regions, communicators); only timestamps and the clock properties differ. The
 * run is a deterministic function of the options: the same options and seed give
 * the same files (apart from the random trace identifier libotf2 puts in every
 * anchor file).
 *
 * The models and their sources:
 *   clocks   (seed 004) initial offset, skew (normal, 10 ppm sd, clipped at 50 ppm),
 *            temperature wander as a sinusoid (0.1 to 1 ppm, 10 to 60 min), random
 *            walk frequency noise (Allan deviation 1e-9 at 1 s growing as sqrt(tau):
 *            1e-8 at 100 s), an optional daily cycle (+-0.37 ppm, section 6),
 *            optional steps (NTP adjustments, slewed so a clock never runs back);
 *   network  (seed 002 section 6, seed 003, seed 004 section 7) minimum latency per
 *            class (same node, other node), exponential or gamma excess, outliers
 *            (OS noise, 10 to 1000 us), per-node send and receive delays that make
 *            the two directions of a link differ;
 *   program  ping-pong, ring, 2D and 3D halo exchange and random pairs, blocking
 *            and non-blocking, every collective class with rotating roots, compute
 *            phases, and long idle gaps before and after the main phase (the
 *            10-minute sleeps of seed 002 section 6);
 *   offsets  Score-P style ClockOffset records at MPI_Init and MPI_Finalize (ten
 *            ping-pongs per process with rank 0, minimum round trip), optionally
 *            also in periodic sessions, measured through the simulated network.
 *
 * Typical use:
 *
 *     tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
 *     tsync_sim_result r;
 *     if (tsync_sim_scenario(&o, "cacau", ctx) == 0 &&
 *         tsync_sim_set(&o, "app.events", "200000", ctx) == 0 &&
 *         tsync_sim_run(&r, &o, "out", ctx) == 0)
 *         ... out/trace.otf2, out/truth.otf2 ...
 */
#ifndef TRACESYNC_SIM_H
#define TRACESYNC_SIM_H

#include "tracesync/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Distribution of the latency above the minimum. */
enum tsync_sim_excess { TSYNC_SIM_EXPONENTIAL = 0, TSYNC_SIM_GAMMA = 1 };

/** Point-to-point patterns (a bit set). */
enum {
    TSYNC_SIM_PINGPONG = 1 << 0,  /* ranks 2i and 2i+1: there and back */
    TSYNC_SIM_RING = 1 << 1,      /* to rank+1, from rank-1 */
    TSYNC_SIM_HALO2D = 1 << 2,    /* 4 neighbours on a periodic 2D process grid */
    TSYNC_SIM_HALO3D = 1 << 3,    /* 6 neighbours on a periodic 3D process grid */
    TSYNC_SIM_RANDOM = 1 << 4,    /* a random perfect matching, both directions */
    TSYNC_SIM_PATTERNS_ALL = (1 << 5) - 1
};

/** Collective operations (a bit set), with their class of seed 002 section 4.1. */
enum {
    TSYNC_SIM_BARRIER = 1 << 0,   /* N-to-N */
    TSYNC_SIM_BCAST = 1 << 1,     /* 1-to-N */
    TSYNC_SIM_SCATTER = 1 << 2,   /* 1-to-N */
    TSYNC_SIM_GATHER = 1 << 3,    /* N-to-1 */
    TSYNC_SIM_REDUCE = 1 << 4,    /* N-to-1 */
    TSYNC_SIM_ALLREDUCE = 1 << 5, /* N-to-N */
    TSYNC_SIM_ALLGATHER = 1 << 6, /* N-to-N */
    TSYNC_SIM_ALLTOALL = 1 << 7,  /* N-to-N */
    TSYNC_SIM_SCAN = 1 << 8,      /* prefix */
    TSYNC_SIM_EXSCAN = 1 << 9,    /* exclusive prefix */
    TSYNC_SIM_COLLECTIVES_ALL = (1 << 10) - 1
};

/** How clocks drift. Per-clock values are drawn from these at the start. */
typedef struct {
    double offset_max_s;        /* initial offsets uniform in [-max, max] */
    double skew_sd_ppm;         /* skew ~ normal(0, sd) ... */
    double skew_max_ppm;        /* ... clipped to [-max, max] */
    double temp_amp_min_ppm;    /* temperature: frequency amplitude uniform in [min, max] */
    double temp_amp_max_ppm;
    double temp_period_min_s;   /* temperature: period uniform in [min, max] */
    double temp_period_max_s;
    double allan_1s;            /* random walk FM: Allan deviation at tau = 1 s (0: off) */
    double daily_amp_ppm;       /* daily cycle amplitude (0: off); per clock 0.5..1.5 x */
    double daily_start_h;       /* hour of the day at which the run starts */
    uint32_t steps;             /* clock steps per clock (NTP adjustments; 0: none) */
    double step_max_s;          /* step sizes uniform in [-max, max] */
    double step_window_s;       /* steps fall uniformly in the first window seconds */
    double slew_ppm;            /* a step is slewed at this rate (ntpd: 500 ppm) */
    double origin_gap_min_s;    /* per-rank clock origins (EZTrace): the k-th rank of a node */
    double origin_gap_max_s;    /* starts its clock k gaps, each uniform in [min, max], after
                                 * the node's first rank; same oscillator (0: one origin) */
} tsync_sim_clock_params;

/** How messages travel. */
typedef struct {
    double latency_intra_s;     /* minimum latency within a node */
    double latency_inter_s;     /* minimum latency between nodes */
    enum tsync_sim_excess excess;
    double excess_intra_s;      /* mean excess above the minimum, within a node */
    double excess_inter_s;      /* mean excess above the minimum, between nodes */
    double gamma_shape;         /* shape k of the gamma excess */
    double outlier_fraction;    /* share of messages delayed by OS noise */
    double outlier_min_s;       /* outlier delays log-uniform in [min, max] */
    double outlier_max_s;
    double asymmetry_max_s;     /* per node send and receive delays, uniform in [0, max]:
                                 * a -> b costs send(a) + recv(b) extra (between nodes) */
} tsync_sim_net_params;

/** What the program does. */
typedef struct {
    uint64_t events;            /* stop the main phase at this many events (0: no limit) */
    double duration_s;          /* ... or after this much true time (0: no limit) */
    double compute_mean_s;      /* mean compute phase per iteration */
    double compute_cv;          /* its coefficient of variation (log-normal) */
    double imbalance;           /* per rank load factor uniform in [1 - x, 1 + x] */
    double sleep_before_s;      /* idle gap after MPI_Init */
    double sleep_after_s;       /* idle gap before MPI_Finalize */
    uint32_t patterns;          /* TSYNC_SIM_PINGPONG | ... */
    double nonblocking;         /* share of exchanges in non-blocking form */
    uint32_t collectives;       /* TSYNC_SIM_BARRIER | ... */
    uint32_t collective_every;  /* one collective every this many iterations (0: none) */
    uint64_t message_bytes;     /* recorded size of every message */
    double call_overhead_s;     /* from entering an MPI call to its record, and from the
                                 * record to leaving */
    double coll_step_s;         /* per tree level cost of a collective */
} tsync_sim_app_params;

/** What the run writes: an MPI run as OTF2, or messages between hosts as CSV. */
enum tsync_sim_format { TSYNC_SIM_OTF2 = 0, TSYNC_SIM_CSV = 1 };

/** Which hosts exchange messages in a CSV run (every link carries both directions). */
enum tsync_sim_topology {
    TSYNC_SIM_TOPO_PAIR = 0,   /* hosts 0 and 1 (nodes = 2) */
    TSYNC_SIM_TOPO_CHAIN = 1,  /* k and k+1 */
    TSYNC_SIM_TOPO_STAR = 2,   /* 0 and every other host */
    TSYNC_SIM_TOPO_RING = 3,   /* k and k+1 mod nodes */
    TSYNC_SIM_TOPO_MESH = 4    /* every pair */
};

/** Messages between hosts (format csv): the nodes are the hosts, one clock each. */
typedef struct {
    enum tsync_sim_topology topology;
    uint64_t messages;          /* per direction of each link, at uniform random true times
                                 * over app.duration_s */
} tsync_sim_hosts_params;

/** Score-P style offset measurements. */
typedef struct {
    int enabled;                /* at MPI_Init and MPI_Finalize */
    uint32_t pingpongs;         /* per process with rank 0; the fastest one counts */
    double session_interval_s;  /* also every this many seconds (0: never) */
} tsync_sim_offset_params;

/** Everything a run depends on; initialize with TSYNC_SIM_OPTS_INIT or a scenario. */
typedef struct {
    unsigned version;
    char scenario[32];          /* name, for scenario.json */
    uint64_t seed;
    uint32_t ranks;
    uint32_t nodes;             /* ranks are spread in blocks: rank r on node r*nodes/ranks */
    int cyclic;                 /* ... or cyclically: rank r on node r % nodes */
    int clock_per_rank;         /* 0: the processes of a node share one clock */
    uint64_t timer_resolution;  /* ticks per second of the local clocks */
    double read_cost_s;         /* true time one clock read takes (events are >= apart) */
    tsync_sim_clock_params clock;
    tsync_sim_net_params net;
    tsync_sim_app_params app;
    tsync_sim_offset_params offsets;
    enum tsync_sim_format format;
    tsync_sim_hosts_params hosts;
} tsync_sim_opts;

#define TSYNC_SIM_OPTS_VERSION 1
/* The defaults: a small cluster of 8 ranks on 4 nodes with InfiniBand-like latency. */
#define TSYNC_SIM_OPTS_INIT                                                                    \
    { .version = TSYNC_SIM_OPTS_VERSION, .scenario = "default", .seed = 1, .ranks = 8,        \
      .nodes = 4, .cyclic = 0, .clock_per_rank = 0, .timer_resolution = 1000000000, .read_cost_s = 20e-9,  \
      .clock = { .offset_max_s = 5e-3, .skew_sd_ppm = 10, .skew_max_ppm = 50,               \
                 .temp_amp_min_ppm = 0.1, .temp_amp_max_ppm = 1, .temp_period_min_s = 600,  \
                 .temp_period_max_s = 3600, .allan_1s = 1e-9, .daily_amp_ppm = 0,           \
                 .daily_start_h = 0, .steps = 0, .step_max_s = 1e-3, .step_window_s = 1800, \
                 .slew_ppm = 500, .origin_gap_min_s = 0, .origin_gap_max_s = 0 },           \
      .net = { .latency_intra_s = 1e-6, .latency_inter_s = 5e-6,                            \
               .excess = TSYNC_SIM_EXPONENTIAL, .excess_intra_s = 0.2e-6,                   \
               .excess_inter_s = 1e-6, .gamma_shape = 2, .outlier_fraction = 1e-3,          \
               .outlier_min_s = 10e-6, .outlier_max_s = 1000e-6, .asymmetry_max_s = 0.5e-6 }, \
      .app = { .events = 100000, .duration_s = 0, .compute_mean_s = 1e-3, .compute_cv = 0.2, \
               .imbalance = 0.1, .sleep_before_s = 1, .sleep_after_s = 1,                   \
               .patterns = TSYNC_SIM_PATTERNS_ALL, .nonblocking = 0.5,                      \
               .collectives = TSYNC_SIM_COLLECTIVES_ALL, .collective_every = 4,             \
               .message_bytes = 4096, .call_overhead_s = 0.2e-6, .coll_step_s = 0.5e-6 },   \
      .offsets = { .enabled = 1, .pingpongs = 10, .session_interval_s = 0 },                 \
      .format = TSYNC_SIM_OTF2, .hosts = { .topology = TSYNC_SIM_TOPO_PAIR, .messages = 20000 } }

/** Named scenarios: how many, and the name and one-line summary of each. */
TSYNC_API size_t tsync_sim_scenario_count(void);
TSYNC_API const char *tsync_sim_scenario_name(size_t i);
TSYNC_API const char *tsync_sim_scenario_summary(size_t i);

/**
 * Sets every parameter of `o` to the named scenario (smoke, marenostrum, cacau,
 * thermal, lan, sleeps, eztrace, hosts; "default" is TSYNC_SIM_OPTS_INIT). The seed is kept.
 * @return 0, or TSYNC_EINVAL for an unknown name (the message lists the names);
 *         `o` is unchanged then.
 */
TSYNC_API int tsync_sim_scenario(tsync_sim_opts *o, const char *name, tsync_ctx *ctx);

/**
 * Sets one parameter by its name in scenario.json, e.g. "net.latency_inter_s" = "7.7us",
 * "app.patterns" = "ring,halo3d", "offsets.enabled" = "off". Times take a unit (ns, us,
 * ms, s, min, h; seconds without one). Values are checked by tsync_sim_run, not here.
 * @return 0, or TSYNC_EINVAL (unknown key: the message lists the keys of its group;
 *         a value that does not parse); `o` is unchanged then.
 */
TSYNC_API int tsync_sim_set(tsync_sim_opts *o, const char *key, const char *value, tsync_ctx *ctx);

/** The name, type and meaning of parameter i (0 .. count-1), for --help listings.
 *  NULL past the end. */
TSYNC_API const char *tsync_sim_param_name(size_t i);
TSYNC_API const char *tsync_sim_param_help(size_t i);

/**
 * Reads the parameters from a scenario.json that tsync_sim_run wrote (its "parameters"
 * object; missing keys keep their value in `o`), so that a run can be repeated.
 * @return 0, TSYNC_EIO (cannot read), TSYNC_EFORMAT (not JSON, wrong types: the
 *         message names the key) or TSYNC_EINVAL (unknown key); `o` is unchanged then.
 */
TSYNC_API int tsync_sim_load(tsync_sim_opts *o, const char *path, tsync_ctx *ctx);

/**
 * Checks that the options can run: ranks >= 1, 1 <= nodes <= ranks, positive timer
 * resolution, an end to the main phase (events or duration), latencies >= 0 and
 * ranges in order. @return 0, or TSYNC_EINVAL naming the parameter.
 */
TSYNC_API int tsync_sim_validate(const tsync_sim_opts *o, tsync_ctx *ctx);

/** About how many events (messages: two events each) a run of these options records,
 *  and how many bytes it writes (trace and truth together), from the options alone:
 *  app.events, or app.duration_s over the ranks and the mean compute phase, whichever
 *  ends the run first; hosts.messages and the topology for format csv. Within a factor
 *  of about 2 on the named scenarios; meant for a warning before a big run. */
TSYNC_API double tsync_sim_estimate_events(const tsync_sim_opts *o);
TSYNC_API double tsync_sim_estimate_bytes(const tsync_sim_opts *o);

/** What a run produced. */
typedef struct {
    uint64_t events;            /* events in each archive */
    uint64_t messages;          /* point-to-point messages */
    uint64_t collectives;       /* collective operations (instances) */
    uint64_t clock_offsets;     /* ClockOffset records per archive */
    double start_s, end_s;      /* true time of the first and last event */
    double main_start_s, main_end_s; /* true time span of the main phase */
    size_t state_bytes;         /* memory the simulator itself held (no libotf2 buffers) */
} tsync_sim_result;

/**
 * Runs the simulation and writes OUTDIR/trace.otf2, OUTDIR/truth.otf2 (format csv:
 * OUTDIR/trace.csv, OUTDIR/truth.csv) and OUTDIR/scenario.json (OUTDIR is made if missing). Output goes to a temporary
 * directory inside OUTDIR first; earlier files of those names are replaced only
 * when everything is written. Memory does not grow with the number of events.
 * `out` may be NULL.
 * @return 0, TSYNC_EINVAL (options, see tsync_sim_validate), TSYNC_EIO (writing),
 *         TSYNC_ENOMEM, or TSYNC_EINCONSISTENT (a simulator bug: a clock read went
 *         back, a causality check failed); nothing is left behind on failure.
 */
TSYNC_API int tsync_sim_run(tsync_sim_result *out, const tsync_sim_opts *o, const char *outdir,
                            tsync_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
