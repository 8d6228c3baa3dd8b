/* What the recording itself costs (the runtime thread or the sampler
 * process), reported in log.xml at the end. */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <time.h>

#include "core/recording_cost.h"

static struct col_recording_cost cost;

void col_recording_cost_describe(struct col_recording_cost *out)
{
  *out = cost;
}

void col_recording_cost_reset(void)
{
  cost = (struct col_recording_cost){0, 0, 0};
}

void col_recording_cost_add_records(double seconds)
{
  cost.records_seconds += seconds;
}

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
  cost.cpu_seconds = cpu.tv_sec + cpu.tv_nsec / 1e9;
  cost.system_share = 0;
  if (getrusage(rusage_who, &usage) == 0) {
    double user = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
    double system = usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    if (user + system > 0)
      cost.system_share = system / (user + system);
  }
}
