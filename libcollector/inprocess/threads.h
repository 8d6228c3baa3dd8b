/* The runtime's table of the program's threads, the threads that block
 * the timer signal, and the scan that arms new threads. */
#ifndef COL_INPROCESS_THREADS_H
#define COL_INPROCESS_THREADS_H

#include <stdint.h>
#include <sys/types.h>

#include "core/thread_slot.h"

/* inprocess/blocked_signal.c: threads that block the timer signal are not
 * sampled; checked each thread scan, their unsampled CPU counted when they
 * end, said at the experiment's end (log.xml, status unsampled_ms). */
void col_blocked_signal_check(struct col_thread *t);
uint64_t col_blocked_signal_unsampled(const struct col_thread *t);
void col_blocked_signal_describe(void);

#define COL_MAX_THREADS 4096
extern struct col_thread col_threads[COL_MAX_THREADS];

/* A new slot for TID, or NULL when TID already has one or the table is
 * full.  Not for signal handlers. */
struct col_thread *col_thread_claim(pid_t tid);
void col_thread_release(struct col_thread *t);
/* The published slot of TID, or NULL.  Lock-free: signal handlers use it. */
struct col_thread *col_thread_find(pid_t tid);
/* Nonzero when TID has a slot, published or being set up. */
int col_thread_known(pid_t tid);
/* Arms every thread of /proc/self/task that has no slot (except SKIP_TID)
 * and stops slots whose thread is gone; returns the number armed. */
unsigned col_scan_threads(pid_t skip_tid);

#endif
