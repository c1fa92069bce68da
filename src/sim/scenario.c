/* scenario.c - the simulator's parameters: named scenarios, one table of every
 * parameter (its key in scenario.json, type and meaning) that drives setting a
 * parameter from text, reading and writing scenario.json and --help, and checking
 * that a set of parameters can run.
 *
 * Scenarios (sources in brackets):
 *   smoke        4 ranks on 2 nodes, ~2000 events, short gaps: for tests
 *   marenostrum  64 ranks, 4 per node, Myrinet: 1.3 / 7.7 us [seed 002, s. 6], 10 min
 *                sleeps before and after the main phase, so offsets are measured
 *                20 min apart [seed 002, s. 6]; a steady machine room: temperature
 *                wander 0.01 to 0.1 ppm [seed 004, s. 4.2]
 *   cacau        32 ranks, 2 per node, InfiniBand: 1.0 / 4.7 us [seed 002, s. 6], the
 *                same sleeps and machine room
 *   thermal      16 ranks on 8 nodes for an hour with strong temperature wander
 *                (0.8 to 1 ppm over 20 to 60 min) [seed 004, s. 4.1]
 *   lan          8 hosts on switched Fast Ethernet: ~60 us minimum, gamma excess,
 *                1 % outliers, up to 10 us per host of asymmetry [seed 003, s. 12
 *                and 14; seed 004, s. 7]
 *   sleeps       the defaults with offsets 10 minutes away from a 60 s main phase
 *                [seed 002, s. 6]
 *   eztrace      per-rank clock origins on a node's oscillator, no ClockOffset records
 *                (as EZTrace records them)
 *   hosts        format csv: messages between hosts for an hour, 50 us minimum delay
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "sim/clock.h"
#include "sim/scenario.h"
#include "util/units.h"
#include "util/ctx.h"
#include "util/utf8.h"

/* ---- named scenarios ----------------------------------------------------- */

static void sc_default(tsync_sim_opts *o) { (void)o; }

static void sc_smoke(tsync_sim_opts *o)
{
    o->ranks = 4;
    o->nodes = 2;
    o->app.events = 2000;
    o->app.compute_mean_s = 100e-6;
    o->app.sleep_before_s = 0.5;
    o->app.sleep_after_s = 0.5;
    o->app.collective_every = 2;
}

/* Seed 002, section 6: a platform's ranks and measured MPI latencies, and the
 * 10-minute sleeps that put the offset measurements of MPI_Init and MPI_Finalize
 * about 20 minutes apart. Excess means are a fifth of the latencies. Machine rooms
 * keep temperature steady (seed 004, section 4.2: with the fan running, load hardly
 * changes it), so temperature wander is ten times smaller than the default. */
static void seed002_run(tsync_sim_opts *o, uint32_t ranks, uint32_t nodes, double intra,
                        double inter)
{
    o->ranks = ranks;
    o->nodes = nodes;
    o->net.latency_intra_s = intra;
    o->net.latency_inter_s = inter;
    o->net.excess_intra_s = intra / 5;
    o->net.excess_inter_s = inter / 5;
    o->app.events = 1000000;
    o->app.compute_mean_s = 2e-3;
    o->app.sleep_before_s = 600;
    o->app.sleep_after_s = 600;
    o->clock.temp_amp_min_ppm = 0.01;
    o->clock.temp_amp_max_ppm = 0.1;
}

/* JS21 blades with 2 dual-core PowerPC 970MP: 4 ranks per node; Myrinet. */
static void sc_marenostrum(tsync_sim_opts *o) { seed002_run(o, 64, 16, 1.3e-6, 7.7e-6); }

/* One dual-core Xeon EM64T per node: 2 ranks per node; InfiniBand. */
static void sc_cacau(tsync_sim_opts *o) { seed002_run(o, 32, 16, 1.0e-6, 4.7e-6); }

static void sc_thermal(tsync_sim_opts *o)
{
    o->ranks = 16;
    o->nodes = 8;
    o->clock.temp_amp_min_ppm = 0.8;
    o->clock.temp_amp_max_ppm = 1.0;
    o->clock.temp_period_min_s = 1200;
    o->clock.temp_period_max_s = 3600;
    o->app.events = 0;
    o->app.duration_s = 3600;
    o->app.compute_mean_s = 0.5;
    o->app.sleep_before_s = 10;
    o->app.sleep_after_s = 10;
}

