/* Calls handed to the thread that owns the experiment's files. */
#ifndef COL_CORE_RUNTIME_CALLS_H
#define COL_CORE_RUNTIME_CALLS_H

#include <sys/types.h>

/* Runs FN(ARG) on the runtime's thread and waits for it (directly when
 * called there).  Returns 0, -ESRCH when that thread is not serving calls,
 * -ETIMEDOUT when it did not take the call in time (FN never ran). */
int col_on_runtime_thread(void (*fn)(void *), void *arg);
/* Nonzero while the calling thread waits for a call (a signal handler that
 * interrupted it must not queue another: the queue's lock is held). */
int col_in_runtime_call(void);
/* The thread that owns the runtime's files (0: none) and how to wake it. */
void col_calls_set_runtime_thread(pid_t tid, void (*wake)(void));
/* The runtime thread: start or stop taking calls; run the queued ones. */
void col_calls_accept(int yes);
void col_calls_serve(void);

/* Nonzero when the runtime's thread has a descriptor table of its own. */
extern int col_private_descriptors;

#endif
