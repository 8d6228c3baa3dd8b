/* Starting the sampler process on this very process, from its runtime
 * before main (sampler_start.c): for an MPI rank on another node, and for
 * a launch that did not go through gdbcol-launch. */
#ifndef COL_RUNTIME_SAMPLER_START_H
#define COL_RUNTIME_SAMPLER_START_H

#include <sys/types.h>

/* Runs SAMPLER ("--rank" or "--self" as MODE) on this process with the
 * environment ENV, and waits for its answer: 0 once it is recording (its
 * pid in *SAMPLER_PID when it says it), -1 when it could not start (it
 * wrote why in the status file, where it had one). */
int col_sampler_start_on_self(const char *sampler, const char *mode, char *const env[], pid_t *sampler_pid);

/* Under Yama's ptrace scope 1 only a process's ancestors, or the one it
 * names, may read its threads' registers and memory: the sampler process
 * SAMPLER_PID reads waiting threads for off-CPU stacks (OFFCPU: they are
 * asked for), so this process names it (before main: the program has
 * named nobody yet).  Scopes 2 and 3 allow no such exception; the sampler
 * says so.  (Also gdbcol-launch's, before its exec.) */
void col_sampler_may_read(int offcpu, pid_t sampler_pid);

#endif
