/* Descendant processes of the program, as the sampler process sees them
 * (sampler_descendants.c). */
#ifndef GDBCOL_SAMPLER_DESCENDANTS_H
#define GDBCOL_SAMPLER_DESCENDANTS_H

#include <stdint.h>
#include <sys/types.h>

/* A PERF_RECORD_FORK: a new thread or (PID == TID, PID != PPID) process. */
void descendants_on_fork(pid_t pid, pid_t ppid, pid_t tid, int64_t tstamp);
/* A sample of process PID: counted when it is a descendant. */
void descendants_on_sample(pid_t pid);
/* An exec in process PID, which now runs COMM. */
void descendants_on_exec(pid_t pid, const char *comm);
/* At the end: what ran in descendants and was not recorded. */
void descendants_describe(void);

#endif
