/* One clock sample of an OpenMP program seen as OpenMP shows it
 * (omp_sample.c): its state, its parallel region and task, the native
 * stack without the collector's frames (machine mode) and the user-mode
 * stack (libgomp's frames out, a worker's stack re-rooted where its
 * region's master called the region). */
#ifndef COL_CORE_OMP_SAMPLE_H
#define COL_CORE_OMP_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "er/er_format.h"

#define COL_OMP_MAX_FRAMES (ER_MAX_STACK_DEPTH + 2)
#define COL_OMP_MAX_DESCRIPTIONS 8

/* A region or task as gprofng describes it (omptrace kinds 15, 16). */
struct col_omp_description {
  int task;    /* 0: a parallel region, 1: a task */
  uint64_t id; /* the outlined function's entry address */
  uint64_t parent;
};

struct col_omp_sample {
  int state;      /* enum er_omp_state */
  uint64_t region; /* the parallel region it is in, 0: none (serial, idle) */
  uint64_t task;   /* the explicit task it runs, 0: its region's implicit task */
  size_t machine_n, user_n;
  uint64_t machine[COL_OMP_MAX_FRAMES];
  uint64_t user[COL_OMP_MAX_FRAMES];
  /* what this sample tells of regions and tasks: the master's view of a
   * region (its parent), a task's parent */
  size_t n_descriptions;
  struct col_omp_description descriptions[COL_OMP_MAX_DESCRIPTIONS];
};

/* A new experiment: what earlier samples taught is forgotten. */
void col_omp_sample_start(void);
/* Thread TID's clock sample with native stack PCS (leaf first, N frames)
 * into *OUT.  0 when the process does not run OpenMP (nothing written);
 * else 1.  Samples come in time order (what a worker's stack cannot say,
 * its master's last sample does, unless the sample itself says whether a
 * region ran: REGIONS, core/capture.h's COL_OMP_REGIONS_...). */
int col_omp_sample_of(pid_t tid, const uint64_t *pcs, size_t n, int regions, struct col_omp_sample *out);

#endif
