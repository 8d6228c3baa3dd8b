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
/* Nonzero when the process runs OpenMP (libgomp loaded) and the markers
 * are known: its clock samples get states. */
int col_omp_process_is_openmp(void);

enum col_omp_frame {
  COL_OMP_FRAME_PROGRAM, /* the program's code, or anything not below */
  COL_OMP_FRAME_LIBC,
  COL_OMP_FRAME_LIBGOMP,
  COL_OMP_FRAME_MARKER, /* one of the runtime's wrappers: *MARKER_STATE its state */
};
/* The region wrapper's marker: the master between the team's start and
 * its end (outside the body, at the end barrier: the implicit barrier's
 * state).  The other markers' states are enum er_omp_state's. */
#define COL_OMP_MARK_REGION 100
/* What the frame at code address PC is (enum col_omp_frame). */
int col_omp_frame_kind(uint64_t pc, int *marker_state);

#endif
