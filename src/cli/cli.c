/* cli.c - shared pieces of the subcommands: help, errors, stderr reporting. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const struct cli_command *cli_find(const char *name)
{
    for (size_t i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

/* The estimators' names joined: "hull|regression|none" with sep "|" and last NULL,
 * "hull, regression or none" with ", " and " or ". */
static void estimator_names(char *buf, size_t size, const char *sep, const char *last)
{
    unsigned n = tsync_estimator_count();
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                !i ? "" : i + 1 < n || !last ? sep : last,
                                tsync_estimator_name((enum tsync_estimator)i));
}

/* The estimators for --estimator's help, from column 25 on: the names, then the
 * summary of each that estimates, wrapped below HELP_WIDTH columns. */
#define HELP_WIDTH 86
static void put_estimator_list(FILE *out)
{
    const tsync_estimate_opts defaults = TSYNC_ESTIMATE_OPTS_INIT;
    char names[256];
    estimator_names(names, sizeof(names), ", ", " or ");
    fprintf(out, "%s (default %s):", names, tsync_estimator_name(defaults.estimator));
    for (unsigned i = 0; i < tsync_estimator_count(); i++) {
        const char *name = tsync_estimator_name((enum tsync_estimator)i);
        const char *w = tsync_estimator_summary((enum tsync_estimator)i);
        int col;
        if (!w)         /* estimates nothing: its name says it */
            continue;
        col = fprintf(out, "\n%27s%s:", "", name) - 1;
        while (*w) {
            size_t len = strcspn(w, " ");
            if (col + 1 + (int)len > HELP_WIDTH)
                col = fprintf(out, "\n%28s", "") - 1;
            col += fprintf(out, " %.*s", (int)len, w);
            w += len + (w[len] == ' ');
        }
    }
}

/* A help or usage text with the registries' lists put in: {estimators} (names
 * joined by |), {estimator-list} (put_estimator_list), {formats}. */
static void put_text(const char *text, FILE *out)
{
    char names[256];
    for (const char *p = text; *p;) {
        const char *open = strchr(p, '{');
        size_t n = open ? (size_t)(open - p) : strlen(p);
        fwrite(p, 1, n, out);
        if (!open)
            break;
        if (strncmp(open, "{estimators}", 12) == 0) {
            estimator_names(names, sizeof(names), "|", NULL);
            fputs(names, out);
            p = open + 12;
        } else if (strncmp(open, "{estimator-list}", 16) == 0) {
            put_estimator_list(out);
            p = open + 16;
        } else if (strncmp(open, "{formats}", 9) == 0) {
            fputs(tsync_trace_formats(), out);
            p = open + 9;
        } else {
            fputc('{', out);
            p = open + 1;
        }
    }
}

void cli_print_help(const struct cli_command *cmd, FILE *out)
{
    fputs("usage: tracesync ", out);
    put_text(cmd->usage, out);
    fprintf(out, "\n\n%s.\n\n", cmd->summary);
    put_text(cmd->help, out);
}

int cli_wants_help(int argc, char **argv, const char *cmd)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cli_print_help(cli_find(cmd), stdout);
            return 1;
        }
    }
    return 0;
}

static void log_stderr(enum tsync_log_level level, const char *msg, void *payload)
{
    (void)payload;
    fprintf(stderr, "tracesync: %s%s\n", level == TSYNC_LOG_WARNING ? "warning: " : "", msg);
}

/* A count for people: "65 536", "3.54 M". */
static const char *fmt_count(char *buf, size_t size, uint64_t v)
{
    if (v >= 1000000)
        snprintf(buf, size, "%.3g %s", v >= 1000000000 ? (double)v / 1e9 : (double)v / 1e6,
                 v >= 1000000000 ? "G" : "M");
    else if (v >= 1000)
        snprintf(buf, size, "%llu %03llu", (unsigned long long)(v / 1000),
                 (unsigned long long)(v % 1000));
    else
        snprintf(buf, size, "%llu", (unsigned long long)v);
    return buf;
}

/* Progress on a terminal: one line per stage, rewritten in place while the stage
 * counts up; a new stage, or a stage that starts again (a second check), gets a
 * line of its own, so that no line ever counts backwards. */
static void progress_tty(const char *what, uint64_t done, uint64_t total, void *payload)
{
    static char last[64];
    static uint64_t last_done;
    static int open;
    char a[32], b[32];
    (void)payload;
    if (open && (strcmp(what, last) != 0 || done < last_done))
        fputc('\n', stderr);
    snprintf(last, sizeof(last), "%s", what);
    last_done = done;
    if (total)
        fprintf(stderr, "\r%s: %s of %s", what, fmt_count(a, sizeof(a), done),
                fmt_count(b, sizeof(b), total));
    else
        fprintf(stderr, "\r%s: %s", what, fmt_count(a, sizeof(a), done));
    open = !(total && done == total);
    if (!open)
        fputc('\n', stderr);
    fflush(stderr);
}

/* SIGINT, SIGTERM, SIGHUP: the temporary output goes, then the signal ends the
 * process as it would have (exit status 128 + signal). SIGBUS too, with a word on
 * its likely cause: a CSV is read through a memory map, and a file that another
 * program cuts short under it faults on the missing pages. */