static void sc_lan(tsync_sim_opts *o)
{
    o->ranks = 8;
    o->nodes = 8;
    o->net.latency_intra_s = 5e-6;      /* loopback TCP */
    o->net.latency_inter_s = 60e-6;     /* Fast Ethernet through a switch */
    o->net.excess = TSYNC_SIM_GAMMA;
    o->net.gamma_shape = 2;
    o->net.excess_intra_s = 2e-6;
    o->net.excess_inter_s = 15e-6;
    o->net.outlier_fraction = 0.01;
    o->net.asymmetry_max_s = 10e-6;
    o->app.events = 100000;
    o->app.compute_mean_s = 10e-3;
    o->app.sleep_before_s = 60;
    o->app.sleep_after_s = 60;
    o->app.message_bytes = 1024;
}

/* Seed 002's setting at the size of the defaults: 8 ranks on 4 nodes, offsets
 * measured at MPI_Init and MPI_Finalize 10 minutes away from a 60 s main phase. */
static void sc_sleeps(tsync_sim_opts *o)
{
    o->app.events = 0;
    o->app.duration_s = 60;
    o->app.compute_mean_s = 10e-3;
    o->app.sleep_before_s = 600;
    o->app.sleep_after_s = 600;
}

/* EZTrace: no ClockOffset records, and each rank's clock starts at its own origin
 * (25 to 40 ms after the previous rank's on its node) on its node's oscillator. */
static void sc_eztrace(tsync_sim_opts *o)
{
    o->clock.origin_gap_min_s = 25e-3;
    o->clock.origin_gap_max_s = 40e-3;
    o->offsets.enabled = 0;
    o->app.events = 0;
    o->app.duration_s = 60;
    o->app.compute_mean_s = 10e-3;
}

/* Messages between two hosts on a LAN for an hour (seed 003, section 12; seed 004,
 * section 7): 50 us minimum one-way delay, exponential excess, the same both ways. */
static void sc_hosts(tsync_sim_opts *o)
{
    o->format = TSYNC_SIM_CSV;
    o->ranks = 2;
    o->nodes = 2;
    o->net.latency_inter_s = 50e-6;
    o->net.excess_inter_s = 20e-6;
    o->net.outlier_fraction = 0;
    o->net.asymmetry_max_s = 0;
    o->app.events = 0;
    o->app.duration_s = 3600;
    o->offsets.enabled = 0;
}

static const struct scenario {
    const char *name;
    void (*set)(tsync_sim_opts *o);
    const char *summary;
} scenarios[] = {
    { "default", sc_default, "8 ranks on 4 nodes, InfiniBand-like latency, 10^5 events" },
    { "smoke", sc_smoke, "4 ranks on 2 nodes, about 2000 events: for tests" },
    { "marenostrum", sc_marenostrum, "64 ranks, 4 per node, 1.3/7.7 us, 10 min sleeps (seed 002)" },
    { "cacau", sc_cacau, "32 ranks, 2 per node, 1.0/4.7 us, 10 min sleeps (seed 002)" },
    { "thermal", sc_thermal, "16 ranks on 8 nodes for an hour, strong temperature wander" },
    { "lan", sc_lan, "8 hosts on Fast Ethernet, ~60 us, asymmetric, outliers (seed 003)" },
    { "sleeps", sc_sleeps, "8 ranks on 4 nodes, offsets 10 min away from a 60 s main phase" },
    { "eztrace", sc_eztrace, "per-rank clock origins 25-40 ms apart, no ClockOffset records" },
    { "hosts", sc_hosts, "csv: 2 hosts, 20000 messages each way over an hour, 50 us minimum" },
};

#define N_SCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

size_t tsync_sim_scenario_count(void) { return N_SCENARIOS; }

const char *tsync_sim_scenario_name(size_t i) { return i < N_SCENARIOS ? scenarios[i].name : NULL; }

const char *tsync_sim_scenario_summary(size_t i)
{
    return i < N_SCENARIOS ? scenarios[i].summary : NULL;
}

int tsync_sim_scenario(tsync_sim_opts *o, const char *name, tsync_ctx *ctx)
{
    char list[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < N_SCENARIOS; i++) {
        if (strcmp(scenarios[i].name, name) == 0) {
            tsync_sim_opts d = TSYNC_SIM_OPTS_INIT;
            d.seed = o->seed;
            scenarios[i].set(&d);
            snprintf(d.scenario, sizeof(d.scenario), "%s", name);
            *o = d;
            return TSYNC_OK;
        }
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
                                 scenarios[i].name);
    }
    return tsync__fail(ctx, TSYNC_EINVAL, "unknown scenario \"%s\" (scenarios: %s)", name, list);
}

