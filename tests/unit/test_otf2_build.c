/* test_otf2_build.c - the OTF2 archive builder, checked by reading its output back
 * with plain libotf2 (not with tracesync's own reader). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <otf2/otf2.h>

#include "io/otf2_build.h"
#include "util/ctx.h"
#include "util/fs.h"
#include "tmpfile.h"

/* ---- scratch directory ------------------------------------------------- */

/* A fresh directory $TSYNC_TEST_TMP/otf2_build/<name>; *anchor is its traces.otf2. */
static void scratch(const char *name, char *dir, size_t n, char *anchor, size_t m)
{
    tmp_fresh_dir("otf2_build", name, dir, n);
    snprintf(anchor, m, "%s/traces.otf2", dir);
}

/* ---- what a plain libotf2 reader sees ---------------------------------- */

#define MAX_EVENTS 32
#define MAX_DEFS 16

enum { EV_ENTER, EV_LEAVE, EV_SEND, EV_RECV, EV_ISEND, EV_ISEND_DONE, EV_IRECV_REQ, EV_IRECV,
       EV_COLL_BEGIN, EV_COLL_END };

struct event {
    int kind;
    uint64_t time;
    uint32_t a, b, c;   /* region | peer, comm, tag | op, comm, root */
    uint64_t d, e;      /* length | request | sent, received */
};

struct location {
    uint64_t ref;
    uint64_t n_events_def;
    uint32_t group;
    size_t n_events;
    struct event ev[MAX_EVENTS];
    size_t n_offsets;
    uint64_t off_time[4];
    int64_t off_value[4];
    double off_sd[4];
};

struct seen {
    int have_clock;
    uint64_t resolution, offset, length;
    size_t n_strings;
    char *strings[64];
    size_t n_stns;
    struct { uint32_t ref, name, cls, parent; } stn[MAX_DEFS];
    size_t n_lgroups;
    struct { uint32_t ref, name, stn; OTF2_LocationGroupType type; } lgroup[MAX_DEFS];
    size_t n_locs;
    struct location loc[MAX_DEFS];
    size_t n_regions;
    struct { uint32_t ref, name; OTF2_RegionRole role; } region[MAX_DEFS];
    size_t n_groups;
    struct { uint32_t ref; OTF2_GroupType type; uint32_t n; uint64_t members[MAX_DEFS]; } group[MAX_DEFS];
    size_t n_comms;
    struct { uint32_t ref, name, group, parent; } comm[MAX_DEFS];
    struct location *cur;
};

static const char *str(const struct seen *s, uint32_t ref)
{
    return ref < s->n_strings ? s->strings[ref] : "?";
}

