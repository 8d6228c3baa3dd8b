/* CPU time in the kernel beside CPU time in the program's own code:
 * in_system_calls reads 64 KiB blocks from /dev/zero (nearly all of it
 * system time: the kernel clears the buffer), in_own_code computes; they
 * take turns of 20 ms each for SECONDS of CPU in all.
 *     kernel_time [SECONDS]
 * Prints syscalls_cpu=S own_cpu=S (its thread's CPU clock, user and
 * system time, around each function's calls). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double thread_cpu(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) void in_system_calls(int fd, double seconds)
{
  static char block[65536];
  double until = thread_cpu() + seconds;
  while (thread_cpu() < until)
    for (int i = 0; i < 20; i++)
      if (read(fd, block, sizeof block) != (ssize_t)sizeof block)
        exit(1);
}

static volatile double sink;

static __attribute__((noinline)) void in_own_code(double seconds)
{
  double until = thread_cpu() + seconds, x = 1.0;
  while (thread_cpu() < until)
    for (int i = 0; i < 20000; i++)
      x = x * 1.0000001 + 1e-9;
  sink = x;
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 1.0, in_calls = 0, in_own = 0;
  int fd = open("/dev/zero", O_RDONLY);
  if (fd < 0)
    return 1;
  while (in_calls + in_own < seconds) {
    double t0 = thread_cpu();
    in_system_calls(fd, 0.020);
    double t1 = thread_cpu();
    in_own_code(0.020);
    double t2 = thread_cpu();
    in_calls += t1 - t0;
    in_own += t2 - t1;
  }
  printf("syscalls_cpu=%.3f own_cpu=%.3f\n", in_calls, in_own);
  return 0;
}