/* ---- the parameter table -------------------------------------------------- */

enum ptype { P_STR, P_U64, P_U32, P_DOUBLE, P_TIME, P_BOOL, P_EXCESS, P_FORMAT, P_TOPOLOGY,
             P_PATTERNS, P_COLLS };

static const struct param {
    const char *key;          /* "group.name", or "name" at the top */
    enum ptype type;
    size_t off;
    const char *help;
} params[] = {
#define F(field) offsetof(tsync_sim_opts, field)
    { "scenario", P_STR, F(scenario), "name of the scenario the run started from" },
    { "seed", P_U64, F(seed), "seed of every random draw" },
    { "ranks", P_U32, F(ranks), "MPI processes" },
    { "nodes", P_U32, F(nodes), "nodes; rank r runs on node r x nodes / ranks" },
    { "cyclic", P_BOOL, F(cyclic), "rank r runs on node r % nodes (off: in blocks)" },
    { "clock_per_rank", P_BOOL, F(clock_per_rank), "every rank its own clock (off: one per node)" },
    { "timer_resolution", P_U64, F(timer_resolution), "ticks per second of the local clocks" },
    { "read_cost_s", P_TIME, F(read_cost_s), "true time one clock read takes" },
    { "clock.offset_max_s", P_TIME, F(clock.offset_max_s), "initial offsets uniform in +-max" },
    { "clock.skew_sd_ppm", P_DOUBLE, F(clock.skew_sd_ppm), "skew: normal standard deviation, ppm" },
    { "clock.skew_max_ppm", P_DOUBLE, F(clock.skew_max_ppm), "skew: clipped at +-max, ppm" },
    { "clock.temp_amp_min_ppm", P_DOUBLE, F(clock.temp_amp_min_ppm), "temperature: amplitude from, ppm" },
    { "clock.temp_amp_max_ppm", P_DOUBLE, F(clock.temp_amp_max_ppm), "temperature: amplitude to, ppm" },
    { "clock.temp_period_min_s", P_TIME, F(clock.temp_period_min_s), "temperature: period from" },
    { "clock.temp_period_max_s", P_TIME, F(clock.temp_period_max_s), "temperature: period to" },
    { "clock.allan_1s", P_DOUBLE, F(clock.allan_1s), "random walk FM: Allan deviation at 1 s" },
    { "clock.daily_amp_ppm", P_DOUBLE, F(clock.daily_amp_ppm), "daily cycle amplitude, ppm (0: off)" },
    { "clock.daily_start_h", P_DOUBLE, F(clock.daily_start_h), "hour of the day the run starts" },
    { "clock.steps", P_U32, F(clock.steps), "clock steps (NTP adjustments) per clock, <= 64" },
    { "clock.step_max_s", P_TIME, F(clock.step_max_s), "step sizes uniform in +-max" },
    { "clock.step_window_s", P_TIME, F(clock.step_window_s), "steps happen in the first window" },
    { "clock.slew_ppm", P_DOUBLE, F(clock.slew_ppm), "steps are slewed at this rate, ppm" },
    { "clock.origin_gap_min_s", P_TIME, F(clock.origin_gap_min_s), "per-rank clock origins: gap from" },
    { "clock.origin_gap_max_s", P_TIME, F(clock.origin_gap_max_s), "per-rank clock origins: gap to (0: off)" },
    { "net.latency_intra_s", P_TIME, F(net.latency_intra_s), "minimum latency within a node" },
    { "net.latency_inter_s", P_TIME, F(net.latency_inter_s), "minimum latency between nodes" },
    { "net.excess", P_EXCESS, F(net.excess), "excess distribution: exponential or gamma" },
    { "net.excess_intra_s", P_TIME, F(net.excess_intra_s), "mean excess within a node" },
    { "net.excess_inter_s", P_TIME, F(net.excess_inter_s), "mean excess between nodes" },
    { "net.gamma_shape", P_DOUBLE, F(net.gamma_shape), "shape of the gamma excess" },
    { "net.outlier_fraction", P_DOUBLE, F(net.outlier_fraction), "share of messages hit by OS noise" },
    { "net.outlier_min_s", P_TIME, F(net.outlier_min_s), "outlier delay from (log-uniform)" },
    { "net.outlier_max_s", P_TIME, F(net.outlier_max_s), "outlier delay to" },
    { "net.asymmetry_max_s", P_TIME, F(net.asymmetry_max_s), "per node send/receive delays up to" },
    { "app.events", P_U64, F(app.events), "end the main phase at this many events (0: no limit)" },
    { "app.duration_s", P_TIME, F(app.duration_s), "end the main phase after this long (0: no limit)" },
    { "app.compute_mean_s", P_TIME, F(app.compute_mean_s), "mean compute phase" },
    { "app.compute_cv", P_DOUBLE, F(app.compute_cv), "compute phase coefficient of variation" },
    { "app.imbalance", P_DOUBLE, F(app.imbalance), "per rank load factor in 1 +- x" },
    { "app.sleep_before_s", P_TIME, F(app.sleep_before_s), "idle gap after MPI_Init" },
    { "app.sleep_after_s", P_TIME, F(app.sleep_after_s), "idle gap before MPI_Finalize" },
    { "app.patterns", P_PATTERNS, F(app.patterns), "pingpong, ring, halo2d, halo3d, random; all; none" },
    { "app.nonblocking", P_DOUBLE, F(app.nonblocking), "share of exchanges in non-blocking form" },
    { "app.collectives", P_COLLS, F(app.collectives), "barrier, bcast, ..., exscan; all; none" },
    { "app.collective_every", P_U32, F(app.collective_every), "a collective every N iterations (0: none)" },
    { "app.message_bytes", P_U64, F(app.message_bytes), "recorded message size" },
    { "app.call_overhead_s", P_TIME, F(app.call_overhead_s), "MPI call entry to record, record to exit" },
    { "app.coll_step_s", P_TIME, F(app.coll_step_s), "collective cost per tree level" },
    { "offsets.enabled", P_BOOL, F(offsets.enabled), "ClockOffset records at MPI_Init and MPI_Finalize" },
    { "offsets.pingpongs", P_U32, F(offsets.pingpongs), "ping-pongs per rank and measurement" },
    { "offsets.session_interval_s", P_TIME, F(offsets.session_interval_s), "also every this long (0: never)" },
    { "format", P_FORMAT, F(format), "otf2 (an MPI run) or csv (messages between hosts)" },
    { "hosts.topology", P_TOPOLOGY, F(hosts.topology), "csv: pair, chain, star, ring or mesh" },
    { "hosts.messages", P_U64, F(hosts.messages), "csv: messages per direction of each link" },
#undef F
};

