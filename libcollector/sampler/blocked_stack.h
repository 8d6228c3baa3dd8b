/* A thread's state and stack read from outside while it is off its CPU:
 * for off-CPU time where the kernel gives no sample at a switch (an
 * ordinary user at kernel.perf_event_paranoid 2, a thread waiting since
 * before an attach), and to tell a debugger's stop from a wait. */
#ifndef GDBCOL_BLOCKED_STACK_H
#define GDBCOL_BLOCKED_STACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/PID/task/TID/NAME into BUF (NUL-terminated, LEN - 1 bytes at
 * most): the bytes read, or -1 (errno says why). */
ssize_t task_file_read(pid_t pid, pid_t tid, const char *name, char *buf, size_t len);
/* Thread TID's /proc schedstat: its time on a CPU and on a run queue (ns),
 * its arrivals on a CPU; 0 where it cannot be read (it has ended). */
int task_schedstat_read(pid_t pid, pid_t tid, uint64_t *run_ns, uint64_t *queued_ns, uint64_t *slices);
/* 0 when this process may read process PID's threads (their registers at
 * a system call, their memory), else the errno that refused it. */
int blocked_stack_access(pid_t pid);

enum blocked_state { BLOCKED_RUNS, BLOCKED_WAITS, BLOCKED_STOPPED, BLOCKED_GONE };
enum blocked_fault { FAULT_NONE, FAULT_ON_CODE, FAULT_ON_DATA };
/* What a read of a thread found. */
struct blocked_thread {
  enum blocked_state state; /* whether it runs (or may: runnable), waits, or is stopped (by a debugger, a signal) */
  long syscall_nr;          /* the system call it waits in; -1: none (a fault), -2: not known */
  enum blocked_fault fault; /* where it waits outside a system call: a page fault on its code (its PC's page
                               was not there) or on data */
  size_t depth;             /* frames of its stack read (0: none) */
};
/* Thread TID of PID, now, into *OUT; WITH_STACK: a waiting or stopped
 * thread's stack into PCS (leaf first). */
void blocked_stack_read(pid_t pid, pid_t tid, int with_stack, uint64_t *pcs, size_t max, struct blocked_thread *out);

#endif
