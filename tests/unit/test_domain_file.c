/* test_domain_file.c - clock domains from a domain file (trace/domain_file.c):
 * the parser on good and bad text, applying a file to a trace, and the open
 * options that ask for it (through a CSV of messages). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tmpfile.h"
#include "trace/domain_file.h"

/* ---- helpers ------------------------------------------------------------- */

static int parse(struct tsync__domain_file *df, const char *text, tsync_ctx *ctx)
{
    return tsync__domain_file_parse(df, "d.txt", text, strlen(text), ctx);
}

/* The text fails to parse with `code` and a message containing `message`. */
static void expect_parse_error(const char *text, size_t len, int code, const char *message)
{
    struct tsync__domain_file df;
    tsync_ctx *ctx;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__domain_file_parse(&df, "d.txt", text, len, ctx), code);
    assert_int_equal(df.n_domains, 0);
    assert_null(df.domains);
    if (!strstr(tsync_ctx_error(ctx), message))
        fail_msg("message \"%s\" lacks \"%s\"", tsync_ctx_error(ctx), message);
    tsync_ctx_free(ctx);
}

#define PARSE_ERROR(text, message) expect_parse_error(text, strlen(text), TSYNC_EFORMAT, message)

/* Five locations as an OTF2 trace has them:
 *   index  id          name             node  rank
 *   0      0           "Rank 0"         n0    0
 *   1      1           "Rank 1"         n0    1
 *   2      536870911   "Master thread"  n1    2
 *   3      536870912   "Master thread"  n1    3
 *   4      9           "7"              n2    -   (a name that is a number)
 * in two domains by node, n0 and n1, and n2. */
static struct tsync_trace *five(void)
{
    static const uint64_t refs[] = { 0, 1, 536870911, 536870912, 9 };
    static const char *names[] = { "Rank 0", "Rank 1", "Master thread", "Master thread", "7" };
    static const uint32_t node[] = { 0, 0, 1, 1, 2 };
    struct tsync_trace *t = tsync__trace_alloc("run/traces.otf2");
    assert_non_null(t);
    t->n_locations = 5;
    t->n_nodes = t->n_domains = 3;
    t->n_ranks = 4;
    t->locations = calloc(5, sizeof(*t->locations));
    t->nodes = calloc(3, sizeof(*t->nodes));
    t->domains = calloc(3, sizeof(*t->domains));
    t->rank_loc = calloc(4, sizeof(*t->rank_loc));
    assert_true(t->locations && t->nodes && t->domains && t->rank_loc);
    for (uint32_t n = 0; n < 3; n++) {
        char name[8];
        snprintf(name, sizeof(name), "n%u", n);
        t->nodes[n].name = strdup(name);
        t->domains[n].name = strdup(name);
        t->domains[n].node = n;
    }
    for (uint32_t i = 0; i < 5; i++) {
        struct tsync_location *l = &t->locations[i];
        l->ref = refs[i];
        l->name = strdup(names[i]);
        l->node = l->domain = node[i];
        l->rank = i < 4 ? i : TSYNC_NONE;
        if (i < 4)
            t->rank_loc[i] = i;
    }
    return t;
}

struct log { int warnings; char last[1024]; };

static void on_log(enum tsync_log_level level, const char *msg, void *payload)
{
    struct log *lg = payload;
    if (level == TSYNC_LOG_WARNING)
        lg->warnings++;
    snprintf(lg->last, sizeof(lg->last), "%s", msg);
}

/* Parses `text` and applies it to `t`: the code of applying. */
static int apply_to(struct tsync_trace *t, const char *text, tsync_ctx *ctx)
{
    struct tsync__domain_file df;
    int rc;
    assert_int_equal(parse(&df, text, ctx), 0);
    rc = tsync__domain_file_apply(t, &df, ctx);
    tsync__domain_file_free(&df);
    return rc;
}