#define N_PARAMS (sizeof(params) / sizeof(params[0]))

const char *tsync_sim_param_name(size_t i) { return i < N_PARAMS ? params[i].key : NULL; }
const char *tsync_sim_param_help(size_t i) { return i < N_PARAMS ? params[i].help : NULL; }

static const char *const pattern_names[] = { "pingpong", "ring", "halo2d", "halo3d", "random" };
static const char *const coll_names[] = { "barrier", "bcast", "scatter", "gather", "reduce",
                                          "allreduce", "allgather", "alltoall", "scan", "exscan" };

static const char *const excess_names[] = { "exponential", "gamma" };
static const char *const format_names[] = { "otf2", "csv" };
static const char *const topology_names[] = { "pair", "chain", "star", "ring", "mesh" };

_Static_assert(sizeof(enum tsync_sim_excess) == sizeof(int) &&
               sizeof(enum tsync_sim_format) == sizeof(int) &&
               sizeof(enum tsync_sim_topology) == sizeof(int), "enumerations are set as int");

/* The name table of an enumeration type (the enum's value is the index). */
static const char *const *enum_names(enum ptype t, size_t *n)
{
    switch (t) {
    case P_FORMAT: return *n = 2, format_names;
    case P_TOPOLOGY: return *n = 5, topology_names;
    default: return *n = 2, excess_names;
    }
}

/* The name table of a bit-set type. */
static const char *const *set_names(enum ptype t, size_t *n)
{
    *n = t == P_PATTERNS ? sizeof(pattern_names) / sizeof(*pattern_names)
                         : sizeof(coll_names) / sizeof(*coll_names);
    return t == P_PATTERNS ? pattern_names : coll_names;
}

static const struct param *param_find(const char *key)
{
    for (size_t i = 0; i < N_PARAMS; i++)
        if (strcmp(params[i].key, key) == 0)
            return &params[i];
    return NULL;
}

/* ---- values from text ---------------------------------------------------------- */

/* An unsigned integer, also written as 1e6; 0 or -1. */
static int parse_uint(const char *v, uint64_t max, uint64_t *out)
{
    char *end;
    double x;
    errno = 0;
    if (*v == '-')
        return -1;
    *out = strtoull(v, &end, 10);
    if (end != v && *end == '\0' && !errno)
        return *out <= max ? 0 : -1;
    x = strtod(v, &end);
    if (end == v || *end || !(x >= 0) || x > (double)max || x != floor(x))
        return -1;
    *out = (uint64_t)x;
    return 0;
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = { "on", "true", "yes", "1" }, *const no[] = { "off", "false", "no", "0" };
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = 1, 0;
        if (strcasecmp(v, no[i]) == 0)
            return *out = 0, 0;
    }
    return -1;
}