static OTF2_CallbackCode g_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    struct seen *s = ud;
    (void)rt;
    s->have_clock = 1, s->resolution = res, s->offset = off, s->length = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode g_string(void *ud, OTF2_StringRef ref, const char *v)
{
    struct seen *s = ud;
    assert_int_equal(ref, s->n_strings); /* consecutive, in order */
    assert_true(s->n_strings < 64);
    s->strings[s->n_strings++] = strdup(v);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode g_stn(void *ud, OTF2_SystemTreeNodeRef ref, OTF2_StringRef name,
                               OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    struct seen *s = ud;
    assert_true(s->n_stns < MAX_DEFS);
    s->stn[s->n_stns].ref = ref, s->stn[s->n_stns].name = name;
    s->stn[s->n_stns].cls = cls, s->stn[s->n_stns].parent = parent;
    s->n_stns++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode g_lgroup(void *ud, OTF2_LocationGroupRef ref, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef stn,
                                  OTF2_LocationGroupRef creator)
{
    struct seen *s = ud;
    (void)creator;
    assert_true(s->n_lgroups < MAX_DEFS);
    s->lgroup[s->n_lgroups].ref = ref, s->lgroup[s->n_lgroups].name = name;
    s->lgroup[s->n_lgroups].type = type, s->lgroup[s->n_lgroups].stn = stn;
    s->n_lgroups++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode g_location(void *ud, OTF2_LocationRef ref, OTF2_StringRef name,
                                    OTF2_LocationType type, uint64_t n_events, OTF2_LocationGroupRef group)
{
    struct seen *s = ud;
    (void)name;
    assert_int_equal(type, OTF2_LOCATION_TYPE_CPU_THREAD);
    assert_true(s->n_locs < MAX_DEFS);
    s->loc[s->n_locs].ref = ref;
    s->loc[s->n_locs].n_events_def = n_events;
    s->loc[s->n_locs].group = group;
    s->n_locs++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode g_region(void *ud, OTF2_RegionRef ref, OTF2_StringRef name, OTF2_StringRef canon,
                                  OTF2_StringRef descr, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                  OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    struct seen *s = ud;
    (void)canon, (void)descr, (void)flags, (void)file, (void)begin, (void)end;
    assert_int_equal(paradigm, OTF2_PARADIGM_MPI);
    assert_true(s->n_regions < MAX_DEFS);
    s->region[s->n_regions].ref = ref, s->region[s->n_regions].name = name;
    s->region[s->n_regions].role = role;
    s->n_regions++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode g_group(void *ud, OTF2_GroupRef ref, OTF2_StringRef name, OTF2_GroupType type,
                                 OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n,
                                 const uint64_t *members)
{
    struct seen *s = ud;
    (void)name, (void)flags;
    assert_int_equal(paradigm, OTF2_PARADIGM_MPI);
    assert_true(s->n_groups < MAX_DEFS && n <= MAX_DEFS);
    s->group[s->n_groups].ref = ref, s->group[s->n_groups].type = type, s->group[s->n_groups].n = n;
    memcpy(s->group[s->n_groups].members, members, n * sizeof(*members));
    s->n_groups++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode g_comm(void *ud, OTF2_CommRef ref, OTF2_StringRef name, OTF2_GroupRef group,
                                OTF2_CommRef parent, OTF2_CommFlag flags)
{
    struct seen *s = ud;
    (void)flags;
    assert_true(s->n_comms < MAX_DEFS);
    s->comm[s->n_comms].ref = ref, s->comm[s->n_comms].name = name;
    s->comm[s->n_comms].group = group, s->comm[s->n_comms].parent = parent;
    s->n_comms++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode l_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    struct location *l = ((struct seen *)ud)->cur;
    assert_true(l->n_offsets < 4);
    l->off_time[l->n_offsets] = time;
    l->off_value[l->n_offsets] = offset;
    l->off_sd[l->n_offsets] = sd;
    l->n_offsets++;
    return OTF2_CALLBACK_SUCCESS;
}

static struct event *push(void *ud, int kind, OTF2_TimeStamp time)
{
    struct location *l = ((struct seen *)ud)->cur;
    struct event *e;
    assert_true(l->n_events < MAX_EVENTS);
    e = &l->ev[l->n_events++];
    memset(e, 0, sizeof(*e));
    e->kind = kind;
    e->time = time;
    return e;
}

#define EVT_ARGS OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud, OTF2_AttributeList *al
#define UNUSED_EVT (void)loc, (void)pos, (void)al

static OTF2_CallbackCode e_enter(EVT_ARGS, OTF2_RegionRef r)
{
    UNUSED_EVT;
    push(ud, EV_ENTER, time)->a = r;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(EVT_ARGS, OTF2_RegionRef r)
{
    UNUSED_EVT;
    push(ud, EV_LEAVE, time)->a = r;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_send(EVT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    struct event *e;
    UNUSED_EVT;
    e = push(ud, EV_SEND, time);
    e->a = peer, e->b = comm, e->c = tag, e->d = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_recv(EVT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    struct event *e;
    UNUSED_EVT;
    e = push(ud, EV_RECV, time);
    e->a = peer, e->b = comm, e->c = tag, e->d = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend(EVT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                                 uint64_t req)
{
    struct event *e;
    UNUSED_EVT;
    e = push(ud, EV_ISEND, time);
    e->a = peer, e->b = comm, e->c = tag, e->d = len, e->e = req;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend_done(EVT_ARGS, uint64_t req)
{
    UNUSED_EVT;
    push(ud, EV_ISEND_DONE, time)->e = req;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_irecv_req(EVT_ARGS, uint64_t req)
{
    UNUSED_EVT;
    push(ud, EV_IRECV_REQ, time)->e = req;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_irecv(EVT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                                 uint64_t req)
{
    struct event *e;
    UNUSED_EVT;
    e = push(ud, EV_IRECV, time);
    e->a = peer, e->b = comm, e->c = tag, e->d = len, e->e = req;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_coll_begin(EVT_ARGS)
{
    UNUSED_EVT;
    push(ud, EV_COLL_BEGIN, time);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_coll_end(EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                    uint64_t sent, uint64_t received)
{
    struct event *e;
    UNUSED_EVT;
    e = push(ud, EV_COLL_END, time);
    e->a = op, e->b = comm, e->c = root, e->d = sent, e->e = received;
    return OTF2_CALLBACK_SUCCESS;
}

/* Reads the whole archive into s. */
static void read_archive(const char *anchor, struct seen *s)
{
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    OTF2_GlobalDefReader *gdr;
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_DefReaderCallbacks *dcb = OTF2_DefReaderCallbacks_New();
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    uint64_t n = 0;

    memset(s, 0, sizeof(*s));
    assert_non_null(r);
    assert_int_equal(OTF2_Reader_SetSerialCollectiveCallbacks(r), OTF2_SUCCESS);

    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, g_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, g_string);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(gcb, g_stn);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(gcb, g_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, g_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, g_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, g_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, g_comm);
    gdr = OTF2_Reader_GetGlobalDefReader(r);
    assert_non_null(gdr);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, gcb, s);
    assert_int_equal(OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &n), OTF2_SUCCESS);
    OTF2_Reader_CloseGlobalDefReader(r, gdr);

    OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, l_offset);
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, e_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, e_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, e_send);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, e_recv);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, e_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, e_isend_done);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, e_irecv_req);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, e_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, e_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, e_coll_end);

    for (size_t i = 0; i < s->n_locs; i++)
        OTF2_Reader_SelectLocation(r, s->loc[i].ref);
    assert_int_equal(OTF2_Reader_OpenDefFiles(r), OTF2_SUCCESS);
    assert_int_equal(OTF2_Reader_OpenEvtFiles(r), OTF2_SUCCESS);
    for (size_t i = 0; i < s->n_locs; i++) {
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, s->loc[i].ref);
        OTF2_EvtReader *er;
        s->cur = &s->loc[i];
        assert_non_null(dr);
        OTF2_Reader_RegisterDefCallbacks(r, dr, dcb, s);
        assert_int_equal(OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n), OTF2_SUCCESS);
        OTF2_Reader_CloseDefReader(r, dr);
        er = OTF2_Reader_GetEvtReader(r, s->loc[i].ref);
        assert_non_null(er);
        OTF2_EvtReader_ApplyClockOffsets(er, false); /* raw times, as written */
        OTF2_Reader_RegisterEvtCallbacks(r, er, ecb, s);
        assert_int_equal(OTF2_Reader_ReadAllLocalEvents(r, er, &n), OTF2_SUCCESS);
        OTF2_Reader_CloseEvtReader(r, er);
    }
    OTF2_Reader_CloseEvtFiles(r);
    OTF2_Reader_CloseDefFiles(r);
    OTF2_Reader_Close(r);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_DefReaderCallbacks_Delete(dcb);
    OTF2_EvtReaderCallbacks_Delete(ecb);
}

static void free_seen(struct seen *s)
{
    for (size_t i = 0; i < s->n_strings; i++)
        free(s->strings[i]);
}

static const struct location *loc_by_ref(const struct seen *s, uint64_t ref)
{
    for (size_t i = 0; i < s->n_locs; i++)
        if (s->loc[i].ref == ref)
            return &s->loc[i];
    fail_msg("location %llu not defined", (unsigned long long)ref);
    return NULL;
}

/* ---- tests ------------------------------------------------------------- */

/* Two ranks on two nodes with EZTrace-like location ids: a message whose receive
 * is earlier than its send, an Isend/Irecv pair, a barrier, clock offsets. */
static void test_roundtrip(void **state)
{
    static const char *const nodes[] = { "alpha", "beta" };
    static const uint32_t rank_node[] = { 0, 1 };
    static const uint64_t rank_loc[] = { 0, 536870911 };
    static const uint32_t members[] = { 1, 0 };
    const struct tsync_otf2_build_comm comms[] = { { 3, 2, members } };
    char dir[4096], anchor[4200];
    struct tsync_otf2_build_layout layout = {
        .anchor = anchor, .timer_resolution = 1000000000, .n_nodes = 2, .nodes = nodes,
        .n_ranks = 2, .rank_node = rank_node, .rank_location = rank_loc, .n_comms = 1, .comms = comms,
    };
    struct tsync_otf2_builder *b;
    tsync_ctx *ctx;
    struct seen s;
    (void)state;

    scratch("roundtrip", dir, sizeof(dir), anchor, sizeof(anchor));
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__otf2_build_open(&b, &layout, ctx), 0);

    assert_int_equal(tsync__otf2_build_clock_offset(b, 0, 0, 1000, 1.5), 0);
    assert_int_equal(tsync__otf2_build_clock_offset(b, 1, 0, -2000, 0.5), 0);
    /* rank 0 */
    assert_int_equal(tsync__otf2_build_enter(b, 0, 100, "MPI_Send"), 0);
    assert_int_equal(tsync__otf2_build_send(b, 0, 110, 0, 1, 7, 8), 0);
    assert_int_equal(tsync__otf2_build_leave(b, 0, 120, "MPI_Send"), 0);
    assert_int_equal(tsync__otf2_build_isend(b, 0, 130, 3, 0, 9, 64, 42), 0);
    assert_int_equal(tsync__otf2_build_isend_complete(b, 0, 140, 42), 0);
    assert_int_equal(tsync__otf2_build_enter(b, 0, 200, "MPI_Barrier"), 0);
    assert_int_equal(tsync__otf2_build_coll_begin(b, 0, 201), 0);
    assert_int_equal(tsync__otf2_build_coll_end(b, 0, 250, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                                OTF2_UNDEFINED_UINT32, 0, 0), 0);
    assert_int_equal(tsync__otf2_build_leave(b, 0, 251, "MPI_Barrier"), 0);
    /* rank 1: the receive at 105 is before the send at 110 */
    assert_int_equal(tsync__otf2_build_enter(b, 1, 90, "MPI_Recv"), 0);
    assert_int_equal(tsync__otf2_build_recv(b, 1, 105, 0, 0, 7, 8), 0);
    assert_int_equal(tsync__otf2_build_leave(b, 1, 106, "MPI_Recv"), 0);
    assert_int_equal(tsync__otf2_build_irecv_request(b, 1, 107, 5), 0);
    assert_int_equal(tsync__otf2_build_irecv(b, 1, 150, 3, 1, 9, 64, 5), 0);
    assert_int_equal(tsync__otf2_build_enter(b, 1, 190, "MPI_Barrier"), 0);
    assert_int_equal(tsync__otf2_build_coll_begin(b, 1, 191), 0);
    assert_int_equal(tsync__otf2_build_coll_end(b, 1, 260, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                                OTF2_UNDEFINED_UINT32, 0, 0), 0);
    assert_int_equal(tsync__otf2_build_leave(b, 1, 261, "MPI_Barrier"), 0);
    assert_int_equal(tsync__otf2_build_clock_offset(b, 1, 300, -2100, 0.25), 0);
    assert_int_equal(tsync__otf2_build_count(b, 0), 9);
    assert_int_equal(tsync__otf2_build_count(b, 1), 9);
    assert_int_equal(tsync__otf2_build_close(b), 0);

    read_archive(anchor, &s);

    /* ClockProperties: smallest and largest event time; offsets do not count. */
    assert_true(s.have_clock);
    assert_int_equal(s.resolution, 1000000000);
    assert_int_equal(s.offset, 90);
    assert_int_equal(s.length, 261 - 90);

    /* System tree: machine, then one node each. */
    assert_int_equal(s.n_stns, 3);
    assert_string_equal(str(&s, s.stn[0].name), "machine");
    assert_string_equal(str(&s, s.stn[0].cls), "machine");
    assert_int_equal(s.stn[0].parent, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    assert_string_equal(str(&s, s.stn[1].name), "alpha");
    assert_string_equal(str(&s, s.stn[2].name), "beta");
    assert_string_equal(str(&s, s.stn[2].cls), "node");
    assert_int_equal(s.stn[2].parent, s.stn[0].ref);

    /* One process per rank, under its node. */
    assert_int_equal(s.n_lgroups, 2);
    assert_string_equal(str(&s, s.lgroup[1].name), "MPI Rank 1");
    assert_int_equal(s.lgroup[1].type, OTF2_LOCATION_GROUP_TYPE_PROCESS);
    assert_int_equal(s.lgroup[0].stn, s.stn[1].ref);
    assert_int_equal(s.lgroup[1].stn, s.stn[2].ref);

    /* Locations with their ids and event counts. */
    assert_int_equal(s.n_locs, 2);
    assert_int_equal(s.loc[0].ref, 0);
    assert_int_equal(s.loc[1].ref, 536870911);
    assert_int_equal(s.loc[0].n_events_def, 9);
    assert_int_equal(s.loc[1].n_events_def, 9);
    assert_int_equal(s.loc[1].group, 1);

    /* Regions in order of first use. */
    assert_int_equal(s.n_regions, 3);
    assert_string_equal(str(&s, s.region[0].name), "MPI_Send");
    assert_string_equal(str(&s, s.region[1].name), "MPI_Barrier");
    assert_string_equal(str(&s, s.region[2].name), "MPI_Recv");
    assert_int_equal(s.region[0].role, OTF2_REGION_ROLE_POINT2POINT);
    assert_int_equal(s.region[1].role, OTF2_REGION_ROLE_BARRIER);

    /* Groups: locations of the world ranks, MPI_COMM_WORLD, comm 3 = ranks {1, 0}. */
    assert_int_equal(s.n_groups, 3);
    assert_int_equal(s.group[0].type, OTF2_GROUP_TYPE_COMM_LOCATIONS);
    assert_int_equal(s.group[0].n, 2);
    assert_int_equal(s.group[0].members[0], 0);
    assert_int_equal(s.group[0].members[1], 536870911);
    assert_int_equal(s.group[1].type, OTF2_GROUP_TYPE_COMM_GROUP);
    assert_int_equal(s.group[1].n, 2);
    assert_int_equal(s.group[1].members[1], 1);
    assert_int_equal(s.group[2].type, OTF2_GROUP_TYPE_COMM_GROUP);
    assert_int_equal(s.group[2].members[0], 1);
    assert_int_equal(s.group[2].members[1], 0);
    assert_int_equal(s.n_comms, 2);
    assert_int_equal(s.comm[0].ref, 0);
    assert_string_equal(str(&s, s.comm[0].name), "MPI_COMM_WORLD");
    assert_int_equal(s.comm[0].group, s.group[1].ref);
    assert_int_equal(s.comm[0].parent, OTF2_UNDEFINED_COMM);
    assert_int_equal(s.comm[1].ref, 3);
    assert_int_equal(s.comm[1].group, s.group[2].ref);
    assert_int_equal(s.comm[1].parent, 0);

    /* Events of rank 0, as written. */
    const struct location *l0 = loc_by_ref(&s, 0), *l1 = loc_by_ref(&s, 536870911);
    assert_int_equal(l0->n_events, 9);
    assert_int_equal(l0->ev[0].kind, EV_ENTER);
    assert_int_equal(l0->ev[0].time, 100);
    assert_int_equal(l0->ev[0].a, 0);
    assert_int_equal(l0->ev[1].kind, EV_SEND);
    assert_int_equal(l0->ev[1].time, 110);
    assert_int_equal(l0->ev[1].a, 1);   /* peer */
    assert_int_equal(l0->ev[1].b, 0);   /* comm */
    assert_int_equal(l0->ev[1].c, 7);   /* tag */
    assert_int_equal(l0->ev[1].d, 8);   /* length */
    assert_int_equal(l0->ev[3].kind, EV_ISEND);
    assert_int_equal(l0->ev[3].b, 3);
    assert_int_equal(l0->ev[3].e, 42);
    assert_int_equal(l0->ev[4].kind, EV_ISEND_DONE);
    assert_int_equal(l0->ev[4].e, 42);
    assert_int_equal(l0->ev[6].kind, EV_COLL_BEGIN);
    assert_int_equal(l0->ev[6].time, 201);
    assert_int_equal(l0->ev[7].kind, EV_COLL_END);
    assert_int_equal(l0->ev[7].time, 250);
    assert_int_equal(l0->ev[7].a, OTF2_COLLECTIVE_OP_BARRIER);
    assert_int_equal(l0->ev[7].c, OTF2_UNDEFINED_UINT32);
    assert_int_equal(l0->ev[8].kind, EV_LEAVE);
    assert_int_equal(l0->ev[8].a, 1);

    /* Rank 1: the early receive and the Irecv pair. */
    assert_int_equal(l1->n_events, 9);
    assert_int_equal(l1->ev[1].kind, EV_RECV);
    assert_int_equal(l1->ev[1].time, 105);
    assert_int_equal(l1->ev[1].a, 0);
    assert_int_equal(l1->ev[3].kind, EV_IRECV_REQ);
    assert_int_equal(l1->ev[3].e, 5);
    assert_int_equal(l1->ev[4].kind, EV_IRECV);
    assert_int_equal(l1->ev[4].time, 150);
    assert_int_equal(l1->ev[4].e, 5);
    assert_int_equal(l1->ev[8].time, 261);

    /* Clock offsets are local definitions of each location. */
    assert_int_equal(l0->n_offsets, 1);
    assert_int_equal(l0->off_value[0], 1000);
    assert_true(l0->off_sd[0] == 1.5);
    assert_int_equal(l1->n_offsets, 2);
    assert_int_equal(l1->off_time[1], 300);
    assert_int_equal(l1->off_value[0], -2000);
    assert_int_equal(l1->off_value[1], -2100);
    assert_true(l1->off_sd[1] == 0.25);

    free_seen(&s);
    tsync_ctx_free(ctx);
}

/* Default location ids are the ranks; "Rank N" names on request; no events gives
 * an empty time range. */
static void test_defaults(void **state)
{
    static const char *const nodes[] = { "solo" };
    static const uint32_t rank_node[] = { 0, 0, 0 };
    char dir[4096], anchor[4200];
    struct tsync_otf2_build_layout layout = {
        .anchor = anchor, .timer_resolution = 1000000, .n_nodes = 1, .nodes = nodes,
        .n_ranks = 3, .rank_node = rank_node, .rank_names = true,
    };
    struct tsync_otf2_builder *b;
    struct seen s;
    (void)state;

    scratch("defaults", dir, sizeof(dir), anchor, sizeof(anchor));
    assert_int_equal(tsync__otf2_build_open(&b, &layout, NULL), 0);
    assert_int_equal(tsync__otf2_build_close(b), 0);
    read_archive(anchor, &s);
    assert_int_equal(s.resolution, 1000000);
    assert_int_equal(s.offset, 0);
    assert_int_equal(s.length, 0);
    assert_int_equal(s.n_locs, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(s.loc[i].ref, i);
        assert_int_equal(s.loc[i].n_events, 0);
    }
    assert_int_equal(s.n_regions, 0);
    assert_int_equal(s.n_comms, 1);
    free_seen(&s);
}

/* Bad layouts are refused before anything is created. */
static void test_bad_layout(void **state)
{
    static const char *const nodes[] = { "n" };
    static const uint32_t rank_node[] = { 0, 0 };
    static const uint32_t bad_node[] = { 0, 1 };
    static const uint64_t same_loc[] = { 7, 7 };
    static const uint32_t members[] = { 0, 2 };
    const struct tsync_otf2_build_comm world_again[] = { { 0, 1, members } };
    const struct tsync_otf2_build_comm bad_member[] = { { 4, 2, members } };
    char dir[4096], anchor[4200];
    struct tsync_otf2_build_layout ok = {
        .anchor = anchor, .timer_resolution = 1000, .n_nodes = 1, .nodes = nodes,
        .n_ranks = 2, .rank_node = rank_node,
    };
    struct tsync_otf2_build_layout l;
    struct tsync_otf2_builder *b = (void *)&l;
    struct stat sb;
    tsync_ctx *ctx;
    (void)state;

    scratch("bad_layout", dir, sizeof(dir), anchor, sizeof(anchor));
    assert_int_equal(tsync_ctx_new(&ctx), 0);

    l = ok, l.timer_resolution = 0;
    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), TSYNC_EINVAL);
    assert_null(b);
    l = ok, l.n_ranks = 0;
    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), TSYNC_EINVAL);
    l = ok, l.rank_node = bad_node;
    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "rank 1"));
    l = ok, l.rank_location = same_loc;
    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), TSYNC_EINVAL);
    l = ok, l.n_comms = 1, l.comms = world_again;
    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), TSYNC_EINVAL);
    l = ok, l.n_comms = 1, l.comms = bad_member;
    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), TSYNC_EINVAL);
    assert_int_equal(stat(anchor, &sb), -1);

    tsync_ctx_free(ctx);
}

