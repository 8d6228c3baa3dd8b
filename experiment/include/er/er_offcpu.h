/* Why a thread was off its CPU (`collector profile offcpu`): the reason
 * an off-CPU clock packet carries (its REASON field, ours, where the
 * packet had padding) and the micro-state gprofng reads for it (MSTATE,
 * its Solaris numbering: docs/experiment-format.md §5.4).  One table of
 * function names decides the reason, for the writer (from the stack where
 * the thread left its CPU) and for our reports alike. */
#ifndef ER_OFFCPU_H
#define ER_OFFCPU_H

#include <stdint.h>

enum er_offcpu_reason {
  ER_OFFCPU_NONE = 0,     /* on the CPU (a CPU sample) */
  ER_OFFCPU_RUNNABLE = 1, /* preempted, waiting for a CPU */
  ER_OFFCPU_SLEEP = 2,    /* asleep: nanosleep, pause, waiting for a child or a signal */
  ER_OFFCPU_IO = 3,       /* in a read, write, poll, ... call */
  ER_OFFCPU_LOCK = 4,     /* waiting for a mutex, condition, semaphore, join, barrier */
  ER_OFFCPU_BLOCKED = 5,  /* blocked, in a call no name explains (or no stack seen) */
  ER_OFFCPU_STOPPED = 6,  /* stopped by a debugger (GDB at a breakpoint) or a stop signal */
  ER_OFFCPU_TEXT_FAULT = 7, /* in a page fault on its code (the page of its PC was not there) */
  ER_OFFCPU_DATA_FAULT = 8, /* in a page fault on data */
  ER_OFFCPU_REASONS = 9
};

/* gprofng's micro-states (LMS_*). */
#define ER_MSTATE_SYSTEM 1
#define ER_MSTATE_TEXT_FAULT 3
#define ER_MSTATE_DATA_FAULT 4
#define ER_MSTATE_USER_LOCK 6
#define ER_MSTATE_SLEEP 7
#define ER_MSTATE_WAIT_CPU 8
#define ER_MSTATE_STOPPED 9
#define ER_NUMSTATES 10 /* log.xml's numstates when off-CPU states are recorded */

/* The reason a function on a blocked thread's stack gives (NONE: says
 * nothing; look further up the stack).  NAME may carry glibc's prefixes
 * (__libc_read, __GI___nanosleep, __read). */
enum er_offcpu_reason er_offcpu_reason_of_function(const char *name);
/* The reason a blocked thread's system call gives (its number NR, this
 * machine's; NONE for a call the table does not know): for a thread read
 * while it waited, where its stack's names say nothing (a system call
 * made directly, not through glibc's entry point). */
enum er_offcpu_reason er_offcpu_reason_of_syscall(long nr);
/* The micro-state gprofng counts REASON's time in: Wait CPU, User Lock,
 * Stopped, Text or Data Page Fault, or Sleep (gprofng has no I/O state;
 * Solaris counted I/O as sleep). */
int32_t er_offcpu_mstate(enum er_offcpu_reason reason);
/* "waiting for a CPU", "sleeping", ...; the column titles of reports. */
const char *er_offcpu_reason_title(enum er_offcpu_reason reason);
/* Whether a clock packet's MSTATE is time on a CPU (user, system, trap,
 * Linux's CPU) rather than off it. */
int er_mstate_on_cpu(int32_t mstate);

#endif
