/* map_set.c - a trace's time maps, one per location, and their JSON file format.
 *
 * The file format (also in docs/maps.md):
 *
 *   {
 *     "format": "tracesync-maps",
 *     "version": 1,
 *     "timer_resolution": 1000000000,
 *     "maps": [
 *       { "domain": "node1", "offset": -25000 },
 *       { "location": 536870911, "offset": 1200, "drift": 1.5e-6, "origin": 0 },
 *       { "location": 3, "points": [[0, 100], [1000000, 1000150]] },
 *       { "default": true, "offset": 0 }
 *     ]
 *   }
 *
 * Top level: "format" must be "tracesync-maps" and "version" 1 (both required);
 * "timer_resolution" (ticks per second) is optional and, when present, must equal
 * the trace's; "maps" is a list, possibly empty; "estimate" (how `tracesync
 * estimate` found the maps) is not read. No other keys.
 *
 * Each map has exactly one selector:
 *   "location": n     the location whose id in the file (OTF2 LocationRef) is n
 *   "location": "name" the location of that name (CSV, whose locations have no ids)
 *   "domain": "name"  every location of that clock domain
 *   "default": true   every location not named by another map
 * A location selector wins over a domain, a domain over the default. Naming a
 * location twice (two "location" maps, one domain twice) is an error, as is a
 * second default. Locations no map reaches keep their time.
 *
 * and exactly one function, all times integers in ticks of the trace's clock:
 *   "offset": o                               global = local + o
 *   "offset": o, "drift": d [, "origin": t0]  global = local + o + d * (local - t0);
 *                                             d a number > -1, t0 defaults to 0
 *   "points": [[l0, g0], [l1, g1], ...]       linear between points, local strictly
 *                                             increasing and global non-decreasing;
 *                                             outside, the nearest segment's slope
 *                                             (slope 1 for a single point)
 * Optional error bounds in ticks (>= 0): "bound": b for offset and drift maps,
 * "bounds": [b0, b1, ...] (one per point) for points maps. "name": "..." is an
 * optional note for people (the writer puts the location's name there); it is
 * not checked. Any other key is an error.
 *
 * The writer emits one map per location that has one, selected by location id,
 * in location order, one map per line. Every error names the file and the map:
 * "maps.json: map 2: location 77 is not in the trace (ids: 0, 1, 2, 3)".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timemap/map_set.h"
#include "util/ctx.h"
#include "util/utf8.h"

#define NONE SIZE_MAX
#define MAX_LISTED 16 /* ids or names listed in an error message */

/* ---- the set ---------------------------------------------------------------- */

int tsync_map_set_new_empty(tsync_map_set **out, const tsync_trace *t, tsync_ctx *ctx)
{
    tsync_map_set *set = calloc(1, sizeof(*set));
    if (!set)
        return tsync__oom(ctx);
    set->n_locations = t->n_locations;
    set->of = calloc(t->n_locations ? t->n_locations : 1, sizeof(*set->of));
    if (!set->of) {
        free(set);
        return tsync__oom(ctx);
    }
    *out = set;
    return TSYNC_OK;
}

/* Drops one location's use of a map, freeing it with its last user. */
static void release(struct tsync_time_map *m)
{
    if (m && --m->users == 0)
        tsync_time_map_free(m);
}

void tsync_map_set_free(tsync_map_set *set)
{
    if (!set)
        return;
    for (uint32_t i = 0; i < set->n_locations; i++)
        release(set->of[i]);
    free(set->of);
    free(set);
}

int tsync_map_set_assign(tsync_map_set *set, tsync_loc loc, tsync_time_map *map, tsync_ctx *ctx)
{
    if (!map)
        return tsync__fail(ctx, TSYNC_EINVAL, "map set: no map given for location index %u", loc);
    if (loc >= set->n_locations) {
        if (map->users == 0)
            tsync_time_map_free(map);
        return tsync__fail(ctx, TSYNC_EINVAL,
                           "map set: location index %u is out of range (%u locations)",
                           loc, set->n_locations);
    }
    map->users++; /* first, in case it is the map the location already has */
    release(set->of[loc]);
    set->of[loc] = map;
    return TSYNC_OK;
}

