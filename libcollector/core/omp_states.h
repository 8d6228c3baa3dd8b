/* OpenMP states of clock samples, from the runtime's marker frames
 * (interpose/omp_marks.h; omp_states.c). */
#ifndef COL_CORE_OMP_STATES_H
#define COL_CORE_OMP_STATES_H

#include <stddef.h>
#include <stdint.h>

/* Reads the marker sections of the runtime library RUNTIME_PATH (the
 * file the program maps).  0, or -1 when it has none (then no sample gets
 * a state). */
int col_omp_states_init(const char *runtime_path);
/* The OpenMP state of a clock sample whose stack is PCS (leaf first, N of
 * them; enum er_omp_state).  0 when the process does not run OpenMP, with
 * nothing written; else PROGRAM_PCS (room for N) gets the stack without
 * the runtime's marker frames, which are the collector's, not the
 * program's, and *PROGRAM_N their count. */
int col_omp_classify(const uint64_t *pcs, size_t n, uint64_t *program_pcs, size_t *program_n);

#endif
