/* Hypervisor steal beside perf's clock.
 *
 * Measured in clean-clone CI runs: with 2.74 s of steal during one GDB run,
 * offcpu_mix's compute phase was recorded as 1.45 s of CPU where the thread's
 * own CPU clock said 1.00 s (and 1.61 s in another).  perf's task-clock
 * samples come from a timer on the guest's clock while the thread is
 * scheduled in, so time the host took from the virtual CPU under the
 * thread counts as its own; the thread's CPU clock (and getrusage, and
 * gprofng's statistics) leave it out.  The samples cannot be told apart
 * afterwards: the run says how much was taken instead of a silent error. */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "core/experiment_log.h"
#include "core/status_file.h"
#include "host_steal.h"

#define STEAL_SAID_SECONDS 0.1 /* below this, nothing worth a word */
#define STEAL_SAID_SHARE 0.02  /* of the recorded CPU */

static double at_start;

double host_steal_seconds(void)
{
  FILE *f = fopen("/proc/stat", "re");
  if (f == NULL)
    return 0;
  unsigned long long user, nice, system, idle, iowait, irq, softirq, steal = 0;
  int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle, &iowait, &irq,
                 &softirq, &steal);
  fclose(f);
  return n == 8 ? (double)steal / (double)sysconf(_SC_CLK_TCK) : 0;
}

void host_steal_start(void)
{
  at_start = host_steal_seconds();
}

void host_steal_describe(double recorded_cpu)
{
  double stolen = host_steal_seconds() - at_start;
  if (stolen < STEAL_SAID_SECONDS || stolen < STEAL_SAID_SHARE * recorded_cpu)
    return;
  col_log_final_warning(200, "the host took %.2f s of this machine's CPU time during the run (hypervisor steal, "
                        "/proc/stat): perf's clock counts what it took from the program's threads as theirs, so "
                        "their CPU time may read up to that much high (the threads' own CPU clocks leave it out)",
                        stolen);
  col_status_add_note("the host took %.2f s of this machine's CPU during the run (hypervisor steal): the recorded "
                      "CPU may read up to that much high", stolen);
}
