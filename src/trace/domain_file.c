/* domain_file.c - clock domains from a domain file (`--domains FILE`): the parser
 * of its text, and the step that puts a trace's locations into its domains.
 *
 * One domain per line, `NAME LOCATION...`; `#` starts a comment; a LOCATION is a
 * location id, a location name (in double quotes when it has blanks) or rank:N.
 * The format is documented at TSYNC_DOMAIN_FILE in include/tracesync/trace.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/domain_file.h"
#include "util/ctx.h"
#include "util/vec.h"

#define LIST_MAX 4   /* locations named in one message */
#define SHOW_MAX 60  /* characters of a token shown in a message */

static const char EXAMPLE[] = "expected NAME LOCATION..., e.g. node0 0 1 \"Rank 2\" rank:3";

/* ---- parsing ------------------------------------------------------------ */

struct parser {
    struct tsync__domain_file *df;
    unsigned long line;
    const char *start;  /* of the line, for columns */
    tsync_ctx *ctx;
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static unsigned long column(const struct parser *ps, const char *p)
{
    return (unsigned long)(p - ps->start) + 1;
}

/* A malloc'ed copy of [s, e), without the escapes \" and \\ when `quoted`. */
static char *copy_token(const char *s, const char *e, int quoted)
{
    char *out = malloc((size_t)(e - s) + 1), *o = out;
    if (!out)
        return NULL;
    while (s < e) {
        if (quoted && *s == '\\' && s + 1 < e && (s[1] == '"' || s[1] == '\\'))
            s++;
        *o++ = *s++;
    }
    *o = '\0';
    return out;
}

/* The next token of the line at *pp (ending at `end`): 1 with *out (malloc'ed) and
 * *quoted, 0 at the end of the line or at a comment, or a negative error code. */
static int next_token(struct parser *ps, const char **pp, const char *end, char **out, int *quoted)
{
    const char *p = *pp, *s;
    while (p < end && is_blank(*p))
        p++;
    if (p == end || *p == '#')
        return 0;
    *quoted = *p == '"';
    if (*quoted) {
        const char *open = p;
        for (s = ++p; p < end && *p != '"'; p++)
            if (*p == '\\' && p + 1 < end && (p[1] == '"' || p[1] == '\\'))
                p++;
        if (p == end)
            return tsync__fail(ps->ctx, TSYNC_EFORMAT, "%s:%lu: the quote at column %lu is not "
                               "closed", ps->df->path, ps->line, column(ps, open));
        if (p + 1 < end && !is_blank(p[1]) && p[1] != '#')
            return tsync__fail(ps->ctx, TSYNC_EFORMAT, "%s:%lu: text right after the closing "
                               "quote at column %lu (put a blank between two names)",
                               ps->df->path, ps->line, column(ps, p));
        if (p == s)
            return tsync__fail(ps->ctx, TSYNC_EFORMAT, "%s:%lu: an empty name \"\" at column %lu",
                               ps->df->path, ps->line, column(ps, open));
        *pp = p + 1;
    } else {
        for (s = p; p < end && !is_blank(*p) && *p != '#'; p++)
            if (*p == '"')
                return tsync__fail(ps->ctx, TSYNC_EFORMAT, "%s:%lu: a quote inside a name at "
                                   "column %lu (put the whole name in quotes: \"Rank 2\")",
                                   ps->df->path, ps->line, column(ps, p));
        *pp = p;
    }
    if (!(*out = copy_token(s, p, *quoted)))
        return tsync__oom(ps->ctx);
    return 1;
}

/* 0 and *out if s is a decimal number that fits, 1 if it has other characters,
 * -1 if it is a number too large. */
static int parse_number(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return 1;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return 1;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* What a LOCATION token is: an id, rank:N or a name. Takes `text`, also on error. */
static int classify(struct parser *ps, char *text, int quoted, struct tsync__dloc *x)
{
    int r;
    x->kind = TSYNC_DLOC_NAME;
    x->quoted = quoted;
    x->num = 0;
    x->text = text;
    if (quoted)
        return TSYNC_OK;
    if ((r = parse_number(text, &x->num)) <= 0) {
        x->kind = TSYNC_DLOC_ID;
        if (r < 0)
            return tsync__fail(ps->ctx, TSYNC_EFORMAT, "%s:%lu: location id %.*s is too large",
                               ps->df->path, ps->line, SHOW_MAX, text);
    } else if (strncmp(text, "rank:", 5) == 0) {
        x->kind = TSYNC_DLOC_RANK;
        if (parse_number(text + 5, &x->num))
            return tsync__fail(ps->ctx, TSYNC_EFORMAT, "%s:%lu: \"%.*s\" is not rank:N with N a "
                               "decimal number (e.g. rank:3)", ps->df->path, ps->line, SHOW_MAX,
                               text);
    }
    return TSYNC_OK;
}

/* One line [p, end). */
static int parse_line(struct parser *ps, const char *p, const char *end)
{
    struct tsync__domain_file *df = ps->df;
    struct tsync__ddomain d = { NULL, ps->line, df->n_locs, 0 };
    const char *nul = memchr(p, '\0', (size_t)(end - p));
    char *text = NULL;
    int quoted, rc;
    ps->start = p;
    if (nul)
        return tsync__fail(ps->ctx, TSYNC_EFORMAT, "%s:%lu: a NUL byte at column %lu (not a "
                           "text file?)", df->path, ps->line, column(ps, nul));
    if ((rc = next_token(ps, &p, end, &d.name, &quoted)) <= 0)
        return rc;
    while ((rc = next_token(ps, &p, end, &text, &quoted)) > 0) {
        struct tsync__dloc x;
        if ((rc = classify(ps, text, quoted, &x)) ||
            TSYNC_PUSH(df->locs, df->n_locs, df->cap_locs, x)) {
            free(text);
            rc = rc ? rc : tsync__oom(ps->ctx);
            break;
        }
        d.n++;
    }
    if (rc == 0 && d.n == 0)
        rc = tsync__fail(ps->ctx, TSYNC_EFORMAT, "%s:%lu: domain \"%.*s\" lists no locations (%s)",
                         df->path, ps->line, SHOW_MAX, d.name, EXAMPLE);
    if (rc == 0 && TSYNC_PUSH(df->domains, df->n_domains, df->cap_domains, d))
        rc = tsync__oom(ps->ctx);
    if (rc)
        free(d.name);
    return rc;
}

static int name_cmp(const char *a, size_t ia, const char *b, size_t ib)
{
    int c = strcmp(a, b);
    return c ? c : (ia < ib ? -1 : ia > ib);
}

static int domain_cmp(const void *pa, const void *pb)
{
    const struct tsync__ddomain *a = *(const struct tsync__ddomain *const *)pa;
    const struct tsync__ddomain *b = *(const struct tsync__ddomain *const *)pb;
    return name_cmp(a->name, a->line, b->name, b->line);
}

/* Domain names given twice: the first line that repeats an earlier name is the error. */
static int check_names(struct parser *ps)
{
    const struct tsync__domain_file *df = ps->df;
    const struct tsync__ddomain **by = malloc((df->n_domains ? df->n_domains : 1) * sizeof(*by));
    const struct tsync__ddomain *again = NULL, *first = NULL;
    size_t run = 0;
    if (!by)
        return tsync__oom(ps->ctx);
    for (size_t i = 0; i < df->n_domains; i++)
        by[i] = &df->domains[i];
    qsort(by, df->n_domains, sizeof(*by), domain_cmp);
    for (size_t i = 1; i < df->n_domains; i++) {
        if (strcmp(by[i]->name, by[run]->name) != 0)
            run = i;
        else if (!again || by[i]->line < again->line)
            again = by[i], first = by[run];
    }
    free(by);
    if (again)
        return tsync__fail(ps->ctx, TSYNC_EFORMAT, "%s:%lu: domain \"%.*s\" is already defined on "
                           "line %lu", df->path, again->line, SHOW_MAX, again->name, first->line);
    return TSYNC_OK;
}

int tsync__domain_file_parse(struct tsync__domain_file *df, const char *path, const char *text,
                             size_t len, tsync_ctx *ctx)
{
    struct parser ps = { df, 0, text, ctx };
    const char *p = text, *end = text + len;
    int rc = TSYNC_OK;
    memset(df, 0, sizeof(*df));
    if (!(df->path = strdup(path ? path : "")))
        return tsync__oom(ctx);
    while (rc == TSYNC_OK && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        ps.line++;
        rc = parse_line(&ps, p, eol);
        p = nl ? nl + 1 : end;
    }
    if (rc == TSYNC_OK && df->n_domains == 0)
        rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: no clock domains in the file (%s)", df->path,
                         EXAMPLE);
    if (rc == TSYNC_OK)
        rc = check_names(&ps);
    if (rc)
        tsync__domain_file_free(df);
    return rc;
}

int tsync__domain_file_read(struct tsync__domain_file *df, const char *path, tsync_ctx *ctx)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc;
    memset(df, 0, sizeof(*df));
    if (!f)
        return tsync__fail(ctx, TSYNC_EIO, "%s: cannot read the domain file: %s", path,
                           strerror(errno));
    for (;;) {
        size_t got;
        if (tsync__reserve((void **)&buf, &cap, len + 4096, 1)) {
            fclose(f);
            free(buf);
            return tsync__oom(ctx);
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot read the domain file: %s", path,
                         strerror(errno));
    else
        rc = tsync__domain_file_parse(df, path, buf, len, ctx);
    fclose(f);
    free(buf);
    return rc;
}

void tsync__domain_file_free(struct tsync__domain_file *df)
{
    if (!df)
        return;
    for (size_t i = 0; i < df->n_domains; i++)
        free(df->domains[i].name);
    for (size_t i = 0; i < df->n_locs; i++)
        free(df->locs[i].text);
    free(df->domains);
    free(df->locs);
    free(df->path);
    memset(df, 0, sizeof(*df));
}

/* ---- applying to a trace ------------------------------------------------ */

struct by_ref { uint64_t ref; tsync_loc loc; };
struct by_name { const char *name; size_t idx; };

struct apply {
    struct tsync_trace *t;
    const struct tsync__domain_file *df;
    const struct tsync__ddomain *d;  /* the line being resolved */
    struct by_ref *refs;             /* n_locations, by id */
    struct by_name *names;           /* n_locations, by name (idx: the location) */
    tsync_ctx *ctx;
};

static int ref_cmp(const void *pa, const void *pb)
{
    const struct by_ref *a = pa, *b = pb;
    return a->ref < b->ref ? -1 : a->ref > b->ref;
}

static int by_name_cmp(const void *pa, const void *pb)
{
    const struct by_name *a = pa, *b = pb;
    return name_cmp(a->name, a->idx, b->name, b->idx);
}

static int name_only_cmp(const void *pa, const void *pb)
{
    return strcmp(((const struct by_name *)pa)->name, ((const struct by_name *)pb)->name);
}

/* The locations named `name`: names[*lo .. return value), empty when none. */
static size_t find_name(const struct apply *a, const char *name, size_t *lo)
{
    struct by_name key = { name, 0 };
    const struct by_name *hit = bsearch(&key, a->names, a->t->n_locations, sizeof(key),
                                        name_only_cmp);
    size_t l, h;
    if (!hit) {
        *lo = 0;
        return 0;
    }
    for (l = (size_t)(hit - a->names); l > 0 && strcmp(a->names[l - 1].name, name) == 0; l--)
        ;
    for (h = (size_t)(hit - a->names) + 1;
         h < a->t->n_locations && strcmp(a->names[h].name, name) == 0; h++)
        ;
    *lo = l;
    return h;
}

static tsync_loc find_ref(const struct apply *a, uint64_t ref)
{
    struct by_ref key = { ref, 0 };
    const struct by_ref *hit = bsearch(&key, a->refs, a->t->n_locations, sizeof(key), ref_cmp);
    return hit ? hit->loc : TSYNC_NONE;
}

static const char *name_of(const struct tsync_trace *t, tsync_loc loc)
{
    return t->locations[loc].name ? t->locations[loc].name : "";
}

/* Writes `"name" (id N)` of the first LIST_MAX of n locations to buf. */
static void list_locations(char *buf, size_t size, const struct tsync_trace *t,
                           const tsync_loc *locs, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < LIST_MAX && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s\"%.*s\" (id %llu)", i ? ", " : "",
                                SHOW_MAX, name_of(t, locs[i]),
                                (unsigned long long)t->locations[locs[i]].ref);
    if (n > LIST_MAX && len < size)
        snprintf(buf + len, size - len, ", ...");
}