/* An unknown rank fails and the failure sticks; an archive that exists already is
 * refused; libotf2's refusal of a time going back on one location is an EIO. */
static void test_errors(void **state)
{
    static const char *const nodes[] = { "n" };
    static const uint32_t rank_node[] = { 0, 0 };
    char dir[4096], anchor[4200];
    struct tsync_otf2_build_layout l = {
        .anchor = anchor, .timer_resolution = 1000, .n_nodes = 1, .nodes = nodes,
        .n_ranks = 2, .rank_node = rank_node,
    };
    struct tsync_otf2_builder *b;
    tsync_ctx *ctx;
    (void)state;

    scratch("errors", dir, sizeof(dir), anchor, sizeof(anchor));
    assert_int_equal(tsync_ctx_new(&ctx), 0);

    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), 0);
    assert_int_equal(tsync__otf2_build_enter(b, 0, 10, "MPI_Send"), 0);
    assert_int_equal(tsync__otf2_build_send(b, 2, 11, 0, 1, 0, 0), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "rank 2"));
    assert_int_equal(tsync__otf2_build_leave(b, 0, 12, "MPI_Send"), TSYNC_EINVAL);
    assert_int_equal(tsync__otf2_build_close(b), TSYNC_EINVAL);

    /* The directory holds an archive now (without global definitions). */
    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), TSYNC_EIO);
    assert_non_null(strstr(tsync_ctx_error(ctx), "exists already"));

    scratch("errors", dir, sizeof(dir), anchor, sizeof(anchor));
    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), 0);
    assert_int_equal(tsync__otf2_build_enter(b, 1, 100, "MPI_Recv"), 0);
    assert_int_equal(tsync__otf2_build_enter(b, 0, 50, "MPI_Recv"), 0); /* other rank: fine */
    assert_int_equal(tsync__otf2_build_leave(b, 1, 99, "MPI_Recv"), TSYNC_EIO);
    assert_non_null(strstr(tsync_ctx_error(ctx), anchor));
    assert_non_null(strstr(tsync_ctx_error(ctx), "rank 1"));
    assert_int_equal(tsync__otf2_build_close(b), TSYNC_EIO);

    assert_int_equal(tsync__otf2_build_close(NULL), 0);
    tsync_ctx_free(ctx);
}

