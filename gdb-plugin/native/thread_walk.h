/* Walking the stacks of a process GDB holds stopped (thread_walk.c); the
 * plugin calls these through ctypes. */
#ifndef GDBCOL_THREAD_WALK_H
#define GDBCOL_THREAD_WALK_H

#include <stdint.h>

/* Starts walking process PID's threads (its mappings read once, each
 * object's call frame information opened once): 0, or -1. */
int gdbcol_walk_begin(int pid);
/* The frames of thread TID (stopped, traced by the calling thread) into
 * PCS (leaf first, then each caller's call site: its return address - 1):
 * their number when the walk reached the thread's outermost frame, else -1
 * (registers not readable, a frame the rules cannot follow, memory not
 * readable, more than MAX). */
int gdbcol_walk_thread(int tid, uint64_t *pcs, int max);
/* Frees what gdbcol_walk_begin opened. */
void gdbcol_walk_end(void);

#endif
