/* The runtime's state in the program: collecting or not, its end, exec. */
#ifndef COL_RUNTIME_COLLECTOR_MAIN_H
#define COL_RUNTIME_COLLECTOR_MAIN_H

/* Nonzero while an experiment is open in this process (not a fork child). */
int col_collecting(void);
void col_close_experiment(const char *why);
/* Before an exec of WHAT: the experiment is written up to now and ends
 * with exec_start.  Returns nonzero when it did (this is the profiled
 * process), so that a failed exec is recorded by col_exec_failed. */
int col_exec_starting(const char *variant, const char *what);
void col_exec_failed(const char *variant, const char *what, int err);

/* Collecting, in this process or the one it was forked from (no system
 * call: for the wrappers' fast paths). */
int col_active(void);

#endif
