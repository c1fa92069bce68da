/* cmd_record.c - `tracesync record`: runs an MPI command with libtracesync-collect
 * preloaded into every process (built only with the collector). */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "tracesync/collect_core.h"

/* The options that set the collector's TRACESYNC_* variables (README, Collector);
 * a flag sets `flag_value`. */
static const struct setting {
    const char *option, *var, *flag_value;
} settings[] = {
    { "sync-messages", "TRACESYNC_SYNC_MAX_MESSAGES", NULL },
    { "sync-duration", "TRACESYNC_SYNC_MAX_DURATION", NULL },
    { "synced-host", "TRACESYNC_SYNCED_HOST", "on" },
    { "synced-cluster", "TRACESYNC_SYNCED_CLUSTER", "on" },
    { "no-global", "TRACESYNC_GLOBAL", "off" },
    { "timer", "TRACESYNC_TIMER", NULL },
    { "mem-blocksize", "TRACESYNC_MEM_BLOCKSIZE", NULL },
    { "mem-maxblocks", "TRACESYNC_MEM_MAXBLOCKS", NULL },
    { "flush-prefix", "TRACESYNC_FLUSH_PREFIX", NULL },
    { "verbose", "TRACESYNC_VERBOSE", NULL },
    { "test-clocks", "TRACESYNC_TEST_CLOCKS", NULL },
};
#define N_SETTINGS (sizeof settings / sizeof settings[0])
#define OPT_SETTING 256