/* Adds one name ("all", "none" or a member) to a bit set; 0 or -1. */
static int set_add(enum ptype t, const char *name, size_t len, uint32_t *set)
{
    size_t n;
    const char *const *names = set_names(t, &n);
    if (len == 3 && strncmp(name, "all", 3) == 0)
        return *set = (1u << n) - 1, 0;
    if (len == 4 && strncmp(name, "none", 4) == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
            return *set |= 1u << i, 0;
    return -1;
}

/* Sets `p` in `o` from text; 0 or -1. */
static int param_parse(const struct param *p, tsync_sim_opts *o, const char *v)
{
    char *field = (char *)o + p->off;
    uint64_t u;
    switch (p->type) {
    case P_STR:
        if (strlen(v) >= sizeof(o->scenario))
            return -1;
        strcpy(field, v);
        return 0;
    case P_U64:
        if (parse_uint(v, UINT64_MAX, &u))
            return -1;
        memcpy(field, &u, sizeof(uint64_t));
        return 0;
    case P_U32: {
        uint32_t x;
        if (parse_uint(v, UINT32_MAX, &u))
            return -1;
        x = (uint32_t)u;
        memcpy(field, &x, sizeof(x));
        return 0;
    }
    case P_DOUBLE:
    case P_TIME: {
        double x;
        char *end;
        if (p->type == P_TIME) {
            if (tsync__parse_seconds(v, &x))
                return -1;
        } else {
            errno = 0;
            x = strtod(v, &end);
            if (end == v || *end || errno || !isfinite(x))
                return -1;
        }
        memcpy(field, &x, sizeof(x));
        return 0;
    }
    case P_BOOL:
        return parse_bool(v, (int *)(void *)field);
    case P_EXCESS:
    case P_FORMAT:
    case P_TOPOLOGY: {
        size_t n;
        const char *const *names = enum_names(p->type, &n);
        for (size_t i = 0; i < n; i++)
            if (strcmp(v, names[i]) == 0) {
                int e = (int)i; /* every enumeration here has the size of an int */
                memcpy(field, &e, sizeof(e));
                return 0;
            }
        return -1;
    }
    case P_PATTERNS:
    case P_COLLS: {
        uint32_t set = 0;
        for (const char *s = v; *s;) {
            size_t len = strcspn(s, ",");
            if (set_add(p->type, s, len, &set))
                return -1;
            s += len;
            if (*s == ',')
                s++;
        }
        memcpy(field, &set, sizeof(set));
        return 0;
    }
    }
    return -1;
}

/* What a value of type t looks like, for error messages. */
static const char *type_hint(enum ptype t)
{
    switch (t) {
    case P_STR: return "a name of at most 31 characters";
    case P_U64: case P_U32: return "a whole number >= 0";
    case P_DOUBLE: return "a number";
    case P_TIME: return "a time: a number with an optional unit ns, us, ms, s, min or h";
    case P_BOOL: return "on or off";
    case P_EXCESS: return "exponential or gamma";
    case P_FORMAT: return "otf2 or csv";
    case P_TOPOLOGY: return "pair, chain, star, ring or mesh";
    case P_PATTERNS: return "a comma list of pingpong, ring, halo2d, halo3d, random (or all, none)";
    case P_COLLS: return "a comma list of barrier, bcast, scatter, gather, reduce, allreduce, "
                         "allgather, alltoall, scan, exscan (or all, none)";
    }
    return "";
}

/* "unknown parameter": lists the keys that share the key's group. */
static int unknown_key(const char *key, tsync_ctx *ctx)
{
    char list[1024] = "";
    const char *dot = strchr(key, '.');
    size_t glen = dot ? (size_t)(dot - key) + 1 : 0, used = 0;
    for (size_t i = 0; i < N_PARAMS && used + 1 < sizeof(list); i++) {
        const char *k = params[i].key;
        int same = glen ? strncmp(k, key, glen) == 0 : strchr(k, '.') == NULL;
        if (same)
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "", k);
    }
    if (!used)
        return tsync__fail(ctx, TSYNC_EINVAL, "unknown parameter \"%s\" (groups: clock, net, app, "
                           "offsets; see tracesync simulate --list)", key);
    return tsync__fail(ctx, TSYNC_EINVAL, "unknown parameter \"%s\" (known: %s)", key, list);
}

