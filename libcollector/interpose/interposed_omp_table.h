/* omp_interpose.c: GCC's OpenMP runtime (libgomp) entry points, whose
 * wrappers' frames tell the sampler process a thread's OpenMP state
 * (interposed_table.h for what the table gives).  col_omp_fn: an outlined
 * region or task body.  Locks are passed as words (omp_lock_t *). */
#ifndef GDBCOL_INTERPOSED_OMP_TABLE_H
#define GDBCOL_INTERPOSED_OMP_TABLE_H

#define COL_OMP_FUNCTIONS(X)                                                                              \
  X(GOMP_parallel, NULL, void, (col_omp_fn, void *, unsigned, unsigned))                                  \
  X(GOMP_parallel_loop_static, NULL, void, (col_omp_fn, void *, unsigned, long, long, long, long, unsigned)) \
  X(GOMP_parallel_loop_dynamic, NULL, void, (col_omp_fn, void *, unsigned, long, long, long, long, unsigned)) \
  X(GOMP_parallel_loop_guided, NULL, void, (col_omp_fn, void *, unsigned, long, long, long, long, unsigned)) \
  X(GOMP_parallel_loop_runtime, NULL, void, (col_omp_fn, void *, unsigned, long, long, long, unsigned))   \
  X(GOMP_parallel_sections, NULL, void, (col_omp_fn, void *, unsigned, unsigned, unsigned))               \
  X(GOMP_barrier, NULL, void, (void))                                                                     \
  X(GOMP_loop_end, NULL, void, (void))                                                                    \
  X(GOMP_sections_end, NULL, void, (void))                                                                \
  X(GOMP_critical_start, NULL, void, (void))                                                              \
  X(GOMP_critical_name_start, NULL, void, (void **))                                                      \
  X(GOMP_atomic_start, NULL, void, (void))                                                                \
  X(GOMP_ordered_start, NULL, void, (void))                                                               \
  X(GOMP_taskwait, NULL, void, (void))                                                                    \
  X(GOMP_taskgroup_end, NULL, void, (void))                                                               \
  X(omp_set_lock, NULL, void, (void *))                                                                   \
  X(omp_set_nest_lock, NULL, void, (void *))

#endif
