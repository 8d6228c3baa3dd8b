/* Traced events (every traced kind) and counter overflows into their
 * kinds' data files, with their stacks. */
#ifndef COL_CORE_TRACE_WRITER_H
#define COL_CORE_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/capture.h"
#include "er/er_data_kinds.h"

struct col_trace_event;
/* The capture event E's registers and stack copy stand for (weight 1), to
 * be unwound as a clock sample's is. */
void col_trace_event_capture(const struct col_trace_event *e, struct col_capture *cap);
/* A traced event unwound and written: its kind's packet, the common header
 * then its payload. */
void col_trace_writer_write(const struct col_trace_event *e);
int col_trace_writer_start(void);
void col_trace_writer_flush(void);
void col_trace_writer_count(void);
void col_trace_writer_abandon(int err);
/* Events of a traced kind, or counter overflows, written so far. */
uint64_t col_kind_events_written(enum er_kind kind);
/* What the writer did, for log.xml: per data kind written here, packets
 * written and not written (the latter counted as they happen; the former
 * updated by col_trace_writer_count); how traced events' stacks came:
 * walked on the program's thread, or unwound here from a copy. */
struct col_trace_figures {
  uint64_t written[ER_N_KINDS], not_written[ER_N_KINDS];
  uint64_t stacks_walked_here, stacks_from_copies;
};
void col_trace_writer_describe(struct col_trace_figures *out);
/* trace_writer.c, counter overflows (hwcounters): CAP's overflow of
 * counter TAG, standing for EVENTS events, unwound into PCS (room for
 * ER_MAX_STACK_DEPTH + 2); returns the stack's depth.  The packet alone:
 * a thread tail's, with a stack known already. */
size_t col_counter_writer_write(const struct col_capture *cap, uint32_t tag, uint64_t events, uint64_t *pcs);
void col_counter_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t tag, uint64_t events,
                               const uint64_t *pcs, size_t n);

#endif
