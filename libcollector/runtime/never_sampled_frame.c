/* The frame a thread's CPU time is recorded under when no sample ever
 * reached the thread: a pseudo-function of the runtime named
 * <Thread-never-sampled>, set beneath the function the thread started in.
 *
 * A thread that ran less than one sampling interval (a thread per request
 * in a server) has CPU time but no stack: the kernel's periods (and the
 * CPU-time timers) count from zero in each thread, so it was never
 * sampled.  Its time still counts (sampler/sampler_tails.c samples it from
 * the thread ends), and where it went is known only down to the function
 * it started in.  Recorded as that function's own time, a server's profile
 * said its thread wrapper did all the work (python3 -m http.server: 100 %
 * exclusive in pythread_wrapper); beneath it, under a name that says what
 * it is, the start function keeps its inclusive time and none of it as
 * its own.  gprofng and our report read the name from the runtime's
 * symbol table, as any function's; angle brackets as in gprofng's own
 * <Truncated-stack>.  (Why not a real stack: one-shot timers at a random
 * point of each thread's first interval were measured to fire for a
 * quarter to a third of the threads that reached that point on this
 * kernel: CPU-time timers are checked at the scheduler's tick, and a
 * per-thread perf event cost 45 us a thread and fired late as well.) */
#include "core/pseudo_function.h"
#include "er/er_pseudo_functions.h"
#include "runtime/never_sampled_frame.h"

COL_PSEUDO_FUNCTION(ER_NEVER_SAMPLED_FUNCTION, col_never_sampled_frame)
