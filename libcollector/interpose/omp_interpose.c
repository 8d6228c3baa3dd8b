/* OpenMP states for clock profiles (issue 28; docs/design.md "OpenMP
 * states"): libgomp's entry points, interposed like every traced function
 * (preloaded, or through the GOT after an attach), each wrapper living in
 * the section of the state its frame stands for (omp_marks.h).  A sample's
 * stack then says what the thread was doing: libgomp's own entry points
 * jump into shared internals without frames of their own, so without ours
 * an explicit barrier, a region's end and a critical section's wait look
 * alike.  Nothing is recorded here, no clock is read: the cost is a call
 * and, per region, the trampoline and a count of the regions running
 * (measured: bench/omp_mechanisms.py).
 *
 * Each wrapper keeps its frame while the real function runs (no tail
 * call: the empty asm after the call), so the frame is on the stack
 * exactly while the thread is in that construct. */
#define _GNU_SOURCE
#include "interposed.h"
#include "omp_marks.h"

int col_omp_marking;
int col_omp_regions_running;

#define MARK(state) __attribute__((section(COL_OMP_SECTION_PREFIX #state), noinline, used))
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

struct region_body {
  col_omp_fn fn;
  void *data;
};

/* Every thread of the team runs the region's body through this frame. */
MARK(work) static void run_region_body(void *p)
{
  const struct region_body *body = p;
  body->fn(body->data);
  KEEP_FRAME();
}

/* The region's master calls the real entry point with the trampoline in
 * place of the body (BODY on its stack: the team ends before the call
 * returns, so no thread reads it later). */
#define REGION(name, fn, data, ...)                                             \
  do {                                                                          \
    __atomic_fetch_add(&col_omp_regions_running, 1, __ATOMIC_RELAXED);          \
    if (!__atomic_load_n(&col_omp_marking, __ATOMIC_RELAXED)) {                 \
      COL_REAL(name)(fn, data, __VA_ARGS__);                                    \
    } else {                                                                    \
      struct region_body body_ = {fn, data};                                    \
      COL_REAL(name)(run_region_body, &body_, __VA_ARGS__);                     \
    }                                                                           \
    __atomic_fetch_sub(&col_omp_regions_running, 1, __ATOMIC_RELAXED);          \
    KEEP_FRAME();                                                               \
  } while (0)

MARK(region) void col_wrap_GOMP_parallel(col_omp_fn fn, void *data, unsigned threads, unsigned flags)
{
  REGION(GOMP_parallel, fn, data, threads, flags);
}

MARK(region) void col_wrap_GOMP_parallel_loop_static(col_omp_fn fn, void *data, unsigned threads, long start,
                                                     long end, long incr, long chunk, unsigned flags)
{
  REGION(GOMP_parallel_loop_static, fn, data, threads, start, end, incr, chunk, flags);
}

MARK(region) void col_wrap_GOMP_parallel_loop_dynamic(col_omp_fn fn, void *data, unsigned threads, long start,
                                                      long end, long incr, long chunk, unsigned flags)
{
  REGION(GOMP_parallel_loop_dynamic, fn, data, threads, start, end, incr, chunk, flags);
}

MARK(region) void col_wrap_GOMP_parallel_loop_guided(col_omp_fn fn, void *data, unsigned threads, long start,
                                                     long end, long incr, long chunk, unsigned flags)
{
  REGION(GOMP_parallel_loop_guided, fn, data, threads, start, end, incr, chunk, flags);
}

MARK(region) void col_wrap_GOMP_parallel_loop_runtime(col_omp_fn fn, void *data, unsigned threads, long start,
                                                      long end, long incr, unsigned flags)
{
  REGION(GOMP_parallel_loop_runtime, fn, data, threads, start, end, incr, flags);
}

MARK(region) void col_wrap_GOMP_parallel_sections(col_omp_fn fn, void *data, unsigned threads, unsigned count,
                                                  unsigned flags)
{
  REGION(GOMP_parallel_sections, fn, data, threads, count, flags);
}

/* A construct's wait: the real call under a frame of the state's section
 * (without arguments, or with the one a lock or a critical's name is). */
#define WAIT(state, name)                          \
  MARK(state) void col_wrap_##name(void)           \
  {                                                \
    COL_REAL(name)();                              \
    KEEP_FRAME();                                  \
  }
#define WAIT_ON(state, name, type)                 \
  MARK(state) void col_wrap_##name(type object)    \
  {                                                \
    COL_REAL(name)(object);                        \
    KEEP_FRAME();                                  \
  }

WAIT(ebar, GOMP_barrier)
WAIT(ibar, GOMP_loop_end)
WAIT(ibar, GOMP_sections_end)
WAIT(critical, GOMP_critical_start)
WAIT_ON(critical, GOMP_critical_name_start, void **)
WAIT(atomic, GOMP_atomic_start)
WAIT(ordered, GOMP_ordered_start)
WAIT(taskwait, GOMP_taskwait)
WAIT(taskwait, GOMP_taskgroup_end)
WAIT_ON(lock, omp_set_lock, void *)
WAIT_ON(lock, omp_set_nest_lock, void *)

COL_PRELOAD_ALIASES(COL_OMP_FUNCTIONS)
