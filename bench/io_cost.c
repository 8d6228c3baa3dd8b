/* The cost of I/O tracing, measured by the program itself.
 *   io_cost write N   N writes of 64 bytes to /dev/null (a call that costs
 *                     the kernel almost nothing): prints us_per_call=
 *                     and calls=N
 *   io_cost bursts N  the same N writes in bursts of 500 with 100 ms of
 *                     sleep between them (a tracer's buffers drain in the
 *                     pauses): the time inside the bursts only, so what
 *                     the program's own thread pays per call; also its
 *                     thread CPU time per call, thread_cpu_us_per_call= */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double clock_seconds(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
  return clock_seconds(CLOCK_MONOTONIC);
}

/* This thread's own CPU: what a tracer costs the program's thread, apart
 * from the time it waits while other processes (a sampler) run. */
static double thread_cpu(void)
{
  return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

int main(int argc, char **argv)
{
  if (argc != 3 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "bursts") != 0))
    return 2;
  long burst = strcmp(argv[1], "bursts") == 0 ? 500 : 0;
  long n = atol(argv[2]);
  static char buf[64];
  int fd = open("/dev/null", O_WRONLY);
  if (fd < 0)
    return 1;
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  long faults_before = usage.ru_minflt;
  double spent = 0, t0 = now(), cpu0 = thread_cpu(), cpu = 0;
  for (long i = 0; i < n; i++) {
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
      return 1;
    if (burst > 0 && (i + 1) % burst == 0) {
      spent += now() - t0;
      cpu += thread_cpu() - cpu0;
      struct timespec pause = {0, 100000000L};
      nanosleep(&pause, NULL);
      t0 = now();
      cpu0 = thread_cpu();
    }
  }
  spent += now() - t0;
  cpu += thread_cpu() - cpu0;
  getrusage(RUSAGE_SELF, &usage);
  printf("us_per_call=%.3f thread_cpu_us_per_call=%.3f calls=%ld minor_faults_in_calls=%ld\n", spent * 1e6 / n,
         cpu * 1e6 / n, n, usage.ru_minflt - faults_before);
  close(fd);
  return 0;
}
