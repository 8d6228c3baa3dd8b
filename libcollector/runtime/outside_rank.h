/* An MPI rank that no sampler process follows records itself into the
 * job's experiment (outside_rank.c). */
#ifndef COL_RUNTIME_OUTSIDE_RANK_H
#define COL_RUNTIME_OUTSIDE_RANK_H

#include "core/config.h"

enum col_rank_start { COL_RANK_NONE, COL_RANK_SAMPLED_OUTSIDE, COL_RANK_SAMPLED_INSIDE };

/* Before main, in a process the runtime reached through an MPI launcher's
 * forwarding (GDBCOL_JOB) and no sampler process follows: starts this
 * rank's own sampler process and fills CFG as for a launch into the job's
 * experiment (M_r<rank>.er).  COL_RANK_SAMPLED_INSIDE when the sampler
 * process could not start (CFG then samples from inside; WHY says why),
 * COL_RANK_NONE when this process is no such rank (both variables are
 * removed from its environment all the same). */
enum col_rank_start col_outside_rank_start(struct col_config *cfg, char *why, size_t why_len);
/* A process the sampler process does follow: the job's settings are not
 * its to use, nor to pass on. */
void col_outside_rank_forget(void);

#endif
