/* The runtime's start and end in the program, and an exec's. */
#ifndef COL_RUNTIME_COLLECTOR_MAIN_H
#define COL_RUNTIME_COLLECTOR_MAIN_H

void col_close_experiment(const char *why);
/* Before an exec of WHAT: the experiment is written up to now and ends
 * with exec_start.  Returns nonzero when it did (this is the profiled
 * process), so that a failed exec is recorded by col_exec_failed. */
int col_exec_starting(const char *variant, const char *what);
void col_exec_failed(const char *variant, const char *what, int err);

#endif