/* Applying `text` fails with TSYNC_EINVAL and `message`; the trace is unchanged. */
static void expect_apply_error(const char *text, const char *message)
{
    struct tsync_trace *t = five();
    tsync_ctx *ctx;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(apply_to(t, text, ctx), TSYNC_EINVAL);
    if (!strstr(tsync_ctx_error(ctx), message))
        fail_msg("message \"%s\" lacks \"%s\"", tsync_ctx_error(ctx), message);
    assert_int_equal(t->n_domains, 3);
    assert_int_equal(t->domain_rule, TSYNC_DOMAIN_NODE);
    assert_null(t->domain_file);
    assert_string_equal(t->domains[1].name, "n1");
    assert_int_equal(t->locations[4].domain, 2);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
}

static char *write_file(const char *name, const char *text)
{
    return tmp_write("domain_file", name, text);
}

/* ---- parsing ------------------------------------------------------------- */

/* Domain i of df is `name` on `line` with n locations; returns its first. */
static const struct tsync__dloc *domain_is(const struct tsync__domain_file *df, size_t i,
                                           const char *name, unsigned long line, size_t n)
{
    assert_true(i < df->n_domains);
    assert_string_equal(df->domains[i].name, name);
    assert_int_equal(df->domains[i].line, line);
    assert_int_equal(df->domains[i].n, n);
    return &df->locs[df->domains[i].first];
}

static void loc_is(const struct tsync__dloc *x, enum tsync__dloc_kind kind, int quoted,
                   uint64_t num, const char *text)
{
    assert_int_equal(x->kind, kind);
    assert_int_equal(x->quoted, quoted);
    assert_true(x->num == num);
    assert_string_equal(x->text, text);
}

/* Comments, blank lines, blanks of every kind, CRLF, quotes with escapes, ids,
 * names and ranks; the last line without a newline. */
static void test_parse(void **state)
{
    struct tsync__domain_file df;
    const struct tsync__dloc *x;
    (void)state;
    assert_int_equal(parse(&df, "# clocks of the run\n"
                                "\n"
                                "node0   0 1\t\"Rank 2\"   # ranks 0 to 2\r\n"
                                "   \t\n"
                                "\"gpu host\" rank:3 \"say \\\"hi\\\" \\\\ \\n\" x#y \"z\n"
                                "\tlast 2", NULL), 0);
    assert_string_equal(df.path, "d.txt");
    assert_int_equal(df.n_domains, 3);
    x = domain_is(&df, 0, "node0", 3, 3);
    loc_is(&x[0], TSYNC_DLOC_ID, 0, 0, "0");
    loc_is(&x[1], TSYNC_DLOC_ID, 0, 1, "1");
    loc_is(&x[2], TSYNC_DLOC_NAME, 1, 0, "Rank 2");
    x = domain_is(&df, 1, "gpu host", 5, 3);
    loc_is(&x[0], TSYNC_DLOC_RANK, 0, 3, "rank:3");
    loc_is(&x[1], TSYNC_DLOC_NAME, 1, 0, "say \"hi\" \\ \\n"); /* other backslashes stay */
    loc_is(&x[2], TSYNC_DLOC_NAME, 0, 0, "x");                 /* '#' starts a comment */
    x = domain_is(&df, 2, "last", 6, 1);
    loc_is(&x[0], TSYNC_DLOC_ID, 0, 2, "2");
    tsync__domain_file_free(&df);
    assert_null(df.domains);
    tsync__domain_file_free(&df); /* twice is fine */

    /* The largest id; quoted numbers and "#" are names. */
    assert_int_equal(parse(&df, "last 18446744073709551615 \"#1\" \"42\" rank:0 Rank", NULL), 0);
    x = domain_is(&df, 0, "last", 1, 5);
    loc_is(&x[0], TSYNC_DLOC_ID, 0, UINT64_MAX, "18446744073709551615");
    loc_is(&x[1], TSYNC_DLOC_NAME, 1, 0, "#1");
    loc_is(&x[2], TSYNC_DLOC_NAME, 1, 0, "42");
    loc_is(&x[3], TSYNC_DLOC_RANK, 0, 0, "rank:0");
    loc_is(&x[4], TSYNC_DLOC_NAME, 0, 0, "Rank");
    tsync__domain_file_free(&df);
}

