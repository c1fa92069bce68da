/* buffer.c - the event records of this process: a bounded buffer in memory
 * (TRACESYNC_MEM_BLOCKSIZE x TRACESYNC_MEM_MAXBLOCKS bytes), appended to a flush
 * file under TRACESYNC_FLUSH_PREFIX when full (counted), read back in order when
 * the archives are written. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"

struct tsc_state tsc;

void tsc_warn(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tracesync-collect: rank %d: ", tsc.rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int flush_buffer(void)
{
    if (!tsc.spill) {
        snprintf(tsc.spill_path, sizeof tsc.spill_path, "%s/tracesync-flush-%ld-%d.XXXXXX",
                 tsc.cfg.flush_prefix, (long)getpid(), tsc.rank);
        int fd = mkstemp(tsc.spill_path);
        if (fd < 0 || !(tsc.spill = fdopen(fd, "w+b"))) {
            tsc_warn("cannot create a flush file in %s: %s; recording stops", tsc.cfg.flush_prefix,
                     strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        unlink(tsc.spill_path); /* gone with the process, whatever happens */
    }
    if (fwrite(tsc.buf, sizeof *tsc.buf, tsc.n_buf, tsc.spill) != tsc.n_buf) {
        tsc_warn("cannot write the flush file: %s; recording stops", strerror(errno));
        return -1;
    }
    tsc.n_flushes++;
    tsc.n_buf = 0;
    return 0;
}

struct tsc_rec *tsc_record_at(enum tsc_kind kind, uint64_t local_ns, uint64_t truth_ns)
{
    static struct tsc_rec dropped;
    if (tsc.n_buf == tsc.cap_buf && (!tsc.active || flush_buffer() != 0)) {
        tsc.active = false;
        return &dropped;
    }
    struct tsc_rec *r = &tsc.buf[tsc.n_buf++];
    *r = (struct tsc_rec){ .stamp = tsc_stamp(&tsc.clock, local_ns), .truth = truth_ns, .kind = (uint8_t)kind };
    tsc.n_events++;
    return r;
}

void tsc_tick(void)
{
    tsc.now_local = tsc_clock_now(&tsc.clock, &tsc.now_truth);
}

struct tsc_rec *tsc_record_now(enum tsc_kind kind)
{
    return tsc_record_at(kind, tsc.now_local, tsc.now_truth);
}

struct tsc_rec *tsc_record(enum tsc_kind kind)
{
    tsc_tick();
    return tsc_record_now(kind);
}

void tsc_enter(enum tsc_region region)
{
    tsc_record(TSC_ENTER)->region = (uint16_t)region;
}

void tsc_leave(enum tsc_region region)
{
    tsc_record(TSC_LEAVE)->region = (uint16_t)region;
}

void tsc_leave_now(enum tsc_region region)
{
    tsc_record_now(TSC_LEAVE)->region = (uint16_t)region;
}

int tsc_records_each(int (*fn)(const struct tsc_rec *r, void *payload), void *payload)
{
    int rc;
    if (tsc.spill) {
        struct tsc_rec chunk[1024];
        size_t n;
        rewind(tsc.spill);
        while ((n = fread(chunk, sizeof *chunk, 1024, tsc.spill)) > 0)
            for (size_t i = 0; i < n; i++)
                if ((rc = fn(&chunk[i], payload)) != 0)
                    return rc;
        if (ferror(tsc.spill)) {
            tsc_warn("cannot read the flush file back: %s", strerror(errno));
            return -1;
        }
    }
    for (size_t i = 0; i < tsc.n_buf; i++)
        if ((rc = fn(&tsc.buf[i], payload)) != 0)
            return rc;
    return 0;
}

void tsc_records_free(void)
{
    free(tsc.buf);
    tsc.buf = NULL;
    tsc.n_buf = tsc.cap_buf = 0;
    if (tsc.spill)
        fclose(tsc.spill);
    tsc.spill = NULL;
}
