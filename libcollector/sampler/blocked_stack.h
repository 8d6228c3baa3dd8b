/* A thread's state and stack read from outside while it is off its CPU:
 * for off-CPU time where the kernel gives no sample at a switch (an
 * ordinary user at kernel.perf_event_paranoid 2, a thread waiting since
 * before an attach), and to tell a debugger's stop from a wait. */
#ifndef GDBCOL_BLOCKED_STACK_H
#define GDBCOL_BLOCKED_STACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 0 when this process may read process PID's threads (their registers at
 * a system call, their memory), else the errno that refused it. */
int blocked_stack_access(pid_t pid);

enum blocked_state { BLOCKED_RUNS, BLOCKED_WAITS, BLOCKED_STOPPED, BLOCKED_GONE };
/* Thread TID of PID, now: whether it runs (or may: runnable), waits, or is
 * stopped (by a debugger, or a stop signal).  WITH_STACK: a waiting or
 * stopped thread's stack into PCS (leaf first, *DEPTH frames; 0 when it
 * could not be read) and the system call it waits in (*SYSCALL_NR; -1:
 * none, or not read). */
enum blocked_state blocked_stack_read(pid_t pid, pid_t tid, int with_stack, uint64_t *pcs, size_t max,
                                      size_t *depth, long *syscall_nr);

#endif
