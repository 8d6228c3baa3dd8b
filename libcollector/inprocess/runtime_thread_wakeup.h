/* How the runtime's own thread (sampling from inside the program) is
 * woken: an epoll set with the perf descriptors it drains and a signalfd
 * for the timer signal other threads send it.  Its own module, below both
 * the clock sources (which watch descriptors and poke it) and the thread
 * itself. */
#ifndef COL_INPROCESS_RUNTIME_THREAD_WAKEUP_H
#define COL_INPROCESS_RUNTIME_THREAD_WAKEUP_H

#include <sys/types.h>

/* On the runtime's thread: this thread is the one woken from now on
 * (0, or -errno when the descriptors could not be made). */
int col_wakeup_open(void);
/* Waits up to MS for data or a poke; drains the pokes. */
void col_wakeup_wait(int ms);
/* The thread ends: the descriptors closed, no thread to wake. */
void col_wakeup_close(void);

/* The runtime thread's id (0: none; never sampled). */
pid_t col_runtime_thread_tid(void);
/* Perf descriptors are watched with epoll so the thread wakes on data. */
void col_runtime_thread_watch_fd(int fd);
/* Wakes the thread (a thread ended) without waiting; async-signal-safe. */
void col_runtime_thread_poke(void);

#endif
