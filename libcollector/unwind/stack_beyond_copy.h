/* A stack cut where its copy ended, walked on in the thread's live stack
 * (stack_beyond_copy.c). */
#ifndef GDBCOL_STACK_BEYOND_COPY_H
#define GDBCOL_STACK_BEYOND_COPY_H

#include "core/capture.h"
#include "er/er_timer_spec.h"
#include "unwind/stack_prints.h"

/* The largest copy that is extended (collector profile stack's ceiling). */
#define COL_STACK_BEYOND_MAX_COPY ER_STACK_COPY_MAX

struct col_stack_beyond_stats {
  uint64_t moved_on;   /* the copy's last bytes had changed, or what lay beyond it: left cut */
  uint64_t unreadable; /* the thread's memory could not be read (it ended, or no right to) */
};

/* CAP's copy with up to WANT bytes of the live stack beyond it in *OUT
 * (its bytes in a buffer of this file's, valid until the next call):
 * JOINED, with STACK_ENDS where the stack (or what was kept of it) ended
 * before WANT, FROM_KEPT where the thread's last reading served (FRESH:
 * only where the live stack cannot be read); 0 where the live stack no
 * longer matches the copy's end or cannot be read (counted in STATS). */
#define COL_BEYOND_JOINED 1
#define COL_BEYOND_STACK_ENDS 2
#define COL_BEYOND_FROM_KEPT 4
int col_stack_beyond_copy(const struct col_capture *cap, size_t want, int fresh, struct col_capture *out,
                          struct col_stack_beyond_stats *stats);

#endif
