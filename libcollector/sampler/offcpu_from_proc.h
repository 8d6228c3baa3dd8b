/* Off-CPU time where the kernel refuses perf events (no switch records):
 * each thread's time off its CPU measured from /proc/PID/task/TID/schedstat
 * every few milliseconds, its waits read from outside (blocked_stack.h),
 * recorded through sampler_offcpu.h (offcpu_from_proc.c). */
#ifndef GDBCOL_OFFCPU_FROM_PROC_H
#define GDBCOL_OFFCPU_FROM_PROC_H

#include <stdint.h>
#include <sys/types.h>

/* The run of process PID begins: its threads there now are measured from
 * now on. */
void offcpu_from_proc_start(pid_t pid);
/* Every thread's time since the last poll, if one is due at NOW.
 * Returns the nanoseconds until the next is due. */
int64_t offcpu_from_proc_poll(int64_t now);
/* The run ended: what was kept of the threads is dropped (their time
 * since the last poll is not recorded: at most one poll's interval). */
void offcpu_from_proc_finish(void);

/* What the polls did, for log.xml. */
struct offcpu_from_proc_figures {
  uint64_t polls, thread_reads, stack_reads, stack_reads_torn;
  uint64_t stacks_not_read; /* waits read whose stack was not had */
  int read_errno;           /* why, the last time */
  int64_t interval_ns; /* the last poll's interval (more threads: longer) */
};
void offcpu_from_proc_describe(struct offcpu_from_proc_figures *out);

#endif