/* The token as written, for messages. */
static void show_token(char *buf, size_t size, const struct tsync__dloc *x)
{
    snprintf(buf, size, x->quoted ? "\"%.*s\"" : "%.*s", SHOW_MAX, x->text);
}

static int not_found(const struct apply *a, const struct tsync__dloc *x)
{
    char tok[SHOW_MAX + 8], list[LIST_MAX * (SHOW_MAX + 32) + 8], ranks[64] = "";
    tsync_loc first[LIST_MAX];
    uint32_t n = a->t->n_locations < LIST_MAX ? a->t->n_locations : LIST_MAX;
    for (tsync_loc i = 0; i < n; i++)
        first[i] = i;
    show_token(tok, sizeof(tok), x);
    list_locations(list, sizeof(list), a->t, first, a->t->n_locations);
    if (x->kind == TSYNC_DLOC_RANK && a->t->n_ranks)
        snprintf(ranks, sizeof(ranks), " (MPI ranks 0 to %u)", a->t->n_ranks - 1);
    else if (x->kind == TSYNC_DLOC_RANK)
        snprintf(ranks, sizeof(ranks), " (no MPI ranks)");
    return tsync__fail(a->ctx, TSYNC_EINVAL, "%s:%lu: location %s is not in %s%s; its %u "
                       "locations: %s (`tracesync check --json %s` lists them all)", a->df->path,
                       a->d->line, tok, a->t->path, ranks, a->t->n_locations, list, a->t->path);
}

