/* What every data writer shares (the stack store, the data limit's
 * check) and the traced events' and counters' writers. */
#ifndef COL_CORE_DATA_WRITERS_H
#define COL_CORE_DATA_WRITERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "er/er_data_kinds.h"
#include "core/capture.h"

/* Nonzero when data stamped TSTAMP is to be written (not paused, within
 * the limit; counted when kept out). */
int col_writer_wanted_at(int64_t tstamp);
/* Anonymous zeroed memory for a writer's state (no malloc in a signal
 * handler's reach). */
void *col_map_zeroed(size_t bytes);
int col_stack_store_start(void);
/* The FRINFO of stack PCS[0..N) in data.frameinfo (0: not recorded). */
uint64_t col_writer_stack_id(const uint64_t *pcs, size_t n);
/* data.frameinfo flushed; 0 when a stack was lost (the packets not yet
 * written are given up). */
int col_writer_stacks_on_disk(void);
struct er_cursor;
/* Whether a packet of SIZE bytes using stack FRINFO may go to CURSOR now:
 * not when its stack was not recorded at the data limit, nor when it would
 * close a block before its stack reached the disk. */
int col_writer_may_append(struct er_cursor *cursor, uint64_t frinfo, size_t size);
/* Every data writer (clock packets, traced events) at once: started with an
 * experiment after the stack store, flushed after their stacks (and their
 * counts updated), given up when a stack could not be written. */
int col_data_writers_start(void);
void col_data_writers_flush(void);
void col_data_writers_abandon(int err);
struct col_trace_event;
/* A traced event unwound and written: its kind's packet, the common header
 * then its payload. */
void col_trace_writer_write(const struct col_trace_event *e);
int col_trace_writer_start(void);
void col_trace_writer_flush(void);
void col_trace_writer_count(void);
void col_trace_writer_abandon(int err);
/* Events of a traced kind, or counter overflows, written so far. */
uint64_t col_kind_events_written(enum er_kind kind);
/* Per data kind written here: packets written and not written (the latter
 * counted as they happen; the former updated by col_trace_writer_count). */
extern uint64_t col_kind_written[ER_N_KINDS], col_kind_not_written[ER_N_KINDS];
/* trace_writer.c, counter overflows (hwcounters): CAP's overflow of
 * counter TAG, standing for EVENTS events, unwound into PCS (room for
 * ER_MAX_STACK_DEPTH + 2); returns the stack's depth.  The packet alone:
 * a thread tail's, with a stack known already. */
size_t col_counter_writer_write(const struct col_capture *cap, uint32_t tag, uint64_t events, uint64_t *pcs);
void col_counter_writer_packet(pid_t tid, uint32_t cpu, int64_t tstamp, uint32_t tag, uint64_t events,
                               const uint64_t *pcs, size_t n);
/* How traced events' stacks came: walked on the program's thread, or unwound here from a copy. */
extern uint64_t col_trace_stacks_walked_here, col_trace_stacks_from_copies;

#endif