/* Every syntax error names the file and the line. */
static void test_parse_errors(void **state)
{
    (void)state;
    PARSE_ERROR("a 0\nb \"Rank 3\n", "d.txt:2: the quote at column 3 is not closed");
    PARSE_ERROR("a \"Rank\"3\n", "d.txt:1: text right after the closing quote at column 8");
    PARSE_ERROR("a Rank\"3\"\n", "d.txt:1: a quote inside a name at column 7");
    PARSE_ERROR("a \"\"\n", "d.txt:1: an empty name \"\" at column 3");
    PARSE_ERROR("\"\" 0\n", "d.txt:1: an empty name");
    PARSE_ERROR("# x\na 0\n\nlonely\n", "d.txt:4: domain \"lonely\" lists no locations");
    PARSE_ERROR("a 0\nn#2 0\n", "d.txt:2: domain \"n\" lists no locations");
    PARSE_ERROR("a 0\nb 1\na 2\nb 3\n", "d.txt:3: domain \"a\" is already defined on line 1");
    PARSE_ERROR("a 0\nb 1\nb 2\na 3\n", "d.txt:3: domain \"b\" is already defined on line 2");
    PARSE_ERROR("a 1\n\"a\" 2\n", "d.txt:2: domain \"a\" is already defined on line 1");
    PARSE_ERROR("a 18446744073709551616\n", "d.txt:1: location id 18446744073709551616 is too large");
    PARSE_ERROR("a rank:\n", "d.txt:1: \"rank:\" is not rank:N");
    PARSE_ERROR("a rank:-1\n", "d.txt:1: \"rank:-1\" is not rank:N");
    PARSE_ERROR("", "d.txt: no clock domains in the file");
    PARSE_ERROR("# nothing\n\n  \n", "d.txt: no clock domains in the file");
    expect_parse_error("a 0\nb 1\0 2\n", 10, TSYNC_EFORMAT, "d.txt:2: a NUL byte at column 4");
}

static void test_read(void **state)
{
    struct tsync__domain_file df;
    tsync_ctx *ctx;
    char *path = write_file("ok.txt", "a 0 1\n");
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__domain_file_read(&df, path, ctx), 0);
    assert_string_equal(df.path, path);
    assert_int_equal(df.n_domains, 1);
    tsync__domain_file_free(&df);
    assert_int_equal(tsync__domain_file_read(&df, "/nonexistent/d.txt", ctx), TSYNC_EIO);
    assert_string_equal(tsync_ctx_error(ctx), "/nonexistent/d.txt: cannot read the domain file: "
                                              "No such file or directory");
    assert_int_equal(df.n_domains, 0);
    assert_int_equal(tsync__domain_file_read(&df, "/", ctx), TSYNC_EIO);
    assert_non_null(strstr(tsync_ctx_error(ctx), "/: cannot read the domain file"));
    free(path);
    tsync_ctx_free(ctx);
}

/* ---- applying ------------------------------------------------------------ */

/* Ids, names, ranks; two nodes in one domain; unlisted locations keep their own
 * domain, named as by location, and one warning lists them. */
