/* cli.h - what the tracesync subcommands share: the command table, the context
 * with stderr reporting, and option helpers. */
#ifndef TSYNC_CLI_CLI_H
#define TSYNC_CLI_CLI_H

#include <getopt.h>
#include <stdio.h>
#include "tracesync/check.h"
#include "tracesync/common.h"
#include "tracesync/clc.h"
#include "tracesync/estimate.h"
#include "tracesync/pipeline.h"
#include "tracesync/sync.h"
#include "tracesync/trace.h"

/* Exit codes: the command line contract (PRODUCT.md). */
enum { EXIT_OK = 0, EXIT_INCONSISTENT = 1, EXIT_USAGE = 2 };

struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);  /* argv[0] is the subcommand name */
    const char *usage;                  /* "check INPUT... [--json]" */
    const char *summary;                /* one line */
    const char *help;                   /* options and an example */
};

extern const struct cli_command cli_commands[];
extern const size_t cli_command_count;

/* Prints "usage: tracesync <usage>" and the help text of a command. */
void cli_print_help(const struct cli_command *cmd, FILE *out);
const struct cli_command *cli_find(const char *name);

/* A context whose warnings go to stderr and whose progress shows on stderr when it
 * is a terminal; `quiet` silences both. Exits with 2 when out of memory. */
tsync_ctx *cli_context(int quiet);
/* Prints the context's error as "tracesync <cmd>: <message>" and returns 2. */
int cli_fail(tsync_ctx *ctx, const char *cmd);
/* Prints a usage error with a hint and returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...);
/* Handles -h/--help for a subcommand: returns 1 (and prints help) if asked. */
int cli_wants_help(int argc, char **argv, const char *cmd);

/* Parses --domains into the open options: "node", "location", or else the path of a
 * domain file (borrowed). Returns 0, or -1 for an empty argument. */
int cli_parse_domains(const char *arg, tsync_open_opts *out);
/* --name FILE=HOST: the host of a packet capture, added to the open options (the
 * argument borrowed). Returns 0, or -1 for an argument that is not FILE=HOST. */
int cli_parse_name(const char *arg, tsync_open_opts *out);
/* The trace that starts at input argv[i] (of argv[0, argc)): a run of packet captures
 * is one trace (the others of the run go to out->files), any other input a trace
 * alone. Returns how many inputs it takes. cli_trace_count: how many traces the
 * inputs argv[i, argc) make. */
int cli_trace_inputs(int argc, char **argv, int i, tsync_open_opts *out);
int cli_trace_count(int argc, char **argv, int i);
/* --reference: "auto" (the smallest sum of shortest-path errors, seed 003) or a
 * domain's name; without it, the trace's own time base (seed 000). */
void cli_parse_reference(const char *arg, tsync_estimate_opts *out);
/* --estimator NAME, any estimator of the library's table. 0, or 2 after a usage
 * error that lists the estimators. */
int cli_parse_estimator(const char *cmd, const char *arg, tsync_estimate_opts *out);

/* The default branch of a getopt loop whose option string starts with ':': says
 * which option is unknown or lacks its value. Returns 2. */
int cli_bad_option(const char *cmd, int c, char **argv);

/* Before the work: makes the directory of the file `path` that option `opt` names
 * (like OUTDIR) and checks that the file can be written there. Returns 0, or -1
 * with "tracesync <cmd>: <opt> <path>: <reason>" on stderr. */
int cli_prepare_output(const char *cmd, const char *opt, const char *path);

/* Writes `text` and a newline (unless it ends with one) to the file `path` as an
 * output of the command (tsync_write_text_output: held with the others while ctx
 * holds outputs).
 * Returns 0, or -1 with a message naming `opt` on stderr and nothing written. */
int cli_write_report(const char *cmd, const char *opt, const char *text, const char *path,
                     tsync_ctx *ctx);

/* Flushes stdout: 0, or -1 with a message when a write failed (a full disk,
 * /dev/full, a closed pipe). `cmd` NULL for the tracesync command itself. */
int cli_finish_stdout(const char *cmd);

/* --latency SPEC (NULL: not given) into the minimum latencies of every stage:
 * 0, or 2 after a usage error on stderr. */
int cli_parse_latency(const char *cmd, const char *spec, tsync_check_opts *o, tsync_ctx *ctx);

/* The options of the estimate and clc stages, one table and one parser each,
 * shared by the stage commands and by sync (stage_opts.c). cli_options joins a
 * command's own table with them (static storage: one command per process). The
 * parsers return 1 for their option (applied), 0 for another, -1 after a usage
 * error on stderr. *threads: 0 is one per processor. */
extern const struct option cli_estimate_options[];
extern const struct option cli_clc_options[];
const struct option *cli_options(const struct option *own, const struct option *a,
                                 const struct option *b);
int cli_estimate_option(const char *cmd, int c, const char *arg, tsync_estimate_opts *eo);
int cli_clc_option(const char *cmd, int c, const char *arg, tsync_clc_opts *o, unsigned *threads);

/* The options of `clc`, one parser for `tracesync clc` and `tracesync-mpi clc`:
 * argv[0] is the subcommand, `cmd` names it in messages; one INPUT (argv[optind])
 * and -o are required. Returns -1 when the arguments are good, else the exit code
 * of a usage error it printed. */
struct cli_clc_args {
    tsync_pipeline_opts po;       /* stages TSYNC_STAGES_CLC, outdir, clc */
    const char *report, *latency;
    unsigned threads;
    int json, quiet;
};
int cli_clc_parse(const char *cmd, int argc, char **argv, struct cli_clc_args *a);

/* The options of `sync`, one parser for `tracesync sync` and `tracesync-mpi sync`:
 * argv[0] is the subcommand, `cmd` names it in messages. Returns -1 when every
 * option is parsed (optind: the first input), else the exit code of a usage error
 * it printed. */
struct cli_sync_args {
    tsync_sync_opts o;
    const char *outdir, *report, *latency;
    unsigned threads;
    int json, quiet;
};
int cli_sync_parse(const char *cmd, int argc, char **argv, struct cli_sync_args *a);

/* Subcommands. */
int cmd_check(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_clc(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_sync(int argc, char **argv);
#ifdef TSYNC_WITH_RECORD
int cmd_record(int argc, char **argv);
#endif

#endif
