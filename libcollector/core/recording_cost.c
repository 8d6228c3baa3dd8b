/* What the sampling itself costs (the runtime's sampler thread or the
 * sampler process), reported in log.xml at the end. */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <time.h>

#include "core/recording_cost.h"

double col_recording_cpu_seconds; /* what the sampling cost, reported at the end */
double col_recording_system_share; /* of that, the part the kernel charged as system time */
double col_recording_records_seconds;

double col_thread_cpu_seconds(void)
{
  struct timespec cpu;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  return cpu.tv_sec + cpu.tv_nsec / 1e9;
}

/* The sampler's own CPU time, exact, and the kernel's share of it from
 * getrusage (tick-sampled): in a VM much of it is interrupt work charged to
 * whoever runs, which says how much of the cost is the sampler's code. */
void col_recording_cost_measure(int rusage_who, clockid_t cpu_clock)
{
  struct timespec cpu;
  struct rusage usage;
  clock_gettime(cpu_clock, &cpu);
  col_recording_cpu_seconds = cpu.tv_sec + cpu.tv_nsec / 1e9;
  col_recording_system_share = 0;
  if (getrusage(rusage_who, &usage) == 0) {
    double user = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
    double system = usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    if (user + system > 0)
      col_recording_system_share = system / (user + system);
  }
}