static void test_apply(void **state)
{
    struct tsync_trace *t;
    struct log lg = { 0, "" };
    tsync_ctx *ctx;
    uint32_t d;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tsync_ctx_set_log(ctx, on_log, &lg);
    t = five();
    assert_int_equal(apply_to(t, "cross \"Rank 0\" 536870911\nsolo rank:1\n", ctx), 0);
    assert_int_equal(t->domain_rule, TSYNC_DOMAIN_FILE);
    assert_string_equal(tsync_trace_domain_rule(t), "file");
    assert_string_equal(tsync_trace_domain_file(t), "d.txt");
    assert_int_equal(t->n_domains, 4);
    assert_string_equal(t->domains[0].name, "cross");
    assert_string_equal(t->domains[1].name, "solo");
    assert_string_equal(t->domains[2].name, "location 536870912");
    assert_string_equal(t->domains[3].name, "location 9");
    assert_int_equal(t->domains[0].node, 0);       /* of its first location */
    assert_int_equal(t->domains[3].node, 2);
    assert_int_equal(t->locations[0].domain, 0);
    assert_int_equal(t->locations[1].domain, 1);
    assert_int_equal(t->locations[2].domain, 0);
    assert_int_equal(t->locations[3].domain, 2);
    assert_int_equal(t->locations[4].domain, 3);
    assert_int_equal(t->locations[2].node, 1);     /* nodes stay: latencies use them */
    assert_int_equal(tsync_trace_find_domain(t, "location 9", &d), 0);
    assert_int_equal(d, 3);
    assert_int_equal(lg.warnings, 1);
    assert_string_equal(lg.last, "run/traces.otf2: 2 of 5 locations are not in the domain file "
                                 "d.txt and keep a clock of their own: \"Master thread\" (id "
                                 "536870912), \"7\" (id 9)");
    tsync_trace_free(t);

    /* Every location listed: no warning. A bare number that is no location's id
     * is a name ("7" is location 9); one that is both id and name of the same
     * location is fine. */
    lg.warnings = 0;
    t = five();
    assert_int_equal(apply_to(t, "all 0 1 rank:2 536870912 7\n", ctx), 0);
    assert_int_equal(t->n_domains, 1);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(t->locations[i].domain, 0);
    assert_int_equal(lg.warnings, 0);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
}

/* Every mismatch with the trace names the line and the token. */
static void test_apply_errors(void **state)
{
    (void)state;
    expect_apply_error("a 0\nb 1 5\n", "d.txt:2: location 5 is not in run/traces.otf2; its 5 "
                       "locations: \"Rank 0\" (id 0), \"Rank 1\" (id 1), \"Master thread\" (id "
                       "536870911), \"Master thread\" (id 536870912), ... (`tracesync check "
                       "--json run/traces.otf2` lists them all)");
    expect_apply_error("a \"Rank 9\"\n", "d.txt:1: location \"Rank 9\" is not in run/traces.otf2;");
    expect_apply_error("a rank:4\n", "d.txt:1: location rank:4 is not in run/traces.otf2 (MPI "
                       "ranks 0 to 3);");
    expect_apply_error("a 0\nb \"Master thread\"\n", "d.txt:2: \"Master thread\" is ambiguous: 2 "
                       "locations have this name (\"Master thread\" (id 536870911), \"Master "
                       "thread\" (id 536870912)); give their ids instead");
    expect_apply_error("a 0 1\nb rank:1\n", "d.txt:2: rank:1 is listed twice: location 1 "
                       "(\"Rank 1\") is already in domain \"a\" on line 1");
    expect_apply_error("a 0 0\n", "d.txt:1: 0 is listed twice: location 0 (\"Rank 0\") is "
                       "already in domain \"a\" on line 1");
    expect_apply_error("a 0\n\"location 9\" 1\n", "d.txt:2: domain \"location 9\" has the name "
                       "of the domain of location 9 (\"7\"), which the file does not list");
}

/* A number that is one location's id and another's name is ambiguous; without
 * MPI ranks (a CSV), rank:N says so. */
static void test_apply_special(void **state)
{
    struct tsync_trace *t = five();
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    free(t->locations[4].name);
    t->locations[4].name = strdup("1");            /* location 9 is named "1" */
    assert_int_equal(apply_to(t, "a 1\n", ctx), TSYNC_EINVAL);
    assert_string_equal(tsync_ctx_error(ctx), "d.txt:1: 1 is ambiguous: location id 1 is named "
                        "\"Rank 1\", but the name 1 belongs to \"1\" (id 9) (write \"1\" in "
                        "quotes for the name)");
    assert_int_equal(apply_to(t, "a \"1\"\n", ctx), 0);  /* quoted: the name */
    assert_int_equal(t->locations[4].domain, 0);

    free(t->rank_loc);
    t->rank_loc = NULL;
    t->n_ranks = 0;
    assert_int_equal(apply_to(t, "a rank:0\n", ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "d.txt:1: location rank:0 is not in "
                                                 "run/traces.otf2 (no MPI ranks);"));
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
}

/* ---- through tsync_trace_open -------------------------------------------- */

