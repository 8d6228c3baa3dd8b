/* OpenMP states as gprofng numbers them (its omp_state: the OMP2_INFO
 * record of a frame packet, experiment-format.md §6.1a), shared by the
 * writer that classifies clock samples and the reader. */
#ifndef ER_OMP_H
#define ER_OMP_H

enum er_omp_state {
  ER_OMP_NONE = 0,   /* not an OpenMP thread's sample (no OMP2_INFO written) */
  ER_OMP_OVERHEAD = 1,
  ER_OMP_WORK = 2,
  ER_OMP_IMPLICIT_BARRIER = 3,
  ER_OMP_EXPLICIT_BARRIER = 4,
  ER_OMP_IDLE = 5,
  ER_OMP_SERIAL = 6,
  ER_OMP_REDUCTION = 7,
  ER_OMP_LOCK_WAIT = 8,
  ER_OMP_CRITICAL_WAIT = 9,
  ER_OMP_ORDERED_WAIT = 10,
  ER_OMP_ATOMIC_WAIT = 11,
  ER_OMP_TASKWAIT = 12,
  ER_OMP_N_STATES
};

/* "work", "implicit barrier", ... ("" for ER_OMP_NONE and unknown values). */
const char *er_omp_state_name(int state);
/* gprofng's OpenMP Work (work, serial, reduction), Wait (barriers, idle,
 * the waits) and Overhead: 'w', 'W', 'o', or 0 for ER_OMP_NONE. */
char er_omp_state_class(int state);

#endif