/* The location a token names: 0 and *out, or an error naming the line. */
static int resolve(const struct apply *a, const struct tsync__dloc *x, tsync_loc *out)
{
    const struct tsync_trace *t = a->t;
    char tok[SHOW_MAX + 8], list[LIST_MAX * (SHOW_MAX + 32) + 8];
    tsync_loc by_id = TSYNC_NONE, named[LIST_MAX];
    size_t lo = 0, hi = 0;
    if (x->kind == TSYNC_DLOC_RANK) {
        if (x->num >= t->n_ranks || t->rank_loc[x->num] == TSYNC_NONE)
            return not_found(a, x);
        *out = t->rank_loc[x->num];
        return TSYNC_OK;
    }
    if (x->kind == TSYNC_DLOC_ID)
        by_id = find_ref(a, x->num);
    hi = find_name(a, x->text, &lo);
    if (hi == lo && by_id == TSYNC_NONE)
        return not_found(a, x);
    if (by_id != TSYNC_NONE && (hi == lo || (hi - lo == 1 && a->names[lo].idx == by_id))) {
        *out = by_id;
        return TSYNC_OK;
    }
    if (by_id == TSYNC_NONE && hi - lo == 1) {
        *out = (tsync_loc)a->names[lo].idx;
        return TSYNC_OK;
    }
    for (size_t i = lo; i < hi && i - lo < LIST_MAX; i++)
        named[i - lo] = (tsync_loc)a->names[i].idx;
    list_locations(list, sizeof(list), t, named, hi - lo);
    show_token(tok, sizeof(tok), x);
    if (by_id != TSYNC_NONE)
        return tsync__fail(a->ctx, TSYNC_EINVAL, "%s:%lu: %s is ambiguous: location id %s is "
                           "named \"%.*s\", but the name %s belongs to %s (write \"%.*s\" in "
                           "quotes for the name)", a->df->path, a->d->line, tok, tok, SHOW_MAX,
                           name_of(t, by_id), tok, list, SHOW_MAX, x->text);
    return tsync__fail(a->ctx, TSYNC_EINVAL, "%s:%lu: %s is ambiguous: %zu locations have this "
                       "name (%s); give their ids instead", a->df->path, a->d->line, tok, hi - lo,
                       list);
}

