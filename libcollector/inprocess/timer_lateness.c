/* A CPU-time timer's sample that came late, under CPU load.
 *
 * The kernel checks CPU-time timers at its scheduler tick, and only for
 * the thread running on that CPU then.  A thread the tick finds running
 * gets its signal within a tick of its timer's expiry.  Under load
 * (more threads ready than CPUs) the ticks find some code far more often
 * than its share of the CPU: code running in user mode is switched out
 * at a tick (the tick finds it), code that makes system calls is switched
 * out at the first one after its slice ends, mostly between ticks (the
 * ticks find the other thread).  Measured on a 2-vCPU VM (kernel 6.18,
 * 4 ms tick): a thread pinned to one CPU with a busy thread of its own,
 * alternating 50 ms of work that reads its CPU clock every 50 us and 50
 * ms of a plain loop, had a third to two thirds of its work's samples
 * and all of its loop's (docs/measurements.md).  Each sample carries the
 * CPU time since the thread's last, so the work's time that no tick
 * found went to the loop's next sample: 1.76 s for a loop of 1.11 s,
 * 0.34 s for work of 1.00 s; an OpenMP program's master had its serial
 * work recorded as its barrier's wait.
 *
 * Where the thread was preempted since its last sample and the sample
 * stands for more than an interval and the tick's lateness, that much
 * stays at its stack and the rest goes under a pseudo-function that says
 * it was not sampled: the time is whole, and no function gets time it
 * did not run.  A thread that was not preempted keeps its whole weight:
 * one that runs in short bursts between sleeps is seen by the ticks that
 * fall in its bursts, each burst in proportion to its length, so its late
 * samples are where its time went (a server's request threads). */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/pseudo_function.h"
#include "er/er_pseudo_functions.h"
#include "inprocess/timer_lateness.h"

#define DEFAULT_TICK_NS 10000000 /* HZ 100, the longest tick distributions use */

/* The most intervals a sample on time stands for: its own, and the tick
 * the kernel may take to see it expired (at least an interval: the
 * rounding to whole intervals carries a part over to the next sample). */
static int64_t most_on_time(int64_t interval_ns, int64_t tick_ns)
{
  int64_t slack = tick_ns > interval_ns ? tick_ns : interval_ns;
  return (interval_ns + slack + interval_ns / 2) / interval_ns;
}

struct col_timer_split col_timer_split(int64_t n, int64_t interval_ns, int64_t tick_ns, int preempted)
{
  struct col_timer_split split = {(uint32_t)(n > 0 ? n : 0), 0};
  if (!preempted || interval_ns <= 0)
    return split;
  int64_t most = most_on_time(interval_ns, tick_ns);
  if (n > most) {
    split.placed = (uint32_t)most;
    split.unplaced = (uint32_t)(n - most);
  }
  return split;
}

int64_t col_timer_unplaced_ns(int64_t ns, int64_t interval_ns, int64_t tick_ns, int preempted)
{
  if (!preempted || interval_ns <= 0)
    return 0;
  int64_t most = most_on_time(interval_ns, tick_ns) * interval_ns;
  return ns > most ? ns - most : 0;
}

int64_t col_timer_tick_ns(void)
{
  static int64_t tick_ns;
  int64_t tick = __atomic_load_n(&tick_ns, __ATOMIC_RELAXED);
  if (tick > 0)
    return tick;
  struct timespec res;
  tick = clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0 ? (int64_t)res.tv_sec * 1000000000 + res.tv_nsec : 0;
  if (tick <= 0 || tick > 100000000)
    tick = DEFAULT_TICK_NS;
  __atomic_store_n(&tick_ns, tick, __ATOMIC_RELAXED);
  return tick;
}

COL_PSEUDO_FUNCTION(ER_NOT_SAMPLED_FUNCTION, col_not_sampled_frame)

long col_thread_preemptions(void)
{
  struct rusage usage;
  /* (the system call itself: nothing of libc's a handler may not call) */
  return syscall(SYS_getrusage, RUSAGE_THREAD, &usage) == 0 ? usage.ru_nivcsw : -1;
}