const tsync_time_map *tsync_map_set_get(const tsync_map_set *set, tsync_loc loc)
{
    return loc < set->n_locations ? set->of[loc] : NULL;
}

/* ---- reading ---------------------------------------------------------------- */

/* Lookup tables: location ids and domain names, sorted for bsearch. */
struct ref_entry { uint64_t ref; uint32_t loc; };
struct name_entry { const char *name; uint32_t domain; };

static int ref_cmp(const void *pa, const void *pb)
{
    const struct ref_entry *a = pa, *b = pb;
    if (a->ref != b->ref)
        return a->ref < b->ref ? -1 : 1;
    return a->loc < b->loc ? -1 : a->loc > b->loc; /* first location wins, as in find_location */
}

static int name_cmp(const void *pa, const void *pb)
{
    const struct name_entry *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->domain < b->domain ? -1 : a->domain > b->domain);
}

/* Everything the loader holds while it reads; freed by loader_done. */
struct loader {
    const char *path;
    const tsync_trace *t;
    tsync_ctx *ctx;
    struct ref_entry *refs;      /* n_locations, sorted */
    struct name_entry *names;    /* n_domains, sorted */
    size_t n_maps;
    struct tsync_time_map **maps;
    size_t *by_loc;              /* map naming each location directly, or NONE */
    size_t *by_domain;           /* map naming each domain, or NONE */
    size_t by_default;
    char what[512];              /* "path: map i", for messages */
};

static void loader_done(struct loader *L)
{
    if (L->maps)
        for (size_t i = 0; i < L->n_maps; i++)
            if (L->maps[i] && L->maps[i]->users == 0)
                tsync_time_map_free(L->maps[i]);
    free(L->maps);
    free(L->refs);
    free(L->names);
    free(L->by_loc);
    free(L->by_domain);
}

static int loader_init(struct loader *L, size_t n_maps)
{
    const tsync_trace *t = L->t;
    size_t nl = t->n_locations ? t->n_locations : 1, nd = t->n_domains ? t->n_domains : 1;
    L->n_maps = n_maps;
    L->maps = calloc(n_maps ? n_maps : 1, sizeof(*L->maps));
    L->refs = malloc(nl * sizeof(*L->refs));
    L->names = malloc(nd * sizeof(*L->names));
    L->by_loc = malloc(nl * sizeof(*L->by_loc));
    L->by_domain = malloc(nd * sizeof(*L->by_domain));
    if (!L->maps || !L->refs || !L->names || !L->by_loc || !L->by_domain)
        return tsync__oom(L->ctx);
    for (uint32_t i = 0; i < t->n_locations; i++) {
        L->refs[i].ref = t->locations[i].ref;
        L->refs[i].loc = i;
        L->by_loc[i] = NONE;
    }
    for (uint32_t i = 0; i < t->n_domains; i++) {
        L->names[i].name = t->domains[i].name ? t->domains[i].name : "";
        L->names[i].domain = i;
        L->by_domain[i] = NONE;
    }
    qsort(L->refs, t->n_locations, sizeof(*L->refs), ref_cmp);
    qsort(L->names, t->n_domains, sizeof(*L->names), name_cmp);
    L->by_default = NONE;
    return TSYNC_OK;
}

static int find_ref(const struct loader *L, uint64_t ref, uint32_t *loc)
{
    size_t lo = 0, hi = L->t->n_locations;
    while (lo < hi) { /* first entry with ref >= the one sought */
        size_t mid = lo + (hi - lo) / 2;
        if (L->refs[mid].ref < ref)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == L->t->n_locations || L->refs[lo].ref != ref)
        return TSYNC_EINVAL;
    *loc = L->refs[lo].loc;
    return TSYNC_OK;
}