/* The domain each location is in (index into df->domains, or TSYNC_NONE). */
static int assign(struct apply *a, uint32_t *owner)
{
    const struct tsync__domain_file *df = a->df;
    for (uint32_t i = 0; i < a->t->n_locations; i++)
        owner[i] = TSYNC_NONE;
    for (size_t d = 0; d < df->n_domains; d++) {
        a->d = &df->domains[d];
        for (size_t k = 0; k < a->d->n; k++) {
            const struct tsync__dloc *x = &df->locs[a->d->first + k];
            tsync_loc loc = TSYNC_NONE;
            int rc = resolve(a, x, &loc);
            if (rc)
                return rc;
            if (owner[loc] != TSYNC_NONE) {
                const struct tsync__ddomain *was = &df->domains[owner[loc]];
                char tok[SHOW_MAX + 8];
                show_token(tok, sizeof(tok), x);
                return tsync__fail(a->ctx, TSYNC_EINVAL, "%s:%lu: %s is listed twice: location "
                                   "%llu (\"%.*s\") is already in domain \"%.*s\" on line %lu",
                                   df->path, a->d->line, tok,
                                   (unsigned long long)a->t->locations[loc].ref, SHOW_MAX,
                                   name_of(a->t, loc), SHOW_MAX, was->name, was->line);
            }
            owner[loc] = (uint32_t)d;
        }
    }
    return TSYNC_OK;
}

/* New domain names must differ: a file domain may not take the name that an
 * unlisted location's own domain gets. */
