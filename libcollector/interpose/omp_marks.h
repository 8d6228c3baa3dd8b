/* OpenMP states by marker frames (omp_interpose.c): the sections the
 * wrappers of libgomp's entry points live in, one per state, and the
 * switch that puts the trampoline around regions' bodies. */
#ifndef COL_INTERPOSE_OMP_MARKS_H
#define COL_INTERPOSE_OMP_MARKS_H

/* The sections, by the state a frame in them gives a clock sample (the
 * innermost such frame decides; gprofng's omp_state names in brackets):
 *   gdbcol_omp_work      a region's body, run by our trampoline [WORK]
 *   gdbcol_omp_region    the region's master outside its body: the team's
 *                        start, then the region's end barrier [IBAR]
 *   gdbcol_omp_ibar      a worksharing construct's end barrier [IBAR]
 *   gdbcol_omp_ebar      GOMP_barrier [EBAR]
 *   gdbcol_omp_critical  a critical section's entry [CTWT]
 *   gdbcol_omp_atomic    an atomic's entry [ATWT]
 *   gdbcol_omp_ordered   an ordered section's entry [ODWT]
 *   gdbcol_omp_lock      omp_set_lock, omp_set_nest_lock [LKWT]
 *   gdbcol_omp_taskwait  taskwait, a taskgroup's end [TSKWT]
 * The sampler process finds them in the runtime's file (its section
 * headers) and in each process at the runtime's load address. */
#define COL_OMP_SECTION_PREFIX "gdbcol_omp_"

/* Nonzero while the sampler process records this process: regions'
 * bodies run through the trampoline (else the program's calls pass
 * straight through, with no frame of ours); the sampler classifies clock
 * samples by the markers and takes them out of the stacks it writes. */
extern int col_omp_marking;

/* The parallel regions running in this process now (atomic): a worker
 * waiting in libgomp while none runs idles between regions, while one
 * runs it waits at its end.  The program's own timer samples carry it
 * (core/capture.h's omp_regions): under load its master's samples come
 * too far between to say when it left its region. */
extern int col_omp_regions_running;

#endif