static int find_name(const struct loader *L, const char *name, uint32_t *domain)
{
    size_t lo = 0, hi = L->t->n_domains;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(L->names[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == L->t->n_domains || strcmp(L->names[lo].name, name) != 0)
        return TSYNC_EINVAL;
    *domain = L->names[lo].domain;
    return TSYNC_OK;
}

/* "0, 1, 2, 3" (the trace's location ids), shortened when long. */
static void list_ids(const tsync_trace *t, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < t->n_locations && len < size; i++) {
        if (i == MAX_LISTED) {
            snprintf(buf + len, size - len, ", ... (%u in all)", t->n_locations);
            return;
        }
        len += (size_t)snprintf(buf + len, size - len, "%s%llu", i ? ", " : "",
                                (unsigned long long)t->locations[i].ref);
    }
    if (t->n_locations == 0)
        snprintf(buf, size, "none");
}

static void list_domains(const tsync_trace *t, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < t->n_domains && len < size; i++) {
        if (i == MAX_LISTED) {
            snprintf(buf + len, size - len, ", ... (%u in all)", t->n_domains);
            return;
        }
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
                                t->domains[i].name ? t->domains[i].name : "");
    }
    if (t->n_domains == 0)
        snprintf(buf, size, "none");
}

/* An integer member in ticks (or an id); `key` names it in the message. */
static int get_int(struct loader *L, json_t *v, const char *key, int64_t *out)
{
    if (!json_is_integer(v))
        return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: \"%s\" must be an integer", L->what, key);
    *out = (int64_t)json_integer_value(v);
    return TSYNC_OK;
}

/* Reads "points" (and "bounds") into a points map. */
static int read_points(struct loader *L, json_t *points, json_t *bounds,
                       struct tsync_time_map **out)
{
    size_t n, i;
    tsync_time *local = NULL, *global = NULL;
    int64_t *b = NULL;
    int rc = TSYNC_OK;
    if (!json_is_array(points))
        return tsync__fail(L->ctx, TSYNC_EFORMAT,
                           "%s: \"points\" must be a list of [local, global] pairs",
                           L->what);
    n = json_array_size(points);
    if (n == 0)
        return tsync__fail(L->ctx, TSYNC_EINVAL,
                           "%s: \"points\" is empty (a map needs at least one point)",
                           L->what);
    if (bounds && (!json_is_array(bounds) || json_array_size(bounds) != n))
        return tsync__fail(L->ctx, TSYNC_EFORMAT,
                           "%s: \"bounds\" must be a list of %zu integers, one per point",
                           L->what, n);
    local = malloc(n * sizeof(*local));
    global = malloc(n * sizeof(*global));
    b = malloc(n * sizeof(*b));
    if (!local || !global || !b) {
        rc = tsync__oom(L->ctx);
        goto done;
    }
    for (i = 0; i < n; i++) {
        json_t *p = json_array_get(points, i);
        json_t *l = json_array_get(p, 0), *g = json_array_get(p, 1);
        if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_integer(l) ||
            !json_is_integer(g)) {
            rc = tsync__fail(L->ctx, TSYNC_EFORMAT,
                             "%s: point %zu must be [local, global] in integer ticks",
                             L->what, i);
            goto done;
        }
        local[i] = (tsync_time)json_integer_value(l);
        global[i] = (tsync_time)json_integer_value(g);
        if (bounds) {
            json_t *v = json_array_get(bounds, i);
            if (!json_is_integer(v)) {
                rc = tsync__fail(L->ctx, TSYNC_EFORMAT,
                                 "%s: bound %zu must be an integer", L->what, i);
                goto done;
            }
            b[i] = (int64_t)json_integer_value(v);
        }
    }
    rc = tsync__time_map_new_points(out, local, global, n, L->what, L->ctx);
    if (rc == TSYNC_OK && bounds &&
        (rc = tsync__time_map_set_bounds(*out, b, n, L->what, L->ctx))) {
        tsync_time_map_free(*out);
        *out = NULL;
    }