int tsync_sim_set(tsync_sim_opts *o, const char *key, const char *value, tsync_ctx *ctx)
{
    const struct param *p = param_find(key);
    tsync_sim_opts copy = *o;
    if (!p)
        return unknown_key(key, ctx);
    if (param_parse(p, &copy, value))
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: \"%s\" is not %s", key, value, type_hint(p->type));
    *o = copy;
    return TSYNC_OK;
}

/* ---- scenario.json ----------------------------------------------------------------- */

/* A bit set as a JSON array of names. */
static json_t *set_json(enum ptype t, uint32_t set)
{
    size_t n;
    const char *const *names = set_names(t, &n);
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (set & (1u << i))
            json_array_append_new(a, json_string(names[i]));
    return a;
}

static json_t *param_json(const struct param *p, const tsync_sim_opts *o)
{
    const char *field = (const char *)o + p->off;
    uint64_t u64;
    uint32_t u32;
    double d;
    int b;
    int e;
    size_t n;
    switch (p->type) {
    case P_STR: return tsync__json_text(field);
    case P_U64: memcpy(&u64, field, sizeof(u64)); return json_integer((json_int_t)u64);
    case P_U32: memcpy(&u32, field, sizeof(u32)); return json_integer(u32);
    case P_DOUBLE:
    case P_TIME: memcpy(&d, field, sizeof(d)); return json_real(d);
    case P_BOOL: memcpy(&b, field, sizeof(b)); return json_boolean(b);
    case P_EXCESS:
    case P_FORMAT:
    case P_TOPOLOGY: {
        const char *const *names = enum_names(p->type, &n);
        memcpy(&e, field, sizeof(e));
        return e >= 0 && (size_t)e < n ? json_string(names[e]) : NULL;
    }
    case P_PATTERNS:
    case P_COLLS: memcpy(&u32, field, sizeof(u32)); return set_json(p->type, u32);
    }
    return NULL;
}

/* The object of a key's group inside `root` (made when `make`), and the key's last
 * part in *name. */
static json_t *group_of(json_t *root, const char *key, const char **name, int make)
{
    const char *dot = strchr(key, '.');
    char group[32];
    json_t *g;
    if (!dot) {
        *name = key;
        return root;
    }
    *name = dot + 1;
    snprintf(group, sizeof(group), "%.*s", (int)(dot - key), key);
    g = json_object_get(root, group);
    if (!g && make) {
        g = json_object();
        if (json_object_set_new(root, group, g))
            return NULL;
    }
    return json_is_object(g) ? g : NULL;
}

json_t *tsync__sim_params_json(const tsync_sim_opts *o)
{
    json_t *root = json_object();
    for (size_t i = 0; root && i < N_PARAMS; i++) {
        const char *name;
        json_t *g = group_of(root, params[i].key, &name, 1), *v = param_json(&params[i], o);
        if (!g || !v || json_object_set_new(g, name, v)) {
            json_decref(root);
            return NULL;
        }
    }
    return root;
}

/* A JSON value of parameter p as the text param_parse takes; 0 or -1. */
static int json_text(const struct param *p, json_t *v, char *buf, size_t n)
{
    if (json_is_string(v) && (p->type == P_STR || p->type == P_EXCESS || p->type == P_FORMAT ||
                              p->type == P_TOPOLOGY || p->type == P_PATTERNS ||
                              p->type == P_COLLS || p->type == P_TIME))
        return snprintf(buf, n, "%s", json_string_value(v)) < (int)n ? 0 : -1;
    if (json_is_boolean(v) && p->type == P_BOOL)
        return snprintf(buf, n, "%s", json_is_true(v) ? "on" : "off"), 0;
    if (json_is_integer(v) && p->type != P_STR && p->type != P_BOOL)
        return snprintf(buf, n, "%lld", (long long)json_integer_value(v)), 0;
    if (json_is_real(v) && (p->type == P_DOUBLE || p->type == P_TIME))
        return snprintf(buf, n, "%.17g", json_real_value(v)), 0;
    if (json_is_array(v) && (p->type == P_PATTERNS || p->type == P_COLLS)) {
        size_t used = 0, i;
        json_t *e;
        buf[0] = '\0';
        if (json_array_size(v) == 0)
            return snprintf(buf, n, "none"), 0;
        json_array_foreach(v, i, e) {
            if (!json_is_string(e) || used + strlen(json_string_value(e)) + 2 > n)
                return -1;
            used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? "," : "", json_string_value(e));
        }
        return 0;
    }
    return -1;
}

