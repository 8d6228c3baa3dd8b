/* Which MPI rank a process is, as its launcher told it. */
#ifndef COL_CORE_JOB_RANK_H
#define COL_CORE_JOB_RANK_H

#include <sys/types.h>

/* PID's rank in its MPI job (MPI_COMM_WORLD), from the environment it
 * started with; -1 when it is not a rank (or it cannot be read). */
int col_job_rank(pid_t pid);

#endif