done:
    free(local);
    free(global);
    free(b);
    return rc;
}

/* Reads "offset" [, "drift" [, "origin"]] [, "bound"] into a map. */
static int read_offset(struct loader *L, json_t *obj, struct tsync_time_map **out)
{
    json_t *jo = json_object_get(obj, "offset"), *jd = json_object_get(obj, "drift");
    json_t *jt = json_object_get(obj, "origin"), *jb = json_object_get(obj, "bound");
    int64_t offset = 0, origin = 0, bound = 0;
    int rc;
    if (!jo)
        return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: needs \"offset\" or \"points\"", L->what);
    if ((rc = get_int(L, jo, "offset", &offset)))
        return rc;
    if (jt && !jd)
        return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: \"origin\" needs \"drift\"", L->what);
    if (jt && (rc = get_int(L, jt, "origin", &origin)))
        return rc;
    if (jb && (rc = get_int(L, jb, "bound", &bound)))
        return rc;
    if (jd) {
        if (!json_is_number(jd))
            return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: \"drift\" must be a number", L->what);
        rc = tsync__time_map_new_drift(out, offset, json_number_value(jd), origin, L->what, L->ctx);
    } else {
        rc = tsync_time_map_new_offset(out, offset, L->ctx);
    }
    if (rc == TSYNC_OK && jb &&
        (rc = tsync__time_map_set_bounds(*out, &bound, 1, L->what, L->ctx))) {
        tsync_time_map_free(*out);
        *out = NULL;
    }
    return rc;
}

static const char *const map_keys[] = { "location", "domain", "default", "name", "offset", "drift",
                                        "origin", "bound", "points", "bounds", NULL };

