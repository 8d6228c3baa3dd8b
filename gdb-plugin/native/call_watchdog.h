/* A deadline for one inferior call at a time (see call_watchdog.c). */
#ifndef GDBCOL_CALL_WATCHDOG_H
#define GDBCOL_CALL_WATCHDOG_H

/* After TIMEOUT_MS, sends SIGNAL_NUMBER to thread TID of process PID,
 * unless stopped first.  Returns 0, or -1 when no watcher could start. */
int gdbcol_watchdog_start(int pid, int tid, int signal_number, int timeout_ms);
/* Disarms; returns 1 when the signal was sent (the call timed out). */
int gdbcol_watchdog_stop(void);

#endif
