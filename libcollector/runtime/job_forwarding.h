/* An MPI launcher started with the runtime passes the job's settings to
 * the ranks it starts on other nodes (job_forwarding.c). */
#ifndef COL_RUNTIME_JOB_FORWARDING_H
#define COL_RUNTIME_JOB_FORWARDING_H

/* In a process the sampler process records (the founder, or a descendant
 * it follows), before main: when the program is an MPI launcher, puts the
 * runtime (LD_PRELOAD) and the job's settings (GDBCOL_JOB) in its
 * environment, where the launcher forwards them to every rank, and tells
 * the sampler process what it did.  RUNTIME_PATH: this library. */
void col_job_forward_if_launcher(const char *runtime_path);

#endif