/* Every key of the parameters object (and its groups) must be known. */
static int check_keys(json_t *root, const char *path, tsync_ctx *ctx)
{
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v) {
        char key[96];
        if (json_is_object(v)) {
            json_t *g;
            const char *k2;
            json_object_foreach(v, k2, g) {
                snprintf(key, sizeof(key), "%s.%s", k, k2);
                if (!param_find(key))
                    return tsync__fail(ctx, TSYNC_EINVAL, "%s: parameters: unknown key \"%s\"", path, key);
            }
        } else if (!param_find(k)) {
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: parameters: unknown key \"%s\"", path, k);
        }
    }
    return TSYNC_OK;
}

int tsync_sim_load(tsync_sim_opts *o, const char *path, tsync_ctx *ctx)
{
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err), *root;
    tsync_sim_opts copy = *o;
    int rc = TSYNC_OK;

    if (!doc) {
        FILE *f = fopen(path, "r");
        if (!f)
            return tsync__fail(ctx, TSYNC_EIO, "%s: cannot read: %s", path, strerror(errno));
        fclose(f);
        return tsync__fail(ctx, TSYNC_EFORMAT, "%s: line %d, column %d: %s", path, err.line,
                           err.column, err.text);
    }
    root = json_object_get(doc, "parameters");
    if (!json_is_object(root)) {
        rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: no \"parameters\" object (is this a scenario.json "
                         "written by tracesync simulate?)", path);
        goto out;
    }
    if ((rc = check_keys(root, path, ctx)))
        goto out;
    for (size_t i = 0; i < N_PARAMS; i++) {
        const char *name;
        json_t *g = group_of(root, params[i].key, &name, 0), *v = g ? json_object_get(g, name) : NULL;
        char text[512];
        if (!v)
            continue;
        if (json_text(&params[i], v, text, sizeof(text)) || param_parse(&params[i], &copy, text)) {
            rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: parameters: %s must be %s", path,
                             params[i].key, type_hint(params[i].type));
            goto out;
        }
    }
    *o = copy;
out:
    json_decref(doc);
    return rc;
}

/* ---- validation ----------------------------------------------------------------- */

#define REQUIRE(cond, ...)                                                               \
    do {                                                                                 \
        if (!(cond))                                                                     \
            return tsync__fail(ctx, TSYNC_EINVAL, __VA_ARGS__);                          \
    } while (0)