static const char CSV[] = "send_location,send_time_ns,recv_location,recv_time_ns\n"
                          "hostA,1000,hostB,900\n"
                          "hostB,2000,hostA,2600\n"
                          "hostA,3000,hostC,3500\n";

/* A CSV's locations are grouped by name or by id (order of first appearance);
 * the rest are their own domain, named after the location. */
static void test_open_csv(void **state)
{
    char *csv = write_file("m.csv", CSV), *dom = write_file("ab.txt", "ab hostA 1\n");
    tsync_open_opts o = TSYNC_OPEN_OPTS_INIT;
    tsync_trace *t = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    o.domains = TSYNC_DOMAIN_FILE;
    o.domain_file = dom;
    assert_int_equal(tsync_trace_open(&t, csv, &o, ctx), 0);
    assert_int_equal(tsync_trace_domain_count(t), 2);
    assert_string_equal(tsync_trace_domain_rule(t), "file");
    assert_string_equal(tsync_trace_domain_file(t), dom);
    assert_string_equal(tsync_trace_domain_name(t, 0), "ab");
    assert_string_equal(tsync_trace_domain_name(t, 1), "hostC");
    assert_int_equal(tsync_trace_location_domain(t, 0), 0);
    assert_int_equal(tsync_trace_location_domain(t, 1), 0);
    assert_int_equal(tsync_trace_location_domain(t, 2), 1);
    tsync_trace_free(t);
    t = NULL;

    /* Errors in the file come back from tsync_trace_open. */
    free(dom);
    dom = write_file("bad.txt", "ab hostA\ncd hostX\n");
    o.domain_file = dom;
    assert_int_equal(tsync_trace_open(&t, csv, &o, ctx), TSYNC_EINVAL);
    assert_null(t);
    assert_non_null(strstr(tsync_ctx_error(ctx), "bad.txt:2: location hostX is not in "));
    tsync_trace_free(t);
    free(dom);
    free(csv);
    tsync_ctx_free(ctx);
}

/* tsync_trace_open(csv, o) fails with `code` and a message containing `message`. */
static void expect_open_error(const char *csv, const tsync_open_opts *o, int code,
                              const char *message)
{
    tsync_trace *t = NULL;
    tsync_ctx *ctx;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_trace_open(&t, csv, o, ctx), code);
    assert_null(t);
    if (!strstr(tsync_ctx_error(ctx), message))
        fail_msg("message \"%s\" lacks \"%s\"", tsync_ctx_error(ctx), message);
    tsync_ctx_free(ctx);
}

/* The options: the rule and the file go together; version 1 has no file. */
static void test_open_opts(void **state)
{
    char *csv = write_file("m.csv", CSV);
    tsync_open_opts o = TSYNC_OPEN_OPTS_INIT, file = TSYNC_OPEN_OPTS_INIT;
    tsync_trace *t = NULL;
    (void)state;
    o.domains = TSYNC_DOMAIN_FILE;
    expect_open_error(csv, &o, TSYNC_EINVAL, "TSYNC_DOMAIN_FILE without a domain file");
    o.domains = TSYNC_DOMAIN_NODE;
    o.domain_file = "x.txt";
    expect_open_error(csv, &o, TSYNC_EINVAL, "the rule is not TSYNC_DOMAIN_FILE");
    o.version = 0;
    expect_open_error(csv, &o, TSYNC_EINVAL, "open options: version 0");
    file.domains = TSYNC_DOMAIN_FILE;
    file.domain_file = "/nonexistent/d.txt";
    expect_open_error(csv, &file, TSYNC_EIO, "/nonexistent/d.txt: cannot read the domain file");
    o.version = 1;                                 /* ends before domain_file */
    assert_int_equal(tsync_trace_open(&t, csv, &o, NULL), 0);
    assert_string_equal(tsync_trace_domain_rule(t), "location");
    assert_null(tsync_trace_domain_file(t));
    tsync_trace_free(t);
    free(csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_apply_errors),
        cmocka_unit_test(test_apply_special),
        cmocka_unit_test(test_open_csv),
        cmocka_unit_test(test_open_opts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