static void on_signal(int sig)
{
    static const char bus[] = "tracesync: bus error: an input file was cut short while it "
                              "was read (by another program?); nothing was written\n";
    tsync_remove_temporary_outputs();
    if (sig == SIGBUS) {
        ssize_t said = write(STDERR_FILENO, bus, sizeof(bus) - 1);
        (void)said;     /* where stderr is gone there is no one to tell */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void remove_output_on_signals(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGBUS };
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction old;
        /* A signal ignored by the caller (nohup) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

tsync_ctx *cli_context(int quiet)
{
    tsync_ctx *ctx;
    remove_output_on_signals();
    if (tsync_ctx_new(&ctx)) {
        fprintf(stderr, "tracesync: out of memory\n");
        exit(EXIT_USAGE);
    }
    tsync_ctx_set_threads(ctx, 0); /* archives are read and written on every processor */
    if (!quiet) {
        tsync_ctx_set_log(ctx, log_stderr, NULL);
        if (isatty(STDERR_FILENO))
            tsync_ctx_set_progress(ctx, progress_tty, NULL);
    }
    return ctx;
}

int cli_fail(tsync_ctx *ctx, const char *cmd)
{
    fprintf(stderr, "tracesync %s: %s\n", cmd, tsync_ctx_error(ctx));
    return EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tracesync %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'tracesync %s --help'.\n", cmd);
    return EXIT_USAGE;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
    const char *opt = argv[optind - 1];
    if (c == ':')
        return cli_usage_error(cmd, "option %s needs a value", opt);
    return cli_usage_error(cmd, "unknown option %s", opt);
}

int cli_parse_name(const char *arg, tsync_open_opts *out)
{
    static const char *names[256];
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || out->n_names == sizeof(names) / sizeof(*names))
        return -1;
    names[out->n_names++] = arg;
    out->names = names;
    return 0;
}

int cli_trace_inputs(int argc, char **argv, int i, tsync_open_opts *out)
{
    int n = 1;
    out->files = NULL;
    out->n_files = 0;
    if (tsync_trace_is_file_set(argv[i]))
        while (i + n < argc && tsync_trace_is_file_set(argv[i + n]))
            n++;
    if (n > 1) {
        out->files = (const char *const *)argv + i + 1;
        out->n_files = (size_t)n - 1;
    }
    return n;
}

int cli_trace_count(int argc, char **argv, int i)
{
    tsync_open_opts scratch = TSYNC_OPEN_OPTS_INIT;
    int n = 0;
    while (i < argc) {
        i += cli_trace_inputs(argc, argv, i, &scratch);
        n++;
    }
    return n;
}

int cli_parse_domains(const char *arg, tsync_open_opts *out)
{
    out->domain_file = NULL;
    if (strcmp(arg, "node") == 0) {
        out->domains = TSYNC_DOMAIN_NODE;
    } else if (strcmp(arg, "location") == 0) {
        out->domains = TSYNC_DOMAIN_LOCATION;
    } else if (*arg) {
        out->domains = TSYNC_DOMAIN_FILE; /* the library reads and checks it */
        out->domain_file = arg;
    } else {
        return -1;
    }
    return 0;
}

void cli_parse_reference(const char *arg, tsync_estimate_opts *out)
{
    out->reference = strcmp(arg, "auto") == 0 ? NULL : arg;
    out->reference_rule = out->reference ? TSYNC_REFERENCE_GLOBAL : TSYNC_REFERENCE_AUTO;
}

int cli_parse_estimator(const char *cmd, const char *arg, tsync_estimate_opts *out)
{
    char list[256];
    if (tsync_estimator_parse(arg, &out->estimator) == 0)
        return 0;
    estimator_names(list, sizeof(list), ", ", " or ");
    return cli_usage_error(cmd, "--estimator: \"%s\" is not %s", arg, list);
}

int cli_prepare_output(const char *cmd, const char *opt, const char *path)
{
    tsync_ctx *ctx = NULL;
    int rc = TSYNC_ENOMEM;
    if (tsync_ctx_new(&ctx) == 0 && (rc = tsync_prepare_output(path, ctx)) && rc != TSYNC_ENOMEM)
        fprintf(stderr, "tracesync %s: %s %s: %s\n", cmd, opt, path, tsync_ctx_error(ctx));
    if (rc == TSYNC_ENOMEM)
        fprintf(stderr, "tracesync %s: out of memory\n", cmd);
    tsync_ctx_free(ctx);
    return rc ? -1 : 0;
}

int cli_write_report(const char *cmd, const char *opt, const char *text, const char *path,
                     tsync_ctx *ctx)
{
    size_t len = strlen(text);
    char *line = NULL;
    int rc;
    /* Only a text without its newline is copied to have one: a maps file can be
     * tens of MB. */
    if (!len || text[len - 1] != '\n') {
        if (!(line = malloc(len + 2))) {
            fprintf(stderr, "tracesync %s: out of memory\n", cmd);
            return -1;
        }
        memcpy(line, text, len);
        memcpy(line + len, "\n", 2);
    }
    rc = tsync_write_text_output(path, line ? line : text, ctx);
    free(line);
    if (rc)
        fprintf(stderr, "tracesync %s: %s %s\n", cmd, opt, tsync_ctx_error(ctx));
    return rc ? -1 : 0;
}

int cli_finish_stdout(const char *cmd)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "tracesync%s%s: cannot write to the standard output: %s\n", cmd ? " " : "",
            cmd ? cmd : "", strerror(errno));
    return -1;
}
