/* The runtime's own thread: it owns the experiment's files when the
 * program samples itself (the in-process fallback). */
#ifndef COL_INPROCESS_RUNTIME_THREAD_H
#define COL_INPROCESS_RUNTIME_THREAD_H

#include <sys/types.h>

/* Starts the runtime's thread: it takes a descriptor table of its own, runs
 * START there (opening the experiment) and reports START's result; FINISH
 * runs there after the final drain (closing the experiment). */
int col_runtime_thread_start(int (*start)(void), void (*finish)(void));
/* Drains every thread's captures and writes them now (runtime thread). */
void col_runtime_thread_drain_now(void);
/* Nonzero after an injection: the runtime thread keeps GOT slots of objects loaded
 * later pointed at our wrappers. */
extern int col_patch_got;
/* Final drain and join; bounded wait.  Returns 0 when the thread finished. */
int col_runtime_thread_stop(void);

#endif
