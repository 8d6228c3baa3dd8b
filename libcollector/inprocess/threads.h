/* The runtime's table of the program's threads, the threads that block
 * the timer signal, and the scan that arms new threads. */
#ifndef COL_INPROCESS_THREADS_H
#define COL_INPROCESS_THREADS_H

#include <stdint.h>
#include <sys/types.h>

#include "core/thread_slot.h"

/* inprocess/blocked_signal.c: threads that block the timer signal are not
 * sampled; checked each thread scan, their unsampled CPU counted when they
 * end (col_blocked_signal_retire), said at the experiment's end (log.xml's
 * warning, status unsampled_ms). */
void col_blocked_signal_check(struct col_thread *t);
/* Whether thread TID of this process blocks the timer signal now (1 or
 * 0), from /proc; -1 when it is gone. */
int col_thread_blocks_timer_signal(pid_t tid);
void col_blocked_signal_retire(const struct col_thread *t);
void col_blocked_signal_warn(void);
/* Threads seen blocking the signal, and the CPU time of those that ended
 * that their samples did not reach; a new experiment starts from 0. */
struct col_blocked_figures {
  uint64_t unsampled_ns;
  unsigned blocking_threads;
};
void col_blocked_signal_describe(struct col_blocked_figures *out);
void col_blocked_signal_reset(void);

#define COL_MAX_THREADS 4096
extern struct col_thread col_threads[COL_MAX_THREADS];

/* A new slot for TID, or NULL when TID already has one or the table is
 * full.  Not for signal handlers. */
struct col_thread *col_thread_claim(pid_t tid);
void col_thread_release(struct col_thread *t);
/* In a fork's child (one thread): every slot free, the table's lock new. */
void col_threads_forked(void);
/* The published slot of TID, or NULL.  Lock-free: signal handlers use it. */
struct col_thread *col_thread_find(pid_t tid);
/* Nonzero when TID has a slot, published or being set up. */
int col_thread_known(pid_t tid);
/* Arms every thread of /proc/self/task that has no slot (except SKIP_TID)
 * and stops slots whose thread is gone; returns the number armed. */
unsigned col_scan_threads(pid_t skip_tid);

#endif
