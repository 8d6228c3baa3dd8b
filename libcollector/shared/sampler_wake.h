/* The signal that wakes the sampler process before its cycle's end: sent
 * by the runtime when one of the shared rings (the trace ring, the control
 * page's) fills faster than the cycle drains it or when it waits for the
 * sampler, and by GDB when it asks for a status, marks a stop or waits
 * for its requests to be taken (gdb_collector/outside.py).  The sampler
 * keeps it blocked outside its waits, so one sent while it works is not
 * lost: its next wait returns at once. */
#ifndef GDBCOL_SAMPLER_WAKE_H
#define GDBCOL_SAMPLER_WAKE_H

#include <signal.h>

#define COL_SAMPLER_WAKE_SIGNAL SIGURG

#endif
