/* otf2_records.h - glue between libotf2's per-record callbacks and our readers.
 *
 * otf2_records.c is generated at build time (otf2_records_gen.py) from the libotf2
 * headers: one copy callback per event and definition record, one record callback
 * per event record. This header declares what the generated code calls back into.
 */
#ifndef TSYNC_IO_OTF2_RECORDS_H
#define TSYNC_IO_OTF2_RECORDS_H

#include <otf2/otf2.h>
#include "tracesync/common.h"

/* State of copying one location's events to a writer, timestamps replaced. */
struct tsync_otf2_evt_copy {
    OTF2_EvtWriter *writer;
    const tsync_time *time;  /* new timestamps, one per event */
    uint64_t n_events;
    uint64_t next;           /* index of the next event */
    OTF2_ErrorCode error;    /* first writer error */
    int overrun;             /* more events in the file than in the model */
};

/* State of copying definitions; writer is an OTF2_GlobalDefWriter or OTF2_DefWriter. */
struct tsync_otf2_def_copy {
    void *writer;
    OTF2_ErrorCode error;
};

/* The new timestamp of the next event (and advances). */
static inline OTF2_TimeStamp tsync__otf2_copy_time(struct tsync_otf2_evt_copy *c, OTF2_TimeStamp old)
{
    if (c->next >= c->n_events) {
        c->overrun = 1;
        return old;
    }
    return (OTF2_TimeStamp)c->time[c->next++];
}

/* A second timestamp of the record (BufferFlush stop time), moved as its event was. */
static inline OTF2_TimeStamp tsync__otf2_copy_shift(struct tsync_otf2_evt_copy *c, OTF2_TimeStamp old,
                                                    OTF2_TimeStamp other)
{
    if (c->next == 0 || c->overrun)
        return other;
    return other + (OTF2_TimeStamp)(c->time[c->next - 1] - (tsync_time)old);
}

static inline OTF2_CallbackCode tsync__otf2_copy_status(struct tsync_otf2_evt_copy *c, OTF2_ErrorCode e)
{
    if (e != OTF2_SUCCESS || c->overrun) {
        if (e != OTF2_SUCCESS && c->error == OTF2_SUCCESS)
            c->error = e;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static inline OTF2_CallbackCode tsync__otf2_def_status(struct tsync_otf2_def_copy *c, OTF2_ErrorCode e)
{
    if (e != OTF2_SUCCESS) {
        if (c->error == OTF2_SUCCESS)
            c->error = e;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* Implemented by the OTF2 reader: one more event at `location`. */
OTF2_CallbackCode tsync__otf2_record_event(void *reader_state, OTF2_LocationRef location,
                                           OTF2_TimeStamp time, uint64_t position);

/* Generated: register callbacks for every record type libotf2 knows. */
void tsync__otf2_copy_events(OTF2_EvtReaderCallbacks *cb);
void tsync__otf2_record_events(OTF2_EvtReaderCallbacks *cb);
void tsync__otf2_copy_global_defs(OTF2_GlobalDefReaderCallbacks *cb);
void tsync__otf2_copy_local_defs(OTF2_DefReaderCallbacks *cb);

#endif