/* Reads map i: checks its keys, resolves its selector, builds its function. */
static int read_map(struct loader *L, size_t i, json_t *obj)
{
    const tsync_trace *t = L->t;
    json_t *jl, *jdom, *jdef, *jname, *jp, *v;
    const char *key;
    char list[256];
    int rc, selectors;
    uint32_t loc = 0, dom = 0;

    snprintf(L->what, sizeof(L->what), "%s: map %zu", L->path, i);
    if (!json_is_object(obj))
        return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: must be an object", L->what);
    json_object_foreach(obj, key, v) {
        size_t k = 0;
        while (map_keys[k] && strcmp(map_keys[k], key) != 0)
            k++;
        if (!map_keys[k])
            return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: unknown key \"%s\"", L->what, key);
    }
    jl = json_object_get(obj, "location");
    jdom = json_object_get(obj, "domain");
    jdef = json_object_get(obj, "default");
    jname = json_object_get(obj, "name");
    jp = json_object_get(obj, "points");
    selectors = !!jl + !!jdom + !!jdef;
    if (selectors != 1)
        return tsync__fail(L->ctx, TSYNC_EFORMAT,
                           "%s: needs exactly one of \"location\", \"domain\" and \"default\" "
                           "(has %d)", L->what, selectors);
    if (jname && !json_is_string(jname))
        return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: \"name\" must be a string", L->what);

    /* The selector. */
    if (jl && json_is_string(jl)) {
        /* By name: the locations of a CSV, which has no ids. Names are compared as
         * JSON has them (util/utf8.h); names that differ only in invalid bytes are
         * one name there, taken by the maps in location order, as they are written. */
        uint32_t first = t->n_locations;
        for (loc = 0; loc < t->n_locations; loc++)
            if (t->locations[loc].name &&
                tsync__utf8_repaired_eq(t->locations[loc].name, json_string_value(jl))) {
                if (first == t->n_locations)
                    first = loc;
                if (L->by_loc[loc] == NONE)
                    break;
            }
        if (loc == t->n_locations)
            loc = first;
        if (loc == t->n_locations)
            return tsync__fail(L->ctx, TSYNC_EINVAL, "%s: location \"%s\" is not in the trace",
                               L->what, json_string_value(jl));
        if (L->by_loc[loc] != NONE)
            return tsync__fail(L->ctx, TSYNC_EINVAL,
                               "%s: location \"%s\" is already named by map %zu",
                               L->what, json_string_value(jl), L->by_loc[loc]);
    } else if (jl) {
        if (!json_is_integer(jl) || json_integer_value(jl) < 0)
            return tsync__fail(L->ctx, TSYNC_EFORMAT,
                               "%s: \"location\" must be a location id (an integer >= 0) "
                               "or, in a CSV, a location's name", L->what);
        if (find_ref(L, (uint64_t)json_integer_value(jl), &loc)) {
            list_ids(t, list, sizeof(list));
            return tsync__fail(L->ctx, TSYNC_EINVAL,
                               "%s: location %lld is not in the trace (ids: %s)",
                               L->what, (long long)json_integer_value(jl), list);
        }
        if (L->by_loc[loc] != NONE)
            return tsync__fail(L->ctx, TSYNC_EINVAL,
                               "%s: location %lld is already named by map %zu",
                               L->what, (long long)json_integer_value(jl), L->by_loc[loc]);
    } else if (jdom) {
        if (!json_is_string(jdom))
            return tsync__fail(L->ctx, TSYNC_EFORMAT,
                               "%s: \"domain\" must be a clock domain's name",
                               L->what);
        if (find_name(L, json_string_value(jdom), &dom)) {
            list_domains(t, list, sizeof(list));
            return tsync__fail(L->ctx, TSYNC_EINVAL,
                               "%s: domain \"%s\" is not in the trace (domains: %s)",
                               L->what, json_string_value(jdom), list);
        }
        if (L->by_domain[dom] != NONE)
            return tsync__fail(L->ctx, TSYNC_EINVAL,
                               "%s: domain \"%s\" is already named by map %zu (its locations "
                               "would have two maps)", L->what, json_string_value(jdom),
                               L->by_domain[dom]);
    } else {
        if (!json_is_true(jdef))
            return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: \"default\" must be true", L->what);
        if (L->by_default != NONE)
            return tsync__fail(L->ctx, TSYNC_EINVAL,
                               "%s: a default map is already given by map %zu",
                               L->what, L->by_default);
    }

    /* The function. */
    if (jp) {
        static const char *const scalar[] = { "offset", "drift", "origin", "bound" };
        for (size_t k = 0; k < sizeof(scalar) / sizeof(*scalar); k++)
            if (json_object_get(obj, scalar[k]))
                return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: \"%s\" cannot go with \"points\"%s",
                                   L->what, scalar[k], k == 3 ? " (use \"bounds\")" : "");
        rc = read_points(L, jp, json_object_get(obj, "bounds"), &L->maps[i]);
    } else {
        if (json_object_get(obj, "bounds"))
            return tsync__fail(L->ctx, TSYNC_EFORMAT,
                               "%s: \"bounds\" goes with \"points\" (use \"bound\")",
                               L->what);
        rc = read_offset(L, obj, &L->maps[i]);
    }
    if (rc)
        return rc;

    if (jl)
        L->by_loc[loc] = i;
    else if (jdom)
        L->by_domain[dom] = i;
    else
        L->by_default = i;
    return TSYNC_OK;
}