int tsync_sim_validate(const tsync_sim_opts *o, tsync_ctx *ctx)
{
    const tsync_sim_clock_params *c = &o->clock;
    const tsync_sim_net_params *n = &o->net;
    const tsync_sim_app_params *a = &o->app;
    double rate;

    REQUIRE(o->version == TSYNC_SIM_OPTS_VERSION, "simulator options: version %u, expected %u "
            "(initialize with TSYNC_SIM_OPTS_INIT)", o->version, TSYNC_SIM_OPTS_VERSION);
    REQUIRE(o->ranks >= 1 && o->ranks <= 65536, "ranks: %u, expected 1 to 65536", o->ranks);
    REQUIRE(o->nodes >= 1 && o->nodes <= o->ranks, "nodes: %u, expected 1 to ranks (%u)",
            o->nodes, o->ranks);
    REQUIRE(o->timer_resolution >= 1 && o->timer_resolution <= 1000000000000ull,
            "timer_resolution: %llu ticks/s, expected 1 to 10^12",
            (unsigned long long)o->timer_resolution);
    REQUIRE(o->read_cost_s >= 0 && o->read_cost_s <= 1e-3, "read_cost_s: expected 0 to 1 ms");
    REQUIRE(c->offset_max_s >= 0 && c->offset_max_s <= 1e5, "clock.offset_max_s: expected 0 to 10^5 s");
    REQUIRE(c->skew_sd_ppm >= 0 && c->skew_max_ppm >= 0, "clock.skew_*_ppm: expected >= 0");
    REQUIRE(c->temp_amp_min_ppm >= 0 && c->temp_amp_min_ppm <= c->temp_amp_max_ppm,
            "clock.temp_amp_min_ppm .. temp_amp_max_ppm: expected 0 <= min <= max");
    REQUIRE(c->temp_period_min_s > 0 && c->temp_period_min_s <= c->temp_period_max_s,
            "clock.temp_period_min_s .. temp_period_max_s: expected 0 < min <= max");
    REQUIRE(c->allan_1s >= 0 && c->allan_1s <= 1e-5, "clock.allan_1s: expected 0 to 1e-5");
    REQUIRE(c->daily_amp_ppm >= 0, "clock.daily_amp_ppm: expected >= 0");
    REQUIRE(c->steps <= TSYNC_CLOCK_MAX_STEPS, "clock.steps: %u, at most %d", c->steps,
            TSYNC_CLOCK_MAX_STEPS);
    REQUIRE(c->step_max_s >= 0 && c->step_window_s >= 0, "clock.step_*: expected >= 0");
    REQUIRE(c->origin_gap_min_s >= 0 && c->origin_gap_min_s <= c->origin_gap_max_s &&
            c->origin_gap_max_s <= 10, "clock.origin_gap_min_s .. origin_gap_max_s: expected "
            "0 <= min <= max <= 10 s");
    REQUIRE(c->slew_ppm > 0 && c->slew_ppm <= 1e4, "clock.slew_ppm: expected > 0 and <= 10^4 "
            "(a step must be slewed, or the clock would run backward)");
    /* The error's rate must stay far below 1, or readings could go back (clock.h). */
    rate = 1e-6 * (c->skew_max_ppm + c->temp_amp_max_ppm + 1.5 * c->daily_amp_ppm + c->slew_ppm);
    REQUIRE(rate < 0.05, "clock: skew, temperature, daily cycle and slew add up to a rate error of "
            "%g: too large for a clock that must not run backward (keep it below 5 %%)", rate);
    REQUIRE(n->latency_intra_s >= 0 && n->latency_inter_s >= 0, "net.latency_*: expected >= 0");
    REQUIRE(n->excess_intra_s >= 0 && n->excess_inter_s >= 0, "net.excess_*_s: expected >= 0");
    REQUIRE(n->gamma_shape > 0, "net.gamma_shape: expected > 0");
    REQUIRE(n->outlier_fraction >= 0 && n->outlier_fraction <= 1, "net.outlier_fraction: "
            "expected 0 to 1");
    REQUIRE(n->outlier_min_s > 0 && n->outlier_min_s <= n->outlier_max_s,
            "net.outlier_min_s .. outlier_max_s: expected 0 < min <= max");
    REQUIRE(n->asymmetry_max_s >= 0, "net.asymmetry_max_s: expected >= 0");
    REQUIRE(a->events > 0 || a->duration_s > 0, "app.events and app.duration_s are both 0: the "
            "main phase would never end (set --events or --duration)");
    REQUIRE(a->duration_s >= 0 && a->compute_mean_s >= 0 && a->compute_cv >= 0,
            "app.duration_s, compute_mean_s, compute_cv: expected >= 0");
    REQUIRE(a->imbalance >= 0 && a->imbalance < 1, "app.imbalance: expected 0 <= x < 1");
    REQUIRE(a->sleep_before_s >= 0 && a->sleep_after_s >= 0, "app.sleep_*: expected >= 0");
    REQUIRE(a->nonblocking >= 0 && a->nonblocking <= 1, "app.nonblocking: expected 0 to 1");
    REQUIRE(a->call_overhead_s >= 0 && a->coll_step_s >= 0, "app.call_overhead_s, coll_step_s: "
            "expected >= 0");
    REQUIRE(a->patterns || a->collectives || a->compute_mean_s > 0, "app: no patterns, no "
            "collectives and no compute: the main phase would make no progress");
    REQUIRE(!o->offsets.enabled || o->offsets.pingpongs >= 1, "offsets.pingpongs: expected >= 1");
    if (o->format == TSYNC_SIM_CSV) {
        REQUIRE(o->nodes >= 2, "format csv: nodes %u, expected at least 2 hosts", o->nodes);
        REQUIRE(o->hosts.topology != TSYNC_SIM_TOPO_PAIR || o->nodes == 2, "hosts.topology pair: "
                "nodes %u, expected 2", o->nodes);
        REQUIRE(o->timer_resolution == 1000000000, "format csv: timer_resolution %llu, expected "
                "10^9 (the CSV holds nanoseconds)", (unsigned long long)o->timer_resolution);
        REQUIRE(a->duration_s > 0, "format csv: app.duration_s is 0: the messages need a span "
                "of time (set --duration)");
        REQUIRE(o->hosts.messages >= 1 && o->hosts.messages <= 100000000, "hosts.messages: "
                "expected 1 to 10^8");
    }
    REQUIRE(o->offsets.session_interval_s >= 0, "offsets.session_interval_s: expected >= 0");
    return TSYNC_OK;
}