/* `s` for a shell: as it is when it needs no quotes, else in single quotes. */
static const char *shell_word(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    if (s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./,:=+@%-")] == 0)
        return s;
    buf[n++] = '\'';
    for (; *s && n + 5 < size; s++) {
        if (*s == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *s;
        }
    }
    buf[n++] = '\'';
    buf[n] = 0;
    return buf;
}

/* Checks the TRACESYNC_* variables as the collector will read them, so that a bad
 * value stops here instead of falling back to its default in every process. */
static int check_settings(const char *given[N_SETTINGS])
{
    static struct tsc_config cfg;
    const char *bad;
    if (tsc_config_read(&cfg, &bad) == 0)
        return 0;
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (!strcmp(bad, settings[i].var) && given[i])
            return cli_usage_error("record", "--%s %s: not understood", settings[i].option, given[i]);
    return cli_usage_error("record", "%s=%s in the environment: not understood", bad, getenv(bad));
}

/* Runs the prepared command and waits for it: its exit status (128 + the signal
 * that ended it), or -1 when it could not be started (errno). Interrupts go to the
 * command, as with system(3). */
static int run(const struct tsc_launch *l)
{
    posix_spawnattr_t attr;
    struct sigaction ign, old_int, old_quit;
    sigset_t deflt;
    pid_t pid;
    int status, err;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigemptyset(&deflt);
    sigaddset(&deflt, SIGINT);
    sigaddset(&deflt, SIGQUIT);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigdefault(&attr, &deflt);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    err = posix_spawnp(&pid, l->argv[0], NULL, &attr, l->argv, l->envp);
    posix_spawnattr_destroy(&attr);
    while (!err && waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            err = errno;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (err) {
        errno = err;
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Where the archive is, and what to run next. */
static void print_next(const char *dir)
{
    char q[2 * PATH_MAX], path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof path, "%s/global.otf2", dir);
    int global = stat(path, &st) == 0;
    snprintf(path, sizeof path, "%s/truth.otf2", dir);
    int truth = stat(path, &st) == 0;
    const char *d = shell_word(dir, q, sizeof q);
    fprintf(stderr, "tracesync record: the archive is %s/traces.otf2 (local clocks)%s%s\n", d,
            global ? ", global.otf2 (the collector's correction)" : "",
            truth ? ", truth.otf2 (the true times)" : "");
    fprintf(stderr, "next: tracesync sync %s/traces.otf2 -o %s/synced\n", d, d);
    if (truth)
        fprintf(stderr, "      tracesync eval %s/synced/traces.otf2 %s/truth.otf2\n", d, d);
}

int cmd_record(int argc, char **argv)
{
    struct option longopts[N_SETTINGS + 3];
    const char *given[N_SETTINGS] = { 0 }, *outdir = NULL, *taken;
    char self[PATH_MAX], lib[3 * PATH_MAX], dir[PATH_MAX], abs_dir[PATH_MAX], anchor[PATH_MAX + 32];
    struct tsc_launch l;
    ssize_t len;
    int quiet = 0, made = 0, c, rc;

    for (size_t i = 0; i < N_SETTINGS; i++)
        longopts[i] = (struct option){ settings[i].option,
                                       settings[i].flag_value ? no_argument : required_argument, NULL,
                                       OPT_SETTING + (int)i };
    longopts[N_SETTINGS] = (struct option){ "output", required_argument, NULL, 'o' };
    longopts[N_SETTINGS + 1] = (struct option){ "quiet", no_argument, NULL, 'q' };
    longopts[N_SETTINGS + 2] = (struct option){ NULL, 0, NULL, 0 };
    optind = 1;
    /* '+': the options end at the command's first word */
    while ((c = getopt_long(argc, argv, "+:o:q", longopts, NULL)) != -1) {
        if (c >= OPT_SETTING && c < OPT_SETTING + (int)N_SETTINGS)
            given[c - OPT_SETTING] = optarg ? optarg : settings[c - OPT_SETTING].flag_value;
        else if (c == 'o')
            outdir = optarg;
        else if (c == 'q')
            quiet = 1;
        else
            return cli_bad_option("record", c, argv);
    }
    if (optind == argc)
        return cli_usage_error("record", "no command given: add -- mpirun -np N PROGRAM");
    if (outdir && !*outdir)
        return cli_usage_error("record", "-o: empty directory name");

    len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = 0;
    if (tsc_launch_find_collector(self, lib, sizeof lib) != 0) {
        fprintf(stderr, "tracesync record: %s not found (tried %s); set TRACESYNC_COLLECT_LIB to "
                        "its path\n", TSC_COLLECT_LIB_NAME, lib);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < N_SETTINGS; i++) {
        if (quiet && !given[i] && !strcmp(settings[i].var, "TRACESYNC_VERBOSE"))
            given[i] = "0";
        if (given[i] && setenv(settings[i].var, given[i], 1) != 0)
            return cli_usage_error("record", "--%s: %s", settings[i].option, strerror(errno));
    }
    if ((rc = check_settings(given)) != 0)
        return rc;

    /* The directory, made before the run: its name is known, and a bad one stops
     * here, not in every process. */
    if (outdir) {
        snprintf(dir, sizeof dir, "%s", outdir);
        if ((taken = tsc_launch_archive_in(dir)))
            return cli_usage_error("record", "-o %s already holds an archive (%s/%s): choose "
                                   "another directory", dir, dir, taken);
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
        made = access(dir, F_OK) != 0;
        if (cli_prepare_output("record", "-o", anchor) != 0)
            return EXIT_USAGE;
    } else if (tsc_launch_fresh_dir(tsc_launch_program(argc - optind, argv + optind), dir, sizeof dir) != 0) {
        fprintf(stderr, "tracesync record: cannot make the directory %s: %s\n", dir, strerror(errno));
        return EXIT_USAGE;
    } else {
        made = 1;
    }
    /* absolute: the MPI processes may start in another directory (-wdir) */
    if (!realpath(dir, abs_dir) || setenv("TRACESYNC_DIR", abs_dir, 1) != 0 ||
        tsc_launch_prepare(&l, argc - optind, argv + optind, lib) != 0) {
        fprintf(stderr, "tracesync record: %s: %s\n", dir, strerror(errno));
        if (made)
            rmdir(dir);
        return EXIT_USAGE;
    }

    rc = run(&l);
    if (rc < 0) {
        fprintf(stderr, "tracesync record: cannot run '%s': %s\n", argv[optind], strerror(errno));
        rc = EXIT_USAGE;
    } else if (rc != 0) {
        fprintf(stderr, "tracesync record: '%s' exited with status %d\n", argv[optind], rc);
    }
    tsc_launch_free(&l);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (access(anchor, F_OK) == 0) {
        if (!quiet)
            print_next(dir);
    } else {
        if (made)
            rmdir(dir); /* only when empty: what the command wrote there stays */
        if (rc == 0) {
            fprintf(stderr, "tracesync record: no archive was written (%s/traces.otf2): did the "
                            "command run an MPI program? See the collector's messages above\n", dir);
            rc = EXIT_USAGE;
        }
    }
    return rc;
}