/* Checks the top level; sets *maps to the "maps" list. */
static int read_header(struct loader *L, json_t *root, json_t **maps)
{
    json_t *v;
    const char *key;
    if (!json_is_object(root))
        return tsync__fail(L->ctx, TSYNC_EFORMAT,
                           "%s: not a tracesync-maps file (not a JSON object)", L->path);
    v = json_object_get(root, "format");
    if (!json_is_string(v) || strcmp(json_string_value(v), "tracesync-maps") != 0)
        return tsync__fail(L->ctx, TSYNC_EFORMAT,
                           "%s: not a tracesync-maps file (\"format\" must be \"tracesync-maps\")",
                           L->path);
    json_object_foreach(root, key, v) {
        if (strcmp(key, "format") && strcmp(key, "version") && strcmp(key, "timer_resolution") &&
            strcmp(key, "maps") && strcmp(key, "estimate"))
            return tsync__fail(L->ctx, TSYNC_EFORMAT,
                               "%s: unknown key \"%s\" (expected format, version, "
                               "timer_resolution, maps, estimate)", L->path, key);
    }
    v = json_object_get(root, "version");
    if (!json_is_integer(v))
        return tsync__fail(L->ctx, TSYNC_EFORMAT,
                           "%s: \"version\" must be an integer (1)", L->path);
    if (json_integer_value(v) != 1)
        return tsync__fail(L->ctx, json_integer_value(v) > 1 ? TSYNC_EUNSUPPORTED : TSYNC_EFORMAT,
                           "%s: version %lld is not supported (this tracesync reads version 1)",
                           L->path, (long long)json_integer_value(v));
    v = json_object_get(root, "timer_resolution");
    if (v) {
        if (!json_is_integer(v) || json_integer_value(v) <= 0)
            return tsync__fail(L->ctx, TSYNC_EFORMAT,
                               "%s: \"timer_resolution\" must be an integer > 0 "
                               "(ticks per second)", L->path);
        if ((uint64_t)json_integer_value(v) != L->t->timer_resolution)
            return tsync__fail(L->ctx, TSYNC_EINVAL,
                               "%s: timer_resolution %lld differs from the trace's %llu ticks per "
                               "second (%s)",
                               L->path, (long long)json_integer_value(v),
                               (unsigned long long)L->t->timer_resolution, L->t->path);
    }
    *maps = json_object_get(root, "maps");
    if (!json_is_array(*maps))
        return tsync__fail(L->ctx, TSYNC_EFORMAT, "%s: \"maps\" must be a list", L->path);
    return TSYNC_OK;
}

int tsync_map_set_load(tsync_map_set **out, const char *path, const tsync_trace *t, tsync_ctx *ctx)
{
    struct loader L;
    json_error_t err;
    json_t *root, *maps = NULL;
    tsync_map_set *set = NULL;
    int rc;

    memset(&L, 0, sizeof(L));
    L.path = path;
    L.t = t;
    L.ctx = ctx;
    root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        switch (json_error_code(&err)) {
        case json_error_cannot_open_file:
            return tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, err.text);
        case json_error_out_of_memory:
            return tsync__oom(ctx);
        default:
            return tsync__fail(ctx, TSYNC_EFORMAT, "%s: line %d, column %d: %s", path, err.line,
                               err.column, err.text);
        }
    }
    if ((rc = read_header(&L, root, &maps)) || (rc = loader_init(&L, json_array_size(maps))))
        goto done;
    for (size_t i = 0; i < L.n_maps; i++)
        if ((rc = read_map(&L, i, json_array_get(maps, i))))
            goto done;

    /* Each location: its own map, else its domain's, else the default. */
    if ((rc = tsync_map_set_new_empty(&set, t, ctx)))
        goto done;
    for (uint32_t loc = 0; loc < t->n_locations; loc++) {
        uint32_t d = t->locations[loc].domain;
        size_t m = L.by_loc[loc];
        if (m == NONE && d < t->n_domains)
            m = L.by_domain[d];
        if (m == NONE)
            m = L.by_default;
        if (m != NONE) {
            L.maps[m]->users++;
            set->of[loc] = L.maps[m];
        }
    }
    *out = set;
