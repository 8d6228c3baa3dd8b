/* The program's own clock samples (perf events refused) whose stack copy
 * is larger than a trace-ring slot: the head and the parts after it put
 * together again (program_stacks.c). */
#ifndef GDBCOL_PROGRAM_STACKS_H
#define GDBCOL_PROGRAM_STACKS_H

#include <stddef.h>

#include "trace_ring.h"

/* What a whole event is given to: the event (a sample, or a thread's end)
 * and its stack copy (STACK, LEN: the event's own, or the parts joined). */
typedef void (*program_sample_fn)(const struct col_trace_event *e, const unsigned char *stack, size_t len);

/* E, a program's clock event (ER_KIND_CLOCK) or a part of one
 * (COL_TRACE_STACK_MORE): each whole event goes to DONE, in its thread's
 * order; one whose parts did not all come (a full ring) with those that
 * did, when its thread's next event comes. */
void program_stacks_on_event(const struct col_trace_event *e, program_sample_fn done);
/* The samples still waiting for parts, to DONE as they are (the end). */
void program_stacks_flush(program_sample_fn done);

#endif
