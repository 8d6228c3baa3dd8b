/* Descendant processes of the program, as the sampler process sees them
 * (sampler_descendants.c). */
#ifndef GDBCOL_SAMPLER_DESCENDANTS_H
#define GDBCOL_SAMPLER_DESCENDANTS_H

#include <stdint.h>
#include <sys/types.h>

/* A PERF_RECORD_FORK: a new thread or (PID == TID, PID != PPID) process. */
void descendants_on_fork(pid_t pid, pid_t ppid, pid_t tid, int64_t tstamp);
/* A clock sample of process PID worth PERIODS clock periods: counted when
 * it is a descendant. */
void descendants_on_sample(pid_t pid, uint64_t periods);
/* A descendant nobody could follow, running COMMAND (perf events refused:
 * a spawn whose child carried no runtime). */
void descendants_unfollowed(const char *command);
/* An exec in process PID, which now runs COMM. */
void descendants_on_exec(pid_t pid, const char *comm);
/* At the end: what ran in descendants and was not recorded (log.xml). */
void descendants_warn(void);
/* For the status: the descendants not recorded and their samples; a
 * descendant's writer starts from 0. */
struct descendants_figures {
  uint64_t seen, samples;
  int64_t children_cpu_ms; /* perf events refused: the CPU the kernel summed for them; -1: not known */
};
/* Perf events refused: the CPU of the descendants the program waited for
 * (the kernel's sum, at the program's end). */
void descendants_children_cpu(int64_t ms);
void descendants_describe(struct descendants_figures *out);
/* The kernel's sum for the children waited for where it is more than
 * their samples say (each misses what the other counts: a process
 * shorter than the interval may take no sample), else -1. */
int64_t descendants_kernel_cpu_over_samples(const struct descendants_figures *f);
void descendants_reset_figures(void);

#endif