done:
    loader_done(&L); /* frees the maps no location uses */
    json_decref(root);
    return rc;
}

/* ---- writing ---------------------------------------------------------------- */

json_t *tsync__time_map_to_json(const tsync_time_map *m)
{
    json_t *o = json_object(), *pts, *b;
    if (!o)
        return NULL;
    if (m->kind != TSYNC_MAP_POINTS) {
        if (json_object_set_new(o, "offset", json_integer(m->offset)))
            goto fail;
        if (m->kind == TSYNC_MAP_DRIFT &&
            (json_object_set_new(o, "drift", json_real(m->drift)) ||
             json_object_set_new(o, "origin", json_integer(m->local[0]))))
            goto fail;
        if (m->bounds && json_object_set_new(o, "bound", json_integer(m->bounds[0])))
            goto fail;
        return o;
    }
    if (!(pts = json_array()) || json_object_set_new(o, "points", pts))
        goto fail;
    for (size_t i = 0; i < m->n; i++)
        if (json_array_append_new(pts, json_pack("[II]", (json_int_t)m->local[i],
                                                 (json_int_t)m->global[i])))
            goto fail;
    if (m->bounds) {
        if (!(b = json_array()) || json_object_set_new(o, "bounds", b))
            goto fail;
        for (size_t i = 0; i < m->n; i++)
            if (json_array_append_new(b, json_integer(m->bounds[i])))
                goto fail;
    }
    return o;
fail:
    json_decref(o);
    return NULL;
}

/* The entry of one location: selector, name, then the map's own members; a map of
 * points without them unless `points`. */
static json_t *location_entry(const tsync_trace *t, uint32_t loc, const tsync_time_map *m,
                              int points)
{
    const struct tsync_location *l = &t->locations[loc];
    json_t *e = json_object();
    json_t *fn = m->kind == TSYNC_MAP_POINTS && !points ? json_object() : tsync__time_map_to_json(m);
    if (!e || !fn || json_object_set_new(e, "location", tsync__location_json(t, loc)) ||
        (t->format != TSYNC_FORMAT_CSV && l->name &&
         json_object_set_new(e, "name", tsync__json_text(l->name))) ||
        json_object_update(e, fn)) {
        json_decref(e);
        json_decref(fn);
        return NULL;
    }
    json_decref(fn);
    return e;
}

int tsync__map_set_writable(const tsync_map_set *set, const tsync_trace *t, tsync_ctx *ctx)
{
    if (set->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL,
                           "%s: the map set is for %u locations, the trace has %u",
                           t->path, set->n_locations, t->n_locations);
    for (uint32_t loc = 0; loc < t->n_locations; loc++)
        if (set->of[loc] && t->locations[loc].ref > (uint64_t)INT64_MAX)
            return tsync__fail(ctx, TSYNC_EUNSUPPORTED,
                               "%s: location %llu: its id does not fit a JSON integer", t->path,
                               (unsigned long long)t->locations[loc].ref);
    return TSYNC_OK;
}

void tsync__map_entry_text(struct tsync__text *out, const tsync_trace *t, uint32_t loc,
                           const tsync_time_map *m, size_t flags)
{
    json_t *e = location_entry(t, loc, m, 0);
    char *s = e ? json_dumps(e, flags) : NULL;
    size_t len = s ? strlen(s) : 0;
    json_decref(e);
    if (!len) {
        out->bad = 1;
        free(s);
        return;
    }
    if (m->kind != TSYNC_MAP_POINTS) {
        tsync__text_putn(out, s, len);
        free(s);
        return;
    }
    /* The selector's object without its closing brace, then the points. */
    tsync__text_putn(out, s, len - 1);
    free(s);
    tsync__text_put(out, ",\"points\":[");
    /* Each point (each bound) written backwards from its end, then appended. */
    for (size_t i = 0; i < m->n; i++) {
        char b[2 * TSYNC__I64_CHARS + 4], *p = b + sizeof(b);
        *--p = ']';
        p = tsync__i64_text(p, m->global[i]);
        *--p = ',';
        p = tsync__i64_text(p, m->local[i]);
        *--p = '[';
        if (i)
            *--p = ',';
        tsync__text_putn(out, p, (size_t)(b + sizeof(b) - p));
    }
    tsync__text_put(out, "]");
    if (m->bounds) {
        tsync__text_put(out, ",\"bounds\":[");
        for (size_t i = 0; i < m->n; i++) {
            char b[TSYNC__I64_CHARS + 1], *p = tsync__i64_text(b + sizeof(b), m->bounds[i]);
            if (i)
                *--p = ',';
            tsync__text_putn(out, p, (size_t)(b + sizeof(b) - p));
        }
        tsync__text_put(out, "]");
    }
    tsync__text_put(out, "}");
}