static int check_final_names(struct apply *a, struct tsync_domain *dom, uint32_t n,
                             const tsync_loc *own)
{
    struct by_name *by = malloc((n ? n : 1) * sizeof(*by));
    size_t nf = a->df->n_domains;
    int rc = TSYNC_OK;
    if (!by)
        return tsync__oom(a->ctx);
    for (uint32_t i = 0; i < n; i++)
        by[i] = (struct by_name){ dom[i].name, i };
    qsort(by, n, sizeof(*by), by_name_cmp);
    for (uint32_t i = 1; i < n && rc == TSYNC_OK; i++) {
        if (strcmp(by[i].name, by[i - 1].name) == 0 && by[i - 1].idx < nf && by[i].idx >= nf) {
            const struct tsync__ddomain *d = &a->df->domains[by[i - 1].idx];
            tsync_loc loc = own[by[i].idx - nf];
            rc = tsync__fail(a->ctx, TSYNC_EINVAL, "%s:%lu: domain \"%.*s\" has the name of "
                             "the domain of location %llu (\"%.*s\"), which the file does not "
                             "list; rename the domain or list the location", a->df->path, d->line,
                             SHOW_MAX, d->name, (unsigned long long)a->t->locations[loc].ref,
                             SHOW_MAX, name_of(a->t, loc));
        }
    }
    free(by);
    return rc;
}

static void warn_unlisted(const struct apply *a, const tsync_loc *own, uint32_t n)
{
    char list[LIST_MAX * (SHOW_MAX + 32) + 8];
    if (!n)
        return;
    list_locations(list, sizeof(list), a->t, own, n);
    tsync__warn(a->ctx, "%s: %u of %u locations are not in the domain file %s and keep a clock "
                "of their own: %s", a->t->path, n, a->t->n_locations, a->df->path, list);
}

int tsync__domain_file_apply(struct tsync_trace *t, const struct tsync__domain_file *df,
                             tsync_ctx *ctx)
{
    struct apply a = { t, df, NULL, NULL, NULL, ctx };
    size_t nl = t->n_locations ? t->n_locations : 1;
    uint32_t *owner = malloc(nl * sizeof(*owner)), n_own = 0, nd = 0;
    tsync_loc *own = malloc(nl * sizeof(*own));
    struct tsync_domain *dom = NULL;
    char *path = strdup(df->path);
    int rc = TSYNC_ENOMEM;

    a.refs = malloc(nl * sizeof(*a.refs));
    a.names = malloc(nl * sizeof(*a.names));
    if (!owner || !own || !path || !a.refs || !a.names)
        goto out;
    for (tsync_loc i = 0; i < t->n_locations; i++) {
        a.refs[i] = (struct by_ref){ t->locations[i].ref, i };
        a.names[i] = (struct by_name){ name_of(t, i), i };
    }
    qsort(a.refs, t->n_locations, sizeof(*a.refs), ref_cmp);
    qsort(a.names, t->n_locations, sizeof(*a.names), by_name_cmp);
    if ((rc = assign(&a, owner)))
        goto out;
    rc = TSYNC_ENOMEM;
    for (tsync_loc i = 0; i < t->n_locations; i++)
        if (owner[i] == TSYNC_NONE)
            own[n_own++] = i;
    if (df->n_domains + n_own > UINT32_MAX - 1 ||
        !(dom = calloc(df->n_domains + n_own, sizeof(*dom))))
        goto out;
    for (; nd < df->n_domains; nd++) {
        if (!(dom[nd].name = strdup(df->domains[nd].name)))
            goto out;
    }
    for (uint32_t k = 0; k < n_own; k++, nd++) {
        dom[nd].node = t->locations[own[k]].node;
        if (!(dom[nd].name = tsync__own_domain_name(t, own[k])))
            goto out;
    }
    if ((rc = check_final_names(&a, dom, nd, own)))
        goto out;
    /* Commit: nothing below fails. */
    for (uint32_t i = 0; i < t->n_domains; i++)
        free(t->domains[i].name);
    free(t->domains);
    t->domains = dom;
    t->n_domains = nd;
    dom = NULL;
    for (tsync_loc i = t->n_locations; i-- > 0;)
        if (owner[i] != TSYNC_NONE)
            t->domains[owner[i]].node = t->locations[i].node; /* of its first location */
    for (uint32_t k = 0; k < n_own; k++)
        owner[own[k]] = (uint32_t)df->n_domains + k;
    for (tsync_loc i = 0; i < t->n_locations; i++)
        t->locations[i].domain = owner[i];
    free(t->domain_file);
    t->domain_file = path;
    path = NULL;
    t->domain_rule = TSYNC_DOMAIN_FILE;
    warn_unlisted(&a, own, n_own);
out:
    if (dom)
        for (uint32_t i = 0; i < nd; i++)
            free(dom[i].name);
    free(dom);
    free(path);
    free(own);
    free(owner);
    free(a.refs);
    free(a.names);
    if (rc == TSYNC_ENOMEM)
        tsync__oom(ctx);
    return rc;
}