/* More events than the chunks an event writer may hold: the builder streams them
 * to the file, and libotf2 adds no BufferFlush events on the way. */
static void test_many_events(void **state)
{
    static const char *const nodes[] = { "n" };
    static const uint32_t rank_node[] = { 0 };
    char dir[4096], anchor[4200];
    struct tsync_otf2_build_layout l = {
        .anchor = anchor, .timer_resolution = 1000, .n_nodes = 1, .nodes = nodes,
        .n_ranks = 1, .rank_node = rank_node,
    };
    struct tsync_otf2_builder *b;
    OTF2_Reader *r;
    OTF2_EvtReader *er;
    uint64_t want = 2000000, n_read = 0;
    struct stat sb;
    char evt[4300];
    (void)state;

    scratch("many", dir, sizeof(dir), anchor, sizeof(anchor));
    assert_int_equal(tsync__otf2_build_open(&b, &l, NULL), 0);
    for (uint64_t i = 0; i < want; i += 2) {
        assert_int_equal(tsync__otf2_build_enter(b, 0, 1000 + i, "MPI_Send"), 0);
        assert_int_equal(tsync__otf2_build_leave(b, 0, 1001 + i, "MPI_Send"), 0);
    }
    assert_int_equal(tsync__otf2_build_close(b), 0);
    snprintf(evt, sizeof(evt), "%s/traces/0.evt", dir);
    assert_int_equal(stat(evt, &sb), 0);
    assert_true(sb.st_size > 4 * 1024 * 1024); /* more than the chunks held in memory */

    r = OTF2_Reader_Open(anchor);
    assert_non_null(r);
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    OTF2_Reader_SelectLocation(r, 0);
    assert_int_equal(OTF2_Reader_OpenEvtFiles(r), OTF2_SUCCESS);
    er = OTF2_Reader_GetEvtReader(r, 0);
    assert_non_null(er);
    /* No callbacks: every record counts, BufferFlush included. */
    assert_int_equal(OTF2_Reader_ReadAllLocalEvents(r, er, &n_read), OTF2_SUCCESS);
    assert_int_equal(n_read, want);
    OTF2_Reader_CloseEvtReader(r, er);
    OTF2_Reader_CloseEvtFiles(r);
    OTF2_Reader_Close(r);
    tsync__remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_bad_layout),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_many_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