/* The document for tsync__map_set_to_json, with an error code. */
static int build_json(json_t **out, const tsync_map_set *set, const tsync_trace *t, tsync_ctx *ctx)
{
    json_t *root, *maps;
    int rc;
    if ((rc = tsync__map_set_writable(set, t, ctx)))
        return rc;
    root = json_pack("{s:s, s:i, s:I}", "format", "tracesync-maps", "version", 1,
                     "timer_resolution", (json_int_t)t->timer_resolution);
    if (!root || !(maps = json_array()) || json_object_set_new(root, "maps", maps))
        goto oom;
    for (uint32_t loc = 0; loc < t->n_locations; loc++)
        if (set->of[loc] && json_array_append_new(maps, location_entry(t, loc, set->of[loc], 1)))
            goto oom;
    *out = root;
    return TSYNC_OK;
oom:
    json_decref(root);
    return tsync__oom(ctx);
}

json_t *tsync__map_set_to_json(const tsync_map_set *set, const tsync_trace *t, tsync_ctx *ctx)
{
    json_t *root = NULL;
    return build_json(&root, set, t, ctx) ? NULL : root;
}

/* Fewest significant digits (%.Ng) that read back as exactly d. */
static int shortest_digits(double d)
{
    char buf[64];
    for (int p = 1; p < 17; p++) {
        snprintf(buf, sizeof(buf), "%.*g", p, d);
        if (strtod(buf, NULL) == d)
            return p;
    }
    return 17;
}

/* Writes the document: top level by hand, one map per line. */
static int write_doc(FILE *f, json_t *root)
{
    json_t *maps = json_object_get(root, "maps"), *e;
    size_t i;
    fprintf(f, "{\n  \"format\": \"tracesync-maps\",\n  \"version\": 1,\n"
            "  \"timer_resolution\": %lld,\n  \"maps\": [",
            (long long)json_integer_value(json_object_get(root, "timer_resolution")));
    json_array_foreach(maps, i, e) {
        json_t *d = json_object_get(e, "drift");
        int digits = d ? shortest_digits(json_real_value(d)) : 17;
        char *s = json_dumps(e, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(digits));
        if (!s)
            return -1;
        fprintf(f, "%s\n    %s", i ? "," : "", s);
        free(s);
    }
    fprintf(f, "%s]\n}\n", json_array_size(maps) ? "\n  " : "");
    return 0;
}

int tsync_map_set_save(const tsync_map_set *set, const tsync_trace *t, const char *path,
                       tsync_ctx *ctx)
{
    json_t *root = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    int rc = build_json(&root, set, t, ctx);
    if (rc)
        return rc;
    /* The text in memory, then written as every output is (util/outdir.c). */
    if ((f = open_memstream(&text, &len))) {
        int bad = write_doc(f, root);
        if (fclose(f) != 0 || bad)
            f = NULL;
    }
    rc = f ? tsync_write_text_output(path, text, ctx) : tsync__oom(ctx);
    free(text);
    json_decref(root);
    return rc;
}
